// SPDX-License-Identifier: GPL-2.0-only
/*
 * flushpol_stress: threads map and unmap at once, some sharing a context,
 * while another switches every context's policy and threshold through
 * sysfs about every millisecond.  After every sync, the thread that
 * unmapped checks in the TLB model that nothing it unmapped is still
 * cached; the model counts walk entries left on a table as it is freed.
 *
 * How the model stays safe to read: it walks live page tables, and under
 * concurrency it may walk a table another thread is freeing.  The rig keeps
 * freed tables in quarantine until it goes (fpt_table_free), so that is a
 * read of stale but valid memory, never of freed memory; each round builds
 * fresh rigs, which empties the quarantine while no thread runs.  Each
 * thread owns a 1 GiB-aligned IOVA region, so every table below the first
 * two levels that it maps through is its own, and it checks only its own
 * ranges: another thread's range may legitimately hold stale entries until
 * that thread's sync.  Whole contexts are checked once the round is over.
 *
 * Module parameter stress_ops sets the map/unmap cycles: 2500 in make
 * check, 10^6 in make stress; stress_seed makes the sizes reproducible
 * (the interleaving never is).
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/moduleparam.h>
#include <linux/prandom.h>
#include <linux/random.h>
#include <linux/sizes.h>

#include "fp_rig.h"

/*
 * 2500 in make check: a cycle warms half its pages or more and runs a busy
 * device, so it costs about ten times what a cycle cost when it warmed four
 * pages per 2M, and catches a lost page half the time instead of 0.4%.
 */
static unsigned long stress_ops = 2500;
module_param(stress_ops, ulong, 0444);
MODULE_PARM_DESC(stress_ops,
		 "flushpol_stress: map/unmap cycles in all (default 2500)");

/*
 * The 1G block's walk flush is 262144 model commands under va, each a
 * hold of the model's lock: under TCG it lasts minutes, so
 * scripts/kunit.sh --arch arm64 turns it off.  UML runs it.
 */
static bool stress_giant = true;
module_param(stress_giant, bool, 0444);
MODULE_PARM_DESC(stress_giant,
		 "flushpol_stress: now and then map a 1G block (default Y)");

/*
 * Under TCG a cycle of up to 32M runs about 1000 times slower than in UML
 * without debug options (under one a second, six threads together), and
 * one va unmap of 32M is 8208 model commands: scripts/kunit.sh --arch
 * arm64 caps the unmaps lower, so that there are more of them.
 */
static unsigned int stress_max_pages = SZ_32M / SZ_4K;
module_param(stress_max_pages, uint, 0444);
MODULE_PARM_DESC(stress_max_pages,
		 "flushpol_stress: largest unmap in 4K pages, 512 to 8192 (default 8192)");

static unsigned int stress_seed;
module_param(stress_seed, uint, 0444);
MODULE_PARM_DESC(stress_seed, "flushpol_stress: random seed (0: pick one)");

/*
 * Each round is a KUnit case of its own, with fresh rigs; the rounds go on
 * until stress_ops cycles are done.  A round ends when its cycles are done
 * (at most stress_round_ops, which bounds the quarantine) or, whichever
 * comes first, once stress_round_secs have passed: no worker starts a
 * cycle after that, and the cycles in flight must end within
 * FPT_CASE_SECS of the round's start.  KUnit's runner waits for a case
 * uninterruptibly, so a case must end within the hung-task detector's
 * 120 s (and KUnit's own 300 s): rounds bounded by cycles alone did not,
 * 20000 cycles in UML (about 10 minutes) nor 40 under TCG (arm64) on a
 * loaded host (27 of them in 247 s, one 4M unmap taking 111 s: there
 * scripts/kunit.sh asks for rounds of 10 s, leaving 95 s to the cycles
 * in flight).
 */
#define FPT_ROUND_OPS		20000
static unsigned long stress_round_ops = FPT_ROUND_OPS;
module_param(stress_round_ops, ulong, 0444);
MODULE_PARM_DESC(stress_round_ops,
		 "flushpol_stress: most cycles per round, each a KUnit case (default 20000)");
static unsigned int stress_round_secs = 30;
module_param(stress_round_secs, uint, 0444);
MODULE_PARM_DESC(stress_round_secs,
		 "flushpol_stress: no cycle starts after a round ran this long, 1 to 60 (default 30)");
#define FPT_CASE_SECS		105
#define FPT_LAZY_BATCH		3

enum fpt_layout { FPT_PAGES, FPT_BLOCKS, FPT_MIXED, FPT_GIANT };
enum fpt_unmap_how { FPT_WHOLE, FPT_SPLIT, FPT_GATHER, FPT_QUEUED };

/* One context, and how many threads unmap in it. */
static const struct fpt_stress_ctx_desc {
	bool range;
	bool lazy;
	unsigned int threads;
} fpt_stress_ctxs[] = {
	{ .range = false, .threads = 2 },	/* shared, by-VA only */
	{ .range = true, .threads = 2 },	/* shared, range commands */
	{ .range = true, .threads = 1 },	/* a context of its own */
	{ .lazy = true, .threads = 1 },		/* non-strict, its own */
};

