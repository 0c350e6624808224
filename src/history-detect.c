/*
 * history-detect.c - change points on a key's series over commits
 * (history.h, docs/kiln-track.md#detection---changes).
 *
 * Four series per key, each one number per commit with its variance,
 * made from the per-pexec figures (the error that matters is between
 * processes, and between sessions: each commit is measured at another
 * time, on a machine whose state drifts):
 *   steady   log of the pexecs' steady means (a 30%-trimmed mean of them)
 *   warmup   log(1 + time to steady / steady mean): warm-up time in steady
 *            iterations' worth, 0 for a flat pexec
 *   class    the fraction of pexecs with no steady state or a slowdown
 *   cost     asinh(warmup cost / steady mean): the time above the steady
 *            level before it, in steady iterations' worth (0 for a flat
 *            pexec, negative for a slowdown; asinh: log-like for large
 *            costs, defined for negative ones).  Time to steady is k
 *            iterations plus the cost (tts / steady = k + cost / steady),
 *            so the two part where a warm-up gets longer at little cost
 *            (k grows) or costlier in as many iterations (a slower JIT).
 * A point's variance is its within-commit variance (winsorised variance of
 * its pexecs over their count) plus the session variance tau^2, the part
 * of the commit-to-commit differences the pexecs do not explain (from the
 * median of the squared differences of neighbouring points, robust to the
 * few that are real changes).
 *
 * A point far from the median of its 7 neighbours has its weight cut so
 * that it counts as 3 robust sds away (cap_outliers): one noisy session
 * then cannot make a short segment, nor inflate the dispersion below and
 * hide a real change.
 * The series is segmented by optimal partitioning (exact dynamic
 * programming) with a weighted squared-error cost and a penalty beta per
 * change, the weights divided by the segmented series' dispersion where
 * it is above 1 (the variances above were too small, as on a busy machine):
 * a change is kept when it explains more than beta of the chi-square;
 * beta = 2 ln(n) + 6 keeps the false alarms of a 200-commit Gaussian
 * series near 1 in 400, and bench/history measures the rate on
 * real data (same-binary commits and level-aligned series).  A segment of
 * at most two commits whose two sides agree is a noisy session, not two
 * changes: its points are left out and the series segmented again.  A
 * change's place is the split the data prefer; a commit whose binary is
 * its predecessor's cannot be where a change happened, so a split there
 * is counted as an A/A alarm (known false) and moved to the nearest split
 * the data do not reject, or dropped.  Its range is every split within
 * the chi-square's 99% of the best; its size is the ratio of the two
 * segments' levels with a 99% interval, each level's variance the larger
 * of the model's and its sandwich variance (sandwich_var).  Splits too
 * small to report are merged away first (merge_small), so the levels are
 * those of the changes reported.
 */
#include "history-detect.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"

#define Z99 2.5758293035489004  /* two-sided 99% normal quantile */
#define LOC_Q 6.634896601021214 /* chi-square(1) 99%: the splits a change's range holds */
#define TAU_FLOOR 1e-4          /* the smallest session standard deviation in log units */
/*
 * The fewest commits of a segment: one commit set apart is a noisy session
 * as often as a change (asv came to 2 too), and the extremes of a
 * series would otherwise be where false alarms gather
 */
#define MIN_SEG 2
/*
 * The share of a commit's pexecs trimmed from each end of its steady
 * series (3 of 10).  On a busy machine some pexecs run in a slow mode (16%
 * of the busy Lua corpus's were over 20% slow), and a 10% trim left the
 * level following how many of a commit's pexecs met it.  On the busy Lua
 * corpora 30% against 10% placed injected steps on their commit in 0.74
 * against 0.64 (200 commits) and 0.76 against 0.62 (the next 100); on t3
 * noise the two measure alike (bench/history, README).  The warm-up
 * series keep 10%: their spread is the warm-up's own, not the machine's
 */
