// SPDX-License-Identifier: GPL-2.0-only
/*
 * The TLB model behind the KUnit suites: see fp_model.h.
 *
 * The page table is read the way the SMMU reads it: from the TTBR io-pgtable
 * programmed, descriptor by descriptor, in memory.  The model never
 * dereferences a cached table pointer without first checking it against the
 * live descriptor, so a stale walk entry is counted, not followed into freed
 * memory.
 */
#include <linux/bits.h>
#include <linux/slab.h>

#include "fp_model.h"

#define FPM_DESC_VALID		BIT_ULL(0)
#define FPM_DESC_TABLE		BIT_ULL(1)	/* table (or page, at level 3) */
#define FPM_DESC_ADDR(pg_shift)	GENMASK_ULL(47, pg_shift)

struct fpm_walk {
	bool valid;
	unsigned int level;	/* where the leaf is */
	u64 out;		/* output PA of the leaf >> pg_shift */
	u64 table[FPM_LEVELS];	/* table PA >> pg_shift held at each level */
};

static unsigned int fpm_shift(const struct fpm_ctx *mc, unsigned int lvl)
{
	return mc->pg_shift + (FPM_LEVELS - 1 - lvl) * mc->bits;
}

static unsigned long fpm_key(const struct fpm_ctx *mc, unsigned int lvl,
			     u64 iova)
{
	return iova >> fpm_shift(mc, lvl);
}

static unsigned int fpm_index(const struct fpm_ctx *mc, unsigned int lvl,
			      u64 iova)
{
	unsigned int bits = mc->bits;

	if (lvl == mc->start_level)
		bits = mc->cfg->ias - fpm_shift(mc, lvl);
	return (iova >> fpm_shift(mc, lvl)) & GENMASK(bits - 1, 0);
}

/*
 * The first table's address.  It is aligned to its own size, which is
 * smaller than a granule when the first level resolves few bits (64K
 * granule, 48-bit IAS: 64 entries), so the TTBR holds address bits below
 * the granule's.
 */
static u64 fpm_ttbr(const struct fpm_ctx *mc)
{
	unsigned int lvl = mc->start_level;
	u64 ttbr = mc->stage2 ? mc->cfg->arm_lpae_s2_cfg.vttbr :
				mc->cfg->arm_lpae_s1_cfg.ttbr;

	return ttbr & GENMASK_ULL(47, mc->cfg->ias - fpm_shift(mc, lvl) + 3);
}

/* The translation io-pgtable holds right now for @iova. */
static void fpm_walk_live(const struct fpm_ctx *mc, u64 iova,
			  struct fpm_walk *w)
{
	u64 table = fpm_ttbr(mc);
	unsigned int lvl;

	memset(w, 0, sizeof(*w));
	for (lvl = mc->start_level; lvl < FPM_LEVELS; lvl++) {
		u64 *t = phys_to_virt(table);
		u64 d = READ_ONCE(t[fpm_index(mc, lvl, iova)]);

		if (!(d & FPM_DESC_VALID))
			return;
		if (lvl < FPM_LEVELS - 1 && (d & FPM_DESC_TABLE)) {
			table = d & FPM_DESC_ADDR(mc->pg_shift);
			w->table[lvl] = table >> mc->pg_shift;
			continue;
		}
		/* A block above level 3, a page at level 3. */
		if (lvl == FPM_LEVELS - 1 && !(d & FPM_DESC_TABLE))
			return;
		w->valid = true;
		w->level = lvl;
		w->out = (d & FPM_DESC_ADDR(mc->pg_shift)) >> mc->pg_shift;
		return;
	}
}

static bool fpm_leaf_live(const struct fpm_ctx *mc, unsigned int lvl,
			  unsigned long key, u64 out)
{
	struct fpm_walk w;

	fpm_walk_live(mc, (u64)key << fpm_shift(mc, lvl), &w);
	return w.valid && w.level == lvl && w.out == out;
}

static bool fpm_walk_entry_live(const struct fpm_ctx *mc, unsigned int lvl,
				unsigned long key, u64 table)
{
	struct fpm_walk w;

	fpm_walk_live(mc, (u64)key << fpm_shift(mc, lvl), &w);
	return w.table[lvl] == table;
}

int fpm_smmu_init(struct fpm_smmu *smmu)
{
	memset(smmu, 0, sizeof(*smmu));
	spin_lock_init(&smmu->lock);
	INIT_LIST_HEAD(&smmu->ctxs);
	smmu->max_pending = 1024;
	smmu->pending = kcalloc(smmu->max_pending, sizeof(*smmu->pending),
				GFP_KERNEL);
	return smmu->pending ? 0 : -ENOMEM;
}

