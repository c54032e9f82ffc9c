#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make bench: the benchmarks, separate from the tests, on a fresh Debian 12
# as root.  Installs what it needs, then measures in one run:
#   1. commands, syncs and collateral evictions per unmap, exact: the KUnit
#      suites in the test kernel (UML), for every backend, policy and size;
#      with flushpol_adaptive's whole sweep (adaptive.md and adaptive.png);
#   2. the flushpol core's dispatch cost per call, against calling the same
#      trivial backend directly: KUnit in the test kernel, and in the same
#      UML kernel without its debug options (scripts/bench-uml.sh);
#   3. unmap latency on QEMU's SMMUv3 with Debian's arm64 kernel: every
#      policy, through flushpol installed with DKMS, and the upstream
#      in-tree arm-smmu-v3 driver through the IOMMU API, with QEMU's trace
#      of upstream's commands from one more boot (scripts/qemu/
#      bench-upstream.sh, which also runs alone);
#   5. guest instructions (and loads, stores, atomics, barriers) per 4K
#      map and per strict 4K unmap through every policy and through the
#      upstream driver, exact, counted by QEMU's own TCG plugins built from
#      Debian's source of the QEMU in use (scripts/qemu/insn-count.sh:
#      insn.md), and by function in one more boot of each (insn-profile.md);
#   6. throughput of fio on QEMU's NVMe through every policy, strict and
#      lazy, against the upstream driver strict and lazy and bypass
#      (scripts/qemu/fio-bench.sh: fio.md and fio.png); then, on -smp 4,
#      the CMD_SYNCs and commands the SMMU consumed per I/O of 4K random
#      read at numjobs 1, 2 and 4, counted by QEMU, flushpol's strict
#      policies with CMD_SYNC sharing on and off against upstream strict
#      and lazy, and their IOPS against upstream lazy's
#      (scripts/qemu/fio-syncs.sh: fio-syncs.md);
#   7. in the arm64 SMP kernel without debug options, the options that
#      change the unmap path's code set as Debian's arm64 kernel sets them
#      (scripts/arm64-kernel.sh bench), on QEMU -smp 4: fp_unmap() against
#      direct calls from 1, 2 and 4 CPUs, where its fixed cost per unmap
#      goes, the shipped SMMUv3 command queue from 1, 2 and 4 CPUs
#      (scripts/bench-scale.sh: scale.md), and the dispatch benchmark,
#      whose composition case is 4K maps and strict unmaps, timed apart,
#      through the shipped SMMUv3 path against upstream's way (the
#      targets).
# Each ratio against upstream in 3 and 6 comes with its 95% interval, by
# bootstrap over the alternating rounds (scripts/interval.py), hence at
# least 5 rounds of each.  bench.md ends with the targets of
# scripts/bench-targets.py, met or missed.
# Writes bench.md (also printed), unmap-latency.png, qemu-vs-upstream.md
# and dispatch.md beside those, all in build/results/ (FLUSHPOL_RESULTS),
# and prints where they went; nothing tracked is written: `make results`
# publishes them into bench/results/.
# Takes about 15 minutes the first time (two UML kernels are built), 3 to
# 5 after that, the unmap rounds about 20 more, the instruction counts
# 4 boots about 3, fio's 27 boots about 55 on a shared 2-core host, and
# fio-syncs.sh's 28 about 12 (2026-12-07).
#
# Environment:
#   FP_BENCH_ROUNDS  QEMU rounds (default 8, at least 5): a boot with
#                    flushpol's policies, then one with the upstream driver
#   FP_INSN_BOOTS    boots of each driver for the instruction counts
#                    (default 2): a count that differs between them shows
#                    as a range
#   FP_FIO_ROUNDS    fio rounds (default 5, at least 5): one boot of each
#                    configuration
#   FP_BENCH_REPS    unmaps per policy and size in each (default 16, at
#                    most 64)
#   FLUSHPOL_BENCH_OUT  working directory (default build/bench)
#   FP_BENCH_NO_FIO=1  leave step 6 out (its 27 boots are most of the
#                    time): fio.md, fio.png and fio-syncs.md stay as they
#                    were, dated
#   FP_BENCH_NO_FIO_SYNCS=1  leave out only fio-syncs.sh's boots (FP_FIO_ROUNDS
#                    timed rounds of 4, 2 traced): fio-syncs.md stays
#   FP_BENCH_ALLOW_FAILING=1  go on when KUnit suites fail, naming them at
#                    the top of the report (by default: no benchmark of a
#                    tree whose tests fail)
#   FP_BENCH_TABLES_ONLY=1  measure nothing: write the tables of the run
#                    already in FLUSHPOL_BENCH_OUT again, still dated and
#                    named by the tree it measured (a table script changed,
#                    or make check's fio integrity rate is new since)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/deps.sh
. "$top/scripts/deps.sh"
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"
out=${FLUSHPOL_BENCH_OUT:-$top/build/bench}
res=$FP_RESULTS
rounds=${FP_BENCH_ROUNDS:-8}
reps=${FP_BENCH_REPS:-16}
fio_rounds=${FP_FIO_ROUNDS:-5}
insn_boots=${FP_INSN_BOOTS:-2}
qemu=$top/scripts/qemu

