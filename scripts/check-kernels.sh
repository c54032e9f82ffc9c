#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make check-kernels: the kernels make check leaves out to stay within CI's
# 90 minutes, each as far as it gets, then the table of what passed:
#   e2e 6.1      Debian 12's arm64 6.1: the QEMU end to end test
#   trixie       Debian 13: apt install of the .deb in a cached trixie root
#                (scripts/trixie-root.sh) for its amd64 6.12 and
#                trixie-backports' newest 7.x, flushpol-boot's steps in
#                its GRUB entries and initramfs, dkms for both arm64
#   e2e/fio 6.12+deb13, e2e/fio 7.x
#                the end to end test and fio integrity on Debian 13's arm64
#                6.12 and on trixie-backports' newest arm64 7.x
#   fio rt       fio integrity on Debian 12's PREEMPT_RT 6.12 flavour
#   arm-smmu series 6.1, 7.x
#                integration/arm-smmu/6.1 and 7.x applied to their kernels
#                and drivers/iommu/ built (scripts/arm-smmu-series-check.sh)
# Exits non-zero if any failed.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
rc=0

run()
{
	local what=$1

	shift
	echo "check-kernels: $what: $*"
	if "$@"; then
		echo "check-kernels: $what: PASS"
		return 0
	fi
	echo "check-kernels: $what: FAIL"
	rc=1
	return 1
}

scripts/kernel-table.sh start
for k in 6.1 7.x; do
	run "arm-smmu series $k" scripts/arm-smmu-series-check.sh "$k" &&
		scripts/kernel-table.sh pass "$k" arm64 "arm-smmu series: drivers/iommu/ (W=1)"
done
run "e2e 6.1" env FP_KVER=6.1 FLUSHPOL_QEMU_OUT="$top/build/qemu-6.1" \
	scripts/qemu/e2e.sh &&
	scripts/kernel-table.sh pass 6.1 arm64 "DKMS (cross); QEMU end to end"
run trixie scripts/deb-check-trixie.sh
for k in 6.12+deb13 7.x; do
	out=$top/build/qemu-$k
	run "e2e $k" env FP_KVER="$k" FLUSHPOL_QEMU_OUT="$out" \
		scripts/qemu/e2e.sh &&
		scripts/kernel-table.sh pass "$k" arm64 "DKMS (cross, trixie root); QEMU end to end"
	run "fio $k" env FP_KVER="$k" FLUSHPOL_QEMU_OUT="$out" \
		FP_FIO_PREBUILT=1 scripts/qemu/fio-verify.sh 20 &&
		scripts/kernel-table.sh pass "$k" arm64 "fio integrity"
done
run "fio rt" env FP_KVER=6.12-rt FLUSHPOL_QEMU_OUT="$top/build/qemu-rt" \
	FP_VERIFY_MODES="strict lazy" scripts/qemu/fio-verify.sh 20 &&
	scripts/kernel-table.sh pass 6.12-rt arm64 "DKMS (cross); fio integrity"
scripts/kernel-table.sh print
[ $rc = 0 ] && echo "check-kernels: PASS" || echo "check-kernels: FAIL"
exit $rc
