#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""fio-bench.sh's report: markdown tables on stdout, the plot's data file.

    fio-table.py DIR DAT

DIR holds CONFIG-ROUND.log, the consoles of the timed boots, and, for the
upstream driver, CONFIG-count.log and CONFIG.trace: a boot with QEMU
tracing the commands its SMMUv3 consumed, each job preceded by a mark
(two CMD_TLBI_NH_ASID of the edu device's ASID, each with its CMD_SYNC).
Each fio line of guest-fio.sh carries the job's block-layer KiB (ramp
included) and flushpol's statistics over the same span (zero when flushpol
does not drive the SMMU), and fio's --minimal line (terse v3).  Rounds
pair by ROUND: each flushpol column against upstream in the same mode gets
a 95% interval by bootstrap over them (scripts/interval.py); with fewer
than 5 rounds the tables say their figures are indicative only.
"""
import glob
import os
import re
import statistics
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                ".."))
import interval  # noqa: E402

JOBS = {  # name: (label, block size in KiB, read?)
    "rr4k": ("4K random read, QD32 x 2 jobs", 4, True),
    "sr128k": ("128K sequential read, QD8", 128, True),
    "sr1m": ("1M sequential read, QD8", 1024, True),
    "rw4k": ("4K random write, QD32 x 2 jobs", 4, False),
    "sw128k": ("128K sequential write, QD8", 128, False),
    "sw1m": ("1M sequential write, QD8", 1024, False),
}
COLUMNS = ["va", "range", "asid", "threshold", "nonstrict",
           "upstream-strict", "upstream-lazy", "bypass"]
STRICT = ["va", "range", "asid", "threshold"]
LINE = re.compile(r"fio: smmu=(\S+) policy=(\S+) job=(\S+) reqs=(\d+) kib=(\d+) "
                  r"tlbi_va=(\d+) tlbi_range=(\d+) tlbi_asid=(\d+) "
                  r"tlbi_all=(\d+) syncs=(\d+) terse=(\S+)")


def lines(path):
    """(column, job, dict) for each fio line of a console."""
    for line in open(path, errors="replace"):
        m = LINE.search(line)
        if not m:
            continue
        smmu, pol, job = m.group(1), m.group(2), m.group(3)
        col = pol if smmu == "flushpol" else smmu
        t = m.group(11).split(";")
        read = JOBS[job][2]
        # terse v3: read kb;bw;iops at fields 6-8, write at 47-49.
        bw, iops = (int(t[6]), float(t[7])) if read else (int(t[47]), float(t[48]))
        yield col, job, {
            "reqs": int(m.group(4)), "kib": int(m.group(5)),
            "cmds": sum(int(m.group(i)) for i in range(6, 10)),
            "syncs": int(m.group(10)), "bw": bw, "iops": iops,
        }


def marks_split(trace):
    """Per marked segment of a traced boot: (TLBIs, syncs)."""
    ops = []
    for line in open(trace, errors="replace"):
        m = re.search(r"smmuv3_cmdq_opcode\s+<---\s+(?:SMMU_)?(\S+)", line)
        if m:
            ops.append([m.group(1), None])
            continue
        m = re.search(r"smmuv3_cmdq_tlbi_nh_asid\s+asid=(\d+)", line)
        if m and ops and ops[-1][0] == "CMD_TLBI_NH_ASID":
            ops[-1][1] = int(m.group(1))
    quads = {}
    for i in range(len(ops) - 3):
        a = ops[i][1]
        if (a is not None and [o[0] for o in ops[i:i + 4]] ==
                ["CMD_TLBI_NH_ASID", "CMD_SYNC"] * 2 and ops[i + 2][1] == a):
            quads.setdefault(a, []).append(i)
    if not quads:
        return []
    # The edu domain's ASID: one that appears in marks only.  A lazy NVMe
    # domain's flush queue sends NH_ASID + SYNC of its own ASID too, at
    # times twice in a row, but also alone.
    uses = {}
    for op, a in ops:
        if op == "CMD_TLBI_NH_ASID":
            uses[a] = uses.get(a, 0) + 1
    only = [a for a in quads if uses[a] == 2 * len(quads[a])]
    if len(only) != 1:
        return []
    starts = quads[only[0]]
    segs = []
    for s, e in zip(starts, starts[1:]):
        seg = [o[0] for o in ops[s + 4:e]]
        segs.append((sum(o.startswith("CMD_TLBI_") for o in seg),
                     seg.count("CMD_SYNC")))
    return segs


def collect(d):
    """{(col, job): [run dicts]} over the timed boots; counts of upstream."""
    runs, counts = {}, {}
    for path in sorted(glob.glob(os.path.join(d, "*-[0-9]*.log"))):
        rnd = int(re.search(r"-(\d+)\.log$", path).group(1))
        for col, job, v in lines(path):
            v["round"] = rnd
            runs.setdefault((col, job), []).append(v)
    for path in sorted(glob.glob(os.path.join(d, "*-count.log"))):
        trace = path[:-len("-count.log")] + ".trace"
        if not os.path.exists(trace):
            continue
        segs = marks_split(trace)
        got = list(lines(path))
        if len(segs) != len(got):
            print(f"({os.path.basename(trace)}: {len(segs)} marked segments "
                  f"for {len(got)} jobs: not counted)\n")
            continue
        for (col, job, v), (tlbi, syncs) in zip(got, segs):
            ios = v["kib"] / JOBS[job][1]
            counts[(col, job)] = (tlbi / ios, syncs / ios, v["reqs"] / ios)
    return runs, counts


def perf(job, v):
    """The job's figure: kIOPS at 4K, MiB/s above."""
    return v["iops"] / 1000 if JOBS[job][1] == 4 else v["bw"] / 1024


