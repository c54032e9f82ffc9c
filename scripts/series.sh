# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# Sourced by scripts/intree-kernel.sh and scripts/arm-smmu-series-check.sh.
#
# fp_series_apply SERIES SRC TREE SCRATCH: apply the patches of directory
# SERIES to pristine copies (from SRC) of the files they touch, in the
# empty directory SCRATCH, then put into TREE each file whose patched
# text differs from TREE's (never written through a hard link to SRC), so
# that an unchanged series rebuilds nothing.  Sets fp_series_files to the
# files touched.  Returns 1, saying which patch, if one does not apply.
fp_series_apply()
{
	local series=$1 src=$2 tree=$3 scratch=$4 f p

	mapfile -t fp_series_files < <(sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' \
					 "$series"/*.patch | sort -u)
	for f in "${fp_series_files[@]}"; do
		mkdir -p "$scratch/$(dirname "$f")"
		[ ! -f "$src/$f" ] || cp "$src/$f" "$scratch/$f"
	done
	for p in "$series"/*.patch; do
		patch -s -p1 -d "$scratch" --no-backup-if-mismatch < "$p" || {
			echo "$(basename "$p") does not apply to $src" >&2
			return 1
		}
	done
	for f in "${fp_series_files[@]}"; do
		if ! cmp -s "$scratch/$f" "$tree/$f"; then
			cp "$scratch/$f" "$tree/$f.fp-new"
			mv "$tree/$f.fp-new" "$tree/$f"
		fi
	done
}
