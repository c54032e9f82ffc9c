// SPDX-License-Identifier: GPL-2.0-only
/*
 * flushpol_smmuv3_idr: the driver's probe (backends/smmuv3/hw.c) against
 * fake register files of real SMMUs (fp_smmuv3_regs.c).  Each part either
 * probes, resets and enables with the features upstream's arm-smmu-v3
 * would give it, or is refused as upstream refuses it; each disable on the
 * way aborts streams before the SMMU stops translating.
 *
 * Sources of the ID register values:
 *  - upstream: drivers/iommu/arm/arm-smmu-v3/arm-smmu-v3.c (Linux 6.12):
 *    arm_smmu_device_iidr_probe() (IIDR implementer 0x43b, products 0x483
 *    MMU-600 and 0x487 MMU-700), arm_smmu_options[] (the Cavium and
 *    HiSilicon properties), arm_smmu_device_hw_probe() (what is refused);
 *  - the SMMUv3 architecture (Arm IHI 0070): field positions, and which
 *    features each revision (AIDR) has: range invalidation (IDR3.RIL) is
 *    SMMUv3.2's;
 *  - the Arm CoreLink MMU-600 TRM (Arm 100310) and MMU-700 TRM (Arm
 *    101542): MMU-600 implements SMMUv3.1, MMU-700 SMMUv3.2.  Fields the
 *    TRMs leave to the integration (SIDSIZE, OAS, COHACC, queue sizes)
 *    have a typical value, marked "integration".
 * Where no public register dump exists (Grace, Hip08, CN99xx), the part
 * is what the public sources fix (upstream's options, the architecture
 * revision) on top of the same typical values, and says so.
 */
#include <kunit/test.h>
#include <linux/acpi.h>
#include <linux/dma-map-ops.h>
#include <linux/dma-mapping.h>
#include <linux/iommu.h>
#include <linux/ioport.h>
#include <linux/sizes.h>

#include "fp_smmuv3_regs.h"

/* IDR0 fields the driver does not use, for complete register values. */
#define FPT_IDR0_CD2L		BIT(19)
#define FPT_IDR0_VMID16		BIT(18)
#define FPT_IDR0_SEV		BIT(14)
#define FPT_IDR0_MSI		BIT(13)
#define FPT_IDR0_HYP		BIT(9)
#define FPT_IDR0_S2P		BIT(0)
#define FPT_IDR5_GRAN64K	BIT(6)
#define FPT_IDR5_GRAN16K	BIT(5)
#define FPT_OAS_48		5

#define FPT_IIDR(product, variant, revision, implementer)		\
	(FIELD_PREP_CONST(IIDR_PRODUCTID, product) |			\
	 FIELD_PREP_CONST(IIDR_VARIANT, variant) |			\
	 FIELD_PREP_CONST(IIDR_REVISION, revision) |			\
	 FIELD_PREP_CONST(IIDR_IMPLEMENTER, implementer))

/*
 * A server-class SMMUv3: two-level stream tables, 16-bit ASIDs and VMIDs,
 * both stages, AArch32 and AArch64 tables of either endianness, stalls
 * supported but not forced, coherent walks (integration).
 */
#define FPT_IDR0_SERVER							\
	(FIELD_PREP_CONST(IDR0_ST_LVL, IDR0_ST_LVL_2LVL) |		\
	 FIELD_PREP_CONST(IDR0_STALL_MODEL, IDR0_STALL_MODEL_STALL) |	\
	 FIELD_PREP_CONST(IDR0_TTENDIAN, IDR0_TTENDIAN_MIXED) |	\
	 FPT_IDR0_CD2L | FPT_IDR0_VMID16 | FPT_IDR0_SEV | FPT_IDR0_MSI | \
	 IDR0_ASID16 | FPT_IDR0_HYP | IDR0_COHACC |			\
	 FIELD_PREP_CONST(IDR0_TTF, IDR0_TTF_AARCH32_64) |		\
	 IDR0_S1P | FPT_IDR0_S2P)
/* Queues of 2^19 entries, 16-bit StreamIDs (integration). */
#define FPT_IDR1_SERVER							\
	(FIELD_PREP_CONST(IDR1_CMDQS, 19) |				\
	 FIELD_PREP_CONST(IDR1_EVTQS, 19) |				\
	 FIELD_PREP_CONST(IDR1_SIDSIZE, 16))
/* All three granules, 48-bit output addresses (integration). */
#define FPT_IDR5_SERVER							\
	(FPT_IDR5_GRAN64K | FPT_IDR5_GRAN16K | IDR5_GRAN4K |		\
	 FIELD_PREP_CONST(IDR5_OAS, FPT_OAS_48))

/**
 * struct fpt_idr_case - a part and what probe must make of it
 * @part: the part
 * @ril: range invalidation offered (smmu->ril, which domain.c reads)
 * @asid_bits: ASID width
 * @options: SMMUV3_OPT_* set
 * @force_sync_after: smmu->cmdq.force_sync_after after reset
 */
struct fpt_idr_case {
	struct fpt_part part;
	bool ril;
	unsigned int asid_bits;
	u32 options;
	u32 force_sync_after;
};

