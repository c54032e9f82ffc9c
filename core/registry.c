// SPDX-License-Identifier: GPL-2.0-only
/*
 * Policy registry: policies register by name; a context pins the module of
 * the policy it uses, so the module refcount is the policy's lifetime.
 */
#define pr_fmt(fmt) "flushpol: " fmt

#include <linux/capability.h>
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

/* "auto" and "default" name the backend's choice, never a policy. */
bool fp_policy_name_is_auto(const char *name)
{
	return !strcmp(name, FP_POLICY_AUTO) || !strcmp(name, "default");
}

/*
 * A name sysfs can select: what fp_policy_name_parse() accepts, other than
 * the words for the backend's choice.
 */
static bool fp_policy_valid(const struct fp_policy *pol)
{
	char buf[FP_NAME_MAX];
	const char *name;

	if (!pol->name || !pol->flush_walk || !pol->flush_gather ||
	    pol->one_leaf > FP_ONE_LEAF_PRECISE)
		return false;
	name = fp_policy_name_parse(buf, pol->name);
	return name && !strcmp(name, pol->name) &&
	       !fp_policy_name_is_auto(name);
}

/* Whether @name is registered now; it may be withdrawn at once after. */
bool fp_policy_registered(const char *name)
{
	bool found;

	rcu_read_lock();
	found = fp_policy_find(name);
	rcu_read_unlock();
	return found;
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
		pr_err("policy %s lacks a name or a required op, or its one_leaf is unknown\n",
		       pol->name ?: "(null)");
		return -EINVAL;
	}

	/* The estimate's key before any context can switch to @pol. */
	mutex_lock(&fp_contexts_lock);
	spin_lock(&fp_policies_lock);
	if (fp_policy_find(pol->name))
		ret = -EEXIST;
	spin_unlock(&fp_policies_lock);
	if (!ret) {
		fp_estimate_key_get(pol);
		spin_lock(&fp_policies_lock);
		list_add_tail_rcu(&pol->list, &fp_policies);
		spin_unlock(&fp_policies_lock);
	}
	mutex_unlock(&fp_contexts_lock);

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
 * is checked against the live contexts instead, under the lock every
 * lookup for a switch holds until the switch is made (fp_policy_get_for()).
 * A context that switched away may still be running a call into @pol: on
 * success this returns only once no such call runs and no reader of the
 * registry still sees @pol, so the caller may then free it.
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
	fp_estimate_key_put(pol);
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

/**
 * fp_policy_get_for() - find a policy @ctx can switch to, and pin it
 * @name: the policy's name
 * @ctx: the context that is to use it
 * @err: set to -EINVAL for an unknown name or a policy whose module is
 *	going away, -EOPNOTSUPP for a policy @ctx cannot use
 *
 * Under fp_contexts_lock, which fp_policy_unregister() holds from its
 * check of the contexts to its removal: a policy found here stays
 * registered, and so valid even with no owner module, until the caller has
 * installed it in @ctx and dropped the lock.  So usable() and @owner are
 * never read from a policy that was withdrawn (and perhaps freed) meanwhile.
 *
 * Return: the policy, its module pinned, or NULL.
 */
struct fp_policy *fp_policy_get_for(const char *name,
				    const struct fp_context *ctx, int *err)
{
	struct fp_policy *pol;

	lockdep_assert_held(&fp_contexts_lock);
	spin_lock(&fp_policies_lock);
	pol = fp_policy_find(name);
	spin_unlock(&fp_policies_lock);
	if (!pol) {
		*err = -EINVAL;
		return NULL;
	}
	if (pol->usable && !pol->usable(ctx)) {
		*err = -EOPNOTSUPP;
		return NULL;
	}
	if (!try_module_get(pol->owner)) {
		*err = -EINVAL;
		return NULL;
	}
	return pol;
}

/**
 * fp_policy_request() - ask modprobe for the policy module of @name
 * @name: a name fp_policy_name_parse() accepted
 *
 * Only a module that declared itself a policy with MODULE_FP_POLICY()
 * (flushpol.h) answers, never another whose name happens to start with
 * flushpol_ (a backend, the test module): tcp_cong.c's "tcp_" prefix does
 * the same job.  Only for callers allowed to load modules, and never from a
 * probe path:
 * loading a module waits for async probes to finish (do_init_module()), so
 * a request from an async probe worker can wait for itself.
 *
 * Context: process context; may sleep for as long as modprobe runs.
 * Return: true if modprobe ran and succeeded, so that a second lookup may
 * find @name.
 */
bool fp_policy_request(const char *name)
{
	return capable(CAP_SYS_MODULE) &&
	       !request_module(FP_POLICY_ALIAS "%s", name);
}

/*
 * Drop the pin fp_policy_get_for() took on a policy's module, once no call
 * into it can be running (fp_policy_wait_calls()).  Takes the module, not
 * the policy: by then a policy without an owner may have been withdrawn
 * and freed.
 */
void fp_policy_put(struct module *owner)
{
	module_put(owner);
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
	&fp_policy_threshold,
	&fp_policy_batch,
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