#define FPT_NR_CTX	ARRAY_SIZE(fpt_stress_ctxs)
#define FPT_NR_THREADS	6

struct fpt_sctx {
	struct fpt_rig *rig;
	const struct fpt_stress_ctx_desc *desc;
	atomic_t changes;	/* successful policy/threshold writes */
	atomic_t unmapping;	/* threads inside an unmap right now */
};

struct fpt_stress;

struct fpt_worker {
	struct fpt_stress *s;
	struct fpt_sctx *sc;
	unsigned int id;
	unsigned long base;	/* its region: [base, base + SZ_1G) */
	struct rnd_state rnd;
	unsigned int gen;	/* changes the output addresses per map */
	/* Lazy: unmapped ranges waiting for flush_iotlb_all. */
	unsigned long pend_iova[FPT_LAZY_BATCH];
	size_t pend_size[FPT_LAZY_BATCH];
	unsigned int nr_pend;
	struct cpumask cpus;	/* where it ran */
	/* Its slowest fp_unmap() call, which holds RCU read sections. */
	u64 longest_ns;
	size_t longest_size;
};

/* What a round did; printed per round and summed for the suite. */
struct fpt_figures {
	atomic_long_t ops, checks, pages, stale, bad_access, short_unmap;
	atomic_long_t map_fail, mid_unmap_changes, overlaps, policy_sets;
	atomic_long_t threshold_sets, refused, bad_errno, reads, bad_reads;
};

/*
 * Two switchers: policies, and thresholds.  A policy switch waits for an
 * RCU grace period (for the flushes still running the old policy), so it
 * cannot come every millisecond; threshold changes can.
 */
struct fpt_switcher {
	struct fpt_stress *s;
	bool policy;
	struct rnd_state rnd;
	unsigned long runs;
};

struct fpt_stress {
	struct kunit *test;
	struct rnd_state dev_rnd;	/* the busy device's */
	unsigned long dev_runs;
	u64 dev_ns;			/* the device's time in its runs */
	struct fpm_smmu smmu;
	struct fpt_sctx ctx[FPT_NR_CTX];
	struct fpt_worker w[FPT_NR_THREADS];
	struct fpt_switcher sw[2];
	atomic_long_t budget;
	unsigned long deadline;		/* jiffies: no cycle starts after it */
	atomic_t running;
	struct completion done;
	struct fpt_figures f;
};

static struct {
	unsigned long ops, checks, pages, stale, changes, refused, mid, overlaps;
	unsigned long policy_sets;
	u64 ms;				/* the rounds' time */
	unsigned long round_ops;	/* the last round's */
	unsigned long freed_refs, stale_hits, timeouts, bad;
	struct cpumask cpus;	/* where workers ran, over all rounds */
} fpt_totals;

static u32 fpt_rand(struct fpt_worker *w, u32 n)
{
	return prandom_u32_state(&w->rnd) % n;
}

/* Report the first failure of a kind in detail; count all of them. */
static void fpt_fail(struct fpt_worker *w, atomic_long_t *ctr, long n,
		     const char *what, unsigned long iova, size_t size)
{
	char pol[64] = "";

	if (atomic_long_fetch_add(n, ctr))
		return;
	fpt_ctx_read(w->sc->rig, "policy", pol, sizeof(pol));
	kunit_err(w->s->test,
		  "thread %u ctx %s: %s: %ld at [%#lx, %#lx) (policy %s)\n",
		  w->id, w->sc->rig->name, what, n, iova, iova + size,
		  strim(pol));
}

/* After a sync: nothing in [iova, iova + size) may still be cached. */
static void fpt_check(struct fpt_worker *w, unsigned long iova, size_t size)
{
	unsigned long n = fpm_stale_in(&w->sc->rig->mc, iova, size);

	atomic_long_inc(&w->s->f.checks);
	if (n)
		fpt_fail(w, &w->s->f.stale, n, "stale entries after sync",
			 iova, size);
}

static void fpt_access(struct fpt_worker *w, unsigned long iova)
{
	if (!fpm_access(&w->sc->rig->mc, iova))
		fpt_fail(w, &w->s->f.bad_access, 1,
			 "mapped page faulted or hit stale", iova, SZ_4K);
}

/* A size, a start and a layout, inside [lo, lo + span). */
static void fpt_pick(struct fpt_worker *w, unsigned long lo,
		     unsigned long span, unsigned long *iova, size_t *size,
		     enum fpt_layout *layout)
{
	size_t max_sz = (size_t)stress_max_pages * SZ_4K;
	unsigned long align, slots;
	unsigned int k;

