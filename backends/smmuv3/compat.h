/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What differs between the kernels the SMMUv3 driver builds for.  Only
 * Debian's 6.12 so far; 6.1 (per-bus ops, domain_alloc) will go here too.
 */
#ifndef _FP_SMMUV3_COMPAT_H
#define _FP_SMMUV3_COMPAT_H

#include <linux/device.h>
#include <linux/list.h>

#if IS_ENABLED(CONFIG_IOMMU_DMA)
/*
 * The firmware's reserved regions (IORT RMRs, DT reserved-memory): exported
 * by drivers/iommu/dma-iommu.c, but declared only in its private header,
 * which kernel header packages do not ship.
 */
void iommu_dma_get_resv_regions(struct device *dev, struct list_head *list);
#else
static inline void iommu_dma_get_resv_regions(struct device *dev,
					      struct list_head *list)
{
}
#endif

#endif /* _FP_SMMUV3_COMPAT_H */
