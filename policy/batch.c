// SPDX-License-Identifier: GPL-2.0-only
/*
 * batch: threshold's choices, with concurrent strict unmaps of one context
 * combined.  One NVMe's DMA domain is one context for every CPU that
 * completes its I/O, and under strict each unmap pays its own invalidation
 * and its own sync.  Here a gather that arrives while another CPU is
 * sending a batch joins the next one; when that one is sent, its gathers
 * share one sync (and, past the threshold, one command for the context).
 *
 * No caller waits for others to join: the window is the batch in flight.
 * A caller alone sends its gather at once, as threshold would; under load
 * each CPU waits for at most the batch being sent and then its own, and
 * returns only once the batch holding its gather has completed its sync.
 * What to send is decided when a batch is sent: each gather by range
 * where the backend has range commands, by VA otherwise, or the whole
 * context once the batch holds more pages than the threshold, or more
 * gathers than it can list.
 *
 * A CPU never waits for a batch its own CPU is sending (it interrupted
 * or preempted the sender, which cannot go on until it returns), for a
 * sender whose vCPU the hypervisor says it has preempted (arm64 guests
 * are never told: there the bound below is what ends the wait), or for
 * longer than FP_BATCH_WAIT_NS: it then sends its own gather as threshold
 * would, and takes it out of the batch if that has not been sent yet.  A
 * caller whose batch failed its sync sends its own gather again, as
 * threshold would have sent it with a sync of its own.  Walks are not
 * combined: a table is freed as soon as its flush returns, so each goes
 * as threshold sends it.
 */
#include <kunit/visibility.h>
#include <linux/preempt.h>
#include <linux/sched/clock.h>
#include <linux/smp.h>
#include <linux/spinlock.h>

#include "../core/fp_core.h"
#include "policy.h"

/*
 * How long a CPU waits for a batch it did not send: two orders of
 * magnitude above what a full batch and its sync take on silicon (16
 * commands and a sync, under 5 us at the seed's figures), so that only a
 * sender off its CPU meets it.  A batch by VA holds up to the
 * threshold's pages, one command each: past a threshold of about 8000 a
 * full batch outlasts the bound at the same figures, and its waiters send
 * alone, each still strict, but sharing nothing.
 */
#define FP_BATCH_WAIT_NS	(1000 * NSEC_PER_USEC)

/* How often a waiter reads the clock: one read per this many spins. */
#define FP_BATCH_CLOCK_SPINS	64

static unsigned long fp_batch_wait_ns = FP_BATCH_WAIT_NS;

/*
 * For the tests, whose threads under TCG may be off their vCPUs for
 * longer than a waiter waits: sets the wait, and returns the old one.
 */
unsigned long fp_batch_wait_set(unsigned long ns)
{
	return xchg(&fp_batch_wait_ns, ns);
}
EXPORT_SYMBOL_IF_KUNIT(fp_batch_wait_set);

void fp_batcher_init(struct fp_batcher *bt)
{
	raw_spin_lock_init(&bt->lock);
	bt->open = 1;
}

/* Whether batch @nr has completed: its sync returned. */
static bool fp_batch_completed(struct fp_batcher *bt, unsigned long nr)
{
	/*
	 * Pairs with the sender's release: a caller told yes acts only after
	 * the sync the sender saw complete.
	 */
	return (long)(smp_load_acquire(&bt->done) - nr) >= 0;
}

/*
 * Whether batch @nr, completed, may not have invalidated what it held: a
 * batch from @nr on failed its sync.  Read after fp_batch_completed().
 */
static bool fp_batch_failed(struct fp_batcher *bt, unsigned long nr)
{
	return (long)(READ_ONCE(bt->failed) - nr) >= 0;
}

/**
 * fp_batch_join() - add a gather to the open batch
 * @ctx: the context
 * @bt: its batcher, whose @lock the caller holds
 * @gather: the gather
 * @slot: where the gather is listed (-1: the batch goes whole)
 *
 * Exported for the tests only (EXPORT_SYMBOL_IF_KUNIT).
 *
 * Return: the batch's number.
 */
