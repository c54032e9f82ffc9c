/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * flushpol Qualcomm backend: the SMMUv2 backend with Qualcomm's defaults.
 */
#ifndef _FP_QCOM_H
#define _FP_QCOM_H

#include "../smmuv2/smmuv2.h"

struct smmuv2_device *qcom_smmuv2_device_create(const struct smmuv2_device_cfg *cfg);

/* dump.c */
void qcom_smmuv2_sync_timeout(struct smmuv2_device *smmu, unsigned int page);

#endif /* _FP_QCOM_H */
