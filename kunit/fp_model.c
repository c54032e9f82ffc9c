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
#include <kunit/test-bug.h>
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

/* The pool, under the SMMU's lock.  NULL, counted, when it is empty. */
static struct fpm_entry *fpm_entry_get(struct fpm_smmu *smmu)
{
	struct fpm_entry *e;

	e = list_first_entry_or_null(&smmu->free, struct fpm_entry, node);
	if (e)
		list_del(&e->node);
	else if (smmu->used < smmu->nr_entries)
		e = &smmu->entries[smmu->used++];
	else
		smmu->lost++;
	return e;
}

static void fpm_entry_put(struct fpm_smmu *smmu, struct fpm_entry *e)
{
	list_add(&e->node, &smmu->free);
}

/* The first entry with a key of at least @key, or NULL. */
static struct fpm_entry *fpm_map_ceil(const struct fpm_map *m,
				      unsigned long key)
{
	struct rb_node *n = m->root.rb_node;
	struct fpm_entry *e, *best = NULL;

	while (n) {
		e = rb_entry(n, struct fpm_entry, rb);
		if (e->key < key) {
			n = n->rb_right;
			continue;
		}
		best = e;
		if (e->key == key)
			break;
		n = n->rb_left;
	}
	return best;
}

static struct fpm_entry *fpm_map_load(const struct fpm_map *m,
				      unsigned long key)
{
	struct fpm_entry *e = fpm_map_ceil(m, key);

	return e && e->key == key ? e : NULL;
}

static struct fpm_entry *fpm_map_next(struct fpm_entry *e)
{
	return rb_entry_safe(rb_next(&e->rb), struct fpm_entry, rb);
}

/* Set @key's entry.  Return: it, or NULL if the pool is empty. */
static struct fpm_entry *fpm_map_store(struct fpm_smmu *smmu,
				       struct fpm_map *m, unsigned long key,
				       u64 val, u64 at)
{
	struct rb_node **link = &m->root.rb_node, *parent = NULL;
	struct fpm_entry *e;

	while (*link) {
		parent = *link;
		e = rb_entry(parent, struct fpm_entry, rb);
		if (key < e->key) {
			link = &parent->rb_left;
		} else if (key > e->key) {
			link = &parent->rb_right;
		} else {
			e->val = val;
			e->at = at;
			return e;
		}
	}
	e = fpm_entry_get(smmu);
	if (!e)
		return NULL;
	e->key = key;
	e->val = val;
	e->at = at;
	rb_link_node(&e->rb, parent, link);
	rb_insert_color(&e->rb, &m->root);
	return e;
}

static void fpm_map_erase(struct fpm_smmu *smmu, struct fpm_map *m,
			  struct fpm_entry *e)
{
	rb_erase(&e->rb, &m->root);
	fpm_entry_put(smmu, e);
}

static void fpm_map_clear(struct fpm_smmu *smmu, struct fpm_map *m)
{
	struct fpm_entry *e, *n;

	rbtree_postorder_for_each_entry_safe(e, n, &m->root, rb)
		fpm_entry_put(smmu, e);
	m->root = RB_ROOT;
}

/**
 * fpm_smmu_init_entries() - make an SMMU model with room for @nr_entries
 * @smmu: the model
 * @nr_entries: cached entries, working-set pages and destroyed contexts'
 *	entries it can hold at once, for all its contexts together
 *
 * Return: 0 or -ENOMEM.
 */
int fpm_smmu_init_entries(struct fpm_smmu *smmu, unsigned int nr_entries)
{
	memset(smmu, 0, sizeof(*smmu));
	raw_spin_lock_init(&smmu->lock);
	INIT_LIST_HEAD(&smmu->ctxs);
	INIT_LIST_HEAD(&smmu->ghosts);
	INIT_LIST_HEAD(&smmu->free);
	smmu->max_pending = 1024;
	smmu->pending = kcalloc(smmu->max_pending, sizeof(*smmu->pending),
				GFP_KERNEL);
	smmu->entries = kvmalloc_array(nr_entries, sizeof(*smmu->entries),
				       GFP_KERNEL);
	smmu->nr_entries = nr_entries;
	if (!smmu->pending || !smmu->entries) {
		kfree(smmu->pending);
		kvfree(smmu->entries);
		return -ENOMEM;
	}
	return 0;
}

