// SPDX-License-Identifier: GPL-2.0-only
/*
 * The test rig: a flushpol context whose backend drives the TLB model, and
 * a real io-pgtable-arm page table whose flush calls go through flushpol.
 */
#include <kunit/device.h>
#include <linux/gfp.h>
#include <linux/iommu.h>
#include <linux/mm.h>
#include <linux/rcupdate.h>

#include "fp_rig.h"

static struct fpt_rig *to_rig(const void *cookie)
{
	return fp_context_priv(cookie);
}

/* The backend: each primitive becomes model commands. */

/*
 * Which commands a policy sent from inside an RCU read section: only
 * known with lockdep (rcu_read_lock_held() is always true without).
 */
/*
 * And which from where a primitive could have slept unseen: preemptible
 * and outside any non-blocking section (only known with
 * DEBUG_ATOMIC_SLEEP, which has the count).
 */
static bool fpt_could_sleep(void)
{
#ifdef CONFIG_DEBUG_ATOMIC_SLEEP
	return preemptible() && !current->non_block_count;
#else
	return false;
#endif
}

static void fpt_count_cmds(struct fpt_rig *rig, unsigned long n)
{
	rig->cmds += n;
	if (IS_ENABLED(CONFIG_DEBUG_LOCK_ALLOC) && rcu_read_lock_held())
		rig->cmds_in_rcu += n;
	if (fpt_could_sleep())
		rig->cmds_could_sleep += n;
}

static void fpt_inv_va(struct fp_context *ctx, unsigned long iova,
		       size_t size, size_t granule, bool leaf)
{
	struct fpt_rig *rig = to_rig(ctx);
	struct fpm_cmd cmd = {
		.kind = FPM_CMD_VA, .leaf = leaf, .asid = rig->mc.asid,
		.vmid = rig->mc.vmid,
	};
	unsigned long end = iova + size;

	fpt_count_cmds(rig, size / granule);
	for (; iova < end; iova += granule) {
		cmd.addr = iova;
		fpm_issue(rig->smmu, &cmd);
	}
}

/*
 * SMMUv3.2-style range commands: (NUM + 1) * 2^SCALE translation granules,
 * NUM < 32.  Peeling the lowest set bits first gives an exact cover with
 * one command per 5-bit window of the page count.
 */
static unsigned int fpt_inv_range(struct fp_context *ctx, unsigned long iova,
				  size_t size, size_t granule, bool leaf)
{
	struct fpt_rig *rig = to_rig(ctx);
	unsigned int tg = rig->mc.pg_shift, n = 0;
	unsigned long pages = size >> tg;
	struct fpm_cmd cmd = {
		.kind = FPM_CMD_RANGE, .leaf = leaf, .asid = rig->mc.asid,
		.vmid = rig->mc.vmid,
	};

	while (pages) {
		unsigned int scale = __ffs(pages);
		unsigned long num = (pages >> scale) & 31;

		cmd.addr = iova;
		cmd.size = (u64)num << (scale + tg);
		fpm_issue(rig->smmu, &cmd);
		iova += cmd.size;
		pages -= num << scale;
		n++;
	}
	fpt_count_cmds(rig, n);
	return n;
}

static void fpt_inv_context(struct fp_context *ctx)
{
	struct fpt_rig *rig = to_rig(ctx);
	struct fpm_cmd cmd = { .kind = FPM_CMD_ASID, .asid = rig->mc.asid,
			       .vmid = rig->mc.vmid };

	fpt_count_cmds(rig, 1);
	fpm_issue(rig->smmu, &cmd);
}

/* As SMMUv3's CMD_TLBI_NH_ALL: every stage-1 entry of the VMID. */
static void fpt_inv_all(struct fp_context *ctx)
{
	struct fpt_rig *rig = to_rig(ctx);
	struct fpm_cmd cmd = { .kind = FPM_CMD_NH_ALL, .vmid = rig->mc.vmid };

	fpt_count_cmds(rig, 1);
	fpm_issue(rig->smmu, &cmd);
}

