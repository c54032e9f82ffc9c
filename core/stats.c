// SPDX-License-Identifier: GPL-2.0-only
/*
 * Per-CPU counters: bumped on every flush without a shared cache line, summed
 * only when read.
 */
#include "fp_core.h"

/**
 * fp_context_stat() - read one counter of a context
 * @ctx: the context
 * @stat: which counter
 *
 * Return: the sum over all CPUs.
 */
u64 fp_context_stat(struct fp_context *ctx, enum fp_stat stat)
{
	bool va = false, range = false;
	struct fp_stats *s;
	u64 sum = 0;
	int cpu;

	/* What one leaf sent as one command and its sync counts as. */
	switch (stat) {
	case FP_STAT_UNMAPS:
	case FP_STAT_PAGES:
	case FP_STAT_SYNCS:
		va = true;
		range = true;
		break;
	case FP_STAT_TLBI_VA:
		va = true;
		break;
	case FP_STAT_TLBI_RANGE:
		range = true;
		break;
	default:
		break;
	}
	for_each_possible_cpu(cpu) {
		s = per_cpu_ptr(ctx->stats, cpu);
		sum += atomic64_read(&s->v[stat]);
		if (va)
			sum += atomic64_read(&s->leaf[FP_LEAF_VA]);
		if (range)
			sum += atomic64_read(&s->leaf[FP_LEAF_RANGE]);
	}
	return sum;
}
EXPORT_SYMBOL_GPL(fp_context_stat);

static void fp_lat_hist_reset(struct fp_lat_hist *h)
{
	int b;

	for (b = 0; b < FP_LAT_BUCKETS; b++)
		atomic64_set(&h->bucket[b], 0);
	atomic64_set(&h->count, 0);
	atomic64_set(&h->total_ns, 0);
}

/**
 * fp_context_reset_stats() - set every counter of a context to zero
 * @ctx: the context
 *
 * The latency histograms too, and the page-table time of unmaps whose
 * iotlb_sync is yet to come.  Not atomic against flushes running on other
 * CPUs: those may land before or after the reset.
 */
void fp_context_reset_stats(struct fp_context *ctx)
{
	struct fp_stats *st;
	int cpu, s;

	for_each_possible_cpu(cpu) {
		st = per_cpu_ptr(ctx->stats, cpu);
		for (s = 0; s < FP_STAT_NR; s++)
			atomic64_set(&st->v[s], 0);
		for (s = 0; s < FP_LEAF_NR; s++)
			atomic64_set(&st->leaf[s], 0);
		for (s = 0; s < FP_LAT_NR; s++)
			fp_lat_hist_reset(&st->lat[s]);
		atomic64_set(&st->lat_pending_ns, 0);
	}
}
EXPORT_SYMBOL_GPL(fp_context_reset_stats);
