// SPDX-License-Identifier: GPL-2.0-only
/*
 * flushpol_batch: the batch policy (policy/batch.c) on the TLB model.
 *
 * Alone, a gather goes as threshold sends it.  Gathers of other CPUs that
 * arrive while one batch is being sent (held in its sync here, by the
 * rig's hook) join the next, which is sent with one sync; each caller
 * checks in the model, as soon as its unmap returns, that its own page is
 * no longer cached, and none returns while its batch's sync is held.  A
 * caller that interrupts the sender on the sender's own CPU does not wait
 * for it; a caller whose batch failed its sync sends its own gather; one
 * who leaves the list takes out its own entry, and no other.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/sched/clock.h>
#include <linux/sizes.h>

#include "../core/fp_core.h"
#include "fp_rig.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

#define FPT_B_IOVA	SZ_1G
/* Each caller's page, a 2M table apart so that none frees another's. */
#define FPT_B_PAGE(i)	(FPT_B_IOVA + (i) * SZ_2M)
#define FPT_B_CALLERS	3
#define FPT_IOVA_LONE	(2UL * SZ_1G)
/* Longer than any hold below, so that no caller gives up under TCG. */
#define FPT_B_WAIT_NS	(20ULL * NSEC_PER_SEC)
#define FPT_B_HOLD	(10 * HZ)

/* Maps @size at @iova in 4K pages, and has the device cache them. */
static void fpt_batch_map(struct kunit *test, struct fpt_rig *rig,
			  unsigned long iova, size_t size)
{
	KUNIT_ASSERT_EQ(test, fpt_map(rig, iova, size, SZ_4K), 0);
	fpm_access_range(&rig->mc, iova, size);
}

static struct fpt_rig *fpt_batch_rig(struct kunit *test, bool range,
				     unsigned int threshold, u16 asid)
{
	struct fpt_rig_cfg rc = {
		.fmt = ARM_64_LPAE_S1, .has_range = range, .policy = "batch",
		.threshold = threshold,
	};
	struct fpt_rig *rig = kunit_kzalloc(test, sizeof(*rig), GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, rig);
	KUNIT_ASSERT_EQ(test, fpt_rig_init(test, rig, &rc, NULL, asid), 0);
	for (i = 0; i < FPT_B_CALLERS; i++)
		fpt_batch_map(test, rig, FPT_B_PAGE(i), SZ_4K);
	fp_context_reset_stats(rig->ctx);
	return rig;
}

static void fpt_batch_wait_restore(void *old)
{
	fp_batch_wait_set((unsigned long)old);
}

static void fpt_batch_wait_long(struct kunit *test)
{
	unsigned long old = fp_batch_wait_set(FPT_B_WAIT_NS);

	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
							fpt_batch_wait_restore,
							(void *)old), 0);
}

/*
 * Alone, a gather is sent as threshold sends it: below the threshold one
 * precise command (by range with range commands, by VA without) and a
 * sync; above it, the context.
 */
static void lone_gather_goes_as_threshold_sends_it(struct kunit *test)
{
	static const struct {
		bool range;
		size_t size;
		enum fp_stat cmd;
	} cases[] = {
		{ false, SZ_4K, FP_STAT_TLBI_VA },
		{ true, SZ_4K, FP_STAT_TLBI_RANGE },
		{ false, SZ_64K, FP_STAT_TLBI_ASID },
		{ true, SZ_64K, FP_STAT_TLBI_ASID },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct fpt_rig *rig = fpt_batch_rig(test, cases[i].range, 8,
						    i + 1);

		fpt_batch_map(test, rig, FPT_IOVA_LONE, cases[i].size);
		fp_context_reset_stats(rig->ctx);
		KUNIT_ASSERT_EQ(test, fpt_unmap(rig, FPT_IOVA_LONE,
						cases[i].size, false),
				cases[i].size);
		KUNIT_EXPECT_EQ_MSG(test, fp_context_stat(rig->ctx,
							  cases[i].cmd), 1,
				    "case %u", i);
		KUNIT_EXPECT_EQ_MSG(test, fp_context_stat(rig->ctx,
							  FP_STAT_SYNCS), 1,
				    "case %u", i);
		KUNIT_EXPECT_EQ_MSG(test, fpm_stale_entries(&rig->mc), 0,
				    "case %u", i);
	}
}

