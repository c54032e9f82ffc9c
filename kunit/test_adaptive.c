// SPDX-License-Identifier: GPL-2.0-only
/*
 * flushpol_adaptive: can adaptive be shown wrong?  Workloads on the TLB
 * model and the real io-pgtable-arm, each run under every fixed threshold
 * N (1 .. 4096), va, asid and adaptive, and priced
 *
 *	cost = commands * c_cmd + syncs * c_sync + refills * c_walk
 *
 * with the seed's SM8150 constants (c_cmd 126 ns, c_sync 1728 ns, c_walk
 * 126 ns: include/flushpol.h), then with each of them x0.25 and x4.  A
 * refill is a miss of the device's hot set: pages it keeps using between
 * unmaps, which a context-wide flush throws away and a precise one keeps.
 * The streamed buffers' own first-touch misses are the same under every
 * policy and left out.  The model has no clock: adaptive times its flushes
 * with the rig's (fpt_clock(): the model's commands and syncs at c_cmd and
 * c_sync), through the same estimator code as in production.  Fixed
 * policies' counts do not depend on the constants, so they run once per
 * workload and are priced per constant set; adaptive runs once per set.
 *
 * The SMMU is SMMUv2-like (no range invalidation), as the SM8150 is.  The
 * busy device is off: refills happen only where the workload's device
 * touches its hot set, once before every unmap.
 *
 * In make check the suite runs each workload once, shortened, and checks
 * that nothing stale is left; with flushpol_kunit.adaptive_eval=full
 * (make bench) it runs the whole sweep and prints "fp-adaptive:" lines,
 * which scripts/adaptive-table.py turns into the README's table and plot.
 * Targets are printed, never asserted: they are the benchmark's.
 */
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/sizes.h>
#include <linux/string.h>

#include "fp_rig.h"

static bool adaptive_eval_full;
module_param(adaptive_eval_full, bool, 0444);
MODULE_PARM_DESC(adaptive_eval_full,
		 "flushpol_adaptive: the whole sweep and sensitivity (make bench)");

#define FPA_HOT_IOVA	SZ_256M
#define FPA_BUF_IOVA	SZ_1G
#define FPA_SLOT	SZ_64M		/* one in-flight buffer each */
#define FPA_MAX_PHASES	2
#define FPA_NR_FIXED	13		/* N = 1, 2, 4, ... 4096 */

struct fpa_phase {
	unsigned int events;
	unsigned int min_pages, max_pages;	/* 4K pages per buffer */
	unsigned int step;		/* sizes are multiples of it, in pages */
	unsigned int hot;		/* pages the device keeps using */
	unsigned int inflight;		/* buffers mapped ahead of the unmap */
};

struct fpa_workload {
	const char *name;
	struct fpa_phase phase[FPA_MAX_PHASES];
};

/*
 * camera: 8..32M scatter-gather frames (whole tables freed), a 64-page
 * hot set (command buffers, statistics).  display: 64K..1M plane and
 * cursor updates under a 2048-page scanout buffer.  network: 4K..64K
 * packets, 16 in flight, with 4 pages of descriptor rings.  mix: camera
 * for half the events, then display.
 */
static const struct fpa_workload fpa_workloads[] = {
	{ "camera", { { 24, 2048, 8192, 512, 64, 0 } } },
	{ "display", { { 96, 16, 256, 1, 2048, 0 } } },
	{ "network", { { 512, 1, 16, 1, 4, 16 } } },
	{ "mix", { { 12, 2048, 8192, 512, 64, 0 },
		   { 48, 16, 256, 1, 2048, 0 } } },
};

struct fpa_consts {
	const char *name;
	unsigned int cmd, sync, walk;	/* ns */
};

static const struct fpa_consts fpa_consts[] = {
	{ "seed", FP_CMD_NS_DEFAULT, FP_SYNC_NS_DEFAULT, FP_WALK_NS_DEFAULT },
	{ "cmd/4", FP_CMD_NS_DEFAULT / 4, FP_SYNC_NS_DEFAULT, FP_WALK_NS_DEFAULT },
	{ "cmd*4", FP_CMD_NS_DEFAULT * 4, FP_SYNC_NS_DEFAULT, FP_WALK_NS_DEFAULT },
	{ "sync/4", FP_CMD_NS_DEFAULT, FP_SYNC_NS_DEFAULT / 4, FP_WALK_NS_DEFAULT },
	{ "sync*4", FP_CMD_NS_DEFAULT, FP_SYNC_NS_DEFAULT * 4, FP_WALK_NS_DEFAULT },
	{ "walk/4", FP_CMD_NS_DEFAULT, FP_SYNC_NS_DEFAULT, FP_WALK_NS_DEFAULT / 4 },
	{ "walk*4", FP_CMD_NS_DEFAULT, FP_SYNC_NS_DEFAULT, FP_WALK_NS_DEFAULT * 4 },
};

