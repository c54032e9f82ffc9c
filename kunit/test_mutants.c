// SPDX-License-Identifier: GPL-2.0-only
/*
 * flushpol_mutants: deliberately broken policies and backends, built into
 * the test module only, each of which the oracle must catch.
 *
 * Each mutant runs twice: on the model with fpm_smmu.legacy set, which is
 * the oracle as it was before it was sharpened (commands applied to
 * whatever is cached at the sync, an idle device, TTL ignored, entries
 * dying with their context, an SMMUv2 TLBSYNC completing TLBIs written
 * after it), where it must pass unseen; then on the model as it is, where
 * the check named in its table entry must catch it.  A mutant whose blind
 * spot was a missing test, not the oracle (an unmap over a hole), runs
 * on the model as it is only.  One "fp-mutant:" line per mutant says
 * what each check counted.
 */
#include <kunit/test.h>
#include <linux/sizes.h>

#include "../backends/smmuv2/smmuv2_regs.h"
#include "fp_rig.h"
#include "fp_smmuv2_fake.h"

/* What the oracle's checks counted for one run of a mutant. */
struct fpt_caught {
	unsigned long stale;		/* entries stale after the sync */
	unsigned long freed_refs;	/* walk entries on a freed table */
	unsigned long stale_hits;	/* accesses served stale */
	unsigned long exit_left;	/* cached after free_io_pgtable_ops */
};

struct fpt_mutant {
	const char *name;
	const char *blind_spot;
	void (*run)(struct kunit *test, bool legacy, struct fpt_caught *c);
	/* The check that must catch it: an offset in struct fpt_caught. */
	size_t check;
	const char *check_name;
	bool old_blind;		/* the legacy oracle misses it too */
};

static bool fpt_mut_walked;	/* a walk flush ran in this unmap */

/* One context flush on the first walk of an unmap, none on the others. */
static void fpt_walk_once_walk(struct fp_context *ctx, unsigned long iova,
			       size_t size, size_t granule)
{
	if (fpt_mut_walked)
		return;
	fpt_mut_walked = true;
	fp_flush_context(ctx);
}

static void fpt_ctx_gather(struct fp_context *ctx,
			   const struct iommu_iotlb_gather *gather)
{
	if (fp_gather_pages(gather))
		fp_flush_context(ctx);
}

/* A walk's context flush taken as covering leaves cleared after it. */
static void fpt_walk_covers_walk(struct fp_context *ctx, unsigned long iova,
				 size_t size, size_t granule)
{
	fpt_mut_walked = true;
	fp_flush_context(ctx);
}

static void fpt_walk_covers_gather(struct fp_context *ctx,
				   const struct iommu_iotlb_gather *gather)
{
	if (fp_gather_pages(gather) && !fpt_mut_walked)
		fp_flush_context(ctx);
}

/* tlb_flush_all does nothing: the ASID goes back with entries cached. */
static void fpt_noflush_walk(struct fp_context *ctx, unsigned long iova,
			     size_t size, size_t granule)
{
	fp_flush_context(ctx);
}

static void fpt_noflush_all(struct fp_context *ctx)
{
}

static struct fp_policy fpt_mut_policies[] = {
	{ .name = "mut_walk_once", .owner = THIS_MODULE,
	  .flush_walk = fpt_walk_once_walk, .flush_gather = fpt_ctx_gather },
	{ .name = "mut_walk_cover", .owner = THIS_MODULE,
	  .flush_walk = fpt_walk_covers_walk,
	  .flush_gather = fpt_walk_covers_gather },
	{ .name = "mut_noflush_all", .owner = THIS_MODULE,
	  .flush_walk = fpt_noflush_walk, .flush_gather = fpt_ctx_gather,
	  .flush_context = fpt_noflush_all },
};

static void fpt_mut_unregister(void *pol)
{
	fp_policy_unregister(pol);
}

/* An SMMU model for one run, and the mutant policies registered. */
static struct fpm_smmu *fpt_mut_setup(struct kunit *test, bool legacy)
{
	struct fpm_smmu *smmu = fpt_shared_smmu(test);
	unsigned int i;

	smmu->legacy = legacy;
	for (i = 0; i < ARRAY_SIZE(fpt_mut_policies); i++) {
		struct fp_policy *pol = &fpt_mut_policies[i];
		int ret;

		if (fp_policy_register(pol))
			continue;	/* the other run of this case has it */
		ret = kunit_add_action_or_reset(test, fpt_mut_unregister, pol);
		KUNIT_ASSERT_EQ(test, ret, 0);
	}
	return smmu;
}

