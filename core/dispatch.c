// SPDX-License-Identifier: GPL-2.0-only
/*
 * Dispatch: the one struct iommu_flush_ops every flushpol context gives
 * io-pgtable, and the driver's iotlb_sync/flush_iotlb_all, each handed to
 * the context's current policy.  The command helpers policies use to reach
 * the backend live here too, so that every command is counted and traced in
 * one place.
 */
#define pr_fmt(fmt) "flushpol: " fmt

#include <linux/lockdep.h>
#include <linux/ratelimit.h>
#include <linux/srcu.h>

#include "fp_core.h"
#include "fp_trace.h"

/*
 * Which policy to call, and what keeps it alive during the call.
 *
 * A policy in a module of its own, or registered by another module, is
 * called inside a read section of fp_policy_srcu: the context's policy
 * pointer is read inside it, and it is held until the call returns, and
 * the switch (fp_context_set_policy()) waits for every such section with
 * fp_policy_wait_calls() before it drops its reference to the old policy's
 * module.  So a policy module cannot be unloaded while one of its calls is
 * running, the pointer a call reads is the one it runs, and once a switch
 * returns the old policy's module can be removed at once.
 *
 * The built-in policies (va, range, asid, nonstrict, threshold) need no
 * such pin: they live in this module, which outlives every context, so
 * nothing a switch or an unregistration does can free one under a call.  A call
 * reads the pointer once and, if it is one of them (compared as an
 * address, never read through before it is known to be), calls it with
 * no read section; any other pointer is read again inside one.  Tree
 * SRCU's read side is two out-of-line calls with a full barrier each, a
 * fixed cost of every 4K unmap, for a pin that only a policy that can go
 * away needs (fixed_cost_parts_reported in kunit/bench_scale.c prices it).
 *
 * SRCU, not RCU: one policy call may send hundreds of thousands of
 * commands and wait for their sync (va freeing a table of 1G: 262144),
 * which inside an RCU read section holds up every grace period on the
 * machine for as long (an RCU stall in the arm64 test kernel under TCG,
 * 28 s).  An SRCU read section holds up only the grace periods of
 * fp_policy_srcu, which only switches and unregistration wait for.  Its
 * read side writes only this CPU's counters (tree SRCU) or nothing shared
 * at all (tiny SRCU, uniprocessor): no cache line bounces between CPUs
 * unmapping at once.  A read section may be taken from interrupts too
 * (flush_iotlb_all from a lazy flush timer), never from NMI.
 *
 * One call per walk flush, gather and context flush: never per leaf, and
 * the policy itself runs outside any RCU read section, as long as it does
 * not take one itself.  Policies must still not sleep: they are called
 * wherever io-pgtable and the IOMMU core unmap, spinlocks held.  An SRCU
 * read section would let one sleep unseen until a driver called it from
 * atomic context, so every call, pinned or not, is also a non-blocking
 * section: with CONFIG_DEBUG_ATOMIC_SLEEP a sleeping policy or backend
 * primitive warns at once, from any caller (nothing without it).  Except
 * on PREEMPT_RT, where a spinlock_t sleeps: see fp_policy_call_begin().
 */
DEFINE_STATIC_SRCU(fp_policy_srcu);

#ifdef CONFIG_PREEMPT_RT
/*
 * On PREEMPT_RT a spinlock_t is a sleeping lock (an rt_mutex), and the
 * IOMMU core's own unmap path takes them (iommu-dma's IOVA caches and
 * flush queue): its callers may be preemptible, but are never where a
 * spinlock_t may not be taken.  A policy or backend may then take one too,
 * which non_block_start() would report on every call.  Instead the call
 * holds a lock of spinlock_t's wait type, and lockdep reports what a
 * spinlock_t holder may not do: take a mutex or an rwsem inside, or be
 * called under a raw_spinlock_t or from a hard interrupt handler.
 */
