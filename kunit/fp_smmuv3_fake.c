// SPDX-License-Identifier: GPL-2.0-only
/*
 * The fake SMMUv3 behind the shipped command queue (fp_smmuv3_cmdq.c):
 * see fp_smmuv3_fake.h.
 * Commands are decoded with plain shifts, not the backend's field macros,
 * so a field in the wrong place reaches the model as the wrong command.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitfield.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/sizes.h>

#include "fp_rig.h"
#include "fp_smmuv3_fake.h"

static struct fpt_v3_fake *to_fake(struct smmuv3_cmdq *cmdq)
{
	return container_of(cmdq, struct fpt_v3_fake, smmu.cmdq);
}

static u32 fpt_v3_mask(struct fpt_v3_fake *f)
{
	return BIT(f->smmu.cmdq.q.shift + 1) - 1;
}

static u32 fpt_v3_index(struct fpt_v3_fake *f, u32 reg)
{
	return reg & (BIT(f->smmu.cmdq.q.shift) - 1);
}

/* The command at @reg (index and wrap), as it is in memory now. */
static void fpt_v3_read_cmd(struct fpt_v3_fake *f, u32 reg, u64 *cmd)
{
	__le64 *slot = &f->smmu.cmdq.q.base[fpt_v3_index(f, reg) * CMD_DWORDS];

	cmd[0] = le64_to_cpu(READ_ONCE(slot[0]));
	cmd[1] = le64_to_cpu(READ_ONCE(slot[1]));
}

/* The SMMU reads the command at @reg now, both 64-bit pieces. */
static u64 *fpt_v3_fetch(struct fpt_v3_fake *f, u32 reg)
{
	u64 *read = &f->read[fpt_v3_index(f, reg) * CMD_DWORDS];

	fpt_v3_read_cmd(f, reg, read);
	return read;
}

/*
 * Apply one TLBI to the model, scoped as IHI 0070 scopes it.  Returns
 * false for what this SMMU refuses (an opcode it does not know).
 */
static bool fpt_v3_apply(struct fpt_v3_fake *f, const u64 *cmd)
{
	unsigned int op = cmd[0] & 0xff, tg = (cmd[1] >> 10) & 3;
	unsigned int num = (cmd[0] >> 12) & 0x1f, scale = (cmd[0] >> 20) & 0x1f;
	struct fpm_cmd m = {
		.asid = cmd[0] >> 48, .vmid = (cmd[0] >> 32) & 0xffff,
		.leaf = cmd[1] & 1,
	};

	switch (op) {
	case 0x12:	/* CMD_TLBI_NH_VA */
		m.addr = cmd[1] & ~0xfffULL;
		if (!tg) {
			m.kind = FPM_CMD_VA;
		} else {
			m.kind = FPM_CMD_RANGE;
			m.size = (u64)(num + 1) << (scale + 10 + 2 * tg);
			/* TTL: the leaves' level, which the model holds it to. */
			m.ttl = (cmd[1] >> 8) & 3;
			/* TG must be the table's granule: 4K here. */
			if (tg != 1)
				f->bad++;
		}
		break;
	case 0x11:	/* CMD_TLBI_NH_ASID */
		m.kind = FPM_CMD_ASID;
		break;
	case 0x10:	/* CMD_TLBI_NH_ALL: stage 1, every ASID of one VMID */
		m.kind = FPM_CMD_NH_ALL;
		break;
	case 0x28:	/* CMD_TLBI_S12_VMALL */
		m.kind = FPM_CMD_VMID;
		break;
	case 0x2a:	/* CMD_TLBI_S2_IPA */
		m.kind = FPM_CMD_IPA;
		m.addr = cmd[1] & GENMASK_ULL(51, 12);
		break;
	case 0x30:	/* CMD_TLBI_NSNH_ALL */
		m.kind = FPM_CMD_ALL;
		break;
	default:
		return false;
	}
	/* Stage-1 contexts here have no VMID. */
	if (m.vmid && op != 0x28 && op != 0x2a)
		f->bad++;
	fpm_issue(f->model, &m);
	if (f->eager)
		fpm_sync(f->model);
	f->tlbi++;
	return true;
}