#define STEADY_TRIM 0.3
#define WARM_TRIM 0.1 /* the warm-up and cost series' */
/*
 * A point more than CAP_C robust sds from the median of its 2 CAP_K + 1
 * neighbours counts as if it were CAP_C away (cap_outliers).  On t3
 * noise (12 series x 200 commits, 900 trials) this took the false alarms
 * with a step in the series from 0.24-0.28 to 0.03-0.05 per 1000 points
 * (pexec sd 1%) and from 0.24-0.74 to 0.03-0.33 (2%), and the 99% size
 * interval's coverage from 0.974 to 0.987 and from 0.977 to 0.988, at the
 * same or higher recall; on the busier Lua corpus, the coverage from
 * 0.976 to 0.994 and the 2x warm-ups found from 0.936 to 0.979, with a
 * little less placed on the exact commit (0.731 to 0.724).  CAP_K = 3
 * takes out excursions of up to 3 commits (2 did less on t3: 16 false
 * alarms in 90 trials against 9); a cap at 4 or 5 sds did less on both
 * (bench/history, README "History")
 */
#define CAP_K 3
#define CAP_C 3.0

const char *hist_what_name(enum hist_what w)
{
	static const char *const n[] = { "steady", "warmup", "class", "cost" };
	return (unsigned)w < HIST_NWHAT ? n[w] : "?";
}

void hist_detect_opts_default(struct hist_detect_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->beta = 0;            /* 2 ln n + 6 */
	o->min_change[HIST_STEADY] = 0.01;
	o->min_change[HIST_WARMUP] = 0.3;  /* in log(1 + tts/steady): a warm-up 35% longer */
	o->min_change[HIST_CLASS] = 0.3;   /* fraction of pexecs */
	o->min_change[HIST_COST] = 0.3;    /* in asinh(cost/steady): a cost 35% larger, or 0.3 iterations' worth near 0 */
	o->use_binary = 1;
}

/*
 * The mean of v[0..m) with g = frac m values trimmed from each end (none
 * below 5 values) and the variance of that mean (winsorised variance over
 * (1 - 2g/m)^2 m); fewer than 2 values: 0 (no point).
 */
int hist_trimmed(const double *v, size_t m, double frac, double *mean, double *var)
{
	if (m < 2)
		return 0;
	double *s = xmalloc(m * sizeof(double));
	memcpy(s, v, m * sizeof(double));
	sort_doubles(s, m);
	size_t g = m >= 5 ? (size_t)((double)m * frac + 1e-9) : 0;
	double sum = 0;
	for (size_t i = g; i < m - g; i++)
		sum += s[i];
	double mu = sum / (double)(m - 2 * g);
	/* winsorised: the trimmed values replaced by the nearest kept */
	double wm = 0, ss = 0;
	for (size_t i = 0; i < m; i++)
		wm += s[i < g ? g : i >= m - g ? m - g - 1 : i];
	wm /= (double)m;
	for (size_t i = 0; i < m; i++) {
		double d = s[i < g ? g : i >= m - g ? m - g - 1 : i] - wm;
		ss += d * d;
	}
	double keep = 1.0 - 2.0 * (double)g / (double)m;
	*mean = mu;
	*var = ss / (double)(m - 1) / (keep * keep * (double)m);
	free(s);
	return 1;
}

double hist_pexec_figure(enum hist_what w, double steady, double tts, double cost)
{
	if (!(steady > 0) || !isfinite(steady))
		return NAN;
	switch (w) {
	case HIST_STEADY:
		return log(steady);
	case HIST_WARMUP:
		return isfinite(tts) && tts >= 0 ? log1p(tts / steady) : NAN;
	case HIST_COST:
		return isfinite(cost) ? asinh(cost / steady) : NAN;
	default:
		return NAN;
	}
}

/* one commit's value of series w for pexec j of point p, NAN when it has none */
static double pexec_value(const struct hist_point *p, size_t j, enum hist_what w)
{
	if (w == HIST_CLASS)
		return p->cls[j] == AN_SLOWDOWN || p->cls[j] == AN_NO_STEADY ? 1.0 : p->cls[j] == HIST_NOCLASS ? NAN : 0.0;
	return hist_pexec_figure(w, p->steady[j], p->tts[j], p->cost ? p->cost[j] : NAN);
}

