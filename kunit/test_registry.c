// SPDX-License-Identifier: GPL-2.0-only
/*
 * flushpol_registry: policies register by name, a context pins the module
 * of the policy it uses, a policy in use cannot be withdrawn, and the
 * default_policy parameter picks the policy of new contexts.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/sizes.h>
#include <linux/tracepoint.h>

#include "fp_rig.h"

#define FPT_PARAM	"/sys/module/flushpol/parameters/default_policy"
#define FPT_THR_PARAM	"/sys/module/flushpol/parameters/default_threshold"
#define FPT_RIL_PARAM	"/sys/module/flushpol_smmuv3/parameters/force_no_ril"
#define FPT_SHARE_PARAM	"/sys/module/flushpol_smmuv3/parameters/cmdq_share"
#define FPT_LAT_PARAM	"/sys/module/flushpol/parameters/latency_stats"
#define FPT_ADA_REFCNT	"/sys/module/flushpol_adaptive/refcnt"

static void fpt_walk_nop(struct fp_context *ctx, unsigned long iova,
			 size_t size, size_t granule)
{
	fp_flush_context(ctx);
}

static void fpt_gather_nop(struct fp_context *ctx,
			   const struct iommu_iotlb_gather *gather)
{
	fp_flush_context(ctx);
}

static struct fpt_rig *fpt_reg_rig(struct kunit *test, u16 asid)
{
	struct fpt_rig_cfg rc = { .fmt = ARM_64_LPAE_S1 };
	struct fpt_rig *rig = kunit_kzalloc(test, sizeof(*rig), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, rig);
	KUNIT_ASSERT_EQ(test, fpt_rig_init(test, rig, &rc, NULL, asid), 0);
	return rig;
}

static void register_refuses_duplicate_and_incomplete(struct kunit *test)
{
	struct fp_policy dup = {
		.name = "va", .owner = THIS_MODULE,
		.flush_walk = fpt_walk_nop, .flush_gather = fpt_gather_nop,
	};
	struct fp_policy noname = dup, longname = dup, nowalk = dup,
			 nogather = dup, upper = dup, spaced = dup, badleaf = dup;
	int ret;

	noname.name = NULL;
	longname.name = "a_name_much_too_long";
	nowalk.name = "kunit_nowalk";
	nowalk.flush_walk = NULL;
	nogather.name = "kunit_nogather";
	nogather.flush_gather = NULL;
	upper.name = "Kunit";
	spaced.name = " kunit";
	/* A one-leaf mode the core does not know would reach its flag bits. */
	badleaf.name = "kunit_badleaf";
	badleaf.one_leaf = (enum fp_one_leaf)5;

	KUNIT_EXPECT_EQ(test, fp_policy_register(&dup), -EEXIST);
	KUNIT_EXPECT_EQ(test, fp_policy_register(&noname), -EINVAL);
	KUNIT_EXPECT_EQ(test, fp_policy_register(&longname), -EINVAL);
	KUNIT_EXPECT_EQ(test, fp_policy_register(&nowalk), -EINVAL);
	KUNIT_EXPECT_EQ(test, fp_policy_register(&nogather), -EINVAL);
	KUNIT_EXPECT_EQ(test, fp_policy_register(&upper), -EINVAL);
	KUNIT_EXPECT_EQ(test, fp_policy_register(&spaced), -EINVAL);
	ret = fp_policy_register(&badleaf);
	if (!ret)
		fp_policy_unregister(&badleaf);
	KUNIT_EXPECT_EQ(test, ret, -EINVAL);
}

static void policy_in_use_cannot_be_unregistered(struct kunit *test)
{
	struct fp_policy tmp = {
		.name = "kunit_tmp", .owner = THIS_MODULE,
		.flush_walk = fpt_walk_nop, .flush_gather = fpt_gather_nop,
	};
	struct fpt_rig *rig = fpt_reg_rig(test, 1);
	int refs;

	KUNIT_ASSERT_EQ(test, fp_policy_register(&tmp), 0);
	refs = module_refcount(THIS_MODULE);
	KUNIT_EXPECT_EQ(test, fp_context_set_policy(rig->ctx, "kunit_tmp"), 0);
	KUNIT_EXPECT_EQ(test, module_refcount(THIS_MODULE), refs + 1);

	KUNIT_EXPECT_EQ(test, fp_policy_unregister(&tmp), -EBUSY);
	KUNIT_EXPECT_EQ(test, fp_context_set_policy(rig->ctx, "kunit_tmp"), 0);
	KUNIT_EXPECT_EQ(test, module_refcount(THIS_MODULE), refs + 1);

	KUNIT_EXPECT_EQ(test, fp_context_set_policy(rig->ctx, "va"), 0);
	KUNIT_EXPECT_EQ(test, module_refcount(THIS_MODULE), refs);
	KUNIT_EXPECT_EQ(test, fp_policy_unregister(&tmp), 0);
	KUNIT_EXPECT_EQ(test, fp_context_set_policy(rig->ctx, "kunit_tmp"),
			-EINVAL);
}

