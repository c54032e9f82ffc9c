#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Usage: scripts/arm-smmu-series-check.sh 6.1|7.x
#
# Builds the arm-smmu series of integration/arm-smmu/KVER/ in the kernel
# it is written for: Debian 12's linux-source-6.1, or the newest
# linux-source-7.* of trixie-backports (installed in the trixie root of
# scripts/trixie-root.sh).  The series is applied to scratch copies of the
# files it touches, flushpol is laid in with scripts/intree.sh, and the
# tree is configured for arm64 from Debian's own config of that kernel
# (from its linux-headers-ABI-arm64 package) with ARCH_QCOM, arm-smmu and
# arm-smmu-qcom built in, handing their banks to the built-in SMMUv2 and
# Qualcomm backends.  Then modules_prepare and drivers/iommu/ with W=1:
# it fails if the series does not apply, an option does not stick, the
# build fails, or the compiler warns in arm-smmu's or flushpol's files.
# It compiles and links drivers/iommu/ only, not vmlinux.
#
# Cached under $FLUSHPOL_CACHE (default /var/cache/flushpol): the source
# extracted once as linux-source-N, and arm-smmu-series-N/ with a hard
# linked copy of it (src/, files replaced by rename, never written through
# a link) and the build (build/).  A second run recompiles what changed,
# and always arm-smmu's and flushpol's objects, so that their warnings are
# seen on every run.  One run per kernel at a time.  Needs root (apt).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/deps.sh
. "$top/scripts/deps.sh"
# shellcheck source=scripts/series.sh
. "$top/scripts/series.sh"
cache=${FLUSHPOL_CACHE:-/var/cache/flushpol}
kmake=(ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-)

log() { echo "arm-smmu-series: $*" >&2; }
die() { log "$*"; exit 1; }

