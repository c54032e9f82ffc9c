#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Usage: scripts/lint.sh
#
# Static checks, all against Debian's 6.12 headers:
#   build    W=1 build, compiler warnings as errors
#   sparse   C=2 (every file), no sparse warning in our sources
#   checkpatch --strict on our C sources and headers
#   docs     scripts/docs-check.sh: the .rst files parse, the paths and
#            make targets the docs name exist, Documentation/messages.rst
#            lists exactly the messages the modules print, kernel-doc is
#            clean
#   tables   scripts/tables-selftest.py: the benchmark tables and their
#            intervals, on generated guest consoles
#   boot     scripts/flushpol-boot-selftest.sh: what the package's
#            flushpol-boot puts on GRUB's command line, on a made-up /boot
#   kcsan    scripts/kcsan-summary-selftest.sh: make kcsan's verdict on
#            KCSAN reports in and near flushpol's code
#   shellcheck  the shell the package installs (tools/*, flushpol-apply,
#            flushpol-boot, the initramfs and kernel hooks),
#            as the POSIX sh their #! names: no finding of any severity
# Builds happen in a throwaway copy of the tree, so the checkout stays
# clean.  Every check runs even if an earlier one fails; the exit status is
# non-zero if any failed.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/deps.sh
. "$here/deps.sh"
# shellcheck source=scripts/lib.sh
. "$here/lib.sh"

log() { echo "lint: $*" >&2; }

kdir=/usr/src/linux-headers-$FP_KVER_612
cache=${FLUSHPOL_CACHE:-/var/cache/flushpol}
tarball=${LINUX_SOURCE_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
checkpatch=$cache/linux-source-6.12/scripts/checkpatch.pl
# The directories whose C we own; those that do not exist yet are skipped.
src_dirs=(core policy include backends kunit bench e2e conftest)

# checkpatch --ignore list.  Each entry needs a reason; none is needed yet:
# with -f and --no-tree, checkpatch skips the checks that only make sense
# for patches against a kernel tree (FILE_PATH_CHANGES, MAINTAINERS...).
cp_ignore=()

[ -f "$kdir/Makefile" ] || fp_apt_install "linux-headers-$FP_KVER_612"
command -v sparse >/dev/null || fp_apt_install sparse

# Only checkpatch.pl and the two word lists it reads from its own
# directory; uml-kernel.sh replaces this partial tree with the whole
# source when it needs it (it looks for the top Makefile).
if [ ! -f "$checkpatch" ]; then
	[ -f "$tarball" ] || fp_apt_install linux-source-6.12
	log "extracting checkpatch.pl from $tarball"
	mkdir -p "$cache"
	tar -C "$cache" -xJf "$tarball" \
		linux-source-6.12/scripts/checkpatch.pl \
		linux-source-6.12/scripts/spelling.txt \
		linux-source-6.12/scripts/const_structs.checkpatch
fi

tmp=$(mktemp -d /tmp/flushpol-lint.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

failed=()

# $1: a tree.  Prints make's output; fails with make.
kbuild()
{
	local tree=$1
	shift
	make -C "$kdir" M="$tree" -j"$(nproc)" "$@" modules 2>&1
}

# (a) -Werror stops the compiler; the grep also catches what is not a
# compiler warning (modpost, objtool, the linker).
lint_build()
{
	local tree=$tmp/build out=$tmp/build.log

	fp_export_tree "$tree"
	if ! kbuild "$tree" W=1 KCFLAGS=-Werror >"$out"; then
		sed "s|$tree/||g" "$out"
		return 1
	fi
	if grep -Ei '(warning|error):' "$out" | sed "s|$tree/||g" | grep .; then
		return 1
	fi
}

# (b) sparse exits 0 whatever it finds, so read its output.  Findings in
# kernel headers are printed but are not ours to fix (sparse 0.6.4 is older
# than 6.12); an error anywhere fails, because it can mean the file was not
# checked at all.
lint_sparse()
{
	local tree=$tmp/sparse out=$tmp/sparse.log rc=0

	fp_export_tree "$tree"
	kbuild "$tree" C=2 >"$out" || { sed "s|$tree/||g" "$out"; return 1; }
	grep -q '^  CHECK ' "$out" || { log "sparse did not run"; return 1; }

	if grep -E "^$tree/.*: (warning|error):" "$out" | sed "s|$tree/||g" | grep .; then
		rc=1
	fi
	if grep -E ': (warning|error):' "$out" | grep -v "^$tree/" >"$tmp/other"; then
		log "sparse, outside our sources:"
		cat "$tmp/other"
		if grep -q ': error:' "$tmp/other"; then
			rc=1
		fi
	fi
	return "$rc"
}

# (c) Every C file and header git tracks (or would track) in our
# directories.  checkpatch exits non-zero for CHECKs too under --strict;
# the grep is a second guard.
lint_checkpatch()
{
	local tree=$tmp/checkpatch out=$tmp/checkpatch.log files=() d rc=0

	fp_export_tree "$tree"
	for d in "${src_dirs[@]}"; do
		[ -d "$tree/$d" ] || continue
		mapfile -t -O "${#files[@]}" files < <(cd "$tree" &&
			find "$d" -type f \( -name '*.c' -o -name '*.h' \) | sort)
	done
	[ ${#files[@]} -gt 0 ] || { log "no C files found"; return 1; }

	(cd "$tree" && perl "$checkpatch" --strict --no-tree --terse \
		--show-types --no-summary ${cp_ignore[@]+"${cp_ignore[@]/#/--ignore=}"} \
		-f "${files[@]}") >"$out" 2>&1 || rc=1
	# TRACE_EVENT() blocks are laid out as every trace header in the
	# kernel is (include/trace/events/iommu.h has the same findings), which
	# --strict's alignment checks do not understand: only these two
	# checks, only on trace headers.
	rc=0
	grep -vE '^core/fp_trace\.h:[0-9]+: CHECK:(PARENTHESIS_ALIGNMENT|OPEN_ENDED_LINE):' \
		"$out" > "$out.kept" || true
	mv "$out.kept" "$out"
	cat "$out"
	if grep -qE ': (ERROR|WARNING|CHECK):' "$out"; then
		rc=1
	fi
	log "checkpatch looked at ${#files[@]} files"
	return "$rc"
}

lint_docs()
{
	"$here/docs-check.sh"
}

lint_tables()
{
	python3 "$here/tables-selftest.py"
}

lint_boot()
{
	"$here/flushpol-boot-selftest.sh"
}

lint_kcsan()
{
	"$here/kcsan-summary-selftest.sh"
}

# The package's shell scripts run on the user's machine under dash (and
# flushpol-status under busybox sh in the QEMU guest): POSIX sh only.
lint_shellcheck()
{
	command -v shellcheck >/dev/null || fp_apt_install shellcheck
	(cd "$FP_TOP" && shellcheck tools/* debian/flushpol-apply debian/flushpol-boot \
				 debian/initramfs-tools/hooks/* debian/kernel/*/*)
}

for check in build sparse checkpatch docs tables boot kcsan shellcheck; do
	log "--- $check ---"
	# A subshell outside any "if", so set -e still holds inside the check.
	set +e
	(set -e; "lint_$check")
	rc=$?
	set -e
	if [ "$rc" -eq 0 ]; then
		log "$check: PASS"
	else
		log "$check: FAIL"
		failed+=("$check")
	fi
done

if [ ${#failed[@]} -gt 0 ]; then
	echo "lint: FAIL (${failed[*]})"
	exit 1
fi
echo "lint: PASS"
