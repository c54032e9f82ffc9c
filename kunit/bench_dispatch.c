// SPDX-License-Identifier: GPL-2.0-only
/*
 * flushpol_bench_dispatch: what going through the flushpol core costs per
 * call, against a driver that calls the same backend itself.  A benchmark,
 * not a test: it prints "fp-dispatch:" lines for make bench
 * (scripts/bench.sh) and asserts nothing about time, which on a shared host
 * in a debug kernel would prove nothing.
 *
 * Both sides drive a backend whose primitives only count, so what differs
 * is the dispatch: the core's statistics, coverage tracking, the policy
 * pinned under SRCU, tracepoints, and the policy's own decisions.  The
 * unmap is io-pgtable's unmap_pages with the caller's gather, as the IOMMU
 * core calls a driver that does not go through fp_unmap().  The
 * direct side does what a driver without flushpol does with the same calls
 * (arm-smmu-v3's shape): gather leaves, invalidate them by VA and sync at
 * iotlb_sync; invalidate by VA and sync at each walk flush.
 *
 * Each measurement runs both sides in turn, FPB_ROUNDS times, so that
 * the host's noise falls on both alike; the lines give the median round
 * and the spread.
 */
#include <kunit/test.h>
#include <linux/io-pgtable.h>
#include <linux/ktime.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/sizes.h>
#include <linux/sort.h>
#include <linux/spinlock.h>
#include <linux/srcu.h>
#include <linux/string.h>

#include "bench_backend.h"
#include "fp_rig.h"

#define FPB_CALLS	4096
#define FPB_ROUNDS	15
#define FPB_IOVA	SZ_1G

/* One way of reaching the backend: through flushpol, or directly. */
struct fpb_side {
	const struct iommu_flush_ops *tlb;
	void (*iotlb_sync)(void *cookie, struct iommu_iotlb_gather *gather);
	void *cookie;
	bool through_fp;
	struct io_pgtable_ops *ops;
	u64 ps[FPB_ROUNDS];	/* per call, one entry per round */
};

struct fpb {
	struct fpb_side fp, direct;
	struct fpbk_pair *pair;
};

static void fpb_direct_iotlb_sync(void *cookie, struct iommu_iotlb_gather *g)
{
	fpbk_direct_iotlb_sync(g);
}

/* The flushpol side's iotlb_sync, a call away as the direct one is. */
static void fpb_fp_iotlb_sync(void *cookie, struct iommu_iotlb_gather *g)
{
	fp_iotlb_sync(cookie, g);
}

enum fpb_op { FPB_ADD_PAGE, FPB_FLUSH_WALK, FPB_IOTLB_SYNC, FPB_UNMAP_4K,
	      FPB_FP_UNMAP_4K };

static const char * const fpb_op_names[] = {
	[FPB_ADD_PAGE]		= "tlb_add_page",
	[FPB_FLUSH_WALK]	= "tlb_flush_walk",
	[FPB_IOTLB_SYNC]	= "add_page+iotlb_sync",
	[FPB_UNMAP_4K]		= "unmap_4k",
	[FPB_FP_UNMAP_4K]	= "fp_unmap_4k",
};

