#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""make bench's scalability section, in markdown.

    bench-scale-table.py KTAP_LOG > section.md

KTAP_LOG holds the "fp-scale:" lines of kunit/bench_scale.c, from the arm64
SMP test kernel (scripts/kunit.sh --arch arm64).  Per-thread throughput is
1 / (ns per unmap); flushpol scales like the direct calls when, at each
doubling of the threads, its per-thread throughput keeps at least 90% of
the share the direct side keeps.
"""
import sys

TOLERANCE = 0.9


def kv_of(line, tag):
    return dict(f.split("=", 1) for f in line.split(tag, 1)[1].split()
                if "=" in f)


def parse(path):
    runs = {}
    try:
        with open(path, errors="replace") as f:
            for line in f:
                if "fp-scale:" in line:
                    kv = kv_of(line, "fp-scale:")
                    runs.setdefault(kv["policy"], {})[int(kv["threads"])] = kv
    except FileNotFoundError:
        pass
    return runs


def kops(ns):
    return 1e6 / int(ns)


def main(path):
    runs = parse(path)
    print("### Scalability (KUnit, arm64 SMP under QEMU)\n")
    if not runs:
        print("Not measured: no fp-scale lines.\n")
        return
    any_kv = next(iter(next(iter(runs.values())).values()))
    print("`flushpol_bench_scale`, in the arm64 test kernel on "
          f"qemu-system-aarch64 -smp {any_kv['cpus']} (MTTCG, one host "
          "thread per vCPU; KASAN, lockdep and the other debug options of "
          "`kunit/arm64.config`): N threads, each bound to a CPU of its "
          "own, unmap disjoint ranges of one context, one 4K page and its "
          f"sync at a time ({any_kv['pages']} pages per thread and round, "
          f"median of {any_kv['rounds']} rounds, the sides in turn), "
          "through `fp_unmap()` and io-pgtable-arm to a do-nothing backend, "
          "and through io-pgtable-arm to the same do-nothing calls made "
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


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
