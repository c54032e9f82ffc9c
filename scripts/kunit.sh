#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Run the KUnit suites in a kernel built from Debian's linux-source-6.12,
# with the real io-pgtable-arm, and judge them with the kernel's own KTAP
# parser: by default in User-Mode Linux (one CPU), with --arch arm64 in an
# arm64 kernel on qemu-system-aarch64 -M virt -smp 4 with one host thread
# per vCPU (MTTCG), where the suites' threads really run in parallel.
#
# Neither exit status says what the tests did, and the kernel prints an
# empty KTAP block of its own at boot: so only what follows our marker is
# parsed, and the run fails unless /init reports that every module loaded
# and the parser finds every expected suite, all passing.
# FP_KUNIT_ARGS adds to the kernel command line (module parameters).
#
#   kunit.sh [--arch A]              every suite, 2500 stress cycles
#                                    (on arm64 FP_ARM64_STRESS_OPS,
#                                    default 0: the stress left out), and
#                                    first /init's module lifetime checks,
#                                    36 rounds
#   kunit.sh [--arch A] --stress [N] flushpol_stress alone, N cycles
#                                    (10^5; arm64: FP_ARM64_STRESS_TOTAL,
#                                    400), and the lifetime checks with
#                                    100 rounds
#   kunit.sh --arch arm64 --kcsan [--planted] [N]
#                                    in the KCSAN variant of the arm64
#                                    kernel (scripts/arm64-kernel.sh
#                                    kcsan), KCSAN sampling densely: the
#                                    concurrency suites, flushpol_stress
#                                    N cycles (FP_KCSAN_STRESS_OPS, 200;
#                                    unmaps of at most 2M); known upstream
#                                    races filtered (kunit/kcsan-filter.txt);
#                                    fails on a KCSAN report in flushpol's
#                                    code (scripts/kcsan-summary.sh).
#                                    --planted: flushpol_stress alone
#                                    (FP_KCSAN_PLANTED_OPS, 100 cycles),
#                                    with the core's planted race
#                                    (core/dispatch.c): passes only if
#                                    KCSAN reports it
#   kunit.sh --arch arm64 --rt       every suite, as the arm64 run, in the
#                                    PREEMPT_RT variant of the arm64
#                                    kernel (scripts/arm64-kernel.sh rt),
#                                    where a spinlock_t or an allocation
#                                    under a raw spinlock, or with
#                                    preemption or interrupts off, is a
#                                    "sleeping function called" report,
#                                    lockdep checks raw and sleeping lock
#                                    nesting, and the run fails unless
#                                    lockdep is still on at the end
#   kunit.sh [--arch A] --intree     every suite, as the run above, in the
#                                    test kernel with flushpol built into
#                                    its tree (scripts/intree-kernel.sh):
#                                    the core and the SMMUv2 and Qualcomm
#                                    backends built in, no lifetime
#                                    checks; on arm64 with the arm-smmu
#                                    series and arm-smmu(-qcom) built in,
#                                    and flushpol_arm_smmu, arm-smmu's own
#                                    paths on the fake SMMUv2; --only S
#                                    after it: suite S alone
#   kunit.sh --bench                 the dispatch benchmark alone
#                                    (flushpol_bench_dispatch), for make
#                                    bench's UML kernel without debug
#                                    options (FLUSHPOL_UML, from
#                                    scripts/bench-uml.sh): as below, no
#                                    test run
#   kunit.sh --arch arm64 --bench    the scale and dispatch benchmarks
#                                    (flushpol_bench_*), in the arm64
#                                    kernel without debug options
#                                    (scripts/arm64-kernel.sh bench), for
#                                    scripts/bench-scale.sh: the same
#                                    initrd and modules, no lifetime
#                                    checks; the benchmarks' own checks
#                                    (every unmap and sync completed)
#                                    still fail the run, but it is no test
#                                    run: no other suite runs
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/deps.sh
. "$top/scripts/deps.sh"
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"
cache=${FLUSHPOL_CACHE:-/var/cache/flushpol}
src=$cache/linux-source-6.12
arch=um
if [ "${1:-}" = --arch ]; then
	arch=$2
	shift 2