log() { echo "bench: $*" >&2; }
die() { log "$*"; exit 1; }

# Fewer rounds give no interval (scripts/interval.py's MIN_ROUNDS).
case $rounds$fio_rounds$insn_boots in
*[!0-9]*|'') die "FP_BENCH_ROUNDS and FP_FIO_ROUNDS: numbers" ;;
esac
if [ "$rounds" -lt 5 ] || [ "$fio_rounds" -lt 5 ]; then
	die "FP_BENCH_ROUNDS and FP_FIO_ROUNDS: at least 5 rounds each"
fi

# $1: a step's log.  Shows its end and fails.
failed()
{
	tail -n 30 "$1" >&2
	die "FAIL: see $1"
}

# $1: a KUnit output directory, $2: its log.  The counts are the suites'
# own, asserted there: a failing suite stops the benchmark unless allowed.
kunit_failed()
{
	local bad

	bad=$(sed -n 's/^not ok [0-9]* \(flushpol_[a-z0-9_]*\)$/\1/p' \
		"$1/ktap.log" 2>/dev/null | sort -u | tr '\n' ' ')
	if [ "${FP_BENCH_ALLOW_FAILING:-0}" != 1 ] || [ -z "$bad" ]; then
		failed "$2"
	fi
	log "going on although these suites failed: $bad"
	echo "$bad" >>"$out/failed-suites"
}

fp_apt_install "${FP_DEB_PACKAGES[@]}" gnuplot-nox