def fmt(x):
    return f"{x:.1f}" if x < 100 else f"{x:.0f}"


def main(d, dat):
    runs, counts = collect(d)
    cols = [c for c in COLUMNS if any(k[0] == c for k in runs)]
    jobs = [j for j in JOBS if any(k[1] == j for k in runs)]
    if not cols:
        sys.exit("fio-table: no fio results in " + d)
    med = {}
    print("Throughput, median (min - max) over rounds: kIOPS at 4K, MiB/s above\n")
    print("| job | " + " | ".join(cols) + " |")
    print("|---" * (len(cols) + 1) + "|")
    for j in jobs:
        row = []
        for c in cols:
            xs = [perf(j, v) for v in runs.get((c, j), [])]
            if not xs:
                row.append("-")
                continue
            med[(c, j)] = (statistics.median(xs), min(xs), max(xs))
            row.append(f"{fmt(med[(c, j)][0])} ({fmt(min(xs))} - {fmt(max(xs))})")
        print(f"| {JOBS[j][0]} | " + " | ".join(row) + " |")

    against = against_upstream(cols, jobs, runs)

    print("\nInvalidation commands / CMD_SYNCs per fio I/O (flushpol: its "
          "statistics over the timed runs; upstream: QEMU's trace of a "
          "separate boot; bypass sends none)\n")
    print("| job | " + " | ".join(cols) + " |")
    print("|---" * (len(cols) + 1) + "|")
    for j in jobs:
        row = []
        for c in cols:
            vs = runs.get((c, j), [])
            if c == "bypass":
                row.append("0 / 0")
            elif c.startswith("upstream"):
                x = counts.get((c, j))
                row.append(f"{x[0]:.2f} / {x[1]:.2f}" if x else "not counted")
            elif vs:
                ios = sum(v["kib"] for v in vs) / JOBS[j][1]
                row.append(f"{sum(v['cmds'] for v in vs) / ios:.2f} / "
                           f"{sum(v['syncs'] for v in vs) / ios:.2f}")
            else:
                row.append("-")
        print(f"| {JOBS[j][0]} | " + " | ".join(row) + " |")

    print("\nBlock-layer requests per fio I/O (the NVMe queue's "
          "max_sectors_kb splits large I/Os):\n")
    print("| job | " + " | ".join(cols) + " |")
    print("|---" * (len(cols) + 1) + "|")
    for j in jobs:
        row = []
        for c in cols:
            vs = runs.get((c, j), [])
            ios = sum(v["kib"] for v in vs) / JOBS[j][1]
            row.append(f"{sum(v['reqs'] for v in vs) / ios:.2f}" if vs else "-")
        print(f"| {JOBS[j][0]} | " + " | ".join(row) + " |")

    priced(cols, jobs, runs, counts)
    targets(med, cols, jobs, runs, against)

    with open(dat, "w") as f:
        # Median throughput against bypass's, per job and configuration.
        f.write("job " + " ".join(cols) + "\n")
        for j in jobs:
            base = med.get(("bypass", j), (None,))[0]
            vals = []
            for c in cols:
                x = med.get((c, j))
                vals.append(f"{100 * x[0] / base:.1f}" if x and base else "NaN")
            f.write(f"{j} " + " ".join(vals) + "\n")


# Each flushpol column against the upstream configuration of its mode.
BASELINE = {p: "upstream-strict" for p in STRICT}
BASELINE["nonstrict"] = "upstream-lazy"


