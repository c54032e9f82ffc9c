/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * flushpol: pluggable IOMMU TLB-invalidation policies.
 *
 * io-pgtable says *what* must be invalidated, through struct iommu_flush_ops
 * and the driver's iotlb_sync.  A flushpol context turns each of those calls
 * into a decision of its current policy (*how*), carried out with the
 * primitives its backend provides (the hardware).
 *
 *   driver init_context:  ctx = fp_context_create(&cfg, &pgtbl_cfg);
 *                         ops = alloc_io_pgtable_ops(fmt, &pgtbl_cfg, ctx);
 *   driver iotlb_sync:    fp_iotlb_sync(ctx, gather);
 *   driver flush_iotlb_all: fp_flush_iotlb_all(ctx);
 *   driver destroy:       free_io_pgtable_ops(ops); fp_context_destroy(ctx);
 */
#ifndef _FLUSHPOL_H
#define _FLUSHPOL_H

#include <linux/atomic.h>
#include <linux/io-pgtable.h>
#include <linux/iommu.h>
#include <linux/jump_label.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/percpu_counter.h>
#include <linux/types.h>

#define FP_NAME_MAX	16

struct fp_context;
struct fp_recent_maps;

/**
 * struct fp_hw_ops - invalidation primitives of one backend (the hardware)
 * @inv_va: invalidate by VA, one command per @granule in [@iova, @iova +
 *	@size).  @leaf: only last-level entries; otherwise walk caches too.
 * @inv_range: optional; invalidate [@iova, @iova + @size) with the fewest
 *	range commands the hardware has.  Returns how many it issued.
 * @inv_context: invalidate everything tagged with this context's ASID (or
 *	VMID for stage 2).
 * @inv_all: optional; invalidate every context the TLB holds.
 * @sync: wait for every command issued so far on this context to complete.
 *	Returns 0, or -ETIMEDOUT when the hardware did not answer in time.
 * @inv_va_sync: optional; @inv_va, then @sync, as one operation: a backend
 *	whose queue can take the commands and their sync in one go (SMMUv3:
 *	one hold of the queue's lock) saves the second.  Returns as @sync.
 * @inv_range_sync: optional; likewise @inv_range then @sync; the commands
 *	issued in *@n.
 * @inv_leaf_sync: optional; the strict unmap of one leaf, as the core's
 *	one-leaf path sends it (&fp_policy.one_leaf): the one command for the
 *	leaf of @size bytes at @iova (@size one of the page table's page
 *	sizes, so a power of two of granules, and @iova aligned to it), by
 *	range if @range (a backend with @inv_range) and by VA otherwise,
 *	then @sync, as one operation.  It is given the context's
 *	&fp_context_cfg.priv, not the context: the fastest path of a strict
 *	unmap calls back into nothing.  It must send what @inv_range_sync or
 *	@inv_va_sync would for that leaf: one command.  Returns as @sync.
 * @clock: optional; the time, in ns, that the adaptive policy measures
 *	commands and syncs with.  NULL: ktime_get_ns().  A model backend
 *	returns the time its model charges, so that the same estimator runs
 *	in tests as in production.
 *
 * None of the invalidation calls waits: completion is only known after
 * @sync returns 0.  Several CPUs may call these for the same context at
 * once (concurrent unmaps); a @sync must complete every command issued on
 * the context before it, from any CPU.
 */
struct fp_hw_ops {
	void (*inv_va)(struct fp_context *ctx, unsigned long iova, size_t size,
		       size_t granule, bool leaf);
	unsigned int (*inv_range)(struct fp_context *ctx, unsigned long iova,
				  size_t size, size_t granule, bool leaf);
	void (*inv_context)(struct fp_context *ctx);
	void (*inv_all)(struct fp_context *ctx);
	int (*sync)(struct fp_context *ctx);
	int (*inv_va_sync)(struct fp_context *ctx, unsigned long iova,
			   size_t size, size_t granule, bool leaf);
	int (*inv_range_sync)(struct fp_context *ctx, unsigned long iova,
			      size_t size, size_t granule, bool leaf,
			      unsigned int *n);
	int (*inv_leaf_sync)(void *priv, unsigned long iova, size_t size,
			     bool range);
	u64 (*clock)(struct fp_context *ctx);
};

