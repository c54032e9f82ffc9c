#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Guest half of scripts/qemu/fio-bench.sh (busybox sh, arm64 guest, -smp 2):
# Debian's fio, direct I/O on QEMU's NVMe namespace behind the SMMUv3, one
# line per job and policy for the host to tabulate:
#   fio: smmu=S policy=P job=J reqs=R kib=K tlbi_va=.. tlbi_range=..
#        tlbi_asid=.. tlbi_all=.. syncs=.. terse=FIO'S --minimal LINE
# reqs and kib: the block layer's requests and KiB completed on the
# namespace over the whole run, ramp included, as flushpol's statistics
# (reset just before fio starts) are.
#
# From the kernel command line:
#   FP_FIO_SMMU      flushpol (default), or a label (upstream, bypass...)
#                    when flushpol does not drive the SMMU: the host boots
#                    accordingly
#   FP_FIO_POLICIES  flushpol's policies, taking turns at each job
#                    (default: va range asid threshold)
#   FP_FIO_JOBS      which of the jobs below (default: all)
#   FP_FIO_TIME, FP_FIO_RAMP  seconds per job and of ramp (default 3, 1)
#   FP_FIO_MARK=1    put a mark into the SMMU's command stream before each
#                    job and at the end (flushpol_edu_upstream on the edu
#                    device), for a boot in which QEMU traces commands;
#                    FP_FIO_MARK=2: before and after each job, so that
#                    what runs between jobs (a policy switch) is left out
# A policy the NVMe's context refuses (not a name the policy file offers)
# is skipped, with a "fio: policy P not offered" line.
set -eu

smmu=${FP_FIO_SMMU:-flushpol}
policies=${FP_FIO_POLICIES:-va range asid threshold}
jobs=${FP_FIO_JOBS:-rr4k sr128k sr1m rw4k sw128k sw1m}
t=${FP_FIO_TIME:-3}
ramp=${FP_FIO_RAMP:-1}
fail() { echo "fio: FAIL: $*"; exit 1; }
# shellcheck source=e2e/guest-lib.sh
. /guest-lib.sh

# The NVMe's context: the one its I/O makes work.
newctx()
{
	ctx=$(fp_nvme_ctx)
}

# fio's arguments for job $1.
job_args()
{
	case $1 in
	rr4k)	 echo "--rw=randread --bs=4k --iodepth=32 --numjobs=2" ;;
	sr128k)	 echo "--rw=read --bs=128k --iodepth=8" ;;
	sr1m)	 echo "--rw=read --bs=1m --iodepth=8" ;;
	rr4k1)	 echo "--rw=randread --bs=4k --iodepth=32 --numjobs=1" ;;
	rr4k2)	 echo "--rw=randread --bs=4k --iodepth=32 --numjobs=2" ;;
	rr4k4)	 echo "--rw=randread --bs=4k --iodepth=32 --numjobs=4" ;;
	rw4k)	 echo "--rw=randwrite --bs=4k --iodepth=32 --numjobs=2" ;;
	sw128k)	 echo "--rw=write --bs=128k --iodepth=8" ;;
	sw1m)	 echo "--rw=write --bs=1m --iodepth=8" ;;
	*)	 fail "no job $1" ;;
	esac
}

fp_nvme_up
nvme=$(readlink -f /sys/block/nvme0n1/device/device)
group=$(readlink "$nvme/iommu_group" 2>/dev/null) || group=none
echo "fio: smmu=$smmu nvme at ${nvme##*/}, iommu group ${group##*/}" \
     "($(cat "$nvme/iommu_group/type" 2>/dev/null || echo no type)," \
     "max_sectors_kb $(cat /sys/block/nvme0n1/queue/max_sectors_kb))"

ctx=
if [ "$smmu" = flushpol ]; then
	newctx
	[ -n "$ctx" ] || fail "the NVMe function ${nvme##*/} has no flushpol context:" \
			      "$(ls /sys/kernel/flushpol/contexts 2>/dev/null)"
	echo "fio: context $ctx strict=$(cat "$ctx/strict") $(cat "$ctx/policy")"
	echo "fio: cmdq_share=$(cat /sys/module/flushpol_smmuv3/parameters/cmdq_share)" \
	     "cpus=$(grep -c ^processor /proc/cpuinfo)"
else
	policies=$smmu
fi

edu_bound() { ls -d "${mark%/run}"/0000:* >/dev/null 2>&1; }
mark=
case ${FP_FIO_MARK:-0} in
0) ;;
1|2)
	mark=/sys/bus/pci/drivers/flushpol_edu_upstream/run
	modprobe flushpol_edu_upstream
	fp_wait "edu never bound" edu_bound
	;;
*) fail "FP_FIO_MARK=$FP_FIO_MARK: 0, 1 or 2" ;;
esac

# field N of /sys/block/nvme0n1/stat
blk() { awk -v n="$1" '{ print $n }' /sys/block/nvme0n1/stat; }
stat() { if [ -n "$ctx" ]; then cat "$ctx/stats/$1"; else echo 0; fi; }

for j in $jobs; do
	for p in $policies; do
		if [ -n "$ctx" ]; then
			if ! echo "$p" 2>/dev/null > "$ctx/policy"; then
				echo "fio: policy $p not offered: $(cat "$ctx/policy")"
				continue
			fi
			grep -q "\[$p\]" "$ctx/policy" || fail "$p not active"
			echo 1 > "$ctx/stats/reset"
		fi
		[ -z "$mark" ] || { echo "fio: mark job=$j" > /dev/kmsg; echo mark > $mark; }
		r0=$(($(blk 1) + $(blk 5)))
		s0=$(($(blk 3) + $(blk 7)))
		# shellcheck disable=SC2046 # job_args is a list of options
		out=$(/usr/bin/fio --name="$j" --filename=/dev/nvme0n1 --direct=1 \
			--ioengine=libaio --time_based --runtime="$t" \
			--ramp_time="$ramp" --group_reporting --minimal \
			$(job_args "$j")) || fail "fio $j under $p: $out"
		[ "${FP_FIO_MARK:-0}" != 2 ] ||
			{ echo "fio: mark stop" > /dev/kmsg; echo mark > $mark; }
		r1=$(($(blk 1) + $(blk 5)))
		s1=$(($(blk 3) + $(blk 7)))
		echo "fio: smmu=$smmu policy=$p job=$j reqs=$((r1 - r0))" \
		     "kib=$(((s1 - s0) / 2)) tlbi_va=$(stat tlbi_va)" \
		     "tlbi_range=$(stat tlbi_range) tlbi_asid=$(stat tlbi_asid)" \
		     "tlbi_all=$(stat tlbi_all) syncs=$(stat syncs)" \
		     "terse=$(echo "$out" | tail -n 1)"
	done
done
[ -z "$mark" ] || [ "$FP_FIO_MARK" = 2 ] ||
	{ echo "fio: mark end" > /dev/kmsg; echo mark > $mark; }
# Upstream's event queue reports "event 0xNN received", ours F_*.
if dmesg | grep -E 'event 0x[0-9a-f]+ (received|sid)|global error|F_TRANSLATION|F_PERM|F_ACCESS|F_ADDR_SIZE|F_BAD|C_BAD'; then
	fail "the SMMU reported events"
fi
echo "fio: done"
