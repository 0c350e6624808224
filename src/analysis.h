/*
 * analysis.h - warmup analysis of a dataset, as DESIGN.md "Statistics" and
 * docs/analysis.md specify (compatible with warmup_stats by default).
 *
 * Per pexec: sliding-window outliers, PELT changepoints (mean and variance)
 * on the series without outliers, classification.  Per key: the class over
 * all pexecs, the steady-state iteration and time to reach it (median, 5th
 * and 95th percentiles) and the steady-state performance (seeded bootstrap,
 * median and confidence interval), plus per-iteration means of every
 * instrumentation series before and after the steady state.
 *
 * an_analyse_key() is a pure function of one key's data and the options, so
 * a cache can store its result under (data hash, an_opts_hash()): that is
 * analysis-cache.h, which depends on this file and not the reverse.  The low
 * level pieces (percentile, outliers, PELT, bootstrap) are exported for the
 * tests and for plan/diff.
 */
#ifndef KILN_ANALYSIS_H
#define KILN_ANALYSIS_H

#include <stddef.h>
#include <stdint.h>

#include "dataset.h"
#include "util.h"

struct an_opts {
	long window;        /* outlier window in iterations (default 200) */
	double window_pct;  /* > 0: window is this % of each pexec's iterations instead */
	/*
	 * The band's floor delta, per pexec: the smaller of `delta` seconds
	 * (< 0: not used) and `delta_pct` % of the pexec's fastest segment mean
	 * (<= 0: not used).  Default both, 0.001 s and 1%: warmup_stats' 1 ms
	 * for iterations of 0.1 s and more, 1% below, so that short iterations'
	 * warmup is not hidden (docs/analysis.md).
	 */
	double delta;
	double delta_pct;
	long steady;        /* steady-state window in iterations (default 500) */
	double steady_pct;  /* > 0: this % of each pexec's iterations instead */
	double penalty;     /* PELT penalty = penalty * log(n) (default 15) */
	long resamples;     /* bootstrap resamples per key (default 100000) */
	uint64_t seed;      /* bootstrap seed (default 1) */
	double confidence;  /* bootstrap confidence level (default 0.99) */
	double outlier_k;   /* outlier band = median +- k*(P90-P10) (default 3) */
	int replicate;      /* 1: warmup_stats 41212e0's numbers, its errors included (docs/analysis.md) */
	int delta_set;      /* parsing only: --delta was given (not hashed) */
	int threads;        /* 0 = one per online CPU */
};

void an_opts_default(struct an_opts *o);
/*
 * Command-line options every analysing command shares: --window N[%],
 * --delta S|P%|auto, --steady N[%], --penalty M, --resamples N, --seed N,
 * --confidence C, --replicate-warmup-stats, --threads N.  If argv[*i] is
 * one of them, consume it (and its value) and return 1; 0 if it is not
 * ours; -1 with e set if its value is bad.
 */
int an_opts_parse(struct an_opts *o, int argc, char **argv, int *i, struct kerr *e);
/* help text for those options, for the commands' help strings */
#define AN_OPTS_HELP \
	"analysis options (warmup_stats' method, with kiln's answers for pauses, noise\n" \
	"that is not independent, drift and short runs; docs/analysis.md):\n" \
	"  --window N|P%      outlier window, iterations or % of iterations (10%)\n" \
	"  --delta S|P%|auto  band half-width floor: seconds, % of the fastest segment's\n" \
	"                     mean, or auto: the smaller of 0.001 s and 1% (auto)\n" \
	"  --steady N|P%      a steady state must start before the last N iterations (25%)\n" \
	"  --penalty M        changepoint penalty M*log(n) (15)\n" \
	"  --resamples N      bootstrap resamples per key (100000)\n" \
	"  --seed N           bootstrap seed (1)\n" \
	"  --confidence C     confidence level of the bootstrap interval (0.99)\n" \
	"  --replicate-warmup-stats  warmup_stats' numbers exactly, its errors included\n" \
	"                     (implies --delta 0.001 unless --delta is given; no\n" \
	"                     drift or too-short warnings)\n" \
	"  --threads N        analysis threads (0: one per CPU)\n"
/* the version of the method in an_opts_hash(): bump it when results change */
#define AN_METHOD_VERSION 6
/* a hash of every option that changes results (not threads): a cache key */
void an_opts_hash(const struct an_opts *o, char out[65]);
/* the options as a JSON-ish one-line description (for reports) */
void an_opts_describe(const struct an_opts *o, struct strbuf *out);

/*
 * What makes a pexec's or a key's figures unsafe to act on (issue 26): set
 * by the warmup analysis, said by every output format, and read by `kiln
 * diff`, which gives no steady-state verdict for a key with any of
 * AN_WARN_NO_VERDICT's bits (issue 25).  The two issues' work agrees on
 * these names; each adds the bits it detects.
 */