static int fpt_sync(struct fp_context *ctx)
{
	struct fpt_rig *rig = to_rig(ctx);

	if (rig->hooks && rig->hooks->before_sync)
		rig->hooks->before_sync(rig);
	return fpm_sync(rig->smmu);
}

/*
 * The time the model charges: every command and every sync it took, at
 * &fpt_rig.cmd_ns and &fpt_rig.sync_ns (the seed's SM8150 figures unless
 * a test sets others).  The adaptive policy times its flushes with it.
 */
static u64 fpt_clock(struct fp_context *ctx)
{
	struct fpt_rig *rig = to_rig(ctx);

	return (u64)READ_ONCE(rig->smmu->cmds) *
	       (rig->cmd_ns ?: FP_CMD_NS_DEFAULT) +
	       (u64)READ_ONCE(rig->smmu->syncs) *
	       (rig->sync_ns ?: FP_SYNC_NS_DEFAULT);
}

const struct fp_hw_ops fpt_hw_ops = {
	.inv_va		= fpt_inv_va,
	.inv_context	= fpt_inv_context,
	.inv_all	= fpt_inv_all,
	.sync		= fpt_sync,
	.clock		= fpt_clock,
};

const struct fp_hw_ops fpt_hw_ops_range = {
	.inv_va		= fpt_inv_va,
	.inv_range	= fpt_inv_range,
	.inv_context	= fpt_inv_context,
	.inv_all	= fpt_inv_all,
	.sync		= fpt_sync,
	.clock		= fpt_clock,
};

/*
 * The flush ops io-pgtable calls: flushpol's, with hooks in front so tests
 * can act in the middle of an unmap, and the model's busy device: before a
 * walk flush it refills the walk cache for every table it touched (io-pgtable
 * clears and flushes a level's tables one by one, so the later ones are
 * still live), and before a leaf is gathered it refills that leaf's
 * descriptor line.
 */

/*
 * The page table's cookie is the rig, whatever the backend made
 * fp_context_priv() of its context; flushpol's flush ops get the context.
 */
static void fpt_tlb_flush_all(void *cookie)
{
	struct fpt_rig *rig = cookie;

	rig->fp_tlb->tlb_flush_all(rig->ctx);
}

static void fpt_tlb_flush_walk(unsigned long iova, size_t size,
			       size_t granule, void *cookie)
{
	struct fpt_rig *rig = cookie;

	atomic_long_inc(&rig->walks);
	fpm_busy_tables(&rig->mc);
	if (rig->hooks && rig->hooks->before_walk)
		rig->hooks->before_walk(rig);
	rig->fp_tlb->tlb_flush_walk(iova, size, granule, rig->ctx);
}

/* A descriptor line of 4K pages: eight 8-byte descriptors. */
#define FPT_LINE	(8 * SZ_4K)

static void fpt_tlb_add_page(struct iommu_iotlb_gather *gather,
			     unsigned long iova, size_t granule, void *cookie)
{
	struct fpt_rig *rig = cookie;

	atomic_long_inc(&rig->add_pages);
	fpm_busy(&rig->mc, iova > FPT_LINE ? iova - FPT_LINE : 0,
		 granule + 2 * FPT_LINE, 1);
	if (rig->hooks && rig->hooks->before_add_page)
		rig->hooks->before_add_page(rig);
	rig->fp_tlb->tlb_add_page(gather, iova, granule, rig->ctx);
}

/* Table memory: ours, so the model sees the moment a table is freed. */
static void *fpt_table_alloc(void *cookie, size_t size, gfp_t gfp)
{
	return (void *)__get_free_pages(gfp | __GFP_ZERO, get_order(size));
}

/*
 * Freed tables are held until the rig goes, like KASAN's quarantine: a new
 * table never reuses a freed one's address, so a walk entry left on a freed
 * table can never look right by accident.  It also keeps the memory valid
 * for the model, which may be walking a table another thread is freeing.
 */
static void fpt_table_free(void *cookie, void *pages, size_t size)
{
	struct fpt_rig *rig = cookie;
	struct page *page = virt_to_page(pages);

	fpm_table_freed(&rig->mc, pages, size);
	set_page_private(page, get_order(size));
	spin_lock(&rig->quarantine_lock);
	list_add(&page->lru, &rig->quarantine);
	spin_unlock(&rig->quarantine_lock);
}

