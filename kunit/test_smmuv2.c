// SPDX-License-Identifier: GPL-2.0-only
/*
 * flushpol_smmuv2: the SMMUv2 backend, created by its own init_context
 * function, against the fake register window (fp_smmuv2_fake.h) and the
 * real io-pgtable-arm: the values it writes, what the seed thread's unmaps
 * cost in MMIO writes, every stage, format and granule it supports, and a
 * TLB sync that never completes.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/ktime.h>
#include <linux/log2.h>
#include <linux/sizes.h>
#include <linux/string.h>

#include "fp_counts.h"
#include "fp_smmuv2_fake.h"

static struct fpt_rig *fpt_v2_rig(struct kunit *test, enum io_pgtable_fmt fmt,
				  unsigned long granule, const char *policy,
				  u16 id)
{
	struct fpt_rig_cfg rc = {
		.backend = &fpt_v2_backend, .fmt = fmt, .granule = granule,
		.policy = policy,
	};
	struct fpt_rig *rig = kunit_kzalloc(test, sizeof(*rig), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, rig);
	KUNIT_ASSERT_EQ(test, fpt_rig_init(test, rig, &rc, NULL, id), 0);
	return rig;
}

/* Writes to every register but @except... must be zero. */
static void fpt_v2_expect_only(struct kunit *test, struct fpt_v2_fake *fake,
			       unsigned long mask)
{
	int i;

	for (i = 0; i < FPT_V2_NR; i++)
		if (!(mask & BIT(i)))
			KUNIT_EXPECT_EQ_MSG(test, fake->n[i], 0, "register %d", i);
}

/* The values, written out from the architecture, not from the backend. */
static void tlbi_values_aarch64_stage1(struct kunit *test)
{
	struct fpt_rig *rig = fpt_v2_rig(test, ARM_64_LPAE_S1, SZ_4K, NULL, 5);
	struct fpt_v2_fake *fake = fpt_v2_fake_of(rig);

	fp_inv_va(rig->ctx, 0x40123000, SZ_4K, SZ_4K, false);
	KUNIT_EXPECT_EQ(test, fake->last[FPT_V2_TLBIVA], 0x0005000000040123ULL);
	KUNIT_EXPECT_TRUE(test, fake->last64[FPT_V2_TLBIVA]);
	fp_inv_va(rig->ctx, 0x40120000, SZ_64K, SZ_4K, true);
	KUNIT_EXPECT_EQ(test, fake->n[FPT_V2_TLBIVAL], 16);
	KUNIT_EXPECT_EQ(test, fake->last[FPT_V2_TLBIVAL], 0x000500000004012fULL);
	fp_inv_context(rig->ctx);
	KUNIT_EXPECT_EQ(test, fake->last[FPT_V2_TLBIASID], 5);
	KUNIT_EXPECT_FALSE(test, fake->last64[FPT_V2_TLBIASID]);
	KUNIT_EXPECT_EQ(test, fp_sync(rig->ctx), 0);
	KUNIT_EXPECT_EQ(test, fake->n[FPT_V2_TLBSYNC], 1);
	fpt_v2_expect_only(test, fake, BIT(FPT_V2_TLBIVA) | BIT(FPT_V2_TLBIVAL) |
			   BIT(FPT_V2_TLBIASID) | BIT(FPT_V2_TLBSYNC) |
			   BIT(FPT_V2_STATUS_READS));
}

static void tlbi_values_aarch64_64k_granule(struct kunit *test)
{
	struct fpt_rig *rig = fpt_v2_rig(test, ARM_64_LPAE_S1, SZ_64K, NULL,
					 0x1234);
	struct fpt_v2_fake *fake = fpt_v2_fake_of(rig);

	/* VA[55:12] whatever the granule: one write per 64K, step 16. */
	fp_inv_va(rig->ctx, 0x40000000, SZ_128K, SZ_64K, true);
	KUNIT_EXPECT_EQ(test, fake->n[FPT_V2_TLBIVAL], 2);
	KUNIT_EXPECT_EQ(test, fake->last[FPT_V2_TLBIVAL], 0x1234000000040010ULL);
	fp_inv_context(rig->ctx);
	KUNIT_EXPECT_EQ(test, fake->last[FPT_V2_TLBIASID], 0x1234);
}

