#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Guest half of make demo (scripts/qemu/bench.sh) and make bench
# (scripts/bench.sh): switch the edu context through every policy via sysfs
# and time unmaps of the seed thread's sizes of 4 KiB pages, with range
# invalidation and with it forced off.
#
# FP_BENCH_REPS unmaps (from the kernel command line; default 25) per
# policy and size, in FP_BENCH_ROUNDS rounds (default 1).  The policies
# take turns at each size, so that a slow spell of the host falls on all
# of them alike.
set -eu

run=/sys/bus/pci/drivers/flushpol_edu/run
reps=${FP_BENCH_REPS:-25}
rounds=${FP_BENCH_ROUNDS:-1}
mkdir -p /sbin
ln -sf /bin/busybox /sbin/modprobe

# Through the kernel log, as the module's results are: on the console our
# own stdout and printk may come out in either order.
label() { echo "$*" > /dev/kmsg; }

for ril in 1 0; do
	if [ $ril = 1 ]; then
		modprobe flushpol_smmuv3
	else
		modprobe flushpol_smmuv3 force_no_ril=1
	fi
	modprobe flushpol_edu
	i=0
	while ! ls -d /sys/kernel/flushpol/contexts/smmuv3.* >/dev/null 2>&1; do
		i=$((i + 1))
		[ $i -lt 300 ] || { echo "bench: edu never probed"; exit 1; }
		sleep 0.1
	done
	ctx=$(ls -d /sys/kernel/flushpol/contexts/smmuv3.*)
	policies="va asid threshold"
	[ $ril = 1 ] && policies="va range asid threshold"
	round=1
	while [ $round -le "$rounds" ]; do
		for size in 4096 65536 1048576 2097152 12582912 16777216 \
			    25165824 33554432; do
			for p in $policies; do
				echo "$p" > "$ctx/policy"
				grep -q "\[$p\]" "$ctx/policy" ||
					{ echo "bench: $p not active"; exit 1; }
				label "bench: ril=$ril policy=$p round=$round"
				echo "bench $size $reps" > $run
			done
		done
		round=$((round + 1))
	done
	rmmod flushpol_edu
	rmmod flushpol_smmuv3
done
echo "bench: done"
