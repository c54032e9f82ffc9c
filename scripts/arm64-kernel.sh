#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build (or reuse) the arm64 SMP kernel the KUnit suites also run in, under
# qemu-system-aarch64 -M virt -smp 4, from Debian's linux-source-6.12,
# cross-built with Debian's gcc-aarch64-linux-gnu.  Prints the build
# directory on stdout (Image at arch/arm64/boot/Image).
#
# Usage: arm64-kernel.sh [VARIANT]
# A variant is a fragment kunit/arm64-VARIANT.config applied after
# kunit/arm64.config (kcsan: KCSAN instead of KASAN), cached under its own
# key.  Its "# flushpol-require:" lines name options that must stick, and
# "# flushpol-norequire:" lines options of the base list it turns off
# (bench: no debug options, for make bench).
#
# Like scripts/uml-kernel.sh: cached under $FLUSHPOL_CACHE (default
# /var/cache/flushpol), keyed by a hash of the fragments and of
# $recipe below (bump it when a change here changes what is built), one
# builder at a time, so that adding a variant does not rebuild the others.
# The shared source is only read: the UML patches in kunit/patches/ touch
# arch/um alone.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/deps.sh
. "$top/scripts/deps.sh"
cache=${FLUSHPOL_CACHE:-/var/cache/flushpol}
variant=${1:-}
frags=("$top/kunit/arm64.config")
if [ -n "$variant" ]; then
	if [ ! -f "$top/kunit/arm64-$variant.config" ]; then
		echo "arm64-kernel: no variant $variant (no kunit/arm64-$variant.config)" >&2
		exit 1
	fi
	frags+=("$top/kunit/arm64-$variant.config")
fi
# What is built from the fragments: allnoconfig, then Image and modules,
# from linux-source-6.12 with gcc-aarch64-linux-gnu.
recipe="arm64-kernel 2: allnoconfig Image modules modules_prepare"
src=$cache/linux-source-6.12
key=$( (cat "${frags[@]}"; echo "$recipe") | sha256sum | cut -c1-12)
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
required=" SMP MODULES KUNIT IOMMU_API IOMMU_IO_PGTABLE_LPAE BLK_DEV_INITRD
	  BINFMT_SCRIPT SERIAL_AMBA_PL011_CONSOLE PROVE_LOCKING PROVE_RCU
	  PREEMPT KASAN DEBUG_KMEMLEAK "
required=${required//$'\n'/ }
required=${required//$'\t'/ }
for opt in $(sed -n 's/^# flushpol-norequire://p' "${frags[@]}"); do
	required=${required/ $opt / }
done
required+=" $(sed -n 's/^# flushpol-require://p' "${frags[@]}" | tr '\n' ' ')"
for opt in $required; do
	grep -q "^CONFIG_$opt=y" "$out/.config" ||
		{ log "CONFIG_$opt did not stick"; exit 1; }
done
# "# flushpol-off:" lines name options the variant must not have, which
# another option could select back (the bench kernel's debug options).
for opt in $(sed -n 's/^# flushpol-off://p' "${frags[@]}"); do
	! grep -q "^CONFIG_$opt=y" "$out/.config" ||
		{ log "CONFIG_$opt is on"; exit 1; }
done

"${kmake[@]}" -j"$(nproc)" Image modules modules_prepare >&2
echo "$(( $(date +%s) - start ))" > "$out/.flushpol-build-seconds"
log "built in $(cat "$out/.flushpol-build-seconds") s"
touch "$out/.flushpol-built"
echo "$out"
