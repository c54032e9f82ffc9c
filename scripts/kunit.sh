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
#
#   kunit.sh                 every suite, 10^4 stress cycles, and first
#                            /init's module lifetime checks, 36 rounds
#   kunit.sh --stress [N]    flushpol_stress alone, N cycles (10^6), and
#                            the lifetime checks with 100 rounds
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"
cache=${FLUSHPOL_CACHE:-/var/cache/flushpol}
src=$cache/linux-source-6.12
out=${FLUSHPOL_OUT:-$top/build/kunit}
suites=(flushpol_counts flushpol_model flushpol_oracle flushpol_switch
	flushpol_registry flushpol_sysfs flushpol_lazy flushpol_smmuv3
	flushpol_smmuv2 flushpol_smmuv2_oracle flushpol_qcom flushpol_coverage
	flushpol_stress flushpol_lifetime flushpol_faults flushpol_smmuv3_cmdq
	flushpol_smmuv3_domain)
# Module parameters and KUnit's filter go on the kernel command line, where
# /init finds them as modprobe would; @lifetime is for /init itself.
cmdline=()
init_args=(@lifetime:36)
limit=900
if [ "${1:-}" = --stress ]; then
	out=${FLUSHPOL_OUT:-$top/build/stress}
	suites=(flushpol_stress)
	cmdline=("flushpol_kunit.stress_ops=${2:-1000000}"
		 kunit.filter_glob=flushpol_stress)
	init_args=(@lifetime:100)
	limit=$((6 * 3600))
fi

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
for m in "${modules[@]}" flushpol_holder; do
	cp "$out/src/$m.ko" "$root/lib/"
done
gcc -static -nostdlib -fno-stack-protector -Os -Wall \
	-include "$src/tools/include/nolibc/nolibc.h" \
	-o "$root/init" "$top/kunit/initramfs/init.c" -lgcc
(cd "$root" && find . | cpio -o -H newc --quiet) > "$out/initrd.cpio"

log "booting UML"
umldir=$(mktemp -d)
timeout "$limit" "$uml/linux" mem=1G initrd="$out/initrd.cpio" \
	uml_dir="$umldir" ${cmdline[@]+"${cmdline[@]}"} \
	rdinit=/init -- "${init_args[@]}" "${modules[@]}" \
	</dev/null > "$out/console.log" 2>&1 || true
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
if ! grep -q FLUSHPOL-LIFETIME-OK "$out/ktap.log"; then
	grep -E "FLUSHPOL-LIFETIME|fp-lifetime" "$out/ktap.log" >&2 ||
		tail -40 "$out/console.log" >&2
	log "FAIL: module lifetime checks (full log: $out/console.log)"
	exit 1
fi
if ! grep -q FLUSHPOL-INSMOD-OK "$out/ktap.log"; then
	tail -40 "$out/console.log" >&2
	log "FAIL: modules did not all load (full log: $out/console.log)"
	exit 1
fi

rc=0
python3 "$src/tools/testing/kunit/kunit.py" parse "$out/ktap.log" |
	tee "$out/parse.log" || rc=$?
for s in "${suites[@]}"; do
	grep -qE "^ *ok [0-9]+ $s\$" "$out/ktap.log" ||
		{ log "FAIL: suite $s missing or not ok"; rc=1; }
done
grep -o 'fp-count: .*' "$out/ktap.log" > "$out/counts.txt" || true
# flushpol_faults wedges syncs: the log must have held back most of them.
injected=$(sed -n 's/.*fp-fault: injected \([0-9]*\) sync timeouts.*/\1/p' \
	"$out/ktap.log")
if [ -n "$injected" ]; then
	logged=$(grep -c "TLB sync failed" "$out/ktap.log" || true)
	echo "fp-fault: logged $logged lines for $injected sync timeouts" \
		>> "$out/ktap.log"
	[ "$logged" -lt "$injected" ] ||
		{ log "FAIL: sync timeouts not rate-limited"; rc=1; }
fi
# The README's Reliability figures.
grep -oE '(fp-stress-total|fp-lifetime|fp-fault|fp-stress: seed).*' \
	"$out/ktap.log" > "$out/reliability.txt" || true
cat "$out/reliability.txt" >&2
# One plain closing line, from the parser's count: "N passed, N failed".
summary=$(grep 'Testing complete\. Ran' "$out/parse.log" | tail -n 1 || true)
count() { sed -n "s/.* $1: \([0-9]*\).*/\1/p" <<<"$summary"; }
if [ -n "$summary" ]; then
	failed=$(( $(count failed || true) + $(count crashed || true) + 0 ))
	echo "kunit: $(count passed) passed, $failed failed"
fi
[ $rc = 0 ] && log "PASS: ${#suites[@]} suites" || log "FAIL"
exit $rc
