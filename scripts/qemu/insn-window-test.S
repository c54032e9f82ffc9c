/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What insn-window.c must class each way, one section a class, for
 * insn-window-test.c: the forms of the kernel's atomics (LSE, and the
 * load/store-exclusive sequences without it), the loads and stores of
 * the same encoding groups that are no atomics, barriers, the marker.
 */
	.arch	armv8.3-a+lse+rcpc

	.section .atomic, "ax"
	ldadd	x0, x1, [x2]
	ldaddal	w0, w1, [x2]
	ldaddb	w0, w1, [x2]
	stadd	x0, [x2]
	staddl	w0, [x2]
	ldclr	x0, x1, [x2]
	ldclral	x0, x1, [x2]
	ldeor	x0, x1, [x2]
	ldset	x0, x1, [x2]
	stset	w0, [x2]
	ldsmax	x0, x1, [x2]
	ldumin	x0, x1, [x2]
	swp	x0, x1, [x2]
	swpal	w0, w1, [x2]
	cas	x0, x1, [x2]
	casal	x0, x1, [x2]
	casb	w0, w1, [x2]
	casp	x0, x1, x2, x3, [x4]
	caspal	w0, w1, w2, w3, [x4]
	stxr	w0, x1, [x2]
	stlxr	w0, w1, [x2]
	stxrb	w0, w1, [x2]
	stxp	w0, x1, x2, [x3]
	stlxp	w0, x1, x2, [x3]

	/* An exclusive pair is one attempt: its store is the atomic. */
	.section .other, "ax"
	ldxr	x0, [x1]
	ldaxr	w0, [x1]
	ldxp	x0, x1, [x2]
	ldar	x0, [x1]
	ldarb	w0, [x1]
	stlr	x0, [x1]
	stlrh	w0, [x1]
	ldapr	x0, [x1]
	ldr	x0, [x1]
	str	x0, [x1, #8]
	ldr	w0, [x1, x2, lsl #2]
	ldp	x0, x1, [x2]
	stp	x0, x1, [sp, #-16]!
	prfm	pldl1keep, [x0]
	add	x0, x1, x2
	nop
	isb
	hint	#0x19

	.section .barrier, "ax"
	dmb	ish
	dmb	ishst
	dmb	oshld
	dmb	sy
	dsb	sy
	dsb	ish
	dsb	nsh

	.section .marker, "ax"
	hint	#0x7f
