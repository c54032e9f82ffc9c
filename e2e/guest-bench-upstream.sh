#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Guest half of make bench (scripts/bench.sh) for the upstream in-tree
# arm-smmu-v3 driver: the guest booted without initcall_blacklist, and
# e2e/flushpol_edu_upstream.ko times iommu_unmap() of the same sizes of
# 4 KiB pages as e2e/guest-bench.sh does for flushpol's policies.
#
# From the kernel command line:
#   FP_BENCH_ROUNDS, FP_BENCH_REPS  as in guest-bench.sh
#   FP_BENCH_COUNT=1  instead, one unmap per size between two marks (an
#                     iommu_flush_iotlb_all), for a boot with QEMU tracing
#                     the commands the SMMU consumes
#   FP_BENCH_PHASES=1  instead, where the time goes, as guest-bench.sh
set -eu

drv=/sys/bus/pci/drivers/flushpol_edu_upstream
reps=${FP_BENCH_REPS:-25}
rounds=${FP_BENCH_ROUNDS:-1}
sizes="4096 65536 1048576 2097152 12582912 16777216 25165824 33554432"
mkdir -p /sbin
ln -sf /bin/busybox /sbin/modprobe

# Through the kernel log, as the module's results are: on the console our
# own stdout and printk may come out in either order.
label() { echo "$*" > /dev/kmsg; }
fail() { echo "bench: $*"; exit 1; }
# shellcheck source=e2e/guest-lib.sh
. /guest-lib.sh
bound() { ls -d "$drv"/0000:* >/dev/null 2>&1; }

modprobe flushpol_edu_upstream
fp_wait "edu never bound" bound
dev=$(ls -d "$drv"/0000:*)
echo "bench: $(basename "$dev") in iommu group" \
	"$(basename "$(readlink "$dev/iommu_group")")"

if [ "${FP_BENCH_COUNT:-0}" = 1 ]; then
	for size in $sizes; do
		label "bench: count size=$size"
		echo mark > "$drv/run"
		echo "once $size" > "$drv/run"
	done
	echo mark > "$drv/run"
elif [ "${FP_BENCH_PHASES:-0}" = 1 ]; then
	for size in 4096 65536 1048576; do
		label "bench: phases policy=upstream"
		echo "phases $size $reps" > "$drv/run"
	done
else
	round=1
	while [ $round -le "$rounds" ]; do
		for size in $sizes; do
			label "bench: upstream round=$round"
			echo "bench $size $reps" > "$drv/run"
		done
		round=$((round + 1))
	done
fi
rmmod flushpol_edu_upstream
echo "bench: done"