/* One round of FPB_CALLS calls of @op on @s; returns ps per call. */
static u64 fpb_round(struct kunit *test, struct fpb_side *s, enum fpb_op op)
{
	struct iommu_iotlb_gather g;
	unsigned long iova;
	size_t mapped = 0;
	unsigned int i;
	u64 t0, t;

	/* io-pgtable maps up to the end of one table per call. */
	while ((op == FPB_UNMAP_4K || op == FPB_FP_UNMAP_4K) &&
	       mapped < FPB_CALLS * SZ_4K) {
		size_t n = 0;

		KUNIT_ASSERT_EQ(test, s->ops->map_pages(s->ops,
							FPB_IOVA + mapped,
							FPB_IOVA + mapped,
							SZ_4K,
							FPB_CALLS - mapped / SZ_4K,
							IOMMU_READ, GFP_KERNEL,
							&n), 0);
		KUNIT_ASSERT_NE(test, n, 0);
		mapped += n;
	}
	iommu_iotlb_gather_init(&g);

	t0 = ktime_get_ns();
	for (i = 0, iova = FPB_IOVA; i < FPB_CALLS; i++, iova += SZ_4K) {
		switch (op) {
		case FPB_ADD_PAGE:
			s->tlb->tlb_add_page(&g, iova, SZ_4K, s->cookie);
			break;
		case FPB_FLUSH_WALK:
			s->tlb->tlb_flush_walk(FPB_IOVA + i * SZ_2M, SZ_2M,
					       SZ_4K, s->cookie);
			break;
		case FPB_IOTLB_SYNC:
			/* Gathered through the side's own add_page. */
			iommu_iotlb_gather_init(&g);
			s->tlb->tlb_add_page(&g, iova, SZ_4K, s->cookie);
			s->iotlb_sync(s->cookie, &g);
			break;
		case FPB_FP_UNMAP_4K:
			/* The way the integration documents: fp_unmap(). */
			if (s->through_fp) {
				fp_unmap(s->cookie, s->ops, iova, SZ_4K, NULL);
				break;
			}
			fallthrough;
		case FPB_UNMAP_4K:
			/* iommu_unmap() of one page: unmap, then sync. */
			iommu_iotlb_gather_init(&g);
			s->ops->unmap_pages(s->ops, iova, SZ_4K, 1, &g);
			s->iotlb_sync(s->cookie, &g);
			break;
		}
	}
	t = ktime_get_ns() - t0;

	/*
	 * End what the round left open: the gathered leaves, the spans the
	 * walk flushes covered (an empty gather: nothing was unmapped).
	 */
	if (op == FPB_ADD_PAGE || op == FPB_FLUSH_WALK)
		s->iotlb_sync(s->cookie, &g);
	return div_u64(t * 1000, FPB_CALLS);
}

static int fpb_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static void fpb_measure(struct kunit *test, struct fpb *b, const char *policy,
			enum fpb_op op)
{
	unsigned long fp_cmds = 0, fp_syncs = 0, d_cmds = 0, d_syncs = 0;
	unsigned long c, y;
	unsigned int r;

	fpbk_counts(&c, &y);
	for (r = 0; r < FPB_ROUNDS; r++) {
		b->fp.ps[r] = fpb_round(test, &b->fp, op);
		fpbk_counts(&c, &y);
		fp_cmds += c;
		fp_syncs += y;
		b->direct.ps[r] = fpb_round(test, &b->direct, op);
		fpbk_counts(&c, &y);
		d_cmds += c;
		d_syncs += y;
	}
	/*
	 * va is upstream's behaviour: if flushpol's va asked the backend for
	 * anything else than the direct side did, the two would not be
	 * comparable.
	 */
	if (!strcmp(policy, "va")) {
		KUNIT_EXPECT_EQ(test, fp_cmds, d_cmds);
		KUNIT_EXPECT_EQ(test, fp_syncs, d_syncs);
	}

	sort(b->fp.ps, FPB_ROUNDS, sizeof(u64), fpb_cmp_u64, NULL);
	sort(b->direct.ps, FPB_ROUNDS, sizeof(u64), fpb_cmp_u64, NULL);
	kunit_info(test,
		   "fp-dispatch: policy=%s op=%s calls=%u rounds=%u fp_ps=%llu direct_ps=%llu fp_min_ps=%llu fp_max_ps=%llu direct_min_ps=%llu direct_max_ps=%llu cmds=%lu/%lu syncs=%lu/%lu\n",
		   policy, fpb_op_names[op], FPB_CALLS, FPB_ROUNDS,
		   b->fp.ps[FPB_ROUNDS / 2], b->direct.ps[FPB_ROUNDS / 2],
		   b->fp.ps[0], b->fp.ps[FPB_ROUNDS - 1], b->direct.ps[0],
		   b->direct.ps[FPB_ROUNDS - 1], fp_cmds, d_cmds, fp_syncs,
		   d_syncs);
}

