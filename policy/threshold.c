// SPDX-License-Identifier: GPL-2.0-only
/*
 * threshold: precise below N TLB entries, the whole context above, N per
 * context from sysfs (default from the backend: 128 on Qualcomm, as its
 * hardware team recommends).  Below N it uses range commands where the
 * backend has them, by-VA commands otherwise.
 *
 * Built into the core, as the default of most backends: its calls, like
 * every built-in policy's, are not pinned (core/dispatch.c).
 */
#include "../core/fp_core.h"
#include "policy.h"

static void fp_threshold_precise(struct fp_context *ctx, unsigned long iova,
				 size_t size, size_t granule, bool leaf)
{
	if (fp_context_has_range(ctx))
		fp_inv_range_sync(ctx, iova, size, granule, leaf, NULL);
	else
		fp_inv_va_sync(ctx, iova, size, granule, leaf);
}

void fp_threshold_flush_walk(struct fp_context *ctx, unsigned long iova,
			     size_t size, size_t granule)
{
	if (size / granule > fp_context_threshold(ctx))
		fp_flush_context(ctx);
	else
		fp_threshold_precise(ctx, iova, size, granule, false);
}

void fp_threshold_flush_gather(struct fp_context *ctx,
			       const struct iommu_iotlb_gather *gather)
{
	unsigned long pages = fp_gather_pages(gather);

	if (!pages || fp_gather_covered(ctx, gather))
		return;
	if (pages > fp_context_threshold(ctx))
		fp_flush_context(ctx);
	else
		fp_threshold_precise(ctx, gather->start,
				     gather->end - gather->start + 1,
				     gather->pgsize, true);
}

/*
 * One leaf is never above a threshold (at least 1): one precise command
 * and a sync, which the core may send.
 */
struct fp_policy fp_policy_threshold = {
	.name		= "threshold",
	.owner		= THIS_MODULE,
	.flush_walk	= fp_threshold_flush_walk,
	.flush_gather	= fp_threshold_flush_gather,
	.one_leaf	= FP_ONE_LEAF_PRECISE,
};