/*
 * A policy call that takes its time: kunit_slow's first flush_gather after
 * fpt_slow.armed is set spins until fpt_slow.release, or 2 s at most so
 * that no run can hang (the host is loaded: the margin is wide), and says
 * in in_call whether it is still inside.  It spins without sleeping, as a
 * policy must, except on UML (below).
 */
static struct {
	bool armed, release;
	int in_call;
} fpt_slow;

static void fpt_slow_gather(struct fp_context *ctx,
			    const struct iommu_iotlb_gather *gather)
{
	ktime_t end = ktime_add_ms(ktime_get(), 2000);

	if (READ_ONCE(fpt_slow.armed)) {
		WRITE_ONCE(fpt_slow.armed, false);
		WRITE_ONCE(fpt_slow.in_call, 1);
		while (!READ_ONCE(fpt_slow.release) &&
		       ktime_before(ktime_get(), end)) {
			/*
			 * UML does not preempt a kernel busy loop: spinning
			 * there, the call ran its full 2 s before the other
			 * threads ran at all.  So on UML's one CPU this call,
			 * which only stands for a long one, steps out of
			 * dispatch.c's non-blocking section to sleep and let
			 * them in (still pinned: an SRCU reader may sleep);
			 * elsewhere it spins, as a real policy would.
			 */
			if (IS_ENABLED(CONFIG_UML)) {
				non_block_end();
				usleep_range(100, 200);
				non_block_start();
			} else {
				cpu_relax();
			}
		}
	}
	fp_flush_context(ctx);
	WRITE_ONCE(fpt_slow.in_call, 0);
}

static struct fp_policy fpt_slow_policy = {
	.name = "kunit_slow",
	.flush_walk = fpt_walk_nop, .flush_gather = fpt_slow_gather,
};

/* The threads of a slow call: an unmap into it, and a switch away. */
struct fpt_slow_run {
	struct fpt_rig *rig;
	int refs;		/* THIS_MODULE's refcount before kunit_slow */
	struct completion unmapped, switched;
	int switch_ret;
	int in_call_at_switch;	/* in_call when the switch returned */
};

static int fpt_slow_unmap_fn(void *data)
{
	struct fpt_slow_run *r = data;

	fpt_unmap(r->rig, SZ_1G, SZ_4K, false);
	complete(&r->unmapped);
	return 0;
}

static int fpt_slow_switch_fn(void *data)
{
	struct fpt_slow_run *r = data;

	r->switch_ret = fp_context_set_policy(r->rig->ctx, "va");
	r->in_call_at_switch = READ_ONCE(fpt_slow.in_call);
	complete(&r->switched);
	return 0;
}

static bool fpt_ctx_is_va(struct fpt_rig *rig)
{
	char buf[64];

	return fpt_ctx_read(rig, "policy", buf, sizeof(buf)) > 0 &&
	       !strncmp(buf, "[va]", 4);
}

static bool fpt_slow_in_call(struct fpt_rig *rig)
{
	return READ_ONCE(fpt_slow.in_call);
}

/* Wait a second or two for @cond, sleeping so that the slow call runs. */
static bool fpt_poll(bool (*cond)(struct fpt_rig *rig), struct fpt_rig *rig)
{
	int i;

	for (i = 0; i < 1000 && !cond(rig); i++)
		usleep_range(1000, 2000);
	return cond(rig);
}

/*
 * Register kunit_slow with @owner, put a rig on it, and start an unmap
 * whose gather flush spins in it.  Return false if the call never began.
 */