/* a point of series w: its level and within-commit variance; 0 when it has too few pexecs */
int hist_point_value(const struct hist_point *p, enum hist_what w, double *y, double *u)
{
	if (!p->built || !p->n)
		return 0;
	double *v = xmalloc(p->n * sizeof(double));
	size_t m = 0;
	for (size_t j = 0; j < p->n; j++) {
		double x = pexec_value(p, j, w);
		if (isfinite(x))
			v[m++] = x;
	}
	int ok;
	if (w == HIST_CLASS) {
		ok = m >= 2;
		double k = 0;
		for (size_t j = 0; j < m; j++)
			k += v[j];
		double ps = (k + 0.5) / ((double)m + 1.0); /* smoothed: a point of all flat pexecs has a variance */
		*y = m ? k / (double)m : 0;
		*u = ps * (1 - ps) / (double)(m ? m : 1);
	} else {
		ok = hist_trimmed(v, m, w == HIST_STEADY ? STEADY_TRIM : WARM_TRIM, y, u);
	}
	free(v);
	return ok;
}

/* ---- the segmentation ---- */

/* prefix sums of w, w*y, w*y^2 over the points [0, n) */
struct sums {
	double *w, *wy, *wyy;
};

static void sums_make(struct sums *S, const double *y, const double *wt, size_t n)
{
	S->w = xcalloc(n + 1, sizeof(double));
	S->wy = xcalloc(n + 1, sizeof(double));
	S->wyy = xcalloc(n + 1, sizeof(double));
	for (size_t i = 0; i < n; i++) {
		S->w[i + 1] = S->w[i] + wt[i];
		S->wy[i + 1] = S->wy[i] + wt[i] * y[i];
		S->wyy[i + 1] = S->wyy[i] + wt[i] * y[i] * y[i];
	}
}

static void sums_free(struct sums *S)
{
	free(S->w);
	free(S->wy);
	free(S->wyy);
}

/* weighted squared error of [a, b) about its weighted mean */
static double seg_cost(const struct sums *S, size_t a, size_t b)
{
	double w = S->w[b] - S->w[a], wy = S->wy[b] - S->wy[a], wyy = S->wyy[b] - S->wyy[a];
	if (w <= 0)
		return 0;
	double c = wyy - wy * wy / w;
	return c > 0 ? c : 0;
}

static double seg_mean(const struct sums *S, size_t a, size_t b)
{
	double w = S->w[b] - S->w[a];
	return w > 0 ? (S->wy[b] - S->wy[a]) / w : NAN;
}

/* the chi-square a split of [a, b) at k explains */
static double split_gain(const struct sums *S, size_t a, size_t k, size_t b)
{
	return seg_cost(S, a, b) - seg_cost(S, a, k) - seg_cost(S, k, b);
}

/*
 * Optimal partitioning of [0, n): the segment starts (ends[] holds the
 * first index of each segment after the first), minimising the cost plus
 * beta per change.  Returns the number of changes.
 */
static size_t optimal_partition(const struct sums *S, size_t n, double beta, size_t *starts)
{
	double *F = xmalloc((n + 1) * sizeof(double));
	size_t *last = xmalloc((n + 1) * sizeof(size_t));
	F[0] = -beta;
	last[0] = 0;
	for (size_t t = 1; t <= n; t++) {
		F[t] = INFINITY;
		last[t] = 0;
		for (size_t s = 0; s + MIN_SEG <= t; s++) {
			if (s > 0 && s < MIN_SEG)
				continue;
			double c = F[s] + seg_cost(S, s, t) + beta;
			if (c < F[t]) {
				F[t] = c;
				last[t] = s;
			}
		}
	}
	size_t k = 0;
	if (!isfinite(F[n]))
		last[n] = 0; /* too short to split */
	for (size_t t = n; t > 0; t = last[t])
		if (last[t] > 0)
			starts[k++] = last[t];
	/* ascending */
	for (size_t i = 0; i < k / 2; i++) {
		size_t x = starts[i];
		starts[i] = starts[k - 1 - i];
		starts[k - 1 - i] = x;
	}
	free(F);
	free(last);
	return k;
}

double hist_pairs_var(double *d2, double *uu, size_t m)
{
	if (!m)
		return NAN;
	sort_doubles(d2, m);
	sort_doubles(uu, m);
	/* the median of a chi-square(1) is 0.4549 */
	return (an_percentile_sorted(d2, m, 50) / 0.45493642311957283 - an_percentile_sorted(uu, m, 50)) / 2;
}

