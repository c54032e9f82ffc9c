#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Guest half of scripts/qemu/smoke.sh (busybox sh, in the arm64 guest):
# the DKMS-installed modules load by name, the policies show up in sysfs,
# and the machine is what the SMMUv3 tests expect.
set -eu

fail() { echo "smoke: FAIL: $*"; exit 1; }

# modprobe resolves names through the host-made modules.dep.
modprobe flushpol
for m in flushpol; do
	grep -q "^$m " /proc/modules || fail "$m not in /proc/modules"
done
p=$(cat /sys/kernel/flushpol/policies)
[ "$p" = "va range asid nonstrict threshold batch" ] || fail "policies: \"$p\""
echo "smoke: policies: $p"

# QEMU's edu device (1234:11e8): the PCI device the tests will drive.
edu=
for d in /sys/bus/pci/devices/*; do
	if [ "$(cat "$d/vendor")" = 0x1234 ] && [ "$(cat "$d/device")" = 0x11e8 ]; then
		edu=${d##*/}
	fi
done
[ -n "$edu" ] || fail "no edu device (1234:11e8) on PCI"
echo "smoke: edu at $edu"

# The SMMUv3 must be there and bound to ours, which /init loaded:
# initcall_blacklist kept the in-tree driver out.  Found by what the
# firmware called it, not by address: a device-tree node compatible with
# arm,smmu-v3, or the platform device IORT made for an SMMUv3 node.
smmu=
for d in /sys/bus/platform/devices/*; do
	if grep -qs 'arm,smmu-v3' "$d/of_node/compatible" ||
	   [ "$(cat "$d/modalias")" = platform:arm-smmu-v3 ]; then
		smmu=$d
	fi
done
[ -n "$smmu" ] || fail "no arm,smmu-v3 platform device"
drv=$(basename "$(readlink "$smmu/driver")")
[ "$drv" = flushpol-smmuv3 ] || fail "${smmu##*/} is bound to \"$drv\""
[ -e /sys/class/iommu/smmuv3.0 ] || fail "no /sys/class/iommu/smmuv3.0"
echo "smoke: ${smmu##*/} bound to $drv"
# QEMU's SMMU is coherent (IDR0.COHACC), and so says its firmware: the DT
# node's dma-coherent, or the IORT node's COHACC override.
! dmesg | grep 'but the firmware says' || fail "coherency: firmware and IDR0 disagree"

# Only the taints our unsigned out-of-tree modules bring: O (4096) and
# E (8192).  Anything else (W, a warning) fails even if it did not reach
# the console.
t=$(cat /proc/sys/kernel/tainted)
[ $((t & ~(4096 | 8192))) -eq 0 ] || fail "kernel tainted $t"
echo "smoke: taint $t"
