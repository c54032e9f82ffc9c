// SPDX-License-Identifier: GPL-2.0-only
/*
 * The fake SMMUv2 register window: see fp_smmuv2_fake.h.
 *
 * Offsets and fields are written out here as IHI 0062 gives them, with
 * plain shifts, not taken from the backend's header: a wrong offset or
 * field there must not be copied into the oracle.
 */
#include <linux/bitfield.h>
#include <linux/bits.h>
#include <linux/err.h>
#include <linux/sizes.h>

#include "../backends/qcom/qcom.h"
#include "fp_smmuv2_fake.h"

#define FPT_GR0_SGFSR		0x48
#define FPT_GR0_TLBIVMID	0x64
#define FPT_GR0_TLBIALLNSNH	0x68
#define FPT_GR0_STLBGSYNC	0x70
#define FPT_GR0_STLBGSTATUS	0x74
#define FPT_GR0_S2CR(n)		(0xc00 + ((n) << 2))
#define FPT_S2CR_TYPE		GENMASK(17, 16)
#define FPT_S2CR_CBNDX		GENMASK(7, 0)
#define FPT_GR1_CBAR(n)		(0x0 + 4 * (n))
#define FPT_GR1_CBA2R(n)	(0x800 + 4 * (n))
#define FPT_CB_SCTLR		0x0
#define FPT_CB_TTBR0		0x20
#define FPT_CB_FSR		0x58
#define FPT_CB_FAR		0x60
#define FPT_CB_FSYNR0		0x68
#define FPT_CB_TLBIVA		0x600
#define FPT_CB_TLBIASID		0x610
#define FPT_CB_TLBIALL		0x618
#define FPT_CB_TLBIVAL		0x620
#define FPT_CB_TLBIIPAS2	0x630
#define FPT_CB_TLBIIPAS2L	0x638
#define FPT_CB_TLBSYNC		0x7f0
#define FPT_CB_TLBSTATUS	0x7f4

/* Global commands complete with sTLBGSYNC, bank n's with its TLBSYNC. */
#define FPT_V2_GLOBAL_QUEUE	0
#define FPT_V2_CB_QUEUE(n)	(1 + (n))

static struct fpt_v2_bank *fpt_v2_bank_at(struct fpt_v2_fake *fake,
					  unsigned int page, unsigned int *n)
{
	if (page < FPT_V2_NUMPAGE || page >= FPT_V2_NUMPAGE + FPT_V2_NR_CB)
		return NULL;
	*n = page - FPT_V2_NUMPAGE;
	return fake->cb[*n].used ? &fake->cb[*n] : NULL;
}

/* What each write costs on silicon; the rest costs nothing here. */
static const u32 fpt_v2_cost_ns[FPT_V2_NR] = {
	[FPT_V2_TLBIVA] = FP_CMD_NS_DEFAULT,
	[FPT_V2_TLBIVAL] = FP_CMD_NS_DEFAULT,
	[FPT_V2_TLBIASID] = FP_CMD_NS_DEFAULT,
	[FPT_V2_TLBIALL] = FP_CMD_NS_DEFAULT,
	[FPT_V2_TLBIIPAS2] = FP_CMD_NS_DEFAULT,
	[FPT_V2_TLBIIPAS2L] = FP_CMD_NS_DEFAULT,
	[FPT_V2_TLBIVMID] = FP_CMD_NS_DEFAULT,
	[FPT_V2_TLBIALLNSNH] = FP_CMD_NS_DEFAULT,
	[FPT_V2_TLBSYNC] = FP_SYNC_NS_DEFAULT,
	[FPT_V2_TLBGSYNC] = FP_SYNC_NS_DEFAULT,
};

/**
 * fpt_v2_clock() - the fake's time: what its writes cost on silicon
 * @fake: the fake, as &smmuv2_device_cfg.priv
 *
 * Return: ns charged so far, at the seed's SM8150 figures.
 */
u64 fpt_v2_clock(void *fake)
{
	return READ_ONCE(((struct fpt_v2_fake *)fake)->charged_ns);
}

