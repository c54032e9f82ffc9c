/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A fake SMMUv3 for the shipped command queue (backends/smmuv3/cmdq.c,
 * compiled into the test module by fp_smmuv3_fake.c): its registers behind
 * the queue's register seam, its ring in memory, and a consumer that lags,
 * reading only a few commands per CMDQ_CONS read.  It applies the commands
 * it consumes to the TLB model, each as the architecture scopes it, and
 * completes them there only at each CMD_SYNC it reaches.  It can refuse a
 * command (CMDQ_CONS.ERR = CERROR_ILL, GERROR.CMDQ_ERR toggled, the queue
 * halted until GERRORN acknowledges), raise other global errors, and wedge.
 *
 * Configuration is cached as the architecture allows: a stream's STE and
 * CD, once fetched, stay in use until a CFGI reaching the stream has been
 * consumed and a later CMD_SYNC has completed, whatever memory says by
 * then; and the device behind a stream with a cached configuration keeps
 * walking its working set through it after every command consumed, so a
 * TLBI performed before the configuration is gone is undone by a refill.
 * Completion happens only at a consumed CMD_SYNC.
 *
 * The SMMU may read a command at any time once CMDQ_PROD has passed it,
 * each 64-bit piece on its own: this one reads both at the moment CMDQ_PROD
 * passes them, and performs what it read then.  Software may change the
 * command at CMDQ_CONS while the queue is halted on it (a refused command
 * replaced by a CMD_SYNC), which the SMMU reads again once the error is
 * acknowledged; any other change to a command between CMDQ_PROD passing it
 * and its consumption, and a CMDQ_PROD more than a queue ahead of CMDQ_CONS,
 * are errors of the queue, counted, and a test using the fake fails on
 * them when it ends.
 *
 * The oracle counts the non-sync commands consumed between two CMD_SYNCs
 * (the MMU-700 erratum 2812531 bound), and hooks let a test see every
 * command at the moment CMDQ_PROD passes it and when it is consumed.
 */
#ifndef _FP_SMMUV3_FAKE_H
#define _FP_SMMUV3_FAKE_H

#include <kunit/test.h>

#include "../backends/smmuv3/smmuv3_dev.h"
#include "fp_model.h"

#define FPT_CERROR_ILL	1
#define FPT_V3_STREAMS	4

struct fpt_v3_fake;

/**
 * struct fpt_v3_stream - a device behind the fake SMMU
 * @ste: the context its STE in memory points at; NULL: abort
 * @cached: the context the SMMU's cached STE and CD point at
 * @cfgi: a CFGI reaching it was consumed; the next CMD_SYNC drops @cached
 * @iova: start of the device's working set
 * @size: its length; the device walks it after every command
 */
struct fpt_v3_stream {
	struct fpm_ctx *ste;
	struct fpm_ctx *cached;
	bool cfgi;
	unsigned long iova;
	size_t size;
};

/**
 * struct fpt_v3_hooks - a test sees the commands as the SMMU does
 * @publish: a command CMDQ_PROD has just passed, both double words read
 *	then, as the SMMU may read them from then on
 * @consume: a command consumed, or @refused
 * @priv: the test's
 *
 * Both are called under &fpt_v3_fake.lock, a raw spinlock, with
 * interrupts off: they may take only raw spinlocks and must not allocate.
 */
struct fpt_v3_hooks {
	void (*publish)(struct fpt_v3_fake *f, u64 pos, const u64 *cmd);
	void (*consume)(struct fpt_v3_fake *f, u64 pos, const u64 *cmd,
			bool refused);
	void *priv;
};

