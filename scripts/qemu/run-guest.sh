#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Usage: scripts/qemu/run-guest.sh GUEST_SCRIPT [TIMEOUT_SECONDS]
#
# Boots Debian's arm64 kernel in qemu-system-aarch64 -M virt,iommu=smmuv3
# (TCG) with an initramfs of busybox, the modules dkms-install.sh staged
# (/lib/modules/KVER/updates/dkms, modules.dep: modprobe works) and
# GUEST_SCRIPT as /guest.sh, run through its #! line (give it "set -e"),
# with e2e/guest-lib.sh beside it as /guest-lib.sh, and tools/flushpol-status
# where the package installs it, /usr/sbin/flushpol-status.
# The in-tree SMMUv3 driver is kept off (initcall_blacklist), so the SMMU
# is left for our own driver; -device edu is a PCI device behind it.
# /init boots the way Documentation/smmuv3.rst, "Turning it on for a
# machine", sets a machine up: it loads the modules of /conf/modules (what
# initramfs-tools makes of /etc/initramfs-tools/modules), flushpol_smmuv3
# first, before any PCI driver, so every PCI device probes behind it.
#
# Fails unless the guest reports that the script ran to its end with exit
# code 0, within TIMEOUT_SECONDS (default 300) of host time, and the
# console shows no kernel warning, BUG, oops or panic (other than the
# warnings a guest script brackets with "fp-expect-warn:" lines, as
# scripts/expect-warn.awk takes them out, which must then have been seen).
#
# Environment:
#   FP_FIRMWARE   how the guest learns the machine: dt (the default: QEMU
#                 hands the kernel a device tree) or acpi (UEFI firmware,
#                 EDK2's ArmVirtQemu of Debian's qemu-efi-aarch64, loads
#                 the kernel and gives it ACPI tables: the SMMU and the
#                 PCI root complex's StreamIDs in the IORT).  The PASS line
#                 says which, as firmware=dt or firmware=acpi.
#   FP_BOOT       kernel (the default: QEMU loads the kernel and initramfs
#                 and hands it the command line, -kernel/-initrd/-append)
#                 or grub: the firmware (acpi, the default then) boots a
#                 real arm64 GRUB (grub-efi.sh) from a FAT disk, which
#                 holds it as EFI/BOOT/BOOTAA64.EFI, the kernel as
#                 /vmlinuz, the initramfs as /initrd.cpio and FP_GRUB_CFG
#                 as /grub/grub.cfg; GRUB loads the kernel, and the command
#                 line is its entry's, nothing added (so GUEST_APPEND and
#                 GUEST_IN_TREE_SMMU are refused): the entry must carry
#                 console=ttyAMA0 panic=-1 acpi=force itself.
#   FP_GRUB_CFG   FP_BOOT=grub: the grub.cfg, whose entries boot
#                 "linux /vmlinuz ..." and "initrd /initrd.cpio"
#   QEMU_EXTRA    more QEMU arguments, shell-quoted,
#                 e.g. "-trace 'smmuv3_cmdq*' -D /tmp/trace.log"
#   GUEST_APPEND  more kernel command line
#   GUEST_IN_TREE_SMMU=1  leave the SMMU to the in-tree arm-smmu-v3 driver
#                 (no initcall_blacklist, nothing in /conf/modules): make
#                 bench's upstream reference
#   GUEST_EARLY_MODULES  what /conf/modules lists (default flushpol_smmuv3;
#                 none with GUEST_IN_TREE_SMMU=1)
#   GUEST_KMODS   modules of the kernel's own to put in the initramfs, with
#                 those they depend on, e.g. "nvme" (not loaded by /init)
#   GUEST_ROOT_EXTRA  a directory laid over the guest's root (e.g. the
#                 fio tree of fio-root.sh)
#   FLUSHPOL_QEMU_OUT  output directory (default build/qemu); the console
#                 goes to its run/NAME/console.log, NAME the script's.
#   FLUSHPOL_QEMU_SYSROOT  the modules staged (default: the output
#                 directory's sysroot), e.g. another run's, to boot the
#                 same modules with the other firmware
#   FP_KVER       the kernel: 6.12 (default) or 6.1, as prepare.sh says;
#                 the same as dkms-install.sh staged for
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)

log() { echo "run-guest: $*" >&2; }
die() { log "$*"; exit 1; }

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	die "usage: $0 GUEST_SCRIPT [TIMEOUT_SECONDS]"
fi
script=$1
tmo=${2:-300}
[ -f "$script" ] || die "no guest script $script"