# Steps 1 to 7.  FP_BENCH_TABLES_ONLY=1 skips them and writes the tables
# of the run already in $out again: after a table script changed, or to
# add make check's fio integrity rate to the targets.
measure()
{
	rm -rf "$out"
	mkdir -p "$out/qemu" "$res"
	# Which tree, and when: "-dirty" for uncommitted changes.
	git -C "$top" describe --always --dirty >"$out/rev" 2>/dev/null ||
		echo "a tree" >"$out/rev"
	date -u +%F >"$out/date"
	echo "$rounds $reps" >"$out/rounds"

	log "1/7 KUnit in the test kernel: command counts, dispatch cost, adaptive"
	FP_KUNIT_ARGS=flushpol_kunit.adaptive_eval_full=1 FLUSHPOL_OUT=$out/kunit \
		"$top/scripts/kunit.sh" >"$out/kunit.log" 2>&1 ||
		kunit_failed "$out/kunit" "$out/kunit.log"
	grep -q 'fp-dispatch:' "$out/kunit/ktap.log" ||
		die "no fp-dispatch lines in $out/kunit/ktap.log"
	# The adaptive policy against every fixed threshold, on the TLB model:
	# its own table and plot.
	{
		echo "Measured $(date -u +%F) by \`make bench\` at" \
		     "$(git -C "$top" describe --always --dirty 2>/dev/null || echo "a tree")," \
		     "KUnit \`flushpol_adaptive\` on the TLB model (exact counts, priced)."
		echo
		python3 "$top/scripts/adaptive-table.py" "$out/kunit/ktap.log" \
			--plot "$out"
	} >"$res/adaptive.md"
	(cd "$out" && gnuplot -e "png='$res/adaptive.png'" adaptive.gp)
	log "wrote $res/adaptive.md and $res/adaptive.png"

	log "2/7 KUnit in UML without debug options: dispatch cost"
	uml=$("$top/scripts/bench-uml.sh" 2>"$out/bench-uml.log") ||
		failed "$out/bench-uml.log"
	FLUSHPOL_UML=$uml FLUSHPOL_OUT=$out/kunit-nodebug "$top/scripts/kunit.sh" \
		--bench >"$out/kunit-nodebug.log" 2>&1 ||
		kunit_failed "$out/kunit-nodebug" "$out/kunit-nodebug.log"

	# The QEMU rig's own build tree, so that make check's is left alone.
	export FLUSHPOL_QEMU_OUT=$out/qemu
	eval "$("$qemu/prepare.sh")"
	# Steps 3 and 4 are scripts/qemu/bench-upstream.sh's, which also runs
	# alone: its consoles and trace stay in $out/qemu for bench-table.py.
	log "3-4/7 QEMU: $rounds boots with flushpol's policies (DKMS into $KVER)," \
	    "each followed by one with the upstream arm-smmu-v3 driver, and one" \
	    "with upstream's commands counted by QEMU"
	FP_BENCH_NO_TABLE=1 "$qemu/bench-upstream.sh" "$rounds" "$reps" \
		2>"$out/bench-upstream.log" || failed "$out/bench-upstream.log"

	# The modules bench-upstream.sh staged, in its directory.
	log "5/7 QEMU: guest instructions per 4K map and strict unmap, every" \
	    "policy and upstream, counted by QEMU's plugins ($insn_boots boots of each)"
	FP_BENCH_PREBUILT=1 FP_BENCH_NO_TABLE=1 FP_INSN_PROFILE=1 \
		"$qemu/insn-count.sh" "$insn_boots" \
		2>"$out/insn-count.log" || failed "$out/insn-count.log"

	if [ "${FP_BENCH_NO_FIO:-0}" = 1 ]; then
		log "6/7 QEMU: fio left out (FP_BENCH_NO_FIO=1): fio.md is not rewritten"
	else
		log "6/7 QEMU: fio on NVMe, every configuration, $fio_rounds alternating rounds"
		FP_FIO_ROUNDS=$fio_rounds FP_FIO_PREBUILT=1 "$qemu/fio-bench.sh" \
			>"$out/fio.log" 2>&1 || failed "$out/fio.log"
		if [ "${FP_BENCH_NO_FIO_SYNCS:-0}" = 1 ]; then
			log "6/7 QEMU: fio's CMD_SYNC counts left out (FP_BENCH_NO_FIO_SYNCS=1)"
		else
			log "6/7 QEMU: fio's CMD_SYNCs per I/O at numjobs 1, 2, 4, -smp 4," \
			    "$fio_rounds timed rounds and 2 traced"
			FP_FIO_SYNC_ROUNDS=$fio_rounds FP_FIO_PREBUILT=1 \
				"$qemu/fio-syncs.sh" >"$out/fio-syncs.log" 2>&1 ||
				failed "$out/fio-syncs.log"
		fi
	fi

	log "7/7 arm64 SMP without debug options: scalability, the fixed cost per" \
	    "unmap, the command queue from 1, 2 and 4 CPUs"
	FLUSHPOL_OUT=$out/bench-arm64 "$top/scripts/bench-scale.sh" \
		>"$out/bench-scale.log" 2>&1 || failed "$out/bench-scale.log"
}

