// SPDX-License-Identifier: GPL-2.0-only
/*
 * What a Qualcomm SMMU says about a TLB sync that never completed.
 *
 * Upstream reads the TBUs' power and sync-acknowledge state through secure
 * firmware calls, which only real Qualcomm hardware answers.  What any
 * SMMUv2 shows in its own registers comes first anyway: whether the sync
 * is still active, globally or on the bank, and whether the bank is
 * stalled on a fault, the usual reason on these SoCs: with stall-on-fault
 * (SCTLR.CFCFG) set, a stalled transaction holds every later sync back
 * until the fault is resumed or terminated.
 */
#define pr_fmt(fmt) "flushpol_qcom: " fmt

#include <linux/device.h>

#include "../smmuv2/smmuv2_regs.h"
#include "../smmuv2/smmuv2_ctx.h"
#include "qcom.h"

static void qcom_smmuv2_dump_bank(struct smmuv2_device *smmu,
				  unsigned int page)
{
	u32 fsr = smmuv2_read(smmu, page, SMMUV2_CB_FSR);
	u32 sctlr = smmuv2_read(smmu, page, SMMUV2_CB_SCTLR);

	dev_err(smmu->cfg.dev,
		"cb%u: TLBSTATUS %#x FSR %#x FSYNR0 %#x FAR %#llx SCTLR %#x\n",
		page - smmu->cfg.numpage,
		smmuv2_read(smmu, page, SMMUV2_CB_TLBSTATUS), fsr,
		smmuv2_read(smmu, page, SMMUV2_CB_FSYNR0),
		smmuv2_read64(smmu, page, SMMUV2_CB_FAR), sctlr);
	if ((fsr & SMMUV2_FSR_SS) && (sctlr & SMMUV2_SCTLR_CFCFG))
		dev_err(smmu->cfg.dev,
			"cb%u: stalled on a fault: syncs wait until it is resumed or terminated\n",
			page - smmu->cfg.numpage);
}

/**
 * qcom_smmuv2_sync_timeout() - dump the registers behind a sync timeout
 * @smmu: the SMMU
 * @page: the register page whose sync timed out: 0 (global) or a bank's
 *
 * Called by the SMMUv2 backend under its log rate limit.
 */
void qcom_smmuv2_sync_timeout(struct smmuv2_device *smmu, unsigned int page)
{
	dev_err(smmu->cfg.dev, "sTLBGSTATUS %#x sGFSR %#x\n",
		smmuv2_read(smmu, 0, SMMUV2_GR0_STLBGSTATUS),
		smmuv2_read(smmu, 0, SMMUV2_GR0_SGFSR));
	if (page >= smmu->cfg.numpage)
		qcom_smmuv2_dump_bank(smmu, page);
}
