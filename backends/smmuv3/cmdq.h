/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The SMMUv3 command queue, shared by every CPU of the system.
 *
 * A raw spinlock covers writing commands into queue memory, never a wait,
 * nor (but in one hold that fills half the queue) the write of CMDQ_PROD:
 * one CPU at a time moves CMDQ_PROD past everything written, with the lock
 * free.  A CPU waits for its own CMD_SYNC (or for room) holding no lock:
 * it publishes its commands if no write of CMDQ_PROD has covered them,
 * polls CMDQ_CONS and advances a shared consumer position with a
 * compare-and-exchange.  Positions are monotonic 64-bit
 * counts, so a wait for "CONS past my CMD_SYNC" is exact across wraps.
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
 * @delay: one back-off step of a wait, udelay(1) by default
 * @now: the time in nanoseconds, ktime_get_ns() by default, on which a
 *	wait's bound (&smmuv3_cmdq.timeout_us) is measured
 * @contended: called under &smmuv3_cmdq.lock: whether another CPU waits
 *	to take it, raw_spin_is_contended() by default; a caller whose
 *	commands are written then leaves its CMD_SYNC to that CPU
 * @cpu: the CPU the caller runs on, raw_smp_processor_id() by default:
 *	where a recovery runs, for a caller that would wait for it
 *
 * Any of them may be NULL for the default MMIO access.  The seam where a
 * test's fake SMMU plugs in, as arm_smmu_impl is upstream.
 */
struct smmuv3_cmdq_impl {
	u32 (*read_reg)(struct smmuv3_cmdq *cmdq, unsigned int off);
	void (*write_reg)(struct smmuv3_cmdq *cmdq, unsigned int off, u32 val);
	void (*delay)(struct smmuv3_cmdq *cmdq);
	u64 (*now)(struct smmuv3_cmdq *cmdq);
	bool (*contended)(struct smmuv3_cmdq *cmdq);
	unsigned int (*cpu)(struct smmuv3_cmdq *cmdq);
};

/**
 * struct smmuv3_cmdq - one SMMU's command queue
 * @q: the ring; @q.prod and @q.cons are unused (see @prod, @cons)
 * @base: the SMMU's registers
 * @dev: the SMMU, for messages
 * @impl: register access, or NULL for MMIO
 * @timeout_us: a call's bound, in microseconds of @impl->now: how long it
 *	waits with CMDQ_CONS still
 * @share_max: a caller may leave its CMD_SYNC to a CPU waiting for @lock
 *	while fewer than this many commands wait for one (cmdq.c); 0 never
 * @force_sync_after: if nonzero, at most this many commands other than
 *	CMD_SYNC, all with one opcode, are written between two CMD_SYNCs (a
 *	CMD_SYNC is inserted): Arm MMU-700 erratum 2812531
 * @lock: serialises writing commands; never held while waiting for the
 *	SMMU, nor while printing: a console may send through a device
 *	behind this SMMU, and unmap, and sync
 * @gerror_lock: serialises GERRORN updates, skipping a refused command,
 *	and counting lost commands; never held while printing either
 * @prod: commands written, ever; written under @lock, each command's slot
 *	before it (release), read without it by the CPU publishing
 * @since_sync: commands other than CMD_SYNC written since the last one;
 *	under @lock
 * @window_op: the opcode of the last command written; under @lock
 * @published: commands CMDQ_PROD has been moved past, or is being; written
 *	by the CPU holding @publishing, before its CMDQ_PROD write
 * @publishing: SMMUV3_CMDQ_PUBLISH_FREE, or how a CPU writing CMDQ_PROD
 *	(with interrupts off) took it
 * @sync_pos: position + 1 of the last CMD_SYNC written (0: none); written
 *	under @lock, read without it by callers waiting for a CMD_SYNC
 *	another CPU owes them
 * @owe_pos: position + 1 of the last command whose caller left its
 *	CMD_SYNC to the next holder of @lock; owed while @owe_pos >=
 *	@sync_pos; under @lock
 * @fallbacks: callers that waited for an owed CMD_SYNC in vain and wrote
 *	their own; under @lock
 * @cons: commands the SMMU has consumed, as far as any CPU has seen;
 *	only grows, by cmpxchg64
 * @stuck: a wait saw CMDQ_CONS still at @stuck - 1 for a whole bound;
 *	until it moves, every wait fails at once (0: none)
 * @nlost: commands lost, ever (dropped from a full queue on a wedged SMMU,
 *	or refused by the SMMU), and CMD_SYNCs that timed out; under
 *	@gerror_lock
 * @recovered: @nlost when the last recovery that completed began
 * @recovering: the CPU, + 1, that took the recovery the others wait for
 *	(0: none); a hint of where it runs, as a preemptible caller may
 *	move
 * @err_at: position + 1 of the last refused command acknowledged (0:
 *	none); under @gerror_lock
 * @taken: CMDQ_ERRs a waiter acknowledged whose interrupt the GERROR
 *	handler has not yet claimed; under @gerror_lock
 */
struct smmuv3_cmdq {
	struct smmuv3_queue q;
	void __iomem *base;
	struct device *dev;
	const struct smmuv3_cmdq_impl *impl;
	unsigned long timeout_us;
	u32 force_sync_after;
	u32 share_max;
	raw_spinlock_t lock;		/* see above */
	raw_spinlock_t gerror_lock;	/* GERRORN, @nlost */
	u64 prod;
	u32 since_sync;
	u8 window_op;
	u64 sync_pos;
	u64 owe_pos;
	unsigned long fallbacks;
	/* Polled by waiters: off the line that every command writes. */
	u64 published ____cacheline_aligned_in_smp;
	u32 publishing;
	u64 cons;
	u64 stuck;
	u64 nlost;
	u64 recovered;
	u32 recovering;
	u64 err_at;
	u32 taken;
};

/*
 * &smmuv3_cmdq.publishing: whether a CPU writes CMDQ_PROD now, and if so
 * whether it then writes a CMD_SYNC for callers that left it theirs.
 */
enum {
	SMMUV3_CMDQ_PUBLISH_FREE,
	SMMUV3_CMDQ_PUBLISH_ONLY,	/* under the lock, or from a wait */
	SMMUV3_CMDQ_PUBLISH_SETTLES,	/* as the lock goes for good */
	SMMUV3_CMDQ_PUBLISH_OWED,	/* ...and a caller left it its CMD_SYNC */
};

#define SMMUV3_CMDQ_TIMEOUT_US	1000000
/* &smmuv3_cmdq.share_max unless sharing is turned off. */
#define SMMUV3_CMDQ_SHARE_MAX	16

int smmuv3_cmdq_init(struct smmuv3_cmdq *cmdq, struct device *dev,
		     void __iomem *base, unsigned int shift);
void smmuv3_cmdq_init_ring(struct smmuv3_cmdq *cmdq, struct device *dev,
			   void __iomem *base, __le64 *ring, dma_addr_t dma,
			   unsigned int shift);
void smmuv3_cmdq_submit(struct smmuv3_cmdq *cmdq, const u64 *cmds,
			unsigned int n);
int smmuv3_cmdq_sync(struct smmuv3_cmdq *cmdq);
int smmuv3_cmdq_submit_sync(struct smmuv3_cmdq *cmdq, const u64 *cmds,
			    unsigned int n);
irqreturn_t smmuv3_gerror_irq(int irq, void *dev);

#endif /* _FP_SMMUV3_CMDQ_H */
