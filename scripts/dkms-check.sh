#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Usage: scripts/dkms-check.sh [KVER...]
#        scripts/dkms-check.sh --skips-only
#
# Does what a user does with the DKMS package -- add, build, install -- for
# each kernel (default: Debian's 6.12 and the newest installed 6.1), checks
# the installed modules, then removes everything again so a rerun starts
# clean.  Installs missing linux-headers packages.  Needs root: it writes
# /usr/src, /var/lib/dkms and /lib/modules.  Any flushpol of the same
# version already in DKMS is removed first and not put back.
#
# Then the same two releases for arm64 (FP_DKMS_ARM64="KVER..." names
# others, "" none): scripts/qemu/dkms-install.sh cross-builds the
# flushpol-dkms package's sources with dkms into a staging root of its
# own, and dkms status there must say installed, without warnings.
# Last, kernels flushpol does not support: fake headers (a .config) below
# 6.1, without CONFIG_IOMMU_API, and arm64 without
# CONFIG_IOMMU_IO_PGTABLE_LPAE; dkms must skip each (exit 77) and print
# why.  --skips-only runs only those: make check builds the same kernels
# through the package instead (deb-check.sh for amd64, both e2e runs for
# arm64), and one build per kernel is enough.

# shellcheck disable=SC2317 # cleanup and its helpers run from the EXIT trap
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/deps.sh
. "$here/deps.sh"
# shellcheck source=scripts/lib.sh
. "$here/lib.sh"

log() { echo "dkms-check: $*" >&2; }
die() { log "$*"; exit 1; }

[ "$(id -u)" -eq 0 ] || die "must run as root"
fp_host_dkms_lock
command -v dkms >/dev/null || fp_apt_install dkms