enum an_warn {
	AN_WARN_SHORT = 1u << 0,   /* too few iterations for the changepoint method to see a change the data shows */
	AN_WARN_DRIFT = 1u << 1,   /* a slow trend: no steady state, whatever the segments say */
};
#define AN_WARN_NO_VERDICT (AN_WARN_SHORT | AN_WARN_DRIFT)
/*
 * A key's pexecs without a figure (no steady state, too short) are left
 * out of its steady figures, up to 1 in AN_LEFT_OUT_DEN of them; more, and
 * the key is too short (AN_WARN_SHORT) or has no steady state.  So one
 * stalled pexec in many does not take a whole key's verdict.  A choice,
 * not a measured rate; kiln compare's rule is the same (compare.h).
 */
#define AN_LEFT_OUT_DEN 10

enum an_class {
	AN_FLAT,
	AN_WARMUP,
	AN_SLOWDOWN,
	AN_NO_STEADY,
	AN_GOOD_INCONSISTENT,
	AN_BAD_INCONSISTENT,
	AN_NO_DATA,
};
#define AN_NPCLASS 4 /* per-pexec classes are the first four */
const char *an_class_name(enum an_class c); /* "flat", "no steady state", ... */

/* a segment between changepoints, in indices of the original series */
struct an_segment {
	size_t start, end;  /* [start, end) */
	double mean, var;   /* of the non-outlier values (var: MLE, divided by n) */
};

struct an_pexec {
	long num;               /* ds_pexec.num */
	size_t index;           /* position in ds_key.pexecs */
	size_t n;               /* iterations */
	size_t *outliers;       /* original indices, ascending */
	size_t noutliers;
	struct an_segment *segs;
	size_t nsegs;           /* >= 1 */
	enum an_class cls;      /* AN_FLAT .. AN_NO_STEADY */
	double delta;           /* the band's floor used for this pexec, seconds */
	size_t first_steady;    /* index into segs of the first steady segment */
	size_t steady_start;    /* 0-based index of the first steady iteration (n if none) */
	/*
	 * The steady iteration as reported: the number of iterations before the
	 * steady state (= steady_start; flat: 0), -1 if none; with replicate,
	 * warmup_stats' (flat: 1).
	 */
	long steady_iter;
	double time_to_steady;  /* seconds of the iterations before steady_start, NAN if none */
	/*
	 * What a steady iteration costs: the mean of every iteration from
	 * steady_start on, pauses (outliers) included; with replicate,
	 * warmup_stats' (= steady_mean_clean).  NAN if none.
	 */
	double steady_mean;
	double steady_mean_clean; /* warmup_stats': unweighted mean of the steady segments' means, outliers left out */
	double warmup_cost;     /* seconds above the steady level before it: sum of (x - steady_mean) before steady_start */
	double tau;             /* variance inflation by autocorrelation the method used (1: none; replicate: 1) */
	double drift_rate;      /* trend of the steady part (no steady state: the last segment), per iteration, relative; NAN: not fitted */
	size_t drift_span;      /* iterations it was fitted over */
	double drift_late;      /* the same trend over the second half of that span: a drift goes on, a tail stops (NAN: too few) */
	long short_need;        /* AN_WARN_SHORT: iterations the method would need (-1: more than it tried); else 0 */
	unsigned warn;          /* AN_WARN_* bits of this pexec */
};

/* mean per iteration of one instrumentation series, before/after steady state */
struct an_series_sum {
	char *name, *unit;
	double before, after;   /* NAN when no values */
	size_t nbefore, nafter;
};

/* keys with one iteration per pexec (whole-process timing): over the pexecs */
struct an_whole {
	double mean, sd, median, min, max;   /* wall seconds (sd: n - 1) */
	double user, sys;                    /* mean user and system CPU seconds, NAN if not recorded */
	double rss_max, rss_mean;            /* peak RSS in KiB: the largest and the mean, NAN if not recorded */
};

struct an_key {
	const struct ds_key *key;
	struct an_pexec *p;     /* analysed pexecs (status ok, >= 1 iteration) */
	size_t np;
	size_t nskipped;        /* failed/timeout/empty pexecs not analysed */
	enum an_class cls;
	size_t counts[AN_NPCLASS];
	int has_steady;         /* 0: the numbers below are null (a no-steady-state pexec, or no data) */
	double iter_med, iter_p5, iter_p95;   /* steady-state iteration (1-based) */
	double tts_med, tts_p5, tts_p95;      /* time to steady state, seconds */
	double perf_med, perf_lo, perf_hi;    /* bootstrapped steady-state mean, CI (whole: the mean, its CI) */
	double perf_ci;         /* warmup_stats' symmetric half-width: mean of (hi-med, med-lo) */
	double delta_ratio;     /* the largest delta / (last segment's mean) over the pexecs */
	int whole;              /* every pexec has one iteration: wp holds what to report */
	struct an_whole wp;
	struct an_series_sum *series;
	size_t nseries;
	unsigned warn;          /* AN_WARN_* bits of the key as a whole: too short in more than 1 in AN_LEFT_OUT_DEN pexecs, its drift test */
	double perf_clean;      /* the mean over pexecs of steady_mean_clean: the steady figure without outliers */
	double drift_rate, drift_lo, drift_hi; /* the pexecs' mean trend per iteration (relative) and its interval; NAN: none */
	double drift_span;      /* the mean span those trends were fitted over */
	long short_need;        /* AN_WARN_SHORT: the most iterations a pexec would need (-1: more than tried); else 0 */
	size_t left_out;        /* pexecs left out of the steady figures (an_left_out); 0 under --replicate-warmup-stats */
};