/* Whether the SMMU refuses @op now (CERROR_ILL), as the test asked. */
static bool fpt_v3_refuses(struct fpt_v3_fake *f, unsigned int op)
{
	if (!f->refuse_n)
		return false;
	if (f->refuse_op ? op != f->refuse_op : op < 0x10 || op > 0x30)
		return false;
	f->refuse_n--;
	return true;
}

/*
 * A CFGI reaches the streams it names; their cached configuration stays
 * in use until a CMD_SYNC after it completes.  CMD_CFGI_STE_RANGE with
 * Range 31 is CMD_CFGI_ALL.
 */
static void fpt_v3_cfgi(struct fpt_v3_fake *f, const u64 *cmd, bool range)
{
	u32 sid = cmd[0] >> 32;
	u64 span = range ? 2ULL << (cmd[1] & 0x1f) : 1;
	u64 first = sid & ~(span - 1);
	unsigned int i;

	for (i = 0; i < FPT_V3_STREAMS; i++)
		if (i >= first && i - first < span)
			f->streams[i].cfgi = true;
	f->cfgi++;
}

static bool fpt_v3_ste_translates(const u64 *ste)
{
	return (ste[0] & STE_0_V) &&
	       FIELD_GET(STE_0_CFG, ste[0]) == STE_0_CFG_S1_TRANS;
}

/* The SMMU fetches stream @sid's STE from memory, whatever it was. */
static void fpt_v3_fetch_ste(struct fpt_v3_fake *f, u32 sid)
{
	struct fpt_v3_stream *s = &f->streams[sid];
	const __le64 *e = &f->smmu.strtab.base[sid * STE_DWORDS];
	unsigned int i;

	for (i = 0; i < STE_DWORDS; i++)
		s->cached_ste[i] = le64_to_cpu(READ_ONCE(e[i]));
	s->cached = fpt_v3_ste_translates(s->cached_ste) ? s->ste : NULL;
}

/* CMD_SYNC: every command before it completes, configuration included. */
static void fpt_v3_sync(struct fpt_v3_fake *f)
{
	unsigned int i;

	fpm_sync(f->model);
	for (i = 0; i < FPT_V3_STREAMS; i++) {
		struct fpt_v3_stream *s = &f->streams[i];

		if (!s->cfgi)
			continue;
		if (s->table)
			fpt_v3_fetch_ste(f, i);
		else
			s->cached = s->ste;
		s->cfgi = false;
	}
	f->syncs++;
	f->since_sync = 0;
	f->window_op = 0;
	f->window_mixed = false;
}

/* The devices go on through whatever configuration the SMMU has cached. */
static void fpt_v3_refill(struct fpt_v3_fake *f)
{
	unsigned int i;

	for (i = 0; i < FPT_V3_STREAMS; i++) {
		struct fpt_v3_stream *s = &f->streams[i];

		if (s->cached && s->size)
			fpm_access_range(s->cached, s->iova, s->size);
	}
}

/*
 * Consume the command at CMDQ_CONS, as it was read when CMDQ_PROD passed
 * it; false if refused.
 */
