#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Usage: scripts/deb-check.sh
#        FLUSHPOL_DEB names a .deb built already (default: make deb's)
#
# What a user does with the package, on this host: make deb, then
#   apt install ./build/deb/flushpol-dkms_<version>_all.deb
# and checks that dkms status shows flushpol installed for every kernel
# with headers in /lib/modules, that a kernel below 6.1 is skipped with
# the reason printed (a fake one: /lib/modules/5.10.0-0-flushpol-fake with
# a build/ of an include/ and a .config).  Then turning it on and going
# back, on the kernels with headers whose image is in /boot, each step
# checked in GRUB's configuration (grub-mkconfig -o a file of ours, and
# the /boot/grub/grub.cfg update-grub writes) and in the initramfs.  At
# least two such kernels, so that a maintainer script that rebuilds one
# initramfs only (update-initramfs -u without -k all: the newest kernel's)
# fails: where the host has one, Debian's image of the other kernel with
# headers (bookworm's 6.1) is unpacked from its .deb into /boot and
# /lib/modules for the run, as installing it would put it there, and
# taken away at the end.
#  - installed, it is off: no entry has initcall_blacklist=arm_smmu_driver_init
#  - flushpol-boot enable: every normal entry has it, no recovery entry;
#    each initramfs holds flushpol_smmuv3 and loads it (conf/modules)
#  - a kernel in /boot without flushpol_smmuv3 (the fake one's vmlinuz):
#    the kernel hook warns, no entry has the option, grub-mkconfig names
#    the kernel; taken away, the option is back
#  - the same .deb installed again (an upgrade): each initramfs rebuilt,
#    with the module dkms has just installed
#  - flushpol-boot disable: no entry has it, no initramfs loads it
#  - apt remove while enabled: the prerm warns, no entry has the option,
#    no initramfs holds the module
# After every step, every entry must boot with an SMMU driver: an entry
# with the option only for a kernel whose initramfs loads flushpol_smmuv3.
# The grub.cfg of the enable step is left in build/deb-check/grub-enable.cfg
# for scripts/qemu/grub-boot.sh, which boots its entries through GRUB.
# Then apt remove must leave /usr/src, /var/lib/dkms and /lib/modules
# holding the same files as before, and apt purge the conffiles gone.
# /boot/grub/grub.cfg and the initramfs images are put back as they were,
# and the second kernel's files taken away, in the EXIT trap.  The checks
# of each step are scripts/boot-check.sh's, which
# scripts/deb-check-trixie.sh runs in the trixie root.  Needs root.
# Refuses to run if flushpol-dkms is installed (it is the machine's then,
# not ours to remove); holds scripts/dkms-check.sh's lock, as both use
# the same dkms registration.
#
# A run killed before its EXIT trap (kill -9, a machine lost) leaves the
# package half configured, which makes every later apt-get fail, and the
# staged kernel in /boot.  What a run changes is recorded in
# $FLUSHPOL_CACHE/deb-check.run, not /tmp, so that it outlives a reboot:
# the next run puts it back first, and so does
#   scripts/deb-check.sh --recover
# which does nothing else (.ci/run calls it before apt-get).

# shellcheck disable=SC2317 # cleanup runs from the EXIT trap
set -euo pipefail
shopt -s extglob

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/deps.sh
. "$here/deps.sh"
# shellcheck source=scripts/lib.sh
. "$here/lib.sh"

log() { echo "deb-check: $*" >&2; }
die() { log "FAIL: $*"; exit 1; }

[ "$(id -u)" -eq 0 ] || die "must run as root"
case ${1:-} in
""|--recover) ;;
*) die "usage: $0 [--recover]" ;;
esac
fp_host_dkms_lock