fi
case $arch in
um) name=kunit ;;
arm64) name=kunit-arm64 ;;
*) echo "kunit: --arch um or arm64, not $arch" >&2; exit 1 ;;
esac
out=${FLUSHPOL_OUT:-$top/build/$name}
suites=(flushpol_counts flushpol_model flushpol_oracle flushpol_switch
	flushpol_registry flushpol_sysfs flushpol_lazy flushpol_smmuv3
	flushpol_smmuv2 flushpol_smmuv2_oracle flushpol_qcom flushpol_coverage
	flushpol_stress flushpol_lifetime flushpol_faults flushpol_smmuv3_cmdq
	flushpol_model_ttl flushpol_mutants flushpol_smmuv3_domain
	flushpol_adaptive flushpol_estimate flushpol_smmuv3_ste
	flushpol_smmuv3_idr flushpol_upstream_counts flushpol_holes
	flushpol_latency)
# Module parameters and KUnit's filter go on the kernel command line, where
# /init finds them as modprobe would; @lifetime is for /init itself.
# Junk in every option of flushpol and flushpol_smmuv3, as an operator's
# typo would be: each must load all the same, with a warning
# (flushpol_registry's junk_load_options_ignored; checked below).
junk_args=(flushpol.default_policy=Bad!Name flushpol.default_threshold=12abc
	   flushpol.device_policy=Bad flushpol_smmuv3.force_no_ril=maybe
	   flushpol.latency_stats=maybe flushpol_smmuv3.cmdq_share=maybe)
cmdline=("${junk_args[@]}")
init_args=(@lifetime:36)
limit=900
# Under TCG (arm64) the kernel's hung-task detector (120 s, not settable
# at run time in that kernel) sees the KUnit runner, which waits for each
# case uninterruptibly: every case must end well within 120 s of guest
# time on a loaded 2-core host.  A policy switch (an RCU grace period)
# takes about 100 ms there: fewer lifetime rounds.  flushpol_stress ends
# each round (a case) once the cycles in flight when it is 30 s old have
# ended, which they must by 105 s.  The arm64 run of make check runs it
# small: FP_ARM64_STRESS_OPS cycles (24) in rounds of 4, unmaps of at
# most 2M (stress_max_pages=128 is raised to its floor, 512 pages),
# enough for the six workers, the busy device and the switchers to meet
# on the same contexts on different CPUs, which UML cannot show; 0 leaves
# it out.  Full size (make stress-arm64): unmaps of at most 4M, no 1G
# block (its walk flush is 262144 model commands under va; UML
# runs it).
arm64_args=(flushpol_kunit.stress_max_pages=1024
	    flushpol_kunit.stress_giant=0
	    flushpol_kunit.lifetime_rounds=6)
# At full size, what stopped it was RCU's stall detector (21 s): on this
# loaded host, QEMU's vCPU threads wait for a host CPU, and a worker
# waits the longer for the TLB model's one lock, which each of the nine
# threads takes per command (seen: fp_stress/0 in queued_spin_lock_slowpath
# from fpm_issue, then inside a policy's RCU read section 26 s old, 67 s
# into a 247 s round; a 4M unmap took 111 s).  Policy calls are SRCU
# readers now, but spinning for that lock is with preemption off, which
# RCU waits for all the same.  So at full size rounds start cycles for 10 s, leaving 95 s to
# the cycles in flight, and a reader may take as long as a cycle may:
# 110 s, past the round's bound of 105 s.
arm64_full=(flushpol_kunit.stress_round_secs=10
	    rcupdate.rcu_cpu_stall_timeout=110)
if [ "$arch" = arm64 ]; then
	cmdline=("${junk_args[@]}" "${arm64_args[@]}"
		 flushpol_kunit.stress_round_ops=4
		 flushpol_kunit.stress_max_pages=128
		 "flushpol_kunit.stress_ops=${FP_ARM64_STRESS_OPS:-24}")
	# With no cycles its one case has no rounds: KUnit reports it skipped.
	if [ "${FP_ARM64_STRESS_OPS:-24}" = 0 ]; then
		mapfile -t suites < <(printf '%s\n' "${suites[@]}" |
				      grep -vx flushpol_stress)
	fi
	limit=2400
