#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""make bench's report: markdown tables, and the data of its plot.

    bench-table.py DIR > bench.md
    bench-table.py --dispatch DEBUG_KTAP NODEBUG_KTAP > dispatch.md
    bench-table.py --qemu QEMU_DIR > qemu-vs-upstream.md
    bench-table.py --mmio COUNTS DATDIR > mmio.md

DIR is scripts/bench.sh's output directory.  What it reads there, each
part optional (a part that is missing is reported as not measured):

  kunit/counts.txt        "fp-count:" lines of the KUnit suites (test kernel)
  kunit/ktap.log          "fp-dispatch:" lines, test kernel
  kunit-nodebug/ktap.log  "fp-dispatch:" lines, UML without debug options
  qemu/flushpol-N.log     guest consoles of e2e/guest-bench.sh, N = 1, 2...
  qemu/upstream-N.log     guest consoles of e2e/guest-bench-upstream.sh
  qemu/upstream.trace     QEMU's command trace of its counting boot

It also writes the plot's data and gnuplot script, DIR/latency.dat and
DIR/latency.gp (gnuplot -e "png='FILE'" DIR/latency.gp): median unmap
latency against size, one line per policy and one for upstream, log-log;
and DIR/against-upstream.tsv, each policy's ratio against upstream with
its interval (scripts/interval.py), for scripts/bench-targets.py.  The
SMMUv2 and Qualcomm section writes DIR/mmio-latency.dat and .gp the same
way (--mmio: that section alone, from a counts file, data in DATDIR).
"""
import contextlib
import glob
import io
import os
import re
import statistics
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import interval  # noqa: E402

SIZES = (4096, 65536, 1 << 20, 2 << 20, 12 << 20, 16 << 20, 24 << 20,
         32 << 20)
POLICIES = ("va", "range", "asid", "threshold")
# The dispatch benchmark runs adaptive too (the QEMU rig does not, yet).
DISPATCH_POLICIES = POLICIES + ("adaptive",)
SZ_32M = 32 << 20
# The count suites' warm second buffer: 2 MiB of 4 KiB pages.
NEIGHBOUR_LEAVES = 512
# The seed thread's 4K unmap on SM8150 (SMMUv2, TLBIVA and TLBSYNC), before
# its change: what a 4K unmap costs once the hardware takes part.
SM8150_4K_NS = 1854
# The same thread's per-command figure: 8192 TLBIVAs in 1033 us.  The rest
# of the 4K unmap is its sync; a refill walk is priced as a command.
SM8150_CMD_NS = 126
SM8150_SYNC_NS = SM8150_4K_NS - SM8150_CMD_NS
SM8150_WALK_NS = 126
# Issue 10: at most half the +38 ns a 4K unmap paid before it (UML
# without debug options).
DISPATCH_TARGET_NS = 19


def human(n):
    for unit, div in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if n >= div and n % div == 0:
            return f"{n // div}{unit}"
    return str(n)


def kv_of(line, tag):
    return dict(f.split("=", 1) for f in line.split(tag, 1)[1].split()
                if "=" in f)


def read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read().splitlines()
    except FileNotFoundError:
        return None


def read_boots(d, name):
    """The consoles d/name-1.log, d/name-2.log..., in boot order, as lists
    of lines."""
    paths = glob.glob(os.path.join(d, f"{name}-[0-9]*.log"))
    paths.sort(key=lambda p: int(re.search(r"-(\d+)\.log$", p).group(1)))
    return [read(p) for p in paths]


# 1. Command counts ---------------------------------------------------------

# (title, columns as (policy, backend tag of the fp-count lines))
COUNT_TABLES = (
    ("SMMUv3 with range invalidation (RIL): CMD_TLBI_* / CMD_SYNC / lost",
     [("va", "smmuv3-ril"), ("range", "smmuv3-ril"), ("asid", "smmuv3-ril"),
      ("threshold", "smmuv3-ril")]),
    ("SMMUv3 without RIL (forced off): CMD_TLBI_* / CMD_SYNC / lost",
     [("va", "smmuv3"), ("asid", "smmuv3"), ("threshold", "smmuv3")]),
    ("SMMUv2: invalidation register writes / TLBSYNC / lost",
     [("va", "smmuv2"), ("asid", "smmuv2"), ("threshold", "smmuv2")]),
    ("QCOM (SMMUv2, Qualcomm's defaults): register writes / TLBSYNC / lost",
     [("threshold", "qcom")]),
    ("The TLB model's own backend: commands / syncs / lost",
     [("va", "model"), ("range", "model-ril"), ("asid", "model"),
      ("threshold", "model"), ("threshold", "model-ril")]),
)


def parse_counts(lines):
    """(backend, policy, size, pgsize) -> (commands, syncs, lost, walks)"""
    out = {}
    for line in lines or ():
        if "fp-count:" not in line:
            continue
        kv = kv_of(line, "fp-count:")
        if "tlbsync" in kv:     # SMMUv2's MMIO lines
            cmds = sum(int(kv[k]) for k in ("tlbiva", "tlbival", "tlbiasid"))
            syncs = int(kv["tlbsync"])
        else:
            cmds = sum(int(kv[k]) for k in ("va", "range", "asid"))
            syncs = int(kv["syncs"])
        key = (kv["backend"], kv["policy"], int(kv["size"]), int(kv["pgsize"]))
        # Upstream's computed counts have no TLB model behind them; but a
        # TLBIASID drops every entry of the context, so upstream
        # arm-smmu-qcom's lose the whole warm neighbour as flushpol's do.
        lost = int(kv["b_lost"]) if "b_lost" in kv else None
        if lost is None and int(kv.get("tlbiasid", 0)):
            lost = NEIGHBOUR_LEAVES
        out[key] = (cmds, syncs, lost, int(kv.get("walks", 0)))
    return out


def counts_section(counts):
    print("### Commands per unmap, exact (KUnit, test kernel)\n")
    if not counts:
        print("Not measured: no fp-count lines (the KUnit run failed?).\n")
        return []
    print("Each unmap is a scatter-gather list of 4 KiB pages (or 2 MiB "
          "blocks) unmapped the way `iommu_unmap()` does it, through the "
          "real io-pgtable-arm, by the shipped backend's own primitives "
          "into the TLB model.  Each cell: invalidation commands (on "
          "SMMUv2, invalidation register writes) / syncs / *collateral*: "
          "leaf entries of a second, warm 2 MiB buffer in the same context "
          "thrown away.  Threshold 128.  Every cell is also asserted by "
          "the suites.\n")
    rows = sorted({(k[3], k[2]) for k in counts})
    for title, cols in COUNT_TABLES:
        present = [c for c in cols
                   if any(k[0] == c[1] and k[1] == c[0] for k in counts)]
        if not present:
            print(f"{title}: not measured (no such suite in this tree).\n")
            continue
        print(f"{title}\n")
        heads = [f"`{p}`" + (" (RIL)" if t.endswith("-ril") and
                             title.startswith("The TLB") else "")
                 for p, t in present]
        print("| unmap | " + " | ".join(heads) + " |")
        print("|---|" + "---|" * len(present))
        for pgsize, size in rows:
            cells = []
            for pol, tag in present:
                c = counts.get((tag, pol, size, pgsize))
                cells.append(f"{c[0]} / {c[1]} / {c[2]}" if c else "")
            print(f"| {human(size)} in {human(pgsize)} pages | "
                  + " | ".join(cells) + " |")
        print()

    # The target: at most one context invalidation per freed table
    # plus one, at 32 MiB of 4 KiB pages.
    seen, missed = [], []
    for tag in ("model", "smmuv3", "smmuv3-ril", "smmuv2", "qcom"):
        for pol in ("threshold", "asid"):
            c = counts.get((tag, pol, SZ_32M, 4096))
            if c:
                seen.append(c)
                if c[0] > c[3] + 1:
                    missed.append(f"{tag} `{pol}` {c[0]} for {c[3]} tables")
    if not seen:
        return []
    va = max((c[0] for k, c in counts.items()
              if k[1:] == ("va", SZ_32M, 4096)), default=None)
    worst = max(seen, key=lambda c: c[0] - c[3])
    note = ("`threshold` and `asid` at 32M of 4 KiB pages: at most "
            f"{worst[0]} invalidations for {worst[3]} freed tables on every "
            f"backend, against {va} for `va` (target: one per freed table "
            "plus one): " + ("**missed**: " + ", ".join(missed) if missed
                             else "met"))
    return [note]


def price_us(c):
    """A cell's cost on silicon at the seed's SM8150 figures, in us: its
    commands, its syncs, and the refill walk of each leaf entry of the warm
    neighbour it threw away (adaptive's cost model, `seed` constants)."""
    return (c[0] * SM8150_CMD_NS + c[1] * SM8150_SYNC_NS
            + (c[2] or 0) * SM8150_WALK_NS) / 1000


def no_ril_section(counts):
    """An SMMU without range invalidation, as the Arm MMU-600: upstream's
    counts computed from its algorithm, flushpol's with force_no_ril=1
    (the shipped smmuv3 backend without RIL), both priced."""
    print("### SMMU without range invalidation (MMU-600)\n")
    up = {k[2:]: c for k, c in counts.items() if k[0] == "upstream-smmuv3"}
    pols = [p for p in ("va", "asid", "threshold")
            if any(k[:2] == ("smmuv3", p) for k in counts)]
    if not up or not pols:
        print("Not measured: no fp-count lines of `flushpol_upstream_counts`"
              " and `flushpol_smmuv3`.\n")
        return []
    print("Arm's MMU-600, common in deployed arm64 servers, has no range "
          "invalidation: there upstream's arm-smmu-v3 sends one "
          "CMD_TLBI_NH_VA per page of a leaf range and per granule of a "
          "freed table.  QEMU's SMMUv3 always offers range invalidation, "
          "and no QEMU in Debian can hide it from the upstream driver "
          "without a host SMMU (Documentation/benchmarks.rst), so nothing "
          "here is timed: upstream's counts are computed by running its "
          "invalidation algorithm under the real io-pgtable-arm "
          "(`flushpol_upstream_counts`), flushpol's are the shipped smmuv3 "
          "backend's without RIL, as `force_no_ril=1` runs it "
          "(`flushpol_smmuv3`); both exact and asserted by those suites.  "
          "Each cell: commands / syncs / leaf entries of a warm 2 MiB "
          "neighbour thrown away, then the cost priced at the seed's SM8150 "
          f"figures ({SM8150_CMD_NS} ns a command, {SM8150_SYNC_NS} ns a "
          f"sync, {SM8150_WALK_NS} ns to refill a lost entry, as if the "
          "neighbour stays busy: an SMMUv2's figures, "
          "the only per-command timings measured; an MMU-600's differ), "
          "and upstream's price over flushpol's (>1: flushpol cheaper).  "
          "Upstream's by-VA commands throw nothing else away.\n")
    print("| unmap | upstream | " + " | ".join(f"`{p}`" for p in pols) + " |")
    print("|---|---|" + "---|" * len(pols))
    for pgsize, size in sorted({(k[1], k[0]) for k in up}):
        u = up[(size, pgsize)]
        cells = [f"{u[0]} / {u[1]}: {price_us(u):.1f} us"]
        for p in pols:
            c = counts.get(("smmuv3", p, size, pgsize))
            cells.append(f"{c[0]} / {c[1]} / {c[2]}: {price_us(c):.1f} us "
                         f"({price_us(u) / price_us(c):.2f}x)" if c else "")
        print(f"| {human(size)} in {human(pgsize)} pages | "
              + " | ".join(cells) + " |")
    print()
    return []


# The seed thread's SM8150 measurements, us (average of 10 runs): the
# driver's 512 TLBIVAs per freed table ("before"), and one TLBIASID per
# freed table ("after", upstream arm-smmu-qcom since 5.15).
SEED_SM8150_US = {
    4096: (1.854, 1.765), 65536: (8.802, 8.869), 1 << 20: (130.7, 135.2),
    2 << 20: (67.29, 5.385), 12 << 20: (390.8, 21.25),
    16 << 20: (518.2, 27.44), 24 << 20: (776.0, 39.94),
    32 << 20: (1033.0, 51.80),
}
# SMMUv2 and Qualcomm columns: (label, backend, policy).
MMIO_COLUMNS = (("upstream arm-smmu-qcom", "upstream-qcom", "upstream"),
                ("SMMUv2 `va`", "smmuv2", "va"),
                ("SMMUv2 `asid`", "smmuv2", "asid"),
                ("QCOM default (`threshold` 128)", "qcom", "threshold"),
                ("`adaptive`", "qcom", "adaptive"))


def mmio_section(counts, dat):
    """SMMUv2 and Qualcomm: every policy's exact MMIO writes priced at the
    SM8150 figures, beside what the seed measured on SM8150; and the data
    of the plot of that price against unmap size (dat)."""
    print("### SMMUv2 and Qualcomm, priced against the seed's SM8150 "
          "measurements\n")
    cols = [c for c in MMIO_COLUMNS
            if any(k[:2] == c[1:] and k[3] == 4096 for k in counts)]
    if not cols:
        print("Not measured: no fp-count lines of `flushpol_smmuv2`, "
              "`flushpol_qcom` and `flushpol_upstream_counts`.\n")
        return []
    print("No SMMUv2 runs here: every cell is the exact register writes of "
          "one unmap of 4 KiB pages (the MMIO table of "
          "Documentation/policies.rst: `flushpol_smmuv2`, `flushpol_qcom`, "
          "and upstream arm-smmu-qcom computed from its algorithm), priced "
          f"at {SM8150_CMD_NS} ns a TLBI write, {SM8150_SYNC_NS} ns a "
          f"TLBSYNC and {SM8150_WALK_NS} ns to refill each entry of the warm "
          "2 MiB neighbour thrown away, in us.  The first two columns are "
          "what the seed thread measured on SM8150: its driver's 512 "
          "TLBIVAs per freed table, and one TLBIASID per freed table "
          "(upstream arm-smmu-qcom's behaviour since 5.15), with no other "
          "traffic.  The priced `va` and upstream columns are the same two "
          "algorithms, so they show how far the pricing is from silicon; "
          "upstream's also pays the neighbour its TLBIASIDs throw away, "
          "which the seed's run had none of.  `adaptive` is timed at the "
          "same figures (the fake's clock).\n")
    print("| unmap | SM8150 measured, 512 TLBIVA | SM8150 measured, "
          "TLBIASID | " + " | ".join(c[0] for c in cols) + " |")
    print("|---|---|---|" + "---|" * len(cols))
    rows = []
    for size in sorted({k[2] for k in counts if k[0] == "qcom"
                        and k[3] == 4096}):
        seed = SEED_SM8150_US.get(size, ("", ""))
        cells = [f"{x:g}" if x != "" else "" for x in seed]
        prices = []
        for _, backend, policy in cols:
            c = counts.get((backend, policy, size, 4096))
            prices.append(price_us(c) if c else None)
            cells.append(f"{c[0]} / {c[1]}: {price_us(c):.1f}" if c else "")
        rows.append((size, seed, prices))
        print(f"| {human(size)} | " + " | ".join(cells) + " |")
    print()
    with open(dat, "w") as f:
        f.write("# size_bytes seed_before seed_after "
                + " ".join(c[1] + ":" + c[2] for c in cols) + "\n")
        for size, seed, prices in rows:
            f.write(" ".join([str(size)] + [f"{x:g}" if x != "" else "?"
                                            for x in seed]
                             + [f"{p:.3f}" if p is not None else "?"
                                for p in prices]) + "\n")
    with open(os.path.splitext(dat)[0] + ".gp", "w") as f:
        f.write(mmio_plot(os.path.basename(dat), cols))
    return []


def mmio_plot(dat, cols):
    """gnuplot script: priced unmap latency against size, log-log."""
    lines = ["'%s' using 1:2 with points pt 7 title 'SM8150 measured, "
             "512 TLBIVA'" % dat,
             "'%s' using 1:3 with points pt 5 title 'SM8150 measured, "
             "TLBIASID'" % dat]
    for i, c in enumerate(cols):
        lines.append("'%s' using 1:%d with linespoints title '%s'"
                     % (dat, i + 4, c[0].replace("`", "")))
    return ("set terminal pngcairo size 900,560\n"
            "set output png\n"
            "set logscale xy\n"
            "set datafile missing '?'\n"
            "set xlabel 'unmap size (bytes of 4 KiB pages)'\n"
            "set ylabel 'us, priced at SM8150 figures'\n"
            "set key top left\n"
            "set title 'SMMUv2 and Qualcomm: unmap cost per policy'\n"
            "plot " + ", \\\n     ".join(lines) + "\n")


# 2. Dispatch ---------------------------------------------------------------

OPS = (("tlb_add_page", "`tlb_add_page` (one leaf)"),
       ("tlb_flush_walk", "`tlb_flush_walk` (one 2 MiB table)"),
       ("add_page+iotlb_sync", "`tlb_add_page` + `iotlb_sync` (one leaf)"),
       ("unmap_4k", "4K unmap through io-pgtable-arm"),
       ("fp_unmap_4k", "4K unmap through `fp_unmap()` (direct: as above)"))


def parse_dispatch(lines):
    ops, refs = {}, {}
    for line in lines or ():
        if "fp-dispatch:" in line:
            kv = kv_of(line, "fp-dispatch:")
            ops[(kv["policy"], kv["op"])] = kv
        elif "fp-dispatch-ref:" in line:
            kv = kv_of(line, "fp-dispatch-ref:")
            refs[kv["what"]] = kv
        elif "fp-dispatch-latency:" in line:
            # Beside the ops, under a key no row of OPS has.
            kv = kv_of(line, "fp-dispatch-latency:")
            ops[(kv["policy"], "latency " + kv["op"])] = kv
    return ops, refs


def latency_rows(ops):
    """The latency histograms' cost: off and on in the same rounds."""
    labels = (("fp_unmap_4k", "4K strict unmap through `fp_unmap()`"),
              ("unmap_4k", "4K strict unmap: io-pgtable's `unmap_pages`, "
               "`fp_iotlb_sync()`"))
    rows = [(op, label, ops[("va", "latency " + op)]) for op, label in labels
            if ("va", "latency " + op) in ops]
    if not rows:
        return
    print("\nThe latency histograms (`/sys/kernel/flushpol/latency`) off "
          "and on, under `va`, in turn in each round; the ratio is of the "
          "medians, with its 95% interval (`scripts/interval.py`):\n")
    print("| call | latency stats off | latency stats on | on / off (95%) |")
    print("|---|---|---|---|")
    for op, label, kv in rows:
        off = [[int(x) / 1000] for x in kv["off_ps"].split(",")]
        on = [[int(x) / 1000] for x in kv["on_ps"].split(",")]
        r, lo, hi = interval.interval(on, off)
        ci = f" ({lo:.2f} to {hi:.2f})" if lo is not None else ""
        print(f"| {label} | {statistics.median(x[0] for x in off):.1f} ns | "
              f"{statistics.median(x[0] for x in on):.1f} ns | "
              f"{r:.2f}x{ci} |")


def ns(ps):
    return int(ps) / 1000


def dispatch_table(title, ops, refs):
    print(f"{title}\n")
    pols = [p for p in DISPATCH_POLICIES if (p, "unmap_4k") in ops]
    print("| call | " + " | ".join(f"`{p}`" for p in pols) + " |")
    print("|---|" + "---|" * len(pols))
    for op, label in OPS:
        cells = []
        for p in pols:
            kv = ops.get((p, op))
            if not kv:
                cells.append("")
                continue
            fp, d = ns(kv["fp_ps"]), ns(kv["direct_ps"])
            cells.append(f"{fp:.1f} / {d:.1f} ns (+{fp - d:.1f})")
        print(f"| {label} | " + " | ".join(cells) + " |")
    kv = ops.get(("va", "unmap_4k"))
    if kv:
        print(f"\nThe 4K unmap with `va` over the {kv['rounds']} rounds: "
              f"through flushpol {ns(kv['fp_min_ps']):.1f} to "
              f"{ns(kv['fp_max_ps']):.1f} ns, direct "
              f"{ns(kv['direct_min_ps']):.1f} to "
              f"{ns(kv['direct_max_ps']):.1f} ns.", end="")
    if refs:
        print("\nIn the same kernel, per call: "
              + ", ".join(f"`{w}` {ns(kv['ps']):.1f} ns"
                          for w, kv in refs.items()) + ".")
    latency_rows(ops)
    print()


def overhead(ops):
    kv = ops.get(("va", "unmap_4k"))
    if not kv:
        return None
    fp, d = ns(kv["fp_ps"]), ns(kv["direct_ps"])
    return fp, d, 100 * (fp - d) / d


def dispatch_section(debug, nodebug):
    print("### Dispatch overhead (KUnit, UML)\n")
    if not debug[0] and not nodebug[0]:
        print("Not measured: no fp-dispatch lines.\n")
        return []
    print("`flushpol_bench_dispatch`: the same calls through the flushpol "
          "core (`fp_flush_ops`, `fp_iotlb_sync()`, the policy) and "
          "straight to the same do-nothing backend, as a driver without "
          "flushpol would make them.  Each cell: through flushpol / direct, "
          "ns per call, median of the rounds (each of thousands of calls, "
          "the two sides in turn).  Only reported, "
          "never asserted.  What the core adds is per-CPU counters, the "
          "coverage bookkeeping, an SRCU read section that pins the policy "
          "and the policy's "
          "decision; under UML a per-CPU add saves and restores the "
          "emulated interrupt state, which a native kernel does not, so "
          "the reference costs under each table say what the building "
          "blocks cost there.\n")
    if debug[0]:
        dispatch_table("In the test kernel, with the debug options of "
                       "`kunit/uml.config` (lock proving, RCU checking and "
                       "the rest)", *debug)
    if nodebug[0]:
        dispatch_table("In the same UML kernel without those debug options "
                       "(`scripts/bench-uml.sh`)", *nodebug)
    notes = []
    o = overhead(nodebug[0])
    if o:
        notes.append(
            "dispatch in UML without debug options: a 4K unmap through "
            f"io-pgtable-arm pays {o[0] - o[1]:+.1f} ns with flushpol's `va` "
            f"over the direct calls (target: at most {DISPATCH_TARGET_NS} "
            "ns): "
            + ("met" if o[0] - o[1] <= DISPATCH_TARGET_NS else "**missed**"))
    kv = nodebug[0].get(("va", "fp_unmap_4k"))
    if kv:
        fp, d = ns(kv["fp_ps"]), ns(kv["direct_ps"])
        notes.append(
            "dispatch in UML without debug options, through `fp_unmap()` "
            f"(which also records coverage): {fp - d:+.1f} ns over the direct "
            f"calls (same target, {DISPATCH_TARGET_NS} ns): "
            + ("met" if fp - d <= DISPATCH_TARGET_NS else "**missed**"))
    for name, (ops, _) in (("in UML without debug options", nodebug),
                           ("in the test kernel", debug)):
        a, t = ops.get(("adaptive", "unmap_4k")), ops.get(("threshold", "unmap_4k"))
        if a and t:
            fa, ft = ns(a["fp_ps"]), ns(t["fp_ps"])
            notes.append(
                f"adaptive {name}: a 4K unmap through io-pgtable-arm takes "
                f"{fa:.0f} ns with `adaptive`, {ft:.0f} ns with `threshold`: "
                f"{100 * (fa - ft) / ft:+.0f}% (target: within 10%): "
                + ("met" if fa <= 1.10 * ft else "**missed**"))
        o = overhead(ops)
        if o:
            notes.append(
                f"dispatch {name}: a 4K unmap through io-pgtable-arm takes "
                f"{o[0]:.0f} ns with flushpol's `va`, {o[1]:.0f} ns calling "
                f"the do-nothing backend directly: {o[2]:+.0f}% (target: "
                "under 5%): " + ("met" if o[2] < 5 else "**missed**")
                + f"; the {o[0] - o[1]:.0f} ns are "
                f"{100 * (o[0] - o[1]) / SM8150_4K_NS:.1f}% of the "
                f"{SM8150_4K_NS / 1000:.2f} us a 4K unmap took on SM8150 "
                "with its hardware invalidation (seed thread)")
    return notes


# 3. QEMU -------------------------------------------------------------------

def parse_bench(boots, label_re):
    """(label, size) -> {"rounds": [median per round], "all": [ns...],
    "per_round": [[ns...] per round], "cmds", "syncs"}, from each boot's
    console lines, in boot order"""
    out = {}
    for lines in boots:
        parse_boot(lines, label_re, out)
    return out


def parse_boot(lines, label_re, out):
    """Each label names the one result that follows it."""
    label, samples = None, None
    for line in lines:
        m = re.search(label_re, line)
        if m:
            label = m.groups()
            continue
        m = re.search(r"fp-bench-ns: ([\d,]+)", line)
        if m:
            samples = [int(x) for x in m.group(1).split(",")]
            continue
        m = re.search(r"fp-bench: size=(\d+) reps=(\d+) median_ns=(\d+) "
                      r"p99_ns=(\d+) min_ns=(\d+) max_ns=(\d+) cmds=(\d+) "
                      r"syncs=(\d+)", line)
        if not m:
            continue
        if label:
            size = int(m.group(1))
            cell = out.setdefault(label + (size,),
                                  {"rounds": [], "all": [], "per_round": []})
            cell["rounds"].append(int(m.group(3)))
            cell["per_round"].append(samples or [int(m.group(3))])
            cell["all"] += cell["per_round"][-1]
            cell["cmds"], cell["syncs"] = int(m.group(7)), int(m.group(8))
        label, samples = None, None


def upstream_counts(trace):
    """Per marked segment of the counting boot: (TLBIs, syncs).  A mark is
    NH_ASID, SYNC, NH_ASID, SYNC (two iommu_flush_iotlb_all)."""
    ops = []
    for line in trace or ():
        m = re.search(r"smmuv3_cmdq_opcode\s+<---\s+(?:SMMU_)?(\S+)", line)
        if m:
            ops.append(m.group(1))
    mark = ["CMD_TLBI_NH_ASID", "CMD_SYNC"] * 2
    segs, cur, i = [], None, 0
    while i < len(ops):
        if ops[i:i + 4] == mark:
            if cur is not None:
                segs.append(cur)
            cur = [0, 0]
            i += 4
            continue
        if cur is not None:
            if ops[i].startswith("CMD_TLBI_"):
                cur[0] += 1
            elif ops[i] == "CMD_SYNC":
                cur[1] += 1
        i += 1
    return segs


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, (len(xs) * q) // 100)]


def qemu_section(fp_lines, up_lines, trace, dat):
    print("### Unmap latency on QEMU's SMMUv3\n")
    fp = parse_bench(fp_lines, r"bench: ril=(\d) policy=(\S+) round=\d+")
    up = parse_bench(up_lines, r"bench: (upstream) round=\d+")
    if not fp and not up:
        print("Not measured: no fp-bench lines.\n")
        return []
    up_sizes = [s for s in SIZES if ("upstream", s) in up]
    segs = upstream_counts(trace)
    up_cnt = dict(zip(SIZES, segs)) if len(segs) >= len(SIZES) else {}

    rounds = max((len(c["rounds"]) for c in fp.values()), default=0)
    reps = max((len(c["all"]) for c in fp.values()), default=0)
    print(f"Every cell pools {reps} unmaps from {rounds} rounds: boots "
          "with flushpol's policies alternate with boots with the upstream "
          "driver, and within a boot the policies take turns at each size, "
          "so that a slow spell of the host falls on all of them alike.  "
          "flushpol's contexts run on our SMMUv3 driver (the in-"
          "tree driver kept off); *upstream* is the in-tree arm-smmu-v3 "
          "driver of the same kernel, booted without `initcall_blacklist`, "
          "the edu device in an IOMMU-API paging domain, mapped page by "
          "page with `iommu_map()` and unmapped by one `iommu_unmap()`.  "
          "QEMU's SMMUv3 always offers it range invalidation.  Cells: "
          "commands / syncs per unmap (flushpol's statistics; upstream's "
          "from QEMU's trace of a separate boot), median and p99 in us, "
          "then the median against `va` (>1: faster).  Against upstream: "
          "the table after these, with its intervals.\n")
    if up and not up_cnt:
        print("(Upstream's commands were not counted: no usable trace.)\n")

    def up_cell(size):
        c = up.get(("upstream", size))
        if not c:
            return ""
        cnt = up_cnt.get(size)
        head = f"{cnt[0]} / {cnt[1]}: " if cnt else ""
        return (f"{head}{statistics.median(c['all']) / 1000:.0f} / "
                f"{pct(c['all'], 99) / 1000:.0f}")

    series = {}
    for ril in ("1", "0"):
        pols = [p for p in POLICIES if any(k[:2] == (ril, p) for k in fp)]
        if not pols:
            continue
        print(f"SMMUv3 {'with' if ril == '1' else 'without (forced)'} range "
              "invalidation\n")
        print("| unmap | upstream | " + " | ".join(f"`{p}`" for p in pols)
              + " |")
        print("|---|---|" + "---|" * len(pols))
        for size in SIZES:
            va = fp.get((ril, "va", size))
            vmed = statistics.median(va["all"]) if va else None
            cells = [up_cell(size)]
            for p in pols:
                c = fp.get((ril, p, size))
                if not c:
                    cells.append("")
                    continue
                med = statistics.median(c["all"])
                cell = (f"{c['cmds']} / {c['syncs']}: {med / 1000:.0f} / "
                        f"{pct(c['all'], 99) / 1000:.0f}")
                if vmed and p != "va":
                    cell += f" ({vmed / med:.1f}x va)"
                cells.append(cell)
                series.setdefault(
                    f"{p}{'' if ril == '1' else ' (no RIL)'}", {})[size] = \
                    med / 1000
            print(f"| {human(size)} | " + " | ".join(cells) + " |")
        print()
    if up_sizes:
        series["upstream arm-smmu-v3"] = {
            s: statistics.median(up[("upstream", s)]["all"]) / 1000
            for s in up_sizes}

    against = against_upstream(fp, up)

    # The noise: how far the rounds' medians spread.
    print("Noise: min / median / max over the rounds of each round's "
          "median, us\n")
    labels = ([("upstream", ("upstream",))] if up else []) + [
        (f"`{p}`" + ("" if ril == "1" else " no RIL"), (ril, p))
        for ril in ("1", "0") for p in POLICIES
        if any(k[:2] == (ril, p) for k in fp)]
    print("| unmap | " + " | ".join(lb for lb, _ in labels) + " |")
    print("|---|" + "---|" * len(labels))
    for size in SIZES:
        cells = []
        for _, key in labels:
            c = (up if key == ("upstream",) else fp).get(key + (size,))
            if not c:
                cells.append("")
                continue
            r = c["rounds"]
            cells.append(f"{min(r) / 1000:.0f} / "
                         f"{statistics.median(r) / 1000:.0f} / "
                         f"{max(r) / 1000:.0f}")
        print(f"| {human(size)} | " + " | ".join(cells) + " |")
    print()

    notes = []
    for ril, name in (("1", "with RIL"), ("0", "without RIL")):
        va = fp.get((ril, "va", SZ_32M))
        for p in ("threshold", "asid", "range"):
            c = fp.get((ril, p, SZ_32M))
            if not c or not va:
                continue
            med = statistics.median(c["all"])
            r = statistics.median(va["all"]) / med
            notes.append(f"QEMU, `{p}` {name} at 32M: {med / 1000:.0f} us, "
                         f"{r:.1f}x faster than `va` (target: 20x): "
                         + ("met" if r >= 20 else "**missed**"))

    if series and dat:
        write_plot(series, dat)
    if against and dat:
        write_against(against, os.path.join(os.path.dirname(dat),
                                            "against-upstream.tsv"))
    return notes


def write_against(against, path):
    """For scripts/bench-targets.py: each policy and size against upstream,
    the ratio and its interval (empty without one)."""
    with open(path, "w") as f:
        f.write("policy\tsize\tratio\tlow\thigh\n")
        for (p, size), (r, lo, hi) in sorted(against.items()):
            f.write(f"{p}\t{size}\t{r:.4f}\t"
                    + ("\t" if lo is None else f"{lo:.4f}\t{hi:.4f}")
                    + "\n")


def against_upstream(fp, up):
    """The table of each policy (with RIL, as upstream has it) against
    upstream, with 95% intervals; returns {(policy, size): (ratio, low,
    high)}."""
    pols = [p for p in POLICIES if any(k[:2] == ("1", p) for k in fp)]
    out = {}
    for p in pols:
        for size in SIZES:
            c, u = fp.get(("1", p, size)), up.get(("upstream", size))
            if c and u:
                out[(p, size)] = interval.interval(u["per_round"],
                                                   c["per_round"])
    if not out:
        return out
    rounds = min(len(c["per_round"]) for c in up.values())
    print("Against upstream, with range invalidation: upstream's median "
          "unmap time over flushpol's (>1: flushpol faster), and its 95% "
          f"interval by bootstrap over the {rounds} rounds "
          f"({interval.RESAMPLES} resamples of whole rounds, each boot pair "
          "kept together, seed "
          f"{interval.SEED}: Documentation/benchmarks.rst).  An interval "
          "that holds 1.0 is no difference measured.\n")
    print("| unmap | " + " | ".join(f"`{p}`" for p in pols) + " |")
    print("|---|" + "---|" * len(pols))
    for size in SIZES:
        cells = [interval.text(*out[(p, size)], rounds)
                 if (p, size) in out else "" for p in pols]
        print(f"| {human(size)} | " + " | ".join(cells) + " |")
    print()
    return out


# The plot's colour per policy; without RIL, the same colour dashed.
COLOURS = {"va": "#d62728", "range": "#2ca02c", "asid": "#1f77b4",
           "threshold": "#9467bd", "upstream arm-smmu-v3": "#000000"}


def write_plot(series, dat):
    names = list(series)
    with open(dat, "w") as f:
        f.write("size " + " ".join(f'"{n}"' for n in names) + "\n")
        for size in SIZES:
            f.write(f"{size} " + " ".join(
                f"{series[n][size]:.3f}" if size in series[n] else "NaN"
                for n in names) + "\n")
    plots = []
    for i, n in enumerate(names, 2):
        base = n.split(" (")[0]
        dash = 2 if "no RIL" in n else 1
        width = 3 if base.startswith("upstream") else 2
        plots.append(f"'{dat}' using 1:{i} with linespoints "
                     f"lc rgb '{COLOURS.get(base, '#7f7f7f')}' dt {dash} "
                     f"lw {width} pt 7 ps 0.6 title columnheader({i})")
    # 16M and 24M are drawn but not labelled: their labels would collide.
    xtics = ", ".join(f'"{human(s)}" {s}' for s in SIZES
                      if s not in (16 << 20, 24 << 20))
    with open(os.path.splitext(dat)[0] + ".gp", "w") as f:
        f.write(f"""# Written by scripts/bench-table.py: gnuplot -e "png='FILE'" THIS
set terminal pngcairo size 960,640 font "sans,10"
set output png
set title "Unmap latency on QEMU's SMMUv3 (TCG), 4 KiB pages, median"
set logscale xy
set xlabel "unmap size, in 4 KiB pages"
set xrange [3000:48000000]
set ylabel "us"
set xtics ({xtics})
set grid
set key top left
plot {", ".join(plots)}
""")


def main(d):
    sections = []

    def run(fn, *args):
        """A section's text (printed later) and its target notes."""
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            notes = fn(*args)
        sections.append(buf.getvalue())
        return notes or []

    counts = parse_counts(read(os.path.join(d, "kunit/counts.txt")))
    notes = run(counts_section, counts)
    notes += run(no_ril_section, counts)
    notes += run(mmio_section, counts, os.path.join(d, "mmio-latency.dat"))
    notes += run(dispatch_section,
                 parse_dispatch(read(os.path.join(d, "kunit/ktap.log"))),
                 parse_dispatch(read(os.path.join(
                     d, "kunit-nodebug/ktap.log"))))
    notes += run(qemu_section, *qemu_inputs(os.path.join(d, "qemu"), d))
    print_targets("Targets of each section", notes)
    print("\n".join(s.rstrip("\n") + "\n" for s in sections), end="")


def qemu_inputs(qd, dat_dir):
    """qemu_section's inputs: the boots' logs and upstream's trace in qd,
    the plot's data file in dat_dir."""
    return (read_boots(qd, "flushpol"), read_boots(qd, "upstream"),
            read(os.path.join(qd, "upstream.trace")),
            os.path.join(dat_dir, "latency.dat"))


def print_targets(heading, notes):
    """The list of targets met or missed, if any, under heading."""
    if notes:
        print(f"{heading} (reported, never asserted):\n")
        for n in notes:
            print(f"- {n}.")
        print()


def main_qemu(d):
    """The QEMU section alone, with its targets (qemu/bench-upstream.sh):
    d holds flushpol-N.log, upstream-N.log and upstream.trace."""
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        notes = qemu_section(*qemu_inputs(d, d))
    print_targets("Targets", notes)
    print(buf.getvalue().replace("### Unmap latency on QEMU's SMMUv3\n\n",
                                 "", 1).rstrip("\n"))


def main_dispatch(debug_log, nodebug_log):
    """The dispatch section alone, with its targets (bench-dispatch.sh)."""
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        notes = dispatch_section(parse_dispatch(read(debug_log)),
                                 parse_dispatch(read(nodebug_log)))
    if notes:
        print("Targets (reported, never asserted):\n")
        for n in notes:
            print(f"- {n}.")
        print()
    # Its own block, under the bench block's level-3 headings.
    print(buf.getvalue().replace("### Dispatch overhead (KUnit, UML)\n\n",
                                 "", 1).rstrip("\n"))


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--mmio":
        mmio_section(parse_counts(read(sys.argv[2])),
                     os.path.join(sys.argv[3], "mmio-latency.dat"))
    elif len(sys.argv) == 4 and sys.argv[1] == "--dispatch":
        main_dispatch(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 3 and sys.argv[1] == "--qemu":
        main_qemu(sys.argv[2])
    elif len(sys.argv) == 2:
        main(sys.argv[1])
    else:
        sys.exit(__doc__)
