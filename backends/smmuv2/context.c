// SPDX-License-Identifier: GPL-2.0-only
/*
 * flushpol_smmuv2: the SMMUv2 backend as a module.  A driver describes its
 * SMMU once, then hands each context bank it sets up to flushpol from its
 * init_context hook, and gets back the context whose flush ops io-pgtable
 * must call.
 */
#define pr_fmt(fmt) "flushpol_smmuv2: " fmt

#include <linux/device.h>
#include <linux/err.h>
#include <linux/module.h>

#include "smmuv2_ctx.h"

#define SMMUV2_SYNC_TIMEOUT_US	1000000	/* upstream arm-smmu's bound */
#define SMMUV2_DEFAULT_THRESHOLD	128

/**
 * smmuv2_device_init() - finish describing an SMMU before its first context
 * @smmu: filled in by the driver: @dev, @base (or @regs), @pgshift,
 *	@numpage, @coherent_walk, optionally @name, @impl and
 *	@sync_timeout_us
 *
 * Context: process context.
 * Return: 0, or -EINVAL if @smmu has no device or no usable register page
 * size.
 */
int smmuv2_device_init(struct smmuv2_device *smmu)
{
	if (!smmu->dev || (smmu->pgshift != 12 && smmu->pgshift != 16))
		return -EINVAL;
	if (!smmu->name)
		smmu->name = dev_name(smmu->dev);
	if (!smmu->sync_timeout_us)
		smmu->sync_timeout_us = SMMUV2_SYNC_TIMEOUT_US;
	spin_lock_init(&smmu->global_sync_lock);
	ratelimit_state_init(&smmu->sync_rs, DEFAULT_RATELIMIT_INTERVAL,
			     DEFAULT_RATELIMIT_BURST);
	return 0;
}
EXPORT_SYMBOL_GPL(smmuv2_device_init);

/*
 * The AArch64 TLBI-by-VA registers are commands: a 64-bit write split in
 * two, as a 32-bit kernel's writeq() is, would be two of them.  Such hosts
 * use the AArch32 context format, unless the driver's own write64 knows
 * better.
 */
static bool smmuv2_cfg_valid(struct smmuv2_device *smmu,
			     const struct smmuv2_context_cfg *cfg)
{
	if (cfg->aarch32 && !cfg->stage2 && cfg->id > 0xff)
		return false;
	if (!cfg->aarch32 && !IS_ENABLED(CONFIG_64BIT) &&
	    !(smmu->regs && smmu->regs->write64))
		return false;
	return true;
}

/**
 * smmuv2_init_context() - hand a context bank to flushpol
 * @sc: storage for the backend's state of the bank, typically in the
 *	driver's domain; fp_context_priv() of the result returns it
 * @smmu: the SMMU, from smmuv2_device_init()
 * @cfg: how the driver set the bank up
 * @pgtbl_cfg: the bank's io-pgtable configuration; its @tlb is set to
 *	flushpol's flush ops
 *
 * Call from the driver's init_context, before alloc_io_pgtable_ops(), and
 * pass the returned context as that call's cookie: flushpol's flush ops
 * take it, not the driver's domain.  The driver's iotlb_sync and
 * flush_iotlb_all become fp_iotlb_sync() and fp_flush_iotlb_all() on it.
 * The policy is the implementation's default (&smmuv2_impl.default_policy),
 * "va" for plain SMMUv2: what upstream arm-smmu sends, whatever the stage,
 * format, granule or strictness.
 *
 * Context: process context; may sleep.
 * Return: the context, or an ERR_PTR(): -EINVAL for an ASID or format the
 * bank cannot have, or fp_context_create()'s error.
 */
struct fp_context *smmuv2_init_context(struct smmuv2_context *sc,
				       struct smmuv2_device *smmu,
				       const struct smmuv2_context_cfg *cfg,
				       struct io_pgtable_cfg *pgtbl_cfg)
{
	const struct smmuv2_impl *impl = smmu->impl;
	struct fp_context_cfg fc = {
		.backend = "smmuv2",
		.instance = smmu->name,
		.owner = THIS_MODULE,
		.ops = &smmuv2_hw_ops,
		.id = cfg->id,
		.stage2 = cfg->stage2,
		.lazy = cfg->lazy,
		.default_policy = "va",
		.default_threshold = SMMUV2_DEFAULT_THRESHOLD,
		.priv = sc,
	};

	if (!smmuv2_cfg_valid(smmu, cfg))
		return ERR_PTR(-EINVAL);
	if (impl && impl->backend)
		fc.backend = impl->backend;
	if (impl && impl->default_policy)
		fc.default_policy = impl->default_policy;
	if (impl && impl->default_threshold)
		fc.default_threshold = impl->default_threshold;

	*sc = (struct smmuv2_context) {
		.smmu = smmu,
		.cfg = *cfg,
		.page = smmuv2_cb_page(smmu, cfg->cbndx),
	};
	spin_lock_init(&sc->sync_lock);
	sc->fp = fp_context_create(&fc, pgtbl_cfg);
	return sc->fp;
}
EXPORT_SYMBOL_GPL(smmuv2_init_context);

/**
 * smmuv2_destroy_context() - stop managing a context bank
 * @sc: as given to a successful smmuv2_init_context()
 *
 * Call after free_io_pgtable_ops(), which still flushes through the
 * context.
 *
 * Context: process context; may sleep.
 */
void smmuv2_destroy_context(struct smmuv2_context *sc)
{
	fp_context_destroy(sc->fp);
	sc->fp = NULL;
}
EXPORT_SYMBOL_GPL(smmuv2_destroy_context);

MODULE_DESCRIPTION("flushpol backend: SMMUv2 context-bank TLB maintenance");
MODULE_AUTHOR("flushpol developers");
MODULE_VERSION(FP_VERSION);
MODULE_LICENSE("GPL");