static bool fpt_v3_consume_one(struct fpt_v3_fake *f)
{
	u64 *cmd = &f->read[fpt_v3_index(f, f->cons) * CMD_DWORDS];
	u64 now[CMD_DWORDS];
	unsigned int op;
	bool ok = true;

	fpt_v3_read_cmd(f, f->cons, now);
	if (now[0] != cmd[0] || now[1] != cmd[1])
		f->rewritten++;
	op = cmd[0] & 0xff;
	if (fpt_v3_refuses(f, op)) {
		ok = false;
		goto out;
	}
	switch (op) {
	case 0x46:	/* CMD_SYNC: what came before it completes */
		fpt_v3_sync(f);
		break;
	case 0x03:	/* CMD_CFGI_STE */
	case 0x04:	/* CMD_CFGI_STE_RANGE, CMD_CFGI_ALL */
		fpt_v3_cfgi(f, cmd, op == 0x04);
		break;
	default:
		ok = fpt_v3_apply(f, cmd);
	}
out:
	if (f->hooks && f->hooks->consume)
		f->hooks->consume(f, f->consumed_pos, cmd, !ok);
	if (!ok)
		return false;
	if (op != 0x46) {
		if (!f->window_op)
			f->window_op = op;
		if (op != f->window_op && !f->window_mixed) {
			f->window_mixed = true;
			f->mixed++;
		}
		f->since_sync++;
		f->max_between_syncs = max(f->max_between_syncs,
					   f->since_sync);
	}
	f->consumed++;
	f->consumed_pos++;
	f->cons = (f->cons + 1) & fpt_v3_mask(f);
	return true;
}

/* Whether the SMMU has stopped where fpt_v3_fake_wedge_after() said. */
static bool fpt_v3_wedged(struct fpt_v3_fake *f)
{
	return f->wedge && f->consumed_pos >= f->wedge_at;
}

/*
 * Global errors @bits happen: those not active toggle in GERROR and raise
 * the interrupt; an active one is not raised again (IHI 0070, GERROR).
 */
static void fpt_v3_gerror(struct fpt_v3_fake *f, u32 bits)
{
	u32 fresh = bits & ~(f->gerror ^ f->gerrorn);

	f->gerror ^= fresh;
	if (fresh)
		f->irqs++;
}

/* One poll's worth of progress: at most per_poll commands. */
static void fpt_v3_advance(struct fpt_v3_fake *f)
{
	unsigned int n;

	if (f->delays < f->stall_until)
		return;
	if (f->every > 1 && f->reads % f->every)
		return;
	for (n = 0; n < f->per_poll && !f->halted && !fpt_v3_wedged(f) &&
	     f->cons != f->prod; n++) {
		if (!fpt_v3_consume_one(f)) {
			f->halted = true;
			f->halted_reads = 0;
			f->cerror = f->refuse_cerror ?: FPT_CERROR_ILL;
			fpt_v3_gerror(f, GERROR_CMDQ_ERR);
			f->refused++;
		}
		fpt_v3_refill(f);
	}
}

/*
 * CMDQ_PROD moves: the SMMU reads what it passed, now.  More than a queue
 * ahead of CMDQ_CONS, it would have passed commands not yet consumed.
 */
static void fpt_v3_publish(struct fpt_v3_fake *f, u32 prod)
{
	u32 n = (prod - f->prod) & fpt_v3_mask(f);
	u32 reg = f->prod;
	u64 *cmd;

	/* No move forward passes more than a queue: this one went back. */
	if (n > BIT(f->smmu.cmdq.q.shift)) {
		f->backward++;
		return;
	}
	if (((prod - f->cons) & fpt_v3_mask(f)) > BIT(f->smmu.cmdq.q.shift))
		f->overflow++;
	for (; n; n--, reg = (reg + 1) & fpt_v3_mask(f)) {
		cmd = fpt_v3_fetch(f, reg);
		if (f->hooks && f->hooks->publish)
			f->hooks->publish(f, f->published, cmd);
		f->published++;
	}
	f->prod = prod;
}

/* CMDQ_ERR acknowledged: the SMMU reads the command at CMDQ_CONS again. */
static void fpt_v3_resume(struct fpt_v3_fake *f)
{
	f->halted = false;
	fpt_v3_fetch(f, f->cons);
}