bootby=${FP_BOOT:-kernel}
case $bootby in
kernel) fw=${FP_FIRMWARE:-dt} ;;
grub)
	fw=${FP_FIRMWARE:-acpi}
	[ "$fw" = acpi ] || die "FP_BOOT=grub boots through UEFI: FP_FIRMWARE=acpi"
	[ -f "${FP_GRUB_CFG:-}" ] || die "FP_BOOT=grub: FP_GRUB_CFG names no file"
	if [ -n "${GUEST_APPEND:-}" ] || [ "${GUEST_IN_TREE_SMMU:-0}" = 1 ]; then
		die "FP_BOOT=grub: the command line is the GRUB entry's (no GUEST_APPEND, GUEST_IN_TREE_SMMU)"
	fi
	;;
*) die "FP_BOOT=$bootby: kernel or grub" ;;
esac
case $fw in
dt|acpi) ;;
*) die "FP_FIRMWARE=$fw: dt or acpi" ;;
esac
eval "$("$here/prepare.sh")"
out=${FLUSHPOL_QEMU_OUT:-$top/build/qemu}
sysroot=${FLUSHPOL_QEMU_SYSROOT:-$out/sysroot}
[ -f "$sysroot/lib/modules/$KVER/modules.dep" ] ||
	die "nothing staged in $sysroot: run scripts/qemu/dkms-install.sh first"
name=$(basename "$script" .sh)
run=$out/run/$name
console=$run/console.log

# The initramfs: the staged root, busybox, /init and the script.
rm -rf "$run"
mkdir -p "$run/root"/{bin,dev,proc,sys,tmp}
cp -a "$sysroot/." "$run/root/"
[ -z "${GUEST_ROOT_EXTRA:-}" ] || cp -a "$GUEST_ROOT_EXTRA/." "$run/root/"
cp "$BUSYBOX" "$run/root/bin/busybox"
cp "$script" "$run/root/guest.sh"
chmod 755 "$run/root/guest.sh"
cp "$top/e2e/guest-lib.sh" "$run/root/guest-lib.sh"
mkdir -p "$run/root/usr/sbin"
cp "$top/tools/flushpol-status" "$run/root/usr/sbin/flushpol-status"
mkdir -p "$run/root/conf"
early=flushpol_smmuv3
[ "${GUEST_IN_TREE_SMMU:-0}" != 1 ] || early=
early=${GUEST_EARLY_MODULES-$early}
# shellcheck disable=SC2086 # a list of names
printf '%s\n' $early >"$run/root/conf/modules"
# add_kmod NAME: a module of the kernel's (the package has no modules.dep
# yet) and what it depends on, decompressed: busybox's modprobe loads
# plain .ko files.
add_kmod()
{
	local f d
	f=$(find "$MODDIR/kernel" -name "$1.ko*" -print -quit)
	[ -n "$f" ] || f=$(find "$MODDIR/kernel" -name "${1//_/-}.ko*" -print -quit)
	[ -n "$f" ] || die "no module $1 in $MODDIR"
	d=$run/root/lib/modules/$KVER/${f#"$MODDIR"/}
	[ ! -e "${d%.xz}" ] || return 0
	mkdir -p "$(dirname "$d")"
	xz -dcf "$f" >"${d%.xz}"
	for dep in $(modinfo -F depends "$f" | tr , ' '); do
		add_kmod "$dep"
	done
}
if [ -n "${GUEST_KMODS:-}" ]; then
	for m in $GUEST_KMODS; do
		add_kmod "$m"
	done
	depmod -b "$run/root" "$KVER"
fi
cat >"$run/root/init" <<'EOF'
#!/bin/busybox sh
# Runs /guest.sh between two markers the host looks for, then powers off.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
# The kernel autoloads modules (policies by name) through /sbin/modprobe.
mkdir -p /sbin
ln -sf /bin/busybox /sbin/modprobe
# As initramfs-tools' load_modules: the IOMMU driver before PCI drivers.
while read -r m args; do
	case $m in ''|'#'*) continue ;; esac
	modprobe "$m" $args || echo "FLUSHPOL-GUEST: modprobe $m failed"
done </conf/modules
echo "FLUSHPOL-GUEST-BEGIN $(cat /proc/uptime)"
rc=0
/guest.sh || rc=$?
echo "FLUSHPOL-GUEST-END rc=$rc"
poweroff -f
EOF
chmod 755 "$run/root/init"
# Uncompressed: gzip would save little and cost guest time under TCG.
(cd "$run/root" && find . | cpio -o -H newc --quiet) >"$run/initrd.cpio"

