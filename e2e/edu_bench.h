/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What both edu benchmark modules print for one series of timed unmaps,
 * flushpol's and the upstream driver's, so that make bench reads them alike.
 */
#ifndef _EDU_BENCH_H
#define _EDU_BENCH_H

#include <linux/iommu.h>
#include <linux/irqflags.h>
#include <linux/kernel.h>
#include <linux/printk.h>
#include <linux/sched.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/timekeeping.h>

#define EDU_BENCH_MAX_REPS	1000
/* Series up to this long are also printed unit by unit, for pooling. */
#define EDU_SAMPLES_MAX		64

static inline int edu_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/*
 * A fixed amount of plain guest work, no driver in it: how fast QEMU ran
 * this guest just then.  Boots of one driver and of the other run at
 * different host speeds on a shared host (a vCPU alone on a core, or
 * not); their phases compare as multiples of this.
 *
 * One function, the loop without a call, aligned so that it never
 * straddles a page: under TCG a direct branch to another guest page is
 * not chained but looked up, every time.  The loop used to call a
 * noinline step that lay on another page than the loop in flushpol_edu
 * and on the same page in flushpol_edu_upstream, and ran 1.6 times
 * slower in flushpol's module than in upstream's in boots of the same
 * speed (scripts/qemu/idle-check.sh).
 */
static noinline __aligned(256) u64 edu_calib_ns(void)
{
	u64 t0, x = 0;
	unsigned int i;

	t0 = ktime_get_ns();
	for (i = 0; i < 16384; i++) {
		x = x * 31 + 7;
		/* Computed every time, though nothing reads it. */
		asm volatile("" : "+r" (x));
	}
	return ktime_get_ns() - t0;
}

/*
 * Every unmap's time, in order, for make bench to pool runs of a few
 * repetitions each (its noise figures) without losing the percentiles;
 * then the series' median, p99, extremes and per-unmap command counts.
 */
static inline void edu_bench_report(u64 *ns, unsigned int reps, size_t size,
				    u64 cmds, u64 syncs)
{
	char buf[EDU_SAMPLES_MAX * 12];
	unsigned int i, len = 0;

	if (reps <= EDU_SAMPLES_MAX) {
		for (i = 0; i < reps; i++)
			len += scnprintf(buf + len, sizeof(buf) - len, "%s%llu",
					 i ? "," : "", ns[i]);
		pr_info("fp-bench-ns: %s\n", buf);
	}
	sort(ns, reps, sizeof(*ns), edu_cmp_u64, NULL);
	pr_info("fp-bench: size=%zu reps=%u median_ns=%llu p99_ns=%llu min_ns=%llu max_ns=%llu cmds=%llu syncs=%llu\n",
		size, reps, ns[reps / 2], ns[(reps * 99) / 100], ns[0],
		ns[reps - 1], cmds, syncs);
}

/*
 * Map @size of 4K pages at @iova, identity, one iommu_map() a page: a
 * scatter-gather list of scattered pages (one call for the range would
 * use 2 MiB blocks, and there would be no tables to free).
 */
static inline int edu_bench_map(struct iommu_domain *dom, unsigned long iova,
				size_t size)
{
	unsigned long off;
	int ret;

	for (off = 0; off < size; off += SZ_4K) {
		ret = iommu_map(dom, iova + off, iova + off, SZ_4K,
				IOMMU_READ | IOMMU_WRITE, GFP_KERNEL);
		if (ret) {
			iommu_unmap(dom, iova, off);
			return ret;
		}
	}
	return 0;
}

/* The phases edu_bench_phases() times, each a column of @reps. */
enum {
	EDU_PH_UNMAP,
	EDU_PH_SYNC,
	EDU_PH_FLUSH_ALL,
	EDU_PH_CALIB,
	EDU_PHASES
};

/*
 * Where an unmap's time goes, the same way for flushpol's driver and the
 * upstream one: iommu_unmap_fast() (io-pgtable's walk with the driver's
 * unmap_pages and its leaf callbacks, and any command a walk sends) and
 * then iommu_iotlb_sync() (the invalidation of the gathered leaves and
 * the wait for it), timed apart; and iommu_flush_iotlb_all() of the
 * empty domain, one command and one sync, the queue's round trip alone;
 * and edu_calib_ns(), the speed of the host.  Medians of @reps, after one
 * untimed pass for QEMU's translation.
 */
