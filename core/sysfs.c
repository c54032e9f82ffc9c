// SPDX-License-Identifier: GPL-2.0-only
/*
 * /sys/kernel/flushpol: the registered policies and one directory per live
 * context, in which a policy and a threshold can be chosen and statistics
 * read.  Handlers here only parse; the changes themselves are made by the
 * same fp_context_set_*() functions every other caller uses.
 */
#define pr_fmt(fmt) "flushpol: " fmt

#include <linux/capability.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "fp_core.h"

static struct kobject *fp_root;
static struct kset *fp_contexts_kset;
/* /sys/kernel/flushpol/devices: a device's bus id -> its context. */
static struct kobject *fp_devices_kobj;

static struct fp_context *to_fp_context(struct kobject *kobj)
{
	return container_of(kobj, struct fp_context, kobj);
}

static ssize_t policies_show(struct kobject *kobj, struct kobj_attribute *attr,
			     char *buf)
{
	return fp_policies_show(buf, NULL, NULL);
}

static struct kobj_attribute fp_policies_attr = __ATTR_RO(policies);

/* sysfs hands us @count bytes; a NUL inside them would hide the rest. */
static bool fp_input_clean(const char *buf, size_t count)
{
	return strnlen(buf, count) == count;
}

/* latency: whether the latency histograms are kept (latency.c). */
static ssize_t latency_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%d\n", fp_latency_on());
}

static ssize_t latency_store(struct kobject *kobj, struct kobj_attribute *attr,
			     const char *buf, size_t count)
{
	unsigned int v;

	if (!fp_input_clean(buf, count) || kstrtouint(buf, 10, &v) || v > 1)
		return -EINVAL;
	fp_latency_set(v);
	return count;
}

static struct kobj_attribute fp_latency_attr = __ATTR_RW(latency);

static ssize_t policy_show(struct kobject *kobj, struct kobj_attribute *attr,
			   char *buf)
{
	struct fp_context *ctx = to_fp_context(kobj);

	fp_context_follow_type(ctx);
	return fp_policies_show(buf, ctx, rcu_access_pointer(ctx->policy));
}

static ssize_t policy_store(struct kobject *kobj, struct kobj_attribute *attr,
			    const char *buf, size_t count)
{
	char copy[FP_NAME_MAX];
	const char *name = fp_policy_name_parse(copy, buf);
	int ret;

	if (!name || !fp_input_clean(buf, count))
		return -EINVAL;
	fp_context_follow_type(to_fp_context(kobj));
	ret = fp_context_set_policy(to_fp_context(kobj), name);
	return ret ?: count;
}

static struct kobj_attribute fp_policy_attr = __ATTR_RW(policy);

static ssize_t threshold_show(struct kobject *kobj,
			      struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", fp_context_threshold(to_fp_context(kobj)));
}

static ssize_t threshold_store(struct kobject *kobj,
			       struct kobj_attribute *attr, const char *buf,
			       size_t count)
{
	unsigned long pages;
	int ret;

	if (!fp_input_clean(buf, count) || kstrtoul(buf, 10, &pages))
		return -EINVAL;
	ret = fp_context_set_threshold(to_fp_context(kobj), pages);
	return ret ?: count;
}

static struct kobj_attribute fp_threshold_attr = __ATTR_RW(threshold);

static ssize_t backend_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%s\n", to_fp_context(kobj)->cfg.backend);
}

static struct kobj_attribute fp_backend_attr = __ATTR_RO(backend);

static ssize_t strict_show(struct kobject *kobj, struct kobj_attribute *attr,
			   char *buf)
{
	struct fp_context *ctx = to_fp_context(kobj);

	fp_context_follow_type(ctx);
	return sysfs_emit(buf, "%d\n", !fp_context_is_lazy(ctx));
}

static struct kobj_attribute fp_strict_attr = __ATTR_RO(strict);

static ssize_t group_show(struct kobject *kobj, struct kobj_attribute *attr,
			  char *buf)
{
	return fp_links_show_groups(to_fp_context(kobj), buf);
}

static struct kobj_attribute fp_group_attr = __ATTR_RO(group);

