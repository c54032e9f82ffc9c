// SPDX-License-Identifier: GPL-2.0-only
/*
 * flushpol_arm_smmu: arm-smmu's own code, with the integration series of
 * integration/arm-smmu/ applied, driving flushpol's SMMUv2 backend
 * against the fake register window and its TLB model.
 *
 * An arm_smmu_device is set up as arm_smmu_device_cfg_probe() would have
 * found an SMMU-500 (stage 1, AArch64 4K, coherent walks), its registers
 * redirected to the fake through arm_smmu_impl's accessors, and described
 * to flushpol by arm-smmu's own arm_smmu_fp_probe().  Then
 * arm_smmu_init_domain_context() programs a bank (which the fake decodes
 * from CBAR, CBA2R and TTBR0) and hands it to flushpol, and the domain is
 * mapped, unmapped and synced through arm-smmu's iommu_domain_ops, as the
 * IOMMU core calls them.  In-tree only: it needs arm-smmu's header.
 */
#include <kunit/device.h>
#include <kunit/test-bug.h>
#include <kunit/test.h>
#include <linux/iommu.h>
#include <linux/mm.h>
#include <linux/platform_device.h>
#include <linux/sizes.h>

#include "arm-smmu.h"
#include "arm-smmu-qcom.h"

#include "../../include/flushpol.h"
#include "../fp_rig.h"
#include "../fp_smmuv2_fake.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

#define FPA_IOVA	SZ_1G
/* A second buffer, live while the first goes, as the count suites have. */
#define FPA_IOVA_B	(3UL * SZ_1G)

struct fpa_smmu {
	struct qcom_smmu qsmmu;		/* first: arm-smmu-qcom's container_of */
	struct arm_smmu_impl impl;
	struct arm_smmu_cb cbs[FPT_V2_NR_CB];
	int irqs[FPT_V2_NR_CB];
	struct fpt_v2_fake *fake;
	struct fpm_smmu model;
	struct fpm_ctx mc;
	struct list_head freed;		/* tables, held until the test ends */
};

static struct fpa_smmu *to_fpa(struct arm_smmu_device *smmu)
{
	return container_of(smmu, struct fpa_smmu, qsmmu.smmu);
}

static u32 fpa_read_reg(struct arm_smmu_device *smmu, int page, int off)
{
	return fpt_v2_read(to_fpa(smmu)->fake, page, off);
}

static void fpa_write_reg(struct arm_smmu_device *smmu, int page, int off,
			  u32 val)
{
	fpt_v2_write(to_fpa(smmu)->fake, page, off, val);
}

static u64 fpa_read_reg64(struct arm_smmu_device *smmu, int page, int off)
{
	return fpt_v2_read64(to_fpa(smmu)->fake, page, off);
}

static void fpa_write_reg64(struct arm_smmu_device *smmu, int page, int off,
			    u64 val)
{
	fpt_v2_write64(to_fpa(smmu)->fake, page, off, val);
}

static u64 fpa_clock(void *smmu)
{
	return fpt_v2_clock(to_fpa(smmu)->fake);
}

/* Table memory the model sees freed, never reused while the test runs. */
static void *fpa_table_alloc(void *cookie, size_t size, gfp_t gfp)
{
	return (void *)__get_free_pages(gfp | __GFP_ZERO, get_order(size));
}

static void fpa_table_free(void *cookie, void *pages, size_t size)
{
	struct fpa_smmu *f = kunit_get_current_test()->priv;
	struct page *page = virt_to_page(pages);

	fpm_table_freed(&f->mc, pages, size);
	set_page_private(page, get_order(size));
	list_add(&page->lru, &f->freed);
}

/* An implementation's init_context: the tables in the model's sight. */
static int fpa_init_context(struct arm_smmu_domain *smmu_domain,
			    struct io_pgtable_cfg *cfg, struct device *dev)
{
	cfg->alloc = fpa_table_alloc;
	cfg->free = fpa_table_free;
	return 0;
}

static void fpa_release(void *data)
{
	struct fpa_smmu *f = data;
	struct page *page, *next;

	list_for_each_entry_safe(page, next, &f->freed, lru)
		__free_pages(page, page_private(page));
	fpm_ctx_destroy(&f->mc);
	fpm_smmu_destroy(&f->model);
}

