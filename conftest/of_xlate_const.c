// SPDX-License-Identifier: GPL-2.0-only
/* Probe: iommu_ops.of_xlate takes a const of_phandle_args (6.9). */
#include <linux/iommu.h>
#include <linux/of.h>

static int fp_probe_xlate(struct device *dev,
			  const struct of_phandle_args *args)
{
	return 0;
}

const struct iommu_ops fp_probe_ops = {
	.of_xlate	= fp_probe_xlate,
};
