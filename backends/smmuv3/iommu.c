// SPDX-License-Identifier: GPL-2.0-only
/*
 * The IOMMU core's view of the driver: one function per op.  Devices come
 * with their stream IDs in a fwspec (of_xlate); the core gives each group
 * a default domain (DMA, DMA-FQ or identity, as iommu.strict= and
 * iommu.passthrough= say: there is no def_domain_type here) and attaches
 * it, which points the device's STEs at the domain's context descriptor.
 * Unmaps, iotlb_sync and flush_iotlb_all go through the domain's flushpol
 * context.
 */
#define pr_fmt(fmt) "flushpol_smmuv3: " fmt

#include <linux/module.h>
#include <linux/pci.h>
#include <linux/slab.h>

#include "compat.h"
#include "smmuv3_dev.h"

/* Where the DMA API maps MSI doorbells: upstream arm-smmu-v3's window. */
#define SMMUV3_MSI_IOVA_BASE	0x8000000
#define SMMUV3_MSI_IOVA_LENGTH	0x100000

static const struct iommu_domain_ops smmuv3_paging_ops;

static struct smmuv3_domain *to_smmuv3_domain(struct iommu_domain *domain)
{
	return container_of(domain, struct smmuv3_domain, domain);
}

/*
 * Point every stream of @dev at @ste.  It cannot fail: a failed sync on
 * the way is the queue's to recover from (smmuv3_install_ste()).
 */
static void smmuv3_master_install(struct device *dev, const u64 *ste)
{
	struct smmuv3_master *master = dev_iommu_priv_get(dev);
	struct iommu_fwspec *fwspec = dev_iommu_fwspec_get(dev);

	smmuv3_install_ste(master->smmu, fwspec->ids, fwspec->num_ids, ste);
}

static int smmuv3_attach_identity(struct iommu_domain *domain,
				  struct device *dev)
{
	u64 ste[STE_DWORDS];

	smmuv3_ste_bypass(ste);
	smmuv3_master_install(dev, ste);
	fp_device_unlink(dev);
	return 0;
}

SMMUV3_ATTACH_DEV_OP(smmuv3_attach_identity);

/* Kernels before 6.8 free even the static domains (compat.c). */
static void smmuv3_static_domain_free(struct iommu_domain *domain)
{
}

struct iommu_domain smmuv3_identity_domain = {
	.type = IOMMU_DOMAIN_IDENTITY,
	.ops = &(const struct iommu_domain_ops) {
		.attach_dev = smmuv3_attach_identity_op,
		.free = smmuv3_static_domain_free,
	},
};

static int smmuv3_attach_blocked(struct iommu_domain *domain,
				 struct device *dev)
{
	u64 ste[STE_DWORDS];

	smmuv3_ste_abort(ste);
	smmuv3_master_install(dev, ste);
	fp_device_unlink(dev);
	return 0;
}

SMMUV3_ATTACH_DEV_OP(smmuv3_attach_blocked);

struct iommu_domain smmuv3_blocked_domain = {
	.type = IOMMU_DOMAIN_BLOCKED,
	.ops = &(const struct iommu_domain_ops) {
		.attach_dev = smmuv3_attach_blocked_op,
		.free = smmuv3_static_domain_free,
	},
};

/*
 * Finalised here, for the SMMU of @dev, as upstream does: the core maps a
 * domain before its first attach (iommu_setup_default_domain()'s
 * IOMMU_RESV_DIRECT regions, iommufd's populated IOAS).  Strict until an
 * attach says the core made it DMA-FQ (domain.c).  Without a device (the
 * domain_alloc(type) of kernels before 6.8, compat.c) the first attach
 * finalises it, and it cannot be mapped before that, as upstream then.
 *
 * Nothing of flushpol's own fails a domain here (fp_context_create()):
 * only a lack of memory or of ASIDs, as upstream; the core then fails this
 * group's default domain, with its message.
 */