static u32 fpt_v3_read_reg(struct smmuv3_cmdq *cmdq, unsigned int off)
{
	struct fpt_v3_fake *f = to_fake(cmdq);
	unsigned long flags;
	u32 val = 0;

	raw_spin_lock_irqsave(&f->lock, flags);
	f->clock_ns += f->mmio_ns;
	switch (off) {
	case SMMUV3_CMDQ_CONS:
		f->reads++;
		if (f->cons_overrides) {
			f->cons_overrides--;
			val = f->cons_override;
			break;
		}
		if (f->halted && ++f->halted_reads > FPT_V3_LIVELOCK) {
			f->livelock = true;
			f->gerror ^= (f->gerror ^ f->gerrorn) & GERROR_CMDQ_ERR;
			fpt_v3_resume(f);
		}
		fpt_v3_advance(f);
		val = f->cons | FIELD_PREP(CMDQ_CONS_ERR,
					   f->halted ? f->cerror : 0);
		break;
	case SMMUV3_CMDQ_PROD:
		val = f->prod;
		break;
	case SMMUV3_GERROR:
		val = f->gerror;
		break;
	case SMMUV3_GERRORN:
		val = f->gerrorn;
		break;
	}
	raw_spin_unlock_irqrestore(&f->lock, flags);
	return val;
}

static void fpt_v3_write_reg(struct smmuv3_cmdq *cmdq, unsigned int off,
			     u32 val)
{
	struct fpt_v3_fake *f = to_fake(cmdq);
	unsigned long flags;

	raw_spin_lock_irqsave(&f->lock, flags);
	f->clock_ns += f->mmio_ns;
	switch (off) {
	case SMMUV3_CMDQ_PROD:
		fpt_v3_publish(f, val & fpt_v3_mask(f));
		break;
	case SMMUV3_GERRORN:
		if ((f->gerror ^ f->gerrorn) & ~(f->gerror ^ val) &
		    GERROR_CMDQ_ERR)
			f->acks++;
		f->gerrorn = val;
		/* Acknowledged: the queue runs again from CMDQ_CONS. */
		if (f->halted && !((f->gerror ^ val) & GERROR_CMDQ_ERR))
			fpt_v3_resume(f);
		break;
	}
	raw_spin_unlock_irqrestore(&f->lock, flags);
}

/*
 * A step of back-off: counted, not slept, so a bound costs no time; unless
 * the consumer is a thread, which a waiter on one CPU must let run.
 */
static void fpt_v3_delay(struct smmuv3_cmdq *cmdq)
{
	struct fpt_v3_fake *f = to_fake(cmdq);
	unsigned long flags;

	raw_spin_lock_irqsave(&f->lock, flags);
	f->delays++;
	f->clock_ns += NSEC_PER_USEC;
	raw_spin_unlock_irqrestore(&f->lock, flags);
	if (READ_ONCE(f->real_delay)) {
		udelay(1);
		cond_resched();
	}
}

/* The model's time, which the queue's bound is measured on. */
static u64 fpt_v3_now(struct smmuv3_cmdq *cmdq)
{
	struct fpt_v3_fake *f = to_fake(cmdq);
	unsigned long flags;
	u64 now;

	raw_spin_lock_irqsave(&f->lock, flags);
	now = f->clock_ns;
	raw_spin_unlock_irqrestore(&f->lock, flags);
	return now;
}

static const struct smmuv3_cmdq_impl fpt_v3_impl = {
	.read_reg	= fpt_v3_read_reg,
	.write_reg	= fpt_v3_write_reg,
	.delay		= fpt_v3_delay,
	.now		= fpt_v3_now,
};

/* What the queue did that the SMMU's architecture does not allow. */
static void fpt_v3_fake_check(void *data)
{
	struct fpt_v3_fake *f = data;
	struct kunit *test = f->test;

	KUNIT_EXPECT_EQ_MSG(test, f->rewritten, 0,
			    "commands changed after CMDQ_PROD passed them");
	KUNIT_EXPECT_EQ_MSG(test, f->overflow, 0,
			    "CMDQ_PROD more than a queue ahead of CMDQ_CONS");
	KUNIT_EXPECT_EQ_MSG(test, f->backward, 0,
			    "CMDQ_PROD written behind where it was");
	if (f->mmu700)
		KUNIT_EXPECT_EQ_MSG(test, f->mixed, 0,
				    "commands of two kinds before one CMD_SYNC (erratum 2812531)");
}

