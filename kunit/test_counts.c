// SPDX-License-Identifier: GPL-2.0-only
/*
 * flushpol_counts: for every policy and the seed thread's sizes, the exact
 * commands and syncs one unmap costs, what it costs a second live buffer in
 * the same context, and that nothing stale survives the sync.
 *
 * Buffer A (the size under test) and buffer B (2 MiB of 4 KiB pages) are
 * mapped and warmed in the TLB model; A is unmapped the way iommu_unmap()
 * does it.  Each case prints one "fp-count:" line; scripts/kunit-table.py
 * turns them into the README's table.
 */
#include <kunit/test.h>
#include <linux/sizes.h>
#include <linux/string.h>

#include "fp_counts.h"

#define C(p, r, sz, pg, v, rg, cx, sy, bl)				\
	{ .policy = p, .range = r, .size = sz, .pgsize = pg, .va = v,	\
	  .rng = rg, .ctx = cx, .syncs = sy, .b_lost = bl }

/* 4K unmapped from the middle of a 2 MiB block: io-pgtable splits it. */
#define S(p, r, v, rg, cx, bl)						\
	{ .policy = p, .range = r, .size = SZ_2M, .pgsize = SZ_2M,	\
	  .unmap = SZ_4K, .va = v, .rng = rg, .ctx = cx, .syncs = 1,	\
	  .b_lost = bl, .pages = 1 }

/*
 * 4K..1M unmap as leaves gathered page by page; 2M and up free one
 * last-level table per 2 MiB, each a walk flush (BRIEF s2), and gather the
 * table entry as a 2 MiB leaf, which the walk flush already covered.
 */
