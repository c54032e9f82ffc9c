// SPDX-License-Identifier: GPL-2.0-only
/*
 * flushpol_estimate: the adaptive policy's inputs, against inputs chosen to
 * break them (review 2).  Each case checks a decision by its exact command
 * counts, never a time:
 *
 * - the live footprint, kept by fp_map() and fp_unmap() in a per-CPU
 *   counter, follows every map and unmap exactly, and on SMP is read
 *   exactly where the decision depends on it (several CPUs each holding
 *   less than a batch of it);
 * - estimates at the edges of their range (a gather of more than 2^32
 *   commands, a per-command cost of 2^27 ns) neither wrap nor truncate;
 * - fp_map() refuses what iommu_map() would refuse, so that the footprint
 *   never counts a mapping fp_unmap() will not take back.
 *
 * The huge gathers go to a backend of its own that only counts (the model
 * would walk every page): its clock advances 1 ms per read.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/kthread.h>
#include <linux/percpu_counter.h>
#include <linux/sizes.h>

#include "../core/fp_core.h"
#include "fp_rig.h"

#define FPE_IOVA	SZ_1G
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
#define FPE_TLB_MAX	BIT(22)		/* FP_THRESHOLD_MAX */

/* What a per-CPU counter holds back per CPU, below which it is not shared. */
#ifdef CONFIG_SMP
#define FPE_BATCH	percpu_counter_batch
#else
#define FPE_BATCH	32
#endif

/* A backend that sends nothing anywhere: the core's stats count for it. */
struct fpe_fake {
	u64 now;
};

static void fpe_inv_va(struct fp_context *ctx, unsigned long iova,
		       size_t size, size_t granule, bool leaf)
{
}

static void fpe_inv_context(struct fp_context *ctx)
{
}

static int fpe_sync(struct fp_context *ctx)
{
	return 0;
}

static u64 fpe_clock(struct fp_context *ctx)
{
	struct fpe_fake *f = fp_context_priv(ctx);

	f->now += NSEC_PER_MSEC;
	return f->now;
}

static const struct fp_hw_ops fpe_hw_ops = {
	.inv_va		= fpe_inv_va,
	.inv_context	= fpe_inv_context,
	.sync		= fpe_sync,
	.clock		= fpe_clock,
};

static void fpe_destroy(void *ctx)
{
	fp_context_destroy(ctx);
}

/* A context of the counting backend under adaptive. */
static struct fp_context *fpe_ctx(struct kunit *test, unsigned int walk_ns,
				  unsigned int tlb_entries)
{
	struct fpe_fake *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	struct io_pgtable_cfg pcfg = {};
	struct fp_context_cfg fc = {
		.backend = "fake", .instance = "fpe0", .owner = THIS_MODULE,
		.ops = &fpe_hw_ops, .id = 1, .default_policy = "va",
		.default_threshold = 128, .walk_ns = walk_ns,
		.tlb_entries = tlb_entries,
	};
	struct fp_context *ctx;

	KUNIT_ASSERT_NOT_NULL(test, f);
	fc.priv = f;
	ctx = fp_context_create(&fc, &pcfg);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ctx);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, fpe_destroy, ctx),
			0);
	KUNIT_ASSERT_EQ(test, fp_context_set_policy(ctx, "adaptive"), 0);
	return ctx;
}

/* iotlb_sync of a gather of @pages 4K leaves from 0. */
static void fpe_sync_pages(struct fp_context *ctx, unsigned long pages)
{
	struct iommu_iotlb_gather g;

	iommu_iotlb_gather_init(&g);
	g.start = 0;
	g.end = pages * SZ_4K - 1;
	g.pgsize = SZ_4K;
	fp_iotlb_sync(ctx, &g);
}

/*
 * A timed precise flush of n = 2^32 + 2 commands: the cost beyond the
 * first is t / (n - 1), under a ns, so the per-command average moves down
 * by an eighth (2016 -> 1764, in ns << 4).  A divisor truncated to 32 bits
 * divides by 1 instead (by 0, a divide error, at n = 2^32 + 1).
 */
