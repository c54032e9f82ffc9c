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
 */
#ifndef _FP_SMMUV3_FAKE_H
#define _FP_SMMUV3_FAKE_H

#include <kunit/test.h>

#include "../backends/smmuv3/smmuv3_dev.h"
#include "fp_model.h"

#define FPT_CERROR_ILL	1

/**
 * struct fpt_v3_fake - the fake SMMU
 * @smmu: what the queue's ops take as priv; its cmdq is the real queue
 * @model: where consumed commands take effect
 * @lock: the fake's registers and consumer; CPUs poll concurrently
 * @prod: CMDQ_PROD as last written
 * @cons: CMDQ_CONS, index and wrap, without ERR
 * @cerror: CMDQ_CONS.ERR while halted
 * @gerror: GERROR
 * @gerrorn: GERRORN as last written
 * @per_poll: commands consumed per CMDQ_CONS read; 0 wedges the SMMU
 * @refuse_tlbi: refuse this many of the next TLBI commands it reaches
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
 * @livelock: the queue polled a halted SMMU FPT_V3_LIVELOCK times without
 *	acknowledging; the fake then acknowledged itself, so that a broken
 *	queue fails its test instead of hanging the kernel
 */
#define FPT_V3_LIVELOCK	100000

struct fpt_v3_fake {
	struct smmuv3_device smmu;
	struct fpm_smmu *model;
	spinlock_t lock;	/* all below */
	u32 prod, cons, cerror, gerror, gerrorn;
	unsigned int per_poll;
	unsigned int refuse_tlbi;
	bool halted;
	unsigned long reads, delays, consumed, tlbi, syncs, cfgi, refused, bad;
	unsigned long halted_reads;
	bool livelock;
};

struct fpt_v3_fake *fpt_v3_fake_new(struct kunit *test,
				    struct fpm_smmu *model, unsigned int shift,
				    unsigned int per_poll);
void fpt_v3_fake_set(struct fpt_v3_fake *f, unsigned int per_poll);
void fpt_v3_fake_run(struct fpt_v3_fake *f, unsigned int n);
void fpt_v3_fake_refuse_tlbi(struct fpt_v3_fake *f, unsigned int n);
void fpt_v3_fake_raise_gerror(struct fpt_v3_fake *f, u32 bits);
u32 fpt_v3_fake_active_gerror(struct fpt_v3_fake *f);
u64 fpt_v3_fake_slot(struct fpt_v3_fake *f, u32 reg);

#endif /* _FP_SMMUV3_FAKE_H */
