/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * SMMUv2 backend internals, shared by the files of flushpol_smmuv2 only.
 */
#ifndef _FP_SMMUV2_CTX_H
#define _FP_SMMUV2_CTX_H

#include "smmuv2.h"

/*
 * Some hypervisors on Qualcomm SoCs trap and emulate SMMU register writes
 * and get stores of the zero register wrong: writes whose value does not
 * matter write all ones instead, as upstream arm-smmu does.
 */
#define SMMUV2_DUMMY_VAL	(~0U)

static inline struct smmuv2_context *smmuv2_ctx(const struct fp_context *ctx)
{
	return fp_context_priv(ctx);
}

/* tlbi.c */
extern const struct fp_hw_ops smmuv2_hw_ops;

/* sync.c */
int smmuv2_sync(struct fp_context *ctx);

#endif /* _FP_SMMUV2_CTX_H */
