// SPDX-License-Identifier: GPL-2.0-only
/*
 * flushpol_switch: a policy switch in the middle of an unmap, between walk
 * flushes or between gathering leaves and the sync, loses nothing.
 */
#include <kunit/test.h>
#include <linux/moduleparam.h>
#include <linux/sizes.h>

#include "fp_rig.h"

#define FPT_IOVA	SZ_1G

/*
 * Cases unmapping more than switch_max_bytes are skipped: a way to run the
 * switch mechanism alone on a kernel where a large unmap is too slow for
 * KUnit's 300 s (one switch in a 32M unmap under va ran 788 s with KCSAN
 * watching one access in 50 for 200 us).  Every make target runs them all.
 */
static unsigned long switch_max_bytes;
module_param(switch_max_bytes, ulong, 0444);
MODULE_PARM_DESC(switch_max_bytes,
		 "flushpol_switch: skip the cases unmapping more bytes than this (default 0: none)");

struct fpt_switch_case {
	const char *from, *to;
	size_t size;
	bool at_walk;		/* switch before a walk flush, else a leaf */
	unsigned int nth;	/* before the nth of them */
};

static const struct fpt_switch_case fpt_switch_cases[] = {
	/* Leaves gathered under one policy, flushed by the next. */
	{ "threshold", "va", SZ_64K, false, 8 },
	{ "va", "asid", SZ_64K, false, 8 },
	{ "asid", "range", SZ_1M, false, 100 },
	{ "range", "threshold", SZ_1M, false, 200 },
	/* Walk flushes split between two policies. */
	{ "va", "asid", SZ_32M, true, 8 },
	{ "asid", "va", SZ_32M, true, 8 },
	{ "threshold", "range", SZ_16M, true, 3 },
	/* After the last walk, before the table entries are gathered. */
	{ "asid", "va", SZ_16M, false, 1 },
	{ "va", "threshold", SZ_16M, false, 1 },
	/* adaptive, whichever way it decides, hands over and takes over. */
	{ "adaptive", "va", SZ_64K, false, 8 },
	{ "asid", "adaptive", SZ_1M, false, 100 },
	{ "adaptive", "asid", SZ_32M, true, 8 },
	{ "va", "adaptive", SZ_16M, false, 1 },
};

static void fpt_switch_desc(const struct fpt_switch_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s-to-%s-%zuK-before-%s-%u",
		 c->from, c->to, c->size / SZ_1K, c->at_walk ? "walk" : "leaf",
		 c->nth);
}

KUNIT_ARRAY_PARAM(fpt_switch, fpt_switch_cases, fpt_switch_desc);

static void fpt_maybe_switch(struct fpt_rig *rig, unsigned long seen,
			     bool at_walk)
{
	const struct fpt_switch_case *c = rig->hook_data;

	if (c->at_walk == at_walk && seen == c->nth)
		KUNIT_EXPECT_EQ(rig->test,
				fp_context_set_policy(rig->ctx, c->to), 0);
}

static void fpt_before_walk(struct fpt_rig *rig)
{
	fpt_maybe_switch(rig, atomic_long_read(&rig->walks), true);
}

static void fpt_before_add_page(struct fpt_rig *rig)
{
	fpt_maybe_switch(rig, atomic_long_read(&rig->add_pages), false);
}

static const struct fpt_hooks fpt_switch_hooks = {
	.before_walk = fpt_before_walk,
	.before_add_page = fpt_before_add_page,
};

static void switch_mid_unmap_loses_nothing(struct kunit *test)
{
	const struct fpt_switch_case *c = test->param_value;
	struct fpt_rig_cfg rc = {
		.fmt = ARM_64_LPAE_S1, .has_range = true, .policy = c->from,
	};
	struct fpt_rig *rig;

	if (switch_max_bytes && c->size > switch_max_bytes)
		kunit_skip(test, "larger than switch_max_bytes=%lu",
			   switch_max_bytes);
	rig = kunit_kzalloc(test, sizeof(*rig), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rig);
	KUNIT_ASSERT_EQ(test, fpt_rig_init(test, rig, &rc, NULL, 1), 0);
	KUNIT_ASSERT_EQ(test, fpt_map(rig, FPT_IOVA, c->size, SZ_4K), 0);
	fpm_access_range(&rig->mc, FPT_IOVA, c->size);

	rig->hook_data = (void *)c;
	rig->hooks = &fpt_switch_hooks;
	KUNIT_ASSERT_EQ(test, fpt_unmap(rig, FPT_IOVA, c->size, false),
			c->size);
	rig->hooks = NULL;

	/* The switch did happen mid-unmap... */
	KUNIT_EXPECT_GE(test, atomic_long_read(c->at_walk ? &rig->walks : &rig->add_pages),
			(unsigned long)c->nth);
	/* ...and nothing was lost across it. */
	KUNIT_EXPECT_EQ(test, fpm_stale_entries(&rig->mc), 0);
	KUNIT_EXPECT_EQ(test, rig->mc.n.freed_refs, 0);
	KUNIT_EXPECT_EQ(test, fp_context_stat(rig->ctx, FP_STAT_SYNC_TIMEOUTS),
			0);
}

static struct kunit_case fpt_switch_test_cases[] = {
	KUNIT_CASE_PARAM(switch_mid_unmap_loses_nothing, fpt_switch_gen_params),
	{}
};

static struct kunit_suite fpt_switch_suite = {
	.name = "flushpol_switch",
	.test_cases = fpt_switch_test_cases,
};

kunit_test_suite(fpt_switch_suite);
