// SPDX-License-Identifier: GPL-2.0-only
/*
 * flushpol_smmuv2_oracle: the fake SMMUv2 decodes what the architecture
 * says, so a backend that writes a field in the wrong place, at the wrong
 * width, to the wrong register, or forgets the sync a command needs, is
 * caught by the same checks flushpol_smmuv2 passes.  Each mutant below is
 * the real backend with one such mistake put in front of the fake; without
 * these, a green flushpol_smmuv2 would prove nothing.
 */
#include <kunit/test.h>
#include <linux/sizes.h>

#include "fp_smmuv2_fake.h"

#define FPT_IOVA	SZ_1G
#define FPT_TLBIVA	0x600
#define FPT_TLBIVAL	0x620
#define FPT_TLBIVMID	0x64
#define FPT_TLBSYNC	0x7f0
#define FPT_TLBSTATUS	0x7f4
#define FPT_STLBGSYNC	0x70
#define FPT_STLBGSTATUS	0x74

static unsigned int fpt_cb_page(unsigned int cbndx)
{
	return FPT_V2_NUMPAGE + cbndx;
}

/* The ASID in VA bits [47:32] instead of [63:48]. */
static void fpt_asid_low_write64(void *priv, unsigned int page,
				 unsigned int off, u64 val)
{
	if (off == FPT_TLBIVA || off == FPT_TLBIVAL)
		val = (val & GENMASK_ULL(31, 0)) | (val >> 48) << 32;
	fpt_v2_write64(priv, page, off, val);
}

/* The address itself instead of address >> 12. */
static void fpt_unshifted_write64(void *priv, unsigned int page,
				  unsigned int off, u64 val)
{
	if (off != 0x610)
		val = (val & GENMASK_ULL(63, 48)) |
		      ((val & GENMASK_ULL(43, 0)) << 12);
	fpt_v2_write64(priv, page, off, val);
}

/* An AArch32 bank given the AArch64 encoding, 64 bits wide. */
static void fpt_aarch64_in_aarch32_write(void *priv,
					 unsigned int page, unsigned int off,
					 u32 val)
{
	if (off == FPT_TLBIVA || off == FPT_TLBIVAL)
		fpt_v2_write64(priv, page, off,
			       (u64)(val & 0xff) << 48 | (val >> 12));
	else
		fpt_v2_write(priv, page, off, val);
}

/* TLBIVAL sent to 0x628 (TLBIVAAL, all ASIDs): not what was asked. */
static void fpt_wrong_reg_write64(void *priv,
				  unsigned int page, unsigned int off, u64 val)
{
	fpt_v2_write64(priv, page, off == FPT_TLBIVAL ? 0x628 : off, val);
}

/* TLBIVMID waited for on the bank only: the global sync never sent. */
static void fpt_no_gsync_write(void *priv, unsigned int page,
			       unsigned int off, u32 val)
{
	if (!page && off == FPT_STLBGSYNC)
		return;
	fpt_v2_write(priv, page, off, val);
}

static u32 fpt_no_gsync_read(void *priv, unsigned int page,
			     unsigned int off)
{
	return !page && off == FPT_STLBGSTATUS ? 0 :
	       fpt_v2_read(priv, page, off);
}

static const struct smmuv2_reg_ops fpt_asid_low = {
	.read = fpt_v2_read, .read64 = fpt_v2_read64,
	.write = fpt_v2_write, .write64 = fpt_asid_low_write64,
};

static const struct smmuv2_reg_ops fpt_unshifted = {
	.read = fpt_v2_read, .read64 = fpt_v2_read64,
	.write = fpt_v2_write, .write64 = fpt_unshifted_write64,
};

static const struct smmuv2_reg_ops fpt_aarch64_in_aarch32 = {
	.read = fpt_v2_read, .read64 = fpt_v2_read64,
	.write = fpt_aarch64_in_aarch32_write, .write64 = fpt_v2_write64,
};

static const struct smmuv2_reg_ops fpt_wrong_reg = {
	.read = fpt_v2_read, .read64 = fpt_v2_read64,
	.write = fpt_v2_write, .write64 = fpt_wrong_reg_write64,
};

static const struct smmuv2_reg_ops fpt_no_gsync = {
	.read = fpt_no_gsync_read, .read64 = fpt_v2_read64,
	.write = fpt_no_gsync_write, .write64 = fpt_v2_write64,
};

struct fpt_mutant_case {
	const char *name;
	const struct smmuv2_reg_ops *regs;	/* NULL: the real thing */
	enum io_pgtable_fmt fmt;
	const char *policy;
	bool caught;
	bool bad;		/* the fake also saw a malformed write */
};

