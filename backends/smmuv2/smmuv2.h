/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * flushpol SMMUv2 backend: context-bank TLB maintenance for drivers of
 * SMMUv2-family IOMMUs (arm-smmu and its vendor implementations).
 *
 *   probe:        smmu = smmuv2_device_create(&dev_cfg);
 *   init_context: ctx = smmuv2_context_create(smmu, &cfg, &pgtbl_cfg);
 *                 ops = alloc_io_pgtable_ops(fmt, &pgtbl_cfg, ctx);
 *   map, unmap:   fp_map(ctx, ops, ...); fp_unmap(ctx, ops, ...);
 *   iotlb_sync:   fp_iotlb_sync(ctx, gather);
 *   flush_iotlb_all: fp_flush_iotlb_all(ctx);
 *   destroy:      free_io_pgtable_ops(ops); smmuv2_context_destroy(ctx);
 *   remove:       smmuv2_device_destroy(smmu);
 *
 * The driver holds two pointers, both allocated here: nothing of this
 * backend's layout is part of the driver's structures.  See
 * Documentation/smmuv2-integration.rst.
 */
#ifndef _FP_SMMUV2_H
#define _FP_SMMUV2_H

#include <linux/types.h>

#include "../../include/flushpol.h"

struct device;
struct smmuv2_device;

/**
 * struct smmuv2_reg_ops - register accessors of one SMMU
 * @read: 32-bit read of register @off in register page @page
 * @read64: 64-bit read
 * @write: 32-bit write
 * @write64: 64-bit write; must be single-copy atomic for the AArch64
 *	TLBI-by-VA registers, whose write is the command
 *
 * Pages are the SMMU's: 0 is GR0, numpage + n is context bank n.  Each
 * gets &smmuv2_device_cfg.priv.  A member left NULL is the relaxed MMIO
 * access to &smmuv2_device_cfg.base.  A driver whose own accessors do more
 * (arm-smmu's &arm_smmu_impl.write_reg) points these at them; the tests
 * plug a model in here.
 */
struct smmuv2_reg_ops {
	u32 (*read)(void *priv, unsigned int page, unsigned int off);
	u64 (*read64)(void *priv, unsigned int page, unsigned int off);
	void (*write)(void *priv, unsigned int page, unsigned int off, u32 val);
	void (*write64)(void *priv, unsigned int page, unsigned int off,
			u64 val);
};

/**
 * struct smmuv2_device_cfg - one SMMUv2 instance, as its driver found it
 * @name: instance name; the contexts' sysfs names start with it.  NULL:
 *	dev_name(@dev).  Copied.
 * @dev: the SMMU device, for logging; required
 * @base: start of the register space
 * @pgshift: log2 of the register page size (12 or 16, from ID1.PAGESIZE)
 * @numpage: pages of global space; context bank n is page @numpage + n
 * @coherent_walk: the SMMU snoops CPU caches when walking page tables
 * @sync_timeout_us: bound on one TLB sync; 0: one second, as upstream
 * @regs: accessor overrides, or NULL
 * @sync_timeout: optional; the driver's own dump when a sync on register
 *	page @page timed out, after the backend's (Qualcomm: the TBUs'
 *	state, through the firmware).  Called under the device's log rate
 *	limit, in atomic context.
 * @clock: optional; the time in ns that flushes of this SMMU's contexts
 *	are measured with (the adaptive policy's samples), for a model of
 *	the hardware that charges what silicon costs; NULL: ktime_get_ns()
 * @priv: the driver's; passed to @regs, @sync_timeout and @clock
 */
struct smmuv2_device_cfg {
	const char *name;
	struct device *dev;
	void __iomem *base;
	unsigned int pgshift;
	unsigned int numpage;
	bool coherent_walk;
	unsigned int sync_timeout_us;
	const struct smmuv2_reg_ops *regs;
	void (*sync_timeout)(void *priv, unsigned int page);
	u64 (*clock)(void *priv);
	void *priv;
};

/**
 * struct smmuv2_context_cfg - one context bank, as init_context set it up
 * @cbndx: context bank index
 * @id: ASID (stage 1) or VMID (stage 2) the bank was programmed with
 * @stage2: a stage-2 bank (CBAR.TYPE S2_TRANS): invalidated by IPA and VMID
 * @aarch32: the bank uses the AArch32 (LPAE) context format (CBA2R.VA64 is
 *	0): TLBI values are 32-bit and ASIDs 8-bit
 * @lazy: the domain is non-strict (DMA flush queue)
 * @dev: optional; the master whose attach finalised the bank, named in
 *	the journal line that says the context was created
 */
struct smmuv2_context_cfg {
	struct device *dev;
	u8 cbndx;
	u16 id;
	bool stage2;
	bool aarch32;
	bool lazy;
};

struct smmuv2_device *smmuv2_device_create(const struct smmuv2_device_cfg *cfg);
void smmuv2_device_destroy(struct smmuv2_device *smmu);
struct fp_context *smmuv2_context_create(struct smmuv2_device *smmu,
					 const struct smmuv2_context_cfg *cfg,
					 struct io_pgtable_cfg *pgtbl_cfg);
void smmuv2_context_destroy(struct fp_context *ctx);

#endif /* _FP_SMMUV2_H */