static const struct fpt_count_case fpt_count_cases[] = {
	/*
	 * va: upstream SMMUv2.  512 by-VA per freed table, sync each; then,
	 * as io-pgtable-arm 6.12 also gathers each freed table's entry, one
	 * leaf by-VA per 2 MiB and the gather's sync.
	 */
	C("va", false, SZ_4K,  SZ_4K,    1, 0, 0,  1, 0),
	C("va", false, SZ_64K, SZ_4K,   16, 0, 0,  1, 0),
	C("va", false, SZ_1M,  SZ_4K,  256, 0, 0,  1, 0),
	C("va", false, SZ_2M,  SZ_4K,  513, 0, 0,  2, 0),
	C("va", false, 12 * SZ_1M, SZ_4K, 3078, 0, 0,  7, 0),
	C("va", false, SZ_16M, SZ_4K, 4104, 0, 0,  9, 0),
	C("va", false, 24 * SZ_1M, SZ_4K, 6156, 0, 0, 13, 0),
	C("va", false, SZ_32M, SZ_4K, 8208, 0, 0, 17, 0),
	C("va", false, SZ_32M, SZ_2M,   16, 0, 0,  1, 0),
	/* range: one RIL command per power-of-two span. */
	C("range", true, SZ_4K,  SZ_4K, 0,  1, 0,  1, 0),
	C("range", true, SZ_64K, SZ_4K, 0,  1, 0,  1, 0),
	C("range", true, SZ_1M,  SZ_4K, 0,  1, 0,  1, 0),
	C("range", true, SZ_2M,  SZ_4K, 0,  1, 0,  1, 0),
	C("range", true, 12 * SZ_1M, SZ_4K, 0,  6, 0,  6, 0),
	C("range", true, SZ_16M, SZ_4K, 0,  8, 0,  8, 0),
	C("range", true, 24 * SZ_1M, SZ_4K, 0, 12, 0, 12, 0),
	C("range", true, SZ_32M, SZ_4K, 0, 16, 0, 16, 0),
	C("range", true, SZ_32M, SZ_2M, 0,  1, 0,  1, 0),
	/* asid: one context flush per freed table or non-empty gather. */
	C("asid", false, SZ_4K,  SZ_4K, 0, 0,  1,  1, 512),
	C("asid", false, SZ_64K, SZ_4K, 0, 0,  1,  1, 512),
	C("asid", false, SZ_1M,  SZ_4K, 0, 0,  1,  1, 512),
	C("asid", false, SZ_2M,  SZ_4K, 0, 0,  1,  1, 512),
	C("asid", false, 12 * SZ_1M, SZ_4K, 0, 0,  6,  6, 512),
	C("asid", false, SZ_16M, SZ_4K, 0, 0,  8,  8, 512),
	C("asid", false, 24 * SZ_1M, SZ_4K, 0, 0, 12, 12, 512),
	C("asid", false, SZ_32M, SZ_4K, 0, 0, 16, 16, 512),
	C("asid", false, SZ_32M, SZ_2M, 0, 0,  1,  1, 512),
	/* threshold 128, no range: by-VA up to 128 entries, context above. */
	C("threshold", false, SZ_4K,  SZ_4K,  1, 0,  0,  1, 0),
	C("threshold", false, SZ_64K, SZ_4K, 16, 0,  0,  1, 0),
	C("threshold", false, SZ_1M,  SZ_4K,  0, 0,  1,  1, 512),
	C("threshold", false, SZ_2M,  SZ_4K,  0, 0,  1,  1, 512),
	C("threshold", false, 12 * SZ_1M, SZ_4K,  0, 0,  6,  6, 512),
	C("threshold", false, SZ_16M, SZ_4K,  0, 0,  8,  8, 512),
	C("threshold", false, 24 * SZ_1M, SZ_4K,  0, 0, 12, 12, 512),
	C("threshold", false, SZ_32M, SZ_4K,  0, 0, 16, 16, 512),
	C("threshold", false, SZ_32M, SZ_2M, 16, 0,  0,  1, 0),
	/* threshold 128 with range: range commands below, context above. */
	C("threshold", true, SZ_4K,  SZ_4K, 0, 1,  0,  1, 0),
	C("threshold", true, SZ_64K, SZ_4K, 0, 1,  0,  1, 0),
	C("threshold", true, SZ_1M,  SZ_4K, 0, 0,  1,  1, 512),
	C("threshold", true, SZ_2M,  SZ_4K, 0, 0,  1,  1, 512),
	C("threshold", true, 12 * SZ_1M, SZ_4K, 0, 0,  6,  6, 512),
	C("threshold", true, SZ_16M, SZ_4K, 0, 0,  8,  8, 512),
	C("threshold", true, 24 * SZ_1M, SZ_4K, 0, 0, 12, 12, 512),
	C("threshold", true, SZ_32M, SZ_4K, 0, 0, 16, 16, 512),
	C("threshold", true, SZ_32M, SZ_2M, 0, 1,  0,  1, 0),
	/*
	 * adaptive, with the model's clock at the seed's costs (a command
	 * 126 ns, a sync 1728 ns, a walk 126 ns) and B's 512 entries the
	 * only other mapped ones: precise is worth up to 1 + 512 * 126 / 126
	 * = 513 commands, so every table (512) and gather here is precise,
	 * and B loses nothing.
	 */
	C("adaptive", false, SZ_4K,  SZ_4K,    1, 0, 0,  1, 0),
	C("adaptive", false, SZ_64K, SZ_4K,   16, 0, 0,  1, 0),
	C("adaptive", false, SZ_1M,  SZ_4K,  256, 0, 0,  1, 0),
	C("adaptive", false, SZ_2M,  SZ_4K,  512, 0, 0,  1, 0),
	C("adaptive", false, 12 * SZ_1M, SZ_4K, 3072, 0, 0,  6, 0),
	C("adaptive", false, SZ_16M, SZ_4K, 4096, 0, 0,  8, 0),
	C("adaptive", false, 24 * SZ_1M, SZ_4K, 6144, 0, 0, 12, 0),
	C("adaptive", false, SZ_32M, SZ_4K, 8192, 0, 0, 16, 0),
	C("adaptive", false, SZ_32M, SZ_2M,   16, 0, 0,  1, 0),
	/* With range: at most two range commands each, always precise. */
	C("adaptive", true, SZ_4K,  SZ_4K, 0,  1, 0,  1, 0),
	C("adaptive", true, SZ_64K, SZ_4K, 0,  1, 0,  1, 0),
	C("adaptive", true, SZ_1M,  SZ_4K, 0,  1, 0,  1, 0),
	C("adaptive", true, SZ_2M,  SZ_4K, 0,  1, 0,  1, 0),
	C("adaptive", true, SZ_32M, SZ_4K, 0, 16, 0, 16, 0),
	C("adaptive", true, SZ_32M, SZ_2M, 0,  1, 0,  1, 0),
	/*
	 * A block split: one 4K leaf gathered while the TLB holds the 2M
	 * block, which its command must drop too.
	 */
	S("va", false, 1, 0, 0, 0),
	S("range", true, 0, 1, 0, 0),
	S("asid", false, 0, 0, 1, 512),
	S("threshold", false, 1, 0, 0, 0),
	S("threshold", true, 0, 1, 0, 0),
	S("adaptive", false, 1, 0, 0, 0),
	S("adaptive", true, 0, 1, 0, 0),
	/* A 1 GiB block: one leaf, one command. */
	{ .policy = "va", .size = SZ_1G, .pgsize = SZ_1G, .va = 1,
	  .syncs = 1, .pages = 1 },
	{ .policy = "range", .range = true, .size = SZ_1G, .pgsize = SZ_1G,
	  .rng = 1, .syncs = 1, .pages = 1 },
	{ .policy = "asid", .size = SZ_1G, .pgsize = SZ_1G, .ctx = 1,
	  .syncs = 1, .b_lost = 512, .pages = 1 },
	{ .policy = "threshold", .size = SZ_1G, .pgsize = SZ_1G, .va = 1,
	  .syncs = 1, .pages = 1 },
	/*
	 * A 1 GiB table of 2M blocks: one walk flush of 1G, counted in 4K
	 * granules (262144 pages), then its entry gathered as a 1G leaf,
	 * which the walk covered.  va sends a by-VA per granule, as
	 * upstream's SMMUv2 would, and the gather's.
	 */
	{ .policy = "va", .size = SZ_1G, .pgsize = SZ_2M, .va = SZ_1G / SZ_4K + 1,
	  .syncs = 2, .pages = SZ_1G / SZ_4K },
	{ .policy = "range", .range = true, .size = SZ_1G, .pgsize = SZ_2M,
	  .rng = 1, .syncs = 1, .pages = SZ_1G / SZ_4K },
	{ .policy = "asid", .size = SZ_1G, .pgsize = SZ_2M, .ctx = 1,
	  .syncs = 1, .b_lost = 512, .pages = SZ_1G / SZ_4K },
	{ .policy = "threshold", .size = SZ_1G, .pgsize = SZ_2M, .ctx = 1,
	  .syncs = 1, .b_lost = 512, .pages = SZ_1G / SZ_4K },
	{ .policy = "threshold", .range = true, .size = SZ_1G, .pgsize = SZ_2M,
	  .ctx = 1, .syncs = 1, .b_lost = 512, .pages = SZ_1G / SZ_4K },
	/*
	 * adaptive: 262144 commands are not worth B's 512 entries; four
	 * range commands at most are.
	 */
	{ .policy = "adaptive", .size = SZ_1G, .pgsize = SZ_2M, .ctx = 1,
	  .syncs = 1, .b_lost = 512, .pages = SZ_1G / SZ_4K },
	{ .policy = "adaptive", .range = true, .size = SZ_1G, .pgsize = SZ_2M,
	  .rng = 1, .syncs = 1, .pages = SZ_1G / SZ_4K },
	{ .policy = "adaptive", .size = SZ_1G, .pgsize = SZ_1G, .va = 1,
	  .syncs = 1, .pages = 1 },
};

