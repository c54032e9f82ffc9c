// SPDX-License-Identifier: GPL-2.0-only
/*
 * flushpol_coverage: when a walk flush may stand in for the invalidation
 * of a gathered leaf (core/coverage.c), and when it must not.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/io-pgtable.h>
#include <linux/kthread.h>
#include <linux/sizes.h>

#include "../core/fp_core.h"
#include "fp_rig.h"

#define FPT_IOVA	SZ_1G

static const char *const fpt_cov_policies[] = {
	"va", "range", "asid", "threshold", "adaptive", "batch",
};

static void fpt_cov_desc(const char *const *p, char *desc)
{
	strscpy(desc, *p, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(fpt_cov, fpt_cov_policies, fpt_cov_desc);

static struct fpt_rig *fpt_cov_rig(struct kunit *test)
{
	const char *policy = *(const char *const *)test->param_value;
	struct fpt_rig_cfg rc = {
		.fmt = ARM_64_LPAE_S1, .has_range = true, .policy = policy,
	};
	struct fpt_rig *rig = kunit_kzalloc(test, sizeof(*rig), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, rig);
	KUNIT_ASSERT_EQ(test, fpt_rig_init(test, rig, &rc, NULL, 1), 0);
	return rig;
}

/*
 * Found by flushpol_stress.  io-pgtable frees an empty table when a block
 * is mapped over it, and flushes the walk from map.  When the block is
 * unmapped, its leaf has the table's address and size: that earlier walk
 * must not pass for having invalidated it.
 */
static void block_mapped_over_old_table_is_invalidated(struct kunit *test)
{
	struct fpt_rig *rig = fpt_cov_rig(test);

	/* 4K pages leave their (empty) table behind when unmapped. */
	KUNIT_ASSERT_EQ(test, fpt_map(rig, FPT_IOVA, SZ_64K, SZ_4K), 0);
	fpm_access_range(&rig->mc, FPT_IOVA, SZ_64K);
	KUNIT_ASSERT_EQ(test, fpt_unmap(rig, FPT_IOVA, SZ_64K, false), SZ_64K);
	KUNIT_EXPECT_EQ(test, fpm_stale_entries(&rig->mc), 0);

	/* The block replaces that table: a walk flush, from map. */
	atomic_long_set(&rig->walks, 0);
	KUNIT_ASSERT_EQ(test, fpt_map(rig, FPT_IOVA, SZ_2M, SZ_2M), 0);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&rig->walks), 1);
	KUNIT_EXPECT_TRUE(test, fpm_access(&rig->mc, FPT_IOVA));

	KUNIT_ASSERT_EQ(test, fpt_unmap(rig, FPT_IOVA, SZ_2M, false), SZ_2M);
	KUNIT_EXPECT_EQ(test, fpm_stale_entries(&rig->mc), 0);
	KUNIT_EXPECT_FALSE(test, fpm_access(&rig->mc, FPT_IOVA));
	KUNIT_EXPECT_EQ(test, rig->mc.n.stale_hits, 0);
}

/*
 * Unmapping through io-pgtable directly, as a driver's own unmap_pages
 * does: the walk covers nothing, so the table entry costs a second sync
 * that fp_unmap() saves (but under va, which never skips), and nothing is
 * stale either way.
 */