/* the session variance: what the differences of neighbours leave over their within variances (robust) */
static double session_var(const double *y, const double *u, size_t n)
{
	if (n < 3)
		return TAU_FLOOR * TAU_FLOOR;
	double *d2 = xmalloc(n * sizeof(double)), *uu = xmalloc(n * sizeof(double));
	for (size_t i = 1; i < n; i++) {
		d2[i - 1] = (y[i] - y[i - 1]) * (y[i] - y[i - 1]);
		uu[i - 1] = u[i] + u[i - 1];
	}
	double tau2 = hist_pairs_var(d2, uu, n - 1);
	free(d2);
	free(uu);
	return tau2 > TAU_FLOOR * TAU_FLOOR ? tau2 : TAU_FLOOR * TAU_FLOOR;
}

/*
 * The dispersion of a segmented series: its weighted squared residuals
 * about the segments' levels over their degrees of freedom, 1 when the
 * points' variances are right (or too few points to tell).  Above 1 the
 * variances were too small: tau^2, from the median neighbours' difference,
 * comes out near 0 on a busy machine when the differences are mostly small
 * and a few commits' pexecs all met (or all missed) a slow mode; then a
 * short excursion would pass for a change.  The caller divides the weights
 * by it (quasi-likelihood): a change must explain beta of the series' own
 * scatter, and its size's interval widens alike.
 */
static double dispersion(const struct sums *S, const size_t *starts, size_t k, size_t n)
{
	if (n < k + 3)
		return 1;
	double rss = 0;
	for (size_t c = 0; c <= k; c++)
		rss += seg_cost(S, c ? starts[c - 1] : 0, c < k ? starts[c] : n);
	double phi = rss / (double)(n - k - 1);
	return phi > 1 ? phi : 1;
}

/*
 * The segmentation again with the weights over the first one's dispersion
 * (when above 1); returns it.  Every prefix sum is linear in the weights,
 * so dividing the sums divides the weights
 */
static double redisperse(struct sums *S, size_t n, double beta, size_t *starts, size_t *k)
{
	double phi = dispersion(S, starts, *k, n);
	if (phi > 1) {
		for (size_t i = 0; i <= n; i++) {
			S->w[i] /= phi;
			S->wy[i] /= phi;
			S->wyy[i] /= phi;
		}
		*k = optimal_partition(S, n, beta, starts);
	}
	return phi;
}

/*
 * Points far from their neighbours' running median lose weight, so that
 * no one point's chi-square exceeds (c s)^2 (a Huber-like cap; s: the
 * residuals' own robust scale, at least 1).  The median of 2k + 1
 * neighbours keeps a step (a point on either side of it has most of its
 * window on its own side) and takes out an excursion of up to k points
 */
static void cap_outliers(const double *y, double *wt, size_t n, size_t k, double c)
{
	if (!k || n < 2 * k + 1)
		return;
	double *win = xmalloc((2 * k + 1) * sizeof(double)), *r = xmalloc(n * sizeof(double));
	double *ar = xmalloc(n * sizeof(double));
	for (size_t i = 0; i < n; i++) {
		size_t lo = i >= k ? i - k : 0, hi = i + k + 1 < n ? i + k + 1 : n, m = hi - lo;
		memcpy(win, y + lo, m * sizeof(double));
		sort_doubles(win, m);
		r[i] = (y[i] - an_percentile_sorted(win, m, 50)) * sqrt(wt[i]);
		ar[i] = fabs(r[i]);
	}
	sort_doubles(ar, n);
	double s = 1.4826 * an_percentile_sorted(ar, n, 50);
	double lim = c * (s > 1 ? s : 1);
	for (size_t i = 0; i < n; i++)
		if (fabs(r[i]) > lim)
			wt[i] *= (lim / r[i]) * (lim / r[i]);
	free(win);
	free(r);
	free(ar);
}

/* the points of series w that have a value: their index in s->p, level, variance, binary-same flag */
struct pts {
	size_t n;
	size_t *idx;
	double *y, *u, *wt;
	unsigned char *same, *out; /* out: left out as a noisy session */
};