static void dispatch_cost_reported(struct kunit *test)
{
	const char * const *policy = test->param_value;
	struct fpb *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	enum fpb_op op;

	KUNIT_ASSERT_NOT_NULL(test, b);
	b->pair = fpbk_pair_create(test, "bench", *policy);

	b->fp.tlb = b->pair->fp_cfg.tlb;
	b->fp.iotlb_sync = fpb_fp_iotlb_sync;
	b->fp.cookie = b->pair->ctx;
	b->fp.through_fp = true;
	b->fp.ops = b->pair->fp_ops;

	b->direct.tlb = &fpbk_direct_tlb;
	b->direct.iotlb_sync = fpb_direct_iotlb_sync;
	b->direct.cookie = b->pair;
	b->direct.ops = b->pair->direct_ops;

	for (op = FPB_ADD_PAGE; op <= FPB_FP_UNMAP_4K; op++)
		fpb_measure(test, b, *policy, op);
}

enum fpb_prim { FPB_RCU, FPB_SRCU, FPB_SPIN_IRQSAVE, FPB_THIS_CPU_ADD,
	FPB_NR_PRIMS };

static const char * const fpb_prim_names[] = {
	[FPB_RCU]		= "rcu_read_lock+unlock",
	[FPB_SRCU]		= "srcu_read_lock+unlock",
	[FPB_SPIN_IRQSAVE]	= "spin_lock_irqsave+unlock",
	[FPB_THIS_CPU_ADD]	= "this_cpu_add",
};

static DEFINE_SPINLOCK(fpb_lock);
/* As the core's fp_policy_srcu, which pins the policy for each call. */
DEFINE_STATIC_SRCU(fpb_srcu);
static DEFINE_PER_CPU(u64, fpb_counter);

/*
 * What the core's building blocks cost in this kernel, to read the lines
 * above by: the test kernel's debug options (lock proving, RCU checking)
 * make RCU read sections and spinlocks far dearer than a production kernel
 * does, and the core takes both on every call.
 */
static void kernel_primitive_costs_reported(struct kunit *test)
{
	u64 ps[FPB_ROUNDS], t0;
	unsigned long flags;
	enum fpb_prim p;
	unsigned int r, i;
	int idx;

	for (p = 0; p < FPB_NR_PRIMS; p++) {
		for (r = 0; r < FPB_ROUNDS; r++) {
			t0 = ktime_get_ns();
			for (i = 0; i < FPB_CALLS; i++) {
				switch (p) {
				case FPB_RCU:
					rcu_read_lock();
					rcu_read_unlock();
					break;
				case FPB_SRCU:
					idx = srcu_read_lock(&fpb_srcu);
					srcu_read_unlock(&fpb_srcu, idx);
					break;
				case FPB_SPIN_IRQSAVE:
					spin_lock_irqsave(&fpb_lock, flags);
					spin_unlock_irqrestore(&fpb_lock,
							       flags);
					break;
				default:
					this_cpu_add(fpb_counter, 1);
					break;
				}
			}
			ps[r] = div_u64((ktime_get_ns() - t0) * 1000,
					FPB_CALLS);
		}
		sort(ps, FPB_ROUNDS, sizeof(u64), fpb_cmp_u64, NULL);
		kunit_info(test, "fp-dispatch-ref: what=%s ps=%llu min_ps=%llu max_ps=%llu\n",
			   fpb_prim_names[p], ps[FPB_ROUNDS / 2], ps[0],
			   ps[FPB_ROUNDS - 1]);
	}
}

/* /sys/kernel/flushpol/latency: the latency histograms' static key. */
static void fpb_latency_set(bool on)
{
	fpt_write_file("/sys/kernel/flushpol/latency", on ? "1\n" : "0\n", 2);
}

static void fpb_latency_off(void *unused)
{
	fpb_latency_set(false);
}

/* Rounds as "a,b,c", for the table's interval (scripts/interval.py). */
static void fpb_rounds_str(char *buf, size_t size, const u64 *ps)
{
	unsigned int r, len = 0;

	for (r = 0; r < FPB_ROUNDS; r++)
		len += scnprintf(buf + len, size - len, "%s%llu", r ? "," : "",
				 ps[r]);
}

