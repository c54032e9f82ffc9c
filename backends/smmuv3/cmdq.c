// SPDX-License-Identifier: GPL-2.0-only
/*
 * The command queue, fit for several CPUs.
 *
 * Writing: under @lock, a raw spinlock taken with interrupts off, a CPU
 * copies its commands into queue memory at monotonic positions (@prod).
 * CMDQ_PROD moves only when a caller needs the SMMU to move (for its
 * CMD_SYNC, one it is owed, or room), or when half the queue is waiting,
 * so one CMD_SYNC publishes and completes every CPU's commands written
 * before it: a later sync completes earlier CPUs' commands too.
 *
 * Publishing: CMDQ_PROD is written once the lock is free, by one CPU at a
 * time (@publishing), past everything any CPU has written by then.  A CPU
 * that finds another writing it does not wait for it, and a CPU waiting
 * for a position not yet published publishes it (cmdq_wait()), so every
 * command waited for is published, and CMDQ_PROD only moves forward.  In a
 * VM, where the write traps (QEMU runs its whole consumer in it), CPUs
 * then write their commands meanwhile instead of spinning on the lock on
 * the host CPUs the writer needs.
 *
 * Sharing: a CMD_SYNC completes every command before it, whichever CPU
 * wrote them, so a caller need not write one of its own if one will
 * follow its commands anyway.  A sync alone finding the last command
 * written a CMD_SYNC waits for that one.  A caller that has written its
 * commands while another CPU waits for @lock (cmdq_contended()), or while
 * a CPU that let the lock go writes CMDQ_PROD (cmdq_publisher_settles()),
 * leaves the CMD_SYNC to that CPU (@owe_pos, or the flag marked owed),
 * releases the lock, and waits briefly for a CMD_SYNC to be written after
 * its commands (@sync_pos), then for the SMMU to pass it, as for its own;
 * if none is written in that time it takes the lock again and writes its
 * own.  Each caller still waits for CMDQ_CONS to pass a CMD_SYNC after its
 * own commands before it answers, and still checks for losses then.  The
 * invariant that makes it safe: whenever @lock is released for good, by
 * any path (submit, sync, recovery), either a CMD_SYNC follows every
 * command owed one, or another CPU waits for the lock and inherits the
 * duty (cmdq_settle()), or a CPU writing CMDQ_PROD will find its flag
 * marked owed once done and write it (cmdq_settle_for_others()), or a
 * caller that gave up waiting writes its own.  A CPU that finds
 * SMMUV3_CMDQ_SHARE_MAX or more commands waiting for a
 * CMD_SYNC as it lets the lock go writes one rather than hand the duty
 * on, so a CMD_SYNC follows within that many commands and one caller's
 * batch (32 from flush.c); and on MMU-700 cmdq_joins_window() still ends
 * a window with a CMD_SYNC before a command of another kind, or past
 * @force_sync_after, whoever owes it.
 * A recovery never leaves its CMD_SYNCs to another CPU: its CFGI_ALL's
 * completes before its TLBI_NSNH_ALL is written.  A shared CMD_SYNC that
 * times out is a loss for each caller that waited for it, each counting
 * it, and none answers 0 before a recovery after it.
 *
 * Waiting: with no lock.  A CPU that needs the SMMU to move (the queue is
 * full, or it waits for its own CMD_SYNC) polls CMDQ_CONS with interrupts
 * as its caller had them and advances the shared consumer position (@cons)
 * by compare-and-exchange, spinning briefly, then backing off one delay
 * step at a time.  Callers may be atomic (iotlb_sync runs under spinlocks;
 * every policy call is a non-blocking section), so this polls and never
 * sleeps, and its locks stay spinning locks on PREEMPT_RT.  One call,
 * submit or sync, waits at most one bound (@timeout_us of ktime, which
 * runs with interrupts off) with CMDQ_CONS still, across all its waits:
 * a wedged SMMU yields -ETIMEDOUT, never a lockup, and once a wait has
 * seen CMDQ_CONS still for a whole bound every wait fails at once until
 * it moves.  (A sync's CMD_SYNC after commands it dropped, and a
 * recovery, each have a bound of their own: they wait only if CMDQ_CONS
 * moved since.)  While CMDQ_CONS moves the SMMU is working, and is waited
 * for.  A sync that must recover waits at most three bounds in all: its
 * CMD_SYNC's, another CPU's recovery (a bound of time, moving or not),
 * and its own recovery's.
 *
 * Losing: a full queue never overwrites an unread command.  Only on a
 * wedged SMMU, past the bound, is a command dropped.  A command the SMMU
 * refuses (GERROR.CMDQ_ERR, CMDQ_CONS.ERR) is replaced by a CMD_SYNC so
 * the queue runs on, under @gerror_lock, and GERRORN acknowledges it.  A
 * CMD_SYNC that times out loses nothing from the queue, but its caller
 * goes on (a STE update stores its next step, an unmap frees its pages)
 * without knowing when, or in what order with a device's cached
 * configuration, the SMMU will perform what came before it: that is a
 * loss too.  Every loss is counted, and a sync that completes while a
 * loss is not yet recovered from does not return 0 until it has
 * invalidated everything in order: CFGI_ALL and a CMD_SYNC completed, so
 * that no cached STE or CD can walk the tables again, then TLBI_NSNH_ALL
 * and a CMD_SYNC completed, as upstream's reset does.  Completing both at
 * one CMD_SYNC would not do: until the CFGI_ALL completes, a device may
 * refill the TLB through its cached configuration after the TLBI was
 * performed.  One CPU recovers at a time (@recovering): a caller whose
 * sync completed while losses were not yet recovered from waits for the
 * recovery in flight and answers 0 if one that began after the losses it
 * saw has completed (@recovered), or else runs the next; so N losses and
 * M callers waiting cost one CFGI_ALL and one TLBI_NSNH_ALL, not M.
 */
#define pr_fmt(fmt) "flushpol_smmuv3: " fmt

#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/io.h>
#include <linux/timekeeping.h>

#include "smmuv3_dev.h"

/* Polls before the first delay step: a model answers at once. */
#define SMMUV3_CMDQ_SPIN	64
/* Recoveries one sync tries while other commands keep being lost. */
#define SMMUV3_CMDQ_RECOVER_TRIES	3
/*
 * Times a caller waits for another CPU's recovery to end before it looks
 * again whether one covering its losses completed (one that began before
 * them, then one that began after, and a spare).
 */
#define SMMUV3_CMDQ_RECOVER_WAITS	3
/*
 * Sharing: the back-off steps, after SMMUV3_CMDQ_SPIN polls, a caller
 * whose CMD_SYNC another CPU owes waits for it to be written before it
 * tries to write its own.  (How many commands may wait for one:
 * &smmuv3_cmdq.share_max.)
 */
#define SMMUV3_CMDQ_SHARE_STEPS	4
/*
 * CMD_SYNCs a CPU writes for callers that came while it wrote CMDQ_PROD,
 * one after each of its writes, before it leaves the rest to them.
 */
#define SMMUV3_CMDQ_SETTLES	2