def against_upstream(cols, jobs, runs):
    """The table of flushpol / upstream throughput with 95% intervals by
    bootstrap over the rounds that ran both (interval.py); with fewer
    rounds, a warning that the figures are indicative only.  Returns
    {(col, job): (ratio, low, high)}."""
    out, rounds = {}, 0
    pairs = [(c, BASELINE[c]) for c in cols
             if c in BASELINE and BASELINE[c] in cols]
    for c, base in pairs:
        for j in jobs:
            ours = {v["round"]: perf(j, v) for v in runs.get((c, j), [])}
            theirs = {v["round"]: perf(j, v) for v in runs.get((base, j), [])}
            common = sorted(set(ours) & set(theirs))
            if common:
                rounds = max(rounds, len(common))
                out[(c, j)] = interval.interval(
                    [[ours[r]] for r in common], [[theirs[r]] for r in common])
    if not out:
        return out
    if rounds < interval.MIN_ROUNDS:
        print(f"\n**Indicative only**: {rounds} round(s), one boot per "
              "configuration in each.  Between boots under TCG on a shared "
              "host the same configuration moves by more than the "
              "differences above, so none of them can be read as real; "
              f"`make bench` runs at least {interval.MIN_ROUNDS} alternating "
              "rounds and gives each ratio its interval.")
        return out
    print("\nAgainst upstream: flushpol's median throughput over upstream's "
          "in the same mode (strict policies against upstream strict, "
          "`nonstrict` against upstream lazy; >1: flushpol faster), and its "
          f"95% interval by bootstrap over the {rounds} rounds (each round's "
          "boots kept together, Documentation/benchmarks.rst).  An interval "
          "that holds 1.0 is no difference measured.\n")
    shown = [c for c, _ in pairs]
    print("| job | " + " | ".join(shown) + " |")
    print("|---" * (len(shown) + 1) + "|")
    for j in jobs:
        cells = [interval.text(*out[(c, j)], rounds) if (c, j) in out else "-"
                 for c in shown]
        print(f"| {JOBS[j][0]} | " + " | ".join(cells) + " |")
    return out


def per_io(c, j, runs, counts):
    """(commands, syncs, requests) per fio I/O of column c, job j."""
    vs = runs.get((c, j), [])
    if not vs:
        return None
    ios = sum(v["kib"] for v in vs) / JOBS[j][1]
    reqs = sum(v["reqs"] for v in vs) / ios
    if c == "bypass":
        return 0, 0, reqs
    if c.startswith("upstream"):
        x = counts.get((c, j))
        return (x[0], x[1], reqs) if x else None
    return (sum(v["cmds"] for v in vs) / ios,
            sum(v["syncs"] for v in vs) / ios, reqs)


def priced(cols, jobs, runs, counts):
    """The strict command counts at the seed's SM8150 figures: 1.85 us for
    a 4K unmap (its TLBIVA and sync included), 0.13 us per further command
    (32 MiB, 8192 TLBIVAs: 1033 us).  An estimate for silicon, not TCG's."""
    strict = [c for c in cols if c in STRICT or c == "upstream-strict"]
    if not strict:
        return
    print("\nStrict commands priced at the seed's SM8150 figures, us of "
          "invalidation per fio I/O: 1.85 per request's unmap (one command "
          "and its sync), 0.13 per further command\n")
    print("| job | " + " | ".join(strict) + " |")
    print("|---" * (len(strict) + 1) + "|")
    for j in jobs:
        row = []
        for c in strict:
            x = per_io(c, j, runs, counts)
            row.append(f"{1.85 * x[2] + 0.13 * max(x[0] - x[2], 0):.1f}"
                       if x else "-")
        print(f"| {JOBS[j][0]} | " + " | ".join(row) + " |")


def targets(med, cols, jobs, runs, against):
    """The issue's targets, reported, never asserted."""
    out = []
    for j in ("sr1m", "sr128k"):
        have = [p for p in STRICT if (p, j) in med]
        if not have or ("upstream-lazy", j) not in med:
            continue
        best = max(have, key=lambda p: med[(p, j)][0])
        lazy = med[("upstream-lazy", j)][0]
        strict = med.get(("upstream-strict", j), (0,))[0]
        b = med[(best, j)][0]
        ok = b >= 0.9 * lazy and b > strict
        out.append(f"- {JOBS[j][0]}: best strict policy `{best}` at "
                   f"{100 * b / lazy:.0f}% of upstream lazy, "
                   f"{100 * b / strict:.0f}% of upstream strict "
                   f"(target: at least 90% and above): "
                   f"{'met' if ok else '**missed**'}")
    j = "rr4k"
    for p in STRICT + ["nonstrict"]:
        base = BASELINE[p]
        if (p, j) not in med or (base, j) not in med:
            continue
        vs = runs[(p, j)]
        ios = sum(v["kib"] for v in vs) / 4
        c, s = sum(v["cmds"] for v in vs) / ios, sum(v["syncs"] for v in vs) / ios
        out.append(f"- 4K random read, `{p}`: {fmt(med[(p, j)][0])} kIOPS "
                   f"against {base}'s {fmt(med[(base, j)][0])}: "
                   + (interval.text(*against[(p, j)]) if (p, j) in against
                      else "no round ran both")
                   + (f", {c:.2f} commands and {s:.2f} syncs per I/O "
                      "(target 1 and 1)" if p in STRICT else ""))
    if out:
        print("\nTargets (reported, never asserted):\n")
        print("\n".join(out))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
