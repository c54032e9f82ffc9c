// SPDX-License-Identifier: GPL-2.0-only
/*
 * The flushpol primitives for SMMUv3: commands go into the queue without
 * waiting, and a sync publishes them all with one CMD_SYNC, however many
 * there were.  An invalidation followed by its sync hands its last batch
 * and the CMD_SYNC to the queue together.
 */
#include "cmdq.h"
#include "smmuv3.h"

/* Commands are built on the stack in batches of this many. */
#define SMMUV3_BATCH	32

/*
 * Only the first @n commands are ever read: the rest is left as the stack
 * had it, not zeroed per flush (512 bytes, for the one command of a 4K
 * unmap).
 */
struct smmuv3_batch {
	u64 cmds[SMMUV3_BATCH * CMD_DWORDS];
	unsigned int n;
};

static struct smmuv3_flush *to_flush(struct fp_context *ctx)
{
	return fp_context_priv(ctx);
}

/*
 * Every flush reaches the queue through these two: straight into the SMMU's
 * own queue where it is that (@f->direct: no call through the queue's
 * operations), else through them; never some commands one way and their
 * CMD_SYNC the other.
 */
static void smmuv3_cmds(struct smmuv3_flush *f, const u64 *cmds,
			unsigned int n)
{
	if (likely(f->direct))
		smmuv3_cmdq_submit(f->direct, cmds, n);
	else
		f->cmdq->submit(f->q, cmds, n);
}

/*
 * @n commands and the CMD_SYNC that completes them and every command before
 * them, in one queue operation where the queue has one.
 */
static int smmuv3_cmds_sync(struct smmuv3_flush *f, const u64 *cmds,
			    unsigned int n)
{
	if (likely(f->direct))
		return smmuv3_cmdq_submit_sync(f->direct, cmds, n);
	if (f->cmdq->submit_sync)
		return f->cmdq->submit_sync(f->q, cmds, n);
	if (n)
		f->cmdq->submit(f->q, cmds, n);
	return f->cmdq->sync(f->q);
}

static u64 *smmuv3_batch_slot(struct smmuv3_flush *f, struct smmuv3_batch *b)
{
	if (b->n == SMMUV3_BATCH) {
		smmuv3_cmds(f, b->cmds, b->n);
		b->n = 0;
	}
	return &b->cmds[b->n++ * CMD_DWORDS];
}

/* The last batch, and with @sync the CMD_SYNC after it. */
static int smmuv3_batch_end(struct smmuv3_flush *f, struct smmuv3_batch *b,
			    bool sync)
{
	if (sync)
		return smmuv3_cmds_sync(f, b->cmds, b->n);
	if (b->n)
		smmuv3_cmds(f, b->cmds, b->n);
	return 0;
}

static int smmuv3_va(struct smmuv3_flush *f, unsigned long iova, size_t size,
		     size_t granule, bool leaf, bool sync)
{
	struct smmuv3_batch b __uninitialized;
	unsigned long end = iova + size;

	b.n = 0;
	for (; iova < end; iova += granule)
		smmuv3_cmd_tlbi_nh_va(smmuv3_batch_slot(f, &b), f->asid, iova,
				      leaf);
	return smmuv3_batch_end(f, &b, sync);
}

static int smmuv3_range(struct smmuv3_flush *f, unsigned long iova,
			size_t size, bool leaf, bool sync, unsigned int *n)
{
	struct smmuv3_batch b __uninitialized;
	struct smmuv3_range_iter it;
	struct smmuv3_range r;

	/*
	 * TTL=0: the level of the entries is not known.  The granule is the
	 * size of what was unmapped, not of what the TLB may hold: unmapping
	 * 4K out of a 2M block gathers a 4K leaf while the TLB holds the 2M
	 * block entry, and a command with TTL=3 need not remove that
	 * (IHI 0070, "Address-based invalidations").
	 */
	b.n = 0;
	*n = 0;
	smmuv3_range_start(&it, iova, size, f->tg);
	while (smmuv3_range_next(&it, &r)) {
		smmuv3_cmd_tlbi_nh_va_range(smmuv3_batch_slot(f, &b), f->asid,
					    &r, f->tg, 0, leaf);
		(*n)++;
	}
	return smmuv3_batch_end(f, &b, sync);
}

static void smmuv3_inv_va(struct fp_context *ctx, unsigned long iova,
			  size_t size, size_t granule, bool leaf)
{
	smmuv3_va(to_flush(ctx), iova, size, granule, leaf, false);
}

