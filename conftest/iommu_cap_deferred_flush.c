// SPDX-License-Identifier: GPL-2.0-only
/*
 * Probe: IOMMU_CAP_DEFERRED_FLUSH (6.5), without which iommu-dma turns a
 * DMA-FQ domain strict; before it, every driver's DMA-FQ domains were lazy.
 */
#include <linux/iommu.h>

int fp_probe_cap = IOMMU_CAP_DEFERRED_FLUSH;