static bool fpt_slow_start(struct kunit *test, struct fpt_slow_run *r,
			   struct module *owner)
{
	struct fpt_rig_cfg rc = { .fmt = ARM_64_LPAE_S1 };

	fpt_slow_policy.owner = owner;
	KUNIT_ASSERT_EQ(test, fp_policy_register(&fpt_slow_policy), 0);
	r->rig = kunit_kzalloc(test, sizeof(*r->rig), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r->rig);
	KUNIT_ASSERT_EQ(test, fpt_rig_init(test, r->rig, &rc, NULL, 1), 0);
	r->refs = module_refcount(THIS_MODULE);
	KUNIT_ASSERT_EQ(test, fp_context_set_policy(r->rig->ctx, "kunit_slow"),
			0);
	KUNIT_ASSERT_EQ(test, fpt_map(r->rig, SZ_1G, SZ_4K, SZ_4K), 0);

	init_completion(&r->unmapped);
	init_completion(&r->switched);
	fpt_slow.release = false;
	fpt_slow.in_call = 0;
	WRITE_ONCE(fpt_slow.armed, true);
	KUNIT_ASSERT_FALSE(test, IS_ERR(kthread_run(fpt_slow_unmap_fn, r,
						    "fp_slow_unmap")));
	return fpt_poll(fpt_slow_in_call, r->rig);
}

/* Let the call end, and wait for both threads: @r is on the stack. */
static void fpt_slow_finish(struct fpt_slow_run *r, bool switching)
{
	WRITE_ONCE(fpt_slow.release, true);
	wait_for_completion(&r->unmapped);
	if (switching)
		wait_for_completion(&r->switched);
}

/*
 * Policy calls run in SRCU read sections, not RCU ones: unregistering a
 * policy must wait for calls still running in it, or its owner frees it
 * (or, with no owner module, its code goes) under a running call.  A
 * switch away lets unregister through while the call goes on.
 */
static void unregister_waits_for_calls_in_flight(struct kunit *test)
{
	struct fpt_slow_run r = {};
	bool started, switched_away;
	int ret, in_call;

	started = fpt_slow_start(test, &r, NULL);
	KUNIT_EXPECT_TRUE(test, started);
	if (!started) {
		fpt_slow_finish(&r, false);
		fp_policy_unregister(&fpt_slow_policy);
		return;
	}
	if (IS_ERR(kthread_run(fpt_slow_switch_fn, &r, "fp_slow_switch")))
		complete(&r.switched);
	switched_away = fpt_poll(fpt_ctx_is_va, r.rig);
	KUNIT_EXPECT_TRUE(test, switched_away);

	ret = fp_policy_unregister(&fpt_slow_policy);
	in_call = READ_ONCE(fpt_slow.in_call);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ_MSG(test, in_call, 0,
			    "unregister returned inside a call to the policy");

	fpt_slow_finish(&r, true);
	KUNIT_EXPECT_EQ(test, r.switch_ret, 0);
	if (ret)
		fp_policy_unregister(&fpt_slow_policy);
}

/*
 * A switch drops the old policy's module reference only once no call into
 * the old policy is running: until then the module must stay pinned and
 * the switch must not return.
 */
static void switch_waits_for_calls_in_flight(struct kunit *test)
{
	struct fpt_slow_run r = {};
	bool started;
	int in_call;

	started = fpt_slow_start(test, &r, THIS_MODULE);
	KUNIT_EXPECT_TRUE(test, started);
	KUNIT_EXPECT_EQ(test, module_refcount(THIS_MODULE), r.refs + 1);
	if (!started) {
		fpt_slow_finish(&r, false);
		goto out;
	}
	if (IS_ERR(kthread_run(fpt_slow_switch_fn, &r, "fp_slow_switch")))
		complete(&r.switched);

	/* The switch has long replaced the pointer, and waits. */
	msleep(50);
	in_call = READ_ONCE(fpt_slow.in_call);
	KUNIT_EXPECT_EQ(test, in_call, 1);
	KUNIT_EXPECT_FALSE_MSG(test, completion_done(&r.switched),
			       "the switch returned inside a call to the old policy");
	KUNIT_EXPECT_EQ(test, module_refcount(THIS_MODULE), r.refs + 1);

	fpt_slow_finish(&r, true);
	KUNIT_EXPECT_EQ(test, r.switch_ret, 0);
	KUNIT_EXPECT_EQ(test, r.in_call_at_switch, 0);
	KUNIT_EXPECT_EQ(test, module_refcount(THIS_MODULE), r.refs);
out:
	KUNIT_EXPECT_EQ(test, fp_context_set_policy(r.rig->ctx, "va"), 0);
	KUNIT_EXPECT_EQ(test, fp_policy_unregister(&fpt_slow_policy), 0);
}