static const struct fpt_idr_case fpt_idr_cases[] = {
	{
		/* MMU-600 r0p1: SMMUv3.1, so no IDR3.RIL. */
		.part = {
			.name = "Arm MMU-600 (SMMUv3.1)",
			.idr0 = FPT_IDR0_SERVER, .idr1 = FPT_IDR1_SERVER,
			.idr5 = FPT_IDR5_SERVER, .aidr = 0x01,
			.iidr = FPT_IIDR(IIDR_PRODUCTID_ARM_MMU_600, 0, 1,
					 IIDR_IMPLEMENTER_ARM),
			.fw_coherent = true,
		},
		.ril = false, .asid_bits = 16,
	}, {
		/*
		 * MMU-700 r1p0: SMMUv3.2 with range invalidation, AArch64
		 * tables only; erratum 2812531 (upstream: a CMD_SYNC at
		 * least every 63 commands, ARM_SMMU_OPT_CMDQ_FORCE_SYNC).
		 */
		.part = {
			.name = "Arm MMU-700 (SMMUv3.2)",
			.idr0 = (FPT_IDR0_SERVER & ~IDR0_TTF) |
				FIELD_PREP_CONST(IDR0_TTF, IDR0_TTF_AARCH64),
			.idr1 = FPT_IDR1_SERVER, .idr3 = IDR3_RIL,
			.idr5 = FPT_IDR5_SERVER, .aidr = 0x02,
			.iidr = FPT_IIDR(IIDR_PRODUCTID_ARM_MMU_700, 1, 0,
					 IIDR_IMPLEMENTER_ARM),
			.fw_coherent = true,
		},
		.ril = true, .asid_bits = 16,
		.options = SMMUV3_OPT_CMDQ_FORCE_SYNC, .force_sync_after = 63,
	}, {
		/*
		 * NVIDIA Grace (Tegra241): no public ID register dump.  Public:
		 * ACPI/IORT only, and a CMDQV companion (ACPI NVDA200C) that
		 * upstream drives in tegra241-cmdqv.c and flushpol does not:
		 * its commands go through the architected queue.  Assumed a
		 * coherent SMMUv3.2 with range invalidation; an IIDR that is
		 * not Arm's gets no IIDR-keyed workaround.
		 */
		.part = {
			.name = "NVIDIA Grace (assumed v3.2)",
			.idr0 = FPT_IDR0_SERVER, .idr1 = FPT_IDR1_SERVER,
			.idr3 = IDR3_RIL, .idr5 = FPT_IDR5_SERVER,
			.aidr = 0x02, .fw_coherent = true,
		},
		.ril = true, .asid_bits = 16,
	}, {
		/*
		 * HiSilicon Hip08: SMMUv3.0; "hisilicon,broken-prefetch-cmd"
		 * (upstream skips CMD_PREFETCH_CONFIG; flushpol never sends
		 * it, which the fake checks).
		 */
		.part = {
			.name = "HiSilicon Hip08",
			.idr0 = FPT_IDR0_SERVER, .idr1 = FPT_IDR1_SERVER,
			.idr5 = FPT_IDR5_SERVER, .fw_coherent = true,
			.broken_prefetch = true,
		},
		.ril = false, .asid_bits = 16,
		.options = SMMUV3_OPT_SKIP_PREFETCH,
	}, {
		/*
		 * Cavium CN99xx (ThunderX2): SMMUv3.0 whose page-1 registers
		 * are at page 0's offsets, in a 64K region:
		 * "cavium,cn9900-broken-page1-regspace" (upstream's
		 * ARM_SMMU_OPT_PAGE0_REGS_ONLY).
		 */
		.part = {
			.name = "Cavium CN99xx (page 0 only)",
			.idr0 = FPT_IDR0_SERVER, .idr1 = FPT_IDR1_SERVER,
			.idr5 = FPT_IDR5_SERVER, .fw_coherent = true,
			.page0_only = true,
		},
		.ril = false, .asid_bits = 16,
		.options = SMMUV3_OPT_PAGE0_REGS_ONLY,
	}, {
		/*
		 * The same part on an ACPI server: IORT's SMMUv3 node says
		 * model CN99xx, and the IORT code gives it a 64K region
		 * (arm_smmu_v3_resource_size()).  Upstream maps the model to
		 * ARM_SMMU_OPT_PAGE0_REGS_ONLY (acpi_smmu_iort_probe_model()).
		 */
		.part = {
			.name = "Cavium CN99xx under ACPI (IORT model)",
			.idr0 = FPT_IDR0_SERVER, .idr1 = FPT_IDR1_SERVER,
			.idr5 = FPT_IDR5_SERVER, .fw_coherent = true,
			.page0_only = true, .acpi = true,
		},
		.ril = false, .asid_bits = 16,
		.options = SMMUV3_OPT_PAGE0_REGS_ONLY,
	}, {
		/* Hip08 under ACPI: IORT model Hi161x, skip prefetch. */
		.part = {
			.name = "HiSilicon Hip08 under ACPI (IORT model)",
			.idr0 = FPT_IDR0_SERVER, .idr1 = FPT_IDR1_SERVER,
			.idr5 = FPT_IDR5_SERVER, .fw_coherent = true,
			.broken_prefetch = true, .acpi = true,
		},
		.ril = false, .asid_bits = 16,
		.options = SMMUV3_OPT_SKIP_PREFETCH,
	}, {
		/* A generic IORT SMMUv3 node: no option. */
		.part = {
			.name = "Arm MMU-600 under ACPI (IORT model generic)",
			.idr0 = FPT_IDR0_SERVER, .idr1 = FPT_IDR1_SERVER,
			.idr5 = FPT_IDR5_SERVER, .aidr = 0x01,
			.iidr = FPT_IIDR(IIDR_PRODUCTID_ARM_MMU_600, 0, 1,
					 IIDR_IMPLEMENTER_ARM),
			.fw_coherent = true, .acpi = true,
		},
		.ril = false, .asid_bits = 16,
	}, {
		/* IDR0.ASID16 clear: the architecture allows 8-bit ASIDs. */
		.part = {
			.name = "8-bit ASIDs",
			.idr0 = FPT_IDR0_SERVER & ~IDR0_ASID16,
			.idr1 = FPT_IDR1_SERVER, .idr5 = FPT_IDR5_SERVER,
			.aidr = 0x01, .fw_coherent = true,
		},
		.ril = false, .asid_bits = 8,
	}, {
		/* IDR0.ST_LVL 0: a linear stream table, 2^12 streams. */
		.part = {
			.name = "linear stream table only",
			.idr0 = FPT_IDR0_SERVER & ~IDR0_ST_LVL,
			.idr1 = (FPT_IDR1_SERVER & ~IDR1_SIDSIZE) |
				FIELD_PREP_CONST(IDR1_SIDSIZE, 12),
			.idr5 = FPT_IDR5_SERVER, .aidr = 0x01,
			.fw_coherent = true,
		},
		.ril = false, .asid_bits = 16,
	}, {
		/* COHACC=0 and the firmware agrees: non-coherent walks. */
		.part = {
			.name = "non-coherent",
			.idr0 = FPT_IDR0_SERVER & ~IDR0_COHACC,
			.idr1 = FPT_IDR1_SERVER, .idr5 = FPT_IDR5_SERVER,
			.aidr = 0x01, .fw_coherent = false,
		},
		.ril = false, .asid_bits = 16,
	}, {
		/*
		 * COHACC=0 but the firmware says coherent: upstream trusts the
		 * firmware and warns, and so does the DMA API.
		 */
		.part = {
			.name = "COHACC=0, firmware coherent",
			.idr0 = FPT_IDR0_SERVER & ~IDR0_COHACC,
			.idr1 = FPT_IDR1_SERVER, .idr5 = FPT_IDR5_SERVER,
			.aidr = 0x01, .fw_coherent = true,
		},
		.ril = false, .asid_bits = 16,
	}, {
		/* Big-endian walks only: refused, as upstream refuses it. */
		.part = {
			.name = "big-endian tables only",
			.idr0 = (FPT_IDR0_SERVER & ~IDR0_TTENDIAN) |
				FIELD_PREP_CONST(IDR0_TTENDIAN, IDR0_TTENDIAN_BE),
			.idr1 = FPT_IDR1_SERVER, .idr5 = FPT_IDR5_SERVER,
			.fw_coherent = true, .refused = true,
		},
	}, {
		/* AArch32 tables only: refused, as upstream refuses it. */
		.part = {
			.name = "AArch32 tables only",
			.idr0 = (FPT_IDR0_SERVER & ~IDR0_TTF) |
				FIELD_PREP_CONST(IDR0_TTF, IDR0_TTF_AARCH32),
			.idr1 = FPT_IDR1_SERVER, .idr5 = FPT_IDR5_SERVER,
			.fw_coherent = true, .refused = true,
		},
	}, {
		/* Stalls forced: the CDs would need S=1; refused. */
		.part = {
			.name = "stall model forced",
			.idr0 = (FPT_IDR0_SERVER & ~IDR0_STALL_MODEL) |
				FIELD_PREP_CONST(IDR0_STALL_MODEL,
						 IDR0_STALL_MODEL_FORCE),
			.idr1 = FPT_IDR1_SERVER, .idr5 = FPT_IDR5_SERVER,
			.fw_coherent = true, .refused = true,
		},
	},
};