#ifdef CONFIG_DEBUG_LOCK_ALLOC
static struct lock_class_key fp_policy_call_key;
static struct lockdep_map fp_policy_call_map = {
	.name = "fp_policy_call",
	.key = &fp_policy_call_key,
	.wait_type_inner = LD_WAIT_CONFIG,
};
#endif

static void fp_policy_call_begin(void)
{
	lock_map_acquire_read(&fp_policy_call_map);
}

static void fp_policy_call_end(void)
{
	lock_map_release(&fp_policy_call_map);
}
#else
static void fp_policy_call_begin(void)
{
	non_block_start();
}

static void fp_policy_call_end(void)
{
	non_block_end();
}
#endif

/*
 * The context's policy, and *@idx: its read section, or -1 for a built-in
 * policy, which needs none.  Sparse sees a section either way.
 */
static struct fp_policy *fp_policy_pin(struct fp_context *ctx, int *idx)
	__acquires(&fp_policy_srcu)
{
	struct fp_policy *pol = rcu_access_pointer(ctx->policy);

	if (fp_policy_builtin(pol)) {
		__acquire(&fp_policy_srcu);
		*idx = -1;
	} else {
		*idx = srcu_read_lock(&fp_policy_srcu);
		pol = srcu_dereference(ctx->policy, &fp_policy_srcu);
	}
	fp_policy_call_begin();
	return pol;
}

static void fp_policy_unpin(int idx)
	__releases(&fp_policy_srcu)
{
	fp_policy_call_end();
	if (idx < 0)
		__release(&fp_policy_srcu);
	else
		srcu_read_unlock(&fp_policy_srcu, idx);
}

/**
 * fp_policy_wait_calls() - wait for every policy call in flight to return
 *
 * Once it returns, a policy no longer any context's can be released: no
 * call into it is running, and none can start.
 *
 * Expedited: a normal SRCU grace period sleeps between its scans of the
 * readers' counters, jiffies at a time (under TCG, with I/O, a switch
 * every 640 ms where the fio integrity run asked for one every 10 ms).
 * An expedited one scans again at once; unlike RCU's, it sends no IPIs
 * and costs no one but the waiter and the workqueue that drives
 * fp_policy_srcu, and it waits for the same readers.
 *
 * Context: process context; may sleep.
 */
void fp_policy_wait_calls(void)
{
	synchronize_srcu_expedited(&fp_policy_srcu);
}

static void fp_call_walk(struct fp_context *ctx, struct fp_policy *pol,
			 unsigned long iova, size_t size, size_t granule)
{
	trace_flushpol_walk(ctx->name, pol->name, iova, size, granule);
	pol->flush_walk(ctx, iova, size, granule);
}

static void fp_dispatch_walk(struct fp_context *ctx, unsigned long iova,
			     size_t size, size_t granule)
{
	struct fp_policy *pol;
	struct fp_call *c;
	int token, idx;

	c = fp_cov_walk_begin(ctx, size, granule, &token);
	fp_stat_add(ctx, FP_STAT_WALKS, 1);
	fp_stat_add(ctx, FP_STAT_PAGES, size / granule);

	pol = fp_policy_pin(ctx, &idx);
	fp_call_walk(ctx, pol, iova, size, granule);
	fp_policy_unpin(idx);

	if (c)
		fp_cov_walk_done(c, token, iova, size);
}

static void fp_call_gather(struct fp_context *ctx, struct fp_policy *pol,
			   const struct iommu_iotlb_gather *gather,
			   const struct fp_gather *fg)
{
	trace_flushpol_gather(ctx->name, pol->name, gather->start, gather->end,
			      gather->pgsize);
	pol->flush_gather(ctx, &fg->g);
}

/**
 * fp_dispatch_gather() - hand a gather to the context's current policy
 * @ctx: the context
 * @gather: the leaves
 * @c: the fp_unmap() call whose own gather @gather is, or NULL
 * @early: fp_unmap() hands a covered gather over before the caller's own
 *	iotlb_sync, which will sync (see va)
 *
 * Policies get a copy that also says whether it is covered (coverage.c);
 * only a call's own gather can be.  Leaves its walks covered were counted
 * as pages with the walk, the others are counted here.
 */
