#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Usage: scripts/qemu/smoke.sh
#
# Proves the arm64 QEMU rig end to end: prepare the kernel, install our
# package through dkms (cross-built), boot, and run guest/smoke.sh in the
# guest.  Prints how long each step took.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)

step()
{
	local t=$SECONDS
	"$@"
	echo "smoke: ${1##*/}: $((SECONDS - t))s" >&2
}

step "$here/prepare.sh" >/dev/null
step "$here/dkms-install.sh" >/dev/null
step "$here/run-guest.sh" "$here/guest/smoke.sh" 300
