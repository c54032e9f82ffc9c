#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The documentation's tables of command counts (TLB model) and MMIO writes
# (SMMUv2 backends), in Documentation/policies.rst, are produced by the
# KUnit suites (scripts/kunit.sh leaves their "fp-count:" lines in
# build/kunit/counts.txt).
#   docs-table.sh [COUNTS]          rewrite each table between its markers
#                                   (make results does this)
#   docs-table.sh --check [COUNTS]  fail if a table is not that output
#                                   (make check does this)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
check=0
if [ "${1:-}" = --check ]; then
	check=1
	shift
fi
counts=${1:-$top/build/kunit/counts.txt}
doc=$top/Documentation/policies.rst
rel=${doc#"$top"/}

# marker name and kunit-table.py table kind, one pair per table
tables=(counts commands mmio mmio)

new=$(cat "$doc")
for ((i = 0; i < ${#tables[@]}; i += 2)); do
	begin=".. ${tables[i]}:begin (scripts/docs-table.sh)"
	end=".. ${tables[i]}:end"
	grep -qxF "$begin" <<<"$new" ||
		{ echo "docs-table: no \"$begin\" line in $rel" >&2; exit 1; }
	table=$(python3 "$top/scripts/kunit-table.py" "$counts" "${tables[i + 1]}")
	new=$(awk -v b="$begin" -v e="$end" -v t="$table" '
		$0 == b { print; print ""; print t; print ""; skip = 1; next }
		$0 == e { skip = 0 }
		!skip' <<<"$new")
done

if [ $check = 1 ]; then
	if [ "$new" != "$(cat "$doc")" ]; then
		diff <(cat "$doc") <(echo "$new") >&2 || true
		echo "docs-table: $rel's tables are not what the suites printed: run scripts/docs-table.sh" >&2
		exit 1
	fi
	echo "docs-table: $rel matches the suites"
else
	echo "$new" >"$doc"
	echo "docs-table: wrote the tables in $rel"
fi
