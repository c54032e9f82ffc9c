#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Hold the guest's flushpol statistics against QEMU's trace of the SMMU.

Each check in e2e/guest-check.sh is preceded by a mark: a CMD_TLBI_NH_ASID
for ASID 0xf000 + N, which no domain uses, with its CMD_SYNC.  Between mark
N and the next one, QEMU's count of CMD_TLBI_* (less the mark) must equal
the check's "cmds", and its CMD_SYNCs (less the mark's) the check's
"syncs", and no sample may be stale.  A check marked "(must fail)", of a
broken policy, must instead have a stale sample.

    e2e-verify.py CONSOLE TRACE
"""
import re
import sys


def checks(console):
    """mark -> (policy, ril, size, map, samples, stale, cmds, syncs, where,
    must_fail) from the console.

    The guest script's "e2e: mark=N" lines and the kernel's "fp-e2e:"
    lines reach the console by different paths, and a kernel that prints
    from a console thread (7.x) shows a check after the next mark's line:
    so a check names its own mark, and the stale lines before it are its
    own (the kernel prints them in order).  Only a mark's first check is
    its own: the unmarked stress runs after the last check repeat the last
    mark, which the guest announces without a check."""
    info, done, where = {}, [], set()
    for line in open(console, errors="replace"):
        m = re.search(r"e2e: mark=(\d+) ril=(\d) policy=(\S+) size=(\d+) "
                      r"map=(\S+)( \(must fail\))?", line)
        if m:
            info[int(m.group(1))] = (m.group(3), int(m.group(2)),
                                     int(m.group(4)), bool(m.group(6)))
            continue
        m = re.search(r"fp-e2e: stale (\S+) ", line)
        if m:
            where.add(m.group(1))
            continue
        m = re.search(r"fp-e2e: check mark=(\d+) size=(\d+) map=(\S+) "
                      r"samples=(\d+) stale=(\d+) faults=(\d+) cmds=(\d+) "
                      r"syncs=(\d+)", line)
        if m:
            done.append((m, " ".join(sorted(where))))
            where = set()
    out = {}
    for m, where in done:
        mark = int(m.group(1))
        if mark not in info or mark in out:
            continue
        pol, ril, size, must_fail = info[mark]
        if size != int(m.group(2)):
            sys.exit(f"e2e-verify: mark {mark}: the guest said size "
                     f"{size}, its check {m.group(2)}")
        out[mark] = (pol, ril, size, m.group(3), int(m.group(4)),
                     int(m.group(5)), int(m.group(7)), int(m.group(8)),
                     where, must_fail)
    missing = sorted(set(info) - set(out))
    if missing:
        sys.exit(f"e2e-verify: marks {missing} announced with no check")
    return out


def segments(trace):
    """mark -> {opcode: count} from QEMU's trace, split at the marks."""
    segs, cur = {}, None
    for line in open(trace, errors="replace"):
        m = re.search(r"smmuv3_cmdq_tlbi_nh_asid\s+asid=(\d+)", line)
        if m and int(m.group(1)) >= 0xf000:
            cur = segs.setdefault(int(m.group(1)) - 0xf000, {})
            continue
        m = re.search(r"smmuv3_cmdq_opcode\s+<---\s+(?:SMMU_)?(\S+)", line)
        if m and cur is not None:
            cur[m.group(1)] = cur.get(m.group(1), 0) + 1
    return segs


def main(console, trace):
    got, segs = checks(console), segments(trace)
    if not got:
        sys.exit("e2e-verify: no checks on the console")
    bad = 0
    print("| ril | policy | size | map | samples | stale (where) | "
          "flushpol cmds / syncs | QEMU TLBIs / syncs |")
    print("|---|---|---|---|---|---|---|---|")
    for mark, (pol, ril, size, how, n, stale, cmds, syncs, where,
               must_fail) in sorted(got.items()):
        seg = segs.get(mark & 0xfff)
        if seg is None:
            print(f"e2e-verify: mark {mark} not in the trace")
            bad += 1
            continue
        tlbi = sum(c for op, c in seg.items() if op.startswith("CMD_TLBI_")) - 1
        qsync = seg.get("CMD_SYNC", 0) - 1
        print(f"| {ril} | {pol} | {size} | {how} | {n} | {stale}"
              f"{f' ({where})' if where else ''} | {cmds} / {syncs} | "
              f"{tlbi} / {qsync} |")
        if must_fail:
            # Broken on purpose (e2e_nosync never publishes): only
            # whether the samples caught it counts.
            if not stale:
                print(f"e2e-verify: mark {mark}: {pol} {how} {size} "
                      f"was not caught")
                bad += 1
            continue
        if (tlbi, qsync) != (cmds, syncs) or stale:
            print(f"e2e-verify: mark {mark}: {pol} {how} {size}: statistics "
                  f"{cmds}/{syncs}, QEMU {tlbi}/{qsync}, stale {stale}")
            bad += 1
    print(f"e2e-verify: {len(got)} checks, {bad} mismatches")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