static void sample_divides_by_all_commands(struct kunit *test)
{
	struct fp_context *ctx;
	struct fp_estimate *e;
	unsigned long n, samples;
	u32 cmd16;

	if (BITS_PER_LONG < 64)
		kunit_skip(test, "a gather of 2^32 pages needs 64-bit longs");
	n = (unsigned long)BIT_ULL(32) + 2;
	/* Precise: (n - 1) x 126 ns is below 2^22 entries x 1 ms. */
	ctx = fpe_ctx(test, 1000000, FPE_TLB_MAX);
	e = fp_context_estimate(ctx);
	fpe_sync_pages(ctx, n);
	KUNIT_EXPECT_EQ(test, fp_context_stat(ctx, FP_STAT_TLBI_VA), (u64)n);
	KUNIT_EXPECT_EQ(test, fp_context_stat(ctx, FP_STAT_TLBI_ASID), 0);
	samples = READ_ONCE(e->samples);
	cmd16 = READ_ONCE(e->cmd_ns16);
	KUNIT_EXPECT_EQ(test, samples, 1);
	KUNIT_EXPECT_EQ(test, cmd16,
			(FP_CMD_NS_DEFAULT << 4) - (FP_CMD_NS_DEFAULT << 4) / 8);
}

/*
 * A command estimated at 2^27 ns (2^31 in ns << 4) and a gather of
 * 2^33 + 1 pages: precise would cost 2^33 commands beyond one, 2^64 in
 * ns << 4, far more than any footprint's refills (at most 2^22 x 1 ms).
 * A product wrapped to 0 makes precise look free: 2^33 + 1 commands
 * where one context-wide flush does.
 */
static void huge_estimate_does_not_wrap(struct kunit *test)
{
	struct fp_context *ctx;
	struct fp_estimate *e;
	unsigned long n;

	if (BITS_PER_LONG < 64)
		kunit_skip(test, "a gather of 2^33 pages needs 64-bit longs");
	n = (unsigned long)BIT_ULL(33) + 1;
	ctx = fpe_ctx(test, 1000000, FPE_TLB_MAX);
	e = fp_context_estimate(ctx);
	/* The values a very slow, or stalled, SMMU would have taught it. */
	WRITE_ONCE(e->cmd_ns16, 1U << 31);
	WRITE_ONCE(e->base_ns16, U32_MAX);
	fpe_sync_pages(ctx, n);
	KUNIT_EXPECT_EQ(test, fp_context_stat(ctx, FP_STAT_TLBI_ASID), 1);
	KUNIT_EXPECT_EQ(test, fp_context_stat(ctx, FP_STAT_TLBI_VA), 0);
}

static struct fpt_rig *fpe_rig(struct kunit *test)
{
	struct fpt_rig_cfg rc = { .fmt = ARM_64_LPAE_S1, .policy = "adaptive" };
	struct fpt_rig *rig = kunit_kzalloc(test, sizeof(*rig), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, rig);
	KUNIT_ASSERT_EQ(test, fpt_rig_init(test, rig, &rc, NULL, 9), 0);
	/* Above every footprint here: the count itself, not the cap. */
	KUNIT_ASSERT_EQ(test, fp_context_set_tlb_entries(rig->ctx, 4096), 0);
	return rig;
}

static unsigned long fpe_footprint(struct fpt_rig *rig)
{
	return fp_estimate_footprint(fp_context_estimate(rig->ctx));
}

/*
 * A driver's unmap_pages is fp_unmap_pages(), whose inline path sends
 * pages of the smallest size straight to io-pgtable: while a policy reads
 * the estimate, they must still leave the footprint, as fp_unmap() takes
 * them out of it.  The IOMMU core's calls, as iommu_unmap() makes them.
 */
