#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The unmap benchmark's table, from the guest console of make demo.

Per size (of 4 KiB pages) and policy: invalidation commands and syncs per
unmap (exact, from flushpol's statistics), median and p99 unmap latency,
and the median's ratio to va measured in the same run.

    bench-table.py CONSOLE
"""
import re
import sys


def human(n):
    for unit, div in (("M", 1 << 20), ("K", 1 << 10)):
        if n >= div and n % div == 0:
            return f"{n // div}{unit}"
    return str(n)


def main(console):
    rows, pol, ril, reps = {}, None, None, 0
    for line in open(console, errors="replace"):
        m = re.search(r"bench: ril=(\d) policy=(\S+)(?: round=\d+)?$",
                      line.strip())
        if m:
            ril, pol = int(m.group(1)), m.group(2)
            continue
        m = re.search(r"fp-bench: size=(\d+) reps=(\d+) median_ns=(\d+) "
                      r"p99_ns=(\d+) min_ns=(\d+) max_ns=(\d+) cmds=(\d+) "
                      r"syncs=(\d+)", line)
        if m and pol:
            size, reps = int(m.group(1)), int(m.group(2))
            rows[(ril, size, pol)] = [int(x) for x in m.group(3, 4, 7, 8)]
    if not rows:
        sys.exit("bench-table: no fp-bench lines")
    print("\n**Indicative only**: one boot, so nothing here says how far "
          "another boot would move these figures; `make bench` alternates "
          "at least 5 rounds with the upstream driver and gives each ratio "
          "its 95% interval.")
    for ril in (1, 0):
        pols = [p for p in ("va", "range", "asid", "threshold")
                if any(k[0] == ril and k[2] == p for k in rows)]
        print(f"\nSMMUv3 {'with' if ril else 'without (forced)'} range "
              f"invalidation: commands / syncs per unmap, median and p99 "
              f"unmap us over {reps} unmaps, median against va\n")
        print("| unmap | " + " | ".join(pols) + " |")
        print("|---|" + "---|" * len(pols))
        for size in sorted({k[1] for k in rows if k[0] == ril}):
            va = rows.get((ril, size, "va"))
            cells = []
            for p in pols:
                r = rows.get((ril, size, p))
                if not r:
                    cells.append("")
                    continue
                med, p99, cmds, syncs = r
                ratio = f" ({va[0] / med:.1f}x)" if va and p != "va" else ""
                cells.append(f"{cmds} / {syncs}, {med / 1000:.0f} / "
                             f"{p99 / 1000:.0f} us{ratio}")
            print(f"| {human(size)} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(sys.argv[1])
