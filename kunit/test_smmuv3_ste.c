// SPDX-License-Identifier: GPL-2.0-only
/*
 * flushpol_smmuv3_ste: the shipped STE writer (smmuv3_write_ste() in
 * backends/smmuv3/strtab.c) changing an entry between the STEs the driver
 * builds (smmuv3_ste_abort(), smmuv3_ste_bypass(), smmuv3_ste_s1()).
 *
 * A recorder stands behind the writer's ops and plays the SMMU as IHI 0070
 * lets it behave: it reads an STE in 64-bit pieces, in any order, at any
 * time, and keeps what it read until a CFGI_STE for the stream and a
 * CMD_SYNC after it complete.  So between two completed syncs it may use
 * any mix of the values each double word held in that time; a failed
 * sync separates nothing.  Every such mix must be V=0, the old STE or the
 * new one, in the bits that mix's own V and CONFIG make the SMMU read.
 * The shape is upstream's arm-smmu-v3-test.c; the judge of each state is
 * stricter (every mix between syncs, not the entry at each sync).
 */
#include <kunit/test.h>

#include "fp_model.h"
#include "fp_rig.h"
#include "fp_smmuv3_fake.h"

/* Values one double word can hold between two syncs: at most 3 here. */
#define FPT_STE_SEEN	8
#define FPT_CD_A	0x40001000ULL
#define FPT_CD_B	0x40002000ULL
#define FPT_SID		3

/**
 * struct fpt_ste_rec - the writer's recorder, playing the SMMU
 * @w: what smmuv3_write_ste() is given
 * @test: the test
 * @entry: the STE in "memory"
 * @old: the entry before the update
 * @new: what it must become
 * @seen: the values each double word held since the last completed sync
 * @nseen: how many
 * @stores: 64-bit stores
 * @syncs: CFGI_STE + CMD_SYNC pairs asked for
 * @unsynced: stores since the last completed sync
 * @unasked: stores since the last sync asked for, completed or not
 * @fail_sync: the sync with this number (from 1) fails; 0: none does
 * @failed: syncs that failed
 * @after_failure: stores after a failed sync
 * @wrong_sid: syncs for a stream other than the one written
 * @invalid: a mix with V=0 was there to be seen
 * @torn: mixes that were neither V=0 nor the old nor the new STE
 */
struct fpt_ste_rec {
	struct smmuv3_ste_writer w;
	struct kunit *test;
	__le64 entry[STE_DWORDS];
	u64 old[STE_DWORDS], new[STE_DWORDS];
	u64 seen[STE_DWORDS][FPT_STE_SEEN];
	unsigned int nseen[STE_DWORDS];
	unsigned int stores, syncs, unsynced, unasked, fail_sync, failed;
	unsigned int after_failure, wrong_sid;
	bool invalid;
	unsigned int torn;
};

static bool fpt_ste_same_used(const u64 *a, const u64 *b, const u64 *used)
{
	int i;

	for (i = 0; i < STE_DWORDS; i++)
		if ((a[i] & used[i]) != (b[i] & used[i]))
			return false;
	return true;
}

static void fpt_ste_judge(struct fpt_ste_rec *rec, const u64 *mix)
{
	u64 used[STE_DWORDS];

	if (!(mix[0] & STE_0_V)) {
		rec->invalid = true;
		return;
	}
	smmuv3_ste_used(mix, used);
	if (fpt_ste_same_used(mix, rec->old, used) ||
	    fpt_ste_same_used(mix, rec->new, used))
		return;
	/* After a failed sync, expected: not worth a line each. */
	if (!rec->torn++ && !rec->failed)
		kunit_err(rec->test,
			  "the SMMU could use an STE that never existed: %016llx %016llx %016llx (old %016llx %016llx, new %016llx %016llx)\n",
			  mix[0], mix[1], mix[2], rec->old[0], rec->old[1],
			  rec->new[0], rec->new[1]);
}

/* Every mix of the values seen since the last completed sync. */
static void fpt_ste_judge_window(struct fpt_ste_rec *rec)
{
	unsigned int idx[STE_DWORDS] = {};
	u64 mix[STE_DWORDS];
	int i;

	for (;;) {
		for (i = 0; i < STE_DWORDS; i++)
			mix[i] = rec->seen[i][idx[i]];
		fpt_ste_judge(rec, mix);
		for (i = 0; i < STE_DWORDS; i++) {
			if (++idx[i] < rec->nseen[i])
				break;
			idx[i] = 0;
		}
		if (i == STE_DWORDS)
			return;
	}
}

