#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Guest instructions per 4K map and per strict 4K unmap, from the boots of
scripts/qemu/insn-count.sh, as a Markdown table.

    insn-table.py DIR [--tsv FILE]

DIR holds insn-DRIVER-B.log (a guest console) and insn-DRIVER-B.plugin
(the plugins' output of that boot), DRIVER flushpol or upstream.  Each
"fp-insn: n=N map=I unmap=J" line of a console names the two windows its
N maps and N unmaps ran in, by the index of the marker that ends each;
the "insn: policy=P" line before it names the policy.  A window's counts
are insn-window.c's "fp-window: I ..." line; QEMU's insn.c (its match=
option) prints its own count for the same window, which must agree.
Counts per map or unmap are a window's over N, the loop around the calls
and a marker included: the same source in both edu modules
(edu_bench.h).  --tsv writes one row per driver and operation for
scripts/bench-targets.py.  Exit status 1 if the plugins disagree or a
window is missing.
"""
import argparse
import collections
import fractions
import glob
import os
import re
import sys

FIELDS = ("insns", "loads", "stores", "atomics", "barriers")
ORDER = ("upstream", "va", "range", "asid", "threshold", "adaptive",
         "nonstrict")


def exact(q):
    """A fraction as an exact decimal (N a power of two ends), else a/b."""
    q = fractions.Fraction(q)
    for places in range(0, 10):
        scaled = q * 10 ** places
        if scaled.denominator == 1:
            s = f"{scaled.numerator:0{places + 1}d}"
            return s if not places else f"{s[:-places]}.{s[-places:]}"
    return f"{q.numerator}/{q.denominator}"


def windows(plugin):
    """Marker index -> insn-window.c's counts, and insn.c's counts."""
    ours, qemu = {}, {}
    for line in plugin.splitlines():
        m = re.match(r"fp-window: (\d+) (.*)", line)
        if m:
            ours[int(m.group(1))] = dict(
                (k, int(v)) for k, v in re.findall(r"(\w+)=(\d+)",
                                                   m.group(2)))
            continue
        # insn.c: "0x..., 'hint #0x7f', H hits, M match hits, Δ+D since
        # last match, ..."; its M-th hit ends window M - 1.
        m = re.search(r"'hint #0x7f', \d+ hits, (\d+) match hits, "
                      r"\S+?(\d+) since last match", line)
        if m:
            qemu[int(m.group(1)) - 1] = int(m.group(2))
    return ours, qemu


def boot(name, console, plugin, bad):
    """(policy, op) -> [(boot's counts per window)], N, unusable policies."""
    ours, qemu = windows(plugin)
    got, unusable, policy, n = [], [], None, None
    for line in console.splitlines():
        m = re.search(r"insn: policy=(\w+) (round=\d+|unusable.*)", line)
        if m:
            policy = m.group(1)
            if m.group(2).startswith("unusable"):
                unusable.append(f"{policy} {m.group(2)}")
            continue
        m = re.search(r"fp-insn: n=(\d+) map=(\d+) unmap=(\d+)", line)
        if not m:
            continue
        n = int(m.group(1))
        for op, idx in (("map", int(m.group(2))), ("unmap", int(m.group(3)))):
            w = ours.get(idx)
            if w is None:
                bad.append(f"{name}: no window {idx}")
                continue
            if qemu.get(idx) != w["insns"]:
                bad.append(f"{name}: window {idx} of {policy} {op}: insn.c counts "
                           f"{qemu.get(idx)}, insn-window.c {w['insns']}")
            got.append(((policy, op), tuple(w[f] for f in FIELDS)))
    return got, n, unusable


def cell(vals, n, field):
    """Per operation: exact if every window agrees, else its range."""
    i = FIELDS.index(field)
    lo, hi = min(v[i] for v in vals), max(v[i] for v in vals)
    if lo == hi:
        return exact(fractions.Fraction(lo, n))
    return (f"{exact(fractions.Fraction(lo, n))} to "
            f"{exact(fractions.Fraction(hi, n))}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--tsv")
    a = ap.parse_args()
    bad = []
    # (policy, op) -> boot -> [window counts]
    runs = collections.defaultdict(lambda: collections.defaultdict(list))
    ns, unusable = set(), set()
    logs = sorted(glob.glob(os.path.join(a.dir, "insn-*-*.log")))
    for path in logs:
        plugin = os.path.splitext(path)[0] + ".plugin"
        try:
            with open(path, errors="replace") as f:
                console = f.read()
            with open(plugin, errors="replace") as f:
                out = f.read()
        except FileNotFoundError as e:
            bad.append(f"missing {e.filename}")
            continue
        got, n, unus = boot(os.path.basename(path), console, out, bad)
        if n:
            ns.add(n)
        unusable.update(unus)
        for key, vals in got:
            runs[key][path].append(vals)
    if not runs:
        print("No instruction counts (no fp-insn lines).")
        sys.exit(1)
    if len(ns) != 1:
        bad.append(f"windows of different sizes: {sorted(ns)}")
    n = min(ns)
    pols = sorted({p for p, _ in runs},
                  key=lambda p: ORDER.index(p) if p in ORDER else 99)
    up = [v[0] for b in runs.get(("upstream", "unmap"), {}).values()
          for v in b]

    print(f"Per 4K page, over windows of {n} maps and then {n} strict "
          "unmaps with interrupts off (the loop around the calls and a "
          "marker included, from the same source in both edu modules), "
          "exactly as QEMU's `insn` plugin and "
          "insn-window.c count them"
          + (", which agree at every window." if not bad else "."))
    print()
    print("| driver, policy | map: insns | map: loads / stores / atomics "
          "/ barriers | unmap: insns | unmap: loads / stores / atomics / "
          "barriers | unmap against upstream | windows, boots |")
    print("|---|---|---|---|---|---|---|")
    rows = []
    for p in pols:
        line = ["upstream arm-smmu-v3" if p == "upstream" else f"`{p}`"]
        same = True
        for op in ("map", "unmap"):
            vals = [v for b in runs.get((p, op), {}).values() for v in b]
            if not vals:
                line += ["", ""]
                continue
            same &= len(set(vals)) == 1
            line.append(cell(vals, n, "insns"))
            line.append(" / ".join(cell(vals, n, f) for f in FIELDS[1:]))
            rows.append((p, op, n, min(v[0] for v in vals),
                         max(v[0] for v in vals), len(vals),
                         len(runs[(p, op)]),
                         *(min(v[i] for v in vals)
                           for i in range(1, len(FIELDS)))))
        unmaps = runs.get((p, "unmap"), {})
        vals = [v[0] for b in unmaps.values() for v in b]
        # A count that varies: the policy's highest against upstream's
        # lowest, as scripts/bench-targets.py holds them.
        line.append(f"{max(vals) / min(up):.3f}x"
                    if vals and up and p != "upstream" else "")
        line.append(f"{len(vals)} in {len(unmaps)}, "
                    + ("identical" if same else "**differ**"))
        print("| " + " | ".join(line) + " |")
    print()
    if unusable:
        print("Not measured: " + "; ".join(sorted(unusable)) + ".")
        print()
    for b in bad:
        print(f"**{b}**")
    if a.tsv:
        with open(a.tsv, "w") as f:
            f.write("driver\top\tn\tinsns_min\tinsns_max\twindows\tboots\t"
                    + "\t".join(FIELDS[1:]) + "\n")
            for r in rows:
                f.write("\t".join(map(str, r)) + "\n")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