/*
 * A switch away from a built-in policy waits for nothing: calls into a
 * built-in are not pinned, so there is nothing of its to wait for, and
 * waiting for every context's pinned calls would hold the switch behind a
 * slow call of another context's policy.
 */
static void switch_from_builtin_waits_for_no_other_context(struct kunit *test)
{
	struct fpt_rig_cfg rc = { .fmt = ARM_64_LPAE_S1 };
	struct fpt_slow_run r = {};
	struct fpt_rig *other;
	bool started;
	int in_call;

	other = kunit_kzalloc(test, sizeof(*other), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, other);
	KUNIT_ASSERT_EQ(test, fpt_rig_init(test, other, &rc, NULL, 1), 0);
	KUNIT_ASSERT_EQ(test, fp_context_set_policy(other->ctx, "va"), 0);

	started = fpt_slow_start(test, &r, THIS_MODULE);
	KUNIT_EXPECT_TRUE(test, started);
	if (started) {
		/* The slow call, pinned, is in flight on the first context. */
		KUNIT_EXPECT_EQ(test, fp_context_set_policy(other->ctx, "asid"),
				0);
		in_call = READ_ONCE(fpt_slow.in_call);
		KUNIT_EXPECT_EQ_MSG(test, in_call, 1,
				    "a switch from va waited for another context's call");
	}
	fpt_slow_finish(&r, false);
	KUNIT_EXPECT_EQ(test, fp_context_set_policy(r.rig->ctx, "va"), 0);
	KUNIT_EXPECT_EQ(test, fp_policy_unregister(&fpt_slow_policy), 0);
}

/*
 * A policy without an owner module, withdrawn by another thread while a
 * switch to it asks usable(): unregistration must wait for the switch,
 * and then find the policy in use, or its owner frees it under usable()
 * and under the switch.
 */
static struct {
	struct fp_policy pol;
	bool armed, withdrawn_in_usable;
	int unregister_ret;
	struct completion unregistered;
} fpt_gone;

static int fpt_gone_unregister_fn(void *unused)
{
	fpt_gone.unregister_ret = fp_policy_unregister(&fpt_gone.pol);
	/* Two waiters: usable()'s bounded wait, then the case's own. */
	complete_all(&fpt_gone.unregistered);
	return 0;
}

static bool fpt_gone_usable(const struct fp_context *ctx)
{
	if (READ_ONCE(fpt_gone.armed)) {
		WRITE_ONCE(fpt_gone.armed, false);
		if (IS_ERR(kthread_run(fpt_gone_unregister_fn, NULL,
				       "fp_unregister")))
			return true;
		/* Long enough for an unregistration nothing holds up. */
		fpt_gone.withdrawn_in_usable =
			wait_for_completion_timeout(&fpt_gone.unregistered,
						    HZ);
	}
	return true;
}

static void ownerless_policy_not_withdrawn_mid_switch(struct kunit *test)
{
	struct fpt_rig *rig = fpt_reg_rig(test, 1);
	int ret;

	fpt_gone.pol = (struct fp_policy) {
		.name = "kunit_gone", .usable = fpt_gone_usable,
		.flush_walk = fpt_walk_nop, .flush_gather = fpt_gather_nop,
	};
	init_completion(&fpt_gone.unregistered);
	fpt_gone.withdrawn_in_usable = false;
	KUNIT_ASSERT_EQ(test, fp_policy_register(&fpt_gone.pol), 0);
	WRITE_ONCE(fpt_gone.armed, true);

	ret = fp_context_set_policy(rig->ctx, "kunit_gone");
	KUNIT_EXPECT_FALSE_MSG(test, fpt_gone.withdrawn_in_usable,
			       "the policy was withdrawn while usable() ran");
	wait_for_completion(&fpt_gone.unregistered);
	/* Either the switch won and unregistration saw it, or neither. */
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, fpt_gone.unregister_ret, -EBUSY);

	KUNIT_EXPECT_EQ(test, fp_context_set_policy(rig->ctx, "va"), 0);
	if (fpt_gone.unregister_ret)
		KUNIT_EXPECT_EQ(test, fp_policy_unregister(&fpt_gone.pol), 0);
}

