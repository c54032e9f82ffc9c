// SPDX-License-Identifier: GPL-2.0-only
/*
 * SMMUv2 TLB maintenance: each primitive flushpol asks for becomes writes
 * to the context bank's (or, for VMIDs, the global) TLBI registers, encoded
 * as the architecture defines them for the bank's context format.  Nothing
 * here waits: completion is sync.c's job.
 */
#define pr_fmt(fmt) "flushpol_smmuv2: " fmt

#include <linux/bitfield.h>
#include <linux/ktime.h>

#include "smmuv2_ctx.h"
#include "smmuv2_regs.h"

/*
 * The TLBI writes are relaxed, so they may overtake the PTE stores that
 * made them necessary.  A coherent walker reads those stores from the CPU
 * caches: order them first.  A non-coherent walker reads memory, which
 * io-pgtable has already cleaned the PTEs to through the DMA API, and that
 * cache maintenance ends with a barrier of its own.
 */
static void smmuv2_pte_barrier(struct smmuv2_context *sc)
{
	if (!sc->smmu->cfg.coherent_walk)
		return;
	/* Order the PTE stores before the relaxed TLBI writes. */
	wmb();
}

static void smmuv2_tlbi_va(struct smmuv2_context *sc, unsigned long iova,
			   unsigned long n, size_t granule, unsigned int reg)
{
	struct smmuv2_device *smmu = sc->smmu;

	if (sc->cfg.aarch32) {
		u32 asid = FIELD_PREP(SMMUV2_TLBIVA32_ASID, sc->cfg.id);

		for (; n; n--, iova += granule)
			smmuv2_write(smmu, sc->page, reg,
				     (lower_32_bits(iova) & SMMUV2_TLBIVA32_VA) |
				     asid);
	} else {
		u64 asid = FIELD_PREP(SMMUV2_TLBIVA64_ASID, sc->cfg.id);

		for (; n; n--, iova += granule)
			smmuv2_write64(smmu, sc->page, reg,
				       FIELD_PREP(SMMUV2_TLBIVA64_VA,
						  iova >> SMMUV2_TLBI_ADDR_SHIFT) |
				       asid);
	}
}

/* The bank's VMID tags these: the value is the IPA alone. */
static void smmuv2_tlbi_ipa(struct smmuv2_context *sc, unsigned long iova,
			    unsigned long n, size_t granule, unsigned int reg)
{
	struct smmuv2_device *smmu = sc->smmu;

	for (; n; n--, iova += granule) {
		u64 val = FIELD_PREP(SMMUV2_TLBIIPAS2_IPA,
				     iova >> SMMUV2_TLBI_ADDR_SHIFT);

		if (sc->cfg.aarch32)
			smmuv2_write(smmu, sc->page, reg, lower_32_bits(val));
		else
			smmuv2_write64(smmu, sc->page, reg, val);
	}
}

/*
 * A global command is only known complete after a global sync: note that
 * one is owed under the lock the sync takes, see struct smmuv2_context.
 */
static void smmuv2_tlbi_global(struct smmuv2_context *sc, unsigned int reg,
			       u32 val)
{
	unsigned long flags;

	spin_lock_irqsave(&sc->sync_lock, flags);
	smmuv2_write(sc->smmu, 0, reg, val);
	sc->global_pending = true;
	spin_unlock_irqrestore(&sc->sync_lock, flags);
}

static void smmuv2_inv_va(struct fp_context *ctx, unsigned long iova,
			  size_t size, size_t granule, bool leaf)
{
	struct smmuv2_context *sc = smmuv2_ctx(ctx);
	unsigned long n = size / granule;

	smmuv2_pte_barrier(sc);
	if (sc->cfg.stage2)
		smmuv2_tlbi_ipa(sc, iova, n, granule,
				leaf ? SMMUV2_CB_S2_TLBIIPAS2L :
				       SMMUV2_CB_S2_TLBIIPAS2);
	else
		smmuv2_tlbi_va(sc, iova, n, granule,
			       leaf ? SMMUV2_CB_S1_TLBIVAL :
				      SMMUV2_CB_S1_TLBIVA);
}

/* Stage 2 has no per-bank "all of this VMID": that is GR0's TLBIVMID. */
static void smmuv2_inv_context(struct fp_context *ctx)
{
	struct smmuv2_context *sc = smmuv2_ctx(ctx);

	smmuv2_pte_barrier(sc);
	if (sc->cfg.stage2)
		smmuv2_tlbi_global(sc, SMMUV2_GR0_TLBIVMID,
				   FIELD_PREP(SMMUV2_TLBIVMID_VMID, sc->cfg.id));
	else
		smmuv2_write(sc->smmu, sc->page, SMMUV2_CB_S1_TLBIASID,
			     FIELD_PREP(SMMUV2_TLBIASID_ASID, sc->cfg.id));
}

/*
 * Stage 1: TLBIALL drops every ASID of the bank's VMID, which is every
 * stage-1 context of a host that gives them all the same VMID, as
 * arm-smmu does.  Stage 2: every non-secure, non-hypervisor entry.
 */
static void smmuv2_inv_all(struct fp_context *ctx)
{
	struct smmuv2_context *sc = smmuv2_ctx(ctx);

	smmuv2_pte_barrier(sc);
	if (sc->cfg.stage2)
		smmuv2_tlbi_global(sc, SMMUV2_GR0_TLBIALLNSNH, SMMUV2_DUMMY_VAL);
	else
		smmuv2_write(sc->smmu, sc->page, SMMUV2_CB_S1_TLBIALL,
			     SMMUV2_DUMMY_VAL);
}

static u64 smmuv2_clock(struct fp_context *ctx)
{
	const struct smmuv2_device_cfg *cfg = &smmuv2_ctx(ctx)->smmu->cfg;

	return cfg->clock ? cfg->clock(cfg->priv) : ktime_get_ns();
}

/* No inv_range: SMMUv2 has no range invalidation. */
const struct fp_hw_ops smmuv2_hw_ops = {
	.inv_va		= smmuv2_inv_va,
	.inv_context	= smmuv2_inv_context,
	.inv_all	= smmuv2_inv_all,
	.sync		= smmuv2_sync,
	.clock		= smmuv2_clock,
};
