// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the adaptive policy knows about a context, kept by the core because
 * the core is what sees it: the time base its flushes are measured with,
 * the entries mapped through fp_map() and not yet unmapped (the footprint
 * a context-wide flush can destroy), how much of that is streamed (used
 * once, so not worth keeping), and what software cannot measure (walk
 * cost, TLB size), from the backend or sysfs, and what the flushes it
 * times teach (fp_estimate_sample()).  The policy itself
 * (policy/adaptive.c) decides.
 */
#define pr_fmt(fmt) "flushpol: " fmt

#include <kunit/visibility.h>
#include <linux/hash.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/overflow.h>
#include <linux/percpu.h>
#include <linux/percpu_counter.h>

#include "fp_core.h"

/*
 * Which mapped granules are streamed.  A buffer that is mapped, used once
 * and unmapped (a packet, a frame) leaves the buffers mapped after it
 * still mapped when it goes, and they go the same way: read once, their
 * TLB entries are not used again, and a context-wide flush costs nothing
 * for them.  So when a buffer is unmapped, the granules mapped after it
 * are taken as streamed, and what is live is what was mapped before it
 * and is still mapped.  For buffers unmapped in the order they were
 * mapped (a ring) that is exactly the long-lived mappings: descriptor
 * rings, a scanout buffer.
 *
 * Per CPU, as the footprint is, so that no map or unmap writes a shared
 * line: each CPU numbers the granules it maps (its clock), and remembers
 * for the last IOVAs it mapped the clock before their map, in a small
 * table indexed by a hash of the IOVA (a newer map takes an older one's
 * slot).  An unmap of an IOVA still there is a sample: the granules this
 * CPU mapped since, less those being unmapped (a buffer mapped in several
 * calls, one per piece, goes in one unmap at its first piece's IOVA).  An
 * IOVA no longer there, or mapped on another CPU, gives none, and the
 * last samples stand; granules other CPUs mapped meanwhile are not
 * counted.  Both err towards live, that is towards precise invalidation,
 * as the footprint alone did.
 *
 * The estimate is the smaller of the CPU's last two samples: a buffer
 * that outlived many shorter ones says that all of them streamed, though
 * they are gone already, and alone it must not make the long-lived
 * mappings look streamed.
 */
#define FP_RECENT_BITS	5

struct fp_recent_maps {
	unsigned long clock;		/* granules this CPU mapped */
	unsigned long streamed[2];	/* its last two samples, newest first */
	struct {
		unsigned long iova;
		unsigned long stamp;	/* 1 + @clock before its map; 0: none */
	} slot[1 << FP_RECENT_BITS];
};

/*
 * Keeping the estimate costs every map and unmap a per-CPU add and a
 * write into this CPU's table of recent maps: paid only while a policy
 * that reads it (&fp_policy.reads_estimate) is registered, behind this
 * key, so that without such a policy the test is a patched-out branch.
 * While it is on, every context's is kept, whatever its policy: a context
 * that comes to adaptive later finds the footprint it has mapped.
 */
struct static_key_false fp_estimate_key = STATIC_KEY_FALSE_INIT;
EXPORT_SYMBOL_GPL(fp_estimate_key);

/*
 * The footprint is a count: maps made while it was not kept (the key
 * off), or unmaps then, which would take back what was counted before,
 * leave it wrong for good.  fp_map() marks a context that maps with the
 * key off; when the key comes on, every context that mapped before is
 * marked too, since its unmaps may have gone uncounted.  Such a context
 * has an unknown footprint from then on: the TLB full, as for a driver
 * that never maps through fp_map(), which leans adaptive towards precise
 * invalidation (never more commands than va).
 *
 * There is no per-context flag for a map to race with: a map or unmap
 * that took the key's off branch while it came on either marks its
 * context itself (fp_map()) or follows a map that set @maps_seen, which
 * the marking below reads after the key is on.  Each errs towards
 * unknown, never towards a count that missed something.
 *
 * Called with fp_contexts_lock held, as every change of the key is, when
 * @pol is registered and when it is withdrawn.
 */
static void fp_estimate_key_inc(void)
{
	struct fp_context *ctx;
	bool was;

	lockdep_assert_held(&fp_contexts_lock);
	was = static_key_enabled(&fp_estimate_key);
	static_branch_inc(&fp_estimate_key);
	if (was)
		return;
	list_for_each_entry(ctx, &fp_contexts, node)
		if (READ_ONCE(ctx->est.maps_seen))
			WRITE_ONCE(ctx->est.untracked_maps, true);
}

