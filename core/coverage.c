// SPDX-License-Identifier: GPL-2.0-only
/*
 * Coverage: which gathered leaves are already invalidated, so that a policy
 * need not send commands for them again.
 *
 * Two things cover a leaf before its unmap's iotlb_sync:
 *
 * - A walk flush of the table the leaf entry pointed to.  io-pgtable clears
 *   a table entry, flushes the walk (which must invalidate every leaf under
 *   it and sync), and only then gathers the entry as a leaf too.  Walk
 *   flushes that completed are kept as one span per fp_unmap() call; a
 *   leaf that call gathers inside it needs nothing more.  Only within one
 *   call: io-pgtable also flushes a walk from map, when a block replaces an
 *   empty table, and the flush ops then see exactly what an unmap of that
 *   table shows (walk, then a leaf of the same address and size), except
 *   that the leaf comes from unmapping the block later, with the block's
 *   translation cached since.  Only fp_unmap() knows where an unmap starts
 *   and ends; walks outside it (map, a driver's own unmap_pages) cover
 *   nothing.
 *
 * - A context-wide flush that started after the leaf's PTE was cleared and
 *   completed.  Flushes are numbered when they start; leaf_mark is the
 *   number of flushes started when a leaf needing invalidation was last
 *   gathered, on any CPU.  Conservative under concurrency, never wrong.
 */
#include <linux/sched.h>

#include "fp_core.h"

/* Raise @v to @new, never lower it; cheap when @v is already there. */
static void fp_atomic64_max(atomic64_t *v, s64 new)
{
	s64 old = atomic64_read(v);

	while (old < new && !atomic64_try_cmpxchg(v, &old, new))
		;
}

void fp_cov_init(struct fp_context *ctx)
{
	spin_lock_init(&ctx->span_lock);
	INIT_LIST_HEAD(&ctx->unmaps);
	atomic64_set(&ctx->leaf_mark, -1);
}

/* fp_unmap() is running in this task: walks from here on may cover leaves. */
void fp_cov_unmap_begin(struct fp_context *ctx, struct fp_cov_unmap *u)
{
	unsigned long flags;

	u->task = current;
	u->start = 0;
	u->end = 0;
	spin_lock_irqsave(&ctx->span_lock, flags);
	/* Newest first, so that a call nested in an interrupt finds its own. */
	list_add(&u->node, &ctx->unmaps);
	spin_unlock_irqrestore(&ctx->span_lock, flags);
}

void fp_cov_unmap_end(struct fp_context *ctx, struct fp_cov_unmap *u)
{
	unsigned long flags;

	spin_lock_irqsave(&ctx->span_lock, flags);
	list_del(&u->node);
	if (u->end)
		atomic_dec(&ctx->nr_spans);
	spin_unlock_irqrestore(&ctx->span_lock, flags);
}

/* The innermost fp_unmap() call of the current task on @ctx, if any. */
static struct fp_cov_unmap *fp_cov_current(struct fp_context *ctx)
{
	struct fp_cov_unmap *u;

	lockdep_assert_held(&ctx->span_lock);
	list_for_each_entry(u, &ctx->unmaps, node)
		if (u->task == current)
			return u;
	return NULL;
}

/* Returns what fp_cov_walk_done() needs to tell whether the walk synced. */
int fp_cov_walk_begin(struct fp_context *ctx)
{
	return atomic_read(&ctx->sync_errors);
}

void fp_cov_walk_done(struct fp_context *ctx, int token, unsigned long iova,
		      size_t size)
{
	struct fp_cov_unmap *u;
	unsigned long flags;

	if (atomic_read(&ctx->sync_errors) != token)
		return;

	spin_lock_irqsave(&ctx->span_lock, flags);
	u = fp_cov_current(ctx);
	if (!u) {
		/* From map, or from an unmap fp_unmap() does not bracket. */
	} else if (u->end && iova == u->end) {
		u->end += size;
	} else if (u->end && iova + size == u->start) {
		u->start = iova;
	} else {
		if (!u->end)
			atomic_inc(&ctx->nr_spans);
		u->start = iova;
		u->end = iova + size;
	}
	spin_unlock_irqrestore(&ctx->span_lock, flags);
}

static bool fp_cov_in_span(struct fp_context *ctx, unsigned long iova,
			   size_t size)
{
	struct fp_cov_unmap *u;
	unsigned long flags;
	bool in;

	/* Most leaves: no table was freed in any unmap running now. */
	if (!atomic_read(&ctx->nr_spans))
		return false;
	spin_lock_irqsave(&ctx->span_lock, flags);
	u = fp_cov_current(ctx);
	in = u && u->end && u->start <= iova && iova + size <= u->end;
	spin_unlock_irqrestore(&ctx->span_lock, flags);
	return in;
}

/*
 * A leaf was gathered.  Returns false if a walk flush already covered it;
 * otherwise records it for fp_gather_covered().
 */
bool fp_cov_leaf(struct fp_context *ctx, unsigned long iova, size_t size)
{
	if (fp_cov_in_span(ctx, iova, size))
		return false;

	/* Order the PTE clear before sampling which flushes have started. */
	smp_mb();
	fp_atomic64_max(&ctx->leaf_mark,
			atomic64_read(&ctx->ctx_flush_started));
	return true;
}

void fp_cov_sync_failed(struct fp_context *ctx)
{
	atomic_inc(&ctx->sync_errors);
}

/**
 * fp_flush_context() - invalidate the whole context and wait for it
 * @ctx: the context
 *
 * Return: as fp_sync().
 */
int fp_flush_context(struct fp_context *ctx)
{
	s64 seq = atomic64_inc_return(&ctx->ctx_flush_started);
	int ret;

	fp_inv_context(ctx);
	ret = fp_sync(ctx);
	if (!ret)
		fp_atomic64_max(&ctx->ctx_flush_done, seq);
	return ret;
}
EXPORT_SYMBOL_GPL(fp_flush_context);

/**
 * fp_gather_covered() - whether gathered leaves are already invalidated
 * @ctx: the context
 *
 * True when every leaf gathered since the last sync either sits under a
 * table whose walk flush completed, or was gathered before a context-wide
 * flush that has since completed.  Conservative: with concurrent unmaps it
 * may say false when the gather was covered, never the reverse.
 *
 * Return: true if a gather ending now needs no further command.
 */
bool fp_gather_covered(struct fp_context *ctx)
{
	return atomic64_read(&ctx->ctx_flush_done) >
	       atomic64_read(&ctx->leaf_mark);
}
EXPORT_SYMBOL_GPL(fp_gather_covered);
