# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# Sourced by the fio scripts (fio-bench.sh, fio-syncs.sh, fio-verify.sh),
# which set $here to this directory.
#
# fio_rig OUT: what their boots share.  The guest's kernel and modules
# (prepare.sh's variables) and fio's root ($root); the modules staged by
# DKMS and the edu module built, unless FP_FIO_PREBUILT=1 says they are
# already; OUT emptied, and a 1 GiB NVMe image in it ($img).
# $here is the caller's, and $root and $img are for it.
# shellcheck disable=SC2034,SC2154
fio_rig()
{
	eval "$("$here/prepare.sh")"
	root=$("$here/fio-root.sh")
	if [ "${FP_FIO_PREBUILT:-0}" != 1 ]; then
		"$here/dkms-install.sh" >/dev/null
		"$here/edu-module.sh" >/dev/null
	fi
	rm -rf "$1"
	mkdir -p "$1"
	img=$1/nvme.img
	truncate -s 1G "$img"
}
