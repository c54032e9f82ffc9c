// SPDX-License-Identifier: GPL-2.0-only
/*
 * flushpol_bench_scale: whether unmapping through flushpol scales with the
 * number of CPUs as unmapping without it does.  N threads (1, 2, 4, as
 * many as there are CPUs), each bound to a CPU of its own, unmap disjoint
 * ranges of ONE context, 4K page by 4K page, each unmap followed by its
 * sync: through fp_unmap() and io-pgtable-arm to a do-nothing backend, and
 * through io-pgtable-arm to the same do-nothing calls made directly, as a
 * driver without flushpol would (the direct side of bench_dispatch.c).
 *
 * A benchmark, not a test: it prints "fp-scale:" lines for make bench
 * (scripts/bench.sh, in the arm64 SMP kernel) and asserts nothing about
 * time.  It does check that every page unmapped and that flushpol's va
 * asked the backend for exactly what the direct side did, so the two
 * sides stay comparable.  Under UML (one CPU) only N = 1 runs.
 *
 * The backend and the direct side are bench_backend.c's, shared with
 * bench_dispatch.c; it counts per CPU, without a shared line.
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/io-pgtable.h>
#include <linux/ktime.h>
#include <linux/percpu.h>
#include <linux/percpu_counter.h>
#include <linux/sched.h>
#include <linux/sizes.h>
#include <linux/sort.h>
#include <linux/srcu.h>

#include "bench_backend.h"
#include "fp_rig.h"

/*
 * Per round: 2048 pages is about 15 ms of guest time per thread in the
 * arm64 debug kernel under TCG (7 us an unmap).  Before issue 10 every
 * fp_unmap() took the context's span_lock twice, and 2048 pages over 7
 * rounds took 120 s with four threads; since the coverage is per call
 * the path takes no lock, so the rounds can be many, and should:
 * under TCG on a shared host a round's median moves by 2x from one round
 * to the next.  41 rounds: with 15 the direct side "kept" 141% of its
 * per-thread throughput from 1 to 2 threads, which is noise; a case of
 * 41 rounds is still about 10 s of guest time, far within the 120 s the
 * hung-task detector allows it under TCG.
 */
#define FPS_PAGES	2048		/* per thread and round */
#define FPS_ROUNDS	41
#define FPS_MAX_THREADS	4
/* Thread t unmaps [FPS_BASE + t * 1G, + FPS_PAGES * 4K): no shared table. */
#define FPS_BASE	SZ_1G

struct fps_side {
	const char *name;
	struct fp_context *ctx;		/* NULL on the direct side */
	struct io_pgtable_ops *ops;
	/* A part of flushpol's path, made once per unmap besides. */
	void (*part)(void);
};

struct fps_round {
	struct fps_side *side;
	unsigned int threads;
	atomic_t arrived;
	atomic_t running;
	atomic_t short_unmaps;
	atomic_t map_failures;
	struct completion done;
	u64 ns[FPS_MAX_THREADS];	/* per round, per thread */
};

struct fps_worker {
	struct fps_round *r;
	unsigned int id;
};

static int fps_map_range(struct io_pgtable_ops *ops, unsigned long iova)
{
	size_t mapped = 0, n;
	int ret;

	/* io-pgtable maps up to the end of one table per call. */
	while (mapped < FPS_PAGES * SZ_4K) {
		n = 0;
		ret = ops->map_pages(ops, iova + mapped, iova + mapped, SZ_4K,
				     FPS_PAGES - mapped / SZ_4K, IOMMU_READ,
				     GFP_KERNEL, &n);
		if (ret || !n)
			return ret ?: -EINVAL;
		mapped += n;
	}
	return 0;
}

static int fps_worker_fn(void *data)
{
	struct fps_worker *w = data;
	struct fps_round *r = w->r;
	struct fps_side *s = r->side;
	unsigned long iova = FPS_BASE + w->id * (unsigned long)SZ_1G;
	struct iommu_iotlb_gather g;
	unsigned int i;
	size_t n;
	u64 t0;

	if (fps_map_range(s->ops, iova))
		atomic_inc(&r->map_failures);
	/* Start together, so that the threads' unmaps overlap in time. */
	atomic_inc(&r->arrived);
	while (atomic_read(&r->arrived) < r->threads)
		cpu_relax();

	t0 = ktime_get_ns();
	for (i = 0; i < FPS_PAGES; i++, iova += SZ_4K) {
		if (s->ctx) {
			if (s->part)
				s->part();
			n = fp_unmap(s->ctx, s->ops, iova, SZ_4K, NULL);
		} else {
			/* iommu_unmap() of one page: unmap, then sync. */
			iommu_iotlb_gather_init(&g);
			if (s->part)
				s->part();
			n = s->ops->unmap_pages(s->ops, iova, SZ_4K, 1, &g);
			fpbk_direct_iotlb_sync(&g);
		}
		if (n != SZ_4K)
			atomic_inc(&r->short_unmaps);
	}
	r->ns[w->id] = ktime_get_ns() - t0;

	if (atomic_dec_and_test(&r->running))
		complete(&r->done);
	return 0;
}

