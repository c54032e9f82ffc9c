// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * insn-window.c's classes (insn-classes.h) held against the assembler's encodings
 * (scripts/qemu/insn-window-test.S, built by insn-plugin.sh before the
 * plugin is used): every instruction of a section must fall in that
 * section's class.
 *
 *   insn-window-test CLASS FILE
 *
 * CLASS is atomic, barrier, marker or other; FILE holds the section's
 * instructions as raw little-endian words.  Exit status 1 on any
 * instruction classed otherwise, each named.
 */
#include <stdio.h>
#include <string.h>

#include "insn-classes.h"

static const char *classify(uint32_t op)
{
	if (is_atomic(op))
		return "atomic";
	if (is_barrier(op))
		return "barrier";
	return op == MARKER ? "marker" : "other";
}

int main(int argc, char **argv)
{
	uint32_t op;
	int n = 0, bad = 0;
	FILE *f;

	if (argc != 3 || !(f = fopen(argv[2], "rb"))) {
		fprintf(stderr, "usage: %s CLASS FILE\n", argv[0]);
		return 2;
	}
	while (fread(&op, sizeof(op), 1, f) == 1) {
		if (strcmp(classify(op), argv[1])) {
			fprintf(stderr, "insn-window-test: %s #%d (%#010x) taken for %s\n",
				argv[1], n, op, classify(op));
			bad++;
		}
		n++;
	}
	fclose(f);
	if (!n) {
		fprintf(stderr, "insn-window-test: no %s instructions\n", argv[1]);
		return 1;
	}
	return !!bad;
}
