/*
 * runner.c - kiln-runner-c, the iteration runner of the `c` plugin.
 *
 *   kiln-runner-c BENCH.so ITERATIONS PARAM
 *
 * dlopen()s a benchmark shared object exporting `void run_iter(long param)`
 * (and, optionally, a function `long checksum(void)`, the result of the
 * last call, written as a per-pexec record after the last iteration; a
 * variable of that name, as Krun's fannkuch_redux has, is left alone),
 * then, for each iteration, reads the CPU time, the counters and the clock,
 * calls run_iter, reads them again (in the reverse order), and only then
 * writes the iteration's line to the result stream (KILN_RESULT_FD): its
 * window (the two clock reads), wall time, CPU time and counter deltas.
 * Nothing else happens between the two clock reads.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kiln.h"

typedef void (*run_iter_fn)(long);
typedef long (*checksum_fn)(void);

/*
 * The symbol `checksum` when it is a function: dlsym() also finds data
 * (Krun's fannkuch_redux keeps a global `u_int32_t checksum`), and calling
 * a variable crashes the pexec; the symbol's ELF type tells them apart.
 */
static checksum_fn checksum_of(void *h)
{
	void *p = dlsym(h, "checksum");
	Dl_info info;
	const ElfW(Sym) *sym = NULL;
	if (!p || !dladdr1(p, &info, (void **)&sym, RTLD_DL_SYMENT) || !sym)
		return NULL;
	int type = ELF64_ST_TYPE(sym->st_info);
	return type == STT_FUNC || type == STT_GNU_IFUNC ? (checksum_fn)(uintptr_t)p : NULL;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: kiln-runner-c BENCH.so ITERATIONS PARAM\n");
		return 2;
	}
	char *end;
	long iters = strtol(argv[2], &end, 10);
	if (*end || iters < 0) {
		fprintf(stderr, "kiln-runner-c: bad iteration count '%s'\n", argv[2]);
		return 2;
	}
	long param = strtol(argv[3], &end, 10);
	if (*end) {
		fprintf(stderr, "kiln-runner-c: bad param '%s' (an integer is expected)\n", argv[3]);
		return 2;
	}
	void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "kiln-runner-c: %s\n", dlerror());
		return 1;
	}
	run_iter_fn run = (run_iter_fn)(uintptr_t)dlsym(h, "run_iter");
	if (!run) {
		fprintf(stderr, "kiln-runner-c: %s has no run_iter: %s\n", argv[1], dlerror());
		return 1;
	}
	/* KILN_PROBE=1: kiln's probe before the first pexec (docs/protocol.md): loaded, nothing run */
	const char *probe = getenv("KILN_PROBE"), *rfd = getenv("KILN_RESULT_FD");
	if (probe && !strcmp(probe, "1"))
		return rfd && dprintf(atoi(rfd), "{\"kiln\":1,\"probe\":true}\n") > 0 ? 0 : 1;
	struct kiln_counters *ctr = kiln_counters_open(NULL);
	int nc = ctr ? kiln_counters_count(ctr) : 0;
	struct kiln_stream *s = kiln_stream_open(-1, ctr);
	if (!s) {
		fprintf(stderr, "kiln-runner-c: cannot open the result stream: %s\n", strerror(errno));
		return 1;
	}
	uint64_t c0[32], c1[32], d[32];
	for (long i = 0; i < iters; i++) {
		uint64_t cpu0 = kiln_cpu_ns();
		if (nc)
			kiln_counters_read(ctr, c0);
		uint64_t t0 = kiln_clock_ns();
		run(param);
		uint64_t t1 = kiln_clock_ns();
		if (nc) {
			kiln_counters_read(ctr, c1);
			for (int k = 0; k < nc; k++)
				d[k] = c1[k] - c0[k];
		}
		uint64_t cpu1 = kiln_cpu_ns();
		if (kiln_stream_iter_at(s, i, t0, t1, (int64_t)(cpu1 - cpu0), nc ? d : NULL) < 0) {
			fprintf(stderr, "kiln-runner-c: writing the result stream: %s\n", strerror(errno));
			return 1;
		}
	}
	if (kiln_stream_done(s) < 0)
		return 1;
	kiln_counters_close(ctr);
	/* the benchmark's result, for comparing implementations (after timing) */
	checksum_fn sum = checksum_of(h);
	if (sum) {
		struct kiln_instr *w = kiln_instr_open("runner");
		if (w) {
			kiln_instr_pexec(w, "checksum", (double)sum(), NULL);
			kiln_instr_close(w);
		}
	}
	return 0;
}