# QEMU_EXTRA is split as the shell would, quotes included, but not globbed.
set -f
eval "extra=(${QEMU_EXTRA:-})"
set +f
# Our own driver needs the in-tree one kept off the SMMU.
blacklist=initcall_blacklist=arm_smmu_driver_init
[ "${GUEST_IN_TREE_SMMU:-0}" != 1 ] || blacklist=
# pauth-impdef: the architected pointer-auth cipher is slow under TCG
# (boot to the end of the smoke test: 5 s with it, 13 s without).
# -nic none: the default NIC wants efi-virtio.rom, which is in ipxe-qemu,
# only a Recommends of qemu-system-arm.
# panic=-1: a panic ends QEMU (-no-reboot) at once instead of at timeout.
# ACPI: UEFI firmware, which loads -kernel, -initrd and -append through
# fw_cfg and hands the kernel the ACPI tables QEMU builds (with an IORT for
# iommu=smmuv3) and no device tree; acpi=force in case it hands both.
firmware=() fwargs=
if [ "$fw" = acpi ]; then
	firmware=(-bios /usr/share/qemu-efi-aarch64/QEMU_EFI.fd)
	fwargs=acpi=force
fi
# GRUB: the firmware finds the FAT disk's EFI/BOOT/BOOTAA64.EFI, the
# removable-media path, as it finds no boot entry of its own.  The disk is
# QEMU's vvfat view of a directory, read only.
if [ "$bootby" = grub ]; then
	esp=$run/esp
	mkdir -p "$esp/EFI/BOOT" "$esp/grub"
	cp "$("$here/grub-efi.sh")" "$esp/EFI/BOOT/BOOTAA64.EFI"
	cp "$IMAGE" "$esp/vmlinuz"
	mv "$run/initrd.cpio" "$esp/initrd.cpio"
	cp "$FP_GRUB_CFG" "$esp/grub/grub.cfg"
	load=(-drive "if=virtio,format=raw,readonly=on,file=fat:$esp")
else
	load=(-kernel "$IMAGE" -initrd "$run/initrd.cpio"
	      -append "console=ttyAMA0 panic=-1 $fwargs $blacklist ${GUEST_APPEND:-}")
fi
# shellcheck disable=SC2054 # the commas are QEMU's
qemu=(qemu-system-aarch64 -M virt,iommu=smmuv3 -cpu max,pauth-impdef=on
      -m 1G -display none -monitor none -serial stdio -nic none -no-reboot
      "${firmware[@]}" -device edu "${load[@]}" "${extra[@]}")
log "booting $KVER, firmware=$fw${FP_BOOT:+, boot=$bootby}, with $script (timeout ${tmo}s), console: $console"
start=$SECONDS
rc=0
timeout -k 10 "$tmo" "${qemu[@]}" </dev/null >"$console" 2>&1 || rc=$?
took=$((SECONDS - start))

fail()
{
	tail -n 40 "$console" >&2
	die "FAIL: $* (firmware=$fw, ${took}s; full console: $console)"
}
# A splat first: it is the likeliest reason for a hang or a bad exit.
splat=$run/splat.log
awk -f "$top/scripts/expect-warn.awk" "$console" > "$splat"
if grep -qE 'WARNING:|BUG:|Oops|Call trace:|Kernel panic' "$splat"; then
	grep -nE -B2 -A20 'WARNING:|BUG:|Oops|Call trace:|Kernel panic' "$splat" >&2
	die "FAIL: kernel splat on the console (full console: $console)"
fi
if grep -q FP-EXPECT-WARN-UNSEEN "$splat"; then
	die "FAIL: $(grep -m1 FP-EXPECT-WARN-UNSEEN "$splat"): the warning expected was not seen (full console: $console)"
fi
case $rc in
0) ;;
124|137) fail "timed out after ${tmo}s" ;;
*) fail "qemu exited with $rc" ;;
esac
end=$(grep -oE 'FLUSHPOL-GUEST-END rc=[0-9]+' "$console" | tail -n 1) ||
	fail "the guest never reached the end of $script"
[ "${end##*=}" = 0 ] || fail "$script exited with ${end##*=}"
# The firmware asked for is the one the kernel used: the IORT is what an
# ACPI boot is for, and a device-tree boot must not have found one.
if grep -qa 'ACPI: IORT ' "$console"; then
	[ "$fw" = acpi ] || fail "the kernel found ACPI tables on a device-tree boot"
else
	[ "$fw" = dt ] || fail "firmware=acpi, but the kernel found no IORT"
fi
boot=$(sed -n 's/^\[ *\([0-9.]*\)\] Run \/init as init process.*/\1/p' "$console")
log "PASS: $script firmware=$fw${FP_BOOT:+ boot=$bootby} (${took}s on the host; /init at ${boot:-?}s guest time)"
