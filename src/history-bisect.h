/*
 * history-bisect.h - the search of `kiln bisect` (history-bisect.c), apart
 * from what builds and measures (the command's driver, or a simulation
 * over stored pexecs): which commit of a first-parent range changed a
 * key's steady state, with a sequential test at each step.
 *
 * Commits are 0 (GOOD) to n-1 (BAD).  Two commits are compared in rounds,
 * one pexec of each per round, interleaved: the evidence is the per-round
 * log ratio d = log(b / a) of their steady means.
 */
#ifndef KILN_HISTORY_BISECT_H
#define KILN_HISTORY_BISECT_H

#include <stddef.h>

#include "util.h"

/*
 * How many more rounds the test wants after seeing d[0..n) (0: it has
 * decided), of run rounds run so far (run >= n: a round whose pexec failed
 * or found no steady state has no log ratio, yet counts against the cap)
 */
typedef size_t (*bisect_more_fn)(void *ctx, const double *d, size_t n, size_t run);

struct bisect_ops {
	void *ctx;
	/* make commit i runnable: 0 built, 1 broken (skipped as git bisect skip does), -1 error (e set) */
	int (*build)(void *ctx, size_t i, struct kerr *e);
	/*
	 * Compare commits a and b in rounds: before the first round and after
	 * each batch, call more(mctx, d, n, run) with every log ratio log(b/a)
	 * so far (stored rounds of the two may come first) and the rounds run,
	 * paired or not, and run as many more rounds as it asks, until it asks
	 * none.  0, or -1 with e set.
	 */
	int (*measure)(void *ctx, size_t a, size_t b, bisect_more_fn more, void *mctx, struct kerr *e);
	/*
	 * What commit i (built) built, e.g. the SHA-256 of its VM (NULL: not
	 * known); may be NULL.  Two commits that built the same binary run the
	 * same program: a midpoint takes the verdict of a commit already
	 * judged with its binary, without a round, and GOOD and BAD of one
	 * binary have no culprit.
	 */
	const char *(*binary)(void *ctx, size_t i);
	/*
	 * Under auto_cap, a comparison's cap was raised past the first stage's
	 * to cap rounds, the rounds' log ratio varying by sd; may be NULL
	 */
	void (*capped)(void *ctx, size_t cap, double sd);
};

struct bisect_opts {
	double min_change;   /* the smallest change worth bisecting, relative (default 0.01) */
	double alpha;        /* false "they differ" of GOOD vs BAD (default 0.001) */
	double step_error;   /* wrong verdict of a midpoint (default 0.001 each way) */
	size_t batch;        /* rounds added at a time (default 5) */
	size_t max_rounds;   /* per comparison; under auto_cap, the most any comparison may take (default 10000) */
	int auto_cap;        /* (default 1) each comparison's cap from its rounds' spread: BISECT_FIRST_ROUNDS, then what its test needs */
	double huber_k;      /* the rounds' centre: Huber's M-estimate at this k (default ROBUST_HUBER_K); 0: the mean */
	double biweight_c;   /* > 0 (default ROBUST_BIWEIGHT_C): Tukey's biweight at this c from 20 rounds on, Huber's at huber_k before; 0: Huber's */
};
void bisect_opts_default(struct bisect_opts *o);

/* under auto_cap, the rounds of a comparison's first stage (kiln bisect's fixed cap before 2026-12-06) */
#define BISECT_FIRST_ROUNDS 200
/* the most rounds a comparison may take: auto_cap's ceiling, the largest kiln bisect --max-rounds */
#define BISECT_MAX_ROUNDS 10000

enum bisect_verdict { BV_GOOD, BV_BAD, BV_BROKEN, BV_UNSURE };
const char *bisect_verdict_name(enum bisect_verdict v);

struct bisect_step {
	size_t commit;
	enum bisect_verdict verdict;
	size_t same_as;         /* the verdict is that of this commit's, which built the same binary (SIZE_MAX: measured) */
	size_t rounds;
	size_t cap;             /* the rounds its test could take, at least those it ran or reused (0: no comparison) */
	double ratio, lo, hi;   /* its steady mean over GOOD's, 99% interval (NAN: broken) */
};

enum bisect_outcome {
	BISECT_FOUND,      /* culprit: the first commit like BAD */
	BISECT_NO_CHANGE,  /* GOOD and BAD do not differ by min_change: no culprit */
	BISECT_UNSURE,     /* GOOD and BAD: the test could not decide within max_rounds */
	BISECT_RANGE,      /* the change is in (lo, hi]: a midpoint could not be told, or broken builds hide it */
};

struct bisect_result {
	enum bisect_outcome outcome;
	size_t culprit;         /* BISECT_FOUND */
	size_t lo, hi;          /* the last commit known like GOOD, the first known like BAD */
	double ratio, ratio_lo, ratio_hi; /* BAD over GOOD, 99% interval */
	size_t builds, rounds;
	/*
	 * When a comparison ends undecided at the cap (BISECT_UNSURE, or
	 * BISECT_RANGE at an unsure midpoint): the sd of its rounds' log ratio
	 * and the cap at which it would decide (bisect_rounds_needed); 0 and
	 * NAN otherwise
	 */
	size_t rounds_needed;
	double round_sd;
	struct bisect_step *steps; /* GOOD vs BAD first, then each midpoint */
	size_t nsteps;
};

/* n >= 2 commits; a KEXIT_* code (0 with r filled) */
int bisect_run(size_t n, const struct bisect_opts *o, const struct bisect_ops *ops, struct bisect_result *r,
	       struct kerr *e);
void bisect_result_free(struct bisect_result *r);

/*
 * The round cap at which a comparison whose rounds' log ratio varies by sd
 * would decide: GOOD against BAD (delta 0) told "same" or "different" for
 * a change of min_change; a midpoint (delta, BAD's log level) told like
 * GOOD or like BAD in 99% of searches.  SIZE_MAX when beyond any count;
 * 0 when sd is not known (no rounds).
 */
size_t bisect_rounds_needed(const struct bisect_opts *o, double sd, double delta);

#endif
