/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The IOMMU API of newer kernels, for the edu test modules on older ones
 * (e2e/Kbuild's probes set the FP_HAVE_* macros).
 */
#ifndef _FP_E2E_COMPAT_H
#define _FP_E2E_COMPAT_H

#include <linux/device.h>
#include <linux/err.h>
#include <linux/iommu.h>

#ifndef FP_HAVE_IOMMU_PAGING_DOMAIN_ALLOC
/* 6.11's successor of iommu_domain_alloc(bus), which returned NULL. */
static inline struct iommu_domain *iommu_paging_domain_alloc(struct device *dev)
{
	return iommu_domain_alloc(dev->bus) ?: ERR_PTR(-ENOMEM);
}
#endif

#ifndef FP_HAVE_IOMMU_MAP_GFP
/* Before 6.3, iommu_map() allocated its tables with GFP_KERNEL. */
#define iommu_map(domain, iova, paddr, size, prot, gfp) ({	\
	(void)(gfp);						\
	iommu_map(domain, iova, paddr, size, prot);		\
})
#endif

#endif /* _FP_E2E_COMPAT_H */
