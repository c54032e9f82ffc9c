// SPDX-License-Identifier: GPL-2.0-only
/*
 * Policy registry: policies register by name; a context pins the module of
 * the policy it uses, so the module refcount is the policy's lifetime.
 */
#define pr_fmt(fmt) "flushpol: " fmt

#include <linux/ctype.h>
#include <linux/kmod.h>
#include <linux/rculist.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "fp_core.h"

static DEFINE_SPINLOCK(fp_policies_lock);
static LIST_HEAD(fp_policies);

/*
 * Copy a user-supplied policy name into @buf and strip it, so that
 * "echo name >" works.  Returns NULL unless what is left is a plausible name:
 * lower-case letters, digits and '_' only, so junk never reaches
 * request_module().
 */
const char *fp_policy_name_parse(char buf[FP_NAME_MAX], const char *input)
{
	char tmp[FP_NAME_MAX + 1];
	char *name, *c;

	/*
	 * Room for a longest name and echo's newline: strscpy() into @buf
	 * alone would refuse that before the newline is stripped.
	 */
	if (strscpy(tmp, input, sizeof(tmp)) < 0)
		return NULL;
	name = strstrip(tmp);
	if (!*name || strlen(name) >= FP_NAME_MAX)
		return NULL;
	strscpy(buf, name, FP_NAME_MAX);
	name = buf;
	for (c = name; *c; c++)
		if (!islower(*c) && !isdigit(*c) && *c != '_')
			return NULL;
	return name;
}

static struct fp_policy *fp_policy_find(const char *name)
{
	struct fp_policy *pol;

	list_for_each_entry_rcu(pol, &fp_policies, list,
				lockdep_is_held(&fp_policies_lock)) {
		if (!strcmp(pol->name, name))
			return pol;
	}
	return NULL;
}

/* A name sysfs can select: what fp_policy_name_parse() accepts. */
static bool fp_policy_valid(const struct fp_policy *pol)
{
	char buf[FP_NAME_MAX];
	const char *name;

	if (!pol->name || !pol->flush_walk || !pol->flush_gather)
		return false;
	name = fp_policy_name_parse(buf, pol->name);
	return name && !strcmp(name, pol->name);
}

/**
 * fp_policy_register() - make a policy available to every context
 * @pol: the policy; must stay valid until fp_policy_unregister()
 *
 * Return: 0, -EINVAL if @pol lacks a name or a required op, -EEXIST if the
 * name is taken.
 */
int fp_policy_register(struct fp_policy *pol)
{
	int ret = 0;

	if (!fp_policy_valid(pol)) {
		pr_err("policy %s lacks a name or a required op\n",
		       pol->name ?: "(null)");
		return -EINVAL;
	}

	spin_lock(&fp_policies_lock);
	if (fp_policy_find(pol->name))
		ret = -EEXIST;
	else
		list_add_tail_rcu(&pol->list, &fp_policies);
	spin_unlock(&fp_policies_lock);

	if (!ret)
		pr_debug("policy %s registered\n", pol->name);
	return ret;
}
EXPORT_SYMBOL_GPL(fp_policy_register);

static bool fp_policy_in_use(const struct fp_policy *pol)
{
	struct fp_context *ctx;

	lockdep_assert_held(&fp_contexts_lock);
	list_for_each_entry(ctx, &fp_contexts, node)
		if (rcu_access_pointer(ctx->policy) == pol)
			return true;
	return false;
}

/**
 * fp_policy_unregister() - withdraw a policy
 * @pol: a registered policy
 *
 * A policy with an owner module cannot be in use here, since every context
 * using it pins that module.  A policy without one (built in to the caller)
 * is checked against the live contexts instead.  A context that switched
 * away may still be running a call into @pol: on success this returns only
 * once no such call runs and no reader of the registry still sees @pol, so
 * the caller may then free it.
 *
 * Context: process context; may sleep.
 * Return: 0, or -EBUSY if a context still uses @pol.
 */
int fp_policy_unregister(struct fp_policy *pol)
{
	mutex_lock(&fp_contexts_lock);
	if (fp_policy_in_use(pol)) {
		mutex_unlock(&fp_contexts_lock);
		return -EBUSY;
	}
	spin_lock(&fp_policies_lock);
	list_del_rcu(&pol->list);
	spin_unlock(&fp_policies_lock);
	mutex_unlock(&fp_contexts_lock);

	/*
	 * Policy calls run in SRCU read sections (dispatch.c), which an RCU
	 * grace period does not wait for; the registry's readers are RCU.
	 */
	fp_policy_wait_calls();
	synchronize_rcu();
	return 0;
}
EXPORT_SYMBOL_GPL(fp_policy_unregister);

static struct fp_policy *fp_policy_try_get(const char *name)
{
	struct fp_policy *pol;

	rcu_read_lock();
	pol = fp_policy_find(name);
	if (pol && !try_module_get(pol->owner))
		pol = NULL;
	rcu_read_unlock();
	return pol;
}

/*
 * Look up @name and pin its module.  Like TCP congestion control, a missing
 * policy is autoloaded as module flushpol_<name> by those allowed to.
 */
struct fp_policy *fp_policy_get(const char *name)
{
	struct fp_policy *pol = fp_policy_try_get(name);

	if (!pol && capable(CAP_SYS_MODULE) &&
	    !request_module("flushpol_%s", name))
		pol = fp_policy_try_get(name);
	return pol;
}

void fp_policy_put(struct fp_policy *pol)
{
	module_put(pol->owner);
}

/*
 * Whether @pol is still registered.  Under fp_contexts_lock, which
 * fp_policy_unregister() holds from its check to its removal, the answer
 * holds until the lock is dropped.
 */
bool fp_policy_registered(const struct fp_policy *pol)
{
	bool ret;

	lockdep_assert_held(&fp_contexts_lock);
	spin_lock(&fp_policies_lock);
	ret = fp_policy_find(pol->name) == pol;
	spin_unlock(&fp_policies_lock);
	return ret;
}

/* Elevator style: every policy @ctx can use, the active one in brackets. */
ssize_t fp_policies_show(char *buf, const struct fp_context *ctx,
			 const struct fp_policy *active)
{
	struct fp_policy *pol;
	ssize_t len = 0;

	rcu_read_lock();
	list_for_each_entry_rcu(pol, &fp_policies, list) {
		if (ctx && pol->usable && !pol->usable(ctx))
			continue;
		len += sysfs_emit_at(buf, len, pol == active ? "[%s] " : "%s ",
				     pol->name);
	}
	rcu_read_unlock();
	if (len)
		buf[len - 1] = '\n';
	return len;
}

static struct fp_policy *const fp_builtin_policies[] = {
	&fp_policy_va,
	&fp_policy_range,
	&fp_policy_asid,
	&fp_policy_nonstrict,
};

int fp_builtin_policies_register(void)
{
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(fp_builtin_policies); i++) {
		ret = fp_policy_register(fp_builtin_policies[i]);
		if (ret)
			goto err_unwind;
	}
	return 0;

err_unwind:
	while (--i >= 0)
		fp_policy_unregister(fp_builtin_policies[i]);
	return ret;
}

void fp_builtin_policies_unregister(void)
{
	int i;

	for (i = ARRAY_SIZE(fp_builtin_policies) - 1; i >= 0; i--)
		fp_policy_unregister(fp_builtin_policies[i]);
}