/*
 * Callers on other CPUs, each unmapping its own page, the first held in
 * its sync by the rig's hook until the test lets it go.
 */
struct fpt_batch_run {
	struct fpt_rig *rig;
	struct task_struct *task[FPT_B_CALLERS];	/* 0: the one held */
	atomic_t in_sync;		/* the first caller is in its sync */
	atomic_t go;
	/* Fail the sync of the batch after the held one, sent by @failed_by. */
	bool fail_next;
	struct task_struct *failed_by;
	/* Or hold that sync too, until @go2. */
	atomic_t in_sync2;
	atomic_t go2;
	struct completion done[FPT_B_CALLERS];
	unsigned long stale[FPT_B_CALLERS];	/* left when it returned */
	size_t unmapped[FPT_B_CALLERS];
	int cpu[FPT_B_CALLERS];
};

struct fpt_batch_caller {
	struct fpt_batch_run *run;
	unsigned int i;
};

/*
 * Spinning: the sync is a policy call, which must not sleep; and by the
 * clock, not jiffies: a backend may sync with interrupts off.
 */
static void fpt_batch_spin_until(atomic_t *go)
{
	u64 t0 = local_clock();

	while (!atomic_read(go) && local_clock() - t0 < FPT_B_WAIT_NS / 2)
		cpu_relax();
}

static void fpt_batch_hold(struct fpt_rig *rig)
{
	struct fpt_batch_run *run = rig->hook_data;

	if (current == run->task[0]) {
		if (!atomic_xchg(&run->in_sync, 1))
			fpt_batch_spin_until(&run->go);
		return;
	}
	if (run->fail_next) {
		if (!run->failed_by) {
			run->failed_by = current;
			rig->smmu->syncs_to_fail = 1;
		}
		return;
	}
	if (!atomic_xchg(&run->in_sync2, 1))
		fpt_batch_spin_until(&run->go2);
}

static const struct fpt_hooks fpt_batch_hooks = {
	.before_sync = fpt_batch_hold,
};

static int fpt_batch_caller_fn(void *data)
{
	struct fpt_batch_caller *c = data;
	struct fpt_batch_run *run = c->run;
	unsigned long iova = FPT_B_PAGE(c->i);

	run->unmapped[c->i] = fpt_unmap(run->rig, iova, SZ_4K, false);
	run->stale[c->i] = fpm_stale_in(&run->rig->mc, iova, SZ_4K);
	/* For the test and the release alike. */
	complete_all(&run->done[c->i]);
	return 0;
}

/* No caller outlives the test, however it ends. */
static void fpt_batch_release(void *data)
{
	struct fpt_batch_run *run = data;
	unsigned int i;

	atomic_set(&run->go, 1);
	atomic_set(&run->go2, 1);
	for (i = 0; i < FPT_B_CALLERS; i++)
		wait_for_completion_timeout(&run->done[i], FPT_B_HOLD);
	run->rig->hooks = NULL;
}

static void fpt_batch_start(struct kunit *test, struct fpt_batch_run *run,
			    unsigned int i)
{
	struct fpt_batch_caller *c = kunit_kzalloc(test, sizeof(*c),
						   GFP_KERNEL);
	struct task_struct *t;

	KUNIT_ASSERT_NOT_NULL(test, c);
	c->run = run;
	c->i = i;
	t = kthread_create(fpt_batch_caller_fn, c, "fpt-batch/%u", i);
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	/* Each on a CPU of its own: none preempts the one it waits for. */
	kthread_bind(t, run->cpu[i]);
	run->task[i] = t;
	wake_up_process(t);
}

/* Pages in the open batch, waited for until @n are in. */
static bool fpt_batch_joined(struct fpt_rig *rig, unsigned long n)
{
	struct fp_batcher *bt = &rig->ctx->batcher;
	unsigned long end = jiffies + FPT_B_HOLD;

	while (time_before(jiffies, end)) {
		if (READ_ONCE(bt->b[READ_ONCE(bt->open) & 1].pages) >= n)
			return true;
		usleep_range(500, 1000);
	}
	return false;
}

