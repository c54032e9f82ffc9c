// SPDX-License-Identifier: GPL-2.0-only
/*
 * flushpol_bench_scale_cmdq: whether the shipped SMMUv3 command queue
 * (backends/smmuv3/cmdq.c) lets CPUs that each wait for their own CMD_SYNC
 * go on as fast as one CPU alone.  N threads (1, 2, 4), each bound to a
 * CPU of its own, each issue batches of one TLBI and a CMD_SYNC through
 * smmuv3_cmdq_ops and wait for their sync, in front of the fake SMMU of
 * fp_smmuv3_fake.c; and, in the same rounds, the same threads encode the
 * same commands and hand them to a do-nothing call instead ("private"):
 * what the host gives N vCPUs that share nothing, for work of a few
 * nanoseconds; and each issues them through the same cmdq.c to a fake SMMU
 * of its own ("own"): the same work as the shared queue's, sharing
 * nothing, so what the host gives N vCPUs for work of that length.  QEMU
 * runs the four vCPUs on the host's cores, two here: past two, work that
 * keeps a vCPU busy is shared out, which private, too short to be
 * descheduled, cannot show and own does.  And each issues them through the
 * same cmdq.c to one shared SMMU that has consumed everything the moment
 * CMDQ_PROD moves, with no lock of its own ("instant"): what is left of the
 * shared queue's cost is cmdq.c's, its writers' lock and the positions
 * every CPU reads and moves.
 *
 * The fake consumes on CMDQ_CONS reads, everything published at each read:
 * the consumer's work is done by whichever CPU polls, under the fake's one
 * lock, as the one SMMU consumes one queue in order.  That work is serial
 * by nature, so it bounds what N CPUs can reach: the "fp-scale-cmdq-fake"
 * line gives its cost per batch, timed alone on one CPU, from which the
 * table derives the bound.  A consumer thread instead would need a CPU of
 * its own (five with four producers on QEMU's four) and would cap the
 * queue at its own pace, whatever the queue does.
 *
 * And it counts what the SMMU consumed: CMD_SYNCs per batch on the shared
 * fake, exact, at 1, 2 and 4 threads, where upstream arm-smmu-v3 writes
 * one per batch whatever the number of CPUs ("fp-scale-cmdq-syncs:"
 * lines): through a submit and a sync, as above, and through
 * smmuv3_cmdq_submit_sync() (the strict 4K unmap's path), in rounds of
 * their own, 256 batches each, alternately with sharing on and off
 * (share_max 0), with their times.  Fewer than one means CPUs shared
 * CMD_SYNCs: one caller's commands written while another waited for the
 * queue's lock.
 *
 * A benchmark, not a test: it prints "fp-scale-cmdq:" lines for
 * scripts/bench-scale.sh and asserts nothing about time; it does check
 * that every sync completed and nothing was lost.  Under UML (one CPU)
 * only N = 1 runs.
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/ktime.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/sizes.h>

#include "bench_backend.h"
#include "fp_model.h"
#include "fp_rig.h"
#include "fp_smmuv3_fake.h"

/*
 * Per thread and round, batches of one TLBI and a CMD_SYNC: a 4K unmap's.
 * 1024 batches take a few ms of guest time under TCG; rounds are many and
 * short, the sides and thread counts in turn within each, so that the
 * host's noise falls on all of them and a ratio can be taken per round.
 */
#define FPQ_BATCHES	1024
#define FPQ_ROUNDS	31
/*
 * In a kernel with KASAN, lockdep or KCSAN (the test kernels, not make
 * bench's) the rounds' times say nothing of the queue, and 31 of them
 * take three minutes of TCG: past the hung-task detector's two while the
 * KUnit runner waits for the case.  There the checks alone are what the
 * case is run for, and a few rounds make them.
 */
#define FPQ_DEBUG_ROUNDS	3

static unsigned int fpq_rounds(void)
{
	if (IS_ENABLED(CONFIG_KASAN) || IS_ENABLED(CONFIG_PROVE_LOCKING) ||
	    IS_ENABLED(CONFIG_KCSAN))
		return FPQ_DEBUG_ROUNDS;
	return FPQ_ROUNDS;
}

/*
 * Rounds of the CMD_SYNC count through smmuv3_cmdq_submit_sync(): counts
 * need no 31 rounds, and the arm64 test kernel (KASAN, under TCG) runs
 * this suite too.
 */