pkg=flushpol
ver=$(fp_version) || die "no PACKAGE_VERSION=\"...\" line in dkms.conf"
# The package's registration is the same flushpol/VER: removing it (below)
# would break the machine's package.  scripts/deb-check.sh removes its
# own before it lets go of the lock.
st=$(dpkg-query -W -f='${db:Status-Abbrev}' flushpol-dkms 2>/dev/null) || st=
[[ $st != ii* ]] || die "flushpol-dkms is installed: apt remove it first"
src=/usr/src/$pkg-$ver
arch=$(uname -m)
# dkms keeps its tree where framework.conf says (default /var/lib/dkms).
dkms_tree=$(dkms_tree=/var/lib/dkms
	    for f in /etc/dkms/framework.conf /etc/dkms/framework.conf.d/*.conf; do
		    # shellcheck source=/dev/null
		    if [ -r "$f" ]; then . "$f" >/dev/null; fi
	    done
	    echo "$dkms_tree")
# The .ko files dkms.conf promises, in its record order.
mapfile -t modules < <(sed -n 's/^BUILT_MODULE_NAME\[[0-9]*\]="\([^"]*\)".*/\1/p' \
			      "$FP_TOP/dkms.conf")
[ ${#modules[@]} -gt 0 ] || die "no BUILT_MODULE_NAME[] in dkms.conf"

# Debian 6.1 headers of the newest ABI installed, e.g. 6.1.0-57-amd64.
newest_61()
{
	local d
	for d in /usr/src/linux-headers-6.1.*-amd64 /lib/modules/6.1.*-amd64/build; do
		[ -e "$d/Makefile" ] || continue
		d=${d%/build}
		d=${d##*/}
		echo "${d#linux-headers-}"
	done | grep -E '^6\.1\.[0-9]+-[0-9]+-amd64$' | sort -uV | tail -n 1 | grep .
}

skips_only=
if [ "${1:-}" = --skips-only ]; then
	skips_only=1
	kvers=()
elif [ $# -gt 0 ]; then
	kvers=("$@")
else
	k61=$(newest_61) || { fp_apt_install linux-headers-amd64; k61=$(newest_61); } ||
		die "no Debian 6.1 amd64 headers even after installing linux-headers-amd64"
	kvers=("$FP_KVER_612" "$k61")
fi
# The arm64 releases: Debian builds each ABI for both architectures.
read -r -a arm64_kvers <<<"${FP_DKMS_ARM64-${FP_KVER_612%-amd64}-arm64 ${k61:+${k61%-amd64}-arm64}}"
[ -z "$skips_only" ] || arm64_kvers=()

remove_ours()
{
	if [ -n "$(dkms status -m "$pkg" -v "$ver" 2>/dev/null)" ]; then
		dkms remove -m "$pkg" -v "$ver" --all ||
			log "dkms remove $pkg/$ver failed; see $dkms_tree/$pkg"
	fi
	rm -rf "$src"
}

# A kernel whose image is not installed has a /lib/modules/KVER made by the
# headers package (the build symlink) but no modules.* until our install
# runs depmod there.  Put such directories back as they were.
undo_depmod()
{
	local kver f
	for kver in "${kvers[@]}"; do
		[ -f "$work/$kver.before" ] || continue
		for f in "/lib/modules/$kver"/modules.*; do
			[ -e "$f" ] || continue
			grep -qxF "${f##*/}" "$work/$kver.before" || rm -f "$f"
		done
	done
}

cleanup()
{
	local rc=$?
	trap - EXIT
	log "cleaning up"
	remove_ours
	undo_depmod
	rm -rf "$work"
	exit "$rc"
}
work=$(mktemp -d /tmp/flushpol-dkms.XXXXXX)
trap cleanup EXIT
trap 'exit 130' INT TERM

# Headers first: the headers' own dkms hook would build our module behind
# our back if it were already added when they get installed.
remove_ours
for kver in "${kvers[@]}"; do
	if [ ! -e "/lib/modules/$kver/build/Makefile" ]; then
		fp_apt_install "linux-headers-$kver" ||
			log "could not install linux-headers-$kver"
	fi
done

log "adding $pkg/$ver from a clean export of $FP_TOP"
fp_export_tree "$src"
dkms add -m "$pkg" -v "$ver"

fail()
{
	echo "$*" >"$work/$kver.reason"
	log "$kver: $*"
	exit 1
}

# modinfo field $2 of file $1; fails the kernel if empty.
field()
{
	local v
	v=$(modinfo -F "$2" "$1") || fail "modinfo cannot read $1"
	[ -n "$v" ] || fail "${1##*/}: no $2"
	echo "$v"
}

check_kernel()
{
	local kver=$1 m built inst lic vm parm st rc

	[ -e "/lib/modules/$kver/build/Makefile" ] ||
		fail "no headers in /lib/modules/$kver/build (linux-headers-$kver)"

	ls -1 "/lib/modules/$kver" >"$work/$kver.before"
	if [ ! -d "/lib/modules/$kver/kernel" ]; then
		log "$kver: linux-image-$kver is not installed.  dkms install" \
		    "still copies the modules into /lib/modules/$kver and" \
		    "runs depmod, as it would for headers installed before the" \
		    "image; nothing here can load them."
	else
		rm -f "$work/$kver.before"	# a real kernel: leave depmod's work
	fi

	rc=0
	dkms build -m "$pkg" -v "$ver" -k "$kver" || rc=$?
	if [ "$rc" -eq 77 ]; then
		fail "dkms skipped the kernel (BUILD_EXCLUSIVE_*: the reason is above)"
	elif [ "$rc" -ne 0 ]; then
		if [ -f "$dkms_tree/$pkg/$ver/build/make.log" ]; then
			cat "$dkms_tree/$pkg/$ver/build/make.log" >&2
		fi
		fail "dkms build failed ($rc)"
	fi
	dkms install -m "$pkg" -v "$ver" -k "$kver" || fail "dkms install failed"

	st=$(dkms status -m "$pkg" -v "$ver" -k "$kver")
	grep -q ': installed' <<<"$st" || fail "dkms status says: $st"

	for m in "${modules[@]}"; do
		built=$(compgen -G "$dkms_tree/$pkg/$ver/$kver/$arch/module/$m.ko*") ||
			fail "$m.ko not built"
		[ "$(wc -l <<<"$built")" -eq 1 ] || fail "several $m.ko*: $built"

		# What depmod resolves the name to must be our copy.
		inst=$(modinfo -k "$kver" -F filename "$m") ||
			fail "$m is not in /lib/modules/$kver/modules.dep"
		cmp -s "$built" "$inst" ||
			fail "$inst differs from dkms' built copy $built"

		lic=$(field "$built" license)
		[ "$lic" = GPL ] || fail "$m: license \"$lic\", want GPL"
		field "$built" description >/dev/null
		vm=$(field "$built" vermagic)
		[ "${vm%% *}" = "$kver" ] || fail "$m: vermagic \"$vm\""
		if [ "$m" = flushpol ]; then
			parm=$(modinfo -F parm "$built")
			grep -q '^default_policy:' <<<"$parm" ||
				fail "flushpol: no default_policy parameter"
		fi
		log "$kver: $m ok: $inst"
	done
}

failed=0
declare -A result
for kver in "${kvers[@]}"; do
	log "=== $kver ==="
	# Not "(...) || rc=$?": that would switch off set -e in the subshell.
	set +e
	(set -e; check_kernel "$kver")
	rc=$?
	set -e
	if [ "$rc" -eq 0 ]; then
		result[$kver]="PASS"
	else
		result[$kver]="FAIL: $(cat "$work/$kver.reason" 2>/dev/null ||
				      echo "exit $rc")"
		failed=1
	fi
done

# arm64: what scripts/qemu/dkms-install.sh does for the QEMU guest, in a
# staging root per kernel under $work.  The package is built once.
if [ ${#arm64_kvers[@]} -gt 0 ]; then
	deb=$("$here/deb.sh") || die "make deb failed"
fi
mkdir -p "$work/arm64"
for kver in "${arm64_kvers[@]}"; do
	log "=== $kver (arm64, cross) ==="
	out=$work/arm64/$kver
	if ! FLUSHPOL_ARM64_KVER=$kver FLUSHPOL_QEMU_OUT=$out FLUSHPOL_DEB=$deb \
	     "$here/qemu/dkms-install.sh" >"$out.dest" 2>"$out.log"; then
		tail -n 40 "$out.log" >&2
		result[$kver]="FAIL: scripts/qemu/dkms-install.sh, log above"
		failed=1
		continue
	fi
	st=$(dkms status -m "$pkg" --dkmstree "$out/dkms/tree" \
	     --sourcetree "$out/dkms/src" --installtree "$out/sysroot/lib/modules" 2>&1)
	log "$kver: dkms status: $st"
	if [ "$st" != "$pkg/$ver, $kver, aarch64: installed" ]; then
		result[$kver]="FAIL: dkms status says: $st"
		failed=1
		continue
	fi
	result[$kver]="PASS ($(find "$(cat "$out.dest")" -name '*.ko*' | wc -l) modules)"
	kvers+=("$kver")
done

# Kernels dkms must skip, and say why: fake headers, a .config only.  A
# private dkms tree; the build stops before it needs any more headers.
skip_check()
{
	local kver=$1 arch=$2 config=$3 want=$4 t=$work/skip/$1 rc=0

	mkdir -p "$t/headers" "$t/tree"
	echo "$config" >"$t/headers/.config"
	dkms build -m "$pkg" -v "$ver" -k "$kver" -a "$arch" \
		--kernelsourcedir "$t/headers" --dkmstree "$t/tree" \
		--sourcetree "${src%/*}" >"$t/out" 2>"$t/err" || rc=$?
	cat "$t/err" >&2
	if [ "$rc" -ne 77 ]; then
		result[$kver]="FAIL: dkms build exited $rc, not 77 (skipped)"
		failed=1
	elif ! grep -qF "flushpol: skipping kernel $kver: $want" "$t/err"; then
		result[$kver]="FAIL: skipped without saying \"$want\""
		failed=1
	else
		result[$kver]="PASS (skipped: $want)"
	fi
	kvers+=("$kver")
}
log "=== kernels to skip ==="
skip_check 5.10.0-99-amd64 x86_64 CONFIG_IOMMU_API=y \
	"flushpol needs Linux 6.1 or newer"
skip_check 6.0.0-99-amd64 x86_64 CONFIG_IOMMU_API=y \
	"flushpol needs Linux 6.1 or newer"
skip_check 6.1.0-99-amd64 x86_64 CONFIG_IOMMU_IO_PGTABLE=y \
	"CONFIG_IOMMU_API is not set"
skip_check 6.1.0-99-arm64 aarch64 CONFIG_IOMMU_API=y \
	"CONFIG_IOMMU_IO_PGTABLE_LPAE is not set"

for kver in "${kvers[@]}"; do
	echo "dkms-check: $kver: ${result[$kver]}"
done
exit "$failed"