/* An SMMU-500 as arm_smmu_device_cfg_probe() finds one, on the fake. */
static struct fpa_smmu *fpa_smmu_new(struct kunit *test, bool qcom)
{
	struct fpa_smmu *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	struct arm_smmu_device *smmu;
	struct device *dev;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, f);
	INIT_LIST_HEAD(&f->freed);
	KUNIT_ASSERT_EQ(test, fpm_smmu_init(&f->model), 0);
	fpm_ctx_init(&f->mc, &f->model, 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, fpa_release, f),
			0);
	f->fake = fpt_v2_fake_new(test, &f->model, false);
	KUNIT_ASSERT_NOT_NULL(test, f->fake);
	/*
	 * Named "<case>.<name>": short, so that the contexts' sysfs names
	 * fit as an SoC's ("15000000.iommu-asid3") do.
	 */
	dev = kunit_device_register(test, qcom ? "qsmmu" : "smmu");
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dev);
	test->priv = f;

	f->impl = (struct arm_smmu_impl) {
		.read_reg	= fpa_read_reg,
		.write_reg	= fpa_write_reg,
		.read_reg64	= fpa_read_reg64,
		.write_reg64	= fpa_write_reg64,
		.init_context	= fpa_init_context,
	};
	smmu = &f->qsmmu.smmu;
	*smmu = (struct arm_smmu_device) {
		.dev			= dev,
		.impl			= &f->impl,
		.version		= ARM_SMMU_V2,
		.model			= ARM_MMU500,
		.features		= ARM_SMMU_FEAT_TRANS_S1 |
					  ARM_SMMU_FEAT_FMT_AARCH64_4K |
					  ARM_SMMU_FEAT_COHERENT_WALK,
		.pgshift		= 12,
		.numpage		= FPT_V2_NUMPAGE,
		.num_context_banks	= FPT_V2_NR_CB,
		.num_context_irqs	= FPT_V2_NR_CB,
		.cbs			= f->cbs,
		.irqs			= f->irqs,
		.va_size		= 48,
		.ipa_size		= 48,
		.pa_size		= 48,
		.pgsize_bitmap		= SZ_4K | SZ_2M | SZ_1G,
		.fp_qcom		= qcom,
	};
	spin_lock_init(&smmu->global_sync_lock);
	mutex_init(&smmu->stream_map_mutex);
	/* Every stream map entry as probe leaves it: bypass, unclaimed. */
	smmu->num_mapping_groups = FPT_V2_NR_SME;
	smmu->s2crs = kunit_kcalloc(test, FPT_V2_NR_SME, sizeof(*smmu->s2crs),
				    GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, smmu->s2crs);
	for (i = 0; i < FPT_V2_NR_SME; i++)
		smmu->s2crs[i].type = S2CR_TYPE_BYPASS;
	/* Qualcomm's TBU dump finds no TBU registers and says so. */
	f->qsmmu.cfg = NULL;
	KUNIT_ASSERT_EQ(test, arm_smmu_fp_probe(smmu), 0);
	KUNIT_ASSERT_NOT_NULL(test, smmu->fp);
	/* adaptive times flushes at what the fake's writes cost on silicon. */
	smmu->fp->cfg.clock = fpa_clock;
	return f;
}

static void fpa_domain_free(void *domain)
{
	struct iommu_domain *d = domain;

	d->ops->free(d);
}

/* A DMA paging domain as the IOMMU core allocates one for @dev. */
static struct arm_smmu_domain *fpa_paging_domain(struct kunit *test,
						 struct device *dev)
{
	struct iommu_domain *domain = arm_smmu_ops.domain_alloc_paging(dev);

	KUNIT_ASSERT_NOT_NULL(test, domain);
	domain->type = IOMMU_DOMAIN_DMA;
	domain->ops = arm_smmu_ops.default_domain_ops;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, fpa_domain_free,
							domain), 0);
	return container_of(domain, struct arm_smmu_domain, domain);
}

