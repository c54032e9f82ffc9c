/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The seed-size unmap cases of flushpol_counts, shared with the suites of
 * the shipped backends: every backend must cost exactly what the model
 * does, and leave nothing stale.
 */
#ifndef _FP_COUNTS_H
#define _FP_COUNTS_H

#include <linux/sizes.h>

#include "fp_rig.h"

struct fpt_count_case {
	const char *policy;
	bool range;		/* backend has range invalidation */
	size_t size;
	size_t pgsize;		/* how the buffer is mapped */
	size_t unmap;		/* 0: all of it; else this much from its middle */
	/* Expected: */
	unsigned long va, rng, ctx, syncs;
	unsigned long b_lost;	/* leaf entries of a second buffer lost */
	unsigned long pages;	/* the pages statistic; 0: size / pgsize */
};

/* Buffer A is the size under test; B, 2 MiB of 4K pages, stays mapped. */
#define FPT_IOVA_A	SZ_1G
#define FPT_IOVA_B	(3UL * SZ_1G)
#define FPT_SIZE_B	SZ_2M

const void *fpt_count_params(const void *prev, char *desc);
unsigned long fpt_seed_warm(struct kunit *test, struct fpt_rig *rig,
			    size_t size, size_t pgsize);
unsigned long fpt_seed_check(struct kunit *test, struct fpt_rig *rig,
			     unsigned long b_before);
unsigned long fpt_seed_check_at(struct kunit *test, struct fpt_rig *rig,
				unsigned long b_before, unsigned long iova);
void fpt_count_run(struct kunit *test, const struct fpt_count_case *c,
		   const struct fpt_backend *be);

#endif /* _FP_COUNTS_H */
