// SPDX-License-Identifier: GPL-2.0-only
/*
 * Stage-1 paging domains: an io-pgtable-arm page table, a context
 * descriptor carrying the domain's ASID that every attached stream shares,
 * and a flushpol context deciding how the domain is invalidated.
 * Finalising a domain is the init_context of the backend: where the
 * hardware's capabilities and the domain's type (strict, or lazy behind
 * the DMA flush queue) pick the default policy.  A domain is finalised as
 * it is allocated for a device (iommu.c), so that the IOMMU core can map
 * it before attaching it; the core sets a domain's type only after that,
 * so a domain that turns out to be DMA-FQ is made lazy at its first attach.
 */
#define pr_fmt(fmt) "flushpol_smmuv3: " fmt

#include <linux/dma-mapping.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/sizes.h>

#include "smmuv3_dev.h"

/* A context's ASIDs start at 1: 0 is left to whatever ran before us. */
#define SMMUV3_ASID_MIN	1

bool force_no_ril;

/* Junk at load is warned about, not a failed load: no SMMU driver then. */
module_param_cb(force_no_ril, &fp_param_bool_ops, &force_no_ril, 0644);
MODULE_PARM_DESC(force_no_ril,
		 "Ignore IDR3.RIL in domains created from now on: invalidate by single address, as SMMUv3.0-3.1 must");

/* The backend's choice of policy for a lazy context. */
#define SMMUV3_LAZY_POLICY	"nonstrict"

static void smmuv3_make_cd(struct smmuv3_domain *dom)
{
	const struct io_pgtable_cfg *cfg = &dom->cfg;
	u64 cd[CD_DWORDS] = {};
	int i;

	cd[0] = FIELD_PREP(CD_0_TCR_T0SZ, cfg->arm_lpae_s1_cfg.tcr.tsz) |
		FIELD_PREP(CD_0_TCR_TG0, cfg->arm_lpae_s1_cfg.tcr.tg) |
		FIELD_PREP(CD_0_TCR_IRGN0, cfg->arm_lpae_s1_cfg.tcr.irgn) |
		FIELD_PREP(CD_0_TCR_ORGN0, cfg->arm_lpae_s1_cfg.tcr.orgn) |
		FIELD_PREP(CD_0_TCR_SH0, cfg->arm_lpae_s1_cfg.tcr.sh) |
		FIELD_PREP(CD_0_TCR_IPS, cfg->arm_lpae_s1_cfg.tcr.ips) |
		CD_0_TCR_EPD1 | CD_0_V | CD_0_AA64 | CD_0_R | CD_0_A |
		CD_0_ASET | FIELD_PREP(CD_0_ASID, dom->flush.asid);
	cd[1] = cfg->arm_lpae_s1_cfg.ttbr & CD_1_TTB0;
	cd[3] = cfg->arm_lpae_s1_cfg.mair;
	for (i = 0; i < CD_DWORDS; i++)
		dom->cd[i] = cpu_to_le64(cd[i]);
}

/**
 * smmuv3_ste_s1() - the STE of a stream translated by @dom
 * @dom: a finalised domain
 * @ste: filled in
 *
 * Every stream attached points at the domain's one context descriptor.
 */
void smmuv3_ste_s1(const struct smmuv3_domain *dom, u64 *ste)
{
	memset(ste, 0, STE_DWORDS * sizeof(*ste));
	ste[0] = STE_0_V | FIELD_PREP(STE_0_CFG, STE_0_CFG_S1_TRANS) |
		 (dom->cd_dma & STE_0_S1CTXPTR);
	ste[1] = FIELD_PREP(STE_1_S1CIR, STE_1_S1C_WBRA) |
		 FIELD_PREP(STE_1_S1COR, STE_1_S1C_WBRA) |
		 FIELD_PREP(STE_1_S1CSH, SMMUV3_SH_ISH) |
		 FIELD_PREP(STE_1_SHCFG, STE_1_SHCFG_INCOMING);
}

/*
 * A DMA domain the IOMMU core made DMA-FQ in place (a write to its group's
 * type: iommu_group_store_type() sets the type and starts the flush queue,
 * with no attach and no call into the driver).
 */
