// SPDX-License-Identifier: GPL-2.0-only
/*
 * Probe: kset_uevent_ops take a const struct kobject (6.2); before, a
 * plain one.
 */
#include <linux/kobject.h>

static int fp_probe_uevent(const struct kobject *kobj,
			   struct kobj_uevent_env *env)
{
	return 0;
}

const struct kset_uevent_ops fp_probe_uevent_ops = {
	.uevent	= fp_probe_uevent,
};
