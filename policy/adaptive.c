// SPDX-License-Identifier: GPL-2.0-only
/*
 * adaptive: threshold, with N chosen from measured costs instead of set.
 *
 * For each walk flush and each gather it is handed it compares
 *   precise:      n commands                + a sync
 *   context-wide: 1 command                 + a sync
 *                 + a walk for every live entry of the context it destroys
 * and takes the cheaper.  The sync is common to both, so precise wins while
 * (n - 1) * command <= live * walk (fp_estimate_precise_cheaper()).
 *
 * What it measures: the time of its flushes, by the context's clock
 * (fp_context_clock(): ktime, or a model's), two reads per flush, none per
 * leaf.  A flush of one command gives one command and its sync; a flush of
 * n gives the per-command cost beyond that (fp_estimate_sample(): moving
 * averages per context, so they follow the hardware and its load; a failed
 * sync is not a sample).  After the first 64 samples one flush in 64 per
 * CPU is timed (fp_estimate_sample_due(): clock reads are what adaptive
 * adds to threshold's cost).  Precise flushes go out as the backend's one
 * commands-and-sync operation where it has one (fp_inv_va_sync(),
 * fp_inv_range_sync()), as the core's one-leaf path sends them, so that
 * every sample times the same kind of operation.
 *
 * A gather of one leaf is always precise: one command costs no more than
 * a context flush's one (fp_estimate_precise_cheaper() with n = 1).  So
 * adaptive declares it (&fp_policy.one_leaf), and the core sends a strict
 * 4K unmap's command and sync itself, without a call into this module,
 * timing it as fp_ada_decide() would (&fp_policy.times_flushes).
 *
 * What it assumes: the walk cost of a miss and the TLB size from the
 * backend (or sysfs), and that every entry mapped through fp_map() and not
 * unmapped is live in the TLB, up to its size (fp_estimate_footprint()),
 * except those the core judges streamed: mapped after the buffer this CPU
 * last unmapped, and so, in a ring of buffers each used once, never to be
 * used again (fp_estimate_streamed()).
 *
 * How it fails safe: whichever it chooses is a complete invalidation with
 * the same primitives and coverage rules as threshold (a covered gather is
 * the only thing it skips, as fp_gather_covered() allows).  Precise sends
 * at most one command per entry, as va does, and context-wide one: never
 * more commands than va.  The estimates only move the choice.
 */
#define pr_fmt(fmt) "flushpol_adaptive: " fmt

#include <linux/log2.h>
#include <linux/module.h>

#include "../include/flushpol.h"

/* Range commands: one per 5-bit window of the count, at most (NUM < 32). */
static unsigned long fp_ada_cmds(bool range, unsigned long pages)
{
	return range ? DIV_ROUND_UP(fls_long(pages), 5) : pages;
}

static void fp_ada_decide(struct fp_context *ctx, unsigned long iova,
			  size_t size, size_t granule, bool leaf)
{
	struct fp_estimate *e = fp_context_estimate(ctx);
	bool range = fp_context_has_range(ctx);
	unsigned long n = fp_ada_cmds(range, size / granule);
	bool timed = fp_estimate_sample_due(e);
	u64 t0 = timed ? fp_context_clock(ctx) : 0;
	unsigned int sent;
	int ret;

	if (!fp_estimate_precise_cheaper(e, n)) {
		ret = fp_flush_context(ctx);
		n = 1;
	} else if (range) {
		/* The count sent, not the bound fp_ada_cmds() decided on. */
		ret = fp_inv_range_sync(ctx, iova, size, granule, leaf, &sent);
		n = sent;
	} else {
		ret = fp_inv_va_sync(ctx, iova, size, granule, leaf);
	}
	if (timed && !ret && n)
		fp_estimate_sample(e, n, fp_context_clock(ctx) - t0);
}

static void fp_ada_flush_walk(struct fp_context *ctx, unsigned long iova,
			      size_t size, size_t granule)
{
	fp_ada_decide(ctx, iova, size, granule, false);
}

static void fp_ada_flush_gather(struct fp_context *ctx,
				const struct iommu_iotlb_gather *gather)
{
	if (!fp_gather_pages(gather) || fp_gather_covered(ctx, gather))
		return;
	fp_ada_decide(ctx, gather->start, gather->end - gather->start + 1,
		      gather->pgsize, true);
}

static struct fp_policy fp_policy_adaptive = {
	.name		= "adaptive",
	.owner		= THIS_MODULE,
	.flush_walk	= fp_ada_flush_walk,
	.flush_gather	= fp_ada_flush_gather,
	.one_leaf	= FP_ONE_LEAF_PRECISE,
	.reads_estimate	= true,
	.times_flushes	= true,
};

static int __init fp_adaptive_init(void)
{
	return fp_policy_register(&fp_policy_adaptive);
}

static void __exit fp_adaptive_exit(void)
{
	/* Cannot fail: every context using the policy pins this module. */
	WARN_ON(fp_policy_unregister(&fp_policy_adaptive));
}

module_init(fp_adaptive_init);
module_exit(fp_adaptive_exit);

MODULE_DESCRIPTION("flushpol policy: precise or whole context, whichever the measured costs say is cheaper");
MODULE_AUTHOR("flushpol developers");
MODULE_VERSION(FP_VERSION);
MODULE_LICENSE("GPL");
MODULE_FP_POLICY("adaptive");
