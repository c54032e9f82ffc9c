// SPDX-License-Identifier: GPL-2.0-only
/*
 * End-to-end test and unmap benchmark on QEMU's virt,iommu=smmuv3 machine.
 *
 * Binds QEMU's "edu" PCI device, gives it a paging domain of its own through
 * the IOMMU API (driver_managed_dma: the DMA API's default domain is set
 * aside), as flushpol_edu_upstream does with the in-tree driver, and has it
 * DMA through IOVAs this module maps with iommu_map() and unmaps with
 * iommu_unmap(): the same path as any IOMMU-API user, through
 * flushpol_smmuv3's unmap_pages and iotlb_sync.  QEMU's SMMUv3
 * model caches translations in its own IOTLB, so an invalidation that is
 * missing or not synced shows up as the device reading the old page.
 *
 * Driven from the guest through /sys/bus/pci/drivers/flushpol_edu/run:
 *   check SIZE        map X->A, DMA, unmap, map X->B, DMA: must see B
 *   stress N          N rounds of check 2M, for policy switches under load
 *   bench SIZE REPS   time REPS unmaps of SIZE of 4K pages (no DMA)
 *   fault             DMA from an IOVA never mapped: must fault
 *   domains N         N more paging domains, each attached once and all
 *                     alive at the end: N ASIDs
 *   mark N            a marker in QEMU's command trace
 * and /sys/bus/pci/drivers/flushpol_edu/context names the domain's context
 * under /sys/kernel/flushpol/contexts/.
 * Results are printed as "fp-e2e:" and "fp-bench:" lines; a failed check
 * makes the write fail with -EIO.
 *
 * Test code: not part of the DKMS package.
 */
#define pr_fmt(fmt) "flushpol_edu: " fmt

#include <linux/delay.h>
#include <linux/io.h>
#include <linux/iommu.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/sizes.h>
#include <linux/slab.h>

#include "../backends/smmuv3/smmuv3_dev.h"
#include "compat.h"
#include "edu_bench.h"

#define EDU_REG_DMA_SRC		0x80
#define EDU_REG_DMA_DST		0x88
#define EDU_REG_DMA_CNT		0x90
#define EDU_REG_DMA_CMD		0x98
#define EDU_DMA_RUN		BIT(0)
#define EDU_DMA_TO_RAM		BIT(1)
#define EDU_BUF			0x40000	/* the device's own buffer */
/* QEMU 7.2's edu aborts on a transfer of exactly 4 KiB: stay well below. */
#define EDU_XFER		64

/* edu masks DMA addresses to 28 bits: everything lives below 256 MiB. */
#define IOVA_TEST		SZ_64M	/* what is mapped, unmapped, remapped */
#define IOVA_SENTINEL		SZ_16M	/* a page of 0x5e, never unmapped */
#define IOVA_READBACK		(SZ_16M + SZ_4K) /* where results land */

/* Printed one by one up to this many repetitions (a kernel log line). */

struct edu {
	struct pci_dev *pdev;
	void __iomem *regs;
	struct iommu_domain *dom;
	struct fp_context *ctx;
	struct page *a, *b, *sentinel, *readback;
	struct mutex lock;	/* one command at a time */
};

static int edu_dma(struct edu *edu, u64 src, u64 dst, bool to_ram)
{
	int i;

	writeq(src, edu->regs + EDU_REG_DMA_SRC);
	writeq(dst, edu->regs + EDU_REG_DMA_DST);
	writeq(EDU_XFER, edu->regs + EDU_REG_DMA_CNT);
	writeq(EDU_DMA_RUN | (to_ram ? EDU_DMA_TO_RAM : 0),
	       edu->regs + EDU_REG_DMA_CMD);
	/* edu completes a transfer 100 ms of virtual time after the start. */
	for (i = 0; i < 300; i++) {
		if (!(readq(edu->regs + EDU_REG_DMA_CMD) & EDU_DMA_RUN))
			return 0;
		usleep_range(5000, 10000);
	}
	return -ETIMEDOUT;
}

/*
 * What the device reads at @iova: the first byte of the page it reaches;
 * on a fault not 0xaa or 0xbb (QEMU's edu then reads zeros, or leaves the
 * sentinel in its buffer).
 */
static int edu_peek(struct edu *edu, unsigned long iova, u8 *seen)
{
	u8 *rb = page_address(edu->readback);
	int ret;

	ret = edu_dma(edu, IOVA_SENTINEL, EDU_BUF, false);
	if (!ret)
		ret = edu_dma(edu, iova, EDU_BUF, false);
	memset(rb, 0, EDU_XFER);
	if (!ret)
		ret = edu_dma(edu, EDU_BUF, IOVA_READBACK, true);
	*seen = rb[0];
	return ret;
}

