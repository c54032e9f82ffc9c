// SPDX-License-Identifier: GPL-2.0-only
/*
 * The stream table: one STE per stream ID, linear when the SMMU has few
 * streams or cannot walk two levels, two-level otherwise.  A two-level
 * table gets its level-2 tables as devices probe, so a 16-bit SIDSIZE costs
 * 2 KiB of level-1 descriptors, not 4 MiB of STEs.
 *
 * Streams no device of ours owns abort, as upstream's do by default
 * (disable_bypass): a device that probed before this driver loaded faults
 * instead of reaching memory unchecked.  drv.c names such devices.
 */
#define pr_fmt(fmt) "flushpol_smmuv3: " fmt

#include <linux/dma-mapping.h>
#include <linux/slab.h>

#include "smmuv3_dev.h"

/* Upstream's bound: at most 1 MiB of level-1 descriptors (2^25 streams). */
#define SMMUV3_STRTAB_L1_MAX_LOG2	17
/* A linear table above 2^20 streams (64 MiB) is not worth trying. */
#define SMMUV3_STRTAB_LINEAR_MAX_LOG2	20

void smmuv3_ste_abort(u64 *ste)
{
	memset(ste, 0, STE_DWORDS * sizeof(*ste));
	ste[0] = STE_0_V | FIELD_PREP(STE_0_CFG, STE_0_CFG_ABORT);
}

void smmuv3_ste_bypass(u64 *ste)
{
	memset(ste, 0, STE_DWORDS * sizeof(*ste));
	ste[0] = STE_0_V | FIELD_PREP(STE_0_CFG, STE_0_CFG_BYPASS);
	ste[1] = FIELD_PREP(STE_1_SHCFG, STE_1_SHCFG_INCOMING);
}

static void smmuv3_fill_abort(__le64 *stes, unsigned int n)
{
	u64 ste[STE_DWORDS];
	unsigned int i, j;

	smmuv3_ste_abort(ste);
	for (i = 0; i < n; i++)
		for (j = 0; j < STE_DWORDS; j++)
			stes[i * STE_DWORDS + j] = cpu_to_le64(ste[j]);
}

static int smmuv3_strtab_init_linear(struct smmuv3_device *smmu, u32 sidsize)
{
	struct smmuv3_strtab *st = &smmu->strtab;

	if (sidsize > SMMUV3_STRTAB_LINEAR_MAX_LOG2) {
		dev_err(smmu->dev,
			"SIDSIZE %u needs a two-level stream table, which IDR0.ST_LVL does not offer; a linear one holds at most 2^%u streams\n",
			sidsize, SMMUV3_STRTAB_LINEAR_MAX_LOG2);
		return -ENODEV;
	}
	st->sid_bits = sidsize;
	st->base = dmam_alloc_coherent(smmu->dev,
				       (STE_DWORDS << 3) << sidsize,
				       &st->dma, GFP_KERNEL);
	if (!st->base) {
		dev_err(smmu->dev,
			"no memory for a linear stream table of 2^%u streams (%lu KiB)\n",
			sidsize, ((STE_DWORDS << 3) << sidsize) / 1024UL);
		return -ENOMEM;
	}
	smmuv3_fill_abort(st->base, BIT(sidsize));
	return 0;
}

static int smmuv3_strtab_init_2lvl(struct smmuv3_device *smmu, u32 sidsize)
{
	struct smmuv3_strtab *st = &smmu->strtab;
	unsigned int l1_log2 = min_t(u32, sidsize - SMMUV3_STRTAB_SPLIT,
				     SMMUV3_STRTAB_L1_MAX_LOG2);

	st->two_level = true;
	st->sid_bits = l1_log2 + SMMUV3_STRTAB_SPLIT;
	if (st->sid_bits < sidsize)
		dev_warn(smmu->dev, "SIDSIZE %u: only streams below 2^%u are usable\n",
			 sidsize, st->sid_bits);
	st->base = dmam_alloc_coherent(smmu->dev, sizeof(u64) << l1_log2,
				       &st->dma, GFP_KERNEL);
	st->l2 = devm_kcalloc(smmu->dev, BIT(l1_log2), sizeof(*st->l2),
			      GFP_KERNEL);
	if (!st->base || !st->l2) {
		dev_err(smmu->dev, "no memory for 2^%u level-1 stream table descriptors\n",
			l1_log2);
		return -ENOMEM;
	}
	return 0;
}

/**
 * smmuv3_strtab_init() - allocate the stream table the SMMU asks for
 * @smmu: the SMMU
 * @idr0: its IDR0 (ST_LVL)
 * @idr1: its IDR1 (SIDSIZE)
 *
 * Return: 0, or an error after saying which limit was hit.
 */
int smmuv3_strtab_init(struct smmuv3_device *smmu, u32 idr0, u32 idr1)
{
	u32 sidsize = FIELD_GET(IDR1_SIDSIZE, idr1);

	if (FIELD_GET(IDR0_ST_LVL, idr0) == IDR0_ST_LVL_2LVL &&
	    sidsize > SMMUV3_STRTAB_SPLIT)
		return smmuv3_strtab_init_2lvl(smmu, sidsize);
	return smmuv3_strtab_init_linear(smmu, sidsize);
}

