#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Usage: scripts/qemu/e2e.sh
#
# The end-to-end test on QEMU's SMMUv3: install the package through DKMS
# into Debian's arm64 kernel, add the edu test module, boot, and run
# e2e/guest-check.sh in the guest with QEMU tracing every command the SMMU
# consumes.  Then hold each check's flushpol statistics against QEMU's own
# count of the invalidations and syncs between the marks.  Last, an NVMe
# device's DMA-API traffic through flushpol_smmuv3 (e2e/guest-nvme.sh):
# strict, lazy (iommu.strict=0) and identity (iommu.passthrough=1); then
# an NVMe boot configured by device (flushpol.device_policy=) and one with
# junk in every flushpol option.
# FP_KVER=6.1 runs it all on Debian's arm64 6.1 instead of 6.12
# (prepare.sh); make check runs both.
# FP_FIRMWARE=acpi (run-guest.sh) boots through UEFI with ACPI tables and
# runs the NVMe boots alone: the command counting of guest-check.sh does
# not depend on the firmware, and the report of a device bound before the
# driver is device tree only (smmuv3_report_unprotected()).
# What a user checks after a reboot, from the strict NVMe boot, goes to
# $FLUSHPOL_QEMU_OUT/user-view.txt.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib.sh
. "$here/../lib.sh"
out=${FLUSHPOL_QEMU_OUT:-$FP_TOP/build/qemu}

log() { echo "e2e: $*" >&2; }

eval "$("$here/prepare.sh")"
# FP_E2E_PREBUILT=1: the modules are staged already (FLUSHPOL_QEMU_SYSROOT).
if [ "${FP_E2E_PREBUILT:-0}" != 1 ]; then
	"$here/dkms-install.sh" >/dev/null
	"$here/edu-module.sh" >/dev/null
fi

fw=${FP_FIRMWARE:-dt}
trace=$out/run/guest-check/smmuv3.trace
mkdir -p "$(dirname "$trace")"
if [ "$fw" = dt ]; then
	# run-guest.sh empties run/NAME: trace to the side, then move it in.
	# edu ends every DMA 100 ms of virtual time after it starts, and the check
	# makes about 1800: with -icount sleep=off virtual time jumps to the next
	# timer whenever the guest idles, so waiting for them costs no host time
	# (196 s of host time for this boot without it, 84 s with it).
	QEMU_EXTRA="-icount shift=0,sleep=off -trace smmuv3_cmdq_opcode -trace smmuv3_cmdq_tlbi_nh_asid -D $out/smmuv3.trace" \
		"$here/run-guest.sh" "$FP_TOP/e2e/guest-check.sh" 1200
	mv "$out/smmuv3.trace" "$trace"

	python3 "$here/e2e-verify.py" "$out/run/guest-check/console.log" "$trace"
fi

# Sparse: guest-nvme.sh's n-th round trip writes 8M at n * 8M, and a
# strict boot makes 8 (one per strict policy, and three more).
img=$out/nvme.img
rm -f "$img"
truncate -s 128M "$img"
for append in "" iommu.strict=0 iommu.passthrough=1; do
	log "NVMe through flushpol_smmuv3${append:+ with $append}"
	GUEST_KMODS=nvme GUEST_APPEND="$append" \
	QEMU_EXTRA="-drive file=$img,if=none,id=nvm,format=raw -device nvme,serial=fp,drive=nvm" \
		"$here/run-guest.sh" "$FP_TOP/e2e/guest-nvme.sh" 600
	[ -n "$append" ] ||
		sed -n 's/\r$//; s/^user-view: //p' \
			"$out/run/guest-nvme/console.log" >"$out/user-view.txt"
done
# Configured by device: the NVMe at a fixed address and the edu device at
# the first free one (run-guest.sh names it first), their settings on the
# command line, checked before any I/O (e2e/guest-nvme-bydev.sh).
log "NVMe and edu configured by flushpol.device_policy"
GUEST_KMODS=nvme GUEST_APPEND="flushpol.device_policy=0000:00:03.0=asid:threshold=77,0000:00:01.0=threshold:threshold=33" \
QEMU_EXTRA="-drive file=$img,if=none,id=nvm,format=raw -device nvme,serial=fp,drive=nvm,addr=03.0" \
	"$here/run-guest.sh" "$FP_TOP/e2e/guest-nvme-bydev.sh" 600
# Junk in every option (scripts/kunit.sh's junk_args): each warned about,
# the NVMe translated all the same (guest-nvme.sh, strict).
log "NVMe with junk in every flushpol option"
GUEST_KMODS=nvme \
GUEST_APPEND="flushpol.default_policy=Bad!Name flushpol.default_threshold=12abc flushpol.device_policy=Bad flushpol_smmuv3.force_no_ril=maybe flushpol_smmuv3.cmdq_share=maybe" \
QEMU_EXTRA="-drive file=$img,if=none,id=nvm,format=raw -device nvme,serial=fp,drive=nvm" \
	"$here/run-guest.sh" "$FP_TOP/e2e/guest-nvme.sh" 600
log "what a user checks (firmware=$fw):"
sed 's/^/  /' "$out/user-view.txt" >&2
[ "$fw" = dt ] || exit 0

# A device that bound before the driver loaded is named at load.
log "nvme bound before flushpol_smmuv3 loads"
GUEST_KMODS=nvme GUEST_EARLY_MODULES= GUEST_APPEND=deferred_probe_timeout=1 \
QEMU_EXTRA="-drive file=$img,if=none,id=nvm,format=raw -device nvme,serial=fp,drive=nvm" \
	"$here/run-guest.sh" "$FP_TOP/e2e/guest-late.sh" 600