static void fpt_idr_case_desc(const struct fpt_idr_case *c, char *desc)
{
	strscpy(desc, c->part.name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(fpt_idr, fpt_idr_cases, fpt_idr_case_desc);

/* A part's fake, probed, its structures allocated and reset. */
static struct fpt_regs *fpt_idr_up(struct kunit *test,
				   const struct fpt_part *part)
{
	struct fpt_regs *f = fpt_regs_new(test, part);

	KUNIT_ASSERT_EQ(test, smmuv3_hw_probe(&f->smmu), 0);
	fpt_regs_init_queues(f);
	KUNIT_ASSERT_EQ(test, smmuv3_device_reset(&f->smmu), 0);
	KUNIT_ASSERT_EQ(test, smmuv3_device_enable(&f->smmu, true), 0);
	return f;
}

static void fpt_idr_print(struct kunit *test, const struct fpt_part *part,
			  struct fpt_regs *f)
{
	struct smmuv3_device *smmu = &f->smmu;

	kunit_info(test, "%s: %s; range invalidation %s, policies %s; %u-bit ASIDs%s; %u-bit OAS; %scoherent walks; %s stream table; options%s%s%s%s\n",
		   part->name, "probed",
		   smmu->ril ? "yes" : "no",
		   smmu->ril ? "range, threshold (by range)" :
			       "threshold (by VA), no range",
		   smmu->asid_bits,
		   smmu->asid_bits < 16 ? " (no test marks)" : "", smmu->oas,
		   smmu->coherent ? "" : "non-",
		   IS_ENABLED(CONFIG_HAS_DMA) ?
			(smmu->strtab.two_level ? "two-level" : "linear") :
			"(not allocated: no DMA)",
		   smmu->options ? "" : " none",
		   smmu->options & SMMUV3_OPT_PAGE0_REGS_ONLY ?
			" page0-regs-only" : "",
		   smmu->options & SMMUV3_OPT_SKIP_PREFETCH ?
			" skip-prefetch (never sent)" : "",
		   smmu->options & SMMUV3_OPT_CMDQ_FORCE_SYNC ?
			" cmdq-force-sync" : "");
}

/* Enough commands without a sync of their own to pass any bound. */
#define FPT_IDR_BURST	200

/*
 * Each part probes with upstream's features, or is refused; one that
 * probes resets and enables within its register pages, never sends a
 * prefetch, and, with erratum 2812531, never lets the SMMU consume more
 * than 63 commands without a CMD_SYNC.
 */
static void part_probes_as_upstream(struct kunit *test)
{
	const struct fpt_idr_case *c = test->param_value;
	struct fpt_regs *f = fpt_regs_new(test, &c->part);
	struct smmuv3_device *smmu = &f->smmu;
	/* The region firmware gives: the IORT code's size, or a DT's reg. */
	struct resource res = DEFINE_RES_MEM(0x2b400000, c->part.page0_only ?
					     SZ_64K : SZ_128K);
	u64 cmd[CMD_DWORDS];
	unsigned int i;
	int ret;

	KUNIT_ASSERT_EQ(test, smmuv3_check_region(smmu, &res), 0);
	ret = smmuv3_hw_probe(smmu);
	if (c->part.refused) {
		KUNIT_EXPECT_EQ(test, ret, -ENXIO);
		kunit_info(test, "%s: refused (%d)\n", c->part.name, ret);
		return;
	}
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, smmu->ril, c->ril);
	KUNIT_EXPECT_EQ(test, smmu->asid_bits, c->asid_bits);
	KUNIT_EXPECT_EQ(test, smmu->options, c->options);
	KUNIT_EXPECT_EQ(test, smmu->oas, 48);
	/* io-pgtable's coherent_walk must be what the DMA API does. */
	KUNIT_EXPECT_EQ(test, smmu->coherent, dev_is_dma_coherent(smmu->dev));
	KUNIT_EXPECT_EQ(test, smmu->coherent, c->part.fw_coherent);
	if (IS_ENABLED(CONFIG_HAS_DMA))
		KUNIT_EXPECT_EQ(test, dma_get_mask(smmu->dev), DMA_BIT_MASK(48));

	fpt_regs_init_queues(f);
	KUNIT_ASSERT_EQ(test, smmuv3_device_reset(smmu), 0);
	KUNIT_ASSERT_EQ(test, smmuv3_device_enable(smmu, true), 0);
	KUNIT_EXPECT_EQ(test, fpt_regs_get(f, SMMUV3_CR0ACK),
			CR0_CMDQEN | CR0_EVTQEN | CR0_SMMUEN);
	KUNIT_EXPECT_EQ(test, smmu->cmdq.force_sync_after, c->force_sync_after);
	if (IS_ENABLED(CONFIG_HAS_DMA))
		KUNIT_EXPECT_EQ(test, smmu->strtab.two_level,
				FIELD_GET(IDR0_ST_LVL, c->part.idr0) ==
				IDR0_ST_LVL_2LVL);

	for (i = 0; i < FPT_IDR_BURST; i++) {
		smmuv3_cmd_tlbi_nh_asid(cmd, 1);
		smmuv3_cmdq_submit(&smmu->cmdq, cmd, 1);
	}
	KUNIT_EXPECT_EQ(test, smmuv3_cmdq_sync(&smmu->cmdq), 0);
	KUNIT_EXPECT_EQ(test, f->consumed - f->syncs, FPT_IDR_BURST + 2);
	if (c->force_sync_after)
		KUNIT_EXPECT_LE(test, f->max_run, c->force_sync_after);
	KUNIT_EXPECT_EQ(test, f->prefetch, 0);
	KUNIT_EXPECT_EQ(test, f->stray, 0);
	KUNIT_EXPECT_EQ(test, f->bypass_disables, 0);
	fpt_idr_print(test, &c->part, f);
}

static const struct fpt_part fpt_idr_mmu600 = {
	.name = "Arm MMU-600 (SMMUv3.1)",
	.idr0 = FPT_IDR0_SERVER, .idr1 = FPT_IDR1_SERVER,
	.idr5 = FPT_IDR5_SERVER, .aidr = 0x01,
	.iidr = FPT_IIDR(IIDR_PRODUCTID_ARM_MMU_600, 0, 1,
			 IIDR_IMPLEMENTER_ARM),
	.fw_coherent = true,
};

/*
 * Left enabled by firmware or a previous kernel, with GBPA at bypass: the
 * reset must make streams abort before SMMUEN clears.
 */
static void enabled_smmu_aborts_before_disable(struct kunit *test)
{
	struct fpt_regs *f = fpt_regs_new(test, &fpt_idr_mmu600);
	const u32 on = CR0_CMDQEN | CR0_EVTQEN | CR0_SMMUEN;

	fpt_regs_set(f, SMMUV3_CR0, on);
	fpt_regs_set(f, SMMUV3_CR0ACK, on);
	KUNIT_ASSERT_EQ(test, smmuv3_hw_probe(&f->smmu), 0);
	fpt_regs_init_queues(f);
	KUNIT_ASSERT_EQ(test, smmuv3_device_reset(&f->smmu), 0);
	KUNIT_EXPECT_EQ(test, f->bypass_disables, 0);
	KUNIT_EXPECT_TRUE(test, fpt_regs_get(f, SMMUV3_GBPA) & GBPA_ABORT);
	KUNIT_EXPECT_EQ(test, f->gbpa_ignored, 0);
}

/* Remove and shutdown: the SMMU stops with its streams aborting. */
static void disable_leaves_streams_aborting(struct kunit *test)
{
	struct fpt_regs *f = fpt_idr_up(test, &fpt_idr_mmu600);

	KUNIT_EXPECT_EQ(test, smmuv3_device_disable(&f->smmu), 0);
	KUNIT_EXPECT_EQ(test, fpt_regs_get(f, SMMUV3_CR0ACK), 0);
	KUNIT_EXPECT_EQ(test, fpt_regs_get(f, SMMUV3_IRQ_CTRL), 0);
	KUNIT_EXPECT_TRUE(test, fpt_regs_get(f, SMMUV3_GBPA) & GBPA_ABORT);
	KUNIT_EXPECT_EQ(test, f->bypass_disables, 0);
}

/*
 * A reset that fails part way (the event queue is never acknowledged)
 * leaves the SMMU disabled, so that it stops reading the command queue
 * before probe's unwinding frees it.
 */
static void failed_reset_leaves_smmu_disabled(struct kunit *test)
{
	struct fpt_regs *f = fpt_regs_new(test, &fpt_idr_mmu600);

	KUNIT_ASSERT_EQ(test, smmuv3_hw_probe(&f->smmu), 0);
	fpt_regs_init_queues(f);
	f->refuse_cr0 = CR0_EVTQEN;
	KUNIT_EXPECT_EQ(test, smmuv3_device_reset(&f->smmu), -ETIMEDOUT);
	KUNIT_EXPECT_EQ(test, fpt_regs_get(f, SMMUV3_CR0ACK), 0);
	KUNIT_EXPECT_TRUE(test, fpt_regs_get(f, SMMUV3_GBPA) & GBPA_ABORT);
}

/* The same when the interrupts are never acknowledged. */
static void failed_enable_leaves_smmu_disabled(struct kunit *test)
{
	struct fpt_regs *f = fpt_regs_new(test, &fpt_idr_mmu600);

	KUNIT_ASSERT_EQ(test, smmuv3_hw_probe(&f->smmu), 0);
	fpt_regs_init_queues(f);
	KUNIT_ASSERT_EQ(test, smmuv3_device_reset(&f->smmu), 0);
	f->refuse_irq_ctrl = true;
	KUNIT_EXPECT_EQ(test, smmuv3_device_enable(&f->smmu, true), -ETIMEDOUT);
	KUNIT_EXPECT_EQ(test, fpt_regs_get(f, SMMUV3_CR0ACK), 0);
	KUNIT_EXPECT_TRUE(test, fpt_regs_get(f, SMMUV3_GBPA) & GBPA_ABORT);
}

/*
 * GERROR.SFM_ERR: the SMMU entered service failure mode.  It is disabled
 * with its streams aborting, and the error acknowledged.
 */
static void service_failure_disables_smmu(struct kunit *test)
{
	struct fpt_regs *f = fpt_idr_up(test, &fpt_idr_mmu600);

	fpt_regs_set(f, SMMUV3_GERROR,
		     fpt_regs_get(f, SMMUV3_GERRORN) ^ GERROR_SFM_ERR);
	KUNIT_EXPECT_EQ(test, smmuv3_gerror_handler(0, &f->smmu), IRQ_HANDLED);
	KUNIT_EXPECT_EQ(test, fpt_regs_get(f, SMMUV3_CR0ACK) & CR0_SMMUEN, 0);
	KUNIT_EXPECT_TRUE(test, fpt_regs_get(f, SMMUV3_GBPA) & GBPA_ABORT);
	KUNIT_EXPECT_EQ(test, f->bypass_disables, 0);
	KUNIT_EXPECT_EQ(test, fpt_regs_get(f, SMMUV3_GERROR),
			fpt_regs_get(f, SMMUV3_GERRORN));
}

/*
 * An IORT SMMUv3 node's model gives the options upstream's
 * acpi_smmu_iort_probe_model() gives, and a model it does not know none.
 */
static void iort_model_gives_upstream_options(struct kunit *test)
{
	static const struct {
		u32 model, options;
	} models[] = {
		{ ACPI_IORT_SMMU_V3_GENERIC, 0 },
		{ ACPI_IORT_SMMU_V3_HISILICON_HI161X, SMMUV3_OPT_SKIP_PREFETCH },
		{ ACPI_IORT_SMMU_V3_CAVIUM_CN99XX, SMMUV3_OPT_PAGE0_REGS_ONLY },
		{ 3, 0 },
		{ U32_MAX, 0 },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(models); i++)
		KUNIT_EXPECT_EQ_MSG(test, smmuv3_iort_options(models[i].model),
				    models[i].options, "IORT model %u",
				    models[i].model);
}

/*
 * A kdump kernel: translation on, global errors reported, the event queue
 * and its interrupt off, as upstream leaves them.
 */
static void kdump_leaves_event_queue_off(struct kunit *test)
{
	struct fpt_regs *f = fpt_regs_new(test, &fpt_idr_mmu600);

	KUNIT_ASSERT_EQ(test, smmuv3_hw_probe(&f->smmu), 0);
	fpt_regs_init_queues(f);
	KUNIT_ASSERT_EQ(test, smmuv3_device_reset(&f->smmu), 0);
	KUNIT_ASSERT_EQ(test, smmuv3_device_enable(&f->smmu, false), 0);
	KUNIT_EXPECT_EQ(test, fpt_regs_get(f, SMMUV3_CR0ACK),
			CR0_CMDQEN | CR0_SMMUEN);
	KUNIT_EXPECT_EQ(test, fpt_regs_get(f, SMMUV3_IRQ_CTRLACK),
			IRQ_CTRL_GERROR_IRQEN);
	KUNIT_EXPECT_TRUE(test, fpt_regs_get(f, SMMUV3_GBPA) & GBPA_ABORT);
}

/* The RMR test's part: two-level, 2^10 streams, 4 level-2 tables. */
static const struct fpt_part fpt_idr_rmr_part = {
	.name = "MMU-600, 2^10 streams",
	.idr0 = FPT_IDR0_SERVER,
	.idr1 = (FPT_IDR1_SERVER & ~IDR1_SIDSIZE) |
		FIELD_PREP_CONST(IDR1_SIDSIZE, 10),
	.idr5 = FPT_IDR5_SERVER, .aidr = 0x01,
	.iidr = FPT_IIDR(IIDR_PRODUCTID_ARM_MMU_600, 0, 1,
			 IIDR_IMPLEMENTER_ARM),
	.fw_coherent = true, .acpi = true,
};

/* An RMR as iort_get_rmr_sids() lists it. */
static void fpt_idr_add_rmr(struct kunit *test, struct list_head *rmrs,
			    phys_addr_t start, size_t length, const u32 *sids,
			    u32 n)
{
	struct iommu_iort_rmr_data *rmr = kunit_kzalloc(test, sizeof(*rmr),
							GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, rmr);
	rmr->rr.start = start;
	rmr->rr.length = length;
	rmr->rr.type = IOMMU_RESV_DIRECT_RELAXABLE;
	rmr->sids = sids;
	rmr->num_sids = n;
	list_add_tail(&rmr->rr.list, rmrs);
}

/* The RMR tests' streams: a framebuffer's and a BMC's, one beyond. */
static const u32 fpt_rmr_fb[] = { 0x10, 0x11 }, fpt_rmr_bmc[] = { 0x2a0, 0x400 };
static const u32 fpt_rmr_watch[] = { 0x10, 0x11, 0x2a0, 0x12, 0x110, 0x400 };

/* The RMR test's part, probed, stream 0x110 prepared, watched. */
static struct fpt_regs *fpt_idr_rmr_fake(struct kunit *test)
{
	struct fpt_regs *f = fpt_regs_new(test, &fpt_idr_rmr_part);

	KUNIT_ASSERT_EQ(test, smmuv3_hw_probe(&f->smmu), 0);
	fpt_regs_init_queues(f);
	KUNIT_ASSERT_NOT_NULL(test, f->smmu.strtab.base);
	KUNIT_ASSERT_TRUE(test, f->smmu.strtab.two_level);
	/* A stream of a device that probed: its level-2 table exists. */
	KUNIT_ASSERT_EQ(test, smmuv3_strtab_prepare(&f->smmu, 0x110), 0);
	fpt_regs_watch(f, fpt_rmr_watch, ARRAY_SIZE(fpt_rmr_watch));
	return f;
}

/* What the watched streams were when SMMUEN was set. */
static void fpt_idr_rmr_check(struct kunit *test, struct fpt_regs *f)
{
	static const u8 want[] = { STE_0_CFG_BYPASS, STE_0_CFG_BYPASS,
				   STE_0_CFG_BYPASS, STE_0_CFG_ABORT,
				   STE_0_CFG_ABORT, FPT_STE_BEYOND };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(fpt_rmr_watch); i++)
		KUNIT_EXPECT_EQ_MSG(test, f->watch_cfg[i], want[i],
				    "stream %#x when SMMUEN was set",
				    fpt_rmr_watch[i]);
	KUNIT_EXPECT_EQ(test, f->stray, 0);
	KUNIT_EXPECT_EQ(test, f->bypass_disables, 0);
}

