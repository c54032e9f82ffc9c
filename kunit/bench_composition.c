// SPDX-License-Identifier: GPL-2.0-only
/*
 * The dispatch benchmark's composition case (bench_dispatch.c runs it): 4K
 * maps and strict unmaps through what the SMMUv3 driver ships, against
 * the same work done the way upstream's arm-smmu-v3 does it, both in front
 * of the instant SMMU (fp_smmuv3_fake.c: everything consumed the moment
 * CMDQ_PROD moves), through the shipped queue (cmdq.c).
 *
 * flushpol's side is backends/smmuv3/iommu.c's domain ops, called through
 * a struct iommu_domain_ops as the IOMMU core calls them: map_pages is
 * fp_map(), unmap_pages fp_unmap_pages() into the core's gather, iotlb_sync
 * fp_iotlb_sync(), over flush.c's primitives.  Upstream's side is the same
 * page table format with flush ops that gather as
 * iommu_iotlb_gather_add_page() does and an iotlb_sync that writes one
 * TLBI_NH_VA per page (range commands where the SMMU has RIL) and hands
 * them, with their CMD_SYNC, to the queue in one call
 * (arm_smmu_cmdq_batch_submit()): what a driver without flushpol does with
 * the same queue.  What differs is what flushpol adds.
 */
#include <linux/io-pgtable.h>
#include <linux/iommu.h>
#include <linux/ktime.h>
#include <linux/log2.h>
#include <linux/sizes.h>
#include <linux/sort.h>
#include <linux/string.h>

#include "../core/fp_core.h"
#include "bench_backend.h"
#include "fp_rig.h"
#include "fp_smmuv3_fake.h"

/*
 * Short rounds, many of them: a spell of the host's that slows one round
 * (TCG moves 1.5x) falls on few pairs, and the median of the pairs'
 * ratios leaves it out.
 */
#define FPC_CALLS	1024
#define FPC_ROUNDS	63
#define FPC_IOVA	SZ_1G
#define FPC_ASID	7
#define FPC_BATCH	32

struct fpc_domain {
	struct iommu_domain domain;
	struct fp_context *ctx;
	struct io_pgtable_ops *ops;
	struct io_pgtable_cfg cfg;
	struct smmuv3_flush flush;	/* the context's priv, as iommu.c's */
	struct fpt_v3_fake *smmu;
	bool ril;			/* upstream's way: range commands */
};

static struct fpc_domain *to_fpc(struct iommu_domain *domain)
{
	return container_of(domain, struct fpc_domain, domain);
}

/* iommu.c's map_pages, unmap_pages and iotlb_sync, as they are. */
static int fpc_fp_map(struct iommu_domain *domain, unsigned long iova,
		      phys_addr_t paddr, size_t pgsize, size_t pgcount,
		      int prot, gfp_t gfp, size_t *mapped)
{
	struct fpc_domain *d = to_fpc(domain);

	return fp_map(d->ctx, d->ops, iova, paddr, pgsize, pgcount, prot, gfp,
		      mapped);
}

static size_t fpc_fp_unmap(struct iommu_domain *domain, unsigned long iova,
			   size_t pgsize, size_t pgcount,
			   struct iommu_iotlb_gather *gather)
{
	struct fpc_domain *d = to_fpc(domain);

	return fp_unmap_pages(d->ctx, d->ops, iova, pgsize, pgcount, gather);
}

static void fpc_fp_sync(struct iommu_domain *domain,
			struct iommu_iotlb_gather *gather)
{
	fp_iotlb_sync(to_fpc(domain)->ctx, gather);
}

static const struct iommu_domain_ops fpc_fp_ops = {
	.map_pages	= fpc_fp_map,
	.unmap_pages	= fpc_fp_unmap,
	.iotlb_sync	= fpc_fp_sync,
};

/* Upstream's: io-pgtable directly, leaves by VA with their sync. */
static int fpc_up_map(struct iommu_domain *domain, unsigned long iova,
		      phys_addr_t paddr, size_t pgsize, size_t pgcount,
		      int prot, gfp_t gfp, size_t *mapped)
{
	struct io_pgtable_ops *ops = to_fpc(domain)->ops;

	return ops->map_pages(ops, iova, paddr, pgsize, pgcount, prot, gfp,
			      mapped);
}

