/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * flushpol core internals: shared by core/ only.
 */
#ifndef _FP_CORE_H
#define _FP_CORE_H

#include <linux/kobject.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>

#include "../include/flushpol.h"

/* A threshold above this many TLB entries (16 GiB of 4 KiB pages) is junk. */
#define FP_THRESHOLD_MAX	BIT(22)

struct fp_stats {
	u64 v[FP_STAT_NR];
};

struct fp_context {
	struct kobject kobj;
	char name[32];
	struct fp_context_cfg cfg;
	struct fp_policy __rcu *policy;
	/* Serialises policy switches; dispatch only takes rcu_read_lock(). */
	struct mutex lock;
	unsigned int threshold;
	struct fp_stats __percpu *stats;
	/* What gathered leaves are already covered: see coverage.c. */
	atomic64_t ctx_flush_started;
	atomic64_t ctx_flush_done;
	atomic64_t leaf_mark;
	atomic_t sync_errors;
	spinlock_t span_lock;		/* unmaps, and their spans */
	struct list_head unmaps;	/* fp_unmap() calls running */
	atomic_t nr_spans;		/* of those, with a span */
	struct list_head node;
};

static inline void fp_stat_add(struct fp_context *ctx, enum fp_stat s, u64 n)
{
	this_cpu_add(ctx->stats->v[s], n);
}

/* registry.c */
const char *fp_policy_name_parse(char buf[FP_NAME_MAX], const char *input);
struct fp_policy *fp_policy_get(const char *name);
void fp_policy_put(struct fp_policy *pol);
bool fp_policy_registered(const struct fp_policy *pol);
ssize_t fp_policies_show(char *buf, const struct fp_context *ctx,
			 const struct fp_policy *active);
int fp_builtin_policies_register(void);
void fp_builtin_policies_unregister(void);

/* context.c */
extern struct mutex fp_contexts_lock;
extern struct list_head fp_contexts;
void fp_default_policy(char name[FP_NAME_MAX]);

/* coverage.c */
/* One fp_unmap() call: the walks it flushed, as one span. */
struct fp_cov_unmap {
	struct list_head node;
	struct task_struct *task;
	unsigned long start, end;
};

void fp_cov_init(struct fp_context *ctx);
int fp_cov_walk_begin(struct fp_context *ctx);
void fp_cov_walk_done(struct fp_context *ctx, int token, unsigned long iova,
		      size_t size);
bool fp_cov_leaf(struct fp_context *ctx, unsigned long iova, size_t size);
void fp_cov_unmap_begin(struct fp_context *ctx, struct fp_cov_unmap *u);
void fp_cov_unmap_end(struct fp_context *ctx, struct fp_cov_unmap *u);
void fp_cov_sync_failed(struct fp_context *ctx);

/* dispatch.c */
extern const struct iommu_flush_ops fp_flush_ops;

/* sysfs.c */
int fp_sysfs_init(void);
void fp_sysfs_exit(void);
int fp_sysfs_add_context(struct fp_context *ctx);
void fp_sysfs_del_context(struct fp_context *ctx);
extern const struct kobj_type fp_context_ktype;

/* Built-in policies, each defined in its own file under policy/. */
extern struct fp_policy fp_policy_va;
extern struct fp_policy fp_policy_range;
extern struct fp_policy fp_policy_asid;
extern struct fp_policy fp_policy_nonstrict;

#endif /* _FP_CORE_H */
