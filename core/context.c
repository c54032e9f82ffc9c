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

/*
 * Pick the first policy that exists and that this context can use: the
 * default_policy parameter, the backend's choice, va.  Never loads a
 * module: a context is created where a backend probes or allocates a
 * domain, perhaps in an async probe worker, which a module load would wait
 * for (fp_policy_request()).  A policy module that is not loaded yet is
 * passed over, with a message; va is built in and usable by every context.
 * @param is the parameter's value, read before fp_contexts_lock was taken:
 * its lock is every module's parameter lock's class, which a backend may
 * hold while it destroys a context (kunit/holder).
 */
static struct fp_policy *fp_initial_policy(struct fp_context *ctx,
					   const char *param)
{
	const char * const names[] = { param, ctx->cfg.default_policy,
				       fp_policy_va.name };
	struct fp_policy *pol;
	int i, err;

	lockdep_assert_held(&fp_contexts_lock);
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		if (!names[i] || !strcmp(names[i], "auto"))
			continue;
		pol = fp_policy_get_for(names[i], ctx, &err);
		if (pol) {
			ctx->auto_policy = names[i] != param;
			return pol;
		}
		pr_info("%s: policy %s %s, trying the next\n", ctx->name,
			names[i], err == -EOPNOTSUPP ? "not usable here" :
			"not loaded (not autoloaded for a new context)");
	}
	return NULL;
}

/*
 * A sysfs directory for @ctx, if its name is whole and unique.  Without
 * one the context works all the same, on the policy it was given: a
 * backend's domain must not fail, nor an SMMU's probe with it, for want of
 * a directory.
 */
