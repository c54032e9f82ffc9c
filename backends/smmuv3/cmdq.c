// SPDX-License-Identifier: GPL-2.0-only
/*
 * The command queue, fit for several CPUs.
 *
 * Writing: under @lock, with interrupts off, a CPU copies its commands into
 * queue memory at monotonic positions (@prod).  CMDQ_PROD moves only at a
 * sync, or when half the queue is waiting, so one CMD_SYNC publishes and
 * completes every CPU's commands written before it: a later sync completes
 * earlier CPUs' commands too.
 *
 * Waiting: never under @lock.  A CPU that needs the SMMU to move (the queue
 * is full, or it waits for its own CMD_SYNC) drops the lock and polls
 * CMDQ_CONS with interrupts as its caller had them: spinning briefly, then
 * backing off one delay step at a time.  Callers may be atomic (iotlb_sync
 * runs under spinlocks), so this polls and never sleeps.  The steps of one
 * call, submit or sync, add up to one bound: a wedged SMMU yields
 * -ETIMEDOUT, never a lockup.
 *
 * Losing: a full queue never overwrites an unread command: past the bound
 * the command is dropped, and so is every further one at once while
 * CMDQ_CONS stays where it was.  A command the SMMU refuses (GERROR.CMDQ_ERR,
 * CMDQ_CONS.ERR) is replaced by a CMD_SYNC so the queue runs on.  Either way
 * its position is remembered: if a lost command lies between the last
 * recovery before a sync and the sync itself, that sync invalidates
 * everything (CFGI_ALL, TLBI_NSNH_ALL), which covers whatever was lost
 * before it on any CPU, and syncs again before it returns; it fails (-EIO)
 * only if a command is lost again on the way.
 */
#define pr_fmt(fmt) "flushpol_smmuv3: " fmt

#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/io.h>

#include "smmuv3_dev.h"

/* Polls before the first delay step: a model answers at once. */
#define SMMUV3_CMDQ_SPIN	64

/* What one call may still wait, in delay steps. */
struct smmuv3_cmdq_budget {
	unsigned int spins;
	unsigned long delays;
};

static u32 cmdq_read(struct smmuv3_cmdq *cmdq, unsigned int off)
{
	if (cmdq->impl && cmdq->impl->read_reg)
		return cmdq->impl->read_reg(cmdq, off);
	return readl_relaxed(cmdq->base + off);
}