/*
 * The module names the core asks modprobe for, seen at the kernel's own
 * module_request tracepoint (not exported: found by name).  A probe runs
 * with preemption off: its lock is raw, as a spinlock_t sleeps on
 * PREEMPT_RT.
 */
static struct {
	raw_spinlock_t lock;	/* n and last: the probe runs in any thread */
	unsigned int n;
	char last[MODULE_NAME_LEN];
	struct tracepoint *tp;
} fpt_modreq;

static void fpt_modreq_probe(void *data, char *name, bool wait,
			     unsigned long ip)
{
	raw_spin_lock(&fpt_modreq.lock);
	fpt_modreq.n++;
	strscpy(fpt_modreq.last, name, sizeof(fpt_modreq.last));
	raw_spin_unlock(&fpt_modreq.lock);
}

static void fpt_modreq_find(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "module_request"))
		fpt_modreq.tp = tp;
}

static void fpt_modreq_stop(void *unused)
{
	tracepoint_probe_unregister(fpt_modreq.tp, fpt_modreq_probe, NULL);
	tracepoint_synchronize_unregister();
}

static void fpt_modreq_start(struct kunit *test)
{
	raw_spin_lock_init(&fpt_modreq.lock);
	fpt_modreq.n = 0;
	fpt_modreq.last[0] = '\0';
	fpt_modreq.tp = NULL;
	for_each_kernel_tracepoint(fpt_modreq_find, NULL);
	KUNIT_ASSERT_NOT_NULL(test, fpt_modreq.tp);
	KUNIT_ASSERT_EQ(test, tracepoint_probe_register(fpt_modreq.tp,
							fpt_modreq_probe,
							NULL), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, fpt_modreq_stop,
							NULL), 0);
}

/*
 * A name written to a context's policy file loads only a module that
 * declared itself a policy (MODULE_FP_POLICY()): never flushpol_smmuv3,
 * flushpol_kunit or any other module whose name starts with flushpol_.
 */
static void policy_names_load_only_policy_modules(struct kunit *test)
{
	struct fpt_rig *rig = fpt_reg_rig(test, 1);

	fpt_modreq_start(test);
	KUNIT_EXPECT_EQ(test, fpt_ctx_write(rig, "policy", "smmuv3\n", 7),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, fpt_modreq.n, 1);
	KUNIT_EXPECT_STREQ(test, fpt_modreq.last, "flushpol-policy-smmuv3");
}

static void fpt_restore_param(void *unused)
{
	fpt_write_file(FPT_PARAM, "auto", 4);
}

/*
 * A context is created where a backend probes, perhaps in an async probe
 * worker, which a module load waits for: creating one never asks for a
 * module, and a policy not loaded gives way to the next choice.
 */
static void new_context_requests_no_module(struct kunit *test)
{
	struct fpt_rig *rig;
	char buf[64];

	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, fpt_restore_param,
							NULL), 0);
	KUNIT_ASSERT_EQ(test, fpt_write_file(FPT_PARAM, "kunit_absent", 12),
			12);
	fpt_modreq_start(test);
	rig = fpt_reg_rig(test, 1);
	KUNIT_EXPECT_EQ(test, fpt_modreq.n, 0);
	fpt_ctx_read(rig, "policy", buf, sizeof(buf));
	KUNIT_EXPECT_STREQ(test, buf, "[va] asid threshold batch adaptive\n");
}

static int fpt_nop_sync(struct fp_context *ctx)
{
	return 0;
}

static void fpt_nop_inv(struct fp_context *ctx)
{
}

static void fpt_nop_inv_va(struct fp_context *ctx, unsigned long iova,
			   size_t size, size_t granule, bool leaf)
{
}

static const struct fp_hw_ops fpt_nop_ops = {
	.inv_va = fpt_nop_inv_va, .inv_context = fpt_nop_inv,
	.sync = fpt_nop_sync,
};