static struct attribute *fp_context_attrs[] = {
	&fp_policy_attr.attr,
	&fp_threshold_attr.attr,
	&fp_backend_attr.attr,
	&fp_strict_attr.attr,
	&fp_group_attr.attr,
	NULL,
};

static const struct attribute_group fp_context_group = {
	.attrs = fp_context_attrs,
};

/* stats/: one counter per file. */
struct fp_stat_attr {
	struct kobj_attribute attr;
	enum fp_stat stat;
};

static ssize_t fp_stat_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	struct fp_stat_attr *sa = container_of(attr, struct fp_stat_attr, attr);

	return sysfs_emit(buf, "%llu\n", fp_context_stat(to_fp_context(kobj),
							 sa->stat));
}

#define FP_STAT_ATTR(_name, _stat)					\
	static struct fp_stat_attr fp_stat_attr_##_name = {		\
		.attr = __ATTR(_name, 0444, fp_stat_show, NULL),	\
		.stat = _stat,						\
	}

FP_STAT_ATTR(unmaps, FP_STAT_UNMAPS);
FP_STAT_ATTR(pages, FP_STAT_PAGES);
FP_STAT_ATTR(walks, FP_STAT_WALKS);
FP_STAT_ATTR(tlbi_va, FP_STAT_TLBI_VA);
FP_STAT_ATTR(tlbi_range, FP_STAT_TLBI_RANGE);
FP_STAT_ATTR(tlbi_asid, FP_STAT_TLBI_ASID);
FP_STAT_ATTR(tlbi_all, FP_STAT_TLBI_ALL);
FP_STAT_ATTR(syncs, FP_STAT_SYNCS);
FP_STAT_ATTR(sync_timeouts, FP_STAT_SYNC_TIMEOUTS);

/* stats/latency_*: a histogram each (latency.c). */
static ssize_t latency_unmap_show(struct kobject *kobj,
				  struct kobj_attribute *attr, char *buf)
{
	return fp_lat_show(to_fp_context(kobj), FP_LAT_UNMAP, buf);
}

static ssize_t latency_sync_show(struct kobject *kobj,
				 struct kobj_attribute *attr, char *buf)
{
	return fp_lat_show(to_fp_context(kobj), FP_LAT_SYNC, buf);
}

static struct kobj_attribute fp_latency_unmap_attr = __ATTR_RO(latency_unmap);
static struct kobj_attribute fp_latency_sync_attr = __ATTR_RO(latency_sync);

static ssize_t reset_store(struct kobject *kobj, struct kobj_attribute *attr,
			   const char *buf, size_t count)
{
	unsigned int v;

	if (!fp_input_clean(buf, count) || kstrtouint(buf, 10, &v) || v != 1)
		return -EINVAL;
	fp_context_reset_stats(to_fp_context(kobj));
	return count;
}

static struct kobj_attribute fp_reset_attr = __ATTR_WO(reset);

static struct attribute *fp_stats_attrs[] = {
	&fp_stat_attr_unmaps.attr.attr,
	&fp_stat_attr_pages.attr.attr,
	&fp_stat_attr_walks.attr.attr,
	&fp_stat_attr_tlbi_va.attr.attr,
	&fp_stat_attr_tlbi_range.attr.attr,
	&fp_stat_attr_tlbi_asid.attr.attr,
	&fp_stat_attr_tlbi_all.attr.attr,
	&fp_stat_attr_syncs.attr.attr,
	&fp_stat_attr_sync_timeouts.attr.attr,
	&fp_latency_unmap_attr.attr,
	&fp_latency_sync_attr.attr,
	&fp_reset_attr.attr,
	NULL,
};

static const struct attribute_group fp_stats_group = {
	.name = "stats",
	.attrs = fp_stats_attrs,
};

/*
 * adaptive/: the adaptive policy's decision inputs, one value per file;
 * walk_ns and tlb_entries, which software cannot measure, writable.
 */
static struct fp_estimate *to_fp_estimate(struct kobject *kobj)
{
	return fp_context_estimate(to_fp_context(kobj));
}

