/*
 * compare.h - what `kiln compare` (cmd-compare.c: the sides, the run) hands
 * to its summary (compare-out.c: the analysis of each side, the ratio
 * paired by round, text, Markdown and JSON).
 */
#ifndef KILN_COMPARE_H
#define KILN_COMPARE_H

#include <stdint.h>

#include "analysis.h"
#include "cmd.h"
#include "platform.h"
#include "util.h"

#define COMPARE_MAX_ROUNDS 100000
/*
 * A side's pexecs without a figure (no steady state, or too short for the
 * warmup analysis: rounds.h) leave their rounds out while they are at most
 * 1 in COMPARE_LEFT_OUT_DEN of its pexecs; more, and the side gets no
 * verdict.  A stall on a loaded machine marks a few pexecs of thousands
 * (bench/live.sh, F); a warmup that outlasts the pexecs, most of them.
 */
#define COMPARE_LEFT_OUT_DEN AN_LEFT_OUT_DEN /* the key-level analysis's rule too (analysis.h) */

/* a side: --vm NAME (a VM of the config) or --vm LABEL=PATH (a copy of one, run from PATH) */
struct side {
	const char *spec;       /* as given */
	char *label;            /* the VM's name in keys */
	char *path;             /* LABEL=PATH: PATH; NULL for NAME */
};

struct experiment;
struct compare {
	const char *config;
	struct side side[2];    /* A, B */
	int nsides;
	const char *like;       /* --like VM */
	int duet;
	const char *duet_cpus;
	long rounds;            /* --rounds (0: the config's pexecs) */
	double time_s;          /* --time (0: none) */
	const char *results, *format;
	int force, retry_failed, quiet;
	long max_pexecs;
	struct an_opts ao;      /* the analysis options (--confidence ...) */
	struct cmd_an_args args; /* CONFIG, --key, --json */
	struct experiment *ex;  /* the experiment as run: ex->vms are A and B */
	struct strvec benchs;   /* the benchmarks compared, in the config's order */
	char *results_abs;
	long want;              /* rounds wanted */
	int64_t t0;             /* the session's start (--time) */
	long have0;             /* rounds already in the results at the start */
	struct plat_pressure psi; /* the CPU pressure from where the pexecs started (platform-pressure.c) */
	double cpu_wait;        /* the share of the session some task waited for a CPU (-1: unknown) */
};

/*
 * A duet whose session had some task waiting for a CPU more than this
 * share of the time is said to be contended, in every format: its two
 * sides did not have their CPUs to themselves (docs/kiln-compare.md).
 * On this 2-CPU machine (bench/live.sh E, 30 runs each) a duet alone
 * read 12-15% (kiln itself waits while both CPUs run the pair), with
 * the bench's noisy neighbour 30-34%, when its interval was 3x wider
 * than rounds'
 */
#define COMPARE_DUET_PRESSURE 0.20

/* after the run: analysis, pairing, verdicts, printed in cp->format; an exit code */
int compare_summary(struct compare *cp);
/*
 * The CPUs' pressure during a session (psi: where its pexecs began), and
 * what it means for a duet above COMPARE_DUET_PRESSURE: the lines of the
 * text and Markdown summaries of kiln compare and kiln bench
 */
void compare_pressure_lines(struct strbuf *sb, const struct plat_pressure *psi, double cpu_wait, int duet);

#endif
