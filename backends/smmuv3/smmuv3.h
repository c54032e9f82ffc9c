/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * flushpol SMMUv3 backend: registers, commands and structures.
 *
 * Field positions are from the SMMUv3 architecture specification (IHI 0070).
 * Only what this backend programs is named here.
 */
#ifndef _FP_SMMUV3_H
#define _FP_SMMUV3_H

#include <linux/bitfield.h>
#include <linux/bits.h>
#include <linux/io-pgtable.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include "../../include/flushpol.h"

/* Registers, page 0 */
#define SMMUV3_IDR0			0x0
#define IDR0_ST_LVL			GENMASK(28, 27)
#define IDR0_ST_LVL_2LVL		1
#define IDR0_STALL_MODEL		GENMASK(25, 24)
#define IDR0_STALL_MODEL_STALL		0
#define IDR0_STALL_MODEL_NONE		1
#define IDR0_STALL_MODEL_FORCE		2
#define IDR0_TTENDIAN			GENMASK(22, 21)
#define IDR0_TTENDIAN_MIXED		0
#define IDR0_TTENDIAN_LE		2
#define IDR0_TTENDIAN_BE		3
#define IDR0_ASID16			BIT(12)
#define IDR0_COHACC			BIT(4)
#define IDR0_TTF			GENMASK(3, 2)
#define IDR0_TTF_AARCH32		1
#define IDR0_TTF_AARCH64		2
#define IDR0_TTF_AARCH32_64		3
#define IDR0_S1P			BIT(1)
#define SMMUV3_IDR1			0x4
#define IDR1_TABLES_PRESET		BIT(30)
#define IDR1_QUEUES_PRESET		BIT(29)
#define IDR1_REL			BIT(28)
#define IDR1_CMDQS			GENMASK(25, 21)
#define IDR1_EVTQS			GENMASK(20, 16)
#define IDR1_SIDSIZE			GENMASK(5, 0)
#define SMMUV3_IDR3			0xc
#define IDR3_RIL			BIT(10)
#define SMMUV3_IDR5			0x14
#define IDR5_GRAN4K			BIT(4)
#define IDR5_OAS			GENMASK(2, 0)
#define SMMUV3_IIDR			0x18
#define IIDR_PRODUCTID			GENMASK(31, 20)
#define IIDR_VARIANT			GENMASK(19, 16)
#define IIDR_REVISION			GENMASK(15, 12)
#define IIDR_IMPLEMENTER		GENMASK(11, 0)
#define IIDR_IMPLEMENTER_ARM		0x43b
#define IIDR_PRODUCTID_ARM_MMU_600	0x483
#define IIDR_PRODUCTID_ARM_MMU_700	0x487
#define SMMUV3_AIDR			0x1c
#define SMMUV3_CR0			0x20
#define CR0_CMDQEN			BIT(3)
#define CR0_EVTQEN			BIT(2)
#define CR0_SMMUEN			BIT(0)
#define SMMUV3_CR0ACK			0x24
#define SMMUV3_CR1			0x28
#define CR1_TABLE_SH			GENMASK(11, 10)
#define CR1_TABLE_OC			GENMASK(9, 8)
#define CR1_TABLE_IC			GENMASK(7, 6)
#define CR1_QUEUE_SH			GENMASK(5, 4)
#define CR1_QUEUE_OC			GENMASK(3, 2)
#define CR1_QUEUE_IC			GENMASK(1, 0)
#define CR1_CACHE_WB			1
#define SMMUV3_SH_ISH			3
#define SMMUV3_CR2			0x2c
#define CR2_PTM				BIT(2)
#define CR2_RECINVSID			BIT(1)
#define SMMUV3_GBPA			0x44
#define GBPA_UPDATE			BIT(31)
#define GBPA_ABORT			BIT(20)
#define SMMUV3_IRQ_CTRL			0x50
#define IRQ_CTRL_EVTQ_IRQEN		BIT(2)
#define IRQ_CTRL_GERROR_IRQEN		BIT(0)
#define SMMUV3_IRQ_CTRLACK		0x54
#define SMMUV3_GERROR			0x60
#define GERROR_CMDQ_ERR			BIT(0)
#define GERROR_SFM_ERR			BIT(8)
#define GERROR_ERR_MASK			0x1fd
#define SMMUV3_GERRORN			0x64
#define SMMUV3_STRTAB_BASE		0x80
#define STRTAB_BASE_RA			BIT_ULL(62)
#define STRTAB_BASE_ADDR		GENMASK_ULL(51, 6)
#define SMMUV3_STRTAB_BASE_CFG		0x88
#define STRTAB_BASE_CFG_FMT		GENMASK(17, 16)
#define STRTAB_BASE_CFG_FMT_2LVL	1
#define STRTAB_BASE_CFG_SPLIT		GENMASK(10, 6)
#define STRTAB_BASE_CFG_LOG2SIZE	GENMASK(5, 0)
#define SMMUV3_CMDQ_BASE		0x90
#define SMMUV3_CMDQ_PROD		0x98
#define SMMUV3_CMDQ_CONS		0x9c
#define CMDQ_CONS_ERR			GENMASK(30, 24)
#define SMMUV3_EVTQ_BASE		0xa0
#define Q_BASE_RWA			BIT_ULL(62)
#define Q_BASE_ADDR			GENMASK_ULL(51, 5)
#define Q_BASE_LOG2SIZE			GENMASK(4, 0)
/* Registers, page 1 */
#define SMMUV3_PAGE1			0x10000
/* What is mapped of each page: the rest may hold a PMCG's registers. */
#define SMMUV3_REG_SZ			0xe00
/* Both pages; page 0 alone where page 1 is folded onto it (Cavium CN99xx) */
#define SMMUV3_REGION_SIZE		(2 * SMMUV3_PAGE1)
#define SMMUV3_EVTQ_PROD		(SMMUV3_PAGE1 + 0xa8)
#define SMMUV3_EVTQ_CONS		(SMMUV3_PAGE1 + 0xac)