[ $# = 1 ] || { echo "usage: arm-smmu-series-check.sh 6.1|7.x" >&2; exit 2; }
case $1 in
6.1)
	pkg=linux-source-6.1
	fp_apt_install "$pkg" linux-headers-amd64 gcc-aarch64-linux-gnu \
		flex bison bc libssl-dev libelf-dev >&2
	tarball=/usr/src/$pkg.tar.xz
	# The ABI bookworm's headers metapackage points at (6.1.0-N).
	abi=$(dpkg-query -W -f='${Depends}' linux-headers-amd64 |
	      grep -oE 'linux-headers-6\.1\.0-[0-9]+-amd64' | head -n 1) ||
		die "no 6.1 ABI in linux-headers-amd64"
	abi=${abi#linux-headers-}
	abi=${abi%-amd64}
	in_apt() { "$@"; }
	series=$top/integration/arm-smmu/6.1
	;;
7.x)
	fp_apt_install gcc-aarch64-linux-gnu flex bison bc libssl-dev \
		libelf-dev >&2
	root=$("$top/scripts/trixie-root.sh")
	in_apt() { "$top/scripts/trixie-root.sh" run "$@"; }
	pkg=$(in_apt apt-cache pkgnames linux-source-7. |
	      grep -E '^linux-source-7\.[0-9]+$' | sort -V | tail -n 1) ||
		die "trixie-backports has no linux-source-7.*"
	abi=$(in_apt apt-cache pkgnames linux-headers-7. |
	      grep -E "^linux-headers-${pkg#linux-source-}\.[0-9]+[^-]*-arm64\$" |
	      sort -V | tail -n 1) || die "no arm64 headers for $pkg"
	abi=${abi#linux-headers-}
	abi=${abi%-arm64}
	[ -f "$root/usr/src/$pkg.tar.xz" ] ||
		in_apt apt-get install -y -q --no-install-recommends "$pkg" \
			>&2 </dev/null
	tarball=$root/usr/src/$pkg.tar.xz
	series=$top/integration/arm-smmu/7.x
	;;
*) echo "usage: arm-smmu-series-check.sh 6.1|7.x" >&2; exit 2 ;;
esac
src=$cache/$pkg
work=$cache/arm-smmu-series-${pkg#linux-source-}
log "$pkg (arm64 config of $abi), series $series"

mkdir -p "$cache"
# The extracted source is shared: one extractor at a time.
exec 8>"$cache/.$pkg.lock"
flock 8
if [ ! -f "$src/Makefile" ]; then
	log "extracting $tarball"
	rm -rf "$src"
	tar -C "$cache" -xJf "$tarball"
fi
flock -u 8

exec 9>"$cache/.arm-smmu-series-${pkg#linux-source-}.lock"
flock 9
if [ ! -f "$work/.flushpol-copied" ]; then
	log "linking $src into $work/src"
	rm -rf "$work"
	mkdir -p "$work/build"
	cp -al "$src" "$work/src"
	touch "$work/.flushpol-copied"
fi

# Debian's config for the kernel: in its arm64 headers package.
if [ ! -f "$work/debian.config" ]; then
	dl=$(mktemp -d "$cache/.arm-smmu-series-dl.XXXXXX")
	# shellcheck disable=SC2064
	trap "rm -rf '$dl'" EXIT
	# shellcheck disable=SC2016 # expanded by the inner shell
	in_apt sh -c 'cd "$1" && apt-get download -q "$2"' sh "$dl" \
		"linux-headers-$abi-arm64:arm64" >&2 </dev/null
	deb=$(echo "$dl"/linux-headers-*.deb)
	cfg=$(dpkg-deb -c "$deb" | grep -oE '\./usr/\S*/\.config$' | head -n 1) ||
		die "no .config in $deb"
	dpkg-deb --fsys-tarfile "$deb" | tar -xO "$cfg" > "$work/debian.config.tmp"
	grep -q '^CONFIG_ARM64=y' "$work/debian.config.tmp" ||
		die "no arm64 config in linux-headers-$abi-arm64"
	mv "$work/debian.config.tmp" "$work/debian.config"
fi

# The series, on pristine copies of the files it touches (as
# intree-kernel.sh does); a file is replaced only if its text changed.
scratch=$(mktemp -d)
# shellcheck disable=SC2064
trap "rm -rf '$scratch' ${dl:+'$dl'}" EXIT
fp_series_apply "$series" "$src" "$work/src" "$scratch" ||
	die "the series of $series does not apply"
[ ${#fp_series_files[@]} -gt 0 ] || die "no patches in $series"
log "series applied: ${#fp_series_files[@]} files"

# After the series: it replaces drivers/iommu/Kconfig, which intree.sh
# hooks.
"$top/scripts/intree.sh" "$work/src"

b=$work/build
kb=(make -s -C "$work/src" O="$b" "${kmake[@]}")
if ! cmp -s "$work/debian.config" "$b/.config.debian"; then
	cp "$work/debian.config" "$b/.config"
	cp "$work/debian.config" "$b/.config.debian"
fi
want=(ARCH_QCOM=y ARM_SMMU=y ARM_SMMU_QCOM=y ARM_SMMU_QCOM_DEBUG=y
      FLUSHPOL=y FLUSHPOL_ADAPTIVE=y FLUSHPOL_SMMUV2=y FLUSHPOL_QCOM=y
      ARM_SMMU_FLUSHPOL=y)
opts=()
for o in "${want[@]}"; do
	opts+=(-e "${o%=y}")
done
# Debian's signing keys are not in the source package; no debug info
# (nothing here is linked into vmlinux or debugged).
"$work/src/scripts/config" --file "$b/.config" "${opts[@]}" \
	--set-str SYSTEM_TRUSTED_KEYS "" --set-str SYSTEM_REVOCATION_KEYS "" \
	-d DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT -d DEBUG_INFO_DWARF4 \
	-d DEBUG_INFO_DWARF5 -e DEBUG_INFO_NONE
"${kb[@]}" olddefconfig 2>&1 | tee "$b/config.log" >&2
! grep -E 'FLUSHPOL|ARM_SMMU' "$b/config.log" ||
	die "Kconfig warned about the series' or flushpol's symbols"
for o in "${want[@]}"; do
	grep -qx "CONFIG_$o" "$b/.config" || die "CONFIG_$o did not stick"
done
log "options stuck: ${want[*]}"

log "modules_prepare in $b"
"${kb[@]}" -j"$(nproc)" modules_prepare >&2
# Their warnings are this check's subject: compiled on every run.
find "$b/drivers/iommu/arm/arm-smmu" "$b/drivers/iommu/flushpol" \
	-name '*.o' -delete 2>/dev/null || true
log "W=1 drivers/iommu/ in $b"
status=0
"${kb[@]}" -j"$(nproc)" W=1 drivers/iommu/ > "$b/iommu.log" 2>&1 || status=$?
if [ $status != 0 ]; then
	tail -n 40 "$b/iommu.log" >&2
	die "drivers/iommu/ does not build (log: $b/iommu.log)"
fi
if grep -E '(drivers/iommu/(arm/arm-smmu|flushpol)/[^:]*:[0-9]+:[0-9]+: (warning|error))' \
	"$b/iommu.log" >&2; then
	die "warnings in arm-smmu's or flushpol's files (log: $b/iommu.log)"
fi
for o in arm/arm-smmu/arm-smmu-flushpol.o arm/arm-smmu/arm-smmu.o \
	 arm/arm-smmu/arm-smmu-qcom.o arm/arm-smmu/built-in.a \
	 flushpol/built-in.a; do
	[ -f "$b/drivers/iommu/$o" ] || die "drivers/iommu/$o was not built"
done
log "PASS: ${pkg#linux-source-} with the series builds drivers/iommu/ (W=1, no warnings in arm-smmu or flushpol)"
