/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * flushpol core internals: shared by core/ only.
 */
#ifndef _FP_CORE_H
#define _FP_CORE_H

#include <linux/atomic.h>
#include <linux/cache.h>
#include <linux/jump_label.h>
#include <linux/kobject.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>

#include "../include/flushpol.h"
#include "compat.h"

/* "<instance>-asid<id>": longer names are not shown in sysfs. */
#define FP_CONTEXT_NAME_MAX	32

/* A threshold above this many TLB entries (16 GiB of 4 KiB pages) is junk. */
#define FP_THRESHOLD_MAX	BIT(22)

/*
 * Atomic, though per CPU: an interrupt may count on the CPU it interrupts,
 * and a preemptible caller may move between finding its CPU's counters and
 * adding to them.  Adding to a line no other CPU writes costs no bounce.
 *
 * @leaf counts, by kind of command, the strict unmaps of one leaf that
 * fp_iotlb_sync() sent as one command and its sync (fp_sync_leaf()): one
 * add where the counters it stands for would take four.  Each is folded
 * into those counters when read (stats.c), so that what is read is what
 * the policy's own path would have counted.
 */
enum fp_leaf_kind {
	FP_LEAF_VA,
	FP_LEAF_RANGE,
	FP_LEAF_NR,
};

/*
 * Latency histograms (latency.c), kept only while fp_latency_key is on:
 * FP_LAT_UNMAP, each strict unmap from its first page-table call to its
 * invalidation completed; FP_LAT_SYNC, each wait for the backend's sync.
 * Bucket 0 holds times under 1024 ns, bucket b below FP_LAT_BUCKETS - 1
 * those in [2^(9+b), 2^(10+b)) ns, the last those of 2^30 ns and more.
 */
enum fp_lat_kind {
	FP_LAT_UNMAP,
	FP_LAT_SYNC,
	FP_LAT_NR,
};

#define FP_LAT_BUCKETS	22

struct fp_lat_hist {
	atomic64_t bucket[FP_LAT_BUCKETS];
	atomic64_t count;
	atomic64_t total_ns;
};

struct fp_stats {
	atomic64_t v[FP_STAT_NR];
	atomic64_t leaf[FP_LEAF_NR];
	struct fp_lat_hist lat[FP_LAT_NR];
	/*
	 * What this CPU's fp_unmap() calls into a caller's gather took so
	 * far: the page-table part of unmaps whose fp_iotlb_sync() is yet to
	 * come, added to the sample that sync records (latency.c).
	 */
	atomic64_t lat_pending_ns;
};

/*
 * The batch policy's combining of concurrent strict unmaps (policy/batch.c):
 * two batches, one filling while the other is sent.  A gather too many
 * for a batch's list, or pages past the threshold, make it go by context.
 */
#define FP_BATCH_GATHERS	16

struct fp_batch {
	unsigned int n, live;	/* gathers listed, and not taken out */
	unsigned long pages;
	bool whole;
	struct fp_batch_gather {
		unsigned long iova;
		size_t size, granule;	/* size 0: taken out */
	} g[FP_BATCH_GATHERS];
};

/*
 * @open: the number of the batch gathers join, in @b[@open & 1];
 * @done: the last batch whose invalidation completed (its sync returned);
 * @failed: the last batch whose sync failed (0: none yet);
 * @leader: CPU + 1 of whoever sends batch @open - 1, 0 while none does.
 * @open and @leader change, and batches fill, under @lock; @done and
 * @failed are stored under it too, and @done is read without it.
 */
struct fp_batcher {
	raw_spinlock_t lock;
	unsigned long open;
	unsigned long done;
	unsigned long failed;
	int leader;
	struct fp_batch b[2];
};

