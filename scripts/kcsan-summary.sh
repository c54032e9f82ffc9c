#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make kcsan's verdict, from the log of a scripts/kunit.sh --kcsan run:
# KCSAN's reports by function, whose code each is in, KCSAN's counters,
# the functions on its blacklist; PASS only if no report is in flushpol's
# code (a module named flushpol*: the core, policies, backends, and the
# test modules), and none of the kernel's own code has a flushpol frame
# in either stack.  A report of the kernel's own code reached only from
# elsewhere, not on the blacklist, is listed and does not fail the run:
# it is a candidate for kunit/kcsan-filter.txt once someone has read it.
# Tested by scripts/kcsan-summary-selftest.sh (scripts/lint.sh).
#
#   kcsan-summary.sh [--planted] KTAP_LOG
#       --planted: the run of the planted race (core/dispatch.c):
#       succeeds only if KCSAN reported it.
#   kcsan-summary.sh --check-filter FILTER MODULE.ko...
#       refuse a filter naming a function of flushpol's: a symbol of one
#       of the modules, or a function defined under core/, policy/ or
#       backends/.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)

# The names of kunit/kcsan-filter.txt: first word of each line that is
# not a comment.
filter_names()
{
	sed -e 's/#.*//' "$1" | awk 'NF { print $1 }'
}

if [ "${1:-}" = --check-filter ]; then
	filter=$2
	shift 2
	bad=0
	for f in $(filter_names "$filter"); do
		for ko in "$@"; do
			if nm "$ko" | awk '{ print $NF }' | grep -qx -- "$f"; then
				echo "kcsan: $filter: $f is a symbol of $(basename "$ko"): flushpol's code is never filtered" >&2
				bad=1
			fi
		done
		if grep -rqE "^[a-z].*[ *]$f\(" "$top"/core "$top"/policy \
			"$top"/backends --include='*.c'; then
			echo "kcsan: $filter: $f is defined in flushpol's code: never filtered" >&2
			bad=1
		fi
	done
	exit $bad
fi

planted=
if [ "${1:-}" = --planted ]; then
	planted=y
	shift
fi
log=$1

say() { echo "kcsan: $*"; }

counter() { sed -n "s/^fp-kcsan-info: $1: //p" "$log" | tail -n 1; }
param() { sed -n "s/^fp-kcsan: $1 //p" "$log" | tail -n 1; }

say "sampling for the suites: one access in $(param skip_watch) watched, for" \
    "$(param udelay_task) us in a task, $(param udelay_interrupt) us in an" \
    "interrupt (KCSAN's defaults: 4000, 80, 20)"
say "watchpoints set up $(counter setup_watchpoints), data races seen" \
    "$(counter data_races), of unknown origin $(counter races_unknown_origin)"
blacklist=$(sed -n '/^fp-kcsan-info: blacklisted functions:/,$p' "$log" |
	    sed -n 's/^fp-kcsan-info:  *\([^ ].*\)$/\1/p' | grep -v : |
	    xargs || true)
say "on KCSAN's blacklist (kunit/kcsan-filter.txt): ${blacklist:-none}"

# "BUG: KCSAN: data-race in f [mod] / g [mod]", or one function with an
# offset for a race of unknown origin or a failed assertion; then, after a
# tab, "reached" if a frame of either access's stack is in a flushpol
# module: a kernel function racing on a path flushpol drives (a library
# call on flushpol's data, or kernfs under a test's sysfs writes) is not
# flushpol's code, but it is flushpol's to explain.
reports=$(awk '
	/^BUG: KCSAN: / { if (t != "") print t "\t" r; t = substr($0, 13); r = "" }
	t != "" && /^ [^ ]+\+0x[0-9a-f]+\/0x[0-9a-f]+ \[flushpol/ { r = "reached" }
	/^=+$/ && t != "" { print t "\t" r; t = "" }
	END { if (t != "") print t "\t" r }' "$log" |
	  sed -E 's/\+0x[0-9a-f]+\/0x[0-9a-f]+//g' || true)
printed=$(grep -c . <<<"$reports" || true)
say "reports printed $printed (the other races seen were on the blacklist," \
    "or repeats within KCSAN_REPORT_ONCE_IN_MS, 3 s)"
ours=0
reached=0
planted_seen=0
if [ -n "$reports" ]; then
	say "reports by function:"
	while IFS=$'\t' read -r nt via; do
		n=${nt%% *}
		title=${nt#* }
		if grep -q '\[flushpol' <<<"$title"; then
			where="flushpol"
			ours=$((ours + n))
		elif [ -n "$via" ]; then
			where="upstream, reached from flushpol's code: fails until read and filtered"
			reached=$((reached + n))
		else
			where="upstream, not filtered"
		fi
		if grep -q 'fp_planted_race' <<<"$title"; then
			planted_seen=$((planted_seen + n))
		fi
		say "  $n x $title: $where"
	done < <(sort <<<"$reports" | uniq -c | sed -E 's/^ *([0-9]+) /\1 /')
fi

if [ -n "$planted" ]; then
	if [ "$planted_seen" -gt 0 ]; then
		say "PLANTED RACE REPORTED ($planted_seen reports in fp_planted_race)"
		exit 0
	fi
	say "PLANTED RACE NOT REPORTED"
	exit 1
fi
# What would make "no report" mean less than it says: a density that was
# not set (the suites ran at KCSAN's defaults), counters /init did not
# read, and races of unknown origin, which this kernel counts but does not
# print (no KCSAN_REPORT_RACE_UNKNOWN_ORIGIN): whose they were is unknown.
weak=
for p in skip_watch udelay_task udelay_interrupt; do
	[ -n "$(param "$p")" ] || weak+=" $p not set;"
done
unknown=$(counter races_unknown_origin)
if [ -z "$unknown" ]; then
	weak+=" KCSAN's counters not read;"
elif [ "$unknown" -gt 0 ]; then
	weak+=" $unknown races of unknown origin, not printed;"
fi
if [ "$ours" -gt 0 ] || [ "$reached" -gt 0 ] || [ -n "$weak" ]; then
	say "FAIL: $ours reports in flushpol's code, $reached in the kernel's reached from it;${weak:- nothing else}"
	exit 1
fi
say "PASS: no report in flushpol's code"
