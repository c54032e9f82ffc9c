// SPDX-License-Identifier: GPL-2.0-only
/*
 * flushpol_upstream_counts: the commands and syncs upstream's arm-smmu-v3
 * (Linux 6.12) sends for one unmap of the seed sizes, with range
 * invalidation and without it (an MMU-600), computed by running its
 * invalidation algorithm under the real io-pgtable-arm, no flushpol in
 * between:
 *
 *  - a walk flush and the iotlb_sync of a gather each make one
 *    __arm_smmu_tlb_inv_range() call: without RIL one CMD_TLBI_NH_VA per
 *    granule of the range, with RIL one per 5-bit chunk of its page count;
 *    the commands go in batches of 64, the last submitted with the one
 *    CMD_SYNC of the call;
 *  - a leaf is gathered as iommu_iotlb_gather_add_page() does, which syncs
 *    the gather first when the page size changes or the range is disjoint;
 *  - iotlb_sync of an empty gather sends nothing.
 *
 * QEMU's SMMUv3 always offers RIL and Debian's QEMU cannot hide it, so the
 * counts without RIL exist only here: make bench prices them beside
 * flushpol's with force_no_ril=1 (flushpol_smmuv3's cases without RIL).
 * The counts with RIL are what QEMU's trace of the upstream driver counts
 * (bench/results/qemu-vs-upstream.md), a check of the computation.
 * Each case prints one "fp-count:" line with backend=upstream-smmuv3.
 */
#include <kunit/test.h>
#include <linux/bitops.h>
#include <linux/device.h>
#include <linux/io-pgtable.h>
#include <linux/iommu.h>
#include <linux/sizes.h>

#define FPU_IOVA	SZ_1G
#define FPU_TG		12	/* the leaf page size's shift: 4K granule */
#define FPU_RANGE_NUM	0x1f	/* a range command's NUM field, 5 bits */

struct fpu_case {
	size_t size, pgsize;
	/* Expected, without RIL and with it. */
	unsigned long cmds, syncs, ril_cmds, ril_syncs;
};

static const struct fpu_case fpu_cases[] = {
	/* 4K..1M: leaves, one gather at the page size. */
	{ SZ_4K,       SZ_4K,    1, 1,  1,  1 },
	{ SZ_64K,      SZ_4K,   16, 1,  1,  1 },
	{ SZ_1M,       SZ_4K,  256, 1,  1,  1 },
	/*
	 * 2M and up: one walk flush per freed table (512 granules), then the
	 * tables' entries gathered as 2M leaves, one command per 2M.
	 */
	{ SZ_2M,       SZ_4K,  513, 2,  2,  2 },
	{ 12 * SZ_1M,  SZ_4K, 3078, 7,  7,  7 },
	{ SZ_16M,      SZ_4K, 4104, 9,  9,  9 },
	{ 24 * SZ_1M,  SZ_4K, 6156, 13, 13, 13 },
	{ SZ_32M,      SZ_4K, 8208, 17, 17, 17 },
	{ SZ_32M,      SZ_2M,   16, 1,  1,  1 },
	{ SZ_1G,       SZ_1G,    1, 1,  1,  1 },
	/* A 1G table of 2M blocks: one walk of 262144 granules. */
	{ SZ_1G,       SZ_2M, SZ_1G / SZ_4K + 1, 2, 2, 2 },
};

static void fpu_case_desc(const struct fpu_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%zuK-in-%zuK", c->size / SZ_1K,
		 c->pgsize / SZ_1K);
}

KUNIT_ARRAY_PARAM(fpu_case, fpu_cases, fpu_case_desc);

/* One upstream domain: what its SMMU offers, and what it was sent. */
struct fpu_domain {
	bool ril;
	unsigned long cmds, syncs;
	struct io_pgtable_cfg cfg;
	struct device dev;
};

/* __arm_smmu_tlb_inv_range(): the commands of one call and its sync. */
static void fpu_inv_range(struct fpu_domain *d, unsigned long iova,
			  size_t size, size_t granule, bool leaf)
{
	unsigned long end = iova + size, pages = size >> FPU_TG;

	if (!size)
		return;
	/* A non-leaf range of one page in a chunk would encode as none. */
	if (d->ril && !leaf && (pages & FPU_RANGE_NUM) == 1)
		pages++;
	while (iova < end) {
		size_t inv = granule;

		if (d->ril) {
			unsigned long scale = __ffs(pages);
			unsigned long num = (pages >> scale) & FPU_RANGE_NUM;

			inv = num << (scale + FPU_TG);
			pages -= num << scale;
		}
		d->cmds++;
		iova += inv;
	}
	d->syncs++;
}

/* arm_smmu_iotlb_sync(), then the core's reset of the gather. */
static void fpu_iotlb_sync(struct fpu_domain *d, struct iommu_iotlb_gather *g)
{
	if (g->pgsize)
		fpu_inv_range(d, g->start, g->end - g->start + 1, g->pgsize,
			      true);
	iommu_iotlb_gather_init(g);
}

static void fpu_flush_all(void *cookie)
{
	struct fpu_domain *d = cookie;

	d->cmds++;
	d->syncs++;
}

