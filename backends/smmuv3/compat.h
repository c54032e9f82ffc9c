/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What differs between the kernels the SMMUv3 driver builds for (Debian's
 * 6.1 and 6.12), in one place.  Kbuild's probes (conftest/) set the
 * FP_HAVE_* macros; the rest of the driver reads the same on every kernel.
 */
#ifndef _FP_SMMUV3_COMPAT_H
#define _FP_SMMUV3_COMPAT_H

#include <linux/device.h>
#include <linux/iommu.h>
#include <linux/list.h>
#include <linux/module.h>

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

/*
 * How the core gets domains.  6.8 and later: static identity and blocked
 * domains, and domain_alloc_paging for the rest.  Before: every domain
 * through domain_alloc(type), NULL on failure, freed through its ops
 * (compat.c hands out the same static domains).
 */
#ifdef FP_HAVE_IOMMU_PAGING_OPS
#define SMMUV3_DOMAIN_ALLOC_OPS					\
	.identity_domain	= &smmuv3_identity_domain,	\
	.blocked_domain		= &smmuv3_blocked_domain,	\
	.domain_alloc_paging	= smmuv3_domain_alloc_paging
#else
struct iommu_domain *smmuv3_domain_alloc(unsigned int type);
#define SMMUV3_DOMAIN_ALLOC_OPS					\
	.domain_alloc		= smmuv3_domain_alloc
#endif

/* of_xlate's arguments became const in 6.9. */
#ifdef FP_HAVE_OF_XLATE_CONST
#define SMMUV3_OF_ARGS_CONST const
#else
#define SMMUV3_OF_ARGS_CONST
#endif

/*
 * Whether @cap is IOMMU_CAP_DEFERRED_FLUSH (6.5), which a driver must
 * claim for its DMA-FQ domains to stay lazy.  Before it, they all were.
 */
static inline bool smmuv3_cap_is_deferred_flush(enum iommu_cap cap)
{
#ifdef FP_HAVE_IOMMU_CAP_DEFERRED_FLUSH
	return cap == IOMMU_CAP_DEFERRED_FLUSH;
#else
	return false;
#endif
}

/*
 * Whether @fwspec was made for @ops.  Until 6.9 a fwspec names its ops, and
 * one made while no IOMMU driver was registered names none: its device
 * gave up waiting and bound without an IOMMU.  The core up to 6.7 offers
 * such a device to us all the same when we register; it is not ours to
 * take from under its driver (drv.c reports it instead).
 */
static inline bool smmuv3_fwspec_is_for(const struct iommu_fwspec *fwspec,
					const struct iommu_ops *ops)
{
#ifdef FP_HAVE_IOMMU_FWSPEC_OPS
	return fwspec->ops == ops;
#else
	return true;
#endif
}

/*
 * Up to 6.7, iommu_device_register() puts our ops on every bus the core
 * knows, and iommu_device_unregister() leaves them there: the module must
 * never go away once an SMMU is registered, or the next device added to
 * any of those buses would call into freed code.
 */
static inline void smmuv3_hold_bus_ops(void)
{
#ifdef FP_HAVE_BUS_IOMMU_OPS
	__module_get(THIS_MODULE);
#endif
}

#endif /* _FP_SMMUV3_COMPAT_H */
