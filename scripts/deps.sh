# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# The Debian 12 packages the tests need, in one place.  Sourced by .ci/run
# (installs them all) and by scripts that install pieces on demand; it sets
# no shell options so it is safe to source from any script.

# The kernels DKMS builds for.  6.12 by exact ABI name, not through the
# linux-headers-6.12-amd64 metapackage, so it stays the release that
# linux-source-6.12 (the UML kernel) is; 6.1 through linux-headers-amd64 so
# CI follows bookworm's point releases.  Bump FP_KVER_612 with linux-source.
FP_KVER_612=6.12.117+deb12-amd64

FP_DEB_PACKAGES=(
	build-essential		# gcc, make
	bc bison flex libelf-dev libssl-dev cpio	# building the UML kernel
	xz-utils		# linux-source-6.12 is a .tar.xz
	kmod			# modinfo, depmod
	perl			# checkpatch.pl
	python3
	dkms
	openssl			# dkms signs with a key it makes with openssl;
				# without it, it quietly skips signing
	sparse
	git			# the scripts export the tree with git ls-files
	linux-source-6.12	# UML kernel and checkpatch.pl
	"linux-headers-$FP_KVER_612"
	linux-headers-amd64
	debhelper dh-dkms	# make deb: the flushpol-dkms package
	lintian			# and its packaging lint
	grub-common grub2-common initramfs-tools # deb-check: flushpol-boot's
				# GRUB entries and initramfs, generated
	python3-docutils	# scripts/docs-check.sh: the .rst files parse
)

# How to install non-interactively: no questions, keep config files, no
# Recommends; wait for another apt (a parallel run) rather than fail.
# Nothing here needs them, and the 6.12 headers depend on the
# 6.12 image, which recommends apparmor.
FP_APT_INSTALL=(apt-get install -y -q --no-install-recommends
		-o DPkg::Lock::Timeout=900
		-o Dpkg::Options::=--force-confdef
		-o Dpkg::Options::=--force-confold)

# Install whichever of "$@" is missing (default: all of FP_DEB_PACKAGES).
# apt-get update runs only when something has to be installed, once per
# shell.  Needs root.
fp_apt_install()
{
	local pkgs=("$@") missing=() p st

	[ ${#pkgs[@]} -gt 0 ] || pkgs=("${FP_DEB_PACKAGES[@]}")
	for p in "${pkgs[@]}"; do
		st=$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null) || st=
		[[ $st == ii* ]] || missing+=("$p")
	done
	[ ${#missing[@]} -gt 0 ] || return 0

	echo "deps: installing ${missing[*]}" >&2
	if [ -z "${FP_APT_UPDATED:-}" ]; then
		DEBIAN_FRONTEND=noninteractive apt-get update -q \
			-o DPkg::Lock::Timeout=900 </dev/null
		FP_APT_UPDATED=1
	fi
	DEBIAN_FRONTEND=noninteractive "${FP_APT_INSTALL[@]}" "${missing[@]}" \
		</dev/null
}