static void fpt_count_desc(const struct fpt_count_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s%s-%zuK-in-%zuK%s", c->policy,
		 c->range ? "-ril" : "", c->size / SZ_1K, c->pgsize / SZ_1K,
		 c->unmap ? "-split" : "");
}

KUNIT_ARRAY_PARAM(fpt_count, fpt_count_cases, fpt_count_desc);

/* For other backends' suites: the same cases, the same expectations. */
const void *fpt_count_params(const void *prev, char *desc)
{
	return fpt_count_gen_params(prev, desc);
}

/**
 * fpt_seed_warm() - map buffers A and B and warm every entry of both
 * @test: the test
 * @rig: the rig
 * @size: A's length
 * @pgsize: how A is mapped
 *
 * B then leaves the busy device's working set: it stands for a buffer
 * idle while A is unmapped, so that what the unmap costs it is measured,
 * not refilled.
 *
 * Return: B's cached leaf entries, all of its pages.
 */
unsigned long fpt_seed_warm(struct kunit *test, struct fpt_rig *rig,
			    size_t size, size_t pgsize)
{
	unsigned long b_before, pos;

	KUNIT_ASSERT_EQ(test, fpt_map(rig, FPT_IOVA_A, size, pgsize), 0);
	KUNIT_ASSERT_EQ(test, fpt_map(rig, FPT_IOVA_B, FPT_SIZE_B, SZ_4K), 0);
	/* Every entry of A: one access per page it is mapped in. */
	for (pos = FPT_IOVA_A; pos < FPT_IOVA_A + size; pos += pgsize)
		fpm_access(&rig->mc, pos);
	fpm_access_range(&rig->mc, FPT_IOVA_B, FPT_SIZE_B);
	fpm_forget(&rig->mc, FPT_IOVA_B, FPT_SIZE_B);
	b_before = fpm_cached_leaves(&rig->mc, FPT_IOVA_B, FPT_SIZE_B);
	KUNIT_ASSERT_EQ(test, b_before, FPT_SIZE_B / SZ_4K);
	return b_before;
}

