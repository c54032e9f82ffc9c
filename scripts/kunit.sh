#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Run the KUnit suites in a User-Mode-Linux kernel built from Debian's
# linux-source-6.12, with the real io-pgtable-arm, and judge them with the
# kernel's own KTAP parser.
#
# UML exits 0 whatever the tests did, and the kernel prints an empty KTAP
# block of its own at boot: so only what follows our marker is parsed, and
# the run fails unless /init reports that every module loaded and the
# parser finds every expected suite, all passing.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"
cache=${FLUSHPOL_CACHE:-/var/cache/flushpol}
src=$cache/linux-source-6.12
out=${FLUSHPOL_OUT:-$top/build/kunit}
suites=(flushpol_counts flushpol_model flushpol_oracle flushpol_switch
	flushpol_registry flushpol_sysfs flushpol_lazy flushpol_smmuv3
	flushpol_smmuv2 flushpol_smmuv2_oracle flushpol_qcom flushpol_coverage)

log() { echo "kunit: $*" >&2; }

# FLUSHPOL_UML: another UML build to run in (make bench's, without the
# debug options); by default the test kernel.
uml=${FLUSHPOL_UML:-$("$top/scripts/uml-kernel.sh")}

# Build from a copy so the UML objects never mix with a host build.
rm -rf "$out"
mkdir -p "$out/root"
fp_export_tree "$out/src"
make -s -C "$src" O="$uml" ARCH=um M="$out/src" W=1 KCFLAGS=-Werror modules

modules=(flushpol flushpol_threshold flushpol_smmuv3 flushpol_smmuv2
	 flushpol_qcom flushpol_kunit)
root=$out/root
mkdir -p "$root"/{lib,proc,sys,dev}
for m in "${modules[@]}"; do
	cp "$out/src/$m.ko" "$root/lib/"
done
gcc -static -nostdlib -fno-stack-protector -Os -Wall \
	-include "$src/tools/include/nolibc/nolibc.h" \
	-o "$root/init" "$top/kunit/initramfs/init.c" -lgcc
(cd "$root" && find . | cpio -o -H newc --quiet) > "$out/initrd.cpio"

log "booting UML"
umldir=$(mktemp -d)
timeout 600 "$uml/linux" mem=1G initrd="$out/initrd.cpio" \
	uml_dir="$umldir" \
	rdinit=/init -- "${modules[@]}" </dev/null > "$out/console.log" 2>&1 || true
rm -rf "$umldir"

sed -n '/FLUSHPOL-BEGIN/,$p' "$out/console.log" > "$out/ktap.log"
# KASAN reports start "BUG: KASAN:"; kmemleak's are read by /init.
splat="WARNING:|BUG:|Oops|INFO: (possible|suspicious)|lockdep|UBSAN|KASAN"
splat+="|detected stalls?|soft lockup|blocked for more than|general protection"
if grep -qE "$splat" "$out/ktap.log"; then
	grep -nE -A20 "$splat|INFO: " "$out/ktap.log" >&2
	log "FAIL: kernel splat (full log: $out/console.log)"
	exit 1
fi
if ! grep -q FLUSHPOL-INSMOD-OK "$out/ktap.log"; then
	tail -40 "$out/console.log" >&2
	log "FAIL: modules did not all load (full log: $out/console.log)"
	exit 1
fi

rc=0
python3 "$src/tools/testing/kunit/kunit.py" parse "$out/ktap.log" || rc=$?
for s in "${suites[@]}"; do
	grep -qE "^ *ok [0-9]+ $s\$" "$out/ktap.log" ||
		{ log "FAIL: suite $s missing or not ok"; rc=1; }
done
grep -o 'fp-count: .*' "$out/ktap.log" > "$out/counts.txt" || true
[ $rc = 0 ] && log "PASS: ${#suites[@]} suites" || log "FAIL"
exit $rc