static void fpt_quarantine_release(struct fpt_rig *rig)
{
	struct page *page, *tmp;

	list_for_each_entry_safe(page, tmp, &rig->quarantine, lru) {
		list_del(&page->lru);
		__free_pages(page, page_private(page));
	}
}

/*
 * After free_io_pgtable_ops() the context must hold nothing: its
 * tlb_flush_all is the only invalidation before the ASID is reused.
 */
static void fpt_rig_exit_action(void *data)
{
	struct fpt_rig *rig = data;

	fpt_rig_exit(rig);
	if (rig->quiet_exit)
		return;
	KUNIT_EXPECT_EQ_MSG(rig->test, rig->exit_left, 0,
			    "%s: entries cached after free_io_pgtable_ops()",
			    rig->name);
	KUNIT_EXPECT_EQ_MSG(rig->test, rig->exit_freed_refs, 0,
			    "%s: walk entries on freed tables", rig->name);
}

static void fpt_smmu_destroy_action(void *smmu)
{
	fpm_smmu_destroy(smmu);
}

/**
 * fpt_shared_smmu() - an SMMU model for the rigs and fakes of one test
 * @test: the test; the model goes when it ends, after what was built on it
 *
 * Return: the model.  Fails the test if it cannot be made.
 */
struct fpm_smmu *fpt_shared_smmu(struct kunit *test)
{
	struct fpm_smmu *smmu = kunit_kzalloc(test, sizeof(*smmu), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, smmu);
	KUNIT_ASSERT_EQ(test, fpm_smmu_init(smmu), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
							fpt_smmu_destroy_action,
							smmu), 0);
	return smmu;
}

/**
 * fpt_device_register() - a device on the KUnit bus, for a fake SMMU
 * @test: the test; the device goes when it ends
 * @prefix: its name, to which ".N" is added: names are unique on that
 *	bus, and a test may have several fakes
 *
 * Return: the device.  Fails the test if it cannot be made.
 */
struct device *fpt_device_register(struct kunit *test, const char *prefix)
{
	static atomic_t devices = ATOMIC_INIT(0);
	struct device *dev;
	char name[32];

	snprintf(name, sizeof(name), "%s.%d", prefix,
		 atomic_inc_return(&devices));
	dev = kunit_device_register(test, name);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dev);
	return dev;
}

/* Tear @rig down now rather than when the test ends; checked as then. */
void fpt_rig_release(struct fpt_rig *rig)
{
	kunit_release_action(rig->test, fpt_rig_exit_action, rig);
}

/* As the backend that created the context destroys it. */
static void fpt_ctx_destroy(struct fpt_rig *rig)
{
	if (rig->destroy)
		rig->destroy(rig->ctx);
	else
		fp_context_destroy(rig->ctx);
}

/**
 * fpt_rig_init() - a context on the model, with its page table
 * @test: the test; the rig is torn down when it ends
 * @rig: zeroed storage for the rig
 * @rc: what to build
 * @shared: an SMMU model shared with other rigs, or NULL for a private one
 * @asid: the context's ASID
 *
 * Return: 0 or an error from flushpol or io-pgtable.
 */