static ssize_t cmd_ns_show(struct kobject *kobj, struct kobj_attribute *attr,
			   char *buf)
{
	return sysfs_emit(buf, "%u\n",
			  READ_ONCE(to_fp_estimate(kobj)->cmd_ns16) >> 4);
}

static ssize_t sync_ns_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	struct fp_estimate *e = to_fp_estimate(kobj);
	u32 base16 = READ_ONCE(e->base_ns16), cmd16 = READ_ONCE(e->cmd_ns16);

	return sysfs_emit(buf, "%u\n", base16 > cmd16 ?
			  (base16 - cmd16) >> 4 : 0);
}

static ssize_t footprint_show(struct kobject *kobj,
			      struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%lu\n",
			  fp_estimate_footprint(to_fp_estimate(kobj)));
}

static ssize_t streamed_show(struct kobject *kobj,
			     struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%lu\n",
			  fp_estimate_streamed(to_fp_estimate(kobj)));
}

static ssize_t crossover_show(struct kobject *kobj,
			      struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%lu\n",
			  fp_estimate_crossover(to_fp_estimate(kobj)));
}

static ssize_t samples_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%lu\n", READ_ONCE(to_fp_estimate(kobj)->samples));
}

static ssize_t walk_ns_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(to_fp_estimate(kobj)->walk_ns));
}

static ssize_t walk_ns_store(struct kobject *kobj, struct kobj_attribute *attr,
			     const char *buf, size_t count)
{
	unsigned long ns;
	int ret;

	if (!fp_input_clean(buf, count) || kstrtoul(buf, 10, &ns))
		return -EINVAL;
	ret = fp_context_set_walk_ns(to_fp_context(kobj), ns);
	return ret ?: count;
}

static ssize_t tlb_entries_show(struct kobject *kobj,
				struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n",
			  READ_ONCE(to_fp_estimate(kobj)->tlb_entries));
}

static ssize_t tlb_entries_store(struct kobject *kobj,
				 struct kobj_attribute *attr, const char *buf,
				 size_t count)
{
	unsigned long n;
	int ret;

	if (!fp_input_clean(buf, count) || kstrtoul(buf, 10, &n))
		return -EINVAL;
	ret = fp_context_set_tlb_entries(to_fp_context(kobj), n);
	return ret ?: count;
}

static struct kobj_attribute fp_cmd_ns_attr = __ATTR_RO(cmd_ns);
static struct kobj_attribute fp_sync_ns_attr = __ATTR_RO(sync_ns);
static struct kobj_attribute fp_footprint_attr = __ATTR_RO(footprint);
static struct kobj_attribute fp_streamed_attr = __ATTR_RO(streamed);
static struct kobj_attribute fp_crossover_attr = __ATTR_RO(crossover);
static struct kobj_attribute fp_samples_attr = __ATTR_RO(samples);
static struct kobj_attribute fp_walk_ns_attr = __ATTR_RW(walk_ns);
static struct kobj_attribute fp_tlb_entries_attr = __ATTR_RW(tlb_entries);

static struct attribute *fp_adaptive_attrs[] = {
	&fp_cmd_ns_attr.attr,
	&fp_sync_ns_attr.attr,
	&fp_footprint_attr.attr,
	&fp_streamed_attr.attr,
	&fp_crossover_attr.attr,
	&fp_samples_attr.attr,
	&fp_walk_ns_attr.attr,
	&fp_tlb_entries_attr.attr,
	NULL,
};

static const struct attribute_group fp_adaptive_group = {
	.name = "adaptive",
	.attrs = fp_adaptive_attrs,
};

static const struct attribute_group *fp_context_groups[] = {
	&fp_context_group,
	&fp_stats_group,
	&fp_adaptive_group,
	NULL,
};

static void fp_context_release(struct kobject *kobj)
{
	struct fp_context *ctx = to_fp_context(kobj);

	/* Any may never have been allocated: each allows that. */
	percpu_counter_destroy(&ctx->est.resident);
	free_percpu(ctx->est.recent);
	free_percpu(ctx->stats);
	kfree(ctx);
}

