// SPDX-License-Identifier: GPL-2.0-only
/*
 * flushpol_upstream_counts: what upstream's drivers (Linux 6.12) send for
 * one unmap of the seed sizes, computed by running their invalidation
 * algorithms under the real io-pgtable-arm, no flushpol in between: the
 * commands and syncs of arm-smmu-v3, with range invalidation and without
 * it (an MMU-600), and the register writes of arm-smmu and arm-smmu-qcom
 * (below, before the suite).  arm-smmu-v3:
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

#include "fp_rig.h"

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

/* A case's name: "<size>K-in-<page size>K". */
static void fpu_desc(size_t size, size_t pgsize, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%zuK-in-%zuK", size / SZ_1K,
		 pgsize / SZ_1K);
}

static void fpu_case_desc(const struct fpu_case *c, char *desc)
{
	fpu_desc(c->size, c->pgsize, desc);
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

static void fpu_free_ops(void *ops)
{
	free_io_pgtable_ops(ops);
}

/* Map @size at FPU_IOVA in pages of @pgsize. */
static void fpu_map(struct kunit *test, struct io_pgtable_ops *ops,
		    size_t size, size_t pgsize)
{
	size_t done = 0, mapped;

	while (done < size) {
		mapped = 0;
		KUNIT_ASSERT_EQ(test, ops->map_pages(ops, FPU_IOVA + done,
						     FPU_IOVA + done, pgsize,
						     (size - done) / pgsize,
						     IOMMU_READ | IOMMU_WRITE,
						     GFP_KERNEL, &mapped), 0);
		KUNIT_ASSERT_NE(test, mapped, 0);
		done += mapped;
	}
}

/*
 * Unmap @size at FPU_IOVA as iommu_unmap() does: split into page sizes,
 * one gather, whose sync is left to the caller.
 */
static void fpu_unmap(struct kunit *test, struct io_pgtable_ops *ops,
		      size_t size, struct iommu_iotlb_gather *g)
{
	unsigned long bitmap = io_pgtable_ops_to_pgtable(ops)->cfg.pgsize_bitmap;
	size_t done, count, unmap_pgsize, mapped;

	iommu_iotlb_gather_init(g);
	for (done = 0; done < size; done += mapped) {
		unmap_pgsize = fpt_core_pgsize(bitmap, FPU_IOVA + done,
					       size - done, &count);
		mapped = ops->unmap_pages(ops, FPU_IOVA + done, unmap_pgsize,
					  count, g);
		KUNIT_ASSERT_NE(test, mapped, 0);
	}
}

/* A stage-1 AArch64 page table of 4K granules on @cfg, freed with @test. */
static struct io_pgtable_ops *fpu_alloc_ops(struct kunit *test,
					    struct io_pgtable_cfg *cfg,
					    const struct iommu_flush_ops *tlb,
					    struct device *dev, void *cookie)
{
	struct io_pgtable_ops *ops;

	*cfg = (struct io_pgtable_cfg) {
		.pgsize_bitmap	= SZ_4K | SZ_2M | SZ_1G,
		.ias		= 48,
		.oas		= 48,
		.coherent_walk	= true,
		.tlb		= tlb,
		.iommu_dev	= dev,
	};
	ops = alloc_io_pgtable_ops(ARM_64_LPAE_S1, cfg, cookie);
	KUNIT_ASSERT_NOT_NULL(test, ops);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, fpu_free_ops,
							ops), 0);
	return ops;
}

