/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * SMMUv2 registers this backend uses, from the SMMU architecture
 * specification version 2 (ARM IHI 0062).  Offsets are within a register
 * page: GR0 is page 0, context bank n is page numpage + n.
 */
#ifndef _FP_SMMUV2_REGS_H
#define _FP_SMMUV2_REGS_H

#include <linux/bits.h>

/* Global register space 0 */
#define SMMUV2_GR0_SGFSR		0x48
#define SMMUV2_GR0_TLBIVMID		0x64
#define SMMUV2_TLBIVMID_VMID		GENMASK(15, 0)
#define SMMUV2_GR0_TLBIALLNSNH		0x68
#define SMMUV2_GR0_STLBGSYNC		0x70
#define SMMUV2_GR0_STLBGSTATUS		0x74
#define SMMUV2_STLBGSTATUS_GSACTIVE	BIT(0)

/* Context bank: fault and configuration state, read for diagnostics */
#define SMMUV2_CB_SCTLR			0x0
#define SMMUV2_SCTLR_CFCFG		BIT(7)	/* stall, not terminate */
#define SMMUV2_CB_FSR			0x58
#define SMMUV2_FSR_SS			BIT(30)	/* a transaction is stalled */
#define SMMUV2_CB_FAR			0x60
#define SMMUV2_CB_FSYNR0		0x68

/* Context bank: stage-1 TLB maintenance */
#define SMMUV2_CB_S1_TLBIVA		0x600
#define SMMUV2_CB_S1_TLBIASID		0x610
#define SMMUV2_CB_S1_TLBIALL		0x618
#define SMMUV2_CB_S1_TLBIVAL		0x620
/* AArch64 context format: 64-bit write, VA[55:12] and the ASID */
#define SMMUV2_TLBIVA64_ASID		GENMASK_ULL(63, 48)
#define SMMUV2_TLBIVA64_VA		GENMASK_ULL(43, 0)
/* AArch32 context format: 32-bit write, VA[31:12] and an 8-bit ASID */
#define SMMUV2_TLBIVA32_VA		GENMASK(31, 12)
#define SMMUV2_TLBIVA32_ASID		GENMASK(7, 0)
#define SMMUV2_TLBIASID_ASID		GENMASK(15, 0)

/* Context bank: stage-2 TLB maintenance, IPA[51:12] (64-bit write) */
#define SMMUV2_CB_S2_TLBIIPAS2		0x630
#define SMMUV2_CB_S2_TLBIIPAS2L		0x638
#define SMMUV2_TLBIIPAS2_IPA		GENMASK_ULL(39, 0)

/* Context bank: completion of the maintenance issued to it */
#define SMMUV2_CB_TLBSYNC		0x7f0
#define SMMUV2_CB_TLBSTATUS		0x7f4
#define SMMUV2_TLBSTATUS_SACTIVE	BIT(0)

/* The address bits a TLBI value drops: always 4 KiB, whatever the granule */
#define SMMUV2_TLBI_ADDR_SHIFT		12

#endif /* _FP_SMMUV2_REGS_H */
