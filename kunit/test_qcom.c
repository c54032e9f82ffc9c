// SPDX-License-Identifier: GPL-2.0-only
/*
 * flushpol_qcom: the Qualcomm backend chooses threshold at 128 entries by
 * itself, sysfs switches it like any context, the seed sizes cost what
 * upstream's flush_walk_prefer_tlbiasid costs for walks, and a sync that
 * times out dumps the registers that explain it.
 */
#include <kunit/test.h>
#include <linux/sizes.h>

#include "fp_smmuv2_fake.h"

#define FPT_IOVA	SZ_1G

static struct fpt_rig *fpt_qcom_rig(struct kunit *test)
{
	struct fpt_rig_cfg rc = {
		.backend = &fpt_qcom_backend, .fmt = ARM_64_LPAE_S1,
	};
	struct fpt_rig *rig = kunit_kzalloc(test, sizeof(*rig), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, rig);
	KUNIT_ASSERT_EQ(test, fpt_rig_init(test, rig, &rc, NULL, 4), 0);
	return rig;
}

static void fpt_expect_attr(struct kunit *test, struct fpt_rig *rig,
			    const char *attr, const char *want)
{
	char buf[64];

	KUNIT_ASSERT_GT(test, fpt_ctx_read(rig, attr, buf, sizeof(buf)), 0);
	KUNIT_EXPECT_STREQ(test, buf, want);
}

static void picks_threshold_128_by_itself(struct kunit *test)
{
	struct fpt_rig *rig = fpt_qcom_rig(test);

	KUNIT_EXPECT_STREQ(test, rig->name, "qcom.0-asid4");
	fpt_expect_attr(test, rig, "backend", "qcom\n");
	fpt_expect_attr(test, rig, "policy", "va asid [threshold] batch adaptive\n");
	fpt_expect_attr(test, rig, "threshold", "128\n");
	KUNIT_EXPECT_EQ(test, fp_context_threshold(rig->ctx), 128);
}

/* Unmap 64K of 4K pages and say what it cost. */
static void fpt_qcom_unmap_64k(struct kunit *test, struct fpt_rig *rig,
			       unsigned long tlbival, unsigned long tlbiasid)
{
	struct fpt_v2_fake *fake = fpt_v2_fake_of(rig);

	KUNIT_ASSERT_EQ(test, fpt_map(rig, FPT_IOVA, SZ_64K, SZ_4K), 0);
	fpm_access_range(&rig->mc, FPT_IOVA, SZ_64K);
	fpt_v2_fake_reset(fake);
	KUNIT_ASSERT_EQ(test, fpt_unmap(rig, FPT_IOVA, SZ_64K, false), SZ_64K);
	KUNIT_EXPECT_EQ(test, fake->n[FPT_V2_TLBIVAL], tlbival);
	KUNIT_EXPECT_EQ(test, fake->n[FPT_V2_TLBIASID], tlbiasid);
	KUNIT_EXPECT_EQ(test, fake->n[FPT_V2_TLBSYNC], 1);
	KUNIT_EXPECT_EQ(test, fpm_stale_entries(&rig->mc), 0);
}

static void sysfs_switches_policy_and_threshold(struct kunit *test)
{
	struct fpt_rig *rig = fpt_qcom_rig(test);

	/* 16 entries, under 128: precise. */
	fpt_qcom_unmap_64k(test, rig, 16, 0);

	KUNIT_EXPECT_EQ(test, fpt_ctx_write(rig, "threshold", "8\n", 2), 2);
	fpt_qcom_unmap_64k(test, rig, 0, 1);

	KUNIT_EXPECT_EQ(test, fpt_ctx_write(rig, "policy", "va\n", 3), 3);
	fpt_expect_attr(test, rig, "policy", "[va] asid threshold batch adaptive\n");
	fpt_qcom_unmap_64k(test, rig, 16, 0);

	KUNIT_EXPECT_EQ(test, fpt_ctx_write(rig, "policy", "asid\n", 5), 5);
	fpt_qcom_unmap_64k(test, rig, 0, 1);

	/* No range hardware on SMMUv2: refused, nothing changes. */
	KUNIT_EXPECT_EQ(test, fpt_ctx_write(rig, "policy", "range\n", 6),
			-EOPNOTSUPP);
	fpt_expect_attr(test, rig, "policy", "va [asid] threshold batch adaptive\n");
}

#define Q(sz, pg, val, asid, sync, bl)					\
	{ .size = sz, .pgsize = pg, .tlbival = val, .tlbiasid = asid,	\
	  .tlbsync = sync, .b_lost = bl }

#define QA(sz, pg, va, val, asid, sync, bl)				\
	{ .policy = "adaptive", .size = sz, .pgsize = pg, .tlbiva = va,	\
	  .tlbival = val, .tlbiasid = asid, .tlbsync = sync, .b_lost = bl }