/*
 * One round: @threads threads, on CPUs of their own, unmap through @s;
 * *@ns: the time each took for its FPS_PAGES unmaps, the mean of them.
 */
static void fps_run_round(struct kunit *test, struct fps_side *s,
			  unsigned int threads, u64 *ns)
{
	struct fps_worker w[FPS_MAX_THREADS];
	void *args[FPS_MAX_THREADS];
	struct fps_round *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, r);
	r->side = s;
	r->threads = threads;
	atomic_set(&r->running, threads);
	init_completion(&r->done);
	for (i = 0; i < threads; i++) {
		w[i] = (struct fps_worker){ .r = r, .id = i };
		args[i] = &w[i];
	}
	fpbk_run_bound(test, fps_worker_fn, args, threads, "fp_scale",
		       &r->done);

	KUNIT_EXPECT_EQ(test, atomic_read(&r->map_failures), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->short_unmaps), 0);
	/* Per thread, the mean of the threads. */
	*ns = 0;
	for (i = 0; i < threads; i++)
		*ns += r->ns[i];
	*ns = div_u64(*ns, threads);
	kunit_kfree(test, r);
}

static int fps_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static void scaling_reported(struct kunit *test)
{
	const char * const *policy = test->param_value;
	struct fps_side fp = { .name = "flushpol" }, direct = { .name = "direct" };
	struct fpbk_pair *p = fpbk_pair_create(test, "scale", *policy);
	u64 fp_ns[FPS_ROUNDS], d_ns[FPS_ROUNDS];
	unsigned long fp_cmds, fp_syncs, d_cmds, d_syncs, c, y;
	unsigned int threads, r;

	fp.ctx = p->ctx;
	fp.ops = p->fp_ops;
	direct.ops = p->direct_ops;

	fpbk_counts(&c, &y);
	for (threads = 1; threads <= FPS_MAX_THREADS; threads *= 2) {
		if (threads > num_online_cpus())
			break;
		fp_cmds = 0;
		fp_syncs = 0;
		d_cmds = 0;
		d_syncs = 0;
		/* The sides in turn, so the host's noise falls on both. */
		for (r = 0; r < FPS_ROUNDS; r++) {
			fps_run_round(test, &fp, threads, &fp_ns[r]);
			fp_ns[r] = div_u64(fp_ns[r], FPS_PAGES);
			fpbk_counts(&c, &y);
			fp_cmds += c;
			fp_syncs += y;
			fps_run_round(test, &direct, threads, &d_ns[r]);
			d_ns[r] = div_u64(d_ns[r], FPS_PAGES);
			fpbk_counts(&c, &y);
			d_cmds += c;
			d_syncs += y;
		}
		if (!strcmp(*policy, "va")) {
			KUNIT_EXPECT_EQ(test, fp_cmds, d_cmds);
			KUNIT_EXPECT_EQ(test, fp_syncs, d_syncs);
		}
		sort(fp_ns, FPS_ROUNDS, sizeof(u64), fps_cmp_u64, NULL);
		sort(d_ns, FPS_ROUNDS, sizeof(u64), fps_cmp_u64, NULL);
		kunit_info(test,
			   "fp-scale: policy=%s threads=%u cpus=%u pages=%u rounds=%u fp_ns=%llu direct_ns=%llu fp_min_ns=%llu fp_max_ns=%llu direct_min_ns=%llu direct_max_ns=%llu cmds=%lu/%lu syncs=%lu/%lu\n",
			   *policy, threads, num_online_cpus(), FPS_PAGES,
			   FPS_ROUNDS, fp_ns[FPS_ROUNDS / 2],
			   d_ns[FPS_ROUNDS / 2], fp_ns[0],
			   fp_ns[FPS_ROUNDS - 1], d_ns[0],
			   d_ns[FPS_ROUNDS - 1], fp_cmds, d_cmds, fp_syncs,
			   d_syncs);
	}
}

