// SPDX-License-Identifier: GPL-2.0-only
/*
 * Contexts: one per io-pgtable instance, created by a backend at
 * init_context time.  A context joins the backend's primitives to the policy
 * currently chosen for it.
 */
#define pr_fmt(fmt) "flushpol: " fmt

#include <linux/slab.h>
#include <linux/string.h>

#include "fp_core.h"

/* The live contexts; policy unregistration checks them under the lock. */
DEFINE_MUTEX(fp_contexts_lock);
LIST_HEAD(fp_contexts);

static bool fp_cfg_valid(const struct fp_context_cfg *cfg)
{
	const struct fp_hw_ops *ops = cfg->ops;

	return cfg->backend && cfg->instance && ops && ops->inv_va &&
	       (ops->inv_context || ops->inv_all) && ops->sync &&
	       cfg->default_threshold &&
	       cfg->default_threshold <= FP_THRESHOLD_MAX &&
	       cfg->walk_ns <= FP_WALK_NS_MAX &&
	       cfg->tlb_entries <= FP_THRESHOLD_MAX;
}

/* Pick the first policy that exists and that this context can use. */
static struct fp_policy *fp_initial_policy(struct fp_context *ctx)
{
	char param[FP_NAME_MAX];
	const char * const names[] = { param, ctx->cfg.default_policy,
				       fp_policy_va.name };
	struct fp_policy *pol;
	int i;

	fp_default_policy(param);
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		if (!names[i] || !strcmp(names[i], "auto"))
			continue;
		pol = fp_policy_get(names[i]);
		if (pol && (!pol->usable || pol->usable(ctx)))
			return pol;
		if (pol)
			fp_policy_put(pol);
		pr_info("%s: policy %s not available, trying the next\n",
			ctx->name, names[i]);
	}
	return NULL;
}

/**
 * fp_context_create() - start managing invalidation for one io-pgtable
 * @cfg: what the backend says about the context; copied
 * @pgtbl_cfg: the io-pgtable configuration; its @tlb is set to flushpol's
 *
 * Pass the returned context as the cookie to alloc_io_pgtable_ops(), and
 * call fp_iotlb_sync() and fp_flush_iotlb_all() from the driver's
 * iotlb_sync and flush_iotlb_all.
 *
 * Context: process context; may sleep.
 * Return: the context, or an ERR_PTR(): -EINVAL for an incomplete @cfg,
 * -EEXIST if the name is taken, -ENOENT if no policy is available,
 * -ENOMEM.
 */
struct fp_context *fp_context_create(const struct fp_context_cfg *cfg,
				     struct io_pgtable_cfg *pgtbl_cfg)
{
	struct fp_policy *pol;
	struct fp_context *ctx;
	int ret;

	if (!fp_cfg_valid(cfg))
		return ERR_PTR(-EINVAL);

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return ERR_PTR(-ENOMEM);
	kobject_init(&ctx->kobj, &fp_context_ktype);
	ctx->cfg = *cfg;
	mutex_init(&ctx->lock);
	ctx->threshold = cfg->default_threshold;
	snprintf(ctx->name, sizeof(ctx->name), "%s-%s%u", cfg->instance,
		 cfg->stage2 ? "vmid" : "asid", cfg->id);

	/* From here on, the kobject release frees what was allocated. */
	ctx->stats = alloc_percpu(struct fp_stats);
	if (!ctx->stats) {
		ret = -ENOMEM;
		goto err_put;
	}
	ret = fp_estimate_init(&ctx->est, cfg);
	if (ret)
		goto err_put;

	if (!try_module_get(cfg->owner)) {
		ret = -ENODEV;
		goto err_put;
	}

	pol = fp_initial_policy(ctx);
	if (!pol) {
		ret = -ENOENT;
		goto err_owner;
	}
	RCU_INIT_POINTER(ctx->policy, pol);

	mutex_lock(&fp_contexts_lock);
	/* As in fp_context_set_policy(): not a policy withdrawn meanwhile. */
	ret = fp_policy_registered(pol) ? fp_sysfs_add_context(ctx) : -ENOENT;
	if (!ret)
		list_add_tail(&ctx->node, &fp_contexts);
	mutex_unlock(&fp_contexts_lock);
	if (ret)
		goto err_policy;

