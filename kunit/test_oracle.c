// SPDX-License-Identifier: GPL-2.0-only
/*
 * flushpol_model and flushpol_oracle: the model drops what the architecture
 * says each command drops, and deliberately broken policies are caught by
 * the same checks that pass the real ones.  Without these, a green
 * flushpol_counts would prove nothing.
 */
#include <kunit/test.h>
#include <linux/sizes.h>

#include "fp_rig.h"

#define FPT_IOVA	SZ_1G

static struct fpt_rig *fpt_new_rig(struct kunit *test, const char *policy,
				   bool range)
{
	struct fpt_rig_cfg rc = {
		.fmt = ARM_64_LPAE_S1, .has_range = range, .policy = policy,
	};
	struct fpt_rig *rig = kunit_kzalloc(test, sizeof(*rig), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, rig);
	KUNIT_ASSERT_EQ(test, fpt_rig_init(test, rig, &rc, NULL, 1), 0);
	return rig;
}

/* Map 2 MiB of 4 KiB pages and warm every level of the model. */
static struct fpt_rig *fpt_warm_rig(struct kunit *test)
{
	struct fpt_rig *rig = fpt_new_rig(test, NULL, false);

	KUNIT_ASSERT_EQ(test, fpt_map(rig, FPT_IOVA, SZ_2M, SZ_4K), 0);
	fpm_access_range(&rig->mc, FPT_IOVA, SZ_2M);
	/* 512 leaves plus one walk entry at each of levels 0, 1 and 2. */
	KUNIT_ASSERT_EQ(test, fpm_cached_entries(&rig->mc), 512 + 3);
	return rig;
}

static void fpt_cmd(struct fpt_rig *rig, enum fpm_cmd_kind kind, bool leaf,
		    u16 asid, u64 addr, u64 size)
{
	struct fpm_cmd cmd = {
		.kind = kind, .leaf = leaf, .asid = asid, .addr = addr,
		.size = size,
	};

	fpm_issue(rig->smmu, &cmd);
}

static void tlbival_drops_one_leaf_and_keeps_walks(struct kunit *test)
{
	struct fpt_rig *rig = fpt_warm_rig(test);

	fpt_cmd(rig, FPM_CMD_VA, true, 1, FPT_IOVA + SZ_4K, 0);
	KUNIT_EXPECT_EQ(test, fpm_cached_entries(&rig->mc), 512 + 3);
	KUNIT_ASSERT_EQ(test, fpm_sync(rig->smmu), 0);
	KUNIT_EXPECT_EQ(test, fpm_cached_entries(&rig->mc), 511 + 3);
	KUNIT_EXPECT_EQ(test, rig->mc.n.collateral, 1);
}

static void tlbiva_drops_leaf_and_every_walk_level(struct kunit *test)
{
	struct fpt_rig *rig = fpt_warm_rig(test);

	fpt_cmd(rig, FPM_CMD_VA, false, 1, FPT_IOVA + SZ_4K, 0);
	KUNIT_ASSERT_EQ(test, fpm_sync(rig->smmu), 0);
	KUNIT_EXPECT_EQ(test, fpm_cached_entries(&rig->mc), 511);
}

static void range_drops_exactly_its_span(struct kunit *test)
{
	struct fpt_rig *rig = fpt_warm_rig(test);

	fpt_cmd(rig, FPM_CMD_RANGE, true, 1, FPT_IOVA + SZ_64K, SZ_64K);
	KUNIT_ASSERT_EQ(test, fpm_sync(rig->smmu), 0);
	KUNIT_EXPECT_EQ(test, fpm_cached_leaves(&rig->mc, FPT_IOVA, SZ_2M),
			512 - 16);
	KUNIT_EXPECT_EQ(test, fpm_cached_leaves(&rig->mc, FPT_IOVA + SZ_64K,
						SZ_64K), 0);
}

