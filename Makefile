# SPDX-License-Identifier: GPL-2.0-only
#
# Standalone build: make [KDIR=/path/to/kernel/build].  Inside Kbuild and
# under DKMS the kernel reads Kbuild directly.

KDIR ?= /lib/modules/$(shell uname -r)/build

.PHONY: all modules clean help check check-kernels demo bench results docs \
	stress stress-arm64 kcsan kcsan-planted rt deb

all: modules

modules:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean

# One line per target.  Keep it in step with the targets below.
help:
	@echo 'make [all|modules] build the modules for KDIR (default: the running kernel)'
	@echo 'make clean          remove what make modules built'
	@echo 'make demo [KVER=..] DKMS into Debian arm64 on QEMU SMMUv3; tables in build/results/'
	@echo 'make check          every test CI runs, a summary line per stage at the end'
	@echo 'make check-kernels the end-to-end test on the kernels make check leaves out (Debian 13 6.12)'
	@echo 'make bench          the benchmarks (about an hour); tables in build/results/'
	@echo 'make results        publish build/results/ into bench/results/ (tracked files)'
	@echo 'make docs           the documentation checks alone (scripts/docs-check.sh)'
	@echo 'make deb            the flushpol-dkms Debian package, in build/deb/'
	@echo 'make stress         the long reliability run (about an hour)'
	@echo 'make stress-arm64   the stress suite at full size on arm64 SMP (QEMU -smp 4)'
	@echo 'make kcsan          the concurrency suites in the arm64 KCSAN kernel'
	@echo 'make kcsan-planted  the same with a race planted in the core: must be reported'
	@echo 'make rt             the suites in the arm64 PREEMPT_RT kernel'
	@echo 'make help           this list'

# Everything CI runs; ends with a summary line per stage.
check:
	scripts/check.sh

# The kernel runs make check leaves out (Debian 13's 6.12 end to end).
check-kernels:
	scripts/check-kernels.sh

# The docs checks (also part of scripts/lint.sh, so of make check).
docs:
	scripts/docs-check.sh

# The Debian package users install: build/deb/flushpol-dkms_<version>_all.deb
# (debhelper and dh-dkms from debian/, checked with lintian).
deb:
	scripts/deb.sh

# The main job: DKMS into a real kernel on QEMU's SMMUv3, policies
# switched through sysfs, the unmap and fio tables in build/results/.
# KVER=6.1 measures Debian's arm64 6.1 instead of 6.12; KVER=6.12+deb13
# trixie's 6.12 and KVER=7.x trixie-backports' newest 7.x, built in a
# trixie root (scripts/trixie-root.sh, made when absent).
KVER ?= 6.12
demo:
	FP_KVER=$(KVER) scripts/demo.sh

# The benchmarks, separate from the tests: exact command counts, dispatch
# cost, unmap latency against the upstream arm-smmu-v3 driver, fio; the
# tables and plots go to build/results/.
bench:
	scripts/bench.sh

# Publishing, by a maintainer's choice: build/results/ into bench/results/
# (which Documentation/benchmarks.rst includes) and the count tables of
# Documentation/policies.rst from build/kunit/counts.txt.
results:
	scripts/results.sh

# The long reliability run (Documentation/testing.rst, Reliability): 10^5 map/unmap cycles of
# flushpol_stress and 100 module load/unload rounds, in the UML test kernel;
# make check runs 2500 and 36.  About 50 minutes on two cores.  Then 2
# minutes of fio verify per mode on QEMU's NVMe (make check: 20 seconds).
stress:
	scripts/kunit.sh --stress
	scripts/qemu/fio-verify.sh 120

# The same in the arm64 SMP test kernel (QEMU -smp 4), where the stress
# threads run in parallel.
stress-arm64:
	scripts/kunit.sh --arch arm64 --stress

# The concurrency suites (stress, switch, lifetime, estimate, the command
# queue's) in the KCSAN variant of that kernel (KCSAN instead of KASAN),
# KCSAN watching far more accesses than by default; known upstream races
# filtered (kunit/kcsan-filter.txt).  Ends with KCSAN's reports by
# function: FAIL if one is in flushpol's code.  kcsan-planted builds the
# core with a deliberate race (core/dispatch.c) and passes only if KCSAN
# reports it.  Not in make check: a cold build of that kernel is about an
# hour on two shared cores.
kcsan:
	scripts/kunit.sh --arch arm64 --kcsan

kcsan-planted:
	scripts/kunit.sh --arch arm64 --kcsan --planted

# The suites in the PREEMPT_RT arm64 kernel (a build of its own, about
# 30 minutes of two cores the first time).
rt:
	scripts/kunit.sh --arch arm64 --rt
