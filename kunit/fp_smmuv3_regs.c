// SPDX-License-Identifier: GPL-2.0-only
/*
 * A fake SMMUv3 register file: see fp_smmuv3_regs.h.
 */
#include <kunit/device.h>
#include <linux/acpi.h>
#include <linux/dma-map-ops.h>
#include <linux/io.h>
#include <linux/property.h>

#include "fp_smmuv3_regs.h"

#define FPT_OP_PREFETCH_CONFIG	0x01
#define FPT_OP_PREFETCH_ADDR	0x02

/* Device names are unique on the KUnit bus. */
static atomic_t fpt_regs_devices = ATOMIC_INIT(0);

static struct fpt_regs *fpt_regs_of(struct smmuv3_cmdq *cmdq)
{
	return container_of(cmdq, struct fpt_regs, smmu.cmdq);
}

/* In the part's register pages, 32-bit aligned. */
static bool fpt_regs_valid(struct fpt_regs *f, unsigned int off)
{
	if (off % 4 || off + 4 > f->size) {
		f->stray++;
		kunit_err(f->test, "access at %#x, outside %s's %zu KiB of registers\n",
			  off, f->smmu.name, f->size / 1024);
		return false;
	}
	return true;
}

u32 fpt_regs_get(struct fpt_regs *f, unsigned int off)
{
	return READ_ONCE(f->regs[off / 4]);
}

void fpt_regs_set(struct fpt_regs *f, unsigned int off, u32 val)
{
	WRITE_ONCE(f->regs[off / 4], val);
}

static u32 fpt_regs_read(struct smmuv3_cmdq *cmdq, unsigned int off)
{
	struct fpt_regs *f = fpt_regs_of(cmdq);

	return fpt_regs_valid(f, off) ? fpt_regs_get(f, off) : 0;
}

/*
 * Consume what CMDQ_PROD published, from the ring CMDQ_BASE names: an SMMU
 * reads its queue from memory, not from what the driver thinks it is.
 */
static void fpt_regs_consume(struct fpt_regs *f)
{
	u64 qbase = fpt_regs_get(f, SMMUV3_CMDQ_BASE) |
		    (u64)fpt_regs_get(f, SMMUV3_CMDQ_BASE + 4) << 32;
	unsigned int shift = FIELD_GET(Q_BASE_LOG2SIZE, qbase);
	__le64 *ring = phys_to_virt(qbase & Q_BASE_ADDR);
	u32 wrap = BIT(shift + 1) - 1;
	u32 cons = fpt_regs_get(f, SMMUV3_CMDQ_CONS) & wrap;
	u32 prod = fpt_regs_get(f, SMMUV3_CMDQ_PROD) & wrap;

	if (!(fpt_regs_get(f, SMMUV3_CR0ACK) & CR0_CMDQEN))
		return;
	while (cons != prod) {
		u64 cmd0 = le64_to_cpu(ring[(cons & (BIT(shift) - 1)) *
					    CMD_DWORDS]);

		switch (FIELD_GET(CMD_0_OP, cmd0)) {
		case CMD_OP_SYNC:
			f->syncs++;
			f->run = 0;
			break;
		case FPT_OP_PREFETCH_CONFIG:
		case FPT_OP_PREFETCH_ADDR:
			f->prefetch++;
			fallthrough;
		default:
			f->max_run = max(f->max_run, ++f->run);
		}
		f->consumed++;
		cons = (cons + 1) & wrap;
	}
	fpt_regs_set(f, SMMUV3_CMDQ_CONS, cons);
}

static void fpt_regs_write_cr0(struct fpt_regs *f, u32 val)
{
	u32 was = fpt_regs_get(f, SMMUV3_CR0ACK);

	fpt_regs_set(f, SMMUV3_CR0, val);
	if (val & f->refuse_cr0)
		return;
	if ((was & CR0_SMMUEN) && !(val & CR0_SMMUEN) &&
	    !(fpt_regs_get(f, SMMUV3_GBPA) & GBPA_ABORT))
		f->bypass_disables++;
	fpt_regs_set(f, SMMUV3_CR0ACK, val);
}

