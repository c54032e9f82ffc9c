#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Guest half of scripts/qemu/idle-check.sh: is the guest slower with
# flushpol's driver than with the upstream one, and is it busy while idle?
# Times the edu module's calibration (phases of a 4K unmap) and a loop of
# busybox sh (the same code in both boots), then records /proc/interrupts,
# /proc/softirqs, /proc/stat and /proc/loadavg around a 10 s idle sleep,
# then times both again.  Works in both boots: flushpol_edu if
# flushpol_smmuv3 is loaded, flushpol_edu_upstream otherwise.
set -eu

fail() { echo "idle: $*"; exit 1; }
# shellcheck source=e2e/guest-lib.sh
. /guest-lib.sh
mkdir -p /sbin
ln -sf /bin/busybox /sbin/modprobe

if [ -d /sys/module/flushpol_smmuv3 ]; then
	drv=/sys/bus/pci/drivers/flushpol_edu
	modprobe flushpol_edu
	bound() { [ -e $drv/run ]; }
else
	drv=/sys/bus/pci/drivers/flushpol_edu_upstream
	modprobe flushpol_edu_upstream
	bound() { ls -d "$drv"/0000:* >/dev/null 2>&1; }
fi
fp_wait "edu never bound" bound

# The uptime in centiseconds: busybox has no clock finer than /proc/uptime.
cs() { read -r up _ </proc/uptime; echo "${up%.*}${up#*.}"; }
shloop()
{
	_t0=$(cs)
	_i=0
	while [ $_i -lt 20000 ]; do _i=$((_i + 1)); done
	echo "idle: shloop=$(( ($(cs) - _t0) * 10 ))ms"
}
phases()
{
	echo "idle: phases $1" > /dev/kmsg
	echo "phases 4096 16" > $drv/run
}
snap()
{
	echo "idle: snap $1 uptime $(cat /proc/uptime) loadavg $(cat /proc/loadavg)"
	sed "s/^/idle: $1 interrupts /" /proc/interrupts
	sed "s/^/idle: $1 softirqs /" /proc/softirqs
	grep -E '^(cpu |ctxt|intr|procs_running)' /proc/stat |
		cut -c1-80 | sed "s/^/idle: $1 stat /"
}

phases before
shloop
snap before
sleep 10
snap after
phases after
shloop
echo "idle: done"