int fpt_rig_init(struct kunit *test, struct fpt_rig *rig,
		 const struct fpt_rig_cfg *rc, struct fpm_smmu *shared, u16 asid)
{
	const struct fpt_backend *be = rc->backend;
	struct fp_context_cfg fc = {
		.backend = be ? be->name : "model",
		.instance = "model0",
		.owner = THIS_MODULE,
		.ops = be ? be->ops :
		       rc->has_range ? &fpt_hw_ops_range : &fpt_hw_ops,
		.id = asid,
		.lazy = rc->lazy,
		.default_policy = rc->lazy ? "nonstrict" :
				  be ? be->default_policy : "va",
		.default_threshold = rc->threshold ?: 128,
		.priv = rig,
	};
	unsigned long granule = rc->granule ?: SZ_4K;
	int ret;

	rig->test = test;
	rig->has_range = rc->has_range;
	INIT_LIST_HEAD(&rig->quarantine);
	spin_lock_init(&rig->quarantine_lock);
	snprintf(rig->name, sizeof(rig->name), "model0-asid%u", asid);
	if (shared) {
		rig->smmu = shared;
	} else {
		ret = fpm_smmu_init(&rig->own_smmu);
		if (ret)
			return ret;
		rig->smmu = &rig->own_smmu;
	}
	fpm_ctx_init(&rig->mc, rig->smmu, asid);
	if (be && be->setup)
		be->setup(rig);

	rig->cfg = (struct io_pgtable_cfg) {
		.pgsize_bitmap	= granule == SZ_4K ? SZ_4K | SZ_2M | SZ_1G :
				  granule == SZ_16K ? SZ_16K | SZ_32M :
				  SZ_64K | SZ_512M,
		.ias		= rc->fmt == ARM_32_LPAE_S1 ? 32 : 48,
		.oas		= rc->fmt == ARM_32_LPAE_S1 ? 40 : 48,
		.coherent_walk	= true,
		.iommu_dev	= &rig->dev,
		.alloc		= fpt_table_alloc,
		.free		= fpt_table_free,
	};

	if (be && be->create) {
		rig->ctx = be->create(rig, rc, asid);
		rig->destroy = be->destroy;
	} else {
		rig->ctx = fp_context_create(&fc, &rig->cfg);
	}
	if (IS_ERR(rig->ctx)) {
		ret = PTR_ERR(rig->ctx);
		rig->ctx = NULL;
		goto err_model;
	}
	rig->fp_tlb = rig->cfg.tlb;
	rig->tlb = (struct iommu_flush_ops) {
		.tlb_flush_all	= fpt_tlb_flush_all,
		.tlb_flush_walk	= fpt_tlb_flush_walk,
		.tlb_add_page	= fpt_tlb_add_page,
	};
	rig->cfg.tlb = &rig->tlb;

	rig->ops = alloc_io_pgtable_ops(rc->fmt, &rig->cfg, rig);
	if (!rig->ops) {
		ret = -ENOMEM;
		goto err_ctx;
	}
	ret = fpm_ctx_attach(&rig->mc, &rig->cfg);
	if (!ret && rc->policy)
		ret = fp_context_set_policy(rig->ctx, rc->policy);
	if (!ret && rc->threshold)
		ret = fp_context_set_threshold(rig->ctx, rc->threshold);
	if (ret)
		goto err_ops;

	return kunit_add_action_or_reset(test, fpt_rig_exit_action, rig);

err_ops:
	free_io_pgtable_ops(rig->ops);
	rig->ops = NULL;
err_ctx:
	fpt_ctx_destroy(rig);
	rig->ctx = NULL;
err_model:
	fpm_ctx_destroy(&rig->mc);
	if (!shared)
		fpm_smmu_destroy(&rig->own_smmu);
	fpt_quarantine_release(rig);
	return ret;
}

/*
 * Tear down in the order a driver would: device detached, page table,
 * context, hardware.  Records in &fpt_rig.exit_left what the model still
 * caches for the context once its page table is gone.
 */
void fpt_rig_exit(struct fpt_rig *rig)
{
	rig->hooks = NULL;
	rig->smmu->sync_stuck = false;
	rig->mc.busy = false;
	if (rig->ops) {
		unsigned long refs = rig->mc.n.freed_refs;

		free_io_pgtable_ops(rig->ops);
		rig->exit_left = fpm_cached_entries(&rig->mc);
		rig->exit_freed_refs = rig->mc.n.freed_refs - refs;
	}
	if (rig->ctx)
		fpt_ctx_destroy(rig);
	fpm_ctx_destroy(&rig->mc);
	if (rig->smmu == &rig->own_smmu)
		fpm_smmu_destroy(&rig->own_smmu);
	fpt_quarantine_release(rig);
}

/**
 * fpt_map() - map [@iova, @iova + @size) in @pgsize pages
 * @rig: the rig
 * @iova: start, aligned to @pgsize
 * @size: length
 * @pgsize: page size; 4K pages stand for a scatter-gather list
 *
 * Output addresses are @iova + &fpt_rig.pa_offset, so remapping after
 * changing the offset gives the device different pages.
 *
 * Return: 0 or the error from io-pgtable.
 */