static void fpt_regs_write(struct smmuv3_cmdq *cmdq, unsigned int off, u32 val)
{
	struct fpt_regs *f = fpt_regs_of(cmdq);

	if (!fpt_regs_valid(f, off))
		return;
	switch (off) {
	case SMMUV3_IDR0 ... SMMUV3_AIDR:
	case SMMUV3_CR0ACK:
	case SMMUV3_IRQ_CTRLACK:
	case SMMUV3_GERROR:
		f->stray++;
		kunit_err(f->test, "write of %#x to read-only register %#x\n",
			  val, off);
		return;
	case SMMUV3_CR0:
		fpt_regs_write_cr0(f, val);
		return;
	case SMMUV3_GBPA:
		/* Applied, and UPDATE cleared, at once. */
		if (val & GBPA_UPDATE)
			fpt_regs_set(f, off, val & ~GBPA_UPDATE);
		else
			f->gbpa_ignored++;
		return;
	case SMMUV3_IRQ_CTRL:
		fpt_regs_set(f, off, val);
		if (!f->refuse_irq_ctrl)
			fpt_regs_set(f, SMMUV3_IRQ_CTRLACK, val);
		return;
	case SMMUV3_CMDQ_PROD:
		fpt_regs_set(f, off, val);
		fpt_regs_consume(f);
		return;
	default:
		fpt_regs_set(f, off, val);
	}
}

static const struct smmuv3_cmdq_impl fpt_regs_impl = {
	.read_reg	= fpt_regs_read,
	.write_reg	= fpt_regs_write,
};

/**
 * fpt_regs_set_dma_coherent() - what the firmware said of the SMMU's DMA
 * @dev: the SMMU's device
 * @coherent: coherent or not
 *
 * Return: whether this kernel can say it: one whose DMA API is coherent
 * for every device (UML) cannot say "not coherent".
 */
bool fpt_regs_set_dma_coherent(struct device *dev, bool coherent)
{
#if defined(CONFIG_ARCH_HAS_SYNC_DMA_FOR_DEVICE) || \
	defined(CONFIG_ARCH_HAS_SYNC_DMA_FOR_CPU) || \
	defined(CONFIG_ARCH_HAS_SYNC_DMA_FOR_CPU_ALL)
	dev->dma_coherent = coherent;
#endif
	return dev_is_dma_coherent(dev) == coherent;
}

/*
 * What the IORT code gives the platform device of an SMMUv3 node: a
 * pointer to the node as platform data (iort_add_platform_device()), the
 * node's model saying which of upstream's options apply.
 */
static void fpt_regs_iort(struct kunit *test, struct device *dev,
			  const struct fpt_part *part)
{
	struct acpi_iort_node *node;
	struct acpi_iort_node **pdata;
	struct acpi_iort_smmu_v3 *smmu;

	node = kunit_kzalloc(test, sizeof(*node) + sizeof(*smmu), GFP_KERNEL);
	pdata = kunit_kzalloc(test, sizeof(*pdata), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, node);
	KUNIT_ASSERT_NOT_NULL(test, pdata);
	node->type = ACPI_IORT_NODE_SMMU_V3;
	node->length = sizeof(*node) + sizeof(*smmu);
	node->revision = 5;
	smmu = (struct acpi_iort_smmu_v3 *)node->node_data;
	smmu->model = part->page0_only ? ACPI_IORT_SMMU_V3_CAVIUM_CN99XX :
		      part->broken_prefetch ? ACPI_IORT_SMMU_V3_HISILICON_HI161X :
		      ACPI_IORT_SMMU_V3_GENERIC;
	if (part->fw_coherent)
		smmu->flags |= ACPI_IORT_SMMU_V3_COHACC_OVERRIDE;
	*pdata = node;
	dev->platform_data = pdata;
}

/**
 * fpt_regs_new() - a fake SMMU with @part's registers and firmware
 * @test: the test, which owns everything
 * @part: the part
 *
 * Skips the test if this kernel cannot describe the part's firmware.
 *
 * Return: the fake, its SMMU's options parsed as probe would.
 */
