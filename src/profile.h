/*
 * profile.h - `kiln profile`: pexecs under `perf record`, their samples
 * split by iteration and classified (JIT'd code, interpreter/VM, GC,
 * compiler, kernel, other).
 *
 * Layers, each usable on its own (tests, fuzzing, annotate):
 *   pscript_*      parse `perf script` text into samples and call chains
 *                  (perfscript.h);
 *   prof_clockmap  the runner's clock mapped onto perf's, and the iteration
 *                  windows in perf's clock (from the runner, or from when
 *                  the lines arrived);
 *   prof_classify  put one frame or sample in a category by its dso,
 *                  symbol and thread;
 *   prof_report    turn samples + iteration windows of one or more pexecs
 *                  into a JSON report (overall, per pexec, per phase, per
 *                  iteration) and print it as text.
 * profile_run() (profile-run.c) does the whole command: build each pexec
 * (pexec.c), wrap it in perf record, read its result stream, read the
 * samples, report, store, plot.
 */
#ifndef KILN_PROFILE_H
#define KILN_PROFILE_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <jansson.h>

#include "perfscript.h"
#include "util.h"

/* ---- classification ---- */

enum prof_cat { PC_JIT, PC_VM, PC_GC, PC_COMPILER, PC_KERNEL, PC_OTHER, PC_N };
const char *prof_cat_name(enum prof_cat c);

struct prof_vm {
	const char *plugin;      /* "node", "java", ... or NULL */
	const char *vm_path;     /* the VM executable (resolved), NULL: unknown */
};
/* a sample's category: its leaf frame's, and its thread's (compiler and GC threads) */
enum prof_cat prof_classify(const struct prof_vm *vm, const char *comm, const char *sym, const char *dso);
/* a frame's category, without the thread: what a flame graph colours it */
enum prof_cat prof_classify_frame(const struct prof_vm *vm, const char *sym, const char *dso);
/*
 * The innermost frame of a sample's call chain that is JIT'd code (the
 * leaf, or the JIT'd caller of the VM code it called), as the categories
 * count it: the VM's own code in perf maps (HotSpot's Interpreter, stubs,
 * V8 builtins) is not.  Index into ps->frames, or -1.
 */
long prof_jit_frame(const struct prof_vm *vm, const struct pscript *ps, const struct ps_sample *s);

/* ---- iteration windows ---- */

struct prof_iter {
	int64_t start_ns, end_ns; /* same clock as the samples (perf's) */
	int64_t wall_ns;          /* as the runner measured it */
	int64_t cpu_ns;           /* the process's CPU time in the iteration (the runner's cpu_ns), -1: none */
};

/*
 * The runner's clock against CLOCK_MONOTONIC (perf's `-k mono`): pairs read
 * whenever stream data arrives, interpolated between the pairs around a
 * time.  For CLOCK_MONOTONIC itself the map is the identity.
 */
struct prof_anchor {
	int64_t clk_ns, mono_ns;
};
struct prof_clockmap {
	clockid_t clk;            /* the runner's clock, -1: not known (yet) */
	struct prof_anchor *a;
	size_t n, alloc;
};
void prof_clockmap_init(struct prof_clockmap *m);
void prof_clockmap_add(struct prof_clockmap *m, int64_t clk_ns, int64_t mono_ns);
/* read one pair now (the runner's clock between two CLOCK_MONOTONIC reads) */
void prof_clockmap_read(struct prof_clockmap *m);
/* t in the runner's clock -> CLOCK_MONOTONIC; false (0) when m cannot map */
int prof_clockmap_ok(const struct prof_clockmap *m);
int64_t prof_clockmap_map(const struct prof_clockmap *m, int64_t t);
void prof_clockmap_release(struct prof_clockmap *m);

/*
 * Iteration windows from arrival stamps: lines read in one chunk share a
 * stamp, so an earlier window may overlap the next.  Iterations run one after
 * another, so iteration i ended before i+1 began: pull such windows back.
 * Returns how many were moved.
 */
size_t prof_windows_fix(struct prof_iter *it, size_t n);

struct stream;
/*
 * The windows of a pexec's n = st->n iterations into it[n]: the runner's
 * own (start_ns/end_ns) mapped by m when use_runner, the stream has them
 * and m can map its clock; else from arrival[i] (CLOCK_MONOTONIC when
 * iteration i's line arrived), pulled apart (prof_windows_fix, *moved).
 * Returns 1 for the runner's windows, 0 for arrival stamps.
 */
int prof_windows(const struct stream *st, const int64_t *arrival, const struct prof_clockmap *m, int use_runner,
		 struct prof_iter *it, size_t *moved);

/* ---- report ---- */

/* one pexec of a profile: its samples have ps_sample.pexec == its index */
struct prof_pexec_in {
	int pid;                 /* the benchmark's process, 0: unknown */
	const struct prof_iter *iters;
	size_t niters;
	long split;              /* phases: iterations [1, split] vs the rest (1-based, inclusive) */
	const char *split_how;   /* "steady state (warmup)", "--split", ... */
	const char *windows;     /* "runner" or "arrival" */
};

struct prof_input {
	const char *key;
	const char *event;
	const struct pscript *ps;
	const struct prof_pexec_in *px;
	size_t npx;
	struct prof_vm vm;
	int top;                 /* symbols to list (overall; phases get top/2, iterations 3) */
};
/* the iteration of px whose window holds perf time t, -1: outside every window */
long prof_iter_of(const struct prof_pexec_in *px, int64_t t);
/* the pid with most samples in ps->s[from, to) (the first seen of a tie), 0: none (profile-run.c) */
int prof_main_pid(const struct pscript *ps, size_t from, size_t to);
/* px's split, within its iterations */
long prof_split_of(const struct prof_pexec_in *px);
/* the phase of iteration k (-1: outside) of px: 0 before its split, 1 after, 2 outside */
int prof_phase(const struct prof_pexec_in *px, long k);
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
	long pexecs;             /* pexecs in the profile (default 1) */
	long iterations;         /* 0: the config's */
	long split;              /* 0: from the steady state */
	const char *dir;         /* output directory */
	const char *event;       /* NULL: cycles if the machine has it, else cpu-clock */
	const char *call_graph;  /* perf record --call-graph: "fp" (NULL), "dwarf[,SIZE]", "lbr" */
	int freq;                /* 0: perf's default */
	int json;
	int top;
};
/* the whole command (profile-run.c) */
int profile_run(const struct profile_opts *o, struct kerr *e);

#endif