static void driver_unmap_of_small_pages_leaves_footprint(struct kunit *test)
{
	struct fpt_rig *rig = fpe_rig(test);

	KUNIT_ASSERT_GT(test, fp_estimate_key_count(), 0);
	KUNIT_ASSERT_EQ(test, fpt_map(rig, FPE_IOVA, SZ_64K, SZ_4K), 0);
	KUNIT_ASSERT_EQ(test, fpe_footprint(rig), 16);
	KUNIT_EXPECT_EQ(test, fpt_unmap_core(rig, FPE_IOVA, SZ_4K, false),
			SZ_4K);
	KUNIT_EXPECT_EQ(test, fpe_footprint(rig), 15);
	KUNIT_EXPECT_EQ(test, fpt_unmap_core(rig, FPE_IOVA + SZ_4K,
					     SZ_64K - SZ_4K, false),
			SZ_64K - SZ_4K);
	KUNIT_EXPECT_EQ(test, fpe_footprint(rig), 0);
	KUNIT_EXPECT_EQ(test, fpm_stale_entries(&rig->mc), 0);
}

/*
 * Unmaps that took the inline path while no policy read the estimate (the
 * key off: flushpol_adaptive unloaded) left the count: once the key is on
 * again the count of a context that had mapped is not trusted, the
 * footprint is unknown (the TLB full) rather than the pages unmapped
 * meanwhile, and stays so while those unmaps' pages would be missing.
 */
static void footprint_unknown_after_unmaps_with_key_off(struct kunit *test)
{
	struct fpt_rig *rig = fpe_rig(test);

	KUNIT_ASSERT_GT(test, fp_estimate_key_count(), 0);
	KUNIT_ASSERT_EQ(test, fpt_map(rig, FPE_IOVA, SZ_64K, SZ_4K), 0);
	KUNIT_ASSERT_EQ(test, fpe_footprint(rig), 16);
	fpt_estimate_hold_off(test);
	KUNIT_EXPECT_EQ(test, fpt_unmap_core(rig, FPE_IOVA, SZ_32K, false),
			SZ_32K);
	fpt_estimate_release(test);
	KUNIT_EXPECT_EQ(test, fpe_footprint(rig), 4096);
	KUNIT_EXPECT_EQ(test, fpt_unmap_core(rig, FPE_IOVA + SZ_32K, SZ_32K,
					     false), SZ_32K);
	KUNIT_ASSERT_EQ(test, fpt_map(rig, FPE_IOVA, SZ_16K, SZ_4K), 0);
	KUNIT_EXPECT_EQ(test, fpe_footprint(rig), 4096);
	KUNIT_EXPECT_EQ(test, fpm_stale_entries(&rig->mc), 0);
}

/*
 * The footprint is what is mapped, in granules, whatever the page sizes:
 * each map adds, each unmap takes back exactly what it unmapped, and a
 * map io-pgtable stops at a table's end counts what it mapped.
 */
static void footprint_follows_map_and_unmap(struct kunit *test)
{
	struct fpt_rig *rig = fpe_rig(test);
	unsigned long a = FPE_IOVA, b = FPE_IOVA + SZ_64M;
	unsigned long edge = FPE_IOVA + SZ_128M - 2 * SZ_4K;
	size_t mapped = 0;

	/* Nothing mapped through fp_map() yet: unknown, the TLB full. */
	KUNIT_EXPECT_EQ(test, fpe_footprint(rig), 4096);
	KUNIT_ASSERT_EQ(test, fpt_map(rig, a, SZ_64K, SZ_4K), 0);
	KUNIT_EXPECT_EQ(test, fpe_footprint(rig), 16);
	KUNIT_ASSERT_EQ(test, fpt_map(rig, b, SZ_2M, SZ_2M), 0);
	KUNIT_EXPECT_EQ(test, fpe_footprint(rig), 16 + 512);

	/* 8 pages asked for, 2 before the table ends: 2 counted. */
	KUNIT_ASSERT_EQ(test, fp_map(rig->ctx, rig->ops, edge, edge, SZ_4K, 8,
				     IOMMU_READ | IOMMU_WRITE, GFP_KERNEL,
				     &mapped), 0);
	KUNIT_EXPECT_EQ(test, mapped, 2 * SZ_4K);
	KUNIT_EXPECT_EQ(test, fpe_footprint(rig), 16 + 512 + 2);

	KUNIT_EXPECT_EQ(test, fpt_unmap(rig, a, SZ_8K, false), SZ_8K);
	KUNIT_EXPECT_EQ(test, fpe_footprint(rig), 14 + 512 + 2);
	KUNIT_EXPECT_EQ(test, fpt_unmap(rig, b, SZ_2M, false), SZ_2M);
	KUNIT_EXPECT_EQ(test, fpe_footprint(rig), 14 + 2);
	KUNIT_EXPECT_EQ(test, fpt_unmap(rig, edge, SZ_8K, false), SZ_8K);
	KUNIT_EXPECT_EQ(test, fpe_footprint(rig), 14);
	KUNIT_EXPECT_EQ(test, fpt_unmap(rig, a + SZ_8K, SZ_64K - SZ_8K, false),
			SZ_64K - SZ_8K);
	KUNIT_EXPECT_EQ(test, fpe_footprint(rig), 0);
}