static void asid_spares_other_asids(struct kunit *test)
{
	struct fpt_rig *rig = fpt_warm_rig(test);

	fpt_cmd(rig, FPM_CMD_ASID, false, 2, 0, 0);
	KUNIT_ASSERT_EQ(test, fpm_sync(rig->smmu), 0);
	KUNIT_EXPECT_EQ(test, fpm_cached_entries(&rig->mc), 512 + 3);
	fpt_cmd(rig, FPM_CMD_ASID, false, 1, 0, 0);
	KUNIT_ASSERT_EQ(test, fpm_sync(rig->smmu), 0);
	KUNIT_EXPECT_EQ(test, fpm_cached_entries(&rig->mc), 0);
	KUNIT_EXPECT_EQ(test, rig->mc.n.collateral, 512 + 3);
}

static void commands_wait_for_sync(struct kunit *test)
{
	struct fpt_rig *rig = fpt_warm_rig(test);

	rig->smmu->sync_stuck = true;
	fpt_cmd(rig, FPM_CMD_ASID, false, 1, 0, 0);
	KUNIT_EXPECT_EQ(test, fpm_sync(rig->smmu), -ETIMEDOUT);
	KUNIT_EXPECT_EQ(test, fpm_cached_entries(&rig->mc), 512 + 3);
	rig->smmu->sync_stuck = false;
	KUNIT_EXPECT_EQ(test, fpm_sync(rig->smmu), 0);
	KUNIT_EXPECT_EQ(test, fpm_cached_entries(&rig->mc), 0);
}

static void unmap_without_invalidation_is_stale(struct kunit *test)
{
	struct fpt_rig *rig = fpt_warm_rig(test);
	struct iommu_iotlb_gather gather;

	/* Behind flushpol's back: the model must notice. */
	iommu_iotlb_gather_init(&gather);
	gather.queued = true;
	KUNIT_ASSERT_EQ(test, rig->ops->unmap_pages(rig->ops, FPT_IOVA, SZ_4K,
						    16, &gather), SZ_64K);
	KUNIT_EXPECT_EQ(test, fpm_stale_entries(&rig->mc), 16);
	KUNIT_EXPECT_FALSE(test, fpm_access(&rig->mc, FPT_IOVA));
	KUNIT_EXPECT_EQ(test, rig->mc.n.stale_hits, 1);
}

static void fpt_full_smmu_destroy(void *smmu)
{
	/* Seen by the test: the loss would otherwise fail it at destroy. */
	((struct fpm_smmu *)smmu)->lost = 0;
	fpm_smmu_destroy(smmu);
}

/*
 * The model's entries come from a pool that never evicts (fp_model.h): a
 * fill with no room is counted, so that a model which forgot an entry
 * cannot pass a test unseen.  2M of pages warmed takes 1027: 512 leaves,
 * 3 walk entries and 512 pages of the working set.
 */
static void full_pool_counts_every_lost_fill(struct kunit *test)
{
	struct fpm_smmu *smmu = kunit_kzalloc(test, sizeof(*smmu), GFP_KERNEL);
	struct fpt_rig *rig = kunit_kzalloc(test, sizeof(*rig), GFP_KERNEL);
	struct fpt_rig_cfg rc = { .fmt = ARM_64_LPAE_S1 };

	KUNIT_ASSERT_NOT_NULL(test, smmu);
	KUNIT_ASSERT_NOT_NULL(test, rig);
	KUNIT_ASSERT_EQ(test, fpm_smmu_init_entries(smmu, 512), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
							fpt_full_smmu_destroy,
							smmu), 0);
	KUNIT_ASSERT_EQ(test, fpt_rig_init(test, rig, &rc, smmu, 1), 0);
	KUNIT_ASSERT_EQ(test, fpt_map(rig, FPT_IOVA, SZ_2M, SZ_4K), 0);
	fpm_access_range(&rig->mc, FPT_IOVA, SZ_2M);
	KUNIT_EXPECT_EQ(test, smmu->lost, 1027 - 512);
}

