// SPDX-License-Identifier: GPL-2.0-only
/*
 * What probe, remove and shutdown do to the SMMU's registers: read the ID
 * registers into the features the rest of the driver uses, reset, enable
 * and disable.  Nothing here allocates or maps: it works on whatever
 * &smmuv3_device.base points at, and goes through the queue's register
 * seam (&smmuv3_cmdq_impl), so the KUnit suite flushpol_smmuv3_idr runs it
 * against register files of real parts (kunit/test_smmuv3_idr.c).
 *
 * Every disable aborts first: the SMMU stops translating only after
 * GBPA.ABORT has taken effect, so no stream is left bypassing it.
 */
#define pr_fmt(fmt) "flushpol_smmuv3: " fmt

#include <linux/acpi.h>
#include <linux/dma-map-ops.h>
#include <linux/dma-mapping.h>
#include <linux/iopoll.h>
#include <linux/of.h>
#include <linux/property.h>

#include "smmuv3_dev.h"

/*
 * The ID registers tell the SMMU's table endianness, and the CD this
 * driver writes has ENDI clear: little-endian walks only.
 */
#ifdef CONFIG_CPU_BIG_ENDIAN
#error "flushpol_smmuv3: little-endian kernels only (CD.ENDI is never set)"
#endif

/* A register's acknowledgment, as upstream waits for it. */
#define SMMUV3_POLL_US		100000

/* Erratum 2812531 (MMU-700): a CMD_SYNC at least this often. */
#define SMMUV3_MMU700_SYNC_AFTER	63

static unsigned int smmuv3_page1_fixup(const struct smmuv3_device *smmu,
				       unsigned int off)
{
	if (off >= SMMUV3_PAGE1 && (smmu->options & SMMUV3_OPT_PAGE0_REGS_ONLY))
		return off - SMMUV3_PAGE1;
	return off;
}

/*
 * Each page is mapped on its own (drv.c), and only as far as the
 * architected registers go: page 1's live at @page1, which is @base on an
 * SMMU whose page 1 is folded onto page 0.
 */
static void __iomem *smmuv3_reg(const struct smmuv3_device *smmu,
				unsigned int off)
{
	if (off < SMMUV3_PAGE1)
		return smmu->base + off;
	return smmu->page1 + (off - SMMUV3_PAGE1);
}

/**
 * smmuv3_read() - read a 32-bit register of page 0 or 1
 * @smmu: the SMMU
 * @off: offset from page 0; page 1's registers are at SMMUV3_PAGE1 + x
 *
 * Relaxed: no ordering against memory the SMMU writes.
 *
 * Return: the value.
 */
u32 smmuv3_read(struct smmuv3_device *smmu, unsigned int off)
{
	const struct smmuv3_cmdq_impl *impl = smmu->cmdq.impl;

	if (impl && impl->read_reg)
		return impl->read_reg(&smmu->cmdq,
				      smmuv3_page1_fixup(smmu, off));
	return readl_relaxed(smmuv3_reg(smmu, off));
}

static void smmuv3_write(struct smmuv3_device *smmu, unsigned int off, u32 val)
{
	const struct smmuv3_cmdq_impl *impl = smmu->cmdq.impl;

	if (impl && impl->write_reg)
		impl->write_reg(&smmu->cmdq, smmuv3_page1_fixup(smmu, off),
				val);
	else
		writel_relaxed(val, smmuv3_reg(smmu, off));
}

/* 64-bit registers as two 32-bit halves: the architecture allows it. */
static void smmuv3_write64(struct smmuv3_device *smmu, unsigned int off,
			   u64 val)
{
	smmuv3_write(smmu, off, lower_32_bits(val));
	smmuv3_write(smmu, off + 4, upper_32_bits(val));
}

/*
 * Poll without sleeping: the GERROR interrupt disables the SMMU from hard
 * interrupt context.
 */
static int smmuv3_poll(struct smmuv3_device *smmu, unsigned int off, u32 mask,
		       u32 want)
{
	u32 val;

	return read_poll_timeout_atomic(smmuv3_read, val,
					(val & mask) == want, 1,
					SMMUV3_POLL_US, false, smmu, off);
}