/*
 * Where flushpol's fixed cost per unmap goes: the parts of its path that a
 * 4K unmap through fp_unmap() and va takes, each added alone to the
 * direct side, as the core makes it (core/dispatch.c, core/coverage.c,
 * core/fp_core.h, core/unmap.c), through a call of its own; and that
 * call alone ("none"), which the parts are measured against.  What the
 * parts leave of flushpol's cost over direct is the dispatch itself: the
 * gather handed on, the policy and the backend reached through pointers.
 */
DEFINE_STATIC_SRCU(fps_srcu);
static int __rcu *fps_srcu_ptr;

static noinline void fps_part_none(void)
{
	barrier();
}

/* fp_policy_pin() and fp_policy_unpin(): once per 4K unmap (its gather). */
static noinline void fps_part_srcu(void)
{
	int idx = srcu_read_lock(&fps_srcu);
	int *pol = srcu_dereference(fps_srcu_ptr, &fps_srcu);

	OPTIMIZER_HIDE_VAR(pol);
	srcu_read_unlock(&fps_srcu, idx);
}

/* fp_call_enter() and fp_call_leave(), around the page table's unmap. */
struct fps_call {
	struct task_struct *task;
	unsigned long irq;
	struct fps_call *restore;
};

static DEFINE_PER_CPU(struct fps_call *, fps_cur_call);

static noinline void fps_part_record(void)
{
	struct fps_call c, *prev;

	migrate_disable();
	c.task = current;
	c.irq = preempt_count() & (NMI_MASK | HARDIRQ_MASK | SOFTIRQ_MASK);
	preempt_disable();
	prev = __this_cpu_read(fps_cur_call);
	c.restore = prev && prev->irq < c.irq ? prev : NULL;
	__this_cpu_write(fps_cur_call, &c);
	preempt_enable();

	preempt_disable();
	if (__this_cpu_read(fps_cur_call) == &c)
		__this_cpu_write(fps_cur_call, c.restore);
	preempt_enable();
	migrate_enable();
}

/* fp_stat_add(): unmaps, pages, TLBI_VA commands, syncs. */
struct fps_stats {
	atomic64_t v[4];
};

static struct fps_stats __percpu *fps_stats;

static noinline void fps_part_stats(void)
{
	struct fps_stats __percpu *stats = READ_ONCE(fps_stats);
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(stats->v); i++)
		atomic64_add(1, &raw_cpu_ptr(stats)->v[i]);
}

/* The footprint estimate, once fp_map() has counted (core/unmap.c). */
static struct percpu_counter fps_resident;

static noinline void fps_part_estimate(void)
{
	percpu_counter_sub(&fps_resident, 1);
}

/*
 * What the core no longer does for a 4K unmap under a built-in policy: a
 * read section around the policy call, and the call record (migration off
 * and on) around the page table's unmap.  Added back to flushpol's side,
 * it gives the core as it was, in the same rounds.
 */
static noinline void fps_part_removed(void)
{
	fps_part_srcu();
	fps_part_record();
}

static const struct {
	const char *name;
	void (*part)(void);
} fps_parts[] = {
	{ "none", fps_part_none },
	{ "srcu", fps_part_srcu },
	{ "record", fps_part_record },
	{ "stats", fps_part_stats },
	{ "estimate", fps_part_estimate },
};

#define FPS_PART_SIDES	(3 + ARRAY_SIZE(fps_parts))

static void fps_free_parts(void *data)
{
	percpu_counter_destroy(&fps_resident);
	free_percpu(fps_stats);
	fps_stats = NULL;
}

/* Every round's ns per unmap, in tenths, for the table's intervals. */
static void fps_print_rounds(struct kunit *test, const char *side,
			     const u64 *ns)
{
	const size_t size = FPS_ROUNDS * 21 + 1;
	char *buf = kunit_kzalloc(test, size, GFP_KERNEL);
	unsigned int r;
	int len = 0;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (r = 0; r < FPS_ROUNDS; r++)
		len += scnprintf(buf + len, size - len, r ? ",%llu" : "%llu",
				 div_u64(ns[r] * 10, FPS_PAGES));
	kunit_info(test,
		   "fp-fixed: side=%s policy=va threads=1 pages=%u rounds=%u dns=%s\n",
		   side, FPS_PAGES, FPS_ROUNDS, buf);
	kunit_kfree(test, buf);
}

/*
 * One thread, policy va: flushpol, flushpol with what the core no longer
 * does added back, direct, and direct with each part, in turn within
 * every round.
 */
