/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A fake SMMUv3 register file for the driver's probe (backends/smmuv3/hw.c,
 * compiled into the test module by fp_smmuv3_hw.c): pages 0 and 1 in
 * memory, ID registers as a part has them, and the behaviour probe relies
 * on: CR0 acknowledged in CR0ACK, IRQ_CTRL in IRQ_CTRLACK, GBPA changed
 * only by a write with UPDATE (which then reads 0), and a command queue
 * that consumes what CMDQ_PROD publishes, read from the ring CMDQ_BASE
 * points at, while CR0ACK.CMDQEN is set.  It checks as it goes: accesses
 * outside the part's register pages, writes to ID registers, an SMMU
 * disabled while GBPA lets streams bypass, CMD_PREFETCH_* commands, and
 * the longest run of commands between two CMD_SYNCs.  When SMMUEN is set,
 * it fetches the STEs of the streams a test watches, walking the stream
 * table from STRTAB_BASE and STRTAB_BASE_CFG as the SMMU would.
 */
#ifndef _FP_SMMUV3_REGS_H
#define _FP_SMMUV3_REGS_H

#include <kunit/test.h>

#include "../backends/smmuv3/smmuv3_dev.h"

/**
 * struct fpt_part - an SMMU as its ID registers and firmware describe it
 * @name: the part
 * @idr0: SMMU_IDR0
 * @idr1: SMMU_IDR1
 * @idr3: SMMU_IDR3
 * @idr5: SMMU_IDR5
 * @iidr: SMMU_IIDR
 * @aidr: SMMU_AIDR (architecture revision: 0 v3.0, 1 v3.1, 2 v3.2)
 * @fw_coherent: the firmware's dma-coherent (DT) or _CCA / COHACC override
 * @page0_only: page 1's registers are at page 0's offsets, in a 64K
 *	region: "cavium,cn9900-broken-page1-regspace", or IORT model CN99xx
 * @broken_prefetch: "hisilicon,broken-prefetch-cmd", or IORT model Hi161x
 * @acpi: described by an IORT SMMUv3 node (its model says the two above),
 *	not by device-tree properties
 * @refused: probe must refuse it (-ENXIO)
 */
struct fpt_part {
	const char *name;
	u32 idr0, idr1, idr3, idr5, iidr, aidr;
	bool fw_coherent;
	bool page0_only;
	bool broken_prefetch;
	bool acpi;
	bool refused;
};

/* What the SMMU found for a watched stream, besides an STE's CONFIG. */
#define FPT_STE_UNSEEN		0xff	/* SMMUEN never set */
#define FPT_STE_INVALID		0xfe	/* V=0, or no level-2 table */
#define FPT_STE_BEYOND		0xfd	/* outside the stream table */
#define FPT_REGS_WATCH		8

/**
 * struct fpt_regs - the fake
 * @smmu: the driver's view; its cmdq.impl is the fake's register seam
 * @test: the test
 * @regs: pages 0 and 1 (page 0 only for a page-0-only part), as u32s
 * @size: bytes in @regs
 * @refuse_cr0: CR0 values with any of these bits set are never
 *	acknowledged
 * @refuse_irq_ctrl: IRQ_CTRL is never acknowledged
 * @stray: accesses outside @regs, or to ID registers by a write
 * @bypass_disables: SMMUEN cleared while GBPA.ABORT was clear
 * @gbpa_ignored: GBPA writes without UPDATE (which the SMMU ignores)
 * @consumed: commands consumed
 * @syncs: CMD_SYNCs consumed
 * @prefetch: CMD_PREFETCH_* consumed
 * @run: commands since the last CMD_SYNC
 * @max_run: the longest such run seen
 * @watch: streams whose STE is fetched when SMMUEN is set
 * @nwatch: how many
 * @watch_cfg: what each was then: its STE's CONFIG, or FPT_STE_*
 * @irqs_requested: a test's interrupt step of probe ran
 */
struct fpt_regs {
	struct smmuv3_device smmu;
	struct kunit *test;
	u32 *regs;
	size_t size;
	u32 refuse_cr0;
	bool refuse_irq_ctrl;
	unsigned int stray, bypass_disables, gbpa_ignored;
	unsigned long consumed, syncs, prefetch, run, max_run;
	u32 watch[FPT_REGS_WATCH];
	unsigned int nwatch;
	u8 watch_cfg[FPT_REGS_WATCH];
	unsigned int irqs_requested;
};

/**
 * struct fpt_iort_rmr - an IORT RMR node (fp_smmuv3_rmr.c fakes IORT)
 * @start: the reserved range's base
 * @length: its size
 * @sids: the streams its ID mappings name, on the SMMU under test
 * @num_sids: how many
 */
struct fpt_iort_rmr {
	phys_addr_t start;
	size_t length;
	const u32 *sids;
	u32 num_sids;
};

struct fpt_regs *fpt_regs_new(struct kunit *test, const struct fpt_part *part);
void fpt_regs_init_queues(struct fpt_regs *f);
void fpt_regs_watch(struct fpt_regs *f, const u32 *sids, unsigned int n);
u32 fpt_regs_get(struct fpt_regs *f, unsigned int off);
void fpt_regs_set(struct fpt_regs *f, unsigned int off, u32 val);
bool fpt_regs_set_dma_coherent(struct device *dev, bool coherent);
void fpt_iort_set_rmrs(struct kunit *test, struct fpt_regs *f,
		       const struct fpt_iort_rmr *rmrs, unsigned int n);
int fpt_iort_lists_held(void);

#endif /* _FP_SMMUV3_REGS_H */