/*
 * Map @size at @iova as 4K pages, one iommu_map() each, as scattered pages
 * of a scatter-gather list would be (a single call would use 2 MiB blocks,
 * and there would be no tables to free).  Page @i goes to @pa + @i * @step:
 * a step of 0 backs every page with the same page.
 */
static int edu_map_pages(struct edu *edu, unsigned long iova, phys_addr_t pa,
			 size_t step, size_t size)
{
	unsigned long off;
	int ret;

	for (off = 0; off < size; off += SZ_4K) {
		ret = iommu_map(edu->dom, iova + off, pa + off / SZ_4K * step,
				SZ_4K, IOMMU_READ | IOMMU_WRITE, GFP_KERNEL);
		if (ret) {
			iommu_unmap(edu->dom, iova, off);
			return ret;
		}
	}
	return 0;
}

/* The device only needs to tell A from B: one page backs them all. */
static int edu_map_all(struct edu *edu, size_t size, struct page *page)
{
	return edu_map_pages(edu, IOVA_TEST, page_to_phys(page), 0, size);
}

static u64 edu_cmds(struct fp_context *ctx)
{
	return fp_context_stat(ctx, FP_STAT_TLBI_VA) +
	       fp_context_stat(ctx, FP_STAT_TLBI_RANGE) +
	       fp_context_stat(ctx, FP_STAT_TLBI_ASID) +
	       fp_context_stat(ctx, FP_STAT_TLBI_ALL);
}

/* The pages sampled: the first, and one inside the last 2 MiB table. */
static unsigned long edu_sample(size_t size, int i)
{
	return i == 0 ? 0 : size - SZ_4K * (size > SZ_4K ? 3 : 1);
}

static int edu_check(struct edu *edu, size_t size)
{
	struct fp_context *ctx = edu->ctx;
	u64 cmds = edu_cmds(ctx), syncs = fp_context_stat(ctx, FP_STAT_SYNCS);
	int i, ret, stale = 0, faults = 0;
	u8 seen;

	ret = edu_map_all(edu, size, edu->a);
	if (ret)
		return ret;
	for (i = 0; i < 2; i++) {
		ret = edu_peek(edu, IOVA_TEST + edu_sample(size, i), &seen);
		if (ret || seen != 0xaa) {
			pr_err("check %zu: before unmap the device read %#x\n",
			       size, seen);
			iommu_unmap(edu->dom, IOVA_TEST, size);
			return ret ?: -EIO;
		}
	}

	if (iommu_unmap(edu->dom, IOVA_TEST, size) != size)
		return -EIO;
	ret = edu_map_all(edu, size, edu->b);
	if (ret)
		return ret;

	for (i = 0; i < 2; i++) {
		ret = edu_peek(edu, IOVA_TEST + edu_sample(size, i), &seen);
		if (ret)
			break;
		stale += seen == 0xaa;
		faults += seen != 0xaa && seen != 0xbb;
	}
	iommu_unmap(edu->dom, IOVA_TEST, size);

	pr_info("fp-e2e: check size=%zu stale=%d faults=%d cmds=%llu syncs=%llu\n",
		size, stale, faults, edu_cmds(ctx) - cmds,
		fp_context_stat(ctx, FP_STAT_SYNCS) - syncs);
	return ret ?: stale ? -EIO : 0;
}

/* Nothing is mapped there: the device must get a fault, not memory. */
static int edu_fault(struct edu *edu)
{
	u8 seen;
	int ret = edu_peek(edu, IOVA_TEST + SZ_64M, &seen);

	pr_info("fp-e2e: fault seen=%#x\n", seen);
	return ret ?: seen == 0xaa || seen == 0xbb ? -EIO : 0;
}

/* Map @size of 4K pages, unmap it, and say how long the unmap took. */
static int edu_map_unmap(struct edu *edu, size_t size, u64 *ns)
{
	u64 t0;
	int ret;

	/* Identity-mapped: the benchmark never lets the device DMA. */
	ret = edu_map_pages(edu, IOVA_TEST, IOVA_TEST, SZ_4K, size);
	if (ret)
		return ret;
	t0 = ktime_get_ns();
	if (iommu_unmap(edu->dom, IOVA_TEST, size) != size)
		return -EIO;
	*ns = ktime_get_ns() - t0;
	return 0;
}

