/*
 * profile.h - `kiln profile`: one pexec under `perf record`, its samples
 * split by iteration and classified (JIT'd code, interpreter/VM, GC,
 * compiler, kernel, other).
 *
 * Three layers, each usable on its own (tests, fuzzing, annotate):
 *   pscript_*   parse `perf script` text (one line per sample with -G, or a
 *               header followed by an indented call chain) into samples;
 *   prof_classify  put one sample in a category by its dso, symbol and thread;
 *   prof_report    turn samples + iteration windows into a JSON report
 *               (overall, per phase, per iteration) and print it as text.
 * profile_run() does the whole command: build the pexec (pexec.c), wrap it
 * in perf record, timestamp the result stream as it arrives, read the
 * samples, report, store, plot.
 */
#ifndef KILN_PROFILE_H
#define KILN_PROFILE_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "util.h"

/* ---- perf script samples ---- */

struct ps_sample {
	int64_t t_ns;            /* perf time (CLOCK_MONOTONIC with -k mono), -1 if absent */
	int pid, tid;            /* pid -1 when the pid field was not printed */
	uint64_t ip;
	uint32_t comm, sym, dso; /* indices into pscript.strs: where the sample hit (the leaf) */
	uint32_t jsym, jdso;     /* the innermost frame of the call chain in JIT'd code (the leaf
				    itself, or the JIT'd caller of the VM code that was hit); 0: none */
};

struct pscript {
	struct ps_sample *s;
	size_t n, alloc;
	struct strvec strs;      /* interned strings (0 is "") */
	uint32_t *htab;          /* open addressing over strs, size hcap */
	size_t hcap;
	size_t bad_lines;        /* lines that were neither a sample nor a frame */
};

void pscript_init(struct pscript *ps);
/*
 * Parse a whole `perf script` output; never fails, counts what it skips.
 * With call chains (no -G) the first frame is the leaf and the chain is
 * searched for the innermost JIT'd frame.
 */
void pscript_parse(struct pscript *ps, const char *buf, size_t n);
void pscript_release(struct pscript *ps);
static inline const char *ps_str(const struct pscript *ps, uint32_t i) { return ps->strs.v[i]; }

/* ---- classification ---- */

enum prof_cat { PC_JIT, PC_VM, PC_GC, PC_COMPILER, PC_KERNEL, PC_OTHER, PC_N };
const char *prof_cat_name(enum prof_cat c);

struct prof_vm {
	const char *plugin;      /* "node", "java", ... or NULL */
	const char *vm_path;     /* the VM executable (resolved), NULL: unknown */
};
enum prof_cat prof_classify(const struct prof_vm *vm, const char *comm, const char *sym, const char *dso);
/* is this dso JIT'd code (a perf map, a jitted-*.so, [JIT], anonymous memory)? */
int prof_is_jit_dso(const char *dso);

/* ---- report ---- */

struct prof_iter {
	int64_t start_ns, end_ns; /* same clock as the samples */
	int64_t wall_ns;
};

/*
 * Iteration windows from arrival stamps: lines read in one chunk share a
 * stamp, so an earlier window may overlap the next.  Iterations run one after
 * another, so iteration i ended before i+1 began: pull such windows back.
 * Returns how many were moved.
 */
size_t prof_windows_fix(struct prof_iter *it, size_t n);

struct prof_input {
	const char *key;
	const char *event;
	int pid;                 /* the benchmark's process, 0: unknown */
	const struct pscript *ps;
	const struct prof_iter *iters;
	size_t niters;
	long split;              /* phases: iterations [1, split] vs the rest (1-based, inclusive) */
	const char *split_how;   /* "steady state (warmup)", "--split", ... */
	struct prof_vm vm;
	int top;                 /* symbols to list (overall; phases get top/2, iterations 3) */
};
/* the report as JSON (caller decrefs) */
json_t *prof_report(const struct prof_input *in);
/* the report as text */
void prof_print(FILE *f, const json_t *rep);
/* per-iteration stacked plot: DIR/profile.dat, DIR/profile.gp, DIR/profile.svg via gnuplot */
int prof_plot(const json_t *rep, const char *dir, struct kerr *e);

/* ---- the command ---- */

struct profile_opts {
	const char *config;
	const char *key;
	long iterations;         /* 0: the config's */
	long split;              /* 0: from the steady state */
	const char *dir;         /* output directory */
	const char *event;       /* NULL: cycles if the machine has it, else cpu-clock */
	int freq;                /* 0: perf's default */
	int json;
	int top;
};
int profile_run(const struct profile_opts *o, struct kerr *e);

#endif
