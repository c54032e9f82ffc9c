#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Usage: FP_KVER=6.12+deb13|7.x scripts/qemu/prepare-trixie.sh
#
# prepare.sh for Debian 13's kernels (it runs this), with the same output
# and cache layout, and ROOT the trixie root they are built in
# (scripts/trixie-root.sh):
#   6.12+deb13  trixie's 6.12, the ABI its linux-headers-amd64 points at
#   7.x         the newest 7.x ABI in trixie-backports today (printed)
# Into the root go the kernel's amd64 headers (with its linux-kbuild and
# headers-common, which the arm64 headers use too): what DKMS builds for
# amd64 there, through the .deb.  The arm64 image, headers and a static
# busybox are downloaded there and unpacked under
# ${FLUSHPOL_CACHE}/arm64/KVER, as for Debian 12's kernels; the headers'
# scripts/ and tools/ point at /usr/lib/linux-kbuild-ABI, which exists in
# the root only: what builds against KDIR runs in the root (lib.sh's
# fp_in_root).
# shellcheck disable=SC2016 # dpkg's ${Field}s and inner shells' "$1"
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/deps.sh
. "$here/../deps.sh"

log() { echo "qemu-prepare: $*" >&2; }
die() { log "$*"; exit 1; }

root=$("$here/../trixie-root.sh")
in_root() { "$here/../trixie-root.sh" run "$@"; }

case $FP_KVER in
6.12+deb13)
	abi=$(in_root apt-cache depends linux-headers-amd64 |
	      grep -oE 'linux-headers-6\.12\.[0-9]+\+deb13[^ ]*-amd64' | head -n 1) ||
		die "trixie's linux-headers-amd64 names no 6.12 ABI"
	release=trixie
	;;
7.x)
	abi=$(in_root apt-cache pkgnames linux-headers-7. |
	      grep -E '^linux-headers-7\.[0-9]+\.[0-9]+[^-]*-amd64$' |
	      sort -V | tail -n 1) ||
		die "trixie-backports has no linux-headers-7.*-amd64"
	release=trixie-backports
	;;
*) die "FP_KVER=$FP_KVER: 6.12+deb13 or 7.x" ;;
esac
abi=${abi#linux-headers-}
abi=${abi%-amd64}
kver=$abi-arm64
log "FP_KVER=$FP_KVER: Debian's $kver ($release)"
dir=${FLUSHPOL_CACHE:-/var/cache/flushpol}/arm64/$kver

mkdir -p "${dir%/*}"
exec 9>"${dir%/*}/.prepare.lock"
flock 9

# The host runs the guest; the root builds for it.
fp_apt_install qemu-system-arm cpio kmod >&2
if ! in_root dpkg-query -W -f='${Status}' "linux-headers-$abi-amd64" 2>/dev/null |
     grep -q 'ok installed'; then
	log "installing linux-headers-$abi-amd64 in the trixie root"
	in_root apt-get install -y -q --no-install-recommends \
		-o DPkg::Lock::Timeout=900 \
		"linux-headers-$abi-amd64/$release" >&2 </dev/null
fi
ver=$(in_root dpkg-query -W -f='${Version}' "linux-headers-$abi-common")
key="$ver $root layout 1"
if [ "$(cat "$dir/.prepared" 2>/dev/null)" != "$key" ]; then
	# The kernel: trixie's 6.12 is linux-image-KVER-unsigned (signed
	# from another source); 7.x splits it into the files the image
	# package depends on: base, binary (Image), modules.
	image=()
	for p in "linux-image-$kver-unsigned" "linux-base-$kver" \
		 "linux-binary-unsigned-$kver" "linux-modules-$kver"; do
		if in_root apt-cache show "$p:arm64=$ver" >/dev/null 2>&1; then
			image+=("$p:arm64=$ver")
		fi
	done
	[ ${#image[@]} -gt 0 ] || die "no arm64 image packages for $kver ($ver)"
	pkgs=("${image[@]}" "linux-headers-$kver:arm64=$ver" busybox-static:arm64)
	log "downloading ${pkgs[*]} (trixie root's apt)"
	rm -rf "$dir"
	mkdir -p "$dir/debs/image" "$dir/debs/headers" "$dir/debs/busybox"
	get() (d=$1; shift; in_root /bin/sh -c 'cd "$1" && shift && \
	       apt-get download -q -o APT::Sandbox::User=root "$@"' sh "$d" "$@" >&2)
	get "$dir/debs/image" "${image[@]}"
	get "$dir/debs/headers" "linux-headers-$kver:arm64=$ver"
	get "$dir/debs/busybox" busybox-static:arm64
	for d in image headers busybox; do
		for f in "$dir/debs/$d"/*.deb; do
			dpkg -x "$f" "$dir/$d"
		done
	done
	rm -rf "$dir/debs"

	k=$dir/headers/usr/src/linux-headers-$kver
	for l in scripts tools; do
		ln -sfn "/usr/lib/linux-kbuild-$abi/$l" "$k/$l"
	done
	# 7.x's headers insist on being where their package puts them.
	ln -sfn "$k" "$root/usr/src/linux-headers-$kver"

	# Trixie's packages install under /usr (busybox, 7.x's modules);
	# 7.x's keep the Image beside the modules.
	m=$dir/image/lib/modules/$kver
	[ -d "$m" ] || m=$dir/image/usr/lib/modules/$kver
	img=$dir/image/boot/vmlinuz-$kver
	[ -e "$img" ] || img=$m/vmlinuz.unsigned
	{
		printf 'KVER=%q\n' "$kver"
		printf 'IMAGE=%q\n' "$img"
		printf 'MODDIR=%q\n' "$m"
		printf 'KDIR=%q\n' "$k"
		printf 'BUSYBOX=%q\n' "$dir/busybox/usr/bin/busybox"
		printf 'export DEB_BUILD_ARCH=amd64 DEB_HOST_ARCH=arm64 DEB_HOST_GNU_TYPE=aarch64-linux-gnu\n'
		printf 'ROOT=%q\n' "$root"
		printf 'ENVFILE=%q\n' "$dir/env"
	} >"$dir/env"
	# shellcheck source=/dev/null
	. "$dir/env"
	# shellcheck disable=SC2153 # the env file's
	for f in "$IMAGE" "$MODDIR/modules.builtin" "$KDIR/.config" \
		 "$BUSYBOX" "$root/usr/lib/linux-kbuild-$abi/scripts/mod/modpost"; do
		[ -e "$f" ] || die "missing after unpacking: $f"
	done
	echo "$key" >"$dir/.prepared"
	log "ready in $dir"
fi
cat "$dir/env"
