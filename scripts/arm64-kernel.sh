#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build (or reuse) the arm64 SMP kernel the KUnit suites also run in, under
# qemu-system-aarch64 -M virt -smp 4, from Debian's linux-source-6.12,
# cross-built with Debian's gcc-aarch64-linux-gnu.  Prints the build
# directory on stdout (Image at arch/arm64/boot/Image).
#
# Usage: arm64-kernel.sh [kcsan]
# With "kcsan", the KCSAN variant: kunit/arm64-kcsan.config applied after
# kunit/arm64.config (KCSAN instead of KASAN), cached under its own key.
#
# Like scripts/uml-kernel.sh: cached under $FLUSHPOL_CACHE (default
# /var/cache/flushpol), keyed by a hash of kunit/arm64.config and this
# script, one builder at a time.  The shared source is only read: the UML
# patches in kunit/patches/ touch arch/um alone.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/deps.sh
. "$top/scripts/deps.sh"
cache=${FLUSHPOL_CACHE:-/var/cache/flushpol}
variant=${1:-}
frags=("$top/kunit/arm64.config")
case "$variant" in
"") ;;
kcsan) frags+=("$top/kunit/arm64-kcsan.config") ;;
*) echo "arm64-kernel: no variant $variant (only kcsan)" >&2; exit 1 ;;
esac
src=$cache/linux-source-6.12
key=$(cat "${frags[@]}" "$0" | sha256sum | cut -c1-12)
out=$cache/arm64${variant:+-$variant}-$key
kmake=(make -s -C "$src" O="$out" ARCH=arm64
       CROSS_COMPILE=aarch64-linux-gnu-)

log() { echo "arm64-kernel: $*" >&2; }

fp_apt_install gcc-aarch64-linux-gnu >&2
mkdir -p "$cache"
# One lock per variant: an hour's KCSAN build must not hold up runs in the
# cached KASAN kernel.
exec 9>"$cache/.arm64${variant:+-$variant}-kernel.lock"
flock 9
if [ -f "$out/.flushpol-built" ]; then
	echo "$out"
	exit 0
fi
# The source is extracted once, by scripts/uml-kernel.sh under its lock
# (held for its whole build: only wait for it when there is no source).
if [ ! -f "$src/Makefile" ]; then
	"$top/scripts/uml-kernel.sh" >/dev/null
fi

log "building arm64 kernel in $out (about an hour on two shared cores)"
start=$(date +%s)
rm -rf "$out"
mkdir -p "$out"
# The variant's fragment comes last: a later line overrides an earlier one.
cat "${frags[@]}" > "$out/flushpol.config"
"${kmake[@]}" allnoconfig KCONFIG_ALLCONFIG="$out/flushpol.config" >&2

# allnoconfig silently drops what it cannot satisfy: insist on what we need.
sanitizer=KASAN
[ "$variant" = kcsan ] && sanitizer=KCSAN
for opt in SMP MODULES KUNIT IOMMU_API IOMMU_IO_PGTABLE_LPAE BLK_DEV_INITRD \
	   BINFMT_SCRIPT SERIAL_AMBA_PL011_CONSOLE PROVE_LOCKING PROVE_RCU \
	   PREEMPT $sanitizer DEBUG_KMEMLEAK; do
	grep -q "^CONFIG_$opt=y" "$out/.config" ||
		{ log "CONFIG_$opt did not stick"; exit 1; }
done

"${kmake[@]}" -j"$(nproc)" Image modules modules_prepare >&2
echo "$(( $(date +%s) - start ))" > "$out/.flushpol-build-seconds"
log "built in $(cat "$out/.flushpol-build-seconds") s"
touch "$out/.flushpol-built"
echo "$out"
