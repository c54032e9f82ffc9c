// SPDX-License-Identifier: GPL-2.0-only
/*
 * Coverage: which gathered leaves are already invalidated, so that a policy
 * need not send commands for them again.  All of it is per call: each
 * fp_unmap() keeps a struct fp_call on its stack, and nothing here is
 * written by one unmap and read by another.
 *
 * Finding the record.  While fp_unmap() is inside a page table's
 * unmap_pages that may free tables (pages larger than the smallest; the
 * others free none, and their walks need no record: core/unmap.c), its
 * task cannot leave this CPU (migrate_disable()), and this CPU's
 * fp_cur_call points at its record, until another call on this CPU takes
 * the slot.  tlb_add_page finds the record around its gather;
 * tlb_flush_walk, which gets only the cookie, through the slot, by the
 * record's context, task and interrupt nesting.  No lock, no atomic.  The
 * task alone would be wrong: an interrupt runs with the task it
 * interrupted as `current`; the pair (task, interrupt level) is one
 * context of execution, which no other context shares.
 *
 * The steps every unmap takes (starting its record, finding it from a
 * leaf, marking a leaf, asking whether its gather is covered) are inline
 * in fp_core.h: each is a few loads and stores into the record, and an
 * out-of-line call (or a zeroing of the whole record) cost the 4K unmap
 * more than they do.  The invariants below hold them all.
 *
 * Invariants, each to be checked against the line that relies on it:
 *
 * R1 fp_cur_call is written only by fp_call_enter()/fp_call_leave(), with
 *    preemption off while they read and write it, by a task pinned to this
 *    CPU until its fp_call_leave().
 * R2 It only ever points at a live record.  enter stores the caller's own.
 *    leave replaces it only if it still points at the caller's, and then
 *    with the record it found at enter if that one belongs to an
 *    interrupted context (a lower interrupt level: alive, since we run
 *    nested in it), or with NULL.  A record pointed at by nothing but
 *    another's saved value therefore never comes back.
 * R3 A reader dereferences the slot with preemption off
 *    (fp_call_current()), so that its owner, pinned here, cannot run and
 *    leave meanwhile.  Leaves do not use the slot: a call's own gather is
 *    marked (fp_call_begin()), and tlb_add_page finds the record around
 *    it with container_of().  So every leaf of a call reaches its record.
 * R4 A record is used only by its own context: same task, interrupt level
 *    and cookie for walks, its own gather for leaves.  A walk flushed from
 *    map, from another unmap, or from an interrupt that does not go
 *    through fp_unmap() therefore finds no record, and covers nothing.
 *    When another call on this CPU takes the slot (a task preempting ours
 *    and unmapping too), ours finds nothing for its walks for the rest of
 *    its unmap_pages: they cover nothing and take no mark, so its leaves
 *    stay stale and need commands.  Coverage is lost, never gained.
 *
 * W  A walk flush covers a leaf only if the leaf is exactly one of the
 *    tables it flushed: same size, inside a run of adjacent such tables
 *    (walk_start, walk_end, walk_size), flushed in this call.
 * W1 Only a walk whose granule is below its size names a table being
 *    freed; io-pgtable (arm-lpae and arm-v7s, 6.1 to 6.12) calls it only
 *    after clearing that table's entry.  A walk with granule >= size is
 *    arm-v7s splitting a contiguous entry before the leaf is cleared
 *    (arm_v7s_split_cont()); it is recorded as nothing.
 * W2 A walk is recorded only after the policy's flush_walk returned with
 *    no sync failure on the context meanwhile (fp_sync() counts every
 *    failure in flushes.sync_errors, read before and after).  A failure
 *    from another CPU's sync makes this walk cover nothing: conservative.
 * W3 A leaf equal to a flushed table: the device can have re-fetched
 *    neither the table (its entry was cleared before the flush, W1) nor
 *    anything under it since, so no leaf entry for that range survives.
 *
 * C  A context-wide flush covers a leaf whose PTE was cleared before the
 *    flush started.  fp_flush_context() takes a number from
 *    flushes.started (fully ordered) before its command, and raises
 *    flushes.done to it once its sync succeeded.
 * C1 mark is sampled from flushes.started after smp_mb(), at a walk
 *    flush, when the call has leaves not covered by W (stale).  Every such
 *    leaf was gathered, hence cleared, before that barrier.  A flush
 *    numbered above mark incremented started after the sample, so after
 *    the clears were visible (store, full barrier, load: against the
 *    flusher's fully ordered increment, the clear is visible to it and to
 *    the device before its command).
 * C2 flushes.done > mark means some flush numbered above mark completed:
 *    every leaf cleared before mark is invalidated.
 * C3 A leaf gathered after the mark sets stale again; the gather is
 *    covered only when stale is false (fp_cov_covered()).  So the check
 *    costs a leaf a compare and a store to the record: no barrier, no
 *    atomic, no shared line; the barrier is paid once per walk.
 *
 * C4 On arm64 (other-multi-copy atomic, cumulative barriers): clear ->
 *    dmb ish -> load started; the flusher's increment is a fully ordered
 *    RMW, and its command goes out after a dsb (writel, or the command
 *    queue's barrier).  The load not seeing the increment puts the RMW
 *    after it in started's coherence order, so the clear is visible to the
 *    flusher before its barrier, and by cumulativity to the SMMU before
 *    the command.  A non-coherent walker: io-pgtable cleaned the PTE, with
 *    its own dsb, before gathering it.  flushes.done is a maximum, not a
 *    prefix: any completed flush numbered above mark suffices, whatever
 *    earlier-numbered flushes are still in flight.
 *
 * G  A gather handed to a policy is covered only if every leaf in it is
 *    covered by W or C.  fp_cov_reset() clears the record's leaf state
 *    whenever its gather is emptied, so the state describes exactly the
 *    leaves in it.  A gather that is not a call's own (the caller's, given
 *    to fp_unmap() or filled by io-pgtable directly) is never covered.
 */
