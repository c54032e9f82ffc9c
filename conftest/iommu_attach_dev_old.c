// SPDX-License-Identifier: GPL-2.0-only
/*
 * Probe: a domain's attach_dev is told the domain the device leaves, as a
 * third argument (after 6.12; in 7.x).
 */
#include <linux/iommu.h>

static int fp_probe_attach(struct iommu_domain *domain, struct device *dev,
			   struct iommu_domain *old)
{
	return 0;
}

const struct iommu_domain_ops fp_probe_ops = {
	.attach_dev	= fp_probe_attach,
};