/*
 * IORT RMRs: the streams they name bypass from the moment SMMUEN is set,
 * in the two-level table the SMMU walks (level-2 tables made for them
 * where there is DMA), their neighbours still abort, and a stream beyond
 * the table is refused, not written past it.
 */
static void rmr_streams_bypass_when_enabled(struct kunit *test)
{
	struct fpt_regs *f = fpt_idr_rmr_fake(test);
	LIST_HEAD(rmrs);

	fpt_idr_add_rmr(test, &rmrs, 0xc0000000, SZ_8M, fpt_rmr_fb,
			ARRAY_SIZE(fpt_rmr_fb));
	fpt_idr_add_rmr(test, &rmrs, 0xfe000000, SZ_64K, fpt_rmr_bmc,
			ARRAY_SIZE(fpt_rmr_bmc));
	KUNIT_ASSERT_EQ(test, smmuv3_device_reset(&f->smmu), 0);
	smmuv3_rmr_bypass(&f->smmu, &rmrs);
	KUNIT_ASSERT_EQ(test, smmuv3_device_enable(&f->smmu, true), 0);
	fpt_idr_rmr_check(test, f);
}

/* Probe's interrupt step: the queue on, the SMMU not yet translating. */
static int fpt_idr_request_irqs(struct smmuv3_device *smmu, void *data)
{
	struct fpt_regs *f = data;

	f->irqs_requested++;
	return (fpt_regs_get(f, SMMUV3_CR0ACK) & (CR0_CMDQEN | CR0_SMMUEN)) ==
	       CR0_CMDQEN ? 0 : -EIO;
}

