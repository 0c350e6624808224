/*
 * stats.h - the statistics behind kiln's verdicts (issue 25,
 * docs/statistics.md): the interval of a mean, what a sample's shape says
 * about its mean, the median with a distribution-free interval, the ratio
 * of two means (unpaired, and paired by round) and the smallest change a
 * comparison could have seen.
 *
 * The independent unit is the pexec: a whole-process key's values are its
 * process times, an in-process key's its pexecs' steady means.  One pexec
 * has no between-process error: ks_mean_series() then gives a
 * within-process interval (batch means) and says so (KS_WITHIN).
 *
 * Everything here is a pure function of its arguments (no random numbers,
 * no global state): the same data give the same interval on every machine.
 * Each method's measured coverage or false-alarm rate is in
 * docs/statistics.md and comes from bench/stats (make bench); a small
 * deterministic version runs in make test (tests/unit/test_stats_core.c).
 *
 * Not to be confused with plugins/stats/stats.h (the Pyston `name: value`
 * parser): this header's names start with ks_ and its guard differs.
 */
#ifndef KILN_SRC_STATS_H
#define KILN_SRC_STATS_H

#include <stddef.h>

struct strbuf;

/*
 * What a sample's shape says about its mean: bits of ks_mean.shape.  Each
 * is a test or a rule on the sample, with its false-flag rate on normal data
 * measured (docs/statistics.md).  The first four say "the mean may be the
 * wrong question; read the median beside it".
 */
enum ks_shape {
	KS_SKEWED = 1u << 0,   /* skewness significant (D'Agostino, 1%) and Cochran's rule n > 25 G1^2 broken */
	KS_HEAVY = 1u << 1,    /* tails heavier than normal: kurtosis significant (Anscombe-Glynn, 0.5%) */
	KS_MODES = 1u << 2,    /* a second mode: groups of values split by a gap wider than their spread */
	KS_OUTLIERS = 1u << 3, /* values a normal sample would not show: Rosner's generalized ESD test, 0.5% */
	KS_CONSTANT = 1u << 4, /* all values equal: no spread, the interval says nothing of what did not occur */
	KS_FEW = 1u << 5,      /* too few values (n < 8) to test the shape at all */
	KS_WITHIN = 1u << 6,   /* one pexec: the interval covers within-process noise only (ks_mean_series) */
};
/* the bits that make "the mean may be the wrong question" */
#define KS_SHAPE_WARN (KS_SKEWED | KS_HEAVY | KS_MODES | KS_OUTLIERS)
/* every bit an output warns of (the shape, and what limits the interval) */
#define KS_WARN (KS_SHAPE_WARN | KS_CONSTANT | KS_FEW | KS_WITHIN)
#define KS_NSHAPES 7

/* the interval of a mean and what else the sample says */
struct ks_mean {
	size_t n;             /* values (ks_mean_series: batches) */
	double mean, sd, se;  /* sd with n - 1; se = sd / sqrt(n) */
	double lo, hi;        /* the conf interval of the mean (NAN when n < 2) */
	double df;            /* degrees of freedom of the t quantile used */
	double skew, kurt;    /* adjusted sample skewness G1 and excess kurtosis G2 (NAN when n < 3, n < 4) */
	double median;        /* the sample median */
	double med_lo, med_hi; /* a distribution-free interval of the median: order statistics */
	double med_conf;      /* that interval's exact coverage (>= conf when n allows; else the best there is) */
	size_t noutliers;     /* how many values the outlier test found */
	/*
	 * What n values cannot rule out: a behaviour (a slow mode, a stall)
	 * that happens in a share `unseen` of runs or less may not have shown
	 * at all in n runs, at level conf: 1 - (1 - conf)^(1/n).
	 */
	double unseen;
	unsigned shape;       /* enum ks_shape bits */
};

/*
 * The conf-level interval of the mean of x[0..n) (independent values): the
 * union of the t interval and Hall's (1992) skewness-corrected t interval
 * (t alone below 8 values; never below 0 for values that are not), with
 * the shape tests, the median and its interval (docs/statistics.md says
 * why and what it covers).  n == 1: the mean, no interval (NAN).
 */
void ks_mean(const double *x, size_t n, double conf, struct ks_mean *out);
/*
 * The same for one autocorrelated series (the steady iterations of a key's
 * only pexec): non-overlapping batch means, each batch ten integrated
 * autocorrelation times long (Geyer's estimate; 4 to 32 batches), then
 * ks_mean on the batch means; the mean is the series' own.  Sets KS_WITHIN.
 */
void ks_mean_series(const double *x, size_t n, double conf, struct ks_mean *out);
/*
 * The batch means ks_mean_series uses: into out (room for n), returns how
 * many.  Fewer than 64 values: the values themselves.
 */
size_t ks_batch_means(const double *x, size_t n, double *out);
/*
 * The distribution-free interval of the median of sorted s[0..n): the order
 * statistics (s[k], s[n-1-k]) with the largest k whose coverage
 * 1 - 2 P(Binomial(n, 1/2) <= k) is >= conf (k = 0 when none is: then *cover
 * says how much [min, max] covers).  n == 0: NANs.
 */
