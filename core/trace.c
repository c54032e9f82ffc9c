// SPDX-License-Identifier: GPL-2.0-only
/* Instantiates the tracepoints declared in fp_trace.h. */
#include "fp_core.h"

#define CREATE_TRACE_POINTS
#include "fp_trace.h"