#if IS_ENABLED(CONFIG_KUNIT)
static bool fp_estimate_key_held;	/* by fp_estimate_key_suspend() */
static int fp_estimate_key_owed;	/* readers registered, meanwhile */

/*
 * While the benchmarks hold the key off, a reader registered or withdrawn
 * changes what fp_estimate_key_resume() gives back, not the key: the key
 * stays off, and comes back on exactly as many times as readers remain.
 */
static bool fp_estimate_key_deferred(int delta)
{
	if (!fp_estimate_key_held)
		return false;
	fp_estimate_key_owed += delta;
	return true;
}
#else
static inline bool fp_estimate_key_deferred(int delta)
{
	return false;
}
#endif

void fp_estimate_key_get(const struct fp_policy *pol)
{
	lockdep_assert_held(&fp_contexts_lock);
	if (pol->reads_estimate && !fp_estimate_key_deferred(1))
		fp_estimate_key_inc();
}

void fp_estimate_key_put(const struct fp_policy *pol)
{
	lockdep_assert_held(&fp_contexts_lock);
	if (pol->reads_estimate && !fp_estimate_key_deferred(-1))
		static_branch_dec(&fp_estimate_key);
}

#if IS_ENABLED(CONFIG_KUNIT)
/* For the tests: how many registered policies hold the key on. */
int fp_estimate_key_count(void)
{
	return static_key_count(&fp_estimate_key.key);
}
EXPORT_SYMBOL_IF_KUNIT(fp_estimate_key_count);

/*
 * For the benchmarks: the key off as on a machine where no policy that
 * reads the estimate is registered, whatever is registered here, until
 * fp_estimate_key_resume(), which takes it back on as registering them
 * would (contexts that mapped meanwhile: footprint unknown).  Not nested.
 */
void fp_estimate_key_suspend(void)
{
	mutex_lock(&fp_contexts_lock);
	WARN_ON(fp_estimate_key_held);
	fp_estimate_key_held = true;
	fp_estimate_key_owed = static_key_count(&fp_estimate_key.key);
	while (static_key_enabled(&fp_estimate_key))
		static_branch_dec(&fp_estimate_key);
	mutex_unlock(&fp_contexts_lock);
}
EXPORT_SYMBOL_IF_KUNIT(fp_estimate_key_suspend);

void fp_estimate_key_resume(void)
{
	mutex_lock(&fp_contexts_lock);
	WARN_ON(!fp_estimate_key_held || fp_estimate_key_owed < 0);
	fp_estimate_key_held = false;
	for (; fp_estimate_key_owed > 0; fp_estimate_key_owed--)
		fp_estimate_key_inc();
	mutex_unlock(&fp_contexts_lock);
}
EXPORT_SYMBOL_IF_KUNIT(fp_estimate_key_resume);
#endif

/* Whether @e's footprint count means something (fp_estimate_key_get()). */
static bool fp_estimate_known(struct fp_estimate *e)
{
	return READ_ONCE(e->maps_seen) && !READ_ONCE(e->untracked_maps);
}

int fp_estimate_init(struct fp_estimate *e, const struct fp_context_cfg *cfg)
{
	e->base_ns16 = (FP_CMD_NS_DEFAULT + FP_SYNC_NS_DEFAULT) << 4;
	e->cmd_ns16 = FP_CMD_NS_DEFAULT << 4;
	e->walk_ns = cfg->walk_ns ?: FP_WALK_NS_DEFAULT;
	e->tlb_entries = cfg->tlb_entries ?: FP_TLB_ENTRIES_DEFAULT;
	e->recent = alloc_percpu(struct fp_recent_maps);
	if (!e->recent)
		return -ENOMEM;
	/*
	 * Per CPU: every map and unmap call of the context adds to it, on
	 * every CPU doing DMA, and one shared counter would bounce its line
	 * between them.  Adaptive reads it approximately, which is all an
	 * estimate needs (within the counter's batch per CPU).
	 */
	return percpu_counter_init(&e->resident, 0, GFP_KERNEL);
}

/**
 * fp_context_estimate() - the adaptive policy's inputs for a context
 * @ctx: the context
 *
 * Return: its estimate, which lives as long as @ctx.
 */