static int smmuv3_write_cr0(struct smmuv3_device *smmu, u32 val)
{
	int ret;

	smmuv3_write(smmu, SMMUV3_CR0, val);
	ret = smmuv3_poll(smmu, SMMUV3_CR0ACK, U32_MAX, val);
	if (ret)
		dev_err(smmu->dev, "CR0 %#x not acknowledged\n", val);
	return ret;
}

/*
 * GBPA's update protocol: wait for any update in flight, write the new
 * value with UPDATE set, and wait for the SMMU to clear UPDATE, which it
 * does once the new attributes apply.
 */
static int smmuv3_update_gbpa(struct smmuv3_device *smmu, u32 set, u32 clr)
{
	u32 gbpa;
	int ret;

	ret = smmuv3_poll(smmu, SMMUV3_GBPA, GBPA_UPDATE, 0);
	if (!ret) {
		gbpa = (smmuv3_read(smmu, SMMUV3_GBPA) & ~clr) | set;
		smmuv3_write(smmu, SMMUV3_GBPA, gbpa | GBPA_UPDATE);
		ret = smmuv3_poll(smmu, SMMUV3_GBPA, GBPA_UPDATE, 0);
	}
	if (ret)
		dev_err(smmu->dev, "GBPA not responding to update\n");
	return ret;
}

/**
 * smmuv3_device_disable() - stop translating, aborting every stream
 * @smmu: the SMMU
 *
 * GBPA.ABORT first, so that the moment SMMUEN clears, incoming
 * transactions abort instead of bypassing; then the queues and the
 * interrupts.  Safe in any context, and with the SMMU already disabled.
 *
 * Return: 0, or -ETIMEDOUT if a register was not acknowledged (the rest
 * is still tried).
 */
int smmuv3_device_disable(struct smmuv3_device *smmu)
{
	int ret, ret2;

	ret = smmuv3_update_gbpa(smmu, GBPA_ABORT, 0);
	ret2 = smmuv3_write_cr0(smmu, 0);
	smmuv3_write(smmu, SMMUV3_IRQ_CTRL, 0);
	return ret ?: ret2;
}

/*
 * Upstream's options, and how firmware gives each: a device-tree property
 * (arm_smmu_options[]) or an IORT SMMUv3 node's model
 * (acpi_smmu_iort_probe_model()).  One model, one option, as upstream.
 */
static const struct smmuv3_fw_option {
	u32 opt;
	const char *prop;
	u32 iort_model;
} smmuv3_fw_options[] = {
	/* Cavium CN99xx: page 1's registers are at page 0's offsets. */
	{ SMMUV3_OPT_PAGE0_REGS_ONLY, "cavium,cn9900-broken-page1-regspace",
	  ACPI_IORT_SMMU_V3_CAVIUM_CN99XX },
	/*
	 * HiSilicon Hi161x (Hip06, Hip07, Hip08): CMD_PREFETCH_* are broken;
	 * this driver never issues them, so the option is only recorded.
	 */
	{ SMMUV3_OPT_SKIP_PREFETCH, "hisilicon,broken-prefetch-cmd",
	  ACPI_IORT_SMMU_V3_HISILICON_HI161X },
};

/**
 * smmuv3_iort_options() - the options an IORT SMMUv3 node's model implies
 * @model: &struct acpi_iort_smmu_v3.model
 *
 * Return: SMMUV3_OPT_* (0 for a generic SMMUv3, or a model not known).
 */
u32 smmuv3_iort_options(u32 model)
{
	u32 opts = 0;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(smmuv3_fw_options); i++)
		if (smmuv3_fw_options[i].iort_model == model)
			opts |= smmuv3_fw_options[i].opt;
	return opts;
}

/*
 * The IORT SMMUv3 node of a platform device the IORT code created: it
 * gives the device a pointer to the node as platform data
 * (iort_add_platform_device()).  A device-tree node never has one.
 */
static const struct acpi_iort_smmu_v3 *smmuv3_iort_node(struct device *dev)
{
	struct acpi_iort_node *const *node = dev_get_platdata(dev);

	if (is_of_node(dev_fwnode(dev)) || !node || !*node ||
	    (*node)->type != ACPI_IORT_NODE_SMMU_V3)
		return NULL;
	return (const struct acpi_iort_smmu_v3 *)(*node)->node_data;
}

