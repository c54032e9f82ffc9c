/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What differs between the kernels the SMMUv3 driver builds for (Debian's
 * 6.1, 6.12 and trixie-backports' 7.x), in one place.  Kbuild's probes (conftest/) set the
 * FP_HAVE_* macros; the rest of the driver reads the same on every kernel.
 */
#ifndef _FP_SMMUV3_COMPAT_H
#define _FP_SMMUV3_COMPAT_H

#include <linux/device.h>
#include <linux/iommu.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/of.h>

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

/*
 * A domain's attach_dev is told the domain the device leaves, as a third
 * argument, after 6.12.  This driver finds what it replaces in the
 * device's stream table entries: SMMUV3_ATTACH_DEV_OP(fn) follows an
 * attach function fn(domain, dev) and defines fn_op, the op of this
 * kernel's type, for the ops.
 */
#ifdef FP_HAVE_IOMMU_ATTACH_DEV_OLD
#define SMMUV3_ATTACH_DEV_OP(fn)					\
static int fn##_op(struct iommu_domain *domain, struct device *dev,	\
		   struct iommu_domain *old)				\
{									\
	return fn(domain, dev);						\
}
#else
#define SMMUV3_ATTACH_DEV_OP(fn)					\
static int fn##_op(struct iommu_domain *domain, struct device *dev)	\
{									\
	return fn(domain, dev);						\
}
#endif

/*
 * The platform driver's void remove callback: .remove since 6.11, and
 * .remove_new (6.1's stable releases, gone in 6.13) before.
 */
#ifdef FP_HAVE_PLATFORM_REMOVE_VOID
#define SMMUV3_PLATFORM_REMOVE	remove
#else
#define SMMUV3_PLATFORM_REMOVE	remove_new
#endif

/**
 * smmuv3_of_map_iommu_id() - where a requester ID behind @np goes
 * @np: a PCI host bridge's node, with its "iommu-map"
 * @rid: the requester ID
 * @target: the IOMMU node it maps to, with a reference; NULL without a map
 * @sid: the stream ID it becomes
 *
 * 7.x's of_map_id() hands back the phandle's arguments and has a helper
 * for "iommu-map"; before, of_map_id() was told the property names and
 * gave the node and the one cell.
 *
 * Return: 0, or the error of_map_id() gives.
 */
static inline int smmuv3_of_map_iommu_id(struct device_node *np, u32 rid,
					 struct device_node **target, u32 *sid)
{
#ifdef FP_HAVE_OF_MAP_IOMMU_ID
	struct of_phandle_args arg = {};
	int ret;

	ret = of_map_iommu_id(np, rid, &arg);
	if (ret)
		return ret;
	*target = arg.np;
	*sid = arg.args_count ? arg.args[0] : rid;
	return 0;
#else
	return of_map_id(np, rid, "iommu-map", "iommu-map-mask", target, sid);
#endif
}

/*
 * The ops' page sizes, for domains that set none, until 7.x; every domain
 * of this driver sets its own (smmuv3_domain_alloc_paging()).
 */
#ifdef FP_HAVE_IOMMU_OPS_PGSIZE_BITMAP
#define SMMUV3_OPS_PGSIZES	.pgsize_bitmap = SMMUV3_PGSIZES,
#else
#define SMMUV3_OPS_PGSIZES
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
