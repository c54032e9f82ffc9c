/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A model of an SMMU TLB, for tests only.
 *
 * Device accesses translate through the model: they hit cached leaf entries,
 * or walk the real io-pgtable in memory, using and filling a walk cache of
 * table descriptors on the way.  Invalidation commands queue up; a sync
 * completes them, dropping exactly what the architecture says each drops.
 * The model then reports what a correct driver must never leave behind:
 * entries that no longer match the page table (stale), walk-cache entries
 * pointing at a table being freed, and live entries thrown away
 * (collateral).
 *
 * It is as unforgiving as hardware may be, not as kind as hardware often is:
 *  - An SMMU may perform a TLBI at any moment between its issue and the
 *    completion of the sync after it.  So every entry records when it was
 *    filled and every command when it was issued, and a sync drops only
 *    entries filled before the command was issued; until the sync, nothing
 *    is dropped.
 *  - A busy device: the pages a context's device has touched (its working
 *    set) are re-walked at the moments an unmap is most fragile: when a
 *    command is issued (right after it, so the refill outlives it), before
 *    each walk flush and before each leaf is gathered (fp_rig.c).  It fills
 *    only from live descriptors, so it can never fail a correct driver.
 *  - Entries belong to the SMMU, tagged by (VMID, ASID), not to a context:
 *    destroying a context leaves them cached, and a new context with the
 *    same tags finds them.
 *
 * The SMMU's command queue consumes commands, and so reaches the model,
 * with its raw spinlock held and interrupts off (the fake SMMUv3 behind
 * backends/smmuv3/cmdq.c): so the model's lock is raw too, and it never
 * allocates once made.  Its entries come from a pool sized when the SMMU is
 * made, as a TLB's are; unlike a TLB's they are never evicted, since that
 * would hide a stale entry: a fill or a destroyed context's entry that
 * finds the pool empty is counted (fpm_smmu.lost), and fpm_smmu_destroy()
 * fails the test.
 */
#ifndef _FP_MODEL_H
#define _FP_MODEL_H

#include <linux/bits.h>
#include <linux/io-pgtable.h>
#include <linux/list.h>
#include <linux/rbtree.h>
#include <linux/spinlock.h>

#define FPM_LEVELS	4

/*
 * Stage-1 commands (VA, RANGE, ASID) hit stage-1 contexts of their ASID
 * within their VMID; IPA hits the stage-2 context of its VMID; VMID hits
 * every context tagged with it, either stage; NH_ALL (SMMUv3's
 * CMD_TLBI_NH_ALL) hits the stage-1 contexts of its VMID; ALL (SMMUv2's
 * TLBIALLNSNH) hits everything.
 */
enum fpm_cmd_kind {
	FPM_CMD_VA,		/* one VA, all levels it is cached at */
	FPM_CMD_RANGE,		/* [addr, addr + size) */
	FPM_CMD_ASID,
	FPM_CMD_ALL,
	FPM_CMD_IPA,		/* one IPA of a stage-2 context */
	FPM_CMD_VMID,
	FPM_CMD_NH_ALL,
};

struct fpm_cmd {
	enum fpm_cmd_kind kind;
	bool leaf;		/* last-level entries only, walk cache kept */
	u16 asid;
	u16 vmid;
	/*
	 * Which sync completes it: fpm_sync() completes every queue,
	 * fpm_sync_queue() only its own, as an SMMUv2 context bank's TLBSYNC
	 * completes only what was issued to that bank.
	 */
	u16 queue;
	u64 addr;
	u64 size;
	/*
	 * VA and RANGE: the level of the leaves (SMMUv3 TTL), or 0 if not
	 * known.  A nonzero TTL need not invalidate leaf entries of any other
	 * level (IHI 0070, "Address-based invalidations").
	 */
	u8 ttl;
	u64 issued;	/* set by fpm_issue() */
};

struct fpm_ctx;

/*
 * A cached entry, a page of the working set, or a destroyed context's
 * entry (a ghost), from the SMMU's pool.
 */
struct fpm_entry {
	union {
		struct rb_node rb;	/* in an fpm_map */
		struct list_head node;	/* a ghost, or free */
	};
	unsigned long key;	/* iova >> the level's shift */
	u64 val;		/* output PA or table PA >> pg_shift */
	u64 at;			/* when it was filled (fpm_smmu.clock) */
	/* A ghost's tags and place. */
	u16 vmid, asid;
	bool stage2, leaf;
	u8 lvl, shift;
};

/* Entries by key, in order. */
struct fpm_map {
	struct rb_root root;
};

/* Entries an SMMU model holds at most, for all its contexts together. */
#define FPM_ENTRIES	BIT(17)

