/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the dispatch and scale benchmarks share: a backend whose primitives
 * only count, the flush ops a driver without flushpol would give
 * io-pgtable for the same backend (the "direct" side), and a pair of page
 * tables, one through a flushpol context and one direct.
 */
#ifndef _FP_BENCH_BACKEND_H
#define _FP_BENCH_BACKEND_H

#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/device.h>
#include <linux/io-pgtable.h>

#include "../include/flushpol.h"

extern const struct fp_hw_ops fpbk_hw_ops;
extern const struct iommu_flush_ops fpbk_direct_tlb;

void fpbk_direct_iotlb_sync(struct iommu_iotlb_gather *g);
void fpbk_counts(unsigned long *cmds, unsigned long *syncs);

/* The two sides of a benchmark, over the same do-nothing backend. */
struct fpbk_pair {
	struct fp_context *ctx;
	struct io_pgtable_ops *fp_ops, *direct_ops;
	struct io_pgtable_cfg fp_cfg, direct_cfg;
	struct device dev;
};

struct fpbk_pair *fpbk_pair_create(struct kunit *test, const char *backend,
				   const char *policy);

/* bench_composition.c: the shipped SMMUv3 composition against upstream's. */
void fpbk_composition_reported(struct kunit *test, const char *policy,
			       bool ril, bool estimate);

/* The scale benchmarks' threads: one per CPU, at most this many. */
#define FPBK_MAX_THREADS	4

void fpbk_run_bound(struct kunit *test, int (*fn)(void *data),
		    void *const *args, unsigned int threads, const char *name,
		    struct completion *done);

#endif /* _FP_BENCH_BACKEND_H */