static void walks_cover_only_within_fp_unmap(struct kunit *test)
{
	const char *policy = *(const char *const *)test->param_value;
	struct fpt_rig *rig = fpt_cov_rig(test);
	struct iommu_iotlb_gather gather;
	u64 bracketed, direct;

	KUNIT_ASSERT_EQ(test, fpt_map(rig, FPT_IOVA, SZ_2M, SZ_4K), 0);
	fpm_access_range(&rig->mc, FPT_IOVA, SZ_2M);
	KUNIT_ASSERT_EQ(test, fpt_unmap(rig, FPT_IOVA, SZ_2M, false), SZ_2M);
	KUNIT_EXPECT_EQ(test, fpm_stale_entries(&rig->mc), 0);
	bracketed = fp_context_stat(rig->ctx, FP_STAT_SYNCS);

	KUNIT_ASSERT_EQ(test, fpt_map(rig, FPT_IOVA, SZ_2M, SZ_4K), 0);
	fpm_access_range(&rig->mc, FPT_IOVA, SZ_2M);
	fp_context_reset_stats(rig->ctx);
	iommu_iotlb_gather_init(&gather);
	KUNIT_ASSERT_EQ(test, rig->ops->unmap_pages(rig->ops, FPT_IOVA, SZ_2M,
						    1, &gather), SZ_2M);
	fp_iotlb_sync(rig->ctx, &gather);
	KUNIT_EXPECT_EQ(test, fpm_stale_entries(&rig->mc), 0);
	direct = fp_context_stat(rig->ctx, FP_STAT_SYNCS);

	/* The walk's sync, and one for the table entry unless covered. */
	KUNIT_EXPECT_EQ(test, bracketed, strcmp(policy, "va") ? 1 : 2);
	KUNIT_EXPECT_EQ(test, direct, 2);
}

/*
 * A context flush of another task, held in flight: it has taken its
 * number and sent its command, and waits in its sync until the unmap
 * lets it go, at its second walk flush.
 */
struct fpt_inflight {
	struct fpt_rig *rig;
	struct task_struct *flusher;
	struct completion in_sync, go, done;
	unsigned int walks;
	int ret;
};

#define FPT_INFLIGHT_WAIT	(10 * HZ)

static int fpt_inflight_flush(void *data)
{
	struct fpt_inflight *fl = data;

	fl->ret = fp_flush_context(fl->rig->ctx);
	/* For the unmap's hook, the test and the release alike. */
	complete_all(&fl->done);
	return 0;
}

static void fpt_inflight_before_sync(struct fpt_rig *rig)
{
	struct fpt_inflight *fl = rig->hook_data;

	if (current != fl->flusher)
		return;
	complete(&fl->in_sync);
	wait_for_completion_timeout(&fl->go, FPT_INFLIGHT_WAIT);
}

static void fpt_inflight_before_walk(struct fpt_rig *rig)
{
	struct fpt_inflight *fl = rig->hook_data;

	if (++fl->walks != 2)
		return;
	complete_all(&fl->go);
	wait_for_completion_timeout(&fl->done, FPT_INFLIGHT_WAIT);
}

static const struct fpt_hooks fpt_inflight_hooks = {
	.before_walk = fpt_inflight_before_walk,
	.before_sync = fpt_inflight_before_sync,
};

/* The flusher never outlives the test, however it ends. */
static void fpt_inflight_release(void *data)
{
	struct fpt_inflight *fl = data;

	complete_all(&fl->go);
	wait_for_completion_timeout(&fl->done, FPT_INFLIGHT_WAIT);
	fl->rig->hooks = NULL;
}

/*
 * Invariant C, step by step: a context flush that took its number before
 * the unmap cleared 16 pages and completed after the unmap's first walk
 * flush sampled the mark does not cover those pages.  The device filled
 * their entries after that flush's command, which the SMMU may have
 * performed at once: the gather must still invalidate them.  The unmap is 64K of pages
 * below a 2M boundary, then the two 4K tables above it (two walk flushes).
 */