static struct kunit_case fpt_model_cases[] = {
	KUNIT_CASE(tlbival_drops_one_leaf_and_keeps_walks),
	KUNIT_CASE(tlbiva_drops_leaf_and_every_walk_level),
	KUNIT_CASE(range_drops_exactly_its_span),
	KUNIT_CASE(asid_spares_other_asids),
	KUNIT_CASE(commands_wait_for_sync),
	KUNIT_CASE(unmap_without_invalidation_is_stale),
	KUNIT_CASE(full_pool_counts_every_lost_fill),
	{}
};

static struct kunit_suite fpt_model_suite = {
	.name = "flushpol_model",
	.test_cases = fpt_model_cases,
};

/* Broken policies: each forgets one thing a correct policy must do. */

static void fpt_nosync_walk(struct fp_context *ctx, unsigned long iova,
			    size_t size, size_t granule)
{
	fp_inv_va(ctx, iova, size, granule, false);
}

static void fpt_nosync_gather(struct fp_context *ctx,
			      const struct iommu_iotlb_gather *gather)
{
	if (fp_gather_pages(gather))
		fp_inv_va(ctx, gather->start, gather->end - gather->start + 1,
			  gather->pgsize, true);
}

static void fpt_nowalk_walk(struct fp_context *ctx, unsigned long iova,
			    size_t size, size_t granule)
{
}

static void fpt_leafwalk_walk(struct fp_context *ctx, unsigned long iova,
			      size_t size, size_t granule)
{
	fp_inv_va(ctx, iova, size, granule, true);
	fp_sync(ctx);
}

static void fpt_sync_gather(struct fp_context *ctx,
			    const struct iommu_iotlb_gather *gather)
{
	fpt_nosync_gather(ctx, gather);
	fp_sync(ctx);
}

static struct fp_policy fpt_broken_policies[] = {
	{
		.name = "kunit_nosync", .owner = THIS_MODULE,
		.flush_walk = fpt_nosync_walk,
		.flush_gather = fpt_nosync_gather,
	}, {
		.name = "kunit_nowalk", .owner = THIS_MODULE,
		.flush_walk = fpt_nowalk_walk,
		.flush_gather = fpt_sync_gather,
	}, {
		.name = "kunit_leafwalk", .owner = THIS_MODULE,
		.flush_walk = fpt_leafwalk_walk,
		.flush_gather = fpt_sync_gather,
	},
};

struct fpt_oracle_case {
	const char *policy;
	bool range;
	size_t size;
	bool stale;		/* expect stale entries after the sync */
	bool freed_refs;	/* expect walk entries on freed tables */
};

static const struct fpt_oracle_case fpt_oracle_cases[] = {
	/* The real policies pass... */
	{ "va", false, SZ_64K, false, false },
	{ "va", false, SZ_2M, false, false },
	{ "range", true, SZ_2M, false, false },
	{ "asid", false, SZ_2M, false, false },
	{ "threshold", false, SZ_64K, false, false },
	{ "threshold", false, SZ_2M, false, false },
	{ "adaptive", false, SZ_64K, false, false },
	{ "adaptive", false, SZ_2M, false, false },
	{ "adaptive", true, SZ_2M, false, false },
	/* ...and each broken one is caught. */
	{ "kunit_nosync", false, SZ_64K, true, false },
	{ "kunit_nosync", false, SZ_2M, true, true },
	{ "kunit_nowalk", false, SZ_2M, true, true },
	{ "kunit_leafwalk", false, SZ_2M, true, true },
};

static void fpt_oracle_desc(const struct fpt_oracle_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s-%zuK", c->policy,
		 c->size / SZ_1K);
}

KUNIT_ARRAY_PARAM(fpt_oracle, fpt_oracle_cases, fpt_oracle_desc);

