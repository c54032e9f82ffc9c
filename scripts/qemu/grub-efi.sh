#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Usage: scripts/qemu/grub-efi.sh
#
# Builds a real arm64 GRUB EFI application, the BOOTAA64.EFI a removable
# disk boots through UEFI, and prints its path.  The modules are Debian's
# grub-efi-arm64-bin:arm64 of the same version as the host's grub-common
# (only downloaded and unpacked with dpkg -x: it is an arm64 package), put
# together by the host's grub-mkstandalone -O arm64-efi.  Its embedded
# configuration finds the disk that holds /grub/grub.cfg and reads that
# file, as Debian's signed GRUB reads the one update-grub writes.
# Kept in ${FLUSHPOL_CACHE}/grub-arm64/VERSION; a rerun does nothing.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/deps.sh
. "$here/../deps.sh"

log() { echo "grub-efi: $*" >&2; }
die() { log "$*"; exit 1; }

fp_apt_install grub-common >&2
ver=$(dpkg-query -W -f='${Version}' grub-common)
dir=${FLUSHPOL_CACHE:-/var/cache/flushpol}/grub-arm64/$ver
efi=$dir/BOOTAA64.EFI

mkdir -p "${dir%/*}"
exec 9>"${dir%/*}/.lock"
flock 9
# GRUB's own first steps, in the image: it loads no partition map or file
# system module of itself before a configuration file is read.
embedded=$(cat <<'EOF'
insmod part_msdos
insmod part_gpt
insmod fat
search --no-floppy --file --set=root /grub/grub.cfg
configfile ($root)/grub/grub.cfg
EOF
)
mods=$dir/pkg/usr/lib/grub/arm64-efi
if [ ! -f "$mods/linux.mod" ]; then
	if ! dpkg --print-foreign-architectures | grep -qx arm64; then
		log "adding dpkg architecture arm64"
		dpkg --add-architecture arm64
	fi
	rm -rf "$dir"
	mkdir -p "$dir/debs"
	pkg=grub-efi-arm64-bin:arm64=$ver
	log "downloading $pkg"
	# As root into a root-owned directory: see prepare.sh.
	dl() (cd "$dir/debs" &&
	      apt-get download -q -o APT::Sandbox::User=root "$pkg" >&2)
	if ! dl; then
		log "apt-get update and retry"
		apt-get update -q >&2 </dev/null
		dl
	fi
	dpkg-deb -x "$dir"/debs/grub-efi-arm64-bin_*.deb "$dir/pkg"
	rm -rf "$dir/debs"
	[ -f "$mods/linux.mod" ] || die "no linux.mod in $mods"
fi
# Made again when the embedded configuration is not this one.
if [ ! -s "$efi" ] || [ "$(cat "$dir/embedded.cfg" 2>/dev/null)" != "$embedded" ]; then
	printf '%s\n' "$embedded" >"$dir/embedded.cfg"
	grub-mkstandalone -O arm64-efi --directory="$mods" \
		--locales= --fonts= --themes= -o "$efi.tmp" \
		"boot/grub/grub.cfg=$dir/embedded.cfg" >&2
	mv "$efi.tmp" "$efi"
	log "built $efi"
fi
echo "$efi"
