// SPDX-License-Identifier: GPL-2.0-only
/*
 * The stream table: one STE per stream ID, linear when the SMMU has few
 * streams or cannot walk two levels, two-level otherwise.  A two-level
 * table gets its level-2 tables as devices probe, so a 16-bit SIDSIZE costs
 * 2 KiB of level-1 descriptors, not 4 MiB of STEs.
 *
 * Streams no device of ours owns abort, as upstream's do by default
 * (disable_bypass): a device that probed before this driver loaded faults
 * instead of reaching memory unchecked.  drv.c names such devices.  The
 * exception, as upstream's: the streams of IORT's reserved memory ranges
 * bypass until a device takes them (rmr.c).
 */
#define pr_fmt(fmt) "flushpol_smmuv3: " fmt

#include <linux/bitops.h>
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
 * The bits of an STE the SMMU may read, as its V and CONFIG select them
 * (IHI 0070, 5.2), for the configurations this driver writes.  A bit the
 * SMMU reads must never be missing here, or it could change under a live
 * entry; a bit counted that the SMMU ignores only makes an update more
 * careful.  smmuv3_ste_s1() sets SHCFG, which stage 1 ignores: it is
 * counted, so that every bit a constructor sets is a used one.
 */
void smmuv3_ste_used(const u64 *ste, u64 *used)
{
	memset(used, 0, STE_DWORDS * sizeof(*used));
	used[0] = STE_0_V;
	if (!(ste[0] & STE_0_V))
		return;
	used[0] |= STE_0_CFG;
	switch (FIELD_GET(STE_0_CFG, ste[0])) {
	case STE_0_CFG_BYPASS:
		used[1] = STE_1_SHCFG;
		break;
	case STE_0_CFG_S1_TRANS:
		used[0] |= STE_0_S1FMT | STE_0_S1CTXPTR | STE_0_S1CDMAX;
		used[1] = STE_1_S1DSS | STE_1_S1CIR | STE_1_S1COR |
			  STE_1_S1CSH | STE_1_S1STALLD | STE_1_EATS |
			  STE_1_STRW | STE_1_SHCFG;
		used[2] = STE_2_S2VMID;
		break;
	}
}

/*
 * Which double words must change in bits the SMMU reads, one bit each.
 * @step gets the entry with every bit the current configuration ignores
 * already at its target value: writing it changes nothing the SMMU does.
 */
static u8 smmuv3_ste_diff(const u64 *cur, const u64 *target, u64 *step)
{
	u64 cur_used[STE_DWORDS], target_used[STE_DWORDS];
	u8 diff = 0;
	int i;

	smmuv3_ste_used(cur, cur_used);
	smmuv3_ste_used(target, target_used);
	for (i = 0; i < STE_DWORDS; i++) {
		/* A constructor set a bit the table above does not know. */
		WARN_ON_ONCE(target[i] & ~target_used[i]);
		step[i] = (cur[i] & cur_used[i]) | (target[i] & ~cur_used[i]);
		if ((step[i] & target_used[i]) != target[i])
			diff |= BIT(i);
	}
	return diff;
}

/* Store what differs in double words @first..@first + @n - 1, each whole. */
static bool smmuv3_ste_set(struct smmuv3_ste_writer *w, __le64 *entry,
			   const u64 *val, unsigned int first, unsigned int n)
{
	bool changed = false;
	unsigned int i;

	for (i = first; i < first + n; i++) {
		if (le64_to_cpu(entry[i]) == val[i])
			continue;
		w->ops->write(w, &entry[i], val[i]);
		changed = true;
	}
	return changed;
}

/*
 * One step: its stores, then the SMMU drops what it cached of the entry
 * before the next step.  Nothing stored, nothing to sync.  The first
 * failed sync's error is kept in @err; the steps after it still run.
 */
static void smmuv3_ste_step(struct smmuv3_ste_writer *w, __le64 *entry,
			    const u64 *val, unsigned int first, unsigned int n,
			    int *err)
{
	int ret;

	if (!smmuv3_ste_set(w, entry, val, first, n))
		return;
	ret = w->ops->sync(w);
	if (ret && !*err)
		*err = ret;
}

