#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Turn the "fp-count:" lines the KUnit suites print into the
documentation's tables (reStructuredText list-tables).

    scripts/kunit-table.py build/kunit/counts.txt [commands|mmio]

commands (the default): flushpol_counts, on the TLB model's own backend.
Per size and policy, the invalidation commands and syncs one unmap cost,
and the leaf entries of a second live buffer it threw away.

mmio: flushpol_smmuv2 and flushpol_qcom, the SMMUv2 backends against the
fake register window, and upstream arm-smmu-qcom's writes for the same
unmaps (flushpol_upstream_counts).  Per size and policy, the MMIO writes
one unmap cost, by register.
"""
import sys

# Which backends each table shows, in column order ("-ril": the same
# backend with range invalidation).
BACKENDS = {
    "commands": ("model",),
    "mmio": ("smmuv2", "qcom", "upstream-qcom"),
}
LABEL = {"smmuv2": "SMMUv2", "qcom": "QCOM",
         "upstream-qcom": "upstream arm-smmu-qcom"}
# Register counts as they appear in a cell, in order.
REGISTERS = (("tlbiva", "TLBIVA"), ("tlbival", "TLBIVAL"),
             ("tlbiasid", "TLBIASID"))


def human(n):
    n = int(n)
    for unit, div in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if n >= div and n % div == 0:
            return f"{n // div}{unit}"
    return str(n)


def commands_cell(kv):
    col = kv["policy"] + (" (RIL)" if kv["backend"].endswith("-ril") else "")
    cmds = sum(int(kv[k]) for k in ("va", "range", "asid"))
    return col, f"{cmds} / {kv['syncs']} / {kv['b_lost']}"


def mmio_cell(kv):
    col = f"{LABEL[kv['backend']]} ``{kv['policy']}``"
    if kv["chosen"] == "upstream":
        col = LABEL[kv["backend"]]
    elif kv["chosen"] == "default":
        col += f" {kv['threshold']} (its default)" \
            if kv["policy"] == "threshold" else " (its default)"
    writes = [f"{kv[k]} {name}" for k, name in REGISTERS if int(kv[k])]
    return col, " + ".join(writes) + f", {kv['tlbsync']} TLBSYNC"


def main(path, kind):
    cell = {"commands": commands_cell, "mmio": mmio_cell}[kind]
    rows = {}
    cols = []
    order = {}
    for line in open(path):
        if "fp-count:" not in line:
            continue
        kv = dict(f.split("=", 1) for f in line.split("fp-count:")[1].split())
        backend = kv["backend"].removesuffix("-ril")
        if backend not in BACKENDS[kind]:
            continue
        col, text = cell(kv)
        if col not in cols:
            cols.append(col)
            order[col] = BACKENDS[kind].index(backend)
        unmap = int(kv.get("unmap", kv["size"]))
        rows.setdefault((int(kv["pgsize"]), int(kv["size"]), unmap),
                        {})[col] = text
    if not rows:
        sys.exit(f"{path}: no fp-count lines for the {kind} table")
    # Backends in BACKENDS order, whichever suite ran first.
    cols.sort(key=lambda c: order[c])
    table = [["unmap"] + cols]
    for (pgsize, size, unmap) in sorted(rows):
        label = f"{human(size)} in {human(pgsize)} pages"
        if unmap != size:
            label = f"{human(unmap)} out of a {human(size)} block"
        table.append([label] +
                     [rows[(pgsize, size, unmap)].get(c, "") for c in cols])
    print(".. list-table::\n   :header-rows: 1\n")
    for row in table:
        for i, text in enumerate(row):
            print(f"   {'*' if i == 0 else ' '} - {text}".rstrip())


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "commands")