static void flush_started_before_clears_covers_none(struct kunit *test)
{
	const unsigned long iova = FPT_IOVA + SZ_2M - SZ_64K;
	const size_t size = SZ_64K + SZ_4M;
	struct fpt_rig *rig = fpt_cov_rig(test);
	struct fpt_inflight *fl = kunit_kzalloc(test, sizeof(*fl), GFP_KERNEL);
	struct task_struct *t;

	KUNIT_ASSERT_NOT_NULL(test, fl);
	fl->rig = rig;
	init_completion(&fl->in_sync);
	init_completion(&fl->go);
	init_completion(&fl->done);
	KUNIT_ASSERT_EQ(test, fpt_map(rig, iova, size, SZ_4K), 0);
	fpm_access_range(&rig->mc, iova + SZ_64K, SZ_4M);

	rig->hook_data = fl;
	rig->hooks = &fpt_inflight_hooks;
	t = kthread_create(fpt_inflight_flush, fl, "fpt-inflight");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	fl->flusher = t;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
							fpt_inflight_release,
							fl), 0);
	wake_up_process(t);
	KUNIT_ASSERT_GT(test, wait_for_completion_timeout(&fl->in_sync,
							  FPT_INFLIGHT_WAIT), 0);
	/* After the flush's command: these entries may outlive it. */
	fpm_access_range(&rig->mc, iova, SZ_64K);

	KUNIT_EXPECT_EQ(test, fp_unmap(rig->ctx, rig->ops, iova, size, NULL),
			size);
	KUNIT_EXPECT_TRUE(test, completion_done(&fl->done));
	KUNIT_EXPECT_EQ(test, fl->walks, 2);
	KUNIT_EXPECT_EQ(test, fl->ret, 0);
	KUNIT_EXPECT_EQ(test, fpm_stale_in(&rig->mc, iova, SZ_64K), 0);
	KUNIT_EXPECT_EQ(test, fpm_stale_entries(&rig->mc), 0);
}

static const enum fp_stat fpt_cmd_stats[] = {
	FP_STAT_TLBI_VA, FP_STAT_TLBI_RANGE, FP_STAT_TLBI_ASID,
	FP_STAT_TLBI_ALL, FP_STAT_SYNCS,
};

/*
 * What Documentation/smmuv2-integration.rst does: the driver's unmap_pages
 * calls fp_unmap() with the IOMMU core's gather, and iotlb_sync ends it.
 * It must get what the README's tables (fp_unmap() with no gather, as
 * iommu_unmap()) say: for aligned unmaps the core makes one such call.
 */
static void core_gather_gets_the_same_commands(struct kunit *test)
{
	static const size_t sizes[] = { SZ_4K, SZ_1M, SZ_2M, SZ_4M };
	struct fpt_rig *rig = fpt_cov_rig(test);
	struct iommu_iotlb_gather gather;
	u64 own[ARRAY_SIZE(fpt_cmd_stats)];
	unsigned int i, s;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		KUNIT_ASSERT_EQ(test, fpt_map(rig, FPT_IOVA, sizes[i], SZ_4K),
				0);
		fp_context_reset_stats(rig->ctx);
		KUNIT_ASSERT_EQ(test, fp_unmap(rig->ctx, rig->ops, FPT_IOVA,
					       sizes[i], NULL), sizes[i]);
		for (s = 0; s < ARRAY_SIZE(fpt_cmd_stats); s++)
			own[s] = fp_context_stat(rig->ctx, fpt_cmd_stats[s]);

		KUNIT_ASSERT_EQ(test, fpt_map(rig, FPT_IOVA, sizes[i], SZ_4K),
				0);
		fpm_access_range(&rig->mc, FPT_IOVA, sizes[i]);
		fp_context_reset_stats(rig->ctx);
		iommu_iotlb_gather_init(&gather);
		KUNIT_ASSERT_EQ(test, fp_unmap(rig->ctx, rig->ops, FPT_IOVA,
					       sizes[i], &gather), sizes[i]);
		fp_iotlb_sync(rig->ctx, &gather);
		KUNIT_EXPECT_EQ(test, fpm_stale_entries(&rig->mc), 0);
		for (s = 0; s < ARRAY_SIZE(fpt_cmd_stats); s++)
			KUNIT_EXPECT_EQ_MSG(test, fp_context_stat(rig->ctx,
								  fpt_cmd_stats[s]),
					    own[s], "size %zu, stat %u",
					    sizes[i], fpt_cmd_stats[s]);
	}
}

/*
 * A backend that logs what it was asked, for page tables that are not the
 * model's: the last command, and how many.
 */
struct fpt_cov_log {
	unsigned int cmds, syncs;
	unsigned int cmds_at_sync;	/* cmds when the first sync came */
	unsigned long first_start, first_end;	/* [start, end) */
	unsigned long last_start, last_end;	/* [start, end) */
};