static void pts_make(const struct hist_series *s, enum hist_what w, const struct hist_detect_opts *o, struct pts *P)
{
	memset(P, 0, sizeof(*P));
	P->idx = xmalloc((s->n + 1) * sizeof(size_t));
	P->y = xmalloc((s->n + 1) * sizeof(double));
	P->u = xmalloc((s->n + 1) * sizeof(double));
	P->wt = xmalloc((s->n + 1) * sizeof(double));
	P->same = xcalloc(s->n + 1, 1);
	P->out = xcalloc(s->n + 1, 1);
	for (size_t i = 0; i < s->n; i++) {
		double y, u;
		if (!hist_point_value(&s->p[i], w, &y, &u))
			continue;
		P->idx[P->n] = i;
		P->y[P->n] = y;
		P->u[P->n] = u;
		/* same binary as the point before it among those with a value: every point between was the same too */
		int same = o->use_binary && P->n > 0;
		for (size_t j = P->n ? P->idx[P->n - 1] + 1 : 0; same && j <= i; j++)
			same = s->p[j].same_as_prev;
		P->same[P->n] = (unsigned char)same;
		P->n++;
	}
}

static void pts_free(struct pts *P)
{
	free(P->idx);
	free(P->y);
	free(P->u);
	free(P->wt);
	free(P->same);
	free(P->out);
}

/* the points not left out, compacted: their positions in P in keep[] */
static size_t kept(const struct pts *P, size_t *keep)
{
	size_t k = 0;
	for (size_t i = 0; i < P->n; i++)
		if (!P->out[i])
			keep[k++] = i;
	return k;
}

/*
 * Short segments (at most two points) between changes whose outer segments
 * agree: noisy sessions.  Marks their points out; returns how many.
 */
static size_t drop_transients(struct pts *P, const size_t *keep, const struct sums *S, const size_t *starts, size_t k,
			      size_t n, double beta)
{
	size_t dropped = 0;
	for (size_t c = 0; c + 1 < k; c++) {
		size_t a = c ? starts[c - 1] : 0, m0 = starts[c], m1 = starts[c + 1], b = c + 2 < k ? starts[c + 2] : n;
		if (m1 - m0 > 2)
			continue;
		/* do the outer segments differ, as if the short one were not there? */
		double wl = S->w[m0] - S->w[a], wr = S->w[b] - S->w[m1];
		double ml = seg_mean(S, a, m0), mr = seg_mean(S, m1, b);
		double gain = wl > 0 && wr > 0 ? (ml - mr) * (ml - mr) * wl * wr / (wl + wr) : 0;
		if (gain < beta) {
			for (size_t i = m0; i < m1; i++)
				P->out[keep[i]] = 1;
			dropped += m1 - m0;
			c++;
		}
	}
	return dropped;
}

/*
 * Changes smaller than min (in the series' units) taken out, the smallest
 * first, each time merging its two segments; returns the changes left.
 * A change too small to report is still a split: left in, it would cut
 * the segment beside a reported change short, and that segment was chosen
 * for differing from its neighbour, so the reported size and its interval
 * would rest on a few commits picked for being off (a 5% step, the commits
 * after it in sessions 1% off: such a split moved its levels in 117 of
 * 1980 series, by up to 0.97%, and 41 of those intervals missed the step)
 */
static size_t merge_small(const struct sums *S, size_t *starts, size_t k, size_t n, double min)
{
	while (k) {
		size_t worst = k;
		double least = min;
		for (size_t c = 0; c < k; c++) {
			size_t a = c ? starts[c - 1] : 0, b = c + 1 < k ? starts[c + 1] : n;
			double d = fabs(seg_mean(S, starts[c], b) - seg_mean(S, a, starts[c]));
			if (d < least) {
				least = d;
				worst = c;
			}
		}
		if (worst == k)
			break;
		memmove(starts + worst, starts + worst + 1, (k - worst - 1) * sizeof(*starts));
		k--;
	}
	return k;
}

