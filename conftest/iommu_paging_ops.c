// SPDX-License-Identifier: GPL-2.0-only
/*
 * Probe: the driver gives the IOMMU core static identity and blocked
 * domains and allocates paging domains with domain_alloc_paging (6.8),
 * rather than every domain through domain_alloc(type) (6.1).
 */
#include <linux/iommu.h>

static struct iommu_domain fp_probe_identity;

static struct iommu_domain *fp_probe_alloc(struct device *dev)
{
	return NULL;
}

const struct iommu_ops fp_probe_ops = {
	.identity_domain	= &fp_probe_identity,
	.blocked_domain		= &fp_probe_identity,
	.domain_alloc_paging	= fp_probe_alloc,
};
