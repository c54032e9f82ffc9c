/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What differs between kernels in the IOMMU core structures the core
 * itself fills in.  Kbuild's probes (conftest/) set the FP_HAVE_* macros.
 */
#ifndef _FP_CORE_COMPAT_H
#define _FP_CORE_COMPAT_H

#include <linux/iommu.h>
#include <linux/list.h>

/*
 * The gather's freelist: a list_head, wrapped in a struct iommu_pages_list
 * since 6.15.  The core marks its own gathers by that list's pointers
 * (coverage.c, R3) and never puts a page on it.
 */
#ifdef FP_HAVE_IOMMU_GATHER_PAGES_LIST
#define FP_GATHER_FREELIST_TYPE	struct iommu_pages_list
#define fp_gather_freelist(gather)	(&(gather)->freelist.pages)
#else
#define FP_GATHER_FREELIST_TYPE	struct list_head
#define fp_gather_freelist(gather)	(&(gather)->freelist)
#endif

/* What a kset's uevent ops are handed: a const kobject since 6.2. */
#ifdef FP_HAVE_KSET_UEVENT_OPS_CONST
#define FP_UEVENT_KOBJ	const struct kobject
#else
#define FP_UEVENT_KOBJ	struct kobject
#endif

#endif /* _FP_CORE_COMPAT_H */
