// SPDX-License-Identifier: GPL-2.0-only
/*
 * flushpol_smmuv3_domain: the shipped domain code (backends/smmuv3/domain.c,
 * compiled in here, with the IOMMU core's ops from iommu.c) in front of
 * the fake SMMU (fp_smmuv3_fake.c).  UML has
 * no DMA, so a test sets a domain up as smmuv3_domain_finalise() would,
 * without its context descriptor, which only streams read.
 */
#include "../backends/smmuv3/domain.c"
/* iommu.c's exports are flushpol_smmuv3's: this copy exports none. */
#undef EXPORT_SYMBOL_GPL
#define EXPORT_SYMBOL_GPL(sym) __ADDRESSABLE(sym)
#include "../backends/smmuv3/iommu.c"

#include <kunit/test.h>

#include "fp_model.h"
#include "fp_rig.h"
#include "fp_smmuv3_fake.h"

/*
 * iommu.c's probe_device looks a device's SMMU up in drv.c's list of
 * probed SMMUs, which the fakes never join: no device probes here.
 */
struct smmuv3_device *smmuv3_find_fwnode(struct fwnode_handle *fwnode)
{
	return NULL;
}

static struct fpt_v3_fake *fpt_domain_fake(struct kunit *test)
{
	struct fpt_v3_fake *f = fpt_v3_fake_new(test, fpt_shared_smmu(test),
						8, 64);

	strscpy(f->smmu.name, "fpt-v3", sizeof(f->smmu.name));
	f->smmu.oas = 48;
	f->smmu.coherent = true;
	ida_init(&f->smmu.asids);
	return f;
}

/* smmuv3_domain_finalise() but for the context descriptor. */
static struct smmuv3_domain *fpt_domain(struct kunit *test,
					struct smmuv3_device *smmu)
{
	struct smmuv3_domain *dom = smmuv3_domain_new();
	int asid;

	KUNIT_ASSERT_NOT_NULL(test, dom);
	asid = ida_alloc_range(&smmu->asids, SMMUV3_ASID_MIN, smmu->asid_max,
			       GFP_KERNEL);
	KUNIT_ASSERT_GE(test, asid, SMMUV3_ASID_MIN);
	dom->flush = smmuv3_flush_on(smmu, asid, false);
	dom->smmu = smmu;
	KUNIT_ASSERT_EQ(test, smmuv3_domain_init_pgtable(dom, NULL, false), 0);
	return dom;
}

/*
 * A domain freed while the SMMU is wedged: the flush of its whole context
 * did not complete, so the SMMU may still cache entries tagged with its
 * ASID, and the next domain must not get that ASID.  One freed normally
 * gives its ASID back.
 */
static void asid_of_unflushed_domain_not_reused(struct kunit *test)
{
	struct fpt_v3_fake *f = fpt_domain_fake(test);
	struct smmuv3_device *smmu = &f->smmu;
	struct io_pgtable_ops *ops;
	struct smmuv3_domain *dom;
	int asid;

	smmu->asid_max = 2;
	dom = fpt_domain(test, smmu);
	KUNIT_EXPECT_EQ(test, dom->flush.asid, 1);
	smmuv3_domain_destroy(dom);
	KUNIT_EXPECT_EQ(test, f->delays, 0);
	dom = fpt_domain(test, smmu);
	KUNIT_EXPECT_EQ(test, dom->flush.asid, 1);

	fpt_v3_fake_set(f, 0);
	ops = dom->ops;
	smmuv3_domain_destroy(dom);
	KUNIT_EXPECT_EQ(test, f->delays, f->smmu.cmdq.timeout_us);
	/* The destroy leaked the tables (see below): the test frees them. */
	io_pgtable_ops_to_pgtable(ops)->cfg.tlb = NULL;
	free_io_pgtable_ops(ops);

	fpt_v3_fake_set(f, 64);
	asid = ida_alloc_range(&smmu->asids, SMMUV3_ASID_MIN, smmu->asid_max,
			       GFP_KERNEL);
	KUNIT_EXPECT_EQ(test, asid, 2);
	if (asid >= 0)
		ida_free(&smmu->asids, asid);
	ida_destroy(&smmu->asids);
}

/*
 * A model context on @dom's page table and ASID, as the SMMU sees the
 * domain: what its device caches is tagged with the ASID, and stays in
 * the model after the context goes, until a command drops it.
 */