static inline int edu_bench_phases(struct iommu_domain *dom,
				   unsigned long iova, size_t size,
				   unsigned int reps)
{
	struct iommu_iotlb_gather gather;
	u64 *ns, t0, t1, t2, med[EDU_PHASES];
	unsigned int i, ph;
	int ret = 0;

	if (!reps || reps > EDU_BENCH_MAX_REPS)
		return -EINVAL;
	ns = kcalloc(reps * EDU_PHASES, sizeof(*ns), GFP_KERNEL);
	if (!ns)
		return -ENOMEM;
	for (i = 0; i <= reps && !ret; i++) {
		ret = edu_bench_map(dom, iova, size);
		if (ret)
			break;
		iommu_iotlb_gather_init(&gather);
		t0 = ktime_get_ns();
		if (iommu_unmap_fast(dom, iova, size, &gather) != size)
			ret = -EIO;
		t1 = ktime_get_ns();
		iommu_iotlb_sync(dom, &gather);
		t2 = ktime_get_ns();
		iommu_flush_iotlb_all(dom);
		/* The first pass only warms QEMU's translation up. */
		if (i) {
			ns[EDU_PH_UNMAP * reps + i - 1] = t1 - t0;
			ns[EDU_PH_SYNC * reps + i - 1] = t2 - t1;
			ns[EDU_PH_FLUSH_ALL * reps + i - 1] =
				ktime_get_ns() - t2;
			ns[EDU_PH_CALIB * reps + i - 1] = edu_calib_ns();
		}
		cond_resched();
	}
	for (ph = 0; ph < EDU_PHASES && !ret; ph++) {
		u64 *one = ns + (size_t)ph * reps;

		sort(one, reps, sizeof(*one), edu_cmp_u64, NULL);
		med[ph] = one[reps / 2];
	}
	if (!ret)
		pr_info("fp-phase: size=%zu reps=%u unmap_fast_ns=%llu iotlb_sync_ns=%llu flush_all_ns=%llu calib_ns=%llu\n",
			size, reps, med[EDU_PH_UNMAP], med[EDU_PH_SYNC],
			med[EDU_PH_FLUSH_ALL], med[EDU_PH_CALIB]);
	kfree(ns);
	return ret;
}

/*
 * The marker scripts/qemu/insn-window.c and QEMU's own insn plugin
 * (match=hint #0x7f) end a window at: HINT #0x7f, an unallocated hint, so
 * a NOP, that no kernel code contains.  The compiler may move no memory
 * access across it.
 */
static __always_inline void edu_insn_mark(void)
{
	asm volatile("hint #0x7f" ::: "memory");
}

#define EDU_INSN_MAX		512	/* 4K pages of one last-level table */

/*
 * What QEMU's instruction counts need: @n 4K maps at @iova, one
 * iommu_map() each, then @n 4K unmaps, one strict iommu_unmap() each, in
 * two windows between three markers, with interrupts off so that nothing
 * else runs in them; the domain's one last-level table is allocated by an
 * untimed pass first, so no map allocates.  GFP_ATOMIC, as interrupts are
 * off; nothing else changes in iommu_map() with it.  @marks counts the
 * markers passed since boot (the module is loaded once); the line printed
 * names the two windows by the index of the marker that ends each, as the
 * plugins number them.
 */
static inline int edu_bench_insn(struct iommu_domain *dom, unsigned long iova,
				 unsigned int n, unsigned long *marks)
{
	unsigned long flags, off, end = iova + (unsigned long)n * SZ_4K;
	int ret = 0;

	if (!n || n > EDU_INSN_MAX || !IS_ALIGNED(iova, SZ_2M))
		return -EINVAL;
	ret = edu_bench_map(dom, iova, (size_t)n * SZ_4K);
	if (ret)
		return ret;
	for (off = iova; off < end; off += SZ_4K)
		if (iommu_unmap(dom, off, SZ_4K) != SZ_4K)
			return -EIO;

	local_irq_save(flags);
	edu_insn_mark();
	for (off = iova; off < end && !ret; off += SZ_4K)
		ret = iommu_map(dom, off, off, SZ_4K, IOMMU_READ | IOMMU_WRITE,
				GFP_ATOMIC);
	edu_insn_mark();
	for (off = iova; off < end && !ret; off += SZ_4K)
		if (iommu_unmap(dom, off, SZ_4K) != SZ_4K)
			ret = -EIO;
	edu_insn_mark();
	local_irq_restore(flags);
	*marks += 3;
	if (!ret)
		pr_info("fp-insn: n=%u map=%lu unmap=%lu\n", n, *marks - 2,
			*marks - 1);
	return ret;
}

#endif /* _EDU_BENCH_H */
