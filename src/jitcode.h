/*
 * jitcode.h - the JIT'd code of VMs that write no perf map or jitdump of
 * their own (PyPy, LuaJIT), from what they log, named by loop or trace
 * with its source location, for kiln profile and kiln annotate.
 *
 *   PYPYLOG jit-backend-addr   "Loop 4 (g;/b/bench.py:6-8~#12 FOR_ITER) has address A to B
 *                               (bootstrap C)" and its function/end lines; bridges
 *                               "bridge out of Guard G has address A to B"
 *   PYPYLOG jit-backend-dump   "CODE_DUMP @BASE +OFFSET HEXBYTES": the machine code, as
 *                               written and as later patched (the final code is kept)
 *   PYPYLOG jit-log-opt        which loop each guard is in, where each bridge starts
 *   luajit-traces.jsonl        one line per trace the LuaJIT runner saw stop
 *                               (jit.attach + jit.util.tracemc/funcinfo): number, parent
 *                               trace and exit, start's source:line, address, size, code
 *
 * The result is a table of code regions (address, size, name, load time in
 * perf's clock, code bytes), written as a jitdump (JIT_CODE_LOAD records,
 * for `perf inject --jit` and kiln annotate) and a perf map, and used to
 * name samples directly.  Both inputs come from the benchmark: every
 * length and count is bounded, a bad line is an error naming it.
 */
#ifndef KILN_JITCODE_H
#define KILN_JITCODE_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

#define JC_MAX_ENTRIES 1000000       /* code regions in one table */
#define JC_MAX_NAME 1024             /* bytes of one name */
#define JC_MAX_CODE ((size_t)16 << 20) /* bytes of one region */
#define JC_MAX_TOTAL_CODE ((uint64_t)512 << 20) /* bytes of all regions of one table (each holds its bytes) */

struct jc_entry {
	uint64_t addr, size;
	int64_t t_ns;            /* when it was made, in perf's clock; -1: unknown (from the start) */
	char *name;              /* "pypy:Loop 4 (g;/b/bench.py:6-8~#12 FOR_ITER)", "luajit:trace 3 (@b.lua:45)" */
	uint8_t *code;           /* size bytes, NULL: not known */
	uint32_t index;          /* order of making (the jitdump's code_index) */
};

struct jitcode {
	struct jc_entry *v;
	size_t n, alloc;
	size_t dumps;            /* code dumps read (PyPy) */
	size_t missing_bytes;    /* code bytes no dump covered (left as int3) */
	uint32_t *by_addr;       /* jitcode_index: entries by address */
	uint64_t max_size;
	uint64_t code_bytes;     /* sum of the regions' sizes, at most JC_MAX_TOTAL_CODE */
};

/* ticks of a PYPYLOG to nanoseconds of the runner's clock: ns = ns0 + (tick - tick0) * ns_per_tick */
struct jc_ticks {
	double ns_per_tick;
	int64_t tick0, ns0;
	int valid;
};

void jitcode_init(struct jitcode *jc);
void jitcode_free(struct jitcode *jc);
/*
 * A PYPYLOG with the jit-backend-addr, jit-backend-dump and jit-log-opt
 * sections (name for messages).  Load times come from the sections' ticks
 * through t (when valid), in the runner's clock: map them with
 * jitcode_map_times.  FILE:LINE errors, exit code 3.
 */
int jitcode_parse_pypylog(const char *name, const char *buf, size_t n, const struct jc_ticks *t,
			  struct jitcode *jc, struct kerr *e);
/* the LuaJIT runner's luajit-traces.jsonl (t_ns in the runner's clock) */
int jitcode_parse_luajit(const char *name, const char *buf, size_t n, struct jitcode *jc, struct kerr *e);
/* every load time through map (the runner's clock to perf's), ctx its state */
void jitcode_map_times(struct jitcode *jc, int64_t (*map)(const void *ctx, int64_t t), const void *ctx);
/* index the table for jitcode_lookup (after the last change) */
void jitcode_index(struct jitcode *jc);
/* the region holding ip at time t (t < 0: any): the latest made before t */
const struct jc_entry *jitcode_lookup(const struct jitcode *jc, uint64_t ip, int64_t t);
/* the table as a jitdump of process pid (x86-64), only the entries whose keep[index] is set (NULL: all), and as a perf map */
int jitcode_write_jitdump(const struct jitcode *jc, uint32_t pid, const unsigned char *keep, const char *path,
			  struct kerr *e);
int jitcode_write_perfmap(const struct jitcode *jc, const char *path, struct kerr *e);

#endif