static const struct fpt_mutant_case fpt_mutant_cases[] = {
	/* The real backend passes... */
	{ "real-s1", NULL, ARM_64_LPAE_S1, "va", false, false },
	{ "real-s1-32", NULL, ARM_32_LPAE_S1, "va", false, false },
	{ "real-s2", NULL, ARM_64_LPAE_S2, "asid", false, false },
	/* ...and each mistake is caught. */
	{ "asid-in-bits-47-32", &fpt_asid_low, ARM_64_LPAE_S1, "va",
	  true, false },
	{ "va-not-shifted", &fpt_unshifted, ARM_64_LPAE_S1, "va", true, false },
	{ "ipa-not-shifted", &fpt_unshifted, ARM_64_LPAE_S2, "va", true, false },
	{ "aarch64-value-in-aarch32-bank", &fpt_aarch64_in_aarch32,
	  ARM_32_LPAE_S1, "va", true, true },
	{ "tlbival-to-0x628", &fpt_wrong_reg, ARM_64_LPAE_S1, "va", true, true },
	{ "tlbivmid-without-global-sync", &fpt_no_gsync, ARM_64_LPAE_S2,
	  "asid", true, false },
};

static void fpt_mutant_desc(const struct fpt_mutant_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(fpt_mutant, fpt_mutant_cases, fpt_mutant_desc);

static struct fpt_rig *fpt_oracle_rig(struct kunit *test,
				      enum io_pgtable_fmt fmt,
				      const char *policy)
{
	struct fpt_rig_cfg rc = {
		.backend = &fpt_v2_backend, .fmt = fmt, .policy = policy,
	};
	struct fpt_rig *rig = kunit_kzalloc(test, sizeof(*rig), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, rig);
	KUNIT_ASSERT_EQ(test, fpt_rig_init(test, rig, &rc, NULL, 5), 0);
	return rig;
}

/*
 * 2 MiB and 64 KiB of 4 KiB pages: a walk flush and two gathers.  After
 * the unmap nothing may be stale; after a remap elsewhere the device must
 * see the new pages only.
 */
static void mutant_caught_by_stale_entries(struct kunit *test)
{
	const struct fpt_mutant_case *c = test->param_value;
	struct fpt_rig *rig = fpt_oracle_rig(test, c->fmt, c->policy);
	struct fpt_v2_fake *fake = fpt_v2_fake_of(rig);
	size_t size = SZ_2M + SZ_64K;

	KUNIT_ASSERT_EQ(test, fpt_map(rig, FPT_IOVA, size, SZ_4K), 0);
	fpm_access_range(&rig->mc, FPT_IOVA, size);
	if (c->regs) {
		fake->smmu->cfg.regs = c->regs;
		/* Its own teardown is as broken as its unmaps. */
		rig->quiet_exit = c->caught;
	}

	KUNIT_ASSERT_EQ(test, fpt_unmap(rig, FPT_IOVA, size, false), size);
	rig->pa_offset = SZ_1G;
	KUNIT_ASSERT_EQ(test, fpt_map(rig, FPT_IOVA, size, SZ_4K), 0);
	fpm_access_range(&rig->mc, FPT_IOVA, size);

	if (c->caught) {
		KUNIT_EXPECT_GT(test, rig->mc.n.stale_hits, 0);
	} else {
		KUNIT_EXPECT_EQ(test, rig->mc.n.stale_hits, 0);
		KUNIT_EXPECT_EQ(test, rig->mc.n.freed_refs, 0);
	}
	if (c->bad)
		KUNIT_EXPECT_GT(test, fake->n[FPT_V2_BAD], 0);
	else
		KUNIT_EXPECT_EQ(test, fake->n[FPT_V2_BAD], 0);
}

/* Warm 2 MiB of 4 KiB pages: 512 leaves and a walk entry per level. */
static struct fpt_rig *fpt_warm_rig(struct kunit *test,
				    enum io_pgtable_fmt fmt)
{
	struct fpt_rig *rig = fpt_oracle_rig(test, fmt, "va");

	KUNIT_ASSERT_EQ(test, fpt_map(rig, FPT_IOVA, SZ_2M, SZ_4K), 0);
	fpm_access_range(&rig->mc, FPT_IOVA, SZ_2M);
	KUNIT_ASSERT_EQ(test, fpm_cached_entries(&rig->mc),
			512 + 3 - rig->mc.start_level);
	/* These count exact cache contents: an idle device, no refills. */
	rig->mc.busy = false;
	return rig;
}

/* Write TLBSYNC (or sTLBGSYNC) and read status until it clears. */
static void fpt_raw_sync(struct fpt_v2_fake *fake, unsigned int page,
			 unsigned int sync, unsigned int status)
{
	int i;

	fpt_v2_write(fake, page, sync, ~0U);
	for (i = 0; i < 4 && (fpt_v2_read(fake, page, status) & 1); i++)
		;
}

static void tlbival_keeps_walks_tlbiva_drops_them(struct kunit *test)
{
	struct fpt_rig *rig = fpt_warm_rig(test, ARM_64_LPAE_S1);
	struct fpt_v2_fake *fake = fpt_v2_fake_of(rig);
	unsigned int page = fpt_cb_page(5);
	u64 va = (FPT_IOVA >> 12) | 5ULL << 48;

	fpt_v2_write64(fake, page, FPT_TLBIVAL, va);
	fpt_raw_sync(fake, page, FPT_TLBSYNC, FPT_TLBSTATUS);
	KUNIT_EXPECT_EQ(test, fpm_cached_entries(&rig->mc), 511 + 3);
	fpt_v2_write64(fake, page, FPT_TLBIVA, va + 1);
	fpt_raw_sync(fake, page, FPT_TLBSYNC, FPT_TLBSTATUS);
	KUNIT_EXPECT_EQ(test, fpm_cached_entries(&rig->mc), 510);
}

/* The same VA under ASID 6 is another translation: nothing goes. */
static void other_asid_untouched(struct kunit *test)
{
	struct fpt_rig *rig = fpt_warm_rig(test, ARM_64_LPAE_S1);
	struct fpt_v2_fake *fake = fpt_v2_fake_of(rig);
	unsigned int page = fpt_cb_page(5);

	fpt_v2_write64(fake, page, FPT_TLBIVA,
		       (FPT_IOVA >> 12) | 6ULL << 48);
	fpt_v2_write(fake, page, 0x610, 6);
	fpt_raw_sync(fake, page, FPT_TLBSYNC, FPT_TLBSTATUS);
	KUNIT_EXPECT_EQ(test, fpm_cached_entries(&rig->mc), 512 + 3);
	KUNIT_EXPECT_EQ(test, fake->n[FPT_V2_BAD], 0);
}

/* A command takes effect at its own sync, not at another's. */
static void commands_wait_for_their_own_sync(struct kunit *test)
{
	struct fpt_rig *rig = fpt_warm_rig(test, ARM_64_LPAE_S2);
	struct fpt_v2_fake *fake = fpt_v2_fake_of(rig);
	unsigned int page = fpt_cb_page(5);

	fpt_v2_write64(fake, page, 0x638, FPT_IOVA >> 12);
	KUNIT_EXPECT_EQ(test, fpm_cached_entries(&rig->mc), 512 + 2);
	fpt_raw_sync(fake, page, FPT_TLBSYNC, FPT_TLBSTATUS);
	KUNIT_EXPECT_EQ(test, fpm_cached_entries(&rig->mc), 511 + 2);

	/* TLBIVMID is global: the bank's sync does not complete it. */
	fpt_v2_write(fake, 0, FPT_TLBIVMID, 5);
	fpt_raw_sync(fake, page, FPT_TLBSYNC, FPT_TLBSTATUS);
	KUNIT_EXPECT_EQ(test, fpm_cached_entries(&rig->mc), 511 + 2);
	fpt_raw_sync(fake, 0, FPT_STLBGSYNC, FPT_STLBGSTATUS);
	KUNIT_EXPECT_EQ(test, fpm_cached_entries(&rig->mc), 0);
}

/* Status stays active while the model cannot complete, and then clears. */
static void sactive_set_by_sync_cleared_by_completion(struct kunit *test)
{
	struct fpt_rig *rig = fpt_warm_rig(test, ARM_64_LPAE_S1);
	struct fpt_v2_fake *fake = fpt_v2_fake_of(rig);
	unsigned int page = fpt_cb_page(5);

	KUNIT_EXPECT_EQ(test, fpt_v2_read(fake, page, FPT_TLBSTATUS), 0);
	fpt_v2_write(fake, page, 0x610, 5);
	fpt_v2_write(fake, page, FPT_TLBSYNC, ~0U);
	rig->smmu->sync_stuck = true;
	KUNIT_EXPECT_EQ(test, fpt_v2_read(fake, page, FPT_TLBSTATUS), 1);
	KUNIT_EXPECT_EQ(test, fpt_v2_read(fake, page, FPT_TLBSTATUS), 1);
	KUNIT_EXPECT_EQ(test, fpm_cached_entries(&rig->mc), 512 + 3);
	rig->smmu->sync_stuck = false;
	KUNIT_EXPECT_EQ(test, fpt_v2_read(fake, page, FPT_TLBSTATUS), 0);
	KUNIT_EXPECT_EQ(test, fpm_cached_entries(&rig->mc), 0);
}

static struct kunit_case fpt_smmuv2_oracle_cases[] = {
	KUNIT_CASE_PARAM(mutant_caught_by_stale_entries,
			 fpt_mutant_gen_params),
	KUNIT_CASE(tlbival_keeps_walks_tlbiva_drops_them),
	KUNIT_CASE(other_asid_untouched),
	KUNIT_CASE(commands_wait_for_their_own_sync),
	KUNIT_CASE(sactive_set_by_sync_cleared_by_completion),
	{}
};

static struct kunit_suite fpt_smmuv2_oracle_suite = {
	.name = "flushpol_smmuv2_oracle",
	.test_cases = fpt_smmuv2_oracle_cases,
};

kunit_test_suite(fpt_smmuv2_oracle_suite);