static void fpt_cov_log_cmd(struct fp_context *ctx, unsigned long iova,
			    size_t size)
{
	struct fpt_cov_log *log = fp_context_priv(ctx);

	if (!log->cmds++) {
		log->first_start = iova;
		log->first_end = iova + size;
	}
	log->last_start = iova;
	log->last_end = iova + size;
}

static void fpt_cov_inv_va(struct fp_context *ctx, unsigned long iova,
			   size_t size, size_t granule, bool leaf)
{
	fpt_cov_log_cmd(ctx, iova, size);
}

static unsigned int fpt_cov_inv_range(struct fp_context *ctx,
				      unsigned long iova, size_t size,
				      size_t granule, bool leaf)
{
	fpt_cov_log_cmd(ctx, iova, size);
	return 1;
}

static void fpt_cov_inv_context(struct fp_context *ctx)
{
	struct fpt_cov_log *log = fp_context_priv(ctx);

	fpt_cov_log_cmd(ctx, 0, 0);
	log->last_end = ULONG_MAX;
	if (log->cmds == 1)
		log->first_end = ULONG_MAX;
}

static int fpt_cov_sync(struct fp_context *ctx)
{
	struct fpt_cov_log *log = fp_context_priv(ctx);

	if (!log->syncs++)
		log->cmds_at_sync = log->cmds;
	return 0;
}

static int fpt_cov_inv_va_sync(struct fp_context *ctx, unsigned long iova,
			       size_t size, size_t granule, bool leaf)
{
	fpt_cov_inv_va(ctx, iova, size, granule, leaf);
	return fpt_cov_sync(ctx);
}

static int fpt_cov_inv_range_sync(struct fp_context *ctx, unsigned long iova,
				  size_t size, size_t granule, bool leaf,
				  unsigned int *n)
{
	*n = fpt_cov_inv_range(ctx, iova, size, granule, leaf);
	return fpt_cov_sync(ctx);
}

static const struct fp_hw_ops fpt_cov_hw_ops = {
	.inv_va		= fpt_cov_inv_va,
	.inv_range	= fpt_cov_inv_range,
	.inv_context	= fpt_cov_inv_context,
	.sync		= fpt_cov_sync,
	.inv_va_sync	= fpt_cov_inv_va_sync,
	.inv_range_sync	= fpt_cov_inv_range_sync,
};

/*
 * io-pgtable-arm-v7s's call sequence when 4K pages are unmapped out of a
 * 64K contiguous entry (arm_v7s_unmap_pages(), one page at a time): the
 * first page splits the entry, and arm_v7s_split_cont() flushes the walk of
 * the whole 64K with the 4K entries still valid; then each page's entry is
 * cleared and gathered.
 */
struct fpt_v7s {
	struct io_pgtable iop;
	struct fpt_cov_log log;
	bool cont;		/* the 64K entry at FPT_IOVA is still whole */
	unsigned int unmap_calls;
	struct device dev;
};

static size_t fpt_v7s_unmap_pages(struct io_pgtable_ops *ops,
				  unsigned long iova, size_t pgsize,
				  size_t pgcount,
				  struct iommu_iotlb_gather *gather)
{
	struct io_pgtable *iop = io_pgtable_ops_to_pgtable(ops);
	struct fpt_v7s *v = container_of(iop, struct fpt_v7s, iop);
	size_t i;

	v->unmap_calls++;
	for (i = 0; i < pgcount; i++, iova += pgsize) {
		if (v->cont) {
			io_pgtable_tlb_flush_walk(iop, ALIGN_DOWN(iova, SZ_64K),
						  SZ_64K, SZ_64K);
			v->cont = false;
		}
		/* (The 4K entry is cleared here.) */
		io_pgtable_tlb_add_page(iop, gather, iova, pgsize);
	}
	return pgsize * pgcount;
}

static void fpt_v7s_exit(void *data)
{
	struct fpt_v7s *v = data;

	fp_context_destroy(v->iop.cookie);
}

