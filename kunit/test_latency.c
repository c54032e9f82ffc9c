// SPDX-License-Identifier: GPL-2.0-only
/*
 * flushpol_latency: the per-context latency histograms (core/latency.c),
 * read through sysfs as an operator reads them.  The rig's backend has a
 * clock that advances only by what its model charges (cmd_ns per command,
 * sync_ns per sync), so each sample's time is known exactly; no case
 * asserts anything about real time.
 */
#include <kunit/test.h>
#include <linux/kthread.h>
#include <linux/sizes.h>
#include <linux/string.h>

#include "fp_rig.h"

#define FPT_IOVA	SZ_1G
#define FPT_LAT_BUCKETS	22
#define FPT_LAT_BUF	1024
/* What the model charges here: a command and a sync land apart. */
#define FPT_LAT_CMD_NS	4000
#define FPT_LAT_SYNC_NS	5000

static struct fpt_rig *fpt_lat_rig(struct kunit *test)
{
	struct fpt_rig_cfg rc = { .fmt = ARM_64_LPAE_S1, .policy = "va" };
	struct fpt_rig *rig = kunit_kzalloc(test, sizeof(*rig), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, rig);
	KUNIT_ASSERT_EQ(test, fpt_rig_init(test, rig, &rc, NULL, 9), 0);
	rig->cmd_ns = FPT_LAT_CMD_NS;
	rig->sync_ns = FPT_LAT_SYNC_NS;
	/* Whatever a case leaves, the next starts with the key off. */
	fpt_latency_off_at_end(test);
	return rig;
}

/*
 * The text a histogram file shows with @n samples in bucket @bucket
 * (none if @n is 0) adding up to @total ns: written out independently of
 * the core's printing, bounds and all.
 */
static void fpt_lat_want(char *buf, int bucket, u64 n, u64 total)
{
	int i, len = 0;

	for (i = 0; i < FPT_LAT_BUCKETS - 1; i++)
		len += scnprintf(buf + len, FPT_LAT_BUF - len, "lt_%llu %llu\n",
				 1ULL << (10 + i), i == bucket ? n : 0);
	len += scnprintf(buf + len, FPT_LAT_BUF - len,
			 "ge_1073741824 %llu\ncount %llu\ntotal_ns %llu\n",
			 i == bucket ? n : 0, n, total);
}

static void fpt_lat_expect(struct kunit *test, struct fpt_rig *rig,
			   const char *file, int bucket, u64 n, u64 total)
{
	char *got = kunit_kzalloc(test, FPT_LAT_BUF, GFP_KERNEL);
	char *want = kunit_kzalloc(test, FPT_LAT_BUF, GFP_KERNEL);
	char attr[32];

	KUNIT_ASSERT_NOT_NULL(test, got);
	KUNIT_ASSERT_NOT_NULL(test, want);
	snprintf(attr, sizeof(attr), "stats/%s", file);
	KUNIT_ASSERT_GT(test, fpt_ctx_read(rig, attr, got, FPT_LAT_BUF), 0);
	fpt_lat_want(want, bucket, n, total);
	KUNIT_EXPECT_STREQ_MSG(test, got, want, "%s", file);
}

static void fpt_lat_expect_empty(struct kunit *test, struct fpt_rig *rig)
{
	fpt_lat_expect(test, rig, "latency_unmap", -1, 0, 0);
	fpt_lat_expect(test, rig, "latency_sync", -1, 0, 0);
}

/* What the model charged so far, as its clock reads it. */
static u64 fpt_lat_model_ns(struct fpt_rig *rig)
{
	return (u64)READ_ONCE(rig->smmu->cmds) * rig->cmd_ns +
	       (u64)READ_ONCE(rig->smmu->syncs) * rig->sync_ns;
}

