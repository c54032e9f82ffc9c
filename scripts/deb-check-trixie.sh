#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Usage: scripts/deb-check-trixie.sh [FP_KVER...]   (default: 6.12+deb13 7.x)
#        FLUSHPOL_DEB names a .deb built already (default: make deb's)
#
# The package on Debian 13's kernels, each with the release's own
# toolchain, in the trixie root (scripts/trixie-root.sh):
#  - amd64: apt install ./flushpol-dkms_VER_all.deb in the root, where
#    the kernels' amd64 headers are installed; dh-dkms' postinst builds it
#    for each, and dkms status must say installed, the modules' vermagic
#    the kernel's; then flushpol-boot's steps, checked in GRUB's entries
#    and the initramfs of each of those kernels whose image is in the
#    root, as scripts/deb-check.sh checks them on this host (the same
#    code, scripts/boot-check.sh: enable, a kernel without the module in
#    /boot, disable, apt remove while enabled; grub2-common is installed
#    into the root for grub-mkconfig and update-grub); then apt remove,
#    and dkms must know nothing more.
#  - arm64: what the QEMU rig does (scripts/qemu/dkms-install.sh): the
#    package's sources through dkms add, build, install, cross-built in the
#    root, into build/deb-check-trixie/qemu-FP_KVER.
# Prints one line per kernel and architecture; fails if any failed.
# Holds its own lock: the root's dkms registration is one for all runs.
# shellcheck disable=SC2317 # cleanup runs from the EXIT trap
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib.sh
. "$here/lib.sh"

log() { echo "deb-check-trixie: $*" >&2; }
die() { log "FAIL: $*"; exit 1; }