static struct fpt_v7s *fpt_v7s_init(struct kunit *test, const char *policy)
{
	struct fpt_v7s *v = kunit_kzalloc(test, sizeof(*v), GFP_KERNEL);
	struct fp_context_cfg fc = {
		.backend = "v7s", .instance = "v7s0", .owner = THIS_MODULE,
		.ops = &fpt_cov_hw_ops, .id = 1, .default_policy = "va",
		.default_threshold = 128,
	};
	struct fp_context *ctx;

	KUNIT_ASSERT_NOT_NULL(test, v);
	v->iop.fmt = ARM_V7S;
	v->iop.cfg = (struct io_pgtable_cfg) {
		.pgsize_bitmap	= SZ_4K | SZ_64K | SZ_1M | SZ_16M,
		.ias		= 32,
		.oas		= 32,
		.coherent_walk	= true,
		.iommu_dev	= &v->dev,
	};
	v->iop.ops.unmap_pages = fpt_v7s_unmap_pages;
	v->cont = true;
	fc.priv = &v->log;
	ctx = fp_context_create(&fc, &v->iop.cfg);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ctx);
	v->iop.cookie = ctx;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, fpt_v7s_exit, v),
			0);
	KUNIT_ASSERT_EQ(test, fp_context_set_policy(ctx, policy), 0);
	return v;
}

/*
 * Bug 1 of issue 10: the split's walk flush came before the 4K entries
 * were cleared, so the device may have cached them again since.  It must
 * cover none of them: the unmap's gather needs a command of its own.
 */
static void v7s_split_walk_covers_no_leaf(struct kunit *test)
{
	const char *policy = *(const char *const *)test->param_value;
	struct fpt_v7s *v = fpt_v7s_init(test, policy);
	unsigned long iova = FPT_IOVA + SZ_4K;

	KUNIT_ASSERT_EQ(test, fp_unmap(v->iop.cookie, &v->iop.ops, iova,
				       4 * SZ_4K, NULL), 4 * SZ_4K);
	/* The walk's command(s) and sync, then the leaves'. */
	KUNIT_EXPECT_GE(test, v->log.cmds_at_sync, 1);
	KUNIT_EXPECT_GT(test, v->log.cmds, v->log.cmds_at_sync);
	KUNIT_EXPECT_EQ(test, v->log.syncs, 2);
	KUNIT_EXPECT_LE(test, v->log.last_start, iova);
	KUNIT_EXPECT_GE(test, v->log.last_end, iova + 4 * SZ_4K);
}

/*
 * One 4K page out of a 64K contiguous entry, as a driver's unmap_pages
 * gets it (the IOMMU core's gather, its iotlb_sync after): pages of the
 * smallest size free no table, and take the unmap's path without a
 * record, but arm-v7s still splits the entry and flushes its walk first,
 * which every policy must invalidate and sync before the page table goes
 * on.  Then the leaf, at the sync, on its own.
 */
static void fpt_v7s_one_page(struct kunit *test, bool driver)
{
	const char *policy = *(const char *const *)test->param_value;
	struct fpt_v7s *v = fpt_v7s_init(test, policy);
	unsigned long iova = FPT_IOVA + SZ_4K;
	struct iommu_iotlb_gather gather;
	bool asid = !strcmp(policy, "asid");

	iommu_iotlb_gather_init(&gather);
	if (driver)
		KUNIT_ASSERT_EQ(test, fp_unmap_pages(v->iop.cookie,
						     &v->iop.ops, iova, SZ_4K,
						     1, &gather), SZ_4K);
	else
		KUNIT_ASSERT_EQ(test, fp_unmap(v->iop.cookie, &v->iop.ops,
					       iova, SZ_4K, &gather), SZ_4K);
	/* The walk: invalidated and synced inside unmap_pages. */
	KUNIT_EXPECT_EQ(test, v->log.syncs, 1);
	KUNIT_EXPECT_EQ(test, v->log.cmds_at_sync, 1);
	KUNIT_EXPECT_EQ(test, v->log.first_start, asid ? 0 : FPT_IOVA);
	KUNIT_EXPECT_EQ(test, v->log.first_end,
			asid ? ULONG_MAX : FPT_IOVA + SZ_64K);
	KUNIT_EXPECT_EQ(test, gather.start, iova);
	KUNIT_EXPECT_EQ(test, gather.end, iova + SZ_4K - 1);

	fp_iotlb_sync(v->iop.cookie, &gather);
	KUNIT_EXPECT_EQ(test, v->log.cmds, 2);
	KUNIT_EXPECT_EQ(test, v->log.syncs, 2);
	KUNIT_EXPECT_LE(test, v->log.last_start, iova);
	KUNIT_EXPECT_GE(test, v->log.last_end, iova + SZ_4K);
	KUNIT_EXPECT_EQ(test, fp_context_stat(v->iop.cookie, FP_STAT_WALKS), 1);
	KUNIT_EXPECT_EQ(test, fp_context_stat(v->iop.cookie, FP_STAT_SYNCS), 2);
	KUNIT_EXPECT_EQ(test, fp_context_stat(v->iop.cookie, FP_STAT_UNMAPS),
			1);
}