static void latency_off_counts_nothing(struct kunit *test)
{
	struct fpt_rig *rig = fpt_lat_rig(test);
	struct iommu_iotlb_gather g;
	char buf[8];

	fpt_latency_set(test, false);
	KUNIT_ASSERT_GT(test, fpt_read_file(FPT_LATENCY, buf, sizeof(buf)),
			0);
	KUNIT_EXPECT_STREQ(test, buf, "0\n");
	KUNIT_ASSERT_EQ(test, fpt_map(rig, FPT_IOVA, SZ_2M + SZ_4K, SZ_4K), 0);
	KUNIT_EXPECT_EQ(test, fpt_unmap(rig, FPT_IOVA + SZ_2M, SZ_4K, false),
			SZ_4K);
	iommu_iotlb_gather_init(&g);
	KUNIT_EXPECT_EQ(test, fp_unmap(rig->ctx, rig->ops, FPT_IOVA, SZ_2M, &g),
			SZ_2M);
	fp_iotlb_sync(rig->ctx, &g);
	/* The unmaps did reach the backend. */
	KUNIT_EXPECT_GT(test, rig->smmu->syncs, 0);
	fpt_lat_expect_empty(test, rig);
}

/*
 * A 4K strict unmap under va: one command, then one sync.  The sync takes
 * FPT_LAT_SYNC_NS (in [4096, 8192)); the unmap, from its page-table clear
 * to the sync done, the command too (9000 ns, in [8192, 16384)).
 */
static void latency_on_lands_in_its_bucket(struct kunit *test)
{
	struct fpt_rig *rig = fpt_lat_rig(test);
	char buf[8];

	KUNIT_ASSERT_EQ(test, fpt_map(rig, FPT_IOVA, SZ_4K, SZ_4K), 0);
	fpt_latency_set(test, true);
	KUNIT_ASSERT_GT(test, fpt_read_file(FPT_LATENCY, buf, sizeof(buf)),
			0);
	KUNIT_EXPECT_STREQ(test, buf, "1\n");
	KUNIT_EXPECT_EQ(test, fpt_unmap(rig, FPT_IOVA, SZ_4K, false), SZ_4K);
	fpt_lat_expect(test, rig, "latency_sync", 3, 1, FPT_LAT_SYNC_NS);
	fpt_lat_expect(test, rig, "latency_unmap", 4, 1,
		       FPT_LAT_CMD_NS + FPT_LAT_SYNC_NS);

	/* Off again: what was counted stays, nothing more is. */
	fpt_latency_set(test, false);
	KUNIT_ASSERT_EQ(test, fpt_map(rig, FPT_IOVA, SZ_4K, SZ_4K), 0);
	KUNIT_EXPECT_EQ(test, fpt_unmap(rig, FPT_IOVA, SZ_4K, false), SZ_4K);
	fpt_lat_expect(test, rig, "latency_sync", 3, 1, FPT_LAT_SYNC_NS);
	fpt_lat_expect(test, rig, "latency_unmap", 4, 1,
		       FPT_LAT_CMD_NS + FPT_LAT_SYNC_NS);
}

/*
 * A driver's unmap_pages and iotlb_sync: fp_unmap() into the caller's
 * gather frees a table, whose walk flush (512 commands and a sync under
 * va) runs inside it; the iotlb_sync after it ends the unmap (va syncs an
 * empty gather, as upstream does).  One sample, both parts in it: every
 * ns the model charged from before the one to after the other.
 */
