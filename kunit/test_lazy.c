// SPDX-License-Identifier: GPL-2.0-only
/*
 * flushpol_lazy: non-strict contexts.  Queued unmaps send nothing per page
 * and may leave stale leaves until flush_iotlb_all; walks are still flushed
 * before their table is freed.
 */
#include <kunit/test.h>
#include <linux/sizes.h>

#include "fp_rig.h"

#define FPT_IOVA	SZ_1G

static struct fpt_rig *fpt_lazy_rig(struct kunit *test)
{
	struct fpt_rig_cfg rc = { .fmt = ARM_64_LPAE_S1, .lazy = true };
	struct fpt_rig *rig = kunit_kzalloc(test, sizeof(*rig), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, rig);
	KUNIT_ASSERT_EQ(test, fpt_rig_init(test, rig, &rc, NULL, 3), 0);
	return rig;
}

static void lazy_context_defaults_to_nonstrict(struct kunit *test)
{
	struct fpt_rig *rig = fpt_lazy_rig(test);
	char buf[64];

	fpt_ctx_read(rig, "policy", buf, sizeof(buf));
	KUNIT_EXPECT_STREQ(test, buf, "va asid [nonstrict] threshold batch adaptive\n");
	fpt_ctx_read(rig, "strict", buf, sizeof(buf));
	KUNIT_EXPECT_STREQ(test, buf, "0\n");
}

static void queued_unmap_waits_for_flush_all(struct kunit *test)
{
	struct fpt_rig *rig = fpt_lazy_rig(test);
	struct fp_context *ctx = rig->ctx;

	KUNIT_ASSERT_EQ(test, fpt_map(rig, FPT_IOVA, SZ_64K, SZ_4K), 0);
	fpm_access_range(&rig->mc, FPT_IOVA, SZ_64K);
	fp_context_reset_stats(ctx);

	KUNIT_ASSERT_EQ(test, fpt_unmap(rig, FPT_IOVA, SZ_64K, true), SZ_64K);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&rig->add_pages), 0);
	KUNIT_EXPECT_EQ(test, rig->smmu->cmds, 0);
	/* Lazy by design: the old translations are still cached here. */
	KUNIT_EXPECT_EQ(test, fpm_stale_entries(&rig->mc), 16);

	fp_flush_iotlb_all(ctx);
	KUNIT_EXPECT_EQ(test, fp_context_stat(ctx, FP_STAT_TLBI_ASID), 1);
	KUNIT_EXPECT_EQ(test, fp_context_stat(ctx, FP_STAT_SYNCS), 1);
	KUNIT_EXPECT_EQ(test, fpm_stale_entries(&rig->mc), 0);
}

static void queued_unmap_still_flushes_walks(struct kunit *test)
{
	struct fpt_rig *rig = fpt_lazy_rig(test);

	KUNIT_ASSERT_EQ(test, fpt_map(rig, FPT_IOVA, SZ_4M, SZ_4K), 0);
	fpm_access_range(&rig->mc, FPT_IOVA, SZ_4M);
	fp_context_reset_stats(rig->ctx);

	KUNIT_ASSERT_EQ(test, fpt_unmap(rig, FPT_IOVA, SZ_4M, true), SZ_4M);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&rig->walks), 2);
	KUNIT_EXPECT_EQ(test, fp_context_stat(rig->ctx, FP_STAT_TLBI_ASID), 2);
	KUNIT_EXPECT_EQ(test, rig->mc.n.freed_refs, 0);
	KUNIT_EXPECT_EQ(test, fpm_stale_entries(&rig->mc), 0);
}

static void unqueued_unmap_on_lazy_context_is_strict(struct kunit *test)
{
	struct fpt_rig *rig = fpt_lazy_rig(test);

	KUNIT_ASSERT_EQ(test, fpt_map(rig, FPT_IOVA, SZ_64K, SZ_4K), 0);
	fpm_access_range(&rig->mc, FPT_IOVA, SZ_64K);
	fp_context_reset_stats(rig->ctx);

	KUNIT_ASSERT_EQ(test, fpt_unmap(rig, FPT_IOVA, SZ_64K, false), SZ_64K);
	KUNIT_EXPECT_EQ(test, fp_context_stat(rig->ctx, FP_STAT_TLBI_ASID), 1);
	KUNIT_EXPECT_EQ(test, fpm_stale_entries(&rig->mc), 0);
}

static struct kunit_case fpt_lazy_test_cases[] = {
	KUNIT_CASE(lazy_context_defaults_to_nonstrict),
	KUNIT_CASE(queued_unmap_waits_for_flush_all),
	KUNIT_CASE(queued_unmap_still_flushes_walks),
	KUNIT_CASE(unqueued_unmap_on_lazy_context_is_strict),
	{}
};

static struct kunit_suite fpt_lazy_suite = {
	.name = "flushpol_lazy",
	.test_cases = fpt_lazy_test_cases,
};

kunit_test_suite(fpt_lazy_suite);