static void tlbi_values_aarch32_stage1(struct kunit *test)
{
	struct fpt_rig *rig = fpt_v2_rig(test, ARM_32_LPAE_S1, SZ_4K, NULL, 5);
	struct fpt_v2_fake *fake = fpt_v2_fake_of(rig);

	fp_inv_va(rig->ctx, 0x40123000, SZ_4K, SZ_4K, false);
	KUNIT_EXPECT_EQ(test, fake->last[FPT_V2_TLBIVA], 0x40123005);
	KUNIT_EXPECT_FALSE(test, fake->last64[FPT_V2_TLBIVA]);
	fp_inv_va(rig->ctx, 0x40124000, SZ_4K, SZ_4K, true);
	KUNIT_EXPECT_EQ(test, fake->last[FPT_V2_TLBIVAL], 0x40124005);
	fp_inv_context(rig->ctx);
	KUNIT_EXPECT_EQ(test, fake->last[FPT_V2_TLBIASID], 5);
	KUNIT_EXPECT_EQ(test, fake->n[FPT_V2_BAD], 0);
}

/* An 8-bit ASID is all the AArch32 format has. */
static void aarch32_refuses_16bit_asid(struct kunit *test)
{
	struct fpt_rig_cfg rc = {
		.backend = &fpt_v2_backend, .fmt = ARM_32_LPAE_S1,
	};
	struct fpt_rig *rig = kunit_kzalloc(test, sizeof(*rig), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, rig);
	KUNIT_EXPECT_EQ(test, fpt_rig_init(test, rig, &rc, NULL, 256), -EINVAL);
}

static void tlbi_values_stage2(struct kunit *test)
{
	struct fpt_rig *rig = fpt_v2_rig(test, ARM_64_LPAE_S2, SZ_4K, NULL, 3);
	struct fpt_v2_fake *fake = fpt_v2_fake_of(rig);

	fp_inv_va(rig->ctx, 0x40123000, SZ_4K, SZ_4K, false);
	KUNIT_EXPECT_EQ(test, fake->last[FPT_V2_TLBIIPAS2], 0x40123);
	KUNIT_EXPECT_TRUE(test, fake->last64[FPT_V2_TLBIIPAS2]);
	fp_inv_va(rig->ctx, 0x40124000, SZ_4K, SZ_4K, true);
	KUNIT_EXPECT_EQ(test, fake->last[FPT_V2_TLBIIPAS2L], 0x40124);
	KUNIT_EXPECT_EQ(test, fp_sync(rig->ctx), 0);
	KUNIT_EXPECT_EQ(test, fake->n[FPT_V2_TLBGSYNC], 0);

	/* TLBIVMID is a GR0 command: it owes a global sync as well. */
	fp_inv_context(rig->ctx);
	KUNIT_EXPECT_EQ(test, fake->last[FPT_V2_TLBIVMID], 3);
	KUNIT_EXPECT_EQ(test, fp_sync(rig->ctx), 0);
	KUNIT_EXPECT_EQ(test, fake->n[FPT_V2_TLBGSYNC], 1);
	KUNIT_EXPECT_EQ(test, fake->n[FPT_V2_TLBSYNC], 2);
	fpt_v2_expect_only(test, fake, BIT(FPT_V2_TLBIIPAS2) |
			   BIT(FPT_V2_TLBIIPAS2L) | BIT(FPT_V2_TLBIVMID) |
			   BIT(FPT_V2_TLBSYNC) | BIT(FPT_V2_TLBGSYNC) |
			   BIT(FPT_V2_STATUS_READS));
	KUNIT_EXPECT_STREQ(test, rig->name, "smmuv2.0-vmid3");
}

static void plain_smmuv2_defaults_to_va(struct kunit *test)
{
	struct fpt_rig *rig = fpt_v2_rig(test, ARM_64_LPAE_S1, SZ_4K, NULL, 2);
	char buf[64];

	KUNIT_ASSERT_GT(test, fpt_ctx_read(rig, "policy", buf, sizeof(buf)), 0);
	KUNIT_EXPECT_STREQ(test, buf, "[va] asid threshold batch adaptive\n");
	KUNIT_ASSERT_GT(test, fpt_ctx_read(rig, "backend", buf, sizeof(buf)), 0);
	KUNIT_EXPECT_STREQ(test, buf, "smmuv2\n");
}