/**
 * smmuv3_parse_options() - the firmware's word on errata of this part
 * @smmu: the SMMU, with @smmu->dev set
 *
 * Before the registers are mapped: CN99xx's region is one page.  Under
 * ACPI from the IORT node's model, under a device tree from properties.
 */
void smmuv3_parse_options(struct smmuv3_device *smmu)
{
	const struct acpi_iort_smmu_v3 *iort = smmuv3_iort_node(smmu->dev);
	unsigned int i;

	if (iort) {
		smmu->options |= smmuv3_iort_options(iort->model);
		return;
	}
	for (i = 0; i < ARRAY_SIZE(smmuv3_fw_options); i++)
		if (device_property_read_bool(smmu->dev,
					      smmuv3_fw_options[i].prop))
			smmu->options |= smmuv3_fw_options[i].opt;
}

/**
 * smmuv3_check_region() - whether the MMIO region holds every register used
 * @smmu: the SMMU, options parsed
 * @res: its MMIO resource
 *
 * Return: 0, or -EINVAL with a message.
 */
int smmuv3_check_region(struct smmuv3_device *smmu, const struct resource *res)
{
	resource_size_t need = smmu->options & SMMUV3_OPT_PAGE0_REGS_ONLY ?
			       SMMUV3_PAGE1 : SMMUV3_REGION_SIZE;

	if (resource_size(res) < need) {
		dev_err(smmu->dev, "MMIO region too small (%pr)\n", res);
		return -EINVAL;
	}
	return 0;
}

/* Arm's parts, by IIDR: the errata upstream works around that apply here. */
static void smmuv3_iidr_probe(struct smmuv3_device *smmu)
{
	u32 iidr = smmuv3_read(smmu, SMMUV3_IIDR);

	if (FIELD_GET(IIDR_IMPLEMENTER, iidr) != IIDR_IMPLEMENTER_ARM)
		return;
	/*
	 * Arm erratum 2812531: MMU-700 can lose track of outstanding
	 * commands when too many come between two CMD_SYNCs.  (Its other
	 * workarounds upstream turn off BTM and nesting, which this driver
	 * never uses.)
	 */
	if (FIELD_GET(IIDR_PRODUCTID, iidr) == IIDR_PRODUCTID_ARM_MMU_700)
		smmu->options |= SMMUV3_OPT_CMDQ_FORCE_SYNC;
}

static unsigned int smmuv3_oas_bits(struct smmuv3_device *smmu, u32 idr5)
{
	static const unsigned int bits[] = { 32, 36, 40, 42, 44, 48, 52 };
	u32 oas = FIELD_GET(IDR5_OAS, idr5);

	if (oas < ARRAY_SIZE(bits))
		return bits[oas];
	dev_info(smmu->dev, "unknown output address size. Truncating to 48-bit\n");
	return 48;
}

/* What IDR0 allows that this driver cannot drive: refused as upstream does. */
static int smmuv3_check_idr0(struct smmuv3_device *smmu, u32 idr0)
{
	switch (FIELD_GET(IDR0_TTENDIAN, idr0)) {
	case IDR0_TTENDIAN_MIXED:
	case IDR0_TTENDIAN_LE:
		break;
	default:
		dev_err(smmu->dev, "unknown/unsupported TT endianness!\n");
		return -ENXIO;
	}
	switch (FIELD_GET(IDR0_TTF, idr0)) {
	case IDR0_TTF_AARCH64:
	case IDR0_TTF_AARCH32_64:
		break;
	default:
		dev_err(smmu->dev, "AArch64 table format not supported!\n");
		return -ENXIO;
	}
	/*
	 * Stalling is forced: every fault would stall the transaction until
	 * software resumes or terminates it, and the CDs need S=1.  This
	 * driver handles no stalls, so it does not take such an SMMU.
	 */
	if (FIELD_GET(IDR0_STALL_MODEL, idr0) == IDR0_STALL_MODEL_FORCE) {
		dev_err(smmu->dev, "stall model forced (IDR0.STALL_MODEL=2): stalled faults are not supported\n");
		return -ENXIO;
	}
	if (!(idr0 & IDR0_S1P)) {
		dev_err(smmu->dev, "no stage 1 translation\n");
		return -ENXIO;
	}
	return 0;
}

