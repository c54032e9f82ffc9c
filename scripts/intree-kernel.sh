#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The UML test kernel (scripts/uml-kernel.sh) with flushpol inside its
# tree, as drivers/iommu/flushpol/ (scripts/intree.sh): the core, its
# policies and the SMMUv2 and Qualcomm backends built in, flushpol_smmuv3
# and the KUnit suites as the tree's own modules.  Prints the build
# directory on stdout; the modules are in drivers/iommu/flushpol/ there.
#
# Made once from the cached test kernel: its source as hard links (cp -al)
# and its objects copied, so only what flushpol's options touch is
# compiled.  The objects name their source by the cached tree's path, so
# the copy is built with itself mounted there, in a mount namespace of its
# own (nothing outside sees it).  Each run lays the current sources in
# again and rebuilds what changed: about 30 s of CPU for flushpol alone.
# Needs root (unshare -m, mount --bind).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${FLUSHPOL_CACHE:-/var/cache/flushpol}
src=$cache/linux-source-6.12
base=$("$top/scripts/uml-kernel.sh")
work=$cache/intree-$(basename "$base")

log() { echo "intree-kernel: $*" >&2; }

exec 9>"$cache/.intree-kernel.lock"
flock 9
if [ ! -f "$work/.flushpol-copied" ]; then
	log "copying $base and its source to $work"
	rm -rf "$work"
	mkdir -p "$work"
	cp -al "$src" "$work/src"
	cp -a "$base" "$work/build"
	touch "$work/.flushpol-copied"
fi
"$top/scripts/intree.sh" "$work/src"

# FLUSHPOL=y makes the core and the policies built in; the backends
# follow it unless said otherwise.
opts=(-e FLUSHPOL -e FLUSHPOL_ADAPTIVE -e FLUSHPOL_SMMUV2 -e FLUSHPOL_QCOM
      -m FLUSHPOL_SMMUV3 -m FLUSHPOL_KUNIT_TEST)
log "building in $work/build"
# shellcheck disable=SC2016 # expanded by the inner shell
unshare -m --propagation private bash -euo pipefail -c '
	mount --bind "$1/src" "$2"
	"$2/scripts/config" --file "$1/build/.config" "${@:3}"
	make -s -C "$2" O="$1/build" ARCH=um olddefconfig
	make -s -C "$2" O="$1/build" ARCH=um -j"$(nproc)" linux modules
' intree-kernel "$work" "$src" "${opts[@]}" >&2

# What was asked for is what Kconfig kept (it drops what it cannot satisfy).
for o in FLUSHPOL=y FLUSHPOL_ADAPTIVE=y FLUSHPOL_SMMUV2=y FLUSHPOL_QCOM=y \
	 FLUSHPOL_SMMUV3=m FLUSHPOL_KUNIT_TEST=m; do
	grep -qx "CONFIG_$o" "$work/build/.config" ||
		{ log "CONFIG_$o did not stick"; exit 1; }
done
echo "$work/build"