static void v7s_one_page_split_flushes_walk(struct kunit *test)
{
	fpt_v7s_one_page(test, false);
}

/*
 * The same through a driver's unmap_pages, fp_unmap_pages(): its inline
 * path (the estimate's key off, as where no policy reads it) sends the
 * page straight to the page table, whose walk flush must still be sent.
 */
static void v7s_driver_one_page_split_flushes_walk(struct kunit *test)
{
	fpt_estimate_hold_off(test);
	fpt_v7s_one_page(test, true);
}

/* As iommu_unmap() refuses it, before io-pgtable sees it. */
static void misaligned_unmap_refused(struct kunit *test)
{
	struct fpt_v7s *v = fpt_v7s_init(test, "va");

	KUNIT_EXPECT_EQ(test, fp_unmap(v->iop.cookie, &v->iop.ops,
				       FPT_IOVA + SZ_2K, SZ_4K, NULL), 0);
	KUNIT_EXPECT_EQ(test, fp_unmap(v->iop.cookie, &v->iop.ops, FPT_IOVA,
				       SZ_4K + 1, NULL), 0);
	KUNIT_EXPECT_EQ(test, fp_unmap(v->iop.cookie, &v->iop.ops, FPT_IOVA,
				       SZ_1K, NULL), 0);
	KUNIT_EXPECT_EQ(test, v->unmap_calls, 0);
	KUNIT_EXPECT_EQ(test, v->log.cmds + v->log.syncs, 0);
}

/*
 * The same through a driver's unmap_pages on its inline path (the
 * estimate's key off): io-pgtable would index by the IOVA's page and
 * unmap the page below it.  Refused before io-pgtable sees it.
 */
static void driver_misaligned_unmap_refused(struct kunit *test)
{
	struct fpt_v7s *v = fpt_v7s_init(test, "va");
	struct iommu_iotlb_gather gather;

	fpt_estimate_hold_off(test);
	iommu_iotlb_gather_init(&gather);
	KUNIT_EXPECT_EQ(test, fp_unmap_pages(v->iop.cookie, &v->iop.ops,
					     FPT_IOVA + SZ_2K, SZ_4K, 1,
					     &gather), 0);
	KUNIT_EXPECT_EQ(test, v->unmap_calls, 0);
	KUNIT_EXPECT_EQ(test, gather.pgsize, 0);
	KUNIT_EXPECT_EQ(test, v->log.cmds + v->log.syncs, 0);
}

static const char *const fpt_v7s_policies[] = { "range", "asid", "threshold" };

KUNIT_ARRAY_PARAM(fpt_v7s, fpt_v7s_policies, fpt_cov_desc);

static const char *const fpt_v7s_strict_policies[] = {
	"va", "range", "asid", "threshold", "adaptive", "batch",
};

KUNIT_ARRAY_PARAM(fpt_v7s_strict, fpt_v7s_strict_policies, fpt_cov_desc);

