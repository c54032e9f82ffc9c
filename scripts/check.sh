#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make check: everything CI runs, in order of how fast it fails.
#   lint        W=1 -Werror, sparse, checkpatch --strict
#   kunit       the suites in a UML kernel, with the real io-pgtable-arm
#   readme      the README's count table is what the suites just printed
#   kunit-arm64 the same suites in an arm64 SMP kernel on QEMU -smp 4
#               (MTTCG), threads truly in parallel (the kernel is built
#               once and cached: about an hour of CPU on two cores)
#   dkms        kernels dkms must skip, and why (each kernel below is
#               built once, through the package, as users get it)
#   deb         make deb, lintian, apt install of the .deb: dkms builds it
#               for Debian's 6.12 and 6.1 amd64; apt remove leaves nothing
#   e2e         the .deb's sources through dkms into Debian's arm64 6.12
#               (cross), on QEMU's SMMUv3, real DMA
#   fio-verify  fio verify=crc32c on QEMU's NVMe through flushpol, strict
#               and lazy, policies rewritten under it; e2e_nosync caught
#   e2e 6.1     the same end to end test on Debian's arm64 6.1, whose
#               IOMMU core the driver meets through backends/smmuv3/compat.h
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
# shellcheck source=scripts/deps.sh
. scripts/deps.sh
fp_apt_install

scripts/lint.sh
scripts/kunit.sh
scripts/readme-table.sh --check
scripts/kunit.sh --arch arm64
scripts/dkms-check.sh --skips-only
scripts/deb-check.sh
scripts/qemu/e2e.sh
FP_FIO_PREBUILT=1 scripts/qemu/fio-verify.sh 20
FP_KVER=6.1 FLUSHPOL_QEMU_OUT=$top/build/qemu-6.1 scripts/qemu/e2e.sh
echo "check: PASS"