struct iommu_domain *smmuv3_domain_alloc_paging(struct device *dev)
{
	struct smmuv3_domain *dom = smmuv3_domain_new();
	struct smmuv3_master *master;
	int ret;

	if (!dom)
		return ERR_PTR(-ENOMEM);
	if (!dev)
		return &dom->domain;
	master = dev_iommu_priv_get(dev);
	ret = smmuv3_domain_finalise(dom, master->smmu, dev, false);
	if (ret) {
		dev_err(dev, "no paging domain: %d\n", ret);
		smmuv3_domain_destroy(dom);
		return ERR_PTR(ret);
	}
	return &dom->domain;
}

static void smmuv3_domain_free(struct iommu_domain *domain)
{
	smmuv3_domain_destroy(to_smmuv3_domain(domain));
}

/*
 * By now the core has set the domain's type: a DMA-FQ domain gets a lazy
 * flushpol context, finalised here if allocation could not (no device).
 */
static int smmuv3_attach_paging(struct iommu_domain *domain,
				struct device *dev)
{
	struct smmuv3_domain *dom = to_smmuv3_domain(domain);
	struct smmuv3_master *master = dev_iommu_priv_get(dev);
	u64 ste[STE_DWORDS];
	int ret;

	mutex_lock(&dom->init_lock);
	ret = smmuv3_domain_finalise(dom, master->smmu, dev,
				     domain->type == IOMMU_DOMAIN_DMA_FQ);
	mutex_unlock(&dom->init_lock);
	if (ret)
		return ret;

	smmuv3_ste_s1(dom, ste);
	smmuv3_master_install(dev, ste);
	fp_context_link_device(dom->ctx, dev);
	return 0;
}

SMMUV3_ATTACH_DEV_OP(smmuv3_attach_paging);

/* Through fp_map(), so that adaptive knows the context's footprint. */
static int smmuv3_map_pages(struct iommu_domain *domain, unsigned long iova,
			    phys_addr_t paddr, size_t pgsize, size_t pgcount,
			    int prot, gfp_t gfp, size_t *mapped)
{
	struct smmuv3_domain *dom = to_smmuv3_domain(domain);

	if (!dom->ops)
		return -ENODEV;
	return fp_map(dom->ctx, dom->ops, iova, paddr, pgsize, pgcount, prot,
		      gfp, mapped);
}

/*
 * Through fp_unmap_pages(), so that the walk flushes of an unmap that may
 * free tables can cover the leaves it gathers; the core's iotlb_sync
 * (strict) or the flush queue (lazy) ends it.
 */
static size_t smmuv3_unmap_pages(struct iommu_domain *domain,
				 unsigned long iova, size_t pgsize,
				 size_t pgcount,
				 struct iommu_iotlb_gather *gather)
{
	struct smmuv3_domain *dom = to_smmuv3_domain(domain);

	if (!dom->ops)
		return 0;
	return fp_unmap_pages(dom->ctx, dom->ops, iova, pgsize, pgcount,
			      gather);
}

static void smmuv3_iotlb_sync(struct iommu_domain *domain,
			      struct iommu_iotlb_gather *gather)
{
	struct smmuv3_domain *dom = to_smmuv3_domain(domain);

	if (dom->ops)
		fp_iotlb_sync(dom->ctx, gather);
}

static void smmuv3_flush_iotlb_all(struct iommu_domain *domain)
{
	struct smmuv3_domain *dom = to_smmuv3_domain(domain);

	if (dom->ops)
		fp_flush_iotlb_all(dom->ctx);
}

static phys_addr_t smmuv3_iova_to_phys(struct iommu_domain *domain,
				       dma_addr_t iova)
{
	struct io_pgtable_ops *ops = to_smmuv3_domain(domain)->ops;

	return ops ? ops->iova_to_phys(ops, iova) : 0;
}

