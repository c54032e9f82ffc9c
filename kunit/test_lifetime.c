// SPDX-License-Identifier: GPL-2.0-only
/*
 * flushpol_lifetime: sysfs files of a context that goes away while they
 * are open and in use, concurrent writers through the VFS, and junk in the
 * default_policy parameter.  A use after free here is a KASAN splat, which
 * fails the run; module references are counted before and after.
 *
 * Module unload while a context uses a module is refused: that needs real
 * rmmod calls, which /init makes (kunit/initramfs/init.c, @lifetime).
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/moduleparam.h>
#include <linux/prandom.h>
#include <linux/sizes.h>

#include "fp_rig.h"

#define FPT_IOVA	SZ_1G
#define FPT_PARAM	"/sys/module/flushpol/parameters/default_policy"

/*
 * Each round waits for 50 policy switches, and each switch for the calls
 * in flight to end, an SRCU grace period: 8.2 ms of the case a switch in
 * the UML test kernel (commit 70deac5).  When a switch still waited for an
 * RCU grace period, it took 35 ms there (20 rounds, 35 s) and 110 ms in
 * the arm64 kernel under TCG on a loaded 2-core host (about 6 s a round),
 * not measured since.  20 rounds there ran into the hung-task detector's
 * 120 s on the KUnit runner, which waits for the case uninterruptibly;
 * scripts/kunit.sh --arch arm64 asks for fewer.
 */
static unsigned int lifetime_rounds = 20;
module_param(lifetime_rounds, uint, 0444);
MODULE_PARM_DESC(lifetime_rounds,
		 "flushpol_lifetime: rounds of readers_and_writers_race_destroy (default 20)");

/*
 * Fewer for a kernel where a sysfs write is slow: with KCSAN watching one
 * access in 50 for 200 us, one took about 0.3 s in the arm64 kernel under
 * TCG, and 4 x 300 writes ran 348 s, past KUnit's 300 s case timeout.
 */
static unsigned int lifetime_writes = 300;
module_param(lifetime_writes, uint, 0444);
MODULE_PARM_DESC(lifetime_writes,
		 "flushpol_lifetime: sysfs writes per writer thread of concurrent_writers_leave_consistent_state (default 300)");

static struct fpt_rig *fpt_life_rig(struct kunit *test, u16 asid)
{
	struct fpt_rig_cfg rc = { .fmt = ARM_64_LPAE_S1, .threshold = 128 };
	struct fpt_rig *rig = kunit_kzalloc(test, sizeof(*rig), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, rig);
	KUNIT_ASSERT_EQ(test, fpt_rig_init(test, rig, &rc, NULL, asid), 0);
	return rig;
}

/* As a driver tears a context down; the rig's exit then skips both. */
static void fpt_destroy_ctx(struct fpt_rig *rig)
{
	free_io_pgtable_ops(rig->ops);
	rig->ops = NULL;
	fp_context_destroy(rig->ctx);
	rig->ctx = NULL;
}

static struct file *fpt_open_attr(struct kunit *test, struct fpt_rig *rig,
				  const char *attr, int flags)
{
	char path[128];
	struct file *f;

	snprintf(path, sizeof(path), "/sys/kernel/flushpol/contexts/%s/%s",
		 rig->name, attr);
	f = filp_open(path, flags, 0);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(f), "open %s: %ld", path,
			       PTR_ERR(f));
	return f;
}

static ssize_t fpt_pread(struct file *f, char *buf, size_t size)
{
	loff_t pos = 0;
	ssize_t n = kernel_read(f, buf, size - 1, &pos);

	buf[n > 0 ? n : 0] = '\0';
	return n;
}

static ssize_t fpt_pwrite(struct file *f, const char *s)
{
	loff_t pos = 0;

	return kernel_write(f, s, strlen(s), &pos);
}

/*
 * A module's reference count; -1 in a kernel with flushpol built in
 * (CONFIG_FLUSHPOL=y, scripts/intree.sh), where its parts have none.
 */