struct fp_estimate *fp_context_estimate(struct fp_context *ctx)
{
	return &ctx->est;
}
EXPORT_SYMBOL_GPL(fp_context_estimate);

/**
 * fp_context_clock() - the time base flushes of @ctx are measured with
 * @ctx: the context
 *
 * Return: ns, from the backend's &fp_hw_ops.clock or ktime_get_ns().
 */
u64 fp_context_clock(struct fp_context *ctx)
{
	const struct fp_hw_ops *ops = ctx->cfg.ops;

	return ops->clock ? ops->clock(ctx) : ktime_get_ns();
}
EXPORT_SYMBOL_GPL(fp_context_clock);

/*
 * The costs a policy that times its flushes learns (&fp_policy.
 * times_flushes): the time of one command and its sync, and of each
 * command beyond the first, moving averages of 1/8 per sample, each sample
 * capped at four times its average so that a preempted or interrupted
 * flush does not swing it.  All of the first 64 flushes are timed, then
 * one in 64 per CPU: the clock reads are what timing costs.  Here, not in
 * the policy, because the core's one-leaf path (fp_iotlb_sync()) sends
 * flushes in such a policy's place, and times them as it would.
 */
#define FP_EST_WARMUP		64
#define FP_EST_EVERY		64
#define FP_EST_WEIGHT_SHIFT	3
#define FP_EST_CLAMP		4

static DEFINE_PER_CPU(unsigned int, fp_est_tick);

/**
 * fp_estimate_sample_due() - whether to time the flush about to be sent
 * @e: the context's estimate
 *
 * Context: any; preemptible or not.
 * Return: true while the estimate has fewer than 64 samples, then for one
 * flush in 64 on each CPU (one count per CPU, shared by every context and
 * every policy that asks).
 */
bool fp_estimate_sample_due(struct fp_estimate *e)
{
	if (READ_ONCE(e->samples) < FP_EST_WARMUP)
		return true;
	/*
	 * this_cpu_, not raw_cpu_: flushes run preemptible, and a task moved
	 * to another CPU between raw_cpu_'s load and store would write the
	 * old CPU's count while that CPU increments it: a data race, if only
	 * one that moves which flush is timed.  On arm64 and x86 this_cpu_
	 * is one atomic instruction with preemption off around it.
	 */
	return !(this_cpu_inc_return(fp_est_tick) % FP_EST_EVERY);
}
EXPORT_SYMBOL_GPL(fp_estimate_sample_due);

static u32 fp_estimate_average(u32 avg16, u64 sample16)
{
	u64 cap = (u64)avg16 * FP_EST_CLAMP + 16;
	s64 d = (s64)min(sample16, cap) - avg16;

	return clamp_t(s64, avg16 + d / (1 << FP_EST_WEIGHT_SHIFT), 1,
		       U32_MAX);
}

/**
 * fp_estimate_sample() - learn from a timed flush that completed
 * @e: the context's estimate
 * @n: the commands it sent before its sync (at least 1)
 * @t: how long the commands and the sync took, by fp_context_clock()
 *
 * A flush of one command teaches the base cost (a command and its sync),
 * a flush of more the cost of each command beyond the first.  A failed
 * sync is no sample: do not call this for one.
 *
 * Context: any.  Concurrent samples may lose one another's update, never
 * more: each field is written whole.
 */
void fp_estimate_sample(struct fp_estimate *e, unsigned long n, u64 t)
{
	u64 t16 = t << 4;
	u32 base16 = READ_ONCE(e->base_ns16);

	if (n == 1) {
		WRITE_ONCE(e->base_ns16, fp_estimate_average(base16, t16));
	} else {
		/* n - 1 may not fit div_u64()'s 32-bit divisor. */
		u64 per16 = t16 > base16 ? div64_u64(t16 - base16, n - 1) : 0;

		WRITE_ONCE(e->cmd_ns16,
			   fp_estimate_average(READ_ONCE(e->cmd_ns16), per16));
	}
	WRITE_ONCE(e->samples, READ_ONCE(e->samples) + 1);
}
EXPORT_SYMBOL_GPL(fp_estimate_sample);