/**
 * struct fp_context_cfg - what a backend says about a new context
 * @backend: backend name, for example "smmuv3"; shown in sysfs.
 * @instance: name of the IOMMU instance, for example "smmuv3.0"; the
 *	context's sysfs name is "<instance>-asid<id>" (or "-vmid<id>").
 * @owner: module providing @ops, pinned while the context lives.
 * @ops: the hardware primitives.
 * @id: ASID, or VMID when @stage2.
 * @stage2: the context translates IPAs and is tagged by VMID.
 * @lazy: non-strict: unmaps are queued and ended by flush_iotlb_all.
 * @default_policy: policy the backend picks for this hardware, used when
 *	the default_policy module parameter is "auto".
 * @default_threshold: initial threshold, in TLB entries.
 * @walk_ns: what one TLB miss costs the device, in ns (a page walk), for
 *	the adaptive policy; 0: FP_WALK_NS_DEFAULT.  At most FP_WALK_NS_MAX.
 * @tlb_entries: how many of the context's entries the TLB can hold live,
 *	for the adaptive policy; 0: FP_TLB_ENTRIES_DEFAULT.  At most
 *	FP_THRESHOLD_MAX.
 * @priv: backend data, returned by fp_context_priv().
 * @lazy_policy: optional; for a backend whose domain can turn lazy with
 *	no call into it (the IOMMU core makes a DMA domain DMA-FQ in place
 *	when its group's type is written): NULL while the context is strict,
 *	then the policy the backend gives it lazy.  Asked in process context
 *	whenever sysfs shows or sets the context's type or policy, which
 *	then follow (fp_context_set_lazy()).
 * @dev: optional; the device the context is created for, named in the
 *	journal.  Devices are linked to the context as they attach
 *	(fp_context_link_device()).
 *
 * Software cannot measure @walk_ns and @tlb_entries; both can be
 * overridden in sysfs (adaptive/).
 */
struct fp_context_cfg {
	const char *backend;
	const char *instance;
	struct module *owner;
	const struct fp_hw_ops *ops;
	u32 id;
	bool stage2;
	bool lazy;
	const char *default_policy;
	unsigned int default_threshold;
	unsigned int walk_ns;
	unsigned int tlb_entries;
	void *priv;
	const char *(*lazy_policy)(const struct fp_context *ctx);
	struct device *dev;
};

/*
 * The adaptive policy's defaults, from the seed threads (SM8150, SMMUv2):
 * 8192 TLBIVAs took 1033 us, so a command about 126 ns; a 4K unmap, one
 * TLBIVA and its sync, 1.854 us, so a sync about 1728 ns.  A miss: vSVA
 * lost 3 GB/s of 9 on 10 GB moved to 4.42 M extra TLB misses, about
 * 126 ns each.  The TLB size is an assumption, to be set per system.
 */
#define FP_CMD_NS_DEFAULT	126
#define FP_SYNC_NS_DEFAULT	1728
#define FP_WALK_NS_DEFAULT	126
#define FP_TLB_ENTRIES_DEFAULT	2048
#define FP_WALK_NS_MAX		1000000

/**
 * struct fp_estimate - a context's costs, as the adaptive policy sees them
 * @base_ns16: one command and its sync, in ns << 4; moving average of the
 *	flushes of one command the policy timed
 * @cmd_ns16: each further command, in ns << 4; moving average of what
 *	flushes of several commands took beyond @base_ns16, per command
 * @walk_ns: one TLB miss, in ns; the backend's, or set in sysfs
 * @tlb_entries: entries of the context the TLB can hold; likewise
 * @samples: flushes timed so far
 * @resident: granules mapped through fp_map() and not unmapped since
 * @maps_seen: fp_map() was used on the context
 * @untracked_maps: fp_map() was used, or fp_unmap() may have been, while
 *	the estimate was not kept (no registered policy sets
 *	&fp_policy.reads_estimate): @resident misses those maps, or their
 *	unmaps, for good (core only)
 * @recent: per CPU, when fp_map() last mapped each of a few IOVAs, from
 *	which fp_unmap() tells how much of @resident is streamed (core only)
 *
 * Written without a lock by whoever times a flush: a lost or mixed update
 * makes an estimate worse for a while, never an invalidation wrong.
 * @resident means something only with @maps_seen and not
 * @untracked_maps; otherwise the footprint is unknown, taken as the TLB
 * full (fp_estimate_footprint()).
 */
