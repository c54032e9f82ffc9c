#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Where the instructions of a 4K map and of a strict 4K unmap run, by
function, through each flushpol policy and the upstream driver: from the
profile boots of FP_INSN_PROFILE=1 scripts/qemu/insn-count.sh.

    insn-profile.py DIR

DIR holds profile-DRIVER.log (a console: the windows' "fp-insn:" lines
and the guest's "ksym: ADDRESS NAME" text symbols) and profile-DRIVER
.plugin (insn-window.c with profile=on: "fp-profile: WINDOW VADDR INSNS"
per translated block, and the window's "fp-window:" total).  A block is
named by the symbol at or below its first address.  Per operation: a
window's instructions over its N.
"""
import bisect
import collections
import glob
import os
import re
import sys

ORDER = ("upstream", "va", "range", "asid", "threshold", "adaptive")
ROWS_MIN = 1.0  # instructions per operation, in some column


def parse(console, plugin):
    addrs, names = [], []
    for a, name in sorted(
            (int(a, 16), n.strip().replace("\t", " "))
            for a, n in re.findall(r"ksym: ([0-9a-f]+) (.*)", console)):
        addrs.append(a)
        names.append(name)
    prof = collections.defaultdict(list)
    total = {}
    for line in plugin.splitlines():
        m = re.match(r"fp-profile: (\d+) ([0-9a-f]+) (\d+)", line)
        if m:
            prof[int(m.group(1))].append((int(m.group(2), 16),
                                          int(m.group(3))))
            continue
        m = re.match(r"fp-window: (\d+) insns=(\d+)", line)
        if m:
            total[int(m.group(1))] = int(m.group(2))
    # (policy, op) -> (n, window)
    wins, policy = {}, None
    for line in console.splitlines():
        m = re.search(r"insn: policy=(\w+) round=", line)
        if m:
            policy = m.group(1)
            continue
        m = re.search(r"fp-insn: n=(\d+) map=(\d+) unmap=(\d+)", line)
        if m and policy:
            wins[(policy, "map")] = (int(m.group(1)), int(m.group(2)))
            wins[(policy, "unmap")] = (int(m.group(1)), int(m.group(3)))

    def name(vaddr):
        i = bisect.bisect_right(addrs, vaddr) - 1
        return names[i] if i >= 0 else f"{vaddr:#x}"
    out = {}
    for key, (n, w) in wins.items():
        funcs = collections.Counter()
        for vaddr, insns in prof.get(w, ()):
            funcs[name(vaddr)] += insns
        out[key] = (n, funcs, total.get(w, 0))
    return out


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else "."
    cols = {}
    for path in sorted(glob.glob(os.path.join(d, "profile-*.log"))):
        with open(path, errors="replace") as f:
            console = f.read()
        with open(os.path.splitext(path)[0] + ".plugin",
                  errors="replace") as f:
            plugin = f.read()
        cols.update(parse(console, plugin))
    if not cols:
        print("No profile (no profile-*.log with fp-insn lines).")
        sys.exit(1)
    pols = sorted({p for p, _ in cols},
                  key=lambda p: ORDER.index(p) if p in ORDER else 99)
    print("Instructions per operation by function (a translated block "
          "counted whole, named by the symbol at or below its start; "
          f"rows of at least {ROWS_MIN:g} in some column).")
    for op in ("map", "unmap"):
        here = [p for p in pols if (p, op) in cols]
        per = {p: {f: c / cols[(p, op)][0]
                   for f, c in cols[(p, op)][1].items()} for p in here}
        funcs = sorted({f for p in here for f, v in per[p].items()
                        if v >= ROWS_MIN},
                       key=lambda f: (-max(per[p].get(f, 0) for p in here),
                                      f))
        print()
        print(f"4K {op}:")
        print()
        print("| function | " + " | ".join(
            "upstream" if p == "upstream" else f"`{p}`" for p in here)
            + " |")
        print("|---|" + "---|" * len(here))
        for f in funcs:
            print(f"| `{f}` | " + " | ".join(
                f"{per[p][f]:.2f}" if f in per[p] else "" for p in here)
                + " |")
        print("| all blocks | " + " | ".join(
            f"{sum(cols[(p, op)][1].values()) / cols[(p, op)][0]:.2f}"
            for p in here) + " |")
        print("| the window (insn-window.c) | " + " | ".join(
            f"{cols[(p, op)][2] / cols[(p, op)][0]:.2f}" for p in here)
            + " |")


if __name__ == "__main__":
    main()
