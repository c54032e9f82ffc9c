#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make demo [KVER=6.12|6.1|6.12+deb13|7.x], the main job, on a fresh
# Debian 12 as root: install what it needs, then scripts/qemu/bench.sh (DKMS into
# Debian's arm64 kernel of that series on QEMU's SMMUv3, policies switched
# through sysfs, the unmap benchmark's table), then
# scripts/qemu/fio-bench.sh on the same build, a reduced set (one round,
# 4K random read and 1M sequential read, 2 s each): NVMe with fio through
# each policy, against the upstream driver strict and lazy, and bypass.
# One round gives no interval: its tables say their figures are
# indicative only.  make bench runs the full set, in at least 5 rounds.  The tables and the plot go to
# build/results/ (another kernel's named *-KVER); nothing tracked is
# written: `make results` publishes them.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/deps.sh
. "$top/scripts/deps.sh"
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"
fp_apt_install dkms kmod cpio git python3

export FP_KVER=${FP_KVER:-6.12}
eval "$("$top/scripts/qemu/prepare.sh")"
echo "demo: measuring Debian's arm64 $KVER kernel (KVER=$FP_KVER)"
suffix=
if [ "$FP_KVER" != 6.12 ]; then
	# Its own build directory too: a later make check or demo of the
	# default kernel finds its own staging intact.
	export FLUSHPOL_QEMU_OUT=${FLUSHPOL_QEMU_OUT:-$top/build/qemu-$FP_KVER}
	suffix=-$FP_KVER
fi

FP_QEMU_RESULT=qemu-unmap$suffix \
	"$top/scripts/qemu/bench.sh"
FP_FIO_PREBUILT=1 FP_FIO_RESULT=fio-demo$suffix \
FP_FIO_ROUNDS=1 FP_FIO_JOBS="rr4k sr1m" FP_FIO_TIME=2 FP_FIO_RAMP=1 \
	"$top/scripts/qemu/fio-bench.sh"
res=${FP_RESULTS#"$top"/}
echo "demo: measured Debian's arm64 $KVER kernel (KVER=$FP_KVER); results in $res/:"
echo "demo:   $res/qemu-unmap$suffix.md  unmap latency per policy"
echo "demo:   $res/fio-demo$suffix.md    fio on NVMe per policy"
echo "demo:   $res/fio-demo$suffix.png   its plot"
echo "demo: one round of each: the figures are indicative only; make bench"
echo "demo: runs at least 5 alternating rounds and gives each ratio against"
echo "demo: upstream its 95% interval"
echo "demo: to publish them into bench/results/ (tracked): make results"
