// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unmap through flushpol the way the IOMMU core's iommu_unmap() does: for
 * drivers (and tests) that drive io-pgtable without the IOMMU core, and
 * for a driver's unmap_pages, with the core's gather.
 */
#define pr_fmt(fmt) "flushpol: " fmt

#include <linux/bitops.h>
#include <linux/printk.h>

#include "fp_core.h"

/*
 * The page size and count iommu_pgsize() picks: the largest supported size
 * @iova is aligned to and @size holds, as many as fit before a larger size
 * would become usable.
 */
static size_t fp_unmap_pgsize(unsigned long bitmap, unsigned long iova,
			      size_t size, size_t *count)
{
	unsigned long sizes = bitmap & GENMASK(__fls(size), 0);
	size_t pgsize, next, offset;

	if (iova)
		sizes &= GENMASK(__ffs(iova), 0);
	pgsize = BIT(__fls(sizes));

	sizes = bitmap & ~GENMASK(__fls(sizes), 0);
	if (sizes) {
		next = BIT(__ffs(sizes));
		offset = next - (iova & (next - 1));
		if (offset + next <= size)
			size = offset;
	}
	*count = size / pgsize;
	return pgsize;
}

/*
 * The call's own gather, at its end.  With no @outer, iommu_unmap()'s
 * iotlb_sync on it.  Covered, it goes to the policy now (which sends
 * nothing for it, or, under va, upstream's leaf commands, left for
 * @outer's sync to complete); otherwise its leaves join @outer, whose
 * sync invalidates them.
 */
static void fp_unmap_end(struct fp_context *ctx, struct fp_call *c,
			 struct iommu_iotlb_gather *outer)
{
	struct iommu_iotlb_gather *in = &c->gather;
	size_t len = in->end - in->start + 1;

	if (!outer) {
		fp_stat_add(ctx, FP_STAT_UNMAPS, 1);
		fp_dispatch_gather(ctx, in, c, false);
		return;
	}
	if (!fp_gather_pages(in))
		return;
	if (fp_cov_covered(c)) {
		fp_dispatch_gather(ctx, in, c, true);
		return;
	}
	if ((outer->pgsize && outer->pgsize != in->pgsize) ||
	    iommu_iotlb_gather_is_disjoint(outer, in->start, len)) {
		fp_dispatch_gather(ctx, outer, NULL, false);
		outer->start = ULONG_MAX;
		outer->end = 0;
	}
	outer->pgsize = in->pgsize;
	iommu_iotlb_gather_add_range(outer, in->start, len);
	/* @outer's dispatch counts them as pages; their walks did already. */
	if (c->walk_leaves)
		fp_stat_add(ctx, FP_STAT_PAGES, -(u64)c->walk_leaves);
}

/*
 * The unmap of smallest pages: straight into @gather, as the IOMMU core's
 * iommu_unmap() does, with no record.  Its leaves are gathered by
 * fp_tlb_add_page() as any gather's (a gather that would become
 * disjoint is handed to the policy first), and its walks, if any, are
 * flushed by the policy with no record to cover (R4): what the record
 * would have done with them.
 */
static size_t fp_unmap_leaves(struct io_pgtable_ops *ops, unsigned long iova,
			      size_t size, unsigned int shift,
			      struct iommu_iotlb_gather *gather)
{
	size_t unmapped = 0, n;

	while (unmapped < size) {
		n = ops->unmap_pages(ops, iova + unmapped, BIT(shift),
				     (size - unmapped) >> shift, gather);
		if (!n)
			break;
		unmapped += n;
	}
	return unmapped;
}

/*
 * An unmap that may free tables: in the pieces iommu_unmap() would make,
 * into @c's own gather, each piece larger than the smallest pages with @c
 * this CPU's current call, for its walk flushes to cover (coverage.c).
 */
static size_t fp_unmap_tables(struct io_pgtable_ops *ops, unsigned long iova,
			      size_t size, unsigned long bitmap,
			      struct fp_call *c)
{
	unsigned long min_pagesz = BIT(__ffs(bitmap));
	size_t unmapped = 0;

	while (unmapped < size) {
		size_t count, pgsize, n;
		bool frees;

		pgsize = fp_unmap_pgsize(bitmap, iova + unmapped,
					 size - unmapped, &count);
		/*
		 * Only pages larger than the smallest can be tables that the
		 * page table frees, with the walk flushes the call's record is
		 * for (coverage.c, W1).  A piece of the smallest pages frees
		 * none: a walk it causes (arm-v7s splitting a contiguous
		 * entry) finds no record and covers nothing, as it would have,
		 * and the piece saves migration off and on (coverage.c, R4).
		 */
		frees = pgsize > min_pagesz;
		if (frees)
			fp_call_enter(c);
		n = ops->unmap_pages(ops, iova + unmapped, pgsize, count,
				     &c->gather);
		if (frees)
			fp_call_leave(c);
		if (!n)
			break;
		unmapped += n;
	}
	return unmapped;
}

/*
 * fp_unmap()'s work.  @lat: the latency histograms are kept (a constant):
 * the syncs that end its own gather are timed; the unmap itself is timed
 * by fp_unmap_timed().
 */
