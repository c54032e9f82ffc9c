// SPDX-License-Identifier: GPL-2.0-only
/*
 * flushpol_edu's unmap benchmark, through the kernel's IOMMU API and the
 * upstream in-tree arm-smmu-v3 driver instead of flushpol: the reference
 * make bench holds the policies against, on the same QEMU machine and
 * kernel.
 *
 * The guest boots without initcall_blacklist, so the in-tree driver owns
 * the SMMU.  This driver gives QEMU's edu device a paging domain of its own
 * (driver_managed_dma: the DMA API's default domain is not kept), maps
 * 4 KiB pages one iommu_map() at a time, as a scatter-gather list of
 * scattered pages would be, and times one iommu_unmap() of the whole range:
 * strict, ended by the driver's iotlb_sync, as flushpol_edu's unmaps are.
 *
 * Driven through /sys/bus/pci/drivers/flushpol_edu_upstream/run:
 *   bench SIZE REPS   time REPS unmaps of SIZE of 4K pages, print
 *                     "fp-bench:" as flushpol_edu does (cmds and syncs
 *                     unknown here: 0)
 *   phases SIZE REPS  the same, iommu_unmap_fast() and iommu_iotlb_sync()
 *                     timed apart, and flush_iotlb_all (edu_bench.h)
 *   insn N            N 4K maps, then N 4K unmaps, between markers for
 *                     QEMU's instruction counts (edu_bench.h)
 *   once SIZE         one untimed map and unmap of SIZE, for counting
 *   mark              iommu_flush_iotlb_all() twice: CMD_TLBI_NH_ASID,
 *                     CMD_SYNC, CMD_TLBI_NH_ASID, CMD_SYNC, which no unmap
 *                     or teardown sends, to split QEMU's command trace at
 *
 * Test code: not part of the DKMS package.
 */
#define pr_fmt(fmt) "flushpol_edu_upstream: " fmt

#include <linux/iommu.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/sizes.h>
#include <linux/slab.h>

#include "compat.h"
#include "edu_bench.h"

/* The IOVA flushpol_edu times at; never reached by DMA here. */
#define IOVA_TEST		SZ_64M

struct edu_up {
	struct pci_dev *pdev;
	struct iommu_domain *dom;
	struct mutex lock;	/* one command at a time */
};

static struct edu_up *the_edu;

/* Map @size of 4K pages, unmap it, and say how long the unmap took. */
static int edu_map_unmap(struct edu_up *edu, size_t size, u64 *ns)
{
	u64 t0;
	int ret;

	ret = edu_bench_map(edu->dom, IOVA_TEST, size);
	if (ret)
		return ret;
	t0 = ktime_get_ns();
	if (iommu_unmap(edu->dom, IOVA_TEST, size) != size)
		return -EIO;
	*ns = ktime_get_ns() - t0;
	return 0;
}

static int edu_bench(struct edu_up *edu, size_t size, unsigned int reps)
{
	unsigned int i;
	int ret;
	u64 *ns;

	if (!reps || reps > EDU_BENCH_MAX_REPS)
		return -EINVAL;
	ns = kcalloc(reps, sizeof(*ns), GFP_KERNEL);
	if (!ns)
		return -ENOMEM;

	/* As flushpol_edu: one unmap first, untimed, for QEMU's translation. */
	ret = edu_map_unmap(edu, size, &ns[0]);
	for (i = 0; i < reps && !ret; i++) {
		ret = edu_map_unmap(edu, size, &ns[i]);
		cond_resched();
	}
	if (!ret)
		edu_bench_report(ns, reps, size, 0, 0);
	kfree(ns);
	return ret;
}

/* The instruction-count markers passed since boot (edu_bench_insn()). */
static unsigned long edu_insn_marks;

static ssize_t run_store(struct device_driver *drv, const char *buf,
			 size_t count)
{
	struct edu_up *edu = the_edu;
	unsigned long a = 0, b = 0;
	char cmd[16];
	int n, ret;

	if (!edu)
		return -ENODEV;
	n = sscanf(buf, "%15s %lu %lu", cmd, &a, &b);
	if (n < 1)
		return -EINVAL;

	mutex_lock(&edu->lock);
	if (!strcmp(cmd, "bench") && n == 3 && a && a <= SZ_32M &&
	    IS_ALIGNED(a, SZ_4K)) {
		ret = edu_bench(edu, a, b);
	} else if (!strcmp(cmd, "phases") && n == 3 && a && a <= SZ_32M &&
		   IS_ALIGNED(a, SZ_4K)) {
		ret = edu_bench_phases(edu->dom, IOVA_TEST, a, b);
	} else if (!strcmp(cmd, "insn") && n == 2) {
		ret = edu_bench_insn(edu->dom, IOVA_TEST, a, &edu_insn_marks);
	} else if (!strcmp(cmd, "once") && n >= 2 && a && a <= SZ_32M &&
		   IS_ALIGNED(a, SZ_4K)) {
		u64 ns;

		ret = edu_map_unmap(edu, a, &ns);
	} else if (!strcmp(cmd, "mark")) {
		iommu_flush_iotlb_all(edu->dom);
		iommu_flush_iotlb_all(edu->dom);
		ret = 0;
	} else {
		ret = -EINVAL;
	}
	mutex_unlock(&edu->lock);
	return ret ?: count;
}

static DRIVER_ATTR_WO(run);

static struct attribute *edu_drv_attrs[] = {
	&driver_attr_run.attr,
	NULL,
};
ATTRIBUTE_GROUPS(edu_drv);

static int edu_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct edu_up *edu;
	int ret;

	edu = devm_kzalloc(&pdev->dev, sizeof(*edu), GFP_KERNEL);
	if (!edu)
		return -ENOMEM;
	edu->pdev = pdev;
	mutex_init(&edu->lock);

	edu->dom = iommu_paging_domain_alloc(&pdev->dev);
	if (IS_ERR(edu->dom))
		return dev_err_probe(&pdev->dev, PTR_ERR(edu->dom),
				     "no paging domain (is the in-tree SMMU driver on?)\n");
	ret = iommu_attach_device(edu->dom, &pdev->dev);
	if (ret) {
		iommu_domain_free(edu->dom);
		return dev_err_probe(&pdev->dev, ret, "attach failed\n");
	}

	pci_set_drvdata(pdev, edu);
	the_edu = edu;
	dev_info(&pdev->dev, "attached to a paging domain of its own\n");
	return 0;
}

static void edu_remove(struct pci_dev *pdev)
{
	struct edu_up *edu = pci_get_drvdata(pdev);

	the_edu = NULL;
	iommu_detach_device(edu->dom, &pdev->dev);
	iommu_domain_free(edu->dom);
}

static const struct pci_device_id edu_ids[] = {
	{ PCI_DEVICE(0x1234, 0x11e8) },
	{ }
};
MODULE_DEVICE_TABLE(pci, edu_ids);

static struct pci_driver edu_driver = {
	.name			= "flushpol_edu_upstream",
	.id_table		= edu_ids,
	.probe			= edu_probe,
	.remove			= edu_remove,
	.groups			= edu_drv_groups,
	/* The device DMAs through our domain, not the DMA API's. */
	.driver_managed_dma	= true,
};
module_pci_driver(edu_driver);

MODULE_DESCRIPTION("flushpol's unmap benchmark through the upstream IOMMU API, on QEMU's edu device");
MODULE_LICENSE("GPL");
