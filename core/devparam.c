// SPDX-License-Identifier: GPL-2.0-only
/*
 * flushpol.device_policy=: settings keyed by device, from the kernel
 * command line or modprobe.d, applied whenever the device attaches to a
 * new context (at boot in the initramfs, at hotplug, after a group's type
 * changed), as pci=resource_alignment= is keyed by device:
 *
 *   flushpol.device_policy=<bus id>=<policy>[:<key>=<n>]...[,<bus id>=...]
 *
 * with <policy> a policy's name, or "default" (or "auto") to keep the
 * backend's choice, and <key> threshold, walk_ns or tlb_entries.  For
 * example 0000:01:00.0=asid,0000:02:00.0=threshold:threshold=32.
 */
#define pr_fmt(fmt) "flushpol: " fmt

#include <linux/device.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "fp_core.h"

#define FP_DEVICE_POLICY_MAX	1024

/* Only entries that parsed are kept. */
static char fp_device_policy_str[FP_DEVICE_POLICY_MAX];

struct fp_dev_settings {
	char policy[FP_NAME_MAX];
	unsigned int threshold, walk_ns, tlb_entries;	/* 0: unset */
};

static int fp_dev_key_parse(struct fp_dev_settings *s, char *kv)
{
	char *key = strsep(&kv, "=");
	unsigned int n, max, *field;

	if (!kv || kstrtouint(kv, 10, &n) || !n)
		return -EINVAL;
	if (!strcmp(key, "threshold")) {
		field = &s->threshold;
		max = FP_THRESHOLD_MAX;
	} else if (!strcmp(key, "walk_ns")) {
		field = &s->walk_ns;
		max = FP_WALK_NS_MAX;
	} else if (!strcmp(key, "tlb_entries")) {
		field = &s->tlb_entries;
		max = FP_THRESHOLD_MAX;
	} else {
		return -EINVAL;
	}
	if (n > max)
		return -EINVAL;
	*field = n;
	return 0;
}

/*
 * One "<bus id>=<policy>[:<key>=<n>]..." entry, cut up in place: sets
 * *@busid and @s.
 */
static int fp_dev_entry_parse(char *entry, const char **busid,
			      struct fp_dev_settings *s)
{
	char *rest = entry, *policy, *kv;

	memset(s, 0, sizeof(*s));
	*busid = strsep(&rest, "=");
	if (!**busid || !rest)
		return -EINVAL;
	policy = strsep(&rest, ":");
	if (!fp_policy_name_parse(s->policy, policy) ||
	    strcmp(s->policy, policy))
		return -EINVAL;
	while ((kv = strsep(&rest, ":")))
		if (fp_dev_key_parse(s, kv))
			return -EINVAL;
	return 0;
}

/*
 * Junk entries are skipped with a warning at load time, and refuse the
 * whole value at run time (nothing changes).
 */
/*
 * Scratch for a value being parsed: set ops are called one at a time
 * (under the parameters' lock at run time, single-threaded at load), and
 * built into the kernel the first call comes at boot, before any
 * allocator is up.
 */
static char fp_dev_copy[FP_DEVICE_POLICY_MAX];
static char fp_dev_entry[FP_DEVICE_POLICY_MAX];
static char fp_dev_kept[FP_DEVICE_POLICY_MAX];

static int fp_device_policy_set(const char *val, const struct kernel_param *kp)
{
	bool live = fp_param_live(kp);
	struct fp_dev_settings s;
	char *entry, *next;
	const char *busid;
	size_t len = 0;

	if (!val || strlen(val) >= FP_DEVICE_POLICY_MAX)
		return fp_param_refuse(kp, val, fp_device_policy_str);
	strscpy(fp_dev_copy, val, sizeof(fp_dev_copy));
	fp_dev_kept[0] = '\0';
	next = strim(fp_dev_copy);
	while ((entry = strsep(&next, ","))) {
		if (!*entry)
			continue;
		strscpy(fp_dev_entry, entry, sizeof(fp_dev_entry));
		if (!fp_dev_entry_parse(fp_dev_entry, &busid, &s)) {
			len += scnprintf(fp_dev_kept + len,
					 FP_DEVICE_POLICY_MAX - len, "%s%s",
					 len ? "," : "", entry);
			continue;
		}
		if (live)
			return -EINVAL;
		pr_warn("device_policy: \"%s\" is not <bus id>=<policy>[:threshold=N][:walk_ns=N][:tlb_entries=N]: skipped\n",
			entry);
	}
	strscpy(fp_device_policy_str, fp_dev_kept, sizeof(fp_device_policy_str));
	return 0;
}

static const struct kernel_param_ops fp_device_policy_ops = {
	.flags = KERNEL_PARAM_OPS_FL_NOARG,
	.set = fp_device_policy_set,
	.get = param_get_string,
};

static struct kparam_string fp_device_policy_kps = {
	.string = fp_device_policy_str,
	.maxlen = sizeof(fp_device_policy_str),
};
module_param_cb(device_policy, &fp_device_policy_ops, &fp_device_policy_kps,
		0644);
MODULE_PARM_DESC(device_policy,
		 "Settings by device, applied as it attaches to a context: <bus id>=<policy>[:threshold=N][:walk_ns=N][:tlb_entries=N][,...]; policy \"default\" keeps the backend's");

/* The entry for @name in @list (cut up in place), if any. */
static bool fp_dev_settings_find(char *list, const char *name,
				 struct fp_dev_settings *s)
{
	const char *busid;
	char *entry;

	while ((entry = strsep(&list, ",")))
		if (!fp_dev_entry_parse(entry, &busid, s) &&
		    !strcmp(busid, name))
			return true;
	return false;
}

/*
 * @dev just attached to @ctx: apply its device_policy entry.  From an
 * attach, perhaps in an async probe: a policy not loaded is reported,
 * never loaded (fp_policy_request()).
 */
void fp_device_settings_apply(struct fp_context *ctx, struct device *dev)
{
	struct fp_dev_settings s;
	char *list;
	int ret = 0;

	list = kmalloc(FP_DEVICE_POLICY_MAX, GFP_KERNEL);
	if (!list)
		return;
	kernel_param_lock(THIS_MODULE);
	strscpy(list, fp_device_policy_str, FP_DEVICE_POLICY_MAX);
	kernel_param_unlock(THIS_MODULE);
	if (!fp_dev_settings_find(list, dev_name(dev), &s))
		goto out;
	if (!fp_policy_name_is_auto(s.policy))
		ret = fp_context_set_policy_noload(ctx, s.policy);
	if (ret)
		pr_warn("%s: device_policy for %s: policy %s %s: kept %s\n",
			ctx->name, dev_name(dev), s.policy,
			ret == -EOPNOTSUPP ? "not usable here" :
			"not loaded (not autoloaded at attach)",
			rcu_access_pointer(ctx->policy)->name);
	if (s.threshold)
		fp_context_set_threshold(ctx, s.threshold);
	if (s.walk_ns)
		fp_context_set_walk_ns(ctx, s.walk_ns);
	if (s.tlb_entries)
		fp_context_set_tlb_entries(ctx, s.tlb_entries);
	pr_info("%s: device_policy for %s applied\n", ctx->name,
		dev_name(dev));
out:
	kfree(list);
}