/* one change at split k of the kept points [a, b): place, range, size */
/*
 * The sandwich (heteroscedasticity-consistent) variance of the weighted
 * mean of y[a, b) with weights wt: sum w^2 (y - m)^2 / (sum w)^2, times
 * n / (n - 1).  Right whatever the weights, where the model's 1 / sum w
 * is right only when they are the inverse variances: the session
 * variance is one for the series, and a segment measured on a busier
 * machine than the rest scatters more than it says
 */
static double sandwich_var(const double *y, const double *wt, size_t a, size_t b)
{
	double W = 0, Wy = 0;
	for (size_t i = a; i < b; i++) {
		W += wt[i];
		Wy += wt[i] * y[i];
	}
	double m = Wy / W, ss = 0;
	for (size_t i = a; i < b; i++)
		ss += wt[i] * wt[i] * (y[i] - m) * (y[i] - m);
	size_t n = b - a;
	return n > 1 ? ss / (W * W) * (double)n / (double)(n - 1) : 0;
}

static int place_change(const struct pts *P, const size_t *keep, const struct sums *S, size_t a, size_t k, size_t b,
			enum hist_what w, const struct hist_series *s, const double *yy, const double *wt,
			struct hist_change *ch)
{
	double best = split_gain(S, a, k, b);
	/* the data's best split in the range, and the range */
	size_t at = k, lo = k, hi = k;
	int aa = P->same[keep[k]];
	double top = -INFINITY;
	for (size_t j = a + MIN_SEG; j + MIN_SEG <= b; j++) {
		double g = split_gain(S, a, j, b);
		if (g < best - LOC_Q)
			continue;
		if (j < lo)
			lo = j;
		if (j > hi)
			hi = j;
		if (!P->same[keep[j]] && g > top) {
			top = g;
			at = j;
		}
	}
	if (!isfinite(top))
		return 0; /* only same-binary splits fit: a false alarm by construction */
	memset(ch, 0, sizeof(*ch));
	ch->what = w;
	ch->after_lo = ch->after_hi = NAN;
	ch->aa_alarm = aa;
	ch->at = P->idx[keep[at]];
	/* the range in points of the series: from the first point after the earliest split to the latest */
	ch->lo = P->idx[keep[lo]];
	ch->hi = P->idx[keep[hi]];
	/* a same-binary point cannot be the first after the change: the range starts where the binary changed */
	while (ch->lo < ch->at && s->p[ch->lo].same_as_prev)
		ch->lo++;
	ch->score = split_gain(S, a, at, b);
	double ml = seg_mean(S, a, at), mr = seg_mean(S, at, b);
	/* each level's variance: the model's, or its sandwich where the points scatter more than their weights say */
	double vl = fmax(1.0 / (S->w[at] - S->w[a]), sandwich_var(yy, wt, a, at));
	double vr = fmax(1.0 / (S->w[b] - S->w[at]), sandwich_var(yy, wt, at, b));
	double se = sqrt(vl + vr);
	ch->level_before = ml;
	ch->level_after = mr;
	if (w == HIST_CLASS) {
		ch->before = ml;
		ch->after = mr;
		ch->ratio = mr - ml;
		ch->ratio_lo = mr - ml - Z99 * se;
		ch->ratio_hi = mr - ml + Z99 * se;
	} else if (w == HIST_WARMUP || w == HIST_COST) {
		/*
		 * levels are log(1 + warm-up) or asinh(cost), in steady iterations: the ratio is of the warm-ups
		 * or costs themselves, where the one before is above 0
		 */
		double (*back)(double) = w == HIST_WARMUP ? expm1 : sinh;
		ch->before = back(ml);
		ch->after = back(mr);
		ch->after_lo = back(mr - Z99 * se);
		ch->after_hi = back(mr + Z99 * se);
		if (w == HIST_WARMUP && ch->after_lo < 0)
			ch->after_lo = 0; /* no warm-up is shorter than none */
		int ratio = ch->before >= HIST_RATIO_MIN && ch->after >= HIST_RATIO_MIN;
		ch->ratio = ratio ? ch->after / ch->before : NAN;
		ch->ratio_lo = ratio ? ch->after_lo / ch->before : NAN;
		ch->ratio_hi = ratio ? ch->after_hi / ch->before : NAN;
	} else {
		ch->before = exp(ml);
		ch->after = exp(mr);
		ch->ratio = exp(mr - ml);
		ch->ratio_lo = exp(mr - ml - Z99 * se);
		ch->ratio_hi = exp(mr - ml + Z99 * se);
	}
	return 1;
}