static void latency_unmap_spans_unmap_pages_and_iotlb_sync(struct kunit *test)
{
	struct fpt_rig *rig = fpt_lat_rig(test);
	struct iommu_iotlb_gather g;
	u64 t0, mid, t;

	KUNIT_ASSERT_EQ(test, fpt_map(rig, FPT_IOVA, SZ_2M, SZ_4K), 0);
	fpt_latency_set(test, true);
	/*
	 * The unmap_pages time waits per CPU for its iotlb_sync: a test
	 * thread moved between the two on an SMP kernel would make the
	 * sample the iotlb_sync's alone, as core/latency.c says.
	 */
	migrate_disable();
	t0 = fpt_lat_model_ns(rig);
	iommu_iotlb_gather_init(&g);
	KUNIT_EXPECT_EQ(test, fp_unmap(rig->ctx, rig->ops, FPT_IOVA, SZ_2M, &g),
			SZ_2M);
	/* The walk flush's sync is a sample already; the unmap is not yet. */
	fpt_lat_expect(test, rig, "latency_sync", 3, 1, FPT_LAT_SYNC_NS);
	fpt_lat_expect(test, rig, "latency_unmap", -1, 0, 0);
	mid = fpt_lat_model_ns(rig);
	KUNIT_EXPECT_GE(test, mid - t0, 512ULL * FPT_LAT_CMD_NS + FPT_LAT_SYNC_NS);
	fp_iotlb_sync(rig->ctx, &g);
	migrate_enable();
	t = fpt_lat_model_ns(rig) - t0;
	KUNIT_EXPECT_GE(test, t - (mid - t0), (u64)FPT_LAT_SYNC_NS);
	/* About 2 ms: in [2^20, 2^21) ns. */
	KUNIT_EXPECT_LT(test, t, 1ULL << 21);
	fpt_lat_expect(test, rig, "latency_unmap", 11, 1, t);
	fpt_lat_expect(test, rig, "latency_sync", 3, 2, 2 * FPT_LAT_SYNC_NS);
}

static void latency_reset_clears(struct kunit *test)
{
	struct fpt_rig *rig = fpt_lat_rig(test);
	struct iommu_iotlb_gather g;

	KUNIT_ASSERT_EQ(test, fpt_map(rig, FPT_IOVA, SZ_2M + SZ_4K, SZ_4K), 0);
	fpt_latency_set(test, true);
	KUNIT_EXPECT_EQ(test, fpt_unmap(rig, FPT_IOVA + SZ_2M, SZ_4K, false),
			SZ_4K);
	/* A walk flush's time waiting on this CPU for its iotlb_sync. */
	iommu_iotlb_gather_init(&g);
	KUNIT_EXPECT_EQ(test, fp_unmap(rig->ctx, rig->ops, FPT_IOVA, SZ_2M, &g),
			SZ_2M);
	KUNIT_EXPECT_EQ(test, fpt_ctx_write(rig, "stats/reset", "1\n", 2), 2);
	fpt_lat_expect_empty(test, rig);
	/*
	 * Cleared too: the iotlb_sync's sample is its own sync alone, not the
	 * walk flush's 2053000 ns before the reset.
	 */
	fp_iotlb_sync(rig->ctx, &g);
	fpt_lat_expect(test, rig, "latency_unmap", 3, 1, FPT_LAT_SYNC_NS);
	fpt_lat_expect(test, rig, "latency_sync", 3, 1, FPT_LAT_SYNC_NS);
}

static void latency_switch_refuses_junk(struct kunit *test)
{
	static const char *const junk[] = { "2\n", "-1\n", "on\n", "\n",
					    "1 1\n", "01x\n" };
	char buf[8];
	int i;

	fpt_lat_rig(test);
	fpt_latency_set(test, true);
	for (i = 0; i < ARRAY_SIZE(junk); i++)
		KUNIT_EXPECT_EQ_MSG(test, fpt_write_file(FPT_LATENCY, junk[i],
							 strlen(junk[i])),
				    -EINVAL, "%s", junk[i]);
	KUNIT_EXPECT_EQ(test, fpt_write_file(FPT_LATENCY, "1\0", 2),
			-EINVAL);
	KUNIT_ASSERT_GT(test, fpt_read_file(FPT_LATENCY, buf, sizeof(buf)),
			0);
	KUNIT_EXPECT_STREQ(test, buf, "1\n");
	fpt_latency_set(test, false);
	KUNIT_EXPECT_EQ(test, fpt_write_file(FPT_LATENCY, "x\n", 2),
			-EINVAL);
	KUNIT_ASSERT_GT(test, fpt_read_file(FPT_LATENCY, buf, sizeof(buf)),
			0);
	KUNIT_EXPECT_STREQ(test, buf, "0\n");
}