/**
 * smmuv3_hw_probe() - read the ID registers into the SMMU's features
 * @smmu: the SMMU, options parsed and registers mapped
 *
 * Refuses, with the message upstream's driver prints where it has one,
 * what this driver cannot drive.  Table walks are coherent exactly when
 * the DMA API treats the SMMU as coherent: the firmware decides, as
 * upstream lets it, and a different IDR0.COHACC only earns a warning.
 * The SMMU's own DMA mask follows its output address size.
 *
 * Return: 0, or -ENXIO.
 */
int smmuv3_hw_probe(struct smmuv3_device *smmu)
{
	u32 idr0 = smmuv3_read(smmu, SMMUV3_IDR0);
	u32 idr1 = smmuv3_read(smmu, SMMUV3_IDR1);
	u32 idr3 = smmuv3_read(smmu, SMMUV3_IDR3);
	u32 idr5 = smmuv3_read(smmu, SMMUV3_IDR5);
	int ret;

	ret = smmuv3_check_idr0(smmu, idr0);
	if (ret)
		return ret;
	if (!(idr5 & IDR5_GRAN4K)) {
		dev_err(smmu->dev, "no stage 1 with 4K granule\n");
		return -ENXIO;
	}
	if (idr1 & (IDR1_TABLES_PRESET | IDR1_QUEUES_PRESET | IDR1_REL)) {
		dev_err(smmu->dev, "embedded implementation not supported\n");
		return -ENXIO;
	}
	if (FIELD_GET(IDR1_CMDQS, idr1) < SMMUV3_CMDQ_SHIFT ||
	    FIELD_GET(IDR1_EVTQS, idr1) < SMMUV3_EVTQ_SHIFT) {
		dev_err(smmu->dev, "queues too small\n");
		return -ENXIO;
	}

	smmu->coherent = dev_is_dma_coherent(smmu->dev);
	if (!!(idr0 & IDR0_COHACC) != smmu->coherent)
		dev_warn(smmu->dev, "IDR0.COHACC overridden by FW configuration (%s)\n",
			 smmu->coherent ? "true" : "false");
	smmu->ril = idr3 & IDR3_RIL;
	smmu->oas = smmuv3_oas_bits(smmu, idr5);
	smmu->asid_bits = idr0 & IDR0_ASID16 ? 16 : 8;
	/* The marks' ASIDs stay out of the domains' way. */
	smmu->asid_max = smmu->asid_bits == 16 ? SMMUV3_ASID_MARK - 1 : U8_MAX;
	smmuv3_iidr_probe(smmu);

	if (dma_set_mask_and_coherent(smmu->dev, DMA_BIT_MASK(smmu->oas)))
		dev_warn(smmu->dev, "failed to set DMA mask for table walker\n");

	dev_info(smmu->dev, "IIDR %#x AIDR %#x: %s range invalidation, %u-bit OAS, %u-bit ASIDs, %scoherent walks, options %#x\n",
		 smmuv3_read(smmu, SMMUV3_IIDR), smmuv3_read(smmu, SMMUV3_AIDR),
		 smmu->ril ? "with" : "without", smmu->oas, smmu->asid_bits,
		 smmu->coherent ? "" : "non-", smmu->options);
	return 0;
}

/**
 * smmuv3_mark_asid() - the ASID of test mark @n
 * @smmu: the SMMU
 * @n: the mark
 *
 * Marks use ASIDs above every domain's.  With 8-bit ASIDs the SMMU sees
 * only the low byte, which a domain may own: no marks there.
 *
 * Return: the ASID, or -EOPNOTSUPP.
 */
int smmuv3_mark_asid(const struct smmuv3_device *smmu, u32 n)
{
	if (smmu->asid_bits < 16)
		return -EOPNOTSUPP;
	return SMMUV3_ASID_MARK + (n & 0xfff);
}

u64 smmuv3_q_base(const struct smmuv3_queue *q)
{
	return Q_BASE_RWA | (q->dma & Q_BASE_ADDR) |
	       FIELD_PREP(Q_BASE_LOG2SIZE, q->shift);
}