	/*
	 * Rarely, the whole region as one 1G block.  Mapping it over the
	 * level-2 table an earlier cycle left frees that table (a 1G walk
	 * flush), which the va policy pays 262144 commands for: so rarely.
	 */
	if (span == SZ_1G && !fpt_rand(w, 256) && stress_giant) {
		*size = SZ_1G;
		*layout = FPT_GIANT;
		*iova = lo;
		return;
	}
	switch (fpt_rand(w, 8)) {
	case 0 ... 4:
		/* A scatter-gather list of 4K pages, 4K to 32M. */
		k = fpt_rand(w, 14);
		*size = min_t(size_t, (1UL << k) + fpt_rand(w, 1U << k),
			      stress_max_pages) * SZ_4K;
		*layout = FPT_PAGES;
		break;
	case 5:
		*size = (1 + fpt_rand(w, max_sz / SZ_2M)) * SZ_2M;
		*layout = FPT_BLOCKS;
		break;
	default:
		/* 2M blocks where aligned, 4K pages elsewhere, at random. */
		*size = SZ_2M + fpt_rand(w, max_t(u32, (max_sz - SZ_2M) / SZ_4K,
						  1)) * SZ_4K;
		*layout = FPT_MIXED;
		break;
	}
	/* Half start on a 2M boundary, so that whole tables get freed. */
	align = *layout == FPT_BLOCKS || fpt_rand(w, 2) ? SZ_2M : SZ_4K;
	slots = (span - *size) / align;
	*iova = lo + fpt_rand(w, slots) * align;
}

/*
 * Map as a driver would, choosing per 2M chunk: a block where the layout
 * allows and the chunk is whole, 4K pages elsewhere; or the whole 1G
 * region as one block.  Sets *blocks if any block was used.
 */
static int fpt_smap(struct fpt_worker *w, unsigned long iova, size_t size,
		    enum fpt_layout layout, u64 pa_off, bool *blocks)
{
	struct io_pgtable_ops *ops = w->sc->rig->ops;
	unsigned long pos = iova, end = iova + size;

	*blocks = false;
	if (layout == FPT_GIANT) {
		size_t mapped = 0;
		int ret;

		ret = ops->map_pages(ops, iova, iova + pa_off, SZ_1G, 1,
				     IOMMU_READ | IOMMU_WRITE, GFP_KERNEL,
				     &mapped);
		*blocks = true;
		return ret ?: mapped == SZ_1G ? 0 : -EIO;
	}
	while (pos < end) {
		unsigned long next = min(ALIGN(pos + 1, SZ_2M), end);
		bool block = IS_ALIGNED(pos, SZ_2M) && next - pos == SZ_2M &&
			     (layout == FPT_BLOCKS ||
			      (layout == FPT_MIXED && fpt_rand(w, 2)));
		size_t pgsize = block ? SZ_2M : SZ_4K, mapped = 0;
		int ret;

		ret = ops->map_pages(ops, pos, pos + pa_off, pgsize,
				     (next - pos) / pgsize,
				     IOMMU_READ | IOMMU_WRITE, GFP_KERNEL,
				     &mapped);
		pos += mapped;
		if (ret || pos != next) {
			/* Leave nothing behind for the next cycle. */
			if (pos > iova)
				fp_unmap(w->sc->rig->ctx, ops, iova, pos - iova,
					 NULL);
			return ret ?: -EIO;
		}
		*blocks |= block;
	}
	return 0;
}

static void fpt_access_in(struct fpt_worker *w, unsigned long p,
			  unsigned long iova, unsigned long end)
{
	if (p >= iova && p < end)
		fpt_access(w, p);
}

/*
 * Warm the TLB where a lost invalidation is most likely, and at random
 * elsewhere: both ends and the pages either side of every 2M edge and of
 * every split point (fpt_sunmap() picks those on 2M or 4K boundaries, and
 * warms its own), then each other 4K page with probability 1/2, in runs
 * of 64K so that the draws stay cheap.  A single page whose invalidation
 * is lost is therefore cached, and caught by the check after the sync,
 * with probability >= 1/2 whatever page it is.  A block is one entry: a
 * 2M block is cached by its edge, a 1G block by one access.
 */
static void fpt_warm(struct fpt_worker *w, unsigned long iova, size_t size,
		     enum fpt_layout layout)
{
	unsigned long end = iova + size, pos;
	u32 bits = 0;
	int i;

	if (layout == FPT_GIANT) {
		fpt_access(w, iova + fpt_rand(w, SZ_1G / SZ_4K) * SZ_4K);
		return;
	}
	for (i = -1; i <= 0; i++) {
		fpt_access_in(w, iova - i * SZ_4K, iova, end);
		fpt_access_in(w, end - (1 - i) * SZ_4K, iova, end);
	}
	for (pos = ALIGN(iova, SZ_2M); pos < end; pos += SZ_2M) {
		fpt_access_in(w, pos - SZ_4K, iova, end);
		fpt_access_in(w, pos, iova, end);
	}
	/* Every 2M block was cached at its edge above. */
	if (layout == FPT_BLOCKS)
		return;
	for (pos = iova, i = 0; pos < end; pos += SZ_64K, i++) {
		unsigned long p;

		if (!(i % 2))
			bits = prandom_u32_state(&w->rnd);
		for (p = pos; p < min(pos + SZ_64K, end); p += SZ_4K, bits >>= 1)
			if (bits & 1)
				fpt_access(w, p);
	}
}

