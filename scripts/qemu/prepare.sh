#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Usage: scripts/qemu/prepare.sh
#
# Gets everything the arm64 QEMU rig needs and prints, as sourceable
# KEY=value lines (also kept in $dir/env), where it is:
#   KVER     the arm64 kernel release: with FP_KVER=6.12 (the default)
#            Debian's 6.12 of scripts/deps.sh, with FP_KVER=6.12-rt its
#            PREEMPT_RT flavour (-rt-arm64), with FP_KVER=6.1 bookworm's
#            6.1, the ABI of the host's linux-headers-amd64 (the newest
#            point release apt knows); FLUSHPOL_ARM64_KVER names any
#            other bookworm release exactly.  Debian 13's kernels:
#            FP_KVER=6.12+deb13 trixie's 6.12 (what its
#            linux-headers-amd64 points at), FP_KVER=7.x the newest 7.x
#            of trixie-backports, chosen now and printed on stderr
#   ROOT     for Debian 13's kernels, the trixie root they build in
#            (scripts/trixie-root.sh): KDIR's scripts are its
#            linux-kbuild, linked against trixie's libc, and its compiler
#            is trixie's gcc-14; empty for Debian 12's
#   ENVFILE  this output's file, for scripts re-run inside ROOT
#   IMAGE    its Image (Debian's vmlinuz-*-arm64 is a plain Image)
#   MODDIR   its /lib/modules/KVER as packaged (modules.builtin etc.)
#   KDIR     its headers, ready for an amd64-hosted cross build
#   BUSYBOX  a static arm64 busybox, the guest's userland
# and exports the DEB_* variables Debian's headers read to cross-build.
#
# Host packages are installed when missing.  The arm64 packages are only
# downloaded and unpacked (dpkg -x) under ${FLUSHPOL_CACHE}/arm64/KVER:
# installing them would give the host an arm64 kernel to manage.  A rerun
# with the same package version and this same script does nothing.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/deps.sh
. "$here/../deps.sh"

log() { echo "qemu-prepare: $*" >&2; }

# Inside a build root (lib.sh's fp_in_root): prepared already, outside.
if [ -n "${FP_PREPARED_ENV:-}" ]; then
	cat "$FP_PREPARED_ENV"
	exit 0
fi

# One kernel for both architectures: the amd64 ABI name with -arm64.
case ${FP_KVER:-6.12} in
6.12) kver=${FP_KVER_612%-amd64}-arm64 ;;
6.12-rt) kver=${FP_KVER_612%-amd64}-rt-arm64 ;;
6.1)
	# The 6.1 ABI (6.1.0-N) follows bookworm's point releases: take
	# the one the host's amd64 headers metapackage points at.
	fp_apt_install linux-headers-amd64 >&2
	kver=$(dpkg-query -W -f='${Depends}' linux-headers-amd64 |
	       grep -oE 'linux-headers-6\.1\.0-[0-9]+-amd64' | head -n 1)
	[ -n "$kver" ] || { log "no 6.1 ABI in linux-headers-amd64"; exit 1; }
	kver=${kver#linux-headers-}
	kver=${kver%-amd64}-arm64
	;;
6.12+deb13 | 7.x) kver= ;;
*) log "FP_KVER=$FP_KVER: 6.1, 6.12, 6.12-rt, 6.12+deb13 or 7.x"; exit 1 ;;
esac
if [ -z "$kver" ]; then
	exec "$here/prepare-trixie.sh"
fi
kver=${FLUSHPOL_ARM64_KVER:-$kver}
abi=${kver%-arm64}
abi=${abi%-rt}				# e.g. 6.12.117+deb12, 6.1.0-57
# The rt flavour's headers have arch-independent halves of their own.
common=linux-headers-$abi-common
[ "${kver%-rt-arm64}" = "$kver" ] || common+=-rt
# Bookworm's own 6.1 has one kbuild package per upstream series; the 6.12
# backport has one per ABI.
case $abi in
6.1.0-*) kbuild=linux-kbuild-6.1 ;;
*) kbuild=linux-kbuild-$abi ;;
esac
dir=${FLUSHPOL_CACHE:-/var/cache/flushpol}/arm64/$kver

