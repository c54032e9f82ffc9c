// SPDX-License-Identifier: GPL-2.0-only
/*
 * flushpol core module: registry, contexts, dispatch, sysfs and the built-in
 * policies, and the core's module parameters.
 */
#define pr_fmt(fmt) "flushpol: " fmt

#include <linux/moduleparam.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "fp_core.h"

/**
 * fp_param_live() - whether @kp is being set at run time (sysfs)
 * @kp: the parameter
 *
 * A module's parameters are set at its load, then at run time once it is
 * live; built into the kernel (no kp->mod, and kp->name has the
 * "flushpol." prefix), at boot, then at run time.
 *
 * Return: true at run time, false while loading or booting.
 */
bool fp_param_live(const struct kernel_param *kp)
{
	return kp->mod ? kp->mod->state == MODULE_STATE_LIVE :
			 system_state == SYSTEM_RUNNING;
}
EXPORT_SYMBOL_GPL(fp_param_live);

/**
 * fp_param_refuse() - what a module parameter's set op returns for junk
 * @kp: the parameter
 * @val: the value given
 * @fallback: what the parameter keeps, for the message
 *
 * A value given on the kernel command line or to modprobe reaches the set
 * op while the module loads, where an error fails the load: for a backend,
 * that is a machine without its IOMMU driver.  So junk is then warned
 * about and the parameter keeps @fallback; written at run time (sysfs), it
 * is refused, and the parameter keeps its value.
 *
 * Return: 0 while @kp's module loads, -EINVAL afterwards.
 */
int fp_param_refuse(const struct kernel_param *kp, const char *val,
		    const char *fallback)
{
	if (fp_param_live(kp))
		return -EINVAL;
	if (kp->mod)
		pr_warn("%s.%s=%.40s is not valid: ignored, it stays %s\n",
			kp->mod->name, kp->name, val ?: "", fallback);
	else
		pr_warn("%s=%.40s is not valid: ignored, it stays %s\n",
			kp->name, val ?: "", fallback);
	return 0;
}
EXPORT_SYMBOL_GPL(fp_param_refuse);

static int fp_param_set_bool(const char *val, const struct kernel_param *kp)
{
	const char *kept = *(bool *)kp->arg ? "1" : "0";

	return param_set_bool(val, kp) ? fp_param_refuse(kp, val, kept) : 0;
}

/*
 * fp_param_bool_ops - a bool module parameter whose junk at load is
 * warned about (fp_param_refuse()); a bare name means 1, as for a bool.
 */
const struct kernel_param_ops fp_param_bool_ops = {
	.flags = KERNEL_PARAM_OPS_FL_NOARG,
	.set = fp_param_set_bool,
	.get = param_get_bool,
};
EXPORT_SYMBOL_GPL(fp_param_bool_ops);

static char fp_default_policy_name[FP_NAME_MAX] = FP_POLICY_AUTO;

static void fp_default_policy_load_fn(struct work_struct *work);
static DECLARE_WORK(fp_default_policy_load, fp_default_policy_load_fn);

/*
 * Have the default policy's module loaded, or say that it is not: new
 * contexts never load one (fp_initial_policy()), so a default in a module
 * no one loaded would otherwise go unapplied in silence.
 */
static void fp_default_policy_ensure(const char *name)
{
	if (!strcmp(name, FP_POLICY_AUTO) || fp_policy_registered(name))
		return;
	if (fp_policy_request(name) && fp_policy_registered(name))
		return;
	pr_warn("default_policy %s: no policy of that name, and no module %s%s loaded: new contexts get their backend's choice\n",
		name, FP_POLICY_ALIAS, name);
}

/* At load: modprobe cannot load a policy module before we are live. */
static void fp_default_policy_load_fn(struct work_struct *work)
{
	char name[FP_NAME_MAX];

	fp_default_policy(name);
	fp_default_policy_ensure(name);
}

/* "default" is a synonym of "auto": the backend's choice. */
static int fp_default_policy_set(const char *val, const struct kernel_param *kp)
{
	char buf[FP_NAME_MAX];
	const char *name = val ? fp_policy_name_parse(buf, val) : NULL;
	bool live = kp->mod && kp->mod->state == MODULE_STATE_LIVE;

	if (!name)
		return fp_param_refuse(kp, val, fp_default_policy_name);
	if (fp_policy_name_is_auto(name))
		name = FP_POLICY_AUTO;
	strscpy(fp_default_policy_name, name, sizeof(fp_default_policy_name));
	/*
	 * Under our parameter lock: modprobe of a policy module takes only
	 * that module's own.
	 */
	if (live)
		fp_default_policy_ensure(name);
	return 0;
}

/* NOARG: a bare "default_policy" is junk to warn about, not a failed load. */
static const struct kernel_param_ops fp_default_policy_ops = {
	.flags = KERNEL_PARAM_OPS_FL_NOARG,
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
		 "Policy of new contexts; \"auto\" (or \"default\") lets the backend choose (default: auto)");

/* The parameter is writable at run time: copy it under its lock. */
void fp_default_policy(char name[FP_NAME_MAX])
{
	kernel_param_lock(THIS_MODULE);
	strscpy(name, fp_default_policy_name, FP_NAME_MAX);
	kernel_param_unlock(THIS_MODULE);
}

static unsigned int fp_default_threshold_val;

static int fp_default_threshold_set(const char *val,
				    const struct kernel_param *kp)
{
	char old[12];
	unsigned int n;

	if (!val || kstrtouint(val, 10, &n) || n > FP_THRESHOLD_MAX) {
		snprintf(old, sizeof(old), "%u", fp_default_threshold_val);
		return fp_param_refuse(kp, val, old);
	}
	WRITE_ONCE(fp_default_threshold_val, n);
	return 0;
}

static const struct kernel_param_ops fp_default_threshold_ops = {
	.flags = KERNEL_PARAM_OPS_FL_NOARG,
	.set = fp_default_threshold_set,
	.get = param_get_uint,
};
module_param_cb(default_threshold, &fp_default_threshold_ops,
		&fp_default_threshold_val, 0644);
MODULE_PARM_DESC(default_threshold,
		 "Threshold of new contexts, in TLB entries, at most 4194304; 0 lets the backend choose (default: 0)");

/* 0: the backend's choice. */
unsigned int fp_default_threshold(void)
{
	return READ_ONCE(fp_default_threshold_val);
}

static int __init fp_init(void)
{
	int ret;

	ret = fp_sysfs_init();
	if (ret)
		return ret;
	ret = fp_builtin_policies_register();
	if (ret) {
		fp_sysfs_exit();
		return ret;
	}
	fp_latency_init();
	schedule_work(&fp_default_policy_load);
	return 0;
}

static void __exit fp_exit(void)
{
	cancel_work_sync(&fp_default_policy_load);
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