void fpm_smmu_destroy(struct fpm_smmu *smmu)
{
	kfree(smmu->pending);
}

void fpm_ctx_init(struct fpm_ctx *mc, struct fpm_smmu *smmu, u16 asid)
{
	int lvl;

	memset(mc, 0, sizeof(*mc));
	mc->smmu = smmu;
	mc->asid = asid;
	for (lvl = 0; lvl < FPM_LEVELS; lvl++) {
		xa_init(&mc->leaf[lvl]);
		xa_init(&mc->walk[lvl]);
	}
	spin_lock(&smmu->lock);
	list_add_tail(&mc->node, &smmu->ctxs);
	spin_unlock(&smmu->lock);
}

/* Tag @mc with a VMID; a stage-2 context has no ASID.  Before attach. */
void fpm_ctx_set_vmid(struct fpm_ctx *mc, u16 vmid, bool stage2)
{
	spin_lock(&mc->smmu->lock);
	mc->vmid = vmid;
	mc->stage2 = stage2;
	spin_unlock(&mc->smmu->lock);
}

/* Start translating through @cfg, once io-pgtable has filled it in. */
int fpm_ctx_attach(struct fpm_ctx *mc, const struct io_pgtable_cfg *cfg)
{
	unsigned int granule = __ffs(cfg->pgsize_bitmap);

	if (granule != 12 && granule != 14 && granule != 16)
		return -EINVAL;
	mc->cfg = cfg;
	mc->pg_shift = granule;
	mc->bits = granule - 3;
	mc->start_level = FPM_LEVELS -
		DIV_ROUND_UP(cfg->ias - mc->pg_shift, mc->bits);
	/*
	 * Stage 2 may start a level lower with up to 16 concatenated tables
	 * (VTCR.SL0), as io-pgtable-arm does when a level-0 table would have
	 * 16 entries or fewer; fpm_index() then takes the extra index bits.
	 */
	if (mc->stage2 && mc->start_level == 0 &&
	    cfg->ias - fpm_shift(mc, 0) <= 4)
		mc->start_level = 1;
	return 0;
}

void fpm_ctx_destroy(struct fpm_ctx *mc)
{
	int lvl;

	spin_lock(&mc->smmu->lock);
	list_del(&mc->node);
	spin_unlock(&mc->smmu->lock);
	for (lvl = 0; lvl < FPM_LEVELS; lvl++) {
		xa_destroy(&mc->leaf[lvl]);
		xa_destroy(&mc->walk[lvl]);
	}
}

/* Drop one cached entry, counting it if the page table still backs it. */
static void fpm_drop(struct fpm_ctx *mc, struct xarray *xa, unsigned int lvl,
		     unsigned long key, bool is_leaf)
{
	void *e = xa_erase(xa, key);
	u64 v;

	if (!e)
		return;
	v = xa_to_value(e);
	if (is_leaf ? fpm_leaf_live(mc, lvl, key, v) :
		      fpm_walk_entry_live(mc, lvl, key, v))
		mc->n.collateral++;
}

static void fpm_drop_range(struct fpm_ctx *mc, u64 start, u64 end, bool leaf)
{
	unsigned long key;
	unsigned int lvl;
	void *e;

	for (lvl = mc->start_level; lvl < FPM_LEVELS; lvl++) {
		unsigned long first = fpm_key(mc, lvl, start);
		unsigned long last = fpm_key(mc, lvl, end - 1);

		xa_for_each_range(&mc->leaf[lvl], key, e, first, last)
			fpm_drop(mc, &mc->leaf[lvl], lvl, key, true);
		if (leaf)
			continue;
		xa_for_each_range(&mc->walk[lvl], key, e, first, last)
			fpm_drop(mc, &mc->walk[lvl], lvl, key, false);
	}
}

static void fpm_drop_all(struct fpm_ctx *mc)
{
	fpm_drop_range(mc, 0, 1ULL << mc->cfg->ias, false);
}

/* Which contexts a command reaches: see enum fpm_cmd_kind. */
static bool fpm_cmd_hits(const struct fpm_ctx *mc, const struct fpm_cmd *cmd)
{
	switch (cmd->kind) {
	case FPM_CMD_ALL:
		return true;
	case FPM_CMD_VMID:
		return mc->vmid == cmd->vmid;
	case FPM_CMD_IPA:
		return mc->stage2 && mc->vmid == cmd->vmid;
	default:
		return !mc->stage2 && mc->vmid == cmd->vmid &&
		       mc->asid == cmd->asid;
	}
}

