#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Usage: scripts/qemu/prepare.sh
#
# Gets everything the arm64 QEMU rig needs and prints, as sourceable
# KEY=value lines (also kept in $dir/env), where it is:
#   KVER     the arm64 kernel release, Debian's 6.12 of scripts/deps.sh
#   IMAGE    its Image (Debian's vmlinuz-*-arm64 is a plain Image)
#   MODDIR   its /lib/modules/KVER as packaged (modules.builtin etc.)
#   KDIR     its headers, ready for an amd64-hosted cross build
#   BUSYBOX  a static arm64 busybox, the guest's userland
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

# One kernel for both architectures: the amd64 ABI name with -arm64.
kver=${FLUSHPOL_ARM64_KVER:-${FP_KVER_612%-amd64}-arm64}
abi=${kver%-arm64}			# e.g. 6.12.117+deb12
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

# Host side: the emulator, the cross compiler, and the arch-independent
# halves of the headers (the arm64 headers' Makefile includes
# /usr/src/linux-headers-$abi-common; its scripts/ are host binaries
# from linux-kbuild, which also pulls in pahole for BTF).
fp_apt_install qemu-system-arm gcc-aarch64-linux-gnu dkms kmod cpio \
	"linux-headers-$abi-common" "linux-kbuild-$abi" >&2

# The arm64 pieces must be the exact version of those host halves.
ver=$(dpkg-query -W -f='${Version}' "linux-headers-$abi-common")
key="$ver $(sha256sum "$0" | cut -c1-12)"
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

	# The headers' scripts and tools link to ../../lib/linux-kbuild-$abi,
	# which is not in this prefix: point them at the host's kbuild.
	k=$dir/headers/usr/src/linux-headers-$kver
	for l in scripts tools; do
		ln -sfn "/usr/lib/linux-kbuild-$abi/$l" "$k/$l"
	done

	{
		printf 'KVER=%q\n' "$kver"
		printf 'IMAGE=%q\n' "$dir/image/boot/vmlinuz-$kver"
		printf 'MODDIR=%q\n' "$dir/image/lib/modules/$kver"
		printf 'KDIR=%q\n' "$k"
		printf 'BUSYBOX=%q\n' "$dir/busybox/bin/busybox"
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
