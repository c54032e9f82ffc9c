#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Usage: scripts/qemu/fio-syncs.sh
#
# CMD_SYNCs and commands per I/O, as the SMMU consumed them, under fio 4K
# random read (direct, libaio, QD32 per job) at numjobs 1, 2 and 4 on
# QEMU's NVMe behind the SMMUv3, -smp 4, all on the same kernel and QEMU,
# one boot per configuration:
#   upstream-strict   the in-tree arm-smmu-v3 driver
#   upstream-lazy     the in-tree driver, iommu.strict=0
#   flushpol-share    flushpol_smmuv3, strict, its command queue sharing
#                     CMD_SYNCs (flushpol_smmuv3.cmdq_share=1, the default);
#                     each policy of FP_FIO_SYNC_POLICIES takes turns at
#                     each numjobs, switched through the NVMe context's
#                     sysfs policy file (a policy the context does not
#                     offer is skipped, and the table leaves it out)
#   flushpol-noshare  the same with flushpol_smmuv3.cmdq_share=0: every
#                     sync call writes its own CMD_SYNC
# First FP_FIO_SYNC_ROUNDS rounds of untraced boots, the configurations
# taking turns in each, for IOPS: each against upstream lazy's of the same
# round, with a 95% interval by bootstrap over rounds.  Then
# FP_FIO_SYNC_COUNT_ROUNDS rounds of boots with QEMU tracing every command
# (-trace smmuv3_cmdq_opcode), each fio run between two marks the edu
# device puts in the command stream (guest-fio.sh, FP_FIO_MARK=2), counted
# per I/O by opcode, with their spread over those rounds, and so are the
# guest's CMDQ_PROD writes and CMDQ_CONS reads, each a trap into QEMU
# (-trace smmuv3_write_mmio, smmuv3_read_mmio).  Tracing costs
# QEMU time per command, and whether a CMD_SYNC is shared depends on
# timing: the counts are those of the traced boots.
#
# Writes build/results/fio-syncs.md (printed).  With the defaults, 28
# boots: 11 to 12 minutes on the shared 2-core host at a load average of
# 1 to 5 (2026-12-07).
#
# Environment:
#   FP_FIO_SYNC_CONFIGS   which configurations (default: all four above)
#   FP_FIO_SYNC_POLICIES  flushpol's strict policies (default: va
#                   threshold batch)
#   FP_FIO_SYNC_NUMJOBS   fio's numjobs (default: 1 2 4)
#   FP_FIO_SYNC_ROUNDS    timed rounds (default 5: fewer give no interval)
#   FP_FIO_SYNC_COUNT_ROUNDS  traced rounds (default 2)
#   FP_FIO_SYNC_TIME, FP_FIO_SYNC_RAMP  seconds per timed job, and of
#                   ramp (default 2, 1); traced jobs run 1 s, no ramp
#   FP_FIO_PREBUILT=1  the modules are already staged in FLUSHPOL_QEMU_OUT
#                   (dkms-install.sh and edu-module.sh ran)
#   FLUSHPOL_QEMU_OUT  the rig's directory (default build/qemu)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib.sh
. "$here/../lib.sh"
# shellcheck source=scripts/qemu/fio-rig.sh
. "$here/fio-rig.sh"
export FLUSHPOL_QEMU_OUT=${FLUSHPOL_QEMU_OUT:-$FP_TOP/build/qemu}
out=$FLUSHPOL_QEMU_OUT/fio-syncs
configs=${FP_FIO_SYNC_CONFIGS:-upstream-strict upstream-lazy flushpol-share flushpol-noshare}
policies=${FP_FIO_SYNC_POLICIES:-va threshold batch}
numjobs=${FP_FIO_SYNC_NUMJOBS:-1 2 4}
rounds=${FP_FIO_SYNC_ROUNDS:-5}
count_rounds=${FP_FIO_SYNC_COUNT_ROUNDS:-2}
t=${FP_FIO_SYNC_TIME:-2}
ramp=${FP_FIO_SYNC_RAMP:-1}

log() { echo "fio-syncs: $*" >&2; }
die() { log "$*"; exit 1; }

case "$rounds $count_rounds $t $ramp" in
*[!0-9\ ]*) die "FP_FIO_SYNC_ROUNDS, _COUNT_ROUNDS, _TIME, _RAMP: numbers" ;;
esac
jobs=
for n in $numjobs; do
	case $n in
	1|2|4) jobs+=" rr4k$n" ;;
	*) die "FP_FIO_SYNC_NUMJOBS: 1, 2 or 4, not $n" ;;
	esac
done
jobs=${jobs# }
for c in $configs; do
	case $c in
	upstream-strict|upstream-lazy|flushpol-share|flushpol-noshare) ;;
	*) die "no configuration $c" ;;
	esac