#define V(p, sz, pg, va, val, asid, sync, bl)				\
	{ .policy = p, .size = sz, .pgsize = pg, .tlbiva = va,		\
	  .tlbival = val, .tlbiasid = asid, .tlbsync = sync, .b_lost = bl }

/*
 * The seed thread's sizes.  va is upstream arm-smmu: per freed table 512
 * TLBIVAs and a sync, then a TLBIVAL for each table entry io-pgtable-arm
 * 6.12 also gathers (as flushpol_counts explains), and the final sync.
 */
static const struct fpt_v2_count_case fpt_v2_count_cases[] = {
	V("va", SZ_4K,  SZ_4K,     0,   1, 0,  1, 0),
	V("va", SZ_64K, SZ_4K,     0,  16, 0,  1, 0),
	V("va", SZ_1M,  SZ_4K,     0, 256, 0,  1, 0),
	V("va", SZ_2M,  SZ_4K,   512,   1, 0,  2, 0),
	V("va", 12 * SZ_1M, SZ_4K, 3072,  6, 0,  7, 0),
	V("va", SZ_16M, SZ_4K,  4096,   8, 0,  9, 0),
	V("va", 24 * SZ_1M, SZ_4K, 6144, 12, 0, 13, 0),
	V("va", SZ_32M, SZ_4K,  8192,  16, 0, 17, 0),
	V("va", SZ_32M, SZ_2M,     0,  16, 0,  1, 0),
	/* asid: one TLBIASID and sync per freed table or uncovered gather. */
	V("asid", SZ_4K,  SZ_4K, 0, 0,  1,  1, 512),
	V("asid", SZ_64K, SZ_4K, 0, 0,  1,  1, 512),
	V("asid", SZ_1M,  SZ_4K, 0, 0,  1,  1, 512),
	V("asid", SZ_2M,  SZ_4K, 0, 0,  1,  1, 512),
	V("asid", 12 * SZ_1M, SZ_4K, 0, 0,  6,  6, 512),
	V("asid", SZ_16M, SZ_4K, 0, 0,  8,  8, 512),
	V("asid", 24 * SZ_1M, SZ_4K, 0, 0, 12, 12, 512),
	V("asid", SZ_32M, SZ_4K, 0, 0, 16, 16, 512),
	V("asid", SZ_32M, SZ_2M, 0, 0,  1,  1, 512),
	/* threshold 128: TLBIVAL up to 128 entries, TLBIASID above. */
	V("threshold", SZ_4K,  SZ_4K, 0,  1,  0,  1, 0),
	V("threshold", SZ_64K, SZ_4K, 0, 16,  0,  1, 0),
	V("threshold", SZ_1M,  SZ_4K, 0,  0,  1,  1, 512),
	V("threshold", SZ_2M,  SZ_4K, 0,  0,  1,  1, 512),
	V("threshold", 12 * SZ_1M, SZ_4K, 0,  0,  6,  6, 512),
	V("threshold", SZ_16M, SZ_4K, 0,  0,  8,  8, 512),
	V("threshold", 24 * SZ_1M, SZ_4K, 0,  0, 12, 12, 512),
	V("threshold", SZ_32M, SZ_4K, 0,  0, 16, 16, 512),
	V("threshold", SZ_32M, SZ_2M, 0, 16,  0,  1, 0),
	/*
	 * adaptive, timing the fake at SM8150's costs (126 ns a TLBI, 1728
	 * a sync): a freed table's 511 extra TLBIVAs weigh less than
	 * refilling what is still live (the rest of the buffer, the other
	 * buffer's 512 entries) at 126 ns a walk, so it stays precise.
	 */
	V("adaptive", SZ_4K,  SZ_4K,   0,   1,  0,  1, 0),
	V("adaptive", SZ_64K, SZ_4K,   0,  16,  0,  1, 0),
	V("adaptive", SZ_1M,  SZ_4K,   0, 256,  0,  1, 0),
	V("adaptive", SZ_2M,  SZ_4K, 512,   0,  0,  1, 0),
	V("adaptive", 12 * SZ_1M, SZ_4K, 3072,   0,  0,  6, 0),
	V("adaptive", SZ_16M, SZ_4K, 4096,   0,  0,  8, 0),
	V("adaptive", 24 * SZ_1M, SZ_4K, 6144,   0,  0, 12, 0),
	V("adaptive", SZ_32M, SZ_4K, 8192,   0,  0, 16, 0),
	V("adaptive", SZ_32M, SZ_2M,   0,  16,  0,  1, 0),
};