/*
 * Map X to A, let the device use it, unmap, map X to B: the device must
 * then see B (or fault), never A.  The same flow as the QEMU end-to-end
 * test, on the model.
 */
static void remap_sees_new_pages_only(struct kunit *test)
{
	const struct fpt_oracle_case *c = test->param_value;
	struct fpt_rig *rig = fpt_new_rig(test, c->policy, c->range);

	KUNIT_ASSERT_EQ(test, fpt_map(rig, FPT_IOVA, c->size, SZ_4K), 0);
	fpm_access_range(&rig->mc, FPT_IOVA, c->size);
	KUNIT_ASSERT_EQ(test, fpt_unmap(rig, FPT_IOVA, c->size, false),
			c->size);

	if (c->stale)
		KUNIT_EXPECT_GT(test, fpm_stale_entries(&rig->mc), 0);
	else
		KUNIT_EXPECT_EQ(test, fpm_stale_entries(&rig->mc), 0);
	if (c->freed_refs)
		KUNIT_EXPECT_GT(test, rig->mc.n.freed_refs, 0);
	else
		KUNIT_EXPECT_EQ(test, rig->mc.n.freed_refs, 0);

	rig->pa_offset = SZ_1G;
	KUNIT_ASSERT_EQ(test, fpt_map(rig, FPT_IOVA, c->size, SZ_4K), 0);
	fpm_access_range(&rig->mc, FPT_IOVA, c->size);
	if (c->stale)
		KUNIT_EXPECT_GT(test, rig->mc.n.stale_hits, 0);
	else
		KUNIT_EXPECT_EQ(test, rig->mc.n.stale_hits, 0);
}

static void sync_timeout_reported_and_context_recovers(struct kunit *test)
{
	struct fpt_rig *rig = fpt_new_rig(test, "va", false);

	KUNIT_ASSERT_EQ(test, fpt_map(rig, FPT_IOVA, SZ_64K, SZ_4K), 0);
	fpm_access_range(&rig->mc, FPT_IOVA, SZ_64K);

	rig->smmu->sync_stuck = true;
	fpt_unmap(rig, FPT_IOVA, SZ_4K, false);
	KUNIT_EXPECT_EQ(test, fp_context_stat(rig->ctx, FP_STAT_SYNC_TIMEOUTS),
			1);
	KUNIT_EXPECT_EQ(test, fp_sync(rig->ctx), -ETIMEDOUT);

	rig->smmu->sync_stuck = false;
	fpt_unmap(rig, FPT_IOVA + SZ_4K, SZ_4K, false);
	KUNIT_EXPECT_EQ(test, fp_context_stat(rig->ctx, FP_STAT_SYNC_TIMEOUTS),
			2);
	KUNIT_EXPECT_EQ(test, fpm_stale_entries(&rig->mc), 0);
}

static int fpt_oracle_init(struct kunit_suite *suite)
{
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(fpt_broken_policies); i++) {
		ret = fp_policy_register(&fpt_broken_policies[i]);
		if (ret)
			goto err;
	}
	return 0;
err:
	while (--i >= 0)
		fp_policy_unregister(&fpt_broken_policies[i]);
	return ret;
}

static void fpt_oracle_exit(struct kunit_suite *suite)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(fpt_broken_policies); i++)
		fp_policy_unregister(&fpt_broken_policies[i]);
}

static struct kunit_case fpt_oracle_test_cases[] = {
	KUNIT_CASE_PARAM(remap_sees_new_pages_only, fpt_oracle_gen_params),
	KUNIT_CASE(sync_timeout_reported_and_context_recovers),
	{}
};

static struct kunit_suite fpt_oracle_suite = {
	.name = "flushpol_oracle",
	.suite_init = fpt_oracle_init,
	.suite_exit = fpt_oracle_exit,
	.test_cases = fpt_oracle_test_cases,
};

kunit_test_suites(&fpt_model_suite, &fpt_oracle_suite);