fi
if [ "${1:-}" = --stress ]; then
	out=${FLUSHPOL_OUT:-$top/build/stress${arch#um}}
	suites=(flushpol_stress)
	# Under TCG a cycle costs about 100 times what it does in UML.
	ops=100000
	[ "$arch" = um ] || ops=${FP_ARM64_STRESS_TOTAL:-400}
	cmdline=("flushpol_kunit.stress_ops=${2:-$ops}"
		 kunit.filter_glob=flushpol_stress)
	[ "$arch" = um ] || cmdline+=("${arm64_args[@]}" "${arm64_full[@]}")
	init_args=(@lifetime:100)
	limit=$((6 * 3600))
fi
# KCSAN (which excludes KASAN) in a kernel of its own: the suites whose
# threads share a context, the estimator's and the command queue's.
# KCSAN sees a race only when it happens to watch one of the two accesses
# (a plain one) while the other is made: by default it watches one access
# in 4,000 per CPU, for 80 us.  flushpol_kunit's init raises that for the
# suites alone (kunit/fp_kcsan.c; boot, the lifetime checks and the module
# loads keep the defaults): one access in FP_KCSAN_SKIP_WATCH (default
# 200) watched for FP_KCSAN_UDELAY us (default 80) in a task, a quarter of
# that in an interrupt.  Chosen by the planted race's rate (make
# kcsan-planted, 2026-12-02, alone on the 2-core host): races seen per
# second of the stress suite were 0.28 at 200/80 (32 in 116 s), 0.30 at
# 800/20, 0.17 at 50/20, 0.16 at 800/80, 0.09 at 3,200/80; at 50/200 a
# 24-cycle run met it about once in 324 s.  A watch catches a race only if
# another CPU makes the conflicting access during its delay, and TCG
# spins every delay on a host core the other vCPUs need: long delays
# stalled the very CPUs that would race.  What that costs and catches:
# kunit/kcsan-filter.txt's header and scripts/kcsan-summary.sh.  The
# stress runs at make check's arm64 size, unmaps of at most 2M (more
# unmaps, switches and device runs meet per minute of TCG than at 4M), in
# rounds of 10 s; the lifetime and switch suites at their full size.
kcsan=
planted=
if [ "${1:-}" = --kcsan ]; then
	[ "$arch" = arm64 ] ||
		{ echo "kunit: --kcsan needs --arch arm64" >&2; exit 1; }
	shift
	kcsan=kcsan
	if [ "${1:-}" = --planted ]; then
		planted=y
		shift
	fi
	out=${FLUSHPOL_OUT:-$top/build/kcsan${planted:+-planted}-arm64}
	skip=${FP_KCSAN_SKIP_WATCH:-200}
	udelay=${FP_KCSAN_UDELAY:-80}
	# allnoconfig turned KCSAN_EARLY_ENABLE off (kunit/arm64-kcsan.config).
	# KCSAN's delays stretch every case: the hung-task detector (the
	# KUnit runner waits for a case uninterruptibly) gets 10 minutes,
	# and the soft-lockup detector its longest bound, 120 s (seen: boot
	# in param_sysfs_builtin_init() "stuck" 22 to 133 s on a host
	# running three other QEMU guests and two kernel builds).
	cmdline=(kcsan.early_enable=1 "${arm64_args[@]}" "${arm64_full[@]}"
		 sysctl.kernel.hung_task_timeout_secs=600 watchdog_thresh=60
		 flushpol_kunit.kcsan_skip_watch="$skip"
		 flushpol_kunit.kcsan_udelay_task="$udelay"
		 flushpol_kunit.kcsan_udelay_interrupt=$((udelay / 4))
		 flushpol_kunit.stress_max_pages=512)
	if [ -n "$planted" ]; then
		suites=(flushpol_stress)
		cmdline+=("flushpol_kunit.stress_ops=${1:-${FP_KCSAN_PLANTED_OPS:-100}}"
			  kunit.filter_glob=flushpol_stress)
		init_args=()
	else
		# KUnit takes one glob: this one names these five suites
		# and no other (checked below against what ran).
		suites=(flushpol_stress flushpol_switch flushpol_lifetime
			flushpol_estimate flushpol_smmuv3_cmdq)
		cmdline+=("flushpol_kunit.stress_ops=${1:-${FP_KCSAN_STRESS_OPS:-200}}"
			  "kunit.filter_glob=flushpol_[els][tswim]*[etiam][sctmd][sehq]")
	fi
	limit=$((3 * 3600))
fi
# PREEMPT_RT: the suites and command line of the arm64 run, in a kernel
# of its own.
rt=
if [ "${1:-}" = --rt ]; then
	[ "$arch" = arm64 ] ||
		{ echo "kunit: --rt needs --arch arm64" >&2; exit 1; }
	rt=rt
	out=${FLUSHPOL_OUT:-$top/build/rt-arm64}
fi
# make bench's scale benchmarks, in a kernel without KASAN, lockdep and
# the other debug options, which distort exactly what they measure.
bench=
if [ "${1:-}" = --bench ] && [ "$arch" = arm64 ]; then
	bench=bench
	out=${FLUSHPOL_OUT:-$top/build/bench-arm64}
	# And the dispatch benchmark, whose composition case prices the
	# shipped 4K path against upstream's way in the kernel users run.
	suites=(flushpol_bench_scale flushpol_bench_scale_cmdq
		flushpol_bench_dispatch)
	cmdline=("kunit.filter_glob=flushpol_bench_*")
	init_args=()
elif [ "${1:-}" = --bench ]; then
	out=${FLUSHPOL_OUT:-$top/build/bench-uml}
	suites=(flushpol_bench_dispatch)
	cmdline=(kunit.filter_glob=flushpol_bench_dispatch)
	init_args=()
fi

# flushpol inside the test kernel's own tree (scripts/intree-kernel.sh):
# the core, its policies and the SMMUv2 and Qualcomm backends built in,
# flushpol_smmuv3 and the suites the tree's modules.  No module lifetime
# checks: a built-in core is never unloaded.
intree=
if [ "${1:-}" = --intree ]; then
	intree=y
	out=${FLUSHPOL_OUT:-$top/build/$name-intree}
	init_args=()
	# On arm64 the kernel carries the arm-smmu series: arm-smmu's own
	# paths have a suite of their own.
	[ "$arch" = um ] || suites+=(flushpol_arm_smmu)
	shift
	# --only SUITE: that suite alone (make check: arm-smmu's on arm64).
	only=
	if [ "${1:-}" = --only ]; then
		only=$2
		suites=("$2")
		cmdline+=("kunit.filter_glob=$2")
	fi
fi

# More of the kernel command line, from the caller (make bench:
# flushpol_kunit.adaptive_eval_full=1).
read -ra extra_args <<<"${FP_KUNIT_ARGS:-}"
cmdline+=(${extra_args[@]+"${extra_args[@]}"})

log() { echo "kunit: $*" >&2; }

# "CPU n/TCG <CPU seconds>" for each vCPU thread of QEMU process $1.
vcpu_times()
{
	local t tick

	[ -n "$1" ] || return 0
	tick=$(getconf CLK_TCK)
	for t in /proc/"$1"/task/*; do
		[[ $(cat "$t/comm" 2>/dev/null) == "CPU "* ]] || continue
		# utime and stime: fields 14 and 15 after the "(comm)".
		sed 's/.*) //' "$t/stat" 2>/dev/null |
			awk -v c="$(cat "$t/comm")" -v hz="$tick" \
				'{ printf "%s %.1f\n", c, ($12 + $13) / hz }'
	done
}

if [ -n "$intree" ]; then
	kernel=$("$top/scripts/intree-kernel.sh" --arch "$arch")
	cc=gcc
	if [ "$arch" = arm64 ]; then
		cc=aarch64-linux-gnu-gcc
		fp_apt_install qemu-system-arm linux-libc-dev-arm64-cross >&2
	fi
elif [ "$arch" = um ]; then
	# FLUSHPOL_UML: another UML build to run in (make bench's, without
	# the debug options); by default the test kernel.
	kernel=${FLUSHPOL_UML:-$("$top/scripts/uml-kernel.sh")}
	kmake=(make -s -C "$src" O="$kernel" ARCH=um)
	cc=gcc
else
	kernel=$("$top/scripts/arm64-kernel.sh" $kcsan $rt $bench)
	kmake=(make -s -C "$src" O="$kernel" ARCH=arm64
	       CROSS_COMPILE=aarch64-linux-gnu-)
	cc=aarch64-linux-gnu-gcc
	# The UAPI headers nolibc builds /init against.
	fp_apt_install qemu-system-arm linux-libc-dev-arm64-cross >&2
fi

# Build from a copy so the test kernel's objects never mix with a host
# build.
rm -rf "$out"
mkdir -p "$out/root"
# Which kernel ran: its .config says what the figures were measured in.
echo "$kernel" > "$out/kernel.txt"
modules=(flushpol flushpol_adaptive flushpol_smmuv3 flushpol_smmuv2
	 flushpol_qcom flushpol_kunit)
if [ -n "$intree" ]; then
	# Built with the kernel; the rest of flushpol is in it.
	kos=$kernel/drivers/iommu/flushpol
	modules=(flushpol_smmuv3 flushpol_kunit)
else
	kos=$out/src
	fp_export_tree "$kos"
	"${kmake[@]}" M="$kos" W=1 KCFLAGS=-Werror \
		${planted:+FP_KCSAN_PLANTED=y} modules
fi
root=$out/root
mkdir -p "$root"/{lib,proc,sys,dev}
for m in "${modules[@]}" flushpol_holder; do
	cp "$kos/$m.ko" "$root/lib/"
done
if [ -n "$kcsan" ]; then
	"$top/scripts/kcsan-summary.sh" --check-filter "$top/kunit/kcsan-filter.txt" \
		"$root"/lib/*.ko
	cp "$top/kunit/kcsan-filter.txt" "$root/kcsan-filter"
fi
"$cc" -static -nostdlib -fno-stack-protector -Os -Wall \
	-include "$src/tools/include/nolibc/nolibc.h" \
	-o "$root/init" "$top/kunit/initramfs/init.c" -lgcc
(cd "$root" && find . | cpio -o -H newc --quiet) > "$out/initrd.cpio"

start=$(date +%s)
if [ "$arch" = um ]; then
	log "booting UML"
	umldir=$(mktemp -d)
	timeout "$limit" "$kernel/linux" mem=1G initrd="$out/initrd.cpio" \
		uml_dir="$umldir" ${cmdline[@]+"${cmdline[@]}"} \
		rdinit=/init -- "${init_args[@]}" "${modules[@]}" \
		</dev/null > "$out/console.log" 2>&1 || true
	rm -rf "$umldir"
else
	log "booting arm64 on qemu-system-aarch64 -smp 4 (MTTCG)"
	# panic=-1: a panic ends the run at once, its splat in the log.
	timeout "$limit" qemu-system-aarch64 -M virt -cpu max,pauth-impdef=on \
		-smp 4 -m 2G -accel tcg,thread=multi -nographic -no-reboot -nic none \
		-name flushpol,debug-threads=on \
		-kernel "$kernel/arch/arm64/boot/Image" \
		-initrd "$out/initrd.cpio" \
		-append "console=ttyAMA0 panic=-1 ${cmdline[*]} rdinit=/init -- ${init_args[*]} ${modules[*]}" \
		</dev/null > "$out/console.log" 2>&1 &
	# MTTCG: one host thread per vCPU ("CPU n/TCG"), each of which must
	# have run guest code; their CPU seconds, last seen, go to vcpus.txt.
	tpid=$!
	while kill -0 "$tpid" 2>/dev/null; do
		snap=$(vcpu_times "$(pgrep -P "$tpid" qemu-system || true)")
		[ -z "$snap" ] || echo "$snap" > "$out/vcpus.txt"
		sleep 5
	done
	wait "$tpid" || true
fi
log "boot to power-off: $(( $(date +%s) - start )) s"

# A serial console ends lines with CR LF; the arm64 kernel stamps each
# line with the time ("[  12.345678] "), which the checks below would
# otherwise have to expect in front of "ok".
tr -d '\r' < "$out/console.log" | sed -n '/FLUSHPOL-BEGIN/,$p' |
	sed -E 's/^\[ *[0-9]+\.[0-9]+\] //' > "$out/ktap.log"
# KASAN reports start "BUG: KASAN:", KCSAN's "BUG: KCSAN:" (a data race,
# or an assertion); kmemleak's are read by /init.
splat="WARNING:|BUG:|Oops|INFO: (possible|suspicious)|lockdep|UBSAN|KASAN"
splat+="|KCSAN:"
splat+="|detected stalls?|soft lockup|blocked for more than|general protection"
# Under --kcsan, KCSAN's reports are judged by scripts/kcsan-summary.sh
# (flushpol's code or not); every other splat still fails here.
kcsan_rc=0
if [ -n "$kcsan" ]; then
	"$top/scripts/kcsan-summary.sh" ${planted:+--planted} "$out/ktap.log" \
		> "$out/kcsan-summary.txt" || kcsan_rc=$?
	awk '/BUG: KCSAN:/ { skip = 1 } skip && /^=+$/ { skip = 0; next }
	     !skip' "$out/ktap.log" > "$out/splat.log"
else
	cp "$out/ktap.log" "$out/splat.log"
fi
# The warnings a test has the kernel's own code raise on purpose, inside
# its "fp-expect-warn:" brackets, are left out (scripts/expect-warn.awk).
awk -f "$top/scripts/expect-warn.awk" "$out/splat.log" > "$out/splat.tmp"
mv "$out/splat.tmp" "$out/splat.log"
# A skipped case's reason is the test's words, not the kernel's ("# SKIP
# lockdep must say which locks are held", where lockdep is off).
sed -i -E '/^[[:space:]]*ok [0-9]+ .*# SKIP/d' "$out/splat.log"
# Every check runs, so that the closing lines give the counts even when
# the run fails; each failure is named once at the end.
fails=()
fail() { fails+=("$*"); }
if grep -qE "$splat" "$out/splat.log"; then
	grep -nE -A20 "$splat|INFO: " "$out/splat.log" >&2
	fail "kernel splat: $(grep -m1 -E "$splat" "$out/splat.log")"
	[ -z "$kcsan" ] || cat "$out/kcsan-summary.txt" >&2
fi
# Lockdep stops at its first report: one at boot, before FLUSHPOL-BEGIN,
# leaves the suites unchecked.  /init says whether it was on before and
# after them (debug_locks, in a kernel with lockdep); the RT kernel is
# there to run them under lockdep.
if grep -qE '^fp-debug-locks: [a-z]+ 0$' "$out/ktap.log"; then
	grep 'fp-debug-locks:' "$out/ktap.log" >&2
	tr -d '\r' < "$out/console.log" | sed '/FLUSHPOL-BEGIN/q' |
		grep -nE -A20 "$splat" >&2 || true
	fail "lockdep was off: a report turned it off (full log: $out/console.log)"
elif [ -n "$rt" ] && ! grep -qx 'fp-debug-locks: end 1' "$out/ktap.log"; then
	fail "lockdep's state not reported at the end"
fi
if grep -q FP-EXPECT-WARN-UNSEEN "$out/splat.log"; then
	fail "expected warnings not seen: $(grep -m1 FP-EXPECT-WARN-UNSEEN "$out/splat.log")"
fi
if [ -n "$kcsan" ] && grep -q FLUSHPOL-KCSAN-FAIL "$out/ktap.log"; then
	grep FLUSHPOL-KCSAN-FAIL "$out/ktap.log" >&2
	fail "KCSAN's filter or sampling not set"
fi
if [ -n "${init_args[*]}" ] && ! grep -q FLUSHPOL-LIFETIME-OK "$out/ktap.log"; then
	grep -E "FLUSHPOL-LIFETIME|fp-lifetime" "$out/ktap.log" >&2 ||
		tail -40 "$out/console.log" >&2
	fail "module lifetime checks"
fi
for j in ${cmdline[@]+"${cmdline[@]}"}; do
	[[ " ${junk_args[*]} " = *" $j "* ]] || continue
	# device_policy warns per entry, and keeps the others.
	case $j in
	flushpol.device_policy=*) want="device_policy: \"${j#*=}\" is not" ;;
	*) want="${j%%=*}=${j#*=} is not valid: ignored" ;;
	esac
	grep -qF "$want" "$out/console.log" || fail "no warning for $j"
done
if ! grep -q FLUSHPOL-INSMOD-OK "$out/ktap.log"; then
	tail -40 "$out/console.log" >&2
	fail "modules did not all load"
fi

rc=0
if [ "$arch" = arm64 ]; then
	vcpus=$(cat "$out/vcpus.txt" 2>/dev/null || true)
	log "vCPU threads, host CPU seconds: ${vcpus//$'\n'/, }"
	# Every vCPU a thread of its own, each with real work: not one host
	# thread taking the vCPUs in turn (single-threaded TCG).  One suite
	# alone (--only) may be over before every vCPU has had a second.
	if [ -z "${only:-}" ] &&
	   [ "$(awk '$3 >= 1' <<<"$vcpus" | wc -l)" -lt 4 ]; then
		log "FAIL: QEMU did not run 4 vCPU threads (MTTCG)"
		rc=1
	fi
fi
python3 "$src/tools/testing/kunit/kunit.py" parse "$out/ktap.log" |
	tee "$out/parse.log" || rc=$?
for s in "${suites[@]}"; do
	grep -qE "^ *ok [0-9]+ $s\$" "$out/ktap.log" ||
		{ log "FAIL: suite $s missing or not ok"; rc=1; }
done
# Under --kcsan, its glob must have run those suites and no other.
for s in $([ -z "$kcsan" ] ||
	   sed -nE 's/^ *(not )?ok [0-9]+ (flushpol_[a-z0-9_]+)$/\2/p' "$out/ktap.log"); do
	[[ " ${suites[*]} " = *" $s "* ]] ||
		{ log "FAIL: suite $s ran outside --kcsan's suites"; rc=1; }
done
grep -o 'fp-count: .*' "$out/ktap.log" > "$out/counts.txt" || true
# flushpol_faults wedges syncs: the log must have held back most of them.
injected=$(sed -n 's/.*fp-fault: injected \([0-9]*\) sync timeouts.*/\1/p' \
	"$out/ktap.log")
if [ -n "$injected" ]; then
	logged=$(grep -c "TLB sync failed" "$out/ktap.log" || true)
	echo "fp-fault: logged $logged lines for $injected sync timeouts" \
		>> "$out/ktap.log"
	[ "$logged" -lt "$injected" ] ||
		{ log "FAIL: sync timeouts not rate-limited"; rc=1; }
fi
# The figures of Documentation/testing.rst, Reliability.
grep -oE '(fp-stress-total|fp-lifetime|fp-fault|fp-stress: seed).*' \
	"$out/ktap.log" > "$out/reliability.txt" || true
cat "$out/reliability.txt" >&2
# One plain closing line, from the parser's count: "N passed, N failed".
summary=$(grep 'Testing complete\. Ran' "$out/parse.log" | tail -n 1 || true)
count() { sed -n "s/.* $1: \([0-9]*\).*/\1/p" <<<"$summary"; }
if [ -n "$summary" ]; then
	failed=$(( $(count failed || true) + $(count crashed || true) + 0 ))
	echo "kunit: $(count passed) passed, $failed failed"
fi
if [ -n "$kcsan" ]; then
	cat "$out/kcsan-summary.txt"
	[ "$kcsan_rc" = 0 ] || rc=1
fi
kind="$arch${kcsan:+, KCSAN}${rt:+, PREEMPT_RT}${bench:+, bench kernel}"
kind+="${intree:+, flushpol in the kernel}"
[ ${#fails[@]} = 0 ] || rc=1
if [ $rc = 0 ]; then
	log "PASS: ${#suites[@]} suites, no splat ($kind)"
else
	for f in ${fails[@]+"${fails[@]}"}; do
		log "FAIL: $f"
	done
	log "FAIL ($kind; full log: $out/console.log)"
fi
exit $rc
