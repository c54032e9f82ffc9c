#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Usage: scripts/qemu/insn-plugin.sh
#
# Builds QEMU's own TCG plugins for counting guest instructions, from
# Debian's source package of the qemu-system-arm installed (the QEMU the
# rig boots), and prints the directory they are in.  Only the plugins are
# built, with gcc against that source's include/qemu/qemu-plugin.h, so
# they load into Debian's binary (whose plugin API is the same version):
#   libinsn.so   tests/plugin/insn.c, unchanged: every instruction the
#                vCPUs execute; with match=PREFIX, at each execution of an
#                instruction whose disassembly starts so, the count since
#                the previous one
#   libwindow.so scripts/qemu/insn-window.c: the same count, as insn.c's
#                and mem.c's inline counters count, with loads, stores,
#                atomics and barriers apart, at each marker instruction the
#                guest executes: the counts of each window between two
#                markers
# Cached under ${FLUSHPOL_CACHE}/qemu-plugins/VERSION (VERSION that of the
# installed qemu-system-arm), rebuilt when insn-window.c changes; its
# decoder is held against the assembler's encodings first
# (insn-window-test.c and .S), and a misclassed instruction fails.
#
# The source comes with apt-get source, which needs a deb-src line: when
# apt knows no source for qemu, a deb822 file for Debian 12's suites,
# /etc/apt/sources.list.d/flushpol-deb-src.sources, is added.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/deps.sh
. "$here/../deps.sh"

log() { echo "insn-plugin: $*" >&2; }
die() { log "$*"; exit 1; }

fp_apt_install qemu-system-arm gcc libglib2.0-dev pkg-config dpkg-dev xz-utils \
	binutils-aarch64-linux-gnu >&2
# The source of the binary package: a binNMU (+bN) has its source's version.
ver=$(dpkg-query -W -f='${source:Version}' qemu-system-arm)
dir=${FLUSHPOL_CACHE:-/var/cache/flushpol}/qemu-plugins/$ver
mkdir -p "${dir%/*}"
exec 9>"${dir%/*}/.build.lock"
flock 9

key="$ver $(cat "$here"/insn-window*.[cS] "$here/insn-classes.h" |
	    sha256sum | cut -d' ' -f1)"
if [ "$(cat "$dir/.built" 2>/dev/null)" = "$key" ]; then
	echo "$dir"
	exit 0
fi

src=$dir/src
if [ ! -f "$src/include/qemu/qemu-plugin.h" ]; then
	if ! apt-cache showsrc "qemu=$ver" 2>/dev/null | grep -q '^Package: qemu$'; then
		list=/etc/apt/sources.list.d/flushpol-deb-src.sources
		log "no source for qemu $ver known to apt: adding $list"
		cat >"$list" <<-'EOF'
		# Added by flushpol's scripts/qemu/insn-plugin.sh: the source of
		# Debian's qemu, for its instruction-counting TCG plugins.
		Types: deb-src
		URIs: http://deb.debian.org/debian
		Suites: bookworm bookworm-updates
		Components: main
		Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

		Types: deb-src
		URIs: http://deb.debian.org/debian-security
		Suites: bookworm-security
		Components: main
		Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
		EOF
		apt-get update -q -o DPkg::Lock::Timeout=900 >&2 </dev/null
	fi
	rm -rf "$dir"
	mkdir -p "$dir/dl"
	log "apt-get source qemu=$ver (the .dsc, .orig and .debian tarballs)"
	(cd "$dir/dl" &&
	 apt-get source -q --download-only -o APT::Sandbox::User=root \
		"qemu=$ver" >&2)
	# Debian's patches applied, as the binary was built; the tree is big,
	# so only the plugin API and the plugins are kept.
	dpkg-source -x --no-check "$dir"/dl/qemu_*.dsc "$dir/full" >&2
	mkdir -p "$src/include/qemu"
	cp "$dir/full/include/qemu/qemu-plugin.h" "$src/include/qemu/"
	cp -r "$dir/full/tests/plugin" "$dir/full/contrib/plugins" "$src/"
	cp "$dir/full/VERSION" "$src/"
	# dpkg-source leaves the upstream tarball beside the tree.
	rm -rf "$dir/full" "$dir/dl" "$dir"/qemu_*
fi

# As QEMU's own tests/plugin/meson.build builds them: a module of glib.
# shellcheck disable=SC2046 # pkg-config's words
build()
{
	gcc -shared -fPIC -O2 -Wall -o "$dir/$1" "$2" \
		-I"$src/include/qemu" $(pkg-config --cflags --libs glib-2.0)
}
build libinsn.so "$src/plugin/insn.c"
build libwindow.so "$here/insn-window.c"
# Its decoder against the assembler's encodings, before it counts.
t=$dir/test
mkdir -p "$t"
aarch64-linux-gnu-as -o "$t/classes.o" "$here/insn-window-test.S"
gcc -O2 -Wall -o "$t/insn-window-test" "$here/insn-window-test.c"
for c in atomic other barrier marker; do
	aarch64-linux-gnu-objcopy -O binary -j ".$c" "$t/classes.o" "$t/$c.bin"
	"$t/insn-window-test" "$c" "$t/$c.bin" ||
		die "FAIL: insn-window.c misclasses $c instructions"
done
echo "$key" >"$dir/.built"
log "built QEMU $(cat "$src/VERSION")'s plugins in $dir"
echo "$dir"