static struct fpt_rig *fpt_mut_rig(struct kunit *test, struct fpm_smmu *smmu,
				   const struct fpt_backend *be,
				   const char *policy, u16 asid)
{
	struct fpt_rig_cfg rc = { .backend = be, .fmt = ARM_64_LPAE_S1,
				  .policy = policy };
	struct fpt_rig *rig = kunit_kzalloc(test, sizeof(*rig), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, rig);
	KUNIT_ASSERT_EQ(test, fpt_rig_init(test, rig, &rc, smmu, asid), 0);
	rig->quiet_exit = true;
	return rig;
}

/* Map 4K pages, warm every one, unmap them all, tear down: what counted. */
static void fpt_mut_unmap_all(struct kunit *test, struct fpt_rig *rig,
			      size_t size, struct fpt_caught *c)
{
	KUNIT_ASSERT_EQ(test, fpt_map(rig, SZ_1G, size, SZ_4K), 0);
	fpm_access_range(&rig->mc, SZ_1G, size);
	fpt_mut_walked = false;
	KUNIT_ASSERT_EQ(test, fpt_unmap(rig, SZ_1G, size, false), size);
	c->stale = fpm_stale_entries(&rig->mc);
	c->freed_refs = rig->mc.n.freed_refs;
	c->stale_hits = rig->mc.n.stale_hits;
	fpt_rig_release(rig);
	if (!rig->smmu->legacy)
		c->exit_left = rig->exit_left;
}

/* 16 tables: the first walk's flush, then 15 walk entries refilled. */
static void fpt_run_walk_once(struct kunit *test, bool legacy,
			      struct fpt_caught *c)
{
	struct fpm_smmu *smmu = fpt_mut_setup(test, legacy);

	fpt_mut_unmap_all(test, fpt_mut_rig(test, smmu, NULL, "mut_walk_once",
					    1), SZ_32M, c);
}

/* A table, then 16 pages cleared after its flush was issued. */
static void fpt_run_walk_covers(struct kunit *test, bool legacy,
				struct fpt_caught *c)
{
	struct fpm_smmu *smmu = fpt_mut_setup(test, legacy);

	fpt_mut_unmap_all(test, fpt_mut_rig(test, smmu, NULL,
					    "mut_walk_cover", 1),
			  SZ_2M + SZ_64K, c);
}

/*
 * An SMMUv2 backend that writes TLBSYNC before its TLBIs: the register
 * writes of a context bank are held back until its next TLBSYNC, written
 * first.
 */
static struct {
	unsigned int page, off, n;
	u64 val[1024];
	bool is64[1024];
	unsigned int offs[1024];
} fpt_v2_held;

static void fpt_v2_release_held(void *priv)
{
	unsigned int i;

	for (i = 0; i < fpt_v2_held.n; i++)
		if (fpt_v2_held.is64[i])
			fpt_v2_write64(priv, fpt_v2_held.page,
				       fpt_v2_held.offs[i], fpt_v2_held.val[i]);
		else
			fpt_v2_write(priv, fpt_v2_held.page,
				     fpt_v2_held.offs[i], fpt_v2_held.val[i]);
	fpt_v2_held.n = 0;
}

static void fpt_v2_hold(void *priv, unsigned int page,
			unsigned int off, u64 val, bool is64)
{
	if (!page && is64) {
		fpt_v2_write64(priv, page, off, val);
		return;
	}
	if (!page) {
		fpt_v2_write(priv, page, off, val);
		return;
	}
	if (off == SMMUV2_CB_TLBSYNC) {
		fpt_v2_write(priv, page, off, val);
		fpt_v2_release_held(priv);
		return;
	}
	if (fpt_v2_held.n == ARRAY_SIZE(fpt_v2_held.val))
		fpt_v2_release_held(priv);
	fpt_v2_held.page = page;
	fpt_v2_held.offs[fpt_v2_held.n] = off;
	fpt_v2_held.is64[fpt_v2_held.n] = is64;
	fpt_v2_held.val[fpt_v2_held.n++] = val;
}

static void fpt_v2_sync_first_write(void *priv,
				    unsigned int page, unsigned int off,
				    u32 val)
{
	fpt_v2_hold(priv, page, off, val, false);
}