/**
 * fpt_v3_fake_new() - a fake SMMU with the shipped queue in front of it
 * @test: owns everything allocated
 * @model: where the commands take effect
 * @shift: log2 of the queue's entries
 * @per_poll: commands consumed per CMDQ_CONS read; 0: wedged
 *
 * The queue's bound is 1000 us of the fake's clock, which advances 1 us
 * per back-off step (counted in &fpt_v3_fake.delays): 1000 steps.  When
 * the test ends, it fails if the queue changed a command the SMMU may
 * already have read, or moved CMDQ_PROD more than a queue ahead.
 *
 * Return: the fake; the test is aborted if it cannot be allocated.
 */
struct fpt_v3_fake *fpt_v3_fake_new(struct kunit *test,
				    struct fpm_smmu *model, unsigned int shift,
				    unsigned int per_poll)
{
	struct fpt_v3_fake *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	struct device *dev;
	__le64 *ring;

	KUNIT_ASSERT_NOT_NULL(test, f);
	dev = fpt_device_register(test, "fp-fake-smmuv3");
	ring = kunit_kcalloc(test, BIT(shift) * CMD_DWORDS, sizeof(*ring),
			     GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ring);
	f->read = kunit_kcalloc(test, BIT(shift) * CMD_DWORDS,
				sizeof(*f->read), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f->read);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, fpt_v3_fake_check,
							f), 0);
	f->test = test;
	f->smmu.dev = dev;
	smmuv3_cmdq_init_ring(&f->smmu.cmdq, dev, NULL, ring, 0, shift);
	f->smmu.cmdq.impl = &fpt_v3_impl;
	f->smmu.cmdq.timeout_us = 1000;
	f->model = model;
	f->per_poll = per_poll;
	raw_spin_lock_init(&f->lock);
	return f;
}

/*
 * The instant SMMU: CMDQ_CONS is the last CMDQ_PROD written, so a CPU's
 * sync is complete at its first poll after the publish, and the queue
 * never fills.  No lock, no decoding, no error: the fastest SMMU there
 * could be, whose cost is only cmdq.c's.  (Its registers are one cache
 * line the CPUs share, which real MMIO is not.)  Nothing takes effect in
 * the model.
 */
static u32 fpt_v3_instant_read(struct smmuv3_cmdq *cmdq, unsigned int off)
{
	struct fpt_v3_fake *f = container_of(cmdq, struct fpt_v3_fake,
					     smmu.cmdq);

	return off == SMMUV3_CMDQ_CONS ? READ_ONCE(f->prod) : 0;
}

static void fpt_v3_instant_write(struct smmuv3_cmdq *cmdq, unsigned int off,
				 u32 val)
{
	struct fpt_v3_fake *f = container_of(cmdq, struct fpt_v3_fake,
					     smmu.cmdq);

	if (off == SMMUV3_CMDQ_PROD)
		WRITE_ONCE(f->prod, val);
}

static void fpt_v3_instant_delay(struct smmuv3_cmdq *cmdq)
{
	cpu_relax();
}

static const struct smmuv3_cmdq_impl fpt_v3_instant_impl = {
	.read_reg	= fpt_v3_instant_read,
	.write_reg	= fpt_v3_instant_write,
	.delay		= fpt_v3_instant_delay,
};

/* @f becomes the instant SMMU, from a queue nothing was written to yet. */
void fpt_v3_fake_instant(struct fpt_v3_fake *f)
{
	f->smmu.cmdq.impl = &fpt_v3_instant_impl;
}

