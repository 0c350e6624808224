/*
 * stats-session.h - how much a program's mean moves from one session to the
 * next on one machine, learned from the sessions kiln recorded
 * (session-record.h) instead of assumed: a random-effects (one-way ANOVA,
 * method of moments) estimate of the between-session standard deviation of
 * a session's log-mean, and a one-sided upper confidence bound of it, which
 * `kiln diff` adds to the ratio's error (ks_ratio_add_sessions).
 * docs/statistics.md, "Two sessions: the machine's drift".
 */
#ifndef KILN_STATS_SESSION_H
#define KILN_STATS_SESSION_H

#include <stddef.h>

/* fewer recorded sessions than this (or fewer degrees of freedom than 2): assumed, not measured */
#define SS_MIN_SESSIONS 3
/*
 * The one-sided confidence of the upper bound used as the session sd: at
 * 90% the histories whose bound fell short (1 in 10) raised A/A false
 * alarms to 1.3% with 3 sessions and a 10% session sd; at 95% the worst
 * cell measured was 0.6% (docs/statistics.md, bench/stats table 6)
 */
#define SS_UPPER_CONF 0.95

/* one recorded session of a program: the log of its mean, that log-mean's within-session variance */
struct ss_session {
	long group;     /* which program (sessions of one group share a true mean) */
	double y;       /* log(mean) */
	double v;       /* within-session variance of y: s^2 / (n mean^2) */
};

struct ss_estimate {
	size_t sessions, groups;
	double df;        /* sessions - groups */
	double total;     /* the pooled variance of y about each group's mean */
	double within;    /* the within-session variance in total: sum_g (k_g - 1)/k_g sum v / df (mean v if all equal) */
	double sd;        /* sqrt(max(0, total - within)): the point estimate */
	double sd_hi;     /* the one-sided upper bound (chi-square on total, SS_UPPER_CONF) */
	int measured;     /* sessions >= SS_MIN_SESSIONS and df >= 2: sd_hi is usable */
};

/* the estimate from s[0..n) (any order; groups need not be contiguous) */
void ss_estimate(const struct ss_session *s, size_t n, struct ss_estimate *out);

/* y and v of one session from its units (process times, pexec means): -1 when n < 2 or a mean <= 0 */
int ss_of_units(const double *u, size_t n, double *y, double *v);

#endif
