// SPDX-License-Identifier: GPL-2.0-only
/*
 * Probe: platform_driver.remove returns void (6.11); before, the void
 * callback was .remove_new, which 6.13 removed.
 */
#include <linux/platform_device.h>

static void fp_probe_remove(struct platform_device *pdev)
{
}

struct platform_driver fp_probe_driver = {
	.remove	= fp_probe_remove,
};
