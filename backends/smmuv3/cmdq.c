// SPDX-License-Identifier: GPL-2.0-only
/*
 * The command queue.  Commands are written to queue memory as they come and
 * only published (CMDQ_PROD moved) at a sync or when half the queue is
 * waiting, so a flush of any size costs one CMD_SYNC.
 *
 * One lock, held while waiting for the sync: simpler than upstream's
 * lock-free queue, and enough for one device under test.  The wait is
 * bounded; a timeout is an error for flushpol to count, never a hang.
 */
#define pr_fmt(fmt) "flushpol_smmuv3: " fmt

#include <linux/delay.h>
#include <linux/io.h>
#include <linux/iopoll.h>

#include "smmuv3_dev.h"

#define SMMUV3_SYNC_TIMEOUT_US	1000000
#define SMMUV3_SPIN		64

static u32 q_idx(const struct smmuv3_queue *q, u32 p)
{
	return p & (BIT(q->shift) - 1);
}

static u32 q_wrp(const struct smmuv3_queue *q, u32 p)
{
	return p & BIT(q->shift);
}

static bool q_full(const struct smmuv3_queue *q)
{
	return q_idx(q, q->prod) == q_idx(q, q->cons) &&
	       q_wrp(q, q->prod) != q_wrp(q, q->cons);
}

static bool q_empty(const struct smmuv3_queue *q)
{
	return q->prod == q->cons;
}

static u32 q_inc(const struct smmuv3_queue *q, u32 p)
{
	return (p + 1) & (BIT(q->shift + 1) - 1);
}

/*
 * A command the SMMU refused stops the queue (GERROR.CMDQ_ERR).  Say which
 * one, replace it with a CMD_SYNC so the rest can run, and acknowledge.
 */
static void smmuv3_cmdq_skip_error(struct smmuv3_device *smmu)
{
	struct smmuv3_queue *q = &smmu->cmdq;
	u32 cons = readl_relaxed(smmu->base + SMMUV3_CMDQ_CONS);
	__le64 *slot = &q->base[q_idx(q, cons) * CMD_DWORDS];
	u32 gerror = readl_relaxed(smmu->base + SMMUV3_GERROR);
	u64 sync[CMD_DWORDS];

	dev_err_ratelimited(smmu->dev,
			    "command %016llx %016llx refused (CERROR %lu)\n",
			    le64_to_cpu(slot[0]), le64_to_cpu(slot[1]),
			    FIELD_GET(CMDQ_CONS_ERR, cons));
	smmuv3_cmd_sync(sync);
	slot[0] = cpu_to_le64(sync[0]);
	slot[1] = cpu_to_le64(sync[1]);
	dma_wmb();
	writel(gerror & GERROR_CMDQ_ERR ?
	       readl_relaxed(smmu->base + SMMUV3_GERRORN) ^ GERROR_CMDQ_ERR :
	       readl_relaxed(smmu->base + SMMUV3_GERRORN),
	       smmu->base + SMMUV3_GERRORN);
	/* Kick the queue again. */
	writel(q->prod, smmu->base + SMMUV3_CMDQ_PROD);
}

static bool smmuv3_cmdq_error(struct smmuv3_device *smmu)
{
	u32 gerror = readl_relaxed(smmu->base + SMMUV3_GERROR);
	u32 gerrorn = readl_relaxed(smmu->base + SMMUV3_GERRORN);

	return (gerror ^ gerrorn) & GERROR_CMDQ_ERR;
}

/*
 * Wait until the SMMU has consumed everything published: spin briefly (a
 * model answers at once), then back off with udelay, under a hard bound.
 */
static int smmuv3_cmdq_drain(struct smmuv3_device *smmu)
{
	struct smmuv3_queue *q = &smmu->cmdq;
	unsigned long waited = 0;
	unsigned int spins = 0;

	for (;;) {
		q->cons = readl_relaxed(smmu->base + SMMUV3_CMDQ_CONS) &
			  (BIT(q->shift + 1) - 1);
		if (q_empty(q))
			return 0;
		if (smmuv3_cmdq_error(smmu)) {
			smmuv3_cmdq_skip_error(smmu);
			continue;
		}
		if (waited >= SMMUV3_SYNC_TIMEOUT_US) {
			dev_err_ratelimited(smmu->dev,
					    "CMD_SYNC timeout: prod %#x cons %#x\n",
					    q->prod, q->cons);
			return -ETIMEDOUT;
		}
		if (spins++ < SMMUV3_SPIN) {
			cpu_relax();
		} else {
			udelay(1);
			waited++;
		}
	}
}

