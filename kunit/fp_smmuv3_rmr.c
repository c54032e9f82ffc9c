// SPDX-License-Identifier: GPL-2.0-only
/*
 * The shipped RMR bypass (backends/smmuv3/rmr.c), compiled into the test
 * module so that flushpol_smmuv3_idr installs it against a fake SMMU.
 */
#include "../backends/smmuv3/rmr.c"