#define FPQ_SYNC_ROUNDS	4
#define FPQ_SYNC_BATCHES	256
#define FPQ_MAX_THREADS	4
#define FPQ_SHIFT	10
#define FPQ_ASID	0x200
#define FPQ_IOVA	SZ_1G
/* Calibration of the fake alone: batches, and clock pairs. */
#define FPQ_CAL_BATCHES	4096

enum fpq_side { FPQ_CMDQ, FPQ_PRIVATE, FPQ_OWN, FPQ_INSTANT, FPQ_SIDES };

static const char * const fpq_side_name[FPQ_SIDES] = {
	[FPQ_CMDQ] = "cmdq", [FPQ_PRIVATE] = "private", [FPQ_OWN] = "own",
	[FPQ_INSTANT] = "instant",
};

struct fpq_round {
	struct fpt_v3_fake *f;		/* FPQ_CMDQ, FPQ_INSTANT: shared */
	struct fpt_v3_fake **own;	/* FPQ_OWN: one fake per thread */
	enum fpq_side side;
	bool leaf;			/* smmuv3_cmdq_submit_sync() */
	unsigned int threads;
	atomic_t arrived;
	atomic_t running;
	atomic_t failed;
	struct completion done;
	u64 ns[FPQ_MAX_THREADS];	/* per batch, per thread */
};

struct fpq_worker {
	struct fpq_round *r;
	unsigned int id;
};

static DEFINE_PER_CPU(u64, fpq_sink);

/* The private side's queue: takes the command as a call, keeps nothing. */
static noinline void fpq_private_submit(const u64 *cmd)
{
	raw_cpu_add(fpq_sink, cmd[0] ^ cmd[1]);
}

static int fpq_worker_fn(void *data)
{
	struct fpq_worker *w = data;
	struct fpq_round *r = w->r;
	struct smmuv3_device *smmu = r->side == FPQ_OWN ?
				     &r->own[w->id]->smmu : &r->f->smmu;
	unsigned int i, n = r->leaf ? FPQ_SYNC_BATCHES : FPQ_BATCHES;
	u64 cmd[CMD_DWORDS], t0;

	atomic_inc(&r->arrived);
	while (atomic_read(&r->arrived) < r->threads)
		cpu_relax();

	t0 = ktime_get_ns();
	for (i = 0; i < n; i++) {
		smmuv3_cmd_tlbi_nh_va(cmd, FPQ_ASID + w->id,
				      FPQ_IOVA + (unsigned long)i * SZ_4K, true);
		if (r->side == FPQ_PRIVATE) {
			fpq_private_submit(cmd);
			continue;
		}
		if (r->leaf) {
			if (smmuv3_cmdq_ops.submit_sync(smmu, cmd, 1))
				atomic_inc(&r->failed);
			continue;
		}
		smmuv3_cmdq_ops.submit(smmu, cmd, 1);
		if (smmuv3_cmdq_ops.sync(smmu))
			atomic_inc(&r->failed);
	}
	r->ns[w->id] = div_u64(ktime_get_ns() - t0, n);

	if (atomic_dec_and_test(&r->running))
		complete(&r->done);
	return 0;
}

/* One round: @threads threads, on CPUs of their own; ns per batch. */
static u64 fpq_run_round_on(struct kunit *test, struct fpt_v3_fake *f,
			    struct fpt_v3_fake **own, enum fpq_side side,
			    bool leaf, unsigned int threads)
{
	struct fpq_worker w[FPQ_MAX_THREADS];
	void *args[FPQ_MAX_THREADS];
	struct fpq_round *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	unsigned int i;
	u64 ns = 0;

	KUNIT_ASSERT_NOT_NULL(test, r);
	r->f = f;
	r->own = own;
	r->side = side;
	r->leaf = leaf;
	r->threads = threads;
	atomic_set(&r->running, threads);
	init_completion(&r->done);
	for (i = 0; i < threads; i++) {
		w[i] = (struct fpq_worker){ .r = r, .id = i };
		args[i] = &w[i];
	}
	fpbk_run_bound(test, fpq_worker_fn, args, threads, "fp_scale_q",
		       &r->done);

	KUNIT_EXPECT_EQ(test, atomic_read(&r->failed), 0);
	for (i = 0; i < threads; i++)
		ns += r->ns[i];
	kunit_kfree(test, r);
	return div_u64(ns, threads);
}

