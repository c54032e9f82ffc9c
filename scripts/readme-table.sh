#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The README's table of command counts is produced by the KUnit suites
# (scripts/kunit.sh leaves their "fp-count:" lines in build/kunit/counts.txt).
#   readme-table.sh          rewrite the table between its markers
#   readme-table.sh --check  fail if the README's table is not that output
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
counts=${1:-}
[ "$counts" = --check ] && counts=
counts=${counts:-$top/build/kunit/counts.txt}
readme=$top/README.md
begin='<!-- counts:begin (scripts/readme-table.sh) -->'
end='<!-- counts:end -->'

table=$(python3 "$top/scripts/kunit-table.py" "$counts")
new=$(awk -v b="$begin" -v e="$end" -v t="$table" '
	$0 == b { print; print t; skip = 1; next }
	$0 == e { skip = 0 }
	!skip' "$readme")

if [ "${1:-}" = --check ]; then
	if [ "$new" != "$(cat "$readme")" ]; then
		diff <(cat "$readme") <(echo "$new") >&2 || true
		echo "readme-table: README.md's table is stale: run scripts/readme-table.sh" >&2
		exit 1
	fi
	echo "readme-table: README.md matches the suites"
else
	echo "$new" > "$readme"
fi