/* CMDQ_CONS.ERR: the SMMU retries these itself once acknowledged. */
#define CMDQ_CERROR_ABT		2
#define CMDQ_CERROR_ATC_INV	3

/*
 * When CMDQ_CONS last moved as one call saw it, and whether the call has
 * acknowledged a refusal at the position of the last one acknowledged.
 */
struct smmuv3_cmdq_budget {
	unsigned int spins;
	u64 moved;		/* cmdq_now() then */
	u64 seen;		/* CMDQ_CONS as last polled, + 1; 0: never */
	bool acked;
};

/* What became of an active CMDQ_ERR. */
enum smmuv3_cmdq_err {
	CMDQ_ERR_NONE,		/* none was active */
	CMDQ_ERR_SKIPPED,	/* acknowledged, the command replaced */
	CMDQ_ERR_RETRIED,	/* acknowledged: the SMMU tries it again */
	CMDQ_ERR_HELD,		/* left active: acknowledged there already */
};

/* readl: what was read orders the loads after it (the lost count). */
static u32 cmdq_read(struct smmuv3_cmdq *cmdq, unsigned int off)
{
	if (cmdq->impl && cmdq->impl->read_reg)
		return cmdq->impl->read_reg(cmdq, off);
	return readl(cmdq->base + off);
}

static void cmdq_write(struct smmuv3_cmdq *cmdq, unsigned int off, u32 val,
		       bool relaxed)
{
	if (cmdq->impl && cmdq->impl->write_reg)
		cmdq->impl->write_reg(cmdq, off, val);
	else if (relaxed)
		writel_relaxed(val, cmdq->base + off);
	else
		writel(val, cmdq->base + off);
}

static void cmdq_delay(struct smmuv3_cmdq *cmdq)
{
	if (cmdq->impl && cmdq->impl->delay)
		cmdq->impl->delay(cmdq);
	else
		udelay(1);
}

/*
 * The bound's clock.  ktime_get_ns() reads the clocksource itself, so it
 * runs with interrupts off, where jiffies would stand still on this CPU;
 * and it is time, where a count of polls would stretch with every trapped
 * MMIO access in a VM.
 */
static u64 cmdq_now(struct smmuv3_cmdq *cmdq)
{
	if (cmdq->impl && cmdq->impl->now)
		return cmdq->impl->now(cmdq);
	return ktime_get_ns();
}

/* One step of a wait: a poll's spin, then a back-off step each. */
static void cmdq_backoff(struct smmuv3_cmdq *cmdq,
			 struct smmuv3_cmdq_budget *b)
{
	if (b->spins < SMMUV3_CMDQ_SPIN) {
		b->spins++;
		cpu_relax();
	} else {
		cmdq_delay(cmdq);
	}
}

/* Under @lock: whether another CPU waits to take it. */
static bool cmdq_contended(struct smmuv3_cmdq *cmdq)
{
	if (cmdq->impl && cmdq->impl->contended)
		return cmdq->impl->contended(cmdq);
	return raw_spin_is_contended(&cmdq->lock);
}

/* Where the caller runs; a hint, as a preemptible caller may move. */
static unsigned int cmdq_cpu(struct smmuv3_cmdq *cmdq)
{
	if (cmdq->impl && cmdq->impl->cpu)
		return cmdq->impl->cpu(cmdq);
	return raw_smp_processor_id();
}

static u32 cmdq_size(const struct smmuv3_cmdq *cmdq)
{
	return BIT(cmdq->q.shift);
}

/* A position as CMDQ_PROD/CONS show it: index and wrap bit. */
static u32 cmdq_reg(const struct smmuv3_cmdq *cmdq, u64 pos)
{
	return pos & (BIT(cmdq->q.shift + 1) - 1);
}

static __le64 *cmdq_slot(const struct smmuv3_cmdq *cmdq, u64 pos)
{
	return &cmdq->q.base[(pos & (cmdq_size(cmdq) - 1)) * CMD_DWORDS];
}

static bool cmd_is_sync(const u64 *cmd)
{
	return FIELD_GET(CMD_0_OP, cmd[0]) == CMD_OP_SYNC;
}

/*
 * What the SMMU has consumed, from any CPU, with no lock.  CMDQ_CONS
 * cannot pass what was published, and the shared position was true when
 * read, before CMDQ_CONS was: so CMDQ_CONS is less than twice the queue
 * ahead of it, unless this CPU was held up between the two reads for a
 * lap or more, when the sum falls short of the truth by whole laps.
 * Either way the result is at most the truth, and the shared position
 * only grows.  Read the other way round, the shared position could be
 * another CPU's, newer than this CMDQ_CONS, and the sum a lap ahead of the
 * SMMU.  A value with reserved bits set (all-ones: a read the interconnect
 * failed) says nothing of the SMMU, whatever its index bits; one outside
 * [shared position, published] is stale or garbage: both are ignored.
 */
static u64 cmdq_poll_cons(struct smmuv3_cmdq *cmdq)
{
	u64 old = READ_ONCE(cmdq->cons), new, seen;
	u32 hw;

	/* The MMIO read must not be performed before the load of @cons. */
	rmb();
	hw = cmdq_read(cmdq, SMMUV3_CMDQ_CONS);
	if (hw & ~(CMDQ_CONS_ERR | cmdq_reg(cmdq, U64_MAX)))
		return old;
	new = old + cmdq_reg(cmdq, hw - cmdq_reg(cmdq, old));
	if (new > READ_ONCE(cmdq->published))
		return old;
	while (new > old) {
		seen = cmpxchg64(&cmdq->cons, old, new);
		if (seen == old)
			return new;
		old = seen;
	}
	return old;
}

/*
 * A refused command, reported once no queue lock is held: a console may
 * send through a device behind this SMMU (netconsole, a UART with DMA),
 * and its strict unmap would sync this queue, taking the lock again on
 * the same CPU.
 */
struct smmuv3_cmdq_refusal {
	u64 cmd[CMD_DWORDS];
	u32 cerror;
	bool seen;
};

static void cmdq_report_refusal(struct smmuv3_cmdq *cmdq,
				const struct smmuv3_cmdq_refusal *r)
{
	if (r->seen)
		dev_err_ratelimited(cmdq->dev,
				    "command %016llx %016llx refused (CERROR %u)\n",
				    r->cmd[0], r->cmd[1], r->cerror);
}

/* Commands dropped from a full queue: reported once @lock is dropped. */
static void cmdq_report_dropped(struct smmuv3_cmdq *cmdq, unsigned int n,
				u64 first)
{
	if (n)
		dev_err_ratelimited(cmdq->dev,
				    "command queue full: %u commands dropped, the first %016llx\n",
				    n, first);
}

/* A command lost: the syncs after it recover before they answer. */
static void cmdq_count_lost(struct smmuv3_cmdq *cmdq)
{
	lockdep_assert_held(&cmdq->gerror_lock);
	WRITE_ONCE(cmdq->nlost, cmdq->nlost + 1);
}