static int fpt_refcnt(struct kunit *test, const char *module)
{
	char path[64], buf[32];
	int v = -1;

	if (IS_BUILTIN(CONFIG_FLUSHPOL))
		return -1;
	snprintf(path, sizeof(path), "/sys/module/%s/refcnt", module);
	KUNIT_ASSERT_GT(test, fpt_read_file(path, buf, sizeof(buf)), 0);
	KUNIT_ASSERT_EQ(test, kstrtoint(strim(buf), 10, &v), 0);
	return v;
}

/* @module's reference count is @want, where it has one. */
static void fpt_expect_refcnt(struct kunit *test, const char *module, int want)
{
	if (!IS_BUILTIN(CONFIG_FLUSHPOL))
		KUNIT_EXPECT_EQ_MSG(test, fpt_refcnt(test, module), want,
				    "%s's references", module);
}

/* Open files outlive the context: reads and writes fail, nothing crashes. */
static void open_files_outlive_context(struct kunit *test)
{
	struct fpt_rig *rig = fpt_life_rig(test, 1);
	struct file *pol, *thr, *stat, *reset;
	char buf[64];

	pol = fpt_open_attr(test, rig, "policy", O_RDWR);
	thr = fpt_open_attr(test, rig, "threshold", O_WRONLY);
	stat = fpt_open_attr(test, rig, "stats/syncs", O_RDONLY);
	reset = fpt_open_attr(test, rig, "stats/reset", O_WRONLY);
	KUNIT_EXPECT_GT(test, fpt_pread(pol, buf, sizeof(buf)), 0);
	KUNIT_EXPECT_EQ(test, fpt_pwrite(thr, "64\n"), 3);

	fpt_destroy_ctx(rig);

	KUNIT_EXPECT_EQ(test, fpt_pread(pol, buf, sizeof(buf)), -ENODEV);
	KUNIT_EXPECT_EQ(test, fpt_pwrite(pol, "asid\n"), -ENODEV);
	KUNIT_EXPECT_EQ(test, fpt_pwrite(thr, "32\n"), -ENODEV);
	KUNIT_EXPECT_EQ(test, fpt_pread(stat, buf, sizeof(buf)), -ENODEV);
	KUNIT_EXPECT_EQ(test, fpt_pwrite(reset, "1\n"), -ENODEV);
	filp_close(pol, NULL);
	filp_close(thr, NULL);
	filp_close(stat, NULL);
	filp_close(reset, NULL);
}

/* One file kept open, read (no @s) or written with @s[0], @s[1]... */
struct fpt_racer {
	const char *attr;
	const char *s[2];
	struct file *f;
	unsigned long done;	/* successful reads or writes */
	ssize_t last;		/* what the last one returned */
	struct completion started, ended;
};

/* Read or write until the file dies. */
static int fpt_racer_fn(void *data)
{
	struct fpt_racer *r = data;
	char buf[64];

	while (!kthread_should_stop()) {
		if (r->s[0])
			r->last = fpt_pwrite(r->f, r->s[r->done & 1]);
		else
			r->last = fpt_pread(r->f, buf, sizeof(buf));
		if (r->last <= 0)
			break;
		if (++r->done == 50)
			complete(&r->started);
		cond_resched();
	}
	complete(&r->started);
	complete(&r->ended);
	/* Stay until stopped: the test reads the result. */
	while (!kthread_should_stop())
		usleep_range(1000, 2000);
	return 0;
}

static const struct fpt_racer fpt_racers[] = {
	{ .attr = "policy" },
	/* Switching policy takes and drops module references. */
	{ .attr = "policy", .s = { "adaptive\n", "va\n" } },
	{ .attr = "stats/tlbi_va" },
	{ .attr = "stats/reset", .s = { "1\n", "1\n" } },
};

/*
 * Readers and writers keep going while the context is destroyed: all end
 * with -ENODEV, and every module reference a policy switch took is given
 * back.
 */
