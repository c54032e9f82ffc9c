#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A test kernel with flushpol inside its tree, as drivers/iommu/flushpol/
# (scripts/intree.sh): the core, its policies and the SMMUv2 and Qualcomm
# backends built in, flushpol_smmuv3 and the KUnit suites as the tree's
# own modules.  Prints the build directory on stdout; the modules are in
# drivers/iommu/flushpol/ there.
#
#   intree-kernel.sh              the UML test kernel (scripts/uml-kernel.sh)
#   intree-kernel.sh --arch arm64 the arm64 one (scripts/arm64-kernel.sh),
#                                 with the arm-smmu series of
#                                 integration/arm-smmu/6.12/ applied and
#                                 arm-smmu and arm-smmu-qcom built in
#                                 (ARCH_QCOM), handing their banks to the
#                                 built-in SMMUv2 and Qualcomm backends
#
# Made once from the cached test kernel: its source as hard links (cp -al)
# and its objects copied, so only what the options below touch is
# compiled.  The objects name their source by the cached tree's path, so
# the copy is built with itself mounted there, in a mount namespace of its
# own (nothing outside sees it).  Each run lays the current sources in
# again, reapplies the series to the pristine files it touches, and
# rebuilds what changed: about 30 s of CPU for flushpol alone.
# Needs root (unshare -m, mount --bind).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/series.sh
. "$top/scripts/series.sh"
cache=${FLUSHPOL_CACHE:-/var/cache/flushpol}
src=$cache/linux-source-6.12
arch=um
if [ "${1:-}" = --arch ]; then
	arch=${2:?}
	shift 2
fi

# FLUSHPOL=y makes the core and the policies built in; the backends
# follow it unless said otherwise.
opts=(-e FLUSHPOL -e FLUSHPOL_ADAPTIVE -e FLUSHPOL_SMMUV2 -e FLUSHPOL_QCOM
      -m FLUSHPOL_SMMUV3 -m FLUSHPOL_KUNIT_TEST)
want=(FLUSHPOL=y FLUSHPOL_ADAPTIVE=y FLUSHPOL_SMMUV2=y FLUSHPOL_QCOM=y
      FLUSHPOL_SMMUV3=m FLUSHPOL_KUNIT_TEST=m)
series=
case $arch in
um)
	base=$("$top/scripts/uml-kernel.sh")
	kmake=(ARCH=um)
	targets=(linux modules)
	;;
arm64)
	base=$("$top/scripts/arm64-kernel.sh")
	kmake=(ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-)
	targets=(Image modules)
	series=$top/integration/arm-smmu/6.12
	# arm-smmu-qcom needs ARCH_QCOM (which selects GPIOLIB and PINCTRL)
	# and selects QCOM_SCM for the TBU queries of its sync-timeout dump.
	opts+=(-e ARCH_QCOM -e ARM_SMMU -e ARM_SMMU_QCOM -e ARM_SMMU_QCOM_DEBUG
	       -e ARM_SMMU_FLUSHPOL)
	want+=(ARM_SMMU=y ARM_SMMU_QCOM=y ARM_SMMU_QCOM_DEBUG=y
	       ARM_SMMU_FLUSHPOL=y)
	;;
*)
	echo "intree-kernel: no arch $arch (um or arm64)" >&2
	exit 2
	;;
esac
work=$cache/intree-$(basename "$base")

log() { echo "intree-kernel: $*" >&2; }

exec 9>"$cache/.intree-kernel-$arch.lock"
flock 9
if [ ! -f "$work/.flushpol-copied" ]; then
	log "copying $base and its source to $work"
	rm -rf "$work"
	mkdir -p "$work"
	cp -al "$src" "$work/src"
	cp -a "$base" "$work/build"
	touch "$work/.flushpol-copied"
fi
# The series, on pristine copies of the files it touches, in a scratch
# tree; a file is replaced (never written through its hard link) only if
# its patched text differs from what is there, so that an unchanged
# series rebuilds nothing.
if [ -n "$series" ]; then
	scratch=$(mktemp -d)
	# shellcheck disable=SC2064
	trap "rm -rf '$scratch'" EXIT
	fp_series_apply "$series" "$src" "$work/src" "$scratch" || exit 1
fi

# After the series: it may replace drivers/iommu/Kconfig, which intree.sh
# hooks.
"$top/scripts/intree.sh" "$work/src"

log "building in $work/build"
# shellcheck disable=SC2016 # expanded by the inner shell
FP_KMAKE="${kmake[*]}" FP_TARGETS="${targets[*]}" \
unshare -m --propagation private bash -euo pipefail -c '
	read -ra kmake <<<"$FP_KMAKE"
	read -ra targets <<<"$FP_TARGETS"
	mount --bind "$1/src" "$2"
	"$2/scripts/config" --file "$1/build/.config" "${@:3}"
	make -s -C "$2" O="$1/build" "${kmake[@]}" olddefconfig
	make -s -C "$2" O="$1/build" "${kmake[@]}" -j"$(nproc)" "${targets[@]}"
' intree-kernel "$work" "$src" "${opts[@]}" >&2

# What was asked for is what Kconfig kept (it drops what it cannot satisfy).
for o in "${want[@]}"; do
	grep -qx "CONFIG_$o" "$work/build/.config" ||
		{ log "CONFIG_$o did not stick"; exit 1; }
done
echo "$work/build"