struct fpa_result {
	unsigned long cmds, syncs, refills, unmaps, stale;
};

static u64 fpa_price(const struct fpa_result *r, const struct fpa_consts *k)
{
	return (u64)r->cmds * k->cmd + (u64)r->syncs * k->sync +
	       (u64)r->refills * k->walk;
}

/* A deterministic sequence, the same for every policy. */
static u32 fpa_next(u32 *seed)
{
	*seed = *seed * 1664525 + 1013904223;
	return *seed >> 8;
}

struct fpa_run {
	struct kunit *test;
	struct fpt_rig *rig;
	struct fpa_result r;
	unsigned int hot;		/* hot pages mapped so far */
	size_t len[32];			/* in-flight buffers, by slot */
	unsigned int head, count;
};

static void fpa_touch_hot(struct fpa_run *run)
{
	struct fpm_ctx *mc = &run->rig->mc;
	unsigned long before = mc->n.misses;

	fpm_access_range(mc, FPA_HOT_IOVA, (size_t)run->hot * SZ_4K);
	run->r.refills += mc->n.misses - before;
}

static void fpa_unmap_oldest(struct fpa_run *run)
{
	unsigned long iova = FPA_BUF_IOVA + (unsigned long)run->head * FPA_SLOT;
	size_t len = run->len[run->head];

	KUNIT_ASSERT_EQ(run->test, fpt_unmap(run->rig, iova, len, false), len);
	run->r.stale += fpm_stale_in(&run->rig->mc, iova, len);
	run->r.unmaps++;
	run->head = (run->head + 1) % ARRAY_SIZE(run->len);
	run->count--;
}

static void fpa_phase_run(struct fpa_run *run, const struct fpa_phase *p,
			  u32 *seed, unsigned int events)
{
	struct fpm_ctx *mc = &run->rig->mc;
	unsigned int i;

	if (p->hot > run->hot) {
		unsigned long refills = run->r.refills;

		KUNIT_ASSERT_EQ(run->test,
				fpt_map(run->rig, FPA_HOT_IOVA +
					(unsigned long)run->hot * SZ_4K,
					(size_t)(p->hot - run->hot) * SZ_4K,
					SZ_4K), 0);
		run->hot = p->hot;
		/* Warming a new hot set is no refill. */
		fpa_touch_hot(run);
		run->r.refills = refills;
	}
	for (i = 0; i < events; i++) {
		unsigned int span = (p->max_pages - p->min_pages) / p->step + 1;
		unsigned int pages = p->min_pages +
				     fpa_next(seed) % span * p->step;
		unsigned int slot = (run->head + run->count) %
				    ARRAY_SIZE(run->len);
		unsigned long iova = FPA_BUF_IOVA +
				     (unsigned long)slot * FPA_SLOT;

		run->len[slot] = (size_t)pages * SZ_4K;
		KUNIT_ASSERT_EQ(run->test, fpt_map(run->rig, iova,
						   run->len[slot], SZ_4K), 0);
		run->count++;
		/* The device streams the new buffer, then uses its hot set. */
		fpm_access_range(mc, iova, run->len[slot]);
		fpa_touch_hot(run);
		if (run->count > p->inflight)
			fpa_unmap_oldest(run);
	}
	while (run->count > p->inflight && run->count)
		fpa_unmap_oldest(run);
}

/*
 * One workload under one policy (@n: threshold N, or 0) and one set of
 * constants for the model's clock and adaptive's walk cost.
 */
