// SPDX-License-Identifier: GPL-2.0-only
/*
 * /init of the UML test initramfs, built against the kernel's nolibc: mount
 * /proc and /sys, load /lib/<name>.ko for each name on the command line
 * (after "--"), in order, say whether all loaded, and power off.
 *
 * No libc, so nothing here depends on the host's TLS or FPU state being
 * carried correctly by UML: the tests run in the kernel, this only starts
 * them.
 */
#include <linux/reboot.h>

static int load(const char *name)
{
	char path[128];
	int fd, ret;

	if (strlen(name) > sizeof(path) - 9)
		return -1;
	memcpy(path, "/lib/", 5);
	memcpy(path + 5, name, strlen(name));
	memcpy(path + 5 + strlen(name), ".ko", 4);
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		printf("FLUSHPOL-INSMOD-FAILED %s: open: %d\n", name, errno);
		return -1;
	}
	ret = my_syscall3(__NR_finit_module, fd, "", 0);
	close(fd);
	if (ret < 0) {
		printf("FLUSHPOL-INSMOD-FAILED %s: %d\n", name, -ret);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int i, failed = 0;

	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	printf("FLUSHPOL-BEGIN\n");
	/* UML appends root= and console= after ours: not module names. */
	for (i = 1; i < argc; i++)
		if (!strchr(argv[i], '='))
			failed |= load(argv[i]);
	if (!failed)
		printf("FLUSHPOL-INSMOD-OK\n");
	reboot(LINUX_REBOOT_CMD_POWER_OFF);
	return 0;
}