VISIBLE_IF_KUNIT unsigned long
fp_batch_join(struct fp_context *ctx, struct fp_batcher *bt,
	      const struct iommu_iotlb_gather *gather, int *slot)
{
	struct fp_batch *b = &bt->b[bt->open & 1];

	lockdep_assert_held(&bt->lock);
	*slot = -1;
	if (b->whole)
		return bt->open;
	b->pages += fp_gather_pages(gather);
	if (b->n == FP_BATCH_GATHERS || b->pages > fp_context_threshold(ctx)) {
		b->whole = true;
		return bt->open;
	}
	b->g[b->n].iova = gather->start;
	b->g[b->n].size = gather->end - gather->start + 1;
	b->g[b->n].granule = gather->pgsize;
	*slot = b->n++;
	b->live++;
	return bt->open;
}
EXPORT_SYMBOL_IF_KUNIT(fp_batch_join);

/**
 * fp_batch_leave() - take a gather out of its batch, if still open
 * @bt: the batcher
 * @nr: the batch fp_batch_join() returned
 * @slot: where it listed the gather
 * @gather: the gather
 *
 * For a caller that sends its own gather, so that it is not invalidated
 * twice: its entry is emptied, not removed, since other callers hold
 * their slots.  Exported for the tests only (EXPORT_SYMBOL_IF_KUNIT).
 */
VISIBLE_IF_KUNIT void fp_batch_leave(struct fp_batcher *bt, unsigned long nr,
				     int slot,
				     const struct iommu_iotlb_gather *gather)
{
	struct fp_batch *b = &bt->b[nr & 1];
	unsigned long flags;

	raw_spin_lock_irqsave(&bt->lock, flags);
	if (bt->open == nr && slot >= 0 && !b->whole) {
		b->g[slot].size = 0;
		b->pages -= fp_gather_pages(gather);
		b->live--;
		/*
		 * Free what is empty at the end of the list, so that callers
		 * who each sent alone do not fill it, and make the batch go
		 * whole for the next one who joins.
		 */
		while (b->n && !b->g[b->n - 1].size)
			b->n--;
	}
	raw_spin_unlock_irqrestore(&bt->lock, flags);
}
EXPORT_SYMBOL_IF_KUNIT(fp_batch_leave);

/* The one gather left in @b, if only one is: NULL otherwise. */
static const struct fp_batch_gather *fp_batch_only(const struct fp_batch *b)
{
	unsigned int i;

	if (b->live != 1)
		return NULL;
	for (i = 0; i < b->n; i++)
		if (b->g[i].size)
			return &b->g[i];
	WARN_ON_ONCE(1);
	return NULL;
}

/**
 * fp_batch_send() - send a batch, and empty it
 * @ctx: the context
 * @b: the batch, no longer open
 *
 * One sync for all its gathers.  A batch of one goes as the backend's
 * command-and-sync operation, as threshold's would.  Its sender's gather
 * is listed (or the batch is whole): never none.  Exported for the tests
 * only (EXPORT_SYMBOL_IF_KUNIT).
 *
 * Return: as fp_sync().
 */
