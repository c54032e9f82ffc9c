// SPDX-License-Identifier: GPL-2.0-only
/*
 * flushpol_holder: a test-only backend that keeps one context alive, so
 * that the UML /init (kunit/initramfs/init.c) can try to unload modules
 * while a context uses them: the policy module, this backend (the
 * context's owner) and the core must all be refused.  Its hardware is
 * nothing: no page table is ever built on the context.
 *
 * Parameters: policy= (default "adaptive") at load; writing 0 to hold
 * destroys the context.  It is only ever created at load: creating it from
 * a parameter write would take flushpol's parameter lock (for its
 * default_policy) inside ours, two locks of one lockdep class.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>

#include "../../include/flushpol.h"

static char *policy = "adaptive";
module_param(policy, charp, 0444);
MODULE_PARM_DESC(policy, "Policy of the held context (default: adaptive)");

/* Set by module_init, cleared under our parameter lock (hold=0). */
static struct fp_context *holder_ctx;

static void holder_inv_va(struct fp_context *ctx, unsigned long iova,
			  size_t size, size_t granule, bool leaf)
{
}

static void holder_inv_context(struct fp_context *ctx)
{
}

static int holder_sync(struct fp_context *ctx)
{
	return 0;
}

static const struct fp_hw_ops holder_ops = {
	.inv_va		= holder_inv_va,
	.inv_context	= holder_inv_context,
	.sync		= holder_sync,
};

static int holder_hold_set(const char *val, const struct kernel_param *kp)
{
	bool on;
	int ret = kstrtobool(val, &on);

	if (ret)
		return ret;
	if (on)
		return holder_ctx ? 0 : -EPERM;
	if (holder_ctx) {
		fp_context_destroy(holder_ctx);
		WRITE_ONCE(holder_ctx, NULL);
	}
	return 0;
}

static int holder_hold_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", !!READ_ONCE(holder_ctx));
}

static const struct kernel_param_ops holder_hold_ops = {
	.set = holder_hold_set,
	.get = holder_hold_get,
};
module_param_cb(hold, &holder_hold_ops, NULL, 0644);
MODULE_PARM_DESC(hold, "1 while the context exists; write 0 to destroy it");

static int __init holder_init(void)
{
	struct io_pgtable_cfg pgtbl_cfg = {};
	struct fp_context *ctx;

	ctx = fp_context_create(&(struct fp_context_cfg) {
		.backend = "holder", .instance = "holder0",
		.owner = THIS_MODULE, .ops = &holder_ops, .id = 1,
		.default_policy = policy, .default_threshold = 128,
	}, &pgtbl_cfg);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	/* Under our parameter lock: hold= may be written from now on. */
	kernel_param_lock(THIS_MODULE);
	holder_ctx = ctx;
	kernel_param_unlock(THIS_MODULE);
	return 0;
}

static void __exit holder_exit(void)
{
	/* Only after a forced unload: the context pins this module. */
	if (holder_ctx)
		fp_context_destroy(holder_ctx);
}

module_init(holder_init);
module_exit(holder_exit);

MODULE_DESCRIPTION("flushpol test backend holding one context, for module lifetime checks");
MODULE_AUTHOR("flushpol developers");
MODULE_LICENSE("GPL");
