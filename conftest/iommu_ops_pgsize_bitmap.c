// SPDX-License-Identifier: GPL-2.0-only
/*
 * Probe: struct iommu_ops has a pgsize_bitmap, the default for domains
 * that set none (gone in 7.x: each paging domain sets its own).
 */
#include <linux/iommu.h>

const struct iommu_ops fp_probe_ops = {
	.pgsize_bitmap	= 4096,
};