/**
 * fpt_seed_check() - after A's unmap: nothing stale, A gone, B translates
 * @test: the test
 * @rig: the rig
 * @b_before: what fpt_seed_warm() returned
 *
 * Return: B's leaf entries the unmap threw away.
 */
unsigned long fpt_seed_check(struct kunit *test, struct fpt_rig *rig,
			     unsigned long b_before)
{
	return fpt_seed_check_at(test, rig, b_before, FPT_IOVA_A);
}

/* As fpt_seed_check(), for an unmap that began at @iova. */
unsigned long fpt_seed_check_at(struct kunit *test, struct fpt_rig *rig,
				unsigned long b_before, unsigned long iova)
{
	unsigned long b_lost;

	KUNIT_EXPECT_EQ(test, fpm_stale_entries(&rig->mc), 0);
	KUNIT_EXPECT_EQ(test, rig->mc.n.freed_refs, 0);
	b_lost = b_before - fpm_cached_leaves(&rig->mc, FPT_IOVA_B, FPT_SIZE_B);
	KUNIT_EXPECT_FALSE(test, fpm_access(&rig->mc, iova));
	KUNIT_EXPECT_TRUE(test, fpm_access(&rig->mc, FPT_IOVA_B));
	KUNIT_EXPECT_EQ(test, rig->mc.n.stale_hits, 0);
	return b_lost;
}

/**
 * fpt_count_run() - unmap one case's buffer and check what it cost
 * @test: the test
 * @c: the case
 * @be: the backend whose primitives run, or NULL for the model's own
 *
 * Prints one "fp-count:" line, tagged with the backend and "-ril" when it
 * has range invalidation: the README's table is the model's, make bench's
 * tables are every backend's.
 */