struct fp_estimate {
	unsigned int base_ns16;
	unsigned int cmd_ns16;
	unsigned int walk_ns;
	unsigned int tlb_entries;
	unsigned long samples;
	struct percpu_counter resident;
	bool maps_seen;
	bool untracked_maps;
	struct fp_recent_maps __percpu *recent;
};

/* &fp_policy.one_leaf */
enum fp_one_leaf {
	FP_ONE_LEAF_POLICY,
	FP_ONE_LEAF_VA,
	FP_ONE_LEAF_PRECISE,
};

/**
 * struct fp_policy - one way of turning flush requests into commands
 * @name: unique name, at most FP_NAME_MAX - 1 characters.
 * @owner: THIS_MODULE; pinned by every context that uses the policy.
 * @usable: optional; whether @ctx can use this policy (hardware feature,
 *	strict or lazy).  Policies failing it are not listed for @ctx.
 * @flush_walk: a table covering [@iova, @iova + @size) is about to be freed.
 *	Must invalidate leaf and walk entries for it and call fp_sync()
 *	before returning.
 * @flush_gather: end of a strict unmap.  @gather holds every leaf unmapped
 *	since the last call (it may be empty).  Must leave no leaf entry for
 *	it once it returns, normally by ending with fp_sync(); nothing is
 *	needed when fp_gather_covered() says so.
 * @flush_context: optional; invalidate the whole context and sync.  Used
 *	for flush_iotlb_all and tlb_flush_all; the default is
 *	fp_flush_context().
 * @one_leaf: what the policy sends for a gather of one leaf that no flush
 *	covered, if it is one precise command and a sync: FP_ONE_LEAF_VA (by
 *	VA), FP_ONE_LEAF_PRECISE (by range where the backend has range
 *	commands, by VA otherwise).  The core then sends it itself, without
 *	calling @flush_gather or pinning the policy (fp_iotlb_sync()): it
 *	copies @one_leaf into the context when the policy is installed, so
 *	that path reads nothing of the policy's.  A policy that sets it
 *	promises that its @flush_gather would send exactly that, and nothing
 *	more, for such a gather: nothing else it does there runs for one.
 *	0: always call @flush_gather.
 * @reads_estimate: the policy reads the context's footprint
 *	(fp_estimate_footprint() and what uses it): the core counts what
 *	fp_map() and fp_unmap() map and unmap, for every context, only
 *	while such a policy is registered.  A context that mapped through
 *	fp_map() before then has an unknown footprint from then on: the TLB
 *	full.
 * @times_flushes: the policy times its flushes and learns their cost
 *	(fp_estimate_sample_due(), fp_estimate_sample()), sending them as
 *	the backend's one commands-and-sync operation (fp_inv_va_sync(),
 *	fp_inv_range_sync()): the flushes the core sends for @one_leaf are
 *	timed too, around the same operation.
 * @list: registry linkage, owned by the core.
 *
 * Every field but @list is read when the policy is registered and when it
 * is installed in a context: none may change while it is registered.
 * Each call runs inside a read section of the core's SRCU, which keeps
 * the policy's module loaded until it returns (the core's own policies,
 * which cannot go away, are called without one), and outside any RCU read
 * section of the core's.  Policies must not sleep: they are called where
 * io-pgtable and the IOMMU core unmap, spinlocks held.  They issue commands
 * only through the fp_*() helpers below, which keep the statistics and
 * tracepoints honest.
 */
struct fp_policy {
	const char *name;
	struct module *owner;
	bool (*usable)(const struct fp_context *ctx);
	void (*flush_walk)(struct fp_context *ctx, unsigned long iova,
			   size_t size, size_t granule);
	void (*flush_gather)(struct fp_context *ctx,
			     const struct iommu_iotlb_gather *gather);
	void (*flush_context)(struct fp_context *ctx);
	enum fp_one_leaf one_leaf;
	bool reads_estimate;
	bool times_flushes;
	struct list_head list;
};