struct fpt_regs *fpt_regs_new(struct kunit *test, const struct fpt_part *part)
{
	struct property_entry props[3] = {};
	struct fpt_regs *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	struct device *dev;
	char name[24];
	int n = 0;

	KUNIT_ASSERT_NOT_NULL(test, f);
	f->test = test;
	f->size = part->page0_only ? SMMUV3_PAGE1 : SMMUV3_REGION_SIZE;
	f->regs = kunit_kzalloc(test, f->size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f->regs);
	fpt_regs_set(f, SMMUV3_IDR0, part->idr0);
	fpt_regs_set(f, SMMUV3_IDR1, part->idr1);
	fpt_regs_set(f, SMMUV3_IDR3, part->idr3);
	fpt_regs_set(f, SMMUV3_IDR5, part->idr5);
	fpt_regs_set(f, SMMUV3_IIDR, part->iidr);
	fpt_regs_set(f, SMMUV3_AIDR, part->aidr);

	snprintf(name, sizeof(name), "fpt-smmuv3.%d",
		 atomic_inc_return(&fpt_regs_devices));
	dev = kunit_device_register(test, name);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dev);
	dev->dma_mask = &dev->coherent_dma_mask;
	if (part->acpi)
		fpt_regs_iort(test, dev, part);
	if (part->page0_only && !part->acpi)
		props[n++] = PROPERTY_ENTRY_BOOL("cavium,cn9900-broken-page1-regspace");
	if (part->broken_prefetch && !part->acpi)
		props[n++] = PROPERTY_ENTRY_BOOL("hisilicon,broken-prefetch-cmd");
	if (n)
		KUNIT_ASSERT_EQ(test, device_create_managed_software_node(dev, props, NULL), 0);
	if (!fpt_regs_set_dma_coherent(dev, part->fw_coherent))
		kunit_skip(test, "this kernel's DMA API is coherent for every device: no %s",
			   part->name);

	f->smmu.dev = dev;
	strscpy(f->smmu.name, "fpt-smmuv3", sizeof(f->smmu.name));
	f->smmu.base = (void __iomem __force *)f->regs;
	f->smmu.page1 = part->page0_only ? f->smmu.base :
			f->smmu.base + SMMUV3_PAGE1;
	f->smmu.cmdq.impl = &fpt_regs_impl;
	mutex_init(&f->smmu.ste_lock);
	ida_init(&f->smmu.asids);
	xa_init(&f->smmu.streams);
	smmuv3_parse_options(&f->smmu);
	return f;
}

/**
 * fpt_regs_init_queues() - what probe allocates after the ID registers
 * @f: the fake, its SMMU probed
 *
 * The stream table as probe allocates it where there is DMA (not UML,
 * where the table is left empty); the queues in ordinary memory, whose
 * physical address the fake reads them at.
 */
void fpt_regs_init_queues(struct fpt_regs *f)
{
	struct smmuv3_device *smmu = &f->smmu;
	size_t cmdq_size = (CMD_DWORDS << 3) << SMMUV3_CMDQ_SHIFT;
	__le64 *ring = kunit_kzalloc(f->test, cmdq_size, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(f->test, ring);
	if (IS_ENABLED(CONFIG_HAS_DMA))
		KUNIT_ASSERT_EQ(f->test,
				smmuv3_strtab_init(smmu,
						   fpt_regs_get(f, SMMUV3_IDR0),
						   fpt_regs_get(f, SMMUV3_IDR1)),
				0);
	smmuv3_cmdq_init_ring(&smmu->cmdq, smmu->dev, smmu->base, ring,
			      virt_to_phys(ring), SMMUV3_CMDQ_SHIFT);
	smmu->cmdq.impl = &fpt_regs_impl;
	smmu->evtq.shift = SMMUV3_EVTQ_SHIFT;
	smmu->evtq.base = kunit_kzalloc(f->test, (EVT_DWORDS << 3) <<
					SMMUV3_EVTQ_SHIFT, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(f->test, smmu->evtq.base);
	smmu->evtq.dma = virt_to_phys(smmu->evtq.base);
}
