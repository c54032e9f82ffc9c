// SPDX-License-Identifier: GPL-2.0-only
/*
 * /init of the UML test initramfs, built against the kernel's nolibc: mount
 * /proc and /sys, run the module lifetime checks if asked ("@lifetime:N",
 * N load/unload rounds), load /lib/<name>.ko for each name on the command
 * line (after "--"), in order, say whether all loaded, and power off.
 *
 * Module parameters are taken from the kernel command line the way modprobe
 * takes them: "<module>.<param>=<value>" goes to that module's load.  The
 * kernel passes such words to no one else.
 *
 * No libc, so nothing here depends on the host's TLS or FPU state being
 * carried correctly by UML: the tests run in the kernel, this only starts
 * them.
 */
#include <linux/reboot.h>

#define FP_PARAMS_MAX	1024
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static char cmdline[4096];

static void read_cmdline(void)
{
	int fd = open("/proc/cmdline", O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, cmdline, sizeof(cmdline) - 1);

	cmdline[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
}

/* "<name>.<param>=<value>" words of the command line, as "<param>=<value>". */
static void module_params(const char *name, char *out)
{
	size_t len = strlen(name);
	char *w = cmdline, *end;

	out[0] = '\0';
	while (*w) {
		while (*w == ' ' || *w == '\n')
			w++;
		for (end = w; *end && *end != ' ' && *end != '\n'; end++)
			;
		if (!strncmp(w, name, len) && w[len] == '.' &&
		    strchr(w, '=') && strchr(w, '=') < end &&
		    strlen(out) + (end - w) + 1 < FP_PARAMS_MAX) {
			if (out[0])
				strlcat(out, " ", FP_PARAMS_MAX);
			strncat(out, w + len + 1, end - w - len - 1);
		}
		w = end;
	}
}

/* Returns 0 or the negative errno of finit_module. */
static int load_with(const char *name, const char *params)
{
	char path[128];
	int fd, ret;

	if (strlen(name) > sizeof(path) - 9)
		return -ENAMETOOLONG;
	path[0] = '\0';
	strlcat(path, "/lib/", sizeof(path));
	strlcat(path, name, sizeof(path));
	strlcat(path, ".ko", sizeof(path));
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	ret = my_syscall3(__NR_finit_module, fd, params, 0);
	close(fd);
	return ret;
}

static int load(const char *name)
{
	char params[FP_PARAMS_MAX];
	int ret;

	module_params(name, params);
	ret = load_with(name, params);
	if (ret < 0) {
		printf("FLUSHPOL-INSMOD-FAILED %s: %d\n", name, -ret);
		return -1;
	}
	return 0;
}

/* The lifetime checks; see lifetime_checks(). */

static int failures;

static int unload(const char *name)
{
	return my_syscall2(__NR_delete_module, name, O_NONBLOCK);
}

static int exists(const char *path)
{
	int fd = open(path, O_RDONLY);

	if (fd >= 0)
		close(fd);
	return fd >= 0;
}

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	if (n < 0)
		n = -errno;
	close(fd);
	return n < 0 ? n : 0;
}

static ssize_t read_str(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	buf[0] = '\0';
	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return n;
}

static void expect(int cond, const char *what, int got)
{
	if (cond)
		return;
	failures++;
	printf("FLUSHPOL-LIFETIME-FAIL: %s (got %d)\n", what, got);
}

#define FP_MODS	3
static const char *const mods[FP_MODS] = {
	"flushpol", "flushpol_adaptive", "flushpol_smmuv3",
};

static const int perms[6][FP_MODS] = {
	{ 0, 1, 2 }, { 0, 2, 1 }, { 1, 0, 2 },
	{ 1, 2, 0 }, { 2, 0, 1 }, { 2, 1, 0 },
};

static int n_loads, n_unloads, n_load_refused, n_unload_refused;

/*
 * Load the three modules in @order, retrying those refused because
 * flushpol was not there yet (-ENOENT: unknown symbols), then unload them
 * in @unorder, retrying flushpol while the others use it (-EAGAIN).  Any
 * other refusal is a failure.
 */
