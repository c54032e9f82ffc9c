// SPDX-License-Identifier: GPL-2.0-only
/*
 * The do-nothing backend of the benchmarks (bench_dispatch.c,
 * bench_scale.c), and the direct side they compare flushpol with.
 *
 * The primitives count per CPU, without an atomic or an interrupt-state
 * save: a shared counter would be the very cache line bouncing the scale
 * benchmark measures, on both sides, and under UML this_cpu_add() saves
 * and restores the emulated interrupt state, which would double the
 * direct side's cost.  Each benchmark thread is bound to a CPU of its own
 * and counts only in task context, so no two writers share a counter.
 *
 * noinline: a real backend's primitives are calls, and so must these be on
 * both sides, or the direct side would measure an empty loop.
 */
#include <linux/kthread.h>
#include <linux/percpu.h>
#include <linux/sizes.h>

#include "bench_backend.h"

static DEFINE_PER_CPU(unsigned long, fpbk_cmds);
static DEFINE_PER_CPU(unsigned long, fpbk_syncs);

static noinline void fpbk_inv_va(struct fp_context *ctx, unsigned long iova,
				 size_t size, size_t granule, bool leaf)
{
	raw_cpu_add(fpbk_cmds, size / granule);
}

static noinline unsigned int fpbk_inv_range(struct fp_context *ctx,
					    unsigned long iova, size_t size,
					    size_t granule, bool leaf)
{
	raw_cpu_inc(fpbk_cmds);
	return 1;
}

static noinline void fpbk_inv_context(struct fp_context *ctx)
{
	raw_cpu_inc(fpbk_cmds);
}

static noinline int fpbk_sync(struct fp_context *ctx)
{
	raw_cpu_inc(fpbk_syncs);
	return 0;
}

/*
 * The commands and their sync in one call, as the SMMUv3 backend's queue
 * takes them (and as upstream's arm-smmu-v3 submits a batch with its
 * CMD_SYNC): what the shipped composition reaches for one leaf.
 */
static noinline int fpbk_inv_va_sync(struct fp_context *ctx,
				     unsigned long iova, size_t size,
				     size_t granule, bool leaf)
{
	raw_cpu_add(fpbk_cmds, size / granule);
	raw_cpu_inc(fpbk_syncs);
	return 0;
}

static noinline int fpbk_inv_range_sync(struct fp_context *ctx,
					unsigned long iova, size_t size,
					size_t granule, bool leaf,
					unsigned int *n)
{
	raw_cpu_inc(fpbk_cmds);
	raw_cpu_inc(fpbk_syncs);
	*n = 1;
	return 0;
}

const struct fp_hw_ops fpbk_hw_ops = {
	.inv_va		= fpbk_inv_va,
	.inv_range	= fpbk_inv_range,
	.inv_context	= fpbk_inv_context,
	.sync		= fpbk_sync,
	.inv_va_sync	= fpbk_inv_va_sync,
	.inv_range_sync	= fpbk_inv_range_sync,
};

/* What the backend was asked for since the last call, over all CPUs. */
void fpbk_counts(unsigned long *cmds, unsigned long *syncs)
{
	unsigned int cpu;

	*cmds = 0;
	*syncs = 0;
	for_each_possible_cpu(cpu) {
		*cmds += per_cpu(fpbk_cmds, cpu);
		*syncs += per_cpu(fpbk_syncs, cpu);
		per_cpu(fpbk_cmds, cpu) = 0;
		per_cpu(fpbk_syncs, cpu) = 0;
	}
}

/*
 * The direct side: the driver's own flush ops, no policy in between, in
 * arm-smmu-v3's shape: gather leaves, invalidate them by VA and sync at
 * iotlb_sync; invalidate by VA and sync at each walk flush.
 */

void fpbk_direct_iotlb_sync(struct iommu_iotlb_gather *g)
{
	if (g->pgsize)
		fpbk_inv_va_sync(NULL, g->start, g->end - g->start + 1,
				 g->pgsize, true);
	else
		fpbk_sync(NULL);
}

static void fpbk_direct_flush_all(void *cookie)
{
	fpbk_inv_context(NULL);
	fpbk_sync(NULL);
}

static void fpbk_direct_flush_walk(unsigned long iova, size_t size,
				   size_t granule, void *cookie)
{
	fpbk_inv_va_sync(NULL, iova, size, granule, false);
}

