#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The end of make bench's report: its targets, each met or missed
with its figure, or not measured.  Reported, never asserted.

    bench-targets.py BENCH_DIR RESULTS_DIR [--arm64-ktap LOG]
                     [--fio-verify DIR]

Reads, each when present:
  RESULTS_DIR/scale.md             the scale bench's tables (bench-scale.sh)
  BENCH_DIR/against-upstream.tsv   QEMU unmaps against upstream, with their
                                   intervals (bench-table.py)
  LOG                              the arm64 bench kernel's KUnit run:
                                   its "fp-switch:" and "fp-composition:"
                                   lines
  DIR/strict.log, DIR/lazy.log     fio-verify.sh's consoles: switches_per_s
  RESULTS_DIR/adaptive.md          adaptive against the best fixed N
  BENCH_DIR/insn.tsv               guest instructions per 4K map and unmap,
                                   counted by QEMU's plugins
                                   (scripts/qemu/insn-table.py)
A figure that does not come from this make bench run says where it does
come from, dated by its file.
"""
import argparse
import datetime
import os
import re

SCALE_KEEP = 0.85
SWITCH_US = 1000
SWITCH_RATE = 50
ADAPTIVE_PCT = 5
DEFAULT_POLICY = "range"  # flushpol_smmuv3's with RIL, as upstream has it


def read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except (FileNotFoundError, TypeError):
        return None


def dated(path):
    """Where a figure comes from: the file, and the date it says it was
    measured on, or else the date it was written.  Named from the tree's
    top, so that a published report says no more of the machine."""
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    name = (os.path.relpath(path, top) if path.startswith(top + os.sep)
            else path)
    m = re.match(r"Measured (\d{4}-\d\d-\d\d)", read(path) or "")
    if m:
        return f"{name}, measured {m.group(1)}"
    t = datetime.datetime.fromtimestamp(os.path.getmtime(path),
                                        datetime.timezone.utc)
    return f"{name}, {t:%Y-%m-%d}"


def verdict(ok):
    return "met" if ok else "**missed**"


def scale(res):
    """Per-thread throughput at 2 and 4 CPUs against 1, in every table of
    scale.md whose rows start with the thread count: its first k/s cell.
    Tables whose heading line names cmdq, if any; else all, saying so."""
    path = os.path.join(res, "scale.md")
    md = read(path)
    if md is None:
        return "not measured in this run (no scale.md)"
    # The command queue's own verdicts (bench-scale-table.py), each with
    # its interval and the controls measured beside it.
    verdicts = re.findall(r"^- command queue, (1 to \d+ CPUs: .*?)\.?$", md,
                          re.M)
    if verdicts:
        return f"{dated(path)}: " + "; ".join(verdicts)
    out, label, kps = [], "", {}
    for line in md.splitlines() + [""]:
        m = re.match(r"\|\s*(\d+)\s*\|.*?([\d.]+) k/s", line)
        if m:
            kps[int(m.group(1))] = float(m.group(2))
            continue
        if kps:
            if 1 in kps and len(kps) > 1:
                keep = {n: kps[n] / kps[1] for n in sorted(kps) if n > 1}
                out.append(f"{label or 'table'}: " + ", ".join(
                    f"{n} CPUs keep {k:.0%}" for n, k in keep.items())
                    + ": " + verdict(min(keep.values()) >= SCALE_KEEP))
            kps = {}
        if line.strip() and not line.startswith("|"):
            label = line.strip().rstrip(":")
    if not out:
        return "scale.md has no per-thread table"
    cmdq = [o for o in out if "cmdq" in o.split(":")[0]]
    note = "" if cmdq else "; no table through cmdq.c, so every table"
    return (f"per-thread throughput against one CPU's (target: at least "
            f"{SCALE_KEEP:.0%}; {dated(path)}{note}): "
            + "; ".join(cmdq or out))


def unmap(bench):
    tsv = read(os.path.join(bench, "against-upstream.tsv"))
    if tsv is None:
        return "not measured in this run"
    rows = [ln.split("\t") for ln in tsv.splitlines()[1:]]
    rows = [r for r in rows if r[0] == DEFAULT_POLICY]
    if not rows or any(not r[3] for r in rows):
        return (f"`{DEFAULT_POLICY}` against upstream: too few rounds for "
                "an interval at some size")
    slower = [r for r in rows if float(r[4]) < 1.0]
    worst = min(rows, key=lambda r: float(r[4]))
    size = int(worst[1])
    human = f"{size >> 20}M" if size >= 1 << 20 else f"{size >> 10}K"
    return (f"`{DEFAULT_POLICY}` (the default with RIL) slower than "
            f"upstream outside the interval at {len(slower)} of "
            f"{len(rows)} sizes; lowest upper bound {float(worst[4]):.2f}x "
            f"at {human} ({float(worst[2]):.2f}x, 95% "
            f"{float(worst[3]):.2f}-{float(worst[4]):.2f}): "
            + verdict(not slower))


def switch(ktap, fio_verify):
    parts, ok = [], True
    log = read(ktap)
    m = log and re.search(r"fp-switch: (\d+) policy writes on (\d+) CPUs: "
                          r"median (\d+) us", log)
    if m:
        us = int(m.group(3))
        ok &= us < SWITCH_US
        parts.append(f"median policy write {us} us on {m.group(2)} CPUs "
                     f"(arm64 KUnit, {dated(ktap)})")
    else:
        ok = None
        parts.append("switch time not measured in this run (no arm64 "
                     "KUnit fp-switch line)")
    rates = []
    for mode in ("strict", "lazy"):
        path = os.path.join(fio_verify or "", f"{mode}.log")
        # e2e/guest-fio-verify.sh's line.
        m = re.search(r"switches=(\d+) switches_per_s=(\d+)",
                      read(path) or "")
        if m:
            rates.append(float(m.group(2)))
            parts.append(f"fio integrity {mode}: {m.group(1)} switches, "
                         f"{m.group(2)} a second ({dated(path)})")
    if rates:
        ok = ok and min(rates) >= SWITCH_RATE
    else:
        ok = None
        parts.append("fio integrity switch rate not measured in this run")
    head = (f"(target: median below {SWITCH_US} us, at least {SWITCH_RATE} "
            "switches a second) ")
    return head + "; ".join(parts) + (": " + verdict(ok) if ok is not None
                                      else "")


def adaptive(res):
    md = read(os.path.join(res, "adaptive.md"))
    if md is None:
        return "not measured in this run (no adaptive.md)"
    got = re.findall(r"^- (\w+): adaptive [\d.]+ us against the best fixed "
                     r"`([^`]+)` [\d.]+ us: ([+-][\d.]+)%", md, re.M)
    if not got:
        return "adaptive.md has no per-workload line"
    return (f"adaptive against the hindsight-best fixed N (target: within "
            f"{ADAPTIVE_PCT}% on every workload): "
            + ", ".join(f"{w} {p}% (`{n}`)" for w, n, p in got) + ": "
            + verdict(all(float(p) <= ADAPTIVE_PCT for _, _, p in got)))


COMPOSITION_PCT = 5
ADAPTIVE_COST_PCT = 10


def compositions(ktap):
    """The composition case's lines (kunit/bench_composition.c): per
    (policy, RIL, footprint counted), flushpol's and upstream's way's
    median round, ps per 4K strict unmap, each side's fastest and slowest
    round, and the median, lowest and highest ratio of rounds taken in
    pairs (ppm)."""
    rows = {}
    for m in re.finditer(r"fp-composition: policy=(\S+) ril=(\d) "
                         r"estimate=(\d) .*?"
                         r"fp_ps=(\d+) upstream_ps=(\d+) fp_min_ps=(\d+) "
                         r"fp_max_ps=(\d+) upstream_min_ps=(\d+) "
                         r"upstream_max_ps=(\d+) ratio_ppm=(\d+) "
                         r"ratio_min_ppm=(\d+) ratio_max_ppm=(\d+)",
                         read(ktap) or ""):
        rows[(m.group(1), m.group(2) == "1", m.group(3) == "1")] = [
            int(x) for x in m.groups()[3:]]
    return rows


def cname(policy, ril):
    return f"`{policy}`" + (" with RIL" if ril else "")


def composition(ktap):
    """Every strict policy's 4K strict unmap through the shipped
    composition against upstream's way, in the arm64 bench kernel, judged
    on the median of paired rounds' ratios: the target on a machine
    without a policy that reads the estimate (flushpol_adaptive not
    loaded), and, reported beside it, with one."""
    rows = compositions(ktap)
    if not rows:
        return "not measured in this run (no fp-composition lines)"
    out, ok = [], True
    for est in (False, True):
        parts = []
        for (pol, ril, e), (fp, up, fmin, fmax, umin, umax, r, rmin,
                            rmax) in sorted(rows.items()):
            if e != est:
                continue
            r, rmin, rmax = r / 1e6, rmin / 1e6, rmax / 1e6
            if not est:
                ok &= r <= 1 + COMPOSITION_PCT / 100
            parts.append(f"{cname(pol, ril)} {r:.3f}x [{rmin:.3f}, "
                         f"{rmax:.3f}] ({fp / 1000:.0f} ns "
                         f"[{fmin / 1000:.0f}, {fmax / 1000:.0f}] against "
                         f"{up / 1000:.0f} ns [{umin / 1000:.0f}, "
                         f"{umax / 1000:.0f}])")
        if parts:
            head = ("with flushpol_adaptive loaded, every context counting "
                    "its footprint (not the target): " if est else
                    "without flushpol_adaptive loaded: ")
            out.append(head + "; ".join(parts))
    verdict_on = any(not e for _, _, e in rows)
    return (f"median of paired rounds' ratios [lowest, highest], then "
            f"median rounds [fastest, slowest] ({dated(ktap)}): "
            + "; ".join(out)
            + (": " + verdict(ok) if verdict_on else
               ": no case without the footprint counted"))


def adaptive_cost(ktap):
    """adaptive's 4K strict unmap against threshold's, same kernel, same
    boot, same SMMU (with and without RIL), both with flushpol_adaptive
    loaded, as it must be for adaptive to run.  Judged on their medians of
    paired rounds' ratios against upstream's way: the two cases run one
    after the other, and what drifts between them (TCG moves 1.5x) is in
    each case's own upstream rounds; their median rounds are shown too."""
    rows = compositions(ktap)
    parts, ok = [], True
    for ril in (False, True):
        a = rows.get(("adaptive", ril, True))
        t = rows.get(("threshold", ril, True))
        if not a or not t:
            continue
        ra, rt = a[6] / 1e6, t[6] / 1e6
        pct = (ra / rt - 1) * 100
        mpct = (a[0] / t[0] - 1) * 100
        ok &= pct <= ADAPTIVE_COST_PCT
        parts.append(f"{'with' if ril else 'without'} RIL {ra:.3f}x of "
                     f"upstream's way against {rt:.3f}x ({pct:+.1f}%; "
                     f"median rounds {a[0] / 1000:.0f} ns against "
                     f"{t[0] / 1000:.0f} ns, {mpct:+.1f}%)")
    if not parts:
        return "not measured in this run (no adaptive and threshold lines)"
    return (f"the shipped composition in the arm64 bench kernel, medians "
            f"of paired rounds' ratios ({dated(ktap)}): " + "; ".join(parts)
            + ": " + verdict(ok))