/*
 * The same RMRs as probe meets them: in the IORT that describes the SMMU,
 * read by probe's bring-up (smmuv3_device_start()) between the reset and
 * SMMUEN, and the IORT's lists put back.
 */
static void probe_bypasses_iort_rmr_streams(struct kunit *test)
{
	static const struct fpt_iort_rmr iort[] = {
		{ 0xc0000000, SZ_8M, fpt_rmr_fb, ARRAY_SIZE(fpt_rmr_fb) },
		{ 0xfe000000, SZ_64K, fpt_rmr_bmc, ARRAY_SIZE(fpt_rmr_bmc) },
	};
	struct fpt_regs *f = fpt_idr_rmr_fake(test);

	fpt_iort_set_rmrs(test, f, iort, ARRAY_SIZE(iort));
	KUNIT_ASSERT_EQ(test, smmuv3_device_start(&f->smmu,
						  fpt_idr_request_irqs, f,
						  true), 0);
	KUNIT_EXPECT_EQ(test, f->irqs_requested, 1);
	KUNIT_EXPECT_EQ(test, fpt_regs_get(f, SMMUV3_CR0ACK),
			CR0_CMDQEN | CR0_EVTQEN | CR0_SMMUEN);
	KUNIT_EXPECT_EQ(test, fpt_iort_lists_held(), 0);
	fpt_idr_rmr_check(test, f);
}

