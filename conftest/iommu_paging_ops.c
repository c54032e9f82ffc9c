// SPDX-License-Identifier: GPL-2.0-only
/*
 * Probe: the IOMMU core's API that flushpol_smmuv3 registers with (static
 * identity and blocked domains, domain_alloc_paging, a const of_xlate, the
 * DEFERRED_FLUSH capability).  Kbuild compiles this against the target
 * kernel's headers; it builds on Debian's 6.12, not on its 6.1.
 */
#include <linux/iommu.h>
#include <linux/of.h>

static struct iommu_domain fp_probe_identity;

static struct iommu_domain *fp_probe_alloc(struct device *dev)
{
	return NULL;
}

static int fp_probe_xlate(struct device *dev,
			  const struct of_phandle_args *args)
{
	return 0;
}

const struct iommu_ops fp_probe_ops = {
	.identity_domain	= &fp_probe_identity,
	.blocked_domain		= &fp_probe_identity,
	.domain_alloc_paging	= fp_probe_alloc,
	.of_xlate		= fp_probe_xlate,
};

int fp_probe_cap = IOMMU_CAP_DEFERRED_FLUSH;
