/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The SMMUv3 command queue, shared by every CPU of the system.
 *
 * The queue lock covers writing commands into queue memory and moving
 * CMDQ_PROD, never a wait: a CPU that must wait for the SMMU (a full queue,
 * its own CMD_SYNC) drops the lock and polls CMDQ_CONS with interrupts as
 * its caller had them.  Positions are monotonic 64-bit counts, so a wait
 * for "CONS past my CMD_SYNC" is exact across wraps of the ring.
 */
#ifndef _FP_SMMUV3_CMDQ_H
#define _FP_SMMUV3_CMDQ_H

#include <linux/interrupt.h>
#include <linux/spinlock.h>
#include <linux/types.h>

struct device;
struct smmuv3_cmdq;

/* A ring in memory: the command queue, the event queue. */
struct smmuv3_queue {
	__le64 *base;
	dma_addr_t dma;
	unsigned int shift;	/* log2 of the number of entries */
	u32 prod, cons;		/* index and wrap bit, as the registers */
};

/**
 * struct smmuv3_cmdq_impl - register access an implementation can override
 * @read_reg: read a 32-bit register at @off from page 0 or 1
 * @write_reg: write one
 * @delay: one back-off step of a wait, udelay(1) by default; a wait gives
 *	up after &smmuv3_cmdq.timeout_us of them
 *
 * Any of them may be NULL for the default MMIO access.  The seam where a
 * test's fake SMMU plugs in, as arm_smmu_impl is upstream.
 */
struct smmuv3_cmdq_impl {
	u32 (*read_reg)(struct smmuv3_cmdq *cmdq, unsigned int off);
	void (*write_reg)(struct smmuv3_cmdq *cmdq, unsigned int off, u32 val);
	void (*delay)(struct smmuv3_cmdq *cmdq);
};

/* Lost commands remembered for the syncs that cover them. */
#define SMMUV3_CMDQ_LOST	16

/**
 * struct smmuv3_cmdq - one SMMU's command queue
 * @q: the ring; @q.prod and @q.cons are unused (see @prod, @cons)
 * @base: the SMMU's registers
 * @dev: the SMMU, for messages
 * @impl: register access, or NULL for MMIO
 * @timeout_us: a wait's bound, in @impl->delay steps
 * @lock: serialises writing commands and moving CMDQ_PROD; never held
 *	while waiting for the SMMU
 * @gerror_lock: serialises GERRORN updates (queue and GERROR interrupt)
 * @prod: commands written, ever
 * @published: commands CMDQ_PROD has been moved past
 * @cons: commands the SMMU has consumed, as last read from CMDQ_CONS
 * @dropped: a command found the queue full past the bound and was dropped;
 *	while CMDQ_CONS stays at @drop_cons, further ones are dropped at once
 * @drop_cons: @cons when that happened
 * @stuck: a wait for CMDQ_CONS timed out; while it stays at @stuck_cons,
 *	further waits fail at once
 * @stuck_cons: @cons when that happened
 * @recover: a command was lost (dropped, or refused by the SMMU): the next
 *	sync invalidates everything first
 * @recover_pos: where the last such CFGI_ALL, TLBI_NSNH_ALL pair was put
 * @recover_nlost: @nlost before it was put
 * @lost: positions of the last lost commands, by @nlost modulo the size
 * @nlost: commands lost, ever
 * @force_sync_after: if nonzero, the SMMU must consume a CMD_SYNC at
 *	least every @force_sync_after commands (Arm MMU-700 erratum
 *	2812531); set by the driver after smmuv3_cmdq_init()
 */
struct smmuv3_cmdq {
	struct smmuv3_queue q;
	void __iomem *base;
	struct device *dev;
	const struct smmuv3_cmdq_impl *impl;
	unsigned long timeout_us;
	spinlock_t lock;		/* see above */
	spinlock_t gerror_lock;		/* GERRORN */
	u64 prod;
	u64 published;
	u64 cons;
	bool dropped;
	u64 drop_cons;
	bool stuck;
	u64 stuck_cons;
	bool recover;
	u64 recover_pos;
	u64 recover_nlost;
	u64 lost[SMMUV3_CMDQ_LOST];
	u64 nlost;
	u32 force_sync_after;
};

#define SMMUV3_CMDQ_TIMEOUT_US	1000000

int smmuv3_cmdq_init(struct smmuv3_cmdq *cmdq, struct device *dev,
		     void __iomem *base, unsigned int shift);
void smmuv3_cmdq_init_ring(struct smmuv3_cmdq *cmdq, struct device *dev,
			   void __iomem *base, __le64 *ring, dma_addr_t dma,
			   unsigned int shift);
void smmuv3_cmdq_submit(struct smmuv3_cmdq *cmdq, const u64 *cmds,
			unsigned int n);
int smmuv3_cmdq_sync(struct smmuv3_cmdq *cmdq);
irqreturn_t smmuv3_gerror_irq(int irq, void *dev);

#endif /* _FP_SMMUV3_CMDQ_H */