/* One map and unmap of @c on a domain whose SMMU has RIL or not. */
static void fpu_run(struct kunit *test, const struct fpu_case *c, bool ril)
{
	struct fpu_domain *d = kunit_kzalloc(test, sizeof(*d), GFP_KERNEL);
	struct iommu_iotlb_gather g;
	struct io_pgtable_ops *ops;

	KUNIT_ASSERT_NOT_NULL(test, d);
	d->ril = ril;
	ops = fpu_alloc_ops(test, &d->cfg, &fpu_flush_ops, &d->dev, d);
	fpu_map(test, ops, c->size, c->pgsize);
	/* Mapping sent nothing: an empty table was never live. */
	KUNIT_ASSERT_EQ(test, d->cmds + d->syncs, 0);
	fpu_unmap(test, ops, c->size, &g);
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

/*
 * Upstream arm-smmu (Linux 6.12) on an AArch64 stage-1 context bank, as
 * arm_smmu_s1_tlb_ops and arm_smmu_iotlb_sync() write its registers:
 *
 *  - a walk flush is one TLBIVA per granule of the range and a TLBSYNC;
 *    with flush_walk_prefer_tlbiasid, which arm-smmu-qcom's init_context
 *    sets for every Qualcomm context since 5.15, one TLBIASID and a
 *    TLBSYNC instead;
 *  - a gathered leaf is one TLBIVAL at once, with no sync of its own: the
 *    gather is never used to merge;
 *  - iotlb_sync is one TLBSYNC, whatever the gather holds;
 *  - tlb_flush_all is one TLBIASID and a TLBSYNC.
 *
 * Each case prints one "fp-count:" line with backend=upstream-smmuv2 or
 * upstream-qcom, in the registers of the flushpol_smmuv2 and flushpol_qcom
 * suites' lines, so that the MMIO table of Documentation/policies.rst
 * shows upstream's Qualcomm driver beside flushpol's backends.
 */
enum { FPU_TLBIVA, FPU_TLBIVAL, FPU_TLBIASID, FPU_TLBSYNC, FPU_V2_REGS };

struct fpu_v2_case {
	size_t size, pgsize;
	/*
	 * Expected writes: walks as TLBIVA (arm-smmu) or TLBIASID
	 * (arm-smmu-qcom); the leaves and syncs are the same in both.
	 */
	unsigned long tlbiva, qcom_tlbiasid, tlbival, tlbsync;
};

#define V(sz, pg, va, qasid, val, sync)					\
	{ .size = sz, .pgsize = pg, .tlbiva = va, .qcom_tlbiasid = qasid,	\
	  .tlbival = val, .tlbsync = sync }

/* The sizes of the flushpol_smmuv2 and flushpol_qcom count cases. */
static const struct fpu_v2_case fpu_v2_cases[] = {
	V(SZ_4K,       SZ_4K,    0,  0,   1,  1),
	V(SZ_64K,      SZ_4K,    0,  0,  16,  1),
	V(SZ_1M,       SZ_4K,    0,  0, 256,  1),
	/* A freed table each 2M: its walk flush, then its entry as a leaf. */
	V(SZ_2M,       SZ_4K,  512,  1,   1,  2),
	V(12 * SZ_1M,  SZ_4K, 3072,  6,   6,  7),
	V(SZ_16M,      SZ_4K, 4096,  8,   8,  9),
	V(24 * SZ_1M,  SZ_4K, 6144, 12,  12, 13),
	V(SZ_32M,      SZ_4K, 8192, 16,  16, 17),
	V(SZ_32M,      SZ_2M,    0,  0,  16,  1),
};

static void fpu_v2_case_desc(const struct fpu_v2_case *c, char *desc)
{
	fpu_desc(c->size, c->pgsize, desc);
}

KUNIT_ARRAY_PARAM(fpu_v2_case, fpu_v2_cases, fpu_v2_case_desc);

/* One upstream arm-smmu stage-1 domain and the writes it made. */
struct fpu_v2_domain {
	bool prefer_tlbiasid;
	unsigned long n[FPU_V2_REGS];
	struct io_pgtable_cfg cfg;
	struct device dev;
};

/* arm_smmu_tlb_inv_context_s1(): TLBIASID, then the bank's sync. */
static void fpu_v2_flush_all(void *cookie)
{
	struct fpu_v2_domain *d = cookie;

	d->n[FPU_TLBIASID]++;
	d->n[FPU_TLBSYNC]++;
}

/* arm_smmu_tlb_inv_walk_s1() */
static void fpu_v2_flush_walk(unsigned long iova, size_t size,
			      size_t granule, void *cookie)
{
	struct fpu_v2_domain *d = cookie;

	if (d->prefer_tlbiasid) {
		fpu_v2_flush_all(d);
		return;
	}
	d->n[FPU_TLBIVA] += size / granule;
	d->n[FPU_TLBSYNC]++;
}

/* arm_smmu_tlb_add_page_s1(): one TLBIVAL, the gather left untouched. */
static void fpu_v2_add_page(struct iommu_iotlb_gather *g, unsigned long iova,
			    size_t granule, void *cookie)
{
	struct fpu_v2_domain *d = cookie;

	d->n[FPU_TLBIVAL]++;
}

static const struct iommu_flush_ops fpu_v2_flush_ops = {
	.tlb_flush_all	= fpu_v2_flush_all,
	.tlb_flush_walk	= fpu_v2_flush_walk,
	.tlb_add_page	= fpu_v2_add_page,
};

static void fpu_v2_run(struct kunit *test, const struct fpu_v2_case *c,
		       bool qcom)
{
	struct fpu_v2_domain *d = kunit_kzalloc(test, sizeof(*d), GFP_KERNEL);
	const unsigned long want[FPU_V2_REGS] = {
		[FPU_TLBIVA]	= qcom ? 0 : c->tlbiva,
		[FPU_TLBIVAL]	= c->tlbival,
		[FPU_TLBIASID]	= qcom ? c->qcom_tlbiasid : 0,
		[FPU_TLBSYNC]	= c->tlbsync,
	};
	struct iommu_iotlb_gather g;
	struct io_pgtable_ops *ops;
	int r;

	KUNIT_ASSERT_NOT_NULL(test, d);
	d->prefer_tlbiasid = qcom;
	ops = fpu_alloc_ops(test, &d->cfg, &fpu_v2_flush_ops, &d->dev, d);
	fpu_map(test, ops, c->size, c->pgsize);
	for (r = 0; r < FPU_V2_REGS; r++)
		KUNIT_ASSERT_EQ(test, d->n[r], 0);
	fpu_unmap(test, ops, c->size, &g);
	/* arm_smmu_iotlb_sync() */
	d->n[FPU_TLBSYNC]++;
	KUNIT_EXPECT_EQ(test, ops->iova_to_phys(ops, FPU_IOVA), 0);

	for (r = 0; r < FPU_V2_REGS; r++)
		KUNIT_EXPECT_EQ_MSG(test, d->n[r], want[r], "register %d", r);
	kunit_info(test,
		   "fp-count: backend=upstream-%s policy=upstream chosen=upstream threshold=0 size=%zu pgsize=%zu tlbiva=%lu tlbival=%lu tlbiasid=%lu tlbsync=%lu\n",
		   qcom ? "qcom" : "smmuv2", c->size, c->pgsize,
		   d->n[FPU_TLBIVA], d->n[FPU_TLBIVAL], d->n[FPU_TLBIASID],
		   d->n[FPU_TLBSYNC]);
}

static void upstream_smmuv2_unmap_writes_exact(struct kunit *test)
{
	fpu_v2_run(test, test->param_value, false);
	fpu_v2_run(test, test->param_value, true);
}

static struct kunit_case fpu_test_cases[] = {
	KUNIT_CASE_PARAM(upstream_unmap_counts_exact, fpu_case_gen_params),
	KUNIT_CASE_PARAM(upstream_smmuv2_unmap_writes_exact,
			 fpu_v2_case_gen_params),
	{}
};

static struct kunit_suite fpu_suite = {
	.name = "flushpol_upstream_counts",
	.test_cases = fpu_test_cases,
};

kunit_test_suite(fpu_suite);
