#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""fio-syncs.sh's report: markdown tables on stdout.

    fio-syncs-table.py DIR

DIR holds CONFIG-ROUND.log, the consoles of the timed boots, and
CONFIG-countROUND.log with CONFIG-countROUND.trace, the traced boots:
QEMU's trace of every command the SMMUv3 consumed (smmuv3_cmdq_opcode,
smmuv3_cmdq_tlbi_nh_asid), in which guest-fio.sh (FP_FIO_MARK=2) put a
mark before and after each fio run: flushpol_edu_upstream's two
CMD_TLBI_NH_ASID of the edu device's ASID, each with its CMD_SYNC.  What
lies between a run's two marks is that run's commands, nothing else: its
I/O count is the block layer's over the same span, in 4 KiB units.

CONFIG: upstream-strict, upstream-lazy (the in-tree arm-smmu-v3 driver),
flushpol-share and flushpol-noshare (flushpol_smmuv3 with cmdq_share 1 and
0, its strict policies taking turns at each job).  Timed rounds pair by
ROUND: each column against upstream lazy gets a 95% interval by bootstrap
over them (scripts/interval.py); fewer than interval.MIN_ROUNDS rounds
give the ratio alone.  The issue's targets are printed, never asserted.
"""
import collections
import glob
import os
import re
import statistics
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                ".."))
import interval  # noqa: E402

JOBS = {"rr4k1": 1, "rr4k2": 2, "rr4k4": 4}  # name: fio's numjobs
UPSTREAM = ["upstream-strict", "upstream-lazy"]
SHARE = {"flushpol-share": "share", "flushpol-noshare": "no share"}
LAZY = "upstream-lazy"
# The seed's SM8150 figures in us: a command, a sync (benchmarks.rst).
CMD_US, SYNC_US = 0.126, 1.728
LINE = re.compile(r"fio: smmu=(\S+) policy=(\S+) job=(\S+) reqs=(\d+) kib=(\d+) "
                  r"tlbi_va=(\d+) tlbi_range=(\d+) tlbi_asid=(\d+) "
                  r"tlbi_all=(\d+) syncs=(\d+) terse=(\S+)")
MARK = re.compile(r"fio: mark (job=\S+|stop)")
OPCODE = re.compile(r"smmuv3_cmdq_opcode\s+<---\s+(?:SMMU_)?(?:CMD_)?(\S+)")
ASID = re.compile(r"smmuv3_cmdq_tlbi_nh_asid\s+asid=(\d+)")
# A CMDQ_PROD write (0x98; QEMU consumes the queue in it: it belongs with
# the commands after it), a CMDQ_CONS read (0x9c: with those before it).
TRAPS = {"prod_writes": (re.compile(r"smmuv3_write_mmio\s+addr:\s*0x98\b"),
                         0),
         "cons_reads": (re.compile(r"smmuv3_read_mmio\s+addr:\s*0x9c\b"),
                        1)}


def column(cfg, policy):
    """A table's column: the upstream configuration, or policy and share."""
    return cfg if cfg in UPSTREAM else f"{policy} ({SHARE[cfg]})"


def lines(path):
    """(column, job, dict) for each fio line of a console."""
    cfg = re.sub(r"-(count)?\d+\.log$", "", os.path.basename(path))
    for line in open(path, errors="replace"):
        m = LINE.search(line)
        if not m or m.group(3) not in JOBS:
            continue
        t = m.group(11).split(";")
        yield column(cfg, m.group(2)), m.group(3), {
            "reqs": int(m.group(4)), "ios": int(m.group(5)) / 4,
            "sync_calls": int(m.group(10)), "iops": float(t[7]),
        }


def marks(path):
    """How many marks the guest put into the command stream."""
    return sum(1 for line in open(path, errors="replace") if MARK.search(line))


def segments(trace, n):
    """The opcodes between each start mark and its stop mark, as Counters,
    given the n marks the guest wrote; None if the marks are not found as
    n of them, all of one ASID that appears in nothing else.  The traps
    of TRAPS are counted into the segment of the commands they come
    between, if the trace has any."""
    ops, traps = [], {k: [] for k in TRAPS}
    for line in open(trace, errors="replace"):
        m = OPCODE.search(line)
        if m:
            ops.append([m.group(1), None])
            continue
        for k, (r, _) in TRAPS.items():
            if r.search(line):
                traps[k].append(len(ops))
        m = ASID.search(line)
        if m and ops and ops[-1][0] == "TLBI_NH_ASID":
            ops[-1][1] = int(m.group(1))
    quads, uses = {}, collections.Counter()
    i = 0
    while i < len(ops):
        op, a = ops[i]
        if op == "TLBI_NH_ASID":
            uses[a] += 1
            if (a is not None and i + 3 < len(ops) and
                    [o[0] for o in ops[i:i + 4]] ==
                    ["TLBI_NH_ASID", "SYNC"] * 2 and ops[i + 2][1] == a):
                quads.setdefault(a, []).append(i)
                uses[a] += 1
                i += 4
                continue
        i += 1
    edu = [a for a, q in quads.items() if len(q) == n and uses[a] == 2 * n]
    if len(edu) != 1 or n % 2:
        return None
    starts = quads[edu[0]]
    segs = []
    for k in range(0, n, 2):
        lo, hi = starts[k] + 4, starts[k + 1]
        seg = collections.Counter(o[0] for o in ops[lo:hi])
        for t, at in traps.items():
            after = TRAPS[t][1]
            if at:
                seg[t] = sum(1 for p in at if lo + after <= p < hi + after)
        segs.append(seg)
    return segs