static void fpt_v2_count(struct fpt_v2_fake *fake, enum fpt_v2_count c,
			 u64 val, bool is64)
{
	WRITE_ONCE(fake->charged_ns, fake->charged_ns + fpt_v2_cost_ns[c]);
	fake->n[c]++;
	fake->last[c] = val;
	fake->last64[c] = is64;
}

static void fpt_v2_decode_gr0(struct fpt_v2_fake *fake, unsigned int off,
			      u64 val, bool is64)
{
	struct fpm_cmd cmd = { .queue = FPT_V2_GLOBAL_QUEUE };

	if (is64) {
		fake->n[FPT_V2_BAD]++;
		return;
	}
	/* Stream-to-context: where a master's transactions go. */
	if (off >= FPT_GR0_S2CR(0) && off < FPT_GR0_S2CR(FPT_V2_NR_SME)) {
		struct fpt_v2_s2cr *e = &fake->s2cr[(off - FPT_GR0_S2CR(0)) / 4];

		e->written = true;
		e->type = FIELD_GET(FPT_S2CR_TYPE, val);
		e->cbndx = FIELD_GET(FPT_S2CR_CBNDX, val);
		fpt_v2_count(fake, FPT_V2_S2CR, val, is64);
		return;
	}
	switch (off) {
	case FPT_GR0_TLBIVMID:
		cmd.kind = FPM_CMD_VMID;
		cmd.vmid = val & 0xffff;
		fpt_v2_count(fake, FPT_V2_TLBIVMID, val, is64);
		break;
	case FPT_GR0_TLBIALLNSNH:
		cmd.kind = FPM_CMD_ALL;
		fpt_v2_count(fake, FPT_V2_TLBIALLNSNH, val, is64);
		break;
	case FPT_GR0_STLBGSYNC:
		fpt_v2_count(fake, FPT_V2_TLBGSYNC, val, is64);
		fake->gstatus = 1;
		fake->gpolls = 0;
		fake->gsync_at = fpm_now(fake->model) + 1;
		return;
	default:
		fake->n[FPT_V2_BAD]++;
		return;
	}
	fpm_issue(fake->model, &cmd);
}

/* Stage-1 by VA: the value's layout depends on the context format. */
static bool fpt_v2_decode_va(struct fpt_v2_bank *b, struct fpm_cmd *cmd,
			     u64 val, bool is64)
{
	if (b->stage2 || is64 == b->aarch32)
		return false;
	cmd->kind = FPM_CMD_VA;
	if (b->aarch32) {
		cmd->addr = val & 0xfffff000;
		cmd->asid = val & 0xff;
	} else {
		cmd->addr = (val & GENMASK_ULL(43, 0)) << 12;
		cmd->asid = val >> 48;
	}
	return true;
}

static bool fpt_v2_decode_cb_cmd(struct fpt_v2_bank *b, unsigned int off,
				 struct fpm_cmd *cmd, u64 val, bool is64,
				 enum fpt_v2_count *c)
{
	switch (off) {
	case FPT_CB_TLBIVA:
	case FPT_CB_TLBIVAL:
		cmd->leaf = off == FPT_CB_TLBIVAL;
		*c = cmd->leaf ? FPT_V2_TLBIVAL : FPT_V2_TLBIVA;
		return fpt_v2_decode_va(b, cmd, val, is64);
	case FPT_CB_TLBIIPAS2:
	case FPT_CB_TLBIIPAS2L:
		cmd->leaf = off == FPT_CB_TLBIIPAS2L;
		*c = cmd->leaf ? FPT_V2_TLBIIPAS2L : FPT_V2_TLBIIPAS2;
		cmd->kind = FPM_CMD_IPA;
		cmd->addr = (val & GENMASK_ULL(39, 0)) << 12;
		return b->stage2 && is64 != b->aarch32;
	case FPT_CB_TLBIASID:
		*c = FPT_V2_TLBIASID;
		cmd->kind = FPM_CMD_ASID;
		cmd->asid = val & (b->aarch32 ? 0xff : 0xffff);
		return !b->stage2 && !is64;
	case FPT_CB_TLBIALL:
		/* Every stage-1 entry of the bank's VMID. */
		*c = FPT_V2_TLBIALL;
		cmd->kind = FPM_CMD_VMID;
		return !b->stage2 && !is64;
	}
	return false;
}