static void fpt_v2_count_desc(const struct fpt_v2_count_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s-%zuK-in-%zuK",
		 c->policy ?: "default", c->size / SZ_1K, c->pgsize / SZ_1K);
}

KUNIT_ARRAY_PARAM(fpt_v2_count, fpt_v2_count_cases, fpt_v2_count_desc);

/* The policy in brackets in the context's sysfs "policy" file. */
static const char *fpt_v2_active_policy(struct fpt_rig *rig, char *buf,
					size_t size)
{
	char *start, *end;

	if (fpt_ctx_read(rig, "policy", buf, size) <= 0)
		return "?";
	start = strchr(buf, '[');
	end = start ? strchr(start, ']') : NULL;
	if (!end)
		return "?";
	*end = '\0';
	return start + 1;
}

/**
 * fpt_v2_count_run() - one seed-size unmap, counted in MMIO writes
 * @test: the test
 * @c: the case
 * @be: fpt_v2_backend or fpt_qcom_backend
 *
 * Buffer A (the case) and buffer B (2 MiB of 4 KiB pages) are mapped and
 * warmed, A is unmapped as iommu_unmap() does it.  The writes must be
 * exactly the case's, each completed by the sync after it, nothing stale,
 * no walk entry left on a freed table.  Prints one "fp-count:" line.
 */
void fpt_v2_count_run(struct kunit *test, const struct fpt_v2_count_case *c,
		      const struct fpt_backend *be)
{
	struct fpt_rig_cfg rc = {
		.backend = be, .fmt = ARM_64_LPAE_S1, .policy = c->policy,
	};
	struct fpt_rig *rig = kunit_kzalloc(test, sizeof(*rig), GFP_KERNEL);
	unsigned long b_before, b_lost, writes;
	struct fpt_v2_fake *fake;
	struct fp_context *ctx;
	char policy[64];

	KUNIT_ASSERT_NOT_NULL(test, rig);
	KUNIT_ASSERT_EQ(test, fpt_rig_init(test, rig, &rc, NULL, 1), 0);
	ctx = rig->ctx;
	fake = fpt_v2_fake_of(rig);

	b_before = fpt_seed_warm(test, rig, c->size, c->pgsize);
	fp_context_reset_stats(ctx);
	fpt_v2_fake_reset(fake);

	KUNIT_ASSERT_EQ(test, fpt_unmap(rig, FPT_IOVA_A, c->size, false),
			c->size);

	KUNIT_EXPECT_EQ(test, fake->n[FPT_V2_TLBIVA], c->tlbiva);
	KUNIT_EXPECT_EQ(test, fake->n[FPT_V2_TLBIVAL], c->tlbival);
	KUNIT_EXPECT_EQ(test, fake->n[FPT_V2_TLBIASID], c->tlbiasid);
	KUNIT_EXPECT_EQ(test, fake->n[FPT_V2_TLBSYNC], c->tlbsync);
	/* Each sync found its commands done at the first status read. */
	KUNIT_EXPECT_EQ(test, fake->n[FPT_V2_STATUS_READS], c->tlbsync);
	fpt_v2_expect_only(test, fake, BIT(FPT_V2_TLBIVA) | BIT(FPT_V2_TLBIVAL) |
			   BIT(FPT_V2_TLBIASID) | BIT(FPT_V2_TLBSYNC) |
			   BIT(FPT_V2_STATUS_READS));
	/* flushpol's statistics are the writes the hardware received. */
	KUNIT_EXPECT_EQ(test, fp_context_stat(ctx, FP_STAT_TLBI_VA),
			c->tlbiva + c->tlbival);
	KUNIT_EXPECT_EQ(test, fp_context_stat(ctx, FP_STAT_TLBI_ASID),
			c->tlbiasid);
	KUNIT_EXPECT_EQ(test, fp_context_stat(ctx, FP_STAT_SYNCS), c->tlbsync);

	b_lost = fpt_seed_check(test, rig, b_before);
	KUNIT_EXPECT_EQ(test, b_lost, c->b_lost);

	writes = fake->n[FPT_V2_TLBIVA] + fake->n[FPT_V2_TLBIVAL] +
		 fake->n[FPT_V2_TLBIASID] + fake->n[FPT_V2_TLBSYNC];
	kunit_info(test,
		   "fp-count: backend=%s policy=%s chosen=%s threshold=%u size=%zu pgsize=%zu walks=%lu leaves=%lu tlbiva=%lu tlbival=%lu tlbiasid=%lu tlbsync=%lu status_reads=%lu mmio_writes=%lu b_lost=%lu stale=%lu\n",
		   be->name, fpt_v2_active_policy(rig, policy, sizeof(policy)),
		   c->policy ? "set" : "default", fp_context_threshold(ctx),
		   c->size, c->pgsize,
		   atomic_long_read(&rig->walks),
		   atomic_long_read(&rig->add_pages), fake->n[FPT_V2_TLBIVA],
		   fake->n[FPT_V2_TLBIVAL], fake->n[FPT_V2_TLBIASID],
		   fake->n[FPT_V2_TLBSYNC], fake->n[FPT_V2_STATUS_READS], writes,
		   b_lost, fpm_stale_entries(&rig->mc));
}

