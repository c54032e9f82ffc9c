#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make check: everything CI runs, in order of how fast it fails.  It stops
# at the first stage that fails, and ends with one line per stage (its time,
# PASS, FAIL or not run), then KUnit's totals, "N passed, N failed", alone
# on the last line (the UML run's, which CI reads).
#   lint        W=1 -Werror, sparse, checkpatch --strict
#   kunit       the suites in a UML kernel, with the real io-pgtable-arm
#   docs        every .rst parses (docutils), kernel-doc is clean, every
#               path and make target the docs name exists, every message
#               the modules print is in Documentation/messages.rst and
#               nothing else is (docs-check.sh),
#               and Documentation/policies.rst's count tables are what the
#               suites just printed (docs-table.sh --check)
#   kunit-arm64 the same suites in an arm64 SMP kernel on QEMU -smp 4
#               (MTTCG), threads truly in parallel (the kernel is built
#               once and cached: about an hour of CPU on two cores)
#   intree      the suites again in the UML kernel with flushpol built
#               into its tree (scripts/intree.sh, intree-kernel.sh)
#   arm-smmu    the arm64 kernel with the arm-smmu series
#               (integration/arm-smmu/) and flushpol built in:
#               flushpol_arm_smmu, arm-smmu's own paths on the fake SMMUv2
#   dkms        kernels dkms must skip, and why (each kernel below is
#               built once, through the package, as users get it)
#   deb         make deb, lintian, apt install of the .deb: dkms builds it
#               for Debian's 6.12 and 6.1 amd64; apt remove leaves nothing
#   e2e         the .deb's sources through dkms into Debian's arm64 6.12
#               (cross), on QEMU's SMMUv3, real DMA
#   grub        every entry of the grub.cfg the deb stage's flushpol-boot
#               enable made, booted through Debian's arm64 GRUB under
#               UEFI: normal entries on flushpol_smmuv3, recovery entries
#               on the in-tree arm-smmu-v3, an NVMe translating in each
#   fio-verify  fio verify=crc32c on QEMU's NVMe through flushpol, strict
#               and lazy, policies rewritten under it; e2e_nosync caught
#   e2e acpi    the NVMe boots (strict, lazy, identity, by device, junk
#               options) again, the same modules booted through UEFI: the
#               SMMU from ACPI's IORT
#   fio acpi    fio integrity under ACPI
#   user view   what a user checks after a reboot is the same under the
#               device tree and ACPI
# The other kernels (Debian's arm64 6.1, Debian 13's 6.12, trixie-backports'
# newest 7.x, the PREEMPT_RT flavour) are make check-kernels
# (scripts/check-kernels.sh), to keep make check within CI's 90 minutes.
# The summary ends with the kernel table of what passed in this run
# (scripts/kernel-table.sh).
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
# shellcheck source=scripts/deps.sh
. scripts/deps.sh
fp_apt_install "${FP_DEB_PACKAGES[@]}" || exit 1

log=$top/build/check
# This run's logs only: the totals below must not come from an older one.
rm -rf "$log"
mkdir -p "$log"
names=() times=() verdicts=()
failed=0

# $1: the stage's name in the summary; the rest: its command.  Output goes
# to the terminal as before and to build/check/<name>.log.
stage()
{
	local name=$1 start=$SECONDS rc

	shift
	names+=("$name")
	if [ $failed = 1 ]; then
		times+=("-") verdicts+=("not run")
		return
	fi
	echo "check: stage $name: $*"
	"$@" 2>&1 | tee "$log/${name// /-}.log"
	rc=${PIPESTATUS[0]}
	times+=("$(((SECONDS - start) / 60))m$(printf %02d $(((SECONDS - start) % 60)))s")
	if [ "$rc" = 0 ]; then
		verdicts+=(PASS)
	else
		verdicts+=("FAIL (exit $rc, log build/check/${name// /-}.log)")
		failed=1
	fi
}

scripts/kernel-table.sh start
kpass() { [ $failed = 1 ] || scripts/kernel-table.sh pass "$@"; }
stage lint scripts/lint.sh
stage kunit scripts/kunit.sh
stage docs eval 'scripts/docs-check.sh && scripts/docs-table.sh --check'
stage kunit-arm64 scripts/kunit.sh --arch arm64
stage intree scripts/kunit.sh --intree
stage arm-smmu scripts/kunit.sh --arch arm64 --intree --only flushpol_arm_smmu
stage dkms scripts/dkms-check.sh --skips-only
stage deb scripts/deb-check.sh
kpass 6.12 amd64 "DKMS (apt install of the .deb)"
kpass 6.1 amd64 "DKMS (apt install of the .deb)"
stage e2e scripts/qemu/e2e.sh
kpass 6.12 arm64 "DKMS (cross); QEMU end to end"
# The entries deb-check's enable step had grub-mkconfig write, the modules
# e2e staged.
stage grub env FP_GRUB_PREBUILT=1 scripts/qemu/grub-boot.sh
kpass 6.12 arm64 "GRUB's entries booted (flushpol-boot enable)"
stage fio-verify env FP_FIO_PREBUILT=1 scripts/qemu/fio-verify.sh 20
kpass 6.12 arm64 "fio integrity"
# ACPI: the modules the device-tree stages staged, booted through UEFI.
acpi=(env FP_FIRMWARE=acpi FLUSHPOL_QEMU_OUT="$top/build/qemu-acpi"
      FLUSHPOL_QEMU_SYSROOT="$top/build/qemu/sysroot")
stage "e2e acpi" "${acpi[@]}" FP_E2E_PREBUILT=1 scripts/qemu/e2e.sh
stage "fio acpi" "${acpi[@]}" FP_FIO_PREBUILT=1 FP_VERIFY_MODES="strict lazy" \
	scripts/qemu/fio-verify.sh 20
stage "user view" diff -u build/qemu/user-view.txt build/qemu-acpi/user-view.txt
kpass 6.12 arm64 "QEMU NVMe and fio integrity under ACPI"
echo
echo "check: summary"
for i in "${!names[@]}"; do
	printf 'check:   %-12s %7s  %s\n' "${names[i]}" "${times[i]}" "${verdicts[i]}"
done
# KUnit's totals: the UML run's closing line (scripts/kunit.sh prints it).
totals=$(grep -x 'kunit: [0-9]* passed, [0-9]* failed' "$log/kunit.log" 2>/dev/null |
	tail -n 1)
arm64=$(grep -x 'kunit: [0-9]* passed, [0-9]* failed' "$log/kunit-arm64.log" 2>/dev/null |
	tail -n 1)
[ -z "$arm64" ] || echo "check: arm64 ${arm64#kunit: }"
scripts/kernel-table.sh print
if [ $failed = 0 ]; then
	echo "check: PASS"
else
	echo "check: FAIL"
fi
# Alone on the last line, as CI reads it.  Without the UML run's totals
# (it failed to start or never ran) the run counts as one failure.
if [ -n "$totals" ]; then
	echo "${totals#kunit: }"
else
	echo "check: no KUnit totals: the UML run did not finish"
	echo "0 passed, 1 failed"
	failed=1
fi
exit $failed