/*
 * Three callers: the first sends its gather and is held in its sync; the
 * other two arrive meanwhile and join the next batch, whose sync is held
 * too (unless it is to fail) while the test checks that neither of them
 * has returned.  Returns once all three have returned.
 */
static struct fpt_batch_run *fpt_batch_three_run(struct kunit *test,
						 bool range,
						 unsigned int threshold,
						 bool fail_next)
{
	struct fpt_batch_run *run = kunit_kzalloc(test, sizeof(*run),
						  GFP_KERNEL);
	unsigned int i, cpu, n = 0;

	if (num_online_cpus() < FPT_B_CALLERS + 1)
		kunit_skip(test, "needs %u CPUs, one for each caller and the test",
			   FPT_B_CALLERS + 1);
	KUNIT_ASSERT_NOT_NULL(test, run);
	run->fail_next = fail_next;
	for_each_online_cpu(cpu) {
		if (cpu == raw_smp_processor_id())
			continue;
		if (n < FPT_B_CALLERS)
			run->cpu[n++] = cpu;
	}
	fpt_batch_wait_long(test);
	run->rig = fpt_batch_rig(test, range, threshold, 1);
	for (i = 0; i < FPT_B_CALLERS; i++)
		init_completion(&run->done[i]);
	run->rig->hook_data = run;
	run->rig->hooks = &fpt_batch_hooks;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
							fpt_batch_release,
							run), 0);

	fpt_batch_start(test, run, 0);
	while (!atomic_read(&run->in_sync) &&
	       !completion_done(&run->done[0]))
		usleep_range(500, 1000);
	KUNIT_ASSERT_TRUE(test, atomic_read(&run->in_sync));
	fpt_batch_start(test, run, 1);
	fpt_batch_start(test, run, 2);
	KUNIT_ASSERT_TRUE_MSG(test, fpt_batch_joined(run->rig, 2),
			      "the callers never joined the next batch");
	atomic_set(&run->go, 1);
	if (!fail_next) {
		unsigned long end = jiffies + FPT_B_HOLD;

		while (!atomic_read(&run->in_sync2) && time_before(jiffies, end))
			usleep_range(500, 1000);
		KUNIT_ASSERT_TRUE(test, atomic_read(&run->in_sync2));
		/* Time for a caller who would not wait to return. */
		msleep(50);
		for (i = 1; i < FPT_B_CALLERS; i++)
			KUNIT_EXPECT_FALSE_MSG(test,
					       completion_done(&run->done[i]),
					       "caller %u returned before its batch's sync",
					       i);
		atomic_set(&run->go2, 1);
	}
	for (i = 0; i < FPT_B_CALLERS; i++)
		KUNIT_ASSERT_GT(test, wait_for_completion_timeout(&run->done[i],
								  FPT_B_HOLD),
				0);
	return run;
}

/*
 * The two callers who join while the first is held share the next sync.
 * @threshold 1: their two pages are past it, and go as one context
 * invalidation.
 */
static struct fpt_rig *fpt_batch_three_callers(struct kunit *test,
					       bool range,
					       unsigned int threshold)
{
	struct fpt_batch_run *run = fpt_batch_three_run(test, range, threshold,
							false);
	unsigned int i;

	for (i = 0; i < FPT_B_CALLERS; i++) {
		KUNIT_EXPECT_EQ_MSG(test, run->unmapped[i], SZ_4K,
				    "caller %u", i);
		KUNIT_EXPECT_EQ_MSG(test, run->stale[i], 0,
				    "caller %u returned with its page cached",
				    i);
	}
	KUNIT_EXPECT_EQ(test, fp_context_stat(run->rig->ctx, FP_STAT_UNMAPS),
			FPT_B_CALLERS);
	KUNIT_EXPECT_EQ(test, fp_context_stat(run->rig->ctx, FP_STAT_SYNCS), 2);
	if (threshold > 1) {
		KUNIT_EXPECT_EQ(test, fp_context_stat(run->rig->ctx, range ?
						      FP_STAT_TLBI_RANGE :
						      FP_STAT_TLBI_VA),
				FPT_B_CALLERS);
		KUNIT_EXPECT_EQ(test, fp_context_stat(run->rig->ctx,
						      FP_STAT_TLBI_ASID), 0);
	} else {
		KUNIT_EXPECT_EQ(test, fp_context_stat(run->rig->ctx, range ?
						      FP_STAT_TLBI_RANGE :
						      FP_STAT_TLBI_VA), 1);
		KUNIT_EXPECT_EQ(test, fp_context_stat(run->rig->ctx,
						      FP_STAT_TLBI_ASID), 1);
	}
	KUNIT_EXPECT_EQ(test, fpm_stale_entries(&run->rig->mc), 0);
	return run->rig;
}

