/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A fake SMMUv2 register window for the KUnit suites, plugged into the
 * SMMUv2 backend through its accessors (struct smmuv2_reg_ops).
 *
 * Every write is decoded as the SMMUv2 architecture defines the register,
 * for the context format and stage the bank was given, into TLB model
 * commands: a value with a field in the wrong place invalidates something
 * else, or nothing, and the model then reports what stayed stale.  A write
 * of the wrong width, to a register the bank's stage does not have, or to
 * a register the fake does not know, is counted as bad and does nothing.
 *
 * Completion is modelled as the architecture has it: a context bank's
 * TLBSYNC completes what was issued to that bank, the global sTLBGSYNC
 * what was issued to GR0.  A sync write sets SACTIVE; a status read clears
 * it once the model has applied the queued commands, which a wedged model
 * (fpm_smmu.sync_stuck) never does.
 */
#ifndef _FP_SMMUV2_FAKE_H
#define _FP_SMMUV2_FAKE_H

#include "../backends/smmuv2/smmuv2_ctx.h"
#include "fp_rig.h"

#define FPT_V2_NUMPAGE	8	/* pages of global space: CB n is page 8 + n */
#define FPT_V2_NR_CB	8
#define FPT_V2_NR_READS	16
#define FPT_V2_NR_SME	16	/* stream map entries: S2CR 0 to 15 */

/* What the fake counts, one slot per register (and kind of access). */
enum fpt_v2_count {
	FPT_V2_TLBIVA,
	FPT_V2_TLBIVAL,
	FPT_V2_TLBIASID,
	FPT_V2_TLBIALL,
	FPT_V2_TLBIIPAS2,
	FPT_V2_TLBIIPAS2L,
	FPT_V2_TLBIVMID,
	FPT_V2_TLBIALLNSNH,
	FPT_V2_TLBSYNC,
	FPT_V2_TLBGSYNC,
	FPT_V2_STATUS_READS,	/* TLBSTATUS and sTLBGSTATUS */
	FPT_V2_CFG,		/* bank configuration: CBAR, TTBR0, ... */
	FPT_V2_S2CR,		/* stream-to-context registers */
	FPT_V2_BAD,
	FPT_V2_NR,
};

/* A context bank as its driver programmed it (CBAR, CBA2R, VMID). */
struct fpt_v2_bank {
	bool used;
	bool stage2;
	bool aarch32;
	u16 vmid;
	u32 tlbstatus;
	unsigned int polls;	/* status reads since the sync write */
	u64 sync_at;		/* fpm_now() + 1 at the sync write */
	/* Fault state a diagnostic dump may read. */
	u32 sctlr, fsr, fsynr0;
	u64 far;
	/* As a driver programmed it: CBA2R, and TTBR0 (its ASID). */
	u32 cba2r;
	u64 ttbr0;
};

/* A stream map entry's S2CR: 0 translate, 1 bypass, 2 fault. */
struct fpt_v2_s2cr {
	bool written;
	u8 type;
	u8 cbndx;
};

struct fpt_v2_fake {
	struct smmuv2_device *smmu;	/* the backend's, on this fake */
	struct device dev;
	struct fpm_smmu *model;
	struct fpt_v2_bank cb[FPT_V2_NR_CB];
	struct fpt_v2_s2cr s2cr[FPT_V2_NR_SME];
	u32 gstatus;
	unsigned int gpolls;
	u64 gsync_at;
	/* Status reads a sync stays active for before it may complete. */
	unsigned int polls_to_complete;
	/*
	 * What the writes so far cost on silicon, the seed's SM8150 figures
	 * per TLBI and per sync: never reset, the clock the adaptive policy
	 * times this fake's flushes with (fpt_v2_clock()).
	 */
	u64 charged_ns;
	unsigned long n[FPT_V2_NR];
	u64 last[FPT_V2_NR];		/* last value written per register */
	bool last64[FPT_V2_NR];		/* ... and whether as 64 bits */
	/* The last registers read, as (page << 16) | offset, a ring. */
	u32 reads[FPT_V2_NR_READS];
	unsigned int nr_reads;
};

extern const struct smmuv2_reg_ops fpt_v2_regs;
extern const struct fpt_backend fpt_v2_backend;
extern const struct fpt_backend fpt_qcom_backend;

struct fpt_v2_fake *fpt_v2_fake_new(struct kunit *test, struct fpm_smmu *model,
				    bool qcom);
void fpt_v2_fake_bank(struct fpt_v2_fake *fake, unsigned int cbndx,
		      bool stage2, bool aarch32, u16 vmid);
struct fpt_v2_fake *fpt_v2_fake_of(struct fpt_rig *rig);
void fpt_v2_fake_reset(struct fpt_v2_fake *fake);
bool fpt_v2_fake_was_read(struct fpt_v2_fake *fake, unsigned int page,
			  unsigned int off);

/* One seed-size unmap on SMMUv2, in MMIO writes: see test_smmuv2.c. */
struct fpt_v2_count_case {
	const char *policy;	/* NULL: the backend's own choice */
	size_t size;
	size_t pgsize;		/* how the buffer is mapped */
	/* Expected writes: */
	unsigned long tlbiva, tlbival, tlbiasid, tlbsync;
	unsigned long b_lost;	/* leaf entries of a second buffer lost */
};

void fpt_v2_count_run(struct kunit *test, const struct fpt_v2_count_case *c,
		      const struct fpt_backend *be);

/* The accessors, for tests that put something in front of them. */
u64 fpt_v2_clock(void *fake);
u32 fpt_v2_read(void *fake, unsigned int page, unsigned int off);
u64 fpt_v2_read64(void *fake, unsigned int page, unsigned int off);
void fpt_v2_write(void *fake, unsigned int page, unsigned int off, u32 val);
void fpt_v2_write64(void *fake, unsigned int page, unsigned int off, u64 val);

#endif /* _FP_SMMUV2_FAKE_H */