static void load_unload(const int *order, const int *unorder)
{
	int loaded[FP_MODS] = { 0 }, pass, i, m, ret;

	for (pass = 0; pass < FP_MODS; pass++)
		for (i = 0; i < FP_MODS; i++) {
			m = order[i];
			if (loaded[m])
				continue;
			ret = load_with(mods[m], "");
			if (!ret) {
				loaded[m] = 1;
				n_loads++;
			} else {
				expect(ret == -ENOENT && m && !loaded[0],
				       "load refused for another reason", ret);
				n_load_refused++;
			}
		}
	for (pass = 0; pass < FP_MODS; pass++)
		for (i = 0; i < FP_MODS; i++) {
			m = unorder[i];
			if (!loaded[m])
				continue;
			ret = unload(mods[m]);
			if (!ret) {
				loaded[m] = 0;
				n_unloads++;
			} else {
				expect(ret == -EAGAIN && !m &&
				       (loaded[1] || loaded[2]),
				       "unload refused for another reason", ret);
				n_unload_refused++;
			}
		}
	for (m = 0; m < FP_MODS; m++)
		expect(!loaded[m] && !exists("/sys/module/flushpol"),
		       "a module stayed loaded", m);
}

/* The entries of a device_policy with junk between them, and what is kept. */
#define FP_DEVICE_POLICY_JUNK						\
	"device_policy=junk,0000:00:02.0=asid:threshold=32,x=Asid,0000:00:03.0=default:walk_ns=0,0000:00:04.0=va:tlb_entries=64"
#define FP_DEVICE_POLICY_KEPT						\
	"0000:00:02.0=asid:threshold=32,0000:00:04.0=va:tlb_entries=64"

/*
 * Junk in a parameter of flushpol's, at load time: a failed load would
 * leave the machine without its IOMMU driver (flushpol_smmuv3 needs
 * flushpol), so each loads, the parameter at its default.
 */
static const struct {
	const char *param, *keeps;
} bad_params[] = {
	{ "default_policy=", "auto" },
	{ "default_policy", "auto" },
	{ "default_policy=ASID", "auto" },
	{ "default_policy=Va", "auto" },
	{ "default_policy=../x", "auto" },
	{ "default_policy=\xff\xfe\x80", "auto" },
	{ "default_policy=a_name_much_too_long", "auto" },
	{ "default_policy=\"va asid\"", "auto" },
	{ "default_policy=va;", "auto" },
	{ "default_policy=\"\"", "auto" },
	{ "default_policy=\"  \"", "auto" },
	{ "default_threshold=", "0" },
	{ "default_threshold", "0" },
	{ "default_threshold=-1", "0" },
	{ "default_threshold=0x10", "0" },
	{ "default_threshold=4194305", "0" },
	{ "default_threshold=18446744073709551616", "0" },
	{ "device_policy", "" },
	{ FP_DEVICE_POLICY_JUNK, FP_DEVICE_POLICY_KEPT },
};

static int n_bad_params;

static void bad_params_ignored(void)
{
	char path[96], buf[128], want[128];
	int i, ret;

	for (i = 0; i < (int)ARRAY_SIZE(bad_params); i++) {
		ret = load_with("flushpol", bad_params[i].param);
		expect(!ret, bad_params[i].param, ret);
		if (ret)
			continue;
		path[0] = '\0';
		strlcat(path, "/sys/module/flushpol/parameters/", sizeof(path));
		strncat(path, bad_params[i].param,
			strchr(bad_params[i].param, '=') ?
			strchr(bad_params[i].param, '=') - bad_params[i].param :
			strlen(bad_params[i].param));
		read_str(path, buf, sizeof(buf));
		want[0] = '\0';
		strlcat(want, bad_params[i].keeps, sizeof(want));
		strlcat(want, "\n", sizeof(want));
		expect(!strcmp(buf, want), bad_params[i].param, 0);
		expect(!unload("flushpol"), "unload after a bad parameter", 0);
		n_bad_params++;
	}
	/* And a good one is taken. */
	ret = load_with("flushpol", "default_policy=asid default_threshold=32");
	expect(!ret, "default_policy=asid refused", ret);
	read_str("/sys/module/flushpol/parameters/default_policy", buf,
		 sizeof(buf));
	expect(!strcmp(buf, "asid\n"), "default_policy not asid", 0);
	read_str("/sys/module/flushpol/parameters/default_threshold", buf,
		 sizeof(buf));
	expect(!strcmp(buf, "32\n"), "default_threshold not 32", 0);
	expect(!unload("flushpol"), "unload after default_policy", 0);
}

#define HOLDER_CTX	"/sys/kernel/flushpol/contexts/holder0-asid1"
#define HOLDER_HOLD	"/sys/module/flushpol_holder/parameters/hold"

