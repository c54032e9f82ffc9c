// SPDX-License-Identifier: GPL-2.0-only
/*
 * flushpol_smmuv3_cmdq: the shipped SMMUv3 command queue (cmdq.c) against
 * a fake SMMU (fp_smmuv3_fake.c) that lags, refuses commands, raises other
 * global errors and wedges: errors acknowledged by the GERROR/GERRORN
 * toggle protocol, refused commands made up for by the sync that covers
 * them before it returns, a wedged SMMU costing one bound, and several
 * threads sharing the queue.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/console.h>
#include <linux/debug_locks.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/ratelimit.h>
#include <linux/sizes.h>

#include "../core/fp_core.h"
#include "fp_rig.h"
#include "fp_smmuv3_fake.h"

#define FPT_IOVA	SZ_1G
/* GERROR.EVENTQ_ABT_ERR: a global error the queue does not handle. */
#define FPT_GERROR_EVTQ_ABT	BIT(2)

static struct fpt_v3_fake *fpt_cmdq_fake(struct kunit *test,
					 unsigned int shift,
					 unsigned int per_poll)
{
	return fpt_v3_fake_new(test, fpt_shared_smmu(test), shift, per_poll);
}

static void fpt_cmdq_tlbi(struct fpt_v3_fake *f, unsigned int n)
{
	u64 cmd[CMD_DWORDS];

	while (n--) {
		smmuv3_cmd_tlbi_nh_va(cmd, 1, FPT_IOVA + n * SZ_4K, true);
		smmuv3_cmdq_ops.submit(&f->smmu, cmd, 1);
	}
}

static int fpt_cmdq_sync(struct fpt_v3_fake *f)
{
	return smmuv3_cmdq_ops.sync(&f->smmu);
}

/*
 * A refused TLBI is replaced and acknowledged, and the sync that covers it
 * invalidates everything and syncs again before it returns: its caller
 * frees what the TLBI was for, so it must not wait for the next sync.
 * A sync after that writes nothing: the last command written is the
 * recovery's CMD_SYNC, which completed everything before it.
 */
static void refused_tlbi_recovered_by_covering_sync(struct kunit *test)
{
	struct fpt_v3_fake *f = fpt_cmdq_fake(test, 6, 2);
	u64 prod;

	fpt_v3_fake_refuse_tlbi(f, 1);
	fpt_cmdq_tlbi(f, 3);
	KUNIT_EXPECT_EQ(test, fpt_cmdq_sync(f), 0);
	KUNIT_EXPECT_EQ(test, f->refused, 1);
	KUNIT_EXPECT_EQ(test, f->cfgi, 1);
	KUNIT_EXPECT_EQ(test, f->tlbi, 3);	/* 2 and TLBI_NSNH_ALL */
	/* The refused one's, ours, CFGI_ALL's, TLBI_NSNH_ALL's. */
	KUNIT_EXPECT_EQ(test, f->syncs, 4);
	KUNIT_EXPECT_EQ(test, f->smmu.cmdq.nlost, 1);
	KUNIT_EXPECT_EQ(test, fpt_v3_fake_active_gerror(f), 0);
	KUNIT_EXPECT_FALSE(test, f->halted);

	prod = f->smmu.cmdq.prod;
	KUNIT_EXPECT_EQ(test, fpt_cmdq_sync(f), 0);
	KUNIT_EXPECT_EQ(test, f->smmu.cmdq.prod, prod);
	KUNIT_EXPECT_EQ(test, f->cfgi, 1);
	KUNIT_EXPECT_EQ(test, f->smmu.cmdq.cons, f->smmu.cmdq.prod);
}

/* A rig whose context drives the shipped queue in front of a fake SMMU. */
static struct fpt_v3_fake *fpt_rig_fake;
static unsigned int fpt_rig_fake_shift;

static void fpt_fake_rig_setup(struct fpt_rig *rig)
{
	fpt_rig_fake = fpt_v3_fake_new(rig->test, rig->smmu,
				       fpt_rig_fake_shift, 64);
	rig->backend.v3 = smmuv3_flush_on(&fpt_rig_fake->smmu, rig->mc.asid,
					  false);
}

static const struct fpt_backend fpt_fake_rig_backend = {
	.name = "smmuv3", .ops = &smmuv3_hw_ops, .setup = fpt_fake_rig_setup,
	.default_policy = "va",
};

static struct fpt_rig *fpt_fake_rig_on(struct kunit *test, unsigned int shift,
				       const struct fpt_backend *be,
				       const char *policy)
{
	struct fpt_rig_cfg rc = {
		.fmt = ARM_64_LPAE_S1, .backend = be, .policy = policy,
	};
	struct fpt_rig *rig = kunit_kzalloc(test, sizeof(*rig), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, rig);
	fpt_rig_fake_shift = shift;
	KUNIT_ASSERT_EQ(test, fpt_rig_init(test, rig, &rc, NULL, 1), 0);
	return rig;
}

static struct fpt_rig *fpt_fake_rig(struct kunit *test, unsigned int shift)
{
	return fpt_fake_rig_on(test, shift, &fpt_fake_rig_backend, "va");
}

/*
 * A strict unmap whose leaf TLBI the SMMU refuses: when iotlb_sync
 * returns, the page may be reused, so the leaf must be gone already
 * (invariant 1), not at some later sync.
 */
static void refused_leaf_tlbi_leaves_nothing_stale(struct kunit *test)
{
	struct fpt_rig *rig = fpt_fake_rig(test, 8);
	struct fpt_v3_fake *f = fpt_rig_fake;

	KUNIT_ASSERT_EQ(test, fpt_map(rig, FPT_IOVA, SZ_4K, SZ_4K), 0);
	fpm_access_range(&rig->mc, FPT_IOVA, SZ_4K);
	fpt_v3_fake_refuse_tlbi(f, 1);
	KUNIT_EXPECT_EQ(test, fpt_unmap(rig, FPT_IOVA, SZ_4K, false), SZ_4K);
	KUNIT_EXPECT_EQ(test, f->refused, 1);
	KUNIT_EXPECT_EQ(test, fpm_stale_entries(&rig->mc), 0);
	KUNIT_EXPECT_EQ(test, fp_context_stat(rig->ctx, FP_STAT_SYNC_TIMEOUTS),
			0);
}

/*
 * A walk flush whose TLBIs the SMMU refuses, all 512 (any one of them
 * would drop the walk entry for the whole table): io-pgtable frees the
 * table as soon as tlb_flush_walk returns, so no walk entry may point
 * into it by then (invariant 2).
 */
static void refused_walk_tlbi_frees_no_cached_table(struct kunit *test)
{
	struct fpt_rig *rig = fpt_fake_rig(test, 10);
	struct fpt_v3_fake *f = fpt_rig_fake;

	KUNIT_ASSERT_EQ(test, fpt_map(rig, FPT_IOVA, SZ_2M, SZ_4K), 0);
	fpm_access_range(&rig->mc, FPT_IOVA, SZ_2M);
	fpt_v3_fake_refuse_tlbi(f, SZ_2M / SZ_4K);
	KUNIT_EXPECT_EQ(test, fpt_unmap(rig, FPT_IOVA, SZ_2M, false), SZ_2M);
	KUNIT_EXPECT_EQ(test, f->refused, SZ_2M / SZ_4K);
	KUNIT_EXPECT_EQ(test, rig->mc.n.freed_refs, 0);
	KUNIT_EXPECT_EQ(test, fpm_stale_in(&rig->mc, FPT_IOVA, SZ_2M), 0);
}

/*
 * GERROR bits toggle: after one acknowledged CMDQ error, the second must
 * toggle GERRORN back, or the queue stays halted for good.
 */
static void second_cmdq_error_acknowledged(struct kunit *test)
{
	struct fpt_v3_fake *f = fpt_cmdq_fake(test, 6, 4);

	fpt_v3_fake_refuse_tlbi(f, 1);
	fpt_cmdq_tlbi(f, 2);
	KUNIT_EXPECT_EQ(test, fpt_cmdq_sync(f), 0);

	/* Two in a row in one batch: GERROR toggles twice more. */
	fpt_v3_fake_refuse_tlbi(f, 2);
	fpt_cmdq_tlbi(f, 4);
	KUNIT_EXPECT_NE(test, fpt_cmdq_sync(f), -ETIMEDOUT);
	KUNIT_EXPECT_EQ(test, f->refused, 3);
	KUNIT_EXPECT_FALSE(test, f->livelock);
	KUNIT_EXPECT_EQ(test, fpt_v3_fake_active_gerror(f), 0);
	KUNIT_EXPECT_FALSE(test, f->halted);
	KUNIT_EXPECT_EQ(test, f->delays, 0);

	KUNIT_EXPECT_EQ(test, fpt_cmdq_sync(f), 0);
	KUNIT_EXPECT_EQ(test, f->smmu.cmdq.cons, f->smmu.cmdq.prod);
}

/*
 * The GERROR interrupt acknowledges exactly what it handled: after an
 * acknowledged CMDQ error, another global error must not make CMDQ_ERR
 * look active again, or the next wait would replace a live TLBI at
 * CMDQ_CONS with a CMD_SYNC and report success.
 */
static void gerror_irq_leaves_cmdq_err_acknowledged(struct kunit *test)
{
	struct fpt_v3_fake *f = fpt_cmdq_fake(test, 6, 1);

	fpt_v3_fake_refuse_tlbi(f, 1);
	fpt_cmdq_tlbi(f, 1);
	KUNIT_EXPECT_EQ(test, fpt_cmdq_sync(f), 0);
	KUNIT_EXPECT_EQ(test, fpt_cmdq_sync(f), 0);
	/* The refusal's interrupt, after the waiter took the error. */
	KUNIT_EXPECT_EQ(test, f->irqs, 1);
	KUNIT_EXPECT_EQ(test, smmuv3_gerror_irq(0, &f->smmu), IRQ_HANDLED);

	fpt_v3_fake_raise_gerror(f, FPT_GERROR_EVTQ_ABT);
	KUNIT_EXPECT_EQ(test, smmuv3_gerror_irq(0, &f->smmu), IRQ_HANDLED);
	KUNIT_EXPECT_EQ(test, fpt_v3_fake_active_gerror(f), 0);
	KUNIT_EXPECT_EQ(test, smmuv3_gerror_irq(0, &f->smmu), IRQ_NONE);

	fpt_cmdq_tlbi(f, 4);
	KUNIT_EXPECT_EQ(test, fpt_cmdq_sync(f), 0);
	KUNIT_EXPECT_EQ(test, f->refused, 1);
	/* 1 refused, then TLBI_NSNH_ALL, then these 4: none replaced. */
	KUNIT_EXPECT_EQ(test, f->tlbi, 5);
	KUNIT_EXPECT_EQ(test, f->smmu.cmdq.nlost, 1);
}

/*
 * A command refused while no CPU waits on the queue: the GERROR interrupt
 * skips it as a waiter would, so the queue runs on, and the next sync
 * makes up for it before it succeeds.
 */
static void gerror_irq_skips_refused_command(struct kunit *test)
{
	struct fpt_v3_fake *f = fpt_cmdq_fake(test, 6, 0);
	struct smmuv3_cmdq *cmdq = &f->smmu.cmdq;

	/* Half the queue: published without a sync. */
	fpt_v3_fake_refuse_tlbi(f, 1);
	fpt_cmdq_tlbi(f, BIT(cmdq->q.shift) / 2);
	fpt_v3_fake_run(f, BIT(cmdq->q.shift));
	KUNIT_EXPECT_TRUE(test, f->halted);

	KUNIT_EXPECT_EQ(test, smmuv3_gerror_irq(0, &f->smmu), IRQ_HANDLED);
	KUNIT_EXPECT_EQ(test, fpt_v3_fake_active_gerror(f), 0);
	KUNIT_EXPECT_FALSE(test, f->halted);
	KUNIT_EXPECT_EQ(test, fpt_v3_fake_slot(f, 0) & 0xff, CMD_OP_SYNC);
	KUNIT_EXPECT_EQ(test, cmdq->nlost, 1);
	KUNIT_EXPECT_EQ(test, smmuv3_gerror_irq(0, &f->smmu), IRQ_NONE);

	fpt_v3_fake_run(f, BIT(cmdq->q.shift));
	KUNIT_EXPECT_EQ(test, f->tlbi, BIT(cmdq->q.shift) / 2 - 1);
	fpt_v3_fake_set(f, 4);
	KUNIT_EXPECT_EQ(test, fpt_cmdq_sync(f), 0);
	KUNIT_EXPECT_EQ(test, f->cfgi, 1);
	KUNIT_EXPECT_EQ(test, f->tlbi, BIT(cmdq->q.shift) / 2);
}

/*
 * A wedged SMMU and a full queue: a 32-command batch costs one bound, not
 * one per command, and once a command was dropped with CMDQ_CONS still,
 * the next batch drops at once.  Nothing unread is overwritten.
 */
static void wedged_full_queue_batch_waits_one_bound(struct kunit *test)
{
	struct fpt_v3_fake *f = fpt_cmdq_fake(test, 4, 0);
	struct smmuv3_cmdq *cmdq = &f->smmu.cmdq;
	u64 first, prod;

	fpt_cmdq_tlbi(f, BIT(cmdq->q.shift));
	first = fpt_v3_fake_slot(f, 0);
	prod = cmdq->prod;

	fpt_cmdq_tlbi(f, 32);
	KUNIT_EXPECT_EQ(test, f->delays, cmdq->timeout_us);
	KUNIT_EXPECT_EQ(test, cmdq->nlost, 32);
	KUNIT_EXPECT_EQ(test, cmdq->prod, prod);
	KUNIT_EXPECT_EQ(test, fpt_v3_fake_slot(f, 0), first);

	fpt_cmdq_tlbi(f, 32);
	KUNIT_EXPECT_EQ(test, f->delays, cmdq->timeout_us);
	KUNIT_EXPECT_EQ(test, cmdq->nlost, 64);

	/* A sync cannot even be queued: it fails at once, too. */
	KUNIT_EXPECT_EQ(test, fpt_cmdq_sync(f), -ETIMEDOUT);
	KUNIT_EXPECT_EQ(test, f->delays, cmdq->timeout_us);

	/* The SMMU resumes: everything lost is made up for, then synced. */
	fpt_v3_fake_set(f, 8);
	KUNIT_EXPECT_EQ(test, fpt_cmdq_sync(f), 0);
	KUNIT_EXPECT_EQ(test, f->cfgi, 1);
	KUNIT_EXPECT_EQ(test, f->tlbi, BIT(cmdq->q.shift) + 1);
	KUNIT_EXPECT_EQ(test, fpt_cmdq_sync(f), 0);
	KUNIT_EXPECT_EQ(test, f->cfgi, 1);
}

/* Commands with opcode @op the SMMU has consumed, from the ring. */
static unsigned int fpt_count_op(struct fpt_v3_fake *f, u8 op)
{
	unsigned int n = 0;
	u64 pos;

	for (pos = 0; pos < f->smmu.cmdq.cons; pos++)
		n += (fpt_v3_fake_slot(f, pos) & 0xff) == op;
	return n;
}

/*
 * Commands another CPU lost in the queue do not get in an attach's way:
 * the entry is written, with one CFGI_STE (the IOMMU core WARNs when a
 * default domain's attach fails, and blocked or identity must not fail).
 * Here the refused TLBI and the recovery's TLBI_NSNH_ALL are both lost.
 */
static void install_ste_ignores_unrelated_lost_command(struct kunit *test)
{
	struct fpt_v3_fake *f = fpt_cmdq_fake(test, 6, 4);
	struct smmuv3_device *smmu = &f->smmu;
	u64 ste[STE_DWORDS] = {
		STE_0_V | FIELD_PREP(STE_0_CFG, STE_0_CFG_BYPASS),
	};
	u32 sid = 3;

	smmu->strtab.sid_bits = 4;
	smmu->strtab.base = kunit_kcalloc(test, STE_DWORDS << 4,
					  sizeof(__le64), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, smmu->strtab.base);
	mutex_init(&smmu->ste_lock);

	fpt_v3_fake_refuse_tlbi(f, 2);
	fpt_cmdq_tlbi(f, 1);
	smmuv3_install_ste(smmu, &sid, 1, ste);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(smmu->strtab.base[sid * STE_DWORDS]),
			ste[0]);
	KUNIT_EXPECT_EQ(test, fpt_count_op(f, CMD_OP_CFGI_STE), 1);
	KUNIT_EXPECT_EQ(test, f->refused, 2);
}

/*
 * A wedged SMMU and a 32 MiB strict unmap under va: 16 walk flushes and
 * the gather, each with its sync.  Once one sync has waited its bound
 * with CMDQ_CONS still, the others must not each wait a bound again (the
 * caller may be in an RCU read-side section): about one bound in all.
 */
static void wedged_smmu_one_bound_per_unmap(struct kunit *test)
{
	struct fpt_rig *rig = fpt_fake_rig(test, 14);
	struct fpt_v3_fake *f = fpt_rig_fake;
	struct smmuv3_cmdq *cmdq = &f->smmu.cmdq;
	u64 syncs;

	cmdq->timeout_us = 100;
	KUNIT_ASSERT_EQ(test, fpt_map(rig, FPT_IOVA, SZ_32M, SZ_4K), 0);
	fpt_v3_fake_set(f, 0);
	KUNIT_EXPECT_EQ(test, fpt_unmap(rig, FPT_IOVA, SZ_32M, false), SZ_32M);
	syncs = fp_context_stat(rig->ctx, FP_STAT_SYNCS);
	kunit_info(test, "%llu syncs, %lu delay steps, bound %lu\n", syncs,
		   f->delays, cmdq->timeout_us);
	KUNIT_EXPECT_EQ(test, syncs, 17);
	/* Each failed sync is a loss; none was dropped from the queue. */
	KUNIT_EXPECT_EQ(test, cmdq->nlost, syncs);
	KUNIT_EXPECT_LE(test, f->delays, 2 * cmdq->timeout_us);

	/*
	 * The SMMU resumes: the next sync waits for it again, and works, once
	 * it has invalidated everything, once for all seventeen.
	 */
	fpt_v3_fake_set(f, 256);
	KUNIT_EXPECT_EQ(test, fpt_cmdq_sync(f), 0);
	KUNIT_EXPECT_EQ(test, f->cfgi, 1);
	KUNIT_EXPECT_EQ(test, cmdq->recovered, cmdq->nlost);
	KUNIT_EXPECT_EQ(test, cmdq->cons, cmdq->prod);
}

/*
 * A device busy on stream @sid, its STE and CD cached and its TLB entries
 * refilled through them (the TLBIs performed as consumed), then detached:
 * the fake's STE cleared, the SMMU not yet told.
 */
static void fpt_detach_busy_stream(struct kunit *test, struct fpt_rig *rig,
				   u32 sid)
{
	struct fpt_v3_fake *f = fpt_rig_fake;

	rig->mc.busy = false;	/* the stream's traffic is the fake's */
	f->eager = true;
	KUNIT_ASSERT_EQ(test, fpt_map(rig, FPT_IOVA, SZ_64K, SZ_4K), 0);
	fpt_v3_fake_stream(f, sid, &rig->mc, FPT_IOVA, SZ_64K);
	fpm_access_range(&rig->mc, FPT_IOVA, SZ_64K);
	KUNIT_ASSERT_GT(test, fpm_cached_entries(&rig->mc), 0);
	fpt_v3_fake_ste(f, sid, NULL);
}

/*
 * A device detached while its CFGI_STE is refused.  Until a CFGI reaching
 * its stream has been consumed and a CMD_SYNC after it has completed, the
 * SMMU keeps using the cached STE and CD and the busy device refills the
 * TLB for the old ASID through them.  So a TLBI_NSNH_ALL completed at the
 * same sync as the CFGI_ALL that makes up for the refused CFGI_STE leaves
 * entries behind, and the caller, told 0, frees the ASID and the tables:
 * the recovery must complete CFGI_ALL with a sync of its own first.
 */
