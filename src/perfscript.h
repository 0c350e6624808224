/*
 * perfscript.h - reading `perf script` text into samples with their call
 * chains.
 *
 * kiln runs `perf script` twice on a recording: once with -G (one line per
 * sample: where the CPU was, whatever the unwinder managed), once with the
 * call chains.  pscript_parse() reads either form (a header with its frame
 * on one line, or a header followed by indented frames, leaf first);
 * pscript_attach_chains() then gives each sample of the first its chain
 * from the second, matched in order by time and thread, so that a sample
 * whose chain perf printed empty keeps its leaf.  Never fails on bad
 * input: what it skips is counted.  Used by kiln profile, kiln annotate and
 * the fuzzer (tests/fuzz/fuzz_perfscript.c).
 */
#ifndef KILN_PERFSCRIPT_H
#define KILN_PERFSCRIPT_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

#define PS_MAX_FRAMES 512        /* frames kept per call chain (perf's default max-stack is 127) */

struct ps_frame {
	uint64_t ip;             /* as perf printed it: in chains, relative to its dso for files */
	uint32_t sym, dso;       /* indices into pscript.strs */
};

struct ps_sample {
	int64_t t_ns;            /* perf time (CLOCK_MONOTONIC with -k mono), -1 if absent */
	int pid, tid;            /* pid -1 when the pid field was not printed */
	uint64_t ip;
	uint64_t period;         /* the event's period (ns for cpu-clock), 0 if not printed */
	uint32_t comm, sym, dso; /* indices into pscript.strs: where the sample hit (the leaf) */
	uint32_t frame0, nframes;/* the call chain in pscript.frames, leaf first; nframes 0: none */
	uint32_t pexec;          /* which pexec of a profile of several (set by the caller) */
};

struct pscript {
	struct ps_sample *s;
	size_t n, alloc;
	struct ps_frame *frames;
	size_t nframes, falloc;
	struct strmap strs;      /* interned strings (0 is "") */
	size_t bad_lines;        /* lines that were neither a sample nor a frame */
	size_t cut_chains;       /* chains longer than PS_MAX_FRAMES, cut */
};

void pscript_init(struct pscript *ps);
/*
 * Parse a whole `perf script` output, appending its samples; never fails,
 * counts what it skips.  With call chains (no -G) the first frame is the
 * leaf; frame lines after a one-line sample are its callers.
 */
void pscript_parse(struct pscript *ps, const char *buf, size_t n);
/*
 * Give the samples ps->s[from..] (parsed from `perf script -G`) the call
 * chains of the same recording printed with them (buf): the k-th sample
 * there is the k-th here when time and thread agree.  A sample whose chain
 * is empty keeps its leaf as a chain of one.  Returns how many samples had
 * no matching chain (0 when the two outputs agree).
 */
size_t pscript_attach_chains(struct pscript *ps, size_t from, const char *buf, size_t n);
void pscript_release(struct pscript *ps);
uint32_t pscript_intern(struct pscript *ps, const char *s, size_t n);
static inline const char *ps_str(const struct pscript *ps, uint32_t i) { return ps->strs.keys[i]; }

/* is this dso JIT'd code (a perf map, a jitted-*.so, [JIT], anonymous memory)? */
int prof_is_jit_dso(const char *dso);

#endif