/* iommu_iotlb_gather_add_page(), with the sync above for the domain's. */
static void fpbk_direct_add_page(struct iommu_iotlb_gather *g,
				 unsigned long iova, size_t granule,
				 void *cookie)
{
	if ((g->pgsize && g->pgsize != granule) ||
	    iommu_iotlb_gather_is_disjoint(g, iova, granule)) {
		fpbk_direct_iotlb_sync(g);
		iommu_iotlb_gather_init(g);
	}
	g->pgsize = granule;
	iommu_iotlb_gather_add_range(g, iova, granule);
}

const struct iommu_flush_ops fpbk_direct_tlb = {
	.tlb_flush_all	= fpbk_direct_flush_all,
	.tlb_flush_walk	= fpbk_direct_flush_walk,
	.tlb_add_page	= fpbk_direct_add_page,
};

static void fpbk_pair_destroy(void *data)
{
	struct fpbk_pair *p = data;

	if (p->fp_ops)
		free_io_pgtable_ops(p->fp_ops);
	if (p->ctx)
		fp_context_destroy(p->ctx);
	if (p->direct_ops)
		free_io_pgtable_ops(p->direct_ops);
}

static void fpbk_cfg(struct fpbk_pair *p, struct io_pgtable_cfg *cfg)
{
	*cfg = (struct io_pgtable_cfg) {
		.pgsize_bitmap	= SZ_4K | SZ_2M | SZ_1G,
		.ias		= 48,
		.oas		= 48,
		.coherent_walk	= true,
		.iommu_dev	= &p->dev,
	};
}

/**
 * fpbk_pair_create() - both sides of a benchmark, torn down with @test
 * @test: the test case
 * @backend: the context's backend and instance name
 * @policy: the flushpol side's policy
 *
 * Return: an ARM_64_LPAE_S1 page table through a flushpol context with
 * @policy over the do-nothing backend, and one whose flush ops call the
 * same backend directly.  Aborts @test on failure.
 */
struct fpbk_pair *fpbk_pair_create(struct kunit *test, const char *backend,
				   const char *policy)
{
	struct fpbk_pair *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	struct fp_context_cfg fc = {
		.backend = backend, .instance = backend, .owner = THIS_MODULE,
		.ops = &fpbk_hw_ops, .id = 1, .default_policy = "va",
		.default_threshold = 128,
	};

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
							fpbk_pair_destroy, p),
			0);

	fpbk_cfg(p, &p->fp_cfg);
	fc.priv = p;
	p->ctx = fp_context_create(&fc, &p->fp_cfg);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p->ctx);
	KUNIT_ASSERT_EQ(test, fp_context_set_policy(p->ctx, policy), 0);
	p->fp_ops = alloc_io_pgtable_ops(ARM_64_LPAE_S1, &p->fp_cfg, p->ctx);
	KUNIT_ASSERT_NOT_NULL(test, p->fp_ops);

	fpbk_cfg(p, &p->direct_cfg);
	p->direct_cfg.tlb = &fpbk_direct_tlb;
	p->direct_ops = alloc_io_pgtable_ops(ARM_64_LPAE_S1, &p->direct_cfg,
					     p);
	KUNIT_ASSERT_NOT_NULL(test, p->direct_ops);
	return p;
}

/**
 * fpbk_run_bound() - run @threads threads, each bound to a CPU of its own
 * @test: the case
 * @fn: the thread function
 * @args: its argument for each thread
 * @threads: how many, at most FPBK_MAX_THREADS and the CPUs online
 * @name: the threads' name, numbered
 * @done: what the last thread to finish completes
 *
 * All are created and bound before any is woken, so that they start
 * together; returns once @done is complete.
 */
void fpbk_run_bound(struct kunit *test, int (*fn)(void *data),
		    void *const *args, unsigned int threads, const char *name,
		    struct completion *done)
{
	struct task_struct *t[FPBK_MAX_THREADS];
	unsigned int i;
	int cpu = -1;

	KUNIT_ASSERT_LE(test, threads, FPBK_MAX_THREADS);
	for (i = 0; i < threads; i++) {
		cpu = cpumask_next(cpu, cpu_online_mask);
		t[i] = kthread_create(fn, args[i], "%s/%u", name, i);
		if (IS_ERR(t[i])) {
			/* Never woken: stopping them only reaps them. */
			while (i--)
				kthread_stop(t[i]);
			KUNIT_FAIL_AND_ABORT(test, "kthread_create failed");
		}
		kthread_bind(t[i], cpu);
	}
	for (i = 0; i < threads; i++)
		wake_up_process(t[i]);
	wait_for_completion(done);
}
