// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unmap through flushpol the way the IOMMU core's iommu_unmap() does, for
 * drivers (and tests) that drive io-pgtable without the IOMMU core.
 */
#include <linux/bitops.h>

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

/**
 * fp_unmap() - unmap a range of an io-pgtable whose cookie is @ctx
 * @ctx: the context
 * @ops: its page table
 * @iova: start, aligned to the smallest page size
 * @size: length
 * @gather: a gather to add to, the caller then calls fp_iotlb_sync() (as
 *	iommu_unmap_fast() leaves it); or NULL to unmap and sync here, as
 *	iommu_unmap() does
 *
 * Unmapping through here rather than through @ops directly also lets the
 * walk flushes of this call cover the table entries it gathers, which
 * saves the policies a command for them (see coverage.c).
 *
 * Return: bytes unmapped; less than @size if a page was not mapped.
 */
size_t fp_unmap(struct fp_context *ctx, struct io_pgtable_ops *ops,
		unsigned long iova, size_t size,
		struct iommu_iotlb_gather *gather)
{
	unsigned long bitmap = io_pgtable_ops_to_pgtable(ops)->cfg.pgsize_bitmap;
	struct iommu_iotlb_gather local;
	struct fp_cov_unmap cov;
	size_t unmapped = 0;

	if (!gather) {
		iommu_iotlb_gather_init(&local);
		gather = &local;
	}
	/* Walks flushed from here to the end may cover what is gathered. */
	fp_cov_unmap_begin(ctx, &cov);
	while (unmapped < size) {
		size_t count, pgsize, n;

		pgsize = fp_unmap_pgsize(bitmap, iova + unmapped,
					 size - unmapped, &count);
		n = ops->unmap_pages(ops, iova + unmapped, pgsize, count,
				     gather);
		if (!n)
			break;
		unmapped += n;
	}
	fp_cov_unmap_end(ctx, &cov);
	if (gather == &local)
		fp_iotlb_sync(ctx, gather);
	return unmapped;
}
EXPORT_SYMBOL_GPL(fp_unmap);
