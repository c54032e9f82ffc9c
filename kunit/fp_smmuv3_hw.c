// SPDX-License-Identifier: GPL-2.0-only
/*
 * The shipped register-level probe, reset and disable
 * (backends/smmuv3/hw.c), compiled into the test module so that it runs
 * against fake register files of real parts (fp_smmuv3_regs.c).
 */
#include "../backends/smmuv3/hw.c"