static void lost_cfgi_recovery_leaves_no_refill(struct kunit *test)
{
	struct fpt_rig *rig = fpt_fake_rig(test, 6);
	struct fpt_v3_fake *f = fpt_rig_fake;
	u64 cmd[CMD_DWORDS];
	u32 sid = 1;

	fpt_detach_busy_stream(test, rig, sid);
	fpt_v3_fake_refuse(f, CMD_OP_CFGI_STE, 1);
	smmuv3_cmd_cfgi_ste(cmd, sid);
	smmuv3_cmdq_ops.submit(&f->smmu, cmd, 1);
	smmuv3_cmd_tlbi_nh_asid(cmd, rig->mc.asid);
	smmuv3_cmdq_ops.submit(&f->smmu, cmd, 1);
	KUNIT_EXPECT_EQ(test, fpt_cmdq_sync(f), 0);
	KUNIT_EXPECT_EQ(test, f->refused, 1);
	KUNIT_EXPECT_NULL(test, fpt_v3_fake_cached(f, sid));
	KUNIT_EXPECT_EQ(test, fpm_cached_entries(&rig->mc), 0);
}

/*
 * A device on stream @sid detached while the SMMU is wedged: its CFGI_STE
 * and TLBI_NH_ASID queued, their CMD_SYNC timed out (a loss), and then the
 * SMMU resumes.
 */
static void fpt_detach_sync_times_out(struct kunit *test, struct fpt_rig *rig,
				      u32 sid)
{
	struct fpt_v3_fake *f = fpt_rig_fake;
	u64 cmd[CMD_DWORDS];

	fpt_detach_busy_stream(test, rig, sid);
	fpt_v3_fake_set(f, 0);
	smmuv3_cmd_cfgi_ste(cmd, sid);
	smmuv3_cmdq_ops.submit(&f->smmu, cmd, 1);
	smmuv3_cmd_tlbi_nh_asid(cmd, rig->mc.asid);
	smmuv3_cmdq_ops.submit(&f->smmu, cmd, 1);
	KUNIT_EXPECT_EQ(test, fpt_cmdq_sync(f), -ETIMEDOUT);
	fpt_v3_fake_set(f, 64);
}

/*
 * A device detached while the SMMU is wedged: the CFGI_STE and the
 * TLBI_NH_ASID are queued, their CMD_SYNC times out, and the SMMU later
 * resumes.  It consumes them in order, but the TLBI is performed before
 * the CFGI's sync completes, and the busy device refills the TLB through
 * its cached STE and CD in between.  A timed-out sync is a loss: the next
 * sync that completes, told nothing of what came before it, must complete
 * a CFGI_ALL and then a TLBI_NSNH_ALL before it returns 0, or its caller
 * frees an ASID that the TLB still holds entries for.
 */
static void timed_out_sync_recovered_in_order_leaves_no_refill(struct kunit *test)
{
	struct fpt_rig *rig = fpt_fake_rig(test, 6);
	struct fpt_v3_fake *f = fpt_rig_fake;
	u32 sid = 1;

	fpt_detach_sync_times_out(test, rig, sid);
	KUNIT_EXPECT_EQ(test, fpt_cmdq_sync(f), 0);
	KUNIT_EXPECT_NULL(test, fpt_v3_fake_cached(f, sid));
	KUNIT_EXPECT_EQ(test, fpm_cached_entries(&rig->mc), 0);
	KUNIT_EXPECT_EQ(test, fpt_count_op(f, CMD_OP_CFGI_ALL), 1);
	KUNIT_EXPECT_EQ(test, f->smmu.cmdq.cons, f->smmu.cmdq.prod);
}

/*
 * Another CPU's sync timed out (a loss), and this CPU's sync completes
 * only near the end of its bound: a slow SMMU, not a wedged one.  The
 * recovery it then owes must wait within a bound of its own.  On what is
 * left of the sync's, its second wait runs out at once: a working SMMU is
 * marked wedged, the caller is told -ETIMEDOUT, and a final flush leaks
 * the domain it could have freed.
 */
static void recovery_after_slow_sync_has_its_own_bound(struct kunit *test)
{
	struct fpt_v3_fake *f = fpt_cmdq_fake(test, 6, 1);
	struct smmuv3_cmdq *cmdq = &f->smmu.cmdq;

	cmdq->timeout_us = 100;
	WRITE_ONCE(cmdq->nlost, 1);
	fpt_v3_fake_stall(f, cmdq->timeout_us - 1);
	KUNIT_EXPECT_EQ(test, fpt_cmdq_sync(f), 0);
	KUNIT_EXPECT_EQ(test, fpt_count_op(f, CMD_OP_CFGI_ALL), 1);
	KUNIT_EXPECT_EQ(test, fpt_count_op(f, CMD_OP_TLBI_NSNH_ALL), 1);
	KUNIT_EXPECT_EQ(test, cmdq->recovered, cmdq->nlost);
	KUNIT_EXPECT_EQ(test, cmdq->cons, cmdq->prod);
}

/*
 * MMU-700 erratum 2812531: with force_sync_after set, no more than that
 * many commands are consumed between two CMD_SYNCs, wherever the batches
 * split: the queue inserts the CMD_SYNCs, exactly one per 63 commands.
 */
static void force_sync_after_bounds_commands_between_syncs(struct kunit *test)
{
	struct fpt_v3_fake *f = fpt_cmdq_fake(test, 8, 16);

	f->smmu.cmdq.force_sync_after = 63;
	fpt_cmdq_tlbi(f, 100);
	fpt_cmdq_tlbi(f, 100);
	KUNIT_EXPECT_EQ(test, fpt_cmdq_sync(f), 0);
	KUNIT_EXPECT_EQ(test, f->max_between_syncs, 63);
	KUNIT_EXPECT_EQ(test, f->tlbi, 200);
	/* After 63, 126 and 189 commands, and the caller's. */
	KUNIT_EXPECT_EQ(test, f->syncs, 4);
	KUNIT_EXPECT_EQ(test, f->smmu.cmdq.prod, 204);
}

/* Several threads, each unmapping its own context through one queue. */
#define FPT_THREADS	4
#define FPT_ROUNDS	48

struct fpt_cmdq_thread {
	struct fpt_rig *rig;
	struct completion done;
	unsigned long stale, bad_unmaps, timeouts;
};

static struct fpt_v3_fake *fpt_shared_fake;

static void fpt_shared_setup(struct fpt_rig *rig)
{
	rig->backend.v3 = smmuv3_flush_on(&fpt_shared_fake->smmu,
					  rig->mc.asid, false);
}

static const struct fpt_backend fpt_shared_backend = {
	.name = "smmuv3", .ops = &smmuv3_hw_ops, .setup = fpt_shared_setup,
	.default_policy = "va",
};

static int fpt_cmdq_thread_fn(void *data)
{
	struct fpt_cmdq_thread *t = data;
	struct fpt_rig *rig = t->rig;
	unsigned int i;

	for (i = 0; i < FPT_ROUNDS; i++) {
		unsigned long iova = FPT_IOVA + (i % 8) * SZ_2M;

		if (fpt_map(rig, iova, SZ_64K, SZ_4K)) {
			t->bad_unmaps++;
			break;
		}
		fpm_access_range(&rig->mc, iova, SZ_64K);
		if (fpt_unmap(rig, iova, SZ_64K, false) != SZ_64K)
			t->bad_unmaps++;
		/* This thread's sync completed all it issued. */
		t->stale += fpm_stale_entries(&rig->mc);
		cond_resched();
	}
	t->timeouts = fp_context_stat(rig->ctx, FP_STAT_SYNC_TIMEOUTS);
	complete(&t->done);
	return 0;
}

/*
 * UML has one CPU but preempts: the threads interleave inside the queue,
 * while the fake consumes two commands per poll.  Each sync completes
 * everything its thread issued before it, whoever published it.
 */
static void threads_share_queue_each_sync_completes_own(struct kunit *test)
{
	struct fpt_rig_cfg rc = {
		.fmt = ARM_64_LPAE_S1, .backend = &fpt_shared_backend,
	};
	struct fpt_cmdq_thread *t = kunit_kcalloc(test, FPT_THREADS,
						  sizeof(*t), GFP_KERNEL);
	struct task_struct *task;
	struct fpm_smmu *model;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, t);
	model = fpt_shared_smmu(test);
	fpt_shared_fake = fpt_v3_fake_new(test, model, 5, 2);
	for (i = 0; i < FPT_THREADS; i++) {
		t[i].rig = kunit_kzalloc(test, sizeof(*t[i].rig), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, t[i].rig);
		KUNIT_ASSERT_EQ(test, fpt_rig_init(test, t[i].rig, &rc, model,
						   10 + i), 0);
		init_completion(&t[i].done);
	}
	for (i = 0; i < FPT_THREADS; i++) {
		task = kthread_run(fpt_cmdq_thread_fn, &t[i], "fp-cmdq-%u", i);
		if (IS_ERR(task)) {
			t[i].bad_unmaps = 1;
			complete(&t[i].done);
		}
	}
	for (i = 0; i < FPT_THREADS; i++) {
		wait_for_completion(&t[i].done);
		KUNIT_EXPECT_EQ(test, t[i].bad_unmaps, 0);
		KUNIT_EXPECT_EQ(test, t[i].stale, 0);
		KUNIT_EXPECT_EQ(test, t[i].timeouts, 0);
		KUNIT_EXPECT_EQ(test, t[i].rig->mc.n.stale_hits, 0);
	}
	KUNIT_EXPECT_EQ(test, fpt_shared_fake->smmu.cmdq.nlost, 0);
	KUNIT_EXPECT_EQ(test, fpt_shared_fake->bad, 0);
	/* At most one each: callers may share one (on SMP they do). */
	kunit_info(test, "%lu CMD_SYNCs for %u syncs\n", fpt_shared_fake->syncs,
		   FPT_THREADS * FPT_ROUNDS);
	KUNIT_EXPECT_LE(test, fpt_shared_fake->syncs, FPT_THREADS * FPT_ROUNDS);
	KUNIT_EXPECT_GT(test, fpt_shared_fake->syncs, 0);
}

/*
 * Four CPUs drive the queue at once against an SMMU that consumes on a
 * CPU of its own, lagging: a 16-entry queue, so producers find it full and
 * it wraps a hundred times.  Each command carries its issuer and sequence
 * in both double words: ASID and VA; the SMMU's view of each, read as
 * CMDQ_PROD passes it, must be exactly what its issuer wrote, in its
 * issuer's order, and the SMMU must consume each issuer's commands in
 * that order, none missing.  Now and then the SMMU refuses a command: the
 * sync that covers it must not return 0 before a CFGI_ALL, completed, and
 * then a TLBI_NSNH_ALL, completed, come after it.
 */
#define FPT_SMP_THREADS	4
#define FPT_SMP_CMDS	384
#define FPT_SMP_ASID	0x100
#define FPT_SMP_NONE	U64_MAX

struct fpt_smp {
	struct fpt_v3_fake *f;
	u64 next[FPT_SMP_THREADS];	/* sequence expected at publish */
	u64 done[FPT_SMP_THREADS];	/* consumed (or refused), +1 */
	u64 refused_at[FPT_SMP_THREADS];	/* position, or NONE */
	/*
	 * Positions of CFGI_ALLs: consumed, completed, then followed by a
	 * TLBI_NSNH_ALL consumed, and that completed (@covered, or 0).
	 */
	u64 cfgi_pending, cfgi_done, nsnh_pending, covered;
	unsigned long torn, refused, gaps;
};

struct fpt_smp_thread {
	struct fpt_smp *smp;
	unsigned int tid;
	struct completion done;
	u64 sent;
	unsigned long bad_sync, incomplete, unrecovered;
};

static void fpt_smp_cmd(u64 *cmd, unsigned int tid, u64 seq)
{
	smmuv3_cmd_tlbi_nh_va(cmd, FPT_SMP_ASID + tid,
			      ((u64)tid << 40) | (seq << 12), true);
}

/* Which issuer and sequence a TLBI says it is, or false if torn. */
static bool fpt_smp_decode(const u64 *cmd, unsigned int *tid, u64 *seq)
{
	u64 want[CMD_DWORDS];

	*tid = (cmd[0] >> 48) - FPT_SMP_ASID;
	*seq = (cmd[1] & GENMASK_ULL(39, 12)) >> 12;
	if (*tid >= FPT_SMP_THREADS)
		return false;
	fpt_smp_cmd(want, *tid, *seq);
	return cmd[0] == want[0] && cmd[1] == want[1];
}

static bool fpt_smp_is(const u64 *cmd, void (*enc)(u64 *))
{
	u64 want[CMD_DWORDS];

	enc(want);
	return cmd[0] == want[0] && cmd[1] == want[1];
}

static void fpt_smp_publish(struct fpt_v3_fake *f, u64 pos, const u64 *cmd)
{
	struct fpt_smp *smp = f->hooks->priv;
	unsigned int tid;
	u64 seq;

	switch (cmd[0] & 0xff) {
	case CMD_OP_SYNC:
		if (!fpt_smp_is(cmd, smmuv3_cmd_sync))
			smp->torn++;
		return;
	case CMD_OP_CFGI_ALL:
		if (!fpt_smp_is(cmd, smmuv3_cmd_cfgi_all))
			smp->torn++;
		return;
	case CMD_OP_TLBI_NSNH_ALL:
		if (!fpt_smp_is(cmd, smmuv3_cmd_tlbi_nsnh_all))
			smp->torn++;
		return;
	}
	if (!fpt_smp_decode(cmd, &tid, &seq) || seq != smp->next[tid]++)
		smp->torn++;
}

/* Each issuer's commands reach the SMMU in its order, none missing. */
static void fpt_smp_consumed(struct fpt_smp *smp, unsigned int tid, u64 seq)
{
	if (seq != smp->done[tid])
		smp->gaps++;
	smp->done[tid] = seq + 1;
}

/* Which refused commands an ordered recovery has completed after. */
static void fpt_smp_consume(struct fpt_v3_fake *f, u64 pos, const u64 *cmd,
			    bool refused)
{
	struct fpt_smp *smp = f->hooks->priv;
	unsigned int tid;
	u64 seq;

	if (refused) {
		smp->refused++;
		if (fpt_smp_decode(cmd, &tid, &seq)) {
			fpt_smp_consumed(smp, tid, seq);
			smp->refused_at[tid] = pos;
		}
		return;
	}
	switch (cmd[0] & 0xff) {
	case CMD_OP_SYNC:
		if (smp->nsnh_pending != FPT_SMP_NONE)
			smp->covered = max(smp->covered, smp->nsnh_pending);
		smp->nsnh_pending = FPT_SMP_NONE;
		if (smp->cfgi_pending != FPT_SMP_NONE)
			smp->cfgi_done = smp->cfgi_pending;
		smp->cfgi_pending = FPT_SMP_NONE;
		return;
	case CMD_OP_CFGI_ALL:
		smp->cfgi_pending = pos;
		return;
	case CMD_OP_TLBI_NSNH_ALL:
		smp->nsnh_pending = smp->cfgi_done;
		return;
	}
	if (fpt_smp_decode(cmd, &tid, &seq))
		fpt_smp_consumed(smp, tid, seq);
}

static const struct fpt_v3_hooks fpt_smp_hooks = {
	.publish = fpt_smp_publish,
	.consume = fpt_smp_consume,
};

/* After a sync of ours returned 0: all ours consumed, losses recovered. */
static void fpt_smp_check(struct fpt_smp_thread *t, u64 sent)
{
	struct fpt_smp *smp = t->smp;
	unsigned long flags;

	raw_spin_lock_irqsave(&smp->f->lock, flags);
	if (smp->done[t->tid] != sent)
		t->incomplete++;
	if (smp->refused_at[t->tid] != FPT_SMP_NONE) {
		if (smp->covered <= smp->refused_at[t->tid])
			t->unrecovered++;
		smp->refused_at[t->tid] = FPT_SMP_NONE;
	}
	raw_spin_unlock_irqrestore(&smp->f->lock, flags);
}

static int fpt_smp_thread_fn(void *data)
{
	struct fpt_smp_thread *t = data;
	struct fpt_v3_fake *f = t->smp->f;
	u64 cmds[4 * CMD_DWORDS], seq = 0;
	unsigned int i, n;

	while (seq < FPT_SMP_CMDS) {
		n = 1 + (seq + t->tid) % 4;
		for (i = 0; i < n; i++)
			fpt_smp_cmd(&cmds[i * CMD_DWORDS], t->tid, seq++);
		smmuv3_cmdq_ops.submit(&f->smmu, cmds, n);
		/* An error in the middle, now and then. */
		if (t->tid == 0 && seq % 96 < n)
			fpt_v3_fake_refuse_tlbi(f, 1);
		if ((seq / 4 + t->tid) % 3)
			continue;
		if (smmuv3_cmdq_ops.sync(&f->smmu))
			t->bad_sync++;
		else
			fpt_smp_check(t, seq);
	}
	if (smmuv3_cmdq_ops.sync(&f->smmu))
		t->bad_sync++;
	else
		fpt_smp_check(t, seq);
	t->sent = seq;
	complete(&t->done);
	return 0;
}

static void smp_producers_lagging_consumer_see_what_was_written(struct kunit *test)
{
	struct fpt_smp *smp = kunit_kzalloc(test, sizeof(*smp), GFP_KERNEL);
	struct fpt_smp_thread *t = kunit_kcalloc(test, FPT_SMP_THREADS,
						 sizeof(*t), GFP_KERNEL);
	struct fpt_v3_hooks *hooks = kunit_kzalloc(test, sizeof(*hooks),
						   GFP_KERNEL);
	struct task_struct *task;
	struct fpt_v3_fake *f;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, smp);
	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_ASSERT_NOT_NULL(test, hooks);
	f = fpt_cmdq_fake(test, 4, 0);
	*hooks = fpt_smp_hooks;
	hooks->priv = smp;
	smp->f = f;
	smp->cfgi_pending = FPT_SMP_NONE;
	smp->cfgi_done = FPT_SMP_NONE;
	smp->nsnh_pending = FPT_SMP_NONE;
	for (i = 0; i < FPT_SMP_THREADS; i++)
		smp->refused_at[i] = FPT_SMP_NONE;
	f->hooks = hooks;
	/* Real waiting: a bound the lagging thread always meets. */
	f->smmu.cmdq.timeout_us = 20 * USEC_PER_SEC;
	KUNIT_ASSERT_EQ(test, fpt_v3_fake_start_consumer(f, 3), 0);

	for (i = 0; i < FPT_SMP_THREADS; i++) {
		t[i] = (struct fpt_smp_thread) { .smp = smp, .tid = i };
		init_completion(&t[i].done);
		task = kthread_run(fpt_smp_thread_fn, &t[i], "fp-cmdq-smp-%u",
				   i);
		if (IS_ERR(task)) {
			t[i].bad_sync = 1;
			complete(&t[i].done);
		}
	}
	for (i = 0; i < FPT_SMP_THREADS; i++)
		wait_for_completion(&t[i].done);
	fpt_v3_fake_stop_consumer(f);

	kunit_info(test, "%llu commands, %lu refused, %lu delay steps, %lu CMDQ_CONS reads\n",
		   f->smmu.cmdq.prod, smp->refused, f->delays, f->reads);
	for (i = 0; i < FPT_SMP_THREADS; i++) {
		KUNIT_EXPECT_EQ(test, t[i].bad_sync, 0);
		KUNIT_EXPECT_EQ(test, t[i].incomplete, 0);
		KUNIT_EXPECT_EQ(test, t[i].unrecovered, 0);
		KUNIT_EXPECT_EQ(test, smp->next[i], t[i].sent);
	}
	KUNIT_EXPECT_EQ(test, smp->torn, 0);
	KUNIT_EXPECT_EQ(test, smp->gaps, 0);
	KUNIT_EXPECT_GT(test, smp->refused, 0);
	KUNIT_EXPECT_EQ(test, f->refused, smp->refused);
	KUNIT_EXPECT_FALSE(test, f->livelock);
	/* Full and wrapped: more commands than 20 laps of the ring. */
	KUNIT_EXPECT_GT(test, f->smmu.cmdq.prod, 20 * 16);
	KUNIT_EXPECT_EQ(test, f->consumed_pos, f->smmu.cmdq.prod);
}

/*
 * A wait timed out with CMDQ_CONS at a command, and then the SMMU refuses
 * that very command: CMDQ_CONS does not move, but the queue is not wedged.
 * A wait must skip the refused command before it takes the still CMDQ_CONS
 * for the wedged one, or, with no GERROR interrupt, every sync fails at
 * once for good.
 */