static int n_pinned;

static void refused_while_used(const char *name)
{
	int ret = unload(name);

	expect(ret == -EAGAIN, name, ret);
	n_pinned++;
}

/*
 * flushpol_holder keeps a context on the adaptive policy: neither the
 * policy module, the backend that owns the context, nor the core may go
 * until the context stops using them.
 */
static void pinned_while_used(void)
{
	char buf[128];
	int ret;

	expect(!load_with("flushpol", ""), "load flushpol", 0);
	expect(!load_with("flushpol_adaptive", ""), "load adaptive", 0);
	expect(!load_with("flushpol_holder", ""), "load holder", 0);
	read_str(HOLDER_CTX "/policy", buf, sizeof(buf));
	expect(!strcmp(buf, "va asid threshold batch [adaptive]\n"), "holder policy", 0);

	refused_while_used("flushpol_adaptive");
	refused_while_used("flushpol_holder");
	refused_while_used("flushpol");

	/* Off the policy, its module may go; and cannot come back unloaded. */
	expect(!write_str(HOLDER_CTX "/policy", "va\n"), "policy va", 0);
	expect(!unload("flushpol_adaptive"), "unload unused adaptive", 0);
	ret = write_str(HOLDER_CTX "/policy", "adaptive\n");
	expect(ret == -EINVAL, "switch to an unloaded policy", ret);
	expect(!load_with("flushpol_adaptive", ""), "reload adaptive", 0);
	expect(!write_str(HOLDER_CTX "/policy", "adaptive\n"),
	       "policy adaptive", 0);
	refused_while_used("flushpol_adaptive");

	/* The context goes: everything may. */
	expect(!write_str(HOLDER_HOLD, "0\n"), "drop the context", 0);
	expect(!exists(HOLDER_CTX "/policy"), "context still in sysfs", 0);
	expect(!unload("flushpol_holder"), "unload holder", 0);
	expect(!unload("flushpol_adaptive"), "unload adaptive", 0);
	expect(!unload("flushpol"), "unload flushpol", 0);
}

#define KCSAN_CTL	"/sys/kernel/debug/kcsan"
#define KCSAN_FILTER	"/kcsan-filter"

static int mount_debugfs(void)
{
	return !mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL) ||
	       errno == EBUSY;
}

/*
 * make kcsan: KCSAN leaves out reports whose racing function is on its
 * debugfs blacklist.  The known upstream races of kunit/kcsan-filter.txt
 * (here /kcsan-filter: one function first on a line, '#' comments) go
 * there before anything of flushpol's runs.  A name KCSAN refuses (not a
 * symbol of this kernel) fails the run: a filter that filters nothing
 * would be a list nobody checked (scripts/kunit.sh --kcsan).
 */
static void kcsan_filter(void)
{
	static char list[8192];
	char line[160], *p, *end;
	int n = 0, ret;

	if (read_str(KCSAN_FILTER, list, sizeof(list)) < 0)
		return;
	if (!mount_debugfs() || !exists(KCSAN_CTL)) {
		printf("FLUSHPOL-KCSAN-FAIL: no %s\n", KCSAN_CTL);
		return;
	}
	for (p = list; *p; p = *end ? end + 1 : end) {
		for (end = p; *end && *end != '\n'; end++)
			;
		while (*p == ' ' || *p == '\t')
			p++;
		if (p == end || *p == '#')
			continue;
		line[0] = '!';
		for (ret = 1; p < end && *p != ' ' && *p != '\t' && *p != '#' &&
		     ret < (int)sizeof(line) - 1; p++)
			line[ret++] = *p;
		line[ret] = '\0';
		ret = write_str(KCSAN_CTL, line);
		if (ret)
			printf("FLUSHPOL-KCSAN-FAIL: %s: %d\n", line + 1,
			       -ret);
		n++;
	}
	printf("FLUSHPOL-KCSAN-FILTER %d functions\n", n);
}

/* KCSAN's counters and blacklist once the suites ran, for the summary. */
static void kcsan_counters(void)
{
	static char info[8192];
	char *p, *end, c;

	if (read_str(KCSAN_CTL, info, sizeof(info)) <= 0)
		return;
	for (p = info; *p; p = *end ? end + 1 : end) {
		for (end = p; *end && *end != '\n'; end++)
			;
		if (end == p)
			continue;
		c = *end;
		*end = '\0';
		printf("fp-kcsan-info: %s\n", p);
		*end = c;
	}
}

