#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Guest half of scripts/qemu/e2e.sh (busybox sh, arm64 guest): for every
# policy, map X->A, DMA, unmap, map X->B, DMA: the device must see B or
# fault, never A, at every sample (the last page of the range, the first
# and last page of every 2 MiB table, DMAs across page boundaries), with
# 4K pages, with 2M blocks, and with the end of a block unmapped (split),
# at sizes from 4K to 32M, odd ones too; and an unmap over a hole (16K of
# 4K pages, 2M blocks), whose cleared part must fault and whose part past
# the hole must still be mapped.
# Then the same with range invalidation forced off, broken policies that
# must be caught, and policy switches under load.  Each check is preceded
# by a mark in the SMMU's command stream, so the host can hold our
# statistics against QEMU's own trace.
#
# /init loaded flushpol_smmuv3 before any PCI driver (run-guest.sh); the
# edu module gives its device a paging domain through the IOMMU API.  The
# kernel autoloads a policy module through /sbin/modprobe the first time
# its name is written: threshold is never loaded by hand here.
set -eu

drv=/sys/bus/pci/drivers/flushpol_edu
run=$drv/run
param=/sys/module/flushpol_smmuv3/parameters/force_no_ril
fail() { echo "e2e: FAIL: $*"; exit 1; }
mark=0
must_fail=

grep -q '^flushpol_smmuv3 ' /proc/modules || fail "/init did not load flushpol_smmuv3"
[ -e /sys/class/iommu/smmuv3.0 ] || fail "no /sys/class/iommu/smmuv3.0"

# load RIL: the edu module, its domain made with range invalidation
# (RIL=1) or without.
load()
{
	echo $(($1 == 0)) > $param
	modprobe flushpol_edu
	[ -e $run ] || fail "edu never probed"
	ctx=/sys/kernel/flushpol/contexts/$(cat $drv/context)
	[ -d "$ctx" ] || fail "no $ctx"
	echo "e2e: context $ctx: $(cat "$ctx/policy")"
}

unload()
{
	# A last mark, so teardown is not counted against the last check.
	mark=$((mark + 1))
	echo "mark $mark" > $run
	rmmod flushpol_edu
	echo 0 > $param
}

# run POLICY HOW SIZE: one map/DMA/unmap/remap/DMA round, marked; HOW is
# check (4K pages), blocks (2M blocks, 4K pages for the rest) or split (the
# last SIZE of a 2M block).  Fails as the write does.
run()
{
	echo "$1" > "$ctx/policy"
	mark=$((mark + 1))
	echo "mark $mark" > $run
	case $2 in
	check) pages=4k ;;
	blocks) pages=2m ;;
	hole) pages=hole ;;
	*) pages=$2 ;;
	esac
	echo "e2e: mark=$mark ril=$ril policy=$1 size=$3 map=$pages${must_fail:+ (must fail)}"
	echo "$2 $3" > $run
}

check()
{
	run "$@" || fail "policy $1 $2 $3: the device saw the old page"
}

# caught POLICY HOW SIZE WHAT: a broken policy must fail the check, caught
# by the samples WHAT names (the kernel's "stale" lines).
caught()
{
	must_fail=1
	if run "$1" "$2" "$3"; then
		fail "$1 ($2 $3) was not caught"
	fi
	must_fail=
	where=$(dmesg | sed -n "/fp-e2e: stale/{s/.*stale \([a-z-]*\).*/\1/p}" |
		sort -u | tr '\n' ' ')
	echo "e2e: $1 ($2 $3) caught by: $where"
	for w in $4; do
		case " $where" in *" $w "*) ;; *) fail "$1 not caught by $w" ;; esac
	done
	dmesg -c > /dev/null
}

# 12K+4K, 2M+4K, 6M+4K: sizes no power of two, partial tables.
sizes="4096 8192 16384 2097152 2101248 33554432"
bsizes="2097152 6295552"
ssizes="4096 12288"
# A hole between two mapped extents of SIZE: 4K pages (io-pgtable stops
# inside a last-level table) and 2M blocks (the driver's unmap_pages call
# spans the hole, and its gather holds the cleared block).
hsizes="16384 2097152"
# io-pgtable-arm after 6.12 (7.x) refuses to unmap part of a block
# (WARN_ONCE, nothing unmapped) where older ones split it: no split
# checks there.
case $(uname -r) in
6.1.* | 6.12.*) ;;
*) ssizes= ;;
esac
for ril in 1 0; do
	load $ril
	policies="va asid threshold"
	[ $ril = 1 ] && policies="va range asid threshold"
	for p in $policies; do
		for size in $sizes; do
			check "$p" check "$size"
		done
		for size in $bsizes; do
			check "$p" blocks "$size"
		done
		for size in $ssizes; do
			check "$p" split "$size"
		done
		for size in $hsizes; do
			check "$p" hole "$size"
		done
	done
	unload
done

ril=1
load $ril
dmesg -c > /dev/null
# The oracle must be able to fail: a policy that never syncs is caught;
# and e2e_lastpage, whose ranges stop a granule short (the last page of
# every freed table, the last block of a gather), which two samples per
# check (offset 0 and size - 12K, as this test had) never saw.
caught e2e_nosync check 2097152 range-last
[ -z "$ssizes" ] || caught e2e_nosync split 4096 range-last
caught e2e_lastpage check 33554432 "table-last range-last straddle"
caught e2e_lastpage blocks 6295552 "table-first table-last"
echo "e2e: broken policies caught"
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
# 2M is two unmaps through the IOMMU core, each one walk flush (512 by-VA
# commands, a sync) and two gathers: unmap_pages' own, which the walk
# covered, handed to the policy as it ends (va: upstream's leaf command),
# then iotlb_sync's (the sync that completes it).  6.1's io-pgtable-arm
# gathers only leaf entries, not the entry of a table it frees (6.12's
# gathers every entry it clears): there unmap_pages' gather is empty, and
# only iotlb_sync's reaches the policy, with nothing to send.
case $(uname -r) in
6.1.*) want=" walk=2 gather=2 inv=2 sync=4" ;;
*) want=" walk=2 gather=4 inv=4 sync=4" ;;
esac
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
[ "$n" = "$want" ] || fail "tracepoints:$n, not$want"

# A DMA to an unmapped IOVA is a reported fault, not a crash.
echo fault > $run || fail "the device read memory through an unmapped IOVA"
sleep 1
dmesg | grep -q 'F_TRANSLATION' || fail "no translation fault was reported"
echo "e2e: faults reported: $(dmesg | grep -c 'F_TRANSLATION')"
# ...named by the device whose stream faulted.
edu=$(basename "$(readlink -f $drv/0000:*)")
dmesg | grep 'F_TRANSLATION' | grep -q "$edu" || fail "the fault report does not name $edu"
unload

# ASIDs are 16 bits on QEMU's SMMU: 300 domains alive at once fit.
load 1
echo "domains 300" > $run || fail "300 domains did not get an ASID each"
dmesg | grep 'fp-e2e: domains' | tail -n 1
unload

# The IOMMU core holds the driver while devices are behind it.
if rmmod flushpol_smmuv3 2>/dev/null; then
	fail "flushpol_smmuv3 was removed under its devices"
fi
echo "e2e: rmmod flushpol_smmuv3 refused while devices are behind it"
echo "e2e: PASS"