static struct fpa_result fpa_run_one(struct kunit *test,
				     const struct fpa_workload *w,
				     const char *policy, unsigned int n,
				     const struct fpa_consts *k, bool full)
{
	struct fpt_rig_cfg rc = { .fmt = ARM_64_LPAE_S1, .policy = policy,
				  .threshold = n };
	struct fpt_rig *rig = kunit_kzalloc(test, sizeof(*rig), GFP_KERNEL);
	struct fpa_run run = { .test = test, .rig = rig };
	unsigned long cmds0, syncs0;
	u32 seed = 12345;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, rig);
	KUNIT_ASSERT_EQ(test, fpt_rig_init(test, rig, &rc, NULL, 1), 0);
	rig->mc.busy = false;
	rig->cmd_ns = k->cmd;
	rig->sync_ns = k->sync;
	/* The backend's walk cost; the model's TLB holds every hot set. */
	KUNIT_ASSERT_EQ(test, fp_context_set_walk_ns(rig->ctx, k->walk), 0);
	KUNIT_ASSERT_EQ(test, fp_context_set_tlb_entries(rig->ctx, 4096), 0);

	cmds0 = rig->smmu->cmds;
	syncs0 = rig->smmu->syncs;
	for (i = 0; i < FPA_MAX_PHASES && w->phase[i].events; i++) {
		const struct fpa_phase *p = &w->phase[i];

		fpa_phase_run(&run, p, &seed, full ? p->events :
			      max(p->events / 8, 2U));
	}
	/* Whatever is still in flight, as the last phase would end. */
	while (run.count)
		fpa_unmap_oldest(&run);
	run.r.cmds = rig->smmu->cmds - cmds0;
	run.r.syncs = rig->smmu->syncs - syncs0;
	KUNIT_EXPECT_EQ(test, run.r.stale, 0);
	KUNIT_EXPECT_EQ(test, rig->mc.n.stale_hits, 0);
	KUNIT_EXPECT_EQ(test, rig->mc.n.freed_refs, 0);
	fpt_rig_release(rig);
	return run.r;
}

static void fpa_desc(const struct fpa_workload *w, char *desc)
{
	strscpy(desc, w->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(fpa, fpa_workloads, fpa_desc);

static void fpa_print(struct kunit *test, const struct fpa_workload *w,
		      const struct fpa_consts *k, const char *policy,
		      unsigned int n, const struct fpa_result *r)
{
	kunit_info(test,
		   "fp-adaptive: workload=%s consts=%s c_cmd=%u c_sync=%u c_walk=%u policy=%s n=%u unmaps=%lu cmds=%lu syncs=%lu refills=%lu cost_ns=%llu stale=%lu\n",
		   w->name, k->name, k->cmd, k->sync, k->walk, policy, n,
		   r->unmaps, r->cmds, r->syncs, r->refills, fpa_price(r, k),
		   r->stale);
}

/*
 * Every policy on the workload: nothing stale, and (make bench) the costs.
 * va never sends fewer commands than adaptive, which is checked: that is
 * adaptive's promise, whatever its estimates.
 */
static void workload_swept_nothing_stale(struct kunit *test)
{
	const struct fpa_workload *w = test->param_value;
	bool full = adaptive_eval_full;
	struct fpa_result fixed[FPA_NR_FIXED], va, asid, ada;
	unsigned int i, nk = full ? ARRAY_SIZE(fpa_consts) : 1;

	va = fpa_run_one(test, w, "va", 0, &fpa_consts[0], full);
	asid = fpa_run_one(test, w, "asid", 0, &fpa_consts[0], full);
	for (i = 0; i < FPA_NR_FIXED; i++) {
		if (!full && i % 6)
			continue;
		fixed[i] = fpa_run_one(test, w, "threshold", 1U << i,
				       &fpa_consts[0], full);
	}
	for (i = 0; i < nk; i++) {
		const struct fpa_consts *k = &fpa_consts[i];
		unsigned int j;

		ada = fpa_run_one(test, w, "adaptive", 0, k, full);
		KUNIT_EXPECT_LE(test, ada.cmds, va.cmds);
		fpa_print(test, w, k, "adaptive", 0, &ada);
		fpa_print(test, w, k, "va", 0, &va);
		fpa_print(test, w, k, "asid", 0, &asid);
		for (j = 0; j < FPA_NR_FIXED; j++)
			if (full || !(j % 6))
				fpa_print(test, w, k, "threshold", 1U << j,
					  &fixed[j]);
	}
}

static struct kunit_case fpa_test_cases[] = {
	KUNIT_CASE_PARAM(workload_swept_nothing_stale, fpa_gen_params),
	{}
};

static struct kunit_suite fpa_suite = {
	.name = "flushpol_adaptive",
	.test_cases = fpa_test_cases,
};

kunit_test_suite(fpa_suite);
