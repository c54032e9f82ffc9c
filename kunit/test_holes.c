// SPDX-License-Identifier: GPL-2.0-only
/*
 * flushpol_holes: unmaps over a range with a hole.  As iommu_unmap() does,
 * fp_unmap() stops at the first page that is not mapped and returns what
 * it unmapped before it; every page it cleared on the way must be
 * invalidated by the time the unmap returns (iotlb_sync, for a gather the
 * caller brought), whatever was left of the range.
 *
 * io-pgtable-arm warns when an unmap meets an unmapped page: each such
 * unmap is bracketed by "fp-expect-warn:" lines, and scripts/kunit.sh
 * takes the warnings inside from __arm_lpae_unmap as expected (and fails
 * the run if a bracket saw none).
 */
#include <kunit/test.h>
#include <linux/io-pgtable.h>
#include <linux/sizes.h>

#include "fp_rig.h"
#include "fp_smmuv3_fake.h"

#define FPT_IOVA	SZ_1G

/* What is mapped (at most two extents), what is unmapped, and how far. */
struct fpt_hole {
	const char *name;
	struct {
		unsigned long off;
		size_t size, pgsize;
	} map[2];
	unsigned long off;
	size_t size;
	size_t unmapped;	/* up to the hole */
	bool warns;		/* io-pgtable meets the hole */
};

static const struct fpt_hole fpt_holes[] = {
	{ "start", { { SZ_4K, SZ_64K - SZ_4K, SZ_4K } }, 0, SZ_64K, 0, true },
	{ "middle", { { 0, SZ_32K, SZ_4K },
		      { SZ_32K + SZ_4K, SZ_32K - SZ_4K, SZ_4K } },
	  0, SZ_64K, SZ_32K, true },
	{ "end", { { 0, SZ_64K - SZ_4K, SZ_4K } }, 0, SZ_64K,
	  SZ_64K - SZ_4K, true },
	/* A hole in a last-level table, the unmap inside that table. */
	{ "in-table", { { 0, SZ_1M, SZ_4K },
			{ SZ_1M + SZ_4K, SZ_1M - SZ_4K, SZ_4K } },
	  SZ_1M - SZ_64K, SZ_128K, SZ_64K, true },
	/*
	 * The whole table unmapped: io-pgtable frees it, hole and all, and
	 * never sees the hole.
	 */
	{ "whole-table", { { 0, SZ_1M, SZ_4K },
			   { SZ_1M + SZ_4K, SZ_1M - SZ_4K, SZ_4K } },
	  0, SZ_2M, SZ_2M, false },
	/* A 2M block, the hole right after it, pages after the hole. */
	{ "block-boundary", { { 0, SZ_2M, SZ_2M },
			      { SZ_2M + SZ_4K, SZ_64K - SZ_4K, SZ_4K } },
	  0, SZ_2M + SZ_64K, SZ_2M, true },
	/* Pages, the hole at the boundary, a block after it. */
	{ "before-block", { { SZ_2M - SZ_64K, SZ_32K, SZ_4K },
			    { SZ_2M, SZ_2M, SZ_2M } },
	  SZ_2M - SZ_64K, SZ_64K + SZ_2M, SZ_32K, true },
};