/*
 * GR1 programs banks: CBA2R (VA64, VMID16) before CBAR (type, VMID) is
 * how a driver sets one up, so CBAR makes the bank what both say.
 */
static void fpt_v2_decode_gr1(struct fpt_v2_fake *fake, unsigned int off,
			      u64 val, bool is64)
{
	unsigned int n = (off & 0x7ff) / 4;
	struct fpt_v2_bank *b = &fake->cb[n];

	if (is64 || n >= FPT_V2_NR_CB) {
		fake->n[FPT_V2_BAD]++;
		return;
	}
	fake->n[FPT_V2_CFG]++;
	if (off == FPT_GR1_CBA2R(n)) {
		b->cba2r = val;
		return;
	}
	/* CBAR.TYPE 0 is stage 2 only; VMID[7:0], or CBA2R's 16 bits. */
	b->used = true;
	b->stage2 = !((val >> 16) & 3);
	b->aarch32 = !(b->cba2r & 1);
	b->vmid = (b->cba2r >> 16) ?: (val & 0xff);
	if (!b->stage2)
		b->vmid = 0;
}

/*
 * The bank's translation registers (below the TLB maintenance ones at
 * 0x600): stored, never decoded but for TTBR0's ASID.
 */
static bool fpt_v2_decode_cb_cfg(struct fpt_v2_fake *fake,
				 struct fpt_v2_bank *b, unsigned int off,
				 u64 val, bool is64)
{
	if (off >= 0x600)
		return false;
	fake->n[FPT_V2_CFG]++;
	if (off == FPT_CB_TTBR0)
		b->ttbr0 = val;
	else if (off == FPT_CB_SCTLR)
		b->sctlr = val;
	return true;
}

static void fpt_v2_decode(struct fpt_v2_fake *fake, unsigned int page,
			  unsigned int off, u64 val, bool is64)
{
	struct fpt_v2_bank *b;
	struct fpm_cmd cmd;
	enum fpt_v2_count c;
	unsigned int n;

	if (!page) {
		fpt_v2_decode_gr0(fake, off, val, is64);
		return;
	}
	if (page == 1) {
		fpt_v2_decode_gr1(fake, off, val, is64);
		return;
	}
	/* A bank is configured before CBAR says what it is, as arm-smmu does. */
	if (page >= FPT_V2_NUMPAGE && page < FPT_V2_NUMPAGE + FPT_V2_NR_CB &&
	    fpt_v2_decode_cb_cfg(fake, &fake->cb[page - FPT_V2_NUMPAGE], off,
				 val, is64))
		return;
	b = fpt_v2_bank_at(fake, page, &n);
	if (!b) {
		fake->n[FPT_V2_BAD]++;
		return;
	}
	if (off == FPT_CB_TLBSYNC && !is64) {
		fpt_v2_count(fake, FPT_V2_TLBSYNC, val, is64);
		b->tlbstatus = 1;
		b->polls = 0;
		b->sync_at = fpm_now(fake->model) + 1;
		return;
	}
	cmd = (struct fpm_cmd) { .vmid = b->vmid, .queue = FPT_V2_CB_QUEUE(n) };
	if (!fpt_v2_decode_cb_cmd(b, off, &cmd, val, is64, &c)) {
		fake->n[FPT_V2_BAD]++;
		return;
	}
	fpt_v2_count(fake, c, val, is64);
	fpm_issue(fake->model, &cmd);
}

void fpt_v2_write(void *fake, unsigned int page, unsigned int off, u32 val)
{
	fpt_v2_decode(fake, page, off, val, false);
}