static void unmap_mmio_writes_exact_and_nothing_stale(struct kunit *test)
{
	fpt_v2_count_run(test, test->param_value, &fpt_v2_backend);
}

/*
 * Every stage, format and granule: unmap one whole last-level table (a
 * walk flush) and 16 pages after it.  The table's entry is gathered as a
 * block leaf, then flushed on its own when the page size changes: asid and
 * threshold see it covered by the walk flush and send nothing for it, va
 * sends its leaf command as upstream does.
 */
struct fpt_v2_fmt_case {
	const char *name;
	enum io_pgtable_fmt fmt;
	unsigned long granule;
	const char *policy;
	unsigned int start_level;	/* where the model starts walking */
	/* Expected, in commands of the context's stage: */
	unsigned long walk_va, leaf_va, ctx, syncs;
};

#define F(n, f, g, p, sl, w, l, c, s)					\
	{ .name = n, .fmt = f, .granule = g, .policy = p,		\
	  .start_level = sl, .walk_va = w, .leaf_va = l, .ctx = c,	\
	  .syncs = s }

static const struct fpt_v2_fmt_case fpt_v2_fmt_cases[] = {
	F("s1-64-4k",  ARM_64_LPAE_S1, SZ_4K,  "va", 0, 512, 17, 0, 3),
	F("s1-64-4k",  ARM_64_LPAE_S1, SZ_4K,  "asid", 0, 0, 0, 2, 2),
	F("s1-64-4k",  ARM_64_LPAE_S1, SZ_4K,  "threshold", 0, 0, 16, 1, 2),
	F("s1-64-64k", ARM_64_LPAE_S1, SZ_64K, "va", 1, 8192, 17, 0, 3),
	F("s1-64-64k", ARM_64_LPAE_S1, SZ_64K, "asid", 1, 0, 0, 2, 2),
	F("s1-64-64k", ARM_64_LPAE_S1, SZ_64K, "threshold", 1, 0, 16, 1, 2),
	F("s1-32-4k",  ARM_32_LPAE_S1, SZ_4K,  "va", 1, 512, 17, 0, 3),
	F("s1-32-4k",  ARM_32_LPAE_S1, SZ_4K,  "asid", 1, 0, 0, 2, 2),
	F("s1-32-4k",  ARM_32_LPAE_S1, SZ_4K,  "threshold", 1, 0, 16, 1, 2),
	/* 40-bit IPA at 4K: two concatenated tables at level 1. */
	F("s2-64-4k",  ARM_64_LPAE_S2, SZ_4K,  "va", 1, 512, 17, 0, 3),
	F("s2-64-4k",  ARM_64_LPAE_S2, SZ_4K,  "asid", 1, 0, 0, 2, 2),
	F("s2-64-4k",  ARM_64_LPAE_S2, SZ_4K,  "threshold", 1, 0, 16, 1, 2),
	F("s2-64-64k", ARM_64_LPAE_S2, SZ_64K, "va", 2, 8192, 17, 0, 3),
	F("s2-64-64k", ARM_64_LPAE_S2, SZ_64K, "asid", 2, 0, 0, 2, 2),
	F("s2-64-64k", ARM_64_LPAE_S2, SZ_64K, "threshold", 2, 0, 16, 1, 2),
};

