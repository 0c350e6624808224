/*
 * analysis-robust.h - where kiln's default warmup analysis departs from
 * warmup_stats, for the series real VMs produce (issue 26;
 * docs/analysis.md "Parity" lists each departure with its measured
 * effect).  analysis.c calls these from its per-pexec and per-key steps
 * unless --replicate-warmup-stats is given; nothing here calls back into
 * analysis.c (a re-analysis it needs comes as a callback).
 *
 *   spikes        an isolated pause is an outlier wherever it lies, the
 *                 first iterations included when the rest of the pexec
 *                 shows pauses as large (anr_early_spikes);
 *   autocorrelation  the changepoint penalty and the equivalence test are
 *                 scaled by the variance inflation the autocorrelation of
 *                 the key's noise implies (anr_ac_tau);
 *   equivalence   a segment within the noise of the reference segment is
 *                 equivalent to it, whatever delta says (anr_same_level);
 *   drift         a trend in the steady part larger than delta and
 *                 significant is no steady state (anr_trend, anr_key_drift);
 *   short series  a steady part whose first iterations lie far above all
 *                 the rest of it, or, when the outlier window is too short
 *                 to examine anything, any iteration far above it: the
 *                 series was too short for the method to separate them,
 *                 and how many iterations would do (anr_excursion,
 *                 anr_short_need).
 */
#ifndef KILN_ANALYSIS_ROBUST_H
#define KILN_ANALYSIS_ROBUST_H

#include <stddef.h>

#include "analysis.h"

/*
 * The outlier band's spread in the default method: P75 - P25 (warmup_stats:
 * P90 - P10, which three pauses in a window of 20 inflate until none of
 * them is an outlier).
 */
#define ANR_OUT_PLO 25.0
#define ANR_OUT_PHI 75.0

/*
 * The first h iterations, which warmup_stats never calls outliers (their
 * window leans on the warmup).  A slow one there is warmup or a pause, and
 * one pexec cannot tell which; its key can: warmup comes back at the same
 * iteration in pexec after pexec, pauses come at random.  So, per pexec,
 * the candidates: iterations i < h above median + k * IQR of x[0, 2h), with
 * their excess over that median, and the later outliers' count and largest
 * excess over their own window's median (anr_early_find).  Then, over the
 * key's pexecs (anr_early_decide), an iteration is systematic when more
 * pexecs have a candidate there than the later outliers' rate makes
 * likely (binomial, ANR_EARLY_ALPHA); a candidate at an iteration that is
 * not systematic, and no more than ANR_EARLY_RATIO times the largest later
 * excess of any pexec of the key, is a pause: an outlier.  A key without
 * later outliers has no pauses to compare with: its candidates stay.
 */
#define ANR_EARLY_ALPHA 0.001
#define ANR_EARLY_RATIO 4.0
struct anr_early {
	size_t *cand;       /* candidates, ascending */
	double *excess;
	char *pause;        /* per candidate: an outlier (set by anr_early_decide) */
	size_t ncand;
	double top;         /* largest excess of a later outlier (-INFINITY: none) */
	size_t nlater, span; /* later outliers, and the iterations they were sought in */
};
/* the candidates of x[0, n), whose outliers at h and after are out[0, nout) */
void anr_early_find(const double *x, size_t n, size_t h, double k, const size_t *out, size_t nout,
		    struct anr_early *e);
/* which candidates of the key's np pexecs are pauses */
void anr_early_decide(struct anr_early *e, size_t np);
/* *out[0, nout) with the pauses added, ascending (reallocated); returns the count */
size_t anr_early_merge(const struct anr_early *e, size_t **out, size_t nout);
void anr_early_free(struct anr_early *e);

/*
 * The factor tau by which autocorrelation of a key's noise inflates the
 * variance of a mean: (1 + phi) / (1 - phi) for the lag-1 autocorrelation
 * phi of the residuals about a line fitted in each segment of a first cut
 * (PELT at the plain penalty), pooled over the key's pexecs.  A step is
 * its own segment and a trend its own line, so neither looks like
 * autocorrelation; a wander that PELT cut into segments still does, if
 * less (the lines soak up part of it).  phi counts when it is beyond
 * ANR_PHI_Z standard errors of zero (1 / sqrt(pairs)) and ANR_PHI_MIN.
 * anr_ac_add adds one pexec's residuals: y[0, m) cut at ends[0, ns).
 */
#define ANR_PHI_Z 3.0
#define ANR_PHI_MIN 0.2
#define ANR_PHI_MAX 0.95
struct anr_ac {
	double phi_sum;   /* sum over pexecs of pairs * phi */
	size_t pairs;
};
void anr_ac_add(const double *y, size_t m, const size_t *ends, size_t ns, struct anr_ac *ac);
double anr_ac_tau(const struct anr_ac *ac);

