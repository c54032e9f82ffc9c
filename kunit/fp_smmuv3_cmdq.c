// SPDX-License-Identifier: GPL-2.0-only
/*
 * The shipped command queue (backends/smmuv3/cmdq.c), compiled into the
 * test module for the fake SMMU of fp_smmuv3_fake.c to stand behind.  A
 * file of its own so that make kcsan instruments it: the fake, standing in
 * for hardware, is not (Kbuild).
 */
#include "../backends/smmuv3/cmdq.c"
