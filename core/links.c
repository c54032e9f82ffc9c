// SPDX-License-Identifier: GPL-2.0-only
/*
 * Which devices a context translates, as /sys/kernel/iommu_groups/N/devices
 * says which a group holds: a symlink per device in the context's devices/,
 * and /sys/kernel/flushpol/devices/<bus id>, a symlink to the context, so
 * that a device's context is found from its name in one step.  The
 * backend says when a device attaches to a context and when it leaves;
 * the context's uevents carry the devices and their IOMMU groups.
 */
#define pr_fmt(fmt) "flushpol: " fmt

#include <linux/device.h>
#include <linux/iommu.h>
#include <linux/slab.h>

#include "fp_core.h"

struct fp_link {
	struct list_head node;
	struct device *dev;
	struct fp_context *ctx;
	int group;		/* its IOMMU group's id, or -1 */
	bool indexed;		/* in /sys/kernel/flushpol/devices */
};

/* Taken alone, or inside fp_contexts_lock (a uevent sent under it). */
static DEFINE_MUTEX(fp_links_lock);
static LIST_HEAD(fp_links);

static struct fp_link *fp_link_find(struct device *dev)
{
	struct fp_link *l;

	lockdep_assert_held(&fp_links_lock);
	list_for_each_entry(l, &fp_links, node)
		if (l->dev == dev)
			return l;
	return NULL;
}

/* Another linked device of the same name takes the index's entry. */
static bool fp_link_name_taken(struct device *dev)
{
	struct fp_link *l;

	list_for_each_entry(l, &fp_links, node)
		if (l->dev != dev && l->indexed &&
		    !strcmp(dev_name(l->dev), dev_name(dev)))
			return true;
	return false;
}

static void fp_link_free(struct fp_link *l)
{
	lockdep_assert_held(&fp_links_lock);
	list_del(&l->node);
	if (l->ctx->in_sysfs)
		fp_sysfs_unlink_device(l->ctx, dev_name(l->dev), l->indexed);
	put_device(l->dev);
	kfree(l);
}

static int fp_device_group(struct device *dev)
{
	struct iommu_group *group = iommu_group_get(dev);
	int id = -1;

	if (group) {
		id = iommu_group_id(group);
		iommu_group_put(group);
	}
	return id;
}

/*
 * Tell udev what changed: outside fp_links_lock, which the uevent's
 * variables are read under (fp_context_uevent()).
 */
static void fp_link_changed(struct fp_context *ctx)
{
	if (ctx && ctx->in_sysfs)
		kobject_uevent(&ctx->kobj, KOBJ_CHANGE);
}

/**
 * fp_context_link_device() - @dev is now translated by @ctx
 * @ctx: the context
 * @dev: the device, just attached to the domain @ctx invalidates for
 *
 * Moves @dev's links from the context it was on before, if any.  The
 * links are for users: a failure to make one is reported, and changes
 * nothing of how @dev is translated.
 *
 * Context: process context; may sleep.
 */
void fp_context_link_device(struct fp_context *ctx, struct device *dev)
{
	struct fp_context *old = NULL;
	struct fp_link *l;

	mutex_lock(&fp_links_lock);
	l = fp_link_find(dev);
	if (l && l->ctx == ctx) {
		mutex_unlock(&fp_links_lock);
		return;
	}
	if (l) {
		old = l->ctx;
		fp_link_free(l);
	}
	l = kzalloc(sizeof(*l), GFP_KERNEL);
	if (l) {
		l->dev = get_device(dev);
		l->ctx = ctx;
		l->group = fp_device_group(dev);
		if (ctx->in_sysfs)
			l->indexed = fp_sysfs_link_device(ctx, dev,
							  !fp_link_name_taken(dev));
		list_add_tail(&l->node, &fp_links);
	}
	mutex_unlock(&fp_links_lock);
	if (l)
		pr_info("%s: device %s (IOMMU group %d) attached\n", ctx->name,
			dev_name(dev), l->group);
	else
		pr_warn("%s: device %s attached, not linked (no memory)\n",
			ctx->name, dev_name(dev));
	fp_device_settings_apply(ctx, dev);
	fp_link_changed(old);
	fp_link_changed(ctx);
}
EXPORT_SYMBOL_GPL(fp_context_link_device);