/*
 * Whether the context has at least @need (>= 1) live entries mapped.
 * Unknown (no fp_map(), or more unmapped than mapped: a driver mapping
 * some of it around fp_map()) counts as the TLB full, as ever.
 *
 * The count lives in per-CPU deltas of up to a batch each (32, or twice
 * the CPUs), and its shared part alone can be that far off per CPU: 124
 * entries on 4 CPUs, 2048 (a whole default TLB) on 32, reading 0 while
 * the other CPUs' buffers are mapped.  So it is compared, not read: the
 * shared part decides when it is further from @need than every delta
 * together could move it, and the deltas are summed only when it is not
 * (percpu_counter_compare()).  Near a decision's boundary that costs a
 * read of every CPU's delta, under the counter's lock; elsewhere nothing
 * more than the read it replaces.
 */
static bool fp_estimate_holds(struct fp_estimate *e, u64 need)
{
	struct percpu_counter *resident = &e->resident;

	if (!fp_estimate_known(e))
		return true;
	if (percpu_counter_compare(resident, need) >= 0)
		return true;
	return percpu_counter_compare(resident, 0) < 0;
}

/**
 * fp_estimate_precise_cheaper() - whether n commands beat a context flush
 * @e: the context's estimate
 * @n: commands precise invalidation would send (0: taken as unbounded)
 *
 * Precise costs @n commands and a sync; context-wide one command, a sync
 * and a walk for each live entry it destroys: the footprint less what is
 * streamed (fp_estimate_footprint(), fp_estimate_streamed()).  The sync
 * is common to both, so precise is no dearer while
 * (@n - 1) x command <= live x walk: while the footprint holds, beyond
 * the streamed entries, at least the (@n - 1) x command / walk entries
 * that would pay for the extra commands.  Computed without a product
 * that can wrap, whatever the estimates (a wrapped one made a flush of
 * 2^33 commands look free), and with the footprint compared exactly
 * where the answer depends on it.
 *
 * Context: any; may take the footprint counter's lock.
 * Return: true if precise invalidation is no dearer.
 */
bool fp_estimate_precise_cheaper(struct fp_estimate *e, unsigned long n)
{
	u64 walk16 = (u64)READ_ONCE(e->walk_ns) << 4;
	u64 extra16, need, rem;

	/* n == 0 wraps to the most commands there are: context-wide. */
	if (check_mul_overflow((u64)(n - 1), (u64)READ_ONCE(e->cmd_ns16),
			       &extra16))
		return false;
	/* walk_ns >= 1: fp_cfg_valid(), fp_context_set_walk_ns(). */
	need = div64_u64_rem(extra16, walk16, &rem) + !!rem;
	if (need > READ_ONCE(e->tlb_entries))
		return false;
	/* No wrap: need <= 2^22, streamed <= what one CPU ever mapped. */
	return !need || fp_estimate_holds(e, need + fp_estimate_streamed(e));
}
EXPORT_SYMBOL_GPL(fp_estimate_precise_cheaper);

/*
 * What fp_map() mapped and fp_unmap() has not unmapped, less what this CPU
 * saw streamed if @less_streamed, bounded by the TLB: the TLB's size when
 * the count cannot be trusted (see fp_estimate_footprint()).
 */
static unsigned long fp_estimate_resident(struct fp_estimate *e,
					  bool less_streamed)
{
	unsigned long tlb = READ_ONCE(e->tlb_entries);
	u64 streamed = 0;
	s64 resident;

	if (!fp_estimate_known(e))
		return tlb;
	resident = percpu_counter_sum(&e->resident);
	if (resident < 0)
		return tlb;
	if (less_streamed)
		streamed = fp_estimate_streamed(e);
	return min_t(u64, resident > streamed ? resident - streamed : 0, tlb);
}

/**
 * fp_estimate_footprint() - live entries a context-wide flush may destroy
 * @e: the context's estimate
 *
 * What the context has mapped through fp_map() and not unmapped, in
 * granules, bounded by what its TLB can hold.  Without fp_map() the core
 * cannot know, and assumes the TLB full: the dearer guess for a
 * context-wide flush, so adaptive then leans towards precise invalidation,
 * which never sends more than va; so does a count below zero (a driver
 * unmapping through fp_unmap() what it did not map through fp_map()).
 * Exact: every CPU's part of the count is summed (see fp_estimate_holds(),
 * which the decision itself uses instead).
 *
 * Context: any; takes the footprint counter's lock.
 * Return: entries.
 */
