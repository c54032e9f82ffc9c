// SPDX-License-Identifier: GPL-2.0-only
/*
 * Probe: iommu_paging_domain_alloc(dev) (6.11), the successor of
 * iommu_domain_alloc(bus).
 */
#include <linux/iommu.h>

struct iommu_domain *fp_probe(struct device *dev);

struct iommu_domain *fp_probe(struct device *dev)
{
	return iommu_paging_domain_alloc(dev);
}