/* Per-context counters, one sysfs file each under stats/. */
enum fp_stat {
	FP_STAT_UNMAPS,
	FP_STAT_PAGES,
	FP_STAT_WALKS,
	FP_STAT_TLBI_VA,
	FP_STAT_TLBI_RANGE,
	FP_STAT_TLBI_ASID,
	FP_STAT_TLBI_ALL,
	FP_STAT_SYNCS,
	FP_STAT_SYNC_TIMEOUTS,
	FP_STAT_NR,
};

/*
 * A policy built as a module of its own declares itself with
 * MODULE_FP_POLICY("<name>"): writing <name> to a context's policy file
 * then loads it, as modprobe flushpol-policy-<name>.  No other module is
 * ever loaded for a name written there.
 */
#define FP_POLICY_ALIAS			"flushpol-policy-"
#define MODULE_FP_POLICY(name)		MODULE_ALIAS(FP_POLICY_ALIAS name)

struct kernel_param;
bool fp_param_live(const struct kernel_param *kp);
int fp_param_refuse(const struct kernel_param *kp, const char *val,
		    const char *fallback);
extern const struct kernel_param_ops fp_param_bool_ops;

int fp_policy_register(struct fp_policy *pol);
int fp_policy_unregister(struct fp_policy *pol);

struct fp_context *fp_context_create(const struct fp_context_cfg *cfg,
				     struct io_pgtable_cfg *pgtbl_cfg);
void fp_context_destroy(struct fp_context *ctx);
int fp_context_set_policy(struct fp_context *ctx, const char *name);
int fp_context_reset_policy(struct fp_context *ctx);
void fp_context_link_device(struct fp_context *ctx, struct device *dev);
void fp_device_unlink(struct device *dev);
void fp_context_set_lazy(struct fp_context *ctx, const char *policy);
int fp_context_set_threshold(struct fp_context *ctx, unsigned long pages);
int fp_context_set_walk_ns(struct fp_context *ctx, unsigned long ns);
int fp_context_set_tlb_entries(struct fp_context *ctx, unsigned long entries);

void fp_iotlb_sync(struct fp_context *ctx, struct iommu_iotlb_gather *gather);
void fp_flush_iotlb_all(struct fp_context *ctx);
size_t fp_unmap(struct fp_context *ctx, struct io_pgtable_ops *ops,
		unsigned long iova, size_t size,
		struct iommu_iotlb_gather *gather);
int fp_map(struct fp_context *ctx, struct io_pgtable_ops *ops,
	   unsigned long iova, phys_addr_t paddr, size_t pgsize,
	   size_t pgcount, int prot, gfp_t gfp, size_t *mapped);

/*
 * The core's: on while the latency histograms are kept, and while a
 * registered policy reads the estimate; fp_unmap() then has work to do for
 * every unmap.
 */
DECLARE_STATIC_KEY_FALSE(fp_latency_key);
DECLARE_STATIC_KEY_FALSE(fp_estimate_key);

/**
 * fp_unmap_smallest() - whether an unmap can hold only pages of the
 *	smallest size
 * @pgsize_bitmap: the page table's page sizes
 * @size: bytes unmapped, a multiple of the smallest size
 *
 * All of its pages are of the smallest size when no larger size fits in
 * @size.  Those are leaves of the last level, whose unmap frees no table of
 * its own (core/coverage.c, W1): a walk flush it causes (arm-v7s splitting
 * a contiguous entry) names no freed table, so a record of the call would
 * cover nothing with it.  That it starts on a page is the caller's check.
 *
 * Return: true if no page size larger than the smallest fits in @size.
 */
static inline bool fp_unmap_smallest(unsigned long pgsize_bitmap, size_t size)
{
	unsigned long larger = pgsize_bitmap & (pgsize_bitmap - 1);

	return !larger || size < (larger & -larger);
}