/* A point inside (iova, end) where unmapping may stop, or 0. */
static unsigned long fpt_split_point(struct fpt_worker *w, unsigned long iova,
				     unsigned long end, unsigned long unit)
{
	unsigned long lo = ALIGN(iova + 1, unit);

	if (lo >= end)
		return 0;
	return lo + fpt_rand(w, (end - 1 - lo) / unit + 1) * unit;
}

static void fpt_unmap_piece(struct fpt_worker *w, unsigned long iova,
			    size_t size, struct iommu_iotlb_gather *gather)
{
	struct fpt_rig *rig = w->sc->rig;
	u64 t0 = ktime_get_ns(), ns;

	if (fp_unmap(rig->ctx, rig->ops, iova, size, gather) != size)
		fpt_fail(w, &w->s->f.short_unmap, 1, "short unmap", iova,
			 size);
	ns = ktime_get_ns() - t0;
	if (ns > w->longest_ns) {
		w->longest_ns = ns;
		w->longest_size = size;
	}
}

static void fpt_lazy_flush(struct fpt_worker *w)
{
	unsigned int i;

	fp_flush_iotlb_all(w->sc->rig->ctx);
	for (i = 0; i < w->nr_pend; i++)
		fpt_check(w, w->pend_iova[i], w->pend_size[i]);
	w->nr_pend = 0;
}

static void fpt_sunmap(struct fpt_worker *w, unsigned long iova, size_t size,
		       bool blocks)
{
	unsigned long end = iova + size, pos;
	/* Half the time a block is split: io-pgtable's split_blk_unmap. */
	unsigned long unit = blocks && fpt_rand(w, 2) ? SZ_2M : SZ_4K;
	struct fpt_rig *rig = w->sc->rig;
	struct iommu_iotlb_gather gather;
	enum fpt_unmap_how how;
	unsigned long a, b;

	how = w->sc->desc->lazy ? FPT_QUEUED : fpt_rand(w, 4) == 3 ?
	      FPT_GATHER : fpt_rand(w, 2) ? FPT_SPLIT : FPT_WHOLE;
	a = fpt_split_point(w, iova, end, unit);
	b = a ? fpt_split_point(w, a, end, unit) : 0;
	if ((how == FPT_SPLIT && !a) || (how == FPT_GATHER && !b))
		how = FPT_WHOLE;
	/* Warm either side of the split points: the pieces' own ends. */
	for (pos = a; pos; pos = pos == a ? b : 0) {
		fpt_access(w, pos - SZ_4K);
		fpt_access(w, pos);
	}

	switch (how) {
	case FPT_WHOLE:
		/* iommu_unmap(): its own gather and sync. */
		fpt_unmap_piece(w, iova, size, NULL);
		fpt_check(w, iova, size);
		break;
	case FPT_SPLIT:
		/* Two unmaps; the second half must survive the first. */
		fpt_unmap_piece(w, iova, a - iova, NULL);
		fpt_check(w, iova, a - iova);
		fpt_access(w, a);
		fpt_unmap_piece(w, a, end - a, NULL);
		fpt_check(w, a, end - a);
		break;
	case FPT_GATHER:
		/*
		 * iommu_unmap_fast() thrice into one gather, out of order, so
		 * that it becomes disjoint and is flushed early once.
		 */
		iommu_iotlb_gather_init(&gather);
		fpt_unmap_piece(w, iova, a - iova, &gather);
		fpt_unmap_piece(w, b, end - b, &gather);
		fpt_unmap_piece(w, a, b - a, &gather);
		fp_iotlb_sync(rig->ctx, &gather);
		fpt_check(w, iova, size);
		break;
	case FPT_QUEUED:
		/* The DMA API's flush queue: checked at flush_iotlb_all. */
		iommu_iotlb_gather_init(&gather);
		gather.queued = true;
		fpt_unmap_piece(w, iova, size, &gather);
		w->pend_iova[w->nr_pend] = iova;
		w->pend_size[w->nr_pend] = size;
		if (++w->nr_pend == FPT_LAZY_BATCH || fpt_rand(w, 2))
			fpt_lazy_flush(w);
		break;
	}
}

static void fpt_one_op(struct fpt_worker *w)
{
	struct fpt_sctx *sc = w->sc;
	struct fpt_figures *f = &w->s->f;
	unsigned long lo = w->base, span = SZ_1G, iova;
	enum fpt_layout layout;
	int changes;
	size_t size;
	bool blocks;

	/* A lazy thread reuses no IOVA before its flush: a slot per pending. */
	if (sc->desc->lazy) {
		span = ALIGN_DOWN(SZ_1G / FPT_LAZY_BATCH, SZ_2M);
		lo += span * w->nr_pend;
	}
	fpt_pick(w, lo, span, &iova, &size, &layout);
	w->gen = w->gen % 0x7fff + 1;
	if (fpt_smap(w, iova, size, layout, (u64)w->gen << 32, &blocks)) {
		fpt_fail(w, &f->map_fail, 1, "map failed", iova, size);
		return;
	}
	fpt_warm(w, iova, size, layout);

	changes = atomic_read(&sc->changes);
	if (atomic_inc_return(&sc->unmapping) > 1)
		atomic_long_inc(&f->overlaps);
	fpt_sunmap(w, iova, size, blocks);
	atomic_dec(&sc->unmapping);
	if (atomic_read(&sc->changes) != changes)
		atomic_long_inc(&f->mid_unmap_changes);

	atomic_long_inc(&f->ops);
	atomic_long_add(size / SZ_4K, &f->pages);
}