static const struct iommu_domain_ops smmuv3_paging_ops = {
	.attach_dev		= smmuv3_attach_paging_op,
	.map_pages		= smmuv3_map_pages,
	.unmap_pages		= smmuv3_unmap_pages,
	.iotlb_sync		= smmuv3_iotlb_sync,
	.flush_iotlb_all	= smmuv3_flush_iotlb_all,
	.iova_to_phys		= smmuv3_iova_to_phys,
	.free			= smmuv3_domain_free,
};

static bool smmuv3_capable(struct device *dev, enum iommu_cap cap)
{
	struct smmuv3_master *master = dev_iommu_priv_get(dev);

	switch (cap) {
	case IOMMU_CAP_CACHE_COHERENCY:
		return master->smmu->coherent;
	case IOMMU_CAP_NOEXEC:
		return true;
	default:
		/* Without it, iommu-dma quietly turns DMA-FQ domains strict. */
		return smmuv3_cap_is_deferred_flush(cap);
	}
}

/* Drop the first @n stream IDs of @master from the fault lookup. */
static void smmuv3_forget_streams(struct smmuv3_master *master,
				  const u32 *sids, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		xa_cmpxchg(&master->smmu->streams, sids[i], master, NULL,
			   GFP_KERNEL);
}

static int smmuv3_add_stream(struct smmuv3_master *master, u32 sid)
{
	struct smmuv3_device *smmu = master->smmu;
	int ret;

	ret = smmuv3_strtab_prepare(smmu, sid);
	if (ret)
		return ret;
	ret = xa_insert(&smmu->streams, sid, master, GFP_KERNEL);
	/* PCI aliases may name the same stream twice. */
	if (ret == -EBUSY && xa_load(&smmu->streams, sid) == master)
		return 0;
	if (ret == -EBUSY)
		dev_err(master->dev, "stream %#x is another device's\n", sid);
	return ret;
}

static struct iommu_device *smmuv3_probe_device(struct device *dev)
{
	struct iommu_fwspec *fwspec = dev_iommu_fwspec_get(dev);
	struct smmuv3_device *smmu;
	struct smmuv3_master *master;
	unsigned int i;
	int ret = 0;

	/* Kernels with per-bus ops ask about every device on the bus. */
	if (!fwspec || !smmuv3_fwspec_is_for(fwspec, &smmuv3_iommu_ops))
		return ERR_PTR(-ENODEV);
	smmu = smmuv3_find_fwnode(fwspec->iommu_fwnode);
	if (!smmu)
		return ERR_PTR(-ENODEV);
	master = kzalloc(sizeof(*master), GFP_KERNEL);
	if (!master)
		return ERR_PTR(-ENOMEM);
	master->smmu = smmu;
	master->dev = dev;

	for (i = 0; i < fwspec->num_ids && !ret; i++)
		ret = smmuv3_add_stream(master, fwspec->ids[i]);
	if (ret) {
		smmuv3_forget_streams(master, fwspec->ids, i);
		kfree(master);
		return ERR_PTR(ret);
	}
	dev_iommu_priv_set(dev, master);
	return &smmu->iommu;
}

static void smmuv3_release_device(struct device *dev)
{
	struct smmuv3_master *master = dev_iommu_priv_get(dev);
	struct iommu_fwspec *fwspec = dev_iommu_fwspec_get(dev);

	smmuv3_attach_blocked(&smmuv3_blocked_domain, dev);
	smmuv3_forget_streams(master, fwspec->ids, fwspec->num_ids);
	kfree(master);
}

static struct iommu_group *smmuv3_device_group(struct device *dev)
{
	/* Only PCI aliases share streams between devices. */
	if (dev_is_pci(dev))
		return pci_device_group(dev);
	return generic_device_group(dev);
}

static int smmuv3_of_xlate(struct device *dev,
			   SMMUV3_OF_ARGS_CONST struct of_phandle_args *args)
{
	return iommu_fwspec_add_ids(dev, args->args, 1);
}

/*
 * The software MSI window: the DMA API maps each device's MSI doorbell
 * (GICv2m frame or ITS translater) there, since MSI writes are DMA and are
 * translated like any other.
 */