/**
 * fp_unmap_pages() - a driver's &iommu_domain_ops.unmap_pages, through
 *	flushpol
 * @ctx: the context
 * @ops: its page table
 * @iova: as &iommu_domain_ops.unmap_pages
 * @pgsize: likewise
 * @pgcount: likewise
 * @gather: likewise, or NULL as for fp_unmap()
 *
 * fp_unmap() of @pgsize * @pgcount bytes, with the common case inline: pages
 * of the smallest size, where no larger one fits, into a caller's gather,
 * while neither the latency histograms nor the estimate are kept.  Those go
 * straight to io-pgtable, as fp_unmap() sends them: they free no table, so
 * they need no record of the call (core/coverage.c), and their leaves are
 * gathered by the core's tlb_add_page for the policy read at the sync.
 *
 * Return: bytes unmapped, as &iommu_domain_ops.unmap_pages; on that path as
 * io-pgtable answers, which may be short of a run of pages crossing a table
 * (the IOMMU core sends the rest again), otherwise as fp_unmap().
 */
static inline size_t fp_unmap_pages(struct fp_context *ctx,
				    struct io_pgtable_ops *ops,
				    unsigned long iova, size_t pgsize,
				    size_t pgcount,
				    struct iommu_iotlb_gather *gather)
{
	unsigned long bitmap = io_pgtable_ops_to_pgtable(ops)->cfg.pgsize_bitmap;

	if (likely(gather && pgsize == (bitmap & -bitmap) &&
		   IS_ALIGNED(iova, pgsize) &&
		   fp_unmap_smallest(bitmap, pgsize * pgcount)) &&
	    !static_branch_unlikely(&fp_latency_key) &&
	    !static_branch_unlikely(&fp_estimate_key))
		return ops->unmap_pages(ops, iova, pgsize, pgcount, gather);
	return fp_unmap(ctx, ops, iova, pgsize * pgcount, gather);
}

/* Accessors for backends and policies. */
void *fp_context_priv(const struct fp_context *ctx);
bool fp_context_has_range(const struct fp_context *ctx);
bool fp_context_is_lazy(const struct fp_context *ctx);
unsigned int fp_context_threshold(const struct fp_context *ctx);
u64 fp_context_stat(struct fp_context *ctx, enum fp_stat stat);
void fp_context_reset_stats(struct fp_context *ctx);
struct fp_estimate *fp_context_estimate(struct fp_context *ctx);
u64 fp_context_clock(struct fp_context *ctx);
bool fp_estimate_sample_due(struct fp_estimate *e);
void fp_estimate_sample(struct fp_estimate *e, unsigned long n, u64 t);
unsigned long fp_estimate_footprint(struct fp_estimate *e);
unsigned long fp_estimate_streamed(struct fp_estimate *e);
unsigned long fp_estimate_crossover(struct fp_estimate *e);
bool fp_estimate_precise_cheaper(struct fp_estimate *e, unsigned long n);

/* Command helpers for policies: each is one decision, counted and traced. */
void fp_inv_va(struct fp_context *ctx, unsigned long iova, size_t size,
	       size_t granule, bool leaf);
unsigned int fp_inv_range(struct fp_context *ctx, unsigned long iova,
			  size_t size, size_t granule, bool leaf);
void fp_inv_context(struct fp_context *ctx);
int fp_sync(struct fp_context *ctx);
int fp_inv_va_sync(struct fp_context *ctx, unsigned long iova, size_t size,
		   size_t granule, bool leaf);
int fp_inv_range_sync(struct fp_context *ctx, unsigned long iova,
		      size_t size, size_t granule, bool leaf,
		      unsigned int *sent);
int fp_flush_context(struct fp_context *ctx);
bool fp_gather_covered(struct fp_context *ctx,
		       const struct iommu_iotlb_gather *gather);

/**
 * fp_gather_pages() - number of TLB entries a gather names
 * @gather: a gather filled by the flushpol core
 *
 * The core syncs before a gather would become discontiguous or change page
 * size, so the count is exact.
 *
 * Return: entries of @gather->pgsize in the gathered range, 0 if empty.
 */
static inline unsigned long
fp_gather_pages(const struct iommu_iotlb_gather *gather)
{
	if (!gather->pgsize || gather->end < gather->start)
		return 0;
	return (gather->end - gather->start + 1) / gather->pgsize;
}

#endif /* _FLUSHPOL_H */