void fpt_v2_write64(void *fake, unsigned int page, unsigned int off, u64 val)
{
	fpt_v2_decode(fake, page, off, val, true);
}

/*
 * SACTIVE clears once the model completed the sync's queue, up to the sync:
 * a TLBI written after the TLBSYNC write is not waited for by it.
 */
static u32 fpt_v2_poll(struct fpt_v2_fake *fake, u32 *status,
		       unsigned int *polls, u16 queue, u64 sync_at)
{
	fake->n[FPT_V2_STATUS_READS]++;
	if ((*status & 1) && ++*polls > fake->polls_to_complete &&
	    !fpm_sync_queue_before(fake->model, queue,
				   fake->model->legacy ? U64_MAX : sync_at))
		*status = 0;
	return *status;
}

static void fpt_v2_log_read(struct fpt_v2_fake *fake, unsigned int page,
			    unsigned int off)
{
	fake->reads[fake->nr_reads++ % FPT_V2_NR_READS] = page << 16 | off;
}

u32 fpt_v2_read(void *priv, unsigned int page, unsigned int off)
{
	struct fpt_v2_fake *fake = priv;
	struct fpt_v2_bank *b;
	unsigned int n;

	fpt_v2_log_read(fake, page, off);
	if (!page && off == FPT_GR0_STLBGSTATUS)
		return fpt_v2_poll(fake, &fake->gstatus, &fake->gpolls,
				   FPT_V2_GLOBAL_QUEUE, fake->gsync_at);
	b = fpt_v2_bank_at(fake, page, &n);
	if (b && off == FPT_CB_TLBSTATUS)
		return fpt_v2_poll(fake, &b->tlbstatus, &b->polls,
				   FPT_V2_CB_QUEUE(n), b->sync_at);

	if (!b)
		return 0;
	switch (off) {
	case FPT_CB_SCTLR:
		return b->sctlr;
	case FPT_CB_FSR:
		return b->fsr;
	case FPT_CB_FSYNR0:
		return b->fsynr0;
	}
	return 0;
}

u64 fpt_v2_read64(void *priv, unsigned int page, unsigned int off)
{
	struct fpt_v2_fake *fake = priv;
	struct fpt_v2_bank *b;
	unsigned int n;

	b = fpt_v2_bank_at(fake, page, &n);
	if (!b || off != FPT_CB_FAR) {
		fake->n[FPT_V2_BAD]++;
		return 0;
	}
	fpt_v2_log_read(fake, page, off);
	return b->far;
}

const struct smmuv2_reg_ops fpt_v2_regs = {
	.read		= fpt_v2_read,
	.read64		= fpt_v2_read64,
	.write		= fpt_v2_write,
	.write64	= fpt_v2_write64,
};

/* After the contexts on it: the rig's exit action was added later. */
static void fpt_v2_fake_free(void *smmu)
{
	smmuv2_device_destroy(smmu);
}

/**
 * fpt_v2_fake_new() - a fake SMMUv2 in front of a TLB model
 * @test: the test; the fake lives as long as it
 * @model: the model its commands go to
 * @qcom: set the device up with Qualcomm's defaults instead of plain ones
 *
 * Return: the fake, with no bank set up, or NULL.
 */
struct fpt_v2_fake *fpt_v2_fake_new(struct kunit *test, struct fpm_smmu *model,
				    bool qcom)
{
	struct smmuv2_device_cfg cfg;
	struct fpt_v2_fake *fake = kunit_kzalloc(test, sizeof(*fake),
						 GFP_KERNEL);

	if (!fake)
		return NULL;
	fake->model = model;
	fake->dev.init_name = qcom ? "qcom-fake" : "smmuv2-fake";
	cfg = (struct smmuv2_device_cfg) {
		.name = qcom ? "qcom.0" : "smmuv2.0",
		.dev = &fake->dev,
		.pgshift = 12,
		.numpage = FPT_V2_NUMPAGE,
		.coherent_walk = true,
		.regs = &fpt_v2_regs,
		.clock = fpt_v2_clock,
		.priv = fake,
	};
	fake->smmu = qcom ? qcom_smmuv2_device_create(&cfg) :
			    smmuv2_device_create(&cfg);
	if (IS_ERR(fake->smmu) ||
	    kunit_add_action_or_reset(test, fpt_v2_fake_free, fake->smmu))
		return NULL;
	return fake;
}