static struct fp_context *fpt_named_ctx(struct kunit *test,
					const char *instance, u32 id)
{
	struct io_pgtable_cfg pgtbl_cfg = {};
	struct fp_context *ctx;

	ctx = fp_context_create(&(struct fp_context_cfg) {
		.backend = "kunit", .instance = instance,
		.owner = THIS_MODULE, .ops = &fpt_nop_ops, .id = id,
		.default_threshold = 128,
	}, &pgtbl_cfg);
	KUNIT_EXPECT_FALSE_MSG(test, IS_ERR(ctx), "%s id %u: %ld", instance,
			       id, PTR_ERR(ctx));
	return IS_ERR(ctx) ? NULL : ctx;
}

static bool fpt_ctx_dir(const char *name)
{
	char path[96], buf[64];

	snprintf(path, sizeof(path), "/sys/kernel/flushpol/contexts/%s/policy",
		 name);
	return fpt_read_file(path, buf, sizeof(buf)) > 0;
}

/*
 * Names "<instance>-asid<id>" that would be cut at FP_CONTEXT_NAME_MAX,
 * and so could be two contexts' (ids 1 and 12 of a 26-character
 * instance), and a name a live context has already: each context works,
 * none takes another's directory, and a name is never shown cut.  A
 * backend's domain, and an SMMU's probe, must not fail for either.
 */
static void context_names_cut_or_taken_get_no_directory(struct kunit *test)
{
	static const char longname[] = "abcdefghijklmnopqrstuvwxyz";
	struct fp_context *a, *b, *c, *d;

	a = fpt_named_ctx(test, longname, 1);
	b = fpt_named_ctx(test, longname, 12);
	KUNIT_EXPECT_FALSE(test, fpt_ctx_dir("abcdefghijklmnopqrstuvwxyz-asid"));

	c = fpt_named_ctx(test, "kunit_twice", 5);
	d = fpt_named_ctx(test, "kunit_twice", 5);
	KUNIT_EXPECT_TRUE(test, fpt_ctx_dir("kunit_twice-asid5"));
	if (d)
		fp_context_destroy(d);
	KUNIT_EXPECT_TRUE_MSG(test, fpt_ctx_dir("kunit_twice-asid5"),
			      "the second context took the first's directory");

	if (c)
		fp_context_destroy(c);
	if (b)
		fp_context_destroy(b);
	if (a)
		fp_context_destroy(a);
	KUNIT_EXPECT_FALSE(test, fpt_ctx_dir("kunit_twice-asid5"));
}

static int fpt_read_int(struct kunit *test, const char *path)
{
	char buf[32];
	int v = -1;

	KUNIT_ASSERT_GT(test, fpt_read_file(path, buf, sizeof(buf)), 0);
	KUNIT_ASSERT_EQ(test, kstrtoint(strim(buf), 10, &v), 0);
	return v;
}

/* A policy built as a module of its own is pinned by each context on it. */
static void context_pins_policy_module(struct kunit *test)
{
	struct fpt_rig *rig = fpt_reg_rig(test, 1);
	struct fpt_rig *rig2 = fpt_reg_rig(test, 2);
	int refs;

	if (IS_BUILTIN(CONFIG_FLUSHPOL_ADAPTIVE))
		kunit_skip(test, "adaptive is built into the kernel: no module to pin");
	refs = fpt_read_int(test, FPT_ADA_REFCNT);

	KUNIT_EXPECT_EQ(test, fp_context_set_policy(rig->ctx, "adaptive"), 0);
	KUNIT_EXPECT_EQ(test, fp_context_set_policy(rig2->ctx, "adaptive"), 0);
	KUNIT_EXPECT_EQ(test, fpt_read_int(test, FPT_ADA_REFCNT), refs + 2);
	KUNIT_EXPECT_EQ(test, fp_context_set_policy(rig->ctx, "asid"), 0);
	KUNIT_EXPECT_EQ(test, fpt_read_int(test, FPT_ADA_REFCNT), refs + 1);
}

static void unknown_policy_refused(struct kunit *test)
{
	struct fpt_rig *rig = fpt_reg_rig(test, 1);

	KUNIT_EXPECT_EQ(test, fp_context_set_policy(rig->ctx, "nosuchpolicy"),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, fp_context_set_policy(rig->ctx, "range"),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, fp_context_set_policy(rig->ctx, "nonstrict"),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, fp_context_set_threshold(rig->ctx, 0), -EINVAL);
}