static u64 fpq_run_round(struct kunit *test, struct fpt_v3_fake *f,
			 struct fpt_v3_fake **own, enum fpq_side side,
			 unsigned int threads)
{
	return fpq_run_round_on(test, f, own, side, false, threads);
}

/*
 * The fake's own cost, on one CPU with no one else polling: the time spent
 * inside its register accesses (where it consumes), less what reading the
 * clock around them costs.
 */
static const struct smmuv3_cmdq_impl *fpq_fake_impl;
static u64 fpq_fake_ns;
static unsigned long fpq_fake_calls;

static u32 fpq_timed_read(struct smmuv3_cmdq *cmdq, unsigned int off)
{
	u64 t0 = ktime_get_ns();
	u32 val = fpq_fake_impl->read_reg(cmdq, off);

	fpq_fake_ns += ktime_get_ns() - t0;
	fpq_fake_calls++;
	return val;
}

static void fpq_timed_write(struct smmuv3_cmdq *cmdq, unsigned int off,
			    u32 val)
{
	u64 t0 = ktime_get_ns();

	fpq_fake_impl->write_reg(cmdq, off, val);
	fpq_fake_ns += ktime_get_ns() - t0;
	fpq_fake_calls++;
}

static void fpq_timed_delay(struct smmuv3_cmdq *cmdq)
{
	fpq_fake_impl->delay(cmdq);
}

static const struct smmuv3_cmdq_impl fpq_timed_impl = {
	.read_reg	= fpq_timed_read,
	.write_reg	= fpq_timed_write,
	.delay		= fpq_timed_delay,
};

static void fpq_calibrate(struct kunit *test, struct fpt_v3_fake *f)
{
	u64 cmd[CMD_DWORDS], t0, clock_ns, fake_ns;
	unsigned long calls;
	unsigned int i;

	/* Two clock reads back to back: what each timed access adds. */
	t0 = ktime_get_ns();
	for (i = 0; i < FPQ_CAL_BATCHES; i++) {
		raw_cpu_add(fpq_sink, ktime_get_ns());
		raw_cpu_add(fpq_sink, ktime_get_ns());
	}
	clock_ns = div_u64(ktime_get_ns() - t0, FPQ_CAL_BATCHES);

	fpq_fake_impl = f->smmu.cmdq.impl;
	fpq_fake_ns = 0;
	fpq_fake_calls = 0;
	f->smmu.cmdq.impl = &fpq_timed_impl;
	migrate_disable();
	t0 = ktime_get_ns();
	for (i = 0; i < FPQ_CAL_BATCHES; i++) {
		smmuv3_cmd_tlbi_nh_va(cmd, FPQ_ASID,
				      FPQ_IOVA + (unsigned long)i * SZ_4K, true);
		smmuv3_cmdq_ops.submit(&f->smmu, cmd, 1);
		KUNIT_EXPECT_EQ(test, smmuv3_cmdq_ops.sync(&f->smmu), 0);
	}
	t0 = ktime_get_ns() - t0;
	migrate_enable();
	f->smmu.cmdq.impl = fpq_fake_impl;
	fake_ns = fpq_fake_ns;
	calls = fpq_fake_calls;
	fake_ns -= min(fake_ns, (u64)calls * clock_ns);

	kunit_info(test,
		   "fp-scale-cmdq-fake: batches=%u fake_ns=%llu accesses=%lu clock_ns=%llu timed_batch_ns=%llu\n",
		   FPQ_CAL_BATCHES, div_u64(fake_ns, FPQ_CAL_BATCHES),
		   calls / FPQ_CAL_BATCHES, clock_ns,
		   div_u64(t0, FPQ_CAL_BATCHES));
}

/* A fake SMMU with a TLB model of its own, consuming at each CONS read. */
static struct fpt_v3_fake *fpq_fake_new(struct kunit *test)
{
	struct fpt_v3_fake *f = fpt_v3_fake_new(test, fpt_shared_smmu(test),
						FPQ_SHIFT, BIT(FPQ_SHIFT));

	/* Counted, not slept: only a lost command could exhaust it. */
	f->smmu.cmdq.timeout_us = SMMUV3_CMDQ_TIMEOUT_US;
	return f;
}