/* Configuration and TLB entries from firmware or a previous kernel. */
static int smmuv3_invalidate_all(struct smmuv3_device *smmu)
{
	u64 cmd[CMD_DWORDS];
	int ret;

	smmuv3_cmd_cfgi_all(cmd);
	ret = smmuv3_cmdq_issue_sync(smmu, cmd, 1);
	if (ret)
		return ret;
	smmuv3_cmd_tlbi_nsnh_all(cmd);
	return smmuv3_cmdq_issue_sync(smmu, cmd, 1);
}

static int smmuv3_program(struct smmuv3_device *smmu)
{
	int ret;

	smmuv3_write(smmu, SMMUV3_CR1,
		     FIELD_PREP(CR1_TABLE_SH, SMMUV3_SH_ISH) |
		     FIELD_PREP(CR1_TABLE_OC, CR1_CACHE_WB) |
		     FIELD_PREP(CR1_TABLE_IC, CR1_CACHE_WB) |
		     FIELD_PREP(CR1_QUEUE_SH, SMMUV3_SH_ISH) |
		     FIELD_PREP(CR1_QUEUE_OC, CR1_CACHE_WB) |
		     FIELD_PREP(CR1_QUEUE_IC, CR1_CACHE_WB));
	smmuv3_write(smmu, SMMUV3_CR2, CR2_PTM | CR2_RECINVSID);

	smmuv3_write64(smmu, SMMUV3_STRTAB_BASE,
		       STRTAB_BASE_RA | (smmu->strtab.dma & STRTAB_BASE_ADDR));
	smmuv3_write(smmu, SMMUV3_STRTAB_BASE_CFG,
		     smmuv3_strtab_base_cfg(smmu));

	smmuv3_write64(smmu, SMMUV3_CMDQ_BASE, smmuv3_q_base(&smmu->cmdq.q));
	smmuv3_write(smmu, SMMUV3_CMDQ_PROD, 0);
	smmuv3_write(smmu, SMMUV3_CMDQ_CONS, 0);
	/*
	 * Global errors firmware or a previous kernel left unacknowledged are
	 * not ours: a stale CMDQ_ERR would make the first wait replace the
	 * CFGI_ALL below with a CMD_SYNC.
	 */
	smmuv3_write(smmu, SMMUV3_GERRORN, smmuv3_read(smmu, SMMUV3_GERROR));
	ret = smmuv3_write_cr0(smmu, CR0_CMDQEN);
	if (ret)
		return ret;
	ret = smmuv3_invalidate_all(smmu);
	if (ret)
		return ret;

	smmuv3_write64(smmu, SMMUV3_EVTQ_BASE, smmuv3_q_base(&smmu->evtq));
	smmuv3_write(smmu, SMMUV3_EVTQ_PROD, 0);
	smmuv3_write(smmu, SMMUV3_EVTQ_CONS, 0);
	return smmuv3_write_cr0(smmu, CR0_CMDQEN | CR0_EVTQEN);
}

/**
 * smmuv3_device_reset() - bring the SMMU to queues on, translation off
 * @smmu: the SMMU, its queues and stream table allocated
 *
 * An SMMU found enabled (firmware, or the kernel before a kexec that did
 * not shut it down) is made to abort before it is disabled: its streams
 * may be carrying DMA, which GBPA would otherwise let through untranslated.
 * On failure the SMMU is left disabled, so nothing reads the queues and
 * tables once probe's unwinding frees them.
 *
 * Return: 0, or the error of the step that failed.
 */
int smmuv3_device_reset(struct smmuv3_device *smmu)
{
	int ret;

	if (smmu->options & SMMUV3_OPT_CMDQ_FORCE_SYNC)
		smmu->cmdq.force_sync_after = SMMUV3_MMU700_SYNC_AFTER;
	if (smmuv3_read(smmu, SMMUV3_CR0) & CR0_SMMUEN)
		dev_warn(smmu->dev, "SMMU currently enabled! Resetting...\n");
	ret = smmuv3_device_disable(smmu);
	if (!ret)
		ret = smmuv3_program(smmu);
	if (ret)
		smmuv3_device_disable(smmu);
	return ret;
}

