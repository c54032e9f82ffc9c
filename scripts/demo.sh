#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make demo, the README's main job, on a fresh Debian 12 as root: install
# what it needs, then scripts/qemu/bench.sh (DKMS into Debian's arm64
# kernel on QEMU's SMMUv3, policies switched through sysfs, the unmap
# benchmark's table).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/deps.sh
. "$top/scripts/deps.sh"
fp_apt_install dkms kmod cpio git python3
exec "$top/scripts/qemu/bench.sh"
