#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""make bench's scalability and fixed-cost sections, in markdown.

    bench-scale-table.py KTAP_LOG > section.md

KTAP_LOG holds the lines of the arm64 SMP kernel's scale benchmarks
(scripts/kunit.sh --arch arm64 --bench):
  fp-scale:       kunit/bench_scale.c, fp_unmap() against direct calls
  fp-fixed:       kunit/bench_scale.c, the parts of the fixed cost per unmap
  fp-scale-cmdq:  kunit/bench_scale_cmdq.c, the shipped command queue
  fp-scale-cmdq-syncs: the same, CMD_SYNCs the fake consumed per unmap
Per-thread throughput is 1 / (time per operation).  Intervals are 95%
intervals of a median over rounds, from order statistics (distribution
free); a ratio or difference is taken within each round first, so that
the host's noise, which moves whole rounds, falls on both of its terms.
"""
import math
import sys

TOLERANCE = 0.9
CMDQ_TARGET = 0.85


def kv_of(line, tag):
    return dict(f.split("=", 1) for f in line.split(tag, 1)[1].split()
                if "=" in f)


def parse(path):
    runs, fixed, cmdq, fake, syncs = {}, {}, {}, None, []
    try:
        with open(path, errors="replace") as f:
            for line in f:
                if "fp-scale:" in line:
                    kv = kv_of(line, "fp-scale:")
                    runs.setdefault(kv["policy"], {})[int(kv["threads"])] = kv
                elif "fp-fixed:" in line:
                    kv = kv_of(line, "fp-fixed:")
                    fixed[kv["side"]] = [int(v) / 10 for v in
                                         kv["dns"].split(",")]
                elif "fp-scale-cmdq:" in line:
                    kv = kv_of(line, "fp-scale-cmdq:")
                    kv["ns"] = [int(v) for v in kv["ns"].split(",")]
                    cmdq.setdefault(kv["side"], {})[int(kv["threads"])] = kv
                elif "fp-scale-cmdq-syncs:" in line:
                    syncs.append(kv_of(line, "fp-scale-cmdq-syncs:"))
                elif "fp-scale-cmdq-fake:" in line:
                    fake = kv_of(line, "fp-scale-cmdq-fake:")
    except FileNotFoundError:
        pass
    return runs, fixed, cmdq, fake, syncs


def median(xs):
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def interval(xs, level=0.95):
    """The median's interval: order statistics k and n-k+1 (1-based),
    k the largest with P(Binomial(n, 1/2) < k) <= (1 - level) / 2."""
    s = sorted(xs)
    n = len(s)
    tail, k, cum = (1 - level) / 2, 0, 0.0
    while True:
        cum += math.comb(n, k) / 2 ** n
        if cum > tail:
            break
        k += 1
    if k == 0:
        return s[0], s[-1]
    return s[k - 1], s[n - k]


def kops(ns):
    return 1e6 / int(ns)


def scale_section(runs):
    any_kv = next(iter(next(iter(runs.values())).values()))
    print("### Scalability of `fp_unmap()`\n")
    print("`flushpol_bench_scale`, on qemu-system-aarch64 "
          f"-smp {any_kv['cpus']} (MTTCG, one host thread per vCPU): N "
          "threads, each bound to a CPU of its own, unmap disjoint ranges "
          "of one context, one 4K page and its sync at a time "
          f"({any_kv['pages']} pages per thread and round, median of "
          f"{any_kv['rounds']} rounds, the sides in turn), through "
          "`fp_unmap()` and io-pgtable-arm to a do-nothing backend, and "
          "through io-pgtable-arm to the same do-nothing calls made "
          "directly.  Each cell: per-thread throughput, thousands of "
          "unmaps per second (ns per unmap).  Per doubling: what each side "
          "keeps of its per-thread throughput when the threads double; "
          "flushpol scales like the direct calls if it keeps at least "
          f"{TOLERANCE:.0%} of what the direct side keeps.  The vCPUs share "
          "the host's cores with everything else, so the absolute figures "
          "say little; the comparison, run in the same rounds, is the "
          "point.  Only reported, never asserted.\n")
    notes = []
    for pol, by_n in runs.items():
        print(f"Policy `{pol}`:\n")
        print("| threads | through flushpol | direct | per doubling: "
              "flushpol keeps | direct keeps | scales like direct |")
        print("|---|---|---|---|---|---|")
        prev = None
        for n in sorted(by_n):
            kv = by_n[n]
            fp, d = kops(kv["fp_ns"]), kops(kv["direct_ns"])
            cells = [str(n), f"{fp:.0f} k/s ({kv['fp_ns']} ns)",
                     f"{d:.0f} k/s ({kv['direct_ns']} ns)"]
            if prev:
                fk, dk = fp / prev[0], d / prev[1]
                ok = fk >= TOLERANCE * dk
                cells += [f"{fk:.0%}", f"{dk:.0%}",
                          "yes" if ok else "**no**"]
                notes.append((pol, n, fk, dk, ok))
            else:
                cells += ["", "", ""]
            print("| " + " | ".join(cells) + " |")
            prev = (fp, d)
        print()
    for pol, n, fk, dk, ok in notes:
        print(f"- scalability, `{pol}`, {n // 2} to {n} threads: flushpol "
              f"keeps {fk:.0%} of its per-thread throughput, direct "
              f"{dk:.0%} (target: within 10% of direct): "
              + ("met" if ok else "**missed**") + ".")
    if notes:
        print()


def fmt_iv(med, lo, hi, unit="", digits=0):
    return (f"{med:.{digits}f}{unit} [{lo:.{digits}f}{unit}, "
            f"{hi:.{digits}f}{unit}]")


def fixed_section(fixed):
    if "flushpol" not in fixed or "direct" not in fixed:
        return
    rounds = len(fixed["direct"])
    print("### The fixed cost per unmap, and its parts\n")
    print("`flushpol_bench_scale`'s `fixed_cost_parts_reported`, one "
          f"thread, policy `va`, {rounds} rounds in which every side takes "
          "its turn: 4K unmaps through `fp_unmap()` to the do-nothing "
          "backend, straight to the same calls (direct), and direct with "
          "one part of flushpol's path per unmap added, made as the core "
          "makes it, through a call of its own; \"none\" is that call "
          "alone, which the parts are measured against.  ns per unmap: "
          "median over rounds [95% interval]; the extra cost is taken "
          "within each round, then its median and interval.  What the "
          "parts leave of flushpol's extra cost is the dispatch itself "
          "(the gather handed on, the policy and the backend reached "
          "through pointers, the call record's stores).  \"The core "
          "before\": flushpol's side with the read section and the call "
          "record, which the core no longer takes for a 4K unmap under a "
          "built-in policy, made again around each unmap.\n")
    print("| side | ns per unmap | extra, against | extra ns per unmap |")
    print("|---|---|---|---|")
    rows = [("flushpol", "direct")] + [
        (s, "none") for s in ("srcu", "record", "stats", "estimate")
        if s in fixed]
    if "flushpol+removed" in fixed:
        rows[1:1] = [("flushpol+removed", "direct"),
                     ("flushpol+removed", "flushpol")]
    print(f"| direct | {fmt_iv(median(fixed['direct']), *interval(fixed['direct']), digits=1)} |  |  |")
    if "none" in fixed:
        print(f"| direct + an empty call (none) | "
              f"{fmt_iv(median(fixed['none']), *interval(fixed['none']), digits=1)}"
              f" | direct | {fmt_iv(*diff(fixed, 'none', 'direct'), digits=1)} |")
    parts = 0.0
    for side, ref in rows:
        d = diff(fixed, side, ref)
        name = NAMES.get(side, f"direct + {side}")
        print(f"| {name} | "
              f"{fmt_iv(median(fixed[side]), *interval(fixed[side]), digits=1)}"
              f" | {ref} | {fmt_iv(*d, digits=1)} |")
        if ref == "none":
            parts += d[0]
    total = diff(fixed, "flushpol", "direct")
    print()
    print(f"- flushpol's fixed cost per 4K unmap: "
          f"{fmt_iv(*total, unit=' ns', digits=1)} over direct.")
    if "flushpol+removed" in fixed:
        before = diff(fixed, "flushpol+removed", "direct")
        print("- with what the core no longer does for it added back (an "
              "SRCU read section, the call record): "
              f"{fmt_iv(*before, unit=' ns', digits=1)} over direct, in "
              "the same rounds.")
    print(f"- the parts measured alone add up to {parts:.1f} ns (medians); "
          "of them the core still takes the statistics, and the "
          "footprint count once `fp_map()` counts (this benchmark maps "
          "through io-pgtable directly, so its flushpol side does not).\n")


NAMES = {
    "flushpol": "flushpol",
    "flushpol+removed": "flushpol + srcu + record (the core before)",
}


def diff(fixed, side, ref):
    d = [a - b for a, b in zip(fixed[side], fixed[ref])]
    return (median(d), *interval(d))


def cmdq_section(cmdq, fake):
    q = cmdq.get("cmdq", {})
    p = cmdq.get("private", {})
    o = cmdq.get("own", {})
    inst = cmdq.get("instant", {})
    if 1 not in q:
        return
    kv1 = q[1]
    print("### The command queue from 1, 2 and 4 CPUs\n")
    print("`flushpol_bench_scale_cmdq`: N threads, each bound to a CPU of "
          "its own, each issue batches of one TLBI and a CMD_SYNC through "
          "the shipped `backends/smmuv3/cmdq.c` (`smmuv3_cmdq_ops`) and "
          "wait for their own sync, in front of the fake SMMU of "
          "`kunit/fp_smmuv3_fake.c` "
          f"({kv1['batches']} batches per thread and round, "
          f"{kv1['rounds']} rounds, every N in turn within a round).  "
          "\"private\": the same threads encode the same commands and hand "
          "them to a call that keeps nothing, sharing nothing: what the "
          "host gives N vCPUs for work of a few nanoseconds.  \"own\": "
          "the same threads issue the same batches through the same "
          "`cmdq.c`, each to a fake SMMU of its own, sharing nothing: what "
          "the host gives N vCPUs for work of the shared queue's length "
          "(QEMU runs 4 on the host's cores; past their number, busy vCPUs "
          "share them, which private work is too short to show).  "
          "\"instant\": the same batches through the same `cmdq.c` to one "
          "shared SMMU that has consumed everything the moment CMDQ_PROD "
          "moves, with no lock of its own: what `cmdq.c`'s own shared "
          "state (its writers' lock, the positions every CPU reads and "
          "moves) costs N CPUs, with the fake's serial part taken away.  "
          "Per-thread throughput "
          "in thousands of batches per second (ns per batch), median over "
          "rounds [95% interval]; against 1 CPU: the ratio of per-thread "
          "throughputs taken within each round, its median [95% "
          "interval].  Only reported, never asserted.\n")
    bound_note = None
    if fake and int(fake["fake_ns"]) <= 0:
        print("The fake's serial part (its consumption of a batch) was too "
              f"short to time: {fake['timed_batch_ns']} ns per batch with "
              f"the timing, {fake['clock_ns']} ns of it the clock's own; "
              "no bound from it is printed.\n")
    elif fake:
        s = int(fake["fake_ns"])
        t1 = median(kv1["ns"])
        bound_note = (s, t1)
        print("The fake consumes on CMDQ_CONS reads: a CPU that polls "
              "consumes, under the fake's one lock, everything published "
              "(decoding each command and applying it to the TLB model), "
              "as the one SMMU consumes the queue in order.  Timed alone "
              f"on one CPU, that costs {s} ns per batch "
              f"({fake['accesses']} register accesses, of "
              f"{fake['timed_batch_ns']} ns per batch with the timing "
              "itself).  N CPUs cannot pass that serial part between them: "
              f"per-thread throughput at N CPUs is at most {t1:.0f} / "
              f"(N x {s}) of one CPU's (1 CPU's median over the serial "
              "part), which is the fake's bound below.  Every CPU that "
              "polls also takes that lock, so contention makes the bound "
              "lower still; the CMDQ_CONS reads per batch show how often.\n")
    print("| CPUs | cmdq: per thread | against 1 CPU | CMDQ_CONS reads per "
          "batch | private: per thread | against 1 CPU | own: per thread "
          "| against 1 CPU | instant: per thread | against 1 CPU "
          "| fake's bound |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    notes = []
    for n in sorted(q):
        kv = q[n]
        ns = kv["ns"]
        reads = int(kv["cons_reads"]) / (int(kv["batches"]) *
                                         int(kv["rounds"]) * n)
        cells = [str(n), cell(ns)]
        r = ratio(q[1]["ns"], ns) if n > 1 else None
        cells.append(fmt_iv(*(100 * x for x in r), unit="%") if r else "")
        cells.append(f"{reads:.2f}")
        pv = p.get(n)
        cells.append(cell(pv["ns"]) if pv else "")
        pr = ratio(p[1]["ns"], pv["ns"]) if pv and n > 1 else None
        cells.append(fmt_iv(*(100 * x for x in pr), unit="%") if pr else "")
        ov = o.get(n)
        cells.append(cell(ov["ns"]) if ov else "")
        orr = ratio(o[1]["ns"], ov["ns"]) if ov and 1 in o and n > 1 else None
        cells.append(fmt_iv(*(100 * x for x in orr), unit="%") if orr else "")
        iv = inst.get(n)
        cells.append(cell(iv["ns"]) if iv else "")
        irr = (ratio(inst[1]["ns"], iv["ns"])
               if iv and 1 in inst and n > 1 else None)
        cells.append(fmt_iv(*(100 * x for x in irr), unit="%") if irr else "")
        bound = None
        if bound_note and n > 1:
            bound = min(1.0, bound_note[1] / (n * bound_note[0]))
            cells.append(f"{bound:.0%}")
        else:
            cells.append("")
        print("| " + " | ".join(cells) + " |")
        if r:
            notes.append((n, r, pr, orr, irr, bound))
    print()
    for n, r, pr, orr, irr, bound in notes:
        met = r[0] >= CMDQ_TARGET
        where = ""
        if r[1] < CMDQ_TARGET <= r[2]:
            where = " (its interval spans the target)"
        print(f"- command queue, 1 to {n} CPUs: per-thread throughput "
              f"{fmt_iv(*(100 * x for x in r), unit='%')} of one CPU's "
              f"(target: at least {CMDQ_TARGET:.0%}): "
              + ("met" if met else "**missed**") + where
              + (f"; the host gave private work {pr[0]:.0%}" if pr else "")
              + (f", its own queue each {orr[0]:.0%}" if orr else "")
              + (f", the queue with an instant SMMU {irr[0]:.0%}"
                 if irr else "")
              + (f", the fake bounds it at {bound:.0%}" if bound else "")
              + ".")
    print()


def syncs_section(syncs):
    """Counts, not times: exact whatever the host did, but they depend
    on how the CPUs met in the queue, so each round's is shown too."""
    print("### CMD_SYNCs per unmap from 1, 2 and 4 CPUs\n")
    print("`flushpol_bench_scale_cmdq`, counted by the fake SMMU: CMD_SYNCs "
          "it consumed per 4K batch (one TLBI and its sync), through a "
          "submit then a sync and through `smmuv3_cmdq_submit_sync()` (the "
          "strict 4K unmap's path).  Upstream arm-smmu-v3 writes one "
          "CMD_SYNC per sync call on any number of CPUs: 1.000.  Fewer "
          "means CPUs shared one; a fallback is a caller that waited for a "
          "CMD_SYNC another CPU owed it and wrote its own.\n")
    print("| path | sharing | CPUs | unmaps | CMD_SYNCs | per unmap | "
          "rounds: fewest, most | fallbacks | upstream | ns per unmap, "
          "per round |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for kv in syncs:
        ns = kv.get("ns", "-").replace(",", ", ")
        print(f"| {kv['path']} | {kv.get('share', 'on')} | "
              f"{kv['threads']} | {kv['unmaps']} | "
              f"{kv['syncs']} | {kv['per_unmap']} | "
              f"{kv.get('round_min', '?')}, {kv.get('round_max', '?')} | "
              f"{kv['fallbacks']} | {kv['upstream']} | {ns} |")
    print()
    print("Times under TCG move with the host's load and with how the host "
          "schedules QEMU's vCPU threads (4 on 2 cores in CI): compare "
          "sharing on and off only within one run, round by round.\n")


def cell(ns):
    med, lo, hi = median(ns), *interval(ns)
    return f"{kops(med):.0f} k/s ({med:.0f} ns [{lo:.0f}, {hi:.0f}])"


def ratio(ns1, nsn):
    """Per-thread throughput at N against 1 CPU, within each round."""
    rs = [a / b for a, b in zip(ns1, nsn)]
    return (median(rs), *interval(rs))


def main(path):
    runs, fixed, cmdq, fake, syncs = parse(path)
    if not runs and not cmdq:
        print("### Scalability (KUnit, arm64 SMP under QEMU)\n")
        print("Not measured: no fp-scale lines.\n")
        return
    if runs:
        scale_section(runs)
    if fixed:
        fixed_section(fixed)
    if cmdq:
        cmdq_section(cmdq, fake)
    if syncs:
        syncs_section(syncs)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