static int edu_bench(struct edu *edu, size_t size, unsigned int reps)
{
	struct fp_context *ctx = edu->ctx;
	u64 cmds, syncs, *ns;
	unsigned int i;
	int ret;

	if (!reps || reps > EDU_BENCH_MAX_REPS)
		return -EINVAL;
	ns = kcalloc(reps, sizeof(*ns), GFP_KERNEL);
	if (!ns)
		return -ENOMEM;

	/*
	 * One unmap first, neither timed nor counted: the first pass through
	 * a code path costs QEMU its translation, which hardware never pays.
	 */
	ret = edu_map_unmap(edu, size, &ns[0]);
	cmds = edu_cmds(ctx);
	syncs = fp_context_stat(ctx, FP_STAT_SYNCS);
	for (i = 0; i < reps && !ret; i++) {
		ret = edu_map_unmap(edu, size, &ns[i]);
		cond_resched();
	}
	if (!ret) {
		edu_bench_report(ns, reps, size, (edu_cmds(ctx) - cmds) / reps,
				 (fp_context_stat(ctx, FP_STAT_SYNCS) - syncs) /
				 reps);
	}
	kfree(ns);
	return ret;
}

/*
 * Attach @n paging domains in turn, keeping each (and its ASID) alive,
 * then go back to the device's own: more than 255 must fit where IDR0
 * says ASIDs have 16 bits.
 */
static int edu_domains(struct edu *edu, unsigned int n)
{
	struct device *dev = &edu->pdev->dev;
	struct iommu_domain **doms;
	unsigned int i;
	int ret = 0;

	doms = kcalloc(n, sizeof(*doms), GFP_KERNEL);
	if (!doms)
		return -ENOMEM;
	iommu_detach_device(edu->dom, dev);
	for (i = 0; i < n; i++) {
		doms[i] = iommu_paging_domain_alloc(dev);
		if (IS_ERR(doms[i])) {
			ret = PTR_ERR(doms[i]);
			doms[i] = NULL;
			break;
		}
		ret = iommu_attach_device(doms[i], dev);
		if (ret)
			break;
		iommu_detach_device(doms[i], dev);
	}
	pr_info("fp-e2e: domains %u of %u attached, last %s: %d\n", i, n,
		i ? smmuv3_iommu_ctx_name(doms[i - 1]) : "none", ret);
	for (i = 0; i < n; i++)
		if (doms[i])
			iommu_domain_free(doms[i]);
	kfree(doms);
	return iommu_attach_device(edu->dom, dev) ?: ret;
}

static struct edu *the_edu;

static ssize_t run_store(struct device_driver *drv, const char *buf,
			 size_t count)
{
	struct edu *edu = the_edu;
	unsigned long a = 0, b = 0;
	char cmd[16];
	int n, ret;

	if (!edu)
		return -ENODEV;
	n = sscanf(buf, "%15s %lu %lu", cmd, &a, &b);
	if (n < 1)
		return -EINVAL;

	mutex_lock(&edu->lock);
	if (!strcmp(cmd, "check") && a && a <= SZ_32M && IS_ALIGNED(a, SZ_4K)) {
		ret = edu_check(edu, a);
	} else if (!strcmp(cmd, "stress")) {
		ret = 0;
		while (a-- && !ret)
			ret = edu_check(edu, SZ_2M);
	} else if (!strcmp(cmd, "bench") && n == 3 && a && a <= SZ_32M &&
		   IS_ALIGNED(a, SZ_4K)) {
		ret = edu_bench(edu, a, b);
	} else if (!strcmp(cmd, "domains") && a && a <= 4096) {
		ret = edu_domains(edu, a);
	} else if (!strcmp(cmd, "fault")) {
		ret = edu_fault(edu);
	} else if (!strcmp(cmd, "mark")) {
		ret = smmuv3_iommu_mark(edu->dom, a);
	} else {
		ret = -EINVAL;
	}
	mutex_unlock(&edu->lock);
	return ret ?: count;
}

static DRIVER_ATTR_WO(run);

static ssize_t context_show(struct device_driver *drv, char *buf)
{
	struct edu *edu = the_edu;

	return edu ? sysfs_emit(buf, "%s\n", smmuv3_iommu_ctx_name(edu->dom)) :
		     -ENODEV;
}

static DRIVER_ATTR_RO(context);

static struct attribute *edu_drv_attrs[] = {
	&driver_attr_run.attr,
	&driver_attr_context.attr,
	NULL,
};
ATTRIBUTE_GROUPS(edu_drv);

static struct page *edu_page(u8 fill)
{
	struct page *p = alloc_page(GFP_KERNEL);

	if (p)
		memset(page_address(p), fill, PAGE_SIZE);
	return p;
}