static void callers_during_a_batch_share_the_next_sync(struct kunit *test)
{
	fpt_batch_three_callers(test, false, 128);
}

static void shared_batch_by_range_where_the_backend_has_it(struct kunit *test)
{
	fpt_batch_three_callers(test, true, 128);
}

/*
 * And the batches after a whole one go as their gathers say: the next two
 * lone callers use both batches again, the second the one that went whole.
 */
static void shared_batch_past_threshold_goes_by_context(struct kunit *test)
{
	struct fpt_rig *rig = fpt_batch_three_callers(test, false, 1);
	unsigned long iova;
	unsigned int i;

	for (i = 0; i < 2; i++) {
		iova = FPT_IOVA_LONE + i * SZ_2M;
		fpt_batch_map(test, rig, iova, SZ_4K);
		fp_context_reset_stats(rig->ctx);
		KUNIT_EXPECT_EQ(test, fpt_unmap(rig, iova, SZ_4K, false), SZ_4K);
		KUNIT_EXPECT_EQ_MSG(test, fp_context_stat(rig->ctx,
							  FP_STAT_TLBI_VA), 1,
				    "lone caller %u", i);
		KUNIT_EXPECT_EQ_MSG(test, fp_context_stat(rig->ctx,
							  FP_STAT_TLBI_ASID), 0,
				    "lone caller %u", i);
		KUNIT_EXPECT_EQ(test, fpm_stale_in(&rig->mc, iova, SZ_4K), 0);
	}
}

/*
 * The shared batch's sync fails (it times out once, and the SMMU works
 * again).  Its sender returns as threshold's caller would, with the error
 * counted; the caller who only joined must not take that sync for its
 * own: it sends its gather with a sync of its own, and finds it gone.
 */
static void joiner_of_a_failed_batch_sends_its_own(struct kunit *test)
{
	struct fpt_batch_run *run = fpt_batch_three_run(test, false, 128,
							true);
	struct fp_context *ctx = run->rig->ctx;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, run->failed_by);
	KUNIT_EXPECT_PTR_NE(test, run->failed_by, run->task[0]);
	for (i = 0; i < FPT_B_CALLERS; i++) {
		KUNIT_EXPECT_EQ_MSG(test, run->unmapped[i], SZ_4K,
				    "caller %u", i);
		if (run->task[i] == run->failed_by)
			continue;
		KUNIT_EXPECT_EQ_MSG(test, run->stale[i], 0,
				    "caller %u returned with its page cached",
				    i);
	}
	KUNIT_EXPECT_EQ(test, fp_context_stat(ctx, FP_STAT_SYNC_TIMEOUTS), 1);
	/*
	 * The held batch's, the failed one's, and the joiner's own; with
	 * its command sent again, not only a sync (the model keeps what a
	 * failed sync left, which a bare sync would complete).
	 */
	KUNIT_EXPECT_EQ(test, fp_context_stat(ctx, FP_STAT_SYNCS), 3);
	KUNIT_EXPECT_EQ(test, fp_context_stat(ctx, FP_STAT_TLBI_VA), 4);
	KUNIT_EXPECT_EQ(test, fpm_stale_entries(&run->rig->mc), 0);
}

/*
 * Callers on the sender's own CPU (here, called from inside the sender's
 * sync, as interrupts would) cannot be waited for by it: each sends its
 * own gather at once, where waiting would last the whole bound, and takes
 * it out of the next batch.  One more of them than a batch lists: had
 * their entries stayed, the last would have made the batch go whole for
 * the caller after them.
 */
#define FPT_B_NESTED		(FP_BATCH_GATHERS + 1)
#define FPT_B_NEST_PAGE(i)	FPT_B_PAGE(FPT_B_CALLERS + (i))