struct fp_context {
	struct kobject kobj;
	char name[FP_CONTEXT_NAME_MAX];
	struct fp_context_cfg cfg;
	struct fp_policy __rcu *policy;
	/*
	 * What fp_iotlb_sync() sends for a gather of one leaf in @policy's
	 * place: its &fp_policy.one_leaf, and FP_LEAFMODE_TIMED if it times its
	 * flushes.  Copied when @policy is installed (fp_context_install()),
	 * so that path reads nothing of a policy that may be going away.
	 */
	u8 leaf;
	/* Serialises policy switches; dispatch only pins (dispatch.c). */
	struct mutex lock;
	/* The policy is the backend's choice, not a user's (under @lock). */
	bool auto_policy;
	/* What the backend chooses now: cfg's, or fp_context_set_lazy()'s. */
	const char *backend_policy;
	/* @kobj was added: the context has a sysfs directory. */
	bool in_sysfs;
	/* Its devices/ directory, while @in_sysfs. */
	struct kobject *devices_kobj;
	unsigned int threshold;
	struct fp_stats __percpu *stats;
	struct list_head node;
	/*
	 * Context-wide flushes, numbered when they start and recorded when
	 * they complete (see coverage.c).  Every CPU unmapping reads them, a
	 * context flush writes them: a line of their own, so that neither
	 * bounces the fields above.
	 */
	struct {
		atomic64_t started;
		atomic64_t done;
		atomic_t sync_errors;
	} flushes ____cacheline_aligned_in_smp;
	/*
	 * The adaptive policy's inputs (estimate.c): written when a flush is
	 * timed, by the policy or by the core's one-leaf path.
	 */
	struct fp_estimate est ____cacheline_aligned_in_smp;
	/* Written by every CPU unmapping under batch, by nobody otherwise. */
	struct fp_batcher batcher ____cacheline_aligned_in_smp;
};

static inline void fp_stat_add(struct fp_context *ctx, enum fp_stat s, u64 n)
{
	atomic64_add(n, &raw_cpu_ptr(ctx->stats)->v[s]);
}

/* The default_policy value, and the sysfs word, for the backend's choice. */
#define FP_POLICY_AUTO	"auto"

static inline void fp_stat_add_leaf(struct fp_context *ctx,
				    enum fp_leaf_kind k)
{
	atomic64_inc(&raw_cpu_ptr(ctx->stats)->leaf[k]);
}

/* registry.c */
const char *fp_policy_name_parse(char buf[FP_NAME_MAX], const char *input);
bool fp_policy_name_is_auto(const char *name);
bool fp_policy_registered(const char *name);
struct fp_policy *fp_policy_get_for(const char *name,
				    const struct fp_context *ctx, int *err);
bool fp_policy_request(const char *name);
void fp_policy_put(struct module *owner);
ssize_t fp_policies_show(char *buf, const struct fp_context *ctx,
			 const struct fp_policy *active);
int fp_builtin_policies_register(void);
void fp_builtin_policies_unregister(void);

/* context.c */
extern struct mutex fp_contexts_lock;
extern struct list_head fp_contexts;
void fp_default_policy(char name[FP_NAME_MAX]);
unsigned int fp_default_threshold(void);
void fp_context_follow_type(struct fp_context *ctx);
int fp_context_set_policy_noload(struct fp_context *ctx, const char *name);

/* devparam.c */
void fp_device_settings_apply(struct fp_context *ctx, struct device *dev);

/* coverage.c */
/*
 * One fp_unmap() call: the gather io-pgtable fills for it, and what is
 * known to have invalidated that gather's leaves already.  Private to the
 * call (on its stack); see coverage.c for who reads and writes which field.
 */
struct fp_call {
	struct iommu_iotlb_gather gather;
	struct fp_context *ctx;
	struct task_struct *task;	/* who called, at what */
	unsigned long irq;		/* interrupt nesting */
	struct fp_call *restore;	/* what leaving puts back */
	/* Tables this call cleared and flushed: [walk_start, walk_end). */
	unsigned long walk_start, walk_end;
	size_t walk_size;
	unsigned long walk_leaves;	/* gathered leaves that span covers */
	bool stale;		/* a leaf it does not cover, since mark */
	bool marked;		/* a leaf it does not cover, before mark */
	s64 mark;		/* flushes.started, sampled after clears */
};

/* What a policy's flush_gather is handed: a gather, and whether covered. */
struct fp_gather {
	struct iommu_iotlb_gather g;
	bool covered;
	bool early;	/* handed over before the unmap's own iotlb_sync */
};

static inline bool fp_gather_early(const struct iommu_iotlb_gather *gather)
{
	return container_of(gather, struct fp_gather, g)->early;
}

extern struct list_head fp_call_gather_mark;

void fp_call_enter(struct fp_call *c);
void fp_call_leave(struct fp_call *c);
struct fp_call *fp_cov_walk_begin(struct fp_context *ctx, size_t size,
				  size_t granule, int *token);
void fp_cov_walk_done(struct fp_call *c, int token, unsigned long iova,
		      size_t size);
