#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Usage: scripts/qemu/bench-phases.sh [ROUNDS [REPS]]
#
# Where a small unmap's time goes on QEMU's SMMUv3, flushpol's driver
# against the upstream arm-smmu-v3: ROUNDS (default 3) boots of each, in
# turn ("phases" of the edu modules, e2e/edu_bench.h), REPS (default 32)
# unmaps of 4K, 64K and 1M of 4 KiB pages per policy, each timed as
# iommu_unmap_fast() (the walk and the leaf callbacks) and
# iommu_iotlb_sync() (the invalidation and its wait), a flush_iotlb_all of
# the empty domain (one command and its sync), and a fixed piece of plain
# guest work, the calibration: boots run at different host speeds, and
# the last column compares them as multiples of it.  Prints a markdown
# table, in us, of the medians over the boots of each boot's medians.
# Not part of make bench: a diagnosis, about 30 s a round.
#
# Environment: FLUSHPOL_QEMU_OUT, the rig's directory (default
# build/bench-phases); FP_BENCH_PREBUILT=1, the modules are staged there.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib.sh
. "$here/../lib.sh"
export FLUSHPOL_QEMU_OUT=${FLUSHPOL_QEMU_OUT:-$FP_TOP/build/bench-phases}
out=$FLUSHPOL_QEMU_OUT
rounds=${1:-3}
reps=${2:-32}

eval "$("$here/prepare.sh")"
mkdir -p "$out"
fp_qemu_stage_modules "$out"
rm -f "$out"/phases-*.log
for r in $(seq "$rounds"); do
	GUEST_APPEND="deferred_probe_timeout=1 FP_BENCH_PHASES=1 FP_BENCH_REPS=$reps" \
		"$here/run-guest.sh" "$FP_TOP/e2e/guest-bench.sh" 1200
	cp "$out/run/guest-bench/console.log" "$out/phases-flushpol-$r.log"
	GUEST_IN_TREE_SMMU=1 GUEST_APPEND="FP_BENCH_PHASES=1 FP_BENCH_REPS=$reps" \
		"$here/run-guest.sh" "$FP_TOP/e2e/guest-bench-upstream.sh" 600
	cp "$out/run/guest-bench-upstream/console.log" "$out/phases-upstream-$r.log"
done
python3 - "$out"/phases-*.log <<'PY'
import re, statistics, sys
rows = {}
for path in sys.argv[1:]:
    pol = None
    for line in open(path, errors="replace"):
        m = re.search(r"bench: phases policy=(\S+)", line)
        if m:
            pol = m.group(1)
            continue
        m = re.search(r"fp-phase: size=(\d+) reps=\d+ unmap_fast_ns=(\d+) "
                      r"iotlb_sync_ns=(\d+) flush_all_ns=(\d+) "
                      r"calib_ns=(\d+)", line)
        if m and pol:
            u, s, f, c = (int(x) / 1000 for x in m.groups()[1:])
            rows.setdefault((int(m.group(1)), pol), []).append(
                (u, s, f, c, (u + s) / c))
            pol = None
print("| unmap | driver, policy | boots | iommu_unmap_fast | iommu_iotlb_sync "
      "| flush_iotlb_all | calibration | (unmap_fast + iotlb_sync) / "
      "calibration |")
print("|---|---|---|---|---|---|---|---|")
for (size, p), v in sorted(rows.items()):
    med = [statistics.median(x) for x in zip(*v)]
    print(f"| {size // 1024}K | {p} | {len(v)} | {med[0]:.1f} | {med[1]:.1f} "
          f"| {med[2]:.1f} | {med[3]:.1f} | {med[4]:.2f} |")
PY
