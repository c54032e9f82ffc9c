/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The minimal SMMUv3 driver of the flushpol SMMUv3 backend: one device, its
 * queues and stream table, and stage-1 domains whose invalidation goes
 * through flushpol.
 */
#ifndef _FP_SMMUV3_DEV_H
#define _FP_SMMUV3_DEV_H

#include <linux/device.h>
#include <linux/idr.h>
#include <linux/list.h>
#include <linux/ratelimit.h>

#include "cmdq.h"
#include "smmuv3.h"

/**
 * struct smmuv3_device - one SMMU
 * @dev: its platform device
 * @base: registers, pages 0 and 1
 * @name: "smmuv3.<n>", the prefix of its contexts' sysfs names
 * @ril: IDR3.RIL, unless the force_no_ril parameter is set
 * @coherent: the SMMU's table walks snoop CPU caches
 * @oas: output address size, in bits
 * @cmdq: the command queue, with its locks
 * @evtq: the event queue
 * @strtab: linear stream table
 * @strtab_dma: its bus address
 * @strtab_log2: log2 of its number of entries
 * @ste_lock: serialises stream table updates
 * @asids: allocator of ASIDs
 * @node: on the list of probed SMMUs
 */
struct smmuv3_device {
	struct device *dev;
	void __iomem *base;
	char name[20];
	bool ril;
	bool coherent;
	unsigned int oas;
	struct smmuv3_cmdq cmdq;
	struct smmuv3_queue evtq;
	__le64 *strtab;
	dma_addr_t strtab_dma;
	unsigned int strtab_log2;
	struct mutex ste_lock;		/* strtab */
	struct ida asids;
	struct list_head node;
};

/**
 * struct smmuv3_domain - a stage-1 translation context for one stream
 * @smmu: the SMMU
 * @sid: the stream it translates
 * @flush: what flushpol's primitives need; fp_context_priv() of @ctx
 * @ctx: the flushpol context
 * @ops: the io-pgtable
 * @cfg: its configuration
 * @cd: the context descriptor
 * @cd_dma: its bus address
 */
struct smmuv3_domain {
	struct smmuv3_device *smmu;
	u32 sid;
	struct smmuv3_flush flush;
	struct fp_context *ctx;
	struct io_pgtable_ops *ops;
	struct io_pgtable_cfg cfg;
	__le64 *cd;
	dma_addr_t cd_dma;
};

extern const struct smmuv3_cmdq_ops smmuv3_cmdq_ops;

int smmuv3_cmdq_issue_sync(struct smmuv3_device *smmu, const u64 *cmds,
			   unsigned int n);
void smmuv3_write_ste(struct smmuv3_device *smmu, u32 sid, const u64 *ste);

struct smmuv3_device *smmuv3_find(const char *name);
struct smmuv3_domain *smmuv3_domain_alloc(struct smmuv3_device *smmu, u32 sid,
					  bool lazy);
void smmuv3_domain_free(struct smmuv3_domain *dom);
int smmuv3_map(struct smmuv3_domain *dom, unsigned long iova,
	       phys_addr_t paddr, size_t size, size_t pgsize, int prot);
size_t smmuv3_unmap(struct smmuv3_domain *dom, unsigned long iova,
		    size_t size);
int smmuv3_mark(struct smmuv3_device *smmu, u32 n);
struct fp_context *smmuv3_domain_ctx(struct smmuv3_domain *dom);

#endif /* _FP_SMMUV3_DEV_H */