static void fpt_v2_fmt_desc(const struct fpt_v2_fmt_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s-%s", c->name, c->policy);
}

KUNIT_ARRAY_PARAM(fpt_v2_fmt, fpt_v2_fmt_cases, fpt_v2_fmt_desc);

static void fpt_v2_expect_fmt_writes(struct kunit *test,
				     const struct fpt_v2_fmt_case *c,
				     struct fpt_v2_fake *fake)
{
	bool s2 = c->fmt == ARM_64_LPAE_S2;

	KUNIT_EXPECT_EQ(test, fake->n[s2 ? FPT_V2_TLBIIPAS2 : FPT_V2_TLBIVA],
			c->walk_va);
	KUNIT_EXPECT_EQ(test, fake->n[s2 ? FPT_V2_TLBIIPAS2L : FPT_V2_TLBIVAL],
			c->leaf_va);
	KUNIT_EXPECT_EQ(test, fake->n[s2 ? FPT_V2_TLBIVMID : FPT_V2_TLBIASID],
			c->ctx);
	/* Every sync waits on the bank; a TLBIVMID on GR0 as well. */
	KUNIT_EXPECT_EQ(test, fake->n[FPT_V2_TLBSYNC], c->syncs);
	KUNIT_EXPECT_EQ(test, fake->n[FPT_V2_TLBGSYNC], s2 ? c->ctx : 0);
	if (s2)
		fpt_v2_expect_only(test, fake, BIT(FPT_V2_TLBIIPAS2) |
				   BIT(FPT_V2_TLBIIPAS2L) | BIT(FPT_V2_TLBIVMID) |
				   BIT(FPT_V2_TLBSYNC) | BIT(FPT_V2_TLBGSYNC) |
				   BIT(FPT_V2_STATUS_READS));
	else
		fpt_v2_expect_only(test, fake, BIT(FPT_V2_TLBIVA) |
				   BIT(FPT_V2_TLBIVAL) | BIT(FPT_V2_TLBIASID) |
				   BIT(FPT_V2_TLBSYNC) | BIT(FPT_V2_STATUS_READS));
}

/*
 * The walk flush of asid or threshold drops the pages after the table too,
 * before they are unmapped: have the device use them again once it is
 * done, so that their own invalidation is what gets them out.
 */
static void fpt_v2_rewarm_after_walk(struct fpt_rig *rig)
{
	const struct fpt_v2_fmt_case *c = rig->hook_data;
	size_t table = c->granule == SZ_4K ? SZ_2M : SZ_512M;

	if (atomic_long_read(&rig->add_pages) == 1)
		fpm_access_range(&rig->mc, FPT_IOVA_A + table, 16 * c->granule);
}

static const struct fpt_hooks fpt_v2_rewarm_hooks = {
	.before_add_page = fpt_v2_rewarm_after_walk,
};

static void every_format_exact_and_nothing_stale(struct kunit *test)
{
	const struct fpt_v2_fmt_case *c = test->param_value;
	struct fpt_rig *rig = fpt_v2_rig(test, c->fmt, c->granule, c->policy, 3);
	/* A last-level table covers 2 MiB at 4K, 512 MiB at 64K. */
	size_t table = c->granule == SZ_4K ? SZ_2M : SZ_512M;
	size_t size = table + 16 * c->granule;
	unsigned long b = FPT_IOVA_A + 2 * (unsigned long)SZ_512M;
	struct fpt_v2_fake *fake = fpt_v2_fake_of(rig);

	KUNIT_EXPECT_EQ(test, rig->mc.start_level, c->start_level);
	KUNIT_ASSERT_EQ(test, fpt_map(rig, FPT_IOVA_A, size, c->granule), 0);
	KUNIT_ASSERT_EQ(test, fpt_map(rig, b, 16 * c->granule, c->granule), 0);
	fpm_access_range(&rig->mc, FPT_IOVA_A, size);
	fpm_access_range(&rig->mc, b, 16 * c->granule);
	KUNIT_ASSERT_EQ(test, rig->mc.n.faults, 0);
	fpt_v2_fake_reset(fake);
	rig->hooks = &fpt_v2_rewarm_hooks;
	rig->hook_data = (void *)c;

	KUNIT_ASSERT_EQ(test, fpt_unmap(rig, FPT_IOVA_A, size, false), size);
	KUNIT_EXPECT_EQ(test, rig->mc.n.faults, 0);
	fpt_v2_expect_fmt_writes(test, c, fake);
	KUNIT_EXPECT_EQ(test, fpm_stale_entries(&rig->mc), 0);
	KUNIT_EXPECT_EQ(test, rig->mc.n.freed_refs, 0);
	KUNIT_EXPECT_FALSE(test, fpm_access(&rig->mc, FPT_IOVA_A));
	KUNIT_EXPECT_TRUE(test, fpm_access(&rig->mc, b));

	/* Remapped elsewhere, the device sees the new pages only. */
	rig->pa_offset = SZ_1G;
	KUNIT_ASSERT_EQ(test, fpt_map(rig, FPT_IOVA_A, size, c->granule), 0);
	fpm_access_range(&rig->mc, FPT_IOVA_A, size);
	KUNIT_EXPECT_EQ(test, rig->mc.n.stale_hits, 0);
}

