#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Guest half of scripts/qemu/fio-verify.sh (busybox sh, arm64 guest, -smp 2):
# data integrity of real DMA through the SMMU.  Debian's fio writes the
# NVMe namespace with crc32c in every block and reads each back
# (verify_backlog) for FP_VERIFY_TIME seconds, while a loop rewrites every
# flushpol context's policy every 10 ms, through every policy it offers,
# and threshold with a random N.  A stale IOTLB entry sends a write's or a
# read's DMA to the page an IOVA had before: fio's checksum catches the
# first, the second lands a read in the wrong page, which the checksum
# catches too.  Small blocks on a small region, deep queues and two jobs
# keep reusing the same IOVAs.
#
# From the kernel command line:
#   FP_VERIFY_TIME    seconds of fio (default 20)
#   FP_VERIFY_POLICY  a policy to hold instead of switching (e2e_nosync,
#                     of flushpol_edu: the run that must be caught)
#   FP_VERIFY_SMMU    flushpol (default), or a label when another driver
#                     (or none) drives the SMMU: nothing to switch then
#   FP_SWITCH_PAUSE   seconds between two policy writes (default 0.002)
#
# Prints "fio-verify: errors=N faults=N ..." and fails unless both are 0;
# with FP_VERIFY_POLICY set, prints "fio-verify: caught" and succeeds only
# if either is not.
set -eu

secs=${FP_VERIFY_TIME:-20}
# The switcher's pause between two writes, in seconds.
FP_SWITCH_PAUSE=${FP_SWITCH_PAUSE:-0.002}
hold=${FP_VERIFY_POLICY:-}
smmu=${FP_VERIFY_SMMU:-flushpol}
fail() { echo "fio-verify: FAIL: $*"; exit 1; }
# shellcheck source=e2e/guest-lib.sh
. /guest-lib.sh

# The NVMe's context: the one its I/O makes work.
newctx()
{
	ctx=$(fp_nvme_ctx)
}

fp_nvme_up
nvme=$(readlink -f /sys/block/nvme0n1/device/device)
echo "fio-verify: smmu=$smmu nvme ${nvme##*/}," \
     "domain $(cat "$nvme/iommu_group/type" 2>/dev/null || echo none)"

switcher=
ctx=
if [ "$smmu" = flushpol ]; then
	newctx
	[ -n "$ctx" ] || fail "the NVMe function ${nvme##*/} has no flushpol context"
	echo "fio-verify: $ctx strict=$(cat "$ctx/strict"): $(cat "$ctx/policy")"
	if [ -n "$hold" ]; then
		modprobe flushpol_edu
		echo "$hold" > "$ctx/policy"
		grep -q "\[$hold\]" "$ctx/policy" || fail "$hold not active"
	else
		(
			# No fork per switch: under TCG a fork and exec of
			# awk or usleep costs more than the switch itself.
			# N comes from a linear congruential generator in
			# shell arithmetic; the pause is read's timeout on a
			# pipe nobody writes (busybox: fractions of a
			# second).
			n=0
			r=1
			mkfifo /tmp/never
			exec 3<>/tmp/never
			while [ ! -e /tmp/fio-done ]; do
				for c in /sys/kernel/flushpol/contexts/*; do
					# nonstrict is refused on a strict
					# context (EOPNOTSUPP): fine.
					for p in va range asid threshold batch nonstrict; do
						echo "$p" 2>/dev/null > "$c/policy" || continue
						if [ "$p" = threshold ]; then
							r=$(( (r * 1103515245 + 12345) % 2147483648 ))
							echo $(( r % 1024 + 1 )) > "$c/threshold" || true
						fi
						n=$((n + 1))
						# shellcheck disable=SC3045 # busybox ash has read -t
						read -r -t "$FP_SWITCH_PAUSE" _ <&3 || true
					done
				done
			done
			# Written once, when the run ends: rewritten after
			# every switch, a kill between the truncation and the
			# write left the count empty.
			echo "$n" > /tmp/switches
		) &
		switcher=$!
	fi
fi

# Random writes of 4K to 64K over 64 MiB per job, each block read back
# and checked 64 blocks after it was written.
rc=0
out=$(/usr/bin/fio --name=integrity --filename=/dev/nvme0n1 --direct=1 \
	--ioengine=libaio --rw=randwrite --bsrange=4k-64k --size=64m \
	--numjobs=2 --offset_increment=64m --iodepth=16 --time_based \
	--runtime="$secs" --verify=crc32c --verify_backlog=64 \
	--verify_fatal=0 --group_reporting --minimal 2>&1) || rc=$?
[ -z "$switcher" ] || { : > /tmp/fio-done; wait "$switcher" || true; }
switches=$(cat /tmp/switches 2>/dev/null || true)
switches=${switches:-0}
errors=$(echo "$out" | grep -v '^3;' | grep -ciE 'verify|bad magic|crc32c' || true)
terse=$(echo "$out" | grep '^3;' | tail -n 1)
[ -n "$terse" ] || errors=$((errors + 1))
# terse v3: field 5 is fio's error, 6 and 47 the KiB read and written.
ferr=$(echo "$terse" | cut -d';' -f5)
rd=$(echo "$terse" | cut -d';' -f6)
wr=$(echo "$terse" | cut -d';' -f47)
faults=$(dmesg | grep -cE 'event 0x[0-9a-f]+ (received|sid)|global error|F_TRANSLATION|F_PERM|F_ACCESS|F_ADDR_SIZE|F_BAD|C_BAD' || true)
echo "fio-verify: smmu=$smmu policy=${hold:-switching} secs=$secs" \
     "written_kib=${wr:-0} verified_kib=${rd:-0} fio_rc=$rc fio_error=${ferr:-?}" \
     "errors=$errors faults=$faults switches=$switches" \
     "switches_per_s=$((switches / secs))"
bad=$errors
if [ "$smmu" = flushpol ] && [ -z "$hold" ] &&
   [ "$switches" -lt 1 ]; then
	echo "fio-verify: no policy switch was made under the I/O"
	bad=$((bad + 1))
fi
[ "$rc" = 0 ] && [ "${ferr:-1}" = 0 ] || bad=$((bad + 1))
if [ -n "$hold" ]; then
	[ "$bad" -gt 0 ] || [ "$faults" -gt 0 ] || fail "$hold was not caught"
	echo "$out" | grep -v '^3;' | grep -iE 'verify|bad magic|crc32c' | head -n 5
	echo "fio-verify: caught"
	exit 0
fi
if [ "$bad" -gt 0 ] || [ "$faults" -gt 0 ]; then
	echo "$out" | head -n 20
	dmesg | grep -E 'event 0x|F_[A-Z_]+' | head -n 10
	fail "verify errors or SMMU faults"
fi
if [ "${rd:-0}" -eq 0 ] || [ "${wr:-0}" -eq 0 ]; then
	fail "nothing written or verified"
fi
echo "fio-verify: PASS"
