#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Usage: scripts/bench-scale.sh [DIR]
#
# The scalability table of make bench, from the "fp-scale:" lines of
# kunit/bench_scale.c in DIR/ktap.log, DIR being the output directory of
# scripts/kunit.sh --arch arm64 (default build/kunit-arm64, make check's):
# writes build/results/scale.md (also printed).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"
dir=${1:-$top/build/kunit-arm64}
mkdir -p "$FP_RESULTS"
md=$FP_RESULTS/scale.md

grep -q 'fp-scale:' "$dir/ktap.log" ||
	{ echo "bench-scale: no fp-scale lines in $dir/ktap.log" >&2; exit 1; }
rev=$(git -C "$top" describe --always --dirty 2>/dev/null) || rev="a tree"
{
	echo "Measured $(date -u +%F) at $rev on $(nproc) host cores," \
	     "qemu-system-aarch64 $(qemu-system-aarch64 --version |
		head -n 1 | awk '{print $4}') -M virt -smp 4 (MTTCG)."
	echo
	python3 "$top/scripts/bench-scale-table.py" "$dir/ktap.log"
} >"$md"
cat "$md"
echo "bench-scale: wrote $md" >&2
