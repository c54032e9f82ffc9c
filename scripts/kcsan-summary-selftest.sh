#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# scripts/kcsan-summary.sh's own test, without a KCSAN kernel: KCSAN reports
# in the format of Debian's 6.12 (one copied from a make kcsan-planted run
# of 2026-12-02, stacks shortened), renamed and re-rooted, and the verdict
# each must get.  Exit status 1 on a wrong verdict.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# One report: TITLE, then the module tag its frames carry ("" for none).
report()
{
	local m=$2
	cat <<END
BUG: KCSAN: data-race in $1

write (marked) to 0xffff800079458d10 of 8 bytes by task 56 on cpu 2:
 fp_planted_race+0x38/0x4c$m
 fp_tlb_add_page+0x10c/0x2c0$m
 __arm_lpae_unmap+0x630/0x908
 arm_lpae_unmap_pages+0xd8/0xf4
 kthread+0x1b4/0x1b8

read to 0xffff800079458d10 of 8 bytes by task 58 on cpu 1:
 fp_planted_race+0x24/0x4c$m
 fp_tlb_add_page+0x10c/0x2c0$m
 kthread+0x1b4/0x1b8
 ret_from_fork+0x10/0x20

Reported by Kernel Concurrency Sanitizer on:
CPU: 1 UID: 0 PID: 58 Comm: fp_stress/2 Tainted: G           O     N 6.12.117 #1
==================================================================
END
}

# What /init and flushpol_kunit print around the reports: the density,
# and KCSAN's counters, with UNKNOWN races of unknown origin.
density()
{
	printf 'fp-kcsan: %s\n' 'skip_watch 200' 'udelay_task 80' 'udelay_interrupt 20'
}

frame()
{
	density
	cat
	printf 'fp-kcsan-info: races_unknown_origin: %s\n' "${1:-0}"
}

# expect NAME WANTED_STATUS WANTED_LINE [--planted] < LOG
expect()
{
	local name=$1 want=$2 line=$3 rc=0
	shift 3
	cat > "$tmp/$name.log"
	"$here/kcsan-summary.sh" "$@" "$tmp/$name.log" > "$tmp/$name.out" || rc=$?
	if [ "$rc" != "$want" ] || ! grep -qF -- "$line" "$tmp/$name.out"; then
		echo "kcsan-summary-selftest: $name: status $rc (want $want), output:" >&2
		sed 's/^/  /' "$tmp/$name.out" >&2
		fail=1
	fi
}

# Not in a pipeline: expect must run in this shell, to set fail.
planted='fp_planted_race [flushpol] / fp_planted_race [flushpol]'
expect none 0 "PASS: no report" < <(echo FLUSHPOL-BEGIN | frame)
expect ours 1 "2 x data-race in $planted: flushpol" \
	< <({ report "$planted" ' [flushpol]'; report "$planted" ' [flushpol]'; } | frame)
expect planted 0 "PLANTED RACE REPORTED (1 reports" --planted \
	< <(report "$planted" ' [flushpol]' | frame)
expect planted-missed 1 "PLANTED RACE NOT REPORTED" --planted \
	< <(echo FLUSHPOL-BEGIN | frame)
# A kernel function racing on a path flushpol's code drives: a failure.
expect reached 1 "memchr_inv / memchr_inv: upstream, reached from flushpol's code" \
	< <(report 'memchr_inv / memchr_inv' ' [flushpol_kunit]' | frame)
# The kernel's own, nowhere near flushpol: listed, not a failure.
expect upstream 0 "memchr_inv / refresh_cpu_vm_stats: upstream, not filtered" \
	< <(report 'memchr_inv / refresh_cpu_vm_stats' '' | frame)
# Counted and not printed: whose, unknown.
expect unknown-origin 1 "1 races of unknown origin, not printed" \
	< <(echo FLUSHPOL-BEGIN | frame 1)
# The density not set: the suites ran at KCSAN's defaults.
expect no-density 1 "skip_watch not set" \
	< <(printf 'fp-kcsan-info: races_unknown_origin: 0\n')
# No counters: /init did not get to read them.
expect no-counters 1 "KCSAN's counters not read" \
	< <(density)

if [ "$fail" = 0 ]; then
	echo "kcsan-summary-selftest: 9 cases: PASS"
fi
exit "$fail"
