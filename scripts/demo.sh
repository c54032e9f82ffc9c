#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make demo, the README's main job, on a fresh Debian 12 as root: install
# what it needs, then scripts/qemu/bench.sh (DKMS into Debian's arm64
# kernel on QEMU's SMMUv3, policies switched through sysfs, the unmap
# benchmark's table), then scripts/qemu/fio-bench.sh on the same build, a
# reduced set (one round, 4K random read and 1M sequential read, 2 s
# each): NVMe with fio through each policy, against the upstream driver
# strict and lazy, and bypass.  make bench runs the full set.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/deps.sh
. "$top/scripts/deps.sh"
fp_apt_install dkms kmod cpio git python3
"$top/scripts/qemu/bench.sh"
FP_FIO_PREBUILT=1 FP_FIO_RESULT=fio-demo FP_FIO_ROUNDS=1 \
FP_FIO_JOBS="rr4k sr1m" FP_FIO_TIME=2 FP_FIO_RAMP=1 \
	exec "$top/scripts/qemu/fio-bench.sh"