void ks_median_ci(const double *s, size_t n, double conf, double *lo, double *hi, double *cover);
/* one word per shape bit, for CSV/JSON: "skewed", "heavy-tailed", "bimodal", "outliers", "constant", "few", "within-process" */
const char *ks_shape_name(unsigned bit);
/* the set bits' words joined by sep ("skewed;outliers"); nothing when none */
void ks_shape_words(unsigned shape, const char *sep, struct strbuf *out);
/*
 * One sentence for a human on what m's shape means for its mean (empty when
 * nothing is flagged), naming the median and its interval in the unit the
 * caller formats: fmt_value(sb, v) adds a value (NULL: %g).
 */
void ks_shape_text(const struct ks_mean *m, void (*fmt_value)(struct strbuf *, double), struct strbuf *out);

/* B/A: the ratio of two means, with its interval and what it could have detected */
struct ks_ratio {
	double ratio;         /* mean(B) / mean(A) */
	double lo, hi;        /* conf interval; hi = INFINITY when the set is unbounded (A's mean not clear of 0) */
	double se;            /* standard error of log(ratio) (delta method) */
	double df;            /* degrees of freedom (unpaired: the smaller side's n - 1; paired: rounds - 1) */
	/*
	 * The minimum detectable effect: the smallest relative change, as a
	 * fraction (0.021 = 2.1%), that a comparison of this many values with
	 * this spread finds significant at level conf with probability `power`
	 * (ks_mde, power 0.8), either way.
	 */
	double mde;
	int ok;               /* 0: no ratio (fewer than 2 values a side, a mean <= 0, a non-finite value) */
};

/*
 * The ratio of the means of two independent samples (two keys, two
 * experiments): Fieller's interval for mean(B)/mean(A) on the smaller
 * side's degrees of freedom (n - 1: Welch's are too liberal for skewed
 * times), each bound also allowed to move by Hall's skew correction of the
 * statistic mean(B) - R mean(A) (the union, as ks_mean).
 */
void ks_ratio_unpaired(const double *a, size_t na, const double *b, size_t nb, double conf, struct ks_ratio *out);
/*
 * The ratio of means of paired values: a[i] and b[i] measured in the same
 * round (randomized interleaved rounds, duet pairs).  Fieller's interval on
 * the rounds' d_i(R) = b_i - R a_i (one-sample, n - 1 degrees of freedom,
 * Hall's skew correction as ks_mean), so what hits one round hits one
 * value and a drift common to both sides cancels.
 */
void ks_ratio_paired(const double *a, const double *b, size_t n, double conf, struct ks_ratio *out);
/*
 * The smallest relative change detectable at level conf (two-sided) with
 * probability power, for a log-ratio standard error se on df degrees of
 * freedom: exp((t(1 - (1-conf)/2, df) + t(power, df)) se) - 1.  NAN when se
 * or df is not usable.
 */
double ks_mde(double se, double df, double conf, double power);
/*
 * Add a between-session term to an unpaired ratio's error: each side's mean
 * moves by a relative sd `session_sd` from session to session (the
 * machine's drift), so log(ratio) gains variance 2 session_sd^2.  Widens
 * lo/hi and mde (normal approximation for the added term).
 */
void ks_ratio_add_sessions(struct ks_ratio *r, double session_sd, double conf);
/* -1: B is faster (the interval is below 1), 1: slower (above 1), 0: no change detected or no ratio */
int ks_ratio_verdict(const struct ks_ratio *r);

/*
 * Printing: the decimals (of a value printed with %.*f) that keep v, lo
 * and hi at least `sig` significant digits, lo and hi printed apart from v
 * when they differ from it, and lo and hi on their side of `pivot` (so
 * that an interval excluding 1 never prints as one containing it:
 * "1.0045 (1.0012-1.0079)", not "1.00 (1.00-1.01)").  lo, hi or pivot NAN:
 * not considered.  Capped at 12.
 */
int ks_decimals(double v, double lo, double hi, double pivot, int sig);
/*
 * A ratio and its interval as text, at least sig significant digits:
 * "1.0213 ± 0.0089" when the interval is symmetric about it and r -+ half
 * stay on the sides of 1 that lo and hi are on, else "1.0213 (1.0045–1.0391)";
 * "(lo–inf)" unbounded; r alone when lo or hi is NAN.
 */
void ks_fmt_ratio(struct strbuf *sb, double r, double lo, double hi, int sig);
/*
 * A percentage (pct, already times 100) to sig significant digits in
 * plain decimals without trailing zeros, "%" appended: "2.3%", "1%",
 * "240%", "0.0041%"; never %g's "2.4e+02%".  Beyond a 100-fold change
 * ">10000%"; "-" when not finite.
 */
void ks_fmt_pct(struct strbuf *sb, double pct, int sig);

/* ---- building blocks (stats-*.c, tests) ---- */

/* Student's t quantile at probability p on df degrees of freedom (fractional df allowed; < 1 taken as 1) */
double ks_tquantile(double p, double df);
/*
 * The inverse of Hall's (1992) transformation g(t) = t + a t^2/3 + a^2 t^3/27
 * + a/6 of a t statistic whose estimator has skewness a (a sample's
 * skewness over sqrt(n)); g is monotone, its inverse a cube root.
 */
double ks_hall_inv(double v, double a);

#endif
