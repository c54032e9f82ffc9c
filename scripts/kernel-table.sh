#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Usage: scripts/kernel-table.sh start
#        scripts/kernel-table.sh pass FP_KVER ARCH WHAT
#        scripts/kernel-table.sh print
#
# The kernel table a make check run ends with, from the run itself:
# check.sh starts it, notes each kernel stage that passed (FP_KVER as
# scripts/qemu/prepare.sh takes it: the release is looked up, so 7.x
# shows which 7.x), and prints it last, one row per kernel and
# architecture.  Kept in build/check-kernels.tsv.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib.sh
. "$here/lib.sh"
table=$FP_TOP/build/check-kernels.tsv

case ${1:-} in
start)
	mkdir -p "${table%/*}"
	: >"$table"
	;;
pass)
	[ $# -eq 4 ] || { echo "usage: $0 pass FP_KVER ARCH WHAT" >&2; exit 1; }
	kver=$(FP_KVER=$2 "$here/qemu/prepare.sh" 2>/dev/null | sed -n 's/^KVER=//p')
	[ "$3" = arm64 ] || kver=${kver%-arm64}-amd64
	printf '%s\t%s\t%s\t%s\n' "$kver" "$3" "$4" "$(date -u +%F)" >>"$table"
	;;
print)
	echo "| kernel | arch | passed in this run | date |"
	echo "|---|---|---|---|"
	[ -f "$table" ] || exit 0
	# The row's first pass is kept apart: awk may create w[k] before it
	# tests (k in w) on the right of its own assignment.
	awk -F'\t' '{ k = $1 "\t" $2
		      if (k in w) { w[k] = w[k] "; " $3 } else { o[n++] = k; w[k] = $3 }
		      d[k] = $4 }
		    END { for (i = 0; i < n; i++) { split(o[i], p, "\t");
			  printf "| %s | %s | %s | %s |\n", p[1], p[2], w[o[i]], d[o[i]] } }' \
		"$table"
	;;
*) echo "usage: $0 start | pass FP_KVER ARCH WHAT | print" >&2; exit 1 ;;
esac