/*
 * As iommu_map() refuses it: io-pgtable would map the page below a
 * misaligned IOVA, which fp_unmap() then refuses to unmap at that IOVA,
 * so the mapping and its footprint would outlive every unmap.
 */
static void misaligned_map_refused(struct kunit *test)
{
	struct fpt_rig *rig = fpe_rig(test);
	size_t mapped = 0;

	KUNIT_ASSERT_EQ(test, fpt_map(rig, FPE_IOVA + SZ_64K, SZ_4K, SZ_4K), 0);
	KUNIT_EXPECT_EQ(test, fp_map(rig->ctx, rig->ops, FPE_IOVA + SZ_2K,
				     FPE_IOVA, SZ_4K, 1,
				     IOMMU_READ | IOMMU_WRITE, GFP_KERNEL,
				     &mapped), -EINVAL);
	KUNIT_EXPECT_EQ(test, fp_map(rig->ctx, rig->ops, FPE_IOVA + SZ_4K,
				     FPE_IOVA + SZ_2K, SZ_4K, 1,
				     IOMMU_READ | IOMMU_WRITE, GFP_KERNEL,
				     &mapped), -EINVAL);
	KUNIT_EXPECT_EQ(test, mapped, 0);
	KUNIT_EXPECT_EQ(test, fpe_footprint(rig), 1);
	KUNIT_EXPECT_EQ(test, rig->ops->iova_to_phys(rig->ops, FPE_IOVA), 0);
	KUNIT_EXPECT_EQ(test,
			rig->ops->iova_to_phys(rig->ops, FPE_IOVA + SZ_4K), 0);
}

struct fpe_mapper {
	struct fpt_rig *rig;
	unsigned long iova;
	unsigned int pages;
	int ret;
	struct completion done;
};