static void smmuv3_cmdq_publish(struct smmuv3_device *smmu)
{
	/* writel orders the queue writes before the SMMU sees PROD. */
	writel(smmu->cmdq.prod, smmu->base + SMMUV3_CMDQ_PROD);
	smmu->unpublished = 0;
}

static void smmuv3_cmdq_write(struct smmuv3_device *smmu, const u64 *cmd)
{
	struct smmuv3_queue *q = &smmu->cmdq;
	__le64 *slot;

	/*
	 * Full, and still full after the drain's bound: every slot holds a
	 * command the SMMU has not read.  Overwriting one would lose it, and
	 * moving PROD past CONS would make the queue look empty: drop this
	 * one instead, and let the next sync make up for it.
	 */
	if (q_full(q)) {
		smmuv3_cmdq_publish(smmu);
		if (smmuv3_cmdq_drain(smmu)) {
			smmu->cmdq_dropped = true;
			return;
		}
	}
	slot = &q->base[q_idx(q, q->prod) * CMD_DWORDS];
	slot[0] = cpu_to_le64(cmd[0]);
	slot[1] = cpu_to_le64(cmd[1]);
	q->prod = q_inc(q, q->prod);
	if (++smmu->unpublished >= BIT(q->shift - 1))
		smmuv3_cmdq_publish(smmu);
}

static void smmuv3_cmdq_submit(void *priv, const u64 *cmds, unsigned int n)
{
	struct smmuv3_device *smmu = priv;
	unsigned long flags;

	spin_lock_irqsave(&smmu->cmdq_lock, flags);
	while (n--) {
		smmuv3_cmdq_write(smmu, cmds);
		cmds += CMD_DWORDS;
	}
	spin_unlock_irqrestore(&smmu->cmdq_lock, flags);
}

static int smmuv3_cmdq_sync(void *priv)
{
	struct smmuv3_device *smmu = priv;
	u64 cmds[3][CMD_DWORDS];
	unsigned long flags;
	bool recover;
	int ret;

	/*
	 * A dropped command may have been any invalidation: no sync may
	 * succeed until everything it could have meant is invalidated.
	 */
	smmuv3_cmd_cfgi_all(cmds[0]);
	smmuv3_cmd_tlbi_nsnh_all(cmds[1]);
	smmuv3_cmd_sync(cmds[2]);
	spin_lock_irqsave(&smmu->cmdq_lock, flags);
	recover = smmu->cmdq_dropped;
	smmu->cmdq_dropped = false;
	if (recover) {
		smmuv3_cmdq_write(smmu, cmds[0]);
		smmuv3_cmdq_write(smmu, cmds[1]);
	}
	smmuv3_cmdq_write(smmu, cmds[2]);
	smmuv3_cmdq_publish(smmu);
	ret = smmuv3_cmdq_drain(smmu);
	if (ret && recover)
		smmu->cmdq_dropped = true;
	/* Drained, but what this sync wrote did not all fit. */
	if (!ret && smmu->cmdq_dropped)
		ret = -ETIMEDOUT;
	spin_unlock_irqrestore(&smmu->cmdq_lock, flags);
	return ret;
}

const struct smmuv3_cmdq_ops smmuv3_cmdq_ops = {
	.submit	= smmuv3_cmdq_submit,
	.sync	= smmuv3_cmdq_sync,
};

/* Issue @n commands and a CMD_SYNC: configuration changes, reset. */
int smmuv3_cmdq_issue_sync(struct smmuv3_device *smmu, const u64 *cmds,
			   unsigned int n)
{
	smmuv3_cmdq_submit(smmu, cmds, n);
	return smmuv3_cmdq_sync(smmu);
}