static void fpt_hole_desc(const struct fpt_hole *h, char *desc)
{
	strscpy(desc, h->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(fpt_hole, fpt_holes, fpt_hole_desc);

/* A rig with the shape mapped and every mapped page in the TLB. */
static struct fpt_rig *fpt_hole_rig(struct kunit *test,
				    const struct fpt_hole *h)
{
	struct fpt_rig_cfg rc = { .fmt = ARM_64_LPAE_S1, .has_range = true };
	struct fpt_rig *rig = kunit_kzalloc(test, sizeof(*rig), GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, rig);
	KUNIT_ASSERT_EQ(test, fpt_rig_init(test, rig, &rc, NULL, 1), 0);
	for (i = 0; i < ARRAY_SIZE(h->map) && h->map[i].size; i++) {
		KUNIT_ASSERT_EQ(test, fpt_map(rig, FPT_IOVA + h->map[i].off,
					      h->map[i].size,
					      h->map[i].pgsize), 0);
		fpm_access_range(&rig->mc, FPT_IOVA + h->map[i].off,
				 h->map[i].size);
	}
	return rig;
}

/*
 * @gather: NULL, as iommu_unmap() ends its own; or the caller's, which
 * fp_iotlb_sync() then ends, as the IOMMU core does for unmap_pages.
 */
static size_t fpt_hole_unmap(struct kunit *test, struct fpt_rig *rig,
			     const struct fpt_hole *h,
			     struct iommu_iotlb_gather *gather)
{
	size_t n;

	if (h->warns)
		kunit_info(test, "fp-expect-warn: begin __arm_lpae_unmap\n");
	n = fp_unmap(rig->ctx, rig->ops, FPT_IOVA + h->off, h->size, gather);
	if (h->warns)
		kunit_info(test, "fp-expect-warn: end\n");
	if (gather)
		fp_iotlb_sync(rig->ctx, gather);
	return n;
}

/*
 * Once the unmap returns, nothing it cleared is cached, nothing cached is
 * stale, and what lies past the hole is still mapped.
 */
static void fpt_hole_check(struct kunit *test, struct fpt_rig *rig,
			   const struct fpt_hole *h, size_t n)
{
	unsigned int i;

	KUNIT_EXPECT_EQ(test, n, h->unmapped);
	KUNIT_EXPECT_EQ_MSG(test, fpm_cached_leaves(&rig->mc,
						    FPT_IOVA + h->off, n), 0,
			    "cleared pages still cached");
	KUNIT_EXPECT_EQ(test, fpm_stale_entries(&rig->mc), 0);
	for (i = 0; i < ARRAY_SIZE(h->map) && h->map[i].size; i++) {
		unsigned long last = FPT_IOVA + h->map[i].off +
				     h->map[i].size - SZ_4K;

		if (last >= FPT_IOVA + h->off + n)
			KUNIT_EXPECT_NE_MSG(test, rig->ops->iova_to_phys(rig->ops, last), 0,
					    "%#lx, past the hole, unmapped", last);
	}
}

static void hole_unmap_invalidates_what_it_cleared(struct kunit *test)
{
	const struct fpt_hole *h = test->param_value;
	struct fpt_rig *rig = fpt_hole_rig(test, h);

	fpt_hole_check(test, rig, h, fpt_hole_unmap(test, rig, h, NULL));
}

static void hole_unmap_into_gather_invalidates_what_it_cleared(struct kunit *test)
{
	const struct fpt_hole *h = test->param_value;
	struct fpt_rig *rig = fpt_hole_rig(test, h);
	struct iommu_iotlb_gather gather;

	iommu_iotlb_gather_init(&gather);
	fpt_hole_check(test, rig, h, fpt_hole_unmap(test, rig, h, &gather));
}

/*
 * The same shapes through the SMMUv3 driver's own ops, as the IOMMU core
 * calls them (__iommu_unmap(): unmap_pages until one returns 0, then
 * iotlb_sync), the fake SMMU consuming the commands.
 */
static void hole_unmap_through_smmuv3_driver(struct kunit *test)
{
	const struct fpt_hole *h = test->param_value;
	struct iommu_iotlb_gather gather;
	struct iommu_domain *domain;
	unsigned long iova = FPT_IOVA + h->off;
	size_t mapped, n, unmapped = 0;
	struct fpm_ctx *mc;
	unsigned int i;

	domain = fpt_smmuv3_paging_domain(test, &mc);
	for (i = 0; i < ARRAY_SIZE(h->map) && h->map[i].size; i++) {
		unsigned long at = FPT_IOVA + h->map[i].off;

		KUNIT_ASSERT_EQ(test, domain->ops->map_pages(domain, at, at,
							     h->map[i].pgsize,
							     h->map[i].size / h->map[i].pgsize,
							     IOMMU_READ,
							     GFP_KERNEL,
							     &mapped), 0);
		fpm_access_range(mc, at, h->map[i].size);
	}

	iommu_iotlb_gather_init(&gather);
	if (h->warns)
		kunit_info(test, "fp-expect-warn: begin __arm_lpae_unmap\n");
	while (unmapped < h->size) {
		n = domain->ops->unmap_pages(domain, iova + unmapped, SZ_4K,
					     (h->size - unmapped) / SZ_4K,
					     &gather);
		if (!n)
			break;
		unmapped += n;
	}
	if (h->warns)
		kunit_info(test, "fp-expect-warn: end\n");
	domain->ops->iotlb_sync(domain, &gather);

	KUNIT_EXPECT_EQ(test, unmapped, h->unmapped);
	KUNIT_EXPECT_EQ_MSG(test, fpm_cached_leaves(mc, iova, unmapped), 0,
			    "cleared pages still cached");
	KUNIT_EXPECT_EQ(test, fpm_stale_entries(mc), 0);
}

static struct kunit_case fpt_hole_cases[] = {
	KUNIT_CASE_PARAM(hole_unmap_invalidates_what_it_cleared,
			 fpt_hole_gen_params),
	KUNIT_CASE_PARAM(hole_unmap_into_gather_invalidates_what_it_cleared,
			 fpt_hole_gen_params),
	KUNIT_CASE_PARAM(hole_unmap_through_smmuv3_driver, fpt_hole_gen_params),
	{}
};

static struct kunit_suite fpt_hole_suite = {
	.name = "flushpol_holes",
	.test_cases = fpt_hole_cases,
};

kunit_test_suite(fpt_hole_suite);
