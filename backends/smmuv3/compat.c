// SPDX-License-Identifier: GPL-2.0-only
/*
 * The driver's ops for kernels whose IOMMU core predates the paging ops
 * (compat.h): 6.1 asks domain_alloc(type) for every domain it uses.
 */
#define pr_fmt(fmt) "flushpol_smmuv3: " fmt

#include "compat.h"
#include "smmuv3_dev.h"

#ifndef FP_HAVE_IOMMU_PAGING_OPS
/**
 * smmuv3_domain_alloc() - a domain of @type for the IOMMU core
 * @type: IOMMU_DOMAIN_*
 *
 * Identity and blocked domains are the static ones newer kernels take
 * from the ops (the core only sets their type again, and frees them
 * through an op that does nothing); the rest are paging domains, which
 * the first attach finalises as it does on newer kernels.
 *
 * Return: the domain, or NULL for a type this driver has no domain of.
 */
struct iommu_domain *smmuv3_domain_alloc(unsigned int type)
{
	struct iommu_domain *domain;

	switch (type) {
	case IOMMU_DOMAIN_IDENTITY:
		return &smmuv3_identity_domain;
	case IOMMU_DOMAIN_BLOCKED:
		return &smmuv3_blocked_domain;
	case IOMMU_DOMAIN_UNMANAGED:
	case IOMMU_DOMAIN_DMA:
	case IOMMU_DOMAIN_DMA_FQ:
		domain = smmuv3_domain_alloc_paging(NULL);
		return IS_ERR(domain) ? NULL : domain;
	default:
		return NULL;
	}
}
#endif