/* A completed sync: the SMMU holds nothing older than the entry now. */
static void fpt_ste_window_close(struct fpt_ste_rec *rec)
{
	int i;

	for (i = 0; i < STE_DWORDS; i++) {
		rec->seen[i][0] = le64_to_cpu(rec->entry[i]);
		rec->nseen[i] = 1;
	}
	rec->unsynced = 0;
}

static void fpt_ste_write(struct smmuv3_ste_writer *w, __le64 *dst, u64 val)
{
	struct fpt_ste_rec *rec = container_of(w, struct fpt_ste_rec, w);
	unsigned int i = dst - rec->entry, j;

	KUNIT_ASSERT_LT(rec->test, i, STE_DWORDS);
	WRITE_ONCE(*dst, cpu_to_le64(val));
	rec->stores++;
	rec->unsynced++;
	rec->unasked++;
	if (rec->failed)
		rec->after_failure++;
	for (j = 0; j < rec->nseen[i]; j++)
		if (rec->seen[i][j] == val)
			return;
	KUNIT_ASSERT_LT(rec->test, rec->nseen[i], FPT_STE_SEEN);
	rec->seen[i][rec->nseen[i]++] = val;
}

static int fpt_ste_sync(struct smmuv3_ste_writer *w)
{
	struct fpt_ste_rec *rec = container_of(w, struct fpt_ste_rec, w);

	rec->syncs++;
	rec->unasked = 0;
	if (w->sid != FPT_SID)
		rec->wrong_sid++;
	fpt_ste_judge_window(rec);
	if (rec->syncs == rec->fail_sync) {
		rec->failed++;
		return -ETIMEDOUT;
	}
	fpt_ste_window_close(rec);
	return 0;
}

static const struct smmuv3_ste_writer_ops fpt_ste_rec_ops = {
	.write = fpt_ste_write,
	.sync = fpt_ste_sync,
};

static void fpt_ste_rec_init(struct kunit *test, struct fpt_ste_rec *rec,
			     const u64 *old, const u64 *new)
{
	int i;

	memset(rec, 0, sizeof(*rec));
	rec->w.ops = &fpt_ste_rec_ops;
	rec->w.sid = FPT_SID;
	rec->test = test;
	for (i = 0; i < STE_DWORDS; i++)
		rec->entry[i] = cpu_to_le64(old[i]);
	memcpy(rec->old, old, sizeof(rec->old));
	memcpy(rec->new, new, sizeof(rec->new));
	fpt_ste_window_close(rec);
}

/* Write @rec->new; then judge what the SMMU may go on using. */
static int fpt_ste_run(struct fpt_ste_rec *rec)
{
	int ret = smmuv3_write_ste(&rec->w, rec->entry, rec->new);

	fpt_ste_judge_window(rec);
	return ret;
}

static bool fpt_ste_is(const struct fpt_ste_rec *rec, const u64 *ste)
{
	int i;

	for (i = 0; i < STE_DWORDS; i++)
		if (le64_to_cpu(rec->entry[i]) != ste[i])
			return false;
	return true;
}

enum fpt_ste_kind {
	FPT_STE_ABORT,
	FPT_STE_BYPASS,
	FPT_STE_S1_A,
	FPT_STE_S1_B,
	/* B with other walk cacheability: no constructor makes it. */
	FPT_STE_S1_B_NC,
};

/* The STE the driver would install, from the driver's constructors. */
static void fpt_ste_make(struct kunit *test, enum fpt_ste_kind kind,
			 u64 *ste)
{
	struct smmuv3_domain *dom;

	switch (kind) {
	case FPT_STE_ABORT:
		smmuv3_ste_abort(ste);
		return;
	case FPT_STE_BYPASS:
		smmuv3_ste_bypass(ste);
		return;
	default:
		break;
	}
	/* All smmuv3_ste_s1() reads of a domain is its CD's address. */
	dom = kunit_kzalloc(test, sizeof(*dom), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, dom);
	dom->cd_dma = kind == FPT_STE_S1_A ? FPT_CD_A : FPT_CD_B;
	smmuv3_ste_s1(dom, ste);
	if (kind == FPT_STE_S1_B_NC)
		ste[1] &= ~(STE_1_S1CIR | STE_1_S1COR);
}

/**
 * struct fpt_ste_case - one transition
 * @name: what it is
 * @from: the entry before
 * @to: after
 * @syncs: exactly this many CFGI_STE + CMD_SYNC pairs
 * @hitless: V=1 in everything the SMMU could see
 */