/**
 * struct fpt_v3_fake - the fake SMMU
 * @smmu: what the queue's ops take as priv; its cmdq is the real queue
 * @model: where consumed commands take effect
 * @lock: the fake's registers and consumer; CPUs poll concurrently.  Raw:
 *	the queue reads and writes registers under its own raw spinlocks
 * @prod: CMDQ_PROD as last written
 * @cons: CMDQ_CONS, index and wrap, without ERR
 * @cerror: CMDQ_CONS.ERR while halted
 * @gerror: GERROR
 * @gerrorn: GERRORN as last written
 * @per_poll: commands consumed per CMDQ_CONS read; 0 wedges the SMMU
 * @wedge: the SMMU consumes nothing once @consumed_pos reaches...
 * @wedge_at: ...this position
 * @stall_until: the SMMU consumes nothing until @delays reaches this
 * @refuse_op: refuse commands with this opcode (0: any TLBI)...
 * @refuse_n: ...this many of the next ones it reaches
 * @halted: refused a command, waits for GERRORN to acknowledge it
 * @reads: CMDQ_CONS reads
 * @delays: the queue's back-off steps
 * @consumed: commands consumed
 * @tlbi: TLBI commands applied to @model
 * @syncs: CMD_SYNCs consumed
 * @cfgi: CFGI commands consumed
 * @refused: commands refused
 * @bad: fields out of place (a range's TG, a nonzero VMID)
 * @halted_reads: CMDQ_CONS reads while halted, since the last halt
 * @streams: devices, by StreamID
 * @since_sync: non-sync commands consumed since the last CMD_SYNC
 * @max_between_syncs: the most of them ever
 * @published: CMDQ_PROD as a position (never wraps)
 * @consumed_pos: CMDQ_CONS as a position
 * @hooks: or NULL
 * @eager: perform each TLBI as it is consumed, the earliest the
 *	architecture allows: a device refilling through a cached
 *	configuration then refills after it, as the architecture also allows
 * @real_delay: a back-off step waits (udelay) and may reschedule, for
 *	tests whose consumer runs in a thread of its own
 * @consumer: that thread, if started
 * @consumer_data: its argument
 * @livelock: the queue polled a halted SMMU FPT_V3_LIVELOCK times without
 *	acknowledging; the fake then acknowledged itself, so that a broken
 *	queue fails its test instead of hanging the kernel
 * @test: the test it belongs to
 * @read: each slot's command as the SMMU read it when CMDQ_PROD passed it
 * @rewritten: commands that changed in memory after CMDQ_PROD passed them
 *	and before they were consumed, other than at a halted CMDQ_CONS
 * @overflow: CMDQ_PROD writes that put it more than a queue ahead of
 *	CMDQ_CONS
 */
#define FPT_V3_LIVELOCK	100000

struct fpt_v3_fake {
	struct smmuv3_device smmu;
	struct fpm_smmu *model;
	raw_spinlock_t lock;	/* all below */
	u32 prod, cons, cerror, gerror, gerrorn;
	unsigned int per_poll;
	bool wedge;
	u64 wedge_at;
	unsigned long stall_until;
	u8 refuse_op;
	unsigned int refuse_n;
	bool halted;
	unsigned long reads, delays, consumed, tlbi, syncs, cfgi, refused, bad;
	unsigned long halted_reads;
	struct fpt_v3_stream streams[FPT_V3_STREAMS];
	unsigned long since_sync, max_between_syncs;
	u64 published, consumed_pos;
	const struct fpt_v3_hooks *hooks;
	bool eager;
	bool real_delay;
	struct task_struct *consumer;
	void *consumer_data;
	bool livelock;
	struct kunit *test;
	u64 *read;
	unsigned long rewritten, overflow;
};

struct fpt_v3_fake *fpt_v3_fake_new(struct kunit *test,
				    struct fpm_smmu *model, unsigned int shift,
				    unsigned int per_poll);
void fpt_v3_fake_set(struct fpt_v3_fake *f, unsigned int per_poll);
void fpt_v3_fake_instant(struct fpt_v3_fake *f);
void fpt_v3_fake_wedge_after(struct fpt_v3_fake *f, unsigned int n);
void fpt_v3_fake_stall(struct fpt_v3_fake *f, unsigned long steps);
void fpt_v3_fake_run(struct fpt_v3_fake *f, unsigned int n);
void fpt_v3_fake_refuse_tlbi(struct fpt_v3_fake *f, unsigned int n);
void fpt_v3_fake_refuse(struct fpt_v3_fake *f, u8 op, unsigned int n);
void fpt_v3_fake_stream(struct fpt_v3_fake *f, u32 sid, struct fpm_ctx *mc,
			unsigned long iova, size_t size);
void fpt_v3_fake_ste(struct fpt_v3_fake *f, u32 sid, struct fpm_ctx *mc);
struct fpm_ctx *fpt_v3_fake_cached(struct fpt_v3_fake *f, u32 sid);
int fpt_v3_fake_start_consumer(struct fpt_v3_fake *f, unsigned int per_run);
void fpt_v3_fake_stop_consumer(struct fpt_v3_fake *f);
void fpt_v3_fake_raise_gerror(struct fpt_v3_fake *f, u32 bits);
u32 fpt_v3_fake_active_gerror(struct fpt_v3_fake *f);
u64 fpt_v3_fake_slot(struct fpt_v3_fake *f, u32 reg);

#endif /* _FP_SMMUV3_FAKE_H */