static int fpt_worker_fn(void *data)
{
	struct fpt_worker *w = data;
	struct fpt_stress *s = w->s;

	while (!kthread_should_stop() && time_before(jiffies, s->deadline) &&
	       atomic_long_dec_return(&s->budget) >= 0) {
		__cpumask_set_cpu(raw_smp_processor_id(), &w->cpus);
		fpt_one_op(w);
		cond_resched();
	}
	if (w->nr_pend)
		fpt_lazy_flush(w);
	if (atomic_dec_and_test(&s->running))
		complete(&s->done);
	return 0;
}

static const char *const fpt_policy_names[] = {
	"va", "asid", "threshold", "range", "nonstrict", "adaptive", "batch",
};

static const unsigned int fpt_thresholds[] = {
	1, 2, 16, 127, 128, 129, 512, 4096, 4194304,
};

static void fpt_write_policy(struct fpt_stress *s, struct fpt_sctx *sc,
			     u32 r)
{
	const char *name = fpt_policy_names[r % ARRAY_SIZE(fpt_policy_names)];
	bool usable = (strcmp(name, "range") || sc->desc->range) &&
		      (strcmp(name, "nonstrict") || sc->desc->lazy);
	struct fpt_figures *f = &s->f;
	char buf[32];
	ssize_t ret;
	int len;

	len = snprintf(buf, sizeof(buf), "%s\n", name);
	ret = fpt_ctx_write(sc->rig, "policy", buf, len);
	if (usable && ret == len) {
		atomic_inc(&sc->changes);
		atomic_long_inc(&f->policy_sets);
	} else if (!usable && ret == -EOPNOTSUPP) {
		atomic_long_inc(&f->refused);
	} else {
		atomic_long_inc(&f->bad_errno);
	}
}

static void fpt_write_threshold(struct fpt_stress *s, struct fpt_sctx *sc,
				u32 r)
{
	char buf[32];
	int len;

	len = snprintf(buf, sizeof(buf), "%u\n",
		       fpt_thresholds[r % ARRAY_SIZE(fpt_thresholds)]);
	if (fpt_ctx_write(sc->rig, "threshold", buf, len) == len) {
		atomic_inc(&sc->changes);
		atomic_long_inc(&s->f.threshold_sets);
	} else {
		atomic_long_inc(&s->f.bad_errno);
	}
}

/* Readers run alongside: one active policy, always. */
static void fpt_read_policy(struct fpt_stress *s, struct fpt_sctx *sc)
{
	char buf[64];

	atomic_long_inc(&s->f.reads);
	if (fpt_ctx_read(sc->rig, "policy", buf, sizeof(buf)) <= 0 ||
	    !strchr(buf, '[') || strchr(buf, '[') != strrchr(buf, '[') ||
	    strchr(buf, ']') != strrchr(buf, ']'))
		atomic_long_inc(&s->f.bad_reads);
}

/*
 * Through sysfs, as a user's echo and cat: each write must get exactly
 * the answer BRIEF s4 documents.
 */
static int fpt_switcher_fn(void *data)
{
	struct fpt_switcher *sw = data;
	struct fpt_stress *s = sw->s;

	while (!kthread_should_stop()) {
		u32 r = prandom_u32_state(&sw->rnd);
		struct fpt_sctx *sc = &s->ctx[r % FPT_NR_CTX];

		if (r % 7 == 0)
			fpt_read_policy(s, sc);
		else if (sw->policy)
			fpt_write_policy(s, sc, r >> 8);
		else
			fpt_write_threshold(s, sc, r >> 8);
		sw->runs++;
		usleep_range(900, 1100);
	}
	return 0;
}

/*
 * The busy device, on its own: it re-walks what the workers touched, the
 * walk cache of every table and every page of a random 2M window, at any
 * moment another thread lets it run.  It fills only from live descriptors
 * (fpm_busy()), so it never fails correct code.
 *
 * In small pieces, each one hold of the model's lock, and busy at most
 * half the time.  It used to re-walk the whole 2M window, and every table
 * of the context, in one hold each, then sleep only 100-200 us: under TCG
 * (arm64) that is hundreds of page walks per hold, most of the time, on
 * the lock every worker takes for each model command (then from inside a
 * policy's RCU read section; an SRCU one now, but spinning for the lock
 * is with preemption off, which RCU waits for too).  A 512-command walk
 * flush then lasted over 21 s there, an RCU stall.
 */
#define FPT_DEV_PIECE	SZ_64K		/* 16 pages */
#define FPT_DEV_TABLES	SZ_64M		/* 32 tables */