static size_t fpc_up_unmap(struct iommu_domain *domain, unsigned long iova,
			   size_t pgsize, size_t pgcount,
			   struct iommu_iotlb_gather *gather)
{
	struct io_pgtable_ops *ops = to_fpc(domain)->ops;

	return ops->unmap_pages(ops, iova, pgsize, pgcount, gather);
}

/*
 * With RIL, as arm_smmu_tlb_inv_range_cmd() does: the range in commands of
 * NUM and SCALE (the same cover as smmuv3_range_next()), TTL set for a
 * leaf of the granule's level.
 */
static void fpc_up_inv_range(struct fpc_domain *d, unsigned long iova,
			     size_t size, size_t granule, bool leaf)
{
	u64 cmds[FPC_BATCH * CMD_DWORDS] __uninitialized;
	struct smmuv3_range_iter it;
	struct smmuv3_range r;
	unsigned int n = 0, ttl = 0;

	if (leaf)
		ttl = 4 - ((ilog2(granule) - 3) / (12 - 3));
	smmuv3_range_start(&it, iova, size, 12);
	while (smmuv3_range_next(&it, &r)) {
		if (n == FPC_BATCH) {
			smmuv3_cmdq_submit(&d->smmu->smmu.cmdq, cmds, n);
			n = 0;
		}
		smmuv3_cmd_tlbi_nh_va_range(&cmds[n++ * CMD_DWORDS], FPC_ASID,
					    &r, 12, ttl, leaf);
	}
	smmuv3_cmdq_submit_sync(&d->smmu->smmu.cmdq, cmds, n);
}

static void fpc_up_inv(struct fpc_domain *d, unsigned long iova, size_t size,
		       size_t granule, bool leaf)
{
	u64 cmds[FPC_BATCH * CMD_DWORDS] __uninitialized;
	unsigned long end = iova + size;
	unsigned int n = 0;

	if (d->ril) {
		fpc_up_inv_range(d, iova, size, granule, leaf);
		return;
	}
	for (; iova < end; iova += granule) {
		if (n == FPC_BATCH) {
			smmuv3_cmdq_submit(&d->smmu->smmu.cmdq, cmds, n);
			n = 0;
		}
		smmuv3_cmd_tlbi_nh_va(&cmds[n++ * CMD_DWORDS], FPC_ASID, iova,
				      leaf);
	}
	smmuv3_cmdq_submit_sync(&d->smmu->smmu.cmdq, cmds, n);
}

static void fpc_up_sync(struct iommu_domain *domain,
			struct iommu_iotlb_gather *gather)
{
	if (gather->pgsize)
		fpc_up_inv(to_fpc(domain), gather->start,
			   gather->end - gather->start + 1, gather->pgsize,
			   true);
}

static const struct iommu_domain_ops fpc_up_ops = {
	.map_pages	= fpc_up_map,
	.unmap_pages	= fpc_up_unmap,
	.iotlb_sync	= fpc_up_sync,
};

static void fpc_up_flush_all(void *cookie)
{
	struct fpc_domain *d = cookie;
	u64 cmd[CMD_DWORDS];

	smmuv3_cmd_tlbi_nh_asid(cmd, FPC_ASID);
	smmuv3_cmdq_submit_sync(&d->smmu->smmu.cmdq, cmd, 1);
}

static void fpc_up_flush_walk(unsigned long iova, size_t size, size_t granule,
			      void *cookie)
{
	fpc_up_inv(cookie, iova, size, granule, false);
}

static void fpc_up_add_page(struct iommu_iotlb_gather *gather,
			    unsigned long iova, size_t granule, void *cookie)
{
	struct fpc_domain *d = cookie;

	if ((gather->pgsize && gather->pgsize != granule) ||
	    iommu_iotlb_gather_is_disjoint(gather, iova, granule)) {
		fpc_up_sync(&d->domain, gather);
		iommu_iotlb_gather_init(gather);
	}
	gather->pgsize = granule;
	iommu_iotlb_gather_add_range(gather, iova, granule);
}

static const struct iommu_flush_ops fpc_up_tlb = {
	.tlb_flush_all	= fpc_up_flush_all,
	.tlb_flush_walk	= fpc_up_flush_walk,
	.tlb_add_page	= fpc_up_add_page,
};