def per_op(total, n):
    """Instructions per operation, exactly: N is a power of two."""
    q = total / n
    return f"{q:.6f}".rstrip("0").rstrip(".")


def insn(bench):
    """Every strict policy's instructions per 4K unmap against upstream's:
    a policy whose windows differ is held at its highest, upstream at its
    lowest."""
    tsv = read(os.path.join(bench, "insn.tsv"))
    if tsv is None:
        return "not measured in this run (no insn.tsv)"
    rows = {}
    for ln in tsv.splitlines()[1:]:
        r = ln.split("\t")
        rows[(r[0], r[1])] = (int(r[2]), int(r[3]), int(r[4]))
    up = rows.get(("upstream", "unmap"))
    pols = [p for p, op in rows if op == "unmap" and p != "upstream"
            and p != "nonstrict"]
    if up is None or not pols:
        return "upstream or flushpol not counted in this run"

    def fig(n, lo, hi):
        return (per_op(lo, n) if lo == hi
                else f"{per_op(lo, n)} to {per_op(hi, n)}")
    parts = [f"upstream {fig(*up)}"]
    ok = True
    for p in pols:
        n, lo, hi = rows[(p, "unmap")]
        ratio = (hi / n) / (up[1] / up[0])
        ok &= ratio <= 1.0
        parts.append(f"`{p}` {fig(n, lo, hi)} ({ratio:.3f}x)")
    maps = sorted({fig(*rows[(p, "map")]) for p in pols
                   if (p, "map") in rows})
    up_map = rows.get(("upstream", "map"))
    also = (f" (per map, not a target: upstream {fig(*up_map)}, flushpol "
            f"{' or '.join(maps)})" if up_map and maps else "")
    return ("instructions per unmap, " + ", ".join(parts) + ": "
            + verdict(ok) + also)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("bench")
    ap.add_argument("results")
    ap.add_argument("--arm64-ktap")
    ap.add_argument("--fio-verify")
    a = ap.parse_args()
    print("### Targets\n")
    print("Reported, never asserted.\n")
    print("- Scaling through the shipped `cmdq.c`, 1 to 2 and 4 CPUs: "
          + scale(a.results) + ".")
    print("- QEMU unmap latency, no size at which flushpol is slower than "
          "upstream outside the intervals: " + unmap(a.bench) + ".")
    print("- Policy switches: " + switch(a.arm64_ktap, a.fio_verify) + ".")
    print("- adaptive within 5% of the best fixed N on all four workloads: "
          + adaptive(a.results) + ".")
    print("- Dispatch in the arm64 bench kernel, a 4K strict unmap "
          "through the shipped composition within "
          f"{COMPOSITION_PCT}% of the same work done upstream's way: "
          + composition(a.arm64_ktap) + ".")
    print(f"- adaptive's cost at 4K within {ADAPTIVE_COST_PCT}% of "
          "`threshold`'s: " + adaptive_cost(a.arm64_ktap) + ".")
    print("- Guest instructions per 4K strict unmap, every strict policy "
          "at or below upstream's count (<= 1.00x), exact counts: "
          + insn(a.bench) + ".")


if __name__ == "__main__":
    main()
