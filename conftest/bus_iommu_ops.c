// SPDX-License-Identifier: GPL-2.0-only
/*
 * Probe: the IOMMU core keeps its ops per bus (up to 6.7):
 * iommu_device_register() sets bus_type.iommu_ops on every bus, and
 * nothing ever clears it.
 */
#include <linux/device.h>
#include <linux/iommu.h>

const struct iommu_ops *fp_probe(const struct bus_type *bus);

const struct iommu_ops *fp_probe(const struct bus_type *bus)
{
	return bus->iommu_ops;
}