/**
 * fp_device_unlink() - @dev is translated by no flushpol context now
 * @dev: the device, attached to a domain without one (identity, blocked)
 *	or released
 *
 * Context: process context; may sleep.
 */
void fp_device_unlink(struct device *dev)
{
	struct fp_context *old = NULL;
	struct fp_link *l;

	mutex_lock(&fp_links_lock);
	l = fp_link_find(dev);
	if (l) {
		old = l->ctx;
		fp_link_free(l);
	}
	mutex_unlock(&fp_links_lock);
	fp_link_changed(old);
}
EXPORT_SYMBOL_GPL(fp_device_unlink);

/* @ctx goes: no device is translated by it any more. */
void fp_links_drop_context(struct fp_context *ctx)
{
	struct fp_link *l, *tmp;

	mutex_lock(&fp_links_lock);
	list_for_each_entry_safe(l, tmp, &fp_links, node)
		if (l->ctx == ctx)
			fp_link_free(l);
	mutex_unlock(&fp_links_lock);
}

/*
 * Space-separated, in attach order, of @ctx's devices (@group false) or
 * of their groups, each once (@group true), into @buf of @size; returns
 * the length.  Names that do not fit are left out.
 */
static size_t fp_links_list(const struct fp_context *ctx, bool group,
			    char *buf, size_t size)
{
	struct fp_link *l, *m;
	size_t len = 0;
	int n;

	lockdep_assert_held(&fp_links_lock);
	buf[0] = '\0';
	list_for_each_entry(l, &fp_links, node) {
		if (l->ctx != ctx || (group && l->group < 0))
			continue;
		if (group) {
			list_for_each_entry(m, &fp_links, node)
				if (m == l || (m->ctx == ctx &&
					       m->group == l->group))
					break;
			if (m != l)
				continue;
			n = snprintf(buf + len, size - len, "%s%d",
				     len ? " " : "", l->group);
		} else {
			n = snprintf(buf + len, size - len, "%s%s",
				     len ? " " : "", dev_name(l->dev));
		}
		if (n >= size - len) {
			buf[len] = '\0';
			break;
		}
		len += n;
	}
	return len;
}

/* The context's groups, for sysfs: "" if no device is attached. */
ssize_t fp_links_show_groups(const struct fp_context *ctx, char *buf)
{
	size_t len;

	mutex_lock(&fp_links_lock);
	len = fp_links_list(ctx, true, buf, PAGE_SIZE - 1);
	mutex_unlock(&fp_links_lock);
	buf[len++] = '\n';
	return len;
}

/* DEVICES= and IOMMU_GROUP= of @ctx's uevents: what a udev rule matches. */
int fp_context_uevent(const struct fp_context *ctx,
		      struct kobj_uevent_env *env)
{
	char *buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	int ret;

	if (!buf)
		return -ENOMEM;
	mutex_lock(&fp_links_lock);
	/* Within UEVENT_BUFFER_SIZE, with the kobject's own variables. */
	fp_links_list(ctx, false, buf, 1024);
	ret = add_uevent_var(env, "DEVICES=%s", buf);
	fp_links_list(ctx, true, buf, 256);
	mutex_unlock(&fp_links_lock);
	if (!ret)
		ret = add_uevent_var(env, "IOMMU_GROUP=%s", buf);
	if (!ret)
		ret = add_uevent_var(env, "FLUSHPOL_BACKEND=%s",
				     ctx->cfg.backend);
	kfree(buf);
	return ret;
}
