# SPDX-License-Identifier: GPL-2.0-only
#
# What the guest scripts share (busybox sh): scripts/qemu/run-guest.sh puts
# it at /guest-lib.sh, and a script sources it after defining its fail().

# fp_wait WHAT COMMAND...: run COMMAND every 0.1 s until it succeeds;
# after 30 s, fail WHAT.
fp_wait()
{
	_what=$1
	shift
	_i=0
	while ! "$@"; do
		_i=$((_i + 1))
		[ $_i -lt 300 ] || fail "$_what"
		sleep 0.1
	done
}

# Remember the flushpol contexts there are now, for fp_contexts_new.
fp_contexts_mark()
{
	ls /sys/kernel/flushpol/contexts > /tmp/ctx.before 2>/dev/null || true
}

# The names of the contexts made since fp_contexts_mark, on one line.
fp_contexts_new()
{
	_new=
	for _c in /sys/kernel/flushpol/contexts/*; do
		[ -e "$_c" ] || continue
		grep -qxF "${_c##*/}" /tmp/ctx.before || _new="$_new ${_c##*/}"
	done
	echo "${_new# }"
}

# The contexts whose invalidations ran while "$@" did I/O, on one line: a
# device's context is the one its DMA makes work.  Needed where the
# default domain, and so its context, is made when the device's group is
# (flushpol_smmuv3 finalises a domain when the core allocates it for a
# device), before any mark could be taken.  A lazy context invalidates at
# the flush queue's timer (10 ms), hence the wait.
fp_contexts_busy()
{
	for _c in /sys/kernel/flushpol/contexts/*; do
		[ -e "$_c" ] && echo 1 > "$_c/stats/reset"
	done
	"$@" > /dev/null 2>&1
	sleep 1
	_busy=
	for _c in /sys/kernel/flushpol/contexts/*; do
		[ -e "$_c" ] || continue
		[ "$(cat "$_c/stats/syncs")" -gt 0 ] && _busy="$_busy ${_c##*/}"
	done
	echo "${_busy# }"
}

# A direct read of 4 MiB from the NVMe, around the page cache.
fp_nvme_read()
{
	dd if=/dev/nvme0n1 of=/dev/null bs=64k count=64 iflag=direct
}

# The NVMe's context directory, or nothing (identity).
fp_nvme_ctx()
{
	_c=$(fp_contexts_busy fp_nvme_read)
	[ -z "$_c" ] || echo "/sys/kernel/flushpol/contexts/${_c##* }"
}

# Load nvme, its default domain's context (if any) marked as new, and wait
# for its namespace.
fp_nvme_up()
{
	fp_contexts_mark
	modprobe nvme
	fp_wait "no /dev/nvme0n1" test -b /dev/nvme0n1
}

# What a user checks after a reboot (README): each IOMMU and the devices
# behind it, each group with its type, devices and reserved regions, and
# flushpol's contexts with their policies, as "user-view:" lines that
# scripts/qemu/e2e.sh keeps, to hold one firmware's against the other's.
# shellcheck disable=SC2046 # lists of names, on one line
fp_user_view()
{
	for _i in /sys/class/iommu/*; do
		echo "user-view: iommu ${_i##*/}:" $(ls "$_i/devices")
	done
	for _g in /sys/kernel/iommu_groups/*; do
		echo "user-view: group ${_g##*/} type $(cat "$_g/type"):" \
		     $(ls "$_g/devices")
		while read -r _r; do
			echo "user-view: group ${_g##*/} reserved $_r"
		done < "$_g/reserved_regions"
	done
	for _c in /sys/kernel/flushpol/contexts/*; do
		[ -e "$_c" ] || continue
		echo "user-view: context ${_c##*/}: strict $(cat "$_c/strict")," \
		     "policy $(cat "$_c/policy")"
	done
}

# fp_status_line IOMMU DEVICE: the line flushpol-status should print for
# DEVICE behind IOMMU, made from sysfs by other means than it uses: the
# context found through contexts/*/devices/, the policy's brackets taken
# word by word.
fp_status_line()
{
	_d=/sys/class/iommu/$1/devices/$2
	_g=$(readlink -f "$_d/iommu_group")
	printf 'iommu=%s group=%s type=%s device=%s' "$1" "${_g##*/}" \
	       "$(cat "$_g/type")" "$2"
	_ctx=
	for _c in /sys/kernel/flushpol/contexts/*; do
		if [ "$(readlink -f "$_c/devices/$2")" = "$(readlink -f "$_d")" ]
		then
			_ctx=$_c
		fi
	done
	if [ -z "$_ctx" ]; then
		echo " context=- mode=- policy=- threshold=- unmaps=- syncs=-" \
		     "tlbi_va=- tlbi_range=- tlbi_asid=- tlbi_all=- sync_timeouts=-"
		return
	fi
	_p=
	read -r _pl < "$_ctx/policy"
	for _w in $_pl; do
		case $_w in \[*\]) _p=${_w#\[} _p=${_p%\]} ;; esac
	done
	_m=lazy
	[ "$(cat "$_ctx/strict")" = 0 ] || _m=strict
	printf ' context=%s mode=%s policy=%s threshold=%s' "${_ctx##*/}" \
	       "$_m" "$_p" "$(cat "$_ctx/threshold")"
	for _k in unmaps syncs tlbi_va tlbi_range tlbi_asid tlbi_all \
		  sync_timeouts; do
		printf ' %s=%s' "$_k" "$(cat "$_ctx/stats/$_k")"
	done
	echo
}

# fp_status_check [DEVICE...]: flushpol-status (DEVICE...) prints, for
# each device behind an IOMMU (or each DEVICE), the line fp_status_line
# makes, and nothing else.  Call it while no DMA runs: the counters are
# read twice.
fp_status_check()
{
	/usr/sbin/flushpol-status "$@" > /tmp/status ||
		fail "flushpol-status $*: exit status $?"
	_want=0
	for _d in /sys/class/iommu/*/devices/*; do
		[ -e "$_d" ] || continue
		_i=${_d%/devices/*}
		if [ $# -gt 0 ]; then
			case " $* " in *" ${_d##*/} "*) ;; *) continue ;; esac
		fi
		_want=$((_want + 1))
		_l=$(fp_status_line "${_i##*/}" "${_d##*/}")
		grep -qxF "$_l" /tmp/status || {
			echo "status: want: $_l"
			grep -F " device=${_d##*/} " /tmp/status | sed 's/^/status: got:  /'
			fail "flushpol-status: ${_d##*/}'s line is not what sysfs says"
		}
	done
	[ "$(wc -l < /tmp/status)" = "$_want" ] ||
		fail "flushpol-status $*: $(wc -l < /tmp/status) lines, $_want devices"
	[ "$_want" -gt 0 ] || fail "flushpol-status $*: no device to check"
	sed 's/^/status: /' /tmp/status
}
