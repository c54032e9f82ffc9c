#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make results: publish a run's tables and plots.  make demo, make bench
# and the scripts they call write only under build/results/; this copies
# what is there into bench/results/, which Documentation/benchmarks.rst
# includes, and rewrites the documentation's count tables from the last
# KUnit run's build/kunit/counts.txt (scripts/docs-table.sh).  Run it only
# to publish: it is the one step that changes tracked files, and it says
# which.  Then review with git diff and commit.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"
pub=$top/bench/results

shopt -s nullglob
files=("$FP_RESULTS"/*.md "$FP_RESULTS"/*.png)
if [ ${#files[@]} = 0 ]; then
	echo "results: nothing in $FP_RESULTS: run make demo or make bench first" >&2
	exit 1
fi
mkdir -p "$pub"
for f in "${files[@]}"; do
	cp "$f" "$pub/"
	echo "results: ${pub#"$top"/}/$(basename "$f")"
done
if [ -s "$top/build/kunit/counts.txt" ]; then
	"$top/scripts/docs-table.sh"
else
	echo "results: no build/kunit/counts.txt: the count tables are left as they are" >&2
fi
git -C "$top" status --short -- bench/results Documentation 2>/dev/null || true