/* Program bank @cbndx as a driver's init_context would have. */
void fpt_v2_fake_bank(struct fpt_v2_fake *fake, unsigned int cbndx,
		      bool stage2, bool aarch32, u16 vmid)
{
	fake->cb[cbndx] = (struct fpt_v2_bank) {
		.used = true, .stage2 = stage2, .aarch32 = aarch32,
		.vmid = vmid,
	};
}

struct fpt_v2_fake *fpt_v2_fake_of(struct fpt_rig *rig)
{
	return smmuv2_ctx(rig->ctx)->smmu->cfg.priv;
}

/* Forget what was counted and read so far. */
void fpt_v2_fake_reset(struct fpt_v2_fake *fake)
{
	memset(fake->n, 0, sizeof(fake->n));
	fake->nr_reads = 0;
}

/* Whether @off in @page is among the last FPT_V2_NR_READS reads. */
bool fpt_v2_fake_was_read(struct fpt_v2_fake *fake, unsigned int page,
			  unsigned int off)
{
	unsigned int i;

	for (i = 0; i < min(fake->nr_reads, FPT_V2_NR_READS); i++)
		if (fake->reads[i] == (page << 16 | off))
			return true;
	return false;
}

/*
 * The rig's way in: the context is created by the backend's own
 * function, on a fake of its own, bank id % FPT_V2_NR_CB.
 */
static struct fp_context *fpt_v2_create(struct fpt_rig *rig,
					const struct fpt_rig_cfg *rc, u16 id,
					bool qcom)
{
	bool stage2 = rc->fmt == ARM_64_LPAE_S2;
	struct smmuv2_context_cfg cfg = {
		.cbndx = id % FPT_V2_NR_CB, .id = id, .stage2 = stage2,
		.aarch32 = rc->fmt == ARM_32_LPAE_S1, .lazy = rc->lazy,
	};
	struct fpt_v2_fake *fake = fpt_v2_fake_new(rig->test, rig->smmu, qcom);

	if (!fake)
		return ERR_PTR(-ENOMEM);
	fpt_v2_fake_bank(fake, cfg.cbndx, stage2, cfg.aarch32,
			 stage2 ? id : 0);
	if (stage2) {
		fpm_ctx_set_vmid(&rig->mc, id, true);
		/*
		 * A 40-bit IPA space, as SMMUs commonly have: with 4K pages
		 * io-pgtable then starts at level 1 with two concatenated
		 * tables, which the model must walk the same way.
		 */
		rig->cfg.ias = 40;
	}
	if (snprintf(rig->name, sizeof(rig->name), "%s-%s%u", fake->smmu->name,
		     stage2 ? "vmid" : "asid", id) >= sizeof(rig->name))
		return ERR_PTR(-ENAMETOOLONG);
	return smmuv2_context_create(fake->smmu, &cfg, &rig->cfg);
}

static struct fp_context *fpt_v2_create_plain(struct fpt_rig *rig,
					      const struct fpt_rig_cfg *rc,
					      u16 id)
{
	return fpt_v2_create(rig, rc, id, false);
}

static struct fp_context *fpt_v2_create_qcom(struct fpt_rig *rig,
					     const struct fpt_rig_cfg *rc,
					     u16 id)
{
	return fpt_v2_create(rig, rc, id, true);
}

const struct fpt_backend fpt_v2_backend = {
	.name = "smmuv2", .create = fpt_v2_create_plain,
	.destroy = smmuv2_context_destroy,
};

const struct fpt_backend fpt_qcom_backend = {
	.name = "qcom", .create = fpt_v2_create_qcom,
	.destroy = smmuv2_context_destroy,
};
