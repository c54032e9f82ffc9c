#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The adaptive policy's evaluation (kunit/test_adaptive.c) as tables.

Reads the suite's "fp-adaptive:" lines from a KTAP log and prints
Markdown: the cost of every policy per workload at the seed's constants,
the issue's targets (adaptive within 5% of the best fixed choice on every
workload; no single fixed choice within 20% on all), and the same targets
with each constant x0.25 and x4.  With --plot DIR it also writes
DIR/adaptive.dat and DIR/adaptive.gp, which gnuplot -e "png='...'" turns
into the plot of cost against N.

  adaptive-table.py KTAP_LOG [--plot DIR]
"""
import re
import sys
from collections import defaultdict

LINE = re.compile(r"fp-adaptive: (.*)")


def parse(path):
    runs = []
    with open(path, errors="replace") as f:
        for line in f:
            m = LINE.search(line)
            if not m:
                continue
            kv = dict(x.split("=", 1) for x in m.group(1).split())
            for k in ("n", "unmaps", "cmds", "syncs", "refills", "cost_ns",
                      "stale", "c_cmd", "c_sync", "c_walk"):
                kv[k] = int(kv[k])
            runs.append(kv)
    return runs


def label(r):
    return f"N={r['n']}" if r["policy"] == "threshold" else r["policy"]


def order(lbl):
    if lbl.startswith("N="):
        return (0, int(lbl[2:]))
    return (1, ["va", "asid", "adaptive"].index(lbl))


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    runs = parse(sys.argv[1])
    if not runs:
        sys.exit("adaptive-table: no fp-adaptive lines in " + sys.argv[1])
    # cost[consts][workload][label] = (cost_ns, run)
    cost = defaultdict(lambda: defaultdict(dict))
    workloads, consts = [], []
    for r in runs:
        if r["workload"] not in workloads:
            workloads.append(r["workload"])
        if r["consts"] not in consts:
            consts.append(r["consts"])
        cost[r["consts"]][r["workload"]][label(r)] = (r["cost_ns"], r)

    def best_fixed(k, w):
        fixed = {l: c for l, (c, _) in cost[k][w].items() if l != "adaptive"}
        lbl = min(fixed, key=lambda l: (fixed[l], order(l)))
        return lbl, fixed[lbl]

    def targets(k):
        out = {}
        for w in workloads:
            blbl, b = best_fixed(k, w)
            a = cost[k][w]["adaptive"][0]
            out[w] = (blbl, b, a, a / b if b else 1.0)
        fixed = [l for l in cost[k][workloads[0]] if l != "adaptive"]
        worst = {}
        for l in fixed:
            worst[l] = max(cost[k][w][l][0] / best_fixed(k, w)[1]
                           for w in workloads)
        single = min(worst, key=lambda l: (worst[l], order(l)))
        return out, single, worst[single]

    seed = consts[0]
    k0 = runs[0]
    print(f"Constants `{seed}`: c_cmd {k0['c_cmd']} ns, c_sync {k0['c_sync']} ns, "
          f"c_walk {k0['c_walk']} ns. Cost per unmap in us "
          "(commands x c_cmd + syncs x c_sync + hot-set refills x c_walk), "
          "then commands / syncs / refills over the run.")
    print()
    print("| policy | " + " | ".join(workloads) + " |")
    print("|---|" + "---|" * len(workloads))
    labels = sorted(cost[seed][workloads[0]], key=order)
    for l in labels:
        cells = []
        for w in workloads:
            c, r = cost[seed][w][l]
            bl, _ = best_fixed(seed, w)
            txt = f"{c / 1000 / r['unmaps']:.2f} ({r['cmds']} / {r['syncs']} / {r['refills']})"
            if l == bl:
                txt = f"**{txt}**"
            cells.append(txt)
        print(f"| `{l}` | " + " | ".join(cells) + " |")
    print()
    print("Bold: the best fixed choice in hindsight (ties: the smallest N).")
    print()
    print("| constants | " + " | ".join(f"{w}: adaptive / best fixed"
                                          for w in workloads) +
          " | best single fixed choice, its worst ratio |")
    print("|---|" + "---|" * (len(workloads) + 1))
    met_all = True
    for k in consts:
        out, single, ratio = targets(k)
        cells = []
        for w in workloads:
            blbl, b, a, q = out[w]
            ok = q <= 1.05
            met_all &= ok
            cells.append(f"{q:.3f} (best `{blbl}`){'' if ok else ' **missed**'}")
        cells.append(f"`{single}`: {ratio:.2f}" +
                     ("" if ratio > 1.20 else " **within 20%**"))
        print(f"| `{k}` | " + " | ".join(cells) + " |")
    print()
    out, single, ratio = targets(seed)
    print("Targets at the seed's constants (reported, never asserted):")
    print()
    for w in workloads:
        blbl, b, a, q = out[w]
        print(f"- {w}: adaptive {a / 1000:.1f} us against the best fixed "
              f"`{blbl}` {b / 1000:.1f} us: {100 * (q - 1):+.1f}% "
              f"(target within 5%): **{'met' if q <= 1.05 else 'missed'}**")
    print(f"- no single fixed choice within 20% on every workload: the best "
          f"single one, `{single}`, is {100 * (ratio - 1):+.0f}% on its worst "
          f"workload: **{'met' if ratio > 1.20 else 'missed'}**")
    stale = sum(r["stale"] for r in runs)
    print(f"- stale entries after any unmap, every run: {stale}")

    if "--plot" in sys.argv:
        d = sys.argv[sys.argv.index("--plot") + 1]
        with open(f"{d}/adaptive.dat", "w") as f:
            for i, w in enumerate(workloads):
                f.write(f"# {w}\n")
                for l in labels:
                    if l.startswith("N="):
                        c, r = cost[seed][w][l]
                        f.write(f"{int(l[2:])} {c / 1000 / r['unmaps']:.3f}\n")
                f.write("\n\n")
        with open(f"{d}/adaptive.gp", "w") as f:
            f.write("set terminal pngcairo size 1000,700\n")
            f.write("set output png\n")
            f.write("set multiplot layout 2,2 title "
                    "'Cost per unmap against the fixed threshold N "
                    "(model, seed constants)'\n")
            f.write("set logscale x 2\nset logscale y\nset key top left\n")
            f.write("set xlabel 'N'\nset ylabel 'us per unmap'\n")
            for i, w in enumerate(workloads):
                a = cost[seed][w]["adaptive"]
                va = cost[seed][w]["va"]
                asid = cost[seed][w]["asid"]
                per = lambda x: x[0] / 1000 / x[1]["unmaps"]
                f.write(f"set title '{w}'\n")
                f.write(f"plot [0.7:6000] 'adaptive.dat' index {i} using 1:2 "
                        f"with linespoints title 'threshold N', "
                        f"{per(a):.3f} with lines lw 2 title 'adaptive', "
                        f"{per(va):.3f} with lines dt 2 title 'va', "
                        f"{per(asid):.3f} with lines dt 3 title 'asid'\n")
            f.write("unset multiplot\n")
    return 0 if met_all else 0


if __name__ == "__main__":
    sys.exit(main())
