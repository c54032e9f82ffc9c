#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Usage: scripts/qemu/grub-boot.sh [GRUB_CFG]
#
# Boots what "flushpol-boot enable" makes GRUB boot, through a real GRUB:
# every entry of GRUB_CFG (default build/deb-check/grub-enable.cfg, the
# grub.cfg that scripts/deb-check.sh's enable step had grub-mkconfig write
# from the package's /etc/default/grub.d/flushpol.cfg) is booted once,
# each distinct command line once, in QEMU -M virt,iommu=smmuv3 under UEFI
# (run-guest.sh's FP_BOOT=grub: Debian's arm64 GRUB, grub-efi.sh, loads
# the arm64 kernel and the initramfs, which loads flushpol_smmuv3 in every
# entry as the package's initramfs hook does), with an NVMe behind the
# SMMU.  In the guest, e2e/guest-grub.sh checks that /proc/cmdline is the
# entry's linux line as GRUB passed it, that the SMMU is bound to
# flushpol_smmuv3 in a normal entry and to the kernel's own arm-smmu-v3 in
# a "recovery mode" entry, and that the NVMe is behind it, translating:
# 4 MiB read back from it as written.
# The linux lines are the entry's words, then
#   console=ttyAMA0 panic=-1 acpi=force loglevel=7
# what run-guest.sh's own UEFI boots pass (loglevel=7 undoes a "quiet" of
# the entry, so that the console shows every warning run-guest.sh checks
# for).  Every entry is booted even if one fails; the run fails if any did.
# FP_GRUB_PREBUILT=1: the modules are staged already (FLUSHPOL_QEMU_SYSROOT
# or the output directory's sysroot), as make check's e2e stage left them.
# Output under $FLUSHPOL_QEMU_OUT/grub (default build/qemu/grub): the
# grub.cfg booted, and each boot's run-guest.sh output in ENTRY-N/.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib.sh
. "$here/../lib.sh"

log() { echo "grub-boot: $*" >&2; }
die() { log "FAIL: $*"; exit 1; }

[ $# -le 1 ] || die "usage: $0 [GRUB_CFG]"
src=${1:-$FP_TOP/build/deb-check/grub-enable.cfg}
[ -f "$src" ] || die "no $src: scripts/deb-check.sh leaves it there"
out=${FLUSHPOL_QEMU_OUT:-$FP_TOP/build/qemu}
sysroot=${FLUSHPOL_QEMU_SYSROOT:-$out/sysroot}
dir=$out/grub
extra="console=ttyAMA0 panic=-1 acpi=force loglevel=7"

eval "$("$here/prepare.sh")"
if [ "${FP_GRUB_PREBUILT:-0}" != 1 ]; then
	FLUSHPOL_QEMU_OUT=$out "$here/dkms-install.sh" >/dev/null
fi

# Each linux line of $src as "KIND<TAB>TITLE<TAB>WORDS", KIND recovery for
# an entry whose title says "(recovery mode)", as 10_linux names them,
# WORDS the line's arguments after the kernel, one space apart (GRUB splits
# them so); each distinct KIND and WORDS once.
rm -rf "$dir"
mkdir -p "$dir"
awk '
/^[[:space:]]*menuentry / {
	t = $0; sub(/^[[:space:]]*menuentry '\''/, "", t); sub(/'\''.*/, "", t)
	rec = (t ~ /\(recovery mode\)/)
}
/^[[:space:]]*linux[[:space:]]/ {
	a = ""
	for (i = 3; i <= NF; i++) a = a (a == "" ? "" : " ") $i
	k = (rec ? "recovery" : "normal") "\t" a
	if (!(k in seen)) { seen[k] = 1; print (rec ? "recovery" : "normal") "\t" t "\t" a }
}' "$src" >"$dir/entries"
mapfile -t entries <"$dir/entries"
grep -q '^normal' "$dir/entries" || die "no normal entry in $src"
grep -q '^recovery' "$dir/entries" || die "no recovery entry in $src"
# Words copied as they are into our linux lines: none GRUB would
# unquote or expand, so that /proc/cmdline must be them exactly.
! grep -q '["'\''$\\]' "$dir/entries" ||
	die "quotes, \$ or \\ in a linux line of $src: not handled"

# grub.cfg: the entries in that order, default=N set per boot.
{
	echo 'set timeout=0'
	echo 'set default=@DEFAULT@'
	for e in "${entries[@]}"; do
		IFS=$'\t' read -r kind title words <<<"$e"
		printf "menuentry '%s' {\n\tlinux /vmlinuz %s %s\n\tinitrd /initrd.cpio\n}\n" \
			"$title" "$words" "$extra"
	done
} >"$dir/grub.cfg.in"

# The NVMe: 4 MiB of a known pattern, read back in the guest.
img=$dir/nvme.img
yes flushpol-grub-boot | head -c 4M >"$img" || true
truncate -s 64M "$img"
md5=$(head -c 4M "$img" | md5sum)
md5=${md5%% *}

failed=()
for n in "${!entries[@]}"; do
	IFS=$'\t' read -r kind title words <<<"${entries[n]}"
	o=$dir/$kind-$n
	mkdir -p "$o/extra/conf"
	sed "s/@DEFAULT@/$n/" "$dir/grub.cfg.in" >"$o/grub.cfg"
	echo "$kind" >"$o/extra/conf/grub-kind"
	echo "BOOT_IMAGE=/vmlinuz $words $extra" >"$o/extra/conf/grub-cmdline"
	echo "$md5" >"$o/extra/conf/nvme-md5"
	log "entry $n, $kind, '$title': $words"
	if FP_BOOT=grub FP_GRUB_CFG=$o/grub.cfg GUEST_ROOT_EXTRA=$o/extra \
	   FLUSHPOL_QEMU_OUT=$o FLUSHPOL_QEMU_SYSROOT=$sysroot GUEST_KMODS=nvme \
	   QEMU_EXTRA="-drive file=$img,if=none,id=nvm,format=raw -device nvme,serial=fp,drive=nvm" \
		"$here/run-guest.sh" "$FP_TOP/e2e/guest-grub.sh" 300; then
		sed -n 's/\r$//; s/^grub-boot: /  /p' "$o/run/guest-grub/console.log" >&2
	else
		failed+=("$n ($kind)")
	fi
done
[ ${#failed[@]} -eq 0 ] || die "entries ${failed[*]} of $src"
log "PASS: the $(grep -c '^[[:space:]]*linux[[:space:]]' "$src") entries of $src, ${#entries[@]} command lines, booted through GRUB, each with its SMMU driver"