static void readers_and_writers_race_destroy(struct kunit *test)
{
	int core = fpt_refcnt(test, "flushpol");
	int ada = fpt_refcnt(test, "flushpol_adaptive");
	struct fpt_racer r[ARRAY_SIZE(fpt_racers)];
	struct task_struct *t[ARRAY_SIZE(fpt_racers)];
	unsigned long left, switches = 0;
	struct fpt_rig *rig;
	unsigned int round;
	u64 start = ktime_get_ns(), ms;
	int i;

	for (round = 0; round < lifetime_rounds; round++) {
		rig = fpt_life_rig(test, 2);
		for (i = 0; i < ARRAY_SIZE(r); i++) {
			r[i] = fpt_racers[i];
			init_completion(&r[i].started);
			init_completion(&r[i].ended);
			r[i].f = fpt_open_attr(test, rig, r[i].attr,
					       r[i].s[0] ? O_WRONLY : O_RDONLY);
			t[i] = kthread_run(fpt_racer_fn, &r[i], "fp_racer/%d",
					   i);
			KUNIT_ASSERT_FALSE(test, IS_ERR(t[i]));
		}
		for (i = 0; i < ARRAY_SIZE(r); i++)
			wait_for_completion(&r[i].started);

		fpt_destroy_ctx(rig);

		for (i = 0; i < ARRAY_SIZE(r); i++) {
			/* Each must see the file die by itself. */
			left = wait_for_completion_timeout(&r[i].ended,
							   10 * HZ);
			KUNIT_EXPECT_NE(test, left, 0);
			kthread_stop(t[i]);
			filp_close(r[i].f, NULL);
			KUNIT_EXPECT_GE(test, r[i].done, 50);
			KUNIT_EXPECT_EQ(test, r[i].last, -ENODEV);
			if (r[i].s[0] && !strcmp(r[i].attr, "policy"))
				switches += r[i].done;
		}
	}
	ms = div_u64(ktime_get_ns() - start, NSEC_PER_MSEC);
	kunit_info(test,
		   "fp-lifetime: %u rounds in %llu ms, %lu policy switches: %llu us of the case per switch\n",
		   lifetime_rounds, ms, switches,
		   div_u64(ms * 1000, switches ?: 1));
	fpt_expect_refcnt(test, "flushpol", core);
	fpt_expect_refcnt(test, "flushpol_adaptive", ada);
}

struct fpt_input {
	const char *attr;
	const char *s;
	ssize_t err;		/* 0: accepted */
};

/* What each writer picks from; errnos as README's Sysfs table says. */
static const struct fpt_input fpt_inputs[] = {
	{ "policy", "va\n" },
	{ "policy", "asid\n" },
	{ "policy", "threshold\n" },
	{ "policy", " threshold\t\n" },
	{ "policy", "adaptive\n" },
	{ "policy", "range\n", -EOPNOTSUPP },
	{ "policy", "nonstrict\n", -EOPNOTSUPP },
	{ "policy", "VA\n", -EINVAL },
	{ "policy", "\n", -EINVAL },
	{ "policy", "va asid\n", -EINVAL },
	{ "policy", "\xc3\x28\n", -EINVAL },
	{ "policy", "threshold_but_longer\n", -EINVAL },
	{ "threshold", "1\n" },
	{ "threshold", "128\n" },
	{ "threshold", "4194304\n" },
	{ "threshold", "0\n", -EINVAL },
	{ "threshold", "-5\n", -EINVAL },
	{ "threshold", "4194305\n", -EINVAL },
	{ "threshold", "18446744073709551616\n", -EINVAL },
	{ "threshold", "1e3\n", -EINVAL },
	{ "stats/reset", "1\n" },
	{ "stats/reset", "2\n", -EINVAL },
};

struct fpt_writer {
	struct fpt_rig *rig;
	struct rnd_state rnd;
	unsigned int tried, wrong;
	struct completion done;
};

static int fpt_writer_fn(void *data)
{
	struct fpt_writer *w = data;
	unsigned int i;

	for (i = 0; i < lifetime_writes; i++) {
		const struct fpt_input *in =
			&fpt_inputs[prandom_u32_state(&w->rnd) %
				    ARRAY_SIZE(fpt_inputs)];
		ssize_t len = strlen(in->s);
		ssize_t ret = fpt_ctx_write(w->rig, in->attr, in->s, len);

		w->tried++;
		if (ret != (in->err ?: len)) {
			if (!w->wrong++)
				pr_err("fp-lifetime: %s <- %*pE: %zd, want %zd\n",
				       in->attr, (int)len, in->s, ret,
				       in->err ?: len);
		}
	}
	complete(&w->done);
	return 0;
}