static struct fpm_ctx *fpt_domain_model(struct kunit *test,
					struct fpt_v3_fake *f,
					struct smmuv3_domain *dom)
{
	struct fpm_ctx *mc = kunit_kzalloc(test, sizeof(*mc), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, mc);
	fpm_ctx_init(mc, f->model, dom->flush.asid);
	KUNIT_ASSERT_EQ(test, fpm_ctx_attach(mc, &dom->cfg), 0);
	return mc;
}

/* 4K pages at @iova to @pa onwards, through the domain's page table. */
static void fpt_domain_map(struct kunit *test, struct smmuv3_domain *dom,
			   unsigned long iova, phys_addr_t pa, size_t size)
{
	size_t mapped = 0;

	KUNIT_ASSERT_EQ(test, dom->ops->map_pages(dom->ops, iova, pa, SZ_4K,
						  size / SZ_4K, IOMMU_READ,
						  GFP_KERNEL, &mapped), 0);
	KUNIT_ASSERT_EQ(test, mapped, size);
}

/*
 * The normal teardown: a domain whose device cached leaf and walk entries
 * is destroyed (its stream detached first: nothing refills, and what it
 * cached stays in the SMMU under the ASID), and the next domain gets the
 * same ASID with the same IOVAs mapped elsewhere.  The destroy must have
 * sent one invalidation of the ASID and completed it with a CMD_SYNC
 * before giving the ASID back: then the SMMU holds nothing for the ASID,
 * and the new domain's device reads its own pages.
 */
static void asid_reused_after_teardown_sees_nothing_stale(struct kunit *test)
{
	struct fpt_v3_fake *f = fpt_domain_fake(test);
	struct smmuv3_device *smmu = &f->smmu;
	unsigned long cached, tlbi, syncs;
	struct smmuv3_domain *dom;
	struct fpm_ctx *mc;
	u16 asid;

	smmu->asid_max = 1;
	dom = fpt_domain(test, smmu);
	asid = dom->flush.asid;
	mc = fpt_domain_model(test, f, dom);
	fpt_domain_map(test, dom, SZ_1G, SZ_1G, SZ_2M);
	fpm_access_range(mc, SZ_1G, SZ_2M);
	cached = fpm_cached_entries(mc);
	KUNIT_ASSERT_GT(test, cached, 512);
	/* The stream is detached: its entries stay in the SMMU, tagged. */
	fpm_ctx_destroy(mc);
	KUNIT_ASSERT_EQ(test, fpm_ghost_entries(f->model), cached);

	tlbi = f->tlbi;
	syncs = f->syncs;
	smmuv3_domain_destroy(dom);
	KUNIT_EXPECT_EQ(test, f->tlbi - tlbi, 1);
	KUNIT_EXPECT_EQ(test, f->syncs - syncs, 1);
	KUNIT_EXPECT_EQ_MSG(test, fpm_ghost_entries(f->model), 0,
			    "entries of ASID %u left when it was freed", asid);

	dom = fpt_domain(test, smmu);
	KUNIT_ASSERT_EQ(test, dom->flush.asid, asid);
	mc = fpt_domain_model(test, f, dom);
	fpt_domain_map(test, dom, SZ_1G, SZ_2G, SZ_2M);
	KUNIT_EXPECT_TRUE(test, fpm_access(mc, SZ_1G));
	KUNIT_EXPECT_TRUE(test, fpm_access(mc, SZ_1G + SZ_2M - SZ_4K));
	KUNIT_EXPECT_EQ(test, mc->n.stale_hits, 0);
	KUNIT_EXPECT_EQ(test, fpm_stale_entries(mc), 0);
	fpm_ctx_destroy(mc);
	smmuv3_domain_destroy(dom);
	KUNIT_EXPECT_EQ(test, fpm_ghost_entries(f->model), 0);
	ida_destroy(&smmu->asids);
}

struct fpt_paging {
	struct smmuv3_domain *dom;
	struct fpm_ctx *mc;
};

static void fpt_paging_release(void *data)
{
	struct fpt_paging *p = data;
	struct smmuv3_device *smmu = p->dom->smmu;

	fpm_ctx_destroy(p->mc);
	smmuv3_domain_destroy(p->dom);
	ida_destroy(&smmu->asids);
}

