#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Usage: scripts/qemu/fio-bench.sh
#
# Throughput of real I/O through the SMMU: Debian's arm64 fio (fio-root.sh)
# in the guest, direct I/O on QEMU's NVMe (-device nvme, behind the
# SMMUv3, a sparse raw image under the output directory), -smp 2, for
# every configuration below, all on the same kernel and QEMU, in rounds in
# which the configurations take turns (one boot each):
#   flushpol-strict  flushpol_smmuv3 drives the SMMU; va, range, asid and
#                    threshold take turns at each job, switched through the
#                    NVMe context's sysfs policy file
#   flushpol-lazy    the same, iommu.strict=0: nonstrict
#   upstream-strict  the in-tree arm-smmu-v3 driver
#   upstream-lazy    the in-tree driver, iommu.strict=0
#   bypass           the in-tree driver, iommu.passthrough=1
# Then one boot each of upstream strict and lazy with QEMU tracing the
# commands the SMMU consumes, split per job by marks (guest-fio.sh's
# FP_FIO_MARK), for upstream's commands per I/O; flushpol's come from its
# own statistics in the timed boots.
#
# Writes build/results/NAME.md (printed) and build/results/NAME.png
# (NAME: fio, or FP_FIO_RESULT).
#
# Environment:
#   FP_FIO_CONFIGS  which configurations (default: all five above)
#   FP_FIO_JOBS     guest-fio.sh's jobs (default: all six)
#   FP_FIO_ROUNDS   rounds (default 5: fewer give each ratio against
#                   upstream no interval, and the table says the figures
#                   are indicative only)
#   FP_FIO_TIME, FP_FIO_RAMP  seconds per job, and of ramp (default 3, 1)
#   FP_FIO_FLUSHPOL_APPEND  kernel command line of the flushpol boots
#   FP_FIO_PREBUILT=1  the modules are already staged in FLUSHPOL_QEMU_OUT
#                   (dkms-install.sh and edu-module.sh ran)
#   FLUSHPOL_QEMU_OUT  the rig's directory (default build/qemu)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib.sh
. "$here/../lib.sh"
# shellcheck source=scripts/qemu/fio-rig.sh
. "$here/fio-rig.sh"
# shellcheck source=scripts/deps.sh
. "$here/../deps.sh"
export FLUSHPOL_QEMU_OUT=${FLUSHPOL_QEMU_OUT:-$FP_TOP/build/qemu}
out=$FLUSHPOL_QEMU_OUT/fio
configs=${FP_FIO_CONFIGS:-flushpol-strict flushpol-lazy upstream-strict upstream-lazy bypass}
jobs=${FP_FIO_JOBS:-rr4k sr128k sr1m rw4k sw128k sw1m}
rounds=${FP_FIO_ROUNDS:-5}
t=${FP_FIO_TIME:-3}
ramp=${FP_FIO_RAMP:-1}

log() { echo "fio-bench: $*" >&2; }
die() { log "$*"; exit 1; }

fp_apt_install gnuplot-nox >&2
fio_rig "$out"

# boot CONFIG NAME [TRACE]: one boot of CONFIG; its console to NAME.log.
boot()
{
	local cfg=$1 name=$2 trace=${3:-} intree=1 smmu append qextra
	local fio="FP_FIO_JOBS=\"$jobs\" FP_FIO_TIME=$t FP_FIO_RAMP=$ramp"

	case $cfg in
	flushpol-strict)
		intree=0 smmu=flushpol append=${FP_FIO_FLUSHPOL_APPEND:-} ;;
	flushpol-lazy)
		intree=0 smmu=flushpol
		append="${FP_FIO_FLUSHPOL_APPEND:-} iommu.strict=0 FP_FIO_POLICIES=nonstrict" ;;
	upstream-strict) smmu=upstream-strict append= ;;
	upstream-lazy) smmu=upstream-lazy append=iommu.strict=0 ;;
	bypass) smmu=bypass append=iommu.passthrough=1 ;;
	*) die "no configuration $cfg" ;;
	esac
	qextra="-smp 2 -drive file=$img,if=none,format=raw,id=nvm"
	qextra+=" -device nvme,serial=flushpol,drive=nvm"
	if [ -n "$trace" ]; then
		# No ramp: every command counted is one of a counted I/O.
		fio="FP_FIO_JOBS=\"$jobs\" FP_FIO_TIME=1 FP_FIO_RAMP=0 FP_FIO_MARK=1"
		qextra+=" -trace smmuv3_cmdq_opcode -trace smmuv3_cmdq_tlbi_nh_asid"
		qextra+=" -D $trace"
	fi
	log "$name: $cfg"
	GUEST_IN_TREE_SMMU=$intree GUEST_KMODS=nvme GUEST_ROOT_EXTRA=$root QEMU_EXTRA=$qextra \
	GUEST_APPEND="FP_FIO_SMMU=$smmu $fio $append" \
		"$here/run-guest.sh" "$FP_TOP/e2e/guest-fio.sh" 1800 \
		2>>"$out/run.log" || { tail -n 20 "$out/run.log" >&2; die "FAIL: $name"; }
	cp "$FLUSHPOL_QEMU_OUT/run/guest-fio/console.log" "$out/$name.log"
}

load0=$(cut -d' ' -f1-3 /proc/loadavg)
n=0
for c in $configs; do
	n=$((n + 1))
done
log "$rounds rounds of $n boots (${configs// /, }), jobs: $jobs, ${t}s each after ${ramp}s of ramp"
for r in $(seq "$rounds"); do
	for c in $configs; do
		boot "$c" "$c-$r"
	done
done
# Tracing costs QEMU time per command: never in a timed boot.
for c in $configs; do
	case $c in
	upstream-*) boot "$c" "$c-count" "$out/$c.trace" ;;
	esac
done

res=$FP_RESULTS
mkdir -p "$res"
name=${FP_FIO_RESULT:-fio}
md=$res/$name.md
{
	echo "Measured $(date -u +%F) at $(git -C "$FP_TOP" describe --always --dirty 2>/dev/null ||
		echo "a tree"): Debian's arm64 $KVER kernel and fio"
	echo "$(basename "${root%/root}" | sed 's/^fio-//'), qemu-system-aarch64" \
	     "$(qemu-system-aarch64 --version | head -n 1 | awk '{print $4}')" \
	     "-M virt,iommu=smmuv3 -smp 2 (TCG), -device nvme on a raw image, $(nproc) host cores;"
	echo "$rounds alternating rounds, ${t}s per job after ${ramp}s of ramp;" \
	     "host load average $load0 before, $(cut -d' ' -f1-3 /proc/loadavg) after."
	echo
	python3 "$here/fio-table.py" "$out" "$out/fio.dat"
} >"$md"
cat "$md"
# The plot is against bypass.
if [[ " $configs " == *" bypass "* ]]; then
	gnuplot -e "dat='$out/fio.dat'; png='$res/$name.png'" "$here/fio-plot.gp"
	log "wrote $md and $res/$name.png"
else
	log "wrote $md (no plot without bypass)"
fi
