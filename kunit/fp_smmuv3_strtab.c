// SPDX-License-Identifier: GPL-2.0-only
/*
 * The shipped stream table code (backends/smmuv3/strtab.c), compiled into
 * the test module so that its CFGI_STE syncs go through the queue in
 * front of the fake SMMU (fp_smmuv3_fake.c).
 */
#include "../backends/smmuv3/strtab.c"