/* One fp_map() call per page, on the CPU the thread is bound to. */
static int fpe_map_thread(void *data)
{
	struct fpe_mapper *m = data;
	unsigned int i;

	for (i = 0; i < m->pages && !m->ret; i++)
		m->ret = fpt_map(m->rig, m->iova + i * SZ_4K, SZ_4K, SZ_4K);
	complete(&m->done);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

/*
 * SMP: every CPU maps fewer pages than the counter's batch, one call each,
 * so all of them sit in per-CPU deltas and the shared count reads 0.
 * Then 2 pages are unmapped: precise (2 commands) against a context-wide
 * flush that throws away the other CPUs' hundred-odd live entries.  The
 * footprint read without summing says 0 entries, and a context-wide
 * flush; the true footprint says 2 commands by VA.
 */
static void footprint_exact_across_cpus(struct kunit *test)
{
	unsigned int nr = min(num_online_cpus(), 8U), cpu, i = 0;
	struct fpe_mapper m[8] = {};
	struct task_struct *t[8] = {};
	struct fpt_rig *rig;
	unsigned long buf;

	if (nr < 2)
		kunit_skip(test, "needs SMP: one CPU's counter is exact");
	rig = fpe_rig(test);
	buf = FPE_IOVA + SZ_512M;
	/* Its 2 pages stay in this CPU's delta too: 3 below the batch. */
	KUNIT_ASSERT_EQ(test, fpt_map(rig, buf, SZ_8K, SZ_4K), 0);
	for_each_online_cpu(cpu) {
		if (i == nr)
			break;
		m[i] = (struct fpe_mapper) {
			.rig = rig, .iova = FPE_IOVA + i * SZ_2M,
			.pages = FPE_BATCH - 3,
		};
		init_completion(&m[i].done);
		t[i] = kthread_create(fpe_map_thread, &m[i], "fpe_map/%u", cpu);
		KUNIT_ASSERT_FALSE(test, IS_ERR(t[i]));
		get_task_struct(t[i]);
		kthread_bind(t[i], cpu);
		i++;
	}
	for (i = 0; i < nr; i++)
		wake_up_process(t[i]);
	for (i = 0; i < nr; i++) {
		wait_for_completion(&m[i].done);
		kthread_stop_put(t[i]);
		KUNIT_ASSERT_EQ(test, m[i].ret, 0);
	}
	kunit_info(test, "%u CPUs, %u pages each, batch %d: read %lld, sum %lld\n",
		   nr, m[0].pages, FPE_BATCH,
		   percpu_counter_read(&fp_context_estimate(rig->ctx)->resident),
		   percpu_counter_sum(&fp_context_estimate(rig->ctx)->resident));

	KUNIT_EXPECT_EQ(test, fpt_unmap(rig, buf, SZ_8K, false), SZ_8K);
	KUNIT_EXPECT_EQ(test, fp_context_stat(rig->ctx, FP_STAT_TLBI_VA), 2);
	KUNIT_EXPECT_EQ(test, fp_context_stat(rig->ctx, FP_STAT_TLBI_ASID), 0);
	KUNIT_EXPECT_EQ(test, fpe_footprint(rig),
			(unsigned long)nr * m[0].pages);
}

/* FPE_STREAM buffers in flight, each mapped once and unmapped in order. */
#define FPE_STREAM	16
#define FPE_STREAM_IOVA	(FPE_IOVA + SZ_256M)

static unsigned long fpe_stream_iova(unsigned int i)
{
	return FPE_STREAM_IOVA + (unsigned long)(i % (2 * FPE_STREAM)) * SZ_2M;
}

/*
 * A NIC's ring: 4 pages of descriptors stay mapped, and 8-page buffers
 * stream through, 16 in flight, each mapped, read once and unmapped in
 * the order it was mapped.  When one goes, the 16 mapped after it are
 * still mapped: 128 granules, but none of them will be read again, so a
 * context-wide flush costs the 4 descriptor pages' walks, and 7 extra
 * commands by VA do not pay for that.  Counting every mapped granule as
 * live (132 entries "in use") sends every buffer by VA.
 *
 * On SMP the estimate is the unmapping CPU's: the task stays on one.
 */
static void streamed_buffers_not_live(struct kunit *test)
{
	struct fpt_rig *rig = fpe_rig(test);
	unsigned int i, last = 4 * FPE_STREAM;
	u64 va0, asid0;

	migrate_disable();
	KUNIT_ASSERT_EQ(test, fpt_map(rig, FPE_IOVA, 4 * SZ_4K, SZ_4K), 0);
	for (i = 0; i < last; i++) {
		KUNIT_ASSERT_EQ(test, fpt_map(rig, fpe_stream_iova(i),
					      SZ_32K, SZ_4K), 0);
		if (i < FPE_STREAM)
			continue;
		va0 = fp_context_stat(rig->ctx, FP_STAT_TLBI_VA);
		asid0 = fp_context_stat(rig->ctx, FP_STAT_TLBI_ASID);
		KUNIT_ASSERT_EQ(test,
				fpt_unmap(rig, fpe_stream_iova(i - FPE_STREAM),
					  SZ_32K, false), SZ_32K);
	}
	migrate_enable();
	/* The last buffer's unmap: one context-wide command, none by VA. */
	KUNIT_EXPECT_EQ(test, fp_context_stat(rig->ctx, FP_STAT_TLBI_VA), va0);
	KUNIT_EXPECT_EQ(test, fp_context_stat(rig->ctx, FP_STAT_TLBI_ASID),
			asid0 + 1);
	KUNIT_EXPECT_EQ(test, fpe_footprint(rig), 4 + FPE_STREAM * 8);
	KUNIT_EXPECT_EQ(test, fp_estimate_streamed(fp_context_estimate(rig->ctx)),
			FPE_STREAM * 8);
}

/*
 * One buffer outlives many: 64 pages stay mapped, an 8-page buffer is
 * mapped, a one-page buffer is mapped and unmapped 64 times while it
 * stays, then it goes.  64 granules were mapped after it, but
 * none is still mapped: the 64 long-lived pages are all that is live,
 * and 7 extra commands by VA are cheaper than their walks.  Judged by
 * its own lifetime alone, the buffer would say 64 granules stream and
 * nothing is live, and flush the context.
 */
static void long_lived_buffer_after_churn(struct kunit *test)
{
	struct fpt_rig *rig = fpe_rig(test);
	unsigned long buf = FPE_IOVA + SZ_64M, churn = FPE_STREAM_IOVA;
	unsigned int i;
	u64 va0, asid0;

	migrate_disable();
	KUNIT_ASSERT_EQ(test, fpt_map(rig, FPE_IOVA, SZ_256K, SZ_4K), 0);
	KUNIT_ASSERT_EQ(test, fpt_map(rig, buf, SZ_32K, SZ_4K), 0);
	for (i = 0; i < 64; i++) {
		KUNIT_ASSERT_EQ(test, fpt_map(rig, churn, SZ_4K, SZ_4K), 0);
		KUNIT_ASSERT_EQ(test, fpt_unmap(rig, churn, SZ_4K, false),
				SZ_4K);
	}
	va0 = fp_context_stat(rig->ctx, FP_STAT_TLBI_VA);
	asid0 = fp_context_stat(rig->ctx, FP_STAT_TLBI_ASID);
	KUNIT_EXPECT_EQ(test, fpt_unmap(rig, buf, SZ_32K, false), SZ_32K);
	migrate_enable();
	KUNIT_EXPECT_EQ(test, fp_context_stat(rig->ctx, FP_STAT_TLBI_VA),
			va0 + 8);
	KUNIT_EXPECT_EQ(test, fp_context_stat(rig->ctx, FP_STAT_TLBI_ASID),
			asid0);
}

/*
 * A buffer mapped in pieces, one fp_map() call each (as iommu_map_sg()
 * maps a scatterlist), and unmapped in one call at its first piece: the
 * pieces after the first were mapped after it, but they go with it, and
 * are no sign that anything else streams.  32 pages stay mapped; the
 * buffer's 32 pages, in 4 pieces, go by VA (31 extra commands against
 * 32 walks), every time.  Counting its own later pieces as streamed
 * leaves 8 pages live, and a context-wide flush.
 */
static void buffer_mapped_in_pieces(struct kunit *test)
{
	struct fpt_rig *rig = fpe_rig(test);
	unsigned long buf = FPE_IOVA + SZ_64M;
	unsigned int round, i;
	u64 va0, asid0;

	migrate_disable();
	KUNIT_ASSERT_EQ(test, fpt_map(rig, FPE_IOVA, SZ_128K, SZ_4K), 0);
	for (round = 0; round < 3; round++) {
		for (i = 0; i < 4; i++) {
			unsigned long iova = buf + i * SZ_32K;
			size_t mapped = 0;

			KUNIT_ASSERT_EQ(test, fp_map(rig->ctx, rig->ops, iova,
						     iova, SZ_4K, 8,
						     IOMMU_READ | IOMMU_WRITE,
						     GFP_KERNEL, &mapped), 0);
			KUNIT_ASSERT_EQ(test, mapped, SZ_32K);
		}
		va0 = fp_context_stat(rig->ctx, FP_STAT_TLBI_VA);
		asid0 = fp_context_stat(rig->ctx, FP_STAT_TLBI_ASID);
		KUNIT_EXPECT_EQ(test, fpt_unmap(rig, buf, SZ_128K, false),
				SZ_128K);
		KUNIT_EXPECT_EQ(test, fp_context_stat(rig->ctx, FP_STAT_TLBI_VA),
				va0 + 32);
		KUNIT_EXPECT_EQ(test,
				fp_context_stat(rig->ctx, FP_STAT_TLBI_ASID),
				asid0);
	}
	migrate_enable();
}

/*
 * The footprint is counted for every context while a policy that reads it
 * is registered, whatever the context's own: a context that mapped under
 * threshold and switches to adaptive finds its count, and one that went to
 * va and back, unmapping meanwhile, finds what is still mapped.
 */
static void footprint_kept_across_switch_to_adaptive(struct kunit *test)
{
	struct fpt_rig_cfg rc = { .fmt = ARM_64_LPAE_S1, .policy = "threshold" };
	struct fpt_rig *rig = kunit_kzalloc(test, sizeof(*rig), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, rig);
	KUNIT_ASSERT_EQ(test, fpt_rig_init(test, rig, &rc, NULL, 10), 0);
	KUNIT_ASSERT_EQ(test, fp_context_set_tlb_entries(rig->ctx, 4096), 0);
	KUNIT_ASSERT_EQ(test, fpt_map(rig, FPE_IOVA, SZ_64K, SZ_4K), 0);
	KUNIT_ASSERT_EQ(test, fp_context_set_policy(rig->ctx, "adaptive"), 0);
	KUNIT_EXPECT_EQ(test, fpe_footprint(rig), 16);

	KUNIT_ASSERT_EQ(test, fp_context_set_policy(rig->ctx, "va"), 0);
	KUNIT_ASSERT_EQ(test, fp_context_set_policy(rig->ctx, "adaptive"), 0);
	KUNIT_EXPECT_EQ(test, fpe_footprint(rig), 16);

	KUNIT_ASSERT_EQ(test, fp_context_set_policy(rig->ctx, "va"), 0);
	KUNIT_EXPECT_EQ(test, fpt_unmap(rig, FPE_IOVA, SZ_32K, false), SZ_32K);
	KUNIT_ASSERT_EQ(test, fpt_map(rig, FPE_IOVA + SZ_1M, SZ_16K, SZ_4K), 0);
	KUNIT_ASSERT_EQ(test, fp_context_set_policy(rig->ctx, "adaptive"), 0);
	KUNIT_EXPECT_EQ(test, fpe_footprint(rig), 12);
}

static void fpe_walk_nop(struct fp_context *ctx, unsigned long iova,
			 size_t size, size_t granule)
{
}

static void fpe_gather_nop(struct fp_context *ctx,
			   const struct iommu_iotlb_gather *gather)
{
}

static bool fpe_unusable(const struct fp_context *ctx)
{
	return false;
}

/*
 * A policy that reads the estimate and can run no context, registered for
 * a case and withdrawn however the case ends, while it is registered.
 */
static struct fp_policy fpe_reader = {
	.name = "kunit_reader", .owner = THIS_MODULE,
	.flush_walk = fpe_walk_nop, .flush_gather = fpe_gather_nop,
	.usable = fpe_unusable, .reads_estimate = true,
};

static void fpe_reader_withdraw(void *unused)
{
	fp_policy_unregister(&fpe_reader);
}

static void fpe_reader_add(struct kunit *test)
{
	KUNIT_ASSERT_EQ(test, fp_policy_register(&fpe_reader), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
							fpe_reader_withdraw,
							NULL), 0);
}