/**
 * fpt_smmuv3_paging_domain() - a strict paging domain of the driver
 * @test: the test; the domain goes when it ends
 * @mc: set to the model context of the domain's device
 *
 * In front of a fake SMMU, with the driver's ops for the IOMMU core
 * (map_pages, unmap_pages, iotlb_sync: iommu.c), for other suites.
 *
 * Return: the domain, as the IOMMU core holds it.
 */
struct iommu_domain *fpt_smmuv3_paging_domain(struct kunit *test,
					      struct fpm_ctx **mc)
{
	struct fpt_v3_fake *f = fpt_domain_fake(test);
	struct fpt_paging *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	f->smmu.asid_max = 1;
	p->dom = fpt_domain(test, &f->smmu);
	p->dom->domain.type = IOMMU_DOMAIN_DMA;
	p->dom->domain.ops = &smmuv3_paging_ops;
	p->mc = fpt_domain_model(test, f, p->dom);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
							fpt_paging_release,
							p), 0);
	*mc = p->mc;
	return &p->dom->domain;
}

static void fpt_nop_walk(struct fp_context *ctx, unsigned long iova,
			 size_t size, size_t granule)
{
	fp_flush_context(ctx);
}

static void fpt_nop_gather(struct fp_context *ctx,
			   const struct iommu_iotlb_gather *gather)
{
	fp_flush_context(ctx);
}

/* A context flush during which stats/reset is written. */
static void fpt_flush_then_reset(struct fp_context *ctx)
{
	fp_flush_context(ctx);
	fp_context_reset_stats(ctx);
}

static struct fp_policy fpt_reset_policy = {
	.name = "kunit_reset", .owner = THIS_MODULE,
	.flush_walk = fpt_nop_walk, .flush_gather = fpt_nop_gather,
	.flush_context = fpt_flush_then_reset,
};

/*
 * Whether the final flush failed is its own result, not sync_timeouts
 * read around it, which stats/reset zeroes at any time: here during the
 * flush that free_io_pgtable_ops() makes through the policy.
 */
static void asid_retired_by_final_flush_not_by_statistic(struct kunit *test)
{
	struct fpt_v3_fake *f = fpt_domain_fake(test);
	struct smmuv3_device *smmu = &f->smmu;
	struct smmuv3_domain *dom;
	int asid;

	smmu->asid_max = 2;
	KUNIT_ASSERT_EQ(test, fp_policy_register(&fpt_reset_policy), 0);
	dom = fpt_domain(test, smmu);
	KUNIT_EXPECT_EQ(test, dom->flush.asid, 1);
	KUNIT_EXPECT_EQ(test, fp_context_set_policy(dom->ctx, "kunit_reset"),
			0);

	fpt_v3_fake_set(f, 0);
	smmuv3_domain_destroy(dom);
	fpt_v3_fake_set(f, 64);
	KUNIT_EXPECT_EQ(test, fp_policy_unregister(&fpt_reset_policy), 0);

	asid = ida_alloc_range(&smmu->asids, SMMUV3_ASID_MIN, smmu->asid_max,
			       GFP_KERNEL);
	KUNIT_EXPECT_EQ_MSG(test, asid, 2, "the unflushed ASID was reused");
	if (asid >= 0)
		ida_free(&smmu->asids, asid);
	ida_destroy(&smmu->asids);
}

/*
 * After a failed final flush the SMMU may still walk the domain's tables:
 * they are leaked, not freed (KASAN would report the read below of freed
 * tables).  The test frees them itself once done.
 */
static void tables_of_unflushed_domain_leaked(struct kunit *test)
{
	struct fpt_v3_fake *f = fpt_domain_fake(test);
	struct smmuv3_device *smmu = &f->smmu;
	struct io_pgtable_ops *ops;
	struct smmuv3_domain *dom;
	phys_addr_t pa = SZ_1G;
	size_t mapped = 0;

	smmu->asid_max = 2;
	dom = fpt_domain(test, smmu);
	ops = dom->ops;
	KUNIT_ASSERT_EQ(test, ops->map_pages(ops, SZ_2M, pa, SZ_4K, 1,
					     IOMMU_READ, GFP_KERNEL, &mapped),
			0);

	fpt_v3_fake_set(f, 0);
	smmuv3_domain_destroy(dom);
	fpt_v3_fake_set(f, 64);

	KUNIT_EXPECT_EQ(test, ops->iova_to_phys(ops, SZ_2M), pa);
	io_pgtable_ops_to_pgtable(ops)->cfg.tlb = NULL;
	free_io_pgtable_ops(ops);
	ida_destroy(&smmu->asids);
}