static int smmuv3_inv_va_sync(struct fp_context *ctx, unsigned long iova,
			      size_t size, size_t granule, bool leaf)
{
	return smmuv3_va(to_flush(ctx), iova, size, granule, leaf, true);
}

static unsigned int smmuv3_inv_range(struct fp_context *ctx,
				     unsigned long iova, size_t size,
				     size_t granule, bool leaf)
{
	unsigned int n;

	smmuv3_range(to_flush(ctx), iova, size, leaf, false, &n);
	return n;
}

static int smmuv3_inv_range_sync(struct fp_context *ctx, unsigned long iova,
				 size_t size, size_t granule, bool leaf,
				 unsigned int *n)
{
	return smmuv3_range(to_flush(ctx), iova, size, leaf, true, n);
}

/*
 * The one range command for a leaf: a power of two of granules at an
 * address aligned to it, so NUM is 0 and SCALE its log2, what
 * smmuv3_range_next() makes of it.  TTL=0, as smmuv3_range() sends it.
 */
static void smmuv3_cmd_tlbi_leaf_range(u64 *cmd, const struct smmuv3_flush *f,
				       unsigned long iova, size_t size)
{
	struct smmuv3_range r = {
		.iova = iova, .num = 0, .scale = __ffs(size >> f->tg),
	};

	smmuv3_cmd_tlbi_nh_va_range(cmd, f->asid, &r, f->tg, 0, true);
}

/*
 * The strict unmap of one leaf (a 4K page, mostly): its one command built
 * here and handed with its CMD_SYNC straight to the SMMU's queue, in one
 * hold of its lock (smmuv3_cmdq_submit_sync(): its loss accounting and
 * ordered recovery included), with no batch.  A leaf is at most 2^26
 * granules (a level-1 block of 64K pages), so one range command covers it
 * whatever its size: SCALE reaches 2^31.
 */
static int smmuv3_inv_leaf_sync(void *priv, unsigned long iova, size_t size,
				bool range)
{
	struct smmuv3_flush *f = priv;
	u64 cmd[CMD_DWORDS] __uninitialized;

	if (range)
		smmuv3_cmd_tlbi_leaf_range(cmd, f, iova, size);
	else
		smmuv3_cmd_tlbi_nh_va(cmd, f->asid, iova, true);
	return smmuv3_cmds_sync(f, cmd, 1);
}

static void smmuv3_inv_context(struct fp_context *ctx)
{
	struct smmuv3_flush *f = to_flush(ctx);
	u64 cmd[CMD_DWORDS];

	smmuv3_cmd_tlbi_nh_asid(cmd, f->asid);
	smmuv3_cmds(f, cmd, 1);
}

static void smmuv3_inv_all(struct fp_context *ctx)
{
	struct smmuv3_flush *f = to_flush(ctx);
	u64 cmd[CMD_DWORDS];

	smmuv3_cmd_tlbi_nh_all(cmd);
	smmuv3_cmds(f, cmd, 1);
}

static int smmuv3_sync(struct fp_context *ctx)
{
	struct smmuv3_flush *f = to_flush(ctx);

	if (likely(f->direct))
		return smmuv3_cmdq_sync(f->direct);
	return f->cmdq->sync(f->q);
}

/* The primitives, without and with range invalidation (IDR3.RIL). */
const struct fp_hw_ops smmuv3_hw_ops = {
	.inv_va		= smmuv3_inv_va,
	.inv_context	= smmuv3_inv_context,
	.inv_all	= smmuv3_inv_all,
	.sync		= smmuv3_sync,
	.inv_va_sync	= smmuv3_inv_va_sync,
	.inv_leaf_sync	= smmuv3_inv_leaf_sync,
};
EXPORT_SYMBOL_GPL(smmuv3_hw_ops);

const struct fp_hw_ops smmuv3_hw_ops_ril = {
	.inv_va		= smmuv3_inv_va,
	.inv_range	= smmuv3_inv_range,
	.inv_context	= smmuv3_inv_context,
	.inv_all	= smmuv3_inv_all,
	.sync		= smmuv3_sync,
	.inv_va_sync	= smmuv3_inv_va_sync,
	.inv_range_sync	= smmuv3_inv_range_sync,
	.inv_leaf_sync	= smmuv3_inv_leaf_sync,
};
EXPORT_SYMBOL_GPL(smmuv3_hw_ops_ril);
