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

/*
 * A cached entry of a destroyed context.  The SMMU tags entries by (VMID,
 * ASID), not by the software object that filled them: they stay until a
 * command drops them, and a new context with the same tags inherits them.
 */
struct fpm_ghost {
	struct list_head node;
	u16 vmid, asid;
	bool stage2, leaf;
	unsigned int lvl, shift;
	unsigned long key;
	u64 val, at;
};

int fpm_smmu_init(struct fpm_smmu *smmu)
{
	memset(smmu, 0, sizeof(*smmu));
	spin_lock_init(&smmu->lock);
	INIT_LIST_HEAD(&smmu->ctxs);
	INIT_LIST_HEAD(&smmu->ghosts);
	smmu->max_pending = 1024;
	smmu->pending = kcalloc(smmu->max_pending, sizeof(*smmu->pending),
				GFP_KERNEL);
	return smmu->pending ? 0 : -ENOMEM;
}

void fpm_smmu_destroy(struct fpm_smmu *smmu)
{
	struct fpm_ghost *g, *tmp;

	list_for_each_entry_safe(g, tmp, &smmu->ghosts, node) {
		list_del(&g->node);
		kfree(g);
	}
	kfree(smmu->pending);
}

/* Return: entries the SMMU still holds for contexts that were destroyed. */
unsigned long fpm_ghost_entries(struct fpm_smmu *smmu)
{
	struct fpm_ghost *g;
	unsigned long n = 0;

	spin_lock(&smmu->lock);
	list_for_each_entry(g, &smmu->ghosts, node)
		n++;
	spin_unlock(&smmu->lock);
	return n;
}