/*
 * Writers race on one context through the VFS: each write gets exactly
 * the documented answer, and what is left is one of the values written,
 * with the module references of exactly one policy held.
 */
static void concurrent_writers_leave_consistent_state(struct kunit *test)
{
	int core = fpt_refcnt(test, "flushpol");
	int ada = fpt_refcnt(test, "flushpol_adaptive");
	struct fpt_rig *rig = fpt_life_rig(test, 3);
	struct fpt_writer w[4] = {};
	unsigned int i, tried = 0, wrong = 0;
	char buf[64];

	for (i = 0; i < ARRAY_SIZE(w); i++) {
		w[i].rig = rig;
		prandom_seed_state(&w[i].rnd, i + 1);
		init_completion(&w[i].done);
		KUNIT_ASSERT_FALSE(test, IS_ERR(kthread_run(fpt_writer_fn,
							    &w[i],
							    "fp_writer/%u",
							    i)));
	}
	for (i = 0; i < ARRAY_SIZE(w); i++) {
		wait_for_completion(&w[i].done);
		tried += w[i].tried;
		wrong += w[i].wrong;
	}
	kunit_info(test, "fp-lifetime: concurrent writes %u, wrong answers %u\n",
		   tried, wrong);
	KUNIT_EXPECT_EQ(test, wrong, 0);

	KUNIT_ASSERT_GT(test, fpt_ctx_read(rig, "policy", buf, sizeof(buf)),
			0);
	KUNIT_EXPECT_TRUE_MSG(test, !strcmp(buf, "[va] asid threshold batch adaptive\n") ||
			      !strcmp(buf, "va [asid] threshold batch adaptive\n") ||
			      !strcmp(buf, "va asid [threshold] batch adaptive\n") ||
			      !strcmp(buf, "va asid threshold batch [adaptive]\n"),
			      "policy reads %s", buf);
	fpt_expect_refcnt(test, "flushpol_adaptive",
			  ada + !!strstr(buf, "[adaptive]"));
	fpt_expect_refcnt(test, "flushpol", core + !strstr(buf, "[adaptive]"));
	KUNIT_ASSERT_GT(test, fpt_ctx_read(rig, "threshold", buf, sizeof(buf)),
			0);
	KUNIT_EXPECT_TRUE_MSG(test, !strcmp(buf, "1\n") ||
			      !strcmp(buf, "128\n") ||
			      !strcmp(buf, "4194304\n"),
			      "threshold reads %s", buf);
}

static void fpt_restore_param(void *unused)
{
	fpt_write_file(FPT_PARAM, "auto", 4);
}

static char fpt_long[300];

/* The parameter's store is the load-time parser: /init tries it at load. */
static void default_policy_param_refuses_junk(struct kunit *test)
{
	static const char *const junk[] = {
		"\n", "\x20\n", "\t\t\n", "ASID\n", "Va\n", "../x\n", "va asid\n",
		"\xff\xfe\x80\n", "a_name_much_too_long\n", "va;\n", "-1\n",
		fpt_long,
	};
	char buf[64];
	int i;

	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, fpt_restore_param,
							NULL), 0);
	memset(fpt_long, 'a', sizeof(fpt_long) - 1);
	KUNIT_ASSERT_EQ(test, fpt_write_file(FPT_PARAM, "asid\n", 5), 5);
	for (i = 0; i < ARRAY_SIZE(junk); i++)
		KUNIT_EXPECT_EQ_MSG(test, fpt_write_file(FPT_PARAM, junk[i],
							 strlen(junk[i])),
				    -EINVAL, "junk %d", i);
	fpt_read_file(FPT_PARAM, buf, sizeof(buf));
	KUNIT_EXPECT_STREQ(test, buf, "asid\n");
}

static struct kunit_case fpt_lifetime_cases[] = {
	KUNIT_CASE(open_files_outlive_context),
	KUNIT_CASE(readers_and_writers_race_destroy),
	KUNIT_CASE(concurrent_writers_leave_consistent_state),
	KUNIT_CASE(default_policy_param_refuses_junk),
	{}
};

static struct kunit_suite fpt_lifetime_suite = {
	.name = "flushpol_lifetime",
	.test_cases = fpt_lifetime_cases,
};

kunit_test_suite(fpt_lifetime_suite);