pkg=flushpol-dkms
work=${FLUSHPOL_CACHE:-/var/cache/flushpol}/deb-check.run
fake=/lib/modules/5.10.0-0-flushpol-fake
fakeimg=/boot/vmlinuz-${fake##*/}
cfg=/etc/default/grub.d/flushpol.cfg
failed=0
made_grub_dir=
made_grub_cfg=
staged=

# keep NAME: NAME's value into $work/state, for a later run to undo by.
keep()
{
	printf '%s=%q\n' "$1" "${!1}" >>"$work/state"
}

# Names only: what apt remove must leave as apt install found it.  dkms
# makes its module-signing key (/var/lib/dkms/mok.*) at its first build on
# a machine and keeps it, as it must: the key may be enrolled.
snapshot()
{
	find /usr/src /var/lib/dkms /lib/modules -path "$fake" -prune -o \
		-path '/var/lib/dkms/mok.*' -prune -o -print | sort
}

# stage_kernel K: Debian's image of kernel K (its .deb cached in
# $FLUSHPOL_CACHE/amd64) into /boot and /lib/modules/K, as dpkg would put
# it there, for this run; unstage_kernel takes away what it added and puts
# back K's modules.* files as they were.
stage_kernel()
{
	local dir=${FLUSHPOL_CACHE:-/var/cache/flushpol}/amd64/linux-image-$1 f
	if [ ! -e "$dir/.unpacked" ]; then
		rm -rf "$dir"
		mkdir -p "$dir/debs"
		dl() (cd "$dir/debs" && apt-get download -q \
			-o APT::Sandbox::User=root "linux-image-$1" >&2)
		dl "$1" || { apt-get update -q >&2 </dev/null && dl "$1"; } ||
			die "apt-get download linux-image-$1 failed"
		dpkg -x "$dir"/debs/linux-image-*.deb "$dir/root"
		rm -rf "$dir/debs"
		touch "$dir/.unpacked"
	fi
	mkdir -p "$work/staged-mods"
	cp -p "/lib/modules/$1"/modules.* "$work/staged-mods/" 2>/dev/null || true
	(cd "$dir/root" && find boot "lib/modules/$1" -mindepth 1 -maxdepth 1) \
		>"$work/staged"
	while read -r f; do
		[ ! -e "/$f" ] || die "/$f is there already: not staging $1"
	done <"$work/staged"
	# From here the EXIT trap takes away what the list names.
	staged=$1
	keep staged
	# Hard links: the same file system, and nothing here writes to them.
	while read -r f; do
		cp -al "$dir/root/$f" "/$f"
	done <"$work/staged"
	depmod "$1"
}

unstage_kernel()
{
	local f
	while read -r f; do
		rm -rf "/${f:?}"
	done <"$work/staged"
	rm -f "/boot/initrd.img-$staged" "/lib/modules/$staged"/modules.*
	for f in "$work/staged-mods"/*; do
		[ ! -e "$f" ] || cp -p "$f" "/lib/modules/$staged/"
	done
	staged=
	keep staged
}

# What this run (or the one $work/state is of) changed, put back.
undo()
{
	st=$(dpkg-query -W -f='${db:Status-Abbrev}' "$pkg" 2>/dev/null) || st=
	if [[ $st == ?[iUFHWtc]* ]]; then
		log "cleaning up: removing $pkg"
		# apt-get refuses to act while dpkg was interrupted.
		DEBIAN_FRONTEND=noninteractive apt-get purge -y -q \
			-o DPkg::Lock::Timeout=900 "$pkg" >&2 </dev/null ||
		{ dpkg --purge --force-remove-reinstreq "$pkg" >&2 &&
		  dpkg --configure -a >&2; } || true
	fi
	rm -rf "$fake" "$fakeimg"
	# What update-grub and update-initramfs changed in /boot.
	for f in "$work"/boot/initrd.img-*; do
		[ -e "$f" ] && cp -p "$f" "/boot/${f##*/}"
	done
	if [ -n "$made_grub_cfg" ]; then
		rm -f /boot/grub/grub.cfg
	elif [ -e "$work/boot/grub.cfg" ]; then
		cp -p "$work/boot/grub.cfg" /boot/grub/grub.cfg
	fi
	[ -z "$made_grub_dir" ] || rmdir /boot/grub 2>/dev/null || true
	[ -z "$staged" ] || unstage_kernel
	rm -rf "$work"
}

cleanup()
{
	local rc=$?
	trap - EXIT
	undo
	exit "$rc"
}

if [ -d "$work" ]; then
	log "an earlier run did not finish: putting back what it changed"
	# shellcheck source=/dev/null
	[ ! -f "$work/state" ] || . "$work/state"
	undo
	made_grub_dir=''
	made_grub_cfg=''
	staged=''
fi
[ "${1:-}" != --recover ] || exit 0

ver=$(fp_version) || die "no PACKAGE_VERSION=\"...\" line in dkms.conf"
st=$(dpkg-query -W -f='${db:Status-Abbrev}' "$pkg" 2>/dev/null) || st=
[[ $st != ii* ]] || die "$pkg is installed on this machine: not removing it"
[ -z "$(dkms status -m flushpol 2>/dev/null)" ] ||
	die "flushpol is registered in dkms already: $(dkms status -m flushpol)"