void fp_dispatch_gather(struct fp_context *ctx,
			const struct iommu_iotlb_gather *gather,
			struct fp_call *c, bool early)
{
	struct fp_gather fg = {
		.g.start = gather->start,
		.g.end = gather->end,
		.g.pgsize = gather->pgsize,
		.covered = c && fp_cov_covered(c),
		.early = early,
	};
	unsigned long pages = fp_gather_pages(gather);
	struct fp_policy *pol;
	int idx;

	if (c)
		pages -= c->walk_leaves;
	if (pages)
		fp_stat_add(ctx, FP_STAT_PAGES, pages);

	pol = fp_policy_pin(ctx, &idx);
	fp_call_gather(ctx, pol, gather, &fg);
	fp_policy_unpin(idx);
}

static void fp_tlb_flush_walk(unsigned long iova, size_t size, size_t granule,
			      void *cookie)
{
	fp_dispatch_walk(cookie, iova, size, granule);
}

#ifdef FP_KCSAN_PLANTED
/*
 * make kcsan-planted's proof that the KCSAN run can fail: each leaf
 * gathered, in any context, reads the last leaf gathered plainly, and
 * stores its own with WRITE_ONCE() if it differs: a data race with every
 * other CPU gathering leaves at the time.  On the hottest path there is (once per
 * leaf), and shared by all contexts, so that KCSAN's sampling meets it
 * within a short run.  Only that build defines FP_KCSAN_PLANTED, and only
 * against a KCSAN kernel (Kbuild).  No "kcsan_" in the names: KCSAN's
 * reports leave out every frame whose function has it, as its own runtime.
 */
static unsigned long fp_planted_last;

static noinline void fp_planted_race(unsigned long iova)
{
	if (fp_planted_last != iova)
		WRITE_ONCE(fp_planted_last, iova);
}
#else
static inline void fp_planted_race(unsigned long iova)
{
}
#endif

/*
 * Leaves are only gathered here; the policy current at iotlb_sync decides
 * how to invalidate them.  That is what makes a policy switch between
 * add_page and iotlb_sync safe.  Every leaf is gathered, even one a walk
 * flush covered, so that va sends what upstream sends; policies that care
 * ask fp_gather_covered().
 */
static void fp_tlb_add_page(struct iommu_iotlb_gather *gather,
			    unsigned long iova, size_t granule, void *cookie)
{
	struct fp_call *c = fp_call_of_gather(gather);

	/* The gather so far first, before this leaf can count against it. */
	if ((gather->pgsize && gather->pgsize != granule) ||
	    iommu_iotlb_gather_is_disjoint(gather, iova, granule)) {
		fp_dispatch_gather(cookie, gather, c, false);
		gather->start = ULONG_MAX;
		gather->end = 0;
		if (c)
			fp_cov_reset(c);
	}
	if (c)
		fp_cov_leaf(c, iova, granule);
	fp_planted_race(iova);
	gather->pgsize = granule;
	iommu_iotlb_gather_add_range(gather, iova, granule);
}

static void fp_tlb_flush_all(void *cookie)
{
	fp_flush_iotlb_all(cookie);
}

const struct iommu_flush_ops fp_flush_ops = {
	.tlb_flush_all	= fp_tlb_flush_all,
	.tlb_flush_walk	= fp_tlb_flush_walk,
	.tlb_add_page	= fp_tlb_add_page,
};

/* Commands a backend issued, counted and traced: one place for each kind. */
static void fp_inv_va_counted(struct fp_context *ctx, unsigned long iova,
			      size_t size, size_t granule, bool leaf)
{
	unsigned long n = size / granule;

	fp_stat_add(ctx, FP_STAT_TLBI_VA, n);
	trace_flushpol_inv(ctx->name, leaf ? "va-leaf" : "va", iova, size, n);
}