/*
 * echo DMA-FQ > /sys/kernel/iommu_groups/N/type: the IOMMU core sets the
 * domain's type and starts its flush queue, calling nothing of the
 * driver's (iommu_group_store_type()).  The context's sysfs follows as it
 * is next read: lazy, on the backend's lazy policy.
 */
static void context_follows_group_type_change(struct kunit *test)
{
	struct fpt_v3_fake *f = fpt_domain_fake(test);
	struct smmuv3_domain *dom;
	char path[96], buf[96];

	f->smmu.asid_max = 2;
	dom = fpt_domain(test, &f->smmu);
	dom->domain.type = IOMMU_DOMAIN_DMA;
	snprintf(path, sizeof(path), "/sys/kernel/flushpol/contexts/fpt-v3-asid%u/strict",
		 dom->flush.asid);
	KUNIT_ASSERT_GT(test, fpt_read_file(path, buf, sizeof(buf)), 0);
	KUNIT_EXPECT_STREQ(test, buf, "1\n");
	KUNIT_EXPECT_FALSE(test, fp_context_is_lazy(dom->ctx));

	WRITE_ONCE(dom->domain.type, IOMMU_DOMAIN_DMA_FQ);
	KUNIT_ASSERT_GT(test, fpt_read_file(path, buf, sizeof(buf)), 0);
	KUNIT_EXPECT_STREQ(test, buf, "0\n");
	KUNIT_EXPECT_TRUE(test, fp_context_is_lazy(dom->ctx));
	snprintf(path, sizeof(path), "/sys/kernel/flushpol/contexts/fpt-v3-asid%u/policy",
		 dom->flush.asid);
	KUNIT_ASSERT_GT(test, fpt_read_file(path, buf, sizeof(buf)), 0);
	KUNIT_EXPECT_STREQ(test, buf, "va asid [nonstrict] threshold batch adaptive\n");

	smmuv3_domain_destroy(dom);
	ida_destroy(&f->smmu.asids);
}

#define FPT_ATTACH_SID	2

/* Before the test frees dev->iommu: the device outlives it. */
static void fpt_attach_device_release(void *data)
{
	struct device *dev = data;

	dev->iommu = NULL;
}

/* A device behind @f on FPT_ATTACH_SID, as probe_device leaves it. */
static struct device *fpt_attach_device(struct kunit *test,
					struct fpt_v3_fake *f)
{
	struct smmuv3_device *smmu = &f->smmu;
	struct iommu_fwspec *fwspec;
	struct smmuv3_master *master;
	struct device *dev;

	smmu->strtab.sid_bits = 2;
	smmu->strtab.base = kunit_kcalloc(test, STE_DWORDS << 2,
					  sizeof(__le64), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, smmu->strtab.base);
	mutex_init(&smmu->ste_lock);

	dev = fpt_device_register(test, "fpt-attach");
	KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(dev));
	dev->iommu = kunit_kzalloc(test, sizeof(*dev->iommu), GFP_KERNEL);
	fwspec = kunit_kzalloc(test, struct_size(fwspec, ids, 1), GFP_KERNEL);
	master = kunit_kzalloc(test, sizeof(*master), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, dev->iommu);
	KUNIT_ASSERT_NOT_NULL(test, fwspec);
	KUNIT_ASSERT_NOT_NULL(test, master);
	fwspec->ids[0] = FPT_ATTACH_SID;
	fwspec->num_ids = 1;
	dev->iommu->fwspec = fwspec;
	master->smmu = smmu;
	master->dev = dev;
	/* dev_iommu_priv_set() wants the core's probe lock: not ours. */
	dev->iommu->priv = master;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
							fpt_attach_device_release,
							dev), 0);
	return dev;
}

/*
 * A paging domain of the driver attached to @dev through attach_dev, its
 * device busy on 2M at SZ_1G: the SMMU has its STE and CD cached, and the
 * TLB holds the working set.  @cd names the CD the STE points at (no CD
 * is made: the model stands for it).
 */
static struct smmuv3_domain *fpt_attached(struct kunit *test,
					  struct fpt_v3_fake *f,
					  struct device *dev, dma_addr_t cd,
					  struct fpm_ctx **mc)
{
	struct smmuv3_domain *dom = fpt_domain(test, &f->smmu);

