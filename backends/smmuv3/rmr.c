// SPDX-License-Identifier: GPL-2.0-only
/*
 * IORT Reserved Memory Ranges (RMR): memory that firmware set up a device
 * to DMA to before the OS ran and that the device keeps using (a UEFI GOP
 * framebuffer scanned out by a display controller, a BMC's shared
 * buffer).  Once the SMMU is enabled, a stream without a domain aborts,
 * so such a device would lose its DMA from probe until the IOMMU core
 * gives it a domain, and for good if it never does (a device no OS
 * driver knows).  As upstream does (arm_smmu_rmr_install_bypass_ste()),
 * the streams that IORT's RMR nodes name bypass translation from the
 * moment the SMMU is enabled.  When the IOMMU core takes the device, its
 * domain has the same ranges direct-mapped (iommu_dma_get_resv_regions()
 * gives them as reserved regions), and the STE writer moves the stream
 * from bypass to it without a gap.
 *
 * Device trees have no RMR (6.12's arm-smmu-v3 reads them from IORT only).
 */
#define pr_fmt(fmt) "flushpol_smmuv3: " fmt

#include <linux/acpi_iort.h>
#include <linux/iommu.h>
#include <linux/of.h>

#include "smmuv3_dev.h"

/**
 * smmuv3_rmr_bypass() - make the streams of reserved memory ranges bypass
 * @smmu: the SMMU, reset (its command queue on) and not yet enabled
 * @rmrs: &struct iommu_iort_rmr_data, linked by their &rr.list, as
 *	iort_get_rmr_sids() gives them
 *
 * Each stream gets a level-2 table if it needs one and a bypass STE,
 * through the STE writer and the queue (CFGI_STE and CMD_SYNC): the SMMU
 * is not translating yet, but has been given the table.  A stream the
 * table cannot hold is named and left aborting, as upstream leaves it;
 * the others still bypass.
 *
 * Context: process context.
 */
void smmuv3_rmr_bypass(struct smmuv3_device *smmu, struct list_head *rmrs)
{
	struct iommu_iort_rmr_data *rmr;
	struct iommu_resv_region *rr;
	u64 ste[STE_DWORDS];
	u32 i, sid;

	smmuv3_ste_bypass(ste);
	list_for_each_entry(rr, rmrs, list) {
		rmr = container_of(rr, struct iommu_iort_rmr_data, rr);
		for (i = 0; i < rmr->num_sids; i++) {
			sid = rmr->sids[i];
			if (smmuv3_strtab_prepare(smmu, sid)) {
				dev_err(smmu->dev, "RMR SID(0x%x) bypass failed\n",
					sid);
				continue;
			}
			/* A failed sync is the queue's to recover from. */
			smmuv3_install_ste(smmu, &sid, 1, ste);
			dev_dbg(smmu->dev, "stream %#x bypasses: IORT RMR at %pa, %zu bytes\n",
				sid, &rr->start, rr->length);
		}
	}
}

/**
 * smmuv3_rmr_install() - bypass for the streams of the SMMU's IORT RMRs
 * @smmu: the SMMU, reset and not yet enabled
 *
 * Nothing under a device tree, or on a kernel without IORT.
 */
void smmuv3_rmr_install(struct smmuv3_device *smmu)
{
	struct fwnode_handle *fwnode = dev_fwnode(smmu->dev);
	LIST_HEAD(rmrs);

	if (is_of_node(fwnode))
		return;
	iort_get_rmr_sids(fwnode, &rmrs);
	smmuv3_rmr_bypass(smmu, &rmrs);
	iort_put_rmr_sids(fwnode, &rmrs);
}