#define KMEMLEAK	"/sys/kernel/debug/kmemleak"

/*
 * kmemleak reports objects unreferenced for 5 s or more, and only from the
 * second scan that finds them unchanged (the first takes a checksum): so
 * scan twice to forget what boot left (after 6 s of uptime, so all of it
 * is old enough), and twice at the end, once what the loops leaked aged.
 * Checked by hand: a kmalloc() leaked in flushpol's init is reported.
 */
static int kmemleak_start(void)
{
	char up[64];

	if (!mount_debugfs() || !exists(KMEMLEAK))
		return 0;
	read_str("/proc/uptime", up, sizeof(up));
	if (atoi(up) < 6)
		sleep(6 - atoi(up));
	/* Our own stale kernel stack would hide what the modules leaked. */
	write_str(KMEMLEAK, "stack=off");
	write_str(KMEMLEAK, "scan");
	write_str(KMEMLEAK, "scan");
	write_str(KMEMLEAK, "clear");
	return 1;
}

static int kmemleak_leaks(void)
{
	static char report[8192];
	int n = 0;
	char *p;

	sleep(6);
	write_str(KMEMLEAK, "scan");
	write_str(KMEMLEAK, "scan");
	read_str(KMEMLEAK, report, sizeof(report));
	for (p = report; *p; p++)
		n += !strncmp(p, "unreferenced object", 19);
	if (n)
		printf("%s\n", report);
	return n;
}

#define PINNED_ROUNDS	10

/*
 * Before the suites: junk parameters at load time, the three modules
 * loaded and unloaded @rounds times, each pair of load and unload orders
 * in turn (36 rounds try every pair once), a module in use refused
 * unload, and kmemleak's verdict on all of it.
 */
static int lifetime_checks(int rounds)
{
	int i, leaks = -1, kmemleak = kmemleak_start();

	bad_params_ignored();
	for (i = 0; i < rounds; i++)
		load_unload(perms[i % 6], perms[(i / 6) % 6]);
	for (i = 0; i < PINNED_ROUNDS; i++)
		pinned_while_used();
	if (kmemleak) {
		leaks = kmemleak_leaks();
		expect(!leaks, "kmemleak found leaks", leaks);
	}
	printf("fp-lifetime: bad-params %d load-unload-rounds %d loads %d ",
	       n_bad_params, rounds, n_loads);
	printf("unloads %d refused-loads %d refused-unloads %d ", n_unloads,
	       n_load_refused, n_unload_refused);
	printf("pinned-refusals %d leaks %d failures %d\n", n_pinned, leaks,
	       failures);
	return failures;
}

/*
 * Lockdep turns itself off at its first report, wherever it is: one at
 * boot, before the modules load, would leave the suites unchecked.  So
 * say whether it is on, before and after them ("fp-debug-locks: begin 1",
 * its debug_locks); nothing in a kernel without lockdep.
 */
static void lockdep_state(const char *when)
{
	static char stats[8192];
	const char *key = "debug_locks:";
	char *p;

	if (read_str("/proc/lockdep_stats", stats, sizeof(stats)) <= 0)
		return;
	for (p = stats; *p; p++) {
		if (strncmp(p, key, strlen(key)))
			continue;
		for (p += strlen(key); *p == ' '; p++)
			;
		printf("fp-debug-locks: %s %d\n", when, atoi(p));
		return;
	}
}

int main(int argc, char **argv)
{
	int i, failed = 0;

	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	read_cmdline();
	printf("FLUSHPOL-BEGIN\n");
	lockdep_state("begin");
	kcsan_filter();
	for (i = 1; i < argc; i++)
		if (!strncmp(argv[i], "@lifetime:", 10) &&
		    !lifetime_checks(atoi(argv[i] + 10)))
			printf("FLUSHPOL-LIFETIME-OK\n");
	/* UML appends root= and console= after ours: not module names. */
	for (i = 1; i < argc; i++)
		if (!strchr(argv[i], '=') && argv[i][0] != '@')
			failed |= load(argv[i]);
	if (!failed)
		printf("FLUSHPOL-INSMOD-OK\n");
	kcsan_counters();
	lockdep_state("end");
	reboot(LINUX_REBOOT_CMD_POWER_OFF);
	return 0;
}