unsigned long fp_estimate_footprint(struct fp_estimate *e)
{
	return fp_estimate_resident(e, false);
}
EXPORT_SYMBOL_GPL(fp_estimate_footprint);

/**
 * fp_estimate_streamed() - mapped granules that will not be used again
 * @e: the context's estimate
 *
 * Granules this CPU mapped after the buffer it last unmapped (the smaller
 * of its last two samples; see fp_recent_maps): in a stream of buffers
 * each used once, those still in flight, which a context-wide flush costs
 * nothing for.  0 until this CPU unmaps what it mapped.
 *
 * Context: any.
 * Return: granules.
 */
unsigned long fp_estimate_streamed(struct fp_estimate *e)
{
	struct fp_recent_maps *r = get_cpu_ptr(e->recent);
	unsigned long s = min(READ_ONCE(r->streamed[0]),
			      READ_ONCE(r->streamed[1]));

	put_cpu_ptr(e->recent);
	return s;
}
EXPORT_SYMBOL_GPL(fp_estimate_streamed);

/* The footprint less what is streamed: what a context-wide flush costs. */
static unsigned long fp_estimate_live(struct fp_estimate *e)
{
	return fp_estimate_resident(e, true);
}

/*
 * fp_map() mapped @granules at @iova on this CPU: its clock advances,
 * and the IOVA's slot remembers where.  Preemption off, so that the
 * clock and the slot are one CPU's; an interrupt mapping on the same CPU
 * meanwhile may mix a slot's two words, one wrong sample, which the
 * smaller of two absorbs.
 */
void fp_estimate_mapped(struct fp_estimate *e, unsigned long iova,
			unsigned int shift, unsigned long granules)
{
	unsigned int i = hash_long(iova >> shift, FP_RECENT_BITS);
	struct fp_recent_maps *r;
	unsigned long now;

	preempt_disable();
	now = this_cpu_add_return(e->recent->clock, granules);
	r = this_cpu_ptr(e->recent);
	WRITE_ONCE(r->slot[i].iova, iova);
	WRITE_ONCE(r->slot[i].stamp, now - granules + 1);
	preempt_enable();
}

/*
 * fp_unmap() is unmapping @granules at @iova on this CPU: a sample, if
 * this CPU mapped @iova and no later map took its slot.
 */
void fp_estimate_unmapping(struct fp_estimate *e, unsigned long iova,
			   unsigned int shift, unsigned long granules)
{
	unsigned int i = hash_long(iova >> shift, FP_RECENT_BITS);
	struct fp_recent_maps *r = get_cpu_ptr(e->recent);
	unsigned long stamp = READ_ONCE(r->slot[i].stamp), since;

	if (stamp && READ_ONCE(r->slot[i].iova) == iova) {
		WRITE_ONCE(r->slot[i].stamp, 0);
		since = READ_ONCE(r->clock) - (stamp - 1);
		WRITE_ONCE(r->streamed[1], READ_ONCE(r->streamed[0]));
		WRITE_ONCE(r->streamed[0], since > granules ? since - granules : 0);
	}
	put_cpu_ptr(e->recent);
}

/**
 * fp_estimate_crossover() - the most commands precise invalidation is worth
 * @e: the context's estimate
 *
 * Precise costs n commands and a sync; context-wide one command, a sync
 * and a walk for each live entry it destroys (the footprint less what is
 * streamed).  The sync is common to both, so precise is no dearer while
 * n <= 1 + live * walk / command: the n up to which
 * fp_estimate_precise_cheaper() says so.  For sysfs and tests; the
 * decision does not compute it.
 *
 * Return: that n, at most FP_THRESHOLD_MAX.
 */
unsigned long fp_estimate_crossover(struct fp_estimate *e)
{
	u64 refill16 = (u64)fp_estimate_live(e) * READ_ONCE(e->walk_ns) << 4;
	u32 cmd16 = max(READ_ONCE(e->cmd_ns16), 1U);

	return min_t(u64, 1 + div_u64(refill16, cmd16), FP_THRESHOLD_MAX);
}
EXPORT_SYMBOL_GPL(fp_estimate_crossover);

/**
 * fp_context_set_walk_ns() - override the backend's walk cost
 * @ctx: the context
 * @ns: what one TLB miss costs the device
 *
 * Return: 0, or -EINVAL if @ns is 0 or above FP_WALK_NS_MAX.
 */