#include <linux/preempt.h>
#include <linux/sched.h>

#include "fp_core.h"

static DEFINE_PER_CPU(struct fp_call *, fp_cur_call);

/* Which interrupt level the caller runs at (R4). */
static unsigned long fp_irq_level(void)
{
	return preempt_count() & (NMI_MASK | HARDIRQ_MASK | SOFTIRQ_MASK);
}

/*
 * What marks a call's own gather (R3): its freelist, which io-pgtable-arm
 * and -v7s never touch (they free tables themselves), and which never
 * leaves flushpol (fp_unmap() hands on only the range).  fp_call_begin()
 * sets it, fp_call_of_gather() looks for it (fp_core.h).
 */
struct list_head fp_call_gather_mark;

/* Make @c this CPU's current call (R1, R2). */
void fp_call_enter(struct fp_call *c)
{
	struct fp_call *prev;

	migrate_disable();
	c->task = current;
	c->irq = fp_irq_level();
	preempt_disable();
	prev = __this_cpu_read(fp_cur_call);
	/* R2: decided now, while @prev is sure to be alive. */
	c->restore = prev && prev->irq < c->irq ? prev : NULL;
	__this_cpu_write(fp_cur_call, c);
	preempt_enable();
}

void fp_call_leave(struct fp_call *c)
{
	preempt_disable();
	if (__this_cpu_read(fp_cur_call) == c)
		__this_cpu_write(fp_cur_call, c->restore);
	preempt_enable();
	migrate_enable();
}

/* The call of the context running this walk, if any (R3, R4). */
static struct fp_call *fp_call_current(struct fp_context *ctx)
{
	struct fp_call *c;

	preempt_disable();
	c = __this_cpu_read(fp_cur_call);
	if (c && (c->task != current || c->irq != fp_irq_level() ||
		  c->ctx != ctx))
		c = NULL;
	preempt_enable();
	return c;
}

/*
 * A walk flush is about to be sent.  Marks the call's leaves so far (C1)
 * and returns the call if the walk names a freed table (W1), with what
 * fp_cov_walk_done() needs to see whether it synced (W2).
 */
struct fp_call *fp_cov_walk_begin(struct fp_context *ctx, size_t size,
				  size_t granule, int *token)
{
	struct fp_call *c = fp_call_current(ctx);

	if (!c)
		return NULL;
	if (c->stale) {
		/* C1: the clears of those leaves before the sample. */
		smp_mb();
		c->mark = atomic64_read(&ctx->flushes.started);
		c->marked = true;
		c->stale = false;
	}
	if (granule >= size)
		return NULL;
	*token = atomic_read(&ctx->flushes.sync_errors);
	return c;
}

void fp_cov_walk_done(struct fp_call *c, int token, unsigned long iova,
		      size_t size)
{
	if (atomic_read(&c->ctx->flushes.sync_errors) != token)
		return;
	if (size == c->walk_size && iova == c->walk_end) {
		c->walk_end += size;
	} else {
		/* A run of another size or place: the old one is done. */
		c->walk_start = iova;
		c->walk_end = iova + size;
		c->walk_size = size;
	}
}

void fp_cov_sync_failed(struct fp_context *ctx)
{
	atomic_inc(&ctx->flushes.sync_errors);
}

/* Raise @v to @new, never lower it. */
static void fp_atomic64_max(atomic64_t *v, s64 new)
{
	s64 old = atomic64_read(v);

	while (old < new && !atomic64_try_cmpxchg(v, &old, new))
		;
}

/**
 * fp_flush_context() - invalidate the whole context and wait for it
 * @ctx: the context
 *
 * Return: as fp_sync().
 */
int fp_flush_context(struct fp_context *ctx)
{
	/* C: fully ordered, before the command. */
	s64 seq = atomic64_inc_return(&ctx->flushes.started);
	int ret;

	fp_inv_context(ctx);
	ret = fp_sync(ctx);
	if (!ret)
		fp_atomic64_max(&ctx->flushes.done, seq);
	return ret;
}
EXPORT_SYMBOL_GPL(fp_flush_context);

/**
 * fp_gather_covered() - whether a gather's leaves are already invalidated
 * @ctx: the context
 * @gather: the gather the policy's flush_gather was handed
 *
 * True when every leaf in @gather is exactly a table a walk flush of the
 * same fp_unmap() call invalidated after clearing it, or was cleared before
 * a context-wide flush that has since completed.  Conservative: a gather
 * filled outside fp_unmap() is never covered.
 *
 * Return: true if @gather needs no further command.
 */
bool fp_gather_covered(struct fp_context *ctx,
		       const struct iommu_iotlb_gather *gather)
{
	return container_of(gather, struct fp_gather, g)->covered;
}
EXPORT_SYMBOL_GPL(fp_gather_covered);