/*
 * The SMMU refused the command at CMDQ_CONS and stopped.  Replace it with
 * a CMD_SYNC, count it lost, and acknowledge: GERRORN's bit toggles to
 * GERROR's, whatever both were before.  No producer writes that slot: it
 * lies between CMDQ_CONS and what was published.  @r says what it was.
 *
 * An abort on fetch (CERROR_ABT) or an ATC invalidation timeout is left
 * in place: acknowledged, the SMMU tries the command again.  If that
 * fails too, the error is back at the same position at once, with an
 * interrupt: acknowledged at every poll, it would make a storm, and the
 * queue would never be seen still long enough to be marked wedged.  So a
 * refusal at the position last acknowledged is acknowledged at most once
 * per call (@b), and never by the interrupt (@b NULL).
 */
static enum smmuv3_cmdq_err
cmdq_skip_error_locked(struct smmuv3_cmdq *cmdq, struct smmuv3_cmdq_refusal *r,
		       struct smmuv3_cmdq_budget *b)
{
	u32 gerror, gerrorn, cerror;
	u64 sync[CMD_DWORDS], pos;
	bool again, retry;
	__le64 *slot;

	lockdep_assert_held(&cmdq->gerror_lock);
	gerror = cmdq_read(cmdq, SMMUV3_GERROR);
	gerrorn = cmdq_read(cmdq, SMMUV3_GERRORN);
	if (!((gerror ^ gerrorn) & GERROR_CMDQ_ERR))
		return CMDQ_ERR_NONE;

	cerror = FIELD_GET(CMDQ_CONS_ERR, cmdq_read(cmdq, SMMUV3_CMDQ_CONS));
	pos = cmdq_poll_cons(cmdq);
	again = cmdq->err_at == pos + 1;
	if (again && (!b || b->acked))
		return CMDQ_ERR_HELD;
	if (b)
		b->acked = true;
	retry = again || cerror == CMDQ_CERROR_ABT ||
		cerror == CMDQ_CERROR_ATC_INV;
	slot = cmdq_slot(cmdq, pos);
	if (!again) {
		r->cmd[0] = le64_to_cpu(slot[0]);
		r->cmd[1] = le64_to_cpu(slot[1]);
		r->cerror = cerror;
		r->seen = true;
	}
	if (!retry && pos < READ_ONCE(cmdq->published)) {
		smmuv3_cmd_sync(sync);
		slot[0] = cpu_to_le64(sync[0]);
		slot[1] = cpu_to_le64(sync[1]);
		cmdq_count_lost(cmdq);
	}
	WRITE_ONCE(cmdq->err_at, pos + 1);
	/* The slot, and the count, before the SMMU resumes. */
	dma_wmb();
	cmdq_write(cmdq, SMMUV3_GERRORN,
		   gerrorn ^ ((gerror ^ gerrorn) & GERROR_CMDQ_ERR), false);
	return retry ? CMDQ_ERR_RETRIED : CMDQ_ERR_SKIPPED;
}

/*
 * Only a CPU that sees CMDQ_ERR active takes the lock.  An error it
 * acknowledges raised an interrupt the handler may then find nothing for:
 * counted in @taken, so that the handler still claims it.
 */
static enum smmuv3_cmdq_err cmdq_skip_error(struct smmuv3_cmdq *cmdq,
					    struct smmuv3_cmdq_budget *b)
{
	struct smmuv3_cmdq_refusal r = {};
	enum smmuv3_cmdq_err ret;
	unsigned long flags;

	if (!((cmdq_read(cmdq, SMMUV3_GERROR) ^
	       cmdq_read(cmdq, SMMUV3_GERRORN)) & GERROR_CMDQ_ERR))
		return CMDQ_ERR_NONE;
	raw_spin_lock_irqsave(&cmdq->gerror_lock, flags);
	ret = cmdq_skip_error_locked(cmdq, &r, b);
	if (ret == CMDQ_ERR_SKIPPED || ret == CMDQ_ERR_RETRIED)
		cmdq->taken++;
	raw_spin_unlock_irqrestore(&cmdq->gerror_lock, flags);
	cmdq_report_refusal(cmdq, &r);
	return ret;
}

/*
 * Move CMDQ_PROD past every command written so far, by any CPU, with
 * interrupts off and @lock held or not.  One CPU at a time writes it
 * (@publishing), so that it only moves forward.  A CPU that finds another
 * writing it goes on: if that write does not cover its commands, it
 * publishes them from its wait (cmdq_wait()).  Interrupts stay off while
 * the flag is held: a sync in an interrupt on this CPU would wait for
 * that publication, which could not end before the sync did.
 *
 * With @how SMMUV3_CMDQ_PUBLISH_SETTLES, a caller that writes commands
 * meanwhile may leave its CMD_SYNC to us (cmdq_publisher_settles()), and
 * marks the flag SMMUV3_CMDQ_PUBLISH_OWED: returns whether one did.
 */
static bool cmdq_publish_irqsoff(struct smmuv3_cmdq *cmdq, u32 how)
{
	u64 prod;

	lockdep_assert_irqs_disabled();
	if (READ_ONCE(cmdq->publishing) ||
	    cmpxchg_acquire(&cmdq->publishing, SMMUV3_CMDQ_PUBLISH_FREE, how))
		return false;
	/*
	 * Pairs with cmdq_write_one(): the commands before it are written.
	 * A @sync_pos the caller read may be newer than this (it is written
	 * after @prod, and the release does not order what follows it): a
	 * waiter whose CMD_SYNC is not covered then publishes again.
	 */
	prod = smp_load_acquire(&cmdq->prod);
	if (prod > cmdq->published) {
		WRITE_ONCE(cmdq->published, prod);
		/*
		 * Every command before @prod, whichever CPU wrote it, is in
		 * memory before the SMMU may read it: the barrier is
		 * cumulative over what the acquire saw.
		 */
		dma_wmb();
		cmdq_write(cmdq, SMMUV3_CMDQ_PROD, cmdq_reg(cmdq, prod), true);
	}
	if (how != SMMUV3_CMDQ_PUBLISH_SETTLES) {
		/* After our write: the next CPU's may not overtake it. */
		smp_store_release(&cmdq->publishing, SMMUV3_CMDQ_PUBLISH_FREE);
		return false;
	}
	/* The same, and whether a caller left us its CMD_SYNC meanwhile. */
	return unlikely(xchg_release(&cmdq->publishing,
				     SMMUV3_CMDQ_PUBLISH_FREE) ==
			SMMUV3_CMDQ_PUBLISH_OWED);
}

/* With interrupts as the caller has them: from a wait. */
static void cmdq_publish(struct smmuv3_cmdq *cmdq)
{
	unsigned long flags;

	local_irq_save(flags);
	cmdq_publish_irqsoff(cmdq, SMMUV3_CMDQ_PUBLISH_ONLY);
	local_irq_restore(flags);
}

/* Under @lock: publish, and write no CMD_SYNC after (our caller will). */
static void cmdq_publish_locked(struct smmuv3_cmdq *cmdq)
{
	lockdep_assert_held(&cmdq->lock);
	cmdq_publish_irqsoff(cmdq, SMMUV3_CMDQ_PUBLISH_ONLY);
}