if [ "${FP_BENCH_TABLES_ONLY:-0}" = 1 ]; then
	[ -s "$out/kunit/ktap.log" ] || die "no run in $out to tabulate"
	uml=$("$top/scripts/bench-uml.sh" 2>"$out/bench-uml.log") ||
		failed "$out/bench-uml.log"
	export FLUSHPOL_QEMU_OUT=$out/qemu
	eval "$("$qemu/prepare.sh")"
else
	measure
fi

md=$res/bench.md
png=$res/unmap-latency.png
# The measured tree and day, not this one's when only the tables are new.
rev=$(cat "$out/rev" 2>/dev/null) || rev="a tree"
when=$(cat "$out/date" 2>/dev/null) || when=$(date -u +%F)
# And its rounds, not this call's FP_BENCH_ROUNDS.
if [ -s "$out/rounds" ]; then
	read -r rounds reps <"$out/rounds"
fi
# The instruction counts first: the targets read their insn.tsv.  A
# window the two plugins count differently is named in the table.
{
	echo "Measured $when by \`make bench\` at $rev: Debian's arm64 $KVER" \
	     "kernel on qemu-system-aarch64 $(qemu-system-aarch64 --version |
		head -n 1 | awk '{print $4}') -M virt,iommu=smmuv3 (TCG)."
	echo
	python3 "$qemu/insn-table.py" "$out/qemu" --tsv "$out/insn.tsv" ||
		log "insn-table.py: the plugins disagree, or a window is missing"
} >"$res/insn.md"
{
	echo "Measured $when by \`make bench\` at $rev, as insn.md."
	echo
	python3 "$qemu/insn-profile.py" "$out/qemu" || true
} >"$res/insn-profile.md"
{
	echo "Measured $when by \`make bench\` at $rev on $(nproc) host cores" \
	     "($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)):"
	echo "KUnit in User-Mode Linux $(make -s -C "$uml" kernelversion 2>/dev/null ||
		echo 6.12); Debian's arm64 $KVER kernel on"
	echo "qemu-system-aarch64 $(qemu-system-aarch64 --version | head -n 1 |
		awk '{print $4}') -M virt,iommu=smmuv3 (TCG)," \
	     "$rounds alternating boots of each kind, $reps unmaps per policy and size in each."
	echo
	if [ -s "$out/failed-suites" ]; then
		echo "**Measured on a tree whose KUnit suites failed:**" \
		     "$(sort -u "$out/failed-suites" | tr '\n' ' ')(FP_BENCH_ALLOW_FAILING=1)."
		echo
	fi
	python3 "$top/scripts/bench-table.py" "$out"
	# The targets, last.  Switch time: this run's arm64 kernel
	# without debug options; switch rate: make check's fio integrity run,
	# when there is one, dated.
	python3 "$top/scripts/bench-targets.py" "$out" "$res" \
		--arm64-ktap "$out/bench-arm64/ktap.log" \
		--fio-verify "$top/build/qemu/fio-verify"
} >"$md"
gnuplot -e "png='$png'" "$out/latency.gp"
# SMMUv2 and Qualcomm: priced from the exact counts, written by the same
# bench-table.py run.
(cd "$out" && gnuplot -e "png='$res/mmio-latency.png'" mmio-latency.gp)
cat "$md"
log "wrote $md, $png and $res/mmio-latency.png"
{
	echo "Measured $when by \`make bench\` at $rev, $rounds rounds" \
	     "of $reps unmaps, on the machine above."
	echo
	python3 "$top/scripts/bench-table.py" --qemu "$out/qemu"
} >"$res/qemu-vs-upstream.md"
FP_BENCH_REV=$rev FP_BENCH_DATE=$when \
	"$top/scripts/bench-dispatch.sh" "$out/kunit" "$out/kunit-nodebug" >/dev/null
log "results in ${res#"$top"/}/:"
for f in bench.md unmap-latency.png mmio-latency.png qemu-vs-upstream.md \
	 dispatch.md insn.md insn-profile.md adaptive.md adaptive.png fio.md fio.png \
	 fio-syncs.md scale.md; do
	[ ! -e "$res/$f" ] || log "  ${res#"$top"/}/$f"
done
log "to publish them into bench/results/ (tracked): make results"