static void refused_at_timed_out_position_is_skipped(struct kunit *test)
{
	struct fpt_v3_fake *f = fpt_cmdq_fake(test, 6, 0);

	fpt_cmdq_tlbi(f, 1);
	KUNIT_EXPECT_EQ(test, fpt_cmdq_sync(f), -ETIMEDOUT);
	KUNIT_EXPECT_EQ(test, f->delays, f->smmu.cmdq.timeout_us);

	fpt_v3_fake_refuse_tlbi(f, 1);
	fpt_v3_fake_run(f, 1);
	KUNIT_ASSERT_TRUE(test, f->halted);
	fpt_v3_fake_set(f, 4);
	KUNIT_EXPECT_EQ(test, fpt_cmdq_sync(f), 0);
	KUNIT_EXPECT_EQ(test, f->refused, 1);
	KUNIT_EXPECT_FALSE(test, f->halted);
	KUNIT_EXPECT_EQ(test, f->cfgi, 1);
	KUNIT_EXPECT_EQ(test, f->smmu.cmdq.cons, f->smmu.cmdq.prod);
}

/* Stall the SMMU this many steps after the next command it consumes. */
static unsigned long fpt_stall_after_one;

static void fpt_stall_once(struct fpt_v3_fake *f, u64 pos, const u64 *cmd,
			   bool refused)
{
	if (!fpt_stall_after_one)
		return;
	f->stall_until = f->delays + fpt_stall_after_one;
	fpt_stall_after_one = 0;
}

static const struct fpt_v3_hooks fpt_stall_once_hooks = {
	.consume = fpt_stall_once,
};

/*
 * A slow SMMU, not a wedged one: a sync's wait for room sees CMDQ_CONS
 * still for all but the last step of a bound, the SMMU then pauses for 10
 * steps, and goes on.  CMDQ_CONS was never still for a whole bound: the
 * sync waits and succeeds, loses nothing, and marks nothing wedged.
 */
static void slow_smmu_late_in_a_bound_is_not_marked_wedged(struct kunit *test)
{
	struct fpt_v3_fake *f = fpt_cmdq_fake(test, 4, 1);
	struct smmuv3_cmdq *cmdq = &f->smmu.cmdq;

	cmdq->timeout_us = 100;
	fpt_cmdq_tlbi(f, BIT(cmdq->q.shift));
	fpt_v3_fake_stall(f, cmdq->timeout_us - 1);
	fpt_stall_after_one = 10;
	f->hooks = &fpt_stall_once_hooks;
	KUNIT_EXPECT_EQ(test, fpt_cmdq_sync(f), 0);
	KUNIT_EXPECT_GE(test, f->delays, cmdq->timeout_us - 1 + 10);
	KUNIT_EXPECT_EQ(test, cmdq->cons, cmdq->prod);
	KUNIT_EXPECT_EQ(test, cmdq->nlost, 0);
	KUNIT_EXPECT_EQ(test, cmdq->stuck, 0);
	KUNIT_EXPECT_EQ(test, f->cfgi, 0);
}

/*
 * CMDQ_PROD passes commands without a sync once half the queue waits, and
 * the SMMU may read a command, each 64-bit piece, from the moment CMDQ_PROD
 * passes it: what the fake read then must be what was written, on every
 * lap of the ring, and nothing may change before it is consumed.
 */
static void half_queue_published_commands_are_complete(struct kunit *test)
{
	struct fpt_v3_fake *f = fpt_cmdq_fake(test, 4, 0);
	struct smmuv3_cmdq *cmdq = &f->smmu.cmdq;
	unsigned int n = BIT(cmdq->q.shift) / 2, i, lap;
	u64 cmd[CMD_DWORDS];
	const u64 *read;

	for (lap = 0; lap < 3; lap++) {
		for (i = 0; i < n; i++) {
			smmuv3_cmd_tlbi_nh_va(cmd, 1 + lap,
					      FPT_IOVA + (lap * n + i) * SZ_4K,
					      true);
			smmuv3_cmdq_submit(cmdq, cmd, 1);
		}
		KUNIT_EXPECT_EQ(test, f->published, (lap + 1) * n);
		for (i = 0; i < n; i++) {
			read = &f->read[((lap * n + i) % (2 * n)) * CMD_DWORDS];
			smmuv3_cmd_tlbi_nh_va(cmd, 1 + lap,
					      FPT_IOVA + (lap * n + i) * SZ_4K,
					      true);
			KUNIT_EXPECT_EQ(test, read[0], cmd[0]);
			KUNIT_EXPECT_EQ(test, read[1], cmd[1]);
		}
		fpt_v3_fake_run(f, n);
	}
	KUNIT_EXPECT_EQ(test, f->consumed, 3 * n);
	KUNIT_EXPECT_EQ(test, f->rewritten, 0);
}

/*
 * A console that sends through a device behind this SMMU (netconsole on a
 * NIC, a UART with DMA) unmaps from its write(), and a strict unmap syncs
 * this queue: a message printed while this CPU holds a queue lock would
 * take that lock again, a deadlock with interrupts off.  This console
 * counts the lines printed, and those printed under either lock.
 */
static struct smmuv3_cmdq *fpt_console_cmdq;
static unsigned long fpt_console_lines, fpt_console_under_lock;

static bool fpt_queue_lock_held(struct smmuv3_cmdq *cmdq)
{
#ifdef CONFIG_LOCKDEP
	return lockdep_is_held(&cmdq->lock) == LOCK_STATE_HELD ||
	       lockdep_is_held(&cmdq->gerror_lock) == LOCK_STATE_HELD;
#else
	return false;
#endif
}

static void fpt_console_write(struct console *con, const char *s,
			      unsigned int n)
{
	struct smmuv3_cmdq *cmdq = READ_ONCE(fpt_console_cmdq);

	if (!cmdq)
		return;
	fpt_console_lines++;
	if (fpt_queue_lock_held(cmdq))
		fpt_console_under_lock++;
}

static struct console fpt_console = {
	.name	= "fptdma",
	.write	= fpt_console_write,
	.flags	= CON_ENABLED,
	.index	= -1,
};

/*
 * The queue's messages, a refused command skipped by a waiter and by the
 * GERROR interrupt, and commands dropped from a full queue, are printed
 * with no queue lock held.
 */
static void messages_printed_with_no_queue_lock_held(struct kunit *test)
{
	struct fpt_v3_fake *f = fpt_cmdq_fake(test, 4, 2);
	struct smmuv3_cmdq *cmdq = &f->smmu.cmdq;

	if (!IS_ENABLED(CONFIG_LOCKDEP) || !debug_locks)
		kunit_skip(test, "lockdep must say which locks are held");
	/* They are ratelimited per call site: start a window of our own. */
	ssleep(DEFAULT_RATELIMIT_INTERVAL / HZ + 1);
	fpt_console_lines = 0;
	fpt_console_under_lock = 0;
	WRITE_ONCE(fpt_console_cmdq, cmdq);
	register_console(&fpt_console);

	fpt_v3_fake_refuse_tlbi(f, 1);
	fpt_cmdq_tlbi(f, 1);
	KUNIT_EXPECT_EQ(test, fpt_cmdq_sync(f), 0);

	fpt_v3_fake_set(f, 0);
	fpt_v3_fake_refuse_tlbi(f, 1);
	fpt_cmdq_tlbi(f, BIT(cmdq->q.shift) / 2);
	fpt_v3_fake_run(f, 1);
	KUNIT_EXPECT_EQ(test, smmuv3_gerror_irq(0, &f->smmu), IRQ_HANDLED);

	fpt_cmdq_tlbi(f, BIT(cmdq->q.shift));

	unregister_console(&fpt_console);
	WRITE_ONCE(fpt_console_cmdq, NULL);
	KUNIT_EXPECT_EQ(test, f->refused, 2);
	KUNIT_EXPECT_GT(test, cmdq->nlost, 2);
	KUNIT_EXPECT_GE(test, fpt_console_lines, 3);
	KUNIT_EXPECT_EQ(test, fpt_console_under_lock, 0);
}

/*
 * CMDQ_CONS reads all-ones (a read the interconnect failed), whose index
 * bits name a position between what the SMMU consumed and what was
 * published; or a stale value, behind the shared position.  Neither may
 * move the shared consumer position: a producer would take the slot of a
 * command not yet read, and a waiter return before its CMD_SYNC.
 */
static void implausible_cmdq_cons_moves_nothing(struct kunit *test)
{
	struct fpt_v3_fake *f = fpt_cmdq_fake(test, 4, 64);
	struct smmuv3_cmdq *cmdq = &f->smmu.cmdq;
	u32 n = BIT(cmdq->q.shift);

	cmdq->timeout_us = 100;
	fpt_cmdq_tlbi(f, n - 1);
	KUNIT_ASSERT_EQ(test, fpt_cmdq_sync(f), 0);
	KUNIT_ASSERT_EQ(test, cmdq->cons, n);
	/* A full queue, unread: positions n to 2n - 1, all published. */
	fpt_v3_fake_set(f, 0);
	fpt_cmdq_tlbi(f, n);
	KUNIT_ASSERT_EQ(test, cmdq->published, 2 * n);

	/* All-ones: index n - 1, wrap set, so position 2n - 1. */
	fpt_v3_fake_cons_override(f, U32_MAX, 1);
	fpt_cmdq_tlbi(f, 1);
	KUNIT_EXPECT_EQ(test, cmdq->cons, n);
	KUNIT_EXPECT_EQ(test, cmdq->prod, 2 * n);
	KUNIT_EXPECT_EQ(test, cmdq->nlost, 1);

	/* Stale: index n - 1, wrap clear, a lap behind the shared position. */
	fpt_v3_fake_cons_override(f, n - 1, 1);
	fpt_cmdq_tlbi(f, 1);
	KUNIT_EXPECT_EQ(test, cmdq->cons, n);
	KUNIT_EXPECT_EQ(test, cmdq->nlost, 2);

	fpt_v3_fake_set(f, 64);
	KUNIT_EXPECT_EQ(test, fpt_cmdq_sync(f), 0);
	KUNIT_EXPECT_EQ(test, f->rewritten, 0);
	KUNIT_EXPECT_EQ(test, f->overflow, 0);
	KUNIT_EXPECT_EQ(test, cmdq->cons, cmdq->prod);
}

/*
 * A CMD_SYNC the SMMU cannot fetch, again and again (CERROR_ABT, which it
 * retries each time the error is acknowledged).  Acknowledging it at every
 * poll that sees no progress makes every retry an interrupt, and keeps
 * the queue from ever being marked wedged, so that every sync waits a
 * whole bound.  A call acknowledges it once; the GERROR interrupt, for an
 * abort at a position already acknowledged, not at all; and once a call
 * has seen CMDQ_CONS still for a bound, the next fails at once.
 */
static void persistent_abort_acknowledged_once_per_call(struct kunit *test)
{
	struct fpt_v3_fake *f = fpt_cmdq_fake(test, 6, 4);
	struct smmuv3_cmdq *cmdq = &f->smmu.cmdq;
	unsigned long delays, acks, irqs;
	unsigned int i;

	cmdq->timeout_us = 100;
	fpt_v3_fake_refuse_cerror(f, CMD_OP_SYNC, U32_MAX, FPT_CERROR_ABT);
	fpt_cmdq_tlbi(f, 1);
	KUNIT_EXPECT_EQ(test, fpt_cmdq_sync(f), -ETIMEDOUT);
	KUNIT_EXPECT_EQ(test, f->delays, cmdq->timeout_us);
	KUNIT_EXPECT_EQ(test, f->acks, 1);
	KUNIT_EXPECT_EQ(test, f->irqs, 2);

	delays = f->delays;
	acks = f->acks;
	KUNIT_EXPECT_EQ(test, fpt_cmdq_sync(f), -ETIMEDOUT);
	KUNIT_EXPECT_EQ(test, f->delays, delays);
	KUNIT_EXPECT_EQ(test, f->acks, acks + 1);

	irqs = f->irqs;
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, smmuv3_gerror_irq(0, &f->smmu),
				IRQ_HANDLED);
	KUNIT_EXPECT_EQ(test, f->irqs, irqs);

	/* The fetch works again: the next sync's retry gets through. */
	fpt_v3_fake_refuse(f, 0, 0);
	KUNIT_EXPECT_EQ(test, fpt_cmdq_sync(f), 0);
	KUNIT_EXPECT_EQ(test, cmdq->cons, cmdq->prod);
	KUNIT_EXPECT_EQ(test, fpt_v3_fake_active_gerror(f), 0);
}

/*
 * A waiter takes a refused command before the GERROR interrupt that it
 * raised is handled.  The handler finds nothing active, but the interrupt
 * was this SMMU's: IRQ_NONE would count it unhandled, and genirq disables
 * a line most of whose interrupts are (then SFM_ERR goes unheard).  Only
 * an interrupt no error accounts for is IRQ_NONE.
 */
static void gerror_irq_handled_when_a_waiter_took_the_error(struct kunit *test)
{
	struct fpt_v3_fake *f = fpt_cmdq_fake(test, 6, 4);

	fpt_v3_fake_refuse_tlbi(f, 1);
	fpt_cmdq_tlbi(f, 1);
	KUNIT_EXPECT_EQ(test, fpt_cmdq_sync(f), 0);
	KUNIT_EXPECT_EQ(test, f->irqs, 1);
	KUNIT_EXPECT_EQ(test, fpt_v3_fake_active_gerror(f), 0);
	KUNIT_EXPECT_EQ(test, smmuv3_gerror_irq(0, &f->smmu), IRQ_HANDLED);
	KUNIT_EXPECT_EQ(test, smmuv3_gerror_irq(0, &f->smmu), IRQ_NONE);
}

/*
 * Service Failure Mode: the SMMU may stop consuming commands.  The
 * interrupt acknowledges SFM_ERR and marks the queue wedged where
 * CMDQ_CONS stands, so that syncs fail at once instead of each waiting a
 * bound, until CMDQ_CONS moves.
 */
static void sfm_err_marks_queue_wedged(struct kunit *test)
{
	struct fpt_v3_fake *f = fpt_cmdq_fake(test, 6, 0);
	struct smmuv3_cmdq *cmdq = &f->smmu.cmdq;

	fpt_v3_fake_raise_gerror(f, GERROR_SFM_ERR);
	KUNIT_EXPECT_EQ(test, smmuv3_gerror_irq(0, &f->smmu), IRQ_HANDLED);
	KUNIT_EXPECT_EQ(test, fpt_v3_fake_active_gerror(f), 0);
	fpt_cmdq_tlbi(f, 1);
	KUNIT_EXPECT_EQ(test, fpt_cmdq_sync(f), -ETIMEDOUT);
	KUNIT_EXPECT_EQ(test, f->delays, 0);

	/* It consumes again: the marker no longer holds. */
	fpt_v3_fake_set(f, 8);
	KUNIT_EXPECT_EQ(test, fpt_cmdq_sync(f), 0);
	KUNIT_EXPECT_EQ(test, cmdq->cons, cmdq->prod);
}

/*
 * A slow SMMU that never stops, and one submit of many more commands than
 * the queue holds: each slot is waited for, and CMDQ_CONS moves at every
 * few polls.  The bound is for an SMMU that does not move; spent across
 * the whole call, it ran out in the middle of the batch, and a working
 * SMMU lost the rest of it.
 */
static void moving_cons_resets_the_bound(struct kunit *test)
{
	struct fpt_v3_fake *f = fpt_cmdq_fake(test, 4, 1);
	struct smmuv3_cmdq *cmdq = &f->smmu.cmdq;
	unsigned int i, n = 16 * BIT(cmdq->q.shift);
	u64 *cmds = kunit_kcalloc(test, n, CMD_DWORDS * sizeof(u64),
				  GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, cmds);
	cmdq->timeout_us = 100;
	fpt_v3_fake_pace(f, 4, 0);
	for (i = 0; i < n; i++)
		smmuv3_cmd_tlbi_nh_va(&cmds[i * CMD_DWORDS], 1,
				      FPT_IOVA + i * SZ_4K, true);
	smmuv3_cmdq_ops.submit(&f->smmu, cmds, n);
	KUNIT_EXPECT_EQ(test, cmdq->nlost, 0);
	KUNIT_EXPECT_GT(test, f->delays, cmdq->timeout_us);
	KUNIT_EXPECT_EQ(test, fpt_cmdq_sync(f), 0);
	KUNIT_EXPECT_EQ(test, f->tlbi, n);
	KUNIT_EXPECT_EQ(test, f->cfgi, 0);
	KUNIT_EXPECT_EQ(test, cmdq->cons, cmdq->prod);
}

/*
 * A VM whose every MMIO access traps to the hypervisor: each poll of a
 * wedged SMMU costs far more than a back-off step, perhaps with
 * interrupts off.  The bound is time on the queue's clock, not a count of
 * steps: a sync fails within about a bound of it, however slow its polls.
 */
static void bound_is_time_not_loop_steps(struct kunit *test)
{
	struct fpt_v3_fake *f = fpt_cmdq_fake(test, 6, 0);
	struct smmuv3_cmdq *cmdq = &f->smmu.cmdq;
	u64 bound = 100 * NSEC_PER_USEC, start;

	cmdq->timeout_us = 100;
	fpt_v3_fake_pace(f, 0, 10 * NSEC_PER_USEC);
	fpt_cmdq_tlbi(f, 1);
	start = f->clock_ns;
	KUNIT_EXPECT_EQ(test, fpt_cmdq_sync(f), -ETIMEDOUT);
	KUNIT_EXPECT_GE(test, f->clock_ns - start, bound);
	KUNIT_EXPECT_LE(test, f->clock_ns - start, 2 * bound);

	fpt_v3_fake_pace(f, 0, 0);
	fpt_v3_fake_set(f, 8);
	KUNIT_EXPECT_EQ(test, fpt_cmdq_sync(f), 0);
	KUNIT_EXPECT_EQ(test, cmdq->cons, cmdq->prod);
}

/*
 * MMU-700 erratum 2812531: upstream's workaround relies on batches of one
 * kind, each ending in a CMD_SYNC.  Here a TLBI_NH_VA, a CFGI_STE and a
 * TLBI_NH_ASID come from three submits, as from three CPUs (submit and
 * sync are separate lock holds): the queue must not let them share one
 * sync window.
 */
static void erratum_2812531_one_kind_per_sync(struct kunit *test)
{
	struct fpt_v3_fake *f = fpt_cmdq_fake(test, 8, 16);
	u64 cmd[CMD_DWORDS];

	f->mmu700 = true;
	f->smmu.cmdq.force_sync_after = 63;
	fpt_cmdq_tlbi(f, 2);
	smmuv3_cmd_cfgi_ste(cmd, 1);
	smmuv3_cmdq_ops.submit(&f->smmu, cmd, 1);
	smmuv3_cmd_tlbi_nh_asid(cmd, 1);
	smmuv3_cmdq_ops.submit(&f->smmu, cmd, 1);
	KUNIT_EXPECT_EQ(test, fpt_cmdq_sync(f), 0);
	KUNIT_EXPECT_EQ(test, f->mixed, 0);
	/* Before the CFGI_STE, before the TLBI_NH_ASID, and the caller's. */
	KUNIT_EXPECT_EQ(test, f->syncs, 3);
	KUNIT_EXPECT_EQ(test, f->smmu.cmdq.prod, 7);
}

/* Another CPU's sync times out whenever the SMMU consumes a CFGI_ALL. */
static void fpt_loss_at_cfgi_all(struct fpt_v3_fake *f, u64 pos,
				 const u64 *cmd, bool refused)
{
	if ((cmd[0] & 0xff) == CMD_OP_CFGI_ALL && !refused)
		WRITE_ONCE(f->smmu.cmdq.nlost, f->smmu.cmdq.nlost + 1);
}

static const struct fpt_v3_hooks fpt_loss_at_cfgi_all_hooks = {
	.consume = fpt_loss_at_cfgi_all,
};

/*
 * Losses elsewhere while a recovery runs (other CPUs' syncs timing out)
 * are not the recovery's own commands: its CFGI_ALL and TLBI_NSNH_ALL
 * were consumed and not refused.  It covers what was lost before it began
 * and answers 0; the later losses are for the syncs after it.  Taken for
 * its own, they made it start again, and after three tries fail with
 * -EIO, and a final flush that fails leaks the domain's tables, CD and
 * ASID.
 */