static void fp_inv_range_counted(struct fp_context *ctx, unsigned long iova,
				 size_t size, bool leaf, unsigned int n)
{
	fp_stat_add(ctx, FP_STAT_TLBI_RANGE, n);
	trace_flushpol_inv(ctx->name, leaf ? "range-leaf" : "range", iova,
			   size, n);
}

static noinline void __cold fp_sync_failed_slow(struct fp_context *ctx,
						int ret)
{
	fp_cov_sync_failed(ctx);
	fp_stat_add(ctx, FP_STAT_SYNC_TIMEOUTS, 1);
	pr_err_ratelimited("%s: TLB sync failed: %d\n", ctx->name, ret);
}

/* Out of the way of the syncs that succeed: a test and no call for them. */
static inline void fp_sync_failed(struct fp_context *ctx, int ret)
{
	if (unlikely(ret))
		fp_sync_failed_slow(ctx, ret);
}

/* The gather's tracepoint on the one-leaf path, with the policy pinned. */
static void fp_trace_leaf_gather(struct fp_context *ctx,
				 const struct iommu_iotlb_gather *gather)
{
	struct fp_policy *pol;
	int idx;

	pol = fp_policy_pin(ctx, &idx);
	trace_flushpol_gather(ctx->name, pol->name, gather->start, gather->end,
			      gather->pgsize);
	fp_policy_unpin(idx);
}

/* What the one-leaf path sent: the sync's answer, and how many commands. */
struct fp_leaf_sent {
	int ret;
	unsigned int n;
};

/*
 * The one-leaf path's command and sync through the backend's general
 * operations, for a backend without &fp_hw_ops.inv_leaf_sync.  Returned
 * by value, so that the fast path's frame has nothing whose address is
 * taken (no stack canary for it).
 */
static noinline struct fp_leaf_sent
fp_sync_leaf_ops(struct fp_context *ctx, const struct fp_hw_ops *ops,
		 const struct iommu_iotlb_gather *gather, bool range)
{
	struct fp_leaf_sent s = { .n = 1 };

	if (range)
		s.ret = ops->inv_range_sync(ctx, gather->start, gather->pgsize,
					    gather->pgsize, true, &s.n);
	else
		s.ret = ops->inv_va_sync(ctx, gather->start, gather->pgsize,
					 gather->pgsize, true);
	return s;
}

/*
 * A strict unmap's gather of one leaf, under a policy that sends for it
 * one precise command and a sync (&fp_policy.one_leaf): sent here, with
 * the backend's one-leaf operation (&fp_hw_ops.inv_leaf_sync), or its
 * command-and-sync operation where it has none, as the policy would send it,
 * timed as the policy would time it (&fp_policy.times_flushes), and
 * counted with one add (fp_stats.leaf), not four.  What to send is the
 * context's policy's as read now, at the sync, as for every gather, from
 * the copy the context keeps (&fp_context.leaf): nothing of the policy is
 * read, so nothing needs pinning, built in or not (except to trace its
 * name).  No fp_unmap() record covers what its gather holds: leaves
 * gathered with none (fp_unmap_leaves(), or the driver's own unmaps), of
 * one call or of several merged into the gather; so nothing covers it
 * (coverage.c, G), as flush_gather would have been told.
 *
 * @lat: time the command and its sync into the context's sync histogram
 * (latency.c); a constant, so that the untimed copy reads no clock for it.
 *
 * Return: false, having done nothing, if the policy or the backend cannot
 * take this path.
 */