/* A sync that needs more status reads than the spin: backs off, succeeds. */
static void sync_backs_off_then_completes(struct kunit *test)
{
	struct fpt_rig *rig = fpt_v2_rig(test, ARM_64_LPAE_S1, SZ_4K, "va", 1);
	struct fpt_v2_fake *fake = fpt_v2_fake_of(rig);

	KUNIT_ASSERT_EQ(test, fpt_map(rig, FPT_IOVA_A, SZ_64K, SZ_4K), 0);
	fpm_access_range(&rig->mc, FPT_IOVA_A, SZ_64K);
	fake->polls_to_complete = 40;
	fpt_v2_fake_reset(fake);

	fpt_unmap(rig, FPT_IOVA_A, SZ_64K, false);
	KUNIT_EXPECT_EQ(test, fake->n[FPT_V2_STATUS_READS], 41);
	KUNIT_EXPECT_EQ(test, fp_context_stat(rig->ctx, FP_STAT_SYNC_TIMEOUTS),
			0);
	KUNIT_EXPECT_EQ(test, fpm_stale_entries(&rig->mc), 0);
}

/*
 * A sync that never completes fails within its bound, having backed off
 * rather than spun, and the context works again once the SMMU does.
 */
static void sync_timeout_bounded_and_context_recovers(struct kunit *test)
{
	struct fpt_rig *rig = fpt_v2_rig(test, ARM_64_LPAE_S1, SZ_4K, "va", 1);
	struct fpt_v2_fake *fake = fpt_v2_fake_of(rig);
	const unsigned int bound_us = 20000;
	s64 took_us, bound_took_us;
	unsigned int i;
	ktime_t t0;

	KUNIT_ASSERT_EQ(test, fpt_map(rig, FPT_IOVA_A, SZ_64K, SZ_4K), 0);
	fpm_access_range(&rig->mc, FPT_IOVA_A, SZ_64K);
	fake->smmu->cfg.sync_timeout_us = bound_us;
	rig->smmu->sync_stuck = true;
	fpt_v2_fake_reset(fake);

	/*
	 * UML's udelay() is only as good as its boot-time calibration: what
	 * the bound takes here is measured, with the busy-wait the backend
	 * uses, not assumed.
	 */
	t0 = ktime_get();
	for (i = 0; i < 20; i++)
		udelay(bound_us / 20);
	bound_took_us = ktime_us_delta(ktime_get(), t0);

	t0 = ktime_get();
	KUNIT_EXPECT_EQ(test, fp_sync(rig->ctx), -ETIMEDOUT);
	took_us = ktime_us_delta(ktime_get(), t0);
	/*
	 * Wall time is reported, not asserted: on a loaded host (or under
	 * TCG) a preempted busy-wait says nothing about the backend.  The
	 * status reads below are exact: 10 per back-off step, and the steps
	 * double until their udelay()s add up to the bound.
	 */
	kunit_info(test, "sync gave up after %lld us (udelay(%u) takes %lld us here), %lu status reads\n",
		   took_us, bound_us, bound_took_us,
		   fake->n[FPT_V2_STATUS_READS]);
	/* Backed off: more reads than one spin, fewer than a busy loop. */
	KUNIT_EXPECT_GT(test, fake->n[FPT_V2_STATUS_READS], 10);
	KUNIT_EXPECT_LE(test, fake->n[FPT_V2_STATUS_READS],
			10 * (2 + ilog2(bound_us)));
	KUNIT_EXPECT_EQ(test, fp_context_stat(rig->ctx, FP_STAT_SYNC_TIMEOUTS),
			1);

	/* An unmap on the wedged SMMU reports it too. */
	fpt_unmap(rig, FPT_IOVA_A, SZ_4K, false);
	KUNIT_EXPECT_EQ(test, fp_context_stat(rig->ctx, FP_STAT_SYNC_TIMEOUTS),
			2);
	KUNIT_EXPECT_GT(test, fpm_stale_entries(&rig->mc), 0);

	rig->smmu->sync_stuck = false;
	fpt_unmap(rig, FPT_IOVA_A + SZ_4K, SZ_4K, false);
	KUNIT_EXPECT_EQ(test, fp_context_stat(rig->ctx, FP_STAT_SYNC_TIMEOUTS),
			2);
	KUNIT_EXPECT_EQ(test, fpm_stale_entries(&rig->mc), 0);
	KUNIT_EXPECT_TRUE(test, fpm_access(&rig->mc, FPT_IOVA_A + SZ_8K));
}

