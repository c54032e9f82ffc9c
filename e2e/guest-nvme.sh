#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Guest half of the NVMe part of scripts/qemu/e2e.sh (busybox sh, arm64
# guest, QEMU's -device nvme behind the SMMUv3): a DMA-API user with no
# knowledge of flushpol goes through it.  /init loaded flushpol_smmuv3
# before any PCI driver; this loads nvme and checks, for the mode the
# kernel command line asks for (iommu.strict=0, iommu.passthrough=1, or
# neither):
#  - the NVMe's IOMMU group, its default domain type, and its flushpol
#    context (strict 1 and a strict policy, strict 0 and nonstrict, or no
#    context for identity);
#  - data written and read back with the page cache dropped is what was
#    written, under every policy the context offers;
#  - the context's statistics count the unmaps and invalidations;
#  - MSI-X interrupts arrive through the SMMU's MSI window;
#  - /sys/kernel/flushpol/devices/<its bus id> leads to the context its
#    I/O makes busy, the journal line of that context's creation names
#    it, and flushpol-status prints what sysfs says and sets a policy by
#    bus id.
# flushpol options on its command line are junk (e2e.sh's junk boot,
# scripts/kunit.sh's junk_args): each must have been warned about, and
# the checks above hold all the same.
set -eu

fail() { echo "nvme: FAIL: $*"; exit 1; }
# shellcheck source=e2e/guest-lib.sh
. /guest-lib.sh

case " $(cat /proc/cmdline) " in
*" iommu.passthrough=1 "*) mode=identity type=identity ;;
*" iommu.strict=0 "*) mode=lazy type=DMA-FQ ;;
*) mode=strict type=DMA ;;
esac
echo "nvme: mode $mode"

fp_nvme_up
fp_user_view
pci=$(readlink -f /sys/class/nvme/nvme0/device)
[ -e "$pci/iommu_group" ] || fail "${pci##*/} has no IOMMU group"
group=$(readlink -f "$pci/iommu_group")
t=$(cat "$group/type")
echo "nvme: ${pci##*/} in group ${group##*/}, type $t"
[ "$t" = "$type" ] || fail "group type $t, expected $type"
[ "$(basename "$(readlink -f /sys/class/iommu/smmuv3.0/devices/"${pci##*/}")")" = "${pci##*/}" ] ||
	fail "${pci##*/} not under /sys/class/iommu/smmuv3.0/devices"

# Each junk option warned about (scripts/kunit.sh reads the log the same
# way); device_policy warns per entry.
read -r cmdline < /proc/cmdline
for opt in $cmdline; do
	case $opt in
	flushpol.device_policy=*) want="device_policy: \"${opt#*=}\" is not" ;;
	flushpol.*=*|flushpol_*.*=*) want="$opt is not valid: ignored" ;;
	*) continue ;;
	esac
	dmesg | grep -qF "$want" || fail "no warning for $opt"
	echo "nvme: $opt warned about: $(dmesg | grep -F "$want" | head -n 1)"
done