static __always_inline bool fp_sync_leaf(struct fp_context *ctx,
					 const struct iommu_iotlb_gather *gather,
					 bool lat)
{
	const struct fp_hw_ops *ops = ctx->cfg.ops;
	unsigned int mode = READ_ONCE(ctx->leaf);
	struct fp_leaf_sent s = { .n = 1 };
	unsigned int n;
	bool range, timed;
	u64 t0 = 0, t = 0;
	int ret;

	if (!(mode & FP_LEAFMODE_ONE))
		return false;
	range = (mode & FP_LEAFMODE_ONE) == FP_ONE_LEAF_PRECISE && ops->inv_range;
	if (!ops->inv_leaf_sync &&
	    (range ? !ops->inv_range_sync : !ops->inv_va_sync))
		return false;

	if (trace_flushpol_gather_enabled())
		fp_trace_leaf_gather(ctx, gather);
	timed = (mode & FP_LEAFMODE_TIMED) && fp_estimate_sample_due(&ctx->est);
	if (timed || lat)
		t0 = fp_context_clock(ctx);
	fp_policy_call_begin();
	if (ops->inv_leaf_sync)
		s.ret = ops->inv_leaf_sync(ctx->cfg.priv, gather->start,
					   gather->pgsize, range);
	else
		s = fp_sync_leaf_ops(ctx, ops, gather, range);
	fp_policy_call_end();
	ret = s.ret;
	n = s.n;
	if (timed || lat)
		t = fp_context_clock(ctx) - t0;
	if (timed && !ret && n)
		fp_estimate_sample(&ctx->est, n, t);
	if (lat)
		fp_lat_record(ctx, FP_LAT_SYNC, t);
	trace_flushpol_inv(ctx->name, range ? "range-leaf" : "va-leaf",
			   gather->start, gather->pgsize, n);
	fp_stat_add_leaf(ctx, range ? FP_LEAF_RANGE : FP_LEAF_VA);
	/* A backend's range commands for one page are one, but count them. */
	if (n != 1)
		fp_stat_add(ctx, FP_STAT_TLBI_RANGE, n - 1);
	trace_flushpol_sync(ctx->name, ret);
	fp_sync_failed(ctx, ret);
	return true;
}

/* fp_iotlb_sync()'s work; @lat: time the one-leaf path's sync. */
static __always_inline void fp_iotlb_sync_body(struct fp_context *ctx,
					       struct iommu_iotlb_gather *gather,
					       bool lat)
{
	if (iommu_iotlb_gather_queued(gather))
		return;
	/* One leaf, without fp_gather_pages()'s division. */
	if (gather->pgsize && gather->end - gather->start + 1 == gather->pgsize &&
	    fp_sync_leaf(ctx, gather, lat))
		return;
	fp_stat_add(ctx, FP_STAT_UNMAPS, 1);
	fp_dispatch_gather(ctx, gather, NULL, false);
}

/*
 * fp_unmap()'s own gather, ended with its syncs untimed (fp_unmap(), the
 * key off) or timed (fp_unmap_timed(), which times the unmap itself).
 */
void fp_iotlb_sync_untimed(struct fp_context *ctx,
			   struct iommu_iotlb_gather *gather)
{
	fp_iotlb_sync_body(ctx, gather, false);
}

void fp_iotlb_sync_lat(struct fp_context *ctx,
		       struct iommu_iotlb_gather *gather)
{
	fp_iotlb_sync_body(ctx, gather, true);
}

/*
 * The end of a strict unmap, timed: one sample of the unmap histogram,
 * with what this CPU's fp_unmap() calls into a caller's gather took since
 * the last (latency.c).
 */
static noinline void fp_iotlb_sync_timed(struct fp_context *ctx,
					 struct iommu_iotlb_gather *gather)
{
	u64 t0, t;

	if (iommu_iotlb_gather_queued(gather))
		return;
	t0 = fp_context_clock(ctx);
	fp_iotlb_sync_body(ctx, gather, true);
	t = fp_context_clock(ctx) - t0;
	t += atomic64_xchg(&raw_cpu_ptr(ctx->stats)->lat_pending_ns, 0);
	fp_lat_record(ctx, FP_LAT_UNMAP, t);
}

/**
 * fp_iotlb_sync() - the driver's iotlb_sync
 * @ctx: the context
 * @gather: the unmap's gather
 *
 * Ends a strict unmap: once it returns, no leaf entry for anything in
 * @gather survives.  A queued (lazy) gather is left to flush_iotlb_all.
 * Like a driver's iotlb_sync, it leaves re-initialising @gather to the
 * caller.  While the latency histograms are kept, each call is one
 * sample of the unmap histogram, the fp_unmap() calls before it included.
 */
