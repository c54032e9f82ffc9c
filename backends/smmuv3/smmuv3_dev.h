/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The SMMUv3 driver of the flushpol SMMUv3 backend: an IOMMU-core driver
 * whose stage-1 domains invalidate through flushpol.
 */
#ifndef _FP_SMMUV3_DEV_H
#define _FP_SMMUV3_DEV_H

#include <linux/device.h>
#include <linux/idr.h>
#include <linux/iommu.h>
#include <linux/list.h>
#include <linux/ratelimit.h>
#include <linux/sizes.h>
#include <linux/xarray.h>

#include "cmdq.h"
#include "smmuv3.h"

/* Stage 1 with a 4K granule: input addresses, and the page sizes. */
#define SMMUV3_IAS		48
#define SMMUV3_PGSIZES		(SZ_4K | SZ_2M | SZ_1G)
/* Never a domain's ASIDs: smmuv3_iommu_mark() uses these. */
#define SMMUV3_ASID_MARK	0xf000

/* Queue sizes: log2 of their entries. */
#define SMMUV3_CMDQ_SHIFT	12	/* 4096 commands, 64 KiB */
#define SMMUV3_EVTQ_SHIFT	7	/* 128 events */

/* Upstream's options, as the firmware or IIDR give them */
#define SMMUV3_OPT_PAGE0_REGS_ONLY	BIT(0)	/* Cavium CN99xx */
#define SMMUV3_OPT_SKIP_PREFETCH	BIT(1)	/* HiSilicon Hip08; never sent */
#define SMMUV3_OPT_CMDQ_FORCE_SYNC	BIT(2)	/* Arm MMU-700, 2812531 */

/* A level-2 stream table covers 2^SMMUV3_STRTAB_SPLIT streams. */
#define SMMUV3_STRTAB_SPLIT	8

/**
 * struct smmuv3_strtab - the stream table, linear or two-level
 * @base: the STEs (linear), or the level-1 descriptors (two-level)
 * @dma: its bus address
 * @sid_bits: streams 0..2^@sid_bits - 1 have an entry
 * @two_level: @base holds level-1 descriptors
 * @l2: two-level: the level-2 tables, allocated as devices probe
 */
struct smmuv3_strtab {
	__le64 *base;
	dma_addr_t dma;
	unsigned int sid_bits;
	bool two_level;
	__le64 **l2;
};

/**
 * struct smmuv3_device - one SMMU
 * @dev: its platform device
 * @base: registers, page 0
 * @page1: registers, page 1 (@base where page 1 is folded onto page 0)
 * @options: SMMUV3_OPT_*
 * @name: "smmuv3.<n>", the prefix of its contexts' sysfs names
 * @ril: IDR3.RIL
 * @coherent: the SMMU's table walks snoop CPU caches
 * @oas: output address size, in bits
 * @asid_bits: 8 or 16 (IDR0.ASID16)
 * @cmdq: the command queue, with its locks
 * @evtq: the event queue
 * @strtab: the stream table
 * @ste_lock: serialises stream table updates
 * @asid_max: the largest ASID a domain may have (IDR0.ASID16)
 * @asids: allocator of ASIDs
 * @streams: stream ID -> struct smmuv3_master, for fault reports
 * @iommu: what the IOMMU core knows of this SMMU
 * @node: on the list of probed SMMUs
 */
struct smmuv3_device {
	struct device *dev;
	void __iomem *base;
	void __iomem *page1;
	u32 options;
	char name[20];
	bool ril;
	bool coherent;
	unsigned int oas;
	unsigned int asid_bits;
	struct smmuv3_cmdq cmdq;
	struct smmuv3_queue evtq;
	struct smmuv3_strtab strtab;
	struct mutex ste_lock;		/* strtab */
	u32 asid_max;
	struct ida asids;
	struct xarray streams;
	struct iommu_device iommu;
	struct list_head node;
};

/**
 * struct smmuv3_master - a device behind the SMMU; its stream IDs are in
 * its fwspec
 * @smmu: the SMMU
 * @dev: the device
 */
struct smmuv3_master {
	struct smmuv3_device *smmu;
	struct device *dev;
};

/**
 * struct smmuv3_domain - a stage-1 paging domain
 * @domain: the IOMMU core's view
 * @init_lock: serialises the first attach, which finalises the domain
 * @smmu: the SMMU, once finalised (set last)
 * @flush: what flushpol's primitives need; fp_context_priv() of @ctx
 * @ctx: the flushpol context, lazy for a DMA-FQ domain
 * @ops: the io-pgtable
 * @cfg: its configuration
 * @cd: the context descriptor, shared by every stream attached
 * @cd_dma: its bus address
 * @name: the context's name, "<smmu>-asid<n>"
 */
struct smmuv3_domain {
	struct iommu_domain domain;
	struct mutex init_lock;		/* finalisation */
	struct smmuv3_device *smmu;
	struct smmuv3_flush flush;
	struct fp_context *ctx;
	struct io_pgtable_ops *ops;
	struct io_pgtable_cfg cfg;
	__le64 *cd;
	dma_addr_t cd_dma;
	char name[32];
};

