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
 *   check SIZE        map X->A as 4K pages, DMA, unmap, map X->B, DMA:
 *                     must see B (or a fault) at every sample, never A
 *   blocks SIZE       the same with 2M blocks, 4K pages for the rest
 *   split SIZE        map a 2M block to A, DMA, unmap its last SIZE (the
 *                     block is split), map that to B as 4K pages, DMA
 *   hole SIZE         map SIZE to A, leave SIZE unmapped, map SIZE more
 *                     (2M blocks if SIZE is a multiple of 2M, else 4K
 *                     pages), DMA, unmap all three with one iommu_unmap():
 *                     it stops at the hole; what it cleared must fault,
 *                     what lies past the hole must still read A
 *   stress N          N rounds of check 2M, for policy switches under load
 *   bench SIZE REPS   time REPS unmaps of SIZE of 4K pages (no DMA)
 *   phases SIZE REPS  the same, iommu_unmap_fast() and iommu_iotlb_sync()
 *                     timed apart, and flush_iotlb_all (edu_bench.h)
 *   insn N            N 4K maps, then N 4K unmaps, between markers for
 *                     QEMU's instruction counts (edu_bench.h)
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
/*
 * One sample's transfer.  QEMU 7.2's edu aborts on a transfer that ends at
 * the end of its 4 KiB buffer, so one slot of the buffer stays unused.
 */
#define EDU_XFER		64
#define EDU_SLOTS		(SZ_4K / EDU_XFER - 1)

/* edu masks DMA addresses to 28 bits: everything lives below 256 MiB. */
#define IOVA_TEST		SZ_64M	/* what is mapped, unmapped, remapped */
#define IOVA_SENTINEL		SZ_16M	/* a page of 0x5e, never unmapped */
#define IOVA_READBACK		(SZ_16M + SZ_4K) /* where results land */
#define EDU_CHECK_MAX		SZ_32M

/* Where a sample is, named as the check's report names it. */
enum edu_where {
	EDU_RANGE_LAST,		/* the last page of the range */
	EDU_TABLE_FIRST,	/* the first page of a 2 MiB table, or the range */
	EDU_TABLE_LAST,		/* the last page of a 2 MiB table */
	EDU_STRADDLE,		/* a DMA across a page boundary */
	EDU_WHERE_NR,
};

static const char *const edu_where_name[EDU_WHERE_NR] = {
	[EDU_RANGE_LAST]	= "range-last",
	[EDU_TABLE_FIRST]	= "table-first",
	[EDU_TABLE_LAST]	= "table-last",
	[EDU_STRADDLE]		= "straddle",
};

/* How a check maps the range. */
enum edu_how {
	EDU_PAGES,	/* 4K pages */
	EDU_BLOCKS,	/* 2M blocks while a whole one fits, then 4K pages */
	EDU_SPLIT,	/* the end of a 2M block, unmapped: split */
};

static const char *const edu_how_name[] = {
	[EDU_PAGES]	= "4k",
	[EDU_BLOCKS]	= "2m",
	[EDU_SPLIT]	= "split",
};

/* One DMA of EDU_XFER bytes, from IOVA_TEST + @off. */
struct edu_sample {
	unsigned long off;
	enum edu_where where;
};

struct edu {
	struct pci_dev *pdev;
	void __iomem *regs;
	struct iommu_domain *dom;
	struct fp_context *ctx;
	/* A and B: 2 MiB each, physically contiguous and aligned. */
	struct page *a, *b, *sentinel, *readback;
	struct edu_sample samples[EDU_SLOTS];
	/*
	 * The last mark, printed with each check: from 7.x on, printk reaches
	 * the console from a thread of its own, after the guest script's
	 * next mark, so the host cannot pair a check with the mark before it.
	 */
	unsigned long mark;
	struct mutex lock;	/* one command at a time */
};