/* STRTAB_BASE_CFG for what smmuv3_strtab_init() allocated. */
u64 smmuv3_strtab_base_cfg(const struct smmuv3_device *smmu)
{
	const struct smmuv3_strtab *st = &smmu->strtab;

	if (!st->two_level)
		return FIELD_PREP(STRTAB_BASE_CFG_LOG2SIZE, st->sid_bits);
	return FIELD_PREP(STRTAB_BASE_CFG_FMT, STRTAB_BASE_CFG_FMT_2LVL) |
	       FIELD_PREP(STRTAB_BASE_CFG_SPLIT, SMMUV3_STRTAB_SPLIT) |
	       FIELD_PREP(STRTAB_BASE_CFG_LOG2SIZE, st->sid_bits);
}

/**
 * smmuv3_strtab_prepare() - make sure @sid has an STE
 * @smmu: the SMMU
 * @sid: a stream ID from a device's fwspec
 *
 * In a two-level table, allocates the level-2 table holding @sid (its
 * streams abort) and points the level-1 descriptor at it.
 *
 * Context: process context; takes ste_lock.
 * Return: 0, -ERANGE for a stream beyond the table, or -ENOMEM.
 */
int smmuv3_strtab_prepare(struct smmuv3_device *smmu, u32 sid)
{
	struct smmuv3_strtab *st = &smmu->strtab;
	u32 i = sid >> SMMUV3_STRTAB_SPLIT;
	dma_addr_t dma;
	__le64 *l2;
	int ret = 0;

	if (sid >= BIT_ULL(st->sid_bits)) {
		dev_err(smmu->dev, "stream %#x beyond the stream table's 2^%u streams\n",
			sid, st->sid_bits);
		return -ERANGE;
	}
	if (!st->two_level)
		return 0;

	mutex_lock(&smmu->ste_lock);
	if (st->l2[i])
		goto out;
	l2 = dmam_alloc_coherent(smmu->dev,
				 (STE_DWORDS << 3) << SMMUV3_STRTAB_SPLIT,
				 &dma, GFP_KERNEL);
	if (!l2) {
		ret = -ENOMEM;
		goto out;
	}
	smmuv3_fill_abort(l2, BIT(SMMUV3_STRTAB_SPLIT));
	st->l2[i] = l2;
	/* The level-2 entries are visible before the descriptor is. */
	dma_wmb();
	WRITE_ONCE(st->base[i],
		   cpu_to_le64(FIELD_PREP(STRTAB_L1_DESC_SPAN,
					  SMMUV3_STRTAB_SPLIT + 1) |
			       (dma & STRTAB_L1_DESC_L2PTR)));
out:
	mutex_unlock(&smmu->ste_lock);
	return ret;
}

static __le64 *smmuv3_ste_ptr(struct smmuv3_device *smmu, u32 sid)
{
	struct smmuv3_strtab *st = &smmu->strtab;

	if (!st->two_level)
		return &st->base[sid * STE_DWORDS];
	return &st->l2[sid >> SMMUV3_STRTAB_SPLIT]
		      [(sid & (BIT(SMMUV3_STRTAB_SPLIT) - 1)) * STE_DWORDS];
}

/*
 * The SMMU may read the entry at any time: dword 0, which holds V, goes
 * invalid first and valid last.
 */
static void smmuv3_write_ste(struct smmuv3_device *smmu, u32 sid,
			     const u64 *ste)
{
	__le64 *dst = smmuv3_ste_ptr(smmu, sid);
	int i;

	WRITE_ONCE(dst[0], 0);
	dma_wmb();
	for (i = 1; i < STE_DWORDS; i++)
		dst[i] = cpu_to_le64(ste[i]);
	dma_wmb();
	WRITE_ONCE(dst[0], cpu_to_le64(ste[0]));
}

/**
 * smmuv3_install_ste() - give streams a new STE and make the SMMU see it
 * @smmu: the SMMU
 * @sids: the streams, each prepared with smmuv3_strtab_prepare()
 * @n: how many
 * @ste: the entry
 *
 * Once the STEs are written the streams have changed hands, whatever the
 * sync says: an error there (a wedged SMMU, or a command another CPU lost)
 * is logged, and the queue invalidates everything once it works again, as
 * upstream's arm_smmu_install_ste_for_dev() does not fail either.
 *
 * Context: process context; takes ste_lock.
 * Return: 0.
 */
int smmuv3_install_ste(struct smmuv3_device *smmu, const u32 *sids,
		       unsigned int n, const u64 *ste)
{
	u64 cmd[CMD_DWORDS];
	unsigned int i;
	int ret;

	mutex_lock(&smmu->ste_lock);
	for (i = 0; i < n; i++) {
		smmuv3_write_ste(smmu, sids[i], ste);
		smmuv3_cmd_cfgi_ste(cmd, sids[i]);
		smmuv3_cmdq_ops.submit(smmu, cmd, 1);
	}
	ret = smmuv3_cmdq_ops.sync(smmu);
	mutex_unlock(&smmu->ste_lock);
	if (ret)
		dev_err_ratelimited(smmu->dev,
				    "CFGI_STE of %u streams not synced: %d\n",
				    n, ret);
	return 0;
}