void fp_cov_sync_failed(struct fp_context *ctx);

/*
 * fp_call_begin() sets the gather's fields one by one, so a field a later
 * kernel adds to struct iommu_iotlb_gather would be left as stack garbage:
 * refuse to build against a gather that is not the one it knows, and say
 * so before the compiler trips over a field it lacks.
 */
struct fp_gather_known {
	unsigned long start, end;
	size_t pgsize;
	FP_GATHER_FREELIST_TYPE freelist;
	bool queued;
};

#define FP_GATHER_UNKNOWN						\
	"struct iommu_iotlb_gather differs from the one fp_call_begin() "	\
	"fills in (struct fp_gather_known): this kernel changed it; a "	\
	"conftest/ probe and core/compat.h must describe it"
static_assert(__same_type(((struct iommu_iotlb_gather *)NULL)->freelist,
			  ((struct fp_gather_known *)NULL)->freelist) &&
	      offsetof(struct iommu_iotlb_gather, freelist) ==
	      offsetof(struct fp_gather_known, freelist), FP_GATHER_UNKNOWN);
static_assert(sizeof(struct iommu_iotlb_gather) ==
	      sizeof(struct fp_gather_known), FP_GATHER_UNKNOWN);

/*
 * Start @c, an fp_unmap() call's record, empty: every field that a leaf,
 * a walk or the end of the call reads, stored one by one (a whole-record
 * zeroing is a rep stos on x86, whose start-up alone cost the 4K unmap
 * more than the rest of the record).  Its gather is marked as a call's
 * own (coverage.c, R3).  task, irq and restore are fp_call_enter()'s.
 */
static inline void fp_call_begin(struct fp_context *ctx, struct fp_call *c,
				 const struct iommu_iotlb_gather *outer)
{
	c->gather.start = ULONG_MAX;
	c->gather.end = 0;
	c->gather.pgsize = 0;
	c->gather.queued = outer && outer->queued;
	fp_gather_freelist(&c->gather)->next = &fp_call_gather_mark;
	fp_gather_freelist(&c->gather)->prev = &fp_call_gather_mark;
	c->ctx = ctx;
	c->task = NULL;
	c->irq = 0;
	c->restore = NULL;
	c->walk_start = 0;
	c->walk_end = 0;
	c->walk_size = 0;
	c->walk_leaves = 0;
	c->stale = false;
	c->marked = false;
	c->mark = 0;
}

/*
 * The call whose own gather @gather is, if any (R3): found by the gather
 * itself, not the slot, so that no leaf escapes its call's record.
 */
static inline struct fp_call *
fp_call_of_gather(struct iommu_iotlb_gather *gather)
{
	if (fp_gather_freelist(gather)->next != &fp_call_gather_mark)
		return NULL;
	return container_of(gather, struct fp_call, gather);
}

/* G: whether every leaf of @c's gather is covered, by W or by C. */
static inline bool fp_cov_covered(struct fp_call *c)
{
	if (c->stale)
		return false;
	return !c->marked ||
	       atomic64_read(&c->ctx->flushes.done) > c->mark;
}

/* @c's gather was emptied: no leaf state left (G). */
static inline void fp_cov_reset(struct fp_call *c)
{
	c->stale = false;
	c->marked = false;
	c->walk_leaves = 0;
}

/*
 * A leaf was gathered into @c's gather: a compare, and a store into the
 * call's own record.  Covered only if it is exactly one of the tables the
 * call flushed (coverage.c, invariant W).
 */
static inline void fp_cov_leaf(struct fp_call *c, unsigned long iova,
			       size_t size)
{
	if (size == c->walk_size && iova >= c->walk_start &&
	    iova < c->walk_end)
		c->walk_leaves++;
	else
		c->stale = true;
}

/* latency.c; fp_latency_key is in flushpol.h */

/*
 * Whether unmaps and syncs are timed into the latency histograms: a
 * branch patched out (a NOP) while /sys/kernel/flushpol/latency is 0.
 */
static inline bool fp_latency_on(void)
{
	return static_branch_unlikely(&fp_latency_key);
}

void fp_lat_record(struct fp_context *ctx, enum fp_lat_kind k, u64 ns);
void fp_latency_init(void);
ssize_t fp_lat_show(struct fp_context *ctx, enum fp_lat_kind k, char *buf);
int fp_latency_set(bool on);

