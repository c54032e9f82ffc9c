// SPDX-License-Identifier: GPL-2.0-only
/*
 * asid: invalidate the whole context (ASID, or VMID at stage 2) for every
 * freed table and every non-empty gather.  The fewest commands, at the price
 * of every other live entry of the context; what upstream's qcom
 * flush_walk_prefer_tlbiasid does for walks.
 */
#include "../core/fp_core.h"
#include "policy.h"

void fp_asid_flush_walk(struct fp_context *ctx, unsigned long iova,
			size_t size, size_t granule)
{
	fp_flush_context(ctx);
}

void fp_asid_flush_gather(struct fp_context *ctx,
			  const struct iommu_iotlb_gather *gather)
{
	/* A walk flush later in the same unmap may already have done it. */
	if (fp_gather_pages(gather) && !fp_gather_covered(ctx, gather))
		fp_flush_context(ctx);
}

struct fp_policy fp_policy_asid = {
	.name		= "asid",
	.owner		= THIS_MODULE,
	.flush_walk	= fp_asid_flush_walk,
	.flush_gather	= fp_asid_flush_gather,
};
