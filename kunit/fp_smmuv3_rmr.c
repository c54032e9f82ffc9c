// SPDX-License-Identifier: GPL-2.0-only
/*
 * The shipped RMR bypass (backends/smmuv3/rmr.c), compiled into the test
 * module so that flushpol_smmuv3_idr installs it against a fake SMMU, with
 * the IORT it reads faked too: the RMR nodes a test gives for one SMMU's
 * firmware node, listed as iort_get_rmr_sids() lists them (one
 * &struct iommu_iort_rmr_data per node, allocated, freed when put back).
 */
/* rmr.c's, before any header defines the default. */
#define pr_fmt(fmt) "flushpol_smmuv3: " fmt

#include <linux/acpi_iort.h>
#include <linux/slab.h>

#include "fp_smmuv3_regs.h"

/* The IORT of the SMMU under test; one test at a time. */
static struct {
	struct fwnode_handle *smmu;
	const struct fpt_iort_rmr *rmrs;
	unsigned int n;
	int lists;	/* RMR lists given out and not put back */
} fpt_iort;

static void fpt_iort_get_rmr_sids(struct fwnode_handle *fwnode,
				  struct list_head *head)
{
	struct iommu_iort_rmr_data *rmr;
	unsigned int i;

	if (!fwnode || fwnode != fpt_iort.smmu)
		return;
	for (i = 0; i < fpt_iort.n; i++) {
		const struct fpt_iort_rmr *node = &fpt_iort.rmrs[i];

		/* As the IORT code, a node it cannot allocate is left out. */
		rmr = kzalloc(sizeof(*rmr), GFP_KERNEL);
		if (!rmr)
			continue;
		rmr->sids = kmemdup(node->sids, node->num_sids *
				    sizeof(*node->sids), GFP_KERNEL);
		if (!rmr->sids) {
			kfree(rmr);
			continue;
		}
		rmr->num_sids = node->num_sids;
		rmr->rr.start = node->start;
		rmr->rr.length = node->length;
		rmr->rr.type = IOMMU_RESV_DIRECT_RELAXABLE;
		list_add_tail(&rmr->rr.list, head);
	}
	fpt_iort.lists++;
}

static void fpt_iort_put_rmr_sids(struct fwnode_handle *fwnode,
				  struct list_head *head)
{
	struct iommu_resv_region *rr, *tmp;
	struct iommu_iort_rmr_data *rmr;

	if (!fwnode || fwnode != fpt_iort.smmu)
		return;
	list_for_each_entry_safe(rr, tmp, head, list) {
		rmr = container_of(rr, struct iommu_iort_rmr_data, rr);
		list_del(&rr->list);
		kfree(rmr->sids);
		kfree(rmr);
	}
	fpt_iort.lists--;
}

static void fpt_iort_clear(void *data)
{
	memset(&fpt_iort, 0, sizeof(fpt_iort));
}

/**
 * fpt_iort_set_rmrs() - IORT RMR nodes naming @f's SMMU
 * @test: the test; the nodes go when it ends
 * @f: the fake SMMU; its device gets a firmware node if it has none, as
 *	the IORT code gives an SMMUv3 node's platform device one
 * @rmrs: the nodes, kept by reference
 * @n: how many
 */
void fpt_iort_set_rmrs(struct kunit *test, struct fpt_regs *f,
		       const struct fpt_iort_rmr *rmrs, unsigned int n)
{
	struct device *dev = f->smmu.dev;

	if (!dev_fwnode(dev))
		KUNIT_ASSERT_EQ(test, device_create_managed_software_node(dev, NULL, NULL), 0);
	fpt_iort.smmu = dev_fwnode(dev);
	fpt_iort.rmrs = rmrs;
	fpt_iort.n = n;
	fpt_iort.lists = 0;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, fpt_iort_clear,
							NULL), 0);
}

/* Return: RMR lists the code under test took and has not put back. */
int fpt_iort_lists_held(void)
{
	return fpt_iort.lists;
}

#define iort_get_rmr_sids	fpt_iort_get_rmr_sids
#define iort_put_rmr_sids	fpt_iort_put_rmr_sids
#include "../backends/smmuv3/rmr.c"