/*
 * The stream table where STRTAB_BASE can point: the SMMU ignores the
 * address bits below the table's alignment, and would walk whatever lies
 * below a table not aligned (fpt_regs_init_queues() asserts it).  Where
 * an allocation lands is chance, so the RMR test's table is made several
 * times over.
 */
static void stream_table_aligned_for_strtab_base(struct kunit *test)
{
	struct fpt_regs *f;
	unsigned int i;

	for (i = 0; i < 16; i++) {
		f = fpt_regs_new(test, &fpt_idr_rmr_part);
		KUNIT_ASSERT_EQ(test, smmuv3_hw_probe(&f->smmu), 0);
		fpt_regs_init_queues(f);
		KUNIT_ASSERT_NOT_NULL(test, f->smmu.strtab.base);
	}
}

/* The RMR test's part, reset, with streams 0x100 and 0x200 prepared. */
static struct fpt_regs *fpt_idr_walk_up(struct kunit *test)
{
	struct fpt_regs *f = fpt_regs_new(test, &fpt_idr_rmr_part);

	KUNIT_ASSERT_EQ(test, smmuv3_hw_probe(&f->smmu), 0);
	fpt_regs_init_queues(f);
	KUNIT_ASSERT_TRUE(test, f->smmu.strtab.two_level);
	KUNIT_ASSERT_EQ(test, smmuv3_strtab_prepare(&f->smmu, 0x100), 0);
	KUNIT_ASSERT_EQ(test, smmuv3_strtab_prepare(&f->smmu, 0x200), 0);
	KUNIT_ASSERT_EQ(test, smmuv3_device_reset(&f->smmu), 0);
	return f;
}

