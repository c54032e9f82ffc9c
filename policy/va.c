// SPDX-License-Identifier: GPL-2.0-only
/*
 * va: what upstream arm-smmu (SMMUv2) does, and the baseline every other
 * policy is compared with.  A freed table costs one non-leaf by-VA command
 * per granule it covered; a gather one leaf by-VA command per entry.  The
 * gather ends with a sync, empty or not, as upstream's iotlb_sync does;
 * except a covered one that fp_unmap() hands over early, before the
 * caller's own iotlb_sync: its leaves are already invalidated, and its
 * commands, sent only to match upstream's, complete at that sync.
 */
#include "../core/fp_core.h"

static void fp_va_flush_walk(struct fp_context *ctx, unsigned long iova,
			     size_t size, size_t granule)
{
	fp_inv_va_sync(ctx, iova, size, granule, false);
}

static void fp_va_flush_gather(struct fp_context *ctx,
			       const struct iommu_iotlb_gather *gather)
{
	size_t size = gather->end - gather->start + 1;

	if (!fp_gather_pages(gather)) {
		if (!fp_gather_early(gather))
			fp_sync(ctx);
	} else if (fp_gather_early(gather)) {
		fp_inv_va(ctx, gather->start, size, gather->pgsize, true);
	} else {
		fp_inv_va_sync(ctx, gather->start, size, gather->pgsize, true);
	}
}

/* One leaf: one by-VA command and a sync, which the core may send. */
struct fp_policy fp_policy_va = {
	.name		= "va",
	.owner		= THIS_MODULE,
	.flush_walk	= fp_va_flush_walk,
	.flush_gather	= fp_va_flush_gather,
	.one_leaf	= FP_ONE_LEAF_VA,
};