#define Q_OVF				BIT(31)

/* Level-1 stream table descriptors: 1 double word */
#define STRTAB_L1_DESC_SPAN		GENMASK_ULL(4, 0)
#define STRTAB_L1_DESC_L2PTR		GENMASK_ULL(51, 6)

/* Stream table entries: 8 double words */
#define STE_DWORDS			8
#define STE_0_V				BIT_ULL(0)
#define STE_0_CFG			GENMASK_ULL(3, 1)
#define STE_0_CFG_ABORT			0
#define STE_0_CFG_BYPASS		4
#define STE_0_CFG_S1_TRANS		5
#define STE_0_S1FMT			GENMASK_ULL(5, 4)
#define STE_0_S1CTXPTR			GENMASK_ULL(51, 6)
#define STE_0_S1CDMAX			GENMASK_ULL(63, 59)
#define STE_1_S1DSS			GENMASK_ULL(1, 0)
#define STE_1_S1CIR			GENMASK_ULL(3, 2)
#define STE_1_S1COR			GENMASK_ULL(5, 4)
#define STE_1_S1CSH			GENMASK_ULL(7, 6)
#define STE_1_S1C_WBRA			1
#define STE_1_S1STALLD			BIT_ULL(27)
#define STE_1_EATS			GENMASK_ULL(29, 28)
#define STE_1_STRW			GENMASK_ULL(31, 30)
#define STE_1_SHCFG			GENMASK_ULL(45, 44)
#define STE_1_SHCFG_INCOMING		1
#define STE_2_S2VMID			GENMASK_ULL(15, 0)

/* Context descriptors: 8 double words */
#define CD_DWORDS			8
#define CD_0_TCR_T0SZ			GENMASK_ULL(5, 0)
#define CD_0_TCR_TG0			GENMASK_ULL(7, 6)
#define CD_0_TCR_IRGN0			GENMASK_ULL(9, 8)
#define CD_0_TCR_ORGN0			GENMASK_ULL(11, 10)
#define CD_0_TCR_SH0			GENMASK_ULL(13, 12)
#define CD_0_TCR_EPD1			BIT_ULL(30)
#define CD_0_V				BIT_ULL(31)
#define CD_0_TCR_IPS			GENMASK_ULL(34, 32)
#define CD_0_AA64			BIT_ULL(41)
#define CD_0_R				BIT_ULL(45)
#define CD_0_A				BIT_ULL(46)
#define CD_0_ASET			BIT_ULL(47)
#define CD_0_ASID			GENMASK_ULL(63, 48)
#define CD_1_TTB0			GENMASK_ULL(51, 4)

/* Commands: 2 double words */
#define CMD_DWORDS			2
#define CMD_0_OP			GENMASK_ULL(7, 0)
#define CMD_OP_CFGI_STE			0x03
#define CMD_OP_CFGI_ALL			0x04
#define CMD_OP_TLBI_NH_ALL		0x10
#define CMD_OP_TLBI_NH_ASID		0x11
#define CMD_OP_TLBI_NH_VA		0x12
#define CMD_OP_TLBI_S12_VMALL		0x28
#define CMD_OP_TLBI_S2_IPA		0x2a
#define CMD_OP_TLBI_NSNH_ALL		0x30
#define CMD_OP_SYNC			0x46
#define CMD_CFGI_0_SID			GENMASK_ULL(63, 32)
#define CMD_CFGI_1_RANGE		GENMASK_ULL(4, 0)
#define CMD_TLBI_0_NUM			GENMASK_ULL(16, 12)
#define CMD_TLBI_0_SCALE		GENMASK_ULL(24, 20)
#define CMD_TLBI_0_VMID			GENMASK_ULL(47, 32)
#define CMD_TLBI_0_ASID			GENMASK_ULL(63, 48)
#define CMD_TLBI_1_LEAF			BIT_ULL(0)
#define CMD_TLBI_1_TTL			GENMASK_ULL(9, 8)
#define CMD_TLBI_1_TG			GENMASK_ULL(11, 10)
#define CMD_TLBI_1_ADDR			GENMASK_ULL(63, 12)
#define CMD_TLBI_1_IPA			GENMASK_ULL(51, 12)
#define CMD_TLBI_RANGE_NUM_MAX		31
#define CMD_SYNC_0_CS			GENMASK_ULL(13, 12)
#define CMD_SYNC_0_CS_NONE		0