static int fpt_device_fn(void *data)
{
	struct fpt_stress *s = data;
	unsigned long pos, win;
	u64 t0, us;

	while (!kthread_should_stop()) {
		u32 r = prandom_u32_state(&s->dev_rnd);
		struct fpt_worker *w = &s->w[r % FPT_NR_THREADS];
		struct fpm_ctx *mc = &w->sc->rig->mc;

		t0 = ktime_get_ns();
		/* One touched page per last-level table of its region. */
		for (pos = w->base; pos < w->base + SZ_1G;
		     pos += FPT_DEV_TABLES) {
			fpm_busy(mc, pos, FPT_DEV_TABLES, SZ_2M / SZ_4K);
			cond_resched();
		}
		win = w->base + (r >> 8) % (SZ_1G / SZ_2M) * SZ_2M;
		for (pos = win; pos < win + SZ_2M; pos += FPT_DEV_PIECE) {
			fpm_busy(mc, pos, FPT_DEV_PIECE, 1);
			cond_resched();
		}
		s->dev_runs++;
		s->dev_ns += ktime_get_ns() - t0;
		us = div_u64(ktime_get_ns() - t0, NSEC_PER_USEC);
		usleep_range(max_t(u64, us, 100), max_t(u64, 2 * us, 200));
	}
	return 0;
}

static void fpt_smmu_destroy(void *smmu)
{
	fpm_smmu_destroy(smmu);
}

/* Held until kthread_stop_put(): the thread may end before that. */
static struct task_struct *fpt_thread(int (*fn)(void *), void *data,
				      unsigned int id)
{
	struct task_struct *t = kthread_create(fn, data, "fp_stress/%u", id);

	if (IS_ERR(t))
		return NULL;
	get_task_struct(t);
	return t;
}

static void fpt_stress_setup(struct kunit *test, struct fpt_stress *s,
			     unsigned long round)
{
	unsigned int i, t, n = 0;
	u32 seed = stress_seed + round;

	s->test = test;
	init_completion(&s->done);
	prandom_seed_state(&s->dev_rnd, seed * 97 + 7);
	KUNIT_ASSERT_EQ(test, fpm_smmu_init(&s->smmu), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, fpt_smmu_destroy,
							&s->smmu), 0);
	for (i = 0; i < ARRAY_SIZE(s->sw); i++) {
		s->sw[i].s = s;
		s->sw[i].policy = !i;
		prandom_seed_state(&s->sw[i].rnd, seed + i);
	}

	for (i = 0; i < FPT_NR_CTX; i++) {
		const struct fpt_stress_ctx_desc *d = &fpt_stress_ctxs[i];
		struct fpt_rig_cfg rc = {
			.fmt = ARM_64_LPAE_S1, .has_range = d->range,
			.lazy = d->lazy, .threshold = 128,
		};
		struct fpt_sctx *sc = &s->ctx[i];

		sc->desc = d;
		sc->rig = kunit_kzalloc(test, sizeof(*sc->rig), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, sc->rig);
		/* All on one SMMU: any sync also completes the others'. */
		KUNIT_ASSERT_EQ(test, fpt_rig_init(test, sc->rig, &rc, &s->smmu,
						   i + 1), 0);
		for (t = 0; t < d->threads; t++, n++) {
			struct fpt_worker *w = &s->w[n];

			w->s = s;
			w->sc = sc;
			w->id = n;
			w->base = (n + 1) * SZ_1G;
			prandom_seed_state(&w->rnd, seed * 31 + n + 1);
		}
	}
	KUNIT_ASSERT_EQ(test, n, FPT_NR_THREADS);
}

static void fpt_print_round(struct kunit *test, struct fpt_stress *s,
			    unsigned long round, u64 ms)
{
	struct fpt_figures *f = &s->f;
	struct fpt_worker *slow = &s->w[0];
	unsigned int i;

	for (i = 1; i < FPT_NR_THREADS; i++)
		if (s->w[i].longest_ns > slow->longest_ns)
			slow = &s->w[i];
	/*
	 * It bounds how long its policy calls waited, preemption off, for
	 * the model's one lock (each call: the commands of one walk or
	 * gather and their sync): under TCG, with every thread contending
	 * for it, that can outlast the RCU stall timeout.
	 */
	kunit_info(test,
		   "fp-stress: round %lu: slowest fp_unmap() %llu ms, of %zu KiB; the device busy %llu ms in %lu runs\n",
		   round, div_u64(slow->longest_ns, NSEC_PER_MSEC),
		   slow->longest_size / SZ_1K,
		   div_u64(s->dev_ns, NSEC_PER_MSEC), s->dev_runs);

	kunit_info(test,
		   "fp-stress: round %lu: %llu ms, a policy write every %llu us, a threshold write every %llu us: ops %ld checks %ld pages %ld stale %ld policy-writes %ld threshold-writes %ld refused %ld mid-unmap-changes %ld overlapping-unmaps %ld reads %ld\n",
		   round, ms, div64_u64(ms * 1000, s->sw[0].runs ?: 1),
		   div64_u64(ms * 1000, s->sw[1].runs ?: 1),
		   atomic_long_read(&f->ops),
		   atomic_long_read(&f->checks), atomic_long_read(&f->pages),
		   atomic_long_read(&f->stale),
		   atomic_long_read(&f->policy_sets),
		   atomic_long_read(&f->threshold_sets),
		   atomic_long_read(&f->refused),
		   atomic_long_read(&f->mid_unmap_changes),
		   atomic_long_read(&f->overlaps), atomic_long_read(&f->reads));
}

