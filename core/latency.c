// SPDX-License-Identifier: GPL-2.0-only
/*
 * Latency histograms, per context, read without tracing: how long strict
 * unmaps took and how long the backend's syncs took, in log2 buckets of
 * nanoseconds, as VT-d's dmar_perf_latency keeps them for its queued
 * invalidation.
 *
 * Off by default: a static key, switched by /sys/kernel/flushpol/latency
 * and the latency_stats module parameter.  While it is off every timed
 * path is behind a branch patched to a NOP, and the code it would run is
 * out of line (fp_unmap_timed(), fp_iotlb_sync_timed(), fp_sync_timed()):
 * the untimed paths are compiled as they were, with no clock read and no
 * register kept for one.
 *
 * Where the time is taken (fp_context_clock(): the backend's clock, or
 * ktime_get_ns()):
 *
 * - sync: around each of the backend's waits the core makes, &fp_hw_ops.sync
 *   (fp_sync()), and the commands-and-sync operations &fp_hw_ops.inv_va_sync
 *   and &fp_hw_ops.inv_range_sync (fp_inv_va_sync(), fp_inv_range_sync(),
 *   the core's one-leaf path), whose time is mostly the wait.  A sync that
 *   failed is counted too, with the time it took to fail.
 * - unmap: each strict unmap as its caller waits for it, from fp_unmap()'s
 *   entry (the page-table clear, and the walk flushes it causes) to the end
 *   of the invalidation of what it gathered.  fp_unmap() with no gather
 *   (iommu_unmap()'s shape) is one sample from entry to return.  A driver's
 *   unmap_pages (fp_unmap() into the IOMMU core's gather, perhaps several
 *   calls) and its iotlb_sync (fp_iotlb_sync()) are separate calls: the
 *   unmap_pages time is added up per CPU (&fp_stats.lat_pending_ns), and the
 *   iotlb_sync that follows records it with its own as one sample.  An
 *   unmap that moved to another CPU between the two, or that an interrupt's
 *   own unmap came between, has its page-table time counted in another
 *   sample of the same context on that CPU: the total stays exact, one
 *   sample of each is off.  So is one around a switch of the key.  A lazy
 *   unmap (a queued gather) is not timed.
 *
 * Each histogram keeps a count and a total, for a mean.  Per CPU, atomic as
 * the other counters (fp_core.h); summed when read.
 */
#define pr_fmt(fmt) "flushpol: " fmt

#include <linux/log2.h>
#include <linux/moduleparam.h>
#include <linux/sysfs.h>

#include "fp_core.h"

/* On while the histograms are kept; read inline by fp_unmap_pages(). */
struct static_key_false fp_latency_key = STATIC_KEY_FALSE_INIT;
EXPORT_SYMBOL_GPL(fp_latency_key);

/* The bucket of @ns: see fp_core.h. */
static unsigned int fp_lat_bucket(u64 ns)
{
	return min_t(unsigned int, fls64(ns >> 10), FP_LAT_BUCKETS - 1);
}

/**
 * fp_lat_record() - count one sample of @ns in @ctx's histogram @k
 * @ctx: the context
 * @k: which histogram
 * @ns: the time taken
 */
void fp_lat_record(struct fp_context *ctx, enum fp_lat_kind k, u64 ns)
{
	struct fp_lat_hist *h = &raw_cpu_ptr(ctx->stats)->lat[k];

	atomic64_inc(&h->bucket[fp_lat_bucket(ns)]);
	atomic64_inc(&h->count);
	atomic64_add(ns, &h->total_ns);
}

/**
 * fp_lat_show() - a histogram of @ctx as its sysfs file shows it
 * @ctx: the context
 * @k: which histogram
 * @buf: sysfs's page
 *
 * One line per bucket, "lt_<ns> <count>" (times below <ns>, and at or
 * above the line before's), then "ge_1073741824 <count>", "count <n>" and
 * "total_ns <ns>".
 *
 * Return: the bytes written.
 */
ssize_t fp_lat_show(struct fp_context *ctx, enum fp_lat_kind k, char *buf)
{
	u64 b[FP_LAT_BUCKETS] = {}, count = 0, total = 0;
	struct fp_lat_hist *h;
	int cpu, i, len = 0;

	for_each_possible_cpu(cpu) {
		h = &per_cpu_ptr(ctx->stats, cpu)->lat[k];
		for (i = 0; i < FP_LAT_BUCKETS; i++)
			b[i] += atomic64_read(&h->bucket[i]);
		count += atomic64_read(&h->count);
		total += atomic64_read(&h->total_ns);
	}
	for (i = 0; i < FP_LAT_BUCKETS - 1; i++)
		len += sysfs_emit_at(buf, len, "lt_%llu %llu\n", 1ULL << (10 + i),
				     b[i]);
	len += sysfs_emit_at(buf, len, "ge_%llu %llu\n",
			     1ULL << (10 + FP_LAT_BUCKETS - 2), b[i]);
	len += sysfs_emit_at(buf, len, "count %llu\ntotal_ns %llu\n", count,
			     total);
	return len;
}

/**
 * fp_latency_set() - start or stop timing unmaps and syncs
 * @on: whether to
 *
 * What was counted stays until a context's stats/reset.
 *
 * Context: process context; may sleep (patches the kernel's text).
 * Return: 0.
 */
int fp_latency_set(bool on)
{
	if (on)
		static_branch_enable(&fp_latency_key);
	else
		static_branch_disable(&fp_latency_key);
	return 0;
}

/* The latency_stats parameter: applied by fp_latency_init() at load. */
static bool fp_latency_at_load;

static int fp_latency_param_set(const char *val,
				const struct kernel_param *kp)
{
	bool on = true;

	/* A bare "latency_stats" is "on", as a bool parameter's is. */
	if (val && kstrtobool(val, &on))
		return fp_param_refuse(kp, val, fp_latency_at_load ? "on" : "off");
	fp_latency_at_load = on;
	return 0;
}

/* What is in force now, which /sys/kernel/flushpol/latency may change. */
static int fp_latency_param_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%c\n",
			  static_key_enabled(&fp_latency_key) ? 'Y' : 'N');
}

static const struct kernel_param_ops fp_latency_param_ops = {
	.flags = KERNEL_PARAM_OPS_FL_NOARG,
	.set = fp_latency_param_set,
	.get = fp_latency_param_get,
};
module_param_cb(latency_stats, &fp_latency_param_ops, NULL, 0444);
MODULE_PARM_DESC(latency_stats,
		 "Keep every context's unmap and sync latency histograms from load; switched at run time by /sys/kernel/flushpol/latency (default: N)");

/* At load, once the parameters are parsed (fp_init()). */
void fp_latency_init(void)
{
	if (fp_latency_at_load)
		fp_latency_set(true);
}
