#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Usage: scripts/qemu/fio-root.sh
#
# Debian's arm64 fio for the busybox guest, with exactly the shared
# libraries it loads, as a directory tree to lay over the guest's root
# (run-guest.sh's GUEST_ROOT_EXTRA).  Prints the directory.
#
# Debian's fio 3.33 has no dynamic ioengines: every engine (rbd, gfapi,
# rdma, nbd, pmem...) is linked into /usr/bin/fio, so the loader needs
# librbd and the rest even for libaio on a block device.  They are found
# the way the loader would: each NEEDED soname of each ELF taken, looked
# up in the packages that ELF's package depends on (Debian's shlibs put
# the provider of every NEEDED there), recursively.  The packages are
# fetched with apt-get download and unpacked with dpkg -x, never
# installed, and cached under ${FLUSHPOL_CACHE}/arm64/fio-VERSION.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/deps.sh
. "$here/../deps.sh"

log() { echo "fio-root: $*" >&2; }
die() { log "$*"; exit 1; }

# prepare.sh adds the arm64 architecture and the host tools (binutils
# come with the cross compiler; its readelf reads any ELF).
"$here/prepare.sh" >/dev/null

cache=${FLUSHPOL_CACHE:-/var/cache/flushpol}/arm64
mkdir -p "$cache"
exec 9>"$cache/.fio-root.lock"
flock 9

ver=$(apt-cache policy fio:arm64 | sed -n 's/^ *Candidate: //p')
if [ -z "$ver" ] || [ "$ver" = "(none)" ]; then
	apt-get update -q >&2 </dev/null
	ver=$(apt-cache policy fio:arm64 | sed -n 's/^ *Candidate: //p')
fi
if [ -z "$ver" ] || [ "$ver" = "(none)" ]; then
	die "no fio:arm64 in apt's lists"
fi
dir=$cache/fio-$ver
key="$ver $(sha256sum "$0" | cut -c1-12)"
if [ "$(cat "$dir/.ready" 2>/dev/null)" = "$key" ]; then
	echo "$dir/root"
	exit 0
fi

# The unpacked packages stay (pkg/): a rerun after a change here
# downloads nothing again.
rm -rf "$dir/root" "$dir/.ready"
mkdir -p "$dir/debs" "$dir/pkg" "$dir/root/usr/bin"

# fetch PKG: download and unpack PKG:arm64 into pkg/PKG, once.
fetch()
{
	local p=$1

	[ -d "$dir/pkg/$p" ] && return 0
	(cd "$dir/debs" &&
	 apt-get download -q -o APT::Sandbox::User=root "$p:arm64" >&2) ||
		die "cannot download $p:arm64"
	dpkg -x "$dir/debs/${p}"_*_arm64.deb "$dir/pkg/$p"
	dpkg-deb -f "$dir/debs/${p}"_*_arm64.deb Depends Pre-Depends |
		sed 's/^[A-Za-z-]*: //' | tr ',' '\n' |
		sed 's/|.*//; s/(.*)//; s/:any//; s/[[:space:]]//g' |
		grep . >"$dir/pkg/$p.deps" || true
	rm -f "$dir/debs/${p}"_*_arm64.deb
}

# find_so SONAME PKG: where SONAME is in PKG's tree (relative to it), or
# nothing.  Where it is matters: librados finds libceph-common in
# .../ceph/ through its RUNPATH.
find_so()
{
	local f

	f=$(cd "$dir/pkg/$2" && find . -name "$1" \( -type f -o -type l \) \
		-path '*/aarch64-linux-gnu/*' | head -n 1)
	[ -n "$f" ] && echo "${f#./}"
}

declare -A have=()	# soname -> package that provides it
queue=()		# "PKG FILE": ELFs whose NEEDED are still to resolve

fetch fio
queue+=("fio $dir/pkg/fio/usr/bin/fio")
cp "$dir/pkg/fio/usr/bin/fio" "$dir/root/usr/bin/fio"
while [ ${#queue[@]} -gt 0 ]; do
	read -r owner elf <<<"${queue[0]}"
	queue=("${queue[@]:1}")
	for so in $(aarch64-linux-gnu-readelf -d "$elf" |
		    sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
		[ -z "${have[$so]:-}" ] || continue
		file=
		# The owner itself, its Depends in order, and libc6 (the
		# loader's).
		for p in "$owner" $(cat "$dir/pkg/$owner.deps") libc6; do
			case $p in
			lib*|zlib1g) ;;
			*) continue ;;	# python3, init-system-helpers...
			esac
			fetch "$p"
			file=$(find_so "$so" "$p") && break
		done
		[ -n "$file" ] || die "$so (NEEDED by $elf) is in no dependency of $owner"
		have[$so]=$p
		mkdir -p "$dir/root/${file%/*}"
		cp -L "$dir/pkg/$p/$file" "$dir/root/$file"
		queue+=("$p $dir/root/$file")
		log "$so from $p"
	done
done

# The interpreter fio names (PT_INTERP), where it names it.
interp=$(aarch64-linux-gnu-readelf -l "$dir/root/usr/bin/fio" |
	 sed -n 's/.*Requesting program interpreter: \(.*\)\]/\1/p')
[ -n "$interp" ] || die "no PT_INTERP in fio"
if [ ! -e "$dir/root$interp" ]; then
	mkdir -p "$dir/root${interp%/*}"
	cp -L "$dir/pkg/libc6/$(find_so "${interp##*/}" libc6)" "$dir/root$interp"
fi
rm -rf "$dir/debs"
log "fio $ver and ${#have[@]} libraries," \
    "$(du -sh "$dir/root" | cut -f1) in $dir/root"
echo "$key" >"$dir/.ready"
echo "$dir/root"
