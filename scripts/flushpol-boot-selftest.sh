#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Usage: scripts/flushpol-boot-selftest.sh      (in scripts/lint.sh)
#
# debian/flushpol-boot's decisions, on a made-up root (FLUSHPOL_ROOT): a
# /boot of kernel images, a /lib/modules where dkms did or did not install
# flushpol_smmuv3, and the package's debian/flushpol.cfg, sourced as
# grub-mkconfig sources it.  Checks that the option is added to
# GRUB_CMDLINE_LINUX_DEFAULT only when enabled and every kernel GRUB would
# list has the module, once, and never to GRUB_CMDLINE_LINUX; that
# withholding it names the kernels lacking it; that the files GRUB skips
# do not count; and what the initramfs and kernel hooks are told.  No root
# needed; the package's real paths are checked by scripts/deb-check.sh.
# shellcheck disable=SC2015 # "A && ok || bad": ok cannot fail
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
helper=$top/debian/flushpol-boot
opt=initcall_blacklist=arm_smmu_driver_init
root=$(mktemp -d /tmp/flushpol-boot-selftest.XXXXXX)
trap 'rm -rf "$root"' EXIT
failed=0
n=0

ok() { n=$((n + 1)); }
bad() { echo "flushpol-boot-selftest: FAIL: $*" >&2; failed=$((failed + 1)); }
run() { FLUSHPOL_ROOT=$root "$helper" "$@"; }

# What grub-mkconfig's shell has after sourcing the .cfg, as two lines:
# GRUB_CMDLINE_LINUX, then GRUB_CMDLINE_LINUX_DEFAULT.  The .cfg calls the
# helper by its installed path: a copy with that path pointed at ours.
grub_sees()
{
	sed "s|/usr/lib/flushpol/flushpol-boot|$helper|g" \
		"$root/etc/default/grub.d/flushpol.cfg" >"$root/sourced.cfg"
	FLUSHPOL_ROOT=$root sh -ec '
		GRUB_CMDLINE_LINUX="console=ttyAMA0"
		GRUB_CMDLINE_LINUX_DEFAULT="quiet"
		. "$1"
		printf "%s\n%s\n" "$GRUB_CMDLINE_LINUX" "$GRUB_CMDLINE_LINUX_DEFAULT"
	' sh "$root/sourced.cfg" 2>"$root/err"
}

# $1: what, $2: expected GRUB_CMDLINE_LINUX_DEFAULT.
expect_default()
{
	local out
	out=$(grub_sees) || { bad "$1: sourcing the .cfg failed: $(cat "$root/err")"; return; }
	if [ "$(sed -n 1p <<<"$out")" != "console=ttyAMA0" ]; then
		bad "$1: GRUB_CMDLINE_LINUX became \"$(sed -n 1p <<<"$out")\""
	elif [ "$(sed -n 2p <<<"$out")" != "$2" ]; then
		bad "$1: GRUB_CMDLINE_LINUX_DEFAULT is \"$(sed -n 2p <<<"$out")\", not \"$2\""
	else
		ok
	fi
}

kernel() # version [built]
{
	: >"$root/boot/vmlinuz-$1"
	mkdir -p "$root/lib/modules/$1/updates/dkms"
	[ -z "${2:-}" ] || : >"$root/lib/modules/$1/updates/dkms/flushpol_smmuv3.ko.xz"
}

mkdir -p "$root/boot" "$root/etc/default/grub.d" "$root/proc"
cp "$top/debian/flushpol.cfg" "$root/etc/default/grub.d/"
echo "BOOT_IMAGE=/boot/vmlinuz ro" >"$root/proc/cmdline"
kernel 6.12.117+deb12-arm64 built
kernel 6.1.0-57-arm64 built

expect_default "shipped (FLUSHPOL_ENABLE=no)" quiet
if run enabled; then bad "enabled as shipped"; else ok; fi
if run initramfs-wants 6.1.0-57-arm64; then bad "initramfs-wants as shipped"; else ok; fi

sed -i 's/^FLUSHPOL_ENABLE=no$/FLUSHPOL_ENABLE=yes/' "$root/etc/default/grub.d/flushpol.cfg"
if run enabled; then ok; else bad "not enabled with FLUSHPOL_ENABLE=yes"; fi
expect_default "enabled, every kernel built" "quiet $opt"
if run initramfs-wants 6.1.0-57-arm64; then ok; else bad "initramfs-wants: no, enabled and built"; fi
[ "$(run grub-cmdline "quiet $opt")" = "quiet $opt" ] && ok ||
	bad "the option added a second time"
[ "$(run grub-cmdline "")" = "$opt" ] && ok || bad "an empty line does not become the option alone"

# Files 10_linux skips do not count, lacking the module or not.
: >"$root/boot/vmlinuz-5.10.0-1-arm64.dpkg-tmp"
: >"$root/boot/vmlinuz-5.10.0-2-arm64.sig"
expect_default "enabled, only garbage lacks it" "quiet $opt"

kernel 5.10.0-30-arm64
expect_default "enabled, 5.10.0-30-arm64 lacks it" quiet
grep -q "WARNING: $opt withheld.*not built for 5.10.0-30-arm64" "$root/err" && ok ||
	bad "withheld without naming the kernel: $(cat "$root/err")"
if run initramfs-wants 5.10.0-30-arm64; then bad "initramfs-wants: yes, not built"; else ok; fi
run kernel-installed 5.10.0-30-arm64 2>"$root/hook" && ok || bad "kernel-installed failed"
grep -q "WARNING: .*not built for kernel 5.10.0-30-arm64" "$root/hook" && ok ||
	bad "kernel-installed does not warn about 5.10.0-30-arm64"
run kernel-installed 6.1.0-57-arm64 2>"$root/hook" && [ ! -s "$root/hook" ] && ok ||
	bad "kernel-installed warns about a kernel that has it: $(cat "$root/hook")"
run status >"$root/status"
grep -q "^boot option: withheld from every entry: no flushpol_smmuv3 for 5.10.0-30-arm64$" "$root/status" && ok ||
	bad "status: $(cat "$root/status")"

# The headers come, dkms builds: the option is back.
: >"$root/lib/modules/5.10.0-30-arm64/updates/dkms/flushpol_smmuv3.ko.xz"
expect_default "enabled, 5.10.0-30-arm64 built since" "quiet $opt"

# Without the helper (the package removed) the .cfg does nothing.
rm -rf "$root/lib/flushpol-missing"
sed "s|/usr/lib/flushpol/flushpol-boot|$root/lib/flushpol-missing/flushpol-boot|g" \
	"$root/etc/default/grub.d/flushpol.cfg" >"$root/removed.cfg"
out=$(sh -ec 'GRUB_CMDLINE_LINUX_DEFAULT=quiet; . "$1"; echo "$GRUB_CMDLINE_LINUX_DEFAULT"' \
	sh "$root/removed.cfg")
[ "$out" = quiet ] && ok || bad "the .cfg without its helper gave \"$out\""

# enable and disable edit only the real .cfg, as root.
if run enable 2>/dev/null; then bad "enable took FLUSHPOL_ROOT"; else ok; fi

echo "flushpol-boot-selftest: $n passed, $failed failed"
[ "$failed" -eq 0 ]
