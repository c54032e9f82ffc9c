// SPDX-License-Identifier: GPL-2.0-only
/*
 * flushpol_smmuv3: the shipped SMMUv3 primitives and command queue, their
 * commands read from the ring by a fake SMMU, decoded field by field as the
 * architecture lays them out (IHI 0070, CMD_TLBI_*) and applied to the TLB
 * model up to each CMD_SYNC consumed.  A command with a field in the wrong place
 * invalidates the wrong thing, and the model then reports it stale.
 */
#include <kunit/test.h>
#include <linux/sizes.h>
#include <linux/string.h>

#include "fp_counts.h"
#include "fp_smmuv3_fake.h"

/*
 * The primitives' queue is the shipped one (cmdq.c) in front of a fake
 * SMMU whose consumer lags, three commands per poll, and applies what it
 * consumes to the model.  256 entries: the large cases wrap the ring many
 * times and publish at every half queue.
 */
#define FPT_V3_SHIFT	8
#define FPT_V3_PER_POLL	3

static struct fpt_v3_fake *fpt_v3_last;

static void fpt_v3_setup(struct fpt_rig *rig, bool ril)
{
	struct fpt_v3_fake *f = fpt_v3_fake_new(rig->test, rig->smmu,
						FPT_V3_SHIFT, FPT_V3_PER_POLL);

	fpt_v3_last = f;
	rig->backend.v3 = smmuv3_flush_on(&f->smmu, rig->mc.asid, ril);
}

static void fpt_v3_setup_ril(struct fpt_rig *rig)
{
	fpt_v3_setup(rig, true);
}

static void fpt_v3_setup_no_ril(struct fpt_rig *rig)
{
	fpt_v3_setup(rig, false);
}

/* The queue lost nothing, and the fake read every field where it belongs. */
static void fpt_v3_check_queue(struct kunit *test)
{
	struct fpt_v3_fake *f = fpt_v3_last;

	KUNIT_EXPECT_EQ(test, f->bad, 0);
	KUNIT_EXPECT_EQ(test, f->refused, 0);
	KUNIT_EXPECT_EQ(test, f->smmu.cmdq.nlost, 0);
	KUNIT_EXPECT_EQ(test, f->smmu.cmdq.cons, f->smmu.cmdq.prod);
	KUNIT_EXPECT_EQ(test, f->consumed, f->smmu.cmdq.prod);
}

static const struct fpt_backend fpt_v3 = {
	.name = "smmuv3", .ops = &smmuv3_hw_ops,
	.setup = fpt_v3_setup_no_ril, .default_policy = "threshold",
};

static const struct fpt_backend fpt_v3_ril = {
	.name = "smmuv3", .ops = &smmuv3_hw_ops_ril,
	.setup = fpt_v3_setup_ril, .default_policy = "range",
};

/* Every seed case costs on SMMUv3 exactly what it costs on the model. */
static void smmuv3_unmap_counts_match_model(struct kunit *test)
{
	const struct fpt_count_case *c = test->param_value;

	fpt_count_run(test, c, c->range ? &fpt_v3_ril : &fpt_v3);
	fpt_v3_check_queue(test);
}

/*
 * va and asid send no range command, so their cases only say "no RIL"; on
 * an SMMU that has RIL they must cost the same.  make bench shows them in
 * its table of SMMUv3 with RIL, as QEMU's rig runs them.
 */
static const void *fpt_v3_va_asid_params(const void *prev, char *desc)
{
	const struct fpt_count_case *c = prev;

	while ((c = fpt_count_params(c, desc)))
		if (!c->range && (!strcmp(c->policy, "va") ||
				  !strcmp(c->policy, "asid")))
			return c;
	return NULL;
}

static void smmuv3_ril_va_asid_cost_as_without(struct kunit *test)
{
	fpt_count_run(test, test->param_value, &fpt_v3_ril);
	fpt_v3_check_queue(test);
}

static void tlbi_nh_va_fields(struct kunit *test)
{
	u64 cmd[2];

	smmuv3_cmd_tlbi_nh_va(cmd, 0x1234, 0x0000abcdef123000UL, true);
	KUNIT_EXPECT_EQ(test, cmd[0], 0x1234000000000012ULL);
	KUNIT_EXPECT_EQ(test, cmd[1], 0x0000abcdef123001ULL);

	smmuv3_cmd_tlbi_nh_va(cmd, 7, 0x40000000UL, false);
	KUNIT_EXPECT_EQ(test, cmd[0], 0x0007000000000012ULL);
	KUNIT_EXPECT_EQ(test, cmd[1], 0x40000000ULL);
}