[ "$(id -u)" -eq 0 ] || die "must run as root"
[ $# -gt 0 ] || set -- 6.12+deb13 7.x
in_root() { "$here/trixie-root.sh" run "$@"; }

ver=$(fp_version) || die "no PACKAGE_VERSION=\"...\" line in dkms.conf"
cache=${FLUSHPOL_CACHE:-/var/cache/flushpol}
declare -A arm64 result
amd64=()
for k in "$@"; do
	KVER=$(FP_KVER=$k "$here/qemu/prepare.sh" | sed -n 's/^KVER=//p')
	arm64[$k]=$KVER
	amd64+=("${KVER%-arm64}-amd64")
done
mkdir -p "$cache"
exec 8>"$cache/.trixie-dkms.lock"
flock 8

work=$FP_TOP/build/deb-check-trixie
rm -rf "$work"
mkdir -p "$work"
# A copy of its own, taken under deb.sh's lock: another run's make deb
# deletes the file it builds before building it again.
src=${FLUSHPOL_DEB:-$("$here/deb.sh")}
deb=$work/${src##*/}
mkdir -p "$FP_TOP/build/deb"
flock "$FP_TOP/build/deb/.lock" cp "$src" "$deb"
troot=$("$here/trixie-root.sh")
fakeimg=/boot/vmlinuz-5.10.0-0-flushpol-fake
made_grub_dir=
cleanup()
{
	local rc=$?
	trap - EXIT
	in_root apt-get purge -y -q flushpol-dkms >/dev/null 2>&1 </dev/null || true
	rm -f "$troot$fakeimg"
	[ -z "$made_grub_dir" ] || rm -rf "$troot/boot/grub"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
in_root apt-get purge -y -q flushpol-dkms >/dev/null 2>&1 </dev/null || true
in_root apt-get install -y -q --no-install-recommends -o DPkg::Lock::Timeout=900 \
	grub2-common >"$work/grub-install.log" 2>&1 </dev/null ||
	{ cat "$work/grub-install.log" >&2; die "apt install grub2-common in the trixie root failed"; }
# update-grub writes /boot/grub/grub.cfg only where it is already.
if [ ! -d "$troot/boot/grub" ]; then
	mkdir "$troot/boot/grub"
	: >"$troot/boot/grub/grub.cfg"
	made_grub_dir=1
fi

log "apt install $deb in the trixie root (kernels: ${amd64[*]})"
in_root apt-get install -y -q --no-install-recommends -o DPkg::Lock::Timeout=900 \
	"$deb" >"$work/install.log" 2>&1 </dev/null ||
	{ cat "$work/install.log" >&2; die "apt install in the trixie root failed"; }
in_root dkms status >"$work/status" 2>&1
cat "$work/status" >&2
failed=0
for k in "${amd64[@]}"; do
	r=PASS
	if ! grep -q "^flushpol/$ver, $k, x86_64: installed" "$work/status"; then
		r="FAIL: dkms status does not say installed"
	else
		mods=$(in_root sh -c "ls /lib/modules/$k/updates/dkms/" | tr '\n' ' ')
		vm=$(in_root modinfo -F vermagic "/lib/modules/$k/updates/dkms/$(
		     in_root sh -c "ls /lib/modules/$k/updates/dkms/" | grep '^flushpol\.ko')")
		[ "${vm%% *}" = "$k" ] || r="FAIL: flushpol vermagic \"$vm\""
		[ "$r" != PASS ] || r="PASS ($mods)"
	fi
	[[ $r == PASS* ]] || failed=1
	result[$k]=$r
done

# flushpol-boot's steps in the root, on its kernels with their image.
bad() { log "FAIL: $*"; failed=1 boot_failed=1; }
boot_failed=0
boot=()
for k in "${amd64[@]}"; do
	[ ! -f "$troot/boot/vmlinuz-$k" ] || boot+=("$k")
done
[ ${#boot[@]} -gt 0 ] || die "no kernel of ${amd64[*]} has its image in the trixie root"
log "GRUB and initramfs checks in the trixie root on ${boot[*]}"
gc_root=$troot
gc_in() { in_root "$@"; }
# shellcheck source=scripts/boot-check.sh
. "$here/boot-check.sh"
boot_check_on
boot_check_off

log "apt remove flushpol-dkms in the trixie root"
in_root apt-get remove -y -q flushpol-dkms >"$work/remove.log" 2>&1 </dev/null ||
	{ cat "$work/remove.log" >&2; die "apt remove failed"; }
boot_check_removed "$work/remove.log"
st=$(in_root dkms status -m flushpol 2>&1)
[ -z "$st" ] || die "dkms status after apt remove: $st"

for k in "$@"; do
	kv=${arm64[$k]}
	log "arm64 $kv: scripts/qemu/dkms-install.sh in the trixie root"
	if FP_KVER=$k FLUSHPOL_QEMU_OUT=$work/qemu-$k FLUSHPOL_DEB=$deb \
	   "$here/qemu/dkms-install.sh" >"$work/$kv.dest" 2>"$work/$kv.log"; then
		result[$kv]="PASS ($(find "$(cat "$work/$kv.dest")" -name '*.ko*' | wc -l) modules)"
	else
		tail -n 30 "$work/$kv.log" >&2
		result[$kv]="FAIL: see $work/$kv.log"
		failed=1
	fi
done

i=0
for k in "$@"; do
	a=${amd64[i++]}
	echo "deb-check-trixie: $a (apt install in the trixie root): ${result[$a]}"
	[[ ${result[$a]} != PASS* ]] ||
		"$here/kernel-table.sh" pass "$k" amd64 "DKMS (apt install of the .deb, trixie root)"
	a=${arm64[$k]}
	echo "deb-check-trixie: $a (dkms in the trixie root): ${result[$a]}"
	[[ ${result[$a]} != PASS* ]] ||
		"$here/kernel-table.sh" pass "$k" arm64 "DKMS (cross, trixie root)"
done
r=PASS
[ "$boot_failed" = 0 ] || r="FAIL: see the FAIL lines above"
echo "deb-check-trixie: flushpol-boot in GRUB and the initramfs (${boot[*]}): $r"
exit "$failed"
