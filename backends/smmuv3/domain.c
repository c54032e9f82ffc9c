// SPDX-License-Identifier: GPL-2.0-only
/*
 * Stage-1 domains: one stream behind an io-pgtable-arm page table, with a
 * context descriptor carrying its ASID, and a flushpol context deciding how
 * it is invalidated.  This is the init_context of the backend: where the
 * hardware's capabilities pick the default policy.
 */
#define pr_fmt(fmt) "flushpol_smmuv3: " fmt

#include <linux/dma-mapping.h>
#include <linux/sizes.h>

#include "smmuv3_dev.h"

/* A context's ASIDs start at 1: 0 is left to whatever ran before us. */
#define SMMUV3_ASID_MIN	1
#define SMMUV3_ASID_MAX	255
/* Never a domain's: smmuv3_mark() uses these. */
#define SMMUV3_ASID_MARK	0xf000

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

static int smmuv3_attach(struct smmuv3_domain *dom)
{
	struct smmuv3_device *smmu = dom->smmu;
	u64 ste[STE_DWORDS] = {}, cmd[CMD_DWORDS];

	ste[0] = STE_0_V | FIELD_PREP(STE_0_CFG, STE_0_CFG_S1_TRANS) |
		 (dom->cd_dma & STE_0_S1CTXPTR);
	ste[1] = FIELD_PREP(STE_1_S1CIR, STE_1_S1C_WBRA) |
		 FIELD_PREP(STE_1_S1COR, STE_1_S1C_WBRA) |
		 FIELD_PREP(STE_1_S1CSH, SMMUV3_SH_ISH) |
		 FIELD_PREP(STE_1_SHCFG, STE_1_SHCFG_INCOMING);

	mutex_lock(&smmu->ste_lock);
	smmuv3_write_ste(smmu, dom->sid, ste);
	mutex_unlock(&smmu->ste_lock);
	smmuv3_cmd_cfgi_ste(cmd, dom->sid);
	return smmuv3_cmdq_issue_sync(smmu, cmd, 1);
}

static void smmuv3_detach(struct smmuv3_domain *dom)
{
	struct smmuv3_device *smmu = dom->smmu;
	u64 ste[STE_DWORDS] = {}, cmd[CMD_DWORDS];

	ste[0] = STE_0_V | FIELD_PREP(STE_0_CFG, STE_0_CFG_BYPASS);
	ste[1] = FIELD_PREP(STE_1_SHCFG, STE_1_SHCFG_INCOMING);
	mutex_lock(&smmu->ste_lock);
	smmuv3_write_ste(smmu, dom->sid, ste);
	mutex_unlock(&smmu->ste_lock);
	smmuv3_cmd_cfgi_ste(cmd, dom->sid);
	smmuv3_cmdq_issue_sync(smmu, cmd, 1);
}