static void unrelated_losses_during_recovery_are_not_its_own(struct kunit *test)
{
	struct fpt_v3_fake *f = fpt_cmdq_fake(test, 6, 4);
	struct smmuv3_cmdq *cmdq = &f->smmu.cmdq;
	u64 before;

	WRITE_ONCE(cmdq->nlost, 1);
	f->hooks = &fpt_loss_at_cfgi_all_hooks;
	KUNIT_EXPECT_EQ(test, fpt_cmdq_sync(f), 0);
	KUNIT_EXPECT_EQ(test, fpt_count_op(f, CMD_OP_CFGI_ALL), 1);
	KUNIT_EXPECT_EQ(test, cmdq->recovered, 1);
	KUNIT_EXPECT_EQ(test, cmdq->nlost, 2);

	/* A refused command of its own is still made up for. */
	f->hooks = NULL;
	before = f->cfgi;
	fpt_v3_fake_refuse(f, CMD_OP_TLBI_NSNH_ALL, 1);
	KUNIT_EXPECT_EQ(test, fpt_cmdq_sync(f), 0);
	KUNIT_EXPECT_EQ(test, f->cfgi, before + 2);
	KUNIT_EXPECT_EQ(test, cmdq->recovered, cmdq->nlost);
}

/*
 * A strict 4K unmap under va goes to the backend as its one TLBI and its
 * CMD_SYNC together (smmuv3_cmdq_submit_sync()).  After a lost command (a
 * CMD_SYNC that timed out while a detached device's CFGI_STE and TLBI
 * waited), that sync too must not answer before the recovery, in order:
 * CFGI_ALL completed, then TLBI_NSNH_ALL completed; or the caller frees
 * what the busy device still refills the TLB for through its cached STE.
 */
static void fast_leaf_sync_after_loss_recovers_in_order(struct kunit *test)
{
	static const u8 want[] = {
		CMD_OP_TLBI_NH_VA, CMD_OP_SYNC, CMD_OP_CFGI_ALL, CMD_OP_SYNC,
		CMD_OP_TLBI_NSNH_ALL, CMD_OP_SYNC,
	};
	struct fpt_rig *rig = fpt_fake_rig(test, 6);
	struct fpt_v3_fake *f = fpt_rig_fake;
	unsigned int i;
	u32 sid = 1;
	u64 start;

	fpt_detach_sync_times_out(test, rig, sid);
	fp_context_reset_stats(rig->ctx);
	start = f->smmu.cmdq.prod;
	KUNIT_EXPECT_EQ(test, fpt_unmap(rig, FPT_IOVA, SZ_4K, false), SZ_4K);
	KUNIT_EXPECT_EQ(test, fp_context_stat(rig->ctx, FP_STAT_SYNC_TIMEOUTS),
			0);
	KUNIT_EXPECT_EQ(test, fp_context_stat(rig->ctx, FP_STAT_TLBI_VA), 1);
	KUNIT_EXPECT_EQ(test, fp_context_stat(rig->ctx, FP_STAT_SYNCS), 1);
	KUNIT_ASSERT_EQ(test, f->smmu.cmdq.prod - start, ARRAY_SIZE(want));
	for (i = 0; i < ARRAY_SIZE(want); i++)
		KUNIT_EXPECT_EQ_MSG(test, fpt_v3_fake_slot(f, start + i) & 0xff,
				    want[i], "command %u after the unmap's", i);
	KUNIT_EXPECT_EQ(test, f->smmu.cmdq.cons, f->smmu.cmdq.prod);
	KUNIT_EXPECT_EQ(test, f->smmu.cmdq.recovered, f->smmu.cmdq.nlost);
	KUNIT_EXPECT_NULL(test, fpt_v3_fake_cached(f, sid));
	KUNIT_EXPECT_EQ(test, fpm_cached_entries(&rig->mc), 0);
}

/* Commands of kind @op the fake SMMU has consumed from position @from. */
static unsigned int fpt_count_op_from(struct fpt_v3_fake *f, u8 op, u64 from)
{
	unsigned int n = 0;
	u64 pos;

	for (pos = from; pos < f->smmu.cmdq.cons; pos++)
		n += (fpt_v3_fake_slot(f, pos) & 0xff) == op;
	return n;
}

/*
 * A 4K unmap at @iova into the caller's gather, a switch to @policy, then
 * the sync: one command of kind @want, none of kind @not, from the
 * position returned.  The unmap itself sends nothing.
 */
static u64 fpt_unmap_switch_sync(struct kunit *test, struct fpt_rig *rig,
				 unsigned long iova, const char *policy,
				 u8 want, u8 not)
{
	struct fpt_v3_fake *f = fpt_rig_fake;
	struct iommu_iotlb_gather gather;
	u64 start = f->smmu.cmdq.prod;

	iommu_iotlb_gather_init(&gather);
	/* As the IOMMU core calls the driver: its inline path, keys off. */
	KUNIT_ASSERT_FALSE(test, static_key_enabled(&fp_estimate_key.key));
	KUNIT_ASSERT_FALSE(test, static_key_enabled(&fp_latency_key.key));
	KUNIT_EXPECT_EQ(test, fp_unmap_pages(rig->ctx, rig->ops, iova, SZ_4K,
					     1, &gather), SZ_4K);
	KUNIT_EXPECT_EQ(test, f->smmu.cmdq.prod, start);
	KUNIT_ASSERT_EQ(test, fp_context_set_policy(rig->ctx, policy), 0);
	fp_iotlb_sync(rig->ctx, &gather);
	KUNIT_EXPECT_EQ(test, fpt_count_op_from(f, want, start), 1);
	KUNIT_EXPECT_EQ(test, fpt_count_op_from(f, not, start), 0);
	return start;
}

/* Strict unmaps of one leaf fp_iotlb_sync() sent by its leaf path. */
static u64 fpt_leaf_syncs(struct fp_context *ctx)
{
	u64 sum = 0;
	int cpu, k;

	for_each_possible_cpu(cpu)
		for (k = 0; k < FP_LEAF_NR; k++)
			sum += atomic64_read(&per_cpu_ptr(ctx->stats,
							  cpu)->leaf[k]);
	return sum;
}

/*
 * A 4K unmap leaves its leaf in the caller's gather, under whatever
 * policy; the policy read at iotlb_sync invalidates it.  Switched from va
 * to asid in between: one TLBI_NH_ASID, no by-VA command; from asid back
 * to va: the one by-VA command and its sync, by the leaf path.
 */
static void switch_between_unmap_and_sync_uses_policy_at_sync(struct kunit *test)
{
	struct fpt_rig *rig = fpt_fake_rig(test, 8);
	struct fpt_v3_fake *f = fpt_rig_fake;
	u64 start;

	fpt_estimate_hold_off(test);
	KUNIT_ASSERT_EQ(test, fpt_map(rig, FPT_IOVA, SZ_16K, SZ_4K), 0);
	fpm_access_range(&rig->mc, FPT_IOVA, SZ_16K);

	fpt_unmap_switch_sync(test, rig, FPT_IOVA, "asid", CMD_OP_TLBI_NH_ASID,
			      CMD_OP_TLBI_NH_VA);
	KUNIT_EXPECT_EQ(test, fp_context_stat(rig->ctx, FP_STAT_TLBI_ASID), 1);
	KUNIT_EXPECT_EQ(test, fp_context_stat(rig->ctx, FP_STAT_TLBI_VA), 0);

	start = fpt_unmap_switch_sync(test, rig, FPT_IOVA + SZ_4K, "va",
				      CMD_OP_TLBI_NH_VA, CMD_OP_TLBI_NH_ASID);
	KUNIT_EXPECT_EQ(test, f->smmu.cmdq.prod - start, 2);
	KUNIT_EXPECT_EQ(test, fp_context_stat(rig->ctx, FP_STAT_TLBI_VA), 1);
	KUNIT_EXPECT_EQ(test, fp_context_stat(rig->ctx, FP_STAT_UNMAPS), 2);
	KUNIT_EXPECT_EQ(test, fp_context_stat(rig->ctx, FP_STAT_SYNCS), 2);
	KUNIT_EXPECT_EQ(test, fpm_stale_entries(&rig->mc), 0);

	/*
	 * A policy in a module of its own, whose one-leaf flush the core
	 * sends from the context's copy: to adaptive, the by-VA command and
	 * its sync by the leaf path; from adaptive to asid, no by-VA command.
	 */
	start = fpt_unmap_switch_sync(test, rig, FPT_IOVA + SZ_8K, "adaptive",
				      CMD_OP_TLBI_NH_VA, CMD_OP_TLBI_NH_ASID);
	KUNIT_EXPECT_EQ(test, f->smmu.cmdq.prod - start, 2);
	KUNIT_EXPECT_EQ(test, fpt_leaf_syncs(rig->ctx), 2);
	fpt_unmap_switch_sync(test, rig, FPT_IOVA + SZ_8K + SZ_4K, "asid",
			      CMD_OP_TLBI_NH_ASID, CMD_OP_TLBI_NH_VA);
	KUNIT_EXPECT_EQ(test, fpt_leaf_syncs(rig->ctx), 2);
	KUNIT_EXPECT_EQ(test, fp_context_stat(rig->ctx, FP_STAT_TLBI_ASID), 2);
	KUNIT_EXPECT_EQ(test, fpm_stale_entries(&rig->mc), 0);
}

/*
 * A queue whose every operation costs FPT_OP_NS on the rig's clock, and
 * nothing else: what taking the queue's lock with interrupts off and
 * writing CMDQ_PROD cost a CPU once per operation, whatever it carries.
 */
#define FPT_OP_NS	1000

static u64 fpt_ops_ns;

static void fpt_priced_submit(void *q, const u64 *cmds, unsigned int n)
{
	fpt_ops_ns += FPT_OP_NS;
	smmuv3_cmdq_ops.submit(q, cmds, n);
}

static int fpt_priced_sync(void *q)
{
	fpt_ops_ns += FPT_OP_NS;
	return smmuv3_cmdq_ops.sync(q);
}

static int fpt_priced_submit_sync(void *q, const u64 *cmds, unsigned int n)
{
	fpt_ops_ns += FPT_OP_NS;
	return smmuv3_cmdq_ops.submit_sync(q, cmds, n);
}

static const struct smmuv3_cmdq_ops fpt_priced_cmdq_ops = {
	.submit		= fpt_priced_submit,
	.sync		= fpt_priced_sync,
	.submit_sync	= fpt_priced_submit_sync,
};

static void fpt_priced_rig_setup(struct fpt_rig *rig)
{
	fpt_fake_rig_setup(rig);
	rig->backend.v3.cmdq = &fpt_priced_cmdq_ops;
	rig->backend.v3.direct = NULL;
	fpt_ops_ns = 0;
}

static u64 fpt_priced_clock(struct fp_context *ctx)
{
	return fpt_ops_ns;
}

/*
 * adaptive learns the cost of a command and its sync from one-leaf
 * flushes, which the core's leaf path sends as one queue operation, and
 * the cost of each further command from its own flushes of more: those
 * must time the same kind of operation, or the second operation's cost is
 * taken for the cost of commands.  On a clock that charges only per queue
 * operation, a second command in the same operation costs nothing: the
 * per-command estimate falls, an eighth of the way towards 0.
 */
static void adaptive_samples_one_kind_of_operation(struct kunit *test)
{
	static struct fp_hw_ops priced;
	struct fpt_backend be = fpt_fake_rig_backend;
	struct fp_estimate *e;
	struct fpt_rig *rig;
	unsigned int i;
	u32 cmd16;

	priced = smmuv3_hw_ops;
	priced.clock = fpt_priced_clock;
	be.ops = &priced;
	be.setup = fpt_priced_rig_setup;
	rig = fpt_fake_rig_on(test, 8, &be, "adaptive");
	KUNIT_ASSERT_PTR_EQ(test, rig->backend.v3.cmdq, &fpt_priced_cmdq_ops);
	e = fp_context_estimate(rig->ctx);
	/* Precise whatever the timings teach: the choice is not the point. */
	KUNIT_ASSERT_EQ(test, fp_context_set_walk_ns(rig->ctx, FP_WALK_NS_MAX),
			0);
	KUNIT_ASSERT_EQ(test, fpt_map(rig, FPT_IOVA, SZ_2M, SZ_4K), 0);
	/* Every flush a sample while warming up: all but the last here. */
	for (i = 0; i < 63; i++)
		KUNIT_ASSERT_EQ(test, fpt_unmap(rig, FPT_IOVA + i * SZ_4K, SZ_4K,
						false), SZ_4K);
	KUNIT_ASSERT_EQ(test, e->samples, 63);
	KUNIT_EXPECT_EQ(test, fpt_leaf_syncs(rig->ctx), 63);
	/* The base has converged on one operation, to under a ns. */
	KUNIT_EXPECT_LE(test, abs((s64)e->base_ns16 - (FPT_OP_NS << 4)), 15);
	cmd16 = e->cmd_ns16;
	KUNIT_EXPECT_EQ(test, fpt_unmap(rig, FPT_IOVA + SZ_1M, SZ_8K, false),
			SZ_8K);
	KUNIT_EXPECT_EQ(test, e->samples, 64);
	KUNIT_EXPECT_EQ(test, fp_context_stat(rig->ctx, FP_STAT_TLBI_VA), 65);
	KUNIT_EXPECT_LE(test, e->cmd_ns16, cmd16 - (cmd16 - 16) / 8);
	KUNIT_EXPECT_EQ(test, fpm_stale_entries(&rig->mc), 0);
}

/*
 * Where the flush state names the SMMU's own queue (&smmuv3_flush.direct),
 * every command of every flush and its CMD_SYNC go there, none through the
 * queue's operations (priced here, over the same queue): a by-VA flush of
 * 64 pages fills a batch (32) and spills, and a context flush and its sync
 * are two calls.
 */
static void direct_queue_takes_every_command(struct kunit *test)
{
	static const u8 tail[] = {
		CMD_OP_SYNC, CMD_OP_TLBI_NH_ASID, CMD_OP_SYNC,
	};
	struct fpt_backend be = fpt_fake_rig_backend;
	struct fpt_v3_fake *f;
	struct fpt_rig *rig;
	unsigned int i;
	u64 start;

	be.setup = fpt_priced_rig_setup;
	rig = fpt_fake_rig_on(test, 8, &be, "va");
	f = fpt_rig_fake;
	rig->backend.v3.direct = &f->smmu.cmdq;
	start = f->smmu.cmdq.prod;
	KUNIT_ASSERT_EQ(test, smmuv3_hw_ops.inv_va_sync(rig->ctx, FPT_IOVA,
							64 * SZ_4K, SZ_4K,
							true), 0);
	smmuv3_hw_ops.inv_context(rig->ctx);
	KUNIT_ASSERT_EQ(test, smmuv3_hw_ops.sync(rig->ctx), 0);
	KUNIT_EXPECT_EQ(test, fpt_ops_ns, 0);
	KUNIT_ASSERT_EQ(test, f->smmu.cmdq.prod - start, 67);
	for (i = 0; i < 64; i++)
		KUNIT_EXPECT_EQ(test, fpt_v3_fake_slot(f, start + i) & 0xff,
				CMD_OP_TLBI_NH_VA);
	fpt_v3_fake_expect_ops(test, f, start + 64, tail, ARRAY_SIZE(tail));
	KUNIT_EXPECT_EQ(test, f->smmu.cmdq.nlost, 0);
}

/*
 * The same unmaps through the same shipped primitives, with and without
 * the backend's invalidate-and-sync operations: with them, a strict unmap
 * of one leaf under va, range or threshold is sent by the core's leaf path
 * and counted with one add; without them, by the policy, counted as ever.
 * Every statistic reads the same, and the SMMU consumed the same commands.
 */
struct fpt_leaf_case {
	const char *policy;
	const struct fp_hw_ops *ops;
};

static void fpt_leaf_workload(struct kunit *test, struct fpt_rig *rig,
			      u64 *stats)
{
	struct iommu_iotlb_gather gather;
	unsigned int i;

	/*
	 * adaptive's choices then do not depend on the host's clock: a walk
	 * dearer than any flush the timings could teach keeps it precise.
	 */
	KUNIT_ASSERT_EQ(test, fp_context_set_walk_ns(rig->ctx, FP_WALK_NS_MAX),
			0);
	KUNIT_ASSERT_EQ(test, fpt_map(rig, FPT_IOVA, SZ_2M, SZ_4K), 0);
	fp_context_reset_stats(rig->ctx);
	for (i = 0; i < 8; i++)
		KUNIT_EXPECT_EQ(test, fpt_unmap(rig, FPT_IOVA + i * SZ_4K,
						SZ_4K, false), SZ_4K);
	KUNIT_EXPECT_EQ(test, fpt_unmap(rig, FPT_IOVA + SZ_32K, SZ_8K, false),
			SZ_8K);
	iommu_iotlb_gather_init(&gather);
	KUNIT_EXPECT_EQ(test, fp_unmap(rig->ctx, rig->ops, FPT_IOVA + SZ_64K,
				       SZ_4K, &gather), SZ_4K);
	fp_iotlb_sync(rig->ctx, &gather);
	/* The rest, with its table: the path with a record. */
	KUNIT_EXPECT_EQ(test, fpt_unmap(rig, FPT_IOVA, SZ_2M, false), SZ_2M);
	for (i = 0; i < FP_STAT_NR; i++)
		stats[i] = fp_context_stat(rig->ctx, i);
}

static void fast_leaf_stats_equal_policy_path(struct kunit *test)
{
	static const struct fpt_leaf_case cases[] = {
		{ "va", &smmuv3_hw_ops },
		{ "threshold", &smmuv3_hw_ops },
		{ "range", &smmuv3_hw_ops_ril },
		{ "threshold", &smmuv3_hw_ops_ril },
		{ "adaptive", &smmuv3_hw_ops },
		{ "adaptive", &smmuv3_hw_ops_ril },
	};
	static struct fp_hw_ops slow_ops;
	struct fpt_backend fast = fpt_fake_rig_backend, slow = fast;
	u64 fs[FP_STAT_NR], ss[FP_STAT_NR];
	unsigned long ftlbi, fsyncs, fsamples;
	struct fpt_rig *rig;
	unsigned int c, i;

	for (c = 0; c < ARRAY_SIZE(cases); c++) {
		fast.ops = cases[c].ops;
		slow_ops = *cases[c].ops;
		slow_ops.inv_va_sync = NULL;
		slow_ops.inv_range_sync = NULL;
		slow_ops.inv_leaf_sync = NULL;
		slow.ops = &slow_ops;

		rig = fpt_fake_rig_on(test, 8, &fast, cases[c].policy);
		fpt_leaf_workload(test, rig, fs);
		ftlbi = fpt_rig_fake->tlbi;
		fsyncs = fpt_rig_fake->syncs;
		fsamples = fp_context_estimate(rig->ctx)->samples;
		fpt_rig_release(rig);

		rig = fpt_fake_rig_on(test, 8, &slow, cases[c].policy);
		fpt_leaf_workload(test, rig, ss);
		KUNIT_EXPECT_EQ(test, fpt_rig_fake->tlbi, ftlbi);
		KUNIT_EXPECT_EQ(test, fpt_rig_fake->syncs, fsyncs);
		/* adaptive's: the leaf path timed what the policy times. */
		KUNIT_EXPECT_EQ_MSG(test,
				    fp_context_estimate(rig->ctx)->samples,
				    fsamples, "%s, RIL %d: samples",
				    cases[c].policy, !!cases[c].ops->inv_range);
		fpt_rig_release(rig);

		for (i = 0; i < FP_STAT_NR; i++)
			KUNIT_EXPECT_EQ_MSG(test, fs[i], ss[i],
					    "%s, RIL %d: statistic %u",
					    cases[c].policy,
					    !!cases[c].ops->inv_range, i);
		KUNIT_EXPECT_EQ(test, fs[FP_STAT_UNMAPS], 11);
		KUNIT_EXPECT_GE(test, fs[FP_STAT_SYNCS], 10);
	}
}

/*
 * One leaf of @size at @iova through the one-leaf operation, then through
 * the general operation for the same leaf: each must be one command and a
 * CMD_SYNC, the same word for word, and the one-leaf operation's fields
 * what IHI 0070 says they are for that leaf (bit positions written here
 * from the spec, not from the driver's macros): ASID, the address, LEAF,
 * TTL 0 and, by range, TG of the granule, NUM 0, SCALE log2 of the leaf's
 * granules; by VA, TG 0 (not a range).
 */