/*
 * The fake walks as the SMMU walks (IHI 0070, 5.1): a level-2 table's
 * address is taken aligned to the table's size, the L2Ptr bits below
 * ignored.  An L2Ptr one STE into the table still gives stream 0x100 its
 * own STE (bypass), not stream 0x101's (abort).
 */
static void level2_table_aligned_as_the_smmu_aligns_it(struct kunit *test)
{
	static const u32 sid = 0x100;
	struct fpt_regs *f = fpt_idr_walk_up(test);
	struct smmuv3_strtab *st = &f->smmu.strtab;
	u32 i = sid >> SMMUV3_STRTAB_SPLIT;
	u64 ste[STE_DWORDS];

	smmuv3_ste_bypass(ste);
	smmuv3_install_ste(&f->smmu, &sid, 1, ste);
	st->base[i] = cpu_to_le64(le64_to_cpu(st->base[i]) +
				  STE_DWORDS * sizeof(u64));
	fpt_regs_watch(f, &sid, 1);
	KUNIT_ASSERT_EQ(test, smmuv3_device_enable(&f->smmu, true), 0);
	KUNIT_EXPECT_EQ(test, f->watch_cfg[0], STE_0_CFG_BYPASS);
	KUNIT_EXPECT_EQ(test, f->stray, 0);
}