/**
 * smmuv3_write_ste() - change a live STE so the SMMU never sees one that
 *	never existed
 * @w: where the stores and syncs go, and the stream
 * @entry: the STE in the stream table
 * @target: what it becomes
 *
 * The SMMU reads an STE in 64-bit pieces, in any order, at any time, and
 * may keep what it read until a CFGI_STE for the stream and a CMD_SYNC
 * after it complete: so between two syncs it may use any mix of the
 * values each double word held.  A sync therefore separates every step,
 * and each step keeps every such mix V=0, the old STE or the new one in
 * the bits the SMMU reads:
 *
 * - If the bits the SMMU reads change in one double word only, the update
 *   is hitless: the bits the current configuration ignores are set first,
 *   then that double word in one store, then the bits the new one ignores
 *   are cleared.  Domain to domain, bypass or abort to a domain and back
 *   are all hitless: V stays 1 and the device's DMA never aborts.
 * - Otherwise V goes to 0, the other double words are written, and
 *   double word 0 is written last, V=1 with it.
 *
 * An unchanged entry still gets one CFGI_STE + CMD_SYNC: an earlier update
 * whose sync failed may have left the SMMU holding what came before.
 *
 * A sync that fails does not stop the update, as upstream's writer does
 * not stop: every step is stored and synced, so the entry always ends as
 * @target.  Until a later sync completes, the SMMU may then hold any mix
 * of what the entry held; the queue counts the failed sync as a loss, and
 * the next sync that completes begins with a CFGI_ALL, completed, which
 * makes it drop them.
 *
 * Context: under smmu->ste_lock.
 * Return: 0, or the error of the first sync that failed.
 */
int smmuv3_write_ste(struct smmuv3_ste_writer *w, __le64 *entry,
		     const u64 *target)
{
	u64 cur[STE_DWORDS], step[STE_DWORDS];
	unsigned int crit;
	int i, err = 0;
	u8 diff;

	for (i = 0; i < STE_DWORDS; i++)
		cur[i] = le64_to_cpu(entry[i]);
	diff = smmuv3_ste_diff(cur, target, step);
	/* What the entry points at (a CD) before the entry. */
	dma_wmb();

	if (!diff) {
		smmuv3_ste_set(w, entry, target, 0, STE_DWORDS);
		return w->ops->sync(w);
	}
	if (hweight8(diff) == 1) {
		crit = __ffs(diff);
		/* That double word is written whole in the next step. */
		step[crit] = cur[crit];
		smmuv3_ste_step(w, entry, step, 0, STE_DWORDS, &err);
		smmuv3_ste_step(w, entry, target, crit, 1, &err);
		smmuv3_ste_step(w, entry, target, 0, STE_DWORDS, &err);
		return err;
	}
	step[0] = 0;
	smmuv3_ste_step(w, entry, step, 0, 1, &err);
	smmuv3_ste_step(w, entry, target, 1, STE_DWORDS - 1, &err);
	smmuv3_ste_step(w, entry, target, 0, 1, &err);
	return err;
}

static void smmuv3_ste_store(struct smmuv3_ste_writer *w, __le64 *dst,
			     u64 val)
{
	WRITE_ONCE(*dst, cpu_to_le64(val));
}

/* CFGI_STE (Leaf=0: a cached level-1 descriptor goes too), then a sync. */
static int smmuv3_ste_sync(struct smmuv3_ste_writer *w)
{
	u64 cmd[CMD_DWORDS];

	smmuv3_cmd_cfgi_ste(cmd, w->sid);
	smmuv3_cmdq_ops.submit(w->smmu, cmd, 1);
	return smmuv3_cmdq_ops.sync(w->smmu);
}

static const struct smmuv3_ste_writer_ops smmuv3_ste_queue_ops = {
	.write = smmuv3_ste_store,
	.sync = smmuv3_ste_sync,
};

/**
 * smmuv3_install_ste() - give streams a new STE and make the SMMU see it
 * @smmu: the SMMU
 * @sids: the streams, each prepared with smmuv3_strtab_prepare()
 * @n: how many
 * @ste: the entry
 *
 * Each stream's entry changes as smmuv3_write_ste() says, with a CFGI_STE
 * and a CMD_SYNC through the queue after each step, and every stream's
 * entry becomes @ste, whatever the syncs return.  As upstream's attach,
 * this cannot fail once it has begun: had it stopped at a failed sync,
 * the streams before would use the new domain and the ones after the old
 * one, and the IOMMU core, told the attach failed, could free the new
 * domain under the first.  A failed sync is logged, and the queue counts
 * it as a loss: the next sync that completes, a later STE update's or
 * the old domain's final flush, first makes the SMMU drop every cached
 * STE and CD (CFGI_ALL, completed), then invalidates the TLB.
 *
 * Context: process context; takes ste_lock.
 */
void smmuv3_install_ste(struct smmuv3_device *smmu, const u32 *sids,
			unsigned int n, const u64 *ste)
{
	struct smmuv3_ste_writer w = {
		.ops = &smmuv3_ste_queue_ops,
		.smmu = smmu,
	};
	unsigned int i;
	int ret;

	mutex_lock(&smmu->ste_lock);
	for (i = 0; i < n; i++) {
		w.sid = sids[i];
		ret = smmuv3_write_ste(&w, smmuv3_ste_ptr(smmu, sids[i]), ste);
		if (ret)
			dev_err_ratelimited(smmu->dev,
					    "stream %#x: STE written, but the SMMU may use what it cached until a sync completes: %d\n",
					    sids[i], ret);
	}
	mutex_unlock(&smmu->ste_lock);
}
