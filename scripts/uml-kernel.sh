#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build (or reuse) the User-Mode-Linux kernel the KUnit suites run in, from
# Debian's linux-source-6.12.  Prints the build directory on stdout.
#
# The tree is cached under $FLUSHPOL_CACHE (default /var/cache/flushpol),
# keyed by a hash of the config fragment, so editing kunit/uml.config
# rebuilds and an empty cache just costs one build.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${FLUSHPOL_CACHE:-/var/cache/flushpol}
tarball=${LINUX_SOURCE_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
frag=$top/kunit/uml.config
src=$cache/linux-source-6.12
patches=("$top"/kunit/patches/*.patch)
key=$(cat "$frag" "$0" "${patches[@]}" | sha256sum | cut -c1-12)
out=$cache/uml-$key

log() { echo "uml-kernel: $*" >&2; }

mkdir -p "$cache"
# One builder at a time: parallel runs (developers' worktrees, make bench
# beside make check) share the cache and would build into the same tree.
exec 9>"$cache/.uml-kernel.lock"
flock 9
if [ ! -f "$src/Makefile" ]; then
	log "extracting $tarball"
	rm -rf "$src"
	tar -C "$cache" -xJf "$tarball"
fi

# Fixes the test kernel needs on this kind of host (see each patch); the
# source is shared between builds, so each is applied once.
for p in "${patches[@]}"; do
	if patch -d "$src" -p1 --dry-run --forward -s < "$p" >/dev/null 2>&1; then
		log "applying $(basename "$p")"
		patch -d "$src" -p1 --forward -s < "$p"
	elif ! patch -d "$src" -p1 --dry-run --reverse -s < "$p" >/dev/null 2>&1; then
		log "$(basename "$p") neither applies nor is applied"
		exit 1
	fi
done

if [ -f "$out/.flushpol-built" ]; then
	echo "$out"
	exit 0
fi

log "building UML kernel in $out (a few minutes)"
rm -rf "$out"
mkdir -p "$out"
make -s -C "$src" O="$out" ARCH=um allnoconfig KCONFIG_ALLCONFIG="$frag" >&2

# allnoconfig silently drops what it cannot satisfy: insist on what we need.
for opt in 64BIT MODULES KUNIT IOMMU_API IOMMU_IO_PGTABLE_LPAE BLK_DEV_INITRD \
	   BINFMT_SCRIPT PROVE_LOCKING PREEMPT KASAN DEBUG_KMEMLEAK; do
	grep -q "^CONFIG_$opt=y" "$out/.config" ||
		{ log "CONFIG_$opt did not stick"; exit 1; }
done

make -s -C "$src" O="$out" ARCH=um -j"$(nproc)" linux modules modules_prepare >&2
touch "$out/.flushpol-built"
echo "$out"
