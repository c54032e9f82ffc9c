// SPDX-License-Identifier: GPL-2.0-only
/*
 * flushpol_sysfs: the ABI of BRIEF s4, written and read through the VFS as
 * a user would.  Every bad write is refused with the documented errno and
 * changes nothing.
 */
#include <kunit/device.h>
#include <kunit/test.h>
#include <linux/ctype.h>
#include <linux/iommu.h>
#include <linux/sizes.h>
#include <linux/string.h>

#include "fp_rig.h"

#define FPT_IOVA	SZ_1G

static struct fpt_rig *fpt_sysfs_rig(struct kunit *test)
{
	struct fpt_rig_cfg rc = { .fmt = ARM_64_LPAE_S1, .threshold = 128 };
	struct fpt_rig *rig = kunit_kzalloc(test, sizeof(*rig), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, rig);
	KUNIT_ASSERT_EQ(test, fpt_rig_init(test, rig, &rc, NULL, 7), 0);
	return rig;
}

static void fpt_expect_attr(struct kunit *test, struct fpt_rig *rig,
			    const char *attr, const char *want)
{
	char buf[256];

	KUNIT_ASSERT_GT(test, fpt_ctx_read(rig, attr, buf, sizeof(buf)), 0);
	KUNIT_EXPECT_STREQ(test, buf, want);
}

static void root_lists_registered_policies(struct kunit *test)
{
	char buf[256];

	KUNIT_ASSERT_GT(test, fpt_read_file("/sys/kernel/flushpol/policies",
					    buf, sizeof(buf)), 0);
	KUNIT_EXPECT_STREQ(test, buf, "va range asid nonstrict threshold batch adaptive\n");
}

static void context_directory_follows_context(struct kunit *test)
{
	struct fpt_rig *rig = fpt_sysfs_rig(test);
	char buf[64];

	KUNIT_EXPECT_STREQ(test, rig->name, "model0-asid7");
	fpt_expect_attr(test, rig, "backend", "model\n");
	fpt_expect_attr(test, rig, "strict", "1\n");
	fpt_expect_attr(test, rig, "threshold", "128\n");

	free_io_pgtable_ops(rig->ops);
	rig->ops = NULL;
	fp_context_destroy(rig->ctx);
	rig->ctx = NULL;
	KUNIT_EXPECT_EQ(test, fpt_ctx_read(rig, "backend", buf, sizeof(buf)),
			-ENOENT);
}

static void policy_lists_usable_with_active_bracketed(struct kunit *test)
{
	struct fpt_rig *rig = fpt_sysfs_rig(test);

	/* No range hardware, strict: neither range nor nonstrict offered. */
	fpt_expect_attr(test, rig, "policy", "[va] asid threshold batch adaptive\n");
	KUNIT_EXPECT_EQ(test, fpt_ctx_write(rig, "policy", "threshold\n", 10),
			10);
	fpt_expect_attr(test, rig, "policy", "va asid [threshold] batch adaptive\n");
	KUNIT_EXPECT_EQ(test, fpt_ctx_write(rig, "policy", "  asid\t\n", 8), 8);
	fpt_expect_attr(test, rig, "policy", "va [asid] threshold batch adaptive\n");
}

static void threshold_and_reset_accept_good_input(struct kunit *test)
{
	struct fpt_rig *rig = fpt_sysfs_rig(test);
	char want[32];

	KUNIT_EXPECT_EQ(test, fpt_ctx_write(rig, "threshold", "64\n", 3), 3);
	fpt_expect_attr(test, rig, "threshold", "64\n");

	KUNIT_ASSERT_EQ(test, fpt_map(rig, FPT_IOVA, SZ_64K, SZ_4K), 0);
	fpt_unmap(rig, FPT_IOVA, SZ_64K, false);
	fpt_expect_attr(test, rig, "stats/unmaps", "1\n");
	fpt_expect_attr(test, rig, "stats/pages", "16\n");
	snprintf(want, sizeof(want), "%llu\n",
		 fp_context_stat(rig->ctx, FP_STAT_TLBI_VA));
	fpt_expect_attr(test, rig, "stats/tlbi_va", want);
	fpt_expect_attr(test, rig, "stats/tlbi_va", "16\n");
	fpt_expect_attr(test, rig, "stats/syncs", "1\n");

	KUNIT_EXPECT_EQ(test, fpt_ctx_write(rig, "stats/reset", "1\n", 2), 2);
	fpt_expect_attr(test, rig, "stats/tlbi_va", "0\n");
	fpt_expect_attr(test, rig, "stats/syncs", "0\n");
	fpt_expect_attr(test, rig, "stats/unmaps", "0\n");
}