/*
 * A paging domain as the IOMMU core makes one, its context set up by
 * arm-smmu as attaching a master does; the model then walks the table
 * arm-smmu allocated, under the ASID the bank was programmed with.
 */
static struct arm_smmu_domain *fpa_domain_new(struct kunit *test,
					      struct fpa_smmu *f,
					      const char *policy)
{
	struct arm_smmu_device *smmu = &f->qsmmu.smmu;
	const struct io_pgtable_cfg *cfg;
	struct arm_smmu_domain *smmu_domain;
	struct fpt_v2_bank *b;

	smmu_domain = fpa_paging_domain(test, smmu->dev);
	KUNIT_ASSERT_EQ(test, arm_smmu_init_domain_context(smmu_domain, smmu,
							   smmu->dev), 0);
	KUNIT_ASSERT_NOT_NULL(test, smmu_domain->fp);
	/* As an engineer switches the camera's context: through sysfs. */
	if (policy) {
		char path[96];

		snprintf(path, sizeof(path),
			 "/sys/kernel/flushpol/contexts/%s-asid%u/policy",
			 dev_name(smmu->dev), smmu_domain->cfg.asid);
		KUNIT_ASSERT_EQ(test, fpt_write_file(path, policy,
						     strlen(policy)),
				(ssize_t)strlen(policy));
	}

	b = &f->fake->cb[smmu_domain->cfg.cbndx];
	KUNIT_ASSERT_TRUE(test, b->used);
	KUNIT_EXPECT_FALSE(test, b->stage2);
	KUNIT_EXPECT_FALSE(test, b->aarch32);
	f->mc.asid = b->ttbr0 >> 48;
	cfg = &io_pgtable_ops_to_pgtable(smmu_domain->pgtbl_ops)->cfg;
	KUNIT_ASSERT_EQ(test, fpm_ctx_attach(&f->mc, cfg), 0);
	return smmu_domain;
}

/* As iommu_map() and iommu_unmap() call the driver. */
static void fpa_map_at(struct kunit *test, struct iommu_domain *domain,
		       unsigned long iova, size_t size, size_t pgsize)
{
	const struct iommu_domain_ops *ops = domain->ops;
	size_t done = 0, mapped;
	int ret;

	while (done < size) {
		mapped = 0;
		ret = ops->map_pages(domain, iova + done, iova + done,
				     pgsize, (size - done) / pgsize,
				     IOMMU_READ | IOMMU_WRITE, GFP_KERNEL,
				     &mapped);
		KUNIT_ASSERT_EQ(test, ret, 0);
		KUNIT_ASSERT_NE(test, mapped, 0);
		done += mapped;
	}
}

static void fpa_map(struct kunit *test, struct iommu_domain *domain,
		    size_t size, size_t pgsize)
{
	fpa_map_at(test, domain, FPA_IOVA, size, pgsize);
}

struct fpa_case {
	const char *policy;	/* NULL: the implementation's default */
	bool qcom;
	size_t pgsize;
	/* Expected writes, as Documentation/policies.rst's MMIO table. */
	unsigned long tlbiva, tlbival, tlbiasid, tlbsync;
	unsigned long b_lost;	/* the second buffer's entries thrown away */
};

/* 32M, the seed's camera buffer. */
static const struct fpa_case fpa_cases[] = {
	{ "va",        false, SZ_4K, 8192, 16,  0, 17,   0 },
	{ "asid",      false, SZ_4K,    0,  0, 16, 16, 512 },
	{ "threshold", false, SZ_4K,    0,  0, 16, 16, 512 },
	{ NULL,        false, SZ_4K, 8192, 16,  0, 17,   0 },
	{ NULL,        true,  SZ_4K,    0,  0, 16, 16, 512 },
	{ "va",        true,  SZ_4K, 8192, 16,  0, 17,   0 },
	{ "asid",      true,  SZ_4K,    0,  0, 16, 16, 512 },
	{ "va",        false, SZ_2M,    0, 16,  0,  1,   0 },
	{ NULL,        true,  SZ_2M,    0, 16,  0,  1,   0 },
	{ "adaptive",  false, SZ_4K, 8192,  0,  0, 16,   0 },
	{ "adaptive",  true,  SZ_4K, 8192,  0,  0, 16,   0 },
	{ "adaptive",  true,  SZ_2M,    0, 16,  0,  1,   0 },
};