static void fpt_leaf_op_check(struct kunit *test, struct fpt_rig *rig,
			      unsigned long iova, size_t size, bool range)
{
	const struct fp_hw_ops *ops = &smmuv3_hw_ops_ril;
	struct fpt_v3_fake *f = fpt_rig_fake;
	u64 a[CMD_DWORDS], b[CMD_DWORDS];
	unsigned int tg = rig->backend.v3.tg, i, n;
	unsigned long bad = f->bad;
	u64 p0, p1, p2;
	int ret;

	p0 = f->smmu.cmdq.prod;
	KUNIT_EXPECT_EQ(test, ops->inv_leaf_sync(&rig->backend.v3, iova, size,
						 range), 0);
	p1 = f->smmu.cmdq.prod;
	if (range)
		ret = ops->inv_range_sync(rig->ctx, iova, size, size, true, &n);
	else
		ret = ops->inv_va_sync(rig->ctx, iova, size, size, true);
	KUNIT_EXPECT_EQ(test, ret, 0);
	p2 = f->smmu.cmdq.prod;
	KUNIT_ASSERT_EQ(test, p1 - p0, 2);
	KUNIT_ASSERT_EQ(test, p2 - p1, 2);
	for (i = 0; i < 2; i++) {
		fpt_v3_fake_cmd(f, p0 + i, a);
		fpt_v3_fake_cmd(f, p1 + i, b);
		KUNIT_EXPECT_TRUE_MSG(test, a[0] == b[0] && a[1] == b[1],
				      "tg %u, range %d, leaf 0x%zx, command %u: %llx %llx, not %llx %llx",
				      tg, range, size, i,
				      a[0], a[1], b[0], b[1]);
	}
	fpt_v3_fake_cmd(f, p0, a);
	KUNIT_EXPECT_EQ(test, a[0] & 0xff, 0x12);		/* TLBI_NH_VA */
	KUNIT_EXPECT_EQ(test, a[0] >> 48, rig->backend.v3.asid);
	KUNIT_EXPECT_EQ(test, (a[0] >> 12) & 0x1f, 0);		/* NUM */
	KUNIT_EXPECT_EQ(test, (a[0] >> 20) & 0x1f,		/* SCALE */
			range ? ilog2(size) - tg : 0);
	KUNIT_EXPECT_EQ(test, a[1] & 1, 1);			/* LEAF */
	KUNIT_EXPECT_EQ(test, (a[1] >> 8) & 3, 0);		/* TTL */
	KUNIT_EXPECT_EQ(test, (a[1] >> 10) & 3,			/* TG */
			range ? (tg - 10) / 2 : 0);
	KUNIT_EXPECT_EQ(test, a[1] & ~0xfffULL, (u64)iova);
	KUNIT_EXPECT_EQ(test, fpt_v3_fake_slot(f, p0 + 1) & 0xff, CMD_OP_SYNC);
	/* The fake's context has a 4K granule: TG of 16K, 64K breaks it. */
	if (tg == 12)
		KUNIT_EXPECT_EQ(test, f->bad, bad);
}

/*
 * The backend's one-leaf operation (&fp_hw_ops.inv_leaf_sync) builds its
 * command itself: for a leaf of each size of each granule, by VA and by
 * range, it must put in the queue what the general operations put there
 * for the same leaf (TG and SCALE included), and a CMD_SYNC after it.
 */
static void leaf_op_sends_what_the_general_ops_send(struct kunit *test)
{
	static const struct {
		unsigned int tg;
		size_t sizes[3];	/* 0: no more */
	} leaves[] = {
		{ 12, { SZ_4K, SZ_2M, SZ_1G } },
		{ 14, { SZ_16K, SZ_32M } },
		/* A level-1 block with 52-bit addresses: SCALE 26. */
		{ 16, { SZ_64K, SZ_512M, 1UL << 42 } },
	};
	struct fpt_backend be = fpt_fake_rig_backend;
	struct fpt_rig *rig;
	unsigned int g, s, r;

	be.ops = &smmuv3_hw_ops_ril;
	rig = fpt_fake_rig_on(test, 8, &be, "va");
	for (g = 0; g < ARRAY_SIZE(leaves); g++) {
		/* Both operations read the granule here, as domain.c sets it. */
		rig->backend.v3.tg = leaves[g].tg;
		for (r = 0; r < 2; r++) {
			for (s = 0; s < ARRAY_SIZE(leaves[g].sizes); s++) {
				if (leaves[g].sizes[s])
					fpt_leaf_op_check(test, rig, 1UL << 42,
							  leaves[g].sizes[s],
							  r);
			}
		}
	}
	KUNIT_EXPECT_EQ(test, fpt_rig_fake->smmu.cmdq.nlost, 0);
}

/* Everything the workload's unmaps made the queue consume. */
#define FPT_DRIVER_CMDS	1024

struct fpt_driver_run {
	u64 stats[FP_STAT_NR];
	u64 cmds[FPT_DRIVER_CMDS][CMD_DWORDS];
	unsigned int n;
	unsigned long stale;
};

/*
 * Unmaps as the IOMMU core sends them to a driver whose unmap_pages is
 * fp_unmap_pages(): single pages, a run of two, a run across a table's
 * end (io-pgtable answers short and the core sends the rest), a whole
 * table unmapped as a 2M page (fp_unmap(), with its record), a block.
 */
static void fpt_driver_workload(struct kunit *test,
				const struct fpt_leaf_case *c,
				struct fpt_driver_run *run)
{
	struct fpt_backend be = fpt_fake_rig_backend;
	struct fpt_rig *rig;
	struct fpt_v3_fake *f;
	unsigned int i;
	u64 start;

	be.ops = c->ops;
	/* A queue that does not wrap over the commands read back. */
	rig = fpt_fake_rig_on(test, 11, &be, c->policy);
	f = fpt_rig_fake;
	KUNIT_ASSERT_EQ(test, fpt_map(rig, FPT_IOVA, 3 * SZ_2M, SZ_4K), 0);
	KUNIT_ASSERT_EQ(test, fpt_map(rig, FPT_IOVA + 3 * SZ_2M, SZ_2M,
				      SZ_2M), 0);
	fp_context_reset_stats(rig->ctx);
	start = f->smmu.cmdq.prod;
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_EQ(test, fpt_unmap_core(rig, FPT_IOVA + i * SZ_8K,
						     SZ_4K, false), SZ_4K);
	KUNIT_EXPECT_EQ(test, fpt_unmap_core(rig, FPT_IOVA + SZ_64K, SZ_8K,
					     false), SZ_8K);
	KUNIT_EXPECT_EQ(test, fpt_unmap_core(rig, FPT_IOVA + SZ_2M - SZ_4K,
					     SZ_8K, false), SZ_8K);
	KUNIT_EXPECT_EQ(test, fpt_unmap_core(rig, FPT_IOVA + SZ_4M, SZ_2M,
					     false), SZ_2M);
	KUNIT_EXPECT_EQ(test, fpt_unmap_core(rig, FPT_IOVA + 3 * SZ_2M, SZ_2M,
					     false), SZ_2M);
	run->n = f->smmu.cmdq.prod - start;
	KUNIT_ASSERT_LE(test, run->n, FPT_DRIVER_CMDS);
	for (i = 0; i < run->n; i++)
		fpt_v3_fake_cmd(f, start + i, run->cmds[i]);
	for (i = 0; i < FP_STAT_NR; i++)
		run->stats[i] = fp_context_stat(rig->ctx, i);
	run->stale = fpm_stale_entries(&rig->mc);
	KUNIT_EXPECT_EQ(test, f->smmu.cmdq.nlost, 0);
	fpt_rig_release(rig);
}

/*
 * fp_unmap_pages()'s inline path (no key on) must send what fp_unmap()
 * sends for the same calls (the latency key on forces it there): the same
 * commands in the same order, the same statistics, nothing stale.  Under
 * each strict policy; with the estimate's key held off for both, as on a
 * machine where no policy reads it.
 */
static void driver_unmap_inline_path_sends_fp_unmaps_commands(struct kunit *test)
{
	static const struct fpt_leaf_case cases[] = {
		{ "va", &smmuv3_hw_ops },
		{ "threshold", &smmuv3_hw_ops },
		{ "asid", &smmuv3_hw_ops },
		{ "batch", &smmuv3_hw_ops },
		{ "range", &smmuv3_hw_ops_ril },
		{ "threshold", &smmuv3_hw_ops_ril },
		{ "batch", &smmuv3_hw_ops_ril },
	};
	struct fpt_driver_run *fast, *slow;
	unsigned int p, i;

	fast = kunit_kzalloc(test, sizeof(*fast), GFP_KERNEL);
	slow = kunit_kzalloc(test, sizeof(*slow), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, fast);
	KUNIT_ASSERT_NOT_NULL(test, slow);
	fpt_estimate_hold_off(test);
	for (p = 0; p < ARRAY_SIZE(cases); p++) {
		KUNIT_ASSERT_FALSE(test,
				   static_key_enabled(&fp_latency_key.key));
		fpt_driver_workload(test, &cases[p], fast);
		fpt_latency_set(test, true);
		fpt_driver_workload(test, &cases[p], slow);
		fpt_latency_set(test, false);

		KUNIT_EXPECT_EQ_MSG(test, fast->n, slow->n, "%s, RIL %d", cases[p].policy,
				    !!cases[p].ops->inv_range);
		for (i = 0; i < min(fast->n, slow->n); i++)
			KUNIT_EXPECT_TRUE_MSG(test,
					      !memcmp(fast->cmds[i], slow->cmds[i],
						      sizeof(fast->cmds[i])),
					      "%s, RIL %d: command %u: %llx %llx, %llx %llx",
					      cases[p].policy,
					      !!cases[p].ops->inv_range, i, fast->cmds[i][0],
					      fast->cmds[i][1], slow->cmds[i][0],
					      slow->cmds[i][1]);
		for (i = 0; i < FP_STAT_NR; i++)
			KUNIT_EXPECT_EQ_MSG(test, fast->stats[i], slow->stats[i],
					    "%s, RIL %d: statistic %u",
					    cases[p].policy,
					    !!cases[p].ops->inv_range, i);
		KUNIT_EXPECT_EQ(test, fast->stale, 0);
		KUNIT_EXPECT_EQ(test, slow->stale, 0);
	}
	fpt_estimate_release(test);
}

/*
 * fp_unmap_pages() called for pages of the smallest size over a block (a
 * caller other than the IOMMU core, which would pick the block's size):
 * the inline path must not take it, as fp_unmap() does not.  io-pgtable
 * would split the block into a table of pages and gather each (6.12), or
 * refuse it (later kernels); fp_unmap() unmaps the block whole, one leaf.
 */
static void driver_unmap_of_small_pages_over_a_block(struct kunit *test)
{
	struct fpt_rig *rig = fpt_fake_rig(test, 8);
	struct iommu_iotlb_gather gather;

	fpt_estimate_hold_off(test);
	KUNIT_ASSERT_EQ(test, fpt_map(rig, FPT_IOVA, SZ_2M, SZ_2M), 0);
	fp_context_reset_stats(rig->ctx);
	iommu_iotlb_gather_init(&gather);
	KUNIT_EXPECT_EQ(test, fp_unmap_pages(rig->ctx, rig->ops, FPT_IOVA,
					     SZ_4K, SZ_2M / SZ_4K, &gather),
			SZ_2M);
	fp_iotlb_sync(rig->ctx, &gather);
	KUNIT_EXPECT_EQ(test, fp_context_stat(rig->ctx, FP_STAT_TLBI_VA), 1);
	KUNIT_EXPECT_EQ(test, fp_context_stat(rig->ctx, FP_STAT_PAGES), 1);
	KUNIT_EXPECT_EQ(test, fpm_stale_entries(&rig->mc), 0);
}

/*
 * A strict 4K unmap under va is sent by the core's leaf path (one TLBI
 * and its CMD_SYNC, smmuv3_cmdq_submit_sync()), whose statistics read as
 * the policy's own would: only its own counter tells the paths apart.
 * Under asid, the policy's path.
 */
static void one_leaf_sync_takes_leaf_path(struct kunit *test)
{
	struct fpt_rig *rig = fpt_fake_rig(test, 8);
	unsigned long samples;
	struct fp_estimate *e;

	KUNIT_ASSERT_EQ(test, fpt_map(rig, FPT_IOVA, SZ_16K, SZ_4K), 0);
	KUNIT_EXPECT_EQ(test, fpt_unmap(rig, FPT_IOVA, SZ_4K, false), SZ_4K);
	KUNIT_EXPECT_EQ(test, fpt_leaf_syncs(rig->ctx), 1);
	KUNIT_EXPECT_EQ(test, fp_context_stat(rig->ctx, FP_STAT_TLBI_VA), 1);

	KUNIT_ASSERT_EQ(test, fp_context_set_policy(rig->ctx, "asid"), 0);
	fp_context_reset_stats(rig->ctx);
	KUNIT_EXPECT_EQ(test, fpt_unmap(rig, FPT_IOVA + SZ_4K, SZ_4K, false),
			SZ_4K);
	KUNIT_EXPECT_EQ(test, fpt_leaf_syncs(rig->ctx), 0);
	KUNIT_EXPECT_EQ(test, fp_context_stat(rig->ctx, FP_STAT_TLBI_ASID), 1);
	KUNIT_EXPECT_EQ(test, fpm_stale_entries(&rig->mc), 0);

	/*
	 * adaptive, a module's policy: one leaf is always precise for it, so
	 * the leaf path sends it, and times it as adaptive would (all of its
	 * first flushes are samples).
	 */
	KUNIT_ASSERT_EQ(test, fp_context_set_policy(rig->ctx, "adaptive"), 0);
	fp_context_reset_stats(rig->ctx);
	e = fp_context_estimate(rig->ctx);
	samples = e->samples;
	KUNIT_EXPECT_EQ(test, fpt_unmap(rig, FPT_IOVA + SZ_8K, SZ_4K, false),
			SZ_4K);
	KUNIT_EXPECT_EQ(test, fpt_leaf_syncs(rig->ctx), 1);
	KUNIT_EXPECT_EQ(test, fp_context_stat(rig->ctx, FP_STAT_TLBI_VA), 1);
	KUNIT_EXPECT_EQ(test, e->samples, samples + 1);
	KUNIT_EXPECT_EQ(test, fpm_stale_entries(&rig->mc), 0);
}

/*
 * One TLBI and its CMD_SYNC in one call (smmuv3_cmdq_submit_sync()), on
 * a full queue the SMMU has stopped consuming for all but the last step of
 * a bound: the wait for room, the CMD_SYNC's room and its completion each
 * see CMDQ_CONS move before a bound passes, so the call completes with
 * nothing lost.
 */
static void submit_sync_bounds_its_sync_on_its_own(struct kunit *test)
{
	struct fpt_v3_fake *f = fpt_cmdq_fake(test, 4, 1);
	struct smmuv3_cmdq *cmdq = &f->smmu.cmdq;
	u64 cmd[CMD_DWORDS];

	cmdq->timeout_us = 100;
	fpt_cmdq_tlbi(f, BIT(cmdq->q.shift));
	fpt_v3_fake_stall(f, cmdq->timeout_us - 1);
	smmuv3_cmd_tlbi_nh_va(cmd, 1, FPT_IOVA, true);
	KUNIT_EXPECT_EQ(test, smmuv3_cmdq_submit_sync(cmdq, cmd, 1), 0);
	KUNIT_EXPECT_EQ(test, cmdq->nlost, 0);
	KUNIT_EXPECT_EQ(test, cmdq->stuck, 0);
	KUNIT_EXPECT_EQ(test, cmdq->cons, cmdq->prod);
	KUNIT_EXPECT_EQ(test, f->tlbi, BIT(cmdq->q.shift) + 1);
	KUNIT_EXPECT_EQ(test, f->cfgi, 0);
}

/*
 * A full queue whose SMMU stops at an abort on fetch (CERROR_ABT) that the
 * fetch's retry meets again once: a call acknowledges it once, so the
 * call's wait for room sees CMDQ_CONS still for a bound and drops what it
 * could not queue.  The next call's acknowledgment lets the SMMU on.
 */
static struct fpt_v3_fake *fpt_full_behind_abort(struct kunit *test)
{
	struct fpt_v3_fake *f = fpt_cmdq_fake(test, 4, 1);

	f->smmu.cmdq.timeout_us = 100;
	fpt_cmdq_tlbi(f, BIT(f->smmu.cmdq.q.shift));
	fpt_v3_fake_refuse_cerror(f, 0, 2, FPT_CERROR_ABT);
	return f;
}

/*
 * What smmuv3_cmdq_submit() then smmuv3_cmdq_sync() would do, submit_sync
 * does: a command it had to drop is a loss, and its CMD_SYNC is still
 * queued and waited for with a bound of its own, so that the loss is
 * recovered from (CFGI_ALL, TLBI_NSNH_ALL, each completed) before it
 * answers 0; it does not fail a caller whose SMMU went on.
 */
static void dropped_command_still_synced_and_recovered(struct kunit *test)
{
	struct fpt_v3_fake *f = fpt_full_behind_abort(test);
	struct smmuv3_cmdq *cmdq = &f->smmu.cmdq;
	u64 cmd[CMD_DWORDS];

	smmuv3_cmd_tlbi_nh_va(cmd, 1, FPT_IOVA, true);
	KUNIT_EXPECT_EQ(test, smmuv3_cmdq_submit_sync(cmdq, cmd, 1), 0);
	KUNIT_EXPECT_EQ(test, cmdq->nlost, 1);
	KUNIT_EXPECT_EQ(test, cmdq->recovered, cmdq->nlost);
	KUNIT_EXPECT_EQ(test, cmdq->cons, cmdq->prod);
	KUNIT_EXPECT_EQ(test, f->cfgi, 1);
	/* The ring's, and TLBI_NSNH_ALL: the dropped one never written. */
	KUNIT_EXPECT_EQ(test, f->tlbi, BIT(cmdq->q.shift) + 1);
	KUNIT_EXPECT_EQ(test, fpt_v3_fake_active_gerror(f), 0);
}

/*
 * The same through a strict 4K unmap under va, whose leaf path sends its
 * TLBI and CMD_SYNC in one call: its TLBI dropped, the sync still
 * completes and recovers (TLBI_NSNH_ALL) before iotlb_sync returns, so
 * no sync fails and the freed page has no TLB entry left.
 */
static void dropped_leaf_tlbi_recovered_by_its_sync(struct kunit *test)
{
	struct fpt_rig *rig = fpt_fake_rig(test, 4);
	struct fpt_v3_fake *f = fpt_rig_fake;
	struct smmuv3_cmdq *cmdq = &f->smmu.cmdq;

	KUNIT_ASSERT_EQ(test, fpt_map(rig, FPT_IOVA, SZ_4K, SZ_4K), 0);
	fpm_access_range(&rig->mc, FPT_IOVA, SZ_4K);
	cmdq->timeout_us = 100;
	fpt_v3_fake_set(f, 1);
	fpt_cmdq_tlbi(f, BIT(cmdq->q.shift));
	fpt_v3_fake_refuse_cerror(f, 0, 2, FPT_CERROR_ABT);
	KUNIT_EXPECT_EQ(test, fpt_unmap(rig, FPT_IOVA, SZ_4K, false), SZ_4K);
	KUNIT_EXPECT_EQ(test, cmdq->nlost, 1);
	KUNIT_EXPECT_EQ(test, cmdq->recovered, cmdq->nlost);
	KUNIT_EXPECT_EQ(test, fp_context_stat(rig->ctx, FP_STAT_SYNC_TIMEOUTS),
			0);
	KUNIT_EXPECT_EQ(test, fpm_stale_entries(&rig->mc), 0);
}

/* Each command submit_sync could not queue is a loss of its own. */
static void dropped_tail_counted_per_command(struct kunit *test)
{
	struct fpt_v3_fake *f = fpt_full_behind_abort(test);
	struct smmuv3_cmdq *cmdq = &f->smmu.cmdq;
	u64 cmds[3 * CMD_DWORDS];
	unsigned int i;

	for (i = 0; i < 3; i++)
		smmuv3_cmd_tlbi_nh_va(&cmds[i * CMD_DWORDS], 1,
				      FPT_IOVA + i * SZ_4K, true);
	smmuv3_cmdq_submit_sync(cmdq, cmds, 3);
	KUNIT_EXPECT_EQ(test, cmdq->nlost, 3);
	KUNIT_EXPECT_EQ(test, f->tlbi, BIT(cmdq->q.shift) + 1);
}

