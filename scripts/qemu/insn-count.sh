#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Usage: scripts/qemu/insn-count.sh [BOOTS]
#
# Guest instructions per 4K map and per strict 4K unmap on QEMU's SMMUv3,
# through every flushpol policy and through the upstream in-tree
# arm-smmu-v3 driver, on the same Debian arm64 kernel and QEMU, counted by
# QEMU's own TCG plugins (scripts/qemu/insn-plugin.sh builds them from
# Debian's source of the qemu-system-arm installed).  BOOTS (default 2)
# boots of each driver, alternating, one guest at a time; in each,
# e2e/guest-insn.sh runs FP_INSN_ROUNDS (default 2) windows of FP_INSN_N
# (default 64) maps and as many unmaps per policy, with interrupts off.
#
# Two plugins count every window: QEMU's tests/plugin/insn.c, unchanged,
# with match=HINT #0x7f (the marker), which prints the instructions
# executed since the previous marker at each; and insn-window.c, the same
# count with loads, stores, atomics and barriers.  scripts/qemu/
# insn-table.py pairs the windows with the guest's lines, checks that the
# two plugins agree, and tabulates; a count that differs between windows
# or boots is shown as its range.
#
# Writes, in the output directory, insn-flushpol-B.log and
# insn-upstream-B.log (consoles) and .plugin beside them (the plugins'
# output); without FP_BENCH_NO_TABLE=1 also build/results/insn.md (also
# printed).
#
# Environment:
#   FLUSHPOL_QEMU_OUT   the rig's directory (default build/insn-qemu; make
#                       bench gives its own)
#   FP_BENCH_PREBUILT=1 the modules are staged there already
#   FP_INSN_N, FP_INSN_ROUNDS  as above
#   FP_INSN_FIXED       kernel parameters that make the counts the same in
#                       every window and boot (default
#                       "randomize_kstack_offset=off nokaslr"): with the
#                       stack offset random per system call, a window's
#                       count moves by up to 1% with the alignment of the
#                       stack its copies run on
#   FP_BENCH_NO_TABLE=1 only the boots: make bench makes the table
#   FP_INSN_PROFILE=1   then one boot of each driver with insn-window.c's
#                       profile=on: build/results/insn-profile.md, the
#                       instructions of each 4K map and unmap by function
#                       (scripts/qemu/insn-profile.py)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib.sh
. "$here/../lib.sh"
export FLUSHPOL_QEMU_OUT=${FLUSHPOL_QEMU_OUT:-$FP_TOP/build/insn-qemu}
out=$FLUSHPOL_QEMU_OUT
boots=${1:-2}
n=${FP_INSN_N:-64}
rounds=${FP_INSN_ROUNDS:-2}

log() { echo "insn-count: $*" >&2; }
die() { log "$*"; exit 1; }
failed()
{
	tail -n 30 "$1" >&2
	die "FAIL: see $1"
}

case $boots$n$rounds in
*[!0-9]*|'') die "usage: $0 [BOOTS]; FP_INSN_N and FP_INSN_ROUNDS: numbers" ;;
esac
# edu_bench_insn(): the pages of one last-level table.
if [ "$boots" -lt 1 ] || [ "$rounds" -lt 1 ] || [ "$n" -lt 1 ] ||
   [ "$n" -gt 512 ]; then
	die "BOOTS and FP_INSN_ROUNDS at least 1, FP_INSN_N 1 to 512"
fi

eval "$("$here/prepare.sh")"
plugins=$("$here/insn-plugin.sh") || die "FAIL: building QEMU's plugins"
mkdir -p "$out"
rm -f "$out"/insn-*.log "$out"/insn-*.plugin "$out"/profile-*
log "building: DKMS into $KVER, and the edu modules"
fp_qemu_stage_modules "$out" || die "FAIL: build"

fixed=${FP_INSN_FIXED-randomize_kstack_offset=off nokaslr}
# $1: flushpol or upstream, $2: the output's name, $3: the guest's
# parameters beyond the window's, $4: insn-window.c's.  insn.c's match=
# takes a prefix of the disassembly (capstone's), unique for the marker.
boot()
{
	local name=$2 args="$fixed FP_INSN_N=$n $3" env

	env=(GUEST_APPEND="$args")
	[ "$1" = flushpol ] ||
		env=(GUEST_IN_TREE_SMMU=1 GUEST_APPEND="$args FP_INSN_UPSTREAM=1")
	env "${env[@]}" QEMU_EXTRA="-plugin $plugins/libwindow.so${4:+,$4} \
		-plugin '$plugins/libinsn.so,match=hint #0x7f' \
		-d plugin -D $out/$name.plugin" \
		"$here/run-guest.sh" "$FP_TOP/e2e/guest-insn.sh" 1200 \
		2>>"$out/qemu.log" || failed "$out/qemu.log"
	cp "$out/run/guest-insn/console.log" "$out/$name.log"
}

start=$SECONDS
log "$boots boots of each driver, $rounds rounds of $n 4K maps and unmaps" \
    "per policy in each, counted by QEMU's plugins"
for b in $(seq "$boots"); do
	for d in flushpol upstream; do
		boot "$d" "insn-$d-$b" "FP_INSN_ROUNDS=$rounds"
	done
	log "boot $b of $boots done ($((SECONDS - start)) s)"
done
if [ "${FP_INSN_PROFILE:-0}" = 1 ]; then
	log "one more boot of each, where the instructions run"
	for d in flushpol upstream; do
		boot "$d" "profile-$d" "FP_INSN_ROUNDS=1 FP_INSN_PROFILE=1" \
			profile=on
	done
fi
[ "${FP_BENCH_NO_TABLE:-0}" != 1 ] || exit 0

mkdir -p "$FP_RESULTS"
md=$FP_RESULTS/insn.md
rev=$(git -C "$FP_TOP" describe --always --dirty 2>/dev/null) || rev="a tree"
{
	echo "Measured $(date -u +%F) by \`scripts/qemu/insn-count.sh $boots\` at $rev:"
	echo "Debian's arm64 $KVER kernel on qemu-system-aarch64" \
	     "$(qemu-system-aarch64 --version | head -n 1 | awk '{print $4}')" \
	     "-M virt,iommu=smmuv3 (TCG)."
	echo
	python3 "$here/insn-table.py" "$out" --tsv "$out/insn.tsv"
} >"$md"
cat "$md"
log "wrote $md"
[ "${FP_INSN_PROFILE:-0}" = 1 ] || exit 0
{
	echo "Measured $(date -u +%F) by \`FP_INSN_PROFILE=1" \
	     "scripts/qemu/insn-count.sh $boots\` at $rev, as insn.md."
	echo
	python3 "$here/insn-profile.py" "$out"
} >"$FP_RESULTS/insn-profile.md"
log "wrote $FP_RESULTS/insn-profile.md"
