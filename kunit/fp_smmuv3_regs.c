// SPDX-License-Identifier: GPL-2.0-only
/*
 * A fake SMMUv3 register file: see fp_smmuv3_regs.h.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/acpi.h>
#include <linux/dma-map-ops.h>
#include <linux/io.h>
#include <linux/property.h>

#include "fp_rig.h"
#include "fp_smmuv3_regs.h"

#define FPT_OP_PREFETCH_CONFIG	0x01
#define FPT_OP_PREFETCH_ADDR	0x02
/* A level-1 descriptor's largest SPAN: 2^10 STEs (IHI 0070, 5.1). */
#define FPT_L1_SPAN_MAX		11

static struct fpt_regs *fpt_regs_of(struct smmuv3_cmdq *cmdq)
{
	return container_of(cmdq, struct fpt_regs, smmu.cmdq);
}

/*
 * In the part's register pages, 32-bit aligned.  A stray access is told
 * with printk, not kunit_err(), whose log allocates: the queue reaches
 * the registers under its raw spinlocks.  @stray fails the test.
 */
static bool fpt_regs_valid(struct fpt_regs *f, unsigned int off)
{
	if (off % 4 || off + 4 > f->size) {
		f->stray++;
		pr_err("%s: access at %#x, outside %s's %zu KiB of registers\n",
		       f->test->name, off, f->smmu.name, f->size / 1024);
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

static u64 fpt_regs_get64(struct fpt_regs *f, unsigned int off)
{
	return fpt_regs_get(f, off) | (u64)fpt_regs_get(f, off + 4) << 32;
}

/* A table of 2^@log2n STEs: its size, and what the SMMU aligns it to. */
static u64 fpt_regs_ste_table_size(u32 log2n)
{
	return (STE_DWORDS * sizeof(u64)) << log2n;
}

/*
 * What the SMMU aligns STRTAB_BASE.ADDR to (IHI 0070, 6.3.24), ignoring
 * the address bits below: a linear table's size, or the larger of 64
 * bytes and a level-1 table's size.
 */
static u64 fpt_regs_strtab_align(u32 cfg)
{
	u32 log2size = FIELD_GET(STRTAB_BASE_CFG_LOG2SIZE, cfg);
	u32 split = FIELD_GET(STRTAB_BASE_CFG_SPLIT, cfg);

	if (FIELD_GET(STRTAB_BASE_CFG_FMT, cfg) != STRTAB_BASE_CFG_FMT_2LVL)
		return fpt_regs_ste_table_size(log2size);
	return max_t(u64, 64, sizeof(u64) << (log2size > split ?
					      log2size - split : 0));
}

/*
 * The double word at @pa, as the SMMU reads memory.  An address with no
 * memory behind it (a table pointer that is garbage) is a stray access,
 * not a dereference: the SMMU would get an external abort, not the CPU.
 */
static bool fpt_regs_read_mem(struct fpt_regs *f, u64 pa, u64 *val)
{
	if (!pfn_valid(PHYS_PFN(pa))) {
		f->stray++;
		pr_err("%s: stream table walk at %#llx, where there is no memory\n",
		       f->test->name, pa);
		return false;
	}
	*val = le64_to_cpu(READ_ONCE(*(__le64 *)phys_to_virt(pa)));
	return true;
}

/*
 * @sid's STE, fetched as the SMMU fetches it (IHI 0070, 3.3.2): from the
 * table STRTAB_BASE points at, linear or two-level as STRTAB_BASE_CFG
 * says, each table's address taken aligned to its size as the SMMU takes
 * it (6.3.24, 5.1), a stream beyond LOG2SIZE or its level-2 table's span
 * being no stream at all.  Returns its CONFIG, or FPT_STE_INVALID or
 * _BEYOND.
 */
static u8 fpt_regs_fetch_ste(struct fpt_regs *f, u32 sid)
{
	u32 cfg = fpt_regs_get(f, SMMUV3_STRTAB_BASE_CFG);
	u64 table = fpt_regs_get64(f, SMMUV3_STRTAB_BASE) & STRTAB_BASE_ADDR &
		    ~(fpt_regs_strtab_align(cfg) - 1);
	u32 split = FIELD_GET(STRTAB_BASE_CFG_SPLIT, cfg);
	u64 l1, ste0;
	u32 span;

	if (!table)
		return FPT_STE_INVALID;
	if (sid >= BIT_ULL(FIELD_GET(STRTAB_BASE_CFG_LOG2SIZE, cfg)))
		return FPT_STE_BEYOND;
	if (FIELD_GET(STRTAB_BASE_CFG_FMT, cfg) == STRTAB_BASE_CFG_FMT_2LVL) {
		if (!fpt_regs_read_mem(f, table + (sid >> split) * sizeof(l1),
				       &l1))
			return FPT_STE_INVALID;
		span = FIELD_GET(STRTAB_L1_DESC_SPAN, l1);
		/* 0, reserved (12 and up), or wider than the split. */
		if (!span || span > FPT_L1_SPAN_MAX || span - 1 > split)
			return FPT_STE_INVALID;
		sid &= BIT(split) - 1;
		if (sid >= BIT(span - 1))
			return FPT_STE_BEYOND;
		table = l1 & STRTAB_L1_DESC_L2PTR &
			~(fpt_regs_ste_table_size(span - 1) - 1);
	}
	if (!fpt_regs_read_mem(f, table + sid * STE_DWORDS * sizeof(ste0),
			       &ste0))
		return FPT_STE_INVALID;
	if (!(ste0 & STE_0_V))
		return FPT_STE_INVALID;
	return FIELD_GET(STE_0_CFG, ste0);
}

static void fpt_regs_write_cr0(struct fpt_regs *f, u32 val)
{
	u32 was = fpt_regs_get(f, SMMUV3_CR0ACK);
	unsigned int i;

	fpt_regs_set(f, SMMUV3_CR0, val);
	if (val & f->refuse_cr0)
		return;
	if ((was & CR0_SMMUEN) && !(val & CR0_SMMUEN) &&
	    !(fpt_regs_get(f, SMMUV3_GBPA) & GBPA_ABORT))
		f->bypass_disables++;
	/* From here on any stream's transaction may fetch its STE. */
	if (!(was & CR0_SMMUEN) && (val & CR0_SMMUEN))
		for (i = 0; i < f->nwatch; i++)
			f->watch_cfg[i] = fpt_regs_fetch_ste(f, f->watch[i]);
	fpt_regs_set(f, SMMUV3_CR0ACK, val);
}

/**
 * fpt_regs_watch() - fetch these streams' STEs when SMMUEN is set
 * @f: the fake
 * @sids: the streams
 * @n: how many, at most FPT_REGS_WATCH
 */
void fpt_regs_watch(struct fpt_regs *f, const u32 *sids, unsigned int n)
{
	KUNIT_ASSERT_LE(f->test, n, FPT_REGS_WATCH);
	memcpy(f->watch, sids, n * sizeof(*sids));
	memset(f->watch_cfg, FPT_STE_UNSEEN, sizeof(f->watch_cfg));
	f->nwatch = n;
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
		pr_err("%s: write of %#x to read-only register %#x\n",
		       f->test->name, val, off);
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

	dev = fpt_device_register(test, "fpt-smmuv3");
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

/* Streams a stream table in ordinary memory may have, at most. */
#define FPT_REGS_NODMA_SID_BITS	12
/*
 * Level-1 descriptors allocated at least: 64 bytes, which kmalloc aligns
 * to 64 as it aligns every power-of-two size to itself.
 */
#define FPT_REGS_NODMA_L1_MIN	(64 / sizeof(u64))

static __le64 *fpt_regs_stes(struct fpt_regs *f, unsigned int n)
{
	__le64 *stes = kunit_kcalloc(f->test, n, STE_DWORDS * sizeof(*stes),
				     GFP_KERNEL);
	u64 ste[STE_DWORDS];
	unsigned int i, j;

	KUNIT_ASSERT_NOT_NULL(f->test, stes);
	smmuv3_ste_abort(ste);
	for (i = 0; i < n; i++)
		for (j = 0; j < STE_DWORDS; j++)
			stes[i * STE_DWORDS + j] = cpu_to_le64(ste[j]);
	return stes;
}

/*
 * Without DMA (UML) smmuv3_strtab_init() cannot allocate: the table it
 * and smmuv3_strtab_prepare() of every stream would make, in ordinary
 * memory, for a part with few streams (none for more).
 */
static void fpt_regs_init_strtab_nodma(struct fpt_regs *f)
{
	struct smmuv3_strtab *st = &f->smmu.strtab;
	u32 idr0 = fpt_regs_get(f, SMMUV3_IDR0);
	u32 sid_bits = FIELD_GET(IDR1_SIDSIZE, fpt_regs_get(f, SMMUV3_IDR1));
	unsigned int i, n;

	if (sid_bits > FPT_REGS_NODMA_SID_BITS)
		return;
	st->sid_bits = sid_bits;
	if (FIELD_GET(IDR0_ST_LVL, idr0) != IDR0_ST_LVL_2LVL ||
	    sid_bits <= SMMUV3_STRTAB_SPLIT) {
		st->base = fpt_regs_stes(f, BIT(sid_bits));
		st->dma = virt_to_phys(st->base);
		return;
	}
	st->two_level = true;
	i = BIT(sid_bits - SMMUV3_STRTAB_SPLIT);
	/*
	 * Aligned as STRTAB_BASE needs (fpt_regs_strtab_align()): 2^10
	 * streams have 32 bytes of descriptors, which kmalloc may put 32
	 * bytes past a 64-byte boundary, and the SMMU would read the 32
	 * bytes below as descriptors.  Those past the i-th are never used.
	 */
	n = max_t(unsigned int, i, FPT_REGS_NODMA_L1_MIN);
	st->base = kunit_kcalloc(f->test, n, sizeof(*st->base), GFP_KERNEL);
	st->l2 = kunit_kcalloc(f->test, i, sizeof(*st->l2), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(f->test, st->base);
	KUNIT_ASSERT_NOT_NULL(f->test, st->l2);
	st->dma = virt_to_phys(st->base);
	while (i--) {
		st->l2[i] = fpt_regs_stes(f, BIT(SMMUV3_STRTAB_SPLIT));
		st->base[i] = cpu_to_le64(FIELD_PREP(STRTAB_L1_DESC_SPAN,
						     SMMUV3_STRTAB_SPLIT + 1) |
					  virt_to_phys(st->l2[i]));
	}
}

/**
 * fpt_regs_init_queues() - what probe allocates after the ID registers
 * @f: the fake, its SMMU probed
 *
 * The stream table as probe allocates it where there is DMA; without
 * (UML) as it would be once every stream is prepared, for a part with at
 * most 2^12 streams (none for more); either aligned as STRTAB_BASE
 * needs, or the test fails.  The queues in ordinary memory, whose
 * physical address the fake reads them at.
 */
void fpt_regs_init_queues(struct fpt_regs *f)
{
	struct smmuv3_device *smmu = &f->smmu;
	size_t cmdq_size = (CMD_DWORDS << 3) << SMMUV3_CMDQ_SHIFT;
	__le64 *ring = kunit_kzalloc(f->test, cmdq_size, GFP_KERNEL);
	u64 align;

	KUNIT_ASSERT_NOT_NULL(f->test, ring);
	if (IS_ENABLED(CONFIG_HAS_DMA))
		KUNIT_ASSERT_EQ(f->test,
				smmuv3_strtab_init(smmu,
						   fpt_regs_get(f, SMMUV3_IDR0),
						   fpt_regs_get(f, SMMUV3_IDR1)),
				0);
	else
		fpt_regs_init_strtab_nodma(f);
	/* The SMMU ignores the address bits below: it would walk below. */
	align = fpt_regs_strtab_align(smmuv3_strtab_base_cfg(smmu));
	if (smmu->strtab.base)
		KUNIT_ASSERT_TRUE_MSG(f->test, IS_ALIGNED(smmu->strtab.dma, align),
				      "stream table at %pad, which STRTAB_BASE aligns to %llu bytes",
				      &smmu->strtab.dma, align);
	smmuv3_cmdq_init_ring(&smmu->cmdq, smmu->dev, smmu->base, ring,
			      virt_to_phys(ring), SMMUV3_CMDQ_SHIFT);
	smmu->cmdq.impl = &fpt_regs_impl;
	smmu->evtq.shift = SMMUV3_EVTQ_SHIFT;
	smmu->evtq.base = kunit_kzalloc(f->test, (EVT_DWORDS << 3) <<
					SMMUV3_EVTQ_SHIFT, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(f->test, smmu->evtq.base);
	smmu->evtq.dma = virt_to_phys(smmu->evtq.base);
}