fp_apt_install grub-common grub2-common initramfs-tools >&2
deb=${FLUSHPOL_DEB:-$("$here/deb.sh")}
mkdir -p "$work"
trap cleanup EXIT
trap 'exit 130' INT TERM

# The kernels the postinst must build for: those with headers, as dkms'
# common.postinst tests for them (build/include).
mapfile -t kvers < <(for d in /lib/modules/*/build; do
			     [ -e "$d/include" ] && basename "${d%/build}"
		     done)
[ ${#kvers[@]} -gt 0 ] || die "no kernel headers in /lib/modules/*/build"
running=$(uname -r)
log "kernels with headers: ${kvers[*]}; running: $running"

# The kernels GRUB lists that flushpol is built for: those with headers
# whose image (and config, which mkinitramfs reads) is in /boot.
boot_kernels()
{
	boot=()
	for k in "${kvers[@]}"; do
		[ -f "/boot/vmlinuz-$k" ] && [ -f "/boot/config-$k" ] && boot+=("$k")
	done
}
boot_kernels
[ ${#boot[@]} -gt 0 ] ||
	die "no kernel with headers has its image in /boot (install linux-image-$FP_KVER_612)"
if [ ${#boot[@]} -lt 2 ]; then
	for k in "${kvers[@]}"; do
		[ -f "/boot/vmlinuz-$k" ] && continue
		log "a second kernel in /boot: linux-image-$k, unpacked for this run"
		stage_kernel "$k"
		break
	done
	boot_kernels
	[ ${#boot[@]} -ge 2 ] ||
		die "one kernel in /boot (${boot[*]}), and no other with headers to stage"
fi

# Kernels without their image get modules.* from dkms' depmod: note which
# were there, to put them back (as scripts/dkms-check.sh does).
snapshot >"$work/before"

mkdir -p "$work/boot"
for k in "${boot[@]}"; do
	[ -f "/boot/initrd.img-$k" ] || update-initramfs -c -k "$k" >&2 ||
		die "update-initramfs -c -k $k failed"
done
cp -p /boot/initrd.img-* "$work/boot/"
# update-grub writes /boot/grub/grub.cfg only where it is already.
if [ ! -d /boot/grub ]; then
	mkdir /boot/grub
	made_grub_dir=1
	keep made_grub_dir
fi
if [ -e /boot/grub/grub.cfg ]; then
	cp -p /boot/grub/grub.cfg "$work/boot/grub.cfg"
else
	: >/boot/grub/grub.cfg
	made_grub_cfg=1
	keep made_grub_cfg
fi
log "GRUB and initramfs checks on ${boot[*]}"

mkdir -p "$fake/build/include"
echo "CONFIG_IOMMU_API=y" >"$fake/build/.config"

log "apt install $deb"
start=$SECONDS
DEBIAN_FRONTEND=noninteractive "${FP_APT_INSTALL[@]}" "$deb" \
	>"$work/install.log" 2>&1 </dev/null ||
	{ cat "$work/install.log" >&2; die "apt install failed"; }
log "apt install took $((SECONDS - start)) s; what it printed from dpkg on:"
sed -n '/^Setting up /,$p' "$work/install.log" >&2

dkms status >"$work/status"
log "dkms status:"
cat "$work/status" >&2
for k in "${kvers[@]}"; do
	grep -q "^flushpol/$ver, $k, [^:]*: installed" "$work/status" ||
		die "flushpol not installed for $k"
	f=$(modinfo -k "$k" -F filename flushpol) ||
		die "modinfo finds no flushpol for $k"
	# .ko.xz where the kernel compresses its modules (6.12).
	[[ $f == "/lib/modules/$k/updates/dkms/flushpol.ko"?(.xz|.gz|.zst) ]] ||
		die "$k: modinfo resolves flushpol to $f"
done
grep -q "flushpol: skipping kernel ${fake##*/}: flushpol needs Linux 6.1 or newer" \
	"$work/install.log" || die "no skip reason for ${fake##*/} in apt's output"
if grep -q "flushpol/$ver, ${fake##*/}" "$work/status"; then
	die "dkms status lists the skipped ${fake##*/}"
fi
if [ ! -e "/lib/modules/$running/build/include" ]; then
	log "the running kernel $running has no headers here, so nothing" \
	    "is built for it; dkms' postinst said:"
	grep -F "$running" "$work/install.log" >&2 || true
fi

# A check that fails is reported and the run goes on, so that one run
# shows every step that fails; the run fails at the end.
bad() { log "FAIL: $*"; failed=1; }

# The checks of each step (scripts/boot-check.sh), on this machine.
gc_root=
gc_in() { "$@"; }
# shellcheck source=scripts/boot-check.sh
. "$here/boot-check.sh"

# Module file $1 (.ko, .ko.xz, .ko.zst or .ko.gz), uncompressed, on stdout.
plain_ko()
{
	case $1 in
	*.xz) xz -dc "$1" ;;
	*.zst) zstd -qdc "$1" ;;
	*.gz) gzip -dc "$1" ;;
	*) cat "$1" ;;
	esac
}

boot_check_on
# What scripts/qemu/grub-boot.sh boots through GRUB: the enable step's
# entries.
mkdir -p "$FP_TOP/build/deb-check"
cp "$work/grub-enable.cfg" "$FP_TOP/build/deb-check/grub-enable.cfg"

log "apt install --reinstall $deb (an upgrade)"
stamp=$work/stamp
touch "$stamp"
sleep 1
DEBIAN_FRONTEND=noninteractive "${FP_APT_INSTALL[@]}" --reinstall "$deb" \
	>"$work/reinstall.log" 2>&1 </dev/null ||
	{ cat "$work/reinstall.log" >&2; die "apt install --reinstall failed"; }
for k in "${boot[@]}"; do
	[ "/boot/initrd.img-$k" -nt "$stamp" ] ||
		bad "upgrade: $k's initramfs not rebuilt (it keeps the old modules)"
	initrd_loads "$k" || bad "upgrade: $k's initramfs does not load flushpol_smmuv3"
	# mkinitramfs decompresses the modules it copies.
	f=$(find "$work/unpacked" -path '*/lib/modules/*' -name 'flushpol_smmuv3.ko*' | head -n 1)
	{ [ -n "$f" ] && plain_ko "$f" >"$work/initrd.ko" &&
	  plain_ko "/lib/modules/$k/updates/dkms/flushpol_smmuv3.ko"* >"$work/dkms.ko" &&
	  cmp -s "$work/initrd.ko" "$work/dkms.ko"; } ||
		bad "upgrade: $k's initramfs holds another flushpol_smmuv3 than dkms installed"
done
gen upgrade
expect upgrade "$work/grub-upgrade.cfg" 1

boot_check_off

rm -rf "$fake"
log "apt remove $pkg, enabled"
DEBIAN_FRONTEND=noninteractive apt-get remove -y -q -o DPkg::Lock::Timeout=900 \
	"$pkg" >"$work/remove.log" 2>&1 </dev/null ||
	{ cat "$work/remove.log" >&2; die "apt remove failed"; }
boot_check_removed "$work/remove.log"
# Its conffiles stay until purged (the .cfg with FLUSHPOL_ENABLE=yes).
st=$(dpkg-query -W -f='${db:Status-Abbrev}' "$pkg" 2>/dev/null) || st=
[ -z "$st" ] || [[ $st == un* ]] || [[ $st == pn* ]] || [[ $st == rc* ]] ||
	die "dpkg still has $pkg as \"$st\" after apt remove"
[ -z "$(dkms status -m flushpol)" ] ||
	die "dkms status after remove: $(dkms status -m flushpol)"
DEBIAN_FRONTEND=noninteractive apt-get purge -y -q -o DPkg::Lock::Timeout=900 \
	"$pkg" >"$work/purge.log" 2>&1 </dev/null ||
	{ cat "$work/purge.log" >&2; die "apt purge failed"; }
for f in "$cfg" /etc/kernel/postinst.d/zz-flushpol /etc/kernel/header_postinst.d/zz-flushpol; do
	[ ! -e "$f" ] || bad "purge left $f"
done

# Put back what dkms' depmod added for kernels without their image.
for k in "${kvers[@]}"; do
	[ -d "/lib/modules/$k/kernel" ] && continue
	for f in "/lib/modules/$k"/modules.*; do
		[ -e "$f" ] || continue
		grep -qxF "$f" "$work/before" || rm -f "$f"
	done
done
snapshot >"$work/after"
diff -u "$work/before" "$work/after" >&2 ||
	die "apt remove left the files above behind (+) or took them (-)"
[ "$failed" -eq 0 ] || die "the steps above that said FAIL"
log "PASS: installed for ${kvers[*]}, ${fake##*/} skipped; on, withheld, upgraded, off and removed on ${boot[*]}; nothing left"
