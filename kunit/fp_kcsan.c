// SPDX-License-Identifier: GPL-2.0-only
/*
 * make kcsan's sampling density (scripts/kunit.sh --kcsan), raised by this
 * module's init: after the kernel has loaded and relocated the module, and
 * before KUnit runs its suites, which it does once the module is live.
 * Raised from /init before the load, the density also slowed the loader:
 * about 16 minutes of KCSAN's delays (2026-12-01) in code that runs
 * nothing concurrently.  KCSAN's knobs are parameters of its own, not
 * exported, so they are written where a user writes them.
 */
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/module.h>

static unsigned long kcsan_skip_watch;
module_param(kcsan_skip_watch, ulong, 0444);
MODULE_PARM_DESC(kcsan_skip_watch,
		 "under KCSAN, its skip_watch while the suites run (0: KCSAN's own)");

static unsigned long kcsan_udelay_task;
module_param(kcsan_udelay_task, ulong, 0444);
MODULE_PARM_DESC(kcsan_udelay_task,
		 "under KCSAN, its udelay_task while the suites run (0: KCSAN's own)");

static unsigned long kcsan_udelay_interrupt;
module_param(kcsan_udelay_interrupt, ulong, 0444);
MODULE_PARM_DESC(kcsan_udelay_interrupt,
		 "under KCSAN, its udelay_interrupt while the suites run (0: KCSAN's own)");

/*
 * Each value goes into the log as "fp-kcsan: NAME VALUE" for
 * scripts/kcsan-summary.sh, and a write that fails as FLUSHPOL-KCSAN-FAIL,
 * which fails the run: a density that was not set would make its
 * "0 reports" weaker than it says.
 */
static void fpt_kcsan_set(const char *name, unsigned long val)
{
	char path[64], buf[24];
	struct file *f;
	loff_t pos = 0;
	ssize_t ret;
	int len;

	if (!val)
		return;
	snprintf(path, sizeof(path), "/sys/module/kcsan/parameters/%s", name);
	len = snprintf(buf, sizeof(buf), "%lu", val);
	f = filp_open(path, O_WRONLY, 0);
	if (IS_ERR(f)) {
		pr_err("FLUSHPOL-KCSAN-FAIL: %s: %ld\n", path, PTR_ERR(f));
		return;
	}
	ret = kernel_write(f, buf, len, &pos);
	filp_close(f, NULL);
	if (ret != len)
		pr_err("FLUSHPOL-KCSAN-FAIL: %s: %zd\n", path, ret);
	else
		pr_info("fp-kcsan: %s %lu\n", name, val);
}

static int __init fpt_kcsan_init(void)
{
	if (!IS_ENABLED(CONFIG_KCSAN))
		return 0;
	fpt_kcsan_set("skip_watch", kcsan_skip_watch);
	fpt_kcsan_set("udelay_task", kcsan_udelay_task);
	fpt_kcsan_set("udelay_interrupt", kcsan_udelay_interrupt);
	return 0;
}
module_init(fpt_kcsan_init);

/* A module with an init and no exit could never be unloaded. */
static void __exit fpt_kcsan_exit(void)
{
}
module_exit(fpt_kcsan_exit);
