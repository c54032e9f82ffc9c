// SPDX-License-Identifier: GPL-2.0-only
/*
 * flushpol_coverage: when a walk flush may stand in for the invalidation
 * of a gathered leaf (core/coverage.c), and when it must not.
 */
#include <kunit/test.h>
#include <linux/sizes.h>

#include "fp_rig.h"

#define FPT_IOVA	SZ_1G

static const char *const fpt_cov_policies[] = {
	"va", "range", "asid", "threshold",
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
	rig->walks = 0;
	KUNIT_ASSERT_EQ(test, fpt_map(rig, FPT_IOVA, SZ_2M, SZ_2M), 0);
	KUNIT_EXPECT_EQ(test, rig->walks, 1);
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

static struct kunit_case fpt_coverage_cases[] = {
	KUNIT_CASE_PARAM(block_mapped_over_old_table_is_invalidated,
			 fpt_cov_gen_params),
	KUNIT_CASE_PARAM(walks_cover_only_within_fp_unmap, fpt_cov_gen_params),
	{}
};

static struct kunit_suite fpt_coverage_suite = {
	.name = "flushpol_coverage",
	.test_cases = fpt_coverage_cases,
};

kunit_test_suite(fpt_coverage_suite);