/*
 * A second CPU at an exact point.  The queue's register seam is wrapped:
 * "another CPU waits for the lock" is answered yes @contended times, and
 * at the first back-off step after that @second runs, on this thread:
 * what that CPU does once it has the lock.  @each runs at every back-off
 * step after that, but not at the steps of a queue call it makes itself:
 * other CPUs' work while the caller waits.  With @sleep, every back-off
 * step sleeps, so that threads waiting in the queue take turns on one CPU
 * (the callers are kthreads holding no lock there).
 */
struct fpt_share {
	struct fpt_v3_fake *f;
	const struct smmuv3_cmdq_impl *inner;
	unsigned int contended;
	void (*second)(struct fpt_share *s);
	void (*each)(struct fpt_share *s);
	unsigned int steps;	/* @each's calls left (it stops at 0) */
	bool ran, sleep, in_each;
	struct task_struct *cpus[4];	/* each a CPU of its own, else CPU 0 */
	int ret2;
	unsigned long syncs2;	/* CMD_SYNCs consumed when @second's call returned */
	u64 published2;		/* CMDQ_PROD's position when @second ran */
	unsigned long prod_writes;	/* CMDQ_PROD writes, ever */
	unsigned long prod_locked;	/* ...of them with the queue lock held */
	unsigned long prod_held;	/* ...while another CPU was writing it */
	/* At a CMDQ_CONS read (not its own calls'), and at a CMDQ_PROD write. */
	void (*at_cons)(struct fpt_share *s);
	void (*at_prod)(struct fpt_share *s);
	bool in_reg;
	unsigned int calls;	/* @at_cons's or @at_prod's, counted by it */
	u32 flag_seen;		/* the publishing flag when it acted */
	unsigned long delays_seen;	/* the fake's back-off steps then */
};

static struct fpt_share *fpt_share_cur;

static u32 fpt_share_read(struct smmuv3_cmdq *cmdq, unsigned int off)
{
	struct fpt_share *s = fpt_share_cur;

	if (off == SMMUV3_CMDQ_CONS && s->at_cons && !s->in_reg) {
		s->in_reg = true;
		s->at_cons(s);
		s->in_reg = false;
	}
	return s->inner->read_reg(cmdq, off);
}

static void fpt_share_write(struct smmuv3_cmdq *cmdq, unsigned int off,
			    u32 val)
{
	struct fpt_share *s = fpt_share_cur;

	if (off == SMMUV3_CMDQ_PROD) {
		s->prod_writes++;
		if (raw_spin_is_locked(&cmdq->lock))
			s->prod_locked++;
		if (s->at_prod && !s->in_reg) {
			s->in_reg = true;
			s->at_prod(s);
			s->in_reg = false;
		}
	}
	s->inner->write_reg(cmdq, off, val);
}

static u64 fpt_share_now(struct smmuv3_cmdq *cmdq)
{
	return fpt_share_cur->inner->now(cmdq);
}

static void fpt_share_delay(struct smmuv3_cmdq *cmdq)
{
	struct fpt_share *s = fpt_share_cur;

	s->inner->delay(cmdq);
	if (s->sleep)
		usleep_range(1000, 2000);
	if (s->second && !s->ran) {
		s->ran = true;
		s->second(s);
	} else if (s->each && s->steps && !s->in_each) {
		s->steps--;
		s->in_each = true;
		s->each(s);
		s->in_each = false;
	}
}

static bool fpt_share_contended(struct smmuv3_cmdq *cmdq)
{
	struct fpt_share *s = fpt_share_cur;

	if (!s->contended)
		return false;
	s->contended--;
	return true;
}

/*
 * Threads that take turns on one CPU (UML has one) as if each ran on a
 * CPU of its own: what a caller is told of where it runs.
 */
static unsigned int fpt_share_cpu(struct smmuv3_cmdq *cmdq)
{
	struct fpt_share *s = fpt_share_cur;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(s->cpus); i++)
		if (s->cpus[i] == current)
			return i + 1;
	return 0;
}

static const struct smmuv3_cmdq_impl fpt_share_impl = {
	.read_reg	= fpt_share_read,
	.write_reg	= fpt_share_write,
	.delay		= fpt_share_delay,
	.now		= fpt_share_now,
	.contended	= fpt_share_contended,
	.cpu		= fpt_share_cpu,
};

static struct fpt_share *fpt_share_on(struct kunit *test,
				      struct fpt_v3_fake *f)
{
	struct fpt_share *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, s);
	s->f = f;
	s->inner = f->smmu.cmdq.impl;
	fpt_share_cur = s;
	f->smmu.cmdq.impl = &fpt_share_impl;
	return s;
}

static int fpt_share_leaf(struct fpt_v3_fake *f, unsigned long iova)
{
	u64 cmd[CMD_DWORDS];

	smmuv3_cmd_tlbi_nh_va(cmd, 1, iova, true);
	return smmuv3_cmdq_ops.submit_sync(&f->smmu, cmd, 1);
}

/* The second CPU's strict 4K unmap: its TLBI and CMD_SYNC, waited for. */
static void fpt_second_leaf(struct fpt_share *s)
{
	s->ret2 = fpt_share_leaf(s->f, FPT_IOVA + SZ_4K);
	s->syncs2 = s->f->syncs;
}

static bool fpt_ops_are(struct fpt_v3_fake *f, u64 from, const u8 *want,
			unsigned int n)
{
	unsigned int i;

	if (f->smmu.cmdq.prod - from != n)
		return false;
	for (i = 0; i < n; i++)
		if ((fpt_v3_fake_slot(f, from + i) & 0xff) != want[i])
			return false;
	return true;
}

/*
 * Two CPUs unmap 4K each.  The first writes its TLBI while the second
 * waits for the lock: it leaves the CMD_SYNC to the second, whose
 * CMD_SYNC after both TLBIs completes both.  One CMD_SYNC in all, and
 * each caller answers 0 only once it completed.
 */
static void fpt_two_share(struct kunit *test, unsigned int per_poll)
{
	static const u8 want[] = {
		CMD_OP_TLBI_NH_VA, CMD_OP_TLBI_NH_VA, CMD_OP_SYNC,
	};
	struct fpt_v3_fake *f = fpt_cmdq_fake(test, 6, per_poll);
	struct fpt_share *s = fpt_share_on(test, f);

	s->contended = 1;
	s->second = fpt_second_leaf;
	KUNIT_EXPECT_EQ(test, fpt_share_leaf(f, FPT_IOVA), 0);
	KUNIT_EXPECT_TRUE(test, s->ran);
	KUNIT_EXPECT_EQ(test, s->ret2, 0);
	KUNIT_EXPECT_EQ(test, s->syncs2, 1);
	KUNIT_EXPECT_EQ(test, f->syncs, 1);
	KUNIT_EXPECT_EQ(test, f->tlbi, 2);
	KUNIT_EXPECT_TRUE(test, fpt_ops_are(f, 0, want, ARRAY_SIZE(want)));
	KUNIT_EXPECT_EQ(test, f->smmu.cmdq.cons, f->smmu.cmdq.prod);
	KUNIT_EXPECT_EQ(test, f->smmu.cmdq.fallbacks, 0);
	KUNIT_EXPECT_EQ(test, f->smmu.cmdq.nlost, 0);
}

/* An SMMU that reads all at once, and one that stops between commands. */
static void two_callers_share_one_cmd_sync(struct kunit *test)
{
	fpt_two_share(test, 64);
	fpt_two_share(test, 1);
}

/*
 * The second CPU only submits (no sync of its own): it still writes the
 * CMD_SYNC it inherited, and returns without waiting; the SMMU then
 * pauses.  The first caller must wait for that CMD_SYNC to complete, not
 * only to be written.
 */
static void fpt_second_submit_then_stall(struct fpt_share *s)
{
	u64 cmd[CMD_DWORDS];

	smmuv3_cmd_tlbi_nh_va(cmd, 1, FPT_IOVA + SZ_4K, true);
	smmuv3_cmdq_ops.submit(&s->f->smmu, cmd, 1);
	fpt_v3_fake_stall(s->f, 20);
}

static void fpt_sharer_waits(struct kunit *test, unsigned int per_poll)
{
	static const u8 want[] = {
		CMD_OP_TLBI_NH_VA, CMD_OP_TLBI_NH_VA, CMD_OP_SYNC,
	};
	struct fpt_v3_fake *f = fpt_cmdq_fake(test, 6, per_poll);
	struct fpt_share *s = fpt_share_on(test, f);

	s->contended = 1;
	s->second = fpt_second_submit_then_stall;
	KUNIT_EXPECT_EQ(test, fpt_share_leaf(f, FPT_IOVA), 0);
	KUNIT_EXPECT_TRUE(test, s->ran);
	/* Consumed, so completed, before the caller was answered. */
	KUNIT_EXPECT_EQ(test, f->syncs, 1);
	KUNIT_EXPECT_EQ(test, f->smmu.cmdq.cons, 3);
	KUNIT_EXPECT_TRUE(test, fpt_ops_are(f, 0, want, ARRAY_SIZE(want)));
	KUNIT_EXPECT_EQ(test, f->smmu.cmdq.fallbacks, 0);
}

static void sharer_waits_for_shared_sync_to_complete(struct kunit *test)
{
	fpt_sharer_waits(test, 64);
	fpt_sharer_waits(test, 1);
}

/*
 * No other CPU waits for the lock: a caller writes its own CMD_SYNC in the
 * same hold as its TLBI and waits for nothing else (the fake answers at
 * once: no back-off step).  Left to a CPU that is not there, it would wait
 * for a CMD_SYNC nobody writes.  A sync alone after a CMD_SYNC already in
 * the queue writes none: the one there completes everything before it.
 */
static void lone_caller_writes_its_own_sync(struct kunit *test)
{
	static const u8 want[] = {
		CMD_OP_TLBI_NH_VA, CMD_OP_SYNC, CMD_OP_TLBI_NH_VA, CMD_OP_SYNC,
	};
	struct fpt_v3_fake *f = fpt_cmdq_fake(test, 6, 64);
	struct smmuv3_cmdq *cmdq = &f->smmu.cmdq;

	fpt_share_on(test, f);
	KUNIT_EXPECT_EQ(test, fpt_share_leaf(f, FPT_IOVA), 0);
	fpt_cmdq_tlbi(f, 1);
	KUNIT_EXPECT_EQ(test, fpt_cmdq_sync(f), 0);
	KUNIT_EXPECT_EQ(test, fpt_cmdq_sync(f), 0);
	KUNIT_EXPECT_TRUE(test, fpt_ops_are(f, 0, want, ARRAY_SIZE(want)));
	KUNIT_EXPECT_EQ(test, f->syncs, 2);
	KUNIT_EXPECT_EQ(test, f->delays, 0);
	KUNIT_EXPECT_EQ(test, cmdq->fallbacks, 0);
	KUNIT_EXPECT_EQ(test, cmdq->cons, cmdq->prod);
}

/*
 * The CMD_SYNC two callers share times out for the second (the SMMU
 * wedged while it waited), and the SMMU then moves again.  The second
 * answers -ETIMEDOUT, counted; the first sees the CMD_SYNC complete, but
 * a loss is counted: it answers 0 only after a recovery, in order, after
 * the shared CMD_SYNC.
 */
static void fpt_second_times_out(struct fpt_share *s)
{
	fpt_v3_fake_set(s->f, 0);
	fpt_second_leaf(s);
	fpt_v3_fake_set(s->f, 64);
}

static void shared_sync_timeout_is_a_loss_for_each(struct kunit *test)
{
	static const u8 want[] = {
		CMD_OP_TLBI_NH_VA, CMD_OP_TLBI_NH_VA, CMD_OP_SYNC,
		CMD_OP_CFGI_ALL, CMD_OP_SYNC, CMD_OP_TLBI_NSNH_ALL,
		CMD_OP_SYNC,
	};
	struct fpt_v3_fake *f = fpt_cmdq_fake(test, 6, 64);
	struct fpt_share *s = fpt_share_on(test, f);
	struct smmuv3_cmdq *cmdq = &f->smmu.cmdq;

	s->contended = 1;
	s->second = fpt_second_times_out;
	KUNIT_EXPECT_EQ(test, fpt_share_leaf(f, FPT_IOVA), 0);
	KUNIT_EXPECT_TRUE(test, s->ran);
	KUNIT_EXPECT_EQ(test, s->ret2, -ETIMEDOUT);
	KUNIT_EXPECT_EQ(test, cmdq->nlost, 1);
	KUNIT_EXPECT_EQ(test, cmdq->recovered, 1);
	KUNIT_EXPECT_TRUE(test, fpt_ops_are(f, 0, want, ARRAY_SIZE(want)));
	KUNIT_EXPECT_EQ(test, cmdq->cons, cmdq->prod);

	/*
	 * Wedged for both: each counts the loss and answers -ETIMEDOUT;
	 * the next sync recovers once.
	 */
	s->contended = 1;
	s->ran = false;
	s->second = fpt_second_leaf;
	fpt_v3_fake_set(f, 0);
	KUNIT_EXPECT_EQ(test, fpt_share_leaf(f, FPT_IOVA), -ETIMEDOUT);
	KUNIT_EXPECT_EQ(test, s->ret2, -ETIMEDOUT);
	KUNIT_EXPECT_EQ(test, cmdq->nlost, 3);
	fpt_v3_fake_set(f, 64);
	KUNIT_EXPECT_EQ(test, fpt_cmdq_sync(f), 0);
	KUNIT_EXPECT_EQ(test, fpt_count_op(f, CMD_OP_CFGI_ALL), 2);
	KUNIT_EXPECT_EQ(test, cmdq->recovered, 3);
}

/*
 * MMU-700 (erratum 2812531) with sharing: the first CPU leaves its
 * CMD_SYNC to the second, whose command is a CFGI_STE: the window of the
 * first's TLBI still ends with a CMD_SYNC before it, one kind per window.
 */
static void fpt_second_cfgi(struct fpt_share *s)
{
	u64 cmd[CMD_DWORDS];

	smmuv3_cmd_cfgi_ste(cmd, 1);
	s->ret2 = smmuv3_cmdq_ops.submit_sync(&s->f->smmu, cmd, 1);
}

static void erratum_2812531_windows_kept_when_sharing(struct kunit *test)
{
	static const u8 want[] = {
		CMD_OP_TLBI_NH_VA, CMD_OP_SYNC, CMD_OP_CFGI_STE, CMD_OP_SYNC,
	};
	struct fpt_v3_fake *f = fpt_cmdq_fake(test, 6, 64);
	struct fpt_share *s = fpt_share_on(test, f);

	f->mmu700 = true;
	f->smmu.cmdq.force_sync_after = 63;
	s->contended = 1;
	s->second = fpt_second_cfgi;
	KUNIT_EXPECT_EQ(test, fpt_share_leaf(f, FPT_IOVA), 0);
	KUNIT_EXPECT_TRUE(test, s->ran);
	KUNIT_EXPECT_EQ(test, s->ret2, 0);
	KUNIT_EXPECT_EQ(test, f->mixed, 0);
	KUNIT_EXPECT_TRUE(test, fpt_ops_are(f, 0, want, ARRAY_SIZE(want)));
	KUNIT_EXPECT_EQ(test, f->smmu.cmdq.fallbacks, 0);
}

/* The SMMU pauses once it has consumed a CFGI_ALL: a recovery is slow. */
static void fpt_stall_at_cfgi_all(struct fpt_v3_fake *f, u64 pos,
				  const u64 *cmd, bool refused)
{
	if ((cmd[0] & 0xff) == CMD_OP_CFGI_ALL && !refused)
		f->stall_until = f->delays + 20;
}

static const struct fpt_v3_hooks fpt_stall_at_cfgi_all_hooks = {
	.consume = fpt_stall_at_cfgi_all,
};

#define FPT_FLIGHT_THREADS	3

struct fpt_flight {
	struct fpt_v3_fake *f;
	unsigned int id;
	struct completion done;
	int ret;
};

static int fpt_flight_fn(void *data)
{
	struct fpt_flight *t = data;

	t->ret = fpt_share_leaf(t->f, FPT_IOVA + t->id * SZ_4K);
	complete(&t->done);
	return 0;
}

/*
 * Three losses, then three callers whose syncs complete together, while
 * the recovery is slow (the SMMU pauses at its CFGI_ALL; each back-off
 * step sleeps, so the others run meanwhile).  One recovers; the others
 * wait for it, and it covers them: one CFGI_ALL and one TLBI_NSNH_ALL in
 * all, and each answers 0.
 */
static void losses_recovered_once_for_all_waiters(struct kunit *test)
{
	struct fpt_v3_fake *f = fpt_cmdq_fake(test, 6, 64);
	struct fpt_share *s = fpt_share_on(test, f);
	struct smmuv3_cmdq *cmdq = &f->smmu.cmdq;
	struct fpt_flight *t = kunit_kcalloc(test, FPT_FLIGHT_THREADS,
					     sizeof(*t), GFP_KERNEL);
	struct task_struct *task;
	unsigned int i, waited;

	KUNIT_ASSERT_NOT_NULL(test, t);
	s->sleep = true;
	cmdq->timeout_us = 100000;
	WRITE_ONCE(cmdq->nlost, 3);
	fpt_v3_fake_set(f, 0);
	for (i = 0; i < FPT_FLIGHT_THREADS; i++) {
		t[i] = (struct fpt_flight){ .f = f, .id = i };
		init_completion(&t[i].done);
		task = kthread_create(fpt_flight_fn, &t[i], "fp-flight-%u", i);
		if (IS_ERR(task)) {
			t[i].ret = PTR_ERR(task);
			complete(&t[i].done);
			continue;
		}
		/* Each as if on a CPU of its own: they wait for each other. */
		s->cpus[i] = task;
		wake_up_process(task);
	}
	/* Every caller's TLBI and CMD_SYNC written before the SMMU moves. */
	for (waited = 0; READ_ONCE(cmdq->prod) < 2 * FPT_FLIGHT_THREADS &&
	     waited < 5000; waited++)
		usleep_range(1000, 2000);
	KUNIT_EXPECT_EQ(test, READ_ONCE(cmdq->prod), 2 * FPT_FLIGHT_THREADS);
	f->hooks = &fpt_stall_at_cfgi_all_hooks;
	fpt_v3_fake_set(f, 64);
	for (i = 0; i < FPT_FLIGHT_THREADS; i++) {
		wait_for_completion(&t[i].done);
		KUNIT_EXPECT_EQ(test, t[i].ret, 0);
	}
	KUNIT_EXPECT_EQ(test, fpt_count_op(f, CMD_OP_CFGI_ALL), 1);
	KUNIT_EXPECT_EQ(test, fpt_count_op(f, CMD_OP_TLBI_NSNH_ALL), 1);
	KUNIT_EXPECT_EQ(test, cmdq->recovered, 3);
	KUNIT_EXPECT_EQ(test, cmdq->recovering, 0);
	KUNIT_EXPECT_EQ(test, cmdq->cons, cmdq->prod);
}

/*
 * The CPU that was to write the CMD_SYNC a caller left to it never takes
 * the lock (it gave up waiting, or was interrupted for long): after its
 * brief wait the caller writes its own, counted as a fallback, and
 * answers 0 once that one completed.
 */
static void owed_sync_written_by_caller_when_nobody_comes(struct kunit *test)
{
	static const u8 want[] = { CMD_OP_TLBI_NH_VA, CMD_OP_SYNC };
	struct fpt_v3_fake *f = fpt_cmdq_fake(test, 6, 64);
	struct fpt_share *s = fpt_share_on(test, f);
	struct smmuv3_cmdq *cmdq = &f->smmu.cmdq;

	s->contended = 1;
	KUNIT_EXPECT_EQ(test, fpt_share_leaf(f, FPT_IOVA), 0);
	KUNIT_EXPECT_EQ(test, cmdq->fallbacks, 1);
	KUNIT_EXPECT_EQ(test, f->syncs, 1);
	KUNIT_EXPECT_TRUE(test, fpt_ops_are(f, 0, want, ARRAY_SIZE(want)));
	KUNIT_EXPECT_EQ(test, cmdq->cons, cmdq->prod);
	KUNIT_EXPECT_EQ(test, cmdq->nlost, 0);
}

/*
 * A chain: the first caller leaves its CMD_SYNC to a second CPU, which
 * submits 20 commands while a third waits for the lock, and that third
 * never comes.  Past SMMUV3_CMDQ_SHARE_MAX commands the second writes the
 * CMD_SYNC itself rather than hand the duty on: the first shares it, and
 * nobody falls back.
 */
#define FPT_CHAIN_CMDS	20

