# SPDX-License-Identifier: GPL-2.0-only
#
# Included by the Kbuild files.  $(call fp_have,NAME...) compiles each
# conftest/NAME.c against the target kernel's headers, with its flags in
# the order Kbuild's own c_flags has them (UML needs it), and gives
# -DFP_HAVE_NAME (upper case) for each that builds.  The kernel's flags
# include -Werror here and -Wmissing-prototypes (6.8): a probe's functions
# are static and used, or declared first, so only the API can fail it.

fp_conftest_dir := $(dir $(lastword $(MAKEFILE_LIST)))

fp_conftest = $(shell $(CC) $(NOSTDINC_FLAGS) $(LINUXINCLUDE) \
	$(KBUILD_CPPFLAGS) $(KBUILD_CFLAGS) -DKBUILD_MODNAME='"fp_conftest"' \
	-Werror -c -o /dev/null $(fp_conftest_dir)$(1).c >/dev/null 2>&1 && echo y)

fp_have = $(foreach t,$(1),$(if $(call fp_conftest,$(t)),\
	-DFP_HAVE_$(shell echo $(t) | tr a-z A-Z)))
