/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A fake SMMUv3 for the shipped command queue (backends/smmuv3/cmdq.c,
 * compiled into the test module by fp_smmuv3_fake.c): its registers behind
 * the queue's register seam, its ring in memory, and a consumer that lags,
 * reading only a few commands per CMDQ_CONS read.  It applies the commands
 * it consumes to the TLB model, each as the architecture scopes it, and
 * completes them there only at each CMD_SYNC it reaches.  It can refuse a
 * command (CMDQ_CONS.ERR = CERROR_ILL, or CERROR_ABT, which it retries
 * once acknowledged; GERROR.CMDQ_ERR toggled only if not active, with an
 * interrupt counted; the queue halted until GERRORN acknowledges), raise
 * other global errors, answer a CMDQ_CONS read with a value of a test's
 * choosing, consume slower than it is polled, and wedge.  The queue's
 * bound runs on the fake's clock: 1 us per back-off step, and a chosen
 * cost per register access.
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
 * (the MMU-700 erratum 2812531 bound) and the windows between two that
 * hold more than one opcode (which that erratum's workaround forbids), and
 * hooks let a test see every
 * command at the moment CMDQ_PROD passes it and when it is consumed.
 */
#ifndef _FP_SMMUV3_FAKE_H
#define _FP_SMMUV3_FAKE_H

#include <kunit/test.h>

#include "../backends/smmuv3/smmuv3_dev.h"
#include "fp_model.h"

#define FPT_CERROR_ILL	1
#define FPT_CERROR_ABT	2
#define FPT_V3_STREAMS	4

struct fpt_v3_fake;

/**
 * struct fpt_v3_stream - a device behind the fake SMMU
 * @ste: the context its STE in memory points at; NULL: abort
 * @cached: the context the SMMU's cached STE and CD point at
 * @cfgi: a CFGI reaching it was consumed; the next CMD_SYNC drops @cached
 * @iova: start of the device's working set
 * @size: its length; the device walks it after every command
 * @table: the SMMU reads the stream's STE from the driver's linear stream
 *	table as a CFGI reaching it completes; @ste is then the context an
 *	S1-translate STE's CD leads to (CDs are not modelled), and @cached
 *	is @ste only while the STE cached says S1 translate
 * @cached_ste: the STE it read then
 */
struct fpt_v3_stream {
	struct fpm_ctx *ste;
	struct fpm_ctx *cached;
	bool cfgi;
	unsigned long iova;
	size_t size;
	bool table;
	u64 cached_ste[STE_DWORDS];
};

/* What a device's access on a stream meets, as the SMMU has it cached. */
enum fpt_v3_dma {
	FPT_DMA_ABORT,		/* an abort or invalid STE */
	FPT_DMA_BYPASS,		/* a bypass STE: untranslated */
	FPT_DMA_TRANSLATED,	/* translated by the cached context */
	FPT_DMA_FAULT,		/* a translation fault in that context */
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
 * @every: ...on one CMDQ_CONS read in this many (0 or 1: on each): an
 *	SMMU slower than the CPU that polls it, which never stops
 * @wedge: the SMMU consumes nothing once @consumed_pos reaches...
 * @wedge_at: ...this position
 * @stall_until: the SMMU consumes nothing until @delays reaches this
 * @refuse_op: refuse commands with this opcode (0: any TLBI)...
 * @refuse_n: ...this many of the next ones it reaches, each attempt
 *	counted: an abort on fetch (CERROR_ABT) is retried once
 *	acknowledged, and refused again while @refuse_n lasts
 * @refuse_cerror: ...with this CMDQ_CONS.ERR (CERROR_ILL by default)
 * @halted: refused a command, waits for GERRORN to acknowledge it
 * @reads: CMDQ_CONS reads
 * @delays: the queue's back-off steps
 * @clock_ns: the queue's clock (&smmuv3_cmdq_impl.now): 1 us per back-off
 *	step, and @mmio_ns per register access
 * @mmio_ns: what a register access costs: 0, or what a trap to the
 *	hypervisor costs where a VM's MMIO traps
 * @consumed: commands consumed
 * @tlbi: TLBI commands applied to @model
 * @syncs: CMD_SYNCs consumed
 * @cfgi: CFGI commands consumed
 * @refused: commands refused
 * @bad: fields out of place (a range's TG, a nonzero VMID)
 * @halted_reads: CMDQ_CONS reads while halted, since the last halt
 * @irqs: GERROR interrupts raised: an error becomes active (GERROR.x
 *	toggled while GERROR.x == GERRORN.x); an active one raises none
 * @acks: GERRORN writes that acknowledged an active CMDQ_ERR
 * @streams: devices, by StreamID
 * @since_sync: non-sync commands consumed since the last CMD_SYNC
 * @max_between_syncs: the most of them ever
 * @window_op: the opcode of the first of them (0: none yet)
 * @mixed: windows between two CMD_SYNCs holding more than one opcode
 * @mmu700: the part has erratum 2812531, whose workaround needs every
 *	window single-kind: a test using the fake fails on @mixed
 * @published: CMDQ_PROD as a position (never wraps)
 * @consumed_pos: CMDQ_CONS as a position
 * @hooks: or NULL
 * @eager: perform each TLBI as it is consumed, the earliest the
 *	architecture allows: a device refilling through a cached
 *	configuration then refills after it, as the architecture also allows
 * @cons_override: what the next @cons_overrides CMDQ_CONS reads return
 *	instead of the SMMU's: all-ones, as a read that failed on the bus
 *	returns, or a stale value; such a read does not reach the SMMU
 * @cons_overrides: how many reads are left to override
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
 * @backward: CMDQ_PROD writes behind the last one (two CPUs' writes
 *	reordered): ignored, as the SMMU could make nothing of them
 */
#define FPT_V3_LIVELOCK	100000

struct fpt_v3_fake {
	struct smmuv3_device smmu;
	struct fpm_smmu *model;
	raw_spinlock_t lock;	/* all below */
	u32 prod, cons, cerror, gerror, gerrorn;
	unsigned int per_poll, every;
	bool wedge;
	u64 wedge_at;
	unsigned long stall_until;
	u8 refuse_op;
	unsigned int refuse_n;
	u32 refuse_cerror;
	bool halted;
	u64 clock_ns;
	unsigned long mmio_ns;
	unsigned long reads, delays, consumed, tlbi, syncs, cfgi, refused, bad;
	unsigned long halted_reads, irqs, acks;
	struct fpt_v3_stream streams[FPT_V3_STREAMS];
	unsigned long since_sync, max_between_syncs;
	u8 window_op;
	bool window_mixed;
	unsigned long mixed;
	bool mmu700;
	u64 published, consumed_pos;
	const struct fpt_v3_hooks *hooks;
	bool eager;
	u32 cons_override;
	unsigned int cons_overrides;
	bool real_delay;
	struct task_struct *consumer;
	void *consumer_data;
	bool livelock;
	struct kunit *test;
	u64 *read;
	unsigned long rewritten, overflow, backward;
};

struct fpt_v3_fake *fpt_v3_fake_new(struct kunit *test,
				    struct fpm_smmu *model, unsigned int shift,
				    unsigned int per_poll);
void fpt_v3_fake_set(struct fpt_v3_fake *f, unsigned int per_poll);
void fpt_v3_fake_instant(struct fpt_v3_fake *f);
void fpt_v3_fake_wedge_after(struct fpt_v3_fake *f, unsigned int n);
void fpt_v3_fake_pace(struct fpt_v3_fake *f, unsigned int every,
		      unsigned long mmio_ns);
void fpt_v3_fake_stall(struct fpt_v3_fake *f, unsigned long steps);
void fpt_v3_fake_run(struct fpt_v3_fake *f, unsigned int n);
void fpt_v3_fake_refuse_tlbi(struct fpt_v3_fake *f, unsigned int n);
void fpt_v3_fake_refuse(struct fpt_v3_fake *f, u8 op, unsigned int n);
void fpt_v3_fake_refuse_cerror(struct fpt_v3_fake *f, u8 op, unsigned int n,
			       u32 cerror);
void fpt_v3_fake_stream(struct fpt_v3_fake *f, u32 sid, struct fpm_ctx *mc,
			unsigned long iova, size_t size);
void fpt_v3_fake_ste(struct fpt_v3_fake *f, u32 sid, struct fpm_ctx *mc);
struct fpm_ctx *fpt_v3_fake_cached(struct fpt_v3_fake *f, u32 sid);
void fpt_v3_fake_stream_table(struct fpt_v3_fake *f, u32 sid,
			      struct fpm_ctx *mc, unsigned long iova,
			      size_t size);
void fpt_v3_fake_cached_ste(struct fpt_v3_fake *f, u32 sid, u64 *ste);
enum fpt_v3_dma fpt_v3_fake_dma(struct fpt_v3_fake *f, u32 sid,
				unsigned long iova);
int fpt_v3_fake_start_consumer(struct fpt_v3_fake *f, unsigned int per_run);
void fpt_v3_fake_stop_consumer(struct fpt_v3_fake *f);
void fpt_v3_fake_cons_override(struct fpt_v3_fake *f, u32 val,
			       unsigned int n);
void fpt_v3_fake_raise_gerror(struct fpt_v3_fake *f, u32 bits);
u32 fpt_v3_fake_active_gerror(struct fpt_v3_fake *f);
u64 fpt_v3_fake_slot(struct fpt_v3_fake *f, u32 reg);
void fpt_v3_fake_expect_ops(struct kunit *test, struct fpt_v3_fake *f,
			    u32 reg, const u8 *ops, unsigned int n);
void fpt_v3_fake_cmd(struct fpt_v3_fake *f, u32 reg, u64 *cmd);

/* test_smmuv3_domain.c */
struct iommu_domain *fpt_smmuv3_paging_domain(struct kunit *test,
					      struct fpm_ctx **mc);

#endif /* _FP_SMMUV3_FAKE_H */
