/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * flushpol SMMUv2 backend: context-bank TLB maintenance for drivers of
 * SMMUv2-family IOMMUs (arm-smmu and its vendor implementations).
 *
 *   probe:        smmuv2_device_init(&smmu);        (after filling it in)
 *   init_context: ctx = smmuv2_init_context(&dom->v2, &smmu, &cfg,
 *                                           &pgtbl_cfg);
 *                 ops = alloc_io_pgtable_ops(fmt, &pgtbl_cfg, ctx);
 *   iotlb_sync:   fp_iotlb_sync(ctx, gather);
 *   flush_iotlb_all: fp_flush_iotlb_all(ctx);
 *   destroy:      free_io_pgtable_ops(ops); smmuv2_destroy_context(&dom->v2);
 *
 * See Documentation/smmuv2-integration.rst.
 */
#ifndef _FP_SMMUV2_H
#define _FP_SMMUV2_H

#include <linux/io.h>
#include <linux/io-64-nonatomic-hi-lo.h>
#include <linux/ratelimit.h>
#include <linux/spinlock.h>
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
 * Pages are the SMMU's: 0 is GR0, numpage + n is context bank n.  A member
 * left NULL is the relaxed MMIO access to &smmuv2_device.base.  A vendor
 * overrides what its hardware needs; the tests plug a model in here.
 */
struct smmuv2_reg_ops {
	u32 (*read)(struct smmuv2_device *smmu, unsigned int page,
		    unsigned int off);
	u64 (*read64)(struct smmuv2_device *smmu, unsigned int page,
		      unsigned int off);
	void (*write)(struct smmuv2_device *smmu, unsigned int page,
		      unsigned int off, u32 val);
	void (*write64)(struct smmuv2_device *smmu, unsigned int page,
			unsigned int off, u64 val);
};

/**
 * struct smmuv2_impl - what an implementation changes about plain SMMUv2
 * @backend: backend name shown in sysfs; NULL: "smmuv2"
 * @default_policy: policy of new contexts; NULL: "va", as upstream
 * @default_threshold: initial threshold in TLB entries; 0: 128
 * @sync_timeout: optional; a sync on register page @page timed out.  Dump
 *	what explains it.  Called under the device's log rate limit.
 */
struct smmuv2_impl {
	const char *backend;
	const char *default_policy;
	unsigned int default_threshold;
	void (*sync_timeout)(struct smmuv2_device *smmu, unsigned int page);
};

/**
 * struct smmuv2_device - one SMMUv2 instance, as its driver found it
 * @name: instance name; the contexts' sysfs names start with it.  NULL:
 *	dev_name(@dev).
 * @dev: the SMMU device, for logging; required
 * @base: start of the register space
 * @pgshift: log2 of the register page size (12 or 16, from ID1.PAGESIZE)
 * @numpage: pages of global space; context bank n is page @numpage + n
 * @coherent_walk: the SMMU snoops CPU caches when walking page tables
 * @sync_timeout_us: bound on one TLB sync; 0: one second, as upstream
 * @regs: accessor overrides, or NULL
 * @impl: implementation defaults and hooks, or NULL
 * @priv: the driver's, untouched here
 * @global_sync_lock: serialises global syncs; set up by smmuv2_device_init()
 * @sync_rs: log rate limit of sync timeouts; set up by smmuv2_device_init()
 */
struct smmuv2_device {
	const char *name;
	struct device *dev;
	void __iomem *base;
	unsigned int pgshift;
	unsigned int numpage;
	bool coherent_walk;
	unsigned int sync_timeout_us;
	const struct smmuv2_reg_ops *regs;
	const struct smmuv2_impl *impl;
	void *priv;
	spinlock_t global_sync_lock;	/* one global sync at a time */
	struct ratelimit_state sync_rs;
};

/**
 * struct smmuv2_context_cfg - one context bank, as init_context set it up
 * @cbndx: context bank index
 * @id: ASID (stage 1) or VMID (stage 2) the bank was programmed with
 * @stage2: a stage-2 bank (CBAR.TYPE S2_TRANS): invalidated by IPA and VMID
 * @aarch32: the bank uses the AArch32 (LPAE) context format (CBA2R.VA64 is
 *	0): TLBI values are 32-bit and ASIDs 8-bit
 * @lazy: the domain is non-strict (DMA flush queue)
 */
struct smmuv2_context_cfg {
	u8 cbndx;
	u16 id;
	bool stage2;
	bool aarch32;
	bool lazy;
};

/**
 * struct smmuv2_context - one context bank under flushpol
 * @smmu: its SMMU
 * @fp: the flushpol context; fp_context_priv() of it is this structure
 * @cfg: how the driver set the bank up
 * @page: the bank's register page
 * @sync_lock: held across a sync and across issuing a global (GR0)
 *	command, so that a sync which clears @global_pending has waited for
 *	every global command issued before it, whichever CPU issued it
 * @global_pending: a TLBIVMID or TLBIALLNSNH awaits a global sync
 *
 * The driver provides the storage, typically in its domain, so that it can
 * find its domain from fp_context_priv(); every member is the backend's.
 */
struct smmuv2_context {
	struct smmuv2_device *smmu;
	struct fp_context *fp;
	struct smmuv2_context_cfg cfg;
	unsigned int page;
	spinlock_t sync_lock;		/* see above */
	bool global_pending;
};

int smmuv2_device_init(struct smmuv2_device *smmu);
struct fp_context *smmuv2_init_context(struct smmuv2_context *sc,
				       struct smmuv2_device *smmu,
				       const struct smmuv2_context_cfg *cfg,
				       struct io_pgtable_cfg *pgtbl_cfg);
void smmuv2_destroy_context(struct smmuv2_context *sc);

static inline void __iomem *smmuv2_page(struct smmuv2_device *smmu,
					unsigned int page)
{
	return smmu->base + ((unsigned long)page << smmu->pgshift);
}

static inline unsigned int smmuv2_cb_page(struct smmuv2_device *smmu,
					  unsigned int cbndx)
{
	return smmu->numpage + cbndx;
}

static inline u32 smmuv2_read(struct smmuv2_device *smmu, unsigned int page,
			      unsigned int off)
{
	if (smmu->regs && smmu->regs->read)
		return smmu->regs->read(smmu, page, off);
	return readl_relaxed(smmuv2_page(smmu, page) + off);
}

static inline u64 smmuv2_read64(struct smmuv2_device *smmu, unsigned int page,
				unsigned int off)
{
	if (smmu->regs && smmu->regs->read64)
		return smmu->regs->read64(smmu, page, off);
	return readq_relaxed(smmuv2_page(smmu, page) + off);
}

static inline void smmuv2_write(struct smmuv2_device *smmu, unsigned int page,
				unsigned int off, u32 val)
{
	if (smmu->regs && smmu->regs->write)
		smmu->regs->write(smmu, page, off, val);
	else
		writel_relaxed(val, smmuv2_page(smmu, page) + off);
}

static inline void smmuv2_write64(struct smmuv2_device *smmu,
				  unsigned int page, unsigned int off, u64 val)
{
	if (smmu->regs && smmu->regs->write64)
		smmu->regs->write64(smmu, page, off, val);
	else
		writeq_relaxed(val, smmuv2_page(smmu, page) + off);
}

#endif /* _FP_SMMUV2_H */