/*
 * adaptive/ shows the decision's inputs, and the overrides move it: with
 * B's 16 entries mapped, 8 of them counted (tlb_entries) at 252 ns a walk
 * are worth 1 + 8 * 252 / 126 = 17 commands, so A's 16 pages go by VA;
 * with 4 counted, 9, so A goes by one context-wide flush.
 */
static void adaptive_shows_inputs_and_overrides_move_choice(struct kunit *test)
{
	struct fpt_rig *rig = fpt_sysfs_rig(test);
	unsigned long b = FPT_IOVA + SZ_1M;

	KUNIT_ASSERT_EQ(test, fpt_ctx_write(rig, "policy", "adaptive\n", 9), 9);
	KUNIT_ASSERT_EQ(test, fpt_map(rig, FPT_IOVA, SZ_64K, SZ_4K), 0);
	KUNIT_ASSERT_EQ(test, fpt_map(rig, b, SZ_64K, SZ_4K), 0);
	fpt_expect_attr(test, rig, "adaptive/cmd_ns", "126\n");
	fpt_expect_attr(test, rig, "adaptive/sync_ns", "1728\n");
	fpt_expect_attr(test, rig, "adaptive/walk_ns", "126\n");
	fpt_expect_attr(test, rig, "adaptive/tlb_entries", "2048\n");
	fpt_expect_attr(test, rig, "adaptive/footprint", "32\n");
	fpt_expect_attr(test, rig, "adaptive/crossover", "33\n");
	fpt_expect_attr(test, rig, "adaptive/samples", "0\n");

	KUNIT_EXPECT_EQ(test, fpt_ctx_write(rig, "adaptive/walk_ns", "252\n", 4),
			4);
	KUNIT_EXPECT_EQ(test, fpt_ctx_write(rig, "adaptive/tlb_entries", "8\n",
					    2), 2);
	fpt_expect_attr(test, rig, "adaptive/footprint", "8\n");
	fpt_expect_attr(test, rig, "adaptive/crossover", "17\n");
	fpt_unmap(rig, FPT_IOVA, SZ_64K, false);
	fpt_expect_attr(test, rig, "stats/tlbi_va", "16\n");
	fpt_expect_attr(test, rig, "stats/tlbi_asid", "0\n");
	fpt_expect_attr(test, rig, "adaptive/samples", "1\n");
	/* 16 commands and a sync, by the model's clock: 126 ns each. */
	fpt_expect_attr(test, rig, "adaptive/cmd_ns", "126\n");

	KUNIT_EXPECT_EQ(test, fpt_ctx_write(rig, "adaptive/tlb_entries", "4\n",
					    2), 2);
	fpt_expect_attr(test, rig, "adaptive/crossover", "9\n");
	KUNIT_ASSERT_EQ(test, fpt_map(rig, FPT_IOVA, SZ_64K, SZ_4K), 0);
	fpt_unmap(rig, FPT_IOVA, SZ_64K, false);
	fpt_expect_attr(test, rig, "stats/tlbi_va", "16\n");
	fpt_expect_attr(test, rig, "stats/tlbi_asid", "1\n");
	fpt_expect_attr(test, rig, "adaptive/sync_ns", "1728\n");
	KUNIT_EXPECT_EQ(test, fpm_stale_entries(&rig->mc), 0);
}

/* A policy whose name is as long as names go: FP_NAME_MAX - 1. */
static void fpt_long_flush_walk(struct fp_context *ctx, unsigned long iova,
				size_t size, size_t granule)
{
	fp_flush_context(ctx);
}

static void fpt_long_flush_gather(struct fp_context *ctx,
				  const struct iommu_iotlb_gather *gather)
{
	if (fp_gather_pages(gather))
		fp_flush_context(ctx);
}

static struct fp_policy fpt_long_policy = {
	.name		= "fifteen_chars_p",
	.flush_walk	= fpt_long_flush_walk,
	.flush_gather	= fpt_long_flush_gather,
};

static void fpt_long_policy_remove(void *data)
{
	struct fpt_rig *rig = data;

	fp_context_set_policy(rig->ctx, "va");
	fp_policy_unregister(&fpt_long_policy);
}