static void fpm_apply(struct fpm_smmu *smmu, const struct fpm_cmd *cmd)
{
	struct fpm_ctx *mc;

	list_for_each_entry(mc, &smmu->ctxs, node) {
		if (!mc->cfg || !fpm_cmd_hits(mc, cmd))
			continue;
		switch (cmd->kind) {
		case FPM_CMD_VA:
		case FPM_CMD_IPA:
			fpm_drop_range(mc, cmd->addr, cmd->addr + 1, cmd->leaf);
			break;
		case FPM_CMD_RANGE:
			fpm_drop_range(mc, cmd->addr, cmd->addr + cmd->size,
				       cmd->leaf);
			break;
		case FPM_CMD_ASID:
		case FPM_CMD_VMID:
		case FPM_CMD_ALL:
			fpm_drop_all(mc);
			break;
		}
	}
}

/*
 * Queue a command.  Until a sync completes it may or may not have taken
 * effect, so the model applies it only then: a missing sync is a miss.
 */
void fpm_issue(struct fpm_smmu *smmu, const struct fpm_cmd *cmd)
{
	spin_lock(&smmu->lock);
	if (smmu->nr_pending == smmu->max_pending) {
		/* Queue full: the hardware consumes the oldest half. */
		unsigned int i, half = smmu->max_pending / 2;

		for (i = 0; i < half; i++)
			fpm_apply(smmu, &smmu->pending[i]);
		memmove(smmu->pending, smmu->pending + half,
			(smmu->nr_pending - half) * sizeof(*smmu->pending));
		smmu->nr_pending -= half;
	}
	smmu->pending[smmu->nr_pending++] = *cmd;
	smmu->cmds++;
	spin_unlock(&smmu->lock);
}

/* Complete every queued command; a wedged SMMU completes none. */
int fpm_sync(struct fpm_smmu *smmu)
{
	unsigned int i;

	spin_lock(&smmu->lock);
	if (smmu->sync_stuck) {
		spin_unlock(&smmu->lock);
		return -ETIMEDOUT;
	}
	for (i = 0; i < smmu->nr_pending; i++)
		fpm_apply(smmu, &smmu->pending[i]);
	smmu->nr_pending = 0;
	smmu->syncs++;
	spin_unlock(&smmu->lock);
	return 0;
}

/*
 * Complete the queued commands of @queue only; the others stay queued, in
 * order.  A wedged SMMU completes none.
 */
int fpm_sync_queue(struct fpm_smmu *smmu, u16 queue)
{
	unsigned int i, kept = 0;

	spin_lock(&smmu->lock);
	if (smmu->sync_stuck) {
		spin_unlock(&smmu->lock);
		return -ETIMEDOUT;
	}
	for (i = 0; i < smmu->nr_pending; i++) {
		if (smmu->pending[i].queue == queue)
			fpm_apply(smmu, &smmu->pending[i]);
		else
			smmu->pending[kept++] = smmu->pending[i];
	}
	smmu->nr_pending = kept;
	smmu->syncs++;
	spin_unlock(&smmu->lock);
	return 0;
}

static void fpm_fill(struct fpm_ctx *mc, struct xarray *xa, unsigned int lvl,
		     u64 iova, u64 v)
{
	if (!xa_is_err(xa_store(xa, fpm_key(mc, lvl, iova), xa_mk_value(v),
				GFP_ATOMIC)))
		mc->n.fills++;
}

static bool fpm_access_locked(struct fpm_ctx *mc, u64 iova)
{
	struct fpm_walk live;
	unsigned int lvl;
	void *e;

	fpm_walk_live(mc, iova, &live);

	for (lvl = mc->start_level; lvl < FPM_LEVELS; lvl++) {
		e = xa_load(&mc->leaf[lvl], fpm_key(mc, lvl, iova));
		if (!e)
			continue;
		if (!live.valid || live.level != lvl ||
		    live.out != xa_to_value(e)) {
			mc->n.stale_hits++;
			return false;
		}
		return true;
	}

	/* TLB miss: walk, preferring cached table descriptors. */
	for (lvl = mc->start_level; lvl < FPM_LEVELS; lvl++) {
		e = xa_load(&mc->walk[lvl], fpm_key(mc, lvl, iova));
		if (e && xa_to_value(e) != live.table[lvl]) {
			mc->n.stale_hits++;
			return false;
		}
		if (live.table[lvl]) {
			if (!e)
				fpm_fill(mc, &mc->walk[lvl], lvl, iova,
					 live.table[lvl]);
			continue;
		}
		if (!live.valid) {
			mc->n.faults++;
			return false;
		}
		fpm_fill(mc, &mc->leaf[lvl], lvl, iova, live.out);
		return true;
	}
	mc->n.faults++;
	return false;
}