VISIBLE_IF_KUNIT int fp_batch_send(struct fp_context *ctx, struct fp_batch *b)
{
	bool range = fp_context_has_range(ctx);
	const struct fp_batch_gather *g = b->whole ? NULL : fp_batch_only(b);
	unsigned int i;
	int ret;

	if (b->whole) {
		ret = fp_flush_context(ctx);
	} else if (g && range) {
		ret = fp_inv_range_sync(ctx, g->iova, g->size, g->granule,
					true, NULL);
	} else if (g) {
		ret = fp_inv_va_sync(ctx, g->iova, g->size, g->granule, true);
	} else {
		for (i = 0; i < b->n; i++) {
			g = &b->g[i];
			if (!g->size)
				continue;
			if (range)
				fp_inv_range(ctx, g->iova, g->size, g->granule,
					     true);
			else
				fp_inv_va(ctx, g->iova, g->size, g->granule,
					  true);
		}
		ret = fp_sync(ctx);
	}
	b->n = 0;
	b->live = 0;
	b->pages = 0;
	b->whole = false;
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(fp_batch_send);

/*
 * Sends the open batch, @nr: called with @bt->lock held, which it drops.
 * Its gathers are the batch's until it is marked done, and no other
 * batch is sent meanwhile, so they are read without the lock.  Sent in
 * the caller's interrupt state, as threshold sends: a batch by VA may be
 * the threshold's pages long, and the queue may wait for room or recover
 * in it.  An interrupt's unmap on this CPU meanwhile sends its own.
 */
static void fp_batch_lead(struct fp_context *ctx, struct fp_batcher *bt,
			  unsigned long nr, unsigned long flags)
	__releases(&bt->lock)
{
	struct fp_batch *b = &bt->b[nr & 1];
	int ret;

	WARN_ON_ONCE(nr != bt->open);
	bt->open++;
	WRITE_ONCE(bt->leader, smp_processor_id() + 1);
	raw_spin_unlock_irqrestore(&bt->lock, flags);

	ret = fp_batch_send(ctx, b);

	raw_spin_lock_irqsave(&bt->lock, flags);
	if (ret)
		WRITE_ONCE(bt->failed, nr);
	/* After the sync: pairs with fp_batch_completed()'s acquire. */
	smp_store_release(&bt->done, nr);
	WRITE_ONCE(bt->leader, 0);
	raw_spin_unlock_irqrestore(&bt->lock, flags);
}

/*
 * Waits, without the lock, for batch @nr to complete or for nobody to be
 * sending one.  Return: false if it should not wait any longer (see the
 * top of this file), having waited since *@t0 (0: not yet started).
 */
static bool fp_batch_wait(struct fp_batcher *bt, unsigned long nr, u64 *t0)
{
	unsigned int spins = 0;
	int leader;

	for (;;) {
		if (fp_batch_completed(bt, nr))
			return true;
		leader = READ_ONCE(bt->leader);
		if (!leader)
			return true;
		if (leader - 1 == smp_processor_id() ||
		    vcpu_is_preempted(leader - 1))
			return false;
		if (++spins % FP_BATCH_CLOCK_SPINS == 0) {
			u64 now = local_clock();

			if (!*t0)
				*t0 = now;
			else if (now - *t0 > READ_ONCE(fp_batch_wait_ns))
				return false;
		}
		cpu_relax();
	}
}

/*
 * The CPU is fixed for the call (migrate_disable()), so that a sender's
 * CPU, as waiters compare it with their own, stays where it was taken.
 * Preemption stays as the caller has it: on PREEMPT_RT a backend may take
 * a spinlock_t (core/dispatch.c).
 */
static void fp_batch_flush_gather(struct fp_context *ctx,
				  const struct iommu_iotlb_gather *gather)
{
	struct fp_batcher *bt = &ctx->batcher;
	unsigned long flags, nr;
	u64 t0 = 0;
	int slot;

	if (!fp_gather_pages(gather) || fp_gather_covered(ctx, gather))
		return;

	migrate_disable();
	raw_spin_lock_irqsave(&bt->lock, flags);
	nr = fp_batch_join(ctx, bt, gather, &slot);
	for (;;) {
		if (fp_batch_completed(bt, nr)) {
			if (!fp_batch_failed(bt, nr))
				break;
			raw_spin_unlock_irqrestore(&bt->lock, flags);
			fp_threshold_flush_gather(ctx, gather);
			goto out;
		}
		if (!bt->leader) {
			fp_batch_lead(ctx, bt, nr, flags);
			goto out;
		}
		raw_spin_unlock_irqrestore(&bt->lock, flags);
		if (!fp_batch_wait(bt, nr, &t0)) {
			fp_batch_leave(bt, nr, slot, gather);
			fp_threshold_flush_gather(ctx, gather);
			goto out;
		}
		raw_spin_lock_irqsave(&bt->lock, flags);
	}
	raw_spin_unlock_irqrestore(&bt->lock, flags);
out:
	migrate_enable();
}

/* Never one_leaf: a gather of one leaf is what batches are made of. */
struct fp_policy fp_policy_batch = {
	.name		= "batch",
	.owner		= THIS_MODULE,
	.flush_walk	= fp_threshold_flush_walk,
	.flush_gather	= fp_batch_flush_gather,
};