/* An SMMU model with room for FPM_ENTRIES entries. */
int fpm_smmu_init(struct fpm_smmu *smmu)
{
	return fpm_smmu_init_entries(smmu, FPM_ENTRIES);
}

/*
 * Fails the test that made the model if its pool ran out: the model then
 * forgot fills, and what it says of stale entries cannot be trusted.
 */
void fpm_smmu_destroy(struct fpm_smmu *smmu)
{
	if (smmu->lost)
		kunit_fail_current_test("TLB model out of entries: %lu fills lost (%u entries)",
					smmu->lost, smmu->nr_entries);
	kfree(smmu->pending);
	kvfree(smmu->entries);
}

/* Return: entries the SMMU still holds for contexts that were destroyed. */
unsigned long fpm_ghost_entries(struct fpm_smmu *smmu)
{
	struct fpm_entry *g;
	unsigned long n = 0;

	raw_spin_lock(&smmu->lock);
	list_for_each_entry(g, &smmu->ghosts, node)
		n++;
	raw_spin_unlock(&smmu->lock);
	return n;
}

void fpm_ctx_init(struct fpm_ctx *mc, struct fpm_smmu *smmu, u16 asid)
{
	unsigned int lvl;

	memset(mc, 0, sizeof(*mc));
	mc->smmu = smmu;
	mc->asid = asid;
	mc->busy = true;
	for (lvl = 0; lvl < FPM_LEVELS; lvl++) {
		mc->leaf[lvl].root = RB_ROOT;
		mc->walk[lvl].root = RB_ROOT;
	}
	mc->touched.root = RB_ROOT;
	raw_spin_lock(&smmu->lock);
	list_add_tail(&mc->node, &smmu->ctxs);
	raw_spin_unlock(&smmu->lock);
}

/* Tag @mc with a VMID; a stage-2 context has no ASID.  Before attach. */
void fpm_ctx_set_vmid(struct fpm_ctx *mc, u16 vmid, bool stage2)
{
	raw_spin_lock(&mc->smmu->lock);
	mc->vmid = vmid;
	mc->stage2 = stage2;
	raw_spin_unlock(&mc->smmu->lock);
}

/*
 * A cached entry of a destroyed context (a ghost).  The SMMU tags entries
 * by (VMID, ASID), not by the software object that filled them: they stay
 * until a command drops them, and a new context with the same tags
 * inherits them.
 */
static bool fpm_same_tags(const struct fpm_ctx *mc, const struct fpm_entry *g)
{
	return g->vmid == mc->vmid && g->stage2 == mc->stage2 &&
	       (mc->stage2 || g->asid == mc->asid);
}

