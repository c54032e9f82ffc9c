# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# Helpers shared by the scripts.  Sourced; sets no shell options.

FP_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# The package version.  dkms.conf is where it lives (dkms needs it there),
# so everything else reads it from there.
fp_version()
{
	sed -n 's/^PACKAGE_VERSION="\([^"]*\)"[[:space:]]*$/\1/p' \
		"$FP_TOP/dkms.conf" | head -n 1 | grep .
}

# The host's /usr/src, dkms tree and /lib/modules are the machine's:
# dkms-check.sh and deb-check.sh take this lock (fd 8, held until the
# script exits) so that only one of them uses them at a time.
fp_host_dkms_lock()
{
	local cache=${FLUSHPOL_CACHE:-/var/cache/flushpol}

	mkdir -p "$cache"
	exec 8>"$cache/.dkms-check.lock"
	flock 8
}

# Copy the source tree, without build artefacts or .git, to directory $1.
# In a git checkout that is every file git tracks or would track (so new,
# not yet added files count, ignored ones do not), as they are in the
# working tree; elsewhere (an unpacked tarball) tar drops what .gitignore
# names.
fp_export_tree()
{
	local dest=$1

	mkdir -p "$dest"
	if git -C "$FP_TOP" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		# ls-files --cached also lists tracked files deleted in the
		# working tree: skip those.
		(cd "$FP_TOP" &&
		 git ls-files -z --cached --others --exclude-standard |
		 while IFS= read -r -d '' f; do
			if [ -e "$f" ] || [ -L "$f" ]; then
				printf '%s\0' "$f"
			fi
		 done | tar --null -T - -cf -) | tar -C "$dest" -xf -
	else
		# tar ignores anchored .gitignore lines: name /build/ here.
		tar -C "$FP_TOP" --exclude-vcs --exclude-vcs-ignores \
			--exclude=./build -cf - . |
			tar -C "$dest" -xf -
	fi
}

# Where a run's tables and plots go: build/results/ (FLUSHPOL_RESULTS).
# A run never writes a tracked file; `make results` (scripts/results.sh)
# publishes this directory into bench/results/ when a maintainer chooses.
export FP_RESULTS=${FLUSHPOL_RESULTS:-$FP_TOP/build/results}

# The QEMU rig's modules for a benchmark or diagnosis boot: flushpol
# through DKMS into the guest kernel (prepare.sh's, already eval'ed) and
# the edu modules, their output in $1/build.log (its tail on failure).
# FP_BENCH_PREBUILT=1: staged already, nothing to do.
fp_qemu_stage_modules()
{
	[ "${FP_BENCH_PREBUILT:-0}" != 1 ] || return 0
	{ "$FP_TOP/scripts/qemu/dkms-install.sh" &&
	  "$FP_TOP/scripts/qemu/edu-module.sh"; } >"$1/build.log" 2>&1 && return 0
	tail -n 30 "$1/build.log" >&2
	echo "FAIL: building the rig's modules, see $1/build.log" >&2
	return 1
}

# Re-run the calling script ("$0" "$@") inside the build root prepare.sh
# named (ROOT, Debian 13's kernels: their kbuild and compiler are
# trixie's), the prepared kernel passed on, unless there is none or this
# is it already.  Variables to keep are named in $FP_IN_ROOT_KEEP.
fp_in_root()
{
	local keep v env

	[ -n "${ROOT:-}" ] && [ -z "${FP_PREPARED_ENV:-}" ] || return 0
	env=FP_PREPARED_ENV=$ENVFILE
	keep="FLUSHPOL_CACHE FLUSHPOL_QEMU_OUT FLUSHPOL_DEB FP_KVER ${FP_IN_ROOT_KEEP:-}"
	for v in $keep; do
		[ -z "${!v:-}" ] || env+=" $v=${!v}"
	done
	FP_ROOT_ENV=$env exec "$FP_TOP/scripts/trixie-root.sh" run "$@"
}
