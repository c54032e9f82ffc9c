#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Guest half of scripts/qemu/e2e.sh (busybox sh, arm64 guest): for every
# policy, map X->A, DMA, unmap, map X->B, DMA: the device must see B or
# fault, never A.  Then the same with range invalidation forced off, a
# broken policy that must be caught, and policy switches under load.
# Each check is preceded by a mark in the SMMU's command stream, so the
# host can hold our statistics against QEMU's own trace.
set -eu

run=/sys/bus/pci/drivers/flushpol_edu/run
fail() { echo "e2e: FAIL: $*"; exit 1; }
mark=0

# The kernel autoloads a policy module through /sbin/modprobe the first
# time its name is written: threshold is never loaded by hand here.
mkdir -p /sbin
ln -sf /bin/busybox /sbin/modprobe

load()
{
	modprobe flushpol_smmuv3 "$@"
	modprobe flushpol_edu
	# PCI probes wait for an IOMMU driver that never comes (the in-tree
	# one is off) until deferred_probe_timeout.
	i=0
	while [ ! -e $run ] || ! ls /sys/kernel/flushpol/contexts/smmuv3.* >/dev/null 2>&1; do
		i=$((i + 1))
		[ $i -lt 300 ] || fail "edu never probed"
		sleep 0.1
	done
	ctx=$(ls -d /sys/kernel/flushpol/contexts/smmuv3.*-asid*)
	echo "e2e: context $ctx: $(cat "$ctx/policy")"
}

unload()
{
	# A last mark, so teardown is not counted against the last check.
	mark=$((mark + 1))
	echo "mark $mark" > $run
	rmmod flushpol_edu
	rmmod flushpol_smmuv3
}

# check POLICY SIZE: one map/DMA/unmap/remap/DMA round, marked.
check()
{
	echo "$1" > "$ctx/policy"
	mark=$((mark + 1))
	echo "mark $mark" > $run
	echo "e2e: mark=$mark ril=$ril policy=$1 size=$2"
	echo "check $2" > $run || fail "policy $1 size $2: the device saw the old page"
}

for ril in 1 0; do
	if [ $ril = 1 ]; then load; else load force_no_ril=1; fi
	policies="va asid threshold"
	[ $ril = 1 ] && policies="va range asid threshold"
	for p in $policies; do
		for size in 4096 2097152 33554432; do
			check "$p" "$size"
		done
	done
	unload
done

load
# The oracle must be able to fail: a policy that never syncs is caught.
echo e2e_nosync > "$ctx/policy"
mark=$((mark + 1))
echo "mark $mark" > $run
echo "e2e: mark=$mark ril=1 policy=e2e_nosync size=2097152 (must fail)"
if echo "check 2097152" > $run; then
	fail "a policy that never syncs was not caught"
fi
echo "e2e: broken policy caught"
echo va > "$ctx/policy"
mark=$((mark + 1))
echo "mark $mark" > $run

# Switch policies through sysfs while the device DMAs and we unmap.
(
	while :; do
		for p in va range asid threshold; do
			echo $p > "$ctx/policy"
			usleep 20000
		done
	done
) &
switcher=$!
echo "stress 12" > $run || fail "a check failed while policies switched"
kill $switcher
wait $switcher 2>/dev/null || true
echo "e2e: 12 checks with live policy switches: no stale translation"

# The tracepoints, as perf or trace-cmd would see them: one va check at
# 2M is two unmaps, each one walk flush (512 by-VA commands, a sync) and
# one gather (a leaf command, a sync).
t=/sys/kernel/tracing
mount -t tracefs nodev $t 2>/dev/null || true
echo va > "$ctx/policy"
echo > $t/trace
echo 1 > $t/events/flushpol/enable
echo "check 2097152" > $run
echo 0 > $t/events/flushpol/enable
n=""
for e in walk gather inv sync; do
	n="$n $e=$(grep -c "flushpol_$e:" $t/trace || true)"
done
echo "e2e: tracepoints:$n"
[ "$n" = " walk=2 gather=2 inv=4 sync=4" ] || fail "tracepoints:$n"

# A DMA to an unmapped IOVA is a reported fault, not a crash.
echo fault > $run || fail "the device read memory through an unmapped IOVA"
sleep 1
dmesg | grep -q 'F_TRANSLATION' || fail "no translation fault was reported"
echo "e2e: faults reported: $(dmesg | grep -c 'F_TRANSLATION')"
unload
echo "e2e: PASS"