/**
 * fpm_access() - one device access through the model
 * @mc: the context
 * @iova: the address the device uses
 *
 * Return: true if it translated through an entry that matches the page
 * table; false on a fault or a stale hit (both counted).
 */
bool fpm_access(struct fpm_ctx *mc, unsigned long iova)
{
	bool ok;

	spin_lock(&mc->smmu->lock);
	ok = fpm_access_locked(mc, iova);
	spin_unlock(&mc->smmu->lock);
	return ok;
}

/* Touch every granule of [@iova, @iova + @size), warming the TLB. */
void fpm_access_range(struct fpm_ctx *mc, unsigned long iova, size_t size)
{
	unsigned long end = iova + size;

	for (; iova < end; iova += 1UL << mc->pg_shift)
		fpm_access(mc, iova);
}

static unsigned long fpm_scan(struct fpm_ctx *mc, bool count_stale)
{
	unsigned long key, n = 0;
	unsigned int lvl;
	void *e;

	spin_lock(&mc->smmu->lock);
	for (lvl = mc->start_level; lvl < FPM_LEVELS; lvl++) {
		xa_for_each(&mc->leaf[lvl], key, e)
			n += !count_stale ||
			     !fpm_leaf_live(mc, lvl, key, xa_to_value(e));
		xa_for_each(&mc->walk[lvl], key, e)
			n += !count_stale ||
			     !fpm_walk_entry_live(mc, lvl, key, xa_to_value(e));
	}
	spin_unlock(&mc->smmu->lock);
	return n;
}

/**
 * fpm_stale_entries() - entries the page table no longer backs
 * @mc: the context
 *
 * Return: leaf entries whose translation changed or went away, plus walk
 * entries whose table is no longer linked where they say.
 */
unsigned long fpm_stale_entries(struct fpm_ctx *mc)
{
	return fpm_scan(mc, true);
}

/* Return: every entry the model holds for @mc. */
unsigned long fpm_cached_entries(struct fpm_ctx *mc)
{
	return fpm_scan(mc, false);
}

/* Return: leaf entries cached for addresses in [@iova, @iova + @size). */
unsigned long fpm_cached_leaves(struct fpm_ctx *mc, unsigned long iova,
				size_t size)
{
	unsigned long key, n = 0;
	unsigned int lvl;
	void *e;

	spin_lock(&mc->smmu->lock);
	for (lvl = mc->start_level; lvl < FPM_LEVELS; lvl++)
		xa_for_each_range(&mc->leaf[lvl], key, e, fpm_key(mc, lvl, iova),
				  fpm_key(mc, lvl, iova + size - 1))
			n++;
	spin_unlock(&mc->smmu->lock);
	return n;
}

/*
 * io-pgtable is freeing @table: from now on its memory is anything, so a
 * walk entry still pointing at it would let the device walk garbage.
 */
void fpm_table_freed(struct fpm_ctx *mc, void *table, size_t size)
{
	u64 pa = virt_to_phys(table) >> mc->pg_shift;
	unsigned long key;
	unsigned int lvl;
	void *e;

	spin_lock(&mc->smmu->lock);
	for (lvl = mc->start_level; lvl < FPM_LEVELS; lvl++)
		xa_for_each(&mc->walk[lvl], key, e)
			if (xa_to_value(e) == pa)
				mc->n.freed_refs++;
	spin_unlock(&mc->smmu->lock);
}

/**
 * fpm_stale_in() - stale entries for addresses in [@iova, @iova + @size)
 * @mc: the context
 * @iova: start
 * @size: length
 *
 * For threads that unmap concurrently in one context, each in an IOVA
 * region of its own: another thread's range may legitimately hold stale
 * entries until that thread's sync, so each checks only its own.  Entries
 * at levels whose span reaches past the range are counted too: align the
 * regions so that those spans are the caller's as well.
 *
 * Return: as fpm_stale_entries(), for the entries indexed in the range.
 */
unsigned long fpm_stale_in(struct fpm_ctx *mc, unsigned long iova, size_t size)
{
	unsigned long key, n = 0;
	unsigned int lvl;
	void *e;

	spin_lock(&mc->smmu->lock);
	for (lvl = mc->start_level; lvl < FPM_LEVELS; lvl++) {
		unsigned long first = fpm_key(mc, lvl, iova);
		unsigned long last = fpm_key(mc, lvl, iova + size - 1);

		xa_for_each_range(&mc->leaf[lvl], key, e, first, last)
			n += !fpm_leaf_live(mc, lvl, key, xa_to_value(e));
		xa_for_each_range(&mc->walk[lvl], key, e, first, last)
			n += !fpm_walk_entry_live(mc, lvl, key, xa_to_value(e));
	}
	spin_unlock(&mc->smmu->lock);
	return n;
}
