/* SPDX-License-Identifier: GPL-2.0-only */
/* Ops shared between built-in policies. */
#ifndef _FP_POLICY_H
#define _FP_POLICY_H

#include "../include/flushpol.h"

void fp_asid_flush_walk(struct fp_context *ctx, unsigned long iova,
			size_t size, size_t granule);
void fp_asid_flush_gather(struct fp_context *ctx,
			  const struct iommu_iotlb_gather *gather);

void fp_threshold_flush_walk(struct fp_context *ctx, unsigned long iova,
			     size_t size, size_t granule);
void fp_threshold_flush_gather(struct fp_context *ctx,
			       const struct iommu_iotlb_gather *gather);

#endif /* _FP_POLICY_H */