/*
 * Consume @per_poll commands per CMDQ_CONS read from now on; 0 wedges.
 * It ends a wedge fpt_v3_fake_wedge_after() set.
 */
void fpt_v3_fake_set(struct fpt_v3_fake *f, unsigned int per_poll)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&f->lock, flags);
	f->per_poll = per_poll;
	f->wedge = false;
	raw_spin_unlock_irqrestore(&f->lock, flags);
}

/*
 * The SMMU consumes @n more commands as it does now, then wedges: it
 * consumes nothing more until fpt_v3_fake_set().  A hang that begins in
 * the middle of a caller's sequence of syncs.
 */
void fpt_v3_fake_wedge_after(struct fpt_v3_fake *f, unsigned int n)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&f->lock, flags);
	f->wedge = true;
	f->wedge_at = f->consumed_pos + n;
	raw_spin_unlock_irqrestore(&f->lock, flags);
}

/*
 * From now on the SMMU consumes only on one CMDQ_CONS read in @every (0
 * or 1: each), and each register access costs @mmio_ns of the queue's
 * clock, as a trapped MMIO access does in a VM.
 */
void fpt_v3_fake_pace(struct fpt_v3_fake *f, unsigned int every,
		      unsigned long mmio_ns)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&f->lock, flags);
	f->every = every;
	f->mmio_ns = mmio_ns;
	raw_spin_unlock_irqrestore(&f->lock, flags);
}

/*
 * The SMMU consumes nothing for the queue's next @steps back-off steps,
 * then goes on as before: slow, not wedged (CMDQ_CONS has not been seen
 * stopped for a whole bound).
 */
void fpt_v3_fake_stall(struct fpt_v3_fake *f, unsigned long steps)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&f->lock, flags);
	f->stall_until = f->delays + steps;
	raw_spin_unlock_irqrestore(&f->lock, flags);
}

/* The SMMU runs on its own: consume up to @n published commands now. */
void fpt_v3_fake_run(struct fpt_v3_fake *f, unsigned int n)
{
	unsigned int per_poll;
	unsigned long flags;

	raw_spin_lock_irqsave(&f->lock, flags);
	per_poll = f->per_poll;
	f->per_poll = n;
	fpt_v3_advance(f);
	f->per_poll = per_poll;
	raw_spin_unlock_irqrestore(&f->lock, flags);
}

/*
 * Refuse the next @n attempts at commands of opcode @op (0: any TLBI)
 * with CMDQ_CONS.ERR @cerror: FPT_CERROR_ILL (skipped by software), or
 * FPT_CERROR_ABT (retried by the SMMU once acknowledged, so one command
 * can be refused many times).
 */
void fpt_v3_fake_refuse_cerror(struct fpt_v3_fake *f, u8 op, unsigned int n,
			       u32 cerror)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&f->lock, flags);
	f->refuse_op = op;
	f->refuse_n = n;
	f->refuse_cerror = cerror;
	raw_spin_unlock_irqrestore(&f->lock, flags);
}

/* Refuse the next @n commands of opcode @op (0: any TLBI) it reaches. */
void fpt_v3_fake_refuse(struct fpt_v3_fake *f, u8 op, unsigned int n)
{
	fpt_v3_fake_refuse_cerror(f, op, n, FPT_CERROR_ILL);
}

/* Refuse the next @n TLBI commands the consumer reaches (CERROR_ILL). */
void fpt_v3_fake_refuse_tlbi(struct fpt_v3_fake *f, unsigned int n)
{
	fpt_v3_fake_refuse(f, 0, n);
}

/*
 * A device on stream @sid, translated through @mc, busy on [@iova,
 * @iova + @size): its STE in memory points at @mc, and the SMMU has
 * already fetched it.
 */
