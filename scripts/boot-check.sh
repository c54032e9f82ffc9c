# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# shellcheck disable=SC2154 # work, boot, gc_root, fakeimg: the caller's
#
# The checks of flushpol-boot's steps in GRUB's configuration and in the
# initramfs, shared by scripts/deb-check.sh (this bookworm host) and
# scripts/deb-check-trixie.sh (the trixie root).  Sourced by a script that
# has installed the package and sets:
#   work      a directory of its own, at the same path in the checked system
#   gc_root   where the checked system's / is on this host ("" for this one)
#   gc_in     a function running "$@" in the checked system
#   boot      an array: the kernels flushpol is built for whose image is in
#             the checked system's /boot
#   fakeimg   a /boot/vmlinuz-VER for which nothing is built (the checks
#             make it and take it away)
#   log, bad (a failed check: report it and go on) and die (stop)
# The steps, in order: boot_check_on (installed, it is off; enable: every
# normal entry has the option, no recovery entry, each initramfs loads
# flushpol_smmuv3; a kernel without it in /boot withholds the option, its
# removal gives it back), boot_check_off (disable: no entry has it, no
# initramfs holds flushpol; enable again), then, after apt remove,
# boot_check_removed.  After every step, every entry with the option is
# for a kernel whose initramfs loads flushpol_smmuv3: each entry boots
# with an SMMU driver.

opt=initcall_blacklist=arm_smmu_driver_init

# The linux lines of grub.cfg $1, one a line: "normal|recovery VERSION
# 0|1", 1 when the line has the option.
entries()
{
	awk -v opt="$opt" '
	/^[[:space:]]*menuentry / { rec = ($0 ~ /\(recovery mode\)/) }
	/^[[:space:]]*linux[[:space:]]/ {
		has = 0
		for (i = 3; i <= NF; i++) if ($i == opt) has = 1
		v = $2; sub(/^.*\/vmlinu[xz]-/, "", v)
		print (rec ? "recovery" : "normal"), v, has
	}' "$1"
}

# grub-mkconfig into $work/grub-$1.cfg, its stderr into grub-$1.err.
gen()
{
	gc_in env LC_ALL=C grub-mkconfig -o "$work/grub-$1.cfg" 2>"$work/grub-$1.err" ||
		{ cat "$work/grub-$1.err" >&2; die "grub-mkconfig failed ($1)"; }
}

# 0 when kernel $1's initramfs holds flushpol_smmuv3 and loads it early
# (initramfs-tools' force_load: its conf/modules names it); unpacked in
# $work/unpacked.
initrd_loads()
{
	local d=$work/unpacked
	rm -rf "$d"
	gc_in unmkinitramfs "/boot/initrd.img-$1" "$d" 2>/dev/null || return 1
	[ -n "$(find "$d" -path '*/lib/modules/*' -name 'flushpol_smmuv3.ko*')" ] &&
		find "$d" -path '*/conf/modules' -exec cat {} + >"$work/conf-modules" &&
		grep -qx flushpol_smmuv3 "$work/conf-modules"
}

# 0 when kernel $1's initramfs holds no flushpol module at all.
initrd_clean()
{
	gc_in lsinitramfs "/boot/initrd.img-$1" >"$work/initrd-list" || return 1
	! grep -q '/flushpol[^/]*\.ko' "$work/initrd-list"
}

# Step $1, grub.cfg $2: the option in every normal entry ($3 = 1) or in
# none ($3 = 0), never in a recovery entry; and every entry with it is
# for a kernel whose initramfs loads flushpol_smmuv3.
expect()
{
	local step=$1 file=$2 want=$3 kind v has n=0
	while read -r kind v has; do
		n=$((n + 1))
		if [ "$kind" = recovery ]; then
			[ "$has" = 0 ] || bad "$step: the recovery entry for $v has $opt"
		elif [ "$has" != "$want" ]; then
			bad "$step: the normal entry for $v has $opt: $has, not $want"
		fi
		if [ "$has" = 1 ] && ! initrd_loads "$v"; then
			bad "$step: $v's entry has $opt, but its initramfs does not load flushpol_smmuv3: no SMMU driver at boot"
		fi
	done < <(entries "$file")
	[ "$n" -gt 0 ] || bad "$step: no linux entry in $file"
	log "$step: $(entries "$file" | awk '{ print $1 "/" $2 "=" $3 }' | tr '\n' ' ')"
}