/* Issue 10: echo's newline is no part of the name, nor of its length. */
static void longest_name_written_with_newline(struct kunit *test)
{
	struct fpt_rig *rig = fpt_sysfs_rig(test);
	static const char line[] = "fifteen_chars_p\n";

	KUNIT_ASSERT_EQ(test, strlen(fpt_long_policy.name), FP_NAME_MAX - 1);
	KUNIT_ASSERT_EQ(test, fp_policy_register(&fpt_long_policy), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
							fpt_long_policy_remove,
							rig), 0);
	KUNIT_EXPECT_EQ(test, fpt_ctx_write(rig, "policy", line,
					    sizeof(line) - 1),
			sizeof(line) - 1);
	fpt_expect_attr(test, rig, "policy",
			"va asid threshold batch adaptive [fifteen_chars_p]\n");
	/* One more is one too many, newline or not. */
	KUNIT_EXPECT_EQ(test, fpt_ctx_write(rig, "policy",
					    "fifteen_chars_pq\n", 17), -EINVAL);
}

#define FPT_DEVICES	"/sys/kernel/flushpol/devices/"

/*
 * @rig's context lists the device (its @link exists) and the index leads
 * to it (@index, the index's threshold file, reads @threshold).
 */
static void fpt_expect_linked(struct kunit *test, struct fpt_rig *rig,
			      const char *link, const char *index,
			      const char *threshold, const char *group)
{
	char buf[64];

	KUNIT_EXPECT_GT(test, fpt_ctx_read(rig, link, buf, sizeof(buf)), 0);
	KUNIT_ASSERT_GT(test, fpt_read_file(index, buf, sizeof(buf)), 0);
	KUNIT_EXPECT_STREQ(test, buf, threshold);
	fpt_expect_attr(test, rig, "group", group);
}

static void fpt_group_remove(void *dev)
{
	iommu_group_remove_device(dev);
}

/*
 * A device attached to a context is listed in its devices/ and in the
 * root's devices/, with its IOMMU group; it moves with the attach and
 * goes when it leaves or the context does.
 */
static void devices_linked_both_ways(struct kunit *test)
{
	struct fpt_rig_cfg rc = { .fmt = ARM_64_LPAE_S1, .threshold = 64 };
	struct fpt_rig *a = fpt_sysfs_rig(test);
	struct fpt_rig *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	struct iommu_group *group;
	struct device *dev;
	char buf[64], want[16], link[128], index[160];

	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_ASSERT_EQ(test, fpt_rig_init(test, b, &rc, NULL, 8), 0);
	dev = kunit_device_register(test, "fpt-links0");
	KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(dev));
	group = iommu_group_alloc();
	KUNIT_ASSERT_FALSE(test, IS_ERR(group));
	KUNIT_ASSERT_EQ(test, iommu_group_add_device(group, dev), 0);
	/* The device holds the group now. */
	iommu_group_put(group);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, fpt_group_remove,
							dev), 0);
	snprintf(want, sizeof(want), "%d\n", iommu_group_id(group));
	/* Under its bus id: KUnit's names its devices after the test. */
	snprintf(link, sizeof(link), "devices/%s/uevent", dev_name(dev));
	snprintf(index, sizeof(index), FPT_DEVICES "%s/threshold",
		 dev_name(dev));
	fpt_expect_attr(test, a, "group", "\n");

	fp_context_link_device(a->ctx, dev);
	fpt_expect_linked(test, a, link, index, "128\n", want);

	fp_context_link_device(b->ctx, dev);
	KUNIT_EXPECT_EQ(test, fpt_ctx_read(a, link, buf,
					   sizeof(buf)), -ENOENT);
	fpt_expect_attr(test, a, "group", "\n");
	fpt_expect_linked(test, b, link, index, "64\n", want);

	fp_device_unlink(dev);
	KUNIT_EXPECT_EQ(test, fpt_ctx_read(b, link, buf,
					   sizeof(buf)), -ENOENT);
	KUNIT_EXPECT_EQ(test, fpt_read_file(index,
					    buf, sizeof(buf)), -ENOENT);
	fpt_expect_attr(test, b, "group", "\n");

	/* A context that goes takes its links with it. */
	fp_context_link_device(a->ctx, dev);
	free_io_pgtable_ops(a->ops);
	a->ops = NULL;
	fp_context_destroy(a->ctx);
	a->ctx = NULL;
	KUNIT_EXPECT_EQ(test, fpt_read_file(index,
					    buf, sizeof(buf)), -ENOENT);
}

/*
 * flushpol.device_policy= names a device by its bus id: as it attaches,
 * its context takes the policy and values given.  Junk written at run
 * time is refused and changes nothing (at load, /init's lifetime checks:
 * junk entries are skipped).
 */