static void fpc_domain_free(void *data)
{
	struct fpc_domain *d = data;

	free_io_pgtable_ops(d->ops);
	if (d->ctx)
		fp_context_destroy(d->ctx);
}

static struct fpc_domain *fpc_domain_new(struct kunit *test,
					 const char *policy, bool ril)
{
	struct fpc_domain *d = kunit_kzalloc(test, sizeof(*d), GFP_KERNEL);
	struct fp_context_cfg fc = {
		.backend = "smmuv3", .instance = "fpc-smmuv3", .id = FPC_ASID,
		.owner = THIS_MODULE, .default_policy = "va",
		.ops = ril ? &smmuv3_hw_ops_ril : &smmuv3_hw_ops,
		.default_threshold = 128,
	};

	KUNIT_ASSERT_NOT_NULL(test, d);
	d->ril = ril;
	d->smmu = fpt_v3_fake_new(test, fpt_shared_smmu(test), 10, 1);
	fpt_v3_fake_instant(d->smmu);
	d->cfg = (struct io_pgtable_cfg) {
		.pgsize_bitmap	= SZ_4K | SZ_2M | SZ_1G,
		.ias		= 48,
		.oas		= 48,
		.coherent_walk	= true,
		.iommu_dev	= d->smmu->smmu.dev,
	};
	if (policy) {
		d->flush = smmuv3_flush_on(&d->smmu->smmu, FPC_ASID, ril);
		fc.priv = &d->flush;
		d->ctx = fp_context_create(&fc, &d->cfg);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, d->ctx);
		KUNIT_ASSERT_EQ(test, fp_context_set_policy(d->ctx, policy), 0);
		d->domain.ops = &fpc_fp_ops;
	} else {
		d->cfg.tlb = &fpc_up_tlb;
		d->domain.ops = &fpc_up_ops;
	}
	d->ops = alloc_io_pgtable_ops(ARM_64_LPAE_S1, &d->cfg,
				      d->ctx ? (void *)d->ctx : d);
	if (!d->ops && d->ctx)
		fp_context_destroy(d->ctx);
	KUNIT_ASSERT_NOT_NULL(test, d->ops);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, fpc_domain_free,
							d), 0);
	return d;
}

/* FPC_CALLS maps of 4K, then as many strict unmaps: ps per map, per unmap. */
static void fpc_round(struct kunit *test, struct fpc_domain *d, u64 *map_ps,
		      u64 *unmap_ps)
{
	const struct iommu_domain_ops *ops = d->domain.ops;
	struct iommu_iotlb_gather gather;
	unsigned long iova;
	unsigned int i;
	u64 t0, t1, t2;

	t0 = ktime_get_ns();
	for (i = 0, iova = FPC_IOVA; i < FPC_CALLS; i++, iova += SZ_4K) {
		size_t mapped = 0;

		ops->map_pages(&d->domain, iova, iova, SZ_4K, 1, IOMMU_READ,
			       GFP_KERNEL, &mapped);
	}
	t1 = ktime_get_ns();
	for (i = 0, iova = FPC_IOVA; i < FPC_CALLS; i++, iova += SZ_4K) {
		iommu_iotlb_gather_init(&gather);
		ops->unmap_pages(&d->domain, iova, SZ_4K, 1, &gather);
		ops->iotlb_sync(&d->domain, &gather);
	}
	t2 = ktime_get_ns();
	*map_ps = div_u64((t1 - t0) * 1000, FPC_CALLS);
	*unmap_ps = div_u64((t2 - t1) * 1000, FPC_CALLS);
}

static int fpc_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* Each side's rounds, and their ratios in pairs: too many for the stack. */
struct fpc_series {
	u64 fpm[FPC_ROUNDS], upm[FPC_ROUNDS], fps[FPC_ROUNDS], ups[FPC_ROUNDS];
	u64 ratio[FPC_ROUNDS], mratio[FPC_ROUNDS];
};