void fpt_count_run(struct kunit *test, const struct fpt_count_case *c,
		   const struct fpt_backend *be)
{
	struct fpt_rig_cfg rc = {
		.backend = be, .fmt = ARM_64_LPAE_S1, .has_range = c->range,
		.policy = c->policy,
	};
	struct fpt_rig *rig = kunit_kzalloc(test, sizeof(*rig), GFP_KERNEL);
	size_t len = c->unmap ?: c->size;
	unsigned long iova = FPT_IOVA_A + (c->unmap ? c->size / 2 : 0);
	struct fp_context *ctx;
	unsigned long b_before, b_lost;

	KUNIT_ASSERT_NOT_NULL(test, rig);
	/* Its choices follow the time measured: exact only on the model's. */
	if (be && !strcmp(c->policy, "adaptive"))
		kunit_skip(test, "adaptive: command counts on the model only");
	KUNIT_ASSERT_EQ(test, fpt_rig_init(test, rig, &rc, NULL, 1), 0);
	ctx = rig->ctx;

	b_before = fpt_seed_warm(test, rig, c->size, c->pgsize);
	fp_context_reset_stats(ctx);
	rig->smmu->cmds = 0;
	rig->smmu->syncs = 0;
	rig->mc.n.collateral = 0;

	KUNIT_ASSERT_EQ(test, fpt_unmap(rig, iova, len, false), len);

	KUNIT_EXPECT_EQ(test, fp_context_stat(ctx, FP_STAT_TLBI_VA), c->va);
	KUNIT_EXPECT_EQ(test, fp_context_stat(ctx, FP_STAT_TLBI_RANGE), c->rng);
	KUNIT_EXPECT_EQ(test, fp_context_stat(ctx, FP_STAT_TLBI_ASID), c->ctx);
	KUNIT_EXPECT_EQ(test, fp_context_stat(ctx, FP_STAT_TLBI_ALL), 0);
	KUNIT_EXPECT_EQ(test, fp_context_stat(ctx, FP_STAT_SYNCS), c->syncs);
	KUNIT_EXPECT_EQ(test, fp_context_stat(ctx, FP_STAT_UNMAPS), 1);
	KUNIT_EXPECT_EQ(test, fp_context_stat(ctx, FP_STAT_PAGES),
			c->pages ?: c->size / c->pgsize);

	/* The statistics are what the hardware model received. */
	KUNIT_EXPECT_EQ(test, rig->smmu->cmds, c->va + c->rng + c->ctx);
	KUNIT_EXPECT_EQ(test, rig->smmu->syncs, c->syncs);

	b_lost = fpt_seed_check_at(test, rig, b_before, iova);
	KUNIT_EXPECT_EQ(test, b_lost, c->b_lost);

	kunit_info(test,
		   "fp-count: backend=%s%s policy=%s size=%zu pgsize=%zu unmap=%zu walks=%lu leaves=%lu va=%llu range=%llu asid=%llu syncs=%llu collateral=%lu b_lost=%lu stale=%lu\n",
		   be ? be->name : "model",
		   fp_context_has_range(ctx) ? "-ril" : "", c->policy,
		   c->size, c->pgsize, len,
		   atomic_long_read(&rig->walks), atomic_long_read(&rig->add_pages),
		   fp_context_stat(ctx, FP_STAT_TLBI_VA),
		   fp_context_stat(ctx, FP_STAT_TLBI_RANGE),
		   fp_context_stat(ctx, FP_STAT_TLBI_ASID),
		   fp_context_stat(ctx, FP_STAT_SYNCS), rig->mc.n.collateral,
		   b_lost, fpm_stale_entries(&rig->mc));
}

static void unmap_counts_exact_and_nothing_stale(struct kunit *test)
{
	fpt_count_run(test, test->param_value, NULL);
}

/*
 * A 2 MiB block followed by 4 KiB pages: the gather's page size changes
 * mid-unmap, so the core must flush the block before gathering the pages.
 */
static void page_size_change_flushes_gather_first(struct kunit *test)
{
	struct fpt_rig_cfg rc = { .fmt = ARM_64_LPAE_S1, .policy = "va" };
	struct fpt_rig *rig = kunit_kzalloc(test, sizeof(*rig), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, rig);
	KUNIT_ASSERT_EQ(test, fpt_rig_init(test, rig, &rc, NULL, 1), 0);
	KUNIT_ASSERT_EQ(test, fpt_map(rig, FPT_IOVA_A, SZ_2M, SZ_2M), 0);
	KUNIT_ASSERT_EQ(test, fpt_map(rig, FPT_IOVA_A + SZ_2M, SZ_64K, SZ_4K),
			0);
	fpm_access_range(&rig->mc, FPT_IOVA_A, SZ_2M + SZ_64K);
	fp_context_reset_stats(rig->ctx);

	KUNIT_ASSERT_EQ(test, fpt_unmap(rig, FPT_IOVA_A, SZ_2M + SZ_64K, false),
			SZ_2M + SZ_64K);
	KUNIT_EXPECT_EQ(test, fp_context_stat(rig->ctx, FP_STAT_TLBI_VA), 17);
	KUNIT_EXPECT_EQ(test, fp_context_stat(rig->ctx, FP_STAT_SYNCS), 2);
	KUNIT_EXPECT_EQ(test, fp_context_stat(rig->ctx, FP_STAT_UNMAPS), 1);
	KUNIT_EXPECT_EQ(test, fpm_stale_entries(&rig->mc), 0);
}

static struct kunit_case fpt_count_test_cases[] = {
	KUNIT_CASE_PARAM(unmap_counts_exact_and_nothing_stale,
			 fpt_count_gen_params),
	KUNIT_CASE(page_size_change_flushes_gather_first),
	{}
};

static struct kunit_suite fpt_count_suite = {
	.name = "flushpol_counts",
	.test_cases = fpt_count_test_cases,
};

kunit_test_suite(fpt_count_suite);
