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
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += atomic64_read(&per_cpu_ptr(ctx->stats, cpu)->v[stat]);
	return sum;
}
EXPORT_SYMBOL_GPL(fp_context_stat);

/**
 * fp_context_reset_stats() - set every counter of a context to zero
 * @ctx: the context
 *
 * Not atomic against flushes running on other CPUs: those may land before
 * or after the reset.
 */
void fp_context_reset_stats(struct fp_context *ctx)
{
	int cpu, s;

	for_each_possible_cpu(cpu)
		for (s = 0; s < FP_STAT_NR; s++)
			atomic64_set(&per_cpu_ptr(ctx->stats, cpu)->v[s], 0);
}
EXPORT_SYMBOL_GPL(fp_context_reset_stats);