static const char *smmuv3_lazy_policy(const struct fp_context *ctx)
{
	const struct smmuv3_domain *dom =
		container_of(fp_context_priv(ctx), struct smmuv3_domain, flush);

	return READ_ONCE(dom->domain.type) == IOMMU_DOMAIN_DMA_FQ ?
	       SMMUV3_LAZY_POLICY : NULL;
}

static int smmuv3_domain_init_pgtable(struct smmuv3_domain *dom,
				      struct device *dev, bool lazy)
{
	struct smmuv3_device *smmu = dom->smmu;
	bool ril = dom->flush.ril;
	/* RIL makes a range one command: no reason to over-invalidate. */
	struct fp_context_cfg fc = {
		.backend = "smmuv3",
		.instance = smmu->name,
		.owner = THIS_MODULE,
		.ops = ril ? &smmuv3_hw_ops_ril : &smmuv3_hw_ops,
		.id = dom->flush.asid,
		.lazy = lazy,
		.default_policy = lazy ? SMMUV3_LAZY_POLICY :
				  ril ? "range" : "threshold",
		.default_threshold = 128,
		.priv = &dom->flush,
		.lazy_policy = smmuv3_lazy_policy,
		.dev = dev,
	};

	dom->cfg = (struct io_pgtable_cfg) {
		.pgsize_bitmap	= SMMUV3_PGSIZES,
		.ias		= SMMUV3_IAS,
		.oas		= smmu->oas,
		.coherent_walk	= smmu->coherent,
		.iommu_dev	= smmu->dev,
	};
	dom->ctx = fp_context_create(&fc, &dom->cfg);
	if (IS_ERR(dom->ctx))
		return PTR_ERR(dom->ctx);

	dom->ops = alloc_io_pgtable_ops(ARM_64_LPAE_S1, &dom->cfg, dom->ctx);
	if (!dom->ops) {
		fp_context_destroy(dom->ctx);
		return -ENOMEM;
	}
	return 0;
}

/**
 * smmuv3_domain_new() - a paging domain, not yet tied to an SMMU
 *
 * smmuv3_domain_finalise() does the rest: at allocation when the core
 * names a device, or else (kernels before 6.8) at the first attach.
 *
 * Return: the domain, or NULL.
 */
struct smmuv3_domain *smmuv3_domain_new(void)
{
	struct smmuv3_domain *dom = kzalloc(sizeof(*dom), GFP_KERNEL);

	if (!dom)
		return NULL;
	mutex_init(&dom->init_lock);
	dom->domain.pgsize_bitmap = SMMUV3_PGSIZES;
	dom->domain.geometry.aperture_end = BIT_ULL(SMMUV3_IAS) - 1;
	dom->domain.geometry.force_aperture = true;
	return dom;
}

/*
 * @dom is finalised already: only another SMMU's device is refused, and a
 * domain the core has made DMA-FQ since gets a lazy context.  The core
 * may also make a DMA domain DMA-FQ later without attaching it again
 * (iommu_group_store_type()), telling the driver nothing: until sysfs
 * next looks (smmuv3_lazy_policy()) its context stays strict, which is
 * correct there too, since fp_iotlb_sync() leaves queued gathers to the
 * flush queue's flush_iotlb_all.
 */
static int smmuv3_domain_refinalise(struct smmuv3_domain *dom,
				    struct smmuv3_device *smmu, bool lazy)
{
	if (dom->smmu != smmu)
		return -EINVAL;
	if (lazy && !fp_context_is_lazy(dom->ctx))
		fp_context_set_lazy(dom->ctx, SMMUV3_LAZY_POLICY);
	return 0;
}

/**
 * smmuv3_domain_finalise() - an ASID, a page table and a flushpol context
 * @dom: a domain from smmuv3_domain_new()
 * @smmu: the SMMU of the device the domain is for
 * @dev: that device, named in the journal line of the context's creation
 * @lazy: a DMA-FQ domain: the flush queue ends its unmaps with
 *	flush_iotlb_all, so the context is non-strict
 *
 * Called again for a finalised domain (at every attach), it only checks
 * @smmu and makes the context lazy if @lazy has become true.
 *
 * Context: process context, under @dom->init_lock or before the domain is
 * handed out.
 * Return: 0 or an error; @dom is unchanged on error.
 */
