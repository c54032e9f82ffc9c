#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Usage: scripts/deb-check.sh
#
# What a user does with the package, on this host: make deb, then
#   apt install ./build/deb/flushpol-dkms_<version>_all.deb
# and checks that dkms status shows flushpol installed for every kernel
# with headers in /lib/modules, that a kernel below 6.1 is skipped with
# the reason printed (a fake one: /lib/modules/5.10.0-0-flushpol-fake with
# a build/ of an include/ and a .config), then
#   apt remove flushpol-dkms
# and checks that /usr/src, /var/lib/dkms and /lib/modules hold the same
# files as before.  Needs root.  Refuses to run if flushpol-dkms is
# installed (it is the machine's then, not ours to remove); holds
# scripts/dkms-check.sh's lock, as both use the same dkms registration.

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
fp_host_dkms_lock

pkg=flushpol-dkms
ver=$(fp_version) || die "no PACKAGE_VERSION=\"...\" line in dkms.conf"
st=$(dpkg-query -W -f='${db:Status-Abbrev}' "$pkg" 2>/dev/null) || st=
[[ $st != ii* ]] || die "$pkg is installed on this machine: not removing it"
[ -z "$(dkms status -m flushpol 2>/dev/null)" ] ||
	die "flushpol is registered in dkms already: $(dkms status -m flushpol)"

deb=$("$here/deb.sh")
work=$(mktemp -d /tmp/flushpol-deb.XXXXXX)
fake=/lib/modules/5.10.0-0-flushpol-fake

# Names only: what apt remove must leave as apt install found it.
snapshot()
{
	find /usr/src /var/lib/dkms /lib/modules -path "$fake" -prune -o -print |
		sort
}

cleanup()
{
	local rc=$?
	trap - EXIT
	st=$(dpkg-query -W -f='${db:Status-Abbrev}' "$pkg" 2>/dev/null) || st=
	if [[ $st == ?[iUFHWt]* ]]; then
		log "cleaning up: removing $pkg"
		DEBIAN_FRONTEND=noninteractive apt-get purge -y -q \
			-o DPkg::Lock::Timeout=900 "$pkg" >&2 </dev/null || true
	fi
	rm -rf "$fake" "$work"
	exit "$rc"
}
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

# Kernels without their image get modules.* from dkms' depmod: note which
# were there, to put them back (as scripts/dkms-check.sh does).
snapshot >"$work/before"

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

rm -rf "$fake"
log "apt remove $pkg"
DEBIAN_FRONTEND=noninteractive apt-get remove -y -q -o DPkg::Lock::Timeout=900 \
	"$pkg" >"$work/remove.log" 2>&1 </dev/null ||
	{ cat "$work/remove.log" >&2; die "apt remove failed"; }
st=$(dpkg-query -W -f='${db:Status-Abbrev}' "$pkg" 2>/dev/null) || st=
[ -z "$st" ] || [[ $st == un* ]] || [[ $st == pn* ]] ||
	die "dpkg still has $pkg as \"$st\" after apt remove"
[ -z "$(dkms status -m flushpol)" ] ||
	die "dkms status after remove: $(dkms status -m flushpol)"

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
log "PASS: installed for ${kvers[*]}, ${fake##*/} skipped, nothing left"
