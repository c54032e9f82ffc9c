#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The benchmark tables' own test, without an hour of QEMU: writes guest
consoles in the rig's formats, from a seeded generator whose true ratios
are known, runs scripts/bench-table.py, scripts/bench-targets.py,
scripts/qemu/fio-table.py, scripts/qemu/fio-syncs-table.py and
scripts/qemu/insn-table.py on them, and checks what they print.

    tables-selftest.py [--show] [COUNTS]

COUNTS: a KUnit counts.txt for the count tables (default: the few lines
below).  --show prints the tables.  Exit status 1 on a failed check.

The generated unmap times are the medians of bench/results/qemu-vs-upstream
.md with each round slowed by a host factor shared by its two boots and
each unmap by a heavy-tailed noise: `range` costs what upstream does (its
ratio's interval must hold 1.0), `va` at 64K half again as much (it must
not).  The fio throughputs: `asid` exactly upstream strict's, `va` at 1M
20% slower.  The fio CMD_SYNC counts: QEMU traces with marks around
each run and known commands between them, `va` sharing half its
CMD_SYNCs in one traced round and 0.4 in the other, a lazy domain's
flush queue sending its own ASID's pair twice in a row; its throughput
0.95x upstream lazy's, without sharing 0.5x.  The instruction counts: QEMU's insn plugin and insn-window.c's
lines for windows of 64, `va` below upstream's unmap, `range` one
instruction a window above it; then one window the plugins count apart,
and one that differs between boots; and insn-profile.py's blocks by
function.
"""
import os
import random
import subprocess
import sys
import tempfile

top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SIZES = (4096, 65536, 1 << 20, 2 << 20, 12 << 20, 16 << 20, 24 << 20,
         32 << 20)
# Median us per size: upstream, and flushpol's policies against it.
UPSTREAM = (3.9, 5.3, 29.3, 9.5, 89, 109, 127, 138)
FACTOR = {"va": (1.0, 1.5, 2.4, 13, 7, 8, 12, 13), "range": (1.0,) * 8,
          "asid": (1.05,) * 8, "threshold": (0.95,) * 8}
# Commands and syncs per unmap with RIL, as QEMU's rig reports them.
CMDS = {"va": ((1, 1), (16, 1), (256, 1), (513, 2), (3078, 7), (4104, 9),
               (6156, 13), (8208, 17)),
        "upstream": ((1, 1),) * 3 + ((2, 2), (7, 7), (9, 9), (13, 13),
                                     (17, 17))}
OTHERS = ((1, 1),) * 4 + ((6, 6), (8, 8), (12, 12), (16, 16))
ROUNDS, REPS = 6, 8
COUNTS = """\
fp-count: backend=upstream-smmuv3 policy=upstream size=4096 pgsize=4096 unmap=4096 va=1 range=0 asid=0 syncs=1
fp-count: backend=upstream-smmuv3 policy=upstream size=33554432 pgsize=4096 unmap=33554432 va=8208 range=0 asid=0 syncs=17
fp-count: backend=smmuv3 policy=va size=4096 pgsize=4096 unmap=4096 walks=0 leaves=1 va=1 range=0 asid=0 syncs=1 collateral=0 b_lost=0 stale=0
fp-count: backend=smmuv3 policy=threshold size=4096 pgsize=4096 unmap=4096 walks=0 leaves=1 va=1 range=0 asid=0 syncs=1 collateral=0 b_lost=0 stale=0
fp-count: backend=smmuv3 policy=va size=33554432 pgsize=4096 unmap=33554432 walks=16 leaves=16 va=8208 range=0 asid=0 syncs=17 collateral=0 b_lost=0 stale=0
fp-count: backend=smmuv3 policy=threshold size=33554432 pgsize=4096 unmap=33554432 walks=16 leaves=16 va=0 range=0 asid=16 syncs=16 collateral=512 b_lost=512 stale=0
fp-count: backend=upstream-qcom policy=upstream chosen=upstream threshold=0 size=33554432 pgsize=4096 walks=16 leaves=16 tlbiva=0 tlbival=16 tlbiasid=16 tlbsync=17
fp-count: backend=qcom policy=threshold chosen=default threshold=128 size=33554432 pgsize=4096 walks=16 leaves=16 tlbiva=0 tlbival=0 tlbiasid=16 tlbsync=16 status_reads=16 mmio_writes=32 b_lost=512 stale=0
fp-count: backend=qcom policy=adaptive chosen=set threshold=128 size=33554432 pgsize=4096 walks=16 leaves=16 tlbiva=8192 tlbival=0 tlbiasid=0 tlbsync=16 status_reads=16 mmio_writes=8208 b_lost=0 stale=0
"""


def samples(rng, us, host):
    """REPS unmap times in ns: lognormal noise, now and then a preemption."""
    out = []
    for _ in range(REPS):
        t = us * host * rng.lognormvariate(0, 0.08)
        if rng.random() < 0.05:
            t *= rng.uniform(5, 50)
        out.append(int(t * 1000))
    return out


def result(f, size, ns, cmds=1, syncs=1):
    ns_sorted = sorted(ns)
    f.write("fp-bench-ns: " + ",".join(map(str, ns)) + "\n")
    f.write(f"fp-bench: size={size} reps={len(ns)} "
            f"median_ns={ns_sorted[len(ns) // 2]} p99_ns={ns_sorted[-1]} "
            f"min_ns={ns_sorted[0]} max_ns={ns_sorted[-1]} cmds={cmds} "
            f"syncs={syncs}\n")


def write_unmap(qd, rng):
    os.makedirs(qd)
    for r in range(1, ROUNDS + 1):
        host = rng.choice((1.0, 1.0, 1.1, 1.4))
        with open(f"{qd}/flushpol-{r}.log", "w") as f:
            for i, size in enumerate(SIZES):
                for p, fac in FACTOR.items():
                    f.write(f"bench: ril=1 policy={p} round=1\n")
                    result(f, size, samples(rng, UPSTREAM[i] * fac[i], host),
                           *CMDS.get(p, OTHERS)[i])
        with open(f"{qd}/upstream-{r}.log", "w") as f:
            for i, size in enumerate(SIZES):
                f.write("bench: upstream round=1\n")
                result(f, size, samples(rng, UPSTREAM[i], host),
                       *CMDS["upstream"][i])


def terse(read, kib, bw, iops):
    t = ["0"] * 130
    t[0], t[1], t[2] = "3", "fio-3.33", "job"
    base = 5 if read else 46
    t[base], t[base + 1], t[base + 2] = str(kib), str(bw), f"{iops:.0f}"
    return ";".join(t)


def write_fio(fd, rng, rounds):
    os.makedirs(fd)
    jobs = (("rr4k", 4, True, 60000), ("sr1m", 1024, True, 300 * 1024))
    cols = {"flushpol-strict": {"va": 1.0, "asid": 1.0},
            "upstream-strict": {"upstream-strict": 1.0}}
    slow = {("va", "sr1m"): 0.8}
    for r in range(1, rounds + 1):
        # Within a round every configuration gets the same noise.
        host = {j: rng.choice((1.0, 0.95, 0.8)) * rng.lognormvariate(0, 0.04)
                for j, *_ in jobs}
        for cfg, pols in cols.items():
            smmu = "flushpol" if cfg.startswith("flushpol") else cfg
            with open(f"{fd}/{cfg}-{r}.log", "w") as f:
                for p in pols:
                    for j, bs, read, kbs in jobs:
                        bw = int(kbs * host[j] * slow.get((p, j), 1.0))
                        kib = bw * 3
                        f.write(f"fio: smmu={smmu} policy={p} job={j} "
                                f"reqs={kib // bs} kib={kib} "
                                f"tlbi_va={kib // bs} tlbi_range=0 "
                                f"tlbi_asid=0 tlbi_all=0 syncs={kib // bs} "
                                f"terse={terse(read, kib, bw, bw / bs)}\n")


def write_scale(path, rng):
    """The scale bench's command queue lines, as kunit/bench_scale_cmdq.c
    prints them: the shared queue keeps 1/1.1 of one CPU's per-thread
    throughput at 2 CPUs and 1/3 at 4; own and instant 1/1.05 and 1/1.25."""
    slow = {"cmdq": (1, 1.1, 3.0), "private": (1, 1, 1),
            "own": (1, 1.05, 1.25), "instant": (1, 1.05, 1.25)}
    base = {"cmdq": 4600, "private": 64, "own": 4600, "instant": 1900}
    with open(path, "w") as f:
        f.write("    # cmdq_scaling_reported: fp-scale-cmdq-fake: "
                "batches=4096 fake_ns=1600 accesses=2 clock_ns=40 "
                "timed_batch_ns=6000\n")
        for side, ns1 in base.items():
            for i, n in enumerate((1, 2, 4)):
                ns = ",".join(str(int(ns1 * slow[side][i] *
                                      rng.uniform(0.95, 1.05)))
                              for _ in range(31))
                f.write("    # cmdq_scaling_reported: fp-scale-cmdq: "
                        f"side={side} threads={n} cpus=4 batch=1 "
                        f"batches=1024 rounds=31 cons_reads={31744 * n} "
                        f"ns={ns}\n")
        f.write("    # cmdq_scaling_reported: fp-scale-cmdq-syncs: "
                "path=submit_sync share=on threads=4 cpus=4 unmaps=4096 "
                "syncs=3174 fallbacks=3 per_unmap=0.775 round_min=0.701 "
                "round_max=0.812 upstream=1.000 ns=5790,12333\n")


# Instructions per window of INSN_N maps or unmaps: (map, unmap) per policy.
INSN_N = 64
INSN = {"upstream": (39043, 110468), "va": (47693, 105135),
        "range": (47693, 110469)}


def write_insn(d, boots=2, disagree=None, vary=None):
    """insn-count.sh's consoles and plugin logs: a window of boot-time work
    first, and one marker the guest's lines do not name (so that pairing by
    index, not by order, is what works).  @disagree: (boot, window index)
    whose insn.c count is one more; @vary: (boot, policy) whose unmap
    window costs 64 more."""
    os.makedirs(d)
    for b in range(1, boots + 1):
        for drv, pols in (("flushpol", ("va", "range")),
                          ("upstream", ("upstream",))):
            con, plug, k = [], [], 0

            def window(insns):
                nonlocal k
                plug.append(f"fp-window: {k} insns={insns} loads={insns // 6}"
                            f" stores={insns // 3} atomics=128 barriers=64")
                extra = 1 if disagree == (b, k) else 0
                plug.append(f"0xffff800080001000, 'hint #0x7f', 1 hits, "
                            f"{k + 1} match hits, \u0394+{insns + extra} "
                            "since last match, 7 avg insns/match")
                k += 1
            window(1519116559)
            window(4242)
            for r in (1, 2):
                for p in pols:
                    m, u = INSN[p]
                    u += 64 if vary == (b, p) and r == 2 else 0
                    con.append(f"[   15.9{k}] insn: policy={p} round={r}")
                    window(1238797)
                    window(m)
                    window(u)
                    con.append(f"[   15.9{k}] flushpol_edu: fp-insn: "
                               f"n={INSN_N} map={k - 2} unmap={k - 1}")
            con.append("[   16.3] insn: policy=nonstrict unusable (strict=1)")
            with open(f"{d}/insn-{drv}-{b}.log", "w") as f:
                f.write("\n".join(con) + "\n")
            with open(f"{d}/insn-{drv}-{b}.plugin", "w") as f:
                f.write("\n".join(plug) + "\n")


def write_fio_syncs(fd, rng):
    """fio-syncs.sh's consoles and traces: 1000 I/Os a run; per I/O, every
    strict column one TLBI_NH_VA, upstream strict, `threshold` and `va`
    without sharing one CMD_SYNC, `va` sharing 0.5 (traced round 1) and
    0.4 (round 2), each flushpol boot switching to `threshold` (a
    TLBI_NH_VA and CMD_SYNC) between its two runs; upstream lazy one TLBI_NH_ASID + CMD_SYNC of its ASID per
    100 I/Os, every third twice in a row.  Traps: upstream strict one
    CMDQ_PROD write and one CMDQ_CONS read per I/O, `va` without sharing
    one write and three reads, its `threshold` none; no other boot any."""
    os.makedirs(fd)
    ios = 1000
    mark = ("smmuv3_cmdq_opcode <--- SMMU_CMD_TLBI_NH_ASID\n"
            "smmuv3_cmdq_tlbi_nh_asid asid=3\n"
            "smmuv3_cmdq_opcode <--- SMMU_CMD_SYNC\n") * 2
    va = "smmuv3_cmdq_opcode <--- SMMU_CMD_TLBI_NH_VA\n"
    sync = "smmuv3_cmdq_opcode <--- SMMU_CMD_SYNC\n"
    prod = "smmuv3_write_mmio addr: 0x98 val:0x5 size: 0x4(0)\n"
    cons = "smmuv3_read_mmio addr: 0x9c val:0x5 size: 0x4(0)\n"
    gerror = "smmuv3_read_mmio addr: 0x60 val:0x0 size: 0x4(0)\n"
    reads = {("upstream-strict", "upstream-strict"): 1,
             ("flushpol-noshare", "va"): 3}
    fq = ("smmuv3_cmdq_opcode <--- SMMU_CMD_TLBI_NH_ASID\n"
          "smmuv3_cmdq_tlbi_nh_asid asid=1\n" + sync)
    cfgs = {"upstream-strict": ["upstream-strict"],
            "upstream-lazy": ["upstream-lazy"],
            "flushpol-share": ["va", "threshold"],
            "flushpol-noshare": ["va", "threshold"]}
    speed = {"upstream-strict": 0.7, "upstream-lazy": 1.0,
             "flushpol-share": 0.95, "flushpol-noshare": 0.5}
    for r in range(1, ROUNDS + 1):
        host = rng.choice((1.0, 0.9, 0.8))
        for cfg, pols in cfgs.items():
            smmu = "flushpol" if cfg.startswith("flushpol") else cfg
            with open(f"{fd}/{cfg}-{r}.log", "w") as f:
                for p in pols + ["batch"] * (smmu == "flushpol"):
                    if p == "batch":
                        f.write("fio: policy batch not offered: va range "
                                "asid [threshold]\n")
                        continue
                    iops = 5000 * speed[cfg] * host
                    f.write(f"fio: smmu={smmu} policy={p} job=rr4k4 "
                            f"reqs={ios} kib={4 * ios} tlbi_va=0 "
                            "tlbi_range=0 tlbi_asid=0 tlbi_all=0 syncs=0 "
                            f"terse={terse(True, 4 * ios, 0, iops)}\n")
    for r in (1, 2):
        for cfg, pols in cfgs.items():
            smmu = "flushpol" if cfg.startswith("flushpol") else cfg
            with open(f"{fd}/{cfg}-count{r}.log", "w") as f, \
                    open(f"{fd}/{cfg}-count{r}.trace", "w") as t:
                t.write("smmuv3_cmdq_opcode <--- SMMU_CMD_CFGI_STE\n" + sync
                        + fq)
                for p in pols:
                    f.write("[    5.1] fio: mark job=rr4k4\n")
                    t.write(mark)
                    for i in range(ios):
                        if cfg == "upstream-lazy":
                            if i % 100 == 0:
                                t.write(fq * (2 if i % 300 == 0 else 1))
                            continue
                        if (cfg, p) in reads:
                            t.write(prod)
                        t.write(va)
                        if cfg != "flushpol-share" or p != "va" or \
                                i % 10 < 6 - r:
                            t.write(sync)
                        if (cfg, p) in reads:
                            t.write((cons + gerror) * reads[cfg, p])
                    f.write("[    8.1] fio: mark stop\n")
                    t.write(mark)
                    f.write(f"fio: smmu={smmu} policy={p} job=rr4k4 "
                            f"reqs={ios} kib={4 * ios} tlbi_va={ios} "
                            "tlbi_range=0 tlbi_asid=0 tlbi_all=0 "
                            f"syncs={ios if smmu == 'flushpol' else 0} "
                            f"terse={terse(True, 4 * ios, 0, 900)}\n")
                    # A policy switch between runs, outside the marks.
                    t.write(va + sync)


def check_fio_syncs(d, check):
    write_fio_syncs(f"{d}/fio-syncs", random.Random(3))
    out = run(f"{top}/scripts/qemu/fio-syncs-table.py", f"{d}/fio-syncs")
    rows = {ln.split(" | ")[0].strip("| "): ln for ln in out.splitlines()
            if ln.startswith("| ") and "CMD_SYNC" not in ln}
    check(rows.get("va (share)", "").startswith(
        "| va (share) | 0.450 (0.400 - 0.500) | 1.000 | 1.000 | 0.000 | 1.000 "
        "| 1.000 |"),
        f"fio-syncs: va sharing, its CMD_SYNCs with their spread: "
        f"{rows.get('va (share)')}")
    check(rows.get("threshold (share)", "").startswith(
        "| threshold (share) | 1.000 | 1.000 | 1.000 | 0.000 | 1.000 "
        "| 1.000 |"),
        f"fio-syncs: the second run of a boot, the policy switch before it "
        f"not counted: {rows.get('threshold (share)')}")
    check(rows.get("va (share)", "").endswith(
        "| 0.904 (0.817 - 0.990) |"),
        f"fio-syncs: va sharing priced per I/O, 1 command and 0.4 or 0.5 "
        f"CMD_SYNC at 126 and 1728 ns: {rows.get('va (share)')}")
    check(rows.get("upstream-strict", "").endswith(
        "| 1.000 | 1.000 | 1.854 |")
          and rows.get("va (no share)", "").endswith(
        "| 1.000 | 3.000 | 1.854 |")
          and rows.get("threshold (no share)", "").endswith(
        "| 0.000 | 0.000 | 1.854 |")
          and rows.get("upstream-lazy", "").endswith("| - | - | 0.026 |"),
        "fio-syncs: CMDQ_PROD writes and CMDQ_CONS reads per I/O, none "
        "where the trace has none: " + " / ".join(
            str(rows.get(c)) for c in ("upstream-strict", "va (no share)",
                                       "threshold (no share)",
                                       "upstream-lazy")))
    check(rows.get("va (no share)", "").startswith(
        "| va (no share) | 1.000 | 1.000 | 1.000 | 0.000 | 1.000 | 1.000 |"),
        f"fio-syncs: va without sharing: {rows.get('va (no share)')}")
    check(rows.get("upstream-lazy", "").startswith(
        "| upstream-lazy | 0.014 | - | 0.014 | 0.014 | 0.000 | 1.000 |"),
        f"fio-syncs: the lazy flush queue's pairs are not marks: "
        f"{rows.get('upstream-lazy')}")
    tgt = [ln for ln in out.splitlines() if ln.startswith("- ")]
    check(len(tgt) == 5 and tgt[0].endswith("`va (share)`, 0.500 (upstream "
                                            "strict: 1.000): met")
          and tgt[1].startswith("- `va (share)`: 0.500 CMD_SYNC")
          and "0.95x (95% 0.95-0.95): met; both met" in tgt[1]
          and "0.50x (95% 0.50-0.50): **missed**" in tgt[-1],
          "fio-syncs: the targets: " + " / ".join(tgt))
    check("not counted" not in out and "batch" not in out,
          "fio-syncs: every traced boot counted, batch left out")
    return out


def run(*args, rc=0):
    p = subprocess.run([sys.executable, *args], capture_output=True,
                       text=True)
    if p.returncode != rc:
        raise subprocess.CalledProcessError(p.returncode, args, p.stdout,
                                            p.stderr)
    return p.stdout


def check_insn(d, check):
    """insn-table.py's exact counts and bench-targets.py's verdict on them;
    a window the two plugins count apart fails the table."""
    table = f"{top}/scripts/qemu/insn-table.py"
    targets = f"{top}/scripts/bench-targets.py"
    write_insn(f"{d}/insn")
    os.makedirs(f"{d}/insn-bench")
    out = run(table, f"{d}/insn", "--tsv", f"{d}/insn-bench/insn.tsv")
    rows = {ln.split(" | ")[0]: ln for ln in out.splitlines()
            if ln.startswith("| ")}
    check("| 610.046875 | 101.671875 / 203.34375 / 2 / 1 | 1726.0625 |"
          in rows.get("| upstream arm-smmu-v3", "")
          and "4 in 2, identical" in rows.get("| upstream arm-smmu-v3", ""),
          f"upstream's exact counts per 4K: {out}")
    check("| 1642.734375 |" in rows.get("| `va`", "")
          and "| 0.952x |" in rows.get("| `va`", ""),
          f"va's unmap and its ratio: {rows.get('| `va`')}")
    check("agree at every window" in out and "nonstrict unusable" in out,
          f"the plugins agree; nonstrict named as not measured: {out}")
    line = next((ln for ln in run(targets, f"{d}/insn-bench",
                                  f"{d}/insn-bench").splitlines()
                 if ln.startswith("- Guest instructions")), "")
    check("upstream 1726.0625, `va` 1642.734375 (0.952x), `range` "
          "1726.078125 (1.000x): **missed**" in line
          and "per map, not a target: upstream 610.046875, flushpol "
          "745.203125" in line,
          f"range one instruction a window above upstream: missed: {line}")
    write_insn(f"{d}/insn-met", boots=1)
    with open(f"{d}/insn-met/insn-flushpol-1.plugin") as f:
        text = f.read().replace("insns=110469 ", "insns=110468 ")
    with open(f"{d}/insn-met/insn-flushpol-1.plugin", "w") as f:
        f.write(text.replace("\u0394+110469 ", "\u0394+110468 "))
    os.makedirs(f"{d}/insn-met-bench")
    run(table, f"{d}/insn-met", "--tsv", f"{d}/insn-met-bench/insn.tsv")
    line = next((ln for ln in run(targets, f"{d}/insn-met-bench",
                                  f"{d}/insn-met-bench").splitlines()
                 if ln.startswith("- Guest instructions")), "")
    check("`range` 1726.0625 (1.000x): met" in line,
          f"range at upstream's count: met: {line}")
    write_insn(f"{d}/insn-vary", vary=(2, "upstream"))
    out = run(table, f"{d}/insn-vary")
    row = next((ln for ln in out.splitlines()
                if ln.startswith("| upstream")), "")
    check("| 1726.0625 to 1727.0625 |" in row and "**differ**" in row,
          f"a count that differs between boots, as its range: {row}")
    # The profile: blocks named by the symbol at or below their start,
    # per operation over N; one block below the first symbol.
    os.makedirs(f"{d}/prof")
    with open(f"{d}/prof/profile-flushpol.log", "w") as f:
        f.write("[   15.9] insn: policy=va round=1\n"
                f"[   15.9] flushpol_edu: fp-insn: n={INSN_N} map=1 "
                "unmap=2\n"
                "ksym: ffff800080001000 iommu_unmap\n"
                "ksym: ffff800080001100 __iommu_unmap\n"
                "ksym: ffff800079000000 fp_unmap\t[flushpol]\n")
    with open(f"{d}/prof/profile-flushpol.plugin", "w") as f:
        f.write("fp-profile: 1 ffff800080001000 6400\n"
                "fp-window: 1 insns=6400 loads=0\n"
                "fp-profile: 2 ffff800080001000 2496\n"
                "fp-profile: 2 ffff800080001040 64\n"
                "fp-profile: 2 ffff800080001180 640\n"
                "fp-profile: 2 ffff800079000010 10240\n"
                "fp-profile: 2 ffff800000000000 64\n"
                "fp-window: 2 insns=13568 loads=0\n")
    prof = run(f"{top}/scripts/qemu/insn-profile.py", f"{d}/prof")
    unmap = prof.partition("4K unmap:")[2]
    check("| `fp_unmap [flushpol]` | 160.00 |" in unmap
          and "| `iommu_unmap` | 40.00 |" in unmap
          and "| `__iommu_unmap` | 10.00 |" in unmap
          and "| `0xffff800000000000` | 1.00 |" in unmap
          and "| the window (insn-window.c) | 212.00 |" in unmap
          and "| `iommu_unmap` | 100.00 |" in prof.partition("4K unmap")[0],
          f"the profile by function, per operation: {prof}")
    write_insn(f"{d}/insn-bad", disagree=(1, 4))
    out = run(table, f"{d}/insn-bad", rc=1)
    check("insn-flushpol-1.log: window 4 of va unmap: insn.c counts "
          "105136, insn-window.c 105135" in out
          and "agree at every window" not in out,
          f"the plugins disagree at a window: named, exit 1: {out}")
    return out


def main():
    show = "--show" in sys.argv
    rest = [a for a in sys.argv[1:] if a != "--show"]
    fails = []

    def check(ok, what):
        if not ok:
            fails.append(what)

    with tempfile.TemporaryDirectory() as d:
        rng = random.Random(1)
        write_unmap(f"{d}/bench/qemu", rng)
        os.makedirs(f"{d}/bench/kunit")
        with open(f"{d}/bench/kunit/counts.txt", "w") as f:
            f.write(open(rest[0]).read() if rest else COUNTS)
        bench = run(f"{top}/scripts/bench-table.py", f"{d}/bench")
        check(bench == run(f"{top}/scripts/bench-table.py", f"{d}/bench"),
              "bench-table.py prints the same table twice")
        rows = {ln.split(" | ")[0]: ln for ln in bench.splitlines()
                if ln.startswith("| ") and "95%" in ln}
        check(rows, "an against-upstream table with intervals")
        for row in rows.values():
            cells = row.strip("| ").split(" | ")
            # Columns: unmap, va, range, asid, threshold.
            check(cells[2].startswith("no difference measured"),
                  f"range as upstream, no difference: {row}")
        r64 = rows.get("| 64K", "")
        check(" | 0.6" in r64 and "no difference" not in r64.split(" | ")[1],
              f"va at 64K slower, outside its interval: {r64}")
        check("SMMU without range invalidation (MMU-600)" in bench
              and "8208 / 17: 1063.6 us" in bench,
              "the MMU-600 table, upstream's 32M priced")
        # SMMUv2/Qualcomm: the seed's 32M beside the priced writes, in
        # column order, and the plot's data row.
        check("| 32M | 1033 | 51.8 | 32 / 17: 97.9 |" in bench
              and "| 16 / 16: 94.2 | 8192 / 16: 1059.8 |" in bench,
              "the SMMUv2 table, upstream qcom, QCOM and adaptive at 32M")
        with open(f"{d}/bench/mmio-latency.dat") as f:
            check("33554432 1033 51.8 97.920 94.176 1059.840"
                  in f.read(), "the SMMUv2 plot's data, in column order")
        write_scale(f"{d}/scale.log", rng)
        scale = run(f"{top}/scripts/bench-scale-table.py", f"{d}/scale.log")
        check("| instant: per thread |" in scale,
              "the command queue table has the instant side")
        check("| submit_sync | on | 4 | 4096 | 3174 | 0.775 | 0.701, 0.812 "
              "| 3 | 1.000 | 5790, 12333 |" in scale,
              "the CMD_SYNCs per unmap table, each column in its place")
        os.makedirs(f"{d}/results")
        with open(f"{d}/results/scale.md", "w") as f:
            f.write(scale)
        targets = run(f"{top}/scripts/bench-targets.py", f"{d}/bench",
                      f"{d}/results")
        check("QEMU unmap latency" in targets and "not measured in this run"
              in targets, "the targets block")
        # fio-verify.sh's consoles, the guest's line as it prints it.
        os.makedirs(f"{d}/fio-verify")
        for mode, n in (("strict", 2316), ("lazy", 900)):
            with open(f"{d}/fio-verify/{mode}.log", "w") as f:
                f.write("fio-verify: smmu=flushpol policy=switching secs=20 "
                        "written_kib=650960 verified_kib=648352 fio_rc=0 "
                        "fio_error=0 errors=0 faults=0 "
                        f"switches={n} switches_per_s={n // 20}\n")
        with open(f"{d}/arm64.log", "w") as f:
            f.write("    # policy_switch_latency_reported: fp-switch: 101 "
                    "policy writes on 4 CPUs: median 43 us, min 38 us, "
                    "max 2263 us\n")
        sw = run(f"{top}/scripts/bench-targets.py", f"{d}/bench",
                 f"{d}/results", "--fio-verify", f"{d}/fio-verify",
                 "--arm64-ktap", f"{d}/arm64.log")
        sw = next((ln for ln in sw.splitlines()
                   if ln.startswith("- Policy switches")), "")
        check("median policy write 43 us" in sw
              and "strict: 2316 switches, 115 a second" in sw
              and "lazy: 900 switches, 45 a second" in sw
              and sw.endswith("**missed**."),
              f"the switch rate from fio-verify's consoles: {sw}")
        line = next((ln for ln in targets.splitlines()
                     if ln.startswith("- Scaling")), "")
        two, _, four = line.partition("1 to 4 CPUs")
        check("1 to 2 CPUs: per-thread" in two
              and ": met;" in two and "**missed**" in four
              and "instant SMMU 8" in four,
              f"the command queue's target, from its own verdicts: {line}")

        write_fio(f"{d}/fio", rng, ROUNDS)
        fio = run(f"{top}/scripts/qemu/fio-table.py", f"{d}/fio",
                  f"{d}/fio.dat")
        row = next((ln for ln in fio.splitlines()
                    if ln.startswith("| 1M") and "95%" in ln), "")
        cells = row.strip("| ").split(" | ")
        check(len(cells) == 3 and cells[2].startswith("no difference")
              and not cells[1].startswith("no difference")
              and cells[1].startswith("0.8"),
              f"fio: asid as upstream, va 0.8x: {row}")
        write_fio(f"{d}/fio1", rng, 1)
        one = run(f"{top}/scripts/qemu/fio-table.py", f"{d}/fio1",
                  f"{d}/fio1.dat")
        check("Indicative only" in one and "95%" not in one,
              "one round: indicative only, no interval")
        syncs = check_fio_syncs(d, check)
        try:
            insn = check_insn(d, check)
        except subprocess.CalledProcessError as e:
            insn = e.stdout
            check(False, f"{e.cmd[0]} exited with {e.returncode}: "
                  f"{e.stdout}{e.stderr}")
    if show:
        print(bench, scale, targets, fio, one, syncs, insn,
              sep="\n-----\n")
    for f in fails:
        print(f"tables-selftest: FAIL: {f}", file=sys.stderr)
    print(f"tables-selftest: {len(fails)} failed" if fails
          else "tables-selftest: ok")
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