done
# The policy names go onto the kernel command line, in one word each.
case $policies in
*[!a-z0-9_\ ]*|'') die "FP_FIO_SYNC_POLICIES: policy names, not '$policies'" ;;
esac

fio_rig "$out"

# boot CONFIG NAME [TRACE]: one boot of CONFIG; its console to NAME.log.
boot()
{
	local cfg=$1 name=$2 trace=${3:-} intree=1 smmu append qextra fio

	case $cfg in
	flushpol-share) intree=0 smmu=flushpol append=flushpol_smmuv3.cmdq_share=1 ;;
	flushpol-noshare) intree=0 smmu=flushpol append=flushpol_smmuv3.cmdq_share=0 ;;
	upstream-strict) smmu=upstream-strict append= ;;
	upstream-lazy) smmu=upstream-lazy append=iommu.strict=0 ;;
	esac
	# The command line's quotes keep each list one value of init's.
	fio="FP_FIO_JOBS=\"$jobs\" FP_FIO_POLICIES=\"$policies\""
	qextra="-smp 4 -drive file=$img,if=none,format=raw,id=nvm"
	qextra+=" -device nvme,serial=flushpol,drive=nvm"
	if [ -n "$trace" ]; then
		# No ramp: every command between the marks is a counted I/O's.
		fio+=" FP_FIO_TIME=1 FP_FIO_RAMP=0 FP_FIO_MARK=2"
		qextra+=" -trace smmuv3_cmdq_opcode -trace smmuv3_cmdq_tlbi_nh_asid"
		qextra+=" -trace smmuv3_write_mmio -trace smmuv3_read_mmio"
		qextra+=" -D $trace"
	else
		fio+=" FP_FIO_TIME=$t FP_FIO_RAMP=$ramp"
	fi
	log "$name: $cfg"
	GUEST_IN_TREE_SMMU=$intree GUEST_KMODS=nvme GUEST_ROOT_EXTRA=$root QEMU_EXTRA=$qextra \
	GUEST_APPEND="FP_FIO_SMMU=$smmu $fio $append" \
		"$here/run-guest.sh" "$FP_TOP/e2e/guest-fio.sh" 1800 \
		2>>"$out/run.log" || { tail -n 20 "$out/run.log" >&2; die "FAIL: $name"; }
	cp "$FLUSHPOL_QEMU_OUT/run/guest-fio/console.log" "$out/$name.log"
	# The parameter reached flushpol_smmuv3 as the module reads it.
	case $cfg in
	flushpol-share) grep -q 'fio: cmdq_share=Y' "$out/$name.log" ||
		die "$name: flushpol_smmuv3 did not report cmdq_share=Y" ;;
	flushpol-noshare) grep -q 'fio: cmdq_share=N' "$out/$name.log" ||
		die "$name: flushpol_smmuv3 did not report cmdq_share=N" ;;
	esac
}

start=$SECONDS
load0=$(cut -d' ' -f1-3 /proc/loadavg)
log "$rounds timed rounds and $count_rounds traced of ${configs// /, };" \
    "numjobs ${numjobs// /, }; policies ${policies// /, }"
for r in $(seq "$rounds"); do
	for c in $configs; do
		boot "$c" "$c-$r"
	done
done
for r in $(seq "$count_rounds"); do
	for c in $configs; do
		boot "$c" "$c-count$r" "$out/$c-count$r.trace"
	done
done
took=$(((SECONDS - start + 30) / 60))

res=$FP_RESULTS
mkdir -p "$res"
md=$res/fio-syncs.md
skipped=$(sed -n 's/\r$//; s/^fio: policy \([^ ]*\) not offered.*/\1/p' \
	"$out"/flushpol-*.log 2>/dev/null | sort -u | tr '\n' ' ')
skipped=${skipped% }
{
	echo "Measured $(date -u +%F) at $(git -C "$FP_TOP" describe --always --dirty 2>/dev/null ||
		echo "a tree"): Debian's arm64 $KVER kernel and fio"
	echo "$(basename "${root%/root}" | sed 's/^fio-//'), qemu-system-aarch64" \
	     "$(qemu-system-aarch64 --version | head -n 1 | awk '{print $4}')" \
	     "-M virt,iommu=smmuv3 -smp 4 (TCG), -device nvme on a raw image, $(nproc) host cores;"
	echo "4K random read, direct, libaio, QD32 per job; $rounds timed rounds" \
	     "(${t}s per job after ${ramp}s of ramp) and $count_rounds traced;" \
	     "$took minutes; host load average $load0 before, $(cut -d' ' -f1-3 /proc/loadavg) after."
	echo "flushpol's strict policies asked for: ${policies}${skipped:+; not offered by the context, left out: $skipped}."
	echo
	python3 "$here/fio-syncs-table.py" "$out"
} >"$md"
cat "$md"
log "wrote $md in $took minutes"