/*
 * What keeping the latency histograms costs a 4K strict unmap under va:
 * the same calls with /sys/kernel/flushpol/latency 0 and 1, in turn in
 * each round, through fp_unmap() and as the IOMMU core calls a driver
 * (unmap_pages, then iotlb_sync).  Every round's figure is printed, so
 * that the table gives the ratio of the medians with its interval.
 */
static void latency_cost_reported(struct kunit *test)
{
	static const enum fpb_op ops[] = { FPB_FP_UNMAP_4K, FPB_UNMAP_4K };
	struct fpb *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	u64 off[FPB_ROUNDS], on[FPB_ROUNDS];
	char *offs, *ons;
	unsigned int i, r;

	offs = kunit_kzalloc(test, 32 * FPB_ROUNDS, GFP_KERNEL);
	ons = kunit_kzalloc(test, 32 * FPB_ROUNDS, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_ASSERT_NOT_NULL(test, offs);
	KUNIT_ASSERT_NOT_NULL(test, ons);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, fpb_latency_off,
							NULL), 0);
	b->pair = fpbk_pair_create(test, "bench", "va");
	b->fp.tlb = b->pair->fp_cfg.tlb;
	b->fp.iotlb_sync = fpb_fp_iotlb_sync;
	b->fp.cookie = b->pair->ctx;
	b->fp.through_fp = true;
	b->fp.ops = b->pair->fp_ops;

	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		for (r = 0; r < FPB_ROUNDS; r++) {
			fpb_latency_set(false);
			off[r] = fpb_round(test, &b->fp, ops[i]);
			fpb_latency_set(true);
			on[r] = fpb_round(test, &b->fp, ops[i]);
		}
		fpb_latency_set(false);
		fpb_rounds_str(offs, 32 * FPB_ROUNDS, off);
		fpb_rounds_str(ons, 32 * FPB_ROUNDS, on);
		kunit_info(test, "fp-dispatch-latency: policy=va op=%s calls=%u rounds=%u off_ps=%s on_ps=%s\n",
			   fpb_op_names[ops[i]], FPB_CALLS, FPB_ROUNDS, offs,
			   ons);
	}
}

static const char * const fpb_policies[] = { "va", "range", "asid",
					     "threshold", "adaptive" };

static void fpb_policy_desc(const char * const *p, char *desc)
{
	strscpy(desc, *p, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(fpb_policy, fpb_policies, fpb_policy_desc);

/*
 * The strict policies that send upstream's one command at 4K; adaptive
 * beside threshold, whose cost it is held to.
 */
struct fpb_comp {
	const char *policy;
	bool ril;
	bool estimate;	/* as with flushpol_adaptive loaded */
};

static const struct fpb_comp fpb_comps[] = {
	{ "va", false, false }, { "threshold", false, false },
	{ "range", true, false }, { "threshold", true, false },
	{ "va", false, true }, { "threshold", false, true },
	{ "adaptive", false, true }, { "range", true, true },
	{ "threshold", true, true }, { "adaptive", true, true },
};

static void fpb_comp_desc(const struct fpb_comp *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s%s%s", c->policy,
		 c->ril ? "-ril" : "", c->estimate ? "-estimate" : "");
}

KUNIT_ARRAY_PARAM(fpb_comp, fpb_comps, fpb_comp_desc);

static void composition_cost_reported(struct kunit *test)
{
	const struct fpb_comp *c = test->param_value;

	fpbk_composition_reported(test, c->policy, c->ril, c->estimate);
}

static struct kunit_case fpb_test_cases[] = {
	KUNIT_CASE_PARAM(dispatch_cost_reported, fpb_policy_gen_params),
	KUNIT_CASE(kernel_primitive_costs_reported),
	KUNIT_CASE(latency_cost_reported),
	KUNIT_CASE_PARAM(composition_cost_reported, fpb_comp_gen_params),
	{}
};

static struct kunit_suite fpb_suite = {
	.name = "flushpol_bench_dispatch",
	.test_cases = fpb_test_cases,
};

kunit_test_suite(fpb_suite);