void fp_iotlb_sync(struct fp_context *ctx, struct iommu_iotlb_gather *gather)
{
	if (fp_latency_on()) {
		fp_iotlb_sync_timed(ctx, gather);
		return;
	}
	fp_iotlb_sync_body(ctx, gather, false);
}
EXPORT_SYMBOL_GPL(fp_iotlb_sync);

static void fp_call_flush_all(struct fp_context *ctx, struct fp_policy *pol)
{
	trace_flushpol_flush_all(ctx->name, pol->name);
	if (pol->flush_context)
		pol->flush_context(ctx);
	else
		fp_flush_context(ctx);
}

/**
 * fp_flush_iotlb_all() - the driver's flush_iotlb_all
 * @ctx: the context
 *
 * Invalidates the whole context and waits for it; also what io-pgtable's
 * tlb_flush_all does when the page table is freed.
 */
void fp_flush_iotlb_all(struct fp_context *ctx)
{
	int idx;

	fp_call_flush_all(ctx, fp_policy_pin(ctx, &idx));
	fp_policy_unpin(idx);
}
EXPORT_SYMBOL_GPL(fp_flush_iotlb_all);

/**
 * fp_inv_va() - invalidate by VA, one command per granule
 * @ctx: the context
 * @iova: start of the range
 * @size: length of the range
 * @granule: step between commands
 * @leaf: last-level entries only; otherwise walk caches too
 */
void fp_inv_va(struct fp_context *ctx, unsigned long iova, size_t size,
	       size_t granule, bool leaf)
{
	ctx->cfg.ops->inv_va(ctx, iova, size, granule, leaf);
	fp_inv_va_counted(ctx, iova, size, granule, leaf);
}
EXPORT_SYMBOL_GPL(fp_inv_va);

/**
 * fp_inv_range() - invalidate a range with the backend's range commands
 * @ctx: the context; fp_context_has_range() must be true
 * @iova: start of the range
 * @size: length of the range
 * @granule: the leaf size the range is made of
 * @leaf: last-level entries only; otherwise walk caches too
 *
 * Return: how many commands the backend issued.
 */
unsigned int fp_inv_range(struct fp_context *ctx, unsigned long iova,
			  size_t size, size_t granule, bool leaf)
{
	unsigned int n;

	n = ctx->cfg.ops->inv_range(ctx, iova, size, granule, leaf);
	fp_inv_range_counted(ctx, iova, size, leaf, n);
	return n;
}
EXPORT_SYMBOL_GPL(fp_inv_range);

/**
 * fp_inv_context() - invalidate every entry of the context's ASID or VMID
 * @ctx: the context
 *
 * Falls back to invalidating all contexts when the backend has no
 * per-context command.  Prefer fp_flush_context(), which also syncs and
 * lets fp_gather_covered() know about it.
 */
void fp_inv_context(struct fp_context *ctx)
{
	const struct fp_hw_ops *ops = ctx->cfg.ops;

	if (ops->inv_context) {
		ops->inv_context(ctx);
		fp_stat_add(ctx, FP_STAT_TLBI_ASID, 1);
		trace_flushpol_inv(ctx->name, "context", 0, 0, 1);
	} else {
		ops->inv_all(ctx);
		fp_stat_add(ctx, FP_STAT_TLBI_ALL, 1);
		trace_flushpol_inv(ctx->name, "all", 0, 0, 1);
	}
}
EXPORT_SYMBOL_GPL(fp_inv_context);

/*
 * A sync returned @ret: counted, traced, and a failure recorded (W2) and
 * logged.  Return: @ret.
 */
static int fp_sync_done(struct fp_context *ctx, int ret)
{
	fp_stat_add(ctx, FP_STAT_SYNCS, 1);
	trace_flushpol_sync(ctx->name, ret);
	fp_sync_failed(ctx, ret);
	return ret;
}

