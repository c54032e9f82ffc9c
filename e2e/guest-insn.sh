#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Guest half of scripts/qemu/insn-count.sh: FP_INSN_N 4K maps and then as
# many strict 4K unmaps, between markers QEMU's instruction-counting
# plugins end their windows at (edu_bench.h's edu_bench_insn()), through
# every flushpol policy the edu context can take (nonstrict only where
# the context is lazy), or, with FP_INSN_UPSTREAM=1, through the upstream
# in-tree arm-smmu-v3 driver (the guest booted with GUEST_IN_TREE_SMMU=1).
# FP_INSN_ROUNDS rounds of each; the policies take turns.
#
# From the kernel command line: FP_INSN_N (default 64), FP_INSN_ROUNDS
# (default 2), FP_INSN_UPSTREAM; FP_INSN_PROFILE=1 also prints the
# kernel's and modules' text symbols at the end ("ksym: ADDRESS NAME"),
# for scripts/qemu/insn-profile.py to name the plugin's blocks with.
set -eu

n=${FP_INSN_N:-64}
rounds=${FP_INSN_ROUNDS:-2}

# Through the kernel log, as the module's lines are, to keep their order.
label() { echo "$*" > /dev/kmsg; }
fail() { echo "insn: $*"; exit 1; }
# shellcheck source=e2e/guest-lib.sh
. /guest-lib.sh
bound() { ls -d "$drv"/0000:* >/dev/null 2>&1; }
ksyms()
{
	[ "${FP_INSN_PROFILE:-0}" = 1 ] || return 0
	sed -n 's/^\([0-9a-f]*\) [tT] /ksym: \1 /p' /proc/kallsyms
}

if [ "${FP_INSN_UPSTREAM:-0}" = 1 ]; then
	mkdir -p /sbin
	ln -sf /bin/busybox /sbin/modprobe
	drv=/sys/bus/pci/drivers/flushpol_edu_upstream
	modprobe flushpol_edu_upstream
	fp_wait "edu never bound" bound
	round=1
	while [ $round -le "$rounds" ]; do
		label "insn: policy=upstream round=$round"
		echo "insn $n" > $drv/run
		round=$((round + 1))
	done
	ksyms
	echo "insn: done"
	exit 0
fi

drv=/sys/bus/pci/drivers/flushpol_edu
# Range invalidation on, as QEMU's SMMU and upstream have it.
echo 0 > /sys/module/flushpol_smmuv3/parameters/force_no_ril
modprobe flushpol_edu
[ -e $drv/run ] || fail "edu never probed"
ctx=/sys/kernel/flushpol/contexts/$(cat $drv/context)
round=1
while [ $round -le "$rounds" ]; do
	for p in va range asid threshold adaptive nonstrict; do
		if ! echo "$p" > "$ctx/policy" 2>/dev/null; then
			[ $round = 1 ] && label "insn: policy=$p unusable" \
				"(strict=$(cat "$ctx/strict"))"
			continue
		fi
		grep -q "\[$p\]" "$ctx/policy" || fail "$p not active"
		label "insn: policy=$p round=$round"
		echo "insn $n" > $drv/run
	done
	round=$((round + 1))
done
ksyms
echo "insn: done"
