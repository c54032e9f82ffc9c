// SPDX-License-Identifier: GPL-2.0-only
/*
 * A minimal SMMUv3 platform driver for "arm,smmu-v3", for systems where the
 * in-tree arm-smmu-v3 driver is kept off (initcall_blacklist=
 * arm_smmu_driver_init).  It probes the ID registers, sets up the command
 * and event queues and a linear stream table whose entries bypass, and
 * enables the SMMU; domains (domain.c) then put single streams behind
 * stage-1 page tables whose invalidation goes through flushpol.
 *
 * It does not register with the IOMMU core: DMA-API users keep bypassing,
 * and a stream is translated only once a domain is attached to it.  No
 * stage 2, no PRI, ATS, MSIs or 2-level tables.
 */
#define pr_fmt(fmt) "flushpol_smmuv3: " fmt

#include <linux/dma-mapping.h>
#include <linux/interrupt.h>
#include <linux/io.h>
#include <linux/io-64-nonatomic-lo-hi.h>
#include <linux/iopoll.h>
#include <linux/module.h>
#include <linux/of.h>
#include <linux/platform_device.h>
#include <linux/property.h>

#include "smmuv3_dev.h"

static bool force_no_ril;
module_param(force_no_ril, bool, 0444);
MODULE_PARM_DESC(force_no_ril,
		 "Ignore IDR3.RIL: invalidate by single address, as SMMUv3.0-3.1 must");

#define SMMUV3_CMDQ_SHIFT	12	/* 4096 commands, 64 KiB */
#define SMMUV3_EVTQ_SHIFT	7	/* 128 events */
#define SMMUV3_STRTAB_LOG2	8	/* streams 0..255: PCI bus 0 */

static DEFINE_MUTEX(smmuv3_list_lock);
static LIST_HEAD(smmuv3_list);
static DEFINE_IDA(smmuv3_ids);

/**
 * smmuv3_find() - a probed SMMU by name
 * @name: "smmuv3.<n>", or NULL for the first one
 *
 * Return: the SMMU, or NULL.
 */
struct smmuv3_device *smmuv3_find(const char *name)
{
	struct smmuv3_device *smmu, *found = NULL;

	mutex_lock(&smmuv3_list_lock);
	list_for_each_entry(smmu, &smmuv3_list, node) {
		if (!name || !strcmp(smmu->name, name)) {
			found = smmu;
			break;
		}
	}
	mutex_unlock(&smmuv3_list_lock);
	return found;
}
EXPORT_SYMBOL_GPL(smmuv3_find);

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

static void smmuv3_ste_bypass(u64 *ste)
{
	memset(ste, 0, STE_DWORDS * sizeof(*ste));
	ste[0] = STE_0_V | FIELD_PREP(STE_0_CFG, STE_0_CFG_BYPASS);
	ste[1] = FIELD_PREP(STE_1_SHCFG, STE_1_SHCFG_INCOMING);
}

/**
 * smmuv3_write_ste() - replace a stream table entry
 * @smmu: the SMMU
 * @sid: the stream
 * @ste: the new entry
 *
 * The SMMU may read the entry at any time: dword 0, which holds V, goes
 * invalid first and valid last.  The caller then issues CFGI_STE.
 */
void smmuv3_write_ste(struct smmuv3_device *smmu, u32 sid, const u64 *ste)
{
	__le64 *dst = &smmu->strtab[sid * STE_DWORDS];
	int i;

	WRITE_ONCE(dst[0], 0);
	dma_wmb();
	for (i = 1; i < STE_DWORDS; i++)
		dst[i] = cpu_to_le64(ste[i]);
	dma_wmb();
	WRITE_ONCE(dst[0], cpu_to_le64(ste[0]));
}

static int smmuv3_init_strtab(struct smmuv3_device *smmu)
{
	u32 sidsize = FIELD_GET(IDR1_SIDSIZE, readl_relaxed(smmu->base +
							  SMMUV3_IDR1));
	u64 ste[STE_DWORDS];
	u32 sid;

	smmu->strtab_log2 = min_t(u32, sidsize, SMMUV3_STRTAB_LOG2);
	smmu->strtab = dmam_alloc_coherent(smmu->dev,
					   (STE_DWORDS << 3) << smmu->strtab_log2,
					   &smmu->strtab_dma, GFP_KERNEL);
	if (!smmu->strtab)
		return -ENOMEM;
	smmuv3_ste_bypass(ste);
	for (sid = 0; sid < BIT(smmu->strtab_log2); sid++)
		smmuv3_write_ste(smmu, sid, ste);
	return 0;
}

static irqreturn_t smmuv3_evtq_thread(int irq, void *dev)
{
	struct smmuv3_device *smmu = dev;
	struct smmuv3_queue *q = &smmu->evtq;
	u32 mask = BIT(q->shift + 1) - 1;

	q->prod = readl_relaxed(smmu->base + SMMUV3_EVTQ_PROD);
	while ((q->cons & mask) != (q->prod & mask)) {
		__le64 *evt = &q->base[(q->cons & (BIT(q->shift) - 1)) *
				       EVT_DWORDS];
		u64 e0 = le64_to_cpu(evt[0]), e1 = le64_to_cpu(evt[1]);

		dev_err_ratelimited(smmu->dev,
				    "event %#02llx%s sid %#llx %s iova %#llx\n",
				    FIELD_GET(EVT_0_ID, e0),
				    FIELD_GET(EVT_0_ID, e0) == EVT_ID_TRANSLATION ?
				    " (F_TRANSLATION)" : "",
				    FIELD_GET(EVT_0_SID, e0),
				    e1 & EVT_1_RNW ? "read" : "write",
				    le64_to_cpu(evt[2]));
		q->cons = (q->cons + 1) & mask;
		writel(q->cons | (q->prod & Q_OVF), smmu->base +
		       SMMUV3_EVTQ_CONS);
		q->prod = readl_relaxed(smmu->base + SMMUV3_EVTQ_PROD);
	}
	return IRQ_HANDLED;
}

