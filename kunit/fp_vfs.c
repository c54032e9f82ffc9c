// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reading and writing files from a test, through the VFS, so that sysfs and
 * module parameters are exercised exactly as a user's echo and cat do.
 */
#include <linux/fs.h>

#include "fp_rig.h"

/* Return: bytes written, or the negative errno the write failed with. */
ssize_t fpt_write_file(const char *path, const void *buf, size_t len)
{
	struct file *f = filp_open(path, O_WRONLY, 0);
	loff_t pos = 0;
	ssize_t ret;

	if (IS_ERR(f))
		return PTR_ERR(f);
	ret = kernel_write(f, buf, len, &pos);
	filp_close(f, NULL);
	return ret;
}

/* Return: bytes read into @buf, NUL-terminated, or a negative errno. */
ssize_t fpt_read_file(const char *path, char *buf, size_t size)
{
	struct file *f = filp_open(path, O_RDONLY, 0);
	loff_t pos = 0;
	ssize_t ret;

	if (IS_ERR(f))
		return PTR_ERR(f);
	ret = kernel_read(f, buf, size - 1, &pos);
	filp_close(f, NULL);
	buf[ret < 0 ? 0 : ret] = '\0';
	return ret;
}

/* @path relative to the rig context's sysfs directory. */
ssize_t fpt_ctx_write(struct fpt_rig *rig, const char *attr, const char *s,
		      size_t len)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/kernel/flushpol/contexts/%s/%s",
		 rig->name, attr);
	return fpt_write_file(path, s, len);
}

ssize_t fpt_ctx_read(struct fpt_rig *rig, const char *attr, char *buf,
		     size_t size)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/kernel/flushpol/contexts/%s/%s",
		 rig->name, attr);
	return fpt_read_file(path, buf, size);
}

/* A kunit action: no device named in flushpol.device_policy= any more. */
void fpt_restore_dev_param(void *unused)
{
	fpt_write_file(FPT_DEV_PARAM, "\n", 1);
}
