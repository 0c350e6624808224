/*
 * history-detect.h - change points on a key's series over commits
 * (history-detect.c says the method; docs/kiln-track.md#detection its
 * measured accuracy).
 */
#ifndef KILN_HISTORY_DETECT_H
#define KILN_HISTORY_DETECT_H

#include "history.h"

/* which series of a key moved */
enum hist_what {
	HIST_STEADY,  /* the steady-state mean */
	HIST_WARMUP,  /* the time to steady state, in steady iterations' worth */
	HIST_CLASS,   /* the fraction of pexecs with no steady state or a slowdown */
	HIST_COST,    /* the warmup cost (time above the steady level before it), in steady iterations' worth */
	HIST_NWHAT,
};
const char *hist_what_name(enum hist_what w);

struct hist_detect_opts {
	double beta;                    /* penalty per change, chi-square units; 0: 2 ln(n) + 6 */
	double min_change[HIST_NWHAT];  /* smallest change reported, in the series' units (steady: log ratio) */
	int use_binary;                 /* same-binary neighbours cannot hold a change (default 1) */
	unsigned skip;                  /* 1 << what: series not searched */
	int keep_short;                 /* segments of <= 2 commits are changes too, not noisy sessions (default 0) */
	int no_cap;                     /* no far point's weight capped (the method before 2026-12-05; default 0) */
};
void hist_detect_opts_default(struct hist_detect_opts *o);

/*
 * A warm-up or warmup cost below one steady iteration's worth is below what
 * a ratio can be taken of: 1e-7 iterations of warm-up noise before and 1.4
 * after read "11420522x the warm-up", and 1.2 before and none after read
 * "x0.00 [0.00, 0.37]".  A change with either side below it is its
 * difference in iterations instead
 */
#define HIST_RATIO_MIN 1.0

struct hist_change {
	enum hist_what what;
	size_t at;              /* index in the series' points: the first commit after the change */
	size_t lo, hi;          /* the range of first commits the data allow (lo <= at <= hi) */
	double before, after;   /* steady: seconds; warmup, cost: steady iterations' worth; class: fraction */
	double ratio, ratio_lo, ratio_hi; /* after/before and its 99% interval (class: after - before; warmup,
					   * cost: NAN when before or after < HIST_RATIO_MIN) */
	double after_lo, after_hi; /* warmup, cost: after's 99% interval, before held (a warm-up's floored at 0) */
	double level_before, level_after; /* in the series' units (log) */
	double score;           /* chi-square the change explains */
	int aa_alarm;           /* the data put it between two same-binary commits: moved (or it would be false) */
};

/* what a detection saw of its series: per what */
struct hist_detect_stats {
	size_t points[HIST_NWHAT];     /* commits with a value */
	size_t aa_pairs[HIST_NWHAT];   /* neighbouring same-binary commits: A/A pairs */
	size_t aa_alarms[HIST_NWHAT];  /* changes the data put on an A/A pair (known false alarms) */
	double tau[HIST_NWHAT];        /* the session standard deviation (log units) */
	double phi[HIST_NWHAT];        /* the dispersion the weights were divided by (1: none) */
	/*
	 * Same-binary commits where a warm-up series (warmup, class, cost) put a
	 * change, each counted once: the warm-up's A/A false alarms (the series
	 * of one warm-up move together: a commit, not a series, is the alarm)
	 */
	size_t aa_warm_commits;
};

/* the changes of series s (opts NULL: defaults; st may be NULL), in what then commit order */
int history_detect(const struct hist_series *s, const struct hist_detect_opts *opts, struct hist_change **out,
		   size_t *n, struct hist_detect_stats *st);
/* a point's value of series w and its within-commit variance: 0 when it has too few pexecs */
int hist_point_value(const struct hist_point *p, enum hist_what w, double *y, double *u);
/*
 * One pexec's figure in series w (steady, warmup or cost) from its steady
 * mean, time to steady and warmup cost (seconds): log(steady),
 * log(1 + tts / steady), asinh(cost / steady); NAN when it has none (no
 * steady state) and for HIST_CLASS, which is a fraction of pexecs.  The
 * series' points are trimmed means of these; kiln bisect's rounds are
 * their differences.
 */
double hist_pexec_figure(enum hist_what w, double steady, double tts, double cost);
/* mean of v[0..m) trimmed by frac at each end, and its variance (winsorised); 0 when m < 2 */
int hist_trimmed(const double *v, size_t m, double frac, double *mean, double *var);
/*
 * The session variance of m pairs of points: their squared differences
 * d2 and the sums of their within variances uu; the median of d2 over
 * chi-square(1)'s median, less the median of uu, halved (robust to the few
 * pairs a real change splits); it sorts d2 and uu.  Not floored: may be
 * below 0; NAN for m = 0
 */
double hist_pairs_var(double *d2, double *uu, size_t m);

#endif