/* writel: the commands in queue memory are visible before CMDQ_PROD moves. */
static void cmdq_write(struct smmuv3_cmdq *cmdq, unsigned int off, u32 val)
{
	if (cmdq->impl && cmdq->impl->write_reg)
		cmdq->impl->write_reg(cmdq, off, val);
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

/*
 * Extend CMDQ_CONS to a position.  It cannot pass what was published, so
 * the distance from the last value read is below twice the queue size.
 */
static void cmdq_update_cons(struct smmuv3_cmdq *cmdq)
{
	u32 hw = cmdq_read(cmdq, SMMUV3_CMDQ_CONS);
	u64 ahead = (hw - cmdq_reg(cmdq, cmdq->cons)) &
		    (BIT(cmdq->q.shift + 1) - 1);

	if (ahead <= cmdq->published - cmdq->cons)
		cmdq->cons += ahead;
	if (cmdq->dropped && cmdq->cons != cmdq->drop_cons)
		cmdq->dropped = false;
	if (cmdq->stuck && cmdq->cons != cmdq->stuck_cons)
		cmdq->stuck = false;
}

static void cmdq_lose(struct smmuv3_cmdq *cmdq, u64 pos)
{
	cmdq->lost[cmdq->nlost++ % SMMUV3_CMDQ_LOST] = pos;
	cmdq->recover = true;
}

/*
 * The SMMU refused the command at CMDQ_CONS and stopped.  Replace it with
 * a CMD_SYNC, remember it lost, and acknowledge: GERRORN's bit toggles to
 * GERROR's, whatever both were before.  Under @lock.
 */
static void cmdq_skip_error(struct smmuv3_cmdq *cmdq)
{
	u32 gerror, gerrorn, cerror;
	unsigned long flags;
	u64 sync[CMD_DWORDS];
	__le64 *slot;

	spin_lock_irqsave(&cmdq->gerror_lock, flags);
	gerror = cmdq_read(cmdq, SMMUV3_GERROR);
	gerrorn = cmdq_read(cmdq, SMMUV3_GERRORN);
	if (!((gerror ^ gerrorn) & GERROR_CMDQ_ERR))
		goto out;

	cmdq_update_cons(cmdq);
	cerror = FIELD_GET(CMDQ_CONS_ERR, cmdq_read(cmdq, SMMUV3_CMDQ_CONS));
	slot = cmdq_slot(cmdq, cmdq->cons);
	dev_err_ratelimited(cmdq->dev,
			    "command %016llx %016llx refused (CERROR %u)\n",
			    le64_to_cpu(slot[0]), le64_to_cpu(slot[1]), cerror);
	if (cmdq->cons < cmdq->published) {
		smmuv3_cmd_sync(sync);
		slot[0] = cpu_to_le64(sync[0]);
		slot[1] = cpu_to_le64(sync[1]);
		cmdq_lose(cmdq, cmdq->cons);
	}
	/* The slot is rewritten before the SMMU resumes reading it. */
	dma_wmb();
	cmdq_write(cmdq, SMMUV3_GERRORN,
		   gerrorn ^ ((gerror ^ gerrorn) & GERROR_CMDQ_ERR));
out:
	spin_unlock_irqrestore(&cmdq->gerror_lock, flags);
}

static void cmdq_publish(struct smmuv3_cmdq *cmdq)
{
	if (cmdq->published == cmdq->prod)
		return;
	cmdq->published = cmdq->prod;
	cmdq_write(cmdq, SMMUV3_CMDQ_PROD, cmdq_reg(cmdq, cmdq->prod));
}

/*
 * Wait, without @lock, until the SMMU has consumed everything before
 * @target, acknowledging refused commands on the way.  Every iteration
 * counts against the call's budget, errors included.  A wait that timed
 * out leaves CMDQ_CONS marked: until it moves, every wait fails at once,
 * so a wedged SMMU costs one bound, not one per sync.
 */
static int cmdq_wait_cons(struct smmuv3_cmdq *cmdq, u64 target,
			  struct smmuv3_cmdq_budget *b)
{
	unsigned long flags;
	bool done, stuck;

	for (;;) {
		spin_lock_irqsave(&cmdq->lock, flags);
		cmdq_update_cons(cmdq);
		done = cmdq->cons >= target;
		if (!done)
			cmdq_skip_error(cmdq);
		stuck = cmdq->stuck;
		if (!done && b->delays >= cmdq->timeout_us && !stuck) {
			cmdq->stuck = true;
			cmdq->stuck_cons = cmdq->cons;
		}
		spin_unlock_irqrestore(&cmdq->lock, flags);
		if (done)
			return 0;
		if (stuck || b->delays >= cmdq->timeout_us)
			return -ETIMEDOUT;
		if (b->spins < SMMUV3_CMDQ_SPIN) {
			b->spins++;
			cpu_relax();
		} else {
			cmdq_delay(cmdq);
			b->delays++;
		}
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

	for (;;) {
		if (cmdq->prod - cmdq->cons < cmdq_size(cmdq))
			return 0;
		cmdq_update_cons(cmdq);
		if (cmdq->prod - cmdq->cons < cmdq_size(cmdq))
			return 0;
		/* Wedged since the last drop: no second wait. */
		if (cmdq->dropped)
			return -ETIMEDOUT;
		cmdq_publish(cmdq);
		target = cmdq->prod - cmdq_size(cmdq) + 1;
		spin_unlock_irqrestore(&cmdq->lock, *flags);
		ret = cmdq_wait_cons(cmdq, target, b);
		spin_lock_irqsave(&cmdq->lock, *flags);
		if (ret) {
			cmdq_update_cons(cmdq);
			if (cmdq->prod - cmdq->cons < cmdq_size(cmdq))
				return 0;
			cmdq->dropped = true;
			cmdq->drop_cons = cmdq->cons;
			return ret;
		}
	}
}

/* Write one command, or drop it.  Under @lock; returns its position. */
static int cmdq_put(struct smmuv3_cmdq *cmdq, const u64 *cmd,
		    unsigned long *flags, struct smmuv3_cmdq_budget *b,
		    u64 *pos)
{
	__le64 *slot;

	if (cmdq_make_room(cmdq, flags, b)) {
		dev_err_ratelimited(cmdq->dev,
				    "command queue full: command %016llx dropped\n",
				    cmd[0]);
		cmdq_lose(cmdq, cmdq->prod);
		return -ETIMEDOUT;
	}
	*pos = cmdq->prod++;
	slot = cmdq_slot(cmdq, *pos);
	slot[0] = cpu_to_le64(cmd[0]);
	slot[1] = cpu_to_le64(cmd[1]);
	if (cmdq->prod - cmdq->published >= cmdq_size(cmdq) / 2)
		cmdq_publish(cmdq);
	return 0;
}

/**
 * smmuv3_cmdq_submit() - append commands, without waiting for them
 * @cmdq: the queue
 * @cmds: @n commands of CMD_DWORDS each
 * @n: how many
 *
 * They may stay unpublished until the next sync.  A full queue is waited
 * for, at most one bound for the whole call; what still does not fit is
 * dropped, and the next sync fails or invalidates everything first.
 */
void smmuv3_cmdq_submit(struct smmuv3_cmdq *cmdq, const u64 *cmds,
			unsigned int n)
{
	struct smmuv3_cmdq_budget b = {};
	unsigned long flags;
	u64 pos;

	spin_lock_irqsave(&cmdq->lock, flags);
	for (; n; n--, cmds += CMD_DWORDS)
		cmdq_put(cmdq, cmds, &flags, &b, &pos);
	spin_unlock_irqrestore(&cmdq->lock, flags);
}

/* Invalidate everything a lost command may have meant, if one was lost. */
static void cmdq_put_recovery(struct smmuv3_cmdq *cmdq, unsigned long *flags,
			      struct smmuv3_cmdq_budget *b)
{
	u64 cmds[2][CMD_DWORDS], first, second;
	u64 nlost = cmdq->nlost;

	smmuv3_cmd_cfgi_all(cmds[0]);
	smmuv3_cmd_tlbi_nsnh_all(cmds[1]);
	cmdq->recover = false;
	if (cmdq_put(cmdq, cmds[0], flags, b, &first) ||
	    cmdq_put(cmdq, cmds[1], flags, b, &second))
		return;
	cmdq->recover_pos = first;
	cmdq->recover_nlost = nlost;
}

/* A lost command between the last recovery before @sync and @sync. */
static bool cmdq_lost_before(struct smmuv3_cmdq *cmdq, u64 rec_pos,
			     u64 rec_nlost, u64 sync)
{
	u64 i;

	if (cmdq->nlost - rec_nlost > SMMUV3_CMDQ_LOST)
		return true;
	for (i = rec_nlost; i < cmdq->nlost; i++) {
		u64 pos = cmdq->lost[i % SMMUV3_CMDQ_LOST];

		if (pos >= rec_pos && pos < sync)
			return true;
	}
	return false;
}

/*
 * One CMD_SYNC, after a recovery if one is due or @recover: 0, -ETIMEDOUT,
 * or -EIO if a command before it was lost (dropped or refused) since the
 * last invalidation of everything.
 *
 * CMDQ_CONS is read once before @lock is dropped: an SMMU that consumes
 * as soon as CMDQ_PROD moves (QEMU's model does so inside the write) has
 * passed the CMD_SYNC by then, and the sync takes @lock, with interrupts
 * off, once instead of three times (on QEMU, a command and its sync went
 * from 2.4-2.9 to 2.1-2.3 us).  Only one look: the waiting itself is done
 * without @lock.
 */
static int cmdq_sync_once(struct smmuv3_cmdq *cmdq, bool recover,
			  struct smmuv3_cmdq_budget *b)
{
	u64 cmd[CMD_DWORDS], pos, rec_pos, rec_nlost;
	bool lost = false, done = false;
	unsigned long flags;
	int ret;

	smmuv3_cmd_sync(cmd);
	spin_lock_irqsave(&cmdq->lock, flags);
	if (cmdq->recover || recover)
		cmdq_put_recovery(cmdq, &flags, b);
	ret = cmdq_put(cmdq, cmd, &flags, b, &pos);
	rec_pos = cmdq->recover_pos;
	rec_nlost = cmdq->recover_nlost;
	cmdq_publish(cmdq);
	if (!ret) {
		cmdq_update_cons(cmdq);
		done = cmdq->cons > pos;
		if (done)
			lost = cmdq_lost_before(cmdq, rec_pos, rec_nlost, pos);
	}
	spin_unlock_irqrestore(&cmdq->lock, flags);
	if (ret)
		return ret;
	if (done)
		return lost ? -EIO : 0;

	ret = cmdq_wait_cons(cmdq, pos + 1, b);
	if (ret) {
		dev_err_ratelimited(cmdq->dev,
				    "CMD_SYNC timeout: at %#x, CMDQ_CONS %#x\n",
				    cmdq_reg(cmdq, pos),
				    cmdq_read(cmdq, SMMUV3_CMDQ_CONS));
		return ret;
	}
	spin_lock_irqsave(&cmdq->lock, flags);
	lost = cmdq_lost_before(cmdq, rec_pos, rec_nlost, pos);
	spin_unlock_irqrestore(&cmdq->lock, flags);
	return lost ? -EIO : 0;
}

/**
 * smmuv3_cmdq_sync() - complete every command written so far, on any CPU
 * @cmdq: the queue
 *
 * Publishes everything written, with a CMD_SYNC after it, and waits for
 * CMDQ_CONS to pass that CMD_SYNC, with the queue lock dropped.  If a
 * command before it was lost (dropped or refused), the caller's TLBI may
 * be the one missing: the caller frees pages or tables on our return, so
 * everything is invalidated (CFGI_ALL, TLBI_NSNH_ALL) and synced once more,
 * within the same bound, before we answer.
 *
 * Return: 0; -ETIMEDOUT if the SMMU did not get there within the bound;
 * -EIO if a command was lost again before the second CMD_SYNC.
 */
int smmuv3_cmdq_sync(struct smmuv3_cmdq *cmdq)
{
	struct smmuv3_cmdq_budget b = {};
	int ret;

	ret = cmdq_sync_once(cmdq, false, &b);
	if (ret != -EIO)
		return ret;
	dev_warn_ratelimited(cmdq->dev,
			     "%llu commands lost so far: invalidating everything before syncing again\n",
			     cmdq->nlost);
	return cmdq_sync_once(cmdq, true, &b);
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

/* The queue of an SMMU, for &smmuv3_flush.cmdq; its priv is the SMMU. */
const struct smmuv3_cmdq_ops smmuv3_cmdq_ops = {
	.submit	= smmuv3_cmdq_ops_submit,
	.sync	= smmuv3_cmdq_ops_sync,
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
	spin_lock_init(&cmdq->lock);
	spin_lock_init(&cmdq->gerror_lock);
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
 * skip it, so that the queue runs on with no one waiting.  Every other
 * active global error is logged and acknowledged: exactly those bits
 * toggle in GERRORN, never CMDQ_ERR's, under the lock the queue takes for
 * its own acknowledgment.
 *
 * Return: IRQ_HANDLED, or IRQ_NONE if no error was active.
 */
irqreturn_t smmuv3_gerror_irq(int irq, void *dev)
{
	struct smmuv3_device *smmu = dev;
	struct smmuv3_cmdq *cmdq = &smmu->cmdq;
	u32 gerror, gerrorn, active, handled;
	unsigned long flags;

	/* Under the queue's lock, as a waiter would skip it. */
	spin_lock_irqsave(&cmdq->lock, flags);
	active = (cmdq_read(cmdq, SMMUV3_GERROR) ^
		  cmdq_read(cmdq, SMMUV3_GERRORN)) & GERROR_CMDQ_ERR;
	if (active)
		cmdq_skip_error(cmdq);
	spin_unlock_irqrestore(&cmdq->lock, flags);

	spin_lock_irqsave(&cmdq->gerror_lock, flags);
	gerror = cmdq_read(cmdq, SMMUV3_GERROR);
	gerrorn = cmdq_read(cmdq, SMMUV3_GERRORN);
	handled = (gerror ^ gerrorn) & GERROR_ERR_MASK & ~GERROR_CMDQ_ERR;
	active |= handled;
	if (handled)
		cmdq_write(cmdq, SMMUV3_GERRORN, gerrorn ^ handled);
	spin_unlock_irqrestore(&cmdq->gerror_lock, flags);

	if (handled)
		dev_err_ratelimited(smmu->dev, "global error %#x\n", handled);
	return active ? IRQ_HANDLED : IRQ_NONE;
}