def collect(d):
    """Timed runs {(col, job): {round: iops}}; traced counts
    {(col, job): [per traced round: {"SYNC": per I/O, opcode: per I/O,
    "cmds": per I/O, "sync_calls": per I/O, "reqs": per I/O}]};
    and the traced boots whose marks were not found."""
    runs, counts, lost = {}, {}, []
    for path in sorted(glob.glob(os.path.join(d, "*-[0-9]*.log"))):
        rnd = int(re.search(r"-(\d+)\.log$", path).group(1))
        for col, job, v in lines(path):
            runs.setdefault((col, job), {})[rnd] = v["iops"]
    for path in sorted(glob.glob(os.path.join(d, "*-count[0-9]*.log"))):
        trace = path[:-len(".log")] + ".trace"
        got = list(lines(path))
        segs = segments(trace, marks(path)) if os.path.exists(trace) else None
        if segs is None or len(segs) != len(got):
            lost.append(os.path.basename(trace))
            continue
        for (col, job, v), seg in zip(got, segs):
            ios = v["ios"]
            x = {op: c / ios for op, c in seg.items()}
            x.setdefault("SYNC", 0.0)
            x["cmds"] = sum(c for op, c in seg.items()
                            if op != "SYNC" and op not in TRAPS) / ios
            x["sync_calls"] = v["sync_calls"] / ios
            x["reqs"] = v["reqs"] / ios
            counts.setdefault((col, job), []).append(x)
    return runs, counts, lost


def priced_us(x):
    """SMMU time per I/O at the seed's figures, from one traced round."""
    return x["cmds"] * CMD_US + x["SYNC"] * SYNC_US


def spread(xs, digits=3):
    """A count over traced rounds: the value if every round gave it (at
    the digits shown), else median (min - max)."""
    lo, hi = f"{min(xs):.{digits}f}", f"{max(xs):.{digits}f}"
    if lo == hi:
        return lo
    return f"{statistics.median(xs):.{digits}f} ({lo} - {hi})"


def order(keys):
    """Upstream's columns first, then flushpol's by policy, share first."""
    cols = sorted({k[0] for k in keys})
    up = [c for c in UPSTREAM if c in cols]
    fp = sorted((c for c in cols if c not in UPSTREAM),
                key=lambda c: (c.split(" ")[0], "no share" in c))
    return up + fp


def count_tables(counts, lost, traced):
    print(f"Commands the SMMU consumed per fio I/O, QEMU's trace of "
          f"{traced} traced boot(s) of each configuration (no ramp, 1 s "
          "jobs): a figure alone is the same in every traced boot, else "
          "median (min - max) over them.  `sync calls` is flushpol's own "
          "count of syncs asked for (stats/syncs); `CMD_SYNC` what the SMMU "
          "consumed.  Requests: the block layer's, per I/O.  `SMMU us`: "
          "what the SMMU spends on them per I/O, priced at the seed's "
          f"SM8150 figures ({CMD_US * 1000:.0f} ns a command, "
          f"{SYNC_US * 1000:.0f} ns a CMD_SYNC): the time QEMU does not "
          "charge.  `PROD writes` and `CONS reads`: the guest's writes of "
          "CMDQ_PROD (QEMU consumes the queue in each) and reads of "
          "CMDQ_CONS, each a trap out of the guest into QEMU under its "
          "global lock; `-` where the trace has none of them.\n")
    if lost:
        print("(marks not found, not counted: " + ", ".join(lost) + ")\n")
    opcodes = sorted({op for xs in counts.values() for x in xs for op in x}
                     - {"SYNC", "cmds", "sync_calls", "reqs"} - set(TRAPS))
    cols = order(counts)
    for j, nj in JOBS.items():
        if not any(k[1] == j for k in counts):
            continue
        print(f"4K random read, QD32, numjobs {nj}:\n")
        head = (["CMD_SYNC", "sync calls", "commands"] + opcodes +
                ["requests", "PROD writes", "CONS reads", "SMMU us"])
        print("| configuration | " + " | ".join(head) + " |")
        print("|---" * (len(head) + 1) + "|")
        for c in cols:
            xs = counts.get((c, j))
            if not xs:
                continue
            cells = [spread([x["SYNC"] for x in xs]),
                     "-" if c in UPSTREAM else
                     spread([x["sync_calls"] for x in xs]),
                     spread([x["cmds"] for x in xs])]
            cells += [spread([x.get(op, 0.0) for x in xs]) for op in opcodes]
            cells.append(spread([x["reqs"] for x in xs]))
            for t in TRAPS:
                cells.append(spread([x[t] for x in xs])
                             if all(t in x for x in xs) else "-")
            cells.append(spread([priced_us(x) for x in xs]))
            print(f"| {c} | " + " | ".join(cells) + " |")
        print()


