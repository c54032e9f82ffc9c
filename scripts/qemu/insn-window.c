// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A QEMU TCG plugin (plugin API 1, QEMU 7.2) for make bench's instruction
 * counts: what the guest executes between two marker instructions, the
 * way QEMU's tests/plugin/insn.c and mem.c count (inline adds to 64-bit
 * counters, at translation), with loads, stores, atomics and barriers
 * apart.  The marker is HINT #0x7f (0xd5032fff), an unallocated hint
 * that executes as a NOP and that no kernel code contains;
 * e2e/edu_bench.h's edu_insn_mark() emits it.  At each marker, one line
 * with the counts since the previous marker:
 *
 *   fp-window: N insns=I loads=L stores=S atomics=A barriers=B
 *
 * Each window's counts hold one marker (this plugin's callback runs before
 * the marker's own count, insn.c's after it: their windows agree from the
 * second on).  insns counts every
 * instruction as insn.c does; loads and stores count memory accesses as
 * mem.c does with track=r and track=w (an LDP is two, an atomic read-
 * modify-write one of each); atomics are the LSE atomic memory
 * operations, CAS and CASP, and the store-exclusives (one per load/store-
 * exclusive attempt); barriers are DMB and DSB.  One counter set for all
 * vCPUs: the rig boots one.  With profile=on, also where each window's
 * instructions ran (below).
 *
 * Built by scripts/qemu/insn-plugin.sh against the qemu-plugin.h of
 * Debian's source of the QEMU it loads into.
 */
#include <glib.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <qemu-plugin.h>

#include "insn-classes.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

enum { C_INSNS, C_LOADS, C_STORES, C_ATOMICS, C_BARRIERS, C_NR };

static uint64_t count[C_NR], last[C_NR];
static uint64_t windows;

/*
 * With profile=on, where each window's instructions ran: a count of
 * executions per translated block (inline, at its start), kept by the
 * block's first address and length.  At each marker, every block that
 * ran at least PROFILE_MIN instructions in the window is printed:
 *
 *   fp-profile: N VADDR INSNS
 *
 * A block left before its end (an exception) counts whole.
 */
#define PROFILE_MIN	64

struct block {
	uint64_t key;		/* first address ^ length << 48 */
	uint64_t vaddr;
	uint64_t n;
	uint64_t execs, last;
};

static GHashTable *blocks;

static void profile_end(GString *out)
{
	GHashTableIter it;
	struct block *b;
	gpointer v;

	g_hash_table_iter_init(&it, blocks);
	while (g_hash_table_iter_next(&it, NULL, &v)) {
		b = v;
		if ((b->execs - b->last) * b->n >= PROFILE_MIN)
			g_string_append_printf(out, "fp-profile: %" PRIu64
					       " %" PRIx64 " %" PRIu64 "\n",
					       windows, b->vaddr,
					       (b->execs - b->last) * b->n);
		b->last = b->execs;
	}
}

static void profile_tb(struct qemu_plugin_tb *tb)
{
	uint64_t vaddr = qemu_plugin_tb_vaddr(tb);
	uint64_t n = qemu_plugin_tb_n_insns(tb);
	uint64_t key = vaddr ^ n << 48;
	struct block *b = g_hash_table_lookup(blocks, &key);

	if (!b) {
		b = g_new0(struct block, 1);
		b->key = key;
		b->vaddr = vaddr;
		b->n = n;
		g_hash_table_insert(blocks, &b->key, b);
	}
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &b->execs, 1);
}

static void window_end(unsigned int cpu_index, void *udata)
{
	g_autoptr(GString) out = g_string_new(NULL);
	uint64_t d[C_NR];
	int c;

	if (blocks)
		profile_end(out);

	for (c = 0; c < C_NR; c++) {
		d[c] = count[c] - last[c];
		last[c] = count[c];
	}
	g_string_append_printf(out,
			"fp-window: %" PRIu64 " insns=%" PRIu64 " loads=%" PRIu64
			" stores=%" PRIu64 " atomics=%" PRIu64 " barriers=%" PRIu64 "\n",
			windows++, d[C_INSNS], d[C_LOADS], d[C_STORES],
			d[C_ATOMICS], d[C_BARRIERS]);
	qemu_plugin_outs(out->str);
}

static void add(struct qemu_plugin_insn *insn, int c)
{
	qemu_plugin_register_vcpu_insn_exec_inline(insn,
						   QEMU_PLUGIN_INLINE_ADD_U64,
						   &count[c], 1);
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb), k;

	if (blocks)
		profile_tb(tb);
	for (k = 0; k < n; k++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, k);
		uint32_t op = 0;

		add(insn, C_INSNS);
		qemu_plugin_register_vcpu_mem_inline(insn, QEMU_PLUGIN_MEM_R,
						     QEMU_PLUGIN_INLINE_ADD_U64,
						     &count[C_LOADS], 1);
		qemu_plugin_register_vcpu_mem_inline(insn, QEMU_PLUGIN_MEM_W,
						     QEMU_PLUGIN_INLINE_ADD_U64,
						     &count[C_STORES], 1);
		if (qemu_plugin_insn_size(insn) != sizeof(op))
			continue;
		memcpy(&op, qemu_plugin_insn_data(insn), sizeof(op));
		if (is_atomic(op))
			add(insn, C_ATOMICS);
		else if (is_barrier(op))
			add(insn, C_BARRIERS);
		else if (op == MARKER)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, window_end,
							       QEMU_PLUGIN_CB_NO_REGS,
							       NULL);
	}
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	bool profile = false;

	if (argc > 1 || (argc &&
	    (strncmp(argv[0], "profile=", 8) ||
	     !qemu_plugin_bool_parse("profile", argv[0] + 8, &profile)))) {
		fprintf(stderr, "insn-window: the one option is profile=on|off\n");
		return -1;
	}
	if (profile)
		blocks = g_hash_table_new(g_int64_hash, g_int64_equal);
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	return 0;
}
