#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Guest half of the late-load check of scripts/qemu/e2e.sh: booted with
# nothing in /conf/modules and deferred_probe_timeout=1, nvme binds without
# an IOMMU; flushpol_smmuv3 loaded afterwards must name it.
set -eu

fail() { echo "late: FAIL: $*"; exit 1; }
# shellcheck source=e2e/guest-lib.sh
. /guest-lib.sh

! grep -q '^flushpol_smmuv3 ' /proc/modules || fail "flushpol_smmuv3 loaded early"
modprobe nvme
fp_wait "nvme never bound" test -e /sys/class/nvme/nvme0
pci=$(readlink -f /sys/class/nvme/nvme0/device)
[ ! -e "$pci/iommu_group" ] || fail "nvme has an IOMMU group before the driver loaded"
modprobe flushpol_smmuv3
dmesg | grep "${pci##*/}: bound to nvme before smmuv3.0 registered" ||
	fail "${pci##*/} bound without the IOMMU was not reported"
echo "late: PASS"