static void fpt_v2_sync_first_write64(void *priv,
				      unsigned int page, unsigned int off,
				      u64 val)
{
	fpt_v2_hold(priv, page, off, val, true);
}

static const struct smmuv2_reg_ops fpt_v2_sync_first_regs = {
	.read		= fpt_v2_read,
	.read64		= fpt_v2_read64,
	.write		= fpt_v2_sync_first_write,
	.write64	= fpt_v2_sync_first_write64,
};

static void fpt_run_v2_sync_first(struct kunit *test, bool legacy,
				  struct fpt_caught *c)
{
	struct fpm_smmu *smmu = fpt_mut_setup(test, legacy);
	struct fpt_rig *rig = fpt_mut_rig(test, smmu, &fpt_v2_backend, "va",
					  1);

	fpt_v2_held.n = 0;
	fpt_v2_fake_of(rig)->smmu->cfg.regs = &fpt_v2_sync_first_regs;
	fpt_mut_unmap_all(test, rig, SZ_64K, c);
}

/*
 * Context @a, 2M of pages warm, torn down; then a new context takes its
 * ASID and maps the same IOVAs to other pages: what its device read.
 */
static void fpt_mut_reuse_asid(struct kunit *test, struct fpt_rig *a,
			       struct fpt_caught *c)
{
	struct fpt_rig *b;

	KUNIT_ASSERT_EQ(test, fpt_map(a, SZ_1G, SZ_2M, SZ_4K), 0);
	fpm_access_range(&a->mc, SZ_1G, SZ_2M);
	fpt_rig_release(a);
	if (!a->smmu->legacy)
		c->exit_left = a->exit_left;

	b = fpt_mut_rig(test, a->smmu, NULL, "va", a->mc.asid);
	b->pa_offset = SZ_1G;
	KUNIT_ASSERT_EQ(test, fpt_map(b, SZ_1G, SZ_2M, SZ_4K), 0);
	fpm_access(&b->mc, SZ_1G);
	fpm_access(&b->mc, SZ_1G + SZ_2M - SZ_4K);
	c->stale_hits = b->mc.n.stale_hits;
	c->stale = fpm_stale_entries(&b->mc);
	fpt_rig_release(b);
}

/* tlb_flush_all does nothing, then a new context takes the ASID. */
static void fpt_run_noflush_reuse(struct kunit *test, bool legacy,
				  struct fpt_caught *c)
{
	struct fpm_smmu *smmu = fpt_mut_setup(test, legacy);

	fpt_mut_reuse_asid(test, fpt_mut_rig(test, smmu, NULL,
					     "mut_noflush_all", 7), c);
}

/*
 * A backend whose context invalidation sends nothing: a context's last
 * flush is a sync alone, and a new context takes the ASID.
 */
static void fpt_inv_nothing(struct fp_context *ctx)
{
}

static struct fp_hw_ops fpt_sync_only_ops;

static const struct fpt_backend fpt_sync_only_backend = {
	.name = "mut_sync_only", .ops = &fpt_sync_only_ops,
	.default_policy = "va",
};

static void fpt_run_final_sync_only(struct kunit *test, bool legacy,
				    struct fpt_caught *c)
{
	struct fpm_smmu *smmu = fpt_mut_setup(test, legacy);

	fpt_sync_only_ops = fpt_hw_ops;
	fpt_sync_only_ops.inv_context = fpt_inv_nothing;
	fpt_mut_reuse_asid(test, fpt_mut_rig(test, smmu,
					     &fpt_sync_only_backend, "va", 9),
			   c);
}

/*
 * An unmap that ends its gather only when it unmapped the whole range:
 * over a hole, the pages it cleared before the hole stay cached.
 * io-pgtable warns at the hole (see flushpol_holes).
 */
static void fpt_run_hole_whole_only(struct kunit *test, bool legacy,
				    struct fpt_caught *c)
{
	struct fpm_smmu *smmu = fpt_mut_setup(test, legacy);
	struct fpt_rig *rig = fpt_mut_rig(test, smmu, NULL, "va", 1);
	struct iommu_iotlb_gather gather;
	size_t n;