static void fpu_flush_walk(unsigned long iova, size_t size, size_t granule,
			   void *cookie)
{
	fpu_inv_range(cookie, iova, size, granule, false);
}

static void fpu_add_page(struct iommu_iotlb_gather *g, unsigned long iova,
			 size_t granule, void *cookie)
{
	if ((g->pgsize && g->pgsize != granule) ||
	    iommu_iotlb_gather_is_disjoint(g, iova, granule))
		fpu_iotlb_sync(cookie, g);
	g->pgsize = granule;
	iommu_iotlb_gather_add_range(g, iova, granule);
}

static const struct iommu_flush_ops fpu_flush_ops = {
	.tlb_flush_all	= fpu_flush_all,
	.tlb_flush_walk	= fpu_flush_walk,
	.tlb_add_page	= fpu_add_page,
};

/*
 * The page size iommu_unmap() unmaps in at @iova, and how many: the
 * largest supported one that @iova's alignment and @size allow, but no
 * further than where the next larger size could take over.
 */
static size_t fpu_pgsize(unsigned long bitmap, unsigned long iova,
			 size_t size, size_t *count)
{
	unsigned long fits = bitmap & GENMASK(__fls(size), 0);
	unsigned long larger;
	size_t pgsize, next, to_next;

	if (iova)
		fits &= GENMASK(__ffs(iova), 0);
	pgsize = BIT(__fls(fits));
	larger = bitmap & ~GENMASK(__fls(fits), 0);
	if (larger) {
		next = BIT(__ffs(larger));
		to_next = next - (iova & (next - 1));
		if (to_next + next <= size)
			size = to_next;
	}
	*count = size / pgsize;
	return pgsize;
}

static void fpu_free_ops(void *ops)
{
	free_io_pgtable_ops(ops);
}

/* One map and unmap of @c on a domain whose SMMU has RIL or not. */
static void fpu_run(struct kunit *test, const struct fpu_case *c, bool ril)
{
	struct fpu_domain *d = kunit_kzalloc(test, sizeof(*d), GFP_KERNEL);
	struct iommu_iotlb_gather g;
	struct io_pgtable_ops *ops;
	size_t done = 0, count, pgsize, mapped;

	KUNIT_ASSERT_NOT_NULL(test, d);
	d->ril = ril;
	d->cfg = (struct io_pgtable_cfg) {
		.pgsize_bitmap	= SZ_4K | SZ_2M | SZ_1G,
		.ias		= 48,
		.oas		= 48,
		.coherent_walk	= true,
		.tlb		= &fpu_flush_ops,
		.iommu_dev	= &d->dev,
	};
	ops = alloc_io_pgtable_ops(ARM_64_LPAE_S1, &d->cfg, d);
	KUNIT_ASSERT_NOT_NULL(test, ops);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, fpu_free_ops,
							ops), 0);

	while (done < c->size) {
		mapped = 0;
		KUNIT_ASSERT_EQ(test, ops->map_pages(ops, FPU_IOVA + done,
						     FPU_IOVA + done, c->pgsize,
						     (c->size - done) / c->pgsize,
						     IOMMU_READ | IOMMU_WRITE,
						     GFP_KERNEL, &mapped), 0);
		KUNIT_ASSERT_NE(test, mapped, 0);
		done += mapped;
	}
	/* Mapping sent nothing: an empty table was never live. */
	KUNIT_ASSERT_EQ(test, d->cmds + d->syncs, 0);

	/* iommu_unmap(): split into page sizes, one gather, one sync. */
	iommu_iotlb_gather_init(&g);
	for (done = 0; done < c->size; done += mapped) {
		pgsize = fpu_pgsize(d->cfg.pgsize_bitmap, FPU_IOVA + done,
				    c->size - done, &count);
		mapped = ops->unmap_pages(ops, FPU_IOVA + done, pgsize, count,
					  &g);
		KUNIT_ASSERT_NE(test, mapped, 0);
	}
	fpu_iotlb_sync(d, &g);
	KUNIT_EXPECT_EQ(test, ops->iova_to_phys(ops, FPU_IOVA), 0);

	KUNIT_EXPECT_EQ(test, d->cmds, ril ? c->ril_cmds : c->cmds);
	KUNIT_EXPECT_EQ(test, d->syncs, ril ? c->ril_syncs : c->syncs);
	kunit_info(test,
		   "fp-count: backend=upstream-smmuv3%s policy=upstream size=%zu pgsize=%zu unmap=%zu va=%lu range=%lu asid=0 syncs=%lu\n",
		   ril ? "-ril" : "", c->size, c->pgsize, c->size,
		   ril ? 0 : d->cmds, ril ? d->cmds : 0, d->syncs);
}

static void upstream_unmap_counts_exact(struct kunit *test)
{
	fpu_run(test, test->param_value, false);
	fpu_run(test, test->param_value, true);
}

static struct kunit_case fpu_test_cases[] = {
	KUNIT_CASE_PARAM(upstream_unmap_counts_exact, fpu_case_gen_params),
	{}
};

static struct kunit_suite fpu_suite = {
	.name = "flushpol_upstream_counts",
	.test_cases = fpu_test_cases,
};

kunit_test_suite(fpu_suite);
