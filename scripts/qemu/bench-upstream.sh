#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Usage: scripts/qemu/bench-upstream.sh [ROUNDS [REPS]]
#
# Steps 3 and 4 of make bench on their own: unmap latency on QEMU's SMMUv3
# through every flushpol policy against the upstream in-tree arm-smmu-v3
# driver.  Installs flushpol with DKMS into the rig's staged root, builds
# the two edu modules, then boots ROUNDS times (default FP_BENCH_ROUNDS,
# or 8) with flushpol's policies (e2e/guest-bench.sh), each boot followed
# by one with the upstream driver (e2e/guest-bench-upstream.sh), so that a
# slow spell of the host does not fall on one side only; REPS (default
# FP_BENCH_REPS, or 16) timed unmaps per policy and size in each.  One more
# boot of the upstream driver, traced by QEMU, counts its commands.  Each
# policy's ratio against upstream gets a 95% interval by bootstrap over
# the rounds (scripts/interval.py), from 5 rounds on.
#
# Writes build/results/qemu-vs-upstream.md (also printed) and
# build/results/unmap-latency.png.  The consoles stay in the output directory, for
# scripts/bench-table.py.  A round takes about ROUND_S seconds, printed at
# the end, on a shared 2-core host.
#
# Environment:
#   FLUSHPOL_QEMU_OUT  the rig's directory (default build/bench-qemu; make
#                      bench gives its own)
#   FP_BENCH_NO_TABLE=1  only the boots: make bench makes the tables
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib.sh
. "$here/../lib.sh"
export FLUSHPOL_QEMU_OUT=${FLUSHPOL_QEMU_OUT:-$FP_TOP/build/bench-qemu}
out=$FLUSHPOL_QEMU_OUT
rounds=${1:-${FP_BENCH_ROUNDS:-8}}
reps=${2:-${FP_BENCH_REPS:-16}}
res=$FP_RESULTS

log() { echo "bench-upstream: $*" >&2; }
die() { log "$*"; exit 1; }
failed()
{
	tail -n 30 "$1" >&2
	die "FAIL: see $1"
}

case $rounds$reps in
*[!0-9]*|'') die "usage: $0 [ROUNDS [REPS]]" ;;
esac
if [ "$rounds" -lt 1 ] || [ "$reps" -lt 1 ] || [ "$reps" -gt 64 ]; then
	die "ROUNDS at least 1, REPS 1 to 64 (each unmap's time is printed)"
fi

eval "$("$here/prepare.sh")"
mkdir -p "$out" "$res"
rm -f "$out"/flushpol-*.log "$out"/upstream-*.log "$out/upstream.trace"
log "building: DKMS into $KVER, and the edu modules"
FP_BENCH_PREBUILT=0 fp_qemu_stage_modules "$out" || die "FAIL: build"

start=$SECONDS
log "$rounds boots with flushpol's policies, each followed by one with" \
    "the upstream arm-smmu-v3 driver; $reps unmaps per policy and size"
for r in $(seq "$rounds"); do
	GUEST_APPEND="deferred_probe_timeout=1 FP_BENCH_REPS=$reps" \
		"$here/run-guest.sh" "$FP_TOP/e2e/guest-bench.sh" 3000 \
		2>>"$out/qemu.log" || failed "$out/qemu.log"
	cp "$out/run/guest-bench/console.log" "$out/flushpol-$r.log"
	GUEST_IN_TREE_SMMU=1 GUEST_APPEND="FP_BENCH_REPS=$reps" \
		"$here/run-guest.sh" "$FP_TOP/e2e/guest-bench-upstream.sh" 1200 \
		2>>"$out/qemu.log" || failed "$out/qemu.log"
	cp "$out/run/guest-bench-upstream/console.log" "$out/upstream-$r.log"
	log "round $r of $rounds done ($((SECONDS - start)) s)"
done
round_s=$(((SECONDS - start) / rounds))

# Tracing costs QEMU time per command: never in a timed boot.
log "the upstream driver once more, its commands counted by QEMU"
GUEST_IN_TREE_SMMU=1 GUEST_APPEND="FP_BENCH_COUNT=1" \
QEMU_EXTRA="-trace smmuv3_cmdq_opcode -D $out/upstream.trace" \
	"$here/run-guest.sh" "$FP_TOP/e2e/guest-bench-upstream.sh" 600 \
	2>>"$out/qemu.log" || failed "$out/qemu.log"
cp "$out/run/guest-bench-upstream/console.log" "$out/upstream-count.log"
log "boots done in $((SECONDS - start)) s, $round_s s a round"
[ "${FP_BENCH_NO_TABLE:-0}" != 1 ] || exit 0

md=$res/qemu-vs-upstream.md
rev=$(git -C "$FP_TOP" describe --always --dirty 2>/dev/null) || rev="a tree"
{
	echo "Measured $(date -u +%F) by \`scripts/qemu/bench-upstream.sh" \
	     "$rounds $reps\` at $rev on $(nproc) host cores" \
	     "($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)):"
	echo "Debian's arm64 $KVER kernel on qemu-system-aarch64" \
	     "$(qemu-system-aarch64 --version | head -n 1 | awk '{print $4}')" \
	     "-M virt,iommu=smmuv3 (TCG), $round_s s a round."
	echo
	python3 "$FP_TOP/scripts/bench-table.py" --qemu "$out"
} >"$md"
gnuplot -e "png='$res/unmap-latency.png'" "$out/latency.gp"
cat "$md"
log "wrote $md and $res/unmap-latency.png"
