#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Guest half of scripts/qemu/grub-boot.sh (busybox sh, in the arm64 guest,
# booted by GRUB from one entry of the grub.cfg that flushpol-boot enable
# made): GRUB passed the entry's command line, the SMMU is bound to the
# driver that entry is for, and the machine translates through it.
#   /conf/grub-kind     normal or recovery: which entry this boot is
#   /conf/grub-cmdline  what /proc/cmdline must be (GRUB's BOOT_IMAGE=
#                       and the entry's linux line)
#   /conf/nvme-md5      the md5sum of the NVMe's first 4 MiB
# A normal entry must boot flushpol_smmuv3 (driver flushpol-smmuv3) and a
# recovery entry the kernel's own arm-smmu-v3, though the initramfs loads
# flushpol_smmuv3 in both, as initramfs-tools' force_load does.
set -eu

kind=$(cat /conf/grub-kind)
fail() { echo "grub-boot: FAIL: $kind entry: $*"; exit 1; }
# shellcheck source=e2e/guest-lib.sh
. /guest-lib.sh

want=$(cat /conf/grub-cmdline)
got=$(cat /proc/cmdline)
[ "$got" = "$want" ] || fail "/proc/cmdline is \"$got\", not \"$want\""
echo "grub-boot: $kind entry: /proc/cmdline: $got"

# Loaded in both entries: which driver wins the SMMU is the question.
grep -q '^flushpol_smmuv3 ' /proc/modules || fail "flushpol_smmuv3 not loaded"
case $kind in
normal) want=flushpol-smmuv3 ;;
recovery) want=arm-smmu-v3 ;;
*) fail "kind \"$kind\"" ;;
esac
smmu=
for d in /sys/bus/platform/devices/*smmu*; do
	[ "$(cat "$d/modalias" 2>/dev/null)" = platform:arm-smmu-v3 ] && smmu=$d
done
[ -n "$smmu" ] || fail "no arm-smmu-v3 platform device (IORT)"
[ -e "$smmu/driver" ] || fail "no SMMU driver: ${smmu##*/} is bound to nothing"
drv=$(basename "$(readlink "$smmu/driver")")
[ "$drv" = "$want" ] || fail "${smmu##*/} is bound to $drv, not $want"
echo "grub-boot: $kind entry: ${smmu##*/} bound to $drv"

# Device $1 ($2) is behind it: in a group whose IOMMU is that SMMU's, a
# DMA domain (translating, not identity).
behind()
{
	_d=/sys/bus/pci/devices/$1
	[ -e "$_d/iommu_group" ] || fail "$1 ($2) has no iommu_group"
	_i=$(readlink -f "$_d/iommu")
	case $_i in
	"$(readlink -f "$smmu")"/*) ;;
	*) fail "$1 ($2): its IOMMU is $_i, not ${smmu##*/}'s" ;;
	esac
	_t=$(cat "$_d/iommu_group/type")
	case $_t in
	DMA|DMA-FQ) ;;
	*) fail "$1 ($2): its group's domain is $_t" ;;
	esac
	echo "grub-boot: $kind entry: $1 ($2) in IOMMU group $(basename "$(readlink "$_d/iommu_group")") of ${_i##*/}, $_t"
}

# The NVMe, bound to nvme: under ACPI, 6.12 gives a PCI device its IOMMU
# (IORT's streams) when a driver binds it, so the edu device, which has
# none here, is in no group.  Real DMA through it: a direct read, the data
# as written.
fp_nvme_up
nvme=$(basename "$(readlink -f /sys/class/nvme/nvme0/device)")
behind "$nvme" nvme
ctx=$(fp_nvme_ctx)
sum=$(dd if=/dev/nvme0n1 bs=64k count=64 iflag=direct 2>/dev/null | md5sum)
[ "${sum%% *}" = "$(cat /conf/nvme-md5)" ] ||
	fail "the NVMe read back ${sum%% *}, not what was written"
if [ "$kind" = normal ]; then
	[ -n "$ctx" ] || fail "the NVMe's DMA made no flushpol context invalidate"
	echo "grub-boot: $kind entry: the NVMe's DMA invalidated through ${ctx##*/}"
else
	[ -z "$ctx" ] || fail "the NVMe's DMA went through flushpol's ${ctx##*/}"
fi
echo "grub-boot: $kind entry: 4 MiB read back intact through $drv"
