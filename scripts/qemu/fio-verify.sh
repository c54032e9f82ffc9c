#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Usage: scripts/qemu/fio-verify.sh [SECONDS]
#
# Data integrity of real DMA through flushpol: e2e/guest-fio-verify.sh in
# the guest (fio verify=crc32c on QEMU's NVMe behind the SMMUv3, -smp 2,
# while a loop rewrites every context's policy and threshold every 10 ms)
# for SECONDS (default 20) in each mode:
#   strict    flushpol_smmuv3, strict DMA domains
#   lazy      the same, iommu.strict=0
#   nosync    strict, the NVMe context held on e2e_nosync (flushpol_edu's
#             policy that never syncs): must be caught, by verify errors,
#             an SMMU fault or a crash
# Every other mode passes with 0 verify errors, no SMMU event and no
# kernel WARNING, BUG or Oops (run-guest.sh).  make check runs the default;
# make stress 120 seconds.
#
# Environment:
#   FP_VERIFY_MODES  which modes (default: strict lazy nosync); also
#                    upstream-strict and upstream-lazy (the in-tree driver),
#                    to check the check
#   FP_FIO_FLUSHPOL_APPEND  kernel command line of the flushpol boots
#   FP_FIO_PREBUILT=1  the modules are already staged in FLUSHPOL_QEMU_OUT
#   FLUSHPOL_QEMU_OUT  the rig's directory (default build/qemu)
#   FP_KVER          the guest kernel: 6.12 (default), 6.12-rt or 6.1
#                    (prepare.sh)
#   FP_FIRMWARE      dt (default) or acpi (run-guest.sh)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib.sh
. "$here/../lib.sh"
# shellcheck source=scripts/qemu/fio-rig.sh
. "$here/fio-rig.sh"
export FLUSHPOL_QEMU_OUT=${FLUSHPOL_QEMU_OUT:-$FP_TOP/build/qemu}
out=$FLUSHPOL_QEMU_OUT/fio-verify
secs=${1:-20}
fw=${FP_FIRMWARE:-dt}
modes=${FP_VERIFY_MODES:-strict lazy nosync}

log() { echo "fio-verify: $*" >&2; }
die() { log "$*"; exit 1; }

fio_rig "$out"
fp=${FP_FIO_FLUSHPOL_APPEND:-}

for m in $modes; do
	intree=0
	case $m in
	strict) append="$fp" ;;
	lazy) append="$fp iommu.strict=0" ;;
	nosync) append="$fp FP_VERIFY_POLICY=e2e_nosync" ;;
	upstream-strict) intree=1 append="FP_VERIFY_SMMU=$m" ;;
	upstream-lazy) intree=1 append="FP_VERIFY_SMMU=$m iommu.strict=0" ;;
	*) die "no mode $m" ;;
	esac
	log "$m: ${secs}s of fio verify"
	rc=0
	GUEST_IN_TREE_SMMU=$intree GUEST_KMODS=nvme GUEST_ROOT_EXTRA=$root \
	QEMU_EXTRA="-smp 2 -drive file=$img,if=none,format=raw,id=nvm -device nvme,serial=flushpol,drive=nvm" \
	GUEST_APPEND="FP_VERIFY_TIME=$secs $append" \
		"$here/run-guest.sh" "$FP_TOP/e2e/guest-fio-verify.sh" $((secs + 300)) \
		2>>"$out/run.log" || rc=$?
	con=$out/$m.log
	cp "$FLUSHPOL_QEMU_OUT/run/guest-fio-verify/console.log" "$con"
	grep -a 'fio-verify: smmu=.*errors=' "$con" >&2 || true
	if [ "$m" = nosync ]; then
		# Caught by fio or the SMMU (the guest says so), or the stale
		# DMA corrupted the kernel: a splat or an event on the console.
		if grep -aq 'fio-verify: caught' "$con" ||
		   { [ $rc -ne 0 ] &&
		     grep -aqE 'WARNING:|BUG:|Oops|Kernel panic|event 0x[0-9a-f]+ (received|sid)|global error|F_TRANSLATION' "$con"; }; then
			log "$m: caught, as it must be (firmware=$fw)"
			continue
		fi
		tail -n 30 "$out/run.log" >&2
		die "FAIL: $m was not caught (console: $con)"
	fi
	[ $rc -eq 0 ] || { tail -n 30 "$out/run.log" >&2; die "FAIL: $m (console: $con)"; }
	log "$m: PASS firmware=$fw"
done
log "PASS: $modes firmware=$fw"
