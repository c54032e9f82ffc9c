// SPDX-License-Identifier: GPL-2.0-only
/*
 * flushpol_faults: an SMMU whose syncs never complete.
 *
 * In the model, a wedged SMMU fails every sync at once; in the SMMUv3
 * backend's own command queue code (backends/smmuv3/cmdq.c), in front of
 * a fake SMMU that stops consuming (fp_smmuv3_fake.c), a sync gives up
 * after its bound, counted in back-off steps.  Either way the error must reach flushpol's
 * statistics, be logged rate-limited (scripts/kunit.sh counts the lines
 * against the "fp-fault:" totals printed here), mislead no later coverage
 * decision, and leave the context working once the hardware does.
 *
 * QEMU's SMMUv3 model cannot be wedged (it has no fault injection), so
 * this is as close to the real queue as the tests get.
 */
#include <kunit/test.h>
#include <linux/ktime.h>
#include <linux/sizes.h>

#include "fp_rig.h"
#include "fp_smmuv3_fake.h"

#define FPT_IOVA	SZ_1G

static const char *const fpt_fault_policies[] = {
	"va", "range", "asid", "threshold", "adaptive",
};

static void fpt_fault_desc(const char *const *p, char *desc)
{
	strscpy(desc, *p, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(fpt_fault, fpt_fault_policies, fpt_fault_desc);

static unsigned long fpt_injected;

static u64 fpt_ms_since(u64 start)
{
	return div_u64(ktime_get_ns() - start, NSEC_PER_MSEC);
}

/*
 * Unmaps while the model's syncs fail: every one returns, the failures
 * are counted, and once syncs work again nothing is left stale, so no
 * policy took a failed flush for a done one.
 */
static void model_sync_failures_counted_and_recovered(struct kunit *test)
{
	const char *policy = *(const char *const *)test->param_value;
	struct fpt_rig_cfg rc = {
		.fmt = ARM_64_LPAE_S1, .has_range = true, .policy = policy,
	};
	struct fpt_rig *rig = kunit_kzalloc(test, sizeof(*rig), GFP_KERNEL);
	unsigned long i, iova;
	u64 start, timeouts;

	KUNIT_ASSERT_NOT_NULL(test, rig);
	KUNIT_ASSERT_EQ(test, fpt_rig_init(test, rig, &rc, NULL, 1), 0);
	KUNIT_ASSERT_EQ(test, fpt_map(rig, FPT_IOVA, SZ_4M, SZ_4K), 0);
	fpm_access_range(&rig->mc, FPT_IOVA, SZ_4M);

	rig->smmu->sync_stuck = true;
	start = ktime_get_ns();
	/* Walks and leaves: tables freed, entries gathered. */
	KUNIT_EXPECT_EQ(test, fpt_unmap(rig, FPT_IOVA, SZ_4M, false), SZ_4M);
	for (i = 0; i < 64; i++) {
		iova = FPT_IOVA + SZ_8M + i * SZ_64K;
		KUNIT_ASSERT_EQ(test, fpt_map(rig, iova, SZ_64K, SZ_4K), 0);
		fpm_access_range(&rig->mc, iova, SZ_64K);
		KUNIT_EXPECT_EQ(test, fpt_unmap(rig, iova, SZ_64K, false),
				SZ_64K);
	}
	/* The model gives up at once: flushpol adds no wait of its own. */
	KUNIT_EXPECT_LT(test, fpt_ms_since(start), 10000);
	timeouts = fp_context_stat(rig->ctx, FP_STAT_SYNC_TIMEOUTS);
	KUNIT_EXPECT_GE(test, timeouts, 65);
	KUNIT_EXPECT_EQ(test, timeouts,
			fp_context_stat(rig->ctx, FP_STAT_SYNCS));
	fpt_injected += timeouts;

	/* The SMMU recovers: what was queued completes at the next sync. */
	rig->smmu->sync_stuck = false;
	iova = FPT_IOVA + SZ_16M;
	KUNIT_ASSERT_EQ(test, fpt_map(rig, iova, SZ_2M, SZ_4K), 0);
	fpm_access_range(&rig->mc, iova, SZ_2M);
	KUNIT_EXPECT_EQ(test, fpt_unmap(rig, iova, SZ_2M, false), SZ_2M);
	KUNIT_EXPECT_EQ(test, fpm_stale_entries(&rig->mc), 0);
	KUNIT_EXPECT_EQ(test, rig->mc.n.stale_hits, 0);
	KUNIT_EXPECT_EQ(test, fp_context_stat(rig->ctx, FP_STAT_SYNC_TIMEOUTS),
			timeouts);
}

static struct fpt_v3_fake *fpt_fake_of_rig;

static void fpt_wedge_setup(struct fpt_rig *rig)
{
	fpt_fake_of_rig = fpt_v3_fake_new(rig->test, rig->smmu, 8, 64);
	rig->backend.v3 = smmuv3_flush_on(&fpt_fake_of_rig->smmu,
					  rig->mc.asid, false);
}

static const struct fpt_backend fpt_wedge_backend = {
	.name = "smmuv3", .ops = &smmuv3_hw_ops, .setup = fpt_wedge_setup,
	.default_policy = "va",
};

/*
 * Through a context: a sync the SMMU never completes returns -ETIMEDOUT
 * after exactly the queue's bound of back-off steps, is counted, and the
 * next one works once the SMMU does.
 */
static void smmuv3_wedged_sync_gives_up_in_bound(struct kunit *test)
{
	struct fpt_rig_cfg rc = {
		.fmt = ARM_64_LPAE_S1, .backend = &fpt_wedge_backend,
	};
	struct fpt_rig *rig = kunit_kzalloc(test, sizeof(*rig), GFP_KERNEL);
	struct fpt_v3_fake *f;

	KUNIT_ASSERT_NOT_NULL(test, rig);
	KUNIT_ASSERT_EQ(test, fpt_rig_init(test, rig, &rc, NULL, 1), 0);
	f = fpt_fake_of_rig;
	KUNIT_ASSERT_EQ(test, fpt_map(rig, FPT_IOVA, SZ_64K, SZ_4K), 0);
	fpm_access_range(&rig->mc, FPT_IOVA, SZ_64K);
	KUNIT_EXPECT_EQ(test, fpt_unmap(rig, FPT_IOVA, SZ_4K, false), SZ_4K);
	KUNIT_EXPECT_EQ(test, fp_context_stat(rig->ctx, FP_STAT_SYNC_TIMEOUTS),
			0);
	KUNIT_EXPECT_EQ(test, f->delays, 0);

	fpt_v3_fake_set(f, 0);
	KUNIT_EXPECT_EQ(test, fpt_unmap(rig, FPT_IOVA + SZ_4K, SZ_4K, false),
			SZ_4K);
	KUNIT_EXPECT_EQ(test, fp_context_stat(rig->ctx, FP_STAT_SYNC_TIMEOUTS),
			1);
	KUNIT_EXPECT_EQ(test, f->delays, f->smmu.cmdq.timeout_us);
	kunit_info(test, "fp-fault: smmuv3: wedged sync gave up after %lu steps\n",
		   f->delays);
	fpt_injected++;

	/* The SMMU comes back and consumes what it had. */
	fpt_v3_fake_set(f, 64);
	KUNIT_EXPECT_EQ(test, fpt_unmap(rig, FPT_IOVA + SZ_8K, SZ_4K, false),
			SZ_4K);
	KUNIT_EXPECT_EQ(test, fp_context_stat(rig->ctx, FP_STAT_SYNC_TIMEOUTS),
			1);
	KUNIT_EXPECT_EQ(test, f->smmu.cmdq.cons, f->smmu.cmdq.prod);
	KUNIT_EXPECT_EQ(test, fpm_stale_entries(&rig->mc), 0);
}

static void fpt_va_cmd(struct fpt_v3_fake *f, unsigned long iova)
{
	u64 cmd[CMD_DWORDS];

	smmuv3_cmd_tlbi_nh_va(cmd, 1, iova, true);
	smmuv3_cmdq_ops.submit(&f->smmu, cmd, 1);
}

/*
 * A full queue on a wedged SMMU: a command that does not fit must not
 * overwrite one the SMMU has not read (that would lose it silently once
 * the SMMU resumes), and what was dropped is made up for by invalidating
 * everything before the next sync can succeed.
 */
static void smmuv3_full_wedged_queue_overwrites_nothing(struct kunit *test)
{
	static const u8 recovery[] = {
		CMD_OP_SYNC, CMD_OP_CFGI_ALL, CMD_OP_SYNC, CMD_OP_TLBI_NSNH_ALL,
		CMD_OP_SYNC,
	};
	struct fpt_rig_cfg rc = { .fmt = ARM_64_LPAE_S1 };
	struct fpt_rig *rig = kunit_kzalloc(test, sizeof(*rig), GFP_KERNEL);
	struct fpt_v3_fake *f;
	struct smmuv3_cmdq *cmdq;
	unsigned int i, n;
	u64 first, prod;

	/* A rig only for its model, torn down after the fake. */
	KUNIT_ASSERT_NOT_NULL(test, rig);
	KUNIT_ASSERT_EQ(test, fpt_rig_init(test, rig, &rc, NULL, 1), 0);
	f = fpt_v3_fake_new(test, rig->smmu, 4, 0);
	cmdq = &f->smmu.cmdq;
	n = BIT(cmdq->q.shift);
	for (i = 0; i < n; i++)
		fpt_va_cmd(f, FPT_IOVA + i * SZ_4K);
	first = fpt_v3_fake_slot(f, 0);
	prod = cmdq->prod;
	KUNIT_EXPECT_EQ(test, f->delays, 0);

	/* One too many: the queue waits its bound, then drops it. */
	fpt_va_cmd(f, FPT_IOVA + n * SZ_4K);
	fpt_injected++;
	KUNIT_EXPECT_EQ(test, fpt_v3_fake_slot(f, 0), first);
	KUNIT_EXPECT_EQ(test, cmdq->prod, prod);
	KUNIT_EXPECT_EQ(test, cmdq->nlost, 1);
	KUNIT_EXPECT_EQ(test, f->delays, cmdq->timeout_us);

	/*
	 * The SMMU resumes; the sync then invalidates all it may have missed
	 * before it answers: configuration, completed, then the TLB.
	 */
	fpt_v3_fake_set(f, 64);
	KUNIT_EXPECT_EQ(test, smmuv3_cmdq_ops.sync(&f->smmu), 0);
	fpt_v3_fake_expect_ops(test, f, prod, recovery, ARRAY_SIZE(recovery));
	KUNIT_EXPECT_EQ(test, f->tlbi, n + 1);
	KUNIT_EXPECT_EQ(test, cmdq->recovered, cmdq->nlost);

	/*
	 * And from then on, plain syncs again: a command and its CMD_SYNC
	 * (a sync alone would write none, the last command written being a
	 * CMD_SYNC).
	 */
	prod = cmdq->prod;
	fpt_va_cmd(f, FPT_IOVA);
	KUNIT_EXPECT_EQ(test, smmuv3_cmdq_ops.sync(&f->smmu), 0);
	KUNIT_EXPECT_EQ(test, cmdq->prod, prod + 2);
	KUNIT_EXPECT_EQ(test, cmdq->recovered, cmdq->nlost);
}

static void fpt_faults_exit(struct kunit_suite *suite)
{
	pr_info("fp-fault: injected %lu sync timeouts\n", fpt_injected);
}

static struct kunit_case fpt_faults_cases[] = {
	KUNIT_CASE_PARAM(model_sync_failures_counted_and_recovered,
			 fpt_fault_gen_params),
	KUNIT_CASE(smmuv3_wedged_sync_gives_up_in_bound),
	KUNIT_CASE(smmuv3_full_wedged_queue_overwrites_nothing),
	{}
};

static struct kunit_suite fpt_faults_suite = {
	.name = "flushpol_faults",
	.suite_exit = fpt_faults_exit,
	.test_cases = fpt_faults_cases,
};

kunit_test_suite(fpt_faults_suite);
