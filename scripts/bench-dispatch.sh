#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Usage: scripts/bench-dispatch.sh [DEBUG_DIR NODEBUG_DIR]
#
# The dispatch table of make bench on its own (a few minutes, against the
# hour of a whole make bench): kunit/bench_dispatch.c's "fp-dispatch:"
# lines from the UML test kernel and from the same kernel without its
# debug options (scripts/bench-uml.sh).  Given the output directories of
# two such scripts/kunit.sh runs, reads their ktap.log; otherwise makes
# both runs.  Writes build/results/dispatch.md (also printed).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"
mkdir -p "$FP_RESULTS"
md=$FP_RESULTS/dispatch.md

if [ $# = 2 ]; then
	debug=$1
	nodebug=$2
else
	out=$top/build/bench-dispatch
	debug=$out/kunit
	nodebug=$out/kunit-nodebug
	mkdir -p "$out"
	FLUSHPOL_OUT=$debug "$top/scripts/kunit.sh" >"$out/kunit.log" 2>&1 ||
		{ tail -n 30 "$out/kunit.log" >&2; exit 1; }
	uml=$("$top/scripts/bench-uml.sh")
	FLUSHPOL_UML=$uml FLUSHPOL_OUT=$nodebug "$top/scripts/kunit.sh" \
		--bench >"$out/kunit-nodebug.log" 2>&1 ||
		{ tail -n 30 "$out/kunit-nodebug.log" >&2; exit 1; }
fi
for d in "$debug" "$nodebug"; do
	grep -q 'fp-dispatch:' "$d/ktap.log" ||
		{ echo "bench-dispatch: no fp-dispatch lines in $d" >&2; exit 1; }
done
# FP_BENCH_REV, FP_BENCH_DATE: make bench's, for the run it measured.
rev=${FP_BENCH_REV:-$(git -C "$top" describe --always --dirty 2>/dev/null ||
		      echo "a tree")}
{
	echo "Measured ${FP_BENCH_DATE:-$(date -u +%F)} by \`scripts/bench-dispatch.sh\` at" \
	     "$rev on $(nproc) host cores, in User-Mode Linux."
	echo
	python3 "$top/scripts/bench-table.py" --dispatch "$debug/ktap.log" \
		"$nodebug/ktap.log"
} >"$md"
cat "$md"
echo "bench-dispatch: wrote $md" >&2
