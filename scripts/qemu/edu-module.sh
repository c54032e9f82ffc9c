#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build the edu test modules (e2e/: flushpol_edu, and make bench's
# flushpol_edu_upstream) for the arm64 guest against the tree
# dkms-install.sh just built, and stage them beside the DKMS modules.  They
# are test code: DKMS does not install them, so neither would a user.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib.sh
. "$here/../lib.sh"
eval "$("$here/prepare.sh")"
fp_in_root "$0" "$@"
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
for m in flushpol_edu flushpol_edu_upstream; do
	cp "$build/e2e/$m.ko" "$sysroot/lib/modules/$KVER/extra/"
done
depmod -b "$sysroot" -e -E "$KDIR/Module.symvers" "$KVER"
echo "$sysroot/lib/modules/$KVER/extra/flushpol_edu.ko"
echo "$sysroot/lib/modules/$KVER/extra/flushpol_edu_upstream.ko"