static int smmuv3_domain_init_pgtable(struct smmuv3_domain *dom, bool lazy)
{
	struct smmuv3_device *smmu = dom->smmu;
	/* RIL makes a range one command: no reason to over-invalidate. */
	struct fp_context_cfg fc = {
		.backend = "smmuv3",
		.instance = smmu->name,
		.owner = THIS_MODULE,
		.ops = smmu->ril ? &smmuv3_hw_ops_ril : &smmuv3_hw_ops,
		.id = dom->flush.asid,
		.lazy = lazy,
		.default_policy = lazy ? "nonstrict" :
				  smmu->ril ? "range" : "threshold",
		.default_threshold = 128,
		.priv = &dom->flush,
	};

	dom->cfg = (struct io_pgtable_cfg) {
		.pgsize_bitmap	= SZ_4K | SZ_2M | SZ_1G,
		.ias		= 48,
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
 * smmuv3_domain_alloc() - translate a stream through a new page table
 * @smmu: the SMMU
 * @sid: the stream; from then on its DMA is translated, and faults
 *	where nothing is mapped
 * @lazy: non-strict: the caller batches unmaps and ends each batch with
 *	fp_flush_iotlb_all()
 *
 * Return: the domain, or an ERR_PTR().
 */
struct smmuv3_domain *smmuv3_domain_alloc(struct smmuv3_device *smmu, u32 sid,
					  bool lazy)
{
	struct smmuv3_domain *dom;
	int asid, ret;

	if (sid >= BIT(smmu->strtab_log2))
		return ERR_PTR(-ERANGE);
	dom = kzalloc(sizeof(*dom), GFP_KERNEL);
	if (!dom)
		return ERR_PTR(-ENOMEM);
	dom->smmu = smmu;
	dom->sid = sid;

	asid = ida_alloc_range(&smmu->asids, SMMUV3_ASID_MIN, SMMUV3_ASID_MAX,
			       GFP_KERNEL);
	if (asid < 0) {
		ret = asid;
		goto err_free;
	}
	dom->flush = (struct smmuv3_flush) {
		.cmdq = &smmuv3_cmdq_ops, .q = smmu, .asid = asid, .tg = 12,
		.ril = smmu->ril,
	};

	dom->cd = dma_alloc_coherent(smmu->dev, CD_DWORDS * sizeof(u64),
				     &dom->cd_dma, GFP_KERNEL);
	if (!dom->cd) {
		ret = -ENOMEM;
		goto err_asid;
	}
	ret = smmuv3_domain_init_pgtable(dom, lazy);
	if (ret)
		goto err_cd;
	smmuv3_make_cd(dom);
	ret = smmuv3_attach(dom);
	if (ret)
		goto err_pgtable;
	return dom;

err_pgtable:
	smmuv3_detach(dom);
	free_io_pgtable_ops(dom->ops);
	fp_context_destroy(dom->ctx);
err_cd:
	dma_free_coherent(smmu->dev, CD_DWORDS * sizeof(u64), dom->cd,
			  dom->cd_dma);
err_asid:
	ida_free(&smmu->asids, asid);
err_free:
	kfree(dom);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_GPL(smmuv3_domain_alloc);

/**
 * smmuv3_domain_free() - put the stream back to bypass and free the domain
 * @dom: the domain
 */
void smmuv3_domain_free(struct smmuv3_domain *dom)
{
	struct smmuv3_device *smmu = dom->smmu;

	smmuv3_detach(dom);
	free_io_pgtable_ops(dom->ops);
	fp_context_destroy(dom->ctx);
	dma_free_coherent(smmu->dev, CD_DWORDS * sizeof(u64), dom->cd,
			  dom->cd_dma);
	ida_free(&smmu->asids, dom->flush.asid);
	kfree(dom);
}
EXPORT_SYMBOL_GPL(smmuv3_domain_free);

/**
 * smmuv3_map() - map [@iova, @iova + @size) to @paddr
 * @dom: the domain
 * @iova: start, aligned to @pgsize
 * @paddr: physical start, aligned to @pgsize
 * @size: length
 * @pgsize: 4 KiB pages (a scatter-gather list) or a larger block size
 * @prot: IOMMU_READ | IOMMU_WRITE
 *
 * Return: 0 or the error from io-pgtable.
 */
int smmuv3_map(struct smmuv3_domain *dom, unsigned long iova,
	       phys_addr_t paddr, size_t size, size_t pgsize, int prot)
{
	size_t done = 0;

	while (done < size) {
		size_t mapped = 0;
		int ret;

		ret = dom->ops->map_pages(dom->ops, iova + done, paddr + done,
					  pgsize, (size - done) / pgsize, prot,
					  GFP_KERNEL, &mapped);
		if (ret)
			return ret;
		if (!mapped)
			return -EIO;
		done += mapped;
	}
	return 0;
}
EXPORT_SYMBOL_GPL(smmuv3_map);

/**
 * smmuv3_unmap() - unmap and invalidate, as iommu_unmap() would
 * @dom: the domain
 * @iova: start
 * @size: length
 *
 * Return: bytes unmapped.
 */
size_t smmuv3_unmap(struct smmuv3_domain *dom, unsigned long iova,
		    size_t size)
{
	return fp_unmap(dom->ctx, dom->ops, iova, size, NULL);
}
EXPORT_SYMBOL_GPL(smmuv3_unmap);

/**
 * smmuv3_mark() - put a recognisable no-op in the command stream
 * @smmu: the SMMU
 * @n: the mark
 *
 * A CMD_TLBI_NH_ASID for ASID 0xf000 + @n, which no domain uses, with its
 * sync: tests find it in a command trace and count what came between.
 *
 * Return: 0 or -ETIMEDOUT.
 */
int smmuv3_mark(struct smmuv3_device *smmu, u32 n)
{
	u64 cmd[CMD_DWORDS];

	smmuv3_cmd_tlbi_nh_asid(cmd, SMMUV3_ASID_MARK + (n & 0xfff));
	return smmuv3_cmdq_issue_sync(smmu, cmd, 1);
}
EXPORT_SYMBOL_GPL(smmuv3_mark);

/**
 * smmuv3_domain_ctx() - the flushpol context of a domain
 * @dom: the domain
 *
 * Return: the context, for fp_context_set_policy() and statistics.
 */
struct fp_context *smmuv3_domain_ctx(struct smmuv3_domain *dom)
{
	return dom->ctx;
}
EXPORT_SYMBOL_GPL(smmuv3_domain_ctx);
