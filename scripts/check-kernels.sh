#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make check-kernels: the kernel runs make check leaves out to stay within
# CI's 90 minutes, then the table of what passed.  Today Debian 13's
# arm64 6.12 (trixie), built in the trixie root: the QEMU end to end test
# and fio integrity.  make check builds the package for it (amd64 and
# arm64) and runs both on trixie-backports' newest 7.x.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
export FLUSHPOL_QEMU_OUT=$top/build/qemu-6.12+deb13
scripts/kernel-table.sh start
FP_KVER=6.12+deb13 scripts/qemu/e2e.sh
FP_KVER=6.12+deb13 FP_FIO_PREBUILT=1 scripts/qemu/fio-verify.sh 20
scripts/kernel-table.sh pass 6.12+deb13 arm64 "DKMS (cross, trixie root); QEMU end to end; fio integrity"
echo "check-kernels: PASS"
scripts/kernel-table.sh print
