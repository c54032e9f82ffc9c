// SPDX-License-Identifier: GPL-2.0-only
/*
 * flushpol_faults: an SMMU whose syncs never complete.
 *
 * In the model, a wedged SMMU fails every sync at once; in the SMMUv3
 * backend's own command queue code (backends/smmuv3/cmdq.c, compiled in
 * here), against registers in memory that no SMMU advances, a sync gives
 * up after its 1 s bound.  Either way the error must reach flushpol's
 * statistics, be logged rate-limited (scripts/kunit.sh counts the lines
 * against the "fp-fault:" totals printed here), mislead no later coverage
 * decision, and leave the context working once the hardware does.
 *
 * QEMU's SMMUv3 model cannot be wedged (it has no fault injection), so
 * this is as close to the real queue as the tests get.
 */
#include "../backends/smmuv3/cmdq.c"
#undef pr_fmt
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/device.h>
#include <kunit/test.h>
#include <linux/ktime.h>
#include <linux/sizes.h>

#include "fp_rig.h"

#define FPT_IOVA	SZ_1G

static const char *const fpt_fault_policies[] = {
	"va", "range", "asid", "threshold",
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

/*
 * A fake SMMUv3 for the real command queue code: registers and queue in
 * memory, and nothing else runs while the queue polls (UML has one CPU, and
 * the poll holds a spinlock).  So, healthy, it answers at once by having
 * moved CMDQ_CONS in advance to where the driver's PROD will be (the test
 * knows how many commands that is); wedged, it never moves it.
 */
struct fpt_wedge {
	struct smmuv3_device smmu;	/* first: the queue's priv */
	bool wedged;
};

static void fpt_wedge_consume(struct fpt_wedge *w, unsigned int extra)
{
	struct smmuv3_queue *q = &w->smmu.cmdq;
	u32 cons = q->prod;

	while (extra--)
		cons = q_inc(q, cons);
	writel(cons, w->smmu.base + SMMUV3_CMDQ_CONS);
}

/* The SMMU caught up with everything published, and the driver saw it. */
static void fpt_wedge_resume(struct fpt_wedge *w)
{
	w->wedged = false;
	fpt_wedge_consume(w, 0);
	w->smmu.cmdq.cons = w->smmu.cmdq.prod;
}

static void fpt_wedge_submit(void *priv, const u64 *cmds, unsigned int n)
{
	struct fpt_wedge *w = priv;

	if (!w->wedged)
		fpt_wedge_consume(w, 0);
	smmuv3_cmdq_ops.submit(priv, cmds, n);
}

static int fpt_wedge_sync(void *priv)
{
	struct fpt_wedge *w = priv;

	/* The CMD_SYNC, after the recovery commands if any are due. */
	if (!w->wedged)
		fpt_wedge_consume(w, 1 + (w->smmu.cmdq_dropped ? 2 : 0));
	return smmuv3_cmdq_ops.sync(priv);
}

static const struct smmuv3_cmdq_ops fpt_wedge_cmdq = {
	.submit	= fpt_wedge_submit,
	.sync	= fpt_wedge_sync,
};

static struct fpt_wedge *fpt_wedge_new(struct kunit *test,
				       unsigned int shift)
{
	struct fpt_wedge *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	struct smmuv3_device *smmu;

	KUNIT_ASSERT_NOT_NULL(test, w);
	smmu = &w->smmu;
	smmu->dev = kunit_device_register(test, "fp-wedged-smmuv3");
	KUNIT_ASSERT_FALSE(test, IS_ERR(smmu->dev));
	smmu->base = (void __force __iomem *)kunit_kzalloc(test, SZ_128K,
							   GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, (void __force *)smmu->base);
	smmu->cmdq.shift = shift;
	smmu->cmdq.base = kunit_kcalloc(test, BIT(shift) * CMD_DWORDS,
					sizeof(__le64), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, smmu->cmdq.base);
	spin_lock_init(&smmu->cmdq_lock);
	return w;
}

static struct fpt_wedge *fpt_wedge_of_rig;

static void fpt_wedge_setup(struct fpt_rig *rig)
{
	rig->backend.v3 = (struct smmuv3_flush) {
		.cmdq = &fpt_wedge_cmdq, .q = fpt_wedge_of_rig,
		.asid = rig->mc.asid, .tg = 12,
	};
}

static const struct fpt_backend fpt_wedge_backend = {
	.name = "smmuv3", .ops = &smmuv3_hw_ops, .setup = fpt_wedge_setup,
	.default_policy = "va",
};

/*
 * Through a context: a sync the SMMU never completes returns -ETIMEDOUT
 * after the queue's bound, is counted, and the next one works.
 */
static void smmuv3_wedged_sync_gives_up_in_bound(struct kunit *test)
{
	struct fpt_rig_cfg rc = {
		.fmt = ARM_64_LPAE_S1, .backend = &fpt_wedge_backend,
	};
	struct fpt_rig *rig = kunit_kzalloc(test, sizeof(*rig), GFP_KERNEL);
	struct fpt_wedge *w = fpt_wedge_new(test, 8);
	u64 start, ms;

	KUNIT_ASSERT_NOT_NULL(test, rig);
	fpt_wedge_of_rig = w;
	KUNIT_ASSERT_EQ(test, fpt_rig_init(test, rig, &rc, NULL, 1), 0);
	KUNIT_ASSERT_EQ(test, fpt_map(rig, FPT_IOVA, SZ_64K, SZ_4K), 0);
	KUNIT_EXPECT_EQ(test, fpt_unmap(rig, FPT_IOVA, SZ_4K, false), SZ_4K);
	KUNIT_EXPECT_EQ(test, fp_context_stat(rig->ctx, FP_STAT_SYNC_TIMEOUTS),
			0);

	w->wedged = true;
	start = ktime_get_ns();
	KUNIT_EXPECT_EQ(test, fpt_unmap(rig, FPT_IOVA + SZ_4K, SZ_4K, false),
			SZ_4K);
	ms = fpt_ms_since(start);
	KUNIT_EXPECT_EQ(test, fp_context_stat(rig->ctx, FP_STAT_SYNC_TIMEOUTS),
			1);
	/*
	 * 10^6 polls with udelay(1) between them: about 1 s, less where
	 * udelay() is coarse (0.85 s on UML), more on a busy host.
	 */
	KUNIT_EXPECT_GE(test, ms, 500);
	KUNIT_EXPECT_LT(test, ms, 30000);
	kunit_info(test, "fp-fault: smmuv3: wedged sync gave up after %llu ms\n",
		   ms);
	fpt_injected++;

	/* The SMMU comes back and consumes what it had. */
	fpt_wedge_resume(w);
	KUNIT_EXPECT_EQ(test, fpt_unmap(rig, FPT_IOVA + SZ_8K, SZ_4K, false),
			SZ_4K);
	KUNIT_EXPECT_EQ(test, fp_context_stat(rig->ctx, FP_STAT_SYNC_TIMEOUTS),
			1);
	KUNIT_EXPECT_EQ(test, w->smmu.cmdq.prod, w->smmu.cmdq.cons);
}

static void fpt_va_cmd(struct fpt_wedge *w, unsigned long iova)
{
	u64 cmd[CMD_DWORDS];

	smmuv3_cmd_tlbi_nh_va(cmd, 1, iova, true);
	fpt_wedge_cmdq.submit(w, cmd, 1);
}

/*
 * A full queue on a wedged SMMU: a command that does not fit must not
 * overwrite one the SMMU has not read (that would lose it silently once
 * the SMMU resumes), and what was dropped is made up for by invalidating
 * everything before the next sync can succeed.
 */
static void smmuv3_full_wedged_queue_overwrites_nothing(struct kunit *test)
{
	struct fpt_wedge *w = fpt_wedge_new(test, 4);
	struct smmuv3_queue *q = &w->smmu.cmdq;
	unsigned int i, n = BIT(q->shift);
	u64 first[CMD_DWORDS], sync[CMD_DWORDS];
	u32 prod;

	w->wedged = true;
	for (i = 0; i < n; i++)
		fpt_va_cmd(w, FPT_IOVA + i * SZ_4K);
	memcpy(first, q->base, sizeof(first));
	prod = q->prod;

	/* One too many: the queue waits its bound, then drops it. */
	fpt_va_cmd(w, FPT_IOVA + n * SZ_4K);
	fpt_injected++;
	KUNIT_EXPECT_EQ(test, memcmp(first, q->base, sizeof(first)), 0);
	KUNIT_EXPECT_EQ(test, q->prod, prod);

	/* The SMMU resumes; the sync first invalidates all it may have missed. */
	fpt_wedge_resume(w);
	prod = q->prod;
	KUNIT_EXPECT_EQ(test, fpt_wedge_cmdq.sync(w), 0);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(q->base[q_idx(q, prod) * CMD_DWORDS]) &
			0xff, CMD_OP_CFGI_ALL);
	prod = q_inc(q, prod);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(q->base[q_idx(q, prod) * CMD_DWORDS]) &
			0xff, CMD_OP_TLBI_NSNH_ALL);
	prod = q_inc(q, prod);
	smmuv3_cmd_sync(sync);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(q->base[q_idx(q, prod) * CMD_DWORDS]),
			sync[0]);
	KUNIT_EXPECT_FALSE(test, w->smmu.cmdq_dropped);

	/* And from then on, plain syncs again. */
	prod = q->prod;
	KUNIT_EXPECT_EQ(test, fpt_wedge_cmdq.sync(w), 0);
	KUNIT_EXPECT_EQ(test, q->prod, q_inc(q, prod));
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