/* p has no figure of its own: no steady state, or too short (AN_WARN_SHORT) */
int an_pexec_no_figure(const struct an_pexec *p);
/* k's steady figures leave p out (AN_LEFT_OUT_DEN) */
int an_left_out(const struct an_key *k, const struct an_pexec *p);

struct an_result {
	struct an_opts opts;
	struct an_key *keys;
	size_t nkeys;
};

/* analyse every key (threads over pexecs, then over keys) */
int an_analyse(const struct dataset *ds, const struct an_opts *o, struct an_result *r, struct kerr *e);
/*
 * The same on the keys whose todo[i] is set (NULL: all of them), each into
 * keys[i] (zeroed by the caller); the others are left alone.  For caches of
 * results (analysis-cache.h), which analyse only what they do not hold.
 */
void an_analyse_keys(const struct dataset *ds, const struct an_opts *o, const char *todo, struct an_key *keys);
void an_result_free(struct an_result *r);
/* one key, single-threaded: a pure function of the key's data and o */
void an_analyse_key(const struct ds_key *k, const struct an_opts *o, struct an_key *out);
void an_key_free(struct an_key *k);
/*
 * The band the classification compared p's segments with: the last
 * segment's mean +- max(var, delta), delta from o (seconds, or % of that
 * mean); plots draw it, reports explain a flat pexec of several segments
 * with it.  an_delta is the delta itself.
 */
void an_band(const struct an_pexec *p, const struct an_opts *o, double *lo, double *hi);
double an_delta(const struct an_pexec *p, const struct an_opts *o);
/* delta as the options give it: "1 ms", "1% of the fastest segment", "min(1 ms, 1% of ...)" */
void an_delta_text(const struct an_opts *o, struct strbuf *sb);
/* the per-pexec classes, most frequent in k first (ties in class order) */
void an_class_order(const struct an_key *k, int order[AN_NPCLASS]);
/* "bad inconsistent (3 flat, 2 slowdown)", "warmup", or "whole process" (one iteration per pexec) */
void an_class_text(const struct an_key *k, struct strbuf *out);
/* the same with each per-pexec class's name given (NULL: " flat", ...) and the counts' separator: "3F 1W" */
void an_class_text_as(const struct an_key *k, const char *const names[AN_NPCLASS], const char *sep, struct strbuf *out);
/*
 * A delta large against a key's steady mean hides warmup (changes smaller
 * than delta are equivalent): at AN_DELTA_WARN or more of it, every output
 * format says so.  an_delta_warning adds the sentence to out and returns 1,
 * or returns 0.
 */
#define AN_DELTA_WARN 0.05
int an_delta_warning(const struct an_key *k, struct strbuf *out);

/* ---- building blocks (tests, plan, diff) ---- */

/* p-th percentile of sorted a[0..n) by linear interpolation at (n-1)*p/100 */
double an_percentile_sorted(const double *a, size_t n, double p);
/* the same on unsorted data (copies and sorts) */
double an_percentile(const double *x, size_t n, double p);
/* outliers of x[0..n) with window w and threshold k; returns count, fills out (size n) */
size_t an_outliers(const double *x, size_t n, long w, double k, size_t *out);
/*
 * PELT with the normal mean-and-variance cost, minimum segment length 2,
 * penalty pen.  Writes the changepoints as segment ends (exclusive; the last
 * is n) into ends (size n) and returns the number of segments; *cost gets
 * the optimum (sum of segment costs + pen per changepoint).
 */
size_t an_pelt(const double *x, size_t n, double pen, size_t *ends, double *cost);
/* the same problem solved by plain optimal partitioning, O(n^2), for tests */
size_t an_op(const double *x, size_t n, double pen, size_t *ends, double *cost);
/* the segment cost the two use (x already centred or not: shift-invariant up to rounding) */
double an_seg_cost(double s1, double s2, size_t len, int constant);
/* the logarithm the cost uses (same result in the scalar and vector paths) */
double an_log(double x);
/* the cheap logarithm the AVX-512 PELT kernel screens with (|error| < 1e-5; scalar twin for tests) */
double an_log_approx(double x);
/*
 * What the steady-state bootstrap resamples: groups of segments, each
 * segment resampled on its own.  A group is one steady pexec (its steady
 * segments, outliers left out) or, for a whole-process key, all its pexecs
 * as one segment.
 */