void fpt_v3_fake_stream(struct fpt_v3_fake *f, u32 sid, struct fpm_ctx *mc,
			unsigned long iova, size_t size)
{
	struct fpt_v3_stream *s = &f->streams[sid];
	unsigned long flags;

	raw_spin_lock_irqsave(&f->lock, flags);
	*s = (struct fpt_v3_stream) {
		.ste = mc, .cached = mc, .iova = iova, .size = size,
	};
	raw_spin_unlock_irqrestore(&f->lock, flags);
}

/* Stream @sid's STE in memory now points at @mc (NULL: abort). */
void fpt_v3_fake_ste(struct fpt_v3_fake *f, u32 sid, struct fpm_ctx *mc)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&f->lock, flags);
	f->streams[sid].ste = mc;
	raw_spin_unlock_irqrestore(&f->lock, flags);
}

/* What the SMMU still uses for stream @sid. */
struct fpm_ctx *fpt_v3_fake_cached(struct fpt_v3_fake *f, u32 sid)
{
	unsigned long flags;
	struct fpm_ctx *mc;

	raw_spin_lock_irqsave(&f->lock, flags);
	mc = f->streams[sid].cached;
	raw_spin_unlock_irqrestore(&f->lock, flags);
	return mc;
}

/*
 * A device on stream @sid, busy on [@iova, @iova + @size), whose STE the
 * SMMU reads from the driver's stream table (linear, holding @sid): now,
 * and again as each CFGI reaching it completes.  @mc is the context an
 * S1-translate STE's CD leads to.
 */
void fpt_v3_fake_stream_table(struct fpt_v3_fake *f, u32 sid,
			      struct fpm_ctx *mc, unsigned long iova,
			      size_t size)
{
	struct fpt_v3_stream *s = &f->streams[sid];
	unsigned long flags;

	KUNIT_ASSERT_FALSE(f->test, f->smmu.strtab.two_level);
	KUNIT_ASSERT_LT(f->test, sid, BIT(f->smmu.strtab.sid_bits));
	raw_spin_lock_irqsave(&f->lock, flags);
	*s = (struct fpt_v3_stream) {
		.ste = mc, .iova = iova, .size = size, .table = true,
	};
	fpt_v3_fetch_ste(f, sid);
	raw_spin_unlock_irqrestore(&f->lock, flags);
}

/* The STE the SMMU uses for stream @sid (fpt_v3_fake_stream_table()). */
void fpt_v3_fake_cached_ste(struct fpt_v3_fake *f, u32 sid, u64 *ste)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&f->lock, flags);
	memcpy(ste, f->streams[sid].cached_ste, sizeof(f->streams[sid].cached_ste));
	raw_spin_unlock_irqrestore(&f->lock, flags);
}

/*
 * An access by the device on stream @sid to @iova, through what the SMMU
 * has cached for the stream, not what memory says.
 */
enum fpt_v3_dma fpt_v3_fake_dma(struct fpt_v3_fake *f, u32 sid,
				unsigned long iova)
{
	struct fpt_v3_stream *s = &f->streams[sid];
	struct fpm_ctx *mc;
	unsigned long flags;
	u64 ste0;
	bool table;

	raw_spin_lock_irqsave(&f->lock, flags);
	mc = s->cached;
	table = s->table;
	ste0 = s->cached_ste[0];
	raw_spin_unlock_irqrestore(&f->lock, flags);
	if (table && (ste0 & STE_0_V) &&
	    FIELD_GET(STE_0_CFG, ste0) == STE_0_CFG_BYPASS)
		return FPT_DMA_BYPASS;
	if (!mc)
		return FPT_DMA_ABORT;
	return fpm_access(mc, iova) ? FPT_DMA_TRANSLATED : FPT_DMA_FAULT;
}

struct fpt_v3_consumer {
	struct fpt_v3_fake *f;
	unsigned int per_run;
};

/*
 * The SMMU on a CPU of its own: it consumes a few published commands at a
 * time, lagging behind the producers, whatever they poll.
 */
