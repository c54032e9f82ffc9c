/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The A64 instruction classes insn-window.c counts apart, by encoding
 * (Arm ARM, "Loads and Stores"): shared with insn-window-test.c, which
 * holds them against the assembler's encodings.
 */
#ifndef INSN_CLASSES_H
#define INSN_CLASSES_H

#include <stdbool.h>
#include <stdint.h>

#define MARKER	0xd5032fffu	/* HINT #0x7f */

static inline bool is_atomic(uint32_t i)
{
	/* LSE atomic memory operations: size 111 V=0 00 A R 1 Rs o3 opc 00. */
	if ((i & 0x3f200c00) == 0x38200000) {
		uint32_t o3 = (i >> 15) & 1, opc = (i >> 12) & 7;

		/* LD<op> and ST<op>, and SWP; not LDAPR (o3=1 opc=100). */
		return !o3 || !opc;
	}
	/* Load/store exclusive: size 001000 o2 L o1 Rs o0 Rt2 Rn Rt. */
	if ((i & 0x3f000000) == 0x08000000) {
		uint32_t o2 = (i >> 23) & 1, l = (i >> 22) & 1,
			 o1 = (i >> 21) & 1;

		if (o2)			/* CAS (o1=1); LDAR, STLR (o1=0) */
			return o1;
		if (o1 && !(i >> 31))	/* CASP */
			return true;
		return !l;		/* STXR, STLXR, STXP, STLXP */
	}
	return false;
}

static inline bool is_barrier(uint32_t i)
{
	/* DSB and DMB, any option. */
	return (i & 0xfffff0ff) == 0xd503309f || (i & 0xfffff0ff) == 0xd50330bf;
}

#endif /* INSN_CLASSES_H */