/* A new context with the tags of a destroyed one sees what it left. */
static void fpm_adopt_ghosts(struct fpm_ctx *mc)
{
	struct fpm_smmu *smmu = mc->smmu;
	struct fpm_entry *g, *tmp;

	list_for_each_entry_safe(g, tmp, &smmu->ghosts, node) {
		struct fpm_entry was;

		if (!fpm_same_tags(mc, g))
			continue;
		/* Its entry back to the pool first: the store reuses it. */
		was = *g;
		list_del(&g->node);
		fpm_entry_put(smmu, g);
		if (was.lvl >= mc->start_level &&
		    was.shift == fpm_shift(mc, was.lvl))
			fpm_map_store(smmu, was.leaf ? &mc->leaf[was.lvl] :
						       &mc->walk[was.lvl],
				      was.key, was.val, was.at);
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
	raw_spin_lock(&mc->smmu->lock);
	fpm_adopt_ghosts(mc);
	raw_spin_unlock(&mc->smmu->lock);
	return 0;
}

/* Each entry of @m becomes a ghost, tagged as @mc's. */
static void fpm_bury(struct fpm_ctx *mc, unsigned int lvl, bool leaf)
{
	struct fpm_map *m = leaf ? &mc->leaf[lvl] : &mc->walk[lvl];
	struct fpm_entry *g, *n;

	rbtree_postorder_for_each_entry_safe(g, n, &m->root, rb) {
		g->vmid = mc->vmid;
		g->asid = mc->asid;
		g->stage2 = mc->stage2;
		g->leaf = leaf;
		g->lvl = lvl;
		g->shift = fpm_shift(mc, lvl);
		list_add_tail(&g->node, &mc->smmu->ghosts);
	}
	m->root = RB_ROOT;
}

/*
 * The context goes; what it cached stays in the SMMU, under its tags, until
 * a command drops it: only an invalidation removes TLB entries.
 */
void fpm_ctx_destroy(struct fpm_ctx *mc)
{
	struct fpm_smmu *smmu = mc->smmu;
	unsigned int lvl;

	raw_spin_lock(&smmu->lock);
	list_del(&mc->node);
	if (mc->cfg && !smmu->legacy)
		for (lvl = mc->start_level; lvl < FPM_LEVELS; lvl++) {
			fpm_bury(mc, lvl, true);
			fpm_bury(mc, lvl, false);
		}
	for (lvl = 0; lvl < FPM_LEVELS; lvl++) {
		fpm_map_clear(smmu, &mc->leaf[lvl]);
		fpm_map_clear(smmu, &mc->walk[lvl]);
	}
	fpm_map_clear(smmu, &mc->touched);
	raw_spin_unlock(&smmu->lock);
}

/*
 * Drop one cached entry, counting it if the page table still backs it.
 * One filled after the command was issued may outlive it: the SMMU may
 * have performed the command before the fill.
 */
static void fpm_drop(struct fpm_ctx *mc, unsigned int lvl,
		     struct fpm_entry *e, bool is_leaf, u64 issued)
{
	unsigned long key = e->key;
	u64 v = e->val;

	if (e->at >= issued && !mc->smmu->legacy)
		return;
	fpm_map_erase(mc->smmu, is_leaf ? &mc->leaf[lvl] : &mc->walk[lvl], e);
	if (is_leaf ? fpm_leaf_live(mc, lvl, key, v) :
		      fpm_walk_entry_live(mc, lvl, key, v))
		mc->n.collateral++;
}

static void fpm_drop_range(struct fpm_ctx *mc, u64 start, u64 end,
			   const struct fpm_cmd *cmd)
{
	struct fpm_entry *e, *n;
	unsigned int lvl;

	for (lvl = mc->start_level; lvl < FPM_LEVELS; lvl++) {
		unsigned long first = fpm_key(mc, lvl, start);
		unsigned long last = fpm_key(mc, lvl, end - 1);

		/* fpm_drop() may erase @e: its successor first. */
		e = cmd->ttl && cmd->ttl != lvl && !mc->smmu->legacy ? NULL :
		    fpm_map_ceil(&mc->leaf[lvl], first);
		for (; e && e->key <= last; e = n) {
			n = fpm_map_next(e);
			fpm_drop(mc, lvl, e, true, cmd->issued);
		}
		if (cmd->leaf)
			continue;
		e = fpm_map_ceil(&mc->walk[lvl], first);
		for (; e && e->key <= last; e = n) {
			n = fpm_map_next(e);
			fpm_drop(mc, lvl, e, false, cmd->issued);
		}
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
	struct fpm_entry *g, *tmp;
	u64 start, end;

	fpm_cmd_span(cmd, &start, &end);
	list_for_each_entry_safe(g, tmp, &smmu->ghosts, node) {
		if (!fpm_tags_hit(g->vmid, g->asid, g->stage2, cmd) ||
		    g->at >= cmd->issued || (cmd->leaf && !g->leaf) ||
		    (g->leaf && cmd->ttl && cmd->ttl != g->lvl) ||
		    g->key < start >> g->shift || g->key > (end - 1) >> g->shift)
			continue;
		list_del(&g->node);
		fpm_entry_put(smmu, g);
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
	struct fpm_smmu *smmu = mc->smmu;

	if (!fpm_map_store(smmu, leaf ? &mc->leaf[lvl] : &mc->walk[lvl],
			   fpm_key(mc, lvl, iova), v, smmu->clock + 1))
		return;
	smmu->clock++;
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
	struct fpm_entry *e;
	struct fpm_walk live;
	unsigned int lvl;

	fpm_walk_live(mc, iova, &live);
	if (!live.valid) {
		e = fpm_map_load(&mc->touched, iova >> mc->pg_shift);
		if (e)
			fpm_map_erase(mc->smmu, &mc->touched, e);
		return false;
	}
	for (lvl = mc->start_level; lvl < FPM_LEVELS; lvl++)
		if (fpm_map_load(&mc->leaf[lvl], fpm_key(mc, lvl, iova)))
			return true;
	for (lvl = mc->start_level; lvl < live.level; lvl++) {
		e = fpm_map_load(&mc->walk[lvl], fpm_key(mc, lvl, iova));
		if (e && e->val != live.table[lvl])
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
	struct fpm_entry *e;
	unsigned int n = 0;

	if (!mc->busy || !mc->cfg || start >= end || mc->smmu->legacy)
		return 0;
	end = min_t(u64, end, 1ULL << mc->cfg->ias);
	idx = start >> mc->pg_shift;
	last = (end - 1) >> mc->pg_shift;
	while ((e = fpm_map_ceil(&mc->touched, idx)) && e->key <= last) {
		bool live;

		idx = e->key;
		live = fpm_busy_fill(mc, (u64)idx << mc->pg_shift);

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
	raw_spin_lock(&mc->smmu->lock);
	fpm_busy_locked(mc, iova, (u64)iova + size, stride, 0);
	raw_spin_unlock(&mc->smmu->lock);
}

/* The device refills the walk cache: one touched page per last-level table. */
void fpm_busy_tables(struct fpm_ctx *mc)
{
	raw_spin_lock(&mc->smmu->lock);
	if (mc->cfg)
		fpm_busy_locked(mc, 0, U64_MAX,
				1UL << (fpm_shift(mc, FPM_LEVELS - 2) -
					mc->pg_shift), 0);
	raw_spin_unlock(&mc->smmu->lock);
}

/* The device stops using [@iova, @iova + @size): out of its working set. */
void fpm_forget(struct fpm_ctx *mc, unsigned long iova, size_t size)
{
	struct fpm_entry *e, *n;

	raw_spin_lock(&mc->smmu->lock);
	e = mc->cfg ? fpm_map_ceil(&mc->touched, iova >> mc->pg_shift) : NULL;
	for (; e && e->key <= (iova + size - 1) >> mc->pg_shift; e = n) {
		n = fpm_map_next(e);
		fpm_map_erase(mc->smmu, &mc->touched, e);
	}
	raw_spin_unlock(&mc->smmu->lock);
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

	raw_spin_lock(&smmu->lock);
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
	raw_spin_unlock(&smmu->lock);
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

	raw_spin_lock(&smmu->lock);
	now = smmu->clock;
	raw_spin_unlock(&smmu->lock);
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

	raw_spin_lock(&smmu->lock);
	if (smmu->sync_stuck || smmu->syncs_to_fail) {
		if (smmu->syncs_to_fail)
			smmu->syncs_to_fail--;
		raw_spin_unlock(&smmu->lock);
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
	raw_spin_unlock(&smmu->lock);
	return 0;
}

static bool fpm_access_locked(struct fpm_ctx *mc, u64 iova)
{
	struct fpm_entry *e;
	struct fpm_walk live;
	unsigned int lvl;

	fpm_walk_live(mc, iova, &live);
	if (live.valid)
		fpm_map_store(mc->smmu, &mc->touched, iova >> mc->pg_shift, 0, 0);

	for (lvl = mc->start_level; lvl < FPM_LEVELS; lvl++) {
		e = fpm_map_load(&mc->leaf[lvl], fpm_key(mc, lvl, iova));
		if (!e)
			continue;
		if (!live.valid || live.level != lvl || live.out != e->val) {
			mc->n.stale_hits++;
			return false;
		}
		return true;
	}

	/* TLB miss: walk, preferring cached table descriptors. */
	mc->n.misses++;
	for (lvl = mc->start_level; lvl < FPM_LEVELS; lvl++) {
		e = fpm_map_load(&mc->walk[lvl], fpm_key(mc, lvl, iova));
		if (e && e->val != live.table[lvl]) {
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

	raw_spin_lock(&mc->smmu->lock);
	ok = fpm_access_locked(mc, iova);
	raw_spin_unlock(&mc->smmu->lock);
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
	struct fpm_entry *e;
	unsigned long n = 0;
	unsigned int lvl;

	raw_spin_lock(&mc->smmu->lock);
	for (lvl = mc->start_level; lvl < FPM_LEVELS; lvl++) {
		for (e = fpm_map_ceil(&mc->leaf[lvl], 0); e; e = fpm_map_next(e))
			n += !count_stale ||
			     !fpm_leaf_live(mc, lvl, e->key, e->val);
		for (e = fpm_map_ceil(&mc->walk[lvl], 0); e; e = fpm_map_next(e))
			n += !count_stale ||
			     !fpm_walk_entry_live(mc, lvl, e->key, e->val);
	}
	raw_spin_unlock(&mc->smmu->lock);
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
	struct fpm_entry *e;
	unsigned long n = 0;
	unsigned int lvl;

	raw_spin_lock(&mc->smmu->lock);
	for (lvl = mc->start_level; lvl < FPM_LEVELS; lvl++) {
		unsigned long last = fpm_key(mc, lvl, iova + size - 1);

		for (e = fpm_map_ceil(&mc->leaf[lvl], fpm_key(mc, lvl, iova));
		     e && e->key <= last; e = fpm_map_next(e))
			n++;
	}
	raw_spin_unlock(&mc->smmu->lock);
	return n;
}

/*
 * io-pgtable is freeing @table: from now on its memory is anything, so a
 * walk entry still pointing at it would let the device walk garbage.
 */
void fpm_table_freed(struct fpm_ctx *mc, void *table, size_t size)
{
	u64 pa = virt_to_phys(table) >> mc->pg_shift;
	struct fpm_entry *e;
	unsigned int lvl;

	raw_spin_lock(&mc->smmu->lock);
	for (lvl = mc->start_level; lvl < FPM_LEVELS; lvl++)
		for (e = fpm_map_ceil(&mc->walk[lvl], 0); e; e = fpm_map_next(e))
			if (e->val == pa)
				mc->n.freed_refs++;
	raw_spin_unlock(&mc->smmu->lock);
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
	struct fpm_entry *e;
	unsigned long n = 0;
	unsigned int lvl;

	raw_spin_lock(&mc->smmu->lock);
	for (lvl = mc->start_level; lvl < FPM_LEVELS; lvl++) {
		unsigned long first = fpm_key(mc, lvl, iova);
		unsigned long last = fpm_key(mc, lvl, iova + size - 1);

		for (e = fpm_map_ceil(&mc->leaf[lvl], first);
		     e && e->key <= last; e = fpm_map_next(e))
			n += !fpm_leaf_live(mc, lvl, e->key, e->val);
		for (e = fpm_map_ceil(&mc->walk[lvl], first);
		     e && e->key <= last; e = fpm_map_next(e))
			n += !fpm_walk_entry_live(mc, lvl, e->key, e->val);
	}
	raw_spin_unlock(&mc->smmu->lock);
	return n;
}