/* estimate.c; fp_estimate_key is in flushpol.h */

/*
 * Whether fp_map() and fp_unmap() keep every context's estimate: a branch
 * patched out while no registered policy reads one
 * (&fp_policy.reads_estimate).
 */
static inline bool fp_estimate_kept(void)
{
	return static_branch_unlikely(&fp_estimate_key);
}

void fp_estimate_key_get(const struct fp_policy *pol);
void fp_estimate_key_put(const struct fp_policy *pol);
int fp_estimate_key_count(void);	/* for the tests */
void fp_estimate_key_suspend(void);	/* for the benchmarks */
void fp_estimate_key_resume(void);
int fp_estimate_init(struct fp_estimate *e, const struct fp_context_cfg *cfg);
void fp_estimate_mapped(struct fp_estimate *e, unsigned long iova,
			unsigned int shift, unsigned long granules);
void fp_estimate_unmapping(struct fp_estimate *e, unsigned long iova,
			   unsigned int shift, unsigned long granules);

/* dispatch.c */
extern const struct iommu_flush_ops fp_flush_ops;
void fp_policy_wait_calls(void);
void fp_dispatch_gather(struct fp_context *ctx,
			const struct iommu_iotlb_gather *gather,
			struct fp_call *c, bool early);
void fp_iotlb_sync_untimed(struct fp_context *ctx,
			   struct iommu_iotlb_gather *gather);
void fp_iotlb_sync_lat(struct fp_context *ctx,
		       struct iommu_iotlb_gather *gather);

/* links.c */
void fp_links_drop_context(struct fp_context *ctx);
ssize_t fp_links_show_groups(const struct fp_context *ctx, char *buf);
int fp_context_uevent(const struct fp_context *ctx,
		      struct kobj_uevent_env *env);

/* sysfs.c */
bool fp_sysfs_link_device(struct fp_context *ctx, struct device *dev,
			  bool index);
void fp_sysfs_unlink_device(struct fp_context *ctx, const char *name,
			    bool indexed);
int fp_sysfs_init(void);
void fp_sysfs_exit(void);
int fp_sysfs_add_context(struct fp_context *ctx);
void fp_sysfs_del_context(struct fp_context *ctx);
extern const struct kobj_type fp_context_ktype;

/* Built-in policies, each defined in its own file under policy/. */
extern struct fp_policy fp_policy_va;
extern struct fp_policy fp_policy_range;
extern struct fp_policy fp_policy_asid;
extern struct fp_policy fp_policy_nonstrict;
extern struct fp_policy fp_policy_threshold;
extern struct fp_policy fp_policy_batch;
void fp_batcher_init(struct fp_batcher *bt);
unsigned long fp_batch_wait_set(unsigned long ns);	/* for the tests */
#if IS_ENABLED(CONFIG_KUNIT)
unsigned long fp_batch_join(struct fp_context *ctx, struct fp_batcher *bt,
			    const struct iommu_iotlb_gather *gather, int *slot);
void fp_batch_leave(struct fp_batcher *bt, unsigned long nr, int slot,
		    const struct iommu_iotlb_gather *gather);
int fp_batch_send(struct fp_context *ctx, struct fp_batch *b);
#endif

/* &fp_context.leaf: an enum fp_one_leaf, and whether to time the flush. */
#define FP_LEAFMODE_ONE		0x3
#define FP_LEAFMODE_TIMED	0x4

/* &fp_context.leaf for @pol; 0 for none.  fp_policy_valid() bounds it. */
static inline u8 fp_leaf_mode(const struct fp_policy *pol)
{
	BUILD_BUG_ON(FP_ONE_LEAF_PRECISE & ~FP_LEAFMODE_ONE);
	if (!pol || !pol->one_leaf)
		return 0;
	return pol->one_leaf | (pol->times_flushes ? FP_LEAFMODE_TIMED : 0);
}

/*
 * Whether @pol is one of the core's own policies, which outlive every
 * context: calls into them are not pinned (dispatch.c).  @pol is compared,
 * never read: it may be a module's, gone by now.
 */
static inline bool fp_policy_builtin(const struct fp_policy *pol)
{
	return pol == &fp_policy_va || pol == &fp_policy_range ||
	       pol == &fp_policy_asid || pol == &fp_policy_nonstrict ||
	       pol == &fp_policy_threshold || pol == &fp_policy_batch;
}

#endif /* _FP_CORE_H */