#define FPT_LAT_SWITCHES	200
#define FPT_LAT_UNMAPS		2000

static int fpt_lat_switcher(void *data)
{
	struct fpt_rig *rig = data;
	char *buf = kmalloc(FPT_LAT_BUF, GFP_KERNEL);
	unsigned int i;

	for (i = 0; i < FPT_LAT_SWITCHES && !kthread_should_stop(); i++) {
		fpt_write_file(FPT_LATENCY, i & 1 ? "0\n" : "1\n", 2);
		if (buf) {
			fpt_ctx_read(rig, "stats/latency_unmap", buf,
				     FPT_LAT_BUF);
			fpt_ctx_read(rig, "stats/latency_sync", buf,
				     FPT_LAT_BUF);
		}
		cond_resched();
	}
	kfree(buf);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

static u64 fpt_lat_count(struct kunit *test, struct fpt_rig *rig,
			 const char *attr)
{
	char *buf = kunit_kzalloc(test, FPT_LAT_BUF, GFP_KERNEL);
	unsigned long long n = ULLONG_MAX;
	char *p;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_GT(test, fpt_ctx_read(rig, attr, buf, FPT_LAT_BUF), 0);
	p = strstr(buf, "\ncount ");
	KUNIT_ASSERT_NOT_NULL(test, p);
	p += strlen("\ncount ");
	p[strcspn(p, "\n")] = '\0';
	KUNIT_EXPECT_EQ(test, kstrtoull(p, 10, &n), 0);
	return n;
}

/*
 * The key switched on and off, and the files read, while unmaps run
 * (both shapes): no splat (kunit.sh fails the run on one), and no more
 * samples than there were unmaps and syncs.
 */
static void latency_switch_while_unmapping(struct kunit *test)
{
	struct fpt_rig *rig = fpt_lat_rig(test);
	struct iommu_iotlb_gather g;
	struct task_struct *t;
	unsigned int i;
	u64 syncs0 = rig->smmu->syncs;

	t = kthread_run(fpt_lat_switcher, rig, "fpt_lat_switch");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	get_task_struct(t);
	for (i = 0; i < FPT_LAT_UNMAPS; i++) {
		KUNIT_ASSERT_EQ(test, fpt_map(rig, FPT_IOVA, SZ_4K, SZ_4K), 0);
		if (i & 1) {
			KUNIT_ASSERT_EQ(test, fpt_unmap(rig, FPT_IOVA, SZ_4K,
							false), SZ_4K);
		} else {
			iommu_iotlb_gather_init(&g);
			KUNIT_ASSERT_EQ(test, fp_unmap(rig->ctx, rig->ops,
						       FPT_IOVA, SZ_4K, &g),
					SZ_4K);
			fp_iotlb_sync(rig->ctx, &g);
		}
		if (!(i % 64))
			cond_resched();
	}
	kthread_stop_put(t);
	fpt_latency_set(test, false);
	KUNIT_EXPECT_LE(test, fpt_lat_count(test, rig, "stats/latency_unmap"),
			FPT_LAT_UNMAPS);
	KUNIT_EXPECT_LE(test, fpt_lat_count(test, rig, "stats/latency_sync"),
			rig->smmu->syncs - syncs0);
}

static struct kunit_case fpt_latency_test_cases[] = {
	KUNIT_CASE(latency_off_counts_nothing),
	KUNIT_CASE(latency_on_lands_in_its_bucket),
	KUNIT_CASE(latency_unmap_spans_unmap_pages_and_iotlb_sync),
	KUNIT_CASE(latency_reset_clears),
	KUNIT_CASE(latency_switch_refuses_junk),
	KUNIT_CASE(latency_switch_while_unmapping),
	{}
};

static struct kunit_suite fpt_latency_suite = {
	.name = "flushpol_latency",
	.test_cases = fpt_latency_test_cases,
};

kunit_test_suite(fpt_latency_suite);