/* The backend's sync, timed into the sync histogram (latency.c). */
static noinline int fp_sync_timed(struct fp_context *ctx)
{
	u64 t0 = fp_context_clock(ctx);
	int ret = ctx->cfg.ops->sync(ctx);

	fp_lat_record(ctx, FP_LAT_SYNC, fp_context_clock(ctx) - t0);
	return fp_sync_done(ctx, ret);
}

/**
 * fp_sync() - wait for every command issued on the context
 * @ctx: the context
 *
 * Return: 0, or the backend's error (-ETIMEDOUT), which is counted and
 * logged rate-limited.
 */
int fp_sync(struct fp_context *ctx)
{
	if (fp_latency_on())
		return fp_sync_timed(ctx);
	return fp_sync_done(ctx, ctx->cfg.ops->sync(ctx));
}
EXPORT_SYMBOL_GPL(fp_sync);

/**
 * fp_inv_va_sync() - fp_inv_va(), then fp_sync()
 * @ctx: the context
 * @iova: start of the range
 * @size: length of the range
 * @granule: step between commands
 * @leaf: last-level entries only; otherwise walk caches too
 *
 * Counted and traced as the two calls are, in one backend operation
 * where it has one (&fp_hw_ops.inv_va_sync).
 *
 * Return: as fp_sync().
 */
int fp_inv_va_sync(struct fp_context *ctx, unsigned long iova, size_t size,
		   size_t granule, bool leaf)
{
	const struct fp_hw_ops *ops = ctx->cfg.ops;
	u64 t0 = 0;
	bool lat;
	int ret;

	if (!ops->inv_va_sync) {
		fp_inv_va(ctx, iova, size, granule, leaf);
		return fp_sync(ctx);
	}
	lat = fp_latency_on();
	if (lat)
		t0 = fp_context_clock(ctx);
	ret = ops->inv_va_sync(ctx, iova, size, granule, leaf);
	if (lat)
		fp_lat_record(ctx, FP_LAT_SYNC, fp_context_clock(ctx) - t0);
	fp_inv_va_counted(ctx, iova, size, granule, leaf);
	return fp_sync_done(ctx, ret);
}
EXPORT_SYMBOL_GPL(fp_inv_va_sync);

/**
 * fp_inv_range_sync() - fp_inv_range(), then fp_sync()
 * @ctx: the context; fp_context_has_range() must be true
 * @iova: start of the range
 * @size: length of the range
 * @granule: the leaf size the range is made of
 * @leaf: last-level entries only; otherwise walk caches too
 *
 * @sent: if not NULL, set to the commands sent, as fp_inv_range() returns
 *
 * Counted and traced as the two calls are, in one backend operation
 * where it has one (&fp_hw_ops.inv_range_sync).
 *
 * Return: as fp_sync().
 */
int fp_inv_range_sync(struct fp_context *ctx, unsigned long iova,
		      size_t size, size_t granule, bool leaf,
		      unsigned int *sent)
{
	const struct fp_hw_ops *ops = ctx->cfg.ops;
	unsigned int n = 0;
	u64 t0 = 0;
	bool lat;
	int ret;

	if (!ops->inv_range_sync) {
		n = fp_inv_range(ctx, iova, size, granule, leaf);
		ret = fp_sync(ctx);
	} else {
		lat = fp_latency_on();
		if (lat)
			t0 = fp_context_clock(ctx);
		ret = ops->inv_range_sync(ctx, iova, size, granule, leaf, &n);
		if (lat)
			fp_lat_record(ctx, FP_LAT_SYNC,
				      fp_context_clock(ctx) - t0);
		fp_inv_range_counted(ctx, iova, size, leaf, n);
		ret = fp_sync_done(ctx, ret);
	}
	if (sent)
		*sent = n;
	return ret;
}
EXPORT_SYMBOL_GPL(fp_inv_range_sync);