# The context of the NVMe's default domain: the one its I/O makes work,
# and the one its bus id leads to.
bdf=${pci##*/}
link=/sys/kernel/flushpol/devices/$bdf
new=$(fp_contexts_busy fp_nvme_read)
if [ $mode = identity ]; then
	[ -z "$new" ] || fail "an identity domain made context $new"
	[ ! -e "$link" ] || fail "$link exists for an identity domain"
	ctx=
else
	[ "$(echo "$new" | wc -w)" = 1 ] || fail "contexts busy with its I/O: \"$new\""
	[ -L "$link" ] || fail "no $link"
	linked=$(basename "$(readlink -f "$link")")
	[ "$linked" = "$new" ] ||
		fail "$link leads to $linked, its I/O made $new busy"
	ctx=/sys/kernel/flushpol/contexts/$new
	[ "$(readlink -f "$ctx/devices/$bdf")" = "$pci" ] ||
		fail "$ctx/devices/$bdf is not the NVMe"
	dmesg | grep -qF "flushpol: $new: created for $bdf, " ||
		fail "no \"$new: created for $bdf\" in the log"
	echo "nvme: $link -> $linked; $(dmesg | grep -F "flushpol: $new: created for" | tail -n 1)"
	echo "nvme: context $new: strict $(cat "$ctx/strict"), policy $(cat "$ctx/policy")"
	if [ $mode = lazy ]; then
		[ "$(cat "$ctx/strict")" = 0 ] || fail "a DMA-FQ context is strict"
		grep -q '\[nonstrict\]' "$ctx/policy" || fail "lazy context not on nonstrict"
	else
		[ "$(cat "$ctx/strict")" = 1 ] || fail "a DMA context is lazy"
		! grep -q nonstrict "$ctx/policy" || fail "strict context offers nonstrict"
	fi
fi

# 8 MiB of random data, out and back in, with the page cache dropped in
# between: every block crosses the SMMU both ways.
dd if=/dev/urandom of=/tmp/data bs=1M count=8 2>/dev/null
want=$(md5sum < /tmp/data)
n=0
roundtrip()
{
	n=$((n + 1))
	dd if=/tmp/data of=/dev/nvme0n1 bs=64k seek=$((n * 128)) conv=fsync 2>/dev/null
	echo 3 > /proc/sys/vm/drop_caches
	got=$(dd if=/dev/nvme0n1 bs=64k skip=$((n * 128)) count=128 2>/dev/null | md5sum)
	[ "$got" = "$want" ] || fail "$1: read back $got, wrote $want"
}

stat() { cat "$ctx/stats/$1"; }

if [ -z "$ctx" ]; then
	roundtrip identity
	echo "nvme: identity: data intact"
else
	# By name, each built into the core.
	policies="va range asid threshold batch"
	[ $mode = strict ] || policies="nonstrict va"
	for p in $policies; do
		echo "$p" > "$ctx/policy"
		echo 1 > "$ctx/stats/reset"
		roundtrip "$p"
		u=$(stat unmaps) s=$(stat syncs)
		c=$(($(stat tlbi_va) + $(stat tlbi_range) + $(stat tlbi_asid) + $(stat tlbi_all)))
		echo "nvme: policy $p: data intact; unmaps $u, commands $c, syncs $s"
		# Lazy: no iotlb_sync, so no unmap is counted; the flush
		# queue's flush_iotlb_all, through the policy, invalidates.
		if [ $mode = lazy ]; then
			[ "$(stat tlbi_asid)" -gt 0 ] && [ "$s" -gt 0 ] ||
				fail "$p: no context flush"
		else
			[ "$u" -gt 0 ] && [ "$c" -gt 0 ] && [ "$s" -gt 0 ] ||
				fail "$p: unmaps $u, commands $c, syncs $s"
		fi
	done
fi

# flushpol-status, idle (a lazy context's last flush is 10 ms away):
# every device's line, then the NVMe's alone; set by bus id.
sleep 1
fp_status_check
fp_status_check "$bdf"
st=/usr/sbin/flushpol-status
# refused ARGS...: flushpol-status exits 1, policy and threshold unchanged.
refused()
{
	_before=$(fp_status_line smmuv3.0 "$bdf")
	_rc=0
	$st "$@" || _rc=$?
	[ $_rc = 1 ] || fail "flushpol-status $*: exit status $_rc, not 1"
	[ "$(fp_status_line smmuv3.0 "$bdf")" = "$_before" ] ||
		fail "flushpol-status $*: refused, but changed something"
}
if [ -z "$ctx" ]; then
	refused set "$bdf" va
else
	old=$(fp_status_line smmuv3.0 "$bdf")
	old=${old#* policy=} oldthr=${old#* threshold=}
	out=$($st set "$bdf" asid threshold=77)
	echo "nvme: flushpol-status set: $out"
	[ "$out" = "$bdf $new: policy ${old%% *} -> asid, threshold ${oldthr%% *} -> 77" ] ||
		fail "flushpol-status set printed \"$out\""
	grep -q '\[asid\]' "$ctx/policy" && [ "$(cat "$ctx/threshold")" = 77 ] ||
		fail "flushpol-status set: policy $(cat "$ctx/policy"), threshold $(cat "$ctx/threshold")"
	roundtrip "asid by flushpol-status"
	[ $mode = lazy ] || refused set "$bdf" nonstrict
	refused set "$bdf" 'Bad!Name' threshold=5
	refused set "$bdf" va threshold=0
	out=$($st set "$bdf" default)
	echo "nvme: flushpol-status set: $out"
fi
refused set 0000:00:1f.7 va
_rc=0
$st set "$bdf" 2>/dev/null || _rc=$?
[ $_rc = 2 ] || fail "flushpol-status set without a policy: exit status $_rc, not 2"

# /sys/kernel/iommu_groups/*/type as with the in-tree driver: with the
# driver unbound, the group's default domain is replaced by the type
# written, and the context comes and goes with it.
retype()
{
	bdf=${pci##*/}
	echo "$bdf" > /sys/bus/pci/drivers/nvme/unbind
	fp_contexts_mark
	echo "$1" > "$group/type"
	echo "$bdf" > /sys/bus/pci/drivers/nvme/bind
	fp_wait "no /dev/nvme0n1 after type $1" test -b /dev/nvme0n1
	[ "$(cat "$group/type")" = "$1" ] || fail "type $(cat "$group/type"), wrote $1"
	new=$(fp_contexts_new)
	roundtrip "type $1"
	echo "nvme: group type $1: data intact, new context: ${new:-none}"
}
if [ $mode = strict ]; then
	retype identity
	[ -z "$new" ] || fail "an identity domain made context $new"
	# What a udev rule matches: the new context's uevents, as busybox's
	# uevent applet receives them from the kernel, must name the NVMe in
	# DEVICES= and its group in IOMMU_GROUP=.
	cat >/tmp/uevent-log <<-'EOF'
	#!/bin/sh
	[ "$SUBSYSTEM" = flushpol ] &&
		echo "$ACTION $DEVPATH DEVICES=$DEVICES IOMMU_GROUP=$IOMMU_GROUP" >>/tmp/uevents
	exit 0
	EOF
	chmod +x /tmp/uevent-log
	: >/tmp/uevents
	uevent /tmp/uevent-log &
	uev=$!
	sleep 0.5
	retype DMA-FQ
	[ -n "$new" ] && [ "$(cat "/sys/kernel/flushpol/contexts/$new/strict")" = 0 ] ||
		fail "DMA-FQ: context \"$new\" is not lazy"
	fp_wait "no uevent of $new with DEVICES=${pci##*/} IOMMU_GROUP=${group##*/}" \
		grep -q "/$new DEVICES=${pci##*/} IOMMU_GROUP=${group##*/}\$" /tmp/uevents
	kill $uev
	echo "nvme: uevents of $new:"
	sed 's/^/nvme:   /' /tmp/uevents
fi

# MSI-X through the SMMU: nvme's queues interrupt by MSI-X, whose doorbell
# writes are DMA translated in the MSI window.
irqs=$(awk '/nvme0q/ { for (i = 2; i <= NF; i++) if ($i ~ /^[0-9]+$/) s += $i } END { print s + 0 }' /proc/interrupts)
grep nvme0q /proc/interrupts | head -n 2
grep nvme0q /proc/interrupts | grep -q 'MSI' || fail "nvme's interrupts are not MSI"
[ "$irqs" -gt 0 ] || fail "no nvme interrupt arrived"
echo "nvme: $irqs MSI-X interrupts"

! dmesg | grep -E 'F_TRANSLATION|event 0x' || fail "SMMU events during I/O"
echo "nvme: PASS ($mode)"
