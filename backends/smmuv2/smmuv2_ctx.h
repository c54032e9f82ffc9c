/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * SMMUv2 backend internals, shared by the files of flushpol_smmuv2, the
 * implementations built on it (flushpol_qcom) and the tests, never by a
 * driver: drivers hold pointers to these, which smmuv2.h leaves opaque.
 */
#ifndef _FP_SMMUV2_CTX_H
#define _FP_SMMUV2_CTX_H

#include <linux/io.h>
#include <linux/io-64-nonatomic-hi-lo.h>
#include <linux/ratelimit.h>
#include <linux/spinlock.h>

#include "smmuv2.h"

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
 * struct smmuv2_device - one SMMUv2 instance under flushpol
 * @cfg: as the driver described it; @cfg.name is @name
 * @name: copy of the instance name
 * @impl: implementation defaults and hooks, or NULL
 * @global_sync_lock: serialises global syncs
 * @sync_rs: log rate limit of sync timeouts
 */
struct smmuv2_device {
	struct smmuv2_device_cfg cfg;
	char name[32];
	const struct smmuv2_impl *impl;
	spinlock_t global_sync_lock;	/* one global sync at a time */
	struct ratelimit_state sync_rs;
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
 */
struct smmuv2_context {
	struct smmuv2_device *smmu;
	struct fp_context *fp;
	struct smmuv2_context_cfg cfg;
	unsigned int page;
	spinlock_t sync_lock;		/* see above */
	bool global_pending;
};

/*
 * Some hypervisors on Qualcomm SoCs trap and emulate SMMU register writes
 * and get stores of the zero register wrong: writes whose value does not
 * matter write all ones instead, as upstream arm-smmu does.
 */
#define SMMUV2_DUMMY_VAL	(~0U)

static inline struct smmuv2_context *smmuv2_ctx(const struct fp_context *ctx)
{
	return fp_context_priv(ctx);
}

static inline void __iomem *smmuv2_page(struct smmuv2_device *smmu,
					unsigned int page)
{
	return smmu->cfg.base + ((unsigned long)page << smmu->cfg.pgshift);
}

static inline u32 smmuv2_read(struct smmuv2_device *smmu, unsigned int page,
			      unsigned int off)
{
	const struct smmuv2_reg_ops *regs = smmu->cfg.regs;

	if (regs && regs->read)
		return regs->read(smmu->cfg.priv, page, off);
	return readl_relaxed(smmuv2_page(smmu, page) + off);
}

static inline u64 smmuv2_read64(struct smmuv2_device *smmu, unsigned int page,
				unsigned int off)
{
	const struct smmuv2_reg_ops *regs = smmu->cfg.regs;

	if (regs && regs->read64)
		return regs->read64(smmu->cfg.priv, page, off);
	return readq_relaxed(smmuv2_page(smmu, page) + off);
}

static inline void smmuv2_write(struct smmuv2_device *smmu, unsigned int page,
				unsigned int off, u32 val)
{
	const struct smmuv2_reg_ops *regs = smmu->cfg.regs;

	if (regs && regs->write)
		regs->write(smmu->cfg.priv, page, off, val);
	else
		writel_relaxed(val, smmuv2_page(smmu, page) + off);
}

static inline void smmuv2_write64(struct smmuv2_device *smmu,
				  unsigned int page, unsigned int off, u64 val)
{
	const struct smmuv2_reg_ops *regs = smmu->cfg.regs;

	if (regs && regs->write64)
		regs->write64(smmu->cfg.priv, page, off, val);
	else
		writeq_relaxed(val, smmuv2_page(smmu, page) + off);
}

/* context.c, for implementations */
struct smmuv2_device *smmuv2_device_create_impl(const struct smmuv2_device_cfg *cfg,
						const struct smmuv2_impl *impl);

/* tlbi.c */
extern const struct fp_hw_ops smmuv2_hw_ops;

/* sync.c */
int smmuv2_sync(struct fp_context *ctx);

#endif /* _FP_SMMUV2_CTX_H */