/*
 * Let @lock go for a wait for room and publish what it covered, so that
 * the SMMU can make that room; @flags are the caller's interrupts.
 */
static void cmdq_unlock_for_room(struct smmuv3_cmdq *cmdq,
				 unsigned long flags)
	__releases(&cmdq->lock)
{
	raw_spin_unlock(&cmdq->lock);
	cmdq_publish_irqsoff(cmdq, SMMUV3_CMDQ_PUBLISH_ONLY);
	local_irq_restore(flags);
}

/*
 * Wait, with no lock, until the SMMU has consumed everything before
 * @target, skipping refused commands on the way: only when a poll saw no
 * progress are GERROR and GERRORN read.  The bound is time (cmdq_now())
 * with CMDQ_CONS still, across the call's waits: a slow SMMU that keeps moving
 * (a full queue waited for slot by slot, under contention) is waited for,
 * since it loses nothing, where a bound on the whole call would drop
 * commands a working SMMU was about to read.  A wait that saw CMDQ_CONS
 * still for a whole bound leaves it marked: until it moves, every wait
 * fails at once, so a wedged SMMU costs one bound, not one per sync; but
 * an SMMU that stopped there on a refused command is not wedged, so the
 * error is looked for first, and the wait goes on if it was acknowledged;
 * one left active (acknowledged there already) does not keep a wedge
 * unmarked.
 */
static int cmdq_wait(struct smmuv3_cmdq *cmdq, u64 target,
		     struct smmuv3_cmdq_budget *b)
{
	u64 cons, now, bound = (u64)cmdq->timeout_us * NSEC_PER_USEC;
	enum smmuv3_cmdq_err err;
	bool stuck, moved;

	for (;;) {
		/* Another CPU's write of CMDQ_PROD may not have covered ours. */
		if (unlikely(READ_ONCE(cmdq->published) < target))
			cmdq_publish(cmdq);
		cons = cmdq_poll_cons(cmdq);
		if (cons >= target)
			return 0;
		now = cmdq_now(cmdq);
		/*
		 * While another CPU writes CMDQ_PROD, the SMMU may not yet have
		 * been given what we wait for: its stillness says nothing of
		 * it, and the bound starts again.  That CPU holds the right for
		 * one register write with interrupts off, unless it is itself
		 * off its CPU (a vCPU the host does not run), which is no
		 * reason to fail a sync, drop a command or mark the queue
		 * wedged.
		 */
		moved = b->seen != cons + 1 || READ_ONCE(cmdq->publishing);
		if (moved)
			b->moved = now;
		stuck = READ_ONCE(cmdq->stuck) == cons + 1;
		if (!moved || stuck) {
			err = cmdq_skip_error(cmdq, b);
			if (err == CMDQ_ERR_SKIPPED || err == CMDQ_ERR_RETRIED)
				stuck = false;
		}
		b->seen = cons + 1;
		if (stuck)
			return -ETIMEDOUT;
		if (now - b->moved >= bound) {
			WRITE_ONCE(cmdq->stuck, cons + 1);
			return -ETIMEDOUT;
		}
		cmdq_backoff(cmdq, b);
	}
}

/*
 * Make room for one command.  Under @lock, which is dropped while waiting:
 * @flags are the caller's saved interrupt state.
 */
static int cmdq_make_room(struct smmuv3_cmdq *cmdq, unsigned long *flags,
			  struct smmuv3_cmdq_budget *b)
{
	u64 target;
	int ret;

	while (cmdq->prod - READ_ONCE(cmdq->cons) >= cmdq_size(cmdq)) {
		if (cmdq->prod - cmdq_poll_cons(cmdq) < cmdq_size(cmdq))
			break;
		target = cmdq->prod - cmdq_size(cmdq) + 1;
		cmdq_unlock_for_room(cmdq, *flags);
		ret = cmdq_wait(cmdq, target, b);
		raw_spin_lock_irqsave(&cmdq->lock, *flags);
		if (ret && cmdq->prod - READ_ONCE(cmdq->cons) >= cmdq_size(cmdq))
			return ret;
	}
	return 0;
}

/* Under @lock, with room. */
static void cmdq_write_one(struct smmuv3_cmdq *cmdq, const u64 *cmd)
{
	__le64 *slot = cmdq_slot(cmdq, cmdq->prod);

	slot[0] = cpu_to_le64(cmd[0]);
	slot[1] = cpu_to_le64(cmd[1]);
	/* The slot before @prod, for a CPU that publishes without @lock. */
	smp_store_release(&cmdq->prod, cmdq->prod + 1);
	if (cmd_is_sync(cmd)) {
		cmdq->since_sync = 0;
		WRITE_ONCE(cmdq->sync_pos, cmdq->prod);
	} else {
		cmdq->since_sync++;
	}
	cmdq->window_op = FIELD_GET(CMD_0_OP, cmd[0]);
	/* A long hold lets the SMMU start (and the waits for room end). */
	if (cmdq->prod - READ_ONCE(cmdq->published) >= cmdq_size(cmdq) / 2)
		cmdq_publish_locked(cmdq);
}

/*
 * Whether @cmd may join the commands written since the last CMD_SYNC.
 * On MMU-700 (erratum 2812531) at most @force_sync_after of them, all of
 * one kind: upstream's workaround relies on batches of one kind, each
 * ending in a CMD_SYNC, and here commands from several CPUs (a TLBI, a
 * CFGI_STE, a TLBI_NH_ASID, each submitted and synced in separate lock
 * holds) would otherwise share one.
 */
static bool cmdq_joins_window(const struct smmuv3_cmdq *cmdq, const u64 *cmd)
{
	if (cmd_is_sync(cmd) || !cmdq->force_sync_after || !cmdq->since_sync)
		return true;
	return cmdq->since_sync < cmdq->force_sync_after &&
	       cmdq->window_op == FIELD_GET(CMD_0_OP, cmd[0]);
}

/*
 * Write one command, after a CMD_SYNC if the commands waiting for one may
 * not take it in (cmdq_joins_window()), or drop it, counted, for the caller to report once it
 * has dropped @lock.  Under @lock; returns its position.  The count is
 * checked after the last wait for room: other CPUs write while the lock
 * is dropped.
 */
static int cmdq_put(struct smmuv3_cmdq *cmdq, const u64 *cmd,
		    unsigned long *flags, struct smmuv3_cmdq_budget *b,
		    u64 *pos)
{
	u64 sync[CMD_DWORDS];
	int ret;

	for (;;) {
		ret = cmdq_make_room(cmdq, flags, b);
		if (ret)
			break;
		if (cmdq_joins_window(cmdq, cmd)) {
			*pos = cmdq->prod;
			cmdq_write_one(cmdq, cmd);
			return 0;
		}
		smmuv3_cmd_sync(sync);
		cmdq_write_one(cmdq, sync);
	}
	raw_spin_lock(&cmdq->gerror_lock);
	cmdq_count_lost(cmdq);
	raw_spin_unlock(&cmdq->gerror_lock);
	return ret;
}

