// SPDX-License-Identifier: GPL-2.0-only
/*
 * The SMMUv3 platform driver for "arm,smmu-v3", for systems where the
 * in-tree arm-smmu-v3 driver is kept off (initcall_blacklist=
 * arm_smmu_driver_init).  Probe reads the ID registers, sets up the
 * command and event queues and the stream table (strtab.c), lets the
 * streams of IORT's reserved memory ranges bypass (rmr.c), enables the
 * SMMU, and registers it with the IOMMU core last (iommu.c): from then on
 * every device behind it, DMA-API users included, translates through
 * domains whose invalidation goes through flushpol.
 *
 * Stage 1 only; no PRI, ATS, PASIDs, or MSIs of the SMMU's own (its
 * interrupts are wired).  What probe does to the registers is in hw.c.
 */
#define pr_fmt(fmt) "flushpol_smmuv3: " fmt

#include <linux/crash_dump.h>
#include <linux/dma-map-ops.h>
#include <linux/dma-mapping.h>
#include <linux/interrupt.h>
#include <linux/io.h>
#include <linux/io-64-nonatomic-lo-hi.h>
#include <linux/iopoll.h>
#include <linux/module.h>
#include <linux/of.h>
#include <linux/pci.h>
#include <linux/platform_device.h>
#include <linux/property.h>

#include "compat.h"
#include "smmuv3_dev.h"

static bool cmdq_share = true;

/* Junk at load is warned about, not a failed load: no SMMU driver then. */
module_param_cb(cmdq_share, &fp_param_bool_ops, &cmdq_share, 0444);
MODULE_PARM_DESC(cmdq_share,
		 "Let a CPU leave its CMD_SYNC to another waiting for the command queue (default 1): fewer CMD_SYNCs under concurrent strict unmaps; 0 writes one per sync call, as upstream");

static DEFINE_MUTEX(smmuv3_list_lock);
static LIST_HEAD(smmuv3_list);
static DEFINE_IDA(smmuv3_ids);

/**
 * smmuv3_find_fwnode() - the probed SMMU a fwspec names
 * @fwnode: the SMMU's firmware node
 *
 * Return: the SMMU, or NULL.
 */
struct smmuv3_device *smmuv3_find_fwnode(struct fwnode_handle *fwnode)
{
	struct smmuv3_device *smmu, *found = NULL;

	mutex_lock(&smmuv3_list_lock);
	list_for_each_entry(smmu, &smmuv3_list, node) {
		if (dev_fwnode(smmu->dev) == fwnode) {
			found = smmu;
			break;
		}
	}
	mutex_unlock(&smmuv3_list_lock);
	return found;
}

static int smmuv3_alloc_queue(struct smmuv3_device *smmu,
			      struct smmuv3_queue *q, unsigned int shift,
			      unsigned int dwords)
{
	q->shift = shift;
	q->base = dmam_alloc_coherent(smmu->dev, (dwords << 3) << shift,
				      &q->dma, GFP_KERNEL);
	return q->base ? 0 : -ENOMEM;
}

/* An event, named by the device its stream belongs to, if any. */
static void smmuv3_report_event(struct smmuv3_device *smmu, const __le64 *evt)
{
	u64 e0 = le64_to_cpu(evt[0]), e1 = le64_to_cpu(evt[1]);
	u32 id = FIELD_GET(EVT_0_ID, e0), sid = FIELD_GET(EVT_0_SID, e0);
	struct smmuv3_master *master;
	struct device *dev;

	/* Under the lock: release_device erases the entry before freeing. */
	xa_lock(&smmu->streams);
	master = xa_load(&smmu->streams, sid);
	dev = master ? master->dev : smmu->dev;
	dev_err_ratelimited(dev, "%s: event %#04x%s sid %#x %s iova %#llx\n",
			    smmu->name, id,
			    id == EVT_ID_TRANSLATION ? " (F_TRANSLATION)" : "",
			    sid, e1 & EVT_1_RNW ? "read" : "write",
			    le64_to_cpu(evt[2]));
	xa_unlock(&smmu->streams);
}