struct fpt_batch_nested {
	struct fpt_rig *rig;
	bool entered;
	bool irqs_on;		/* the sender's sync ran with interrupts on */
	size_t unmapped;	/* by all of them */
	unsigned long stale;
	u64 ns;			/* the longest of them */
};

static void fpt_batch_nest(struct fpt_rig *rig)
{
	struct fpt_batch_nested *n = rig->hook_data;
	unsigned int i;
	u64 t0;

	if (n->entered)
		return;
	n->entered = true;
	n->irqs_on = !irqs_disabled();
	for (i = 0; i < FPT_B_NESTED; i++) {
		t0 = local_clock();
		n->unmapped += fpt_unmap(rig, FPT_B_NEST_PAGE(i), SZ_4K, false);
		n->ns = max(n->ns, local_clock() - t0);
		n->stale += fpm_stale_in(&rig->mc, FPT_B_NEST_PAGE(i), SZ_4K);
	}
}

static const struct fpt_hooks fpt_batch_nest_hooks = {
	.before_sync = fpt_batch_nest,
};

static void caller_on_the_senders_cpu_does_not_wait(struct kunit *test)
{
	struct fpt_batch_nested *n = kunit_kzalloc(test, sizeof(*n),
						   GFP_KERNEL);
	struct fpt_rig *rig;
	struct fp_batch *b;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, n);
	fpt_batch_wait_long(test);
	rig = fpt_batch_rig(test, false, 128, 1);
	for (i = 0; i < FPT_B_NESTED; i++)
		fpt_batch_map(test, rig, FPT_B_NEST_PAGE(i), SZ_4K);
	fp_context_reset_stats(rig->ctx);
	n->rig = rig;
	rig->hook_data = n;
	rig->hooks = &fpt_batch_nest_hooks;
	migrate_disable();
	KUNIT_EXPECT_EQ(test, fpt_unmap(rig, FPT_B_PAGE(0), SZ_4K, false),
			SZ_4K);
	migrate_enable();
	rig->hooks = NULL;

	KUNIT_EXPECT_TRUE(test, n->entered);
	/* Sent in the caller's interrupt state, as threshold sends. */
	KUNIT_EXPECT_TRUE(test, n->irqs_on);
	KUNIT_EXPECT_EQ(test, n->unmapped, FPT_B_NESTED * SZ_4K);
	KUNIT_EXPECT_EQ(test, n->stale, 0);
	KUNIT_EXPECT_LT_MSG(test, n->ns, FPT_B_WAIT_NS / 4,
			    "a nested caller waited for its own CPU's batch");
	/*
	 * Each its own command and sync, and the sender's; and each took
	 * its gather out of the next batch, which would invalidate it again.
	 */
	KUNIT_EXPECT_EQ(test, fp_context_stat(rig->ctx, FP_STAT_SYNCS),
			FPT_B_NESTED + 1);
	KUNIT_EXPECT_EQ(test, fp_context_stat(rig->ctx, FP_STAT_TLBI_VA),
			FPT_B_NESTED + 1);
	b = &rig->ctx->batcher.b[rig->ctx->batcher.open & 1];
	KUNIT_EXPECT_EQ(test, b->n, 0);
	KUNIT_EXPECT_EQ(test, b->live, 0);
	KUNIT_EXPECT_EQ(test, b->pages, 0);
	KUNIT_EXPECT_FALSE(test, b->whole);
	KUNIT_EXPECT_EQ(test, fpm_stale_entries(&rig->mc), 0);

	/* The next caller, alone, is sent as threshold sends it: by VA. */
	fp_context_reset_stats(rig->ctx);
	KUNIT_EXPECT_EQ(test, fpt_unmap(rig, FPT_B_PAGE(1), SZ_4K, false),
			SZ_4K);
	KUNIT_EXPECT_EQ(test, fp_context_stat(rig->ctx, FP_STAT_TLBI_VA), 1);
	KUNIT_EXPECT_EQ(test, fp_context_stat(rig->ctx, FP_STAT_TLBI_ASID), 0);
	KUNIT_EXPECT_EQ(test, fpm_stale_in(&rig->mc, FPT_B_PAGE(1), SZ_4K), 0);
}

/*
 * The list itself, as callers join and leave it: one who leaves empties
 * only its own entry, and frees slots only from the end, so that those
 * still listed keep theirs and are sent.
 */