/* No machine this runs on has memory at 1 PiB. */
#define FPT_IDR_NO_MEMORY	BIT_ULL(50)

/*
 * A level-1 descriptor pointing where there is no memory: the SMMU's
 * fetch aborts, which the fake counts as a stray access; the CPU never
 * dereferences the address.
 */
static void walk_outside_memory_is_stray(struct kunit *test)
{
	static const u32 sid = 0x200;
	struct fpt_regs *f = fpt_idr_walk_up(test);
	u32 i = sid >> SMMUV3_STRTAB_SPLIT;

	f->smmu.strtab.base[i] =
		cpu_to_le64(FIELD_PREP(STRTAB_L1_DESC_SPAN,
				       SMMUV3_STRTAB_SPLIT + 1) |
			    FPT_IDR_NO_MEMORY);
	fpt_regs_watch(f, &sid, 1);
	KUNIT_ASSERT_EQ(test, smmuv3_device_enable(&f->smmu, true), 0);
	KUNIT_EXPECT_EQ(test, f->watch_cfg[0], FPT_STE_INVALID);
	KUNIT_EXPECT_EQ(test, f->stray, 1);
}

/*
 * The MMIO region must hold both register pages, or page 0 alone on a
 * part whose page 1 is folded onto it.
 */
static void mmio_region_size_checked(struct kunit *test)
{
	struct fpt_part cn99xx = fpt_idr_mmu600;
	struct resource small = DEFINE_RES_MEM(0x2b400000, SZ_64K);
	struct resource both = DEFINE_RES_MEM(0x2b400000, SZ_128K);
	struct fpt_regs *f = fpt_regs_new(test, &fpt_idr_mmu600);

	KUNIT_EXPECT_EQ(test, smmuv3_check_region(&f->smmu, &small), -EINVAL);
	KUNIT_EXPECT_EQ(test, smmuv3_check_region(&f->smmu, &both), 0);
	cn99xx.page0_only = true;
	f = fpt_regs_new(test, &cn99xx);
	KUNIT_EXPECT_EQ(test, smmuv3_check_region(&f->smmu, &small), 0);
}

/*
 * The test marks' ASIDs, as the SMMU sees them (the low asid_bits), are
 * never an ASID a domain may get; with 8-bit ASIDs there are no marks.
 */
static void mark_asids_never_alias_domains(struct kunit *test)
{
	struct fpt_part narrow = fpt_idr_mmu600;
	struct fpt_regs *f;
	unsigned int w;
	u32 n;
	int asid;

	narrow.idr0 &= ~IDR0_ASID16;
	for (w = 0; w < 2; w++) {
		f = fpt_regs_new(test, w ? &narrow : &fpt_idr_mmu600);
		KUNIT_ASSERT_EQ(test, smmuv3_hw_probe(&f->smmu), 0);
		for (n = 0; n < 0x1000; n++) {
			asid = smmuv3_mark_asid(&f->smmu, n);
			if (asid == -EOPNOTSUPP)
				continue;
			KUNIT_ASSERT_GE(test, asid, 0);
			KUNIT_ASSERT_GT(test,
					asid & (BIT(f->smmu.asid_bits) - 1),
					f->smmu.asid_max);
		}
		KUNIT_EXPECT_EQ(test, smmuv3_mark_asid(&f->smmu, 0) < 0,
				f->smmu.asid_bits < 16);
	}
}

static struct kunit_case fpt_idr_test_cases[] = {
	KUNIT_CASE_PARAM(part_probes_as_upstream, fpt_idr_gen_params),
	KUNIT_CASE(enabled_smmu_aborts_before_disable),
	KUNIT_CASE(disable_leaves_streams_aborting),
	KUNIT_CASE(failed_reset_leaves_smmu_disabled),
	KUNIT_CASE(failed_enable_leaves_smmu_disabled),
	KUNIT_CASE(service_failure_disables_smmu),
	KUNIT_CASE(mmio_region_size_checked),
	KUNIT_CASE(iort_model_gives_upstream_options),
	KUNIT_CASE(kdump_leaves_event_queue_off),
	KUNIT_CASE(rmr_streams_bypass_when_enabled),
	KUNIT_CASE(probe_bypasses_iort_rmr_streams),
	KUNIT_CASE(stream_table_aligned_for_strtab_base),
	KUNIT_CASE(level2_table_aligned_as_the_smmu_aligns_it),
	KUNIT_CASE(walk_outside_memory_is_stray),
	KUNIT_CASE(mark_asids_never_alias_domains),
	{}
};

static struct kunit_suite fpt_idr_suite = {
	.name = "flushpol_smmuv3_idr",
	.test_cases = fpt_idr_test_cases,
};

kunit_test_suite(fpt_idr_suite);
