/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The test rig: a flushpol context on the model backend, with a real
 * io-pgtable-arm page table, and the unmap path of the kernel's IOMMU core
 * (page-size split, gather, iotlb_sync) reproduced around it.
 */
#ifndef _FP_RIG_H
#define _FP_RIG_H

#include <kunit/test.h>
#include <linux/device.h>
#include <linux/io-pgtable.h>

#include "../backends/smmuv3/smmuv3.h"
#include "../include/flushpol.h"
#include "fp_model.h"

struct fpt_rig;
struct fpt_rig_cfg;

/*
 * Called by the rig's flush ops around the core's, to act mid-unmap, and
 * by its backend before each sync, from whichever task syncs.
 */
struct fpt_hooks {
	void (*before_walk)(struct fpt_rig *rig);
	void (*before_add_page)(struct fpt_rig *rig);
	void (*before_sync)(struct fpt_rig *rig);
};

/**
 * struct fpt_backend - a shipped backend's primitives under test
 * @name: its backend name, as in sysfs
 * @ops: its primitives; their fp_context_priv() is &fpt_rig.backend
 * @setup: fills &fpt_rig.backend so that the primitives drive the model
 * @default_policy: what its init_context would choose
 * @create: optional; creates the context through the backend's own
 *	function instead (@name, @ops and @default_policy are then its
 *	business; its fp_context_priv() is the backend's).
 * @destroy: with @create, the backend's own destroy function; NULL:
 *	fp_context_destroy()
 *	May adjust &fpt_rig.cfg before the page table is allocated, and sets
 *	&fpt_rig.name.
 */
struct fpt_backend {
	const char *name;
	const struct fp_hw_ops *ops;
	void (*setup)(struct fpt_rig *rig);
	const char *default_policy;
	struct fp_context *(*create)(struct fpt_rig *rig,
				     const struct fpt_rig_cfg *rc, u16 id);
	void (*destroy)(struct fp_context *ctx);
};

struct fpt_rig_cfg {
	const struct fpt_backend *backend;	/* NULL: the model's own */
	enum io_pgtable_fmt fmt;
	unsigned long granule;
	bool has_range;
	bool lazy;
	const char *policy;	/* NULL: the backend's default */
	unsigned int threshold;	/* 0: the backend's default */
};

struct fpt_rig {
	/*
	 * First, so that a backend's fp_context_priv() is also the rig, for
	 * the rig's own hooks.
	 */
	union {
		struct smmuv3_flush v3;
	} backend;
	struct kunit *test;
	struct fpm_smmu *smmu;		/* shared when several rigs run */
	struct fpm_smmu own_smmu;
	struct fpm_ctx mc;
	struct fp_context *ctx;
	void (*destroy)(struct fp_context *ctx);	/* the backend's, or NULL */
	struct io_pgtable_ops *ops;
	struct io_pgtable_cfg cfg;
	const struct iommu_flush_ops *fp_tlb;	/* what flushpol gave us */
	struct iommu_flush_ops tlb;		/* what io-pgtable calls */
	const struct fpt_hooks *hooks;
	void *hook_data;
	struct device dev;
	char name[32];			/* the context's sysfs name */
	struct list_head quarantine;	/* freed tables, see fpt_table_free */
	spinlock_t quarantine_lock;	/* threads may unmap concurrently */
	bool has_range;
	/* What the model's clock charges a command and a sync; 0: seed's. */
	unsigned int cmd_ns, sync_ns;
	u64 pa_offset;
	/* io-pgtable's calls; the stress suite unmaps from several threads. */
	atomic_long_t walks, add_pages;
	/*
	 * Commands the backend got, how many inside an RCU read section, and
	 * how many where sleeping would have gone unseen.
	 */
	unsigned long cmds, cmds_in_rcu, cmds_could_sleep;
	/* What fpt_rig_exit() found; checked unless @quiet_exit (mutants). */
	bool quiet_exit;
	unsigned long exit_left, exit_freed_refs;
};

extern const struct fp_hw_ops fpt_hw_ops;
extern const struct fp_hw_ops fpt_hw_ops_range;

int fpt_rig_init(struct kunit *test, struct fpt_rig *rig,
		 const struct fpt_rig_cfg *rc, struct fpm_smmu *shared, u16 asid);
void fpt_rig_exit(struct fpt_rig *rig);
void fpt_rig_release(struct fpt_rig *rig);
struct fpm_smmu *fpt_shared_smmu(struct kunit *test);
struct device *fpt_device_register(struct kunit *test, const char *prefix);

/* test_model_ttl.c, for the mutant harness too. */
unsigned long fpt_block_split_stale(struct kunit *test, bool mutant,
				    bool legacy);

int fpt_map(struct fpt_rig *rig, unsigned long iova, size_t size,
	    size_t pgsize);
size_t fpt_unmap(struct fpt_rig *rig, unsigned long iova, size_t size,
		 bool queued);
size_t fpt_unmap_core(struct fpt_rig *rig, unsigned long iova, size_t size,
		      bool queued);
size_t fpt_core_pgsize(unsigned long bitmap, unsigned long iova,
		       size_t size, size_t *count);

ssize_t fpt_write_file(const char *path, const void *buf, size_t len);
ssize_t fpt_read_file(const char *path, char *buf, size_t size);
/* flushpol.device_policy= at run time, and emptying it (a test's action). */
#define FPT_DEV_PARAM	"/sys/module/flushpol/parameters/device_policy"
void fpt_restore_dev_param(void *unused);
ssize_t fpt_ctx_write(struct fpt_rig *rig, const char *attr, const char *s,
		      size_t len);
ssize_t fpt_ctx_read(struct fpt_rig *rig, const char *attr, char *buf,
		     size_t size);

/* The latency histograms' switch, and the core's keys held for a case. */
#define FPT_LATENCY	"/sys/kernel/flushpol/latency"
void fpt_latency_set(struct kunit *test, bool on);
void fpt_latency_off_at_end(struct kunit *test);
void fpt_estimate_hold_off(struct kunit *test);
void fpt_estimate_release(struct kunit *test);

#endif /* _FP_RIG_H */