static int edu_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct edu *edu;
	int ret;

	edu = devm_kzalloc(&pdev->dev, sizeof(*edu), GFP_KERNEL);
	if (!edu)
		return -ENOMEM;
	edu->pdev = pdev;
	mutex_init(&edu->lock);

	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;
	edu->regs = pcim_iomap(pdev, 0, 0);
	if (!edu->regs)
		return -ENOMEM;
	pci_set_master(pdev);

	edu->a = edu_page(0xaa);
	edu->b = edu_page(0xbb);
	edu->sentinel = edu_page(0x5e);
	edu->readback = edu_page(0);
	if (!edu->a || !edu->b || !edu->sentinel || !edu->readback) {
		ret = -ENOMEM;
		goto err_pages;
	}

	edu->dom = iommu_paging_domain_alloc(&pdev->dev);
	if (IS_ERR(edu->dom)) {
		ret = dev_err_probe(&pdev->dev, PTR_ERR(edu->dom),
				    "no paging domain (is flushpol_smmuv3 loaded?)\n");
		goto err_pages;
	}
	ret = iommu_attach_device(edu->dom, &pdev->dev);
	if (ret)
		goto err_free;
	edu->ctx = smmuv3_iommu_ctx(edu->dom);
	if (!edu->ctx) {
		ret = dev_err_probe(&pdev->dev, -ENODEV,
				    "not behind flushpol_smmuv3\n");
		goto err_detach;
	}
	ret = iommu_map(edu->dom, IOVA_SENTINEL, page_to_phys(edu->sentinel),
			SZ_4K, IOMMU_READ, GFP_KERNEL);
	if (!ret)
		ret = iommu_map(edu->dom, IOVA_READBACK,
				page_to_phys(edu->readback), SZ_4K,
				IOMMU_READ | IOMMU_WRITE, GFP_KERNEL);
	if (ret)
		goto err_detach;

	pci_set_drvdata(pdev, edu);
	the_edu = edu;
	dev_info(&pdev->dev, "in a paging domain of its own: %s\n",
		 smmuv3_iommu_ctx_name(edu->dom));
	return 0;

err_detach:
	iommu_detach_device(edu->dom, &pdev->dev);
err_free:
	iommu_domain_free(edu->dom);
err_pages:
	__free_page(edu->a);
	__free_page(edu->b);
	__free_page(edu->sentinel);
	__free_page(edu->readback);
	return ret;
}

static void edu_remove(struct pci_dev *pdev)
{
	struct edu *edu = pci_get_drvdata(pdev);

	the_edu = NULL;
	iommu_detach_device(edu->dom, &pdev->dev);
	iommu_domain_free(edu->dom);
	__free_page(edu->a);
	__free_page(edu->b);
	__free_page(edu->sentinel);
	__free_page(edu->readback);
}

/*
 * A deliberately broken policy: it sends the right invalidations but never
 * waits for them.  The same check that passes every real policy must catch
 * it, or the check proves nothing.
 */
static void e2e_nosync_walk(struct fp_context *ctx, unsigned long iova,
			    size_t size, size_t granule)
{
	fp_inv_va(ctx, iova, size, granule, false);
}

static void e2e_nosync_gather(struct fp_context *ctx,
			      const struct iommu_iotlb_gather *gather)
{
	if (fp_gather_pages(gather))
		fp_inv_va(ctx, gather->start, gather->end - gather->start + 1,
			  gather->pgsize, true);
}

static struct fp_policy e2e_nosync = {
	.name		= "e2e_nosync",
	.owner		= THIS_MODULE,
	.flush_walk	= e2e_nosync_walk,
	.flush_gather	= e2e_nosync_gather,
};

static const struct pci_device_id edu_ids[] = {
	{ PCI_DEVICE(0x1234, 0x11e8) },
	{ }
};
MODULE_DEVICE_TABLE(pci, edu_ids);

static struct pci_driver edu_driver = {
	.name		= "flushpol_edu",
	.id_table	= edu_ids,
	.probe		= edu_probe,
	.remove		= edu_remove,
	.groups		= edu_drv_groups,
	/* The device DMAs through our domain, not the DMA API's. */
	.driver_managed_dma = true,
};

static int __init edu_init(void)
{
	int ret = fp_policy_register(&e2e_nosync);

	if (ret)
		return ret;
	ret = pci_register_driver(&edu_driver);
	if (ret)
		fp_policy_unregister(&e2e_nosync);
	return ret;
}

static void __exit edu_exit(void)
{
	pci_unregister_driver(&edu_driver);
	fp_policy_unregister(&e2e_nosync);
}

module_init(edu_init);
module_exit(edu_exit);

MODULE_DESCRIPTION("flushpol end-to-end test and benchmark on QEMU's edu device");
MODULE_LICENSE("GPL");
