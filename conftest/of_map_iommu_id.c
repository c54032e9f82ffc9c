// SPDX-License-Identifier: GPL-2.0-only
/*
 * Probe: of_map_iommu_id() (7.x), with of_map_id() handing back the
 * phandle's arguments, rather than of_map_id(np, id, "iommu-map",
 * "iommu-map-mask", &target, &id_out).
 */
#include <linux/of.h>

int fp_probe(const struct device_node *np, struct of_phandle_args *arg);

int fp_probe(const struct device_node *np, struct of_phandle_args *arg)
{
	return of_map_iommu_id(np, 0, arg);
}