static int smmuv3_setup_irqs(struct smmuv3_device *smmu,
			     struct platform_device *pdev)
{
	int irq, ret;
	u32 ack;

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
			     (smmu->strtab_dma & STRTAB_BASE_ADDR),
			     smmu->base + SMMUV3_STRTAB_BASE);
	writel_relaxed(FIELD_PREP(STRTAB_BASE_CFG_LOG2SIZE, smmu->strtab_log2),
		       smmu->base + SMMUV3_STRTAB_BASE_CFG);

	lo_hi_writeq_relaxed(smmuv3_q_base(&smmu->cmdq.q),
			     smmu->base + SMMUV3_CMDQ_BASE);
	writel_relaxed(0, smmu->base + SMMUV3_CMDQ_PROD);
	writel_relaxed(0, smmu->base + SMMUV3_CMDQ_CONS);
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

static int smmuv3_probe_idrs(struct smmuv3_device *smmu)
{
	static const unsigned int oas_bits[] = { 32, 36, 40, 42, 44, 48, 52 };
	u32 idr0 = readl_relaxed(smmu->base + SMMUV3_IDR0);
	u32 idr1 = readl_relaxed(smmu->base + SMMUV3_IDR1);
	u32 idr3 = readl_relaxed(smmu->base + SMMUV3_IDR3);
	u32 idr5 = readl_relaxed(smmu->base + SMMUV3_IDR5);

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
	smmu->ril = (idr3 & IDR3_RIL) && !force_no_ril;
	smmu->coherent = device_get_dma_attr(smmu->dev) == DEV_DMA_COHERENT;
	smmu->oas = oas_bits[min_t(u32, FIELD_GET(IDR5_OAS, idr5),
				   ARRAY_SIZE(oas_bits) - 1)];
	dev_info(smmu->dev, "IDR0 %#x IDR3 %#x: %s range invalidation%s, %u-bit OAS\n",
		 idr0, idr3, smmu->ril ? "with" : "without",
		 (idr3 & IDR3_RIL) && force_no_ril ? " (forced off)" : "",
		 smmu->oas);
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

	smmu->base = devm_platform_ioremap_resource(pdev, 0);
	if (IS_ERR(smmu->base))
		return PTR_ERR(smmu->base);

	ret = dma_set_mask_and_coherent(dev, DMA_BIT_MASK(44));
	if (ret)
		return ret;
	ret = smmuv3_probe_idrs(smmu);
	if (ret)
		return ret;
	ret = smmuv3_cmdq_init(&smmu->cmdq, dev, smmu->base, SMMUV3_CMDQ_SHIFT);
	if (!ret)
		ret = smmuv3_alloc_queue(smmu, &smmu->evtq, SMMUV3_EVTQ_SHIFT,
					 EVT_DWORDS);
	if (!ret)
		ret = smmuv3_init_strtab(smmu);
	if (ret)
		return ret;

	id = ida_alloc(&smmuv3_ids, GFP_KERNEL);
	if (id < 0)
		return id;
	snprintf(smmu->name, sizeof(smmu->name), "smmuv3.%d", id);

	ret = smmuv3_reset(smmu, pdev);
	if (ret) {
		ida_free(&smmuv3_ids, id);
		return ret;
	}

	platform_set_drvdata(pdev, smmu);
	mutex_lock(&smmuv3_list_lock);
	list_add_tail(&smmu->node, &smmuv3_list);
	mutex_unlock(&smmuv3_list_lock);
	dev_info(dev, "%s enabled, streams 0..%lu bypass\n", smmu->name,
		 BIT(smmu->strtab_log2) - 1);
	return 0;
}

static void smmuv3_remove(struct platform_device *pdev)
{
	struct smmuv3_device *smmu = platform_get_drvdata(pdev);
	int id;

	mutex_lock(&smmuv3_list_lock);
	list_del(&smmu->node);
	mutex_unlock(&smmuv3_list_lock);
	smmuv3_write_cr0(smmu, 0);
	writel_relaxed(0, smmu->base + SMMUV3_IRQ_CTRL);
	if (!kstrtoint(smmu->name + strlen("smmuv3."), 10, &id))
		ida_free(&smmuv3_ids, id);
	ida_destroy(&smmu->asids);
}

static const struct of_device_id smmuv3_of_match[] = {
	{ .compatible = "arm,smmu-v3" },
	{ }
};
MODULE_DEVICE_TABLE(of, smmuv3_of_match);

static struct platform_driver smmuv3_driver = {
	.driver = {
		.name = "flushpol-smmuv3",
		.of_match_table = smmuv3_of_match,
		.suppress_bind_attrs = true,
	},
	.probe = smmuv3_probe,
	.remove_new = smmuv3_remove,
};
module_platform_driver(smmuv3_driver);

MODULE_DESCRIPTION("flushpol SMMUv3 backend: command encoding and a minimal driver");
MODULE_AUTHOR("flushpol developers");
MODULE_VERSION(FP_VERSION);
MODULE_LICENSE("GPL");
MODULE_SOFTDEP("pre: flushpol_threshold");