/* Every command a fake was sent was consumed, each as it was written. */
static void fpq_fake_check(struct kunit *test, struct fpt_v3_fake *f)
{
	KUNIT_EXPECT_EQ(test, f->smmu.cmdq.nlost, 0);
	KUNIT_EXPECT_EQ(test, f->consumed_pos, f->smmu.cmdq.prod);
	KUNIT_EXPECT_EQ(test, f->bad, 0);
}

/* Every round's ns per batch, for the table's median and interval. */
static void fpq_print(struct kunit *test, enum fpq_side side,
		      unsigned int threads, const u64 *ns,
		      unsigned long reads)
{
	char *buf = kunit_kzalloc(test, FPQ_ROUNDS * 21 + 1, GFP_KERNEL);
	unsigned int r;
	int len = 0;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (r = 0; r < fpq_rounds(); r++)
		len += scnprintf(buf + len, FPQ_ROUNDS * 21 + 1 - len,
				 r ? ",%llu" : "%llu", ns[r]);
	kunit_info(test,
		   "fp-scale-cmdq: side=%s threads=%u cpus=%u batch=1 batches=%u rounds=%u cons_reads=%lu ns=%s\n",
		   fpq_side_name[side], threads, num_online_cpus(),
		   FPQ_BATCHES, fpq_rounds(), reads, buf);
	kunit_kfree(test, buf);
}

/* CMD_SYNCs the SMMU consumed per batch, in thousandths. */
static u64 fpq_milli(u64 syncs, u64 batches)
{
	return div64_u64(syncs * 1000, batches ?: 1);
}

/*
 * With the fewest and the most per batch of any one round, and each
 * round's time per batch per thread (@ns, @rounds of them, or NULL).
 */
static void fpq_print_syncs(struct kunit *test, const char *path,
			    bool share, unsigned int threads, u64 batches,
			    u64 syncs, unsigned long fallbacks, u64 lo, u64 hi,
			    const u64 *ns, unsigned int rounds)
{
	u64 milli = fpq_milli(syncs, batches);
	char list[FPQ_SYNC_ROUNDS * 21 + 2] = "-";
	unsigned int r, len = 0;

	for (r = 0; ns && r < rounds; r++)
		len += scnprintf(list + len, sizeof(list) - len, "%s%llu",
				 r ? "," : "", ns[r]);
	kunit_info(test,
		   "fp-scale-cmdq-syncs: path=%s share=%s threads=%u cpus=%u unmaps=%llu syncs=%llu fallbacks=%lu per_unmap=%llu.%03llu round_min=%llu.%03llu round_max=%llu.%03llu upstream=1.000 ns=%s\n",
		   path, share ? "on" : "off", threads, num_online_cpus(),
		   batches, syncs, fallbacks, div_u64(milli, 1000),
		   milli % 1000, div_u64(lo, 1000), lo % 1000,
		   div_u64(hi, 1000), hi % 1000, list);
}

/*
 * The strict 4K unmap's path, smmuv3_cmdq_submit_sync(), on a shared fake
 * of its own: CMD_SYNCs per batch at each thread count, with CMD_SYNCs
 * handed to a CPU waiting for the lock and without (share_max 0), in
 * alternating rounds, so that the host's noise falls on both.
 */
static void fpq_count_leaf_syncs(struct kunit *test, struct fpt_v3_fake **own)
{
	struct fpt_v3_fake *g = fpq_fake_new(test);
	unsigned long syncs[2], fallbacks[2], before, fb;
	u64 lo[2], hi[2], m, ns[2][FPQ_SYNC_ROUNDS];
	unsigned int threads, r, on;

	for (threads = 1; threads <= FPQ_MAX_THREADS; threads *= 2) {
		if (threads > num_online_cpus())
			break;
		for (on = 0; on < 2; on++) {
			syncs[on] = 0;
			fallbacks[on] = 0;
			lo[on] = U64_MAX;
			hi[on] = 0;
		}
		for (r = 0; r < 2 * FPQ_SYNC_ROUNDS; r++) {
			on = !(r & 1);
			g->smmu.cmdq.share_max = on ? SMMUV3_CMDQ_SHARE_MAX : 0;
			before = g->syncs;
			fb = g->smmu.cmdq.fallbacks;
			ns[on][r / 2] = fpq_run_round_on(test, g, own, FPQ_CMDQ,
							 true, threads);
			syncs[on] += g->syncs - before;
			fallbacks[on] += g->smmu.cmdq.fallbacks - fb;
			m = fpq_milli(g->syncs - before,
				      threads * FPQ_SYNC_BATCHES);
			lo[on] = min(lo[on], m);
			hi[on] = max(hi[on], m);
		}
		for (on = 2; on--; )
			fpq_print_syncs(test, "submit_sync", on, threads,
					(u64)FPQ_SYNC_ROUNDS * threads *
					FPQ_SYNC_BATCHES, syncs[on],
					fallbacks[on],
					lo[on], hi[on], ns[on],
					FPQ_SYNC_ROUNDS);
	}
	g->smmu.cmdq.share_max = SMMUV3_CMDQ_SHARE_MAX;
	fpq_fake_check(test, g);
}