static void fpt_second_submits_many(struct fpt_share *s)
{
	u64 cmds[FPT_CHAIN_CMDS * CMD_DWORDS];
	unsigned int i;

	for (i = 0; i < FPT_CHAIN_CMDS; i++)
		smmuv3_cmd_tlbi_nh_va(&cmds[i * CMD_DWORDS], 1,
				      FPT_IOVA + (i + 1) * SZ_4K, true);
	smmuv3_cmdq_ops.submit(&s->f->smmu, cmds, FPT_CHAIN_CMDS);
}

static void shared_window_capped_when_duty_is_handed_on(struct kunit *test)
{
	struct fpt_v3_fake *f = fpt_cmdq_fake(test, 6, 64);
	struct fpt_share *s = fpt_share_on(test, f);
	struct smmuv3_cmdq *cmdq = &f->smmu.cmdq;

	s->contended = 2;
	s->second = fpt_second_submits_many;
	KUNIT_EXPECT_EQ(test, fpt_share_leaf(f, FPT_IOVA), 0);
	KUNIT_EXPECT_TRUE(test, s->ran);
	KUNIT_EXPECT_EQ(test, cmdq->fallbacks, 0);
	KUNIT_EXPECT_EQ(test, f->syncs, 1);
	KUNIT_EXPECT_EQ(test, fpt_count_op(f, CMD_OP_TLBI_NH_VA),
			FPT_CHAIN_CMDS + 1);
	KUNIT_EXPECT_EQ(test, cmdq->prod, FPT_CHAIN_CMDS + 2);
	KUNIT_EXPECT_EQ(test, cmdq->cons, cmdq->prod);
}

/*
 * The SMMU refuses the first caller's TLBI, in a window whose CMD_SYNC a
 * second CPU wrote and did not wait for (it only submitted).  The first
 * caller skips the refusal as it waits: the shared CMD_SYNC completes, but
 * with a loss, so it invalidates everything, in order, before it answers.
 */
static void fpt_second_submit(struct fpt_share *s)
{
	u64 cmd[CMD_DWORDS];

	smmuv3_cmd_tlbi_nh_va(cmd, 1, FPT_IOVA + SZ_4K, true);
	smmuv3_cmdq_ops.submit(&s->f->smmu, cmd, 1);
}

static void refused_tlbi_under_shared_sync_recovered(struct kunit *test)
{
	static const u8 want[] = {
		CMD_OP_SYNC, CMD_OP_TLBI_NH_VA, CMD_OP_SYNC,
		CMD_OP_CFGI_ALL, CMD_OP_SYNC, CMD_OP_TLBI_NSNH_ALL,
		CMD_OP_SYNC,
	};
	struct fpt_v3_fake *f = fpt_cmdq_fake(test, 6, 64);
	struct fpt_share *s = fpt_share_on(test, f);
	struct smmuv3_cmdq *cmdq = &f->smmu.cmdq;

	fpt_v3_fake_refuse_tlbi(f, 1);
	s->contended = 1;
	s->second = fpt_second_submit;
	KUNIT_EXPECT_EQ(test, fpt_share_leaf(f, FPT_IOVA), 0);
	KUNIT_EXPECT_TRUE(test, s->ran);
	KUNIT_EXPECT_EQ(test, f->refused, 1);
	KUNIT_EXPECT_EQ(test, cmdq->nlost, 1);
	KUNIT_EXPECT_EQ(test, cmdq->recovered, 1);
	/* The refused TLBI's slot holds the CMD_SYNC that replaced it. */
	KUNIT_EXPECT_TRUE(test, fpt_ops_are(f, 0, want, ARRAY_SIZE(want)));
	KUNIT_EXPECT_EQ(test, cmdq->cons, cmdq->prod);
}

/* @recovering as a CPU other than this one, and no CPU there is, holds it. */
#define FPT_RECOVERING_ELSEWHERE	U32_MAX

/*
 * Another CPU holds the recovery (@recovering) and is off the CPU; other
 * CPUs keep the SMMU busy, CMDQ_CONS moving at every step, for five
 * bounds.  A caller whose sync completed with a loss not yet recovered
 * from waits one bound of time for that recovery, not as long as CMDQ_CONS
 * moves, then recovers on its own and answers 0.
 */
static void fpt_each_half_queue(struct fpt_share *s)
{
	u64 cmd[CMD_DWORDS];
	unsigned int i;

	for (i = 0; i < BIT(s->f->smmu.cmdq.q.shift) / 2; i++) {
		smmuv3_cmd_tlbi_nh_va(cmd, 2, FPT_IOVA + i * SZ_4K, true);
		smmuv3_cmdq_ops.submit(&s->f->smmu, cmd, 1);
	}
}

static void recovery_wait_bounded_while_queue_moves(struct kunit *test)
{
	struct fpt_v3_fake *f = fpt_cmdq_fake(test, 6, 64);
	struct fpt_share *s = fpt_share_on(test, f);
	struct smmuv3_cmdq *cmdq = &f->smmu.cmdq;

	WRITE_ONCE(cmdq->nlost, 1);
	WRITE_ONCE(cmdq->recovering, FPT_RECOVERING_ELSEWHERE);
	s->each = fpt_each_half_queue;
	s->steps = 5 * cmdq->timeout_us;
	KUNIT_EXPECT_EQ(test, fpt_share_leaf(f, FPT_IOVA), 0);
	kunit_info(test, "waited %lu steps, bound %lu; traffic left %u\n",
		   f->delays, cmdq->timeout_us, s->steps);
	KUNIT_EXPECT_LE(test, f->delays, cmdq->timeout_us + 1);
	KUNIT_EXPECT_GT(test, s->steps, 0);
	/* The ring wrapped many times: the fake's own count. */
	KUNIT_EXPECT_EQ(test, f->cfgi, 1);
	KUNIT_EXPECT_EQ(test, cmdq->recovered, 1);
	WRITE_ONCE(cmdq->recovering, 0);
	s->steps = 0;
	KUNIT_EXPECT_EQ(test, fpt_cmdq_sync(f), 0);
	KUNIT_EXPECT_EQ(test, cmdq->cons, cmdq->prod);
}

/*
 * The same preempted recovery; while the caller waits for it, a third
 * CPU, which came later and waited a whole bound itself, recovers on its
 * own.  That recovery began after the caller's losses: the caller answers
 * 0 as soon as it completed, and writes no recovery of its own.
 */
static void fpt_each_third_recovers(struct fpt_share *s)
{
	s->ret2 = smmuv3_cmdq_ops.sync(&s->f->smmu);
	s->steps = 0;
}

static void recovery_waiter_answers_once_another_covers_it(struct kunit *test)
{
	struct fpt_v3_fake *f = fpt_cmdq_fake(test, 6, 64);
	struct fpt_share *s = fpt_share_on(test, f);
	struct smmuv3_cmdq *cmdq = &f->smmu.cmdq;

	WRITE_ONCE(cmdq->nlost, 1);
	WRITE_ONCE(cmdq->recovering, FPT_RECOVERING_ELSEWHERE);
	s->each = fpt_each_third_recovers;
	s->steps = 1;
	KUNIT_EXPECT_EQ(test, fpt_share_leaf(f, FPT_IOVA), 0);
	KUNIT_EXPECT_EQ(test, s->ret2, 0);
	KUNIT_EXPECT_EQ(test, fpt_count_op(f, CMD_OP_CFGI_ALL), 1);
	KUNIT_EXPECT_EQ(test, fpt_count_op(f, CMD_OP_TLBI_NSNH_ALL), 1);
	KUNIT_EXPECT_EQ(test, cmdq->recovered, 1);
	WRITE_ONCE(cmdq->recovering, 0);
	KUNIT_EXPECT_EQ(test, cmdq->cons, cmdq->prod);
}

/*
 * A sync comes in on top of the recovery on the same CPU (an interrupt,
 * a softirq, a thread of higher priority on PREEMPT_RT): the recovery
 * cannot go on until it returns, so it must not wait for it.  The SMMU
 * is slow (it pauses at every CFGI_ALL), and the second call runs at the
 * recovery's first back-off step: it recovers on its own at once, in a
 * few steps, not a bound.
 */
static void fpt_second_nested_leaf(struct fpt_share *s)
{
	unsigned long d0 = s->f->delays;

	s->ret2 = fpt_share_leaf(s->f, FPT_IOVA + SZ_4K);
	s->syncs2 = s->f->delays - d0;
}

static void sync_on_top_of_recovery_does_not_wait_for_it(struct kunit *test)
{
	struct fpt_v3_fake *f = fpt_cmdq_fake(test, 6, 64);
	struct fpt_share *s = fpt_share_on(test, f);
	struct smmuv3_cmdq *cmdq = &f->smmu.cmdq;

	WRITE_ONCE(cmdq->nlost, 1);
	f->hooks = &fpt_stall_at_cfgi_all_hooks;
	s->second = fpt_second_nested_leaf;
	KUNIT_EXPECT_EQ(test, fpt_share_leaf(f, FPT_IOVA), 0);
	KUNIT_EXPECT_TRUE(test, s->ran);
	KUNIT_EXPECT_EQ(test, s->ret2, 0);
	kunit_info(test, "the nested sync waited %lu steps, bound %lu\n",
		   s->syncs2, cmdq->timeout_us);
	KUNIT_EXPECT_LT(test, s->syncs2, cmdq->timeout_us / 10);
	KUNIT_EXPECT_EQ(test, cmdq->recovered, 1);
	KUNIT_EXPECT_EQ(test, cmdq->recovering, 0);
	KUNIT_EXPECT_EQ(test, cmdq->cons, cmdq->prod);
}

/*
 * A caller that leaves its CMD_SYNC to another CPU still moves CMDQ_PROD
 * past its commands before it waits: the SMMU performs them while the
 * CMD_SYNC is written, and nothing it wrote waits for the next holder to
 * be published (on MMU-700, a window's CMD_SYNC it inserted).
 */
static void fpt_second_sees_published(struct fpt_share *s)
{
	s->published2 = READ_ONCE(s->f->smmu.cmdq.published);
	fpt_second_leaf(s);
}

static void sharer_publishes_before_it_waits(struct kunit *test)
{
	struct fpt_v3_fake *f = fpt_cmdq_fake(test, 6, 64);
	struct fpt_share *s = fpt_share_on(test, f);

	s->contended = 1;
	s->second = fpt_second_sees_published;
	KUNIT_EXPECT_EQ(test, fpt_share_leaf(f, FPT_IOVA), 0);
	KUNIT_EXPECT_TRUE(test, s->ran);
	/* Its TLBI was past CMDQ_PROD when the other CPU took the lock. */
	KUNIT_EXPECT_EQ(test, s->published2, 1);
	KUNIT_EXPECT_EQ(test, s->ret2, 0);
	KUNIT_EXPECT_EQ(test, f->syncs, 1);
	KUNIT_EXPECT_EQ(test, f->smmu.cmdq.cons, f->smmu.cmdq.prod);
}

/*
 * CMDQ_PROD is written with the queue's lock free: in a VM the write traps
 * and, in QEMU, runs the SMMU's whole consumer, and CPUs waiting for the
 * lock meanwhile spin on the host CPUs the writer needs
 * (bench/results/lock-wait-experiment.md).  A lone 4K unmap, a submit
 * then a sync, and two callers sharing one CMD_SYNC.
 */
static void prod_written_with_no_queue_lock_held(struct kunit *test)
{
	struct fpt_v3_fake *f = fpt_cmdq_fake(test, 6, 64);
	struct fpt_share *s = fpt_share_on(test, f);

	if (!IS_ENABLED(CONFIG_SMP) && !IS_ENABLED(CONFIG_DEBUG_SPINLOCK))
		kunit_skip(test, "raw_spin_is_locked() needs SMP or DEBUG_SPINLOCK");
	KUNIT_EXPECT_EQ(test, fpt_share_leaf(f, FPT_IOVA), 0);
	fpt_cmdq_tlbi(f, 2);
	KUNIT_EXPECT_EQ(test, fpt_cmdq_sync(f), 0);
	s->contended = 1;
	s->second = fpt_second_leaf;
	KUNIT_EXPECT_EQ(test, fpt_share_leaf(f, FPT_IOVA), 0);
	KUNIT_EXPECT_TRUE(test, s->ran);
	KUNIT_EXPECT_EQ(test, s->ret2, 0);
	KUNIT_EXPECT_EQ(test, f->syncs, 3);
	KUNIT_EXPECT_GE(test, s->prod_writes, 3);
	KUNIT_EXPECT_EQ(test, s->prod_locked, 0);
	KUNIT_EXPECT_EQ(test, f->smmu.cmdq.cons, f->smmu.cmdq.prod);
}

/*
 * Another CPU is writing CMDQ_PROD (it read the queue's end before our
 * commands were written) when ours are: we leave it be, and publish them
 * from our wait once it is done.  Nobody writes CMDQ_PROD meanwhile, or
 * the two writes could reach the SMMU in either order.
 */
static void fpt_other_publisher_done(struct fpt_share *s)
{
	if (s->steps)
		return;
	s->prod_held = s->prod_writes;
	WRITE_ONCE(s->f->smmu.cmdq.publishing, SMMUV3_CMDQ_PUBLISH_FREE);
}

/*
 * Another CPU holds the right to write CMDQ_PROD, and writes none after
 * its own, for @steps back-off steps of our caller.
 */
static struct fpt_share *fpt_prod_held(struct kunit *test,
				       unsigned long steps)
{
	struct fpt_v3_fake *f = fpt_cmdq_fake(test, 6, 64);
	struct fpt_share *s = fpt_share_on(test, f);

	f->smmu.cmdq.publishing = SMMUV3_CMDQ_PUBLISH_ONLY;
	s->each = fpt_other_publisher_done;
	s->steps = steps;
	return s;
}

static void waiter_publishes_what_another_publisher_left(struct kunit *test)
{
	struct fpt_share *s = fpt_prod_held(test, 3);
	struct fpt_v3_fake *f = s->f;

	s->prod_held = ~0UL;
	KUNIT_EXPECT_EQ(test, fpt_share_leaf(f, FPT_IOVA), 0);
	KUNIT_EXPECT_EQ(test, s->steps, 0);
	KUNIT_EXPECT_EQ(test, s->prod_held, 0);
	KUNIT_EXPECT_EQ(test, s->prod_writes, 1);
	KUNIT_EXPECT_EQ(test, f->syncs, 1);
	KUNIT_EXPECT_EQ(test, f->tlbi, 1);
	KUNIT_EXPECT_EQ(test, f->smmu.cmdq.publishing,
			SMMUV3_CMDQ_PUBLISH_FREE);
	KUNIT_EXPECT_EQ(test, f->smmu.cmdq.nlost, 0);
	KUNIT_EXPECT_EQ(test, f->smmu.cmdq.cons, f->smmu.cmdq.prod);
}

/*
 * Callers on CPUs of their own: the first is held inside its CMDQ_PROD
 * write (the SMMU reads its first command) until @until says the others
 * got far enough, or FPT_PROD_HOLD_US; the others start once it is held.
 * The first starts only once every caller runs: with interrupts off on
 * its CPU for the hold, creating the next thread can wait for that CPU
 * (a page allocation draining per-CPU lists runs work there), and that
 * caller would then come only after the hold.
 */
#define FPT_PROD_CALLERS	3
/*
 * Under TCG on a loaded host a vCPU can go unscheduled for a good part of
 * a second: the first caller is held up to 1 s (interrupts off), and the
 * others wait up to 5 s for it to be held, each well inside the 10 s the
 * test waits for every caller.
 */
#define FPT_PROD_HOLD_US	1000000
#define FPT_PROD_START_MS	5000

struct fpt_prod_hold {
	struct fpt_v3_fake *f;
	bool (*until)(struct fpt_prod_hold *h);
	unsigned int n;
	atomic_t holding;
	atomic_t running;
	bool held_once, reached;
	u64 prod;		/* commands written when the write was held */
	unsigned int cpu[FPT_PROD_CALLERS];
	int ret[FPT_PROD_CALLERS];
	struct completion done[FPT_PROD_CALLERS];
};

static void fpt_hold_in_prod_write(struct fpt_v3_fake *f, u64 pos,
				   const u64 *cmd)
{
	struct fpt_prod_hold *h = f->hooks->priv;
	unsigned int i;

	if (h->held_once)
		return;
	h->held_once = true;
	h->prod = READ_ONCE(f->smmu.cmdq.prod);
	atomic_set(&h->holding, 1);
	for (i = 0; i < FPT_PROD_HOLD_US && !h->reached; i++) {
		udelay(1);
		h->reached = h->until(h);
	}
}

static const struct fpt_v3_hooks fpt_prod_hold_hooks = {
	.publish = fpt_hold_in_prod_write,
};

/*
 * A back-off step waits, up to 100 ms, for a CMD_SYNC after every
 * caller's TLBI: a caller's brief wait for a CMD_SYNC left to another CPU
 * is a few steps, which that CPU's vCPU, descheduled by the host, could
 * outlast.  A CMD_SYNC nobody writes still ends the wait, 100 ms later.
 */
static struct fpt_prod_hold *fpt_prod_hold_cur;
static struct smmuv3_cmdq_impl fpt_prod_hold_impl;
static void (*fpt_prod_hold_inner_delay)(struct smmuv3_cmdq *cmdq);

static void fpt_prod_hold_delay(struct smmuv3_cmdq *cmdq)
{
	struct fpt_prod_hold *h = fpt_prod_hold_cur;
	unsigned int i;

	for (i = 0; i < 100000 && READ_ONCE(h->reached) &&
	     READ_ONCE(cmdq->sync_pos) < h->prod + h->n; i++)
		udelay(1);
	fpt_prod_hold_inner_delay(cmdq);
}

struct fpt_prod_hold_arg {
	struct fpt_prod_hold *h;
	unsigned int i;
};

static int fpt_prod_hold_fn(void *data)
{
	struct fpt_prod_hold_arg *a = data;
	struct fpt_prod_hold *h = a->h;
	/* Not jiffies: the tick may be the held CPU's. */
	ktime_t end = ktime_add_ms(ktime_get(), FPT_PROD_START_MS);
	u64 cmd[CMD_DWORDS];

	atomic_inc(&h->running);
	while (!a->i && atomic_read(&h->running) < h->n &&
	       ktime_before(ktime_get(), end))
		usleep_range(100, 200);
	/* The others start once the first is inside its write. */
	while (a->i && !atomic_read(&h->holding) &&
	       ktime_before(ktime_get(), end))
		usleep_range(100, 200);
	smmuv3_cmd_tlbi_nh_va(cmd, 1, FPT_IOVA + a->i * SZ_4K, true);
	h->ret[a->i] = smmuv3_cmdq_ops.submit_sync(&h->f->smmu, cmd, 1);
	complete(&h->done[a->i]);
	return 0;
}

static struct fpt_prod_hold *fpt_prod_hold_run(struct kunit *test,
					       unsigned int n,
					       bool (*until)(struct fpt_prod_hold *))
{
	struct fpt_prod_hold *h = kunit_kzalloc(test, sizeof(*h), GFP_KERNEL);
	struct fpt_prod_hold_arg *a = kunit_kcalloc(test, n, sizeof(*a),
						    GFP_KERNEL);
	struct fpt_v3_hooks *hooks = kunit_kzalloc(test, sizeof(*hooks),
						   GFP_KERNEL);
	struct task_struct *task;
	unsigned int i, cpu, m = 0;

	if (num_online_cpus() < n + 1)
		kunit_skip(test, "needs %u CPUs, one for each caller and the test",
			   n + 1);
	KUNIT_ASSERT_NOT_NULL(test, h);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, hooks);
	for_each_online_cpu(cpu)
		if (cpu != raw_smp_processor_id() && m < n)
			h->cpu[m++] = cpu;
	h->n = n;
	h->until = until;
	h->f = fpt_cmdq_fake(test, 6, 64);
	*hooks = fpt_prod_hold_hooks;
	hooks->priv = h;
	h->f->hooks = hooks;
	fpt_prod_hold_cur = h;
	fpt_prod_hold_impl = *h->f->smmu.cmdq.impl;
	fpt_prod_hold_inner_delay = fpt_prod_hold_impl.delay;
	fpt_prod_hold_impl.delay = fpt_prod_hold_delay;
	h->f->smmu.cmdq.impl = &fpt_prod_hold_impl;
	for (i = 0; i < n; i++) {
		init_completion(&h->done[i]);
		a[i] = (struct fpt_prod_hold_arg){ .h = h, .i = i };
		task = kthread_create(fpt_prod_hold_fn, &a[i], "fp-prod-%u", i);
		KUNIT_ASSERT_FALSE(test, IS_ERR(task));
		kthread_bind(task, h->cpu[i]);
		wake_up_process(task);
	}
	for (i = 0; i < n; i++)
		KUNIT_ASSERT_GT(test, wait_for_completion_timeout(&h->done[i],
								  10 * HZ), 0);
	KUNIT_EXPECT_TRUE(test, h->held_once);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ(test, h->ret[i], 0);
	KUNIT_EXPECT_EQ(test, h->f->tlbi, n);
	KUNIT_EXPECT_EQ(test, h->f->smmu.cmdq.nlost, 0);
	KUNIT_EXPECT_EQ(test, h->f->smmu.cmdq.cons, h->f->smmu.cmdq.prod);
	return h;
}