/* What a new context (ASID @asid) shows in @attr. */
static void fpt_new_ctx_expect(struct kunit *test, u16 asid, const char *attr,
			       const char *want)
{
	struct fpt_rig *rig = fpt_reg_rig(test, asid);
	char buf[64];

	fpt_ctx_read(rig, attr, buf, sizeof(buf));
	KUNIT_EXPECT_STREQ(test, buf, want);
}

static void fpt_restore_thr_param(void *unused)
{
	fpt_write_file(FPT_THR_PARAM, "0", 1);
}

/* The words for the backend's choice are never a policy's name. */
static void backend_choice_words_not_registrable(struct kunit *test)
{
	struct fp_policy pol = {
		.owner = THIS_MODULE,
		.flush_walk = fpt_walk_nop, .flush_gather = fpt_gather_nop,
	};

	static const char *const words[] = { "auto", "default" };
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(words); i++) {
		pol.name = words[i];
		ret = fp_policy_register(&pol);
		/* @pol is on the stack: never leave it registered. */
		if (!ret)
			fp_policy_unregister(&pol);
		KUNIT_EXPECT_EQ_MSG(test, ret, -EINVAL, "registered %s",
				    words[i]);
	}
}

/*
 * "default" and "auto" hand the choice back to the backend: for a lazy
 * context, the policy its backend gave it when it became lazy.
 */
static void default_returns_context_to_backend_choice(struct kunit *test)
{
	struct fpt_rig *rig = fpt_reg_rig(test, 1);
	char buf[64];

	KUNIT_ASSERT_EQ(test, fp_context_set_policy(rig->ctx, "asid"), 0);
	fp_context_set_lazy(rig->ctx, "nonstrict");
	fpt_ctx_read(rig, "policy", buf, sizeof(buf));
	KUNIT_EXPECT_STREQ(test, buf, "va [asid] nonstrict threshold batch adaptive\n");

	KUNIT_EXPECT_EQ(test, fpt_ctx_write(rig, "policy", "default\n", 8), 8);
	fpt_ctx_read(rig, "policy", buf, sizeof(buf));
	KUNIT_EXPECT_STREQ(test, buf, "va asid [nonstrict] threshold batch adaptive\n");

	KUNIT_ASSERT_EQ(test, fp_context_set_policy(rig->ctx, "threshold"), 0);
	KUNIT_EXPECT_EQ(test, fpt_ctx_write(rig, "policy", "auto", 4), 4);
	fpt_ctx_read(rig, "policy", buf, sizeof(buf));
	KUNIT_EXPECT_STREQ(test, buf, "va asid [nonstrict] threshold batch adaptive\n");
}

/* Bad run-time writes are refused and change nothing; 0 is the backend's. */
static void default_threshold_param_sets_new_contexts(struct kunit *test)
{
	static const char *const bad[] = {
		"-1\n", "abc\n", "12abc\n", "4194305\n", "\n",
		"18446744073709551616\n",
	};
	char buf[32];
	int i;

	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
							fpt_restore_thr_param,
							NULL), 0);
	KUNIT_EXPECT_EQ(test, fpt_write_file(FPT_THR_PARAM, "32\n", 3), 3);
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		KUNIT_EXPECT_EQ_MSG(test, fpt_write_file(FPT_THR_PARAM, bad[i],
							 strlen(bad[i])),
				    -EINVAL, "wrote %s", bad[i]);
	fpt_read_file(FPT_THR_PARAM, buf, sizeof(buf));
	KUNIT_EXPECT_STREQ(test, buf, "32\n");
	fpt_new_ctx_expect(test, 1, "threshold", "32\n");

	KUNIT_EXPECT_EQ(test, fpt_write_file(FPT_THR_PARAM, "0\n", 2), 2);
	fpt_new_ctx_expect(test, 2, "threshold", "128\n");
}

/*
 * scripts/kunit.sh boots with junk in every option of flushpol and
 * flushpol_smmuv3 (FPT_JUNK_ARGS there): both loaded, this module with
 * them, and each option kept its default.  The script checks the warnings.
 */
