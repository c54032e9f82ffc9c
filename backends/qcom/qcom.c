// SPDX-License-Identifier: GPL-2.0-only
/*
 * flushpol_qcom: Qualcomm SMMUv2 (SMMU-500 and friends) defaults.
 *
 * Upstream arm-smmu-qcom sets flush_walk_prefer_tlbiasid on every domain:
 * a freed table costs one TLBIASID instead of 512 TLBIVAs.  Here that is
 * the threshold policy at 128 entries, the number Qualcomm's hardware team
 * gives: a walk (512 entries) becomes one context invalidation as upstream,
 * a gather of up to 128 leaves stays precise, and sysfs can change either.
 * Contexts are otherwise the SMMUv2 backend's.
 */
#define pr_fmt(fmt) "flushpol_qcom: " fmt

#include <linux/module.h>

#include "../smmuv2/smmuv2_ctx.h"
#include "qcom.h"

static const struct smmuv2_impl qcom_smmuv2_impl = {
	.backend		= "qcom",
	.default_policy		= "threshold",
	.default_threshold	= 128,
	.sync_timeout		= qcom_smmuv2_sync_timeout,
};

/**
 * qcom_smmuv2_device_create() - smmuv2_device_create() with Qualcomm's defaults
 * @cfg: as for smmuv2_device_create()
 *
 * Contexts then created on the device with smmuv2_context_create() use
 * the threshold policy at 128 TLB entries, and a TLB sync that times out
 * dumps the registers that say why, before the driver's own
 * &smmuv2_device_cfg.sync_timeout (upstream's TBU queries).
 *
 * Context: process context; may sleep.
 * Return: as smmuv2_device_create().
 */
struct smmuv2_device *qcom_smmuv2_device_create(const struct smmuv2_device_cfg *cfg)
{
	return smmuv2_device_create_impl(cfg, &qcom_smmuv2_impl);
}
EXPORT_SYMBOL_GPL(qcom_smmuv2_device_create);

MODULE_DESCRIPTION("flushpol backend: Qualcomm SMMUv2 defaults (threshold 128, sync timeout dump)");
MODULE_AUTHOR("flushpol developers");
MODULE_VERSION(FP_VERSION);
MODULE_LICENSE("GPL");
