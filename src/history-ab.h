/*
 * history-ab.h - two commits of a VM measured against each other, in
 * interleaved rounds, into the history (history-ab.c): what `kiln bisect`
 * and `kiln track --compare` build and measure with.  This is the one
 * function to swap for the rounds of `kiln compare` when they land.
 */
#ifndef KILN_HISTORY_AB_H
#define KILN_HISTORY_AB_H

#include "history-detect.h"
#include "history-track.h"

struct ab_ctx {
	const struct track_opts *o;  /* config, repo, history, machine, --benchmarks/--key, analysis, quiet */
	char *text;                  /* the config's text */
	char config_hash[65];
	struct history *h;
	long machine;
	char *machine_name;
	char *dir;                   /* <history>.work/ab: a checkout per commit, the sessions' results files */
	size_t builds;               /* builds run (a commit known broken is not built again) */
	struct strvec built;         /* commit hash, then the SHA-256 of the VMs it built, for each built */
	enum hist_what series;       /* what a round's d compares (ab_keys): HIST_STEADY (0, the default), WARMUP or COST */
};

/*
 * per key (bench:vm:variant, the config's VM names), per round the two
 * steady means and d, the difference of b's and a's figures in the
 * context's series (hist_pexec_figure): log(b/a) of the steady means, or
 * of 1 + time to steady in steady iterations, or of asinh(warmup cost /
 * steady mean).  A round whose figure either pexec lacks is left out.
 */
/* a pexec's figures: steady mean, time to steady and warmup cost, seconds (NAN: none) */
struct ab_fig {
	double steady, tts, cost;
};

struct ab_keys {
	size_t n;
	char **key;
	double **d;         /* nd[k] differences */
	double **a, **b;    /* the rounds' steady means of a and of b (seconds) */
	struct ab_fig **fa, **fb; /* the rounds' pexecs' figures, a's and b's */
	size_t *nd;
	size_t rounds;      /* rounds run, stored ones included: a key's nd is fewer where a pexec failed or had no steady state */
};
void ab_keys_free(struct ab_keys *k);

/* how many more rounds, having seen k (0: enough) */
typedef size_t (*ab_more_fn)(void *ctx, const struct ab_keys *k);

int ab_open(struct ab_ctx *c, const struct track_opts *o, struct kerr *e);
void ab_close(struct ab_ctx *c);
/* commit x checked out in its own folder and built: 0 built, 1 broken (recorded), -1 error */
int ab_build(struct ab_ctx *c, const struct hist_commit *x, struct kerr *e);
/* the SHA-256 of the VMs commit hash built (ab_build), NULL: not built here */
const char *ab_binary(const struct ab_ctx *c, const char *hash);
/*
 * Commits a and b (both built) measured in interleaved rounds, one pexec of
 * each key of each per round: the rounds of earlier sessions of the two
 * stored in the history first, then as many more as more() asks, each
 * session folded into the history (two `ab` runs).  out: every round's
 * difference in c->series per key.  A KEXIT_* code.
 */
int ab_measure(struct ab_ctx *c, const struct hist_commit *a, const struct hist_commit *b, ab_more_fn more, void *mctx,
	       struct ab_keys *out, struct kerr *e);

/*
 * b's warm-up against a's over n rounds (a[i] and b[i] ran in round i): the
 * centre of the rounds' differences of log(1 + time to steady / steady
 * mean), Tukey's biweight (Huber's below 20 rounds) with a 99% t interval,
 * as exp: b's 1 + warm-up over a's.  longer: the interval above 1 and the
 * ratio above 1 + threshold; shorter alike below.  NAN ratio: too few rounds.
 */
struct ab_warm {
	double ratio, lo, hi;
	size_t n;            /* rounds with both figures */
	int longer, shorter;
};
struct ab_warm ab_judge_warm(const struct ab_fig *a, const struct ab_fig *b, size_t n, double threshold);

#endif