static void tlbi_range_fields(struct kunit *test)
{
	struct smmuv3_range r = { .iova = 0x200000, .scale = 9, .num = 0 };
	u64 cmd[2];

	/* 2 MiB of 4K leaves at level 3: TG=1 (4K), TTL=3, leaf. */
	smmuv3_cmd_tlbi_nh_va_range(cmd, 3, &r, 12, 3, true);
	KUNIT_EXPECT_EQ(test, cmd[0], 0x0003000000900012ULL);
	KUNIT_EXPECT_EQ(test, cmd[1], 0x200000ULL | (1 << 10) | (3 << 8) | 1);

	r = (struct smmuv3_range) { .iova = 0x1000, .scale = 31, .num = 30 };
	smmuv3_cmd_tlbi_nh_va_range(cmd, 0, &r, 16, 0, false);
	KUNIT_EXPECT_EQ(test, cmd[0], 0x0000000001f1e012ULL);
	KUNIT_EXPECT_EQ(test, cmd[1], 0x1000ULL | (3 << 10));
}

static void other_command_fields(struct kunit *test)
{
	u64 cmd[2];

	smmuv3_cmd_tlbi_nh_asid(cmd, 0xbeef);
	KUNIT_EXPECT_EQ(test, cmd[0], 0xbeef000000000011ULL);
	KUNIT_EXPECT_EQ(test, cmd[1], 0);
	smmuv3_cmd_tlbi_s2_ipa(cmd, 0x42, 0x87654000UL, true);
	KUNIT_EXPECT_EQ(test, cmd[0], 0x000000420000002aULL);
	KUNIT_EXPECT_EQ(test, cmd[1], 0x87654001ULL);
	smmuv3_cmd_tlbi_s12_vmall(cmd, 0x42);
	KUNIT_EXPECT_EQ(test, cmd[0], 0x0000004200000028ULL);
	smmuv3_cmd_tlbi_nh_all(cmd);
	KUNIT_EXPECT_EQ(test, cmd[0], 0x10ULL);
	smmuv3_cmd_sync(cmd);
	KUNIT_EXPECT_EQ(test, cmd[0], 0x46ULL);
	KUNIT_EXPECT_EQ(test, cmd[1], 0);
	smmuv3_cmd_cfgi_ste(cmd, 0x8);
	KUNIT_EXPECT_EQ(test, cmd[0], 0x0000000800000003ULL);
}

struct fpt_cover_case {
	unsigned long pages;
	unsigned int cmds;
};

static const struct fpt_cover_case fpt_cover_cases[] = {
	{ 1, 1 }, { 2, 1 }, { 16, 1 }, { 31, 1 }, { 32, 1 }, { 33, 2 },
	{ 512, 1 }, { 513, 2 }, { 1023, 2 }, { 8192, 1 }, { 8191, 3 },
	{ 0xfffff, 4 }, { 1UL << 36, 1 },
};

static void fpt_cover_desc(const struct fpt_cover_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%lu-pages", c->pages);
}

KUNIT_ARRAY_PARAM(fpt_cover, fpt_cover_cases, fpt_cover_desc);

/* The cover is exact, contiguous, and as short as the encoding allows. */
static void range_cover_exact_and_short(struct kunit *test)
{
	const struct fpt_cover_case *c = test->param_value;
	unsigned long iova = SZ_1G, next = iova, covered = 0;
	struct smmuv3_range_iter it;
	struct smmuv3_range r;
	unsigned int n = 0;

	smmuv3_range_start(&it, iova, c->pages << 12, 12);
	while (smmuv3_range_next(&it, &r)) {
		unsigned long pages = (unsigned long)(r.num + 1) << r.scale;

		KUNIT_EXPECT_EQ(test, r.iova, next);
		KUNIT_EXPECT_LE(test, r.num, 31);
		KUNIT_EXPECT_LE(test, r.scale, 31);
		next += pages << 12;
		covered += pages;
		n++;
	}
	KUNIT_EXPECT_EQ(test, covered, c->pages);
	KUNIT_EXPECT_EQ(test, n, c->cmds);
}

static struct kunit_case fpt_smmuv3_test_cases[] = {
	KUNIT_CASE(tlbi_nh_va_fields),
	KUNIT_CASE(tlbi_range_fields),
	KUNIT_CASE(other_command_fields),
	KUNIT_CASE_PARAM(range_cover_exact_and_short, fpt_cover_gen_params),
	KUNIT_CASE_PARAM(smmuv3_unmap_counts_match_model, fpt_count_params),
	KUNIT_CASE_PARAM(smmuv3_ril_va_asid_cost_as_without,
			 fpt_v3_va_asid_params),
	{}
};

static struct kunit_suite fpt_smmuv3_suite = {
	.name = "flushpol_smmuv3",
	.test_cases = fpt_smmuv3_test_cases,
};

kunit_test_suite(fpt_smmuv3_suite);
