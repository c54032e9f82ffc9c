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
# of them alike.  With FP_BENCH_PHASES=1, instead, where the time of the
# sizes below 2M goes ("phases" of flushpol_edu), with range invalidation.
set -eu

drv=/sys/bus/pci/drivers/flushpol_edu
run=$drv/run
reps=${FP_BENCH_REPS:-25}
rounds=${FP_BENCH_ROUNDS:-1}

# Through the kernel log, as the module's results are: on the console our
# own stdout and printk may come out in either order.
label() { echo "$*" > /dev/kmsg; }

for ril in 1 0; do
	# /init loaded flushpol_smmuv3; the edu domain is made with RIL or
	# without, as the parameter says at the time.
	echo $((ril == 0)) > /sys/module/flushpol_smmuv3/parameters/force_no_ril
	modprobe flushpol_edu
	[ -e $run ] || { echo "bench: edu never probed"; exit 1; }
	ctx=/sys/kernel/flushpol/contexts/$(cat $drv/context)
	policies="va asid threshold"
	[ $ril = 1 ] && policies="va range asid threshold"
	if [ "${FP_BENCH_PHASES:-0}" = 1 ]; then
		[ $ril = 1 ] || { rmmod flushpol_edu; continue; }
		for size in 4096 65536 1048576; do
			for p in va range; do
				echo "$p" > "$ctx/policy"
				label "bench: phases policy=$p"
				echo "phases $size $reps" > $run
			done
		done
		rmmod flushpol_edu
		continue
	fi
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
done
echo "bench: done"
