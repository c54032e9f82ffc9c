// SPDX-License-Identifier: GPL-2.0-only
/*
 * range: one span per request, encoded by the backend in the fewest range
 * commands its hardware has (SMMUv3.2 RIL).  No collateral damage, a
 * handful of commands whatever the size.
 */
#include "../core/fp_core.h"

static bool fp_range_usable(const struct fp_context *ctx)
{
	return fp_context_has_range(ctx);
}

static void fp_range_flush_walk(struct fp_context *ctx, unsigned long iova,
				size_t size, size_t granule)
{
	fp_inv_range_sync(ctx, iova, size, granule, false, NULL);
}

static void fp_range_flush_gather(struct fp_context *ctx,
				  const struct iommu_iotlb_gather *gather)
{
	if (!fp_gather_pages(gather) || fp_gather_covered(ctx, gather))
		return;
	fp_inv_range_sync(ctx, gather->start, gather->end - gather->start + 1,
			  gather->pgsize, true, NULL);
}

/* One leaf: one range command and a sync, which the core may send. */
struct fp_policy fp_policy_range = {
	.name		= "range",
	.owner		= THIS_MODULE,
	.usable		= fp_range_usable,
	.flush_walk	= fp_range_flush_walk,
	.flush_gather	= fp_range_flush_gather,
	.one_leaf	= FP_ONE_LEAF_PRECISE,
};
