#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Guest half of scripts/qemu/e2e.sh's boot configured by device: the
# kernel command line carries flushpol.device_policy=<the NVMe's bus
# id>=asid:threshold=77,<the edu device's bus id>=threshold:threshold=33.
# Once nvme is loaded (the IOMMU core gives the device its group and
# domain as its driver binds) and before this script does any I/O, the
# NVMe's context, found through /sys/kernel/flushpol/devices/<bus id>, must
# be on asid with threshold 77, and the log must say it was created for
# the NVMe and its device_policy applied.  The same for the edu device
# once flushpol_edu has bound it: the paging domain that module allocates
# and attaches itself, not the DMA API's, must be the one linked, on
# threshold with threshold 33, before it has unmapped anything; then its
# unmaps of 64 pages go by ASID and those of 16 by address, as N = 33
# says (the default N, 128, would send both by address).  Then data
# round-trips on the NVMe under asid, flushpol-status switches it to va
# by bus id, and data round-trips again, invalidated by address.
set -eu

fail() { echo "bydev: FAIL: $*"; exit 1; }
# shellcheck source=e2e/guest-lib.sh
. /guest-lib.sh

# configured BUS_ID POLICY N: BUS_ID's context, found through
# /sys/kernel/flushpol/devices/, is on POLICY with threshold N, the log
# says it was created for BUS_ID and its device_policy applied, and
# flushpol-status says what sysfs does; sets ctx and name.
configured()
{
	_link=/sys/kernel/flushpol/devices/$1
	[ -L "$_link" ] || fail "no $_link"
	ctx=$(readlink -f "$_link")
	name=${ctx##*/}
	echo "bydev: $_link -> $name: policy $(cat "$ctx/policy"), threshold $(cat "$ctx/threshold")"
	grep -q "\[$2\]" "$ctx/policy" ||
		fail "$name: policy $(cat "$ctx/policy"), device_policy asked for $2"
	[ "$(cat "$ctx/threshold")" = "$3" ] ||
		fail "$name: threshold $(cat "$ctx/threshold"), device_policy asked for $3"
	dmesg | grep -qF "flushpol: $name: created for $1, strict" ||
		fail "no \"$name: created for $1\" in the log"
	dmesg | grep -qF "flushpol: $name: device_policy for $1 applied" ||
		fail "no \"$name: device_policy for $1 applied\" in the log"
	dmesg | grep -F "flushpol: $name: " | sed 's/^/bydev: log: /'
	fp_status_check "$1"
}

modprobe nvme
fp_wait "no /dev/nvme0n1" test -b /dev/nvme0n1
# The NVMe by its class (mass storage, NVM Express), not through nvme.
pci=
for d in /sys/bus/pci/devices/*; do
	if [ "$(cat "$d/class")" = 0x010802 ]; then
		pci=$(readlink -f "$d")
	fi
done
[ -n "$pci" ] || fail "no NVMe on the PCI bus"
bdf=${pci##*/}
[ "$(readlink -f /sys/class/nvme/nvme0/device)" = "$pci" ] ||
	fail "nvme0 is not $bdf"
echo "bydev: NVMe $bdf"
configured "$bdf" asid 77
nvme_ctx=$ctx nvme_name=$name

# The edu device by its IDs; the command line must name it.
edu=
for d in /sys/bus/pci/devices/*; do
	if [ "$(cat "$d/vendor"):$(cat "$d/device")" = 0x1234:0x11e8 ]; then
		edu=${d##*/}
	fi
done
[ -n "$edu" ] || fail "no edu device on the PCI bus"
grep -qF "$edu=threshold:threshold=33" /proc/cmdline ||
	fail "edu is $edu, which the command line's device_policy does not name"
echo "bydev: edu $edu"
modprobe flushpol_edu
drv=/sys/bus/pci/drivers/flushpol_edu
[ -e "$drv/$edu" ] || fail "flushpol_edu did not bind $edu"
configured "$edu" threshold 33
ectx=$ctx
# Not the DMA API's default domain's: the one flushpol_edu attached.
[ "$name" = "$(cat "$drv/context")" ] ||
	fail "$edu's link leads to $name, flushpol_edu's domain is $(cat "$drv/context")"
[ "$(cat "$ectx/stats/unmaps")" = 0 ] ||
	fail "$name: $(cat "$ectx/stats/unmaps") unmaps before any I/O"
# edu_check SIZE POLICY: one check of SIZE in 4K pages, the device's
# DMA seeing the new pages; then its commands must be POLICY's only.
edu_check()
{
	echo 1 > "$ectx/stats/reset"
	echo "check $1" > "$drv/run" || fail "edu: check $1 failed"
	_va=$(($(cat "$ectx/stats/tlbi_va") + $(cat "$ectx/stats/tlbi_range")))
	_asid=$(cat "$ectx/stats/tlbi_asid")
	echo "bydev: edu: check $1: by address $_va, tlbi_asid $_asid"
	[ "$(cat "$ectx/stats/unmaps")" -gt 0 ] || fail "edu: check $1: no unmap counted"
	case $2 in
	asid) [ "$_asid" -gt 0 ] && [ "$_va" = 0 ] ;;
	va) [ "$_va" -gt 0 ] && [ "$_asid" = 0 ] ;;
	esac || fail "edu: check $1: not by $2 only, as threshold 33 says"
}
edu_check 262144 asid
edu_check 65536 va
ctx=$nvme_ctx name=$nvme_name

dd if=/dev/urandom of=/tmp/data bs=1M count=8 2>/dev/null
want=$(md5sum < /tmp/data)
n=0
roundtrip()
{
	n=$((n + 1))
	echo 1 > "$ctx/stats/reset"
	dd if=/tmp/data of=/dev/nvme0n1 bs=64k seek=$((n * 128)) conv=fsync 2>/dev/null
	echo 3 > /proc/sys/vm/drop_caches
	got=$(dd if=/dev/nvme0n1 bs=64k skip=$((n * 128)) count=128 2>/dev/null | md5sum)
	[ "$got" = "$want" ] || fail "$1: read back $got, wrote $want"
	echo "bydev: $1: data intact; unmaps $(cat "$ctx/stats/unmaps"), tlbi_va $(cat "$ctx/stats/tlbi_va"), tlbi_asid $(cat "$ctx/stats/tlbi_asid")"
}
stat() { cat "$ctx/stats/$1"; }

roundtrip asid
[ "$(stat unmaps)" -gt 0 ] || fail "asid: no unmap counted"
[ "$(stat tlbi_asid)" -gt 0 ] || fail "asid: no ASID command"
[ "$(stat tlbi_va)" = 0 ] || fail "asid: $(stat tlbi_va) by-VA commands"

out=$(/usr/sbin/flushpol-status set "$bdf" va)
echo "bydev: flushpol-status set: $out"
[ "$out" = "$bdf $name: policy asid -> va" ] ||
	fail "flushpol-status set printed \"$out\""
roundtrip va
[ "$(stat tlbi_va)" -gt 0 ] || fail "va: no by-VA command"
[ "$(stat tlbi_asid)" = 0 ] || fail "va: $(stat tlbi_asid) ASID commands"
sleep 1
fp_status_check

! dmesg | grep -E 'F_TRANSLATION|event 0x' || fail "SMMU events during I/O"
echo "bydev: PASS"
