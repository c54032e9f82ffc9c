// SPDX-License-Identifier: GPL-2.0-only
/*
 * nonstrict: for lazy contexts only.  Their unmaps are queued, io-pgtable
 * gathers no pages for them, and the DMA flush queue ends each batch with
 * flush_iotlb_all, where the whole context is invalidated.  Walks cannot
 * wait for the queue and an unqueued unmap on a lazy domain (a direct
 * iommu_unmap()) cannot either: both get one synchronous context flush, the
 * over-invalidation a lazy domain has already accepted.
 *
 * A strict context cannot select it (-EOPNOTSUPP): there it would be asid
 * under another name.
 */
#include "../core/fp_core.h"
#include "policy.h"

static bool fp_nonstrict_usable(const struct fp_context *ctx)
{
	return fp_context_is_lazy(ctx);
}

struct fp_policy fp_policy_nonstrict = {
	.name		= "nonstrict",
	.owner		= THIS_MODULE,
	.usable		= fp_nonstrict_usable,
	.flush_walk	= fp_asid_flush_walk,
	.flush_gather	= fp_asid_flush_gather,
};