/* The SMMU: its command queue and every context it caches entries for. */
struct fpm_smmu {
	raw_spinlock_t lock;	/* the queue, every context's caches, the pool */
	struct list_head ctxs;
	struct fpm_cmd *pending;
	unsigned int nr_pending, max_pending;
	bool sync_stuck;	/* sync never completes, as a wedged SMMU */
	/* As many next syncs time out, completing nothing, then work. */
	unsigned int syncs_to_fail;
	unsigned long cmds;	/* commands accepted */
	unsigned long syncs;	/* syncs completed */
	u64 clock;		/* orders fills and command issues */
	/*
	 * The oracle as it was before it was sharpened, for the mutant
	 * harness only: commands drop whatever is cached at the sync, no busy
	 * device, TTL ignored, a context's entries die with it, and an
	 * SMMUv2 TLBSYNC completes what was written after it.
	 */
	bool legacy;
	/* Entries of destroyed contexts, by tags: see fpm_ctx_destroy(). */
	struct list_head ghosts;
	/* The pool: @entries[@used..] never used yet, then @free. */
	struct fpm_entry *entries;
	unsigned int nr_entries, used;
	struct list_head free;
	unsigned long lost;	/* fills and ghosts the pool had no room for */
};

struct fpm_counts {
	unsigned long fills;		/* entries cached by accesses */
	unsigned long faults;		/* accesses with no translation */
	unsigned long stale_hits;	/* accesses served by a stale entry */
	unsigned long collateral;	/* live entries a command dropped */
	unsigned long freed_refs;	/* walk entries left on a freed table */
	unsigned long misses;		/* accesses that found no leaf entry */
};

struct fpm_ctx {
	struct fpm_smmu *smmu;
	struct list_head node;
	u16 asid;
	u16 vmid;		/* 0 unless fpm_ctx_set_vmid() */
	bool stage2;		/* walks the VTTBR, tagged by VMID only */
	const struct io_pgtable_cfg *cfg;
	unsigned int pg_shift, bits, start_level;
	/* Keyed by iova >> level shift; val: output PA >> pg_shift. */
	struct fpm_map leaf[FPM_LEVELS];
	/* Keyed by iova >> level shift; val: next-level table PA >> pg_shift. */
	struct fpm_map walk[FPM_LEVELS];
	/* The device's working set: iova >> pg_shift of pages it touched. */
	struct fpm_map touched;
	bool busy;		/* re-walk the working set, see above */
	unsigned long busy_next;	/* where context-wide refills resume */
	struct fpm_counts n;
};

int fpm_smmu_init(struct fpm_smmu *smmu);
int fpm_smmu_init_entries(struct fpm_smmu *smmu, unsigned int nr_entries);
void fpm_smmu_destroy(struct fpm_smmu *smmu);
void fpm_ctx_init(struct fpm_ctx *mc, struct fpm_smmu *smmu, u16 asid);
void fpm_ctx_set_vmid(struct fpm_ctx *mc, u16 vmid, bool stage2);
int fpm_ctx_attach(struct fpm_ctx *mc, const struct io_pgtable_cfg *cfg);
void fpm_ctx_destroy(struct fpm_ctx *mc);

void fpm_issue(struct fpm_smmu *smmu, const struct fpm_cmd *cmd);
int fpm_sync(struct fpm_smmu *smmu);
int fpm_sync_queue(struct fpm_smmu *smmu, u16 queue);
u64 fpm_now(struct fpm_smmu *smmu);
int fpm_sync_queue_before(struct fpm_smmu *smmu, u16 queue, u64 before);

bool fpm_access(struct fpm_ctx *mc, unsigned long iova);
void fpm_access_range(struct fpm_ctx *mc, unsigned long iova, size_t size);
unsigned long fpm_stale_entries(struct fpm_ctx *mc);
unsigned long fpm_cached_entries(struct fpm_ctx *mc);
unsigned long fpm_cached_leaves(struct fpm_ctx *mc, unsigned long iova,
				size_t size);
void fpm_table_freed(struct fpm_ctx *mc, void *table, size_t size);
unsigned long fpm_stale_in(struct fpm_ctx *mc, unsigned long iova,
			   size_t size);
void fpm_busy(struct fpm_ctx *mc, unsigned long iova, size_t size,
	      unsigned long stride);
void fpm_busy_tables(struct fpm_ctx *mc);
void fpm_forget(struct fpm_ctx *mc, unsigned long iova, size_t size);
unsigned long fpm_ghost_entries(struct fpm_smmu *smmu);

#endif /* _FP_MODEL_H */
