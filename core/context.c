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

/* Why a context got its policy: for the journal. */
static const char *const fp_policy_reasons[] = {
	"default_policy parameter", "backend's choice", "fallback",
};

/*
 * Pick the first policy that exists and that this context can use: the
 * default_policy parameter, the backend's choice, va.  Never loads a
 * module: a context is created where a backend probes or allocates a
 * domain, perhaps in an async probe worker, which a module load would wait
 * for (fp_policy_request()).  A policy module that is not loaded yet is
 * passed over, with a message; va is built in and usable by every context.
 * @param is the parameter's value, read before fp_contexts_lock was taken:
 * its lock is every module's parameter lock's class, which a backend may
 * hold while it destroys a context (kunit/holder); NULL leaves it out.
 * *@why is set to what chose the policy.
 */
static struct fp_policy *fp_initial_policy(struct fp_context *ctx,
					   const char *param, const char **why)
{
	const char * const names[] = { param, ctx->backend_policy,
				       fp_policy_va.name };
	struct fp_policy *pol;
	int i, err;

	static_assert(ARRAY_SIZE(names) == ARRAY_SIZE(fp_policy_reasons));
	lockdep_assert_held(&fp_contexts_lock);
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		if (!names[i] || fp_policy_name_is_auto(names[i]))
			continue;
		pol = fp_policy_get_for(names[i], ctx, &err);
		if (pol) {
			ctx->auto_policy = names[i] != param;
			*why = fp_policy_reasons[i];
			return pol;
		}
		pr_warn("%s: policy %s %s, trying the next\n", ctx->name,
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
	const char *why;
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
	fp_batcher_init(&ctx->batcher);
	ctx->threshold = fp_default_threshold() ?: cfg->default_threshold;
	ctx->backend_policy = cfg->default_policy;
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
	pol = fp_initial_policy(ctx, param, &why);
	if (pol) {
		ctx->leaf = fp_leaf_mode(pol);
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
	pr_info("%s: created%s%s, %s, policy %s (%s), threshold %u\n",
		ctx->name, cfg->dev ? " for " : "",
		cfg->dev ? dev_name(cfg->dev) : "",
		cfg->lazy ? "lazy" : "strict", pol->name, why, ctx->threshold);

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
	fp_links_drop_context(ctx);
	if (ctx->in_sysfs)
		fp_sysfs_del_context(ctx);

	/*
	 * Take the policy as every switch does, under both locks, and read
	 * its owner while the context still keeps it registered.  No call
	 * into it is running: the caller no longer uses the context.
	 */
	mutex_lock(&fp_contexts_lock);
	mutex_lock(&ctx->lock);
	WRITE_ONCE(ctx->leaf, 0);
	pol = rcu_replace_pointer(ctx->policy, NULL,
				  lockdep_is_held(&ctx->lock));
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
 * Make @pol the policy of @ctx, under @ctx->lock.  Its one-leaf mode is
 * read by fp_iotlb_sync() without the policy pointer: a sync racing the
 * switch may send either policy's one-leaf flush, or, if the mode it reads
 * is none, hand the gather to whichever policy it then pins; each is a
 * complete invalidation of that leaf.  The one-leaf flush touches neither
 * policy's memory, so the old one's module may go as soon as its pinned
 * calls are done.
 */
static void fp_context_install(struct fp_context *ctx, struct fp_policy *pol)
{
	lockdep_assert_held(&ctx->lock);
	WRITE_ONCE(ctx->leaf, fp_leaf_mode(pol));
	rcu_assign_pointer(ctx->policy, pol);
}

/* Who asks for a switch. */
enum fp_switch_by {
	FP_SWITCH_USER,		/* the context keeps it */
	FP_SWITCH_BACKEND,	/* only if no user chose the current one */
	FP_SWITCH_RESET,	/* a user handing the choice back */
};

/*
 * Install @name in @ctx.  The lookup and the install both under
 * fp_contexts_lock, so that a policy (owner module or not) cannot be
 * withdrawn between them (fp_policy_get_for()).
 */
static int fp_context_switch(struct fp_context *ctx, const char *name,
			     enum fp_switch_by by)
{
	struct fp_policy *pol, *old;
	struct module *old_owner;
	int ret = 0;

	mutex_lock(&fp_contexts_lock);
	pol = fp_policy_get_for(name, ctx, &ret);
	if (pol) {
		mutex_lock(&ctx->lock);
		if (by == FP_SWITCH_BACKEND && !ctx->auto_policy) {
			/* A backend's choice never overrides a user's. */
			old = pol;
		} else {
			old = rcu_dereference_protected(ctx->policy,
							lockdep_is_held(&ctx->lock));
			fp_context_install(ctx, pol);
			ctx->auto_policy = by != FP_SWITCH_USER;
		}
		/* Read while @old is still registered: it is in use. */
		old_owner = old->owner;
		mutex_unlock(&ctx->lock);
	}
	mutex_unlock(&fp_contexts_lock);
	if (!pol)
		return ret;
	/* Limited: a script switching in a loop must not flood the log. */
	if (old != pol)
		pr_info_ratelimited("%s: policy %s -> %s\n", ctx->name,
				    old->name, pol->name);

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
 *	declares itself with MODULE_FP_POLICY(), loaded if the caller may;
 *	"default" or "auto": the backend's choice (fp_context_reset_policy())
 *
 * Walk flushes in flight finish with the old policy; gathered leaves are
 * flushed by whichever policy is current at iotlb_sync, so no invalidation
 * is lost across the switch.  Returns once no call into the old policy is
 * running, if it can go away (a built-in policy cannot, and calls into it
 * are not waited for: dispatch.c), and its module is no longer pinned by
 * @ctx.  A one-leaf flush the core sends in the old policy's place
 * (fp_iotlb_sync()) may still be running: it calls no code of the policy
 * and reads none of its memory.  This is the one place a policy changes: the sysfs store only
 * parses.
 *
 * Context: process context; may sleep (for a module load).
 * Return: 0, -EINVAL for an unknown name (or a policy withdrawn while
 * switching to it), -EOPNOTSUPP for a policy this context cannot use.  On
 * error nothing changes.
 */
int fp_context_set_policy(struct fp_context *ctx, const char *name)
{
	int ret;

	if (fp_policy_name_is_auto(name))
		return fp_context_reset_policy(ctx);
	ret = fp_context_switch(ctx, name, FP_SWITCH_USER);
	if (ret == -EINVAL && fp_policy_request(name))
		ret = fp_context_switch(ctx, name, FP_SWITCH_USER);
	return ret;
}
EXPORT_SYMBOL_GPL(fp_context_set_policy);

/*
 * A user's choice made where no module may be loaded (an attach): a
 * policy not loaded is -EINVAL.
 */
int fp_context_set_policy_noload(struct fp_context *ctx, const char *name)
{
	return fp_context_switch(ctx, name, FP_SWITCH_USER);
}

/**
 * fp_context_reset_policy() - hand a context's policy back to its backend
 * @ctx: the context
 *
 * The policy becomes the backend's choice (for a lazy context, the one it
 * gave fp_context_set_lazy()), loaded if the caller may, or else va; and
 * the backend chooses again as it learns more of the context.
 *
 * Context: process context; may sleep (for a module load).
 * Return: 0, or what fp_context_set_policy() returns for va.
 */
int fp_context_reset_policy(struct fp_context *ctx)
{
	const char *name = READ_ONCE(ctx->backend_policy);
	int ret = -EINVAL;

	if (name) {
		ret = fp_context_switch(ctx, name, FP_SWITCH_RESET);
		if (ret == -EINVAL && fp_policy_request(name))
			ret = fp_context_switch(ctx, name, FP_SWITCH_RESET);
	}
	if (ret)
		ret = fp_context_switch(ctx, fp_policy_va.name,
					FP_SWITCH_RESET);
	return ret;
}
EXPORT_SYMBOL_GPL(fp_context_reset_policy);

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
	if (!xchg(&ctx->cfg.lazy, true))
		pr_info("%s: lazy now (DMA-FQ): unmaps are queued\n",
			ctx->name);
	if (policy)
		WRITE_ONCE(ctx->backend_policy, policy);
	if (policy && fp_context_switch(ctx, policy, FP_SWITCH_BACKEND))
		pr_info("%s: lazy, but policy %s not available\n", ctx->name,
			policy);
}
EXPORT_SYMBOL_GPL(fp_context_set_lazy);

/*
 * Catch up with a type the IOMMU core changed without telling the backend
 * (&fp_context_cfg.lazy_policy), before sysfs shows or sets what depends
 * on it.
 */
void fp_context_follow_type(struct fp_context *ctx)
{
	const char *policy;

	if (!ctx->cfg.lazy_policy || fp_context_is_lazy(ctx))
		return;
	policy = ctx->cfg.lazy_policy(ctx);
	if (policy)
		fp_context_set_lazy(ctx, policy);
}

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
	if (READ_ONCE(ctx->threshold) != pages)
		pr_info_ratelimited("%s: threshold %u -> %lu\n", ctx->name,
				    READ_ONCE(ctx->threshold), pages);
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