static __always_inline size_t fp_unmap_body(struct fp_context *ctx,
					    struct io_pgtable_ops *ops,
					    unsigned long iova, size_t size,
					    struct iommu_iotlb_gather *gather,
					    bool lat)
{
	unsigned long bitmap = io_pgtable_ops_to_pgtable(ops)->cfg.pgsize_bitmap;
	unsigned long min_pagesz = bitmap ? BIT(__ffs(bitmap)) : 0;
	/* Initialised whole by fp_call_begin(): not twice (INIT_STACK_ALL). */
	struct fp_call call __uninitialized;
	/* Used only with no caller's gather, then by iommu_iotlb_gather_init(). */
	struct iommu_iotlb_gather own __uninitialized;
	size_t unmapped;
	bool counted, leaves;

	/* fp_unmap_pgsize() would reach __fls(0). */
	if (!min_pagesz || !IS_ALIGNED(iova | size, min_pagesz)) {
		pr_warn_once("%s: unaligned unmap: iova 0x%lx size 0x%zx min_pagesz 0x%lx\n",
			     ctx->name, iova, size, min_pagesz);
		return 0;
	}
	/*
	 * Out of the footprint before any flush is decided: these entries go
	 * whatever the policy does; and what this CPU mapped since @iova, if
	 * it mapped it, says how much of the rest streams (estimate.c).  Once
	 * per call, only while a policy that reads the footprint (adaptive)
	 * is registered, and only once fp_map() counts anything (before, the
	 * count means nothing and adaptive assumes the TLB full).
	 */
	counted = fp_estimate_kept() && READ_ONCE(ctx->est.maps_seen);
	if (counted) {
		percpu_counter_sub(&ctx->est.resident, size >> __ffs(min_pagesz));
		fp_estimate_unmapping(&ctx->est, iova, __ffs(min_pagesz),
				      size >> __ffs(min_pagesz));
	}
	leaves = fp_unmap_smallest(bitmap, size);
	if (leaves) {
		if (!gather) {
			iommu_iotlb_gather_init(&own);
			gather = &own;
		}
		unmapped = fp_unmap_leaves(ops, iova, size, __ffs(min_pagesz),
					   gather);
	} else {
		fp_call_begin(ctx, &call, gather);
		unmapped = fp_unmap_tables(ops, iova, size, bitmap, &call);
	}
	/* Put back what turned out not to have been mapped. */
	if (counted && unmapped < size)
		percpu_counter_add(&ctx->est.resident,
				   (size - unmapped) >> __ffs(min_pagesz));
	if (gather == &own) {
		/* iommu_unmap()'s iotlb_sync, on its own gather. */
		if (lat)
			fp_iotlb_sync_lat(ctx, &own);
		else
			fp_iotlb_sync_untimed(ctx, &own);
	} else if (!leaves) {
		fp_unmap_end(ctx, &call, gather);
	}
	return unmapped;
}

/*
 * fp_unmap() while the latency histograms are kept (latency.c): with no
 * gather, the whole unmap is one sample; into a strict caller's gather,
 * its time waits on this CPU for the fp_iotlb_sync() that ends the unmap.
 */
static noinline size_t fp_unmap_timed(struct fp_context *ctx,
				      struct io_pgtable_ops *ops,
				      unsigned long iova, size_t size,
				      struct iommu_iotlb_gather *gather)
{
	u64 t0 = fp_context_clock(ctx), t;
	size_t unmapped;

	unmapped = fp_unmap_body(ctx, ops, iova, size, gather, true);
	t = fp_context_clock(ctx) - t0;
	if (!gather)
		fp_lat_record(ctx, FP_LAT_UNMAP, t);
	else if (!iommu_iotlb_gather_queued(gather))
		atomic64_add(t, &raw_cpu_ptr(ctx->stats)->lat_pending_ns);
	return unmapped;
}

/**
 * fp_unmap() - unmap a range of an io-pgtable whose cookie is @ctx
 * @ctx: the context
 * @ops: its page table
 * @iova: start, aligned to the smallest page size
 * @size: length, a multiple of the smallest page size
 * @gather: a gather to add to, the caller then calls fp_iotlb_sync() (as
 *	iommu_unmap_fast() leaves it, and as a driver's unmap_pages gets it
 *	from the IOMMU core); or NULL to unmap and sync here, as
 *	iommu_unmap() does
 *
 * Unmapping through here rather than through @ops directly also lets the
 * walk flushes of this call cover the table entries it gathers, which
 * saves the policies a command for them (see coverage.c).  A page table
 * call that may free tables is made with migration off (preemption stays
 * on).  An unmap that can free none (only pages of the smallest size fit
 * in @size) goes straight into @gather, or into one of its own that
 * fp_iotlb_sync() then ends, with no per-call record.
 *
 * While the latency histograms are kept (/sys/kernel/flushpol/latency),
 * the unmap is timed: see latency.c for what one sample spans.
 *
 * Return: bytes unmapped; less than @size if a page was not mapped; 0 for
 * a misaligned @iova or @size, refused with a warning as iommu_unmap()
 * refuses it.
 */
size_t fp_unmap(struct fp_context *ctx, struct io_pgtable_ops *ops,
		unsigned long iova, size_t size,
		struct iommu_iotlb_gather *gather)
{
	if (fp_latency_on())
		return fp_unmap_timed(ctx, ops, iova, size, gather);
	return fp_unmap_body(ctx, ops, iova, size, gather, false);
}
EXPORT_SYMBOL_GPL(fp_unmap);