static void smmuv3_get_resv_regions(struct device *dev,
				    struct list_head *head)
{
	struct iommu_resv_region *region;

	region = iommu_alloc_resv_region(SMMUV3_MSI_IOVA_BASE,
					 SMMUV3_MSI_IOVA_LENGTH,
					 IOMMU_WRITE | IOMMU_NOEXEC | IOMMU_MMIO,
					 IOMMU_RESV_SW_MSI, GFP_KERNEL);
	if (!region)
		return;
	list_add_tail(&region->list, head);
	iommu_dma_get_resv_regions(dev, head);
}

const struct iommu_ops smmuv3_iommu_ops = {
	SMMUV3_DOMAIN_ALLOC_OPS,
	.capable		= smmuv3_capable,
	.probe_device		= smmuv3_probe_device,
	.release_device		= smmuv3_release_device,
	.device_group		= smmuv3_device_group,
	.of_xlate		= smmuv3_of_xlate,
	.get_resv_regions	= smmuv3_get_resv_regions,
	SMMUV3_OPS_PGSIZES
	/* The core pins us for every device it probes: no rmmod under them. */
	.owner			= THIS_MODULE,
	.default_domain_ops	= &smmuv3_paging_ops,
};

static struct smmuv3_domain *smmuv3_finalised(struct iommu_domain *domain)
{
	struct smmuv3_domain *dom;

	if (!domain || domain->ops != &smmuv3_paging_ops)
		return NULL;
	dom = to_smmuv3_domain(domain);
	return dom->ops ? dom : NULL;
}

/**
 * smmuv3_iommu_ctx() - the flushpol context of a domain of ours
 * @domain: a paging domain, allocated for a device or attached once
 *
 * For the end-to-end test module, which reads its statistics.
 *
 * Return: the context, or NULL if @domain is not a finalised domain of
 * this driver.
 */
struct fp_context *smmuv3_iommu_ctx(struct iommu_domain *domain)
{
	struct smmuv3_domain *dom = smmuv3_finalised(domain);

	return dom ? dom->ctx : NULL;
}
EXPORT_SYMBOL_GPL(smmuv3_iommu_ctx);

/**
 * smmuv3_iommu_ctx_name() - the name of a domain's context in sysfs
 * @domain: a paging domain, allocated for a device or attached once
 *
 * Return: "<smmu>-asid<n>", or NULL as smmuv3_iommu_ctx().
 */
const char *smmuv3_iommu_ctx_name(struct iommu_domain *domain)
{
	struct smmuv3_domain *dom = smmuv3_finalised(domain);

	return dom ? dom->name : NULL;
}
EXPORT_SYMBOL_GPL(smmuv3_iommu_ctx_name);

/**
 * smmuv3_iommu_mark() - put a recognisable no-op in the command stream
 * @domain: a paging domain of the SMMU to mark, allocated for a device or
 *	attached once
 * @n: the mark
 *
 * A CMD_TLBI_NH_ASID for ASID SMMUV3_ASID_MARK + @n, which no domain uses,
 * with its sync: tests find it in a command trace and count what came
 * between.
 *
 * Return: 0, -ENODEV, -EOPNOTSUPP (8-bit ASIDs: smmuv3_mark_asid()), or
 * -ETIMEDOUT.
 */
int smmuv3_iommu_mark(struct iommu_domain *domain, u32 n)
{
	struct smmuv3_domain *dom = smmuv3_finalised(domain);
	u64 cmd[CMD_DWORDS];
	int asid;

	if (!dom)
		return -ENODEV;
	asid = smmuv3_mark_asid(dom->smmu, n);
	if (asid < 0)
		return asid;
	smmuv3_cmd_tlbi_nh_asid(cmd, asid);
	return smmuv3_cmdq_issue_sync(dom->smmu, cmd, 1);
}
EXPORT_SYMBOL_GPL(smmuv3_iommu_mark);
