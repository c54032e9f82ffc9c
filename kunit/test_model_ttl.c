// SPDX-License-Identifier: GPL-2.0-only
/*
 * flushpol_model_ttl: the model honours what SMMUv3 range commands say and
 * no more, and the shipped SMMUv3 primitives say enough.
 *
 * A CMD_TLBI_NH_VA with a nonzero TTL names the level of the leaves to
 * remove; an entry of another level need not go (IHI 0070, "Address-based
 * invalidations").  Unmapping 4K out of a 2 MiB block gathers a 4K leaf
 * while the TLB holds the 2M block entry, so a TTL taken from the
 * gather's granule lets the block survive.
 */
#include <kunit/test.h>
#include <linux/sizes.h>

#include "fp_rig.h"

/* A decoder of the fields that matter here, in front of the model. */
struct fpt_ttl_queue {
	struct fpt_rig *rig;
	bool ttl_from_granule;	/* the old flush.c, as a mutant */
	unsigned long range, ttl_set;
};

static void fpt_ttl_submit(void *q, const u64 *cmds, unsigned int n)
{
	struct fpt_ttl_queue *tq = q;

	for (; n--; cmds += CMD_DWORDS) {
		struct fpm_cmd m = { .asid = cmds[0] >> 48,
				     .leaf = cmds[1] & 1 };
		unsigned int op = cmds[0] & 0xff, tg = (cmds[1] >> 10) & 3;
		unsigned int num = (cmds[0] >> 12) & 0x1f;
		unsigned int scale = (cmds[0] >> 20) & 0x1f;

		m.ttl = (cmds[1] >> 8) & 3;
		if (tq->ttl_from_granule && tg && m.leaf)
			m.ttl = 3;	/* 4K leaves at level 3 */
		switch (op) {
		case 0x12:	/* CMD_TLBI_NH_VA */
			m.addr = cmds[1] & ~0xfffULL;
			m.kind = tg ? FPM_CMD_RANGE : FPM_CMD_VA;
			if (tg) {
				m.size = (u64)(num + 1) <<
					 (scale + 10 + 2 * tg);
				tq->range++;
			}
			tq->ttl_set += !!m.ttl;
			break;
		case 0x11:	/* CMD_TLBI_NH_ASID */
			m.kind = FPM_CMD_ASID;
			break;
		default:	/* CMD_TLBI_NH_ALL */
			m.kind = FPM_CMD_NH_ALL;
			break;
		}
		fpm_issue(tq->rig->smmu, &m);
	}
}

static int fpt_ttl_sync(void *q)
{
	struct fpt_ttl_queue *tq = q;

	return fpm_sync(tq->rig->smmu);
}

static const struct smmuv3_cmdq_ops fpt_ttl_cmdq = {
	.submit = fpt_ttl_submit,
	.sync = fpt_ttl_sync,
};

static void fpt_ttl_setup(struct fpt_rig *rig)
{
	struct fpt_ttl_queue *tq = kunit_kzalloc(rig->test, sizeof(*tq),
						 GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(rig->test, tq);
	tq->rig = rig;
	rig->backend.v3 = (struct smmuv3_flush) {
		.cmdq = &fpt_ttl_cmdq, .q = tq, .asid = rig->mc.asid,
		.tg = 12, .ril = true,
	};
}

const struct fpt_backend fpt_ttl_v3 = {
	.name = "smmuv3", .ops = &smmuv3_hw_ops_ril,
	.setup = fpt_ttl_setup, .default_policy = "range",
};

/**
 * fpt_block_split_stale() - unmap 4K out of a warm 2 MiB block
 * @test: the test
 * @mutant: decode range commands as the old flush.c encoded them
 * @legacy: on the model as it was before it honoured TTL
 *
 * Return: stale entries left after the unmap's sync.
 */
unsigned long fpt_block_split_stale(struct kunit *test, bool mutant,
				    bool legacy)
{
	struct fpt_rig_cfg rc = { .backend = &fpt_ttl_v3,
				  .fmt = ARM_64_LPAE_S1, .has_range = true,
				  .policy = "range" };
	struct fpt_rig *rig = kunit_kzalloc(test, sizeof(*rig), GFP_KERNEL);
	struct fpt_ttl_queue *tq;
	unsigned long stale;

	KUNIT_ASSERT_NOT_NULL(test, rig);
	KUNIT_ASSERT_EQ(test, fpt_rig_init(test, rig, &rc, NULL, 1), 0);
	tq = rig->backend.v3.q;
	tq->ttl_from_granule = mutant;
	rig->smmu->legacy = legacy;
	KUNIT_ASSERT_EQ(test, fpt_map(rig, SZ_1G, SZ_2M, SZ_2M), 0);
	fpm_access_range(&rig->mc, SZ_1G, SZ_2M);
	KUNIT_ASSERT_EQ(test, fpt_unmap(rig, SZ_1G + SZ_1M, SZ_4K, false),
			SZ_4K);
	KUNIT_EXPECT_EQ(test, tq->range, 1);
	stale = fpm_stale_entries(&rig->mc);
	fpt_rig_release(rig);
	return stale;
}

/*
 * Seen failing before flush.c sent TTL=0: the range command said TTL=3
 * and the 2M block entry of the split block stayed cached (1 stale).
 */
static void block_split_leaves_nothing_stale(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, fpt_block_split_stale(test, false, false), 0);
}

