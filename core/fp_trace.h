/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * flushpol tracepoints: what io-pgtable asked for (walk, gather, flush_all),
 * each command the policy decided to send, and each sync.
 *
 *   perf record -e 'flushpol:*'   or   trace-cmd record -e flushpol
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM flushpol

#if !defined(_FP_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _FP_TRACE_H

#include <linux/tracepoint.h>

/* Fixed arrays rather than __string(): one definition for 6.1 and 6.12. */
#define FP_TRACE_NAME	32

TRACE_EVENT(flushpol_walk,
	TP_PROTO(const char *ctx, const char *policy, unsigned long iova,
		 size_t size, size_t granule),
	TP_ARGS(ctx, policy, iova, size, granule),
	TP_STRUCT__entry(
		__array(char, ctx, FP_TRACE_NAME)
		__array(char, policy, FP_TRACE_NAME)
		__field(unsigned long, iova)
		__field(size_t, size)
		__field(size_t, granule)
	),
	TP_fast_assign(
		strscpy(__entry->ctx, ctx, FP_TRACE_NAME);
		strscpy(__entry->policy, policy, FP_TRACE_NAME);
		__entry->iova = iova;
		__entry->size = size;
		__entry->granule = granule;
	),
	TP_printk("%s policy=%s iova=0x%lx size=0x%zx granule=0x%zx",
		  __entry->ctx, __entry->policy, __entry->iova, __entry->size,
		  __entry->granule)
);

TRACE_EVENT(flushpol_gather,
	TP_PROTO(const char *ctx, const char *policy, unsigned long start,
		 unsigned long end, size_t pgsize),
	TP_ARGS(ctx, policy, start, end, pgsize),
	TP_STRUCT__entry(
		__array(char, ctx, FP_TRACE_NAME)
		__array(char, policy, FP_TRACE_NAME)
		__field(unsigned long, start)
		__field(unsigned long, end)
		__field(size_t, pgsize)
	),
	TP_fast_assign(
		strscpy(__entry->ctx, ctx, FP_TRACE_NAME);
		strscpy(__entry->policy, policy, FP_TRACE_NAME);
		__entry->start = start;
		__entry->end = end;
		__entry->pgsize = pgsize;
	),
	TP_printk("%s policy=%s start=0x%lx end=0x%lx pgsize=0x%zx",
		  __entry->ctx, __entry->policy, __entry->start, __entry->end,
		  __entry->pgsize)
);

TRACE_EVENT(flushpol_flush_all,
	TP_PROTO(const char *ctx, const char *policy),
	TP_ARGS(ctx, policy),
	TP_STRUCT__entry(
		__array(char, ctx, FP_TRACE_NAME)
		__array(char, policy, FP_TRACE_NAME)
	),
	TP_fast_assign(
		strscpy(__entry->ctx, ctx, FP_TRACE_NAME);
		strscpy(__entry->policy, policy, FP_TRACE_NAME);
	),
	TP_printk("%s policy=%s", __entry->ctx, __entry->policy)
);

TRACE_EVENT(flushpol_inv,
	TP_PROTO(const char *ctx, const char *cmd, unsigned long iova,
		 size_t size, unsigned long ncmds),
	TP_ARGS(ctx, cmd, iova, size, ncmds),
	TP_STRUCT__entry(
		__array(char, ctx, FP_TRACE_NAME)
		__array(char, cmd, FP_TRACE_NAME)
		__field(unsigned long, iova)
		__field(size_t, size)
		__field(unsigned long, ncmds)
	),
	TP_fast_assign(
		strscpy(__entry->ctx, ctx, FP_TRACE_NAME);
		strscpy(__entry->cmd, cmd, FP_TRACE_NAME);
		__entry->iova = iova;
		__entry->size = size;
		__entry->ncmds = ncmds;
	),
	TP_printk("%s cmd=%s iova=0x%lx size=0x%zx commands=%lu",
		  __entry->ctx, __entry->cmd, __entry->iova, __entry->size,
		  __entry->ncmds)
);

TRACE_EVENT(flushpol_sync,
	TP_PROTO(const char *ctx, int ret),
	TP_ARGS(ctx, ret),
	TP_STRUCT__entry(
		__array(char, ctx, FP_TRACE_NAME)
		__field(int, ret)
	),
	TP_fast_assign(
		strscpy(__entry->ctx, ctx, FP_TRACE_NAME);
		__entry->ret = ret;
	),
	TP_printk("%s ret=%d", __entry->ctx, __entry->ret)
);

#endif /* _FP_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE fp_trace
#include <trace/define_trace.h>