/**
 * fpbk_composition_reported() - print the composition case's line
 * @test: the case
 * @policy: flushpol's side's policy
 * @ril: both sides' SMMU has range invalidation (both may use it)
 * @estimate: with the footprint counted, as while a policy that reads it
 *	is registered (flushpol_adaptive loaded); without, as on a machine
 *	where none is (the key held off for the case)
 *
 * Both sides in turn, FPC_ROUNDS times, each round's maps and unmaps timed
 * apart, flushpol's first in even rounds and upstream's first in odd ones,
 * so that neither always runs on what the other left warm or cold.  The
 * line gives each side's median round of 4K strict unmaps (unmap_pages and
 * iotlb_sync) with its spread, the median and spread of the ratio of the
 * two sides' rounds taken in pairs (each round's two, so that what drifts
 * between rounds is in both), the same median for maps, and the commands
 * and syncs each queue was given, which must agree under va.
 */
void fpbk_composition_reported(struct kunit *test, const char *policy,
			       bool ril, bool estimate)
{
	struct fpc_series *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	struct fpc_domain *fp, *up;
	unsigned int r;

	KUNIT_ASSERT_NOT_NULL(test, s);

	/* Back on however the case ends: the other suites need it. */
	if (!estimate)
		fpt_estimate_hold_off(test);
	fp = fpc_domain_new(test, policy, ril);
	up = fpc_domain_new(test, NULL, ril);
	for (r = 0; r < FPC_ROUNDS; r++) {
		if (r & 1)
			fpc_round(test, up, &s->upm[r], &s->ups[r]);
		fpc_round(test, fp, &s->fpm[r], &s->fps[r]);
		if (!(r & 1))
			fpc_round(test, up, &s->upm[r], &s->ups[r]);
		s->ratio[r] = div64_u64(s->fps[r] * 1000000,
					max(s->ups[r], 1ULL));
		s->mratio[r] = div64_u64(s->fpm[r] * 1000000,
					 max(s->upm[r], 1ULL));
	}
	if (!estimate)
		fpt_estimate_release(test);
	KUNIT_EXPECT_EQ(test, fp->smmu->smmu.cmdq.nlost, 0);
	KUNIT_EXPECT_EQ(test, up->smmu->smmu.cmdq.nlost, 0);
	if (!strcmp(policy, "va") || (ril && !strcmp(policy, "range")))
		KUNIT_EXPECT_EQ(test, fp->smmu->smmu.cmdq.prod,
				up->smmu->smmu.cmdq.prod);
	sort(s->fps, FPC_ROUNDS, sizeof(u64), fpc_cmp_u64, NULL);
	sort(s->ups, FPC_ROUNDS, sizeof(u64), fpc_cmp_u64, NULL);
	sort(s->fpm, FPC_ROUNDS, sizeof(u64), fpc_cmp_u64, NULL);
	sort(s->upm, FPC_ROUNDS, sizeof(u64), fpc_cmp_u64, NULL);
	sort(s->ratio, FPC_ROUNDS, sizeof(u64), fpc_cmp_u64, NULL);
	sort(s->mratio, FPC_ROUNDS, sizeof(u64), fpc_cmp_u64, NULL);
	kunit_info(test,
		   "fp-composition: policy=%s ril=%d estimate=%d op=unmap_4k calls=%u rounds=%u fp_ps=%llu upstream_ps=%llu fp_min_ps=%llu fp_max_ps=%llu upstream_min_ps=%llu upstream_max_ps=%llu ratio_ppm=%llu ratio_min_ppm=%llu ratio_max_ppm=%llu map_fp_ps=%llu map_upstream_ps=%llu map_ratio_ppm=%llu queued=%llu/%llu\n",
		   policy, ril, estimate, FPC_CALLS, FPC_ROUNDS,
		   s->fps[FPC_ROUNDS / 2], s->ups[FPC_ROUNDS / 2], s->fps[0],
		   s->fps[FPC_ROUNDS - 1], s->ups[0], s->ups[FPC_ROUNDS - 1],
		   s->ratio[FPC_ROUNDS / 2], s->ratio[0], s->ratio[FPC_ROUNDS - 1],
		   s->fpm[FPC_ROUNDS / 2], s->upm[FPC_ROUNDS / 2],
		   s->mratio[FPC_ROUNDS / 2], fp->smmu->smmu.cmdq.prod,
		   up->smmu->smmu.cmdq.prod);
}