static void fp_context_publish(struct fp_context *ctx, bool truncated)
{
	struct fp_context *other;
	int ret = -ENAMETOOLONG;

	lockdep_assert_held(&fp_contexts_lock);
	if (truncated)
		goto warn;
	ret = -EEXIST;
	list_for_each_entry(other, &fp_contexts, node)
		if (!strcmp(other->name, ctx->name))
			goto warn;
	ret = fp_sysfs_add_context(ctx);
	if (!ret) {
		ctx->in_sysfs = true;
		return;
	}
warn:
	pr_warn("%s: no sysfs directory (%d): stays on policy %s\n", ctx->name,
		ret, rcu_dereference_protected(ctx->policy, true)->name);
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
 * Nothing of flushpol's own fails a context: a policy that is not loaded
 * gives way to the next choice and finally to va, and a name that does not
 * fit in FP_CONTEXT_NAME_MAX - 1 characters or that a live context already
 * has gets no sysfs directory (both with a message).  Module autoloading is
 * never tried from here.
 *
 * Context: process context; may sleep.
 * Return: the context, or an ERR_PTR(): -EINVAL for an incomplete @cfg,
 * -ENODEV if the backend module is going away, -ENOMEM.
 */
struct fp_context *fp_context_create(const struct fp_context_cfg *cfg,
				     struct io_pgtable_cfg *pgtbl_cfg)
{
	char param[FP_NAME_MAX];
	struct fp_policy *pol;
	struct fp_context *ctx;
	bool truncated;
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
	truncated = snprintf(ctx->name, sizeof(ctx->name), "%s-%s%u",
			     cfg->instance, cfg->stage2 ? "vmid" : "asid",
			     cfg->id) >= sizeof(ctx->name);

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

	/*
	 * Under fp_contexts_lock from the lookup to the list: a policy
	 * withdrawn meanwhile is not found, and one found cannot be withdrawn
	 * before the list shows it in use.
	 */
	fp_default_policy(param);
	mutex_lock(&fp_contexts_lock);
	pol = fp_initial_policy(ctx, param);
	if (pol) {
		fp_estimate_policy(ctx, NULL, pol);
		RCU_INIT_POINTER(ctx->policy, pol);
		fp_context_publish(ctx, truncated);
		list_add_tail(&ctx->node, &fp_contexts);
	}
	mutex_unlock(&fp_contexts_lock);
	if (!pol) {
		/* Only if va itself is not usable: a backend's bug. */
		ret = -ENOENT;
		goto err_owner;
	}

	pgtbl_cfg->tlb = &fp_flush_ops;
	return ctx;

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
 * Call after free_io_pgtable_ops(), which still flushes through @ctx, and
 * once nothing else calls into @ctx.  Waits for sysfs readers and writers
 * of the context to finish.
 *
 * Context: process context; may sleep.
 */
void fp_context_destroy(struct fp_context *ctx)
{
	struct module *owner = ctx->cfg.owner;
	struct module *pol_owner;
	struct fp_policy *pol;

	/*
	 * Sysfs first: a policy write finishing meanwhile may install a
	 * policy, which must be on a listed context until its owner is read
	 * below, or fp_policy_unregister() would let a policy without an
	 * owner module be freed under us.
	 */
	if (ctx->in_sysfs)
		fp_sysfs_del_context(ctx);

	/*
	 * Take the policy as every switch does, under both locks, and read
	 * its owner while the context still keeps it registered.  No call
	 * into it is running: the caller no longer uses the context.
	 */
	mutex_lock(&fp_contexts_lock);
	mutex_lock(&ctx->lock);
	pol = rcu_replace_pointer(ctx->policy, NULL,
				  lockdep_is_held(&ctx->lock));
	fp_estimate_policy(ctx, pol, NULL);
	pol_owner = pol->owner;
	mutex_unlock(&ctx->lock);
	list_del(&ctx->node);
	mutex_unlock(&fp_contexts_lock);

	fp_policy_put(pol_owner);
	kobject_put(&ctx->kobj);
	module_put(owner);
}
EXPORT_SYMBOL_GPL(fp_context_destroy);

/*
 * Install @name in @ctx.  The lookup and the install both under
 * fp_contexts_lock, so that a policy (owner module or not) cannot be
 * withdrawn between them (fp_policy_get_for()).
 */
static int fp_context_switch(struct fp_context *ctx, const char *name,
			     bool automatic)
{
	struct fp_policy *pol, *old;
	struct module *old_owner;
	int ret = 0;

	mutex_lock(&fp_contexts_lock);
	pol = fp_policy_get_for(name, ctx, &ret);
	if (pol) {
		mutex_lock(&ctx->lock);
		if (automatic && !ctx->auto_policy) {
			/* A backend's choice never overrides a user's. */
			old = pol;
		} else {
			old = rcu_dereference_protected(ctx->policy,
							lockdep_is_held(&ctx->lock));
			fp_estimate_policy(ctx, old, pol);
			rcu_assign_pointer(ctx->policy, pol);
			ctx->auto_policy = automatic;
		}
		/* Read while @old is still registered: it is in use. */
		old_owner = old->owner;
		mutex_unlock(&ctx->lock);
	}
	mutex_unlock(&fp_contexts_lock);
	if (!pol)
		return ret;

	/*
	 * Calls into @old may still run on other CPUs until now (dispatch.c).
	 * A built-in's calls are not pinned and it cannot go away: waiting
	 * would only wait for other contexts' pinned calls.
	 */
	if (old != pol && !fp_policy_builtin(old))
		fp_policy_wait_calls();
	fp_policy_put(old_owner);
	return 0;
}

/**
 * fp_context_set_policy() - switch a context to another policy
 * @ctx: the context
 * @name: a registered policy name, or the name of a policy module that
 *	declares itself with MODULE_FP_POLICY(), loaded if the caller may
 *
 * Walk flushes in flight finish with the old policy; gathered leaves are
 * flushed by whichever policy is current at iotlb_sync, so no invalidation
 * is lost across the switch.  Returns once no call into the old policy is
 * running, if it can go away (a built-in policy cannot, and calls into it
 * are not waited for: dispatch.c), and its module is no longer pinned by
 * @ctx.  This is the one place a policy changes: the sysfs store only
 * parses.
 *
 * Context: process context; may sleep (for a module load).
 * Return: 0, -EINVAL for an unknown name (or a policy withdrawn while
 * switching to it), -EOPNOTSUPP for a policy this context cannot use.  On
 * error nothing changes.
 */
int fp_context_set_policy(struct fp_context *ctx, const char *name)
{
	int ret = fp_context_switch(ctx, name, false);

	if (ret == -EINVAL && fp_policy_request(name))
		ret = fp_context_switch(ctx, name, false);
	return ret;
}
EXPORT_SYMBOL_GPL(fp_context_set_policy);

/**
 * fp_context_set_lazy() - the context's unmaps are now queued
 * @ctx: the context
 * @policy: the policy the backend gives a lazy context, or NULL
 *
 * For a backend that learns only after creating a context that its unmaps
 * are ended by flush_iotlb_all (a domain the IOMMU core made DMA-FQ after
 * allocating it).  Policies for lazy contexts become usable, and a context
 * still on the policy its backend chose moves to @policy, if that is
 * loaded; one a user or the default_policy parameter chose keeps it.
 *
 * Context: process context; may sleep.
 */
void fp_context_set_lazy(struct fp_context *ctx, const char *policy)
{
	WRITE_ONCE(ctx->cfg.lazy, true);
	if (policy && fp_context_switch(ctx, policy, true))
		pr_info("%s: lazy, but policy %s not available\n", ctx->name,
			policy);
}
EXPORT_SYMBOL_GPL(fp_context_set_lazy);

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
	return READ_ONCE(ctx->cfg.lazy);
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