static void junk_load_options_ignored(struct kunit *test)
{
	static const char *const junk[] = {
		"flushpol.default_policy=Bad!Name",
		"flushpol.default_threshold=12abc",
		"flushpol_smmuv3.force_no_ril=maybe",
		"flushpol.latency_stats=maybe",
		"flushpol_smmuv3.cmdq_share=maybe",
	};
	char *cmdline = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	char buf[32];
	int i;

	KUNIT_ASSERT_NOT_NULL(test, cmdline);
	KUNIT_ASSERT_GT(test, fpt_read_file("/proc/cmdline", cmdline,
					    PAGE_SIZE), 0);
	for (i = 0; i < ARRAY_SIZE(junk); i++)
		KUNIT_ASSERT_NOT_NULL_MSG(test, strstr(cmdline, junk[i]),
					  "booted without %s", junk[i]);
	fpt_read_file(FPT_THR_PARAM, buf, sizeof(buf));
	KUNIT_EXPECT_STREQ(test, buf, "0\n");
	fpt_read_file(FPT_RIL_PARAM, buf, sizeof(buf));
	KUNIT_EXPECT_STREQ(test, buf, "N\n");
	fpt_read_file(FPT_SHARE_PARAM, buf, sizeof(buf));
	KUNIT_EXPECT_STREQ(test, buf, "Y\n");
	fpt_read_file(FPT_PARAM, buf, sizeof(buf));
	KUNIT_EXPECT_STREQ(test, buf, "auto\n");
	/* Junk is off: the histograms are not kept. */
	fpt_read_file(FPT_LAT_PARAM, buf, sizeof(buf));
	KUNIT_EXPECT_STREQ(test, buf, "N\n");
	fpt_read_file("/sys/kernel/flushpol/latency", buf, sizeof(buf));
	KUNIT_EXPECT_STREQ(test, buf, "0\n");
}

static void default_policy_param_picks_new_contexts(struct kunit *test)
{
	char buf[64];

	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, fpt_restore_param,
							NULL), 0);
	KUNIT_EXPECT_EQ(test, fpt_write_file(FPT_PARAM, "asid\n", 5), 5);
	KUNIT_EXPECT_EQ(test, fpt_write_file(FPT_PARAM, "Bad!\n", 5), -EINVAL);
	KUNIT_EXPECT_EQ(test, fpt_write_file(FPT_PARAM, "\t\n", 2), -EINVAL);
	fpt_read_file(FPT_PARAM, buf, sizeof(buf));
	KUNIT_EXPECT_STREQ(test, buf, "asid\n");
	KUNIT_EXPECT_EQ(test, fpt_write_file(FPT_PARAM, "default\n", 8), 8);
	fpt_read_file(FPT_PARAM, buf, sizeof(buf));
	KUNIT_EXPECT_STREQ(test, buf, "auto\n");
	KUNIT_EXPECT_EQ(test, fpt_write_file(FPT_PARAM, "asid\n", 5), 5);

	fpt_new_ctx_expect(test, 1, "policy", "va [asid] threshold batch adaptive\n");

	/* A name this context cannot use falls back to the backend's pick. */
	KUNIT_EXPECT_EQ(test, fpt_write_file(FPT_PARAM, "range", 5), 5);
	fpt_new_ctx_expect(test, 2, "policy", "[va] asid threshold batch adaptive\n");
}

static struct kunit_case fpt_registry_test_cases[] = {
	KUNIT_CASE(register_refuses_duplicate_and_incomplete),
	KUNIT_CASE(policy_in_use_cannot_be_unregistered),
	KUNIT_CASE(ownerless_policy_not_withdrawn_mid_switch),
	KUNIT_CASE(policy_names_load_only_policy_modules),
	KUNIT_CASE(new_context_requests_no_module),
	KUNIT_CASE(context_names_cut_or_taken_get_no_directory),
	KUNIT_CASE(unregister_waits_for_calls_in_flight),
	KUNIT_CASE(switch_waits_for_calls_in_flight),
	KUNIT_CASE(switch_from_builtin_waits_for_no_other_context),
	KUNIT_CASE(context_pins_policy_module),
	KUNIT_CASE(unknown_policy_refused),
	KUNIT_CASE(default_policy_param_picks_new_contexts),
	KUNIT_CASE(backend_choice_words_not_registrable),
	KUNIT_CASE(default_returns_context_to_backend_choice),
	KUNIT_CASE(default_threshold_param_sets_new_contexts),
	KUNIT_CASE(junk_load_options_ignored),
	{}
};

static struct kunit_suite fpt_registry_suite = {
	.name = "flushpol_registry",
	.test_cases = fpt_registry_test_cases,
};

kunit_test_suite(fpt_registry_suite);