int fp_context_set_walk_ns(struct fp_context *ctx, unsigned long ns)
{
	if (!ns || ns > FP_WALK_NS_MAX)
		return -EINVAL;
	WRITE_ONCE(ctx->est.walk_ns, ns);
	return 0;
}
EXPORT_SYMBOL_GPL(fp_context_set_walk_ns);

/**
 * fp_context_set_tlb_entries() - override the backend's TLB size
 * @ctx: the context
 * @entries: entries of the context its TLB can hold
 *
 * Return: 0, or -EINVAL if @entries is 0 or above FP_THRESHOLD_MAX.
 */
int fp_context_set_tlb_entries(struct fp_context *ctx, unsigned long entries)
{
	if (!entries || entries > FP_THRESHOLD_MAX)
		return -EINVAL;
	WRITE_ONCE(ctx->est.tlb_entries, entries);
	return 0;
}
EXPORT_SYMBOL_GPL(fp_context_set_tlb_entries);

/*
 * What fp_map() notes of @done bytes mapped at @iova: the footprint while
 * it is kept, otherwise (once) that it was not.  Two loads and no store
 * once a context has mapped with no policy reading the estimate.
 */
static inline void fp_map_note(struct fp_context *ctx,
			       struct io_pgtable_ops *ops, unsigned long iova,
			       size_t done)
{
	if (fp_estimate_kept()) {
		unsigned long bitmap =
			io_pgtable_ops_to_pgtable(ops)->cfg.pgsize_bitmap;

		percpu_counter_add(&ctx->est.resident, done >> __ffs(bitmap));
		fp_estimate_mapped(&ctx->est, iova, __ffs(bitmap),
				   done >> __ffs(bitmap));
	} else if (!READ_ONCE(ctx->est.untracked_maps)) {
		WRITE_ONCE(ctx->est.untracked_maps, true);
	}
	if (!READ_ONCE(ctx->est.maps_seen))
		WRITE_ONCE(ctx->est.maps_seen, true);
}

/**
 * fp_map() - map through io-pgtable, letting flushpol count what is mapped
 * @ctx: the context, cookie of @ops
 * @ops: its page table
 * @iova: as &io_pgtable_ops.map_pages
 * @paddr: likewise
 * @pgsize: likewise
 * @pgcount: likewise
 * @prot: likewise
 * @gfp: likewise
 * @mapped: likewise: bytes mapped are added to it
 *
 * The same as calling @ops->map_pages, plus, on a context whose policy
 * reads the estimate (adaptive), one per-CPU add per call (never per
 * page) and a note, in this CPU's own table, of when it mapped @iova:
 * what is mapped is the footprint adaptive weighs a context-wide flush
 * with, and when tells streamed buffers from live ones
 * (fp_estimate_streamed()).  It is counted in granules (smallest pages),
 * as fp_unmap() counts what it unmaps, whatever page sizes either uses: a
 * block counts as all of its granules, more than the one TLB entry it
 * takes.  A driver may skip it; adaptive then assumes the TLB full.
 *
 * Return: as &io_pgtable_ops.map_pages; -EINVAL, with nothing mapped, for
 * an @iova or @paddr not aligned to @pgsize (as iommu_map() refuses it).
 */
int fp_map(struct fp_context *ctx, struct io_pgtable_ops *ops,
	   unsigned long iova, phys_addr_t paddr, size_t pgsize,
	   size_t pgcount, int prot, gfp_t gfp, size_t *mapped)
{
	size_t before = *mapped, done;
	int ret;

	/*
	 * As iommu_map() refuses it.  io-pgtable does not check: it would map
	 * the page below, which fp_unmap() would not take back at @iova.
	 */
	if (!pgsize || !IS_ALIGNED(iova | paddr, pgsize)) {
		pr_warn_once("%s: unaligned map: iova 0x%lx pa %pa pgsize 0x%zx\n",
			     ctx->name, iova, &paddr, pgsize);
		return -EINVAL;
	}
	/* As io-pgtable adds to *@mapped: nothing of ours on the stack. */
	ret = ops->map_pages(ops, iova, paddr, pgsize, pgcount, prot, gfp,
			     mapped);
	done = *mapped - before;
	if (done)
		fp_map_note(ctx, ops, iova, done);
	return ret;
}
EXPORT_SYMBOL_GPL(fp_map);
