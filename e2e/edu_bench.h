/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What both edu benchmark modules print for one series of timed unmaps,
 * flushpol's and the upstream driver's, so that make bench reads them alike.
 */
#ifndef _EDU_BENCH_H
#define _EDU_BENCH_H

#include <linux/kernel.h>
#include <linux/printk.h>
#include <linux/sort.h>

#define EDU_BENCH_MAX_REPS	1000
/* Series up to this long are also printed unit by unit, for pooling. */
#define EDU_SAMPLES_MAX		64

static inline int edu_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/*
 * Every unmap's time, in order, for make bench to pool runs of a few
 * repetitions each (its noise figures) without losing the percentiles;
 * then the series' median, p99, extremes and per-unmap command counts.
 */
static inline void edu_bench_report(u64 *ns, unsigned int reps, size_t size,
				    u64 cmds, u64 syncs)
{
	char buf[EDU_SAMPLES_MAX * 12];
	unsigned int i, len = 0;

	if (reps <= EDU_SAMPLES_MAX) {
		for (i = 0; i < reps; i++)
			len += scnprintf(buf + len, sizeof(buf) - len, "%s%llu",
					 i ? "," : "", ns[i]);
		pr_info("fp-bench-ns: %s\n", buf);
	}
	sort(ns, reps, sizeof(*ns), edu_cmp_u64, NULL);
	pr_info("fp-bench: size=%zu reps=%u median_ns=%llu p99_ns=%llu min_ns=%llu max_ns=%llu cmds=%llu syncs=%llu\n",
		size, reps, ns[reps / 2], ns[(reps * 99) / 100], ns[0],
		ns[reps - 1], cmds, syncs);
}

#endif /* _EDU_BENCH_H */
