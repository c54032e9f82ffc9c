#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Usage: scripts/qemu/dkms-install.sh
#
# dkms add, build and install of what the flushpol-dkms package ships
# (scripts/deb.sh builds it from the tree; $FLUSHPOL_DEB names a .deb
# built already) for the arm64 kernel prepare.sh names, cross-built on
# this amd64 host (Debian 13's: in the trixie root), into a staging root:
#   $FLUSHPOL_QEMU_OUT/sysroot/lib/modules/KVER/   (default build/qemu)
# with the kernel's modules.builtin/order and a depmod'ed modules.dep, as
# on an arm64 machine with the kernel and our package installed.
# run-guest.sh puts that root into the guest's initramfs.
#
# dkms 3.0.10 runs here unmodified, on trees of our own (--dkmstree,
# --sourcetree, --installtree), so the host's /var/lib/dkms, /usr/src and
# /lib/modules never see the arm64 kernel, and scripts/dkms-check.sh and
# this never remove each other's registrations.  The package is unpacked
# (dpkg-deb -x), not installed: its /usr/src/flushpol-VER is the source
# tree, and add, build, install are the calls its postinst makes (through
# dkms' common.postinst), with the options below.  How the cross build
# works through plain dkms:
#  - dkms passes no ARCH or CROSS_COMPILE to make, and needs none: Debian's
#    arm64 headers set both ("override", in .kernelvariables), and dkms
#    takes CC from that same file.  -a aarch64 (what uname -m says on
#    arm64) only names dkms' directories.
#  - dkms strips with plain "strip", which cannot read arm64 objects:
#    a "strip" that is the cross one goes first in PATH for it.
#  - dkms' own depmod would run on the host's /lib/modules/KVER:
#    --no-depmod, and depmod -b on the staging root instead.
#  - nothing signs: dkms finds no sign-file for a kernel not in
#    /lib/modules; the guest kernel does not enforce signatures.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib.sh
. "$here/../lib.sh"

log() { echo "qemu-dkms: $*" >&2; }
die() { log "$*"; exit 1; }

env=$("$here/prepare.sh")
eval "$env"
# Debian 13's kernels: the package is built here, dkms runs in the root.
if [ -n "$ROOT" ] && [ -z "${FP_PREPARED_ENV:-}" ]; then
	FLUSHPOL_DEB=${FLUSHPOL_DEB:-$("$here/../deb.sh")}
	fp_in_root "$0" "$@"
fi

pkg=flushpol
ver=$(fp_version) || die "no PACKAGE_VERSION=\"...\" line in dkms.conf"
out=${FLUSHPOL_QEMU_OUT:-$FP_TOP/build/qemu}
dk=$out/dkms
sysroot=$out/sysroot
dest=$sysroot/lib/modules/$KVER

# All three trees are ours alone: a rerun (any earlier version or
# registration included) starts by deleting them.
rm -rf "$dk" "$sysroot"
mkdir -p "$dk/tree" "$dk/bin" "$dest"
deb=${FLUSHPOL_DEB:-$("$here/../deb.sh")}
dpkg-deb -x "$deb" "$dk/deb"
[ -f "$dk/deb/usr/src/$pkg-$ver/dkms.conf" ] ||
	die "$deb has no /usr/src/$pkg-$ver/dkms.conf"
ln -s deb/usr/src "$dk/src"
ln -s "$(command -v aarch64-linux-gnu-strip)" "$dk/bin/strip"
# The kernel "installed": what its package puts in /lib/modules/KVER,
# less its own .ko files, which the guest does not need.
cp "$MODDIR"/modules.{builtin,builtin.modinfo,order} "$dest/"

opts=(-m "$pkg" -v "$ver" -k "$KVER" -a aarch64 --kernelsourcedir "$KDIR"
      --dkmstree "$dk/tree" --sourcetree "$dk/src" --installtree "$sysroot/lib/modules")
export PATH="$dk/bin:$PATH"

log "dkms add/build/install $pkg/$ver for $KVER (aarch64)"
dkms add -m "$pkg" -v "$ver" --dkmstree "$dk/tree" --sourcetree "$dk/src" >&2
rc=0
dkms build "${opts[@]}" >&2 || rc=$?
if [ "$rc" -ne 0 ]; then
	cat "$dk/tree/$pkg/$ver/build/make.log" >&2 2>/dev/null || true
	[ "$rc" -ne 77 ] || die "dkms skipped $KVER: BUILD_EXCLUSIVE_* not met"
	die "dkms build failed ($rc)"
fi
dkms install "${opts[@]}" --no-depmod >&2
st=$(dkms status "${opts[@]}")
grep -q ': installed' <<<"$st" || die "dkms status says: $st"

# -e -E: fail on symbols neither the kernel nor our modules export, or
# with other CRCs than the kernel's (what would make insmod fail).
depmod -b "$sysroot" -e -E "$KDIR/Module.symvers" "$KVER" 2>"$dk/depmod.log" ||
	{ cat "$dk/depmod.log" >&2; die "depmod failed"; }
if [ -s "$dk/depmod.log" ]; then
	cat "$dk/depmod.log" >&2
	die "depmod complains"
fi

# Whatever dkms installed: the list grows with dkms.conf, not here.
mapfile -t kos < <(cd "$dest" && find . -name '*.ko*' | sed 's|^\./||' | sort)
[ ${#kos[@]} -gt 0 ] || die "dkms installed no module"
for m in "${kos[@]}"; do
	vm=$(modinfo -F vermagic "$dest/$m")
	[[ $vm == "$KVER "*" aarch64" ]] || die "$m: vermagic \"$vm\""
	log "installed $m"
done
echo "$dest"