static irqreturn_t smmuv3_evtq_thread(int irq, void *dev)
{
	struct smmuv3_device *smmu = dev;
	struct smmuv3_queue *q = &smmu->evtq;
	u32 mask = BIT(q->shift + 1) - 1;

	/*
	 * The entries up to EVTQ_PROD are read only after it: a dma_rmb(), as
	 * readl() would order them (upstream's queue_sync_prod_in()).
	 */
	q->prod = smmuv3_read(smmu, SMMUV3_EVTQ_PROD);
	dma_rmb();
	while ((q->cons & mask) != (q->prod & mask)) {
		smmuv3_report_event(smmu, &q->base[(q->cons &
						    (BIT(q->shift) - 1)) *
						   EVT_DWORDS]);
		q->cons = (q->cons + 1) & mask;
		/* writel: the entry is read before the SMMU may overwrite it. */
		writel(q->cons | (q->prod & Q_OVF),
		       smmu->page1 + (SMMUV3_EVTQ_CONS - SMMUV3_PAGE1));
		q->prod = smmuv3_read(smmu, SMMUV3_EVTQ_PROD);
		dma_rmb();
	}
	return IRQ_HANDLED;
}

/*
 * One wired line for every interrupt of the SMMU: IORT names it "combined"
 * (Cavium CN99xx).  The global errors are handled at once, as on their own
 * line; the events in the thread.
 */
static irqreturn_t smmuv3_combined_irq(int irq, void *dev)
{
	smmuv3_gerror_handler(irq, dev);
	return IRQ_WAKE_THREAD;
}

static int smmuv3_setup_combined_irq(struct smmuv3_device *smmu,
				     struct platform_device *pdev)
{
	int irq = platform_get_irq_byname_optional(pdev, "combined");

	/* IORT gives no GSIV for an SMMU that signals by MSI. */
	if (!platform_irq_count(pdev))
		dev_warn(smmu->dev, "no wired interrupt, and no MSIs of the SMMU's own here: events and global errors go unreported\n");
	if (irq <= 0)
		return 0;
	return devm_request_threaded_irq(smmu->dev, irq, smmuv3_combined_irq,
					 smmuv3_evtq_thread, IRQF_ONESHOT,
					 "flushpol-smmuv3-combined", smmu);
}

