// SPDX-License-Identifier: GPL-2.0-only
/*
 * Probe: a fwspec names the ops it was made for (until 6.9), NULL if no
 * IOMMU driver was registered when the device's firmware node was parsed.
 */
#include <linux/iommu.h>

const struct iommu_ops *fp_probe(const struct iommu_fwspec *fwspec);

const struct iommu_ops *fp_probe(const struct iommu_fwspec *fwspec)
{
	return fwspec->ops;
}