/* Events: 4 double words */
#define EVT_DWORDS			4
#define EVT_0_ID			GENMASK_ULL(7, 0)
#define EVT_0_SID			GENMASK_ULL(63, 32)
#define EVT_1_RNW			BIT_ULL(35)
#define EVT_ID_TRANSLATION		0x10

/**
 * struct smmuv3_range - one range-invalidation command's span
 * @iova: start
 * @scale: the command's SCALE: the span is made of 2^@scale granules...
 * @num: ...(@num + 1) times; NUM is 5 bits
 */
struct smmuv3_range {
	unsigned long iova;
	u8 scale, num;
};

/**
 * struct smmuv3_range_iter - walks the fewest RIL commands covering a range
 * @iova: next address to cover
 * @pages: granules left to cover
 * @tg: log2 of the translation granule
 */
struct smmuv3_range_iter {
	unsigned long iova;
	unsigned long pages;
	unsigned int tg;
};

void smmuv3_range_start(struct smmuv3_range_iter *it, unsigned long iova,
			size_t size, unsigned int tg);
bool smmuv3_range_next(struct smmuv3_range_iter *it, struct smmuv3_range *r);

/* Command encoders: each fills one 2-double-word command. */
void smmuv3_cmd_tlbi_nh_va(u64 *cmd, u16 asid, unsigned long iova, bool leaf);
void smmuv3_cmd_tlbi_nh_va_range(u64 *cmd, u16 asid,
				 const struct smmuv3_range *r, unsigned int tg,
				 unsigned int ttl, bool leaf);
void smmuv3_cmd_tlbi_nh_asid(u64 *cmd, u16 asid);
void smmuv3_cmd_tlbi_s2_ipa(u64 *cmd, u16 vmid, unsigned long ipa, bool leaf);
void smmuv3_cmd_tlbi_s12_vmall(u64 *cmd, u16 vmid);
void smmuv3_cmd_tlbi_nh_all(u64 *cmd);
void smmuv3_cmd_tlbi_nsnh_all(u64 *cmd);
void smmuv3_cmd_cfgi_ste(u64 *cmd, u32 sid);
void smmuv3_cmd_cfgi_all(u64 *cmd);
void smmuv3_cmd_sync(u64 *cmd);

/**
 * struct smmuv3_cmdq_ops - where commands go
 * @submit: append @n commands to the queue; they may sit unpublished until
 *	the next sync.
 * @sync: publish everything submitted so far, from any CPU, then a
 *	CMD_SYNC, and wait for it.  Returns 0; -ETIMEDOUT if the SMMU did not
 *	get there in time; -EIO if a command before it was lost (refused by
 *	the SMMU, or dropped from a full queue) and nothing made up for it.
 * @submit_sync: optional; @submit then @sync as one operation, the
 *	commands and their CMD_SYNC written together (cmdq.c: in one hold
 *	of its lock).  Returns as @sync.
 *
 * The driver's queue (cmdq.c), in the shipped module and in the tests.
 * @submit_sync is the seam for a queue that reserves its slots without a
 * lock: the commands and the CMD_SYNC that completes them are one
 * reservation.
 */
struct smmuv3_cmdq_ops {
	void (*submit)(void *q, const u64 *cmds, unsigned int n);
	int (*sync)(void *q);
	int (*submit_sync)(void *q, const u64 *cmds, unsigned int n);
};

/**
 * struct smmuv3_flush - what the flushpol primitives need of a context
 * @cmdq: the queue
 * @q: the queue's owner, passed to @cmdq
 * @direct: the SMMU's own queue, which every flush then hands its commands
 *	and CMD_SYNCs to directly (smmuv3_cmdq_submit_sync()), not through
 *	@cmdq; NULL: every flush goes through @cmdq.  Set where @cmdq is
 *	cmdq.c's on that same SMMU.
 * @asid: stage-1 ASID
 * @tg: log2 of the translation granule
 * @ril: use range commands (IDR3.RIL, unless forced off)
 */
struct smmuv3_flush {
	const struct smmuv3_cmdq_ops *cmdq;
	void *q;
	struct smmuv3_cmdq *direct;
	u16 asid;
	unsigned int tg;
	bool ril;
};

extern const struct fp_hw_ops smmuv3_hw_ops;
extern const struct fp_hw_ops smmuv3_hw_ops_ril;

#endif /* _FP_SMMUV3_H */
