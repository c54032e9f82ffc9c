// SPDX-License-Identifier: GPL-2.0-only
/*
 * The SMMUv3 platform driver for "arm,smmu-v3", for systems where the
 * in-tree arm-smmu-v3 driver is kept off (initcall_blacklist=
 * arm_smmu_driver_init).  Probe reads the ID registers, sets up the
 * command and event queues and the stream table (strtab.c), enables the
 * SMMU, and registers it with the IOMMU core last (iommu.c): from then on
 * every device behind it, DMA-API users included, translates through
 * domains whose invalidation goes through flushpol.
 *
 * Stage 1 only; no PRI, ATS, PASIDs, or MSIs of the SMMU's own (its
 * interrupts are wired).
 */
#define pr_fmt(fmt) "flushpol_smmuv3: " fmt

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

#define SMMUV3_CMDQ_SHIFT	12	/* 4096 commands, 64 KiB */
#define SMMUV3_EVTQ_SHIFT	7	/* 128 events */

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

static int smmuv3_write_cr0(struct smmuv3_device *smmu, u32 val)
{
	u32 ack;

	writel_relaxed(val, smmu->base + SMMUV3_CR0);
	return readl_relaxed_poll_timeout(smmu->base + SMMUV3_CR0ACK, ack,
					  ack == val, 1, 100000);
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

static u64 smmuv3_q_base(const struct smmuv3_queue *q)
{
	return Q_BASE_RWA | (q->dma & Q_BASE_ADDR) |
	       FIELD_PREP(Q_BASE_LOG2SIZE, q->shift);
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

	q->prod = readl_relaxed(smmu->base + SMMUV3_EVTQ_PROD);
	while ((q->cons & mask) != (q->prod & mask)) {
		smmuv3_report_event(smmu, &q->base[(q->cons &
						    (BIT(q->shift) - 1)) *
						   EVT_DWORDS]);
		q->cons = (q->cons + 1) & mask;
		writel(q->cons | (q->prod & Q_OVF), smmu->base +
		       SMMUV3_EVTQ_CONS);
		q->prod = readl_relaxed(smmu->base + SMMUV3_EVTQ_PROD);
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
	smmuv3_gerror_irq(irq, dev);
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

static int smmuv3_setup_irqs(struct smmuv3_device *smmu,
			     struct platform_device *pdev)
{
	int irq, ret;
	u32 ack;

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
		ret = devm_request_irq(smmu->dev, irq, smmuv3_gerror_irq, 0,
				       "flushpol-smmuv3-gerror", smmu);
		if (ret)
			return ret;
	}
	writel_relaxed(IRQ_CTRL_EVTQ_IRQEN | IRQ_CTRL_GERROR_IRQEN,
		       smmu->base + SMMUV3_IRQ_CTRL);
	return readl_relaxed_poll_timeout(smmu->base + SMMUV3_IRQ_CTRLACK, ack,
					  ack == (IRQ_CTRL_EVTQ_IRQEN |
						  IRQ_CTRL_GERROR_IRQEN),
					  1, 100000);
}

static int smmuv3_reset(struct smmuv3_device *smmu,
			struct platform_device *pdev)
{
	u64 cmds[2 * CMD_DWORDS];
	int ret;

	ret = smmuv3_write_cr0(smmu, 0);
	if (ret)
		return ret;

	writel_relaxed(FIELD_PREP(CR1_TABLE_SH, SMMUV3_SH_ISH) |
		       FIELD_PREP(CR1_TABLE_OC, CR1_CACHE_WB) |
		       FIELD_PREP(CR1_TABLE_IC, CR1_CACHE_WB) |
		       FIELD_PREP(CR1_QUEUE_SH, SMMUV3_SH_ISH) |
		       FIELD_PREP(CR1_QUEUE_OC, CR1_CACHE_WB) |
		       FIELD_PREP(CR1_QUEUE_IC, CR1_CACHE_WB),
		       smmu->base + SMMUV3_CR1);
	writel_relaxed(CR2_PTM | CR2_RECINVSID, smmu->base + SMMUV3_CR2);

	lo_hi_writeq_relaxed(STRTAB_BASE_RA |
			     (smmu->strtab.dma & STRTAB_BASE_ADDR),
			     smmu->base + SMMUV3_STRTAB_BASE);
	writel_relaxed(smmuv3_strtab_base_cfg(smmu),
		       smmu->base + SMMUV3_STRTAB_BASE_CFG);

	lo_hi_writeq_relaxed(smmuv3_q_base(&smmu->cmdq.q),
			     smmu->base + SMMUV3_CMDQ_BASE);
	writel_relaxed(0, smmu->base + SMMUV3_CMDQ_PROD);
	writel_relaxed(0, smmu->base + SMMUV3_CMDQ_CONS);
	/*
	 * Global errors firmware or a previous kernel left unacknowledged are
	 * not ours: a stale CMDQ_ERR would make the first wait replace the
	 * CFGI_ALL below with a CMD_SYNC.
	 */
	writel_relaxed(readl_relaxed(smmu->base + SMMUV3_GERROR),
		       smmu->base + SMMUV3_GERRORN);
	ret = smmuv3_write_cr0(smmu, CR0_CMDQEN);
	if (ret)
		return ret;

	smmuv3_cmd_cfgi_all(&cmds[0]);
	smmuv3_cmd_tlbi_nsnh_all(&cmds[CMD_DWORDS]);
	ret = smmuv3_cmdq_issue_sync(smmu, cmds, 2);
	if (ret)
		return ret;

	lo_hi_writeq_relaxed(smmuv3_q_base(&smmu->evtq),
			     smmu->base + SMMUV3_EVTQ_BASE);
	writel_relaxed(0, smmu->base + SMMUV3_EVTQ_PROD);
	writel_relaxed(0, smmu->base + SMMUV3_EVTQ_CONS);
	ret = smmuv3_write_cr0(smmu, CR0_CMDQEN | CR0_EVTQEN);
	if (ret)
		return ret;

	ret = smmuv3_setup_irqs(smmu, pdev);
	if (ret)
		return ret;

	return smmuv3_write_cr0(smmu, CR0_CMDQEN | CR0_EVTQEN | CR0_SMMUEN);
}

/*
 * Whether the firmware says the SMMU's table walks and queue accesses are
 * coherent.  The device IORT creates has a firmware node with nothing to
 * say ("not supported"), no ACPI companion: IORT applied the node's COHACC
 * override when it configured the device's DMA, and that is what the DMA
 * API uses for our queues and tables too.
 */
static bool smmuv3_fw_coherent(struct device *dev)
{
	struct fwnode_handle *fwnode = dev_fwnode(dev);
	enum dev_dma_attr attr = device_get_dma_attr(dev);

	if (attr == DEV_DMA_NOT_SUPPORTED && fwnode && !is_of_node(fwnode))
		return dev_is_dma_coherent(dev);
	return attr == DEV_DMA_COHERENT;
}

static int smmuv3_probe_idrs(struct smmuv3_device *smmu)
{
	static const unsigned int oas_bits[] = { 32, 36, 40, 42, 44, 48, 52 };
	u32 idr0 = readl_relaxed(smmu->base + SMMUV3_IDR0);
	u32 idr1 = readl_relaxed(smmu->base + SMMUV3_IDR1);
	u32 idr3 = readl_relaxed(smmu->base + SMMUV3_IDR3);
	u32 idr5 = readl_relaxed(smmu->base + SMMUV3_IDR5);
	bool coherent;

	if (!(idr0 & IDR0_S1P) || !(idr5 & IDR5_GRAN4K)) {
		dev_err(smmu->dev, "no stage 1 with 4K granule\n");
		return -ENODEV;
	}
	if (idr1 & (IDR1_TABLES_PRESET | IDR1_QUEUES_PRESET)) {
		dev_err(smmu->dev, "preset tables or queues not supported\n");
		return -ENODEV;
	}
	if (FIELD_GET(IDR1_CMDQS, idr1) < SMMUV3_CMDQ_SHIFT ||
	    FIELD_GET(IDR1_EVTQS, idr1) < SMMUV3_EVTQ_SHIFT) {
		dev_err(smmu->dev, "queues too small\n");
		return -ENODEV;
	}
	smmu->ril = idr3 & IDR3_RIL;
	/* The firmware has the last word, as upstream's driver gives it. */
	coherent = smmuv3_fw_coherent(smmu->dev);
	if (coherent != !!(idr0 & IDR0_COHACC))
		dev_warn(smmu->dev, "IDR0.COHACC %d, but the firmware says %scoherent\n",
			 !!(idr0 & IDR0_COHACC), coherent ? "" : "not ");
	smmu->coherent = coherent && (idr0 & IDR0_COHACC);
	smmu->oas = oas_bits[min_t(u32, FIELD_GET(IDR5_OAS, idr5),
				   ARRAY_SIZE(oas_bits) - 1)];
	/* The marks' ASIDs stay out of the domains' way. */
	smmu->asid_max = idr0 & IDR0_ASID16 ? SMMUV3_ASID_MARK - 1 : U8_MAX;
	dev_info(smmu->dev, "IDR0 %#x IDR3 %#x: %s range invalidation, %u-bit OAS, %u-bit ASIDs\n",
		 idr0, idr3, smmu->ril ? "with" : "without", smmu->oas,
		 idr0 & IDR0_ASID16 ? 16 : 8);
	return smmuv3_strtab_init(smmu, idr0, idr1);
}

static void smmuv3_disable(struct smmuv3_device *smmu)
{
	smmuv3_write_cr0(smmu, 0);
	writel_relaxed(0, smmu->base + SMMUV3_IRQ_CTRL);
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

		if (!pdev->dev.driver || pdev->dev.iommu_group || !host ||
		    smmuv3_of_map_iommu_id(host->of_node, pci_dev_id(pdev),
					   &np, &sid))
			continue;
		if (np == smmu->dev->of_node)
			pci_warn(pdev, "bound to %s before %s registered: stream %#x now aborts its DMA; unbind and bind it again\n",
				 pdev->dev.driver->name, smmu->name, sid);
		of_node_put(np);
	}
}
#else
static void smmuv3_report_unprotected(struct smmuv3_device *smmu)
{
}
#endif

/*
 * The event queue's registers are on page 1.  IORT describes only page 0
 * (64K) for Cavium CN99xx, whose SMMU has no page 1 and mirrors those
 * registers on page 0 (upstream's ARM_SMMU_OPT_PAGE0_REGS_ONLY): refuse
 * it rather than read past the mapping.
 */
static int smmuv3_check_pages(struct platform_device *pdev)
{
	struct resource *res = platform_get_resource(pdev, IORESOURCE_MEM, 0);

	if (res && resource_size(res) < SMMUV3_PAGE1 + SZ_64K) {
		dev_err(&pdev->dev, "no page 1 in %pR: page-0-only SMMUs (Cavium CN99xx) are not supported\n",
			res);
		return -ENODEV;
	}
	return 0;
}

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

	ret = smmuv3_check_pages(pdev);
	if (ret)
		return ret;
	smmu->base = devm_platform_ioremap_resource(pdev, 0);
	if (IS_ERR(smmu->base))
		return PTR_ERR(smmu->base);

	ret = dma_set_mask_and_coherent(dev, DMA_BIT_MASK(44));
	if (ret)
		return ret;
	xa_init(&smmu->streams);
	ret = smmuv3_probe_idrs(smmu);
	if (ret)
		return ret;
	ret = smmuv3_cmdq_init(&smmu->cmdq, dev, smmu->base, SMMUV3_CMDQ_SHIFT);
	if (!ret)
		ret = smmuv3_alloc_queue(smmu, &smmu->evtq, SMMUV3_EVTQ_SHIFT,
					 EVT_DWORDS);
	if (ret)
		return ret;

	id = ida_alloc(&smmuv3_ids, GFP_KERNEL);
	if (id < 0)
		return id;
	snprintf(smmu->name, sizeof(smmu->name), "smmuv3.%d", id);

	ret = smmuv3_reset(smmu, pdev);
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
	ret = iommu_device_register(&smmu->iommu, &smmuv3_iommu_ops, dev);
	if (ret) {
		/* Up to 6.7 the core takes one IOMMU driver, for all buses. */
		if (ret == -EBUSY)
			dev_err(dev, "another IOMMU driver is registered: keep the in-tree arm-smmu-v3 off\n");
		goto err_sysfs;
	}
	smmuv3_hold_bus_ops();

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
	smmuv3_disable(smmu);
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
	smmuv3_disable(smmu);
	xa_destroy(&smmu->streams);
	if (!kstrtoint(smmu->name + strlen("smmuv3."), 10, &id))
		ida_free(&smmuv3_ids, id);
	ida_destroy(&smmu->asids);
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
};
module_platform_driver(smmuv3_driver);

MODULE_DESCRIPTION("flushpol SMMUv3 backend: an IOMMU driver whose invalidation flushpol decides");
MODULE_AUTHOR("flushpol developers");
MODULE_VERSION(FP_VERSION);
MODULE_LICENSE("GPL");
MODULE_SOFTDEP("pre: flushpol_threshold");