static void fpa_case_desc(const struct fpa_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s-%s-32M-in-%zuK",
		 c->qcom ? "qcom" : "smmuv2", c->policy ?: "default",
		 c->pgsize / SZ_1K);
}

KUNIT_ARRAY_PARAM(fpa_case, fpa_cases, fpa_case_desc);

static void unmap_32m(struct kunit *test)
{
	const struct fpa_case *c = test->param_value;
	struct fpa_smmu *f = fpa_smmu_new(test, c->qcom);
	struct arm_smmu_domain *smmu_domain = fpa_domain_new(test, f, c->policy);
	struct iommu_domain *domain = &smmu_domain->domain;
	struct fpt_v2_fake *fake = f->fake;
	struct iommu_iotlb_gather gather;
	unsigned long pos, b_left;

	fpa_map(test, domain, SZ_32M, c->pgsize);
	fpa_map_at(test, domain, FPA_IOVA_B, SZ_2M, SZ_4K);
	for (pos = FPA_IOVA; pos < FPA_IOVA + SZ_32M; pos += c->pgsize)
		KUNIT_ASSERT_TRUE(test, fpm_access(&f->mc, pos));
	fpm_access_range(&f->mc, FPA_IOVA_B, SZ_2M);
	fpm_forget(&f->mc, FPA_IOVA_B, SZ_2M);
	KUNIT_ASSERT_EQ(test, fpm_cached_leaves(&f->mc, FPA_IOVA_B, SZ_2M),
			SZ_2M / SZ_4K);
	fpt_v2_fake_reset(fake);

	/* __iommu_unmap(): 16 blocks' worth, one gather, then its sync. */
	iommu_iotlb_gather_init(&gather);
	KUNIT_ASSERT_EQ(test, domain->ops->unmap_pages(domain, FPA_IOVA, SZ_2M,
						       16, &gather), SZ_32M);
	domain->ops->iotlb_sync(domain, &gather);

	KUNIT_EXPECT_EQ(test, fake->n[FPT_V2_TLBIVA], c->tlbiva);
	KUNIT_EXPECT_EQ(test, fake->n[FPT_V2_TLBIVAL], c->tlbival);
	KUNIT_EXPECT_EQ(test, fake->n[FPT_V2_TLBIASID], c->tlbiasid);
	KUNIT_EXPECT_EQ(test, fake->n[FPT_V2_TLBSYNC], c->tlbsync);
	KUNIT_EXPECT_EQ(test, fake->n[FPT_V2_TLBIALL], 0);
	KUNIT_EXPECT_EQ(test, fake->n[FPT_V2_BAD], 0);
	b_left = fpm_cached_leaves(&f->mc, FPA_IOVA_B, SZ_2M);
	KUNIT_EXPECT_EQ(test, SZ_2M / SZ_4K - b_left, c->b_lost);
	KUNIT_EXPECT_EQ(test, fpm_stale_entries(&f->mc), 0);
	KUNIT_EXPECT_EQ(test, f->mc.n.freed_refs, 0);
	KUNIT_EXPECT_FALSE(test, fpm_access(&f->mc, FPA_IOVA));
	KUNIT_EXPECT_EQ(test, f->mc.n.stale_hits, 0);
}

/* flush_iotlb_all: the whole context, one TLBIASID and its sync. */
static void flush_all(struct kunit *test)
{
	struct fpa_smmu *f = fpa_smmu_new(test, true);
	struct arm_smmu_domain *smmu_domain = fpa_domain_new(test, f, NULL);
	struct iommu_domain *domain = &smmu_domain->domain;

	fpa_map(test, domain, SZ_2M, SZ_4K);
	fpm_access_range(&f->mc, FPA_IOVA, SZ_2M);
	fpt_v2_fake_reset(f->fake);
	domain->ops->flush_iotlb_all(domain);
	KUNIT_EXPECT_EQ(test, f->fake->n[FPT_V2_TLBIASID], 1);
	KUNIT_EXPECT_EQ(test, f->fake->n[FPT_V2_TLBSYNC], 1);
	KUNIT_EXPECT_EQ(test, f->fake->last[FPT_V2_TLBIASID], f->mc.asid);
	KUNIT_EXPECT_EQ(test, fpm_cached_entries(&f->mc), 0);
}