/* A CMD_SYNC that timed out, queued and not lost: counted all the same. */
static void cmdq_count_timeout(struct smmuv3_cmdq *cmdq)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&cmdq->gerror_lock, flags);
	cmdq_count_lost(cmdq);
	raw_spin_unlock_irqrestore(&cmdq->gerror_lock, flags);
}

/*
 * Under @lock, before it is released for good (not to wait for room):
 * the sharing invariant.  If commands are owed a CMD_SYNC (a caller left
 * without writing its own, @owe_pos) and no CPU waits for the lock to
 * take that duty over, write one; write one too once
 * SMMUV3_CMDQ_SHARE_MAX commands wait for it, so that a chain of CPUs
 * each handing the duty on cannot keep the first waiting past its brief
 * wait (cmdq_await_sync()); once a CMD_SYNC follows them, clear
 * @owe_pos and say so: a caller waits for that CMD_SYNC, and the lock's
 * holder publishes it as it lets the lock go (cmdq_unlock_publish()).  A
 * CMD_SYNC that cannot be queued is counted lost, as any command; whoever
 * owed it then writes its own.
 */
static noinline bool cmdq_settle_owed(struct smmuv3_cmdq *cmdq,
				      unsigned long *flags,
				      struct smmuv3_cmdq_budget *b,
				      unsigned int *dropped, u64 *first)
{
	u64 sync[CMD_DWORDS], pos;

	if (cmdq->owe_pos >= cmdq->sync_pos &&
	    (cmdq->since_sync >= cmdq->share_max ||
	     !cmdq_contended(cmdq))) {
		smmuv3_cmd_sync(sync);
		if (cmdq_put(cmdq, sync, flags, b, &pos) && !(*dropped)++)
			*first = sync[0];
	}
	if (cmdq->sync_pos <= cmdq->owe_pos)
		return false;
	cmdq->owe_pos = 0;
	return true;
}

/*
 * Nothing owed, the common case, costs a load and a branch.  Returns
 * whether a CMD_SYNC a caller waits for is to be published.
 */
static __always_inline bool cmdq_settle(struct smmuv3_cmdq *cmdq,
					unsigned long *flags,
					struct smmuv3_cmdq_budget *b,
					unsigned int *dropped, u64 *first)
{
	if (likely(!cmdq->owe_pos))
		return false;
	return cmdq_settle_owed(cmdq, flags, b, dropped, first);
}

/*
 * Callers that wrote their commands while we wrote CMDQ_PROD left their
 * CMD_SYNC to us: they did so under @lock, after their commands, so once
 * we hold it a CMD_SYNC written now follows them.  Write it and publish it
 * (SMMUV3_CMDQ_SETTLES times at most, as more may come meanwhile: the last
 * publication takes no more).  A CMD_SYNC that cannot be queued is
 * counted lost, as any command, and we stop: each of them then writes its
 * own once it has waited a little (cmdq_await_sync()).
 */
static noinline void cmdq_settle_for_others(struct smmuv3_cmdq *cmdq,
					    unsigned long flags)
{
	struct smmuv3_cmdq_budget b = {};
	u64 sync[CMD_DWORDS], pos, first = 0;
	unsigned int i, dropped = 0;
	bool more;

	smmuv3_cmd_sync(sync);
	for (i = 1; ; i++) {
		raw_spin_lock(&cmdq->lock);
		if (cmdq->sync_pos != cmdq->prod &&
		    cmdq_put(cmdq, sync, &flags, &b, &pos) && !dropped++)
			first = sync[0];
		/* A caller that found us waiting for the lock left us one. */
		cmdq_settle(cmdq, &flags, &b, &dropped, &first);
		raw_spin_unlock(&cmdq->lock);
		more = !dropped && i < SMMUV3_CMDQ_SETTLES;
		if (!cmdq_publish_irqsoff(cmdq, more ?
					  SMMUV3_CMDQ_PUBLISH_SETTLES :
					  SMMUV3_CMDQ_PUBLISH_ONLY))
			break;
	}
	local_irq_restore(flags);
	cmdq_report_dropped(cmdq, dropped, first);
}

/*
 * Let @lock go for good and publish what it covered, before the caller's
 * interrupts come back on: with the lock free, CPUs write their commands
 * while this one writes CMDQ_PROD, and may leave us their CMD_SYNC.
 */
static void cmdq_unlock_publish(struct smmuv3_cmdq *cmdq, unsigned long flags)
	__releases(&cmdq->lock)
{
	raw_spin_unlock(&cmdq->lock);
	if (unlikely(cmdq_publish_irqsoff(cmdq, SMMUV3_CMDQ_PUBLISH_SETTLES)))
		cmdq_settle_for_others(cmdq, flags);
	else
		local_irq_restore(flags);
}

/**
 * smmuv3_cmdq_submit() - append commands, without waiting for them
 * @cmdq: the queue
 * @cmds: @n commands of CMD_DWORDS each
 * @n: how many
 *
 * They may stay unpublished until the next sync.  A full queue is waited
 * for while the SMMU consumes, and at most one bound in the whole call
 * with CMDQ_CONS still; what still does not fit is dropped, and the next
 * sync to complete recovers from it before it returns 0.
 */
void smmuv3_cmdq_submit(struct smmuv3_cmdq *cmdq, const u64 *cmds,
			unsigned int n)
{
	struct smmuv3_cmdq_budget b = {};
	unsigned int dropped = 0;
	unsigned long flags;
	u64 pos, first = 0;

	raw_spin_lock_irqsave(&cmdq->lock, flags);
	for (; n; n--, cmds += CMD_DWORDS)
		if (cmdq_put(cmdq, cmds, &flags, &b, &pos) && !dropped++)
			first = cmds[0];
	if (cmdq_settle(cmdq, &flags, &b, &dropped, &first))
		cmdq_unlock_publish(cmdq, flags);
	else
		raw_spin_unlock_irqrestore(&cmdq->lock, flags);
	cmdq_report_dropped(cmdq, dropped, first);
}

/*
 * Under @lock, after a caller's commands, when no CPU waits for the lock:
 * whether a CPU writing CMDQ_PROD without it will write a CMD_SYNC after
 * them once done (cmdq_unlock_publish()).  It takes the flag back when
 * its write is done, and sees the debt there; it then takes the lock, so
 * that its CMD_SYNC follows what we wrote.  In a VM that CPU's write
 * traps, and QEMU consumes the queue inside it: every caller that comes
 * meanwhile shares its CMD_SYNC.
 */
static bool cmdq_publisher_settles(struct smmuv3_cmdq *cmdq)
{
	u32 was = READ_ONCE(cmdq->publishing);

	if (likely(was < SMMUV3_CMDQ_PUBLISH_SETTLES))
		return false;
	return was == SMMUV3_CMDQ_PUBLISH_OWED ||
	       cmpxchg(&cmdq->publishing, SMMUV3_CMDQ_PUBLISH_SETTLES,
		       SMMUV3_CMDQ_PUBLISH_OWED) == SMMUV3_CMDQ_PUBLISH_SETTLES;
}