# flushpol-boot $1 (enable or disable), its output in $work/$1.log.
boot_cmd()
{
	gc_in flushpol-boot "$1" >"$work/$1.log" 2>&1 ||
		{ cat "$work/$1.log" >&2; bad "flushpol-boot $1 failed"; }
}

# Every kernel of boot: its initramfs holds flushpol ($2 = loads) or not
# ($2 = clean), at step $1.
initrds()
{
	local k
	for k in "${boot[@]}"; do
		if [ "$2" = loads ]; then
			initrd_loads "$k" || bad "$1: $k's initramfs does not load flushpol_smmuv3"
		else
			initrd_clean "$k" || bad "$1: $k's initramfs holds flushpol"
		fi
	done
}

boot_check_on()
{
	local grubcfg=$gc_root/boot/grub/grub.cfg fv=${fakeimg##*/vmlinuz-}

	log "installed: off until flushpol-boot enable"
	gen installed
	expect installed "$work/grub-installed.cfg" 0
	initrds "installed (not enabled)" clean

	log "flushpol-boot enable"
	boot_cmd enable
	gen enable
	expect enable "$work/grub-enable.cfg" 1
	expect "enable (update-grub's /boot/grub/grub.cfg)" "$grubcfg" 1
	initrds enable loads
	gc_in flushpol-boot status >"$work/status-enable" 2>&1 || true
	{ grep -q '^enabled' "$work/status-enable" &&
	  grep -q "^boot option: $opt" "$work/status-enable"; } ||
		{ cat "$work/status-enable" >&2; bad "enable: flushpol-boot status does not say so"; }

	log "a kernel without flushpol_smmuv3 in /boot: $fakeimg"
	: >"$gc_root$fakeimg"
	gc_in /etc/kernel/postinst.d/zz-flushpol "$fv" >"$work/hook.log" 2>&1 ||
		bad "the kernel postinst hook failed"
	grep -q "WARNING: .*$fv" "$work/hook.log" ||
		{ cat "$work/hook.log" >&2; bad "the kernel postinst hook does not warn about $fv"; }
	gen fake
	expect "kernel without it" "$work/grub-fake.cfg" 0
	grep -q "WARNING: $opt withheld.* $fv" "$work/grub-fake.err" ||
		{ cat "$work/grub-fake.err" >&2; bad "grub-mkconfig does not name $fv as lacking flushpol_smmuv3"; }
	gc_in flushpol-boot status >"$work/status-fake" 2>&1 || true
	grep -q "^boot option: withheld.*$fv" "$work/status-fake" ||
		{ cat "$work/status-fake" >&2; bad "flushpol-boot status does not say withheld"; }
	rm -f "$gc_root$fakeimg"
	gen unfake
	expect "that kernel gone" "$work/grub-unfake.cfg" 1
}

boot_check_off()
{
	local grubcfg=$gc_root/boot/grub/grub.cfg

	log "flushpol-boot disable"
	boot_cmd disable
	gen disable
	expect disable "$work/grub-disable.cfg" 0
	expect "disable (update-grub's /boot/grub/grub.cfg)" "$grubcfg" 0
	initrds disable clean

	boot_cmd enable
	expect "enabled again" "$grubcfg" 1
}

# After apt remove of the package, enabled; its output in $1.
boot_check_removed()
{
	grep -q "WARNING: removing flushpol-dkms while flushpol-boot is enabled" "$1" ||
		{ cat "$1" >&2; bad "remove: no warning that it was enabled"; }
	gen remove
	expect remove "$work/grub-remove.cfg" 0
	expect "remove (update-grub's /boot/grub/grub.cfg)" "$gc_root/boot/grub/grub.cfg" 0
	initrds remove clean
}