#define FPA_SME		3	/* the master's stream map entry */

static void fpa_master_forget(void *data)
{
	struct device *dev = data;

	kfree(dev_iommu_priv_get(dev));
	dev->iommu = NULL;
}

/*
 * A master with one stream, as arm_smmu_probe_device() leaves it: its
 * fwspec, and its master configuration holding one stream map entry.
 */
static struct device *fpa_master_new(struct kunit *test, struct fpa_smmu *f,
				     const char *name)
{
	struct arm_smmu_master_cfg *cfg;
	struct iommu_fwspec *fwspec;
	struct device *dev;

	dev = kunit_device_register(test, name);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dev);
	fwspec = kunit_kzalloc(test, struct_size(fwspec, ids, 1), GFP_KERNEL);
	dev->iommu = kunit_kzalloc(test, sizeof(*dev->iommu), GFP_KERNEL);
	/* Freed by arm_smmu_release_device(), as the driver allocated it. */
	cfg = kzalloc(struct_size(cfg, smendx, 1), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, fwspec && dev->iommu && cfg);
	fwspec->num_ids = 1;
	fwspec->ids[0] = 0x42;
	dev->iommu->fwspec = fwspec;
	cfg->smmu = &f->qsmmu.smmu;
	cfg->smendx[0] = FPA_SME;
	f->qsmmu.smmu.s2crs[FPA_SME].count = 1;
	dev->iommu->priv = cfg;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, fpa_master_forget,
							dev), 0);
	return dev;
}

/* What /sys/kernel/flushpol/devices/<master>/@attr reads, or an error. */
static ssize_t fpa_read_dev_attr(struct device *dev, const char *attr,
				 char *buf, size_t size)
{
	char path[160];

	snprintf(path, sizeof(path), "/sys/kernel/flushpol/devices/%s/%s",
		 dev_name(dev), attr);
	return fpt_read_file(path, buf, size);
}

/*
 * An SoC engineer configures the camera by its device name on the kernel
 * command line, and finds its context by that name: arm-smmu's own
 * attach_dev links the master to the bank's context and applies
 * flushpol.device_policy=; bypass and release take the link away.
 */
static void attach_links(struct kunit *test)
{
	struct fpa_smmu *f = fpa_smmu_new(test, false);
	struct fpt_v2_s2cr *s2cr = &f->fake->s2cr[FPA_SME];
	struct iommu_domain *domain, *identity = arm_smmu_ops.identity_domain;
	struct arm_smmu_domain *smmu_domain;
	struct device *cam = fpa_master_new(test, f, "cam");
	char param[128], buf[128];
	int len;

	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
							fpt_restore_dev_param,
							NULL), 0);
	len = snprintf(param, sizeof(param), "%s=asid:threshold=32\n",
		       dev_name(cam));
	KUNIT_ASSERT_EQ(test, fpt_write_file(FPT_DEV_PARAM, param, len), len);

	smmu_domain = fpa_paging_domain(test, cam);
	domain = &smmu_domain->domain;

	KUNIT_ASSERT_EQ(test, domain->ops->attach_dev(domain, cam), 0);
	KUNIT_ASSERT_NOT_NULL(test, smmu_domain->fp);
	KUNIT_EXPECT_TRUE(test, s2cr->written);
	KUNIT_EXPECT_EQ(test, s2cr->type, S2CR_TYPE_TRANS);
	KUNIT_EXPECT_EQ(test, s2cr->cbndx, smmu_domain->cfg.cbndx);
	KUNIT_ASSERT_GT(test, fpa_read_dev_attr(cam, "policy", buf,
						sizeof(buf)), 0);
	KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(buf, "[asid]"), "policy %s",
				  buf);
	KUNIT_ASSERT_GT(test, fpa_read_dev_attr(cam, "threshold", buf,
						sizeof(buf)), 0);
	KUNIT_EXPECT_STREQ(test, buf, "32\n");
	KUNIT_ASSERT_GT(test, fpa_read_dev_attr(cam, "backend", buf,
						sizeof(buf)), 0);
	KUNIT_EXPECT_STREQ(test, buf, "smmuv2\n");

	/* Bypass: the stream goes around every bank, and the link goes. */
	KUNIT_ASSERT_EQ(test, identity->ops->attach_dev(identity, cam), 0);
	KUNIT_EXPECT_EQ(test, s2cr->type, S2CR_TYPE_BYPASS);
	KUNIT_EXPECT_EQ(test, fpa_read_dev_attr(cam, "policy", buf,
						sizeof(buf)), -ENOENT);

	/* Back, then released as the device goes away. */
	KUNIT_ASSERT_EQ(test, domain->ops->attach_dev(domain, cam), 0);
	KUNIT_EXPECT_EQ(test, s2cr->type, S2CR_TYPE_TRANS);
	KUNIT_EXPECT_GT(test, fpa_read_dev_attr(cam, "policy", buf,
						sizeof(buf)), 0);
	arm_smmu_ops.release_device(cam);
	cam->iommu->priv = NULL;
	KUNIT_EXPECT_EQ(test, fpa_read_dev_attr(cam, "policy", buf,
						sizeof(buf)), -ENOENT);
}