/*
 * Under @lock, after a caller's commands: whether they may go without a
 * CMD_SYNC of their own.  Yes if the last command written is a CMD_SYNC
 * (a sync alone, after commands another CPU's CMD_SYNC followed): then
 * @pos is its position.  Yes too if another CPU waits for the lock, which
 * by the invariant (cmdq_settle()) writes a CMD_SYNC after ours or hands
 * the duty on, and fewer than SMMUV3_CMDQ_SHARE_MAX commands wait for
 * one so far: @owe is then what must be behind the CMD_SYNC waited for.
 */
static bool cmdq_shares(struct smmuv3_cmdq *cmdq, u64 *pos, u64 *owe)
{
	if (cmdq->sync_pos == cmdq->prod) {
		*pos = cmdq->sync_pos - 1;
		return true;
	}
	if (cmdq->since_sync >= cmdq->share_max)
		return false;
	if (cmdq_contended(cmdq))
		cmdq->owe_pos = cmdq->prod;
	else if (!cmdq_publisher_settles(cmdq))
		return false;
	*owe = cmdq->prod;
	return true;
}

/*
 * Wait, holding no lock, for the CMD_SYNC another CPU owes the commands
 * before @owe to be written; @pos is then its position.  Briefly: the CPU
 * that took the lock after ours writes a few commands and the CMD_SYNC,
 * or hands the duty on to one that does, within about
 * SMMUV3_CMDQ_SHARE_MAX commands.  If none is written by then (that CPU
 * waits for room in a full queue, or an NMI or the hypervisor holds it
 * up), take the lock and write our own, as an unshared sync would, unless
 * one was written meanwhile.  The lock is tried, not queued for, and the
 * CMD_SYNC looked for between tries: queued behind the CPUs now waiting
 * for it, we could not see the CMD_SYNC one of them writes.  Before the
 * lock goes, the sharing invariant: a CPU that shared with us while we
 * waited for the lock is owed a CMD_SYNC too (cmdq_settle()).
 */
static noinline int cmdq_await_sync(struct smmuv3_cmdq *cmdq, u64 owe,
				    u64 *pos, struct smmuv3_cmdq_budget *b)
{
	unsigned int i, dropped = 0;
	u64 sync[CMD_DWORDS], at, first = 0;
	unsigned long flags;
	int ret = 0;

	for (i = 0; ; i++) {
		at = READ_ONCE(cmdq->sync_pos);
		if (at > owe) {
			*pos = at - 1;
			return 0;
		}
		/*
		 * A CPU writing CMDQ_PROD that we may have left our CMD_SYNC
		 * writes it once done: wait for it in CMDQ_CONS reads, which in
		 * a VM wait in the hypervisor for that write to end, not on the
		 * host CPU it needs.
		 */
		if (READ_ONCE(cmdq->publishing) >= SMMUV3_CMDQ_PUBLISH_SETTLES) {
			cmdq_poll_cons(cmdq);
			if (i > SMMUV3_CMDQ_SPIN)
				i = SMMUV3_CMDQ_SPIN;
			continue;
		}
		if (i >= SMMUV3_CMDQ_SPIN + SMMUV3_CMDQ_SHARE_STEPS &&
		    raw_spin_trylock_irqsave(&cmdq->lock, flags))
			break;
		if (i >= SMMUV3_CMDQ_SPIN && i < SMMUV3_CMDQ_SPIN +
		    SMMUV3_CMDQ_SHARE_STEPS)
			cmdq_delay(cmdq);
		else
			cpu_relax();
	}
	smmuv3_cmd_sync(sync);
	if (cmdq->sync_pos > owe) {
		*pos = cmdq->sync_pos - 1;
	} else {
		ret = cmdq_put(cmdq, sync, &flags, b, pos);
		if (!ret) {
			cmdq->fallbacks++;
		} else {
			dropped = 1;
			first = sync[0];
		}
	}
	cmdq_settle(cmdq, &flags, b, &dropped, &first);
	cmdq_unlock_publish(cmdq, flags);
	cmdq_report_dropped(cmdq, dropped, first);
	return ret;
}

/*
 * @n commands (none, or one in a recovery) and a CMD_SYNC, written in one
 * hold of @lock, published and waited for.  A command that cannot be
 * queued is dropped, counted lost, and the commands after it are still
 * tried, each dropped and counted if it does not fit either, as
 * smmuv3_cmdq_submit() does.  A caller's sync (@recovery false) then
 * still queues its CMD_SYNC and waits for it, with a bound of its own, as
 * smmuv3_cmdq_sync() after smmuv3_cmdq_submit() would: the SMMU may have
 * moved since, and if it has, the sync completes and the losses are
 * recovered from before the caller is answered.  In a recovery a dropped
 * command is its own loss and fails it at once.  A CMD_SYNC that cannot
 * be queued, or times out, is counted as a loss and fails the call.
 */
static __always_inline int cmdq_issue_sync(struct smmuv3_cmdq *cmdq,
					   const u64 *cmds, unsigned int n,
					   struct smmuv3_cmdq_budget *b,
					   bool recovery)
{
	u64 sync[CMD_DWORDS], pos, owe = 0, first = 0;
	unsigned int dropped = 0;
	unsigned long flags;
	int ret = 0;

	smmuv3_cmd_sync(sync);
	raw_spin_lock_irqsave(&cmdq->lock, flags);
	for (; n; n--, cmds += CMD_DWORDS)
		if (cmdq_put(cmdq, cmds, &flags, b, &pos) && !dropped++)
			first = cmds[0];
	if (dropped && recovery) {
		ret = -ETIMEDOUT;
		cmdq_settle(cmdq, &flags, b, &dropped, &first);
	} else if (recovery || dropped || !cmdq_shares(cmdq, &pos, &owe)) {
		if (dropped)
			*b = (struct smmuv3_cmdq_budget){};
		ret = cmdq_put(cmdq, sync, &flags, b, &pos);
		if (unlikely(ret)) {
			if (!dropped++)
				first = sync[0];
		} else {
			/* It follows every command owed one: published below. */
			cmdq->owe_pos = 0;
		}
	}
	/*
	 * A sharer too: the SMMU performs our commands while the CMD_SYNC is
	 * written, and one written on MMU-700 to end a window is not left
	 * for the next holder to publish.
	 */
	cmdq_unlock_publish(cmdq, flags);
	cmdq_report_dropped(cmdq, dropped, first);
	if (ret)
		return ret;
	if (unlikely(owe)) {
		ret = cmdq_await_sync(cmdq, owe, &pos, b);
		if (ret)
			return ret;
	}

	ret = cmdq_wait(cmdq, pos + 1, b);
	if (ret) {
		cmdq_count_timeout(cmdq);
		dev_err_ratelimited(cmdq->dev,
				    "CMD_SYNC timeout: at %#x, CMDQ_CONS %#x\n",
				    cmdq_reg(cmdq, pos),
				    cmdq_read(cmdq, SMMUV3_CMDQ_CONS));
	}
	return ret;
}