	pgtbl_cfg->tlb = &fp_flush_ops;
	return ctx;

err_policy:
	fp_policy_put(pol);
err_owner:
	module_put(cfg->owner);
err_put:
	kobject_put(&ctx->kobj);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_GPL(fp_context_create);

/**
 * fp_context_destroy() - stop managing a context
 * @ctx: a context from fp_context_create()
 *
 * Call after free_io_pgtable_ops(), which still flushes through @ctx.
 * Waits for sysfs readers and writers of the context to finish.
 *
 * Context: process context; may sleep.
 */
void fp_context_destroy(struct fp_context *ctx)
{
	struct module *owner = ctx->cfg.owner;

	mutex_lock(&fp_contexts_lock);
	list_del(&ctx->node);
	mutex_unlock(&fp_contexts_lock);

	fp_sysfs_del_context(ctx);
	fp_policy_put(rcu_dereference_protected(ctx->policy, true));
	kobject_put(&ctx->kobj);
	module_put(owner);
}
EXPORT_SYMBOL_GPL(fp_context_destroy);

/**
 * fp_context_set_policy() - switch a context to another policy
 * @ctx: the context
 * @name: a registered policy name (autoloaded as flushpol_<name> if not)
 *
 * Walk flushes in flight finish with the old policy; gathered leaves are
 * flushed by whichever policy is current at iotlb_sync, so no invalidation
 * is lost across the switch.  This is the one place a policy changes: the
 * sysfs store only parses.
 *
 * Context: process context; may sleep.
 * Return: 0, -EINVAL for an unknown name (or a policy withdrawn while
 * switching to it), -EOPNOTSUPP for a policy this context cannot use.  On
 * error nothing changes.
 */
int fp_context_set_policy(struct fp_context *ctx, const char *name)
{
	struct fp_policy *pol, *old;

	pol = fp_policy_get(name);
	if (!pol)
		return -EINVAL;
	if (pol->usable && !pol->usable(ctx)) {
		fp_policy_put(pol);
		return -EOPNOTSUPP;
	}

	/*
	 * Unregistration checks the contexts under fp_contexts_lock: under it
	 * too, make sure @pol was not withdrawn since the lookup, or it would
	 * run here after its owner was told nothing uses it.
	 */
	mutex_lock(&fp_contexts_lock);
	if (!fp_policy_registered(pol)) {
		mutex_unlock(&fp_contexts_lock);
		fp_policy_put(pol);
		return -EINVAL;
	}
	mutex_lock(&ctx->lock);
	old = rcu_replace_pointer(ctx->policy, pol, lockdep_is_held(&ctx->lock));
	mutex_unlock(&ctx->lock);
	mutex_unlock(&fp_contexts_lock);

	/* Calls into @old may still run on other CPUs until now (dispatch.c). */
	fp_policy_wait_calls();
	fp_policy_put(old);
	return 0;
}
EXPORT_SYMBOL_GPL(fp_context_set_policy);

/**
 * fp_context_set_threshold() - set the per-context threshold
 * @ctx: the context
 * @pages: TLB entries above which the threshold policy flushes the context
 *
 * Return: 0, or -EINVAL if @pages is 0 or above FP_THRESHOLD_MAX.
 */
int fp_context_set_threshold(struct fp_context *ctx, unsigned long pages)
{
	if (!pages || pages > FP_THRESHOLD_MAX)
		return -EINVAL;
	WRITE_ONCE(ctx->threshold, pages);
	return 0;
}
EXPORT_SYMBOL_GPL(fp_context_set_threshold);

/**
 * fp_context_priv() - the backend's data for a context
 * @ctx: the context
 *
 * Return: &fp_context_cfg.priv as given at creation.
 */
void *fp_context_priv(const struct fp_context *ctx)
{
	return ctx->cfg.priv;
}
EXPORT_SYMBOL_GPL(fp_context_priv);

/**
 * fp_context_has_range() - whether the backend can invalidate by range
 * @ctx: the context
 *
 * Return: true if the backend provides &fp_hw_ops.inv_range.
 */
bool fp_context_has_range(const struct fp_context *ctx)
{
	return ctx->cfg.ops->inv_range;
}
EXPORT_SYMBOL_GPL(fp_context_has_range);

/**
 * fp_context_is_lazy() - whether the context is non-strict
 * @ctx: the context
 *
 * Return: true if unmaps are queued and ended by flush_iotlb_all.
 */
bool fp_context_is_lazy(const struct fp_context *ctx)
{
	return ctx->cfg.lazy;
}
EXPORT_SYMBOL_GPL(fp_context_is_lazy);

/**
 * fp_context_threshold() - the context's current threshold
 * @ctx: the context
 *
 * Return: TLB entries above which the threshold policy flushes the context.
 */
unsigned int fp_context_threshold(const struct fp_context *ctx)
{
	return READ_ONCE(ctx->threshold);
}
EXPORT_SYMBOL_GPL(fp_context_threshold);