void fpm_ctx_init(struct fpm_ctx *mc, struct fpm_smmu *smmu, u16 asid)
{
	int lvl;

	memset(mc, 0, sizeof(*mc));
	mc->smmu = smmu;
	mc->asid = asid;
	mc->busy = true;
	for (lvl = 0; lvl < FPM_LEVELS; lvl++) {
		xa_init(&mc->leaf[lvl]);
		xa_init(&mc->walk[lvl]);
		xa_init(&mc->leaf_at[lvl]);
		xa_init(&mc->walk_at[lvl]);
	}
	xa_init(&mc->touched);
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

static bool fpm_same_tags(const struct fpm_ctx *mc, const struct fpm_ghost *g)
{
	return g->vmid == mc->vmid && g->stage2 == mc->stage2 &&
	       (mc->stage2 || g->asid == mc->asid);
}

/* A new context with the tags of a destroyed one sees what it left. */
static void fpm_adopt_ghosts(struct fpm_ctx *mc)
{
	struct fpm_ghost *g, *tmp;

	list_for_each_entry_safe(g, tmp, &mc->smmu->ghosts, node) {
		if (!fpm_same_tags(mc, g))
			continue;
		if (g->lvl >= mc->start_level && g->shift == fpm_shift(mc, g->lvl)) {
			xa_store(g->leaf ? &mc->leaf[g->lvl] : &mc->walk[g->lvl],
				 g->key, xa_mk_value(g->val), GFP_ATOMIC);
			xa_store(g->leaf ? &mc->leaf_at[g->lvl] :
					   &mc->walk_at[g->lvl],
				 g->key, xa_mk_value(g->at), GFP_ATOMIC);
		}
		list_del(&g->node);
		kfree(g);
	}
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
	spin_lock(&mc->smmu->lock);
	fpm_adopt_ghosts(mc);
	spin_unlock(&mc->smmu->lock);
	return 0;
}

static void fpm_bury(struct fpm_ctx *mc, unsigned int lvl, bool leaf)
{
	struct xarray *xa = leaf ? &mc->leaf[lvl] : &mc->walk[lvl];
	struct xarray *at = leaf ? &mc->leaf_at[lvl] : &mc->walk_at[lvl];
	struct fpm_ghost *g;
	unsigned long key;
	void *e;

	xa_for_each(xa, key, e) {
		g = kzalloc(sizeof(*g), GFP_ATOMIC);
		if (!g)
			continue;
		*g = (struct fpm_ghost) {
			.vmid = mc->vmid, .asid = mc->asid,
			.stage2 = mc->stage2, .leaf = leaf, .lvl = lvl,
			.shift = fpm_shift(mc, lvl), .key = key,
			.val = xa_to_value(e),
			.at = xa_to_value(xa_load(at, key)),
		};
		list_add_tail(&g->node, &mc->smmu->ghosts);
	}
}

/*
 * The context goes; what it cached stays in the SMMU, under its tags, until
 * a command drops it: only an invalidation removes TLB entries.
 */
void fpm_ctx_destroy(struct fpm_ctx *mc)
{
	int lvl;

	spin_lock(&mc->smmu->lock);
	list_del(&mc->node);
	if (mc->cfg && !mc->smmu->legacy)
		for (lvl = mc->start_level; lvl < FPM_LEVELS; lvl++) {
			fpm_bury(mc, lvl, true);
			fpm_bury(mc, lvl, false);
		}
	spin_unlock(&mc->smmu->lock);
	for (lvl = 0; lvl < FPM_LEVELS; lvl++) {
		xa_destroy(&mc->leaf[lvl]);
		xa_destroy(&mc->walk[lvl]);
		xa_destroy(&mc->leaf_at[lvl]);
		xa_destroy(&mc->walk_at[lvl]);
	}
	xa_destroy(&mc->touched);
}

/*
 * Drop one cached entry, counting it if the page table still backs it.
 * One filled after the command was issued may outlive it: the SMMU may
 * have performed the command before the fill.
 */
static void fpm_drop(struct fpm_ctx *mc, unsigned int lvl, unsigned long key,
		     bool is_leaf, u64 issued)
{
	struct xarray *xa = is_leaf ? &mc->leaf[lvl] : &mc->walk[lvl];
	struct xarray *at = is_leaf ? &mc->leaf_at[lvl] : &mc->walk_at[lvl];
	void *t = xa_load(at, key);
	void *e;
	u64 v;

	if (t && xa_to_value(t) >= issued && !mc->smmu->legacy)
		return;
	xa_erase(at, key);
	e = xa_erase(xa, key);
	if (!e)
		return;
	v = xa_to_value(e);
	if (is_leaf ? fpm_leaf_live(mc, lvl, key, v) :
		      fpm_walk_entry_live(mc, lvl, key, v))
		mc->n.collateral++;
}

static void fpm_drop_range(struct fpm_ctx *mc, u64 start, u64 end,
			   const struct fpm_cmd *cmd)
{
	unsigned long key;
	unsigned int lvl;
	void *e;

	for (lvl = mc->start_level; lvl < FPM_LEVELS; lvl++) {
		unsigned long first = fpm_key(mc, lvl, start);
		unsigned long last = fpm_key(mc, lvl, end - 1);

		if (!cmd->ttl || cmd->ttl == lvl || mc->smmu->legacy)
			xa_for_each_range(&mc->leaf[lvl], key, e, first, last)
				fpm_drop(mc, lvl, key, true, cmd->issued);
		if (cmd->leaf)
			continue;
		xa_for_each_range(&mc->walk[lvl], key, e, first, last)
			fpm_drop(mc, lvl, key, false, cmd->issued);
	}
}

/* Which tags a command reaches: see enum fpm_cmd_kind. */
static bool fpm_tags_hit(u16 vmid, u16 asid, bool stage2,
			 const struct fpm_cmd *cmd)
{
	switch (cmd->kind) {
	case FPM_CMD_ALL:
		return true;
	case FPM_CMD_VMID:
		return vmid == cmd->vmid;
	case FPM_CMD_NH_ALL:
		return !stage2 && vmid == cmd->vmid;
	case FPM_CMD_IPA:
		return stage2 && vmid == cmd->vmid;
	default:
		return !stage2 && vmid == cmd->vmid && asid == cmd->asid;
	}
}

static bool fpm_cmd_hits(const struct fpm_ctx *mc, const struct fpm_cmd *cmd)
{
	return fpm_tags_hit(mc->vmid, mc->asid, mc->stage2, cmd);
}

/* The addresses a command covers: [*start, *end). */
static void fpm_cmd_span(const struct fpm_cmd *cmd, u64 *start, u64 *end)
{
	switch (cmd->kind) {
	case FPM_CMD_VA:
	case FPM_CMD_IPA:
		*start = cmd->addr;
		*end = cmd->addr + 1;
		break;
	case FPM_CMD_RANGE:
		*start = cmd->addr;
		*end = cmd->addr + cmd->size;
		break;
	default:
		*start = 0;
		*end = U64_MAX;
		break;
	}
}

static void fpm_apply_ghosts(struct fpm_smmu *smmu, const struct fpm_cmd *cmd)
{
	struct fpm_ghost *g, *tmp;
	u64 start, end;

	fpm_cmd_span(cmd, &start, &end);
	list_for_each_entry_safe(g, tmp, &smmu->ghosts, node) {
		if (!fpm_tags_hit(g->vmid, g->asid, g->stage2, cmd) ||
		    g->at >= cmd->issued || (cmd->leaf && !g->leaf) ||
		    (g->leaf && cmd->ttl && cmd->ttl != g->lvl) ||
		    g->key < start >> g->shift || g->key > (end - 1) >> g->shift)
			continue;
		list_del(&g->node);
		kfree(g);
	}
}

static void fpm_apply(struct fpm_smmu *smmu, const struct fpm_cmd *cmd)
{
	struct fpm_ctx *mc;
	u64 start, end;

	fpm_cmd_span(cmd, &start, &end);
	list_for_each_entry(mc, &smmu->ctxs, node) {
		if (!mc->cfg || !fpm_cmd_hits(mc, cmd))
			continue;
		fpm_drop_range(mc, start,
			       min_t(u64, end, 1ULL << mc->cfg->ias), cmd);
	}
	if (!list_empty(&smmu->ghosts))
		fpm_apply_ghosts(smmu, cmd);
}

static void fpm_fill(struct fpm_ctx *mc, bool leaf, unsigned int lvl,
		     u64 iova, u64 v)
{
	unsigned long key = fpm_key(mc, lvl, iova);
	struct xarray *xa = leaf ? &mc->leaf[lvl] : &mc->walk[lvl];
	struct xarray *at = leaf ? &mc->leaf_at[lvl] : &mc->walk_at[lvl];

	if (xa_is_err(xa_store(xa, key, xa_mk_value(v), GFP_ATOMIC)))
		return;
	xa_store(at, key, xa_mk_value(++mc->smmu->clock), GFP_ATOMIC);
	mc->n.fills++;
}

/*
 * The busy device re-walks one page it touched before.  It fills only from
 * live descriptors, and not at all where it would have to follow a cached
 * entry that no longer matches (that one is the driver's to drop, and an
 * access through it is counted by fpm_access()).  A page gone from the
 * page table leaves the working set.
 */
static bool fpm_busy_fill(struct fpm_ctx *mc, u64 iova)
{
	struct fpm_walk live;
	unsigned int lvl;
	void *e;

	fpm_walk_live(mc, iova, &live);
	if (!live.valid) {
		xa_erase(&mc->touched, iova >> mc->pg_shift);
		return false;
	}
	for (lvl = mc->start_level; lvl < FPM_LEVELS; lvl++)
		if (xa_load(&mc->leaf[lvl], fpm_key(mc, lvl, iova)))
			return true;
	for (lvl = mc->start_level; lvl < live.level; lvl++) {
		e = xa_load(&mc->walk[lvl], fpm_key(mc, lvl, iova));
		if (e && xa_to_value(e) != live.table[lvl])
			return true;
		if (!e)
			fpm_fill(mc, false, lvl, iova, live.table[lvl]);
	}
	fpm_fill(mc, true, live.level, iova, live.out);
	return true;
}

/*
 * Re-walk the working set in [start, end), one page per @stride pages, at
 * most @max live ones (0: no limit).
 *
 * Return: the page index after the last one visited, or 0 at the end.
 */
static unsigned long fpm_busy_locked(struct fpm_ctx *mc, u64 start, u64 end,
				     unsigned long stride, unsigned int max)
{
	unsigned long idx, last, next;
	unsigned int n = 0;

	if (!mc->busy || !mc->cfg || start >= end || mc->smmu->legacy)
		return 0;
	end = min_t(u64, end, 1ULL << mc->cfg->ias);
	idx = start >> mc->pg_shift;
	last = (end - 1) >> mc->pg_shift;
	while (xa_find(&mc->touched, &idx, last, XA_PRESENT)) {
		bool live = fpm_busy_fill(mc, (u64)idx << mc->pg_shift);

		next = stride > 1 ? ALIGN(idx + 1, stride) : idx + 1;
		if (next <= idx || next > last)
			break;
		idx = next;
		if (live && max && ++n == max)
			return idx;
	}
	return 0;
}

/* A descriptor line: the neighbours a walker fetches along with a page. */
#define FPM_LINE_PAGES	8
#define FPM_BUSY_CTX_PAGES	32

/*
 * Right after a command is issued, the device refills what it touched in
 * the command's reach, and its descriptor-line neighbours: such fills may
 * outlive the command.
 */
static void fpm_busy_after_issue(struct fpm_smmu *smmu,
				 const struct fpm_cmd *cmd)
{
	struct fpm_ctx *mc;
	u64 start, end, line, from;

	fpm_cmd_span(cmd, &start, &end);
	list_for_each_entry(mc, &smmu->ctxs, node) {
		if (!mc->cfg || !mc->busy || !fpm_cmd_hits(mc, cmd))
			continue;
		line = (u64)FPM_LINE_PAGES << mc->pg_shift;
		/*
		 * A whole context: the next FPM_BUSY_CTX_PAGES pages of the
		 * working set, round robin, keeps it affordable (each such
		 * command would otherwise refill all it drops).
		 */
		from = (u64)mc->busy_next << mc->pg_shift;
		if (end == U64_MAX)
			mc->busy_next = fpm_busy_locked(mc, from, U64_MAX, 1,
							FPM_BUSY_CTX_PAGES);
		else
			fpm_busy_locked(mc, start > line ?
					ALIGN_DOWN(start - line, line) : 0,
					ALIGN(end, line) + line, 1, 0);
	}
}

/**
 * fpm_busy() - the device re-walks pages it touched in a range
 * @mc: the context
 * @iova: start
 * @size: length
 * @stride: one page per @stride pages (1: every page)
 */
void fpm_busy(struct fpm_ctx *mc, unsigned long iova, size_t size,
	      unsigned long stride)
{
	spin_lock(&mc->smmu->lock);
	fpm_busy_locked(mc, iova, (u64)iova + size, stride, 0);
	spin_unlock(&mc->smmu->lock);
}

/* The device refills the walk cache: one touched page per last-level table. */
void fpm_busy_tables(struct fpm_ctx *mc)
{
	spin_lock(&mc->smmu->lock);
	if (mc->cfg)
		fpm_busy_locked(mc, 0, U64_MAX,
				1UL << (fpm_shift(mc, FPM_LEVELS - 2) -
					mc->pg_shift), 0);
	spin_unlock(&mc->smmu->lock);
}

/* The device stops using [@iova, @iova + @size): out of its working set. */
void fpm_forget(struct fpm_ctx *mc, unsigned long iova, size_t size)
{
	unsigned long key;
	void *e;

	spin_lock(&mc->smmu->lock);
	if (mc->cfg)
		xa_for_each_range(&mc->touched, key, e, iova >> mc->pg_shift,
				  (iova + size - 1) >> mc->pg_shift)
			xa_erase(&mc->touched, key);
	spin_unlock(&mc->smmu->lock);
}

/*
 * Queue a command.  Until a sync completes it may or may not have taken
 * effect, so the model applies it only then, and then only to entries
 * filled before it was issued: a missing sync is a miss, and so is a
 * refill between issue and sync.
 */
void fpm_issue(struct fpm_smmu *smmu, const struct fpm_cmd *cmd)
{
	struct fpm_cmd *c;

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
	c = &smmu->pending[smmu->nr_pending++];
	*c = *cmd;
	c->issued = ++smmu->clock;
	smmu->cmds++;
	fpm_busy_after_issue(smmu, c);
	spin_unlock(&smmu->lock);
}

/* Complete every queued command; a wedged SMMU completes none. */
int fpm_sync(struct fpm_smmu *smmu)
{
	return fpm_sync_queue_before(smmu, U16_MAX, U64_MAX);
}

/*
 * Complete the queued commands of @queue only; the others stay queued, in
 * order.  A wedged SMMU completes none.
 */
int fpm_sync_queue(struct fpm_smmu *smmu, u16 queue)
{
	return fpm_sync_queue_before(smmu, queue, U64_MAX);
}

/* Return: the model's clock; commands issued so far are stamped <= it. */
u64 fpm_now(struct fpm_smmu *smmu)
{
	u64 now;

	spin_lock(&smmu->lock);
	now = smmu->clock;
	spin_unlock(&smmu->lock);
	return now;
}

/**
 * fpm_sync_queue_before() - complete what a sync saw when it was issued
 * @smmu: the model
 * @queue: the queue whose commands it completes; U16_MAX: every queue
 * @before: only commands issued before this fpm_now() + 1
 *
 * A TLBSYNC completes the TLBIs written before it, not those written while
 * it is being polled: the fake snapshots fpm_now() at the sync's write.
 *
 * Return: 0, or -ETIMEDOUT if the SMMU is wedged.
 */
int fpm_sync_queue_before(struct fpm_smmu *smmu, u16 queue, u64 before)
{
	unsigned int i, kept = 0;

	spin_lock(&smmu->lock);
	if (smmu->sync_stuck) {
		spin_unlock(&smmu->lock);
		return -ETIMEDOUT;
	}
	for (i = 0; i < smmu->nr_pending; i++) {
		struct fpm_cmd *c = &smmu->pending[i];

		if ((queue == U16_MAX || c->queue == queue) &&
		    c->issued < before)
			fpm_apply(smmu, c);
		else
			smmu->pending[kept++] = *c;
	}
	smmu->nr_pending = kept;
	smmu->syncs++;
	spin_unlock(&smmu->lock);
	return 0;
}

static bool fpm_access_locked(struct fpm_ctx *mc, u64 iova)
{
	struct fpm_walk live;
	unsigned int lvl;
	void *e;

	fpm_walk_live(mc, iova, &live);
	if (live.valid)
		xa_store(&mc->touched, iova >> mc->pg_shift, xa_mk_value(0),
			 GFP_ATOMIC);

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
	mc->n.misses++;
	for (lvl = mc->start_level; lvl < FPM_LEVELS; lvl++) {
		e = xa_load(&mc->walk[lvl], fpm_key(mc, lvl, iova));
		if (e && xa_to_value(e) != live.table[lvl]) {
			mc->n.stale_hits++;
			return false;
		}
		if (live.table[lvl]) {
			if (!e)
				fpm_fill(mc, false, lvl, iova,
					 live.table[lvl]);
			continue;
		}
		if (!live.valid) {
			mc->n.faults++;
			return false;
		}
		fpm_fill(mc, true, lvl, iova, live.out);
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