static int fpt_v3_consumer_fn(void *data)
{
	struct fpt_v3_consumer *c = data;

	while (!kthread_should_stop()) {
		fpt_v3_fake_run(c->f, c->per_run);
		udelay(2);
		cond_resched();
	}
	return 0;
}

/**
 * fpt_v3_fake_start_consumer() - the SMMU consumes in a thread from now on
 * @f: the fake, wedged for the queue's own polls (per_poll 0)
 * @per_run: commands consumed per step of the thread
 *
 * Back-off steps then wait for real.  Stop it with
 * fpt_v3_fake_stop_consumer() before the test ends.
 *
 * Return: 0, or the error of kthread_run().
 */
int fpt_v3_fake_start_consumer(struct fpt_v3_fake *f, unsigned int per_run)
{
	struct fpt_v3_consumer *c = kzalloc(sizeof(*c), GFP_KERNEL);
	struct task_struct *t;

	if (!c)
		return -ENOMEM;
	c->f = f;
	c->per_run = per_run;
	WRITE_ONCE(f->real_delay, true);
	t = kthread_run(fpt_v3_consumer_fn, c, "fp-smmu-consumer");
	if (IS_ERR(t)) {
		kfree(c);
		return PTR_ERR(t);
	}
	get_task_struct(t);
	f->consumer = t;
	f->consumer_data = c;
	return 0;
}

/* Stop the consumer thread, if one runs. */
void fpt_v3_fake_stop_consumer(struct fpt_v3_fake *f)
{
	if (!f->consumer)
		return;
	kthread_stop(f->consumer);
	put_task_struct(f->consumer);
	kfree(f->consumer_data);
	f->consumer = NULL;
	f->consumer_data = NULL;
}

/*
 * The next @n CMDQ_CONS reads return @val, not what the SMMU would say:
 * all-ones from a read the interconnect failed, or a stale value.
 */
void fpt_v3_fake_cons_override(struct fpt_v3_fake *f, u32 val,
			       unsigned int n)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&f->lock, flags);
	f->cons_override = val;
	f->cons_overrides = n;
	raw_spin_unlock_irqrestore(&f->lock, flags);
}

/* Other global errors happen: those not active toggle, and interrupt. */
void fpt_v3_fake_raise_gerror(struct fpt_v3_fake *f, u32 bits)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&f->lock, flags);
	fpt_v3_gerror(f, bits);
	raw_spin_unlock_irqrestore(&f->lock, flags);
}

/* GERROR bits not yet acknowledged. */
u32 fpt_v3_fake_active_gerror(struct fpt_v3_fake *f)
{
	unsigned long flags;
	u32 active;

	raw_spin_lock_irqsave(&f->lock, flags);
	active = f->gerror ^ f->gerrorn;
	raw_spin_unlock_irqrestore(&f->lock, flags);
	return active;
}

/* Both double words of the command at @reg (index and wrap). */
void fpt_v3_fake_cmd(struct fpt_v3_fake *f, u32 reg, u64 *cmd)
{
	fpt_v3_read_cmd(f, reg, cmd);
}

/* Double word 0 of the command at @reg (index and wrap). */
u64 fpt_v3_fake_slot(struct fpt_v3_fake *f, u32 reg)
{
	u64 cmd[CMD_DWORDS];

	fpt_v3_read_cmd(f, reg, cmd);
	return cmd[0];
}

/**
 * fpt_v3_fake_expect_ops() - expect the queue to hold commands of @ops
 * @test: the case
 * @f: the fake
 * @reg: where the first is (index and wrap)
 * @ops: their opcodes, in queue order
 * @n: how many
 */
void fpt_v3_fake_expect_ops(struct kunit *test, struct fpt_v3_fake *f,
			    u32 reg, const u8 *ops, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ_MSG(test, fpt_v3_fake_slot(f, reg + i) & 0xff,
				    ops[i], "command %u after 0x%x", i, reg);
}