/* segment series w of s; appends its changes to *out; aa_hit[i]: a split of w put on same-binary point i */
static void detect_what(const struct hist_series *s, enum hist_what w, const struct hist_detect_opts *o,
			struct hist_change **out, size_t *nout, struct hist_detect_stats *st, unsigned char *aa_hit)
{
	struct pts P;
	pts_make(s, w, o, &P);
	size_t *keep = xmalloc((P.n + 1) * sizeof(size_t)), *starts = xmalloc((P.n + 1) * sizeof(size_t));
	size_t n = 0, k = 0;
	double *y = xmalloc((P.n + 1) * sizeof(double)), *wt = xmalloc((P.n + 1) * sizeof(double));
	struct sums S = { 0 };
	double beta = 0;
	for (int pass = 0; pass < 3; pass++) {
		n = kept(&P, keep);
		double *uu = xmalloc((n + 1) * sizeof(double));
		for (size_t i = 0; i < n; i++) {
			y[i] = P.y[keep[i]];
			uu[i] = P.u[keep[i]];
		}
		double tau2 = session_var(y, uu, n);
		for (size_t i = 0; i < n; i++)
			wt[i] = 1.0 / (uu[i] + tau2);
		free(uu);
		if (!o->no_cap)
			cap_outliers(y, wt, n, CAP_K, CAP_C);
		st->tau[w] = sqrt(tau2);
		sums_free(&S);
		sums_make(&S, y, wt, n);
		beta = o->beta > 0 ? o->beta : 2.0 * log((double)(n > 2 ? n : 2)) + 6.0;
		k = n > 1 ? optimal_partition(&S, n, beta, starts) : 0;
		st->phi[w] = redisperse(&S, n, beta, starts, &k);
		if (o->keep_short || !drop_transients(&P, keep, &S, starts, k, n, beta))
			break;
	}
	st->points[w] = n;
	for (size_t i = 1; i < n; i++)
		st->aa_pairs[w] += P.same[keep[i]];
	/* the A/A figures count every split, reported or not (the segmentation's own rate: docs/kiln-track.md) */
	for (size_t c = 0; c < k && o->use_binary; c++) {
		if (P.same[keep[starts[c]]]) {
			st->aa_alarms[w]++;
			aa_hit[P.idx[keep[starts[c]]]] = 1;
		}
	}
	k = merge_small(&S, starts, k, n, o->min_change[w]);
	for (size_t c = 0; c < k; c++) {
		size_t a = c ? starts[c - 1] : 0, b = c + 1 < k ? starts[c + 1] : n;
		struct hist_change ch;
		int placed = place_change(&P, keep, &S, a, starts[c], b, w, s, y, wt, &ch);
		if (!placed || fabs(ch.level_after - ch.level_before) < o->min_change[w])
			continue;
		*out = xrealloc(*out, (*nout + 1) * sizeof(**out));
		(*out)[(*nout)++] = ch;
	}
	sums_free(&S);
	free(y);
	free(wt);
	free(keep);
	free(starts);
	pts_free(&P);
}

int history_detect(const struct hist_series *s, const struct hist_detect_opts *opts, struct hist_change **out,
		   size_t *n, struct hist_detect_stats *st)
{
	struct hist_detect_opts def;
	if (!opts) {
		hist_detect_opts_default(&def);
		opts = &def;
	}
	struct hist_detect_stats local;
	if (!st)
		st = &local;
	memset(st, 0, sizeof(*st));
	*out = NULL;
	*n = 0;
	unsigned char *aa_hit = xcalloc(s->n + 1, 1);
	for (int w = 0; w < HIST_NWHAT; w++) {
		if (!(opts->skip & (1u << w)))
			detect_what(s, (enum hist_what)w, opts, out, n, st, aa_hit);
		if (w == HIST_STEADY)
			memset(aa_hit, 0, s->n + 1);
	}
	for (size_t i = 0; i < s->n; i++)
		st->aa_warm_commits += aa_hit[i];
	free(aa_hit);
	return 0;
}
