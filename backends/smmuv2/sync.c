// SPDX-License-Identifier: GPL-2.0-only
/*
 * SMMUv2 TLB sync: write TLBSYNC (or sTLBGSYNC), then poll TLBSTATUS (or
 * sTLBGSTATUS) until SACTIVE clears.  Polling spins briefly, since a sync
 * usually completes within a few reads, then backs off with doubling
 * delays, under a hard bound: a wedged SMMU costs one bounded wait and an
 * error, never a hung CPU.
 */
#define pr_fmt(fmt) "flushpol_smmuv2: " fmt

#include <linux/delay.h>
#include <linux/device.h>
#include <linux/minmax.h>

#include "smmuv2_ctx.h"
#include "smmuv2_regs.h"

#define SMMUV2_SYNC_SPINS	10

static int smmuv2_poll(struct smmuv2_device *smmu, unsigned int page,
		       unsigned int sync, unsigned int status, u32 active)
{
	unsigned int waited = 0, delay = 1, spin;

	smmuv2_write(smmu, page, sync, SMMUV2_DUMMY_VAL);
	for (;;) {
		for (spin = SMMUV2_SYNC_SPINS; spin; spin--) {
			if (!(smmuv2_read(smmu, page, status) & active))
				return 0;
			cpu_relax();
		}
		if (waited >= smmu->cfg.sync_timeout_us)
			break;
		delay = min(delay, smmu->cfg.sync_timeout_us - waited);
		udelay(delay);
		waited += delay;
		delay *= 2;
	}

	if (__ratelimit(&smmu->sync_rs)) {
		if (page)
			dev_err(smmu->cfg.dev,
				"cb%u: TLB sync timed out after %u us; SMMU may be deadlocked\n",
				page - smmu->cfg.numpage, waited);
		else
			dev_err(smmu->cfg.dev,
				"global TLB sync timed out after %u us; SMMU may be deadlocked\n",
				waited);
		if (smmu->impl && smmu->impl->sync_timeout)
			smmu->impl->sync_timeout(smmu, page);
		if (smmu->cfg.sync_timeout)
			smmu->cfg.sync_timeout(smmu->cfg.priv, page);
	}
	return -ETIMEDOUT;
}

static int smmuv2_sync_global(struct smmuv2_device *smmu)
{
	unsigned long flags;
	int ret;

	spin_lock_irqsave(&smmu->global_sync_lock, flags);
	ret = smmuv2_poll(smmu, 0, SMMUV2_GR0_STLBGSYNC, SMMUV2_GR0_STLBGSTATUS,
			  SMMUV2_STLBGSTATUS_GSACTIVE);
	spin_unlock_irqrestore(&smmu->global_sync_lock, flags);
	return ret;
}

/*
 * The context sync is never skipped, even when only a global command seems
 * owed: the caller may also have issued by-VA commands, which only this
 * bank's sync completes, and per-context state cannot say whether it did
 * without racing other CPUs unmapping in the same context.  A global
 * command whose sync failed stays owed, so the next sync retries it.
 */
int smmuv2_sync(struct fp_context *ctx)
{
	struct smmuv2_context *sc = smmuv2_ctx(ctx);
	unsigned long flags;
	int ret = 0, err;

	spin_lock_irqsave(&sc->sync_lock, flags);
	if (sc->global_pending) {
		ret = smmuv2_sync_global(sc->smmu);
		if (!ret)
			sc->global_pending = false;
	}
	err = smmuv2_poll(sc->smmu, sc->page, SMMUV2_CB_TLBSYNC,
			  SMMUV2_CB_TLBSTATUS, SMMUV2_TLBSTATUS_SACTIVE);
	spin_unlock_irqrestore(&sc->sync_lock, flags);
	return ret ?: err;
}