/*
 * Invalidate everything a lost command may have meant: configuration
 * first, completed, so that nothing cached can refill the TLB, then the
 * TLB.  It covers every loss counted before it began, since its commands
 * come after them in the queue.  A loss counted while it runs is one of
 * its own commands only if a refusal was acknowledged at or after the
 * first of them (a command of its own dropped, or a sync of its own timed
 * out, fails it): then it starts again, a few times at most.  Any other
 * is another CPU's, left to the syncs after it.
 */
static int cmdq_recover(struct smmuv3_cmdq *cmdq,
			struct smmuv3_cmdq_budget *b)
{
	u64 cmd[CMD_DWORDS], nlost, seen, first;
	unsigned int tries;
	int ret;

	for (tries = 0; tries < SMMUV3_CMDQ_RECOVER_TRIES; tries++) {
		/* At most the position of our first command. */
		first = READ_ONCE(cmdq->published);
		nlost = READ_ONCE(cmdq->nlost);
		/* Counted before our commands are written. */
		smp_mb();
		smmuv3_cmd_cfgi_all(cmd);
		ret = cmdq_issue_sync(cmdq, cmd, 1, b, true);
		if (!ret) {
			smmuv3_cmd_tlbi_nsnh_all(cmd);
			ret = cmdq_issue_sync(cmdq, cmd, 1, b, true);
		}
		if (ret)
			return ret;
		if (READ_ONCE(cmdq->nlost) != nlost &&
		    READ_ONCE(cmdq->err_at) > first)
			continue;
		seen = READ_ONCE(cmdq->recovered);
		while (seen < nlost)
			seen = cmpxchg64(&cmdq->recovered, seen, nlost);
		return 0;
	}
	return -EIO;
}

/*
 * Wait, holding no lock, while another CPU recovers (@recovering), until
 * it ends or a recovery covering the losses the caller saw (@snap) has
 * completed, whoever ran it.  Until one bound of time after @start, for
 * all of a call's waits, whether CMDQ_CONS moves or not: CMDQ_CONS is no
 * sign of the recovery's progress, since other CPUs' commands move it
 * too, and a recovering CPU
 * that is preempted (PREEMPT_RT, or a vCPU the host does not run) holds
 * the flag as long as it is off the CPU.  Then -ETIMEDOUT, and the caller
 * recovers on its own: two recoveries at once are each complete, and
 * only cost more.  At once if the recovering CPU is this one (a sync from
 * an interrupt, a softirq, or on PREEMPT_RT a thread of higher priority,
 * come in on top of the recovery: it cannot go on until we return) or a
 * vCPU the hypervisor says is not running.
 */
static int cmdq_wait_recovery(struct smmuv3_cmdq *cmdq, u64 snap,
			      u64 start, struct smmuv3_cmdq_budget *b)
{
	u64 bound = (u64)cmdq->timeout_us * NSEC_PER_USEC;
	u32 owner;

	/* Its end ordered before what the caller reads of @recovered. */
	while ((owner = smp_load_acquire(&cmdq->recovering))) {
		/* That recovery's syncs completed before it said so. */
		if (smp_load_acquire(&cmdq->recovered) >= snap)
			return 0;
		if (owner - 1 == cmdq_cpu(cmdq) ||
		    (owner - 1 < nr_cpu_ids && vcpu_is_preempted(owner - 1)))
			return -EDEADLK;
		if (cmdq_now(cmdq) - start >= bound)
			return -ETIMEDOUT;
		cmdq_backoff(cmdq, b);
	}
	return 0;
}

/*
 * A sync completed while losses were not yet recovered from: answer only
 * once a recovery that began after every loss counted so far (@nlost now)
 * has completed.  One CPU recovers at a time (@recovering): the others
 * wait for it and answer if it covered them (it began after their losses:
 * @recovered reached what they saw), or else recover next, themselves or
 * behind another that began after.  A caller that waited a whole bound
 * for another's recovery recovers on its own.
 */
static noinline int cmdq_recover_once(struct smmuv3_cmdq *cmdq,
				      struct smmuv3_cmdq_budget *b)
{
	u64 snap = READ_ONCE(cmdq->nlost), start = cmdq_now(cmdq);
	unsigned int waits;
	bool own = false;
	int ret;

	for (waits = 0; ; waits++) {
		/* Its syncs completed before it said so. */
		if (smp_load_acquire(&cmdq->recovered) >= snap)
			return 0;
		if (!READ_ONCE(cmdq->recovering) &&
		    !cmpxchg(&cmdq->recovering, 0,
			     cmdq_cpu(cmdq) + 1)) {
			/* One may have ended between the two looks. */
			if (smp_load_acquire(&cmdq->recovered) >= snap) {
				/* Pairs with the waiters' acquire. */
				smp_store_release(&cmdq->recovering, 0);
				return 0;
			}
			own = true;
			break;
		}
		if (waits == SMMUV3_CMDQ_RECOVER_WAITS)
			break;
		if (cmdq_wait_recovery(cmdq, snap, start, b)) {
			*b = (struct smmuv3_cmdq_budget){};
			break;
		}
	}
	dev_warn_ratelimited(cmdq->dev,
			     "%llu commands lost or syncs failed so far: invalidating everything before answering\n",
			     snap);
	ret = cmdq_recover(cmdq, b);
	if (own) /* @recovered, set by cmdq_recover(), before the end. */
		smp_store_release(&cmdq->recovering, 0);
	return ret;
}

/**
 * smmuv3_cmdq_submit_sync() - append commands and complete them, with
 *	every command written before, on any CPU
 * @cmdq: the queue
 * @cmds: @n commands of CMD_DWORDS each
 * @n: how many (0: a sync alone)
 *
 * smmuv3_cmdq_submit() then smmuv3_cmdq_sync(), with the commands and
 * their CMD_SYNC written in one hold of the queue's lock: the same
 * commands in the same order, the same loss accounting and the same
 * recovery before it answers.  The bound is one for the whole call while
 * every command is queued (CMDQ_CONS still for a bound, across its
 * waits); a command that cannot be queued within it is dropped and
 * counted lost, each of them, and the CMD_SYNC then has a bound of its
 * own, as a separate sync would: an SMMU that moved again completes it,
 * and the sync recovers before it answers 0.
 *
 * Return: as smmuv3_cmdq_sync().
 */
int smmuv3_cmdq_submit_sync(struct smmuv3_cmdq *cmdq, const u64 *cmds,
			    unsigned int n)
{
	struct smmuv3_cmdq_budget b = {};
	int ret;

	ret = cmdq_issue_sync(cmdq, cmds, n, &b, false);
	if (ret)
		return ret;
	/* CMDQ_CONS was read with readl(): the count is at least as new. */
	if (likely(READ_ONCE(cmdq->nlost) == READ_ONCE(cmdq->recovered)))
		return 0;
	/*
	 * A bound of its own: a sync that completed late in its bound (a
	 * slow SMMU, just when other CPUs' syncs timed out) would otherwise
	 * find the SMMU "wedged" at the recovery's first wait and fail a
	 * caller whose commands did complete.
	 */
	b = (struct smmuv3_cmdq_budget){};
	return cmdq_recover_once(cmdq, &b);
}