int smmuv3_domain_finalise(struct smmuv3_domain *dom,
			   struct smmuv3_device *smmu, struct device *dev,
			   bool lazy)
{
	int asid, ret;

	if (dom->smmu)
		return smmuv3_domain_refinalise(dom, smmu, lazy);
	asid = ida_alloc_range(&smmu->asids, SMMUV3_ASID_MIN, smmu->asid_max,
			       GFP_KERNEL);
	if (asid < 0)
		return asid;
	dom->flush = smmuv3_flush_on(smmu, asid,
				     smmu->ril && !READ_ONCE(force_no_ril));
	dom->cd = dma_alloc_coherent(smmu->dev, CD_DWORDS * sizeof(u64),
				     &dom->cd_dma, GFP_KERNEL);
	if (!dom->cd) {
		ret = -ENOMEM;
		goto err_asid;
	}
	/* dom->smmu is what the rest of the driver tests: set it last. */
	dom->smmu = smmu;
	ret = smmuv3_domain_init_pgtable(dom, dev, lazy);
	if (ret)
		goto err_cd;
	smmuv3_make_cd(dom);
	snprintf(dom->name, sizeof(dom->name), "%s-asid%u", smmu->name,
		 dom->flush.asid);
	return 0;

err_cd:
	dom->smmu = NULL;
	dma_free_coherent(smmu->dev, CD_DWORDS * sizeof(u64), dom->cd,
			  dom->cd_dma);
err_asid:
	ida_free(&smmu->asids, asid);
	return ret;
}

/*
 * The domain's last flush: every entry tagged with its ASID, with a sync
 * of its own, before anything the SMMU could walk is freed.  Its result is
 * the flush's own, not a statistic that stats/reset can zero.
 */
static int smmuv3_domain_flush_final(struct smmuv3_domain *dom)
{
	int ret = fp_flush_context(dom->ctx);

	/*
	 * Nothing can refill the TLB for the ASID now (no stream uses the
	 * domain, and the tables are only freed next): the flush
	 * free_io_pgtable_ops() would make through io-pgtable's tlb_flush_all
	 * would only repeat this one.
	 */
	if (!ret)
		io_pgtable_ops_to_pgtable(dom->ops)->cfg.tlb = NULL;
	return ret;
}

/**
 * smmuv3_domain_destroy() - free a domain no stream uses any more
 * @dom: the domain
 *
 * A final flush of the whole ASID comes first.  If its sync failed, the
 * SMMU may still cache the context descriptor, walk-cache entries pointing
 * into the page tables, and TLB entries tagged with the ASID, and may
 * still complete a walk it began: so the page tables (with their
 * io_pgtable_ops), the context descriptor and the ASID are leaked, never
 * freed or handed out again.  The flushpol context goes: nothing calls
 * through the leaked tables any more.  A wedged SMMU leaks one domain's
 * tables per domain freed; rebooting is the way back.
 */
void smmuv3_domain_destroy(struct smmuv3_domain *dom)
{
	struct smmuv3_device *smmu = dom->smmu;
	int ret;

	if (smmu) {
		ret = smmuv3_domain_flush_final(dom);
		if (!ret)
			free_io_pgtable_ops(dom->ops);
		fp_context_destroy(dom->ctx);
		if (ret) {
			dev_err_ratelimited(smmu->dev,
					    "ASID %u: final flush failed (%d): its page tables, context descriptor and ASID are leaked\n",
					    dom->flush.asid, ret);
		} else {
			dma_free_coherent(smmu->dev, CD_DWORDS * sizeof(u64),
					  dom->cd, dom->cd_dma);
			ida_free(&smmu->asids, dom->flush.asid);
		}
	}
	mutex_destroy(&dom->init_lock);
	kfree(dom);
}
