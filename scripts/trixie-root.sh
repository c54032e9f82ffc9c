#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Usage: scripts/trixie-root.sh            prints the root's directory
#        scripts/trixie-root.sh run CMD... runs CMD inside it
#
# The build environment for Debian 13's kernels: a minimal trixie root
# (mmdebstrap, from Debian's archive) with trixie-updates, -security and
# -backports, holding dkms, debhelper and dh-dkms, the aarch64 cross
# compiler and trixie's amd64 kernel headers.  A kernel's headers want the
# userland and compiler of the release that built them (linux-kbuild-* is
# linked against that release's glibc, gcc-14 flags are in its .config),
# and the bookworm host must not get trixie packages mixed into it.
#
# Cached under $FLUSHPOL_CACHE (default /var/cache/flushpol) as
# trixie-root-KEY, KEY a hash of $recipe below (bump it when a change here
# changes what is installed), one builder at a time, like the kernels.
# "run" binds /proc, /sys, /dev, the cache and this tree at their own
# paths, in a private mount namespace: nothing stays mounted when it ends.
# Packages other scripts need later (the backports headers) are installed
# into the root with "run apt-get install"; its package lists are
# refreshed when older than $FP_TRIXIE_LISTS_MAX_AGE seconds (default 12
# hours), so "the newest 7.x" is the archive's of today.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/deps.sh
. "$top/scripts/deps.sh"
cache=${FLUSHPOL_CACHE:-/var/cache/flushpol}
mirror=http://deb.debian.org/debian

pkgs=(build-essential dkms dh-dkms debhelper kmod cpio xz-utils zstd
      openssl git ca-certificates gcc-aarch64-linux-gnu
      binutils-aarch64-linux-gnu linux-headers-amd64)
recipe="trixie-root 1: mmdebstrap --variant=apt amd64,arm64 main ${pkgs[*]}"
key=$(echo "$recipe" | sha256sum | cut -c1-12)
root=$cache/trixie-root-$key

log() { echo "trixie-root: $*" >&2; }

# Runs "$@" chrooted in $root, with the host's paths it needs bound.
in_root()
{
	# shellcheck disable=SC2016 # expanded by the inner shell
	unshare -m --propagation private -- /bin/sh -ec '
		root=$1; shift
		for d in /proc /sys /dev "$FP_CACHE_DIR" "$FP_TOP_DIR" $FP_GIT_DIR; do
			mkdir -p "$root$d"
			mount --rbind "$d" "$root$d"
		done
		cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
		exec chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
			HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive \
			${FP_ROOT_ENV:-} "$@"' sh "$root" "$@"
}

mkdir -p "$cache"
exec 9>"$cache/.trixie-root.lock"
flock 9
if [ ! -f "$root/.flushpol-built" ]; then
	fp_apt_install mmdebstrap >&2
	log "creating the trixie root in $root (a few minutes)"
	rm -rf "$root" "$root.tmp"
	mkdir -p "$root.tmp"
	mmdebstrap --variant=apt --architectures=amd64,arm64 \
		--components=main --include="$(IFS=,; echo "${pkgs[*]}")" \
		--aptopt='APT::Install-Recommends "false"' \
		--aptopt='Acquire::Retries "3"' \
		trixie "$root.tmp" \
		"deb $mirror trixie main" \
		"deb $mirror trixie-updates main" \
		"deb $mirror trixie-backports main" \
		"deb http://deb.debian.org/debian-security trixie-security main" >&2
	mv "$root.tmp" "$root"
	touch "$root/.flushpol-built"
	log "ready: $root"
fi

# The git directory too, where it is not under the tree (a worktree's):
# fp_export_tree lists the tree's files with git.
FP_GIT_DIR=$(git -C "$top" rev-parse --path-format=absolute --git-common-dir 2>/dev/null) || FP_GIT_DIR=
[[ $FP_GIT_DIR != "$top"/* ]] || FP_GIT_DIR=
export FP_CACHE_DIR=$cache FP_TOP_DIR=$top FP_GIT_DIR
# mmdebstrap leaves no package lists behind: the first update is here.
stamp=$root/.flushpol-apt-updated
age=$(( $(date +%s) - $(stat -c %Y "$stamp" 2>/dev/null || echo 0) ))
if [ "$age" -gt "${FP_TRIXIE_LISTS_MAX_AGE:-43200}" ]; then
	log "apt-get update in the root (lists $age s old)"
	in_root apt-get update -q >&2 </dev/null
	touch "$stamp"
fi
flock -u 9

if [ "${1:-}" = run ]; then
	shift
	in_root "$@"
else
	echo "$root"
fi