/**
 * smmuv3_cmdq_sync() - complete every command written so far, on any CPU
 * @cmdq: the queue
 *
 * Publishes everything written, with a CMD_SYNC after it, and waits for
 * CMDQ_CONS to pass that CMD_SYNC, holding no lock.  If a command was lost
 * (refused, or dropped) or a sync failed, and no completed recovery
 * covers it, the caller's own command may be the one missing or not yet
 * performed in order, and once we answer the caller frees pages or
 * tables: so everything is invalidated, in order, before we answer: by
 * another CPU's recovery waited for within a second bound, or by ours,
 * within a third.
 *
 * After an error, the next sync to complete invalidates everything, in
 * order, before it answers 0.
 *
 * Return: 0; -ETIMEDOUT if the SMMU did not get there within the bound;
 * -EIO if commands kept being lost while invalidating everything.
 */
int smmuv3_cmdq_sync(struct smmuv3_cmdq *cmdq)
{
	return smmuv3_cmdq_submit_sync(cmdq, NULL, 0);
}

static void smmuv3_cmdq_ops_submit(void *priv, const u64 *cmds,
				   unsigned int n)
{
	struct smmuv3_device *smmu = priv;

	smmuv3_cmdq_submit(&smmu->cmdq, cmds, n);
}

static int smmuv3_cmdq_ops_sync(void *priv)
{
	struct smmuv3_device *smmu = priv;

	return smmuv3_cmdq_sync(&smmu->cmdq);
}

static int smmuv3_cmdq_ops_submit_sync(void *priv, const u64 *cmds,
				       unsigned int n)
{
	struct smmuv3_device *smmu = priv;

	return smmuv3_cmdq_submit_sync(&smmu->cmdq, cmds, n);
}

/* The queue of an SMMU, for &smmuv3_flush.cmdq; its priv is the SMMU. */
const struct smmuv3_cmdq_ops smmuv3_cmdq_ops = {
	.submit		= smmuv3_cmdq_ops_submit,
	.sync		= smmuv3_cmdq_ops_sync,
	.submit_sync	= smmuv3_cmdq_ops_submit_sync,
};

/* Issue @n commands and a CMD_SYNC: configuration changes, reset. */
int smmuv3_cmdq_issue_sync(struct smmuv3_device *smmu, const u64 *cmds,
			   unsigned int n)
{
	smmuv3_cmdq_submit(&smmu->cmdq, cmds, n);
	return smmuv3_cmdq_sync(&smmu->cmdq);
}

/**
 * smmuv3_cmdq_init_ring() - set a queue up on a ring already allocated
 * @cmdq: the queue
 * @dev: the SMMU, for messages
 * @base: its registers
 * @ring: 2^@shift commands of queue memory
 * @dma: its bus address
 * @shift: log2 of the number of entries
 *
 * CMDQ_PROD and CMDQ_CONS must then be programmed to 0.
 */
void smmuv3_cmdq_init_ring(struct smmuv3_cmdq *cmdq, struct device *dev,
			   void __iomem *base, __le64 *ring, dma_addr_t dma,
			   unsigned int shift)
{
	memset(cmdq, 0, sizeof(*cmdq));
	cmdq->q.base = ring;
	cmdq->q.dma = dma;
	cmdq->q.shift = shift;
	cmdq->base = base;
	cmdq->dev = dev;
	cmdq->timeout_us = SMMUV3_CMDQ_TIMEOUT_US;
	cmdq->share_max = SMMUV3_CMDQ_SHARE_MAX;
	raw_spin_lock_init(&cmdq->lock);
	raw_spin_lock_init(&cmdq->gerror_lock);
}

/**
 * smmuv3_cmdq_init() - allocate and set up an SMMU's command queue
 * @cmdq: the queue
 * @dev: the SMMU
 * @base: its registers
 * @shift: log2 of the number of entries
 *
 * Return: 0 or -ENOMEM.
 */
int smmuv3_cmdq_init(struct smmuv3_cmdq *cmdq, struct device *dev,
		     void __iomem *base, unsigned int shift)
{
	dma_addr_t dma;
	__le64 *ring = dmam_alloc_coherent(dev, (CMD_DWORDS << 3) << shift,
					   &dma, GFP_KERNEL);

	if (!ring)
		return -ENOMEM;
	smmuv3_cmdq_init_ring(cmdq, dev, base, ring, dma, shift);
	return 0;
}

/**
 * smmuv3_gerror_irq() - the GERROR interrupt
 * @irq: its number
 * @dev: the SMMU
 *
 * A refused command (CMDQ_ERR) is skipped as a waiter on the queue would
 * skip it, so that the queue runs on with no one waiting; one at the
 * position last acknowledged is left to the waiters, or the SMMU's retry
 * and this interrupt would take turns for ever.  Every other active
 * global error is logged and acknowledged: exactly those bits toggle in
 * GERRORN, never CMDQ_ERR's, under the lock the queue takes for its own
 * acknowledgment.  In Service Failure Mode (SFM_ERR) the SMMU may consume
 * no more commands: the queue is marked wedged where CMDQ_CONS stands, so
 * that syncs fail at once instead of each waiting a bound, until it moves.
 *
 * Return: IRQ_HANDLED, or IRQ_NONE if no error was active and none that
 * a waiter acknowledged accounts for the interrupt.
 */
irqreturn_t smmuv3_gerror_irq(int irq, void *dev)
{
	struct smmuv3_device *smmu = dev;
	struct smmuv3_cmdq *cmdq = &smmu->cmdq;
	struct smmuv3_cmdq_refusal r = {};
	u32 gerror, gerrorn, active, handled;
	unsigned long flags;
	bool claimed;

	raw_spin_lock_irqsave(&cmdq->gerror_lock, flags);
	active = (cmdq_read(cmdq, SMMUV3_GERROR) ^
		  cmdq_read(cmdq, SMMUV3_GERRORN)) & GERROR_CMDQ_ERR;
	if (active)
		cmdq_skip_error_locked(cmdq, &r, NULL);
	gerror = cmdq_read(cmdq, SMMUV3_GERROR);
	gerrorn = cmdq_read(cmdq, SMMUV3_GERRORN);
	handled = (gerror ^ gerrorn) & GERROR_ERR_MASK & ~GERROR_CMDQ_ERR;
	active |= handled;
	if (handled & GERROR_SFM_ERR)
		WRITE_ONCE(cmdq->stuck, cmdq_poll_cons(cmdq) + 1);
	if (handled)
		cmdq_write(cmdq, SMMUV3_GERRORN, gerrorn ^ handled, false);
	claimed = !active && cmdq->taken;
	if (claimed)
		cmdq->taken--;
	raw_spin_unlock_irqrestore(&cmdq->gerror_lock, flags);

	cmdq_report_refusal(cmdq, &r);
	if (handled & GERROR_SFM_ERR)
		dev_crit_ratelimited(smmu->dev,
				     "service failure mode: commands may not complete\n");
	if (handled)
		dev_err_ratelimited(smmu->dev, "global error %#x\n", handled);
	return active || claimed ? IRQ_HANDLED : IRQ_NONE;
}