# Parallel runs share the cache: one of them prepares, the others wait.
mkdir -p "${dir%/*}"
exec 9>"${dir%/*}/.prepare.lock"
flock 9

# First, so that the apt-get update fp_apt_install may run fetches the
# arm64 package lists too.
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
	log "adding dpkg architecture arm64"
	dpkg --add-architecture arm64
fi

# Host side: the emulator, its UEFI firmware (FP_FIRMWARE=acpi in
# run-guest.sh), the cross compiler, and the arch-independent
# halves of the headers (the arm64 headers' Makefile includes
# /usr/src/linux-headers-$abi-common; its scripts/ are host binaries
# from linux-kbuild, which also pulls in pahole for BTF).
fp_apt_install qemu-system-arm qemu-efi-aarch64 gcc-aarch64-linux-gnu dkms kmod cpio \
	"$common" "$kbuild" >&2

# The arm64 pieces must be the exact version of those host halves.
ver=$(dpkg-query -W -f='${Version}' "$common")
# Keyed by the layout of what is unpacked (bump it when that changes), not
# by this script's text: worktrees with other versions of the script share
# the cache, and a rerun empties the directory under the others' builds.
key="$ver layout 2"
if [ "$(cat "$dir/.prepared" 2>/dev/null)" != "$key" ]; then
	pkgs=("linux-image-$kver-unsigned:arm64=$ver"
	      "linux-headers-$kver:arm64=$ver" busybox-static:arm64)
	log "downloading ${pkgs[*]}"
	rm -rf "$dir"
	mkdir -p "$dir/debs"
	# As root into a root-owned directory: without the option apt warns
	# that its _apt sandbox user cannot write there.
	dl() (cd "$dir/debs" &&
	      apt-get download -q -o APT::Sandbox::User=root "${pkgs[@]}" >&2)
	# Failing, apt's lists may lack arm64 (just added) or be too old.
	if ! dl; then
		log "apt-get update and retry"
		apt-get update -q >&2 </dev/null
		dl
	fi
	for d in image:linux-image headers:linux-headers busybox:busybox-static; do
		dpkg -x "$dir"/debs/"${d#*:}"[-_]*.deb "$dir/${d%%:*}"
	done
	rm -rf "$dir/debs"

	# The headers' scripts and tools link to ../../lib/$kbuild,
	# which is not in this prefix: point them at the host's kbuild.
	k=$dir/headers/usr/src/linux-headers-$kver
	for l in scripts tools; do
		ln -sfn "/usr/lib/$kbuild/$l" "$k/$l"
	done

	{
		printf 'KVER=%q\n' "$kver"
		printf 'IMAGE=%q\n' "$dir/image/boot/vmlinuz-$kver"
		printf 'MODDIR=%q\n' "$dir/image/lib/modules/$kver"
		printf 'KDIR=%q\n' "$k"
		printf 'BUSYBOX=%q\n' "$dir/busybox/bin/busybox"
		# What a Debian cross build says: 6.12's headers set
		# CROSS_COMPILE regardless, 6.1's only when the build and
		# host architectures differ.
		printf 'export DEB_BUILD_ARCH=%q DEB_HOST_ARCH=arm64 DEB_HOST_GNU_TYPE=aarch64-linux-gnu\n' \
			"$(dpkg --print-architecture)"
	} >"$dir/env"
	# shellcheck source=/dev/null
	. "$dir/env"
	for f in "$IMAGE" "$MODDIR/modules.builtin" "$KDIR/.config" \
		 "$KDIR/scripts/mod/modpost" "$BUSYBOX"; do
		[ -e "$f" ] || { log "missing after unpacking: $f"; exit 1; }
	done
	echo "$key" >"$dir/.prepared"
	log "ready in $dir"
fi
cat "$dir/env"
# Debian 12's kernels build on this host (env files of the same layout
# key written before these lines existed lack them).
echo "ROOT="