extern const struct smmuv3_cmdq_ops smmuv3_cmdq_ops;
extern const struct iommu_ops smmuv3_iommu_ops;

/**
 * smmuv3_flush_on() - what a context's flushes need to reach @smmu's queue
 * @smmu: the SMMU
 * @asid: the context's ASID
 * @ril: send range commands
 *
 * cmdq.c's operations on @smmu, and the same queue as &smmuv3_flush.direct,
 * set in one place so that the two never name different queues; the
 * granule is the smallest of %SMMUV3_PGSIZES, the page table's.
 *
 * Return: the flush state, for &smmuv3_domain.flush.
 */
static inline struct smmuv3_flush smmuv3_flush_on(struct smmuv3_device *smmu,
						  u16 asid, bool ril)
{
	return (struct smmuv3_flush) {
		.cmdq = &smmuv3_cmdq_ops, .q = smmu, .direct = &smmu->cmdq,
		.asid = asid, .tg = __ffs(SMMUV3_PGSIZES), .ril = ril,
	};
}

int smmuv3_cmdq_issue_sync(struct smmuv3_device *smmu, const u64 *cmds,
			   unsigned int n);

/* strtab.c */
struct smmuv3_ste_writer;

/**
 * struct smmuv3_ste_writer_ops - how smmuv3_write_ste() reaches the SMMU
 * @write: one 64-bit store of @val to a double word of the entry
 * @sync: make the SMMU drop what it cached of the stream's STE, and wait
 *	for it: CFGI_STE, then CMD_SYNC.  0, or the sync's error, which the
 *	queue has counted as a loss.
 *
 * The driver's queue in the shipped module; a recorder in the tests.
 */
struct smmuv3_ste_writer_ops {
	void (*write)(struct smmuv3_ste_writer *w, __le64 *dst, u64 val);
	int (*sync)(struct smmuv3_ste_writer *w);
};

/**
 * struct smmuv3_ste_writer - one stream's STE update
 * @ops: stores and syncs
 * @smmu: the SMMU
 * @sid: the stream
 */
struct smmuv3_ste_writer {
	const struct smmuv3_ste_writer_ops *ops;
	struct smmuv3_device *smmu;
	u32 sid;
};

int smmuv3_write_ste(struct smmuv3_ste_writer *w, __le64 *entry,
		     const u64 *target);
void smmuv3_ste_used(const u64 *ste, u64 *used);
int smmuv3_strtab_init(struct smmuv3_device *smmu, u32 idr0, u32 idr1);
u64 smmuv3_strtab_base_cfg(const struct smmuv3_device *smmu);
int smmuv3_strtab_prepare(struct smmuv3_device *smmu, u32 sid);
void smmuv3_install_ste(struct smmuv3_device *smmu, const u32 *sids,
			unsigned int n, const u64 *ste);
void smmuv3_ste_abort(u64 *ste);
void smmuv3_ste_bypass(u64 *ste);

/* drv.c */
struct smmuv3_device *smmuv3_find_fwnode(struct fwnode_handle *fwnode);

/* hw.c */
u32 smmuv3_read(struct smmuv3_device *smmu, unsigned int off);
u32 smmuv3_iort_options(u32 model);
void smmuv3_parse_options(struct smmuv3_device *smmu);
int smmuv3_check_region(struct smmuv3_device *smmu, const struct resource *res);
int smmuv3_hw_probe(struct smmuv3_device *smmu);
int smmuv3_mark_asid(const struct smmuv3_device *smmu, u32 n);
u64 smmuv3_q_base(const struct smmuv3_queue *q);
int smmuv3_device_reset(struct smmuv3_device *smmu);
int smmuv3_device_enable(struct smmuv3_device *smmu, bool events);
int smmuv3_device_start(struct smmuv3_device *smmu,
			int (*request_irqs)(struct smmuv3_device *smmu,
					    void *data),
			void *data, bool events);
int smmuv3_device_disable(struct smmuv3_device *smmu);
irqreturn_t smmuv3_gerror_handler(int irq, void *dev);

/* rmr.c */
void smmuv3_rmr_bypass(struct smmuv3_device *smmu, struct list_head *rmrs);
void smmuv3_rmr_install(struct smmuv3_device *smmu);

/* domain.c */
extern bool force_no_ril;
struct smmuv3_domain *smmuv3_domain_new(void);
int smmuv3_domain_finalise(struct smmuv3_domain *dom,
			   struct smmuv3_device *smmu, struct device *dev,
			   bool lazy);
void smmuv3_domain_destroy(struct smmuv3_domain *dom);
void smmuv3_ste_s1(const struct smmuv3_domain *dom, u64 *ste);

/* iommu.c: the domains compat.c hands out on older kernels */
extern struct iommu_domain smmuv3_identity_domain;
extern struct iommu_domain smmuv3_blocked_domain;
struct iommu_domain *smmuv3_domain_alloc_paging(struct device *dev);

/* iommu.c: for the end-to-end test module */
struct fp_context *smmuv3_iommu_ctx(struct iommu_domain *domain);
const char *smmuv3_iommu_ctx_name(struct iommu_domain *domain);
int smmuv3_iommu_mark(struct iommu_domain *domain, u32 n);

#endif /* _FP_SMMUV3_DEV_H */