static void fpe_reader_drop(struct kunit *test)
{
	kunit_remove_action(test, fpe_reader_withdraw, NULL);
	KUNIT_EXPECT_EQ(test, fp_policy_unregister(&fpe_reader), 0);
}

/*
 * The estimate's key is held by each registered policy that reads the
 * estimate, and by nothing else: contexts created and destroyed on one,
 * switches to one, that fail, or that change nothing, leave its count
 * where it was.
 */
static void estimate_key_held_by_registered_readers(struct kunit *test)
{
	int base = fp_estimate_key_count();
	struct fpt_rig *rig;

	/* flushpol_adaptive's policy. */
	KUNIT_EXPECT_GE(test, base, 1);
	rig = fpe_rig(test);
	KUNIT_EXPECT_EQ(test, fp_estimate_key_count(), base);
	KUNIT_EXPECT_EQ(test, fp_context_set_policy(rig->ctx, "adaptive"), 0);
	KUNIT_EXPECT_EQ(test, fp_estimate_key_count(), base);

	fpe_reader_add(test);
	KUNIT_EXPECT_EQ(test, fp_estimate_key_count(), base + 1);
	KUNIT_EXPECT_EQ(test, fp_policy_register(&fpe_reader), -EEXIST);
	KUNIT_EXPECT_EQ(test, fp_context_set_policy(rig->ctx, "kunit_reader"),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, fp_estimate_key_count(), base + 1);
	KUNIT_EXPECT_EQ(test, fp_context_set_policy(rig->ctx, "va"), 0);
	KUNIT_EXPECT_EQ(test, fp_context_set_policy(rig->ctx, "adaptive"), 0);
	KUNIT_EXPECT_EQ(test, fp_estimate_key_count(), base + 1);
	fpe_reader_drop(test);
	KUNIT_EXPECT_EQ(test, fp_estimate_key_count(), base);

	fpt_rig_release(rig);
	KUNIT_EXPECT_EQ(test, fp_estimate_key_count(), base);
}