/*
 * Two segments (means, MLE variances, counts of the values they were
 * taken from) are at the same level within their noise: the difference of
 * the means is within ANR_EQ_Z standard errors, the variance inflated by
 * tau.
 */
#define ANR_EQ_Z 4.0
int anr_same_level(double m1, double v1, size_t n1, double m2, double v2, size_t n2, double tau);

/*
 * The linear trend of y[from, m) against the original indices idx[]:
 * slope per iteration relative to the mean level, the span (iterations
 * from the first to the last value), z, the slope over its standard error
 * with the residuals' lag-1 autocorrelation accounted for, and the
 * effective degrees of freedom that leaves.  `fit` is how much better the
 * line fits than one step (the best single change of mean), in residual
 * variances (SSE_step - SSE_line) / s^2: negative, an undetected change of
 * level, which is no trend.  0 if there are fewer
 * than ANR_TREND_MIN values (*t untouched), 1 otherwise.
 */
#define ANR_TREND_MIN 10
struct anr_trend {
	double rate;   /* relative change per iteration */
	double z, df;
	double fit;
	size_t span;
};
int anr_trend(const double *y, const size_t *idx, size_t from, size_t m, struct anr_trend *t);
/*
 * A pexec's trend is drift when the line fits better than a step by
 * ANR_DRIFT_FIT residual variances (the step has its place to choose, so
 * it fits noise better than the line does: a margin), its z is beyond the
 * t quantile of ANR_DRIFT_ALPHA (two-sided), and it changes the level by
 * more than delta over its span.
 */
#define ANR_DRIFT_ALPHA 1e-4
#define ANR_DRIFT_FIT 4.0
int anr_is_drift(const struct anr_trend *t, double level, double delta);

/*
 * Where a warmup's tail ends.  A gradual warmup (a JIT's tiers: an
 * exponential decay) has no last step: PELT puts the steady state's start
 * where the remaining excess is still above delta, and the steady part
 * then trends.  That trend stops, where a drift goes on: the steady level
 * is the median of the region's second half, and the tail ends after the
 * last block of `win` values whose median is off that level by more than
 * delta and than ANR_TAIL_Z standard errors of a block's median (the
 * second half's spread, (P75 - P25) / 1.349, inflated by tau), when the
 * median of what lies before is off the level too; medians, so that a
 * pause or a heavy tail makes no tail.  A region of fewer than 8 blocks
 * has none.
 * y[from, m) are the region's values without outliers.  Returns the index
 * in y where the steady state starts, `from` when there is no tail.
 */
#define ANR_TAIL_Z 4.0
size_t anr_tail_end(const double *y, size_t from, size_t m, double delta, size_t win, double tau);

/*
 * A key's pexecs' trends together (the pexec the independent unit): the
 * mean of their rates, its interval at the options' confidence (t over
 * pexecs), and drift when that interval excludes 0 at ANR_KEY_DRIFT_CONF
 * the mean change over the mean span exceeds the pexecs' relative delta,
 * and the trend goes on: the mean of the trends over the second halves of
 * the pexecs' spans has the same sign and its interval at the options'
 * confidence excludes 0 (a warmup's tail or a step PELT missed is all in
 * the first half).  Sets k->drift_* and, on drift, AN_WARN_DRIFT.
 */
#define ANR_KEY_DRIFT_CONF 0.999
void anr_key_drift(struct an_key *k, const struct an_opts *o);

/*
 * The short-series test on a pexec's steady part [s, n) (outliers out[0,
 * nout)), with its band median + k * 2 (P50 - P25) (upward excursions do
 * not widen it): the last iteration, no outlier, above the band, far
 * enough above the median to move the steady part's mean by more than
 * delta on its own (an excursion that matters), and, when
 * the outlier window could examine the series (`examined`), among the
 * first `lead` and above everything after those by k times the spread too;
 * when it could not (a window of fewer than ANR_SHORT_WINDOW iterations),
 * anywhere.  -1 when none.
 */
#define ANR_SHORT_WINDOW 4
long anr_excursion(const double *x, size_t n, size_t s, size_t lead, int examined, const size_t *out, size_t nout,
		   double k, double delta);
/*
 * How many iterations the method would need to separate such an
 * excursion: the series extended by a seeded resample of its steady part
 * after the excursion, in steps of x1.5, until `still_short` (a full
 * re-analysis) says no; -1 past ANR_SHORT_CAP iterations.
 */
#define ANR_SHORT_CAP 5000
long anr_short_need(const double *x, size_t n, size_t from, uint64_t seed,
		    int (*still_short)(const double *x, size_t n, void *ctx), void *ctx);

/*
 * What every output format says of a key's warnings (AN_WARN_*), one
 * sentence per bit set, to out (each ended by '\n'); returns how many.
 */
int an_warn_text(const struct an_key *k, struct strbuf *out);
/* what every output format says of a key's pexecs left out (an_left_out), to out; 0: none are */
int an_left_out_text(const struct an_key *k, struct strbuf *out);

#endif