static void concurrent_unmaps_and_switches_lose_nothing(struct kunit *test)
{
	unsigned long round = (unsigned long)test->param_value;
	unsigned long ops = min(stress_ops - fpt_totals.ops, stress_round_ops);
	struct fpt_stress *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	unsigned long left, stale = 0, freed = 0, hits = 0, timeouts = 0;
	long claimed, unclaimed;
	struct task_struct *t[FPT_NR_THREADS + 3];
	struct cpumask cpus;
	u64 start, ms;
	struct fpt_figures *f;
	unsigned int i;

	fpt_totals.round_ops = 0;
	KUNIT_ASSERT_NOT_NULL(test, s);
	f = &s->f;
	fpt_stress_setup(test, s, round);

	atomic_long_set(&s->budget, ops);
	atomic_set(&s->running, FPT_NR_THREADS);
	for (i = 0; i < ARRAY_SIZE(t); i++) {
		t[i] = i < FPT_NR_THREADS ?
		       fpt_thread(fpt_worker_fn, &s->w[i], i) :
		       i < FPT_NR_THREADS + ARRAY_SIZE(s->sw) ?
		       fpt_thread(fpt_switcher_fn, &s->sw[i - FPT_NR_THREADS],
				  i) :
		       fpt_thread(fpt_device_fn, s, i);
		if (!t[i])
			break;
	}
	if (i < ARRAY_SIZE(t)) {
		/* Never woken: stopping them only reaps them. */
		while (i--)
			kthread_stop_put(t[i]);
		KUNIT_FAIL_AND_ABORT(test, "kthread_create failed");
	}
	start = ktime_get_ns();
	s->deadline = jiffies + stress_round_secs * HZ;
	for (i = 0; i < ARRAY_SIZE(t); i++)
		wake_up_process(t[i]);

	left = wait_for_completion_timeout(&s->done, FPT_CASE_SECS * HZ);
	if (!left) {
		/*
		 * Too slow: finish the cycles in flight, then fail.  What
		 * was left of the budget is what no worker claimed.
		 */
		unclaimed = atomic_long_xchg(&s->budget, 0);
		wait_for_completion(&s->done);
	} else {
		unclaimed = atomic_long_read(&s->budget);
	}
	for (i = 0; i < ARRAY_SIZE(t); i++)
		kthread_stop_put(t[i]);
	KUNIT_EXPECT_NE_MSG(test, left, 0,
			    "cycles in flight at the round's %u s end still ran at %d s",
			    stress_round_secs, FPT_CASE_SECS);
	/* Every cycle a worker took from the budget, and only those, ran. */
	claimed = ops - max(unclaimed, 0L);

	/* Quiet now: whole contexts must be clean. */
	for (i = 0; i < FPT_NR_CTX; i++) {
		struct fpt_rig *rig = s->ctx[i].rig;

		stale += fpm_stale_entries(&rig->mc);
		freed += rig->mc.n.freed_refs;
		hits += rig->mc.n.stale_hits;
		timeouts += fp_context_stat(rig->ctx, FP_STAT_SYNC_TIMEOUTS);
	}
	ms = div_u64(ktime_get_ns() - start, NSEC_PER_MSEC);
	fpt_print_round(test, s, round, ms);
	/* On SMP the workers must really run side by side. */
	cpumask_clear(&cpus);
	for (i = 0; i < FPT_NR_THREADS; i++)
		cpumask_or(&cpus, &cpus, &s->w[i].cpus);
	kunit_info(test, "fp-stress: round %lu: workers ran on %u of %u CPUs\n",
		   round, cpumask_weight(&cpus), num_online_cpus());
	cpumask_or(&fpt_totals.cpus, &fpt_totals.cpus, &cpus);

	if (claimed < (long)ops)
		kunit_info(test, "fp-stress: round %lu: ended by its %u s bound, after %ld of %lu cycles\n",
			   round, stress_round_secs, claimed, ops);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&f->ops), claimed);
	KUNIT_EXPECT_GT(test, claimed, 0);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&f->stale), 0);
	KUNIT_EXPECT_EQ(test, stale, 0);
	KUNIT_EXPECT_EQ(test, freed, 0);
	KUNIT_EXPECT_EQ(test, hits, 0);
	KUNIT_EXPECT_EQ(test, timeouts, 0);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&f->bad_access), 0);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&f->short_unmap), 0);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&f->map_fail), 0);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&f->bad_errno), 0);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&f->bad_reads), 0);

	fpt_totals.round_ops = atomic_long_read(&f->ops);
	fpt_totals.ops += fpt_totals.round_ops;
	fpt_totals.checks += atomic_long_read(&f->checks);
	fpt_totals.pages += atomic_long_read(&f->pages);
	fpt_totals.stale += atomic_long_read(&f->stale) + stale;
	fpt_totals.policy_sets += atomic_long_read(&f->policy_sets);
	fpt_totals.ms += ms;
	fpt_totals.changes += atomic_long_read(&f->policy_sets) +
			      atomic_long_read(&f->threshold_sets);
	fpt_totals.refused += atomic_long_read(&f->refused);
	fpt_totals.mid += atomic_long_read(&f->mid_unmap_changes);
	fpt_totals.overlaps += atomic_long_read(&f->overlaps);
	fpt_totals.freed_refs += freed;
	fpt_totals.stale_hits += hits;
	fpt_totals.timeouts += timeouts;
	fpt_totals.bad += atomic_long_read(&f->bad_access) +
			  atomic_long_read(&f->short_unmap) +
			  atomic_long_read(&f->map_fail) +
			  atomic_long_read(&f->bad_errno) +
			  atomic_long_read(&f->bad_reads);

	/*
	 * Over the whole run, not per round (the arm64 run's rounds are a few
	 * cycles, some under 100 ms, shorter than one policy write: a switch
	 * waits for an SRCU grace period, about 300 ms in the RT kernel under
	 * TCG): the switchers wrote policies, some switches landed inside an
	 * unmap (without preemption threads only change where they sleep,
	 * never in one), and on SMP the workers really ran side by side.
	 */
	if (fpt_totals.ops < stress_ops)
		return;
	KUNIT_EXPECT_GT(test, fpt_totals.policy_sets, 0);
	if (IS_ENABLED(CONFIG_PREEMPTION))
		KUNIT_EXPECT_GT(test, fpt_totals.mid, 0);
	if (num_online_cpus() > 1)
		KUNIT_EXPECT_GT(test, cpumask_weight(&fpt_totals.cpus), 1);
}

