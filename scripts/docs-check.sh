#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Usage: scripts/docs-check.sh
#
# The documentation's checks, run by scripts/lint.sh (so in make check):
#   rst        every Documentation/*.rst parses with docutils (Debian's
#              python3-docutils), warnings as errors
#   paths      every path of this tree and every make target that README.md
#              or the .rst files name exists (scripts/docs-check.py)
#   messages   every message the shipped modules print has its entry in
#              Documentation/messages.rst, and every entry is one they
#              print (scripts/docs-check.py)
#   kernel-doc the kernel's scripts/kernel-doc -none prints nothing for the
#              public header and the core
# The count tables in Documentation/policies.rst are checked against the
# suites' output by scripts/docs-table.sh --check, after KUnit ran.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/deps.sh
. "$top/scripts/deps.sh"
cache=${FLUSHPOL_CACHE:-/var/cache/flushpol}
tarball=${LINUX_SOURCE_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
kerneldoc=$cache/linux-source-6.12/scripts/kernel-doc
# Debian's docutils is for Debian's python3, whatever python3 is first in
# PATH.
python=/usr/bin/python3

fp_apt_install python3-docutils
"$python" "$top/scripts/docs-check.py" "$top"

# As lint.sh does for checkpatch.pl: only the script, unless the whole
# source is already there.
if [ ! -f "$kerneldoc" ]; then
	[ -f "$tarball" ] || fp_apt_install linux-source-6.12
	mkdir -p "$cache"
	tar -C "$cache" -xJf "$tarball" linux-source-6.12/scripts/kernel-doc
fi
out=$(cd "$top" && perl "$kerneldoc" -none include/flushpol.h core/*.c 2>&1)
if [ -n "$out" ]; then
	echo "$out" >&2
	echo "docs-check: kernel-doc: FAIL" >&2
	exit 1
fi
echo "docs-check: kernel-doc -none include/flushpol.h core/*.c: PASS"
