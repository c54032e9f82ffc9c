#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Turn the "fp-count:" lines the flushpol_counts suite prints into the
README's markdown table: per size and policy, the invalidation commands and
syncs one unmap cost, and the leaf entries of a second live buffer it threw
away.

    scripts/kunit-table.py build/kunit/counts.txt
"""
import sys


def human(n):
    n = int(n)
    for unit, div in (("M", 1 << 20), ("K", 1 << 10)):
        if n >= div and n % div == 0:
            return f"{n // div}{unit}"
    return str(n)


def main(path):
    rows = {}
    cols = []
    for line in open(path):
        if "fp-count:" not in line:
            continue
        kv = dict(f.split("=", 1) for f in line.split("fp-count:")[1].split())
        # The model's own lines only: the shipped backends print theirs
        # too, for make bench.
        if kv["backend"] not in ("model", "model-ril"):
            continue
        col = kv["policy"] + (" (RIL)" if kv["backend"].endswith("-ril") else "")
        if col not in cols:
            cols.append(col)
        row = (int(kv["pgsize"]), int(kv["size"]))
        cmds = sum(int(kv[k]) for k in ("va", "range", "asid"))
        rows.setdefault(row, {})[col] = f"{cmds} / {kv['syncs']} / {kv['b_lost']}"
    if not rows:
        sys.exit(f"{path}: no fp-count lines")
    print("| unmap | " + " | ".join(cols) + " |")
    print("|---|" + "---|" * len(cols))
    for (pgsize, size) in sorted(rows):
        label = f"{human(size)} in {human(pgsize)} pages"
        cells = [rows[(pgsize, size)].get(c, "") for c in cols]
        print(f"| {label} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(sys.argv[1])
