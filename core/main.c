// SPDX-License-Identifier: GPL-2.0-only
/*
 * flushpol core module: registry, contexts, dispatch, sysfs and the built-in
 * policies.
 */
#define pr_fmt(fmt) "flushpol: " fmt

#include <linux/moduleparam.h>
#include <linux/string.h>

#include "fp_core.h"

static char fp_default_policy_name[FP_NAME_MAX] = "auto";

/* Refuse junk at load time rather than at the first init_context. */
static int fp_default_policy_set(const char *val, const struct kernel_param *kp)
{
	char buf[FP_NAME_MAX];
	const char *name = fp_policy_name_parse(buf, val);

	if (!name)
		return -EINVAL;
	strscpy(fp_default_policy_name, name, sizeof(fp_default_policy_name));
	return 0;
}

static const struct kernel_param_ops fp_default_policy_ops = {
	.set = fp_default_policy_set,
	.get = param_get_string,
};

static struct kparam_string fp_default_policy_kps = {
	.string = fp_default_policy_name,
	.maxlen = sizeof(fp_default_policy_name),
};
module_param_cb(default_policy, &fp_default_policy_ops,
		&fp_default_policy_kps, 0644);
MODULE_PARM_DESC(default_policy,
		 "Policy of new contexts; \"auto\" lets the backend choose (default: auto)");

/* The parameter is writable at run time: copy it under its lock. */
void fp_default_policy(char name[FP_NAME_MAX])
{
	kernel_param_lock(THIS_MODULE);
	strscpy(name, fp_default_policy_name, FP_NAME_MAX);
	kernel_param_unlock(THIS_MODULE);
}

static int __init fp_init(void)
{
	int ret;

	ret = fp_sysfs_init();
	if (ret)
		return ret;
	ret = fp_builtin_policies_register();
	if (ret)
		fp_sysfs_exit();
	return ret;
}

static void __exit fp_exit(void)
{
	fp_builtin_policies_unregister();
	fp_sysfs_exit();
}

/*
 * Built into a kernel (CONFIG_FLUSHPOL=y), the core must be up before any
 * IOMMU driver probes and hands it a context: drivers register at
 * device_initcall, so the core comes a level earlier, whatever the link
 * order.  As a module this is module_init().
 */
subsys_initcall(fp_init);
module_exit(fp_exit);

MODULE_DESCRIPTION("flushpol: pluggable IOMMU TLB invalidation policies");
MODULE_AUTHOR("flushpol developers");
MODULE_VERSION(FP_VERSION);
MODULE_LICENSE("GPL");