/**
 * smmuv3_device_enable() - interrupts on, then translation
 * @smmu: the SMMU, reset and its interrupt handlers requested
 * @events: report translation faults through the event queue
 *
 * A kdump kernel passes @events false, as upstream leaves EVTQEN off in
 * one: the crashed kernel's devices may still be doing DMA to addresses
 * no domain of this kernel maps, and their faults would flood the event
 * queue and its interrupt while the dump is taken.  Their streams abort
 * all the same (every stream without a domain does), so nothing else
 * changes; global errors are still reported.
 *
 * On failure the SMMU is left disabled.
 *
 * Return: 0, or -ETIMEDOUT.
 */
int smmuv3_device_enable(struct smmuv3_device *smmu, bool events)
{
	u32 irqs = IRQ_CTRL_GERROR_IRQEN;
	u32 cr0 = CR0_CMDQEN | CR0_SMMUEN;
	int ret;

	if (events) {
		irqs |= IRQ_CTRL_EVTQ_IRQEN;
		cr0 |= CR0_EVTQEN;
	}
	smmuv3_write(smmu, SMMUV3_IRQ_CTRL, irqs);
	ret = smmuv3_poll(smmu, SMMUV3_IRQ_CTRLACK, U32_MAX, irqs);
	if (!ret)
		ret = smmuv3_write_cr0(smmu, cr0);
	if (ret)
		smmuv3_device_disable(smmu);
	return ret;
}

/**
 * smmuv3_device_start() - from reset to translating, as probe brings it up
 * @smmu: the SMMU, probed, its queues and stream table allocated
 * @request_irqs: requests its interrupt handlers, once the queues are on
 * @data: @request_irqs' argument
 * @events: as smmuv3_device_enable()
 *
 * Between the reset (queues on) and SMMUEN, the streams of IORT's
 * reserved memory ranges get their bypass STEs (rmr.c): from the moment
 * the SMMU translates, they never abort.
 *
 * Return: 0, or the error of the step that failed, the SMMU disabled.
 */
int smmuv3_device_start(struct smmuv3_device *smmu,
			int (*request_irqs)(struct smmuv3_device *smmu,
					    void *data),
			void *data, bool events)
{
	int ret = smmuv3_device_reset(smmu);

	if (!ret) {
		smmuv3_rmr_install(smmu);
		ret = request_irqs(smmu, data);
	}
	if (!ret)
		ret = smmuv3_device_enable(smmu, events);
	if (ret)
		smmuv3_device_disable(smmu);
	return ret;
}

/**
 * smmuv3_gerror_handler() - the GERROR interrupt, service failure included
 * @irq: its number
 * @dev: the SMMU
 *
 * The queue's handler (smmuv3_gerror_irq()) skips a refused command and
 * acknowledges the rest.  SFM_ERR says the SMMU entered service failure
 * mode: it no longer translates as programmed, and nothing it reports or
 * completes can be trusted, so it is disabled, aborting every stream
 * (as upstream disables it).  Waits on its queue then time out, and the
 * devices behind it get aborts instead of untranslated access.
 *
 * The disable waits for its acknowledgments here, in hard interrupt
 * context, as upstream's arm_smmu_gerror_handler() does: up to
 * SMMUV3_POLL_US for GBPA's pending update, its own, and CR0ACK.  Writing
 * CR0 at once and checking CR0ACK from a workqueue would not be quicker
 * to make the SMMU safe: SMMUEN may be cleared only once GBPA.ABORT has
 * taken effect, or streams bypass translation in between, so that first
 * wait stays; and until the worker ran, the failed SMMU would go on
 * translating.  A register interface that works acknowledges in
 * microseconds; one that does not costs the bound once, since the
 * disable turns the SMMU's interrupts off.
 *
 * Return: as smmuv3_gerror_irq().
 */
irqreturn_t smmuv3_gerror_handler(int irq, void *dev)
{
	struct smmuv3_device *smmu = dev;
	u32 active = smmuv3_read(smmu, SMMUV3_GERROR) ^
		     smmuv3_read(smmu, SMMUV3_GERRORN);
	irqreturn_t ret = smmuv3_gerror_irq(irq, dev);

	if (active & GERROR_SFM_ERR) {
		dev_crit(smmu->dev, "device has entered Service Failure Mode! Disabled: its streams abort from now on\n");
		smmuv3_device_disable(smmu);
	}
	return ret;
}
