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
#include <linux/slab.h>
#include <linux/string.h>

#include "smmuv2_ctx.h"

#define SMMUV2_SYNC_TIMEOUT_US	1000000	/* upstream arm-smmu's bound */
#define SMMUV2_DEFAULT_THRESHOLD	128

/**
 * smmuv2_device_create_impl() - smmuv2_device_create() for an implementation
 * @cfg: as for smmuv2_device_create()
 * @impl: the implementation's defaults and hooks, or NULL
 *
 * Context: process context; may sleep.
 * Return: as smmuv2_device_create().
 */
struct smmuv2_device *smmuv2_device_create_impl(const struct smmuv2_device_cfg *cfg,
						const struct smmuv2_impl *impl)
{
	struct smmuv2_device *smmu;

	if (!cfg->dev || (cfg->pgshift != 12 && cfg->pgshift != 16))
		return ERR_PTR(-EINVAL);
	smmu = kzalloc(sizeof(*smmu), GFP_KERNEL);
	if (!smmu)
		return ERR_PTR(-ENOMEM);
	smmu->cfg = *cfg;
	smmu->impl = impl;
	strscpy(smmu->name, cfg->name ?: dev_name(cfg->dev),
		sizeof(smmu->name));
	smmu->cfg.name = smmu->name;
	if (!smmu->cfg.sync_timeout_us)
		smmu->cfg.sync_timeout_us = SMMUV2_SYNC_TIMEOUT_US;
	spin_lock_init(&smmu->global_sync_lock);
	ratelimit_state_init(&smmu->sync_rs, DEFAULT_RATELIMIT_INTERVAL,
			     DEFAULT_RATELIMIT_BURST);
	return smmu;
}
EXPORT_SYMBOL_GPL(smmuv2_device_create_impl);

/**
 * smmuv2_device_create() - describe an SMMU to flushpol
 * @cfg: what the driver found: @dev, @base (or @regs), @pgshift, @numpage,
 *	@coherent_walk, optionally @name, @sync_timeout_us, @sync_timeout
 *	and @priv.  Copied: it need not outlive the call.
 *
 * Call once per SMMU, when its register layout is known, before its first
 * context; plain SMMUv2 defaults (the "va" policy, what upstream sends).
 *
 * Context: process context; may sleep.
 * Return: the device, for smmuv2_context_create() and
 * smmuv2_device_destroy(); ERR_PTR(-EINVAL) if @cfg has no device or no
 * usable register page size, ERR_PTR(-ENOMEM).
 */
struct smmuv2_device *smmuv2_device_create(const struct smmuv2_device_cfg *cfg)
{
	return smmuv2_device_create_impl(cfg, NULL);
}
EXPORT_SYMBOL_GPL(smmuv2_device_create);

/**
 * smmuv2_device_destroy() - forget an SMMU
 * @smmu: from smmuv2_device_create(), with no context left; NULL is
 *	ignored
 *
 * Context: process context.
 */
void smmuv2_device_destroy(struct smmuv2_device *smmu)
{
	kfree(smmu);
}
EXPORT_SYMBOL_GPL(smmuv2_device_destroy);

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
	    !(smmu->cfg.regs && smmu->cfg.regs->write64))
		return false;
	return true;
}

/**
 * smmuv2_context_create() - hand a context bank to flushpol
 * @smmu: the SMMU, from smmuv2_device_create()
 * @cfg: how the driver set the bank up
 * @pgtbl_cfg: the bank's io-pgtable configuration; its @tlb is set to
 *	flushpol's flush ops
 *
 * Call from the driver's init_context, before alloc_io_pgtable_ops(), and
 * pass the returned context as that call's cookie: flushpol's flush ops
 * take it, not the driver's domain.  The driver's map and unmap become
 * fp_map() and fp_unmap(), its iotlb_sync and flush_iotlb_all
 * fp_iotlb_sync() and fp_flush_iotlb_all() on it.  The policy is the
 * implementation's default, "va" for plain SMMUv2: what upstream arm-smmu
 * sends, whatever the stage, format, granule or strictness.
 *
 * Context: process context; may sleep.
 * Return: the context, or an ERR_PTR(): -EINVAL for an ASID or format the
 * bank cannot have, -ENOMEM, or fp_context_create()'s error.
 */
struct fp_context *smmuv2_context_create(struct smmuv2_device *smmu,
					 const struct smmuv2_context_cfg *cfg,
					 struct io_pgtable_cfg *pgtbl_cfg)
{
	const struct smmuv2_impl *impl = smmu->impl;
	struct smmuv2_context *sc;
	struct fp_context_cfg fc = {
		.backend = "smmuv2",
		.instance = smmu->name,
		.owner = THIS_MODULE,
		.ops = &smmuv2_hw_ops,
		.id = cfg->id,
		.stage2 = cfg->stage2,
		.lazy = cfg->lazy,
		.dev = cfg->dev,
		.default_policy = "va",
		.default_threshold = SMMUV2_DEFAULT_THRESHOLD,
	};

	if (!smmuv2_cfg_valid(smmu, cfg))
		return ERR_PTR(-EINVAL);
	if (impl && impl->backend)
		fc.backend = impl->backend;
	if (impl && impl->default_policy)
		fc.default_policy = impl->default_policy;
	if (impl && impl->default_threshold)
		fc.default_threshold = impl->default_threshold;

	sc = kzalloc(sizeof(*sc), GFP_KERNEL);
	if (!sc)
		return ERR_PTR(-ENOMEM);
	sc->smmu = smmu;
	sc->cfg = *cfg;
	sc->page = smmu->cfg.numpage + cfg->cbndx;
	spin_lock_init(&sc->sync_lock);
	fc.priv = sc;
	sc->fp = fp_context_create(&fc, pgtbl_cfg);
	if (IS_ERR(sc->fp)) {
		struct fp_context *err = sc->fp;

		kfree(sc);
		return err;
	}
	return sc->fp;
}
EXPORT_SYMBOL_GPL(smmuv2_context_create);

/**
 * smmuv2_context_destroy() - stop managing a context bank
 * @ctx: from smmuv2_context_create()
 *
 * Call after free_io_pgtable_ops(), which still flushes through the
 * context.
 *
 * Context: process context; may sleep.
 */
void smmuv2_context_destroy(struct fp_context *ctx)
{
	struct smmuv2_context *sc = smmuv2_ctx(ctx);

	fp_context_destroy(ctx);
	kfree(sc);
}
EXPORT_SYMBOL_GPL(smmuv2_context_destroy);

MODULE_DESCRIPTION("flushpol backend: SMMUv2 context-bank TLB maintenance");
MODULE_AUTHOR("flushpol developers");
MODULE_VERSION(FP_VERSION);
MODULE_LICENSE("GPL");