int fpt_map(struct fpt_rig *rig, unsigned long iova, size_t size,
	    size_t pgsize)
{
	size_t done = 0;

	while (done < size) {
		size_t mapped = 0;
		int ret;

		ret = fp_map(rig->ctx, rig->ops, iova + done,
			     iova + done + rig->pa_offset, pgsize,
			     (size - done) / pgsize, IOMMU_READ | IOMMU_WRITE,
			     GFP_KERNEL, &mapped);
		if (ret)
			return ret;
		if (!mapped)
			return -EIO;
		done += mapped;
	}
	return 0;
}

/**
 * fpt_unmap() - unmap as iommu_unmap() (or the DMA API, @queued) would
 * @rig: the rig
 * @iova: start
 * @size: length
 * @queued: a lazy unmap: the gather is queued and no iotlb_sync follows
 *
 * Return: bytes unmapped.
 */
size_t fpt_unmap(struct fpt_rig *rig, unsigned long iova, size_t size,
		 bool queued)
{
	struct iommu_iotlb_gather gather;

	if (!queued)
		return fp_unmap(rig->ctx, rig->ops, iova, size, NULL);
	iommu_iotlb_gather_init(&gather);
	gather.queued = true;
	return fp_unmap(rig->ctx, rig->ops, iova, size, &gather);
}

/**
 * fpt_core_pgsize() - the page size and count the IOMMU core's
 *	iommu_pgsize() gives a driver's unmap_pages
 * @bitmap: the page sizes
 * @iova: start of what is left to unmap
 * @size: its length
 * @count: how many pages of the size returned
 *
 * The largest page @iova is aligned to that fits, as many as fit before the
 * next larger page could be used.  The tests' own, not the core's
 * (core/unmap.c), so that they check it rather than share its mistakes.
 *
 * Return: the page size.
 */
size_t fpt_core_pgsize(unsigned long bitmap, unsigned long iova,
		       size_t size, size_t *count)
{
	unsigned long sizes = bitmap & GENMASK(__fls(size), 0);
	unsigned long next_sizes;
	size_t pgsize, next, offset;

	if (iova)
		sizes &= GENMASK(__ffs(iova), 0);
	pgsize = BIT(__fls(sizes));
	next_sizes = bitmap & ~GENMASK(__fls(sizes), 0);
	if (next_sizes) {
		next = BIT(__ffs(next_sizes));
		offset = next - (iova & (next - 1));
		if (offset + next <= size)
			size = offset;
	}
	*count = size / pgsize;
	return pgsize;
}

/**
 * fpt_unmap_core() - unmap as the IOMMU core's iommu_unmap() calls a driver
 *	whose unmap_pages is fp_unmap_pages() and whose iotlb_sync is
 *	fp_iotlb_sync() (backends/smmuv3/iommu.c)
 * @rig: the rig
 * @iova: start, aligned to the smallest page
 * @size: length, a multiple of it
 * @queued: a lazy unmap: the gather is queued and no iotlb_sync follows
 *
 * Return: bytes unmapped.
 */
size_t fpt_unmap_core(struct fpt_rig *rig, unsigned long iova, size_t size,
		      bool queued)
{
	unsigned long bitmap = rig->cfg.pgsize_bitmap;
	struct iommu_iotlb_gather gather;
	size_t unmapped = 0, pgsize, count, n;

	iommu_iotlb_gather_init(&gather);
	gather.queued = queued;
	while (unmapped < size) {
		pgsize = fpt_core_pgsize(bitmap, iova + unmapped,
					 size - unmapped, &count);
		n = fp_unmap_pages(rig->ctx, rig->ops, iova + unmapped, pgsize,
				   count, &gather);
		if (!n)
			break;
		unmapped += n;
	}
	if (!queued)
		fp_iotlb_sync(rig->ctx, &gather);
	return unmapped;
}

MODULE_DESCRIPTION("flushpol KUnit suites, on a TLB model and the real io-pgtable-arm");
MODULE_AUTHOR("flushpol developers");
MODULE_LICENSE("GPL");
