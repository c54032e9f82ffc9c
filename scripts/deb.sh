#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Usage: scripts/deb.sh      (make deb)
#
# Builds build/deb/flushpol-dkms_<version>_all.deb with debhelper and
# dh-dkms from debian/, and runs lintian on it: fails on a lintian error,
# prints its warnings.  dpkg-buildpackage writes next to the source tree
# and into it (debian/.debhelper, debian/flushpol-dkms/), so it runs on a
# clean export of the tree under build/deb/, never on the checkout.
# Installs debhelper, dh-dkms and lintian when missing (needs root then).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/deps.sh
. "$here/deps.sh"
# shellcheck source=scripts/lib.sh
. "$here/lib.sh"

log() { echo "deb: $*" >&2; }
die() { log "$*"; exit 1; }

fp_apt_install debhelper dh-dkms lintian >&2

ver=$(fp_version) || die "no PACKAGE_VERSION=\"...\" line in dkms.conf"
out=$FP_TOP/build/deb
stage=$out/stage
deb=$out/flushpol-dkms_${ver}_all.deb

# debian/changelog carries the version too (dpkg takes it from there):
# the two must agree, or dkms and dpkg would name different versions.
dver=$(cd "$FP_TOP" && dpkg-parsechangelog -S Version)
[ "$dver" = "$ver" ] ||
	die "debian/changelog says $dver, dkms.conf says $ver: add a changelog entry (dch -v $ver)"

# One build at a time per tree (make check, e2e, a user's make deb).
mkdir -p "$out"
exec 7>"$out/.lock"
flock 7
rm -rf "$stage" "$out"/flushpol-dkms_*
mkdir -p "$stage"
fp_export_tree "$stage/flushpol-$ver"

log "dpkg-buildpackage in $stage/flushpol-$ver"
(cd "$stage/flushpol-$ver" &&
 dpkg-buildpackage --build=binary --no-sign >"$stage/build.log" 2>&1) ||
	{ cat "$stage/build.log" >&2; die "dpkg-buildpackage failed"; }
mv "$stage/${deb##*/}" "$deb"

# --fail-on error: warnings are printed, not fatal.  Run as root, lintian
# says so first; that is a note about this build host, not the package.
lintian --fail-on error --info "$deb" >"$out/lintian.log" 2>&1 || lrc=$?
grep -v '^running with root privileges is not recommended' "$out/lintian.log" >&2 || true
[ "${lrc:-0}" -eq 0 ] || die "lintian found errors (exit $lrc)"
log "lintian: $(grep -c '^E:' "$out/lintian.log") errors," \
    "$(grep -c '^W:' "$out/lintian.log") warnings," \
    "$(grep -c '^I:' "$out/lintian.log") info"
rm -rf "$stage"
echo "$deb"
