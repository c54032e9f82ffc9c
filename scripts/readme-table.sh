#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The README's tables of command counts (TLB model) and MMIO writes
# (SMMUv2 backends) are produced by the KUnit suites (scripts/kunit.sh
# leaves their "fp-count:" lines in build/kunit/counts.txt).
#   readme-table.sh          rewrite each table between its markers
#   readme-table.sh --check  fail if a README table is not that output
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
counts=${1:-}
[ "$counts" = --check ] && counts=
counts=${counts:-$top/build/kunit/counts.txt}
readme=$top/README.md

# marker name and kunit-table.py table kind, one pair per table
tables=(counts commands mmio mmio)

new=$(cat "$readme")
for ((i = 0; i < ${#tables[@]}; i += 2)); do
	begin="<!-- ${tables[i]}:begin (scripts/readme-table.sh) -->"
	end="<!-- ${tables[i]}:end -->"
	grep -qxF "$begin" <<<"$new" ||
		{ echo "readme-table: no \"$begin\" line in README.md" >&2; exit 1; }
	table=$(python3 "$top/scripts/kunit-table.py" "$counts" "${tables[i + 1]}")
	new=$(awk -v b="$begin" -v e="$end" -v t="$table" '
		$0 == b { print; print t; skip = 1; next }
		$0 == e { skip = 0 }
		!skip' <<<"$new")
done

if [ "${1:-}" = --check ]; then
	if [ "$new" != "$(cat "$readme")" ]; then
		diff <(cat "$readme") <(echo "$new") >&2 || true
		echo "readme-table: README.md's tables are stale: run scripts/readme-table.sh" >&2
		exit 1
	fi
	echo "readme-table: README.md matches the suites"
else
	echo "$new" > "$readme"
fi