/* The seed sizes with nothing chosen: Qualcomm's threshold at 128. */
static const struct fpt_v2_count_case fpt_qcom_count_cases[] = {
	Q(SZ_4K,  SZ_4K,  1,  0,  1, 0),
	Q(SZ_64K, SZ_4K, 16,  0,  1, 0),
	Q(SZ_1M,  SZ_4K,  0,  1,  1, 512),
	Q(SZ_2M,  SZ_4K,  0,  1,  1, 512),
	Q(12 * SZ_1M, SZ_4K, 0,  6,  6, 512),
	Q(SZ_16M, SZ_4K,  0,  8,  8, 512),
	Q(24 * SZ_1M, SZ_4K, 0, 12, 12, 512),
	Q(SZ_32M, SZ_4K,  0, 16, 16, 512),
	Q(SZ_32M, SZ_2M, 16,  0,  1, 0),
	/* adaptive chosen, with Qualcomm's priors: */
	QA(SZ_4K,  SZ_4K,   0,   1,  0,  1, 0),
	QA(SZ_64K, SZ_4K,   0,  16,  0,  1, 0),
	QA(SZ_1M,  SZ_4K,   0, 256,  0,  1, 0),
	QA(SZ_2M,  SZ_4K, 512,   0,  0,  1, 0),
	QA(12 * SZ_1M, SZ_4K, 3072,   0,  0,  6, 0),
	QA(SZ_16M, SZ_4K, 4096,   0,  0,  8, 0),
	QA(24 * SZ_1M, SZ_4K, 6144,   0,  0, 12, 0),
	QA(SZ_32M, SZ_4K, 8192,   0,  0, 16, 0),
	QA(SZ_32M, SZ_2M,   0,  16,  0,  1, 0),
};

static void fpt_qcom_count_desc(const struct fpt_v2_count_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s-%zuK-in-%zuK",
		 c->policy ?: "default", c->size / SZ_1K, c->pgsize / SZ_1K);
}

KUNIT_ARRAY_PARAM(fpt_qcom_count, fpt_qcom_count_cases, fpt_qcom_count_desc);

static void unmap_mmio_writes_exact_and_nothing_stale(struct kunit *test)
{
	fpt_v2_count_run(test, test->param_value, &fpt_qcom_backend);
}

/*
 * A bank stalled on a fault holds its syncs back: the dump must show the
 * sync still active and the stall, from the bank's and GR0's registers.
 */
static void sync_timeout_dumps_registers(struct kunit *test)
{
	struct fpt_rig *rig = fpt_qcom_rig(test);
	struct fpt_v2_fake *fake = fpt_v2_fake_of(rig);
	unsigned int page = FPT_V2_NUMPAGE + 4;

	fake->cb[4].fsr = BIT(30);	/* SS */
	fake->cb[4].sctlr = BIT(7);	/* CFCFG: stall */
	fake->cb[4].far = FPT_IOVA;
	fake->smmu->cfg.sync_timeout_us = 1000;
	rig->smmu->sync_stuck = true;

	KUNIT_EXPECT_EQ(test, fp_sync(rig->ctx), -ETIMEDOUT);
	KUNIT_EXPECT_TRUE(test, fpt_v2_fake_was_read(fake, page, 0x58));
	KUNIT_EXPECT_TRUE(test, fpt_v2_fake_was_read(fake, page, 0x0));
	KUNIT_EXPECT_TRUE(test, fpt_v2_fake_was_read(fake, page, 0x60));
	KUNIT_EXPECT_TRUE(test, fpt_v2_fake_was_read(fake, page, 0x68));
	KUNIT_EXPECT_TRUE(test, fpt_v2_fake_was_read(fake, 0, 0x74));
	KUNIT_EXPECT_TRUE(test, fpt_v2_fake_was_read(fake, 0, 0x48));
	KUNIT_EXPECT_EQ(test, fake->n[FPT_V2_BAD], 0);

	/* Recovered, the context flushes again. */
	rig->smmu->sync_stuck = false;
	KUNIT_EXPECT_EQ(test, fp_flush_context(rig->ctx), 0);
}

/* Plain SMMUv2 has no such dump: the reads above are Qualcomm's. */
static void plain_smmuv2_timeout_reads_only_status(struct kunit *test)
{
	struct fpt_rig_cfg rc = {
		.backend = &fpt_v2_backend, .fmt = ARM_64_LPAE_S1,
	};
	struct fpt_rig *rig = kunit_kzalloc(test, sizeof(*rig), GFP_KERNEL);
	struct fpt_v2_fake *fake;

	KUNIT_ASSERT_NOT_NULL(test, rig);
	KUNIT_ASSERT_EQ(test, fpt_rig_init(test, rig, &rc, NULL, 4), 0);
	fake = fpt_v2_fake_of(rig);
	fake->smmu->cfg.sync_timeout_us = 1000;
	rig->smmu->sync_stuck = true;
	KUNIT_EXPECT_EQ(test, fp_sync(rig->ctx), -ETIMEDOUT);
	KUNIT_EXPECT_FALSE(test, fpt_v2_fake_was_read(fake,
						      FPT_V2_NUMPAGE + 4, 0x58));
	KUNIT_EXPECT_FALSE(test, fpt_v2_fake_was_read(fake, 0, 0x74));
}

static struct kunit_case fpt_qcom_test_cases[] = {
	KUNIT_CASE(picks_threshold_128_by_itself),
	KUNIT_CASE(sysfs_switches_policy_and_threshold),
	KUNIT_CASE_PARAM(unmap_mmio_writes_exact_and_nothing_stale,
			 fpt_qcom_count_gen_params),
	KUNIT_CASE(sync_timeout_dumps_registers),
	KUNIT_CASE(plain_smmuv2_timeout_reads_only_status),
	{}
};

static struct kunit_suite fpt_qcom_suite = {
	.name = "flushpol_qcom",
	.test_cases = fpt_qcom_test_cases,
};

kunit_test_suite(fpt_qcom_suite);
