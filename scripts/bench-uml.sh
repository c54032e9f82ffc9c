#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build (or reuse) a second User-Mode-Linux kernel for make bench: the test
# kernel's config (kunit/uml.config) less its debug options.  Lock proving
# and RCU checking make every spinlock and RCU read section many times
# dearer, and the flushpol core takes both on every call, so the dispatch
# cost measured in the test kernel says more about those options than about
# flushpol; this kernel gives the figure without them.  Prints the build
# directory on stdout.
#
# The source is the one scripts/uml-kernel.sh extracts and patches (it is
# run first); the build is cached beside its own, keyed by the fragment.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${FLUSHPOL_CACHE:-/var/cache/flushpol}
src=$cache/linux-source-6.12
# Preemption too: the figures were first taken without it.
debug='PROVE_LOCKING|DEBUG_ATOMIC_SLEEP|DEBUG_LIST|PROVE_RCU|KASAN|KASAN_VMALLOC'
debug+='|DEBUG_KMEMLEAK|PREEMPT'

log() { echo "bench-uml: $*" >&2; }

"$top/scripts/uml-kernel.sh" >/dev/null
# Tracepoints, as Debian's kernels have them: flushpol_kunit probes
# flushpol's own (tracepoint_probe_register) and does not link without
# them.  In the test kernel lock proving selects them; here the default
# tracers do (TRACING selects TRACEPOINTS), with no function tracer.
frag=$(grep -vE "^CONFIG_($debug)=" "$top/kunit/uml.config"
       printf 'CONFIG_FTRACE=y\nCONFIG_ENABLE_DEFAULT_TRACERS=y\n')
key=$( (echo "$frag"; cat "$top"/kunit/patches/*.patch) |
	sha256sum | cut -c1-12)
out=$cache/uml-bench-$key

if [ -f "$out/.flushpol-built" ]; then
	echo "$out"
	exit 0
fi

log "building UML kernel without debug options in $out (a few minutes)"
rm -rf "$out"
mkdir -p "$out"
echo "$frag" >"$out/fragment.config"
make -s -C "$src" O="$out" ARCH=um allnoconfig \
	KCONFIG_ALLCONFIG="$out/fragment.config" >&2
for opt in 64BIT MODULES KUNIT IOMMU_API IOMMU_IO_PGTABLE_LPAE BLK_DEV_INITRD \
	   TRACEPOINTS; do
	grep -q "^CONFIG_$opt=y" "$out/.config" ||
		{ log "CONFIG_$opt did not stick"; exit 1; }
done
# (DEBUG_KERNEL stays: EXPERT selects it, and it only shows options.)
if grep -E "^CONFIG_($debug|LOCKDEP|DEBUG_SPINLOCK|DEBUG_LOCK_ALLOC)=y" \
	"$out/.config" >&2; then
	log "debug options still on"
	exit 1
fi
# nice: the machine is shared, and this is a one-off.
nice make -s -C "$src" O="$out" ARCH=um -j"$(nproc)" \
	linux modules modules_prepare >&2
touch "$out/.flushpol-built"
echo "$out"