static void cmdq_scaling_reported(struct kunit *test)
{
	struct fpt_v3_fake *f, *inst, *own[FPQ_MAX_THREADS];
	u64 (*ns)[FPQ_SIDES][FPQ_ROUNDS];
	unsigned long reads[3] = {}, syncs[3] = {}, falls[3] = {}, before;
	unsigned long sbefore, fbefore;
	u64 lo[3] = { U64_MAX, U64_MAX, U64_MAX }, hi[3] = {}, m;
	unsigned int n, threads, r, s, i;

	ns = kunit_kcalloc(test, 3, sizeof(*ns), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ns);
	f = fpq_fake_new(test);
	for (i = 0; i < FPQ_MAX_THREADS; i++)
		own[i] = fpq_fake_new(test);
	inst = fpq_fake_new(test);
	fpt_v3_fake_instant(inst);

	fpq_calibrate(test, f);
	for (r = 0; r < fpq_rounds(); r++) {
		for (n = 0, threads = 1; threads <= FPQ_MAX_THREADS;
		     n++, threads *= 2) {
			if (threads > num_online_cpus())
				break;
			before = f->reads;
			sbefore = f->syncs;
			fbefore = f->smmu.cmdq.fallbacks;
			ns[n][FPQ_CMDQ][r] = fpq_run_round(test, f, own,
							   FPQ_CMDQ, threads);
			reads[n] += f->reads - before;
			syncs[n] += f->syncs - sbefore;
			m = fpq_milli(f->syncs - sbefore, threads * FPQ_BATCHES);
			lo[n] = min(lo[n], m);
			hi[n] = max(hi[n], m);
			falls[n] += f->smmu.cmdq.fallbacks - fbefore;
			ns[n][FPQ_PRIVATE][r] = fpq_run_round(test, f, own,
							      FPQ_PRIVATE,
							      threads);
			ns[n][FPQ_OWN][r] = fpq_run_round(test, f, own,
							  FPQ_OWN, threads);
			ns[n][FPQ_INSTANT][r] = fpq_run_round(test, inst, own,
							      FPQ_INSTANT,
							      threads);
		}
	}
	for (n = 0, threads = 1; threads <= FPQ_MAX_THREADS;
	     n++, threads *= 2) {
		if (threads > num_online_cpus())
			break;
		for (s = 0; s < FPQ_SIDES; s++)
			fpq_print(test, s, threads, ns[n][s],
				  s == FPQ_CMDQ ? reads[n] : 0);
		fpq_print_syncs(test, "submit+sync", true, threads,
				(u64)fpq_rounds() * threads * FPQ_BATCHES,
				syncs[n], falls[n], lo[n], hi[n], NULL, 0);
	}
	fpq_count_leaf_syncs(test, own);
	fpq_fake_check(test, f);
	for (i = 0; i < FPQ_MAX_THREADS; i++)
		fpq_fake_check(test, own[i]);
	/* The last sync written waited for everything before it. */
	KUNIT_EXPECT_EQ(test, inst->smmu.cmdq.nlost, 0);
	KUNIT_EXPECT_EQ(test, READ_ONCE(inst->smmu.cmdq.cons),
			inst->smmu.cmdq.prod);
}

static struct kunit_case fpq_test_cases[] = {
	KUNIT_CASE(cmdq_scaling_reported),
	{}
};

static struct kunit_suite fpq_suite = {
	.name = "flushpol_bench_scale_cmdq",
	.test_cases = fpq_test_cases,
};

kunit_test_suite(fpq_suite);
