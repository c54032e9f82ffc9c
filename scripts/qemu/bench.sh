#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make demo: install flushpol through DKMS into Debian's arm64 kernel
# (prepare.sh's, FP_KVER=6.12 or 6.1), boot it on QEMU's SMMUv3, switch
# the edu device's context through every policy via sysfs, time unmaps of
# 4K..32M of 4 KiB pages, and print the table (also written to
# build/results/NAME.md, NAME FP_QEMU_RESULT or qemu-unmap).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib.sh
. "$here/../lib.sh"
out=${FLUSHPOL_QEMU_OUT:-$FP_TOP/build/qemu}

eval "$("$here/prepare.sh")"
"$here/dkms-install.sh" >/dev/null
"$here/edu-module.sh" >/dev/null
GUEST_APPEND="deferred_probe_timeout=1" \
	"$here/run-guest.sh" "$FP_TOP/e2e/guest-bench.sh" 3000

mkdir -p "$FP_RESULTS"
res=$FP_RESULTS/${FP_QEMU_RESULT:-qemu-unmap}.md
{
	echo "Measured $(date -u +%F) by \`make demo\`: Debian's arm64 $KVER"
	echo "kernel, qemu-system-aarch64 $(qemu-system-aarch64 --version |
		head -n 1 | awk '{print $4}') -M virt,iommu=smmuv3 (TCG), $(nproc) host cores."
	python3 "$here/bench-table.py" "$out/run/guest-bench/console.log"
} > "$res"
cat "$res"