static bool fpt_other_wrote(struct fpt_prod_hold *h)
{
	return READ_ONCE(h->f->smmu.cmdq.prod) > h->prod;
}

/*
 * Two CPUs: the second writes its TLBI and CMD_SYNC into queue memory
 * while the first is inside its CMDQ_PROD write, where with CMDQ_PROD
 * moved under the lock it would spin on the lock.
 */
static void commands_written_while_another_cpu_writes_prod(struct kunit *test)
{
	struct fpt_prod_hold *h = fpt_prod_hold_run(test, 2, fpt_other_wrote);

	KUNIT_EXPECT_TRUE_MSG(test, h->reached,
			      "no command written while CMDQ_PROD was");
}

static bool fpt_others_owe(struct fpt_prod_hold *h)
{
	struct smmuv3_cmdq *cmdq = &h->f->smmu.cmdq;

	return READ_ONCE(cmdq->publishing) == SMMUV3_CMDQ_PUBLISH_OWED &&
	       READ_ONCE(cmdq->prod) >= h->prod + h->n - 1;
}

/*
 * Three CPUs: the second and third write their TLBIs while the first is
 * inside its CMDQ_PROD write (in QEMU, the SMMU consumes inside it) and
 * leave their CMD_SYNC to it, which writes one for both once its write is
 * done: 2 CMD_SYNCs for 3 unmaps, no caller writing its own, each
 * answered only once its TLBI completed.
 */
static void callers_share_the_cmd_sync_of_the_prod_writer(struct kunit *test)
{
	struct fpt_prod_hold *h = fpt_prod_hold_run(test, FPT_PROD_CALLERS,
						    fpt_others_owe);

	KUNIT_EXPECT_TRUE_MSG(test, h->reached,
			      "the others did not leave their CMD_SYNC to the writer");
	KUNIT_EXPECT_EQ(test, h->f->syncs, 2);
	KUNIT_EXPECT_EQ(test, h->f->smmu.cmdq.fallbacks, 0);
}

/*
 * A CPU that holds the right to write CMDQ_PROD for longer than a bound
 * (a vCPU the host does not run, or one inside a trapped write): CMDQ_CONS
 * stands still because the SMMU has been given nothing, not because it is
 * wedged.  Neither a sync nor a wait for room may time out, mark the queue
 * wedged or drop a command for it; and once the holder is done, a healthy
 * SMMU that takes a few polls to move is waited for.
 */
static void publisher_stall_is_not_a_wedge(struct kunit *test)
{
	struct fpt_share *s = fpt_prod_held(test, 0);
	struct fpt_v3_fake *f = s->f;
	struct smmuv3_cmdq *cmdq = &f->smmu.cmdq;

	s->steps = 2 * cmdq->timeout_us;	/* two bounds */
	KUNIT_EXPECT_EQ(test, fpt_share_leaf(f, FPT_IOVA), 0);
	KUNIT_EXPECT_EQ(test, s->steps, 0);
	KUNIT_EXPECT_EQ(test, cmdq->stuck, 0);
	KUNIT_EXPECT_EQ(test, cmdq->nlost, 0);
	fpt_v3_fake_stall(f, 5);
	KUNIT_EXPECT_EQ(test, fpt_share_leaf(f, FPT_IOVA + SZ_4K), 0);
	KUNIT_EXPECT_EQ(test, f->syncs, 2);
	KUNIT_EXPECT_EQ(test, cmdq->nlost, 0);
}

static void publisher_stall_drops_no_command(struct kunit *test)
{
	struct fpt_share *s = fpt_prod_held(test, 0);
	struct fpt_v3_fake *f = s->f;
	struct smmuv3_cmdq *cmdq = &f->smmu.cmdq;

	s->steps = 2 * cmdq->timeout_us;	/* two bounds */
	fpt_cmdq_tlbi(f, BIT(6) + 1);
	KUNIT_EXPECT_EQ(test, s->steps, 0);
	KUNIT_EXPECT_EQ(test, fpt_cmdq_sync(f), 0);
	KUNIT_EXPECT_EQ(test, f->tlbi, BIT(6) + 1);
	KUNIT_EXPECT_EQ(test, cmdq->nlost, 0);
	KUNIT_EXPECT_EQ(test, cmdq->stuck, 0);
}

/*
 * While the first caller writes CMDQ_PROD, another CPU writes a TLBI and
 * leaves its CMD_SYNC to the writer, as cmdq_publisher_settles() does.
 * Once its write is done, the writer writes one CMD_SYNC after it and
 * publishes it.
 */
static void fpt_left_a_sync(struct fpt_share *s)
{
	struct smmuv3_cmdq *cmdq = &s->f->smmu.cmdq;
	u64 cmd[CMD_DWORDS];

	s->at_prod = NULL;
	smmuv3_cmd_tlbi_nh_va(cmd, 1, FPT_IOVA + SZ_4K, true);
	smmuv3_cmdq_submit(cmdq, cmd, 1);
	s->flag_seen = cmpxchg(&cmdq->publishing, SMMUV3_CMDQ_PUBLISH_SETTLES,
			       SMMUV3_CMDQ_PUBLISH_OWED);
}

static void prod_writer_writes_the_cmd_sync_left_to_it(struct kunit *test)
{
	static const u8 want[] = {
		CMD_OP_TLBI_NH_VA, CMD_OP_SYNC, CMD_OP_TLBI_NH_VA, CMD_OP_SYNC,
	};
	struct fpt_v3_fake *f = fpt_cmdq_fake(test, 6, 64);
	struct smmuv3_cmdq *cmdq = &f->smmu.cmdq;
	struct fpt_share *s = fpt_share_on(test, f);

	s->at_prod = fpt_left_a_sync;
	KUNIT_EXPECT_EQ(test, fpt_share_leaf(f, FPT_IOVA), 0);
	KUNIT_EXPECT_EQ(test, s->flag_seen, SMMUV3_CMDQ_PUBLISH_SETTLES);
	KUNIT_EXPECT_TRUE(test, fpt_ops_are(f, 0, want, ARRAY_SIZE(want)));
	KUNIT_EXPECT_EQ(test, f->syncs, 2);
	KUNIT_EXPECT_EQ(test, cmdq->published, 4);
	KUNIT_EXPECT_EQ(test, cmdq->publishing, SMMUV3_CMDQ_PUBLISH_FREE);
	KUNIT_EXPECT_EQ(test, cmdq->cons, cmdq->prod);
}

/*
 * Callers keep coming, one during each CMDQ_PROD write of a CPU that
 * will write a CMD_SYNC for them, each leaving it theirs: it writes one
 * after each write, and its last write takes no more, so that none is
 * left waiting for a CMD_SYNC it will not write.
 */
static void fpt_arrive_at_each_write(struct fpt_share *s)
{
	struct smmuv3_cmdq *cmdq = &s->f->smmu.cmdq;
	u64 cmd[CMD_DWORDS];

	if (READ_ONCE(cmdq->publishing) != SMMUV3_CMDQ_PUBLISH_SETTLES)
		return;
	smmuv3_cmd_tlbi_nh_va(cmd, 1, FPT_IOVA + SZ_4K * ++s->calls, true);
	smmuv3_cmdq_submit(cmdq, cmd, 1);
	cmpxchg(&cmdq->publishing, SMMUV3_CMDQ_PUBLISH_SETTLES,
		SMMUV3_CMDQ_PUBLISH_OWED);
}

static void prod_writer_takes_no_cmd_sync_it_will_not_write(struct kunit *test)
{
	struct fpt_v3_fake *f = fpt_cmdq_fake(test, 6, 64);
	struct smmuv3_cmdq *cmdq = &f->smmu.cmdq;
	struct fpt_share *s = fpt_share_on(test, f);

	s->at_prod = fpt_arrive_at_each_write;
	KUNIT_EXPECT_EQ(test, fpt_share_leaf(f, FPT_IOVA), 0);
	KUNIT_EXPECT_EQ(test, s->calls, 2);
	/* Every TLBI is followed by a CMD_SYNC: the last command is one. */
	KUNIT_EXPECT_EQ(test, cmdq->sync_pos, cmdq->prod);
	KUNIT_EXPECT_EQ(test, f->syncs, 3);
	KUNIT_EXPECT_EQ(test, cmdq->publishing, SMMUV3_CMDQ_PUBLISH_FREE);
}

/*
 * Another CPU is writing CMDQ_PROD and will write a CMD_SYNC for those
 * who leave it theirs: our caller leaves it its CMD_SYNC, and waits for it
 * in CMDQ_CONS reads, taking no back-off step and writing none of its
 * own.  At the third read that CPU is done: it writes the CMD_SYNC, as a
 * sync of its own would.
 */
static void fpt_writer_done(struct fpt_share *s)
{
	struct smmuv3_cmdq *cmdq = &s->f->smmu.cmdq;

	if (++s->calls < 3)
		return;
	s->at_cons = NULL;
	s->flag_seen = READ_ONCE(cmdq->publishing);
	s->delays_seen = s->f->delays;
	WRITE_ONCE(cmdq->publishing, SMMUV3_CMDQ_PUBLISH_FREE);
	s->ret2 = smmuv3_cmdq_ops.sync(&s->f->smmu);
}

static void caller_leaves_its_cmd_sync_to_the_prod_writer(struct kunit *test)
{
	static const u8 want[] = { CMD_OP_TLBI_NH_VA, CMD_OP_SYNC };
	struct fpt_v3_fake *f = fpt_cmdq_fake(test, 6, 64);
	struct smmuv3_cmdq *cmdq = &f->smmu.cmdq;
	struct fpt_share *s = fpt_share_on(test, f);

	cmdq->publishing = SMMUV3_CMDQ_PUBLISH_SETTLES;
	s->at_cons = fpt_writer_done;
	KUNIT_EXPECT_EQ(test, fpt_share_leaf(f, FPT_IOVA), 0);
	KUNIT_EXPECT_EQ(test, s->calls, 3);
	KUNIT_EXPECT_EQ(test, s->flag_seen, SMMUV3_CMDQ_PUBLISH_OWED);
	KUNIT_EXPECT_EQ(test, s->delays_seen, 0);
	KUNIT_EXPECT_EQ(test, s->ret2, 0);
	KUNIT_EXPECT_EQ(test, f->syncs, 1);
	KUNIT_EXPECT_TRUE(test, fpt_ops_are(f, 0, want, ARRAY_SIZE(want)));
	KUNIT_EXPECT_EQ(test, cmdq->fallbacks, 0);
	KUNIT_EXPECT_EQ(test, cmdq->cons, cmdq->prod);
}

/* A CPU writing CMDQ_PROD that writes no CMD_SYNC after: not left one. */
static void no_cmd_sync_left_to_a_writer_that_writes_none(struct kunit *test)
{
	struct fpt_share *s = fpt_prod_held(test, 3);
	struct fpt_v3_fake *f = s->f;
	struct smmuv3_cmdq *cmdq = &f->smmu.cmdq;

	KUNIT_EXPECT_EQ(test, fpt_share_leaf(f, FPT_IOVA), 0);
	KUNIT_EXPECT_EQ(test, f->syncs, 1);
	KUNIT_EXPECT_EQ(test, cmdq->sync_pos, 2);
	KUNIT_EXPECT_EQ(test, cmdq->fallbacks, 0);
	KUNIT_EXPECT_EQ(test, cmdq->publishing, SMMUV3_CMDQ_PUBLISH_FREE);
}

/*
 * While the first caller writes CMDQ_PROD on a wedged SMMU, another CPU
 * fills the queue with TLBIs and leaves its CMD_SYNC to the writer, which
 * then cannot queue one: it waits one bound for room, counts the CMD_SYNC
 * lost and stops, its flag free, so that the caller that left it writes
 * its own (here, once the SMMU moves again: its sync recovers from the
 * loss and completes every TLBI).  A writer that kept the debt for a
 * CMD_SYNC later, in the flag, would leave that caller waiting on it.
 */
static void fpt_fill_and_leave(struct fpt_share *s)
{
	struct smmuv3_cmdq *cmdq = &s->f->smmu.cmdq;

	s->at_prod = NULL;
	s->calls = BIT(cmdq->q.shift) - (cmdq->prod - cmdq->cons);
	fpt_cmdq_tlbi(s->f, s->calls);
	s->flag_seen = cmpxchg(&cmdq->publishing, SMMUV3_CMDQ_PUBLISH_SETTLES,
			       SMMUV3_CMDQ_PUBLISH_OWED);
}

static void writer_that_cannot_queue_the_cmd_sync_left_owes_none(struct kunit *test)
{
	struct fpt_v3_fake *f = fpt_cmdq_fake(test, 6, 64);
	struct smmuv3_cmdq *cmdq = &f->smmu.cmdq;
	struct fpt_share *s = fpt_share_on(test, f);

	fpt_v3_fake_wedge_after(f, 0);
	s->at_prod = fpt_fill_and_leave;
	KUNIT_EXPECT_EQ(test, fpt_share_leaf(f, FPT_IOVA), -ETIMEDOUT);
	KUNIT_EXPECT_EQ(test, s->flag_seen, SMMUV3_CMDQ_PUBLISH_SETTLES);
	KUNIT_EXPECT_EQ(test, s->calls, 62);
	KUNIT_ASSERT_EQ(test, cmdq->publishing, SMMUV3_CMDQ_PUBLISH_FREE);
	/* The dropped CMD_SYNC, and the first caller's, timed out. */
	KUNIT_EXPECT_EQ(test, cmdq->nlost, 2);
	KUNIT_EXPECT_EQ(test, cmdq->sync_pos, 2);
	KUNIT_EXPECT_EQ(test, cmdq->owe_pos, 0);
	KUNIT_EXPECT_EQ(test, cmdq->published, cmdq->prod);

	fpt_v3_fake_set(f, 64);
	KUNIT_EXPECT_EQ(test, fpt_cmdq_sync(f), 0);
	/* 63 and the recovery's TLBI_NSNH_ALL. */
	KUNIT_EXPECT_EQ(test, f->tlbi, 64);
	KUNIT_EXPECT_EQ(test, cmdq->cons, cmdq->prod);
	KUNIT_EXPECT_EQ(test, cmdq->sync_pos, cmdq->prod);
	KUNIT_EXPECT_EQ(test, cmdq->publishing, SMMUV3_CMDQ_PUBLISH_FREE);
	KUNIT_EXPECT_EQ(test, f->bad, 0);
}

static struct kunit_case fpt_cmdq_cases[] = {
	KUNIT_CASE(refused_tlbi_recovered_by_covering_sync),
	KUNIT_CASE(refused_leaf_tlbi_leaves_nothing_stale),
	KUNIT_CASE(refused_walk_tlbi_frees_no_cached_table),
	KUNIT_CASE(second_cmdq_error_acknowledged),
	KUNIT_CASE(gerror_irq_leaves_cmdq_err_acknowledged),
	KUNIT_CASE(gerror_irq_skips_refused_command),
	KUNIT_CASE(wedged_full_queue_batch_waits_one_bound),
	KUNIT_CASE(install_ste_ignores_unrelated_lost_command),
	KUNIT_CASE(wedged_smmu_one_bound_per_unmap),
	KUNIT_CASE(threads_share_queue_each_sync_completes_own),
	KUNIT_CASE(lost_cfgi_recovery_leaves_no_refill),
	KUNIT_CASE(timed_out_sync_recovered_in_order_leaves_no_refill),
	KUNIT_CASE(fast_leaf_sync_after_loss_recovers_in_order),
	KUNIT_CASE(switch_between_unmap_and_sync_uses_policy_at_sync),
	KUNIT_CASE(fast_leaf_stats_equal_policy_path),
	KUNIT_CASE(leaf_op_sends_what_the_general_ops_send),
	KUNIT_CASE(direct_queue_takes_every_command),
	KUNIT_CASE(driver_unmap_inline_path_sends_fp_unmaps_commands),
	KUNIT_CASE(driver_unmap_of_small_pages_over_a_block),
	KUNIT_CASE(recovery_after_slow_sync_has_its_own_bound),
	KUNIT_CASE(force_sync_after_bounds_commands_between_syncs),
	KUNIT_CASE(smp_producers_lagging_consumer_see_what_was_written),
	KUNIT_CASE(refused_at_timed_out_position_is_skipped),
	KUNIT_CASE(slow_smmu_late_in_a_bound_is_not_marked_wedged),
	KUNIT_CASE(half_queue_published_commands_are_complete),
	KUNIT_CASE_SLOW(messages_printed_with_no_queue_lock_held),
	KUNIT_CASE(implausible_cmdq_cons_moves_nothing),
	KUNIT_CASE(persistent_abort_acknowledged_once_per_call),
	KUNIT_CASE(gerror_irq_handled_when_a_waiter_took_the_error),
	KUNIT_CASE(sfm_err_marks_queue_wedged),
	KUNIT_CASE(moving_cons_resets_the_bound),
	KUNIT_CASE(bound_is_time_not_loop_steps),
	KUNIT_CASE(erratum_2812531_one_kind_per_sync),
	KUNIT_CASE(unrelated_losses_during_recovery_are_not_its_own),
	KUNIT_CASE(submit_sync_bounds_its_sync_on_its_own),
	KUNIT_CASE(dropped_command_still_synced_and_recovered),
	KUNIT_CASE(dropped_leaf_tlbi_recovered_by_its_sync),
	KUNIT_CASE(dropped_tail_counted_per_command),
	KUNIT_CASE(one_leaf_sync_takes_leaf_path),
	KUNIT_CASE(adaptive_samples_one_kind_of_operation),
	KUNIT_CASE(two_callers_share_one_cmd_sync),
	KUNIT_CASE(sharer_waits_for_shared_sync_to_complete),
	KUNIT_CASE(lone_caller_writes_its_own_sync),
	KUNIT_CASE(shared_sync_timeout_is_a_loss_for_each),
	KUNIT_CASE(erratum_2812531_windows_kept_when_sharing),
	KUNIT_CASE(losses_recovered_once_for_all_waiters),
	KUNIT_CASE(owed_sync_written_by_caller_when_nobody_comes),
	KUNIT_CASE(shared_window_capped_when_duty_is_handed_on),
	KUNIT_CASE(refused_tlbi_under_shared_sync_recovered),
	KUNIT_CASE(recovery_wait_bounded_while_queue_moves),
	KUNIT_CASE(recovery_waiter_answers_once_another_covers_it),
	KUNIT_CASE(sync_on_top_of_recovery_does_not_wait_for_it),
	KUNIT_CASE(sharer_publishes_before_it_waits),
	KUNIT_CASE(prod_written_with_no_queue_lock_held),
	KUNIT_CASE(waiter_publishes_what_another_publisher_left),
	KUNIT_CASE(commands_written_while_another_cpu_writes_prod),
	KUNIT_CASE(callers_share_the_cmd_sync_of_the_prod_writer),
	KUNIT_CASE(prod_writer_writes_the_cmd_sync_left_to_it),
	KUNIT_CASE(prod_writer_takes_no_cmd_sync_it_will_not_write),
	KUNIT_CASE(caller_leaves_its_cmd_sync_to_the_prod_writer),
	KUNIT_CASE(no_cmd_sync_left_to_a_writer_that_writes_none),
	KUNIT_CASE(writer_that_cannot_queue_the_cmd_sync_left_owes_none),
	KUNIT_CASE(publisher_stall_is_not_a_wedge),
	KUNIT_CASE(publisher_stall_drops_no_command),
	{}
};

static struct kunit_suite fpt_cmdq_suite = {
	.name = "flushpol_smmuv3_cmdq",
	.test_cases = fpt_cmdq_cases,
};

kunit_test_suite(fpt_cmdq_suite);
