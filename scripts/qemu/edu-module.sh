#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build the edu test module (e2e/) for the arm64 guest against the tree
# dkms-install.sh just built, and stage it beside the DKMS modules.  It is
# test code: DKMS does not install it, so neither would a user.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib.sh
. "$here/../lib.sh"
eval "$("$here/prepare.sh")"
out=${FLUSHPOL_QEMU_OUT:-$FP_TOP/build/qemu}
sysroot=$out/sysroot
build=$out/edu

[ -d "$sysroot/lib/modules/$KVER" ] ||
	{ echo "edu-module: run dkms-install.sh first" >&2; exit 1; }
rm -rf "$build"
fp_export_tree "$build"
# The package's own symbols and CRCs, from the same source.
make -s -C "$KDIR" M="$build" modules >&2
make -s -C "$KDIR" M="$build/e2e" KBUILD_EXTRA_SYMBOLS="$build/Module.symvers" \
	modules >&2
mkdir -p "$sysroot/lib/modules/$KVER/extra"
cp "$build/e2e/flushpol_edu.ko" "$sysroot/lib/modules/$KVER/extra/"
depmod -b "$sysroot" -e -E "$KDIR/Module.symvers" "$KVER"
echo "$sysroot/lib/modules/$KVER/extra/flushpol_edu.ko"