def timing_tables(runs):
    """The throughput table and each column against upstream lazy;
    returns {(col, job): (ratio, low, high)} and the rounds paired."""
    cols = order(runs)
    jobs = [j for j in JOBS if any(k[1] == j for k in runs)]
    print("Throughput in the untraced boots, kIOPS, median (min - max) "
          "over rounds:\n")
    print("| numjobs | " + " | ".join(cols) + " |")
    print("|---" * (len(cols) + 1) + "|")
    for j in jobs:
        row = []
        for c in cols:
            xs = [x / 1000 for x in runs.get((c, j), {}).values()]
            row.append(f"{statistics.median(xs):.2f} ({min(xs):.2f} - "
                       f"{max(xs):.2f})" if xs else "-")
        print(f"| {JOBS[j]} | " + " | ".join(row) + " |")
    against, rounds = {}, 0
    for c in cols:
        if c == LAZY:
            continue
        for j in jobs:
            ours, theirs = runs.get((c, j), {}), runs.get((LAZY, j), {})
            common = sorted(set(ours) & set(theirs))
            if common:
                rounds = max(rounds, len(common))
                against[(c, j)] = interval.interval(
                    [[ours[r]] for r in common], [[theirs[r]] for r in common])
    if not against:
        return against, rounds
    shown = [c for c in cols if c != LAZY]
    print(f"\nAgainst upstream lazy: median IOPS over upstream lazy's, "
          f"{rounds} alternating round(s)"
          + (", 95% interval by bootstrap over them (scripts/interval.py; "
             "an interval that holds 1.0 is no difference measured):\n"
             if rounds >= interval.MIN_ROUNDS else
             f": **indicative only**, fewer than {interval.MIN_ROUNDS} "
             "rounds give no interval:\n"))
    print("| numjobs | " + " | ".join(shown) + " |")
    print("|---" * (len(shown) + 1) + "|")
    for j in jobs:
        cells = [interval.text(*against[(c, j)], rounds)
                 if (c, j) in against else "-" for c in shown]
        print(f"| {JOBS[j]} | " + " | ".join(cells) + " |")
    return against, rounds


def targets(counts, against):
    """Issue #30's target at numjobs 4, reported, never asserted."""
    j = "rr4k4"
    fp = [c for c in order(counts) if c not in UPSTREAM and (c, j) in counts]
    print("\nTarget (reported, never asserted): fio 4K random read, "
          "numjobs 4: best strict policy at most 0.5 CMD_SYNC per I/O "
          "(upstream strict: 1.00), and at least 90% of upstream lazy's "
          "throughput with intervals.\n")
    if not fp:
        print("- not measured: no traced boot of flushpol at numjobs 4")
        return
    up = counts.get(("upstream-strict", j))
    syncs = {c: max(x["SYNC"] for x in counts[(c, j)]) for c in fp}
    best = min(fp, key=lambda c: syncs[c])
    print(f"- fewest CMD_SYNCs per I/O, the worst traced boot of each: "
          f"`{best}`, {syncs[best]:.3f} (upstream strict: "
          + (spread([x["SYNC"] for x in up]) if up else "not counted")
          + f"): {'met' if syncs[best] <= 0.5 else '**missed**'}")
    for c in sorted(fp, key=lambda c: syncs[c]):
        a = against.get((c, j))
        if a is None:
            verdict = "not timed"
        elif a[1] is None:
            verdict = (f"{a[0]:.2f}x, no interval: "
                       f"{'met' if a[0] >= 0.9 else 'missed'}, indicative only")
        else:
            verdict = (f"{a[0]:.2f}x (95% {a[1]:.2f}-{a[2]:.2f}): "
                       + ("met" if a[1] >= 0.9 else "**missed**" if a[2] < 0.9
                          else "not settled (the interval holds 0.90)"))
        both = syncs[c] <= 0.5 and a is not None and a[1] is not None \
            and a[1] >= 0.9
        print(f"- `{c}`: {syncs[c]:.3f} CMD_SYNC per I/O; throughput against "
              f"upstream lazy {verdict}" + ("; both met" if both else ""))


def main(d):
    runs, counts, lost = collect(d)
    if not runs and not counts:
        sys.exit("fio-syncs-table: no fio results in " + d)
    traced = len({re.search(r"-count(\d+)\.log$", p).group(1)
                  for p in glob.glob(os.path.join(d, "*-count[0-9]*.log"))})
    count_tables(counts, lost, traced)
    against, _ = timing_tables(runs)
    targets(counts, against)


if __name__ == "__main__":
    main(sys.argv[1])