static void device_policy_applied_at_attach(struct kunit *test)
{
	static const char *const bad[] = {
		"x=asid:bogus=1", "x=Asid", "x=asid:threshold=0",
		"x=asid:threshold=4194305", "x=asid:walk_ns=1000001",
		"x=asid:tlb_entries=-1", "=asid", "x", "x=asid,y",
	};
	struct fpt_rig *rig = fpt_sysfs_rig(test);
	struct device *dev, *other;
	char param[128], buf[128];
	int i, len;

	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
							fpt_restore_dev_param,
							NULL), 0);
	dev = kunit_device_register(test, "fpt-devpol0");
	other = kunit_device_register(test, "fpt-devpol1");
	KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(dev));
	KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(other));
	len = snprintf(param, sizeof(param),
		       "%s=asid:threshold=32:walk_ns=200:tlb_entries=64\n",
		       dev_name(dev));
	KUNIT_ASSERT_EQ(test, fpt_write_file(FPT_DEV_PARAM, param, len), len);
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		KUNIT_EXPECT_EQ_MSG(test, fpt_write_file(FPT_DEV_PARAM, bad[i],
							 strlen(bad[i])),
				    -EINVAL, "wrote %s", bad[i]);
	KUNIT_ASSERT_GT(test, fpt_read_file(FPT_DEV_PARAM, buf, sizeof(buf)), 0);
	KUNIT_EXPECT_STREQ(test, buf, param);

	/* Another device changes nothing. */
	fp_context_link_device(rig->ctx, other);
	fpt_expect_attr(test, rig, "policy", "[va] asid threshold batch adaptive\n");
	fpt_expect_attr(test, rig, "threshold", "128\n");

	fp_context_link_device(rig->ctx, dev);
	fpt_expect_attr(test, rig, "policy", "va [asid] threshold batch adaptive\n");
	fpt_expect_attr(test, rig, "threshold", "32\n");
	fpt_expect_attr(test, rig, "adaptive/walk_ns", "200\n");
	fpt_expect_attr(test, rig, "adaptive/tlb_entries", "64\n");
	fp_device_unlink(dev);
	fp_device_unlink(other);
}

struct fpt_bad_write {
	const char *attr;
	const char *input;
	size_t len;		/* 0: strlen(input) */
	int err;
};

static char fpt_long_name[300];

static const struct fpt_bad_write fpt_bad_writes[] = {
	{ "policy", "\0", 1, -EINVAL },
	{ "policy", "va\0junk\n", 8, -EINVAL },
	{ "policy", "\n", 0, -EINVAL },
	{ "policy", "   \t\n", 0, -EINVAL },
	{ "policy", "bogus\n", 0, -EINVAL },
	{ "policy", "VA\n", 0, -EINVAL },
	{ "policy", "Default\n", 0, -EINVAL },
	{ "policy", "default auto\n", 0, -EINVAL },
	{ "policy", "va asid\n", 0, -EINVAL },
	{ "policy", "[va]\n", 0, -EINVAL },
	{ "policy", "va\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n", 0, -EINVAL },
	{ "policy", "\xff\xfe\x80\n", 0, -EINVAL },
	{ "policy", "../../etc\n", 0, -EINVAL },
	{ "policy", fpt_long_name, 0, -EINVAL },
	{ "policy", "range\n", 0, -EOPNOTSUPP },
	{ "policy", "nonstrict\n", 0, -EOPNOTSUPP },
	{ "threshold", "0\n", 0, -EINVAL },
	{ "threshold", "5\0junk\n", 7, -EINVAL },
	{ "threshold", "-1\n", 0, -EINVAL },
	{ "threshold", "abc\n", 0, -EINVAL },
	{ "threshold", "12abc\n", 0, -EINVAL },
	{ "threshold", "0x10\n", 0, -EINVAL },
	{ "threshold", "\n", 0, -EINVAL },
	{ "threshold", " 5\n", 0, -EINVAL },
	{ "threshold", "4194305\n", 0, -EINVAL },
	{ "threshold", "4294967297\n", 0, -EINVAL },
	{ "threshold", "18446744073709551616\n", 0, -EINVAL },
	{ "threshold", "99999999999999999999999999\n", 0, -EINVAL },
	{ "threshold", fpt_long_name, 0, -EINVAL },
	{ "stats/reset", "0\n", 0, -EINVAL },
	{ "stats/reset", "1\0\n", 3, -EINVAL },
	{ "stats/reset", "2\n", 0, -EINVAL },
	{ "stats/reset", "yes\n", 0, -EINVAL },
	{ "stats/reset", "\n", 0, -EINVAL },
	{ "stats/reset", "-1\n", 0, -EINVAL },
	{ "adaptive/walk_ns", "0\n", 0, -EINVAL },
	{ "adaptive/walk_ns", "1000001\n", 0, -EINVAL },
	{ "adaptive/walk_ns", "12x\n", 0, -EINVAL },
	{ "adaptive/walk_ns", "5\0junk\n", 7, -EINVAL },
	{ "adaptive/walk_ns", "-1\n", 0, -EINVAL },
	{ "adaptive/tlb_entries", "0\n", 0, -EINVAL },
	{ "adaptive/tlb_entries", "4194305\n", 0, -EINVAL },
	{ "adaptive/tlb_entries", "\n", 0, -EINVAL },
	{ "adaptive/tlb_entries", "18446744073709551616\n", 0, -EINVAL },
	{ "adaptive/cmd_ns", "1\n", 0, -EACCES },
	{ "adaptive/crossover", "1\n", 0, -EACCES },
	{ "backend", "smmuv3\n", 0, -EACCES },
	{ "strict", "0\n", 0, -EACCES },
	{ "group", "1\n", 0, -EACCES },
	{ "stats/tlbi_va", "0\n", 0, -EACCES },
};

