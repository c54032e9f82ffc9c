#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Usage: scripts/bench-scale.sh [DIR]
#
# The scalability and fixed-cost tables of make bench: the "fp-scale:",
# "fp-fixed:" and "fp-scale-cmdq:" lines of kunit/bench_scale.c and
# kunit/bench_scale_cmdq.c.  Without DIR, runs them first in the arm64
# kernel without debug options (scripts/kunit.sh --arch arm64 --bench,
# QEMU -smp 4; a few minutes under TCG, the kernel built first if it is
# not cached, about an hour); with DIR, reads DIR/ktap.log, DIR being the
# output directory of such a run (or of any scripts/kunit.sh --arch arm64
# run: the table says which kernel, from DIR/kernel.txt).  Writes
# build/results/scale.md (also printed).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"
mkdir -p "$FP_RESULTS"
md=$FP_RESULTS/scale.md

if [ $# -ge 1 ]; then
	dir=$1
else
	dir=${FLUSHPOL_OUT:-$top/build/bench-arm64}
	FLUSHPOL_OUT=$dir "$top/scripts/kunit.sh" --arch arm64 --bench \
		>"$dir.log" 2>&1 ||
		{ tail -n 30 "$dir.log" >&2;
		  echo "bench-scale: FAIL, see $dir.log" >&2; exit 1; }
fi
grep -q 'fp-scale' "$dir/ktap.log" ||
	{ echo "bench-scale: no fp-scale lines in $dir/ktap.log" >&2; exit 1; }

# What the kernel was built with: the debug options the figures carry.
kernel="an arm64 kernel"
config=$(cat "$dir/kernel.txt" 2>/dev/null || true)/.config
if [ -f "$config" ]; then
	# None at all in the kernel it is meant for: grep finding nothing
	# is the expected case, not a failure.
	debug=$({ grep -oE '^CONFIG_(KASAN|PROVE_LOCKING|PROVE_RCU|DEBUG_KMEMLEAK|KCSAN|PREEMPT_RT)=y' \
		"$config" || true; } | sed 's/^CONFIG_//; s/=y$//' | paste -sd, | sed 's/,/, /g')
	kernel="the arm64 kernel $(basename "$(dirname "$config")") (${debug:-no debug options})"
	# The options that change the unmap path's code, against Debian's
	# arm64 kernel's config when the QEMU rig has fetched it.
	asdeb=$(sed -n 's/^# flushpol-as-debian://p' "$top/kunit/arm64-bench.config")
	debcfg=$(printf '%s\n' "${FLUSHPOL_CACHE:-/var/cache/flushpol}"/arm64/*/image/boot/config-* |
		sed '/-rt-/d' | sort -V | tail -n 1)
	if [ -n "$asdeb" ] && [ -f "$debcfg" ]; then
		# $1: option, $2: config: its line, or the line for "not set".
		optline() {
			grep -E "^(# )?CONFIG_$1[= ]" "$2" ||
				echo "# CONFIG_$1 is not set"
		}
		differ=
		for opt in $asdeb; do
			[ "$(optline "$opt" "$config")" = "$(optline "$opt" "$debcfg")" ] ||
				differ+=" $opt"
		done
		deb=$(basename "$debcfg" | sed 's/^config-//')
		kernel+=", with $(echo "$asdeb" | xargs | sed 's/ /, /g')"
		kernel+=" as Debian's $deb sets them${differ:+ except$differ}"
	fi
fi
rev=$(git -C "$top" describe --always --dirty 2>/dev/null) || rev="a tree"
{
	echo "Measured $(date -u +%F) at $rev on $(nproc) host cores," \
	     "qemu-system-aarch64 $(qemu-system-aarch64 --version |
		head -n 1 | awk '{print $4}') -M virt -smp 4 (MTTCG), in $kernel."
	echo
	python3 "$top/scripts/bench-scale-table.py" "$dir/ktap.log"
	# The switch time, from the same kernel (policy_switch_latency_reported).
	sw=$(grep -o 'fp-switch: .*' "$dir/ktap.log" | tail -n 1 || true)
	[ -z "$sw" ] || { echo; echo "Policy switches, ${sw#fp-switch: }."; }
} >"$md"
cat "$md"
echo "bench-scale: wrote $md" >&2