/* The model: TTL=3 keeps a level-2 entry, TTL=2 and TTL=0 drop it. */
static void ttl_names_the_level_dropped(struct kunit *test)
{
	static const u8 ttls[] = { 3, 2, 0 };
	static const unsigned long left[] = { 1, 0, 0 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ttls); i++) {
		struct fpt_rig_cfg rc = { .fmt = ARM_64_LPAE_S1 };
		struct fpt_rig *rig = kunit_kzalloc(test, sizeof(*rig),
						    GFP_KERNEL);
		struct fpm_cmd cmd = { .kind = FPM_CMD_RANGE, .leaf = true,
				       .asid = 1, .addr = SZ_1G,
				       .size = SZ_4K, .ttl = ttls[i] };

		KUNIT_ASSERT_NOT_NULL(test, rig);
		KUNIT_ASSERT_EQ(test, fpt_rig_init(test, rig, &rc, NULL, 1), 0);
		KUNIT_ASSERT_EQ(test, fpt_map(rig, SZ_1G, SZ_2M, SZ_2M), 0);
		fpm_access(&rig->mc, SZ_1G);
		rig->mc.busy = false;
		fpm_issue(rig->smmu, &cmd);
		KUNIT_ASSERT_EQ(test, fpm_sync(rig->smmu), 0);
		KUNIT_EXPECT_EQ_MSG(test, fpm_cached_leaves(&rig->mc, SZ_1G,
							    SZ_2M),
				    left[i], "TTL=%u", ttls[i]);
		fpt_rig_release(rig);
	}
}

/* CMD_TLBI_NH_ALL reaches stage 1 of its VMID, nothing else. */
static void nh_all_reaches_one_vmid_stage1(struct kunit *test)
{
	struct fpm_smmu *smmu = fpt_shared_smmu(test);
	struct fpt_rig *r[3];
	struct fpm_cmd cmd = { .kind = FPM_CMD_NH_ALL, .vmid = 0 };
	unsigned int i;

	for (i = 0; i < 3; i++) {
		struct fpt_rig_cfg rc = { .fmt = ARM_64_LPAE_S1 };

		r[i] = kunit_kzalloc(test, sizeof(*r[i]), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, r[i]);
		KUNIT_ASSERT_EQ(test, fpt_rig_init(test, r[i], &rc, smmu,
						   i + 1), 0);
	}
	/* Rig 2 in another VMID. */
	r[2]->mc.vmid = 9;
	for (i = 0; i < 3; i++) {
		KUNIT_ASSERT_EQ(test, fpt_map(r[i], SZ_1G, SZ_64K, SZ_4K), 0);
		fpm_access_range(&r[i]->mc, SZ_1G, SZ_64K);
		r[i]->mc.busy = false;
	}
	fpm_issue(smmu, &cmd);
	KUNIT_ASSERT_EQ(test, fpm_sync(smmu), 0);
	KUNIT_EXPECT_EQ(test, fpm_cached_leaves(&r[0]->mc, SZ_1G, SZ_64K), 0);
	KUNIT_EXPECT_EQ(test, fpm_cached_leaves(&r[1]->mc, SZ_1G, SZ_64K), 0);
	KUNIT_EXPECT_EQ(test, fpm_cached_leaves(&r[2]->mc, SZ_1G, SZ_64K), 16);
	/* Its own tlb_flush_all, with the rig's VMID, empties it at exit. */
	for (i = 0; i < 3; i++)
		r[i]->mc.busy = true;
}

/*
 * A context is destroyed, one with the same ASID made, the same IOVA
 * mapped to other pages: the device must see the new pages.
 */
static void asid_reuse_sees_new_pages(struct kunit *test)
{
	struct fpm_smmu *smmu = fpt_shared_smmu(test);
	struct fpt_rig_cfg rc = { .fmt = ARM_64_LPAE_S1, .policy = "asid" };
	struct fpt_rig *a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	struct fpt_rig *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_ASSERT_EQ(test, fpt_rig_init(test, a, &rc, smmu, 5), 0);
	KUNIT_ASSERT_EQ(test, fpt_map(a, SZ_1G, SZ_2M, SZ_4K), 0);
	fpm_access_range(&a->mc, SZ_1G, SZ_2M);
	fpt_rig_release(a);
	KUNIT_EXPECT_EQ(test, a->exit_left, 0);
	KUNIT_EXPECT_EQ(test, fpm_ghost_entries(smmu), 0);

	KUNIT_ASSERT_EQ(test, fpt_rig_init(test, b, &rc, smmu, 5), 0);
	b->pa_offset = SZ_1G;
	KUNIT_ASSERT_EQ(test, fpt_map(b, SZ_1G, SZ_2M, SZ_4K), 0);
	KUNIT_EXPECT_TRUE(test, fpm_access(&b->mc, SZ_1G));
	KUNIT_EXPECT_TRUE(test, fpm_access(&b->mc, SZ_1G + SZ_2M - SZ_4K));
	KUNIT_EXPECT_EQ(test, b->mc.n.stale_hits, 0);
}

static struct kunit_case fpt_model_ttl_cases[] = {
	KUNIT_CASE(ttl_names_the_level_dropped),
	KUNIT_CASE(block_split_leaves_nothing_stale),
	KUNIT_CASE(nh_all_reaches_one_vmid_stage1),
	KUNIT_CASE(asid_reuse_sees_new_pages),
	{}
};

static struct kunit_suite fpt_model_ttl_suite = {
	.name = "flushpol_model_ttl",
	.test_cases = fpt_model_ttl_cases,
};

kunit_test_suite(fpt_model_ttl_suite);