	dom->domain.type = IOMMU_DOMAIN_DMA;
	dom->domain.ops = &smmuv3_paging_ops;
	dom->cd_dma = cd;
	*mc = fpt_domain_model(test, f, dom);
	fpt_domain_map(test, dom, SZ_1G, SZ_1G, SZ_2M);
	fpt_v3_fake_stream_table(f, FPT_ATTACH_SID, *mc, SZ_1G, SZ_2M);
	KUNIT_ASSERT_EQ(test, smmuv3_attach_paging(&dom->domain, dev), 0);
	KUNIT_ASSERT_PTR_EQ(test, fpt_v3_fake_cached(f, FPT_ATTACH_SID), *mc);
	KUNIT_ASSERT_EQ(test, fpt_v3_fake_dma(f, FPT_ATTACH_SID, SZ_1G),
			FPT_DMA_TRANSLATED);
	return dom;
}

/* The device stops before its context goes, whatever the SMMU cached. */
static void fpt_detached_destroy(struct fpt_v3_fake *f,
				 struct smmuv3_domain *dom, struct fpm_ctx *mc)
{
	fpt_v3_fake_stream(f, FPT_ATTACH_SID, NULL, 0, 0);
	dom->cd_dma = 0;
	fpm_ctx_destroy(mc);
	smmuv3_domain_destroy(dom);
}

/* The device's entry in /sys/kernel/flushpol/devices: 0, or -ENOENT. */
static int fpt_device_linked(struct device *dev)
{
	char path[96], buf[16];
	ssize_t ret;

	snprintf(path, sizeof(path), "/sys/kernel/flushpol/devices/%s/strict",
		 dev_name(dev));
	ret = fpt_read_file(path, buf, sizeof(buf));
	return ret < 0 ? ret : 0;
}

/*
 * identity or blocked after a paging domain: the SMMU must use the new
 * STE before the attach returns, so a CFGI_STE and a completed CMD_SYNC,
 * or the device goes on translating through the old domain's cached STE
 * and CD (and refilling its TLB entries), whatever memory says.  The
 * device leaves the old context's links.
 */
static void fpt_leave_paging(struct kunit *test, struct iommu_domain *to,
			     u8 cfg, enum fpt_v3_dma dma)
{
	struct fpt_v3_fake *f = fpt_domain_fake(test);
	struct device *dev = fpt_attach_device(test, f);
	u64 ste[STE_DWORDS];
	struct smmuv3_domain *dom;
	struct fpm_ctx *mc;

	f->smmu.asid_max = 1;
	dom = fpt_attached(test, f, dev, SZ_64K, &mc);
	KUNIT_ASSERT_EQ(test, fpt_device_linked(dev), 0);

	KUNIT_EXPECT_EQ(test, to->ops->attach_dev(to, dev), 0);
	fpt_v3_fake_cached_ste(f, FPT_ATTACH_SID, ste);
	KUNIT_EXPECT_TRUE(test, ste[0] & STE_0_V);
	KUNIT_EXPECT_EQ_MSG(test, FIELD_GET(STE_0_CFG, ste[0]), cfg,
			    "the SMMU still uses the STE it cached");
	KUNIT_EXPECT_NULL(test, fpt_v3_fake_cached(f, FPT_ATTACH_SID));
	KUNIT_EXPECT_EQ(test, fpt_v3_fake_dma(f, FPT_ATTACH_SID, SZ_1G), dma);
	KUNIT_EXPECT_EQ(test, fpt_device_linked(dev), -ENOENT);

	fpt_detached_destroy(f, dom, mc);
	KUNIT_EXPECT_EQ(test, fpm_ghost_entries(f->model), 0);
	ida_destroy(&f->smmu.asids);
}

static void identity_after_paging_bypasses_at_once(struct kunit *test)
{
	fpt_leave_paging(test, &smmuv3_identity_domain, STE_0_CFG_BYPASS,
			 FPT_DMA_BYPASS);
}

static void blocked_after_paging_aborts_at_once(struct kunit *test)
{
	fpt_leave_paging(test, &smmuv3_blocked_domain, STE_0_CFG_ABORT,
			 FPT_DMA_ABORT);
}

