#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Usage: scripts/qemu/idle-check.sh [ROUNDS]
#
# Is the guest slower, or busy while idle, with flushpol_smmuv3 than with
# the upstream arm-smmu-v3?  ROUNDS (default 1) boots of each, in turn,
# running e2e/guest-idle.sh; the consoles are left in
# $FLUSHPOL_QEMU_OUT/idle-{flushpol,upstream}-N.log.  A diagnosis, not a
# test: nothing is asserted.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib.sh
. "$here/../lib.sh"
export FLUSHPOL_QEMU_OUT=${FLUSHPOL_QEMU_OUT:-$FP_TOP/build/idle-check}
out=$FLUSHPOL_QEMU_OUT
rounds=${1:-1}

eval "$("$here/prepare.sh")"
mkdir -p "$out"
fp_qemu_stage_modules "$out"
rm -f "$out"/idle-*.log
for r in $(seq "$rounds"); do
	GUEST_APPEND="deferred_probe_timeout=1" \
		"$here/run-guest.sh" "$FP_TOP/e2e/guest-idle.sh" 300
	cp "$out/run/guest-idle/console.log" "$out/idle-flushpol-$r.log"
	GUEST_IN_TREE_SMMU=1 "$here/run-guest.sh" "$FP_TOP/e2e/guest-idle.sh" 300
	cp "$out/run/guest-idle/console.log" "$out/idle-upstream-$r.log"
done
grep -hE 'fp-phase|idle: (shloop|snap)' "$out"/idle-*.log