struct an_sample {
	double **seg;       /* nseg segments of values */
	size_t *len;
	size_t nseg;
	size_t *group_end;  /* group g: segments [g ? group_end[g - 1] : 0, group_end[g]) */
	size_t ngroups;
};
void an_sample_of(const struct an_key *k, const struct an_opts *o, struct an_sample *s);
void an_sample_free(struct an_sample *s);
/* how many resample means s gives: floor(resamples / groups) + 1 per group, as warmup_stats */
size_t an_bootstrap_count(const struct an_sample *s, long resamples);
/* those means (means holds an_bootstrap_count() of them), seeded; returns how many were made */
size_t an_bootstrap_means(const struct an_sample *s, long resamples, uint64_t seed, double *means);
/* median and conf-level interval of v[0..N) as an_bootstrap reports them (reorders v) */
void an_quantiles(double *v, size_t N, double conf, double *med, double *lo, double *hi);
/* the median and conf-level interval of the bootstrap of s */
void an_bootstrap(const struct an_sample *s, long resamples, uint64_t seed, double conf, double *med, double *lo,
		  double *hi);

/*
 * B/A of the steady-state means of two keys analysed with o and its
 * o->confidence interval: an_key_ratio's (ratio of means, Fieller's
 * interval); with o->replicate, warmup_stats-style bootstrap resamples of
 * the two paired at random (their median and quantiles).
 */
struct an_ratio {
	double med, lo, hi;
	int ok;                 /* 0: none (a key without a steady state, a zero mean) */
};
struct an_ratio an_ratio_ci(const struct an_key *a, const struct an_key *b, const struct an_opts *o);

/*
 * A key's steady-state figure as src/stats.h sees it (stats-key.c; issue
 * 25, docs/statistics.md).  Its independent units: a whole-process key's
 * process times, an in-process key's pexecs' steady means, or, for a key of
 * one pexec, its steady iterations' batch means (*within set: the
 * variation between processes is not in them).  Returns how many, *v
 * malloc'd (NULL and 0 without a steady state).
 */
struct ks_mean;
struct ks_ratio;
size_t an_key_units(const struct an_key *k, double **v, int *within);
/* the interval of the key's figure at o->confidence, its shape and median (what perf_lo/hi hold by default) */
void an_key_mean(const struct an_key *k, const struct an_opts *o, struct ks_mean *m);
/* B/A of two keys' figures: ks_ratio_unpaired on their units (what an_ratio_ci gives by default) */
void an_key_ratio(const struct an_key *a, const struct an_key *b, const struct an_opts *o, struct ks_ratio *r);
/*
 * What `kiln diff` decides for one key measured in two sessions (two
 * results files): the ratio B/A within the sessions, the same with the
 * machine's drift between sessions added (session_sd: a key's mean moves
 * by that relative sd from session to session; 0: none added), and the
 * verdict.  No verdict when A or B has a figure the warmup analysis marks
 * unsafe (AN_WARN_NO_VERDICT) or no steady state, with its reason; none
 * either without a ratio for another cause.
 */
enum an_verdict {
	AN_V_NONE,       /* no ratio, for no reason of the warmup analysis' (a side absent, a zero time, one value) */
	AN_V_NO_VERDICT, /* a side's figures carry AN_WARN_NO_VERDICT bits, or it has no steady state (ratio NAN) */
	AN_V_SAME,       /* no change detected (see the MDE: "not seen", never "equal") */
	AN_V_FASTER,     /* B faster, drift included */
	AN_V_SLOWER,     /* B slower, drift included */
	AN_V_DRIFT,      /* a change within the sessions that the machine's drift between them could explain */
};
struct an_compare {
	enum an_verdict verdict;
	double ratio, lo, hi;   /* B/A and its interval, the drift term included */
	double wlo, whi;        /* the interval within the sessions (no drift term) */
	double mde;             /* the smallest change it could have seen (80% power, drift included), a fraction */
	double drift;           /* AN_V_DRIFT: the drift between sessions, a fraction, that would explain the change */
	unsigned warn;          /* A's and B's AN_WARN_* bits */
	unsigned shape_a, shape_b; /* ks_mean shape bits of A's and B's figures */
};
void an_key_compare(const struct an_key *a, const struct an_key *b, const struct an_opts *o, double session_sd,
		    struct an_compare *c);
/* "faster", "slower", "no change", "drift?", "no verdict", "-" */
const char *an_verdict_name(enum an_verdict v);

#endif