static void fpt_bad_desc(const struct fpt_bad_write *c, char *desc)
{
	int i, n;

	n = snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s:", c->attr);
	for (i = 0; c->input[i] && n < KUNIT_PARAM_DESC_SIZE - 4 && i < 12;
	     i++)
		n += snprintf(desc + n, KUNIT_PARAM_DESC_SIZE - n,
			      isalnum(c->input[i]) ? "%c" : "_", c->input[i]);
	snprintf(desc + n, KUNIT_PARAM_DESC_SIZE - n, "-%d", -c->err);
}

KUNIT_ARRAY_PARAM(fpt_bad, fpt_bad_writes, fpt_bad_desc);

static void bad_write_refused_and_nothing_changes(struct kunit *test)
{
	const struct fpt_bad_write *c = test->param_value;
	struct fpt_rig *rig = fpt_sysfs_rig(test);
	char before[5][256], after[256];
	static const char *const watched[] = {
		"policy", "threshold", "stats/tlbi_va", "adaptive/walk_ns",
		"adaptive/tlb_entries",
	};
	int i;

	KUNIT_ASSERT_EQ(test, fpt_map(rig, FPT_IOVA, SZ_4K, SZ_4K), 0);
	fpt_unmap(rig, FPT_IOVA, SZ_4K, false);
	for (i = 0; i < ARRAY_SIZE(watched); i++)
		fpt_ctx_read(rig, watched[i], before[i], sizeof(before[i]));

	KUNIT_EXPECT_EQ(test, fpt_ctx_write(rig, c->attr, c->input,
					    c->len ?: strlen(c->input)),
			c->err);

	for (i = 0; i < ARRAY_SIZE(watched); i++) {
		fpt_ctx_read(rig, watched[i], after, sizeof(after));
		KUNIT_EXPECT_STREQ(test, after, before[i]);
	}
}

static struct kunit_case fpt_sysfs_test_cases[] = {
	KUNIT_CASE(root_lists_registered_policies),
	KUNIT_CASE(context_directory_follows_context),
	KUNIT_CASE(policy_lists_usable_with_active_bracketed),
	KUNIT_CASE(threshold_and_reset_accept_good_input),
	KUNIT_CASE(adaptive_shows_inputs_and_overrides_move_choice),
	KUNIT_CASE(longest_name_written_with_newline),
	KUNIT_CASE(devices_linked_both_ways),
	KUNIT_CASE(device_policy_applied_at_attach),
	KUNIT_CASE_PARAM(bad_write_refused_and_nothing_changes,
			 fpt_bad_gen_params),
	{}
};

static int fpt_sysfs_init(struct kunit_suite *suite)
{
	memset(fpt_long_name, 'a', sizeof(fpt_long_name) - 2);
	fpt_long_name[sizeof(fpt_long_name) - 2] = '\n';
	return 0;
}

static struct kunit_suite fpt_sysfs_suite = {
	.name = "flushpol_sysfs",
	.suite_init = fpt_sysfs_init,
	.test_cases = fpt_sysfs_test_cases,
};

kunit_test_suite(fpt_sysfs_suite);