/*
 * While the key is held off for a benchmark, readers registered and
 * withdrawn keep it off, and once it is back it is held by the readers
 * then registered, no more: a reader withdrawn meanwhile does not leave
 * the key on (every later case measuring fp_unmap() for the inline path),
 * nor one registered meanwhile leave it off.
 */
static void estimate_key_held_off_counts_readers(struct kunit *test)
{
	int base = fp_estimate_key_count();

	fpe_reader_add(test);
	fpt_estimate_hold_off(test);
	fpe_reader_drop(test);
	KUNIT_EXPECT_EQ(test, fp_estimate_key_count(), 0);
	fpt_estimate_release(test);
	KUNIT_EXPECT_EQ(test, fp_estimate_key_count(), base);

	fpt_estimate_hold_off(test);
	fpe_reader_add(test);
	KUNIT_EXPECT_EQ(test, fp_estimate_key_count(), 0);
	fpt_estimate_release(test);
	KUNIT_EXPECT_EQ(test, fp_estimate_key_count(), base + 1);
	fpe_reader_drop(test);
	KUNIT_EXPECT_EQ(test, fp_estimate_key_count(), base);
}

static struct kunit_case fpe_test_cases[] = {
	KUNIT_CASE(sample_divides_by_all_commands),
	KUNIT_CASE(huge_estimate_does_not_wrap),
	KUNIT_CASE(footprint_follows_map_and_unmap),
	KUNIT_CASE(driver_unmap_of_small_pages_leaves_footprint),
	KUNIT_CASE(footprint_unknown_after_unmaps_with_key_off),
	KUNIT_CASE(footprint_kept_across_switch_to_adaptive),
	KUNIT_CASE(estimate_key_held_by_registered_readers),
	KUNIT_CASE(estimate_key_held_off_counts_readers),
	KUNIT_CASE(misaligned_map_refused),
	KUNIT_CASE(footprint_exact_across_cpus),
	KUNIT_CASE(streamed_buffers_not_live),
	KUNIT_CASE(long_lived_buffer_after_churn),
	KUNIT_CASE(buffer_mapped_in_pieces),
	{}
};

static struct kunit_suite fpe_suite = {
	.name = "flushpol_estimate",
	.test_cases = fpe_test_cases,
};

kunit_test_suite(fpe_suite);