/* A TLBIVMID whose global sync timed out is synced again next time. */
static void global_sync_retried_after_timeout(struct kunit *test)
{
	struct fpt_rig *rig = fpt_v2_rig(test, ARM_64_LPAE_S2, SZ_4K, "asid",
					 3);
	struct fpt_v2_fake *fake = fpt_v2_fake_of(rig);

	KUNIT_ASSERT_EQ(test, fpt_map(rig, FPT_IOVA_A, SZ_64K, SZ_4K), 0);
	fpm_access_range(&rig->mc, FPT_IOVA_A, SZ_64K);
	fake->smmu->cfg.sync_timeout_us = 1000;
	rig->smmu->sync_stuck = true;
	fpt_unmap(rig, FPT_IOVA_A, SZ_64K, false);
	KUNIT_EXPECT_EQ(test, fake->n[FPT_V2_TLBIVMID], 1);
	KUNIT_EXPECT_GT(test, fpm_stale_entries(&rig->mc), 0);

	rig->smmu->sync_stuck = false;
	fpt_v2_fake_reset(fake);
	KUNIT_EXPECT_EQ(test, fp_sync(rig->ctx), 0);
	KUNIT_EXPECT_EQ(test, fake->n[FPT_V2_TLBGSYNC], 1);
	KUNIT_EXPECT_EQ(test, fpm_stale_entries(&rig->mc), 0);
	/* Owed once: the sync after that is the bank's alone. */
	KUNIT_EXPECT_EQ(test, fp_sync(rig->ctx), 0);
	KUNIT_EXPECT_EQ(test, fake->n[FPT_V2_TLBGSYNC], 1);
}

static struct kunit_case fpt_smmuv2_test_cases[] = {
	KUNIT_CASE(tlbi_values_aarch64_stage1),
	KUNIT_CASE(tlbi_values_aarch64_64k_granule),
	KUNIT_CASE(tlbi_values_aarch32_stage1),
	KUNIT_CASE(aarch32_refuses_16bit_asid),
	KUNIT_CASE(tlbi_values_stage2),
	KUNIT_CASE(plain_smmuv2_defaults_to_va),
	KUNIT_CASE_PARAM(unmap_mmio_writes_exact_and_nothing_stale,
			 fpt_v2_count_gen_params),
	KUNIT_CASE_PARAM(every_format_exact_and_nothing_stale,
			 fpt_v2_fmt_gen_params),
	KUNIT_CASE(sync_backs_off_then_completes),
	KUNIT_CASE(sync_timeout_bounded_and_context_recovers),
	KUNIT_CASE(global_sync_retried_after_timeout),
	{}
};

static struct kunit_suite fpt_smmuv2_suite = {
	.name = "flushpol_smmuv2",
	.test_cases = fpt_smmuv2_test_cases,
};

kunit_test_suite(fpt_smmuv2_suite);