struct fpt_ste_case {
	const char *name;
	enum fpt_ste_kind from, to;
	unsigned int syncs;
	bool hitless;
};

/*
 * Each STE the driver builds uses double words 0 and 1, and only double
 * word 0 changes in bits both ends read: every change is hitless.  The
 * double word 1 bits the old STE ignores are set first (a sync), or the
 * bits the new one ignores cleared last (a sync), around the store of
 * double word 0 (a sync).
 */
static const struct fpt_ste_case fpt_ste_cases[] = {
	{ "bypass_to_s1", FPT_STE_BYPASS, FPT_STE_S1_A, 2, true },
	{ "s1_to_bypass", FPT_STE_S1_A, FPT_STE_BYPASS, 2, true },
	{ "abort_to_s1", FPT_STE_ABORT, FPT_STE_S1_A, 2, true },
	{ "s1_to_abort", FPT_STE_S1_A, FPT_STE_ABORT, 2, true },
	{ "s1_a_to_s1_b", FPT_STE_S1_A, FPT_STE_S1_B, 1, true },
	{ "abort_to_bypass", FPT_STE_ABORT, FPT_STE_BYPASS, 2, true },
	{ "bypass_to_abort", FPT_STE_BYPASS, FPT_STE_ABORT, 2, true },
	{ "s1_to_same_s1", FPT_STE_S1_A, FPT_STE_S1_A, 1, true },
	/* Two double words change in used bits: V=0, the rest, then V=1. */
	{ "s1_a_to_s1_b_other_cacheability", FPT_STE_S1_A, FPT_STE_S1_B_NC,
	  3, false },
};