static unsigned int fpa_tbu_dumps;
static void (*fpa_tbu_dump)(void *smmu, unsigned int page);

static void fpa_count_tbu_dump(void *smmu, unsigned int page)
{
	fpa_tbu_dumps++;
	fpa_tbu_dump(smmu, page);
}

/*
 * A TLB sync that never completes on a Qualcomm SMMU: after flushpol's
 * dump, arm-smmu-qcom's own TBU queries run (the 0002 hook, calling
 * qcom_smmu_tlb_sync_debug(); with no TBU registers described it says
 * only that the sync timed out), and the timeout is counted.  A plain
 * SMMUv2 has no such hook.
 */
static void qcom_tbu_dump(struct kunit *test)
{
	struct fpa_smmu *plain = fpa_smmu_new(test, false);
	struct fpa_smmu *f = fpa_smmu_new(test, true);
	struct arm_smmu_domain *smmu_domain = fpa_domain_new(test, f, "va");
	struct smmuv2_device *fp = f->qsmmu.smmu.fp;
	struct iommu_domain *domain = &smmu_domain->domain;
	struct iommu_iotlb_gather gather;

	KUNIT_EXPECT_NULL(test, plain->qsmmu.smmu.fp->cfg.sync_timeout);
	KUNIT_ASSERT_NOT_NULL(test, fp->cfg.sync_timeout);
	fpa_tbu_dump = fp->cfg.sync_timeout;
	fpa_tbu_dumps = 0;
	fp->cfg.sync_timeout = fpa_count_tbu_dump;
	fp->cfg.sync_timeout_us = 100;

	fpa_map(test, domain, SZ_4K, SZ_4K);
	f->fake->polls_to_complete = UINT_MAX;
	iommu_iotlb_gather_init(&gather);
	KUNIT_ASSERT_EQ(test, domain->ops->unmap_pages(domain, FPA_IOVA, SZ_4K,
						       1, &gather), SZ_4K);
	domain->ops->iotlb_sync(domain, &gather);
	KUNIT_EXPECT_EQ(test, fpa_tbu_dumps, 1);
	KUNIT_EXPECT_EQ(test, fp_context_stat(smmu_domain->fp,
					      FP_STAT_SYNC_TIMEOUTS), 1);
	f->fake->polls_to_complete = 0;
}

static struct kunit_case fpa_test_cases[] = {
	KUNIT_CASE_PARAM(unmap_32m, fpa_case_gen_params),
	KUNIT_CASE(flush_all),
	KUNIT_CASE(attach_links),
	KUNIT_CASE(qcom_tbu_dump),
	{}
};

static struct kunit_suite fpa_suite = {
	.name = "flushpol_arm_smmu",
	.test_cases = fpa_test_cases,
};

kunit_test_suite(fpa_suite);