static void fpt_batch_gather_at(struct iommu_iotlb_gather *g,
				unsigned long iova)
{
	iommu_iotlb_gather_init(g);
	g->start = iova;
	g->end = iova + SZ_4K - 1;
	g->pgsize = SZ_4K;
}

static unsigned long fpt_batch_join_one(struct fpt_rig *rig,
					const struct iommu_iotlb_gather *g,
					int *slot)
{
	struct fp_batcher *bt = &rig->ctx->batcher;
	unsigned long flags, nr;

	raw_spin_lock_irqsave(&bt->lock, flags);
	nr = fp_batch_join(rig->ctx, bt, g, slot);
	raw_spin_unlock_irqrestore(&bt->lock, flags);
	return nr;
}

static void leaving_keeps_the_slots_of_those_still_listed(struct kunit *test)
{
	struct fpt_rig *rig = fpt_batch_rig(test, false, 128, 1);
	struct fp_batcher *bt = &rig->ctx->batcher;
	struct fp_batch *b = &bt->b[bt->open & 1];
	struct iommu_iotlb_gather g[4];
	unsigned long iova[4], nr;
	int slot[4];
	unsigned int i;

	for (i = 0; i < 4; i++) {
		iova[i] = i < FPT_B_CALLERS ? FPT_B_PAGE(i) : FPT_IOVA_LONE;
		fpt_batch_gather_at(&g[i], iova[i]);
	}
	fpt_batch_map(test, rig, FPT_IOVA_LONE, SZ_4K);

	nr = fpt_batch_join_one(rig, &g[0], &slot[0]);
	for (i = 1; i < 3; i++)
		KUNIT_ASSERT_EQ(test, fpt_batch_join_one(rig, &g[i], &slot[i]),
				nr);
	KUNIT_EXPECT_EQ(test, slot[0], 0);
	KUNIT_EXPECT_EQ(test, slot[2], 2);
	/* The first leaves: the others keep their slots, and the list. */
	fp_batch_leave(bt, nr, slot[0], &g[0]);
	KUNIT_EXPECT_EQ(test, b->n, 3);
	KUNIT_EXPECT_EQ(test, b->live, 2);
	/* The last leaves: its slot is free again, the second's is not. */
	fp_batch_leave(bt, nr, slot[2], &g[2]);
	KUNIT_EXPECT_EQ(test, b->n, 2);
	KUNIT_EXPECT_EQ(test, b->live, 1);
	KUNIT_EXPECT_EQ(test, b->pages, 1);
	KUNIT_EXPECT_EQ(test, fpt_batch_join_one(rig, &g[3], &slot[3]), nr);
	KUNIT_EXPECT_EQ(test, slot[3], 2);

	KUNIT_EXPECT_EQ(test, fp_batch_send(rig->ctx, b), 0);
	/* The second's and the fourth's: one command each and one sync. */
	KUNIT_EXPECT_EQ(test, fp_context_stat(rig->ctx, FP_STAT_TLBI_VA), 2);
	KUNIT_EXPECT_EQ(test, fp_context_stat(rig->ctx, FP_STAT_SYNCS), 1);
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_EQ_MSG(test, fpm_cached_leaves(&rig->mc, iova[i],
							    SZ_4K),
				    (i == 1 || i == 3) ? 0 : 1, "caller %u", i);
	KUNIT_EXPECT_EQ(test, b->n, 0);
	KUNIT_EXPECT_EQ(test, b->live, 0);
}

static struct kunit_case fpt_batch_cases[] = {
	KUNIT_CASE(lone_gather_goes_as_threshold_sends_it),
	KUNIT_CASE(callers_during_a_batch_share_the_next_sync),
	KUNIT_CASE(shared_batch_by_range_where_the_backend_has_it),
	KUNIT_CASE(shared_batch_past_threshold_goes_by_context),
	KUNIT_CASE(joiner_of_a_failed_batch_sends_its_own),
	KUNIT_CASE(caller_on_the_senders_cpu_does_not_wait),
	KUNIT_CASE(leaving_keeps_the_slots_of_those_still_listed),
	{}
};

static struct kunit_suite fpt_batch_suite = {
	.name = "flushpol_batch",
	.test_cases = fpt_batch_cases,
};

kunit_test_suite(fpt_batch_suite);