static int edu_dma(struct edu *edu, u64 src, u64 dst, u64 cnt, bool to_ram)
{
	int i;

	writeq(src, edu->regs + EDU_REG_DMA_SRC);
	writeq(dst, edu->regs + EDU_REG_DMA_DST);
	writeq(cnt, edu->regs + EDU_REG_DMA_CNT);
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
 * Have the device read each of @n samples into a slot of its buffer, then
 * write the slots to the readback page: @n + 2 DMAs, each of which costs
 * edu 100 ms.  Slots start as the sentinel's 0x5e, which a read that
 * faults leaves (or replaces with zeros).  Returns the slots.
 */
static const u8 *edu_read(struct edu *edu, const struct edu_sample *s, int n,
			  int *ret)
{
	u8 *rb = page_address(edu->readback);
	int i;

	*ret = edu_dma(edu, IOVA_SENTINEL, EDU_BUF, n * EDU_XFER, false);
	for (i = 0; i < n && !*ret; i++)
		*ret = edu_dma(edu, IOVA_TEST + s[i].off,
			       EDU_BUF + i * EDU_XFER, EDU_XFER, false);
	memset(rb, 0, n * EDU_XFER);
	if (!*ret)
		*ret = edu_dma(edu, EDU_BUF, IOVA_READBACK, n * EDU_XFER, true);
	return rb;
}

/* What sample @i saw: its first byte's page and its last byte's page. */
static bool edu_saw(const u8 *slots, int i, u8 byte)
{
	return slots[i * EDU_XFER] == byte ||
	       slots[(i + 1) * EDU_XFER - 1] == byte;
}

static bool edu_saw_only(const u8 *slots, int i, u8 byte)
{
	return slots[i * EDU_XFER] == byte &&
	       slots[(i + 1) * EDU_XFER - 1] == byte;
}

static void edu_sample_add(struct edu_sample *s, int *n, unsigned long off,
			   enum edu_where where)
{
	int i;

	for (i = 0; i < *n; i++)
		if (s[i].off == off)
			return;
	if (!WARN_ON(*n >= EDU_SLOTS))
		s[(*n)++] = (struct edu_sample){ .off = off, .where = where };
}

/*
 * Where a check of @size looks, deterministically: where an invalidation
 * that falls short, starts late or stops at a table's edge leaves a stale
 * entry.  The last page of the range; the first and last page of every
 * 2 MiB table (io-pgtable flushes each freed table on its own); and DMAs
 * across page boundaries: between every two tables, out of the first page
 * and into the last.  32M gives 49 samples.
 */
static int edu_samples(size_t size, struct edu_sample *s)
{
	unsigned long t, end;
	int n = 0;

	edu_sample_add(s, &n, size - SZ_4K, EDU_RANGE_LAST);
	for (t = 0; t < size; t += SZ_2M) {
		end = min_t(unsigned long, t + SZ_2M, size);
		edu_sample_add(s, &n, t, EDU_TABLE_FIRST);
		edu_sample_add(s, &n, end - SZ_4K, EDU_TABLE_LAST);
		if (end < size)
			edu_sample_add(s, &n, end - EDU_XFER / 2, EDU_STRADDLE);
	}
	if (size > SZ_4K) {
		edu_sample_add(s, &n, SZ_4K - EDU_XFER / 2, EDU_STRADDLE);
		edu_sample_add(s, &n, size - SZ_4K - EDU_XFER / 2,
			       EDU_STRADDLE);
	}
	return n;
}

/*
 * Map [@start, @start + @size) of IOVA_TEST to the 2 MiB at @chunk: as 4K
 * pages, one iommu_map() each, as scattered pages of a scatter-gather list
 * would be (a single call would use 2 MiB blocks, and there would be no
 * tables to free); or, with @blocks, as 2 MiB blocks while a whole one
 * fits, and 4K pages after.  IOVA_TEST and @chunk are 2 MiB aligned, so
 * io-pgtable makes block entries of them.
 */
static int edu_map_all(struct edu *edu, unsigned long start, size_t size,
		       struct page *chunk, bool blocks)
{
	phys_addr_t pa = page_to_phys(chunk);
	unsigned long off;
	size_t pgsize;
	int ret;

	for (off = start; off < start + size; off += pgsize) {
		pgsize = blocks && IS_ALIGNED(off, SZ_2M) &&
			 start + size - off >= SZ_2M ? SZ_2M : SZ_4K;
		ret = iommu_map(edu->dom, IOVA_TEST + off, pa + off % SZ_2M,
				pgsize, IOMMU_READ | IOMMU_WRITE, GFP_KERNEL);
		if (ret) {
			iommu_unmap(edu->dom, IOVA_TEST + start, off - start);
			return ret;
		}
	}
	return 0;
}

static u64 edu_cmds(struct fp_context *ctx)
{
	return fp_context_stat(ctx, FP_STAT_TLBI_VA) +
	       fp_context_stat(ctx, FP_STAT_TLBI_RANGE) +
	       fp_context_stat(ctx, FP_STAT_TLBI_ASID) +
	       fp_context_stat(ctx, FP_STAT_TLBI_ALL);
}

/*
 * Map X->A, let the device read every sample (so QEMU's IOTLB holds their
 * translations), unmap, map X->B, read again: an invalidation missing,
 * short or not synced shows as a sample reading A.  With EDU_SPLIT, A is
 * one 2M block and only its last @size is unmapped and remapped: io-pgtable
 * splits the block, whose cached entry must go all the same.  The check
 * line names the counts; a "stale" line each sample that read A.
 */
static int edu_check(struct edu *edu, size_t size, enum edu_how how)
{
	struct fp_context *ctx = edu->ctx;
	u64 cmds = edu_cmds(ctx), syncs = fp_context_stat(ctx, FP_STAT_SYNCS);
	unsigned long cut = how == EDU_SPLIT ? SZ_2M - size : 0;
	size_t whole = how == EDU_SPLIT ? SZ_2M : size, mapped = 0;
	struct edu_sample *s = edu->samples;
	int i, n, ret, stale = 0, faults = 0;
	const u8 *seen;

	n = edu_samples(size, s);
	for (i = 0; i < n; i++)
		s[i].off += cut;
	ret = edu_map_all(edu, 0, whole, edu->a, how != EDU_PAGES);
	if (ret)
		return ret;
	mapped = whole;
	seen = edu_read(edu, s, n, &ret);
	for (i = 0; i < n && !ret; i++) {
		if (!edu_saw_only(seen, i, 0xaa)) {
			pr_err("check %zu: before unmap the device read %#x %#x at +%#lx\n",
			       size, seen[i * EDU_XFER],
			       seen[(i + 1) * EDU_XFER - 1], s[i].off);
			ret = -EIO;
		}
	}
	if (ret)
		goto out;

	mapped = cut;
	if (iommu_unmap(edu->dom, IOVA_TEST + cut, size) != size) {
		ret = -EIO;
		goto out;
	}
	ret = edu_map_all(edu, cut, size, edu->b, how == EDU_BLOCKS);
	if (ret)
		goto out;
	mapped = whole;

	seen = edu_read(edu, s, n, &ret);
	for (i = 0; i < n && !ret; i++) {
		if (edu_saw(seen, i, 0xaa)) {
			pr_info("fp-e2e: stale %s +%#lx\n",
				edu_where_name[s[i].where], s[i].off);
			stale++;
		} else if (!edu_saw_only(seen, i, 0xbb)) {
			faults++;
		}
	}
	iommu_unmap(edu->dom, IOVA_TEST, whole);

	/* The counts take in both unmaps, as QEMU's trace does. */
	pr_info("fp-e2e: check mark=%lu size=%zu map=%s samples=%d stale=%d faults=%d cmds=%llu syncs=%llu\n",
		edu->mark, size, edu_how_name[how], n, stale, faults,
		edu_cmds(ctx) - cmds, fp_context_stat(ctx, FP_STAT_SYNCS) - syncs);
	return ret ?: stale ? -EIO : 0;

out:
	/* Never an IOVA that is not mapped: io-pgtable warns. */
	if (mapped)
		iommu_unmap(edu->dom, IOVA_TEST, mapped);
	return ret;
}

/*
 * An unmap over a hole: [0, @size) and [2 * @size, 3 * @size) map A, the
 * @size between them nothing.  iommu_unmap() of all three stops at the
 * hole and returns @size; the pages it cleared must be invalidated by
 * then (a sample there reading A is stale), and the ones past the hole,
 * never reached, must still read A.  With 2M blocks the unmap_pages call
 * spans the hole, so it is the driver's gather, not only the core's, that
 * must reach the policy for the cleared block.  io-pgtable-arm warns at
 * the hole (each time the unmap meets it): the "fp-expect-warn:" lines
 * bracket the warnings run-guest.sh is to expect.
 */
static int edu_hole(struct edu *edu, size_t size)
{
	struct fp_context *ctx = edu->ctx;
	u64 cmds = edu_cmds(ctx), syncs = fp_context_stat(ctx, FP_STAT_SYNCS);
	bool blocks = IS_ALIGNED(size, SZ_2M);
	struct edu_sample *s = edu->samples;
	int i, n, ret, stale = 0, faults = 0;
	const u8 *seen;
	size_t cleared;

	n = edu_samples(size, s);
	for (i = 0; i < n; i++)
		s[n + i] = (struct edu_sample){ .off = s[i].off + 2 * size,
						.where = s[i].where };
	ret = edu_map_all(edu, 0, size, edu->a, blocks);
	if (ret)
		return ret;
	ret = edu_map_all(edu, 2 * size, size, edu->a, blocks);
	if (ret)
		goto out_first;
	seen = edu_read(edu, s, 2 * n, &ret);
	for (i = 0; i < 2 * n && !ret; i++)
		if (!edu_saw_only(seen, i, 0xaa))
			ret = -EIO;
	if (ret) {
		iommu_unmap(edu->dom, IOVA_TEST + 2 * size, size);
		goto out_first;
	}

	pr_info("fp-expect-warn: begin __arm_lpae_unmap\n");
	cleared = iommu_unmap(edu->dom, IOVA_TEST, 3 * size);
	pr_info("fp-expect-warn: end\n");
	if (cleared != size) {
		pr_err("hole %zu: iommu_unmap() unmapped %zu\n", size, cleared);
		ret = -EIO;
	}

	seen = edu_read(edu, s, 2 * n, &ret);
	for (i = 0; i < n && !ret; i++) {
		if (edu_saw(seen, i, 0xaa)) {
			pr_info("fp-e2e: stale %s +%#lx\n",
				edu_where_name[s[i].where], s[i].off);
			stale++;
		} else {
			faults++;
		}
	}
	for (; i < 2 * n && !ret; i++) {
		if (!edu_saw_only(seen, i, 0xaa)) {
			pr_err("hole %zu: past the hole the device read %#x %#x at +%#lx\n",
			       size, seen[i * EDU_XFER],
			       seen[(i + 1) * EDU_XFER - 1], s[i].off);
			ret = -EIO;
		}
	}
	iommu_unmap(edu->dom, IOVA_TEST + 2 * size, size);

	pr_info("fp-e2e: check mark=%lu size=%zu map=hole samples=%d stale=%d faults=%d cmds=%llu syncs=%llu\n",
		edu->mark, size, 2 * n, stale, faults, edu_cmds(ctx) - cmds,
		fp_context_stat(ctx, FP_STAT_SYNCS) - syncs);
	return ret ?: stale ? -EIO : 0;

out_first:
	iommu_unmap(edu->dom, IOVA_TEST, size);
	return ret;
}

/* Nothing is mapped there: the device must get a fault, not memory. */
static int edu_fault(struct edu *edu)
{
	struct edu_sample s = { .off = SZ_64M };
	const u8 *seen;
	int ret;

	seen = edu_read(edu, &s, 1, &ret);
	pr_info("fp-e2e: fault seen=%#x\n", seen[0]);
	return ret ?: edu_saw(seen, 0, 0xaa) || edu_saw(seen, 0, 0xbb) ? -EIO : 0;
}

/* Map @size of 4K pages, unmap it, and say how long the unmap took. */
static int edu_map_unmap(struct edu *edu, size_t size, u64 *ns)
{
	u64 t0;
	int ret;

	/* Identity-mapped: the benchmark never lets the device DMA. */
	ret = edu_bench_map(edu->dom, IOVA_TEST, size);
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

/* The instruction-count markers passed since boot (edu_bench_insn()). */
static unsigned long edu_insn_marks;

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
	if (!strcmp(cmd, "check") && a && a <= EDU_CHECK_MAX &&
	    IS_ALIGNED(a, SZ_4K)) {
		ret = edu_check(edu, a, EDU_PAGES);
	} else if (!strcmp(cmd, "blocks") && a && a <= EDU_CHECK_MAX &&
		   IS_ALIGNED(a, SZ_4K)) {
		ret = edu_check(edu, a, EDU_BLOCKS);
	} else if (!strcmp(cmd, "split") && a && a < SZ_2M &&
		   IS_ALIGNED(a, SZ_4K)) {
		ret = edu_check(edu, a, EDU_SPLIT);
	} else if (!strcmp(cmd, "hole") && a && a <= EDU_CHECK_MAX / 4 &&
		   IS_ALIGNED(a, SZ_4K)) {
		ret = edu_hole(edu, a);
	} else if (!strcmp(cmd, "stress")) {
		ret = 0;
		while (a-- && !ret)
			ret = edu_check(edu, SZ_2M, EDU_PAGES);
	} else if (!strcmp(cmd, "bench") && n == 3 && a && a <= SZ_32M &&
		   IS_ALIGNED(a, SZ_4K)) {
		ret = edu_bench(edu, a, b);
	} else if (!strcmp(cmd, "phases") && n == 3 && a && a <= SZ_32M &&
		   IS_ALIGNED(a, SZ_4K)) {
		ret = edu_bench_phases(edu->dom, IOVA_TEST, a, b);
	} else if (!strcmp(cmd, "insn") && n == 2) {
		ret = edu_bench_insn(edu->dom, IOVA_TEST, a, &edu_insn_marks);
	} else if (!strcmp(cmd, "domains") && a && a <= 4096) {
		ret = edu_domains(edu, a);
	} else if (!strcmp(cmd, "fault")) {
		ret = edu_fault(edu);
	} else if (!strcmp(cmd, "mark")) {
		ret = smmuv3_iommu_mark(edu->dom, a);
		if (!ret)
			edu->mark = a;
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

/* 2^@order pages of @fill, physically contiguous and aligned. */
static struct page *edu_pages(u8 fill, unsigned int order)
{
	struct page *p = alloc_pages(GFP_KERNEL, order);

	if (p)
		memset(page_address(p), fill, PAGE_SIZE << order);
	return p;
}

static void edu_free_pages(struct edu *edu)
{
	if (edu->a)
		__free_pages(edu->a, get_order(SZ_2M));
	if (edu->b)
		__free_pages(edu->b, get_order(SZ_2M));
	if (edu->sentinel)
		__free_page(edu->sentinel);
	if (edu->readback)
		__free_page(edu->readback);
}

#ifdef FP_HAVE_IOMMU_PAGING_DOMAIN_ALLOC
static const bool edu_map_early = true;
#else
static const bool edu_map_early;
#endif

/* The sentinel and readback pages, at their fixed IOVAs. */
static int edu_map_fixed(struct edu *edu)
{
	int ret;

	ret = iommu_map(edu->dom, IOVA_SENTINEL, page_to_phys(edu->sentinel),
			SZ_4K, IOMMU_READ, GFP_KERNEL);
	if (ret)
		return ret;
	ret = iommu_map(edu->dom, IOVA_READBACK, page_to_phys(edu->readback),
			SZ_4K, IOMMU_READ | IOMMU_WRITE, GFP_KERNEL);
	if (ret)
		iommu_unmap(edu->dom, IOVA_SENTINEL, SZ_4K);
	return ret;
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

	edu->a = edu_pages(0xaa, get_order(SZ_2M));
	edu->b = edu_pages(0xbb, get_order(SZ_2M));
	edu->sentinel = edu_pages(0x5e, 0);
	edu->readback = edu_pages(0, 0);
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
	/*
	 * Where the domain is allocated for the device, map before the first
	 * attach, as the IOMMU core does for IOMMU_RESV_DIRECT regions and
	 * iommufd for a populated IOAS: the DMA checks then go through these
	 * mappings.  A domain allocated for a bus (kernels before 6.11) only
	 * knows its SMMU once attached.
	 */
	if (edu_map_early) {
		ret = edu_map_fixed(edu);
		if (ret) {
			dev_err(&pdev->dev, "map before attach: %d\n", ret);
			goto err_free;
		}
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
	if (!edu_map_early) {
		ret = edu_map_fixed(edu);
		if (ret)
			goto err_detach;
	}

	pci_set_drvdata(pdev, edu);
	the_edu = edu;
	dev_info(&pdev->dev, "in a paging domain of its own: %s, mapped %s its first attach\n",
		 smmuv3_iommu_ctx_name(edu->dom),
		 edu_map_early ? "before" : "after");
	return 0;

err_detach:
	iommu_detach_device(edu->dom, &pdev->dev);
err_free:
	iommu_domain_free(edu->dom);
err_pages:
	edu_free_pages(edu);
	return ret;
}

static void edu_remove(struct pci_dev *pdev)
{
	struct edu *edu = pci_get_drvdata(pdev);

	the_edu = NULL;
	iommu_detach_device(edu->dom, &pdev->dev);
	iommu_domain_free(edu->dom);
	edu_free_pages(edu);
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

/*
 * A mutant: va with each range's end off by one granule, as when the
 * gather's inclusive end is taken for an exclusive one and rounded down.
 * It invalidates [start, end - granule): a freed table's last page, the
 * last of several gathered pages or blocks stay cached.  A range of one
 * granule is still invalidated whole, so 4K unmaps are right.
 */
static size_t e2e_lastpage_size(size_t size, size_t granule)
{
	return round_down(size - 1, granule) ?: granule;
}

static void e2e_lastpage_walk(struct fp_context *ctx, unsigned long iova,
			      size_t size, size_t granule)
{
	fp_inv_va(ctx, iova, e2e_lastpage_size(size, granule), granule, false);
	fp_sync(ctx);
}

static void e2e_lastpage_gather(struct fp_context *ctx,
				const struct iommu_iotlb_gather *gather)
{
	if (fp_gather_pages(gather))
		fp_inv_va(ctx, gather->start,
			  e2e_lastpage_size(gather->end - gather->start + 1,
					    gather->pgsize),
			  gather->pgsize, true);
	fp_sync(ctx);
}

static struct fp_policy e2e_lastpage = {
	.name		= "e2e_lastpage",
	.owner		= THIS_MODULE,
	.flush_walk	= e2e_lastpage_walk,
	.flush_gather	= e2e_lastpage_gather,
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
	ret = fp_policy_register(&e2e_lastpage);
	if (ret)
		goto err_nosync;
	ret = pci_register_driver(&edu_driver);
	if (ret)
		goto err_lastpage;
	return 0;

err_lastpage:
	fp_policy_unregister(&e2e_lastpage);
err_nosync:
	fp_policy_unregister(&e2e_nosync);
	return ret;
}

static void __exit edu_exit(void)
{
	pci_unregister_driver(&edu_driver);
	fp_policy_unregister(&e2e_lastpage);
	fp_policy_unregister(&e2e_nosync);
}

module_init(edu_init);
module_exit(edu_exit);

MODULE_DESCRIPTION("flushpol end-to-end test and benchmark on QEMU's edu device");
MODULE_LICENSE("GPL");
