// SPDX-License-Identifier: GPL-2.0-only
/*
 * Probe: the gather's freelist is a struct iommu_pages_list (6.15), the
 * IOMMU page allocator's own list, no longer a bare list_head.
 */
#include <linux/iommu.h>

struct list_head *fp_probe(struct iommu_iotlb_gather *gather);

struct list_head *fp_probe(struct iommu_iotlb_gather *gather)
{
	return &gather->freelist.pages;
}