const struct kobj_type fp_context_ktype = {
	.release	= fp_context_release,
	.sysfs_ops	= &kobj_sysfs_ops,
	.default_groups	= fp_context_groups,
};

int fp_sysfs_add_context(struct fp_context *ctx)
{
	int ret;

	ctx->kobj.kset = fp_contexts_kset;
	ret = kobject_add(&ctx->kobj, NULL, "%s", ctx->name);
	if (ret)
		return ret;
	ctx->devices_kobj = kobject_create_and_add("devices", &ctx->kobj);
	if (!ctx->devices_kobj) {
		kobject_del(&ctx->kobj);
		return -ENOMEM;
	}
	kobject_uevent(&ctx->kobj, KOBJ_ADD);
	return 0;
}

/* Returns once no sysfs handler of @ctx runs or can start. */
void fp_sysfs_del_context(struct fp_context *ctx)
{
	kobject_uevent(&ctx->kobj, KOBJ_REMOVE);
	kobject_put(ctx->devices_kobj);
	kobject_del(&ctx->kobj);
}

/*
 * devices/<bus id> in @ctx's directory, and, if @index, the index's
 * <bus id> -> @ctx.  Returns whether the index's entry was made.
 */
bool fp_sysfs_link_device(struct fp_context *ctx, struct device *dev,
			  bool index)
{
	int ret;

	ret = sysfs_create_link(ctx->devices_kobj, &dev->kobj, dev_name(dev));
	if (ret)
		pr_warn("%s: no devices/%s link (%d)\n", ctx->name,
			dev_name(dev), ret);
	if (!index) {
		pr_warn("%s: another device is named %s: not in /sys/kernel/flushpol/devices/\n",
			ctx->name, dev_name(dev));
		return false;
	}
	ret = sysfs_create_link(fp_devices_kobj, &ctx->kobj, dev_name(dev));
	if (ret)
		pr_warn("%s: no devices/%s link to it (%d)\n", ctx->name,
			dev_name(dev), ret);
	return !ret;
}

void fp_sysfs_unlink_device(struct fp_context *ctx, const char *name,
			    bool indexed)
{
	sysfs_remove_link(ctx->devices_kobj, name);
	if (indexed)
		sysfs_remove_link(fp_devices_kobj, name);
}

static int fp_contexts_uevent(FP_UEVENT_KOBJ *kobj,
			      struct kobj_uevent_env *env)
{
	/* The kset's own uevents are not a context's. */
	if (kobj->ktype != &fp_context_ktype)
		return 0;
	return fp_context_uevent(container_of(kobj, struct fp_context, kobj),
				 env);
}

/* SUBSYSTEM=flushpol: what a udev rule matches, not the kset's name. */
static const char *fp_contexts_uevent_name(FP_UEVENT_KOBJ *kobj)
{
	return "flushpol";
}

static const struct kset_uevent_ops fp_contexts_uevent_ops = {
	.name = fp_contexts_uevent_name,
	.uevent = fp_contexts_uevent,
};

int fp_sysfs_init(void)
{
	int ret;

	fp_root = kobject_create_and_add("flushpol", kernel_kobj);
	if (!fp_root)
		return -ENOMEM;

	ret = sysfs_create_file(fp_root, &fp_policies_attr.attr);
	if (ret)
		goto err_root;
	ret = sysfs_create_file(fp_root, &fp_latency_attr.attr);
	if (ret)
		goto err_root;

	fp_contexts_kset = kset_create_and_add("contexts",
					       &fp_contexts_uevent_ops, fp_root);
	if (!fp_contexts_kset) {
		ret = -ENOMEM;
		goto err_root;
	}
	fp_devices_kobj = kobject_create_and_add("devices", fp_root);
	if (!fp_devices_kobj) {
		kset_unregister(fp_contexts_kset);
		ret = -ENOMEM;
		goto err_root;
	}
	return 0;

err_root:
	kobject_put(fp_root);
	return ret;
}

void fp_sysfs_exit(void)
{
	kobject_put(fp_devices_kobj);
	kset_unregister(fp_contexts_kset);
	kobject_put(fp_root);
}