	KUNIT_ASSERT_EQ(test, fpt_map(rig, SZ_1G, SZ_32K, SZ_4K), 0);
	KUNIT_ASSERT_EQ(test, fpt_map(rig, SZ_1G + SZ_32K + SZ_4K,
				      SZ_32K - SZ_4K, SZ_4K), 0);
	fpm_access_range(&rig->mc, SZ_1G, SZ_32K);
	iommu_iotlb_gather_init(&gather);
	kunit_info(test, "fp-expect-warn: begin __arm_lpae_unmap\n");
	n = rig->ops->unmap_pages(rig->ops, SZ_1G, SZ_4K, SZ_64K / SZ_4K,
				  &gather);
	kunit_info(test, "fp-expect-warn: end\n");
	KUNIT_EXPECT_EQ(test, n, SZ_32K);
	if (n == SZ_64K)
		fp_iotlb_sync(rig->ctx, &gather);
	c->stale = fpm_stale_entries(&rig->mc);
	c->stale_hits = rig->mc.n.stale_hits;
	fpt_rig_release(rig);
}

/* flush.c as it was: TTL from the gather's granule after a block split. */
static void fpt_run_ttl_granule(struct kunit *test, bool legacy,
				struct fpt_caught *c)
{
	c->stale = fpt_block_split_stale(test, true, legacy);
}

#define FPT_CHECK(field)	offsetof(struct fpt_caught, field)

static const struct fpt_mutant fpt_mutants[] = {
	{ "walk-once", "idle device", fpt_run_walk_once,
	  FPT_CHECK(freed_refs), "walk entry on a freed table", true },
	{ "walk-covers-later-leaves", "commands applied at sync",
	  fpt_run_walk_covers, FPT_CHECK(stale), "stale after sync", true },
	{ "v2-tlbsync-before-tlbi", "generous fakes", fpt_run_v2_sync_first,
	  FPT_CHECK(stale), "stale after sync", true },
	{ "noflush-all-asid-reuse", "lifetime", fpt_run_noflush_reuse,
	  FPT_CHECK(stale_hits), "stale hit after ASID reuse", true },
	{ "noflush-all-asid-reuse", "lifetime", fpt_run_noflush_reuse,
	  FPT_CHECK(exit_left), "cached after free_io_pgtable_ops", true },
	{ "ttl-from-granule", "TTL ignored", fpt_run_ttl_granule,
	  FPT_CHECK(stale), "stale after sync", true },
	{ "final-flush-sync-only", "lifetime", fpt_run_final_sync_only,
	  FPT_CHECK(stale_hits), "stale hit after ASID reuse", true },
	{ "hole-gather-whole-only", "no unmap over a hole",
	  fpt_run_hole_whole_only, FPT_CHECK(stale), "stale after sync",
	  false },
};

static void fpt_mutant_desc(const struct fpt_mutant *m, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s-by-%s", m->name,
		 m->check == FPT_CHECK(exit_left) ? "teardown" :
		 m->check == FPT_CHECK(stale_hits) ? "access" :
		 m->check == FPT_CHECK(freed_refs) ? "free" : "sync");
}

KUNIT_ARRAY_PARAM(fpt_mutant, fpt_mutants, fpt_mutant_desc);

static unsigned long fpt_caught_at(const struct fpt_caught *c, size_t off)
{
	return *(const unsigned long *)((const char *)c + off);
}

/* Unseen by the old oracle, caught by the named check of the new one. */
static void mutant_caught(struct kunit *test)
{
	const struct fpt_mutant *m = test->param_value;
	struct fpt_caught old = {}, new = {};

	if (m->old_blind)
		m->run(test, true, &old);
	m->run(test, false, &new);
	KUNIT_EXPECT_EQ_MSG(test, old.stale + old.freed_refs + old.stale_hits,
			    0, "%s: the old oracle saw it", m->name);
	KUNIT_EXPECT_GT_MSG(test, fpt_caught_at(&new, m->check), 0,
			    "%s: not caught by %s", m->name, m->check_name);
	kunit_info(test,
		   "fp-mutant: %s blind-spot=\"%s\" caught-by=\"%s\" old: stale=%lu freed_refs=%lu stale_hits=%lu new: stale=%lu freed_refs=%lu stale_hits=%lu exit_left=%lu\n",
		   m->name, m->blind_spot, m->check_name, old.stale,
		   old.freed_refs, old.stale_hits, new.stale, new.freed_refs,
		   new.stale_hits, new.exit_left);
}

static struct kunit_case fpt_mutant_cases[] = {
	KUNIT_CASE_PARAM(mutant_caught, fpt_mutant_gen_params),
	{}
};

static struct kunit_suite fpt_mutant_suite = {
	.name = "flushpol_mutants",
	.test_cases = fpt_mutant_cases,
};

kunit_test_suite(fpt_mutant_suite);