static int smmuv3_request_irqs(struct smmuv3_device *smmu, void *data)
{
	struct platform_device *pdev = data;
	int irq, ret;

	ret = smmuv3_setup_combined_irq(smmu, pdev);
	if (ret)
		return ret;

	irq = platform_get_irq_byname_optional(pdev, "eventq");
	if (irq > 0) {
		ret = devm_request_threaded_irq(smmu->dev, irq, NULL,
						smmuv3_evtq_thread, IRQF_ONESHOT,
						"flushpol-smmuv3-evtq", smmu);
		if (ret)
			return ret;
	}
	irq = platform_get_irq_byname_optional(pdev, "gerror");
	if (irq > 0) {
		ret = devm_request_irq(smmu->dev, irq, smmuv3_gerror_handler, 0,
				       "flushpol-smmuv3-gerror", smmu);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * One page of the SMMU's registers, as far as the architected ones go.
 * DEFINE_RES_MEM() is a plain initializer up to 6.1 and a compound
 * literal later: used only as an initializer, it suits both.
 */
static void __iomem *smmuv3_map_page(struct smmuv3_device *smmu,
				     resource_size_t start)
{
	struct resource page = DEFINE_RES_MEM(start, SMMUV3_REG_SZ);

	return devm_ioremap_resource(smmu->dev, &page);
}

/*
 * Page 0 and page 1, each only as far as the architected registers go
 * (the rest may be a PMCG's, which its PMU driver claims), or page 0
 * alone where page 1's registers are folded onto it.
 */
static int smmuv3_map_regs(struct smmuv3_device *smmu,
			   struct platform_device *pdev)
{
	struct resource *res = platform_get_resource(pdev, IORESOURCE_MEM, 0);
	int ret;

	if (!res)
		return -EINVAL;
	ret = smmuv3_check_region(smmu, res);
	if (ret)
		return ret;
	smmu->base = smmuv3_map_page(smmu, res->start);
	if (IS_ERR(smmu->base))
		return PTR_ERR(smmu->base);
	if (smmu->options & SMMUV3_OPT_PAGE0_REGS_ONLY) {
		smmu->page1 = smmu->base;
		return 0;
	}
	smmu->page1 = smmuv3_map_page(smmu, res->start + SMMUV3_PAGE1);
	return PTR_ERR_OR_ZERO(smmu->page1);
}

/* Everything probe allocates for the SMMU, after its ID registers. */
static int smmuv3_init_structures(struct smmuv3_device *smmu)
{
	int ret;

	ret = smmuv3_strtab_init(smmu, smmuv3_read(smmu, SMMUV3_IDR0),
				 smmuv3_read(smmu, SMMUV3_IDR1));
	if (ret)
		return ret;
	ret = smmuv3_cmdq_init(&smmu->cmdq, smmu->dev, smmu->base,
			       SMMUV3_CMDQ_SHIFT);
	if (ret)
		return ret;
	if (!cmdq_share)
		smmu->cmdq.share_max = 0;
	return smmuv3_alloc_queue(smmu, &smmu->evtq, SMMUV3_EVTQ_SHIFT,
				  EVT_DWORDS);
}

#ifdef CONFIG_PCI
/*
 * A PCI device bound to a driver before we registered (it stopped waiting
 * at deferred_probe_timeout) has no IOMMU group: its streams abort now,
 * and it needs rebinding to get a domain.
 *
 * Device tree only: which SMMU and stream a requester ID maps to is the
 * host bridge's iommu-map, which of_map_id() reads without side effects.
 * IORT's equivalent (iort_node_map_id()) is not exported, and the one
 * exported way in, iort_iommu_configure_id(), would give the device a
 * fwspec as it looked.
 */
static void smmuv3_report_unprotected(struct smmuv3_device *smmu)
{
	struct pci_dev *pdev = NULL;

	if (!is_of_node(dev_fwnode(smmu->dev))) {
		/* iort_iommu_xlate() gives up early without it. */
		if (!IS_ENABLED(CONFIG_ARM_SMMU_V3))
			dev_warn(smmu->dev, "kernel built without CONFIG_ARM_SMMU_V3: IORT gives no device behind %s its streams\n",
				 smmu->name);
		return;
	}

	for_each_pci_dev(pdev) {
		struct device *host = pci_find_host_bridge(pdev->bus)->dev.parent;
		struct device_node *np = NULL;
		u32 sid;

		if (!host || smmuv3_of_map_iommu_id(host->of_node,
						    pci_dev_id(pdev), &np, &sid))
			continue;
		/* Its driver stays bound, and named, while we hold its lock. */
		device_lock(&pdev->dev);
		if (np == smmu->dev->of_node && pdev->dev.driver &&
		    !pdev->dev.iommu_group)
			pci_warn(pdev, "bound to %s before %s registered: stream %#x now aborts its DMA; unbind and bind it again\n",
				 pdev->dev.driver->name, smmu->name, sid);
		device_unlock(&pdev->dev);
		of_node_put(np);
	}
}
#else
static void smmuv3_report_unprotected(struct smmuv3_device *smmu)
{
}
#endif

static int smmuv3_probe(struct platform_device *pdev)
{
	struct device *dev = &pdev->dev;
	struct smmuv3_device *smmu;
	int id, ret;

	smmu = devm_kzalloc(dev, sizeof(*smmu), GFP_KERNEL);
	if (!smmu)
		return -ENOMEM;
	smmu->dev = dev;
	mutex_init(&smmu->ste_lock);
	ida_init(&smmu->asids);

	smmuv3_parse_options(smmu);
	ret = smmuv3_map_regs(smmu, pdev);
	if (ret)
		return ret;

	xa_init(&smmu->streams);
	ret = smmuv3_hw_probe(smmu);
	if (ret)
		return ret;
	ret = smmuv3_init_structures(smmu);
	if (ret)
		return ret;

	id = ida_alloc(&smmuv3_ids, GFP_KERNEL);
	if (id < 0)
		return id;
	snprintf(smmu->name, sizeof(smmu->name), "smmuv3.%d", id);

	/* Disabled on any failure, before devres frees queues and tables. */
	ret = smmuv3_device_start(smmu, smmuv3_request_irqs, pdev,
				  !is_kdump_kernel());
	if (ret)
		goto err_id;

	platform_set_drvdata(pdev, smmu);
	/* Listed first: registering probes devices, which look us up. */
	mutex_lock(&smmuv3_list_lock);
	list_add_tail(&smmu->node, &smmuv3_list);
	mutex_unlock(&smmuv3_list_lock);
	ret = iommu_device_sysfs_add(&smmu->iommu, dev, NULL, "%s", smmu->name);
	if (ret)
		goto err_unlist;
	/*
	 * Before registering: up to 6.7 a registration that fails part way
	 * can leave our ops on a bus all the same.
	 */
	smmuv3_hold_bus_ops();
	ret = iommu_device_register(&smmu->iommu, &smmuv3_iommu_ops, dev);
	if (ret) {
		/* Up to 6.7 the core takes one IOMMU driver, for all buses. */
		if (ret == -EBUSY)
			dev_err(dev, "another IOMMU driver is registered: keep the in-tree arm-smmu-v3 off\n");
		goto err_sysfs;
	}

	dev_info(dev, "%s enabled, %s stream table of 2^%u streams\n",
		 smmu->name, smmu->strtab.two_level ? "two-level" : "linear",
		 smmu->strtab.sid_bits);
	smmuv3_report_unprotected(smmu);
	return 0;

err_sysfs:
	iommu_device_sysfs_remove(&smmu->iommu);
err_unlist:
	mutex_lock(&smmuv3_list_lock);
	list_del(&smmu->node);
	mutex_unlock(&smmuv3_list_lock);
	smmuv3_device_disable(smmu);
err_id:
	ida_free(&smmuv3_ids, id);
	return ret;
}

/*
 * Only once no device is left behind the SMMU: the IOMMU core holds a
 * reference on this module for each device it probed, so rmmod is refused
 * ("in use") until then, and the driver cannot be unbound by hand.
 */
static void smmuv3_remove(struct platform_device *pdev)
{
	struct smmuv3_device *smmu = platform_get_drvdata(pdev);
	int id;

	iommu_device_unregister(&smmu->iommu);
	iommu_device_sysfs_remove(&smmu->iommu);
	mutex_lock(&smmuv3_list_lock);
	list_del(&smmu->node);
	mutex_unlock(&smmuv3_list_lock);
	smmuv3_device_disable(smmu);
	xa_destroy(&smmu->streams);
	if (!kstrtoint(smmu->name + strlen("smmuv3."), 10, &id))
		ida_free(&smmuv3_ids, id);
	ida_destroy(&smmu->asids);
}

/*
 * Before a kexec: the next kernel must not find the SMMU walking this
 * one's tables, which it will reuse as ordinary memory.
 */
static void smmuv3_shutdown(struct platform_device *pdev)
{
	struct smmuv3_device *smmu = platform_get_drvdata(pdev);

	if (smmu)
		smmuv3_device_disable(smmu);
}

static const struct of_device_id smmuv3_of_match[] = {
	{ .compatible = "arm,smmu-v3" },
	{ }
};
MODULE_DEVICE_TABLE(of, smmuv3_of_match);

/*
 * ACPI: the IORT code creates a platform device of this name for each
 * SMMUv3 node, with the node's fwnode (the one the PCI devices' fwspecs
 * name), its registers and its named wired interrupts.
 */
static const struct platform_device_id smmuv3_iort_ids[] = {
	{ .name = "arm-smmu-v3" },
	{ }
};
MODULE_DEVICE_TABLE(platform, smmuv3_iort_ids);

static struct platform_driver smmuv3_driver = {
	.driver = {
		.name = "flushpol-smmuv3",
		.of_match_table = smmuv3_of_match,
		.suppress_bind_attrs = true,
	},
	.id_table = smmuv3_iort_ids,
	.probe = smmuv3_probe,
	.SMMUV3_PLATFORM_REMOVE = smmuv3_remove,
	.shutdown = smmuv3_shutdown,
};
module_platform_driver(smmuv3_driver);

MODULE_DESCRIPTION("flushpol SMMUv3 backend: an IOMMU driver whose invalidation flushpol decides");
MODULE_AUTHOR("flushpol developers");
MODULE_VERSION(FP_VERSION);
MODULE_LICENSE("GPL");