/*
 * A domain whose finalise fails after taking an ASID (at its CD, which
 * UML's NO_DMA cannot allocate): the attach fails with the device still
 * on the domain it had, no CFGI sent, its STE unchanged in memory and in
 * the SMMU, and the ASID given back.  So does a domain_alloc_paging that
 * fails so.
 */
static void failed_attach_keeps_previous_ste_and_asid(struct kunit *test)
{
	struct fpt_v3_fake *f = fpt_domain_fake(test);
	struct device *dev = fpt_attach_device(test, f);
	u64 before[STE_DWORDS], ste[STE_DWORDS];
	struct smmuv3_domain *dom, *next;
	struct iommu_domain *alloc;
	__le64 *mem = &f->smmu.strtab.base[FPT_ATTACH_SID * STE_DWORDS];
	unsigned long cfgi;
	struct fpm_ctx *mc;
	int asid, i;

	/*
	 * Finalise fails after taking its ASID where dma_alloc_coherent()
	 * has no DMA to give the context descriptor (UML); on a kernel with
	 * DMA nothing a test can set makes it fail (io-pgtable clamps the
	 * output size it is given).
	 */
	if (!IS_ENABLED(CONFIG_UML))
		kunit_skip(test, "finalise fails only without DMA (UML)");
	f->smmu.asid_max = 2;
	dom = fpt_attached(test, f, dev, SZ_64K, &mc);
	fpt_v3_fake_cached_ste(f, FPT_ATTACH_SID, before);
	cfgi = f->cfgi;

	next = smmuv3_domain_new();
	KUNIT_ASSERT_NOT_NULL(test, next);
	next->domain.type = IOMMU_DOMAIN_DMA;
	next->domain.ops = &smmuv3_paging_ops;
	KUNIT_EXPECT_LT(test, smmuv3_attach_paging(&next->domain, dev), 0);
	KUNIT_EXPECT_EQ(test, f->cfgi - cfgi, 0);
	for (i = 0; i < STE_DWORDS; i++)
		KUNIT_EXPECT_EQ(test, le64_to_cpu(mem[i]), before[i]);
	fpt_v3_fake_cached_ste(f, FPT_ATTACH_SID, ste);
	KUNIT_EXPECT_EQ(test, memcmp(ste, before, sizeof(ste)), 0);
	KUNIT_EXPECT_PTR_EQ(test, fpt_v3_fake_cached(f, FPT_ATTACH_SID), mc);
	KUNIT_EXPECT_EQ(test, fpt_v3_fake_dma(f, FPT_ATTACH_SID, SZ_1G),
			FPT_DMA_TRANSLATED);
	KUNIT_EXPECT_EQ(test, fpt_device_linked(dev), 0);
	smmuv3_domain_free(&next->domain);

	alloc = smmuv3_domain_alloc_paging(dev);
	KUNIT_EXPECT_TRUE(test, IS_ERR(alloc));
	if (!IS_ERR(alloc))
		smmuv3_domain_free(alloc);
	KUNIT_EXPECT_EQ(test, f->cfgi - cfgi, 0);

	asid = ida_alloc_range(&f->smmu.asids, SMMUV3_ASID_MIN,
			       f->smmu.asid_max, GFP_KERNEL);
	KUNIT_EXPECT_EQ_MSG(test, asid, 2, "a failed attach kept its ASID");
	if (asid >= 0)
		ida_free(&f->smmu.asids, asid);

	f->smmu.oas = 48;
	smmuv3_attach_blocked(&smmuv3_blocked_domain, dev);
	fpt_detached_destroy(f, dom, mc);
	ida_destroy(&f->smmu.asids);
}

static struct kunit_case fpt_domain_cases[] = {
	KUNIT_CASE(asid_of_unflushed_domain_not_reused),
	KUNIT_CASE(asid_reused_after_teardown_sees_nothing_stale),
	KUNIT_CASE(asid_retired_by_final_flush_not_by_statistic),
	KUNIT_CASE(tables_of_unflushed_domain_leaked),
	KUNIT_CASE(context_follows_group_type_change),
	KUNIT_CASE(identity_after_paging_bypasses_at_once),
	KUNIT_CASE(blocked_after_paging_aborts_at_once),
	KUNIT_CASE(failed_attach_keeps_previous_ste_and_asid),
	{}
};

static struct kunit_suite fpt_domain_suite = {
	.name = "flushpol_smmuv3_domain",
	.test_cases = fpt_domain_cases,
};

kunit_test_suite(fpt_domain_suite);