/*
 * Rounds until stress_ops cycles are done; none after a round that did no
 * cycle (and failed for it), which would only repeat.
 */
static const void *fpt_round_gen(const void *prev, char *desc)
{
	unsigned long round = (unsigned long)prev + 1;

	if (fpt_totals.ops >= stress_ops || (prev && !fpt_totals.round_ops))
		return NULL;
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "round-%lu", round);
	return (const void *)round;
}

static int fpt_stress_init(struct kunit_suite *suite)
{
	if (!stress_seed)
		stress_seed = get_random_u32() ?: 1;
	stress_max_pages = clamp_t(unsigned int, stress_max_pages,
				   SZ_2M / SZ_4K, SZ_32M / SZ_4K);
	/* The quarantine is sized for FPT_ROUND_OPS. */
	stress_round_ops = clamp(stress_round_ops, 1UL,
				 (unsigned long)FPT_ROUND_OPS);
	stress_round_secs = clamp(stress_round_secs, 1U, 60U);
	pr_info("fp-stress: seed %u, %lu cycles in rounds of at most %lu and %u s, up to %u pages each, %u threads on %zu contexts\n",
		stress_seed, stress_ops, stress_round_ops, stress_round_secs,
		stress_max_pages, FPT_NR_THREADS, FPT_NR_CTX);
	return 0;
}

/*
 * The figures the README quotes, in one line.  The policy-write rate is
 * the switcher's (about 1 ms asleep between two writes, the rest is the
 * switch itself), for make bench's switch target.
 */
static void fpt_stress_exit(struct kunit_suite *suite)
{
	u64 centi = div64_u64(fpt_totals.policy_sets * 100000ULL,
			      fpt_totals.ms ?: 1);

	pr_info("fp-stress-total: policy-writes %lu in %llu ms: %llu.%02llu per second\n",
		fpt_totals.policy_sets, fpt_totals.ms, centi / 100,
		centi % 100);
	pr_info("fp-stress-total: ops %lu checks %lu pages %lu stale %lu freed-table-refs %lu stale-hits %lu sync-timeouts %lu changes %lu refused %lu mid-unmap-changes %lu overlapping-unmaps %lu other-failures %lu seed %u\n",
		fpt_totals.ops, fpt_totals.checks, fpt_totals.pages,
		fpt_totals.stale, fpt_totals.freed_refs, fpt_totals.stale_hits,
		fpt_totals.timeouts, fpt_totals.changes, fpt_totals.refused,
		fpt_totals.mid, fpt_totals.overlaps, fpt_totals.bad,
		stress_seed);
}

static struct kunit_case fpt_stress_cases[] = {
	KUNIT_CASE_PARAM(concurrent_unmaps_and_switches_lose_nothing,
			 fpt_round_gen),
	{}
};

static struct kunit_suite fpt_stress_suite = {
	.name = "flushpol_stress",
	.suite_init = fpt_stress_init,
	.suite_exit = fpt_stress_exit,
	.test_cases = fpt_stress_cases,
};

kunit_test_suite(fpt_stress_suite);
