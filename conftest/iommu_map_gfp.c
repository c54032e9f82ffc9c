// SPDX-License-Identifier: GPL-2.0-only
/* Probe: iommu_map() takes the caller's gfp_t (6.3). */
#include <linux/iommu.h>

static int fp_probe(struct iommu_domain *domain)
{
	return iommu_map(domain, 0, 0, 4096, IOMMU_READ, GFP_KERNEL);
}

int (*fp_probe_use)(struct iommu_domain *domain) = fp_probe;