static void fixed_cost_parts_reported(struct kunit *test)
{
	struct fpbk_pair *p = fpbk_pair_create(test, "scale", "va");
	struct fps_side sides[FPS_PART_SIDES];
	u64 (*ns)[FPS_ROUNDS];
	unsigned long c, y;
	unsigned int i, r;

	ns = kunit_kcalloc(test, FPS_PART_SIDES, sizeof(*ns), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ns);
	fps_stats = alloc_percpu(struct fps_stats);
	KUNIT_ASSERT_TRUE(test, fps_stats);
	KUNIT_ASSERT_EQ(test, percpu_counter_init(&fps_resident, 0,
						  GFP_KERNEL), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, fps_free_parts,
							NULL), 0);

	sides[0] = (struct fps_side){ .name = "flushpol", .ctx = p->ctx,
				      .ops = p->fp_ops };
	sides[1] = (struct fps_side){ .name = "direct",
				      .ops = p->direct_ops };
	sides[2] = (struct fps_side){ .name = "flushpol+removed",
				      .ctx = p->ctx, .ops = p->fp_ops,
				      .part = fps_part_removed };
	for (i = 0; i < ARRAY_SIZE(fps_parts); i++)
		sides[3 + i] = (struct fps_side){ .name = fps_parts[i].name,
						  .ops = p->direct_ops,
						  .part = fps_parts[i].part };
	fpbk_counts(&c, &y);
	for (r = 0; r < FPS_ROUNDS; r++)
		for (i = 0; i < FPS_PART_SIDES; i++)
			fps_run_round(test, &sides[i], 1, &ns[i][r]);
	fpbk_counts(&c, &y);
	/* Every side sent one TLBI and one sync per unmap. */
	KUNIT_EXPECT_EQ(test, c, FPS_PART_SIDES * FPS_ROUNDS * FPS_PAGES);
	KUNIT_EXPECT_EQ(test, y, FPS_PART_SIDES * FPS_ROUNDS * FPS_PAGES);
	for (i = 0; i < FPS_PART_SIDES; i++)
		fps_print_rounds(test, sides[i].name, ns[i]);
}

/*
 * How long a switch takes, as a user writing the policy file sees it: the
 * median of 101 writes through the VFS, printed for make bench's switch
 * target (scripts/bench-targets.py, from the kernel without debug
 * options), never asserted.  Both policies are built in, so a switch
 * waits for no grace period (core/context.c): this is the write through
 * the VFS and the switch itself.
 */
static void policy_switch_latency_reported(struct kunit *test)
{
	static const char * const names[] = { "asid\n", "va\n" };
	struct fpt_rig_cfg rc = { .fmt = ARM_64_LPAE_S1 };
	struct fpt_rig *rig = kunit_kzalloc(test, sizeof(*rig), GFP_KERNEL);
	enum { N = 101 };
	u64 *ns = kunit_kcalloc(test, N, sizeof(*ns), GFP_KERNEL);
	char buf[128];
	u64 t;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, rig);
	KUNIT_ASSERT_NOT_NULL(test, ns);
	KUNIT_ASSERT_EQ(test, fpt_rig_init(test, rig, &rc, NULL, 1), 0);
	for (i = 0; i < N; i++) {
		t = ktime_get_ns();
		KUNIT_ASSERT_EQ(test, fpt_ctx_write(rig, "policy", names[i % 2],
						    strlen(names[i % 2])),
				(ssize_t)strlen(names[i % 2]));
		ns[i] = ktime_get_ns() - t;
	}
	/* The writes switched: the policy is the last one written. */
	KUNIT_ASSERT_GT(test, fpt_ctx_read(rig, "policy", buf, sizeof(buf)), 0);
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, "[asid]"));
	sort(ns, N, sizeof(*ns), fps_cmp_u64, NULL);
	kunit_info(test,
		   "fp-switch: %d policy writes on %u CPUs: median %llu us, min %llu us, max %llu us\n",
		   N, num_online_cpus(), div_u64(ns[N / 2], 1000),
		   div_u64(ns[0], 1000), div_u64(ns[N - 1], 1000));
}

static const char * const fps_policies[] = { "va", "threshold" };

static void fps_policy_desc(const char * const *p, char *desc)
{
	strscpy(desc, *p, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(fps_policy, fps_policies, fps_policy_desc);

static struct kunit_case fps_test_cases[] = {
	KUNIT_CASE_PARAM(scaling_reported, fps_policy_gen_params),
	KUNIT_CASE(fixed_cost_parts_reported),
	KUNIT_CASE(policy_switch_latency_reported),
	{}
};

static struct kunit_suite fps_suite = {
	.name = "flushpol_bench_scale",
	.test_cases = fps_test_cases,
};

kunit_test_suite(fps_suite);