static void fpt_ste_case_desc(const struct fpt_ste_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(fpt_ste, fpt_ste_cases, fpt_ste_case_desc);

static void ste_transition_never_shows_a_torn_entry(struct kunit *test)
{
	const struct fpt_ste_case *c = test->param_value;
	u64 old[STE_DWORDS], new[STE_DWORDS];
	struct fpt_ste_rec *rec = kunit_kzalloc(test, sizeof(*rec),
						GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, rec);
	fpt_ste_make(test, c->from, old);
	fpt_ste_make(test, c->to, new);
	fpt_ste_rec_init(test, rec, old, new);

	KUNIT_EXPECT_EQ(test, fpt_ste_run(rec), 0);
	KUNIT_EXPECT_EQ(test, rec->torn, 0);
	KUNIT_EXPECT_EQ(test, rec->invalid, !c->hitless);
	KUNIT_EXPECT_EQ(test, rec->syncs, c->syncs);
	KUNIT_EXPECT_EQ(test, rec->unsynced, 0);
	KUNIT_EXPECT_EQ(test, rec->wrong_sid, 0);
	KUNIT_EXPECT_TRUE(test, fpt_ste_is(rec, new));
}

/*
 * The used-bits table must know every bit a constructor sets: a bit the
 * SMMU reads but the table misses would be changed under a live entry.
 */
static void ste_constructors_set_only_used_bits(struct kunit *test)
{
	enum fpt_ste_kind kind;
	u64 ste[STE_DWORDS], used[STE_DWORDS];
	int i;

	for (kind = FPT_STE_ABORT; kind <= FPT_STE_S1_B; kind++) {
		fpt_ste_make(test, kind, ste);
		smmuv3_ste_used(ste, used);
		for (i = 0; i < STE_DWORDS; i++)
			KUNIT_EXPECT_EQ_MSG(test, ste[i] & ~used[i], 0,
					    "STE kind %d, double word %d",
					    kind, i);
	}
}

/*
 * A sync that fails (the SMMU wedged, or commands lost again while the
 * queue recovered) does not stop the update: as upstream's writer does,
 * every step is still stored and synced, so the entry ends as the new STE
 * and a stream never stays half way.  Until a later sync completes, the
 * SMMU may hold any mix of what the entry held since the last completed
 * one; the queue counts the failed sync as a loss, and its recovery
 * (CFGI_ALL, completed) makes the SMMU drop them: see
 * install_ste_sync_failing_part_way_writes_every_stream.
 */
static void ste_failed_sync_still_completes_the_update(struct kunit *test)
{
	static const struct {
		enum fpt_ste_kind from, to;
		unsigned int steps;
	} updates[] = {
		{ FPT_STE_BYPASS, FPT_STE_S1_A, 2 },
		{ FPT_STE_S1_A, FPT_STE_ABORT, 2 },
		{ FPT_STE_S1_A, FPT_STE_S1_B_NC, 3 },
	};
	u64 old[STE_DWORDS], new[STE_DWORDS];
	struct fpt_ste_rec *rec = kunit_kzalloc(test, sizeof(*rec),
						GFP_KERNEL);
	unsigned int u, fail;

	KUNIT_ASSERT_NOT_NULL(test, rec);
	for (u = 0; u < ARRAY_SIZE(updates); u++) {
		fpt_ste_make(test, updates[u].from, old);
		fpt_ste_make(test, updates[u].to, new);
		for (fail = 1; fail <= updates[u].steps; fail++) {
			fpt_ste_rec_init(test, rec, old, new);
			rec->fail_sync = fail;
			KUNIT_EXPECT_EQ(test, fpt_ste_run(rec), -ETIMEDOUT);
			KUNIT_EXPECT_TRUE_MSG(test, fpt_ste_is(rec, new),
					      "update %u, sync %u failed", u,
					      fail);
			KUNIT_EXPECT_EQ_MSG(test, rec->syncs, updates[u].steps,
					    "update %u, sync %u failed", u, fail);
			KUNIT_EXPECT_EQ_MSG(test, rec->unasked, 0,
					    "update %u, sync %u failed", u, fail);
			KUNIT_EXPECT_EQ(test, rec->wrong_sid, 0);
		}
	}
}

/*
 * S1(A) to S1(B) is one store and one sync.  If that sync fails, the
 * SMMU may go on using A, whose tables the caller then frees; the same
 * attach tried again finds the entry already B.  It must still make the
 * SMMU drop what it holds.
 */
static void ste_unchanged_entry_still_synced(struct kunit *test)
{
	u64 a[STE_DWORDS], b[STE_DWORDS];
	struct fpt_ste_rec *rec = kunit_kzalloc(test, sizeof(*rec),
						GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, rec);
	fpt_ste_make(test, FPT_STE_S1_A, a);
	fpt_ste_make(test, FPT_STE_S1_B, b);
	fpt_ste_rec_init(test, rec, a, b);
	rec->fail_sync = 1;
	KUNIT_EXPECT_EQ(test, fpt_ste_run(rec), -ETIMEDOUT);
	KUNIT_EXPECT_TRUE(test, fpt_ste_is(rec, b));

	/* Again, with a working SMMU: A is gone only after this sync. */
	rec->fail_sync = 0;
	rec->syncs = 0;
	KUNIT_EXPECT_EQ(test, fpt_ste_run(rec), 0);
	KUNIT_EXPECT_EQ(test, rec->syncs, 1);
	KUNIT_EXPECT_EQ(test, rec->after_failure, 0);
}

/* A fake SMMU behind the driver's queue, every stream holding @ste. */
static struct fpt_v3_fake *fpt_ste_fake(struct kunit *test, const u64 *ste)
{
	struct fpt_v3_fake *f = fpt_v3_fake_new(test, fpt_shared_smmu(test),
						6, 64);
	struct smmuv3_device *smmu;
	int i;

	smmu = &f->smmu;
	smmu->strtab.sid_bits = 4;
	smmu->strtab.base = kunit_kcalloc(test, STE_DWORDS << 4,
					  sizeof(__le64), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, smmu->strtab.base);
	mutex_init(&smmu->ste_lock);
	for (i = 0; i < STE_DWORDS << 4; i++)
		smmu->strtab.base[i] = cpu_to_le64(ste[i % STE_DWORDS]);
	return f;
}

static u64 fpt_ste_sid(struct fpt_v3_fake *f, u32 sid, int i)
{
	return le64_to_cpu(f->smmu.strtab.base[sid * STE_DWORDS + i]);
}

static u64 fpt_ste_table(struct fpt_v3_fake *f, int i)
{
	return fpt_ste_sid(f, FPT_SID, i);
}

/*
 * Through the driver's queue, in front of the fake SMMU: each step of an
 * update is a CFGI_STE for that stream (Leaf=0, so a cached level-1
 * descriptor goes too) followed by its own CMD_SYNC, and the stream table
 * ends holding the new STE.
 */
static void install_ste_syncs_each_step_on_the_queue(struct kunit *test)
{
	u64 bypass[STE_DWORDS], s1[STE_DWORDS];
	struct fpt_v3_fake *f;
	u32 sid = FPT_SID;
	__le64 *slot;
	u64 op;
	int i;

	fpt_ste_make(test, FPT_STE_BYPASS, bypass);
	fpt_ste_make(test, FPT_STE_S1_A, s1);
	f = fpt_ste_fake(test, bypass);

	smmuv3_install_ste(&f->smmu, &sid, 1, s1);
	for (i = 0; i < STE_DWORDS; i++)
		KUNIT_EXPECT_EQ(test, fpt_ste_table(f, i), s1[i]);
	KUNIT_ASSERT_EQ(test, f->smmu.cmdq.cons, 4);
	for (i = 0; i < 4; i++) {
		slot = &f->smmu.cmdq.q.base[i * CMD_DWORDS];
		op = le64_to_cpu(slot[0]);
		if (i % 2) {
			KUNIT_EXPECT_EQ(test, op & 0xff, CMD_OP_SYNC);
			continue;
		}
		KUNIT_EXPECT_EQ(test, op & 0xff, CMD_OP_CFGI_STE);
		KUNIT_EXPECT_EQ(test, op >> 32, sid);
		/* Leaf, bit 0 of the second double word */
		KUNIT_EXPECT_EQ(test, le64_to_cpu(slot[1]) & 1, 0);
	}
}

/*
 * A device with three streams, and the SMMU wedges in the middle of the
 * second stream's update: its first CMD_SYNC times out, and so do all
 * the syncs after it.  Every stream must still end on the new STE (the
 * first one already uses the new domain's CD: an attach that failed now
 * would let the IOMMU core free that domain under it), and the next sync
 * that completes once the SMMU resumes must not return before CFGI_ALL,
 * completed, then TLBI_NSNH_ALL, completed: the SMMU may hold any mix of
 * the entries it read while nothing was synced.
 */
static void install_ste_sync_failing_part_way_writes_every_stream(struct kunit *test)
{
	static const u32 sids[] = { 1, 2, 3 };
	static const u8 recovery[] = {
		CMD_OP_CFGI_ALL, CMD_OP_SYNC, CMD_OP_TLBI_NSNH_ALL, CMD_OP_SYNC,
	};
	u64 bypass[STE_DWORDS], s1[STE_DWORDS];
	unsigned int i, j, n = ARRAY_SIZE(recovery);
	struct smmuv3_cmdq *cmdq;
	struct fpt_v3_fake *f;
	u64 end;

	fpt_ste_make(test, FPT_STE_BYPASS, bypass);
	fpt_ste_make(test, FPT_STE_S1_A, s1);
	f = fpt_ste_fake(test, bypass);
	cmdq = &f->smmu.cmdq;
	/* Stream 1's two steps (CFGI_STE, CMD_SYNC each), stream 2's CFGI. */
	fpt_v3_fake_wedge_after(f, 5);

	smmuv3_install_ste(&f->smmu, sids, ARRAY_SIZE(sids), s1);
	KUNIT_EXPECT_EQ(test, f->consumed, 5);
	for (i = 0; i < ARRAY_SIZE(sids); i++)
		for (j = 0; j < STE_DWORDS; j++)
			KUNIT_EXPECT_EQ_MSG(test, fpt_ste_sid(f, sids[i], j),
					    s1[j], "stream %u, double word %u",
					    sids[i], j);

	fpt_v3_fake_set(f, 64);
	KUNIT_EXPECT_EQ(test, smmuv3_cmdq_sync(cmdq), 0);
	KUNIT_EXPECT_EQ(test, cmdq->cons, cmdq->prod);
	end = cmdq->prod;
	KUNIT_ASSERT_GE(test, end, n);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ_MSG(test, fpt_v3_fake_slot(f, end - n + i) & 0xff,
				    recovery[i], "command %u of the last %u", i,
				    n);
}

static struct kunit_case fpt_ste_test_cases[] = {
	KUNIT_CASE_PARAM(ste_transition_never_shows_a_torn_entry,
			 fpt_ste_gen_params),
	KUNIT_CASE(ste_constructors_set_only_used_bits),
	KUNIT_CASE(ste_failed_sync_still_completes_the_update),
	KUNIT_CASE(ste_unchanged_entry_still_synced),
	KUNIT_CASE(install_ste_syncs_each_step_on_the_queue),
	KUNIT_CASE(install_ste_sync_failing_part_way_writes_every_stream),
	{}
};

static struct kunit_suite fpt_ste_suite = {
	.name = "flushpol_smmuv3_ste",
	.test_cases = fpt_ste_test_cases,
};

kunit_test_suite(fpt_ste_suite);
