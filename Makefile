# SPDX-License-Identifier: GPL-2.0-only
#
# Standalone build: make [KDIR=/path/to/kernel/build].  Inside Kbuild and
# under DKMS the kernel reads Kbuild directly.

KDIR ?= /lib/modules/$(shell uname -r)/build

.PHONY: all modules clean check demo bench stress stress-arm64 kcsan deb

all: modules

modules:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean

# The README's test command: everything CI runs.
check:
	scripts/check.sh

# The Debian package users install: build/deb/flushpol-dkms_<version>_all.deb
# (debhelper and dh-dkms from debian/, checked with lintian).
deb:
	scripts/deb.sh

# The README's main job: DKMS into a real kernel on QEMU's SMMUv3, policies
# switched through sysfs, the unmap benchmark's table.  KVER=6.1 measures
# Debian's arm64 6.1 instead of 6.12.
KVER ?= 6.12
demo:
	FP_KVER=$(KVER) scripts/demo.sh

# The benchmarks, separate from the tests: exact command counts, dispatch
# cost, unmap latency against the upstream arm-smmu-v3 driver; the table
# and plot go to bench/results/ and README.md.
bench:
	scripts/bench.sh

# The long reliability run (README, Reliability): 10^5 map/unmap cycles of
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

# flushpol_stress, flushpol_switch and flushpol_lifetime in the KCSAN
# variant of that kernel (KCSAN instead of KASAN): any data race KCSAN
# reports fails the run.  Not in make check: a cold build of that kernel
# is about an hour on two shared cores.
kcsan:
	scripts/kunit.sh --arch arm64 --kcsan