/* Walk flushes, leaves, and a flush of the whole context, counted. */
static void fpt_cov_every_kind_of_call(struct kunit *test,
				       struct fpt_rig *rig)
{
	KUNIT_ASSERT_EQ(test, fpt_map(rig, FPT_IOVA, SZ_4M, SZ_4K), 0);
	rig->cmds = 0;
	rig->cmds_in_rcu = 0;
	rig->cmds_could_sleep = 0;
	KUNIT_ASSERT_EQ(test, fpt_unmap(rig, FPT_IOVA, SZ_4M, false), SZ_4M);
	fp_flush_iotlb_all(rig->ctx);
	KUNIT_EXPECT_GT(test, rig->cmds, 0);
}

/*
 * Every policy's flush runs outside any RCU read section, built in or a
 * module of its own, however many commands it sends (va freeing a 1G
 * table sends 262144: 28 s in the arm64 kernel under TCG, an RCU stall).
 * What keeps a policy module loaded during its call is the core's SRCU
 * (dispatch.c), which the lifetime suite races against unloading.
 */
static void policy_flushes_outside_rcu(struct kunit *test)
{
	struct fpt_rig *rig;

	if (!IS_ENABLED(CONFIG_DEBUG_LOCK_ALLOC))
		kunit_skip(test, "rcu_read_lock_held() needs DEBUG_LOCK_ALLOC");
	rig = fpt_cov_rig(test);
	fpt_cov_every_kind_of_call(test, rig);
	KUNIT_EXPECT_EQ(test, rig->cmds_in_rcu, 0);
}

/*
 * Outside RCU is no licence to sleep: io-pgtable and the IOMMU core call
 * the policies with spinlocks held and from the lazy flush timer.  The
 * SRCU that pins a policy would let one sleep, so the pin is also a
 * non-blocking section, and a policy or primitive that sleeps warns in
 * the test kernels whoever calls it, not only from an atomic caller.
 * Here the caller is preemptible: only the section forbids sleeping.
 */
static void policy_calls_cannot_sleep(struct kunit *test)
{
	struct fpt_rig *rig;

	if (!IS_ENABLED(CONFIG_DEBUG_ATOMIC_SLEEP))
		kunit_skip(test, "non_block_start() needs DEBUG_ATOMIC_SLEEP");
	/* There a policy may take a spinlock_t, which sleeps (dispatch.c). */
	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		kunit_skip(test, "PREEMPT_RT: policy calls are checked by lock nesting instead");
	rig = fpt_cov_rig(test);
	fpt_cov_every_kind_of_call(test, rig);
	KUNIT_EXPECT_EQ(test, rig->cmds_could_sleep, 0);
}

static struct kunit_case fpt_coverage_cases[] = {
	KUNIT_CASE_PARAM(v7s_split_walk_covers_no_leaf, fpt_v7s_gen_params),
	KUNIT_CASE_PARAM(v7s_one_page_split_flushes_walk,
			 fpt_v7s_strict_gen_params),
	KUNIT_CASE_PARAM(v7s_driver_one_page_split_flushes_walk,
			 fpt_v7s_strict_gen_params),
	KUNIT_CASE(misaligned_unmap_refused),
	KUNIT_CASE(driver_misaligned_unmap_refused),
	KUNIT_CASE_PARAM(core_gather_gets_the_same_commands,
			 fpt_cov_gen_params),
	KUNIT_CASE_PARAM(block_mapped_over_old_table_is_invalidated,
			 fpt_cov_gen_params),
	KUNIT_CASE_PARAM(walks_cover_only_within_fp_unmap, fpt_cov_gen_params),
	KUNIT_CASE_PARAM(flush_started_before_clears_covers_none,
			 fpt_cov_gen_params),
	KUNIT_CASE_PARAM(policy_flushes_outside_rcu, fpt_cov_gen_params),
	KUNIT_CASE_PARAM(policy_calls_cannot_sleep, fpt_cov_gen_params),
	{}
};

static struct kunit_suite fpt_coverage_suite = {
	.name = "flushpol_coverage",
	.test_cases = fpt_coverage_cases,
};

kunit_test_suite(fpt_coverage_suite);
