/*
 * analysis.c - the statistics of DESIGN.md "Statistics", fast enough for a
 * Barrett-scale experiment (millions of iterations) in seconds.
 *
 * Parts, in the order they run:
 *   options        an_opts defaults, parsing of the shared command-line
 *                  options, and a hash of them for result caches;
 *   percentiles    linear interpolation at (n-1)p/100 (numpy's default);
 *   outliers       a sorted sliding window updated by one insert and one
 *                  delete per step, so each step costs O(w) memmove instead
 *                  of a sort;
 *   PELT           changepoints in mean and variance: analysis-pelt.c;
 *   classification per pexec, then per key;
 *   bootstrap      the steady state's interval: analysis-bootstrap.c;
 *   drivers        an_analyse_key (one key, pure) and an_analyse_keys
 *                  (threads over pexecs, then over keys).  Caches of
 *                  results live above this file (analysis-cache.c) and
 *                  call an_analyse_keys for what they do not hold.
 */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "analysis-int.h"
#include "analysis-robust.h"
#include "stats.h"

/* ---- options ---- */

void an_opts_default(struct an_opts *o)
{
	memset(o, 0, sizeof(*o));
	/*
	 * warmup_stats' front end: the outlier window is 10% and the steady
	 * window 25% of each pexec's iterations (200 and 500 for Barrett et al.'s
	 * 2000 iterations), so short pilot runs are judged on the same scale.
	 */
	o->window = 200;
	o->window_pct = 10;
	/* warmup_stats' 1 ms, but never more than 1% of a pexec's fastest segment (docs/analysis.md) */
	o->delta = 0.001;
	o->delta_pct = 1;
	o->steady = 500;
	o->steady_pct = 25;
	o->penalty = 15.0;
	o->resamples = 100000;
	o->seed = 1;
	o->confidence = 0.99;
	o->outlier_k = 3.0;
}

/* "200" or "10%": a count or a percentage */
static int parse_count_pct(const char *v, long *n, double *pct)
{
	size_t l = strlen(v);
	if (l > 1 && v[l - 1] == '%') {
		char *s = xstrndup(v, l - 1);
		double d;
		int r = parse_double(s, &d);
		free(s);
		if (r || !(d > 0) || d > 100)
			return -1;
		*pct = d;
		return 0;
	}
	long x;
	if (parse_long(v, &x) || x < 0)
		return -1;
	*n = x;
	*pct = 0;
	return 0;
}

int an_opts_parse(struct an_opts *o, int argc, char **argv, int *i, struct kerr *e)
{
	static const char *const names[] = { "--window", "--delta", "--steady", "--penalty", "--resamples",
					     "--seed", "--confidence", "--threads", "--replicate-warmup-stats", NULL };
	const char *a = argv[*i];
	const char *val = NULL;
	int which = -1;
	for (int k = 0; names[k]; k++) {
		size_t l = strlen(names[k]);
		if (!strncmp(a, names[k], l) && (a[l] == '\0' || a[l] == '=')) {
			which = k;
			if (a[l] == '=')
				val = a + l + 1;
			break;
		}
	}
	if (which < 0)
		return 0;
	if (which == 8) {
		if (val)
			return kerr_setc(e, KEXIT_USAGE, "%s takes no value", names[which]);
		o->replicate = 1;
		if (!o->delta_set) { /* warmup_stats' own default */
			o->delta = 0.001;
			o->delta_pct = 0;
		}
		return 1;
	}
	if (!val) {
		if (*i + 1 >= argc)
			return kerr_setc(e, KEXIT_USAGE, "%s needs a value", names[which]);
		val = argv[++*i];
	}
	double d;
	long l;
	switch (which) {
	case 0:
		if (parse_count_pct(val, &o->window, &o->window_pct))
			goto bad;
		/* a window of 0 or 1 iteration has no half: it would find no outliers at all */
		if (!o->window_pct && o->window < 2)
			return kerr_setc(e, KEXIT_USAGE, "--window: %s is too small: the outlier window needs at least "
					 "2 iterations (or a percentage, e.g. 10%%)", val);
		break;
	case 1: {
		size_t n = strlen(val);
		o->delta_set = 1;
		if (!strcmp(val, "auto")) {
			o->delta = 0.001;
			o->delta_pct = 1;
		} else if (n > 1 && val[n - 1] == '%') {
			char *s = xstrndup(val, n - 1);
			int r = parse_double(s, &d);
			free(s);
			if (r || !(d > 0))
				goto bad;
			o->delta = -1;
			o->delta_pct = d;
		} else {
			if (parse_double(val, &d) || !(d >= 0))
				goto bad;
			o->delta = d;
			o->delta_pct = 0;
		}
		break;
	}
	case 2:
		if (parse_count_pct(val, &o->steady, &o->steady_pct))
			goto bad;
		break;
	case 3:
		if (parse_double(val, &d) || !(d >= 0))
			goto bad;
		o->penalty = d;
		break;
	case 4:
		if (parse_long(val, &l) || l < 1)
			goto bad;
		o->resamples = l;
		break;
	case 5:
		if (parse_long(val, &l) || l < 0)
			goto bad;
		o->seed = (uint64_t)l;
		break;
	case 6:
		if (parse_double(val, &d) || !(d > 0 && d < 1))
			goto bad;
		o->confidence = d;
		break;
	case 7:
		if (parse_long(val, &l) || l < 0 || l > 1024)
			goto bad;
		o->threads = (int)l;
		break;
	}
	return 1;
bad:
	return kerr_setc(e, KEXIT_USAGE, "%s: bad value '%s'", names[which], val);
}

void an_opts_describe(const struct an_opts *o, struct strbuf *out)
{
	if (o->window_pct > 0)
		sb_addf(out, "window=%g%%", o->window_pct);
	else
		sb_addf(out, "window=%ld", o->window);
	if (o->delta_pct > 0 && o->delta >= 0)
		sb_addf(out, " delta=min(%gs,%g%%)", o->delta, o->delta_pct);
	else if (o->delta_pct > 0)
		sb_addf(out, " delta=%g%%", o->delta_pct);
	else
		sb_addf(out, " delta=%gs", o->delta);
	if (o->steady_pct > 0)
		sb_addf(out, " steady=%g%%", o->steady_pct);
	else
		sb_addf(out, " steady=%ld", o->steady);
	sb_addf(out, " penalty=%g*log(n) outlier=%g*(%s) resamples=%ld seed=%llu confidence=%g", o->penalty,
		o->outlier_k, o->replicate ? "P90-P10" : "P75-P25", o->resamples, (unsigned long long)o->seed,
		o->confidence);
	if (o->replicate)
		sb_adds(out, " replicate=warmup_stats");
}

void an_opts_hash(const struct an_opts *o, char out[65])
{
	struct strbuf sb = STRBUF_INIT;
	/*
	 * Bump the "v" when the method changes so that caches are invalidated
	 * (v2: warmup_stats' walk, variance floor, steady iteration, bootstrap;
	 * auto delta; whole-process keys; v3: the steady interval from the
	 * pexecs' means; v4: near-exact resample means; v5: the default's
	 * pauses, autocorrelation, equivalence within the noise, drift, short
	 * series, steady mean with pauses, integer steady iterations: issue 26).
	 */
	sb_addf(&sb, "kiln-analysis v%d %ld %.17g %.17g %.17g %ld %.17g %.17g %ld %llu %.17g %.17g %d", AN_METHOD_VERSION,
		o->window, o->window_pct, o->delta, o->delta_pct, o->steady, o->steady_pct, o->penalty, o->resamples,
		(unsigned long long)o->seed, o->confidence, o->outlier_k, o->replicate);
	hash_hex(sb.buf, sb.len, out);
	sb_release(&sb);
}

const char *an_class_name(enum an_class c)
{
	switch (c) {
	case AN_FLAT: return "flat";
	case AN_WARMUP: return "warmup";
	case AN_SLOWDOWN: return "slowdown";
	case AN_NO_STEADY: return "no steady state";
	case AN_GOOD_INCONSISTENT: return "good inconsistent";
	case AN_BAD_INCONSISTENT: return "bad inconsistent";
	case AN_NO_DATA: return "no data";
	}
	return "?";
}

void an_class_order(const struct an_key *k, int order[AN_NPCLASS])
{
	for (int i = 0; i < AN_NPCLASS; i++)
		order[i] = i;
	for (int i = 1; i < AN_NPCLASS; i++)
		for (int j = i; j > 0 && k->counts[order[j]] > k->counts[order[j - 1]]; j--) {
			int t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
}

void an_class_text_as(const struct an_key *k, const char *const names[AN_NPCLASS], const char *sep, struct strbuf *out)
{
	if (k->whole) { /* one iteration per pexec: there is no warmup to classify */
		sb_adds(out, "whole process");
		return;
	}
	sb_adds(out, an_class_name(k->cls));
	if (k->cls != AN_GOOD_INCONSISTENT && k->cls != AN_BAD_INCONSISTENT)
		return;
	/* counts, most frequent first, as warmup_stats' tables do */
	int order[AN_NPCLASS];
	an_class_order(k, order);
	sb_adds(out, " (");
	for (int i = 0, first = 1; i < AN_NPCLASS; i++) {
		if (!k->counts[order[i]])
			continue;
		sb_addf(out, "%s%zu", first ? "" : sep, k->counts[order[i]]);
		if (names)
			sb_adds(out, names[order[i]]);
		else
			sb_addf(out, " %s", an_class_name(order[i]));
		first = 0;
	}
	sb_addc(out, ')');
}

void an_class_text(const struct an_key *k, struct strbuf *out)
{
	an_class_text_as(k, NULL, ", ", out);
}

int an_delta_warning(const struct an_key *k, struct strbuf *out)
{
	if (!(k->delta_ratio >= AN_DELTA_WARN))
		return 0;
	if (k->delta_ratio >= 1)
		sb_addf(out, "delta is %.3g times the steady mean", k->delta_ratio);
	else
		sb_addf(out, "delta is %.2g%% of the steady mean", k->delta_ratio * 100);
	sb_adds(out, ": changes smaller than that count as equivalent, so warmup may be hidden (see --delta)");
	return 1;
}

/* ---- percentiles ---- */

double an_percentile_sorted(const double *a, size_t n, double p)
{
	if (!n)
		return NAN;
	double pos = (double)(n - 1) * p / 100.0;
	size_t lo = (size_t)floor(pos);
	if (lo >= n - 1)
		return a[n - 1];
	double f = pos - (double)lo;
	return a[lo] + (a[lo + 1] - a[lo]) * f;
}

double an_percentile(const double *x, size_t n, double p)
{
	if (!n)
		return NAN;
	double *c = xmalloc(n * sizeof(double));
	memcpy(c, x, n * sizeof(double));
	sort_doubles(c, n);
	double r = an_percentile_sorted(c, n, p);
	free(c);
	return r;
}

/* ---- outliers ---- */

/* index of the first element >= v in sorted a[0..n) */
static size_t lower_bound(const double *a, size_t n, double v)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (a[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* outliers outside median +- k (P[phi] - P[plo]) of the sliding window (an_outliers: P90 - P10) */
static size_t outliers_band(const double *x, size_t n, long w, double k, double plo, double phi, size_t *out)
{
	size_t h = w > 1 ? (size_t)w / 2 : 0;
	if (h == 0 || n <= h)
		return 0;
	size_t cap = 2 * h;
	double *win = xmalloc(cap * sizeof(double));
	size_t wn = n < cap ? n : cap;
	memcpy(win, x, wn * sizeof(double));
	sort_doubles(win, wn);
	size_t nout = 0, qn = 0, ql[3] = { 0 };
	double qf[3] = { 0 };
	const double pq[3] = { plo, 50, phi };
	for (size_t i = h; i < n; i++) {
		if (i > h) {
			/* window [i-h, i+h): x[i-1-h] leaves, x[i+h-1] enters */
			double gone = x[i - 1 - h];
			size_t at = lower_bound(win, wn, gone);
			if (i + h - 1 >= n) {
				memmove(win + at, win + at + 1, (wn - at - 1) * sizeof(double));
				wn--;
			} else if (x[i + h - 1] >= gone) {
				/* one move: what lies between the two places shifts by one */
				double v = x[i + h - 1];
				size_t to = at + 1 + lower_bound(win + at + 1, wn - at - 1, v);
				memmove(win + at, win + at + 1, (to - at - 1) * sizeof(double));
				win[to - 1] = v;
			} else {
				double v = x[i + h - 1];
				size_t to = lower_bound(win, at, v);
				memmove(win + to + 1, win + to, (at - to) * sizeof(double));
				win[to] = v;
			}
		}
		if (wn != qn) { /* the percentiles' places, as an_percentile_sorted finds them, for this size */
			qn = wn;
			for (int q = 0; q < 3; q++) {
				double pos = (double)(wn - 1) * pq[q] / 100.0;
				ql[q] = (size_t)floor(pos);
				qf[q] = pos - (double)ql[q];
			}
		}
		double pv[3];
		for (int q = 0; q < 3; q++)
			pv[q] = ql[q] >= wn - 1 ? win[wn - 1] : win[ql[q]] + (win[ql[q] + 1] - win[ql[q]]) * qf[q];
		double med = pv[1];
		double band = k * (pv[2] - pv[0]);
		if (x[i] > med + band || x[i] < med - band)
			out[nout++] = i;
	}
	free(win);
	return nout;
}

size_t an_outliers(const double *x, size_t n, long w, double k, size_t *out)
{
	return outliers_band(x, n, w, k, 10, 90, out);
}

/* ---- per pexec ---- */

static size_t opt_count(long n, double pct, size_t iters)
{
	if (pct > 0)
		return (size_t)floor((double)iters * pct / 100.0);
	return (size_t)n;
}

/*
 * --replicate-warmup-stats: what R's changepoint 2.2.2 computes, operation
 * for operation.  Its cumulative sums (R's cumsum: a long double
 * accumulator stored as double) of x and x^2, not centred; sigma^2 =
 * (x2 - x^2/n)/n floored at 1e-11 when <= 0; cost n (log(2 pi) + log
 * sigma^2 + 1) with libm's log; PELT taking the first minimum and pruning
 * at once.  Rounding noise included: that is the point.
 */
static double r_cost(double s1, double s2, int len)
{
	double sigsq = (s2 - ((s1 * s1) / len)) / len;
	if (sigsq <= 0)
		sigsq = 0.00000000001;
	return len * (log(2 * M_PI) + log(sigsq) + 1);
}

static size_t r_pelt(const double *x, size_t n, double pen, size_t *ends)
{
	if (n < 2 * AN_MINSEG) {
		ends[0] = n;
		return 1;
	}
	double *S1 = xmalloc((n + 1) * sizeof(double)), *S2 = xmalloc((n + 1) * sizeof(double));
	double *F = xcalloc(n + 1, sizeof(double)), *tmp = xmalloc(n * sizeof(double));
	size_t *last = xcalloc(n + 1, sizeof(size_t)), *cl = xmalloc((n + 1) * sizeof(size_t)), ncl = 0;
	long double a1 = 0, a2 = 0;
	S1[0] = S2[0] = 0;
	for (size_t i = 0; i < n; i++) {
		a1 += x[i];
		a2 += x[i] * x[i];
		S1[i + 1] = (double)a1;
		S2[i + 1] = (double)a2;
	}
	F[0] = -pen;
	for (size_t j = AN_MINSEG; j < 2 * AN_MINSEG; j++)
		F[j] = r_cost(S1[j], S2[j], (int)j);
	cl[ncl++] = 0;
	cl[ncl++] = AN_MINSEG;
	for (size_t t = 2 * AN_MINSEG; t <= n; t++) {
		size_t best = 0;
		for (size_t i = 0; i < ncl; i++) {
			tmp[i] = F[cl[i]] + r_cost(S1[t] - S1[cl[i]], S2[t] - S2[cl[i]], (int)(t - cl[i])) + pen;
			if (tmp[i] < tmp[best])
				best = i;
		}
		F[t] = tmp[best];
		last[t] = cl[best];
		size_t k = 0;
		for (size_t i = 0; i < ncl; i++)
			if (tmp[i] <= F[t] + pen)
				cl[k++] = cl[i];
		ncl = k;
		cl[ncl++] = t - (AN_MINSEG - 1);
	}
	size_t ns = an_backtrack(last, n, ends);
	free(S1);
	free(S2);
	free(F);
	free(tmp);
	free(last);
	free(cl);
	return ns;
}

/* R's mean(): a long double sum, then a correction pass */
static double r_mean(const double *x, size_t n)
{
	long double s = 0;
	for (size_t i = 0; i < n; i++)
		s += x[i];
	s /= (long double)n;
	if (isfinite((double)s)) {
		long double t = 0;
		for (size_t i = 0; i < n; i++)
			t += (x[i] - s);
		s += t / (long double)n;
	}
	return (double)s;
}

/* R's var() (its cov.c, long double sums of double products), made the MLE as changepoint does */
static double r_var_mle(const double *x, size_t n)
{
	if (n < 2)
		return NAN;
	double xm = r_mean(x, n);
	long double s = 0;
	for (size_t i = 0; i < n; i++)
		s += (x[i] - xm) * (x[i] - xm);
	double v = (double)(s / (long double)(n - 1));
	return v * (double)(n - 1) / (double)n;
}

/* the segments' mean and MLE variance, of their non-outlier values y[b, e) */
static void segment_stats(const double *y, size_t b, size_t e, int replicate, struct an_segment *sg)
{
	if (replicate) {
		sg->mean = r_mean(y + b, e - b);
		sg->var = r_var_mle(y + b, e - b);
		return;
	}
	/* shifted by the first value: a constant segment has exactly its value as mean and 0 as variance */
	double d = 0, v = 0;
	for (size_t i = b; i < e; i++)
		d += y[i] - y[b];
	double mu = y[b] + d / (double)(e - b);
	for (size_t i = b; i < e; i++)
		v += (y[i] - mu) * (y[i] - mu);
	sg->mean = mu;
	sg->var = v / (double)(e - b);
}

/*
 * Changepoints of the series without outliers (y, with idx[i] the original
 * index of y[i]), as segments in indices of the original series of n.
 */
static void find_segments(const double *y, const size_t *idx, size_t m, size_t n, const struct an_opts *o,
			  struct an_pexec *p, struct anr_ac *ac)
{
	size_t *ends = xmalloc((m ? m : 1) * sizeof(size_t));
	double cost;
	double pen = o->penalty * log((double)(m > 1 ? m : 1));
	/*
	 * The default method: autocorrelated noise wanders, and PELT, which
	 * takes the values as independent, would cut the wanders into
	 * segments; the penalty is scaled by the variance inflation p->tau its
	 * key's noise shows (anr_ac_tau: 1 for independent noise), which the
	 * residuals of this cut at the plain penalty tell (ac).
	 */
	size_t ns = o->replicate ? r_pelt(y, m, pen, ends) : an_pelt(y, m, pen * p->tau, ends, &cost);
	if (ac)
		anr_ac_add(y, m, ends, ns, ac);
	p->segs = xcalloc(ns, sizeof(*p->segs));
	p->nsegs = ns;
	size_t b = 0;
	for (size_t s = 0; s < ns; s++) {
		size_t e = ends[s];
		struct an_segment *sg = &p->segs[s];
		sg->start = s == 0 ? 0 : idx[b - 1] + 1;
		sg->end = s == ns - 1 ? n : idx[e - 1] + 1;
		segment_stats(y, b, e, o->replicate, sg);
		b = e;
	}
	free(ends);
}

static double pexec_delta(const struct an_opts *o, const struct an_pexec *p)
{
	double d = o->delta >= 0 ? o->delta : INFINITY;
	if (o->delta_pct > 0) {
		double fastest = INFINITY;
		for (size_t s = 0; s < p->nsegs; s++)
			if (p->segs[s].mean < fastest)
				fastest = p->segs[s].mean;
		double pd = fabs(fastest) * o->delta_pct / 100.0;
		if (pd < d)
			d = pd;
	}
	return isfinite(d) ? d : 0;
}

static int overlaps(const struct an_segment *sg, double lo, double hi)
{
	return sg->mean + sg->var >= lo && sg->mean - sg->var <= hi;
}

/*
 * The class, as warmup_stats walks it: the last segment is the reference,
 * its band mean +- max(var, delta); earlier segments are visited from the
 * second last backwards.  One overlapping the band is equivalent; one whose
 * last iteration lies after n - steady means no steady state; one faster
 * than the band, slowdown (the walk stops there); a slower one makes it
 * warmup so far, and the walk goes on (an earlier segment may still be
 * faster).  Then the steady state: the run of equivalent segments at the end.
 */
/* the last segment's mean +- max(var, delta) */
static void band_of(const struct an_pexec *p, double delta, double *lo, double *hi)
{
	const struct an_segment *ls = &p->segs[p->nsegs - 1];
	double halfw = ls->var > delta ? ls->var : delta;
	*lo = ls->mean - halfw;
	*hi = ls->mean + halfw;
}

double an_delta(const struct an_pexec *p, const struct an_opts *o)
{
	return pexec_delta(o, p);
}

void an_delta_text(const struct an_opts *o, struct strbuf *sb)
{
	const struct time_unit *tu = time_unit_for(o->delta);
	if (o->delta_pct > 0 && o->delta >= 0)
		sb_addf(sb, "min(%g %s, %g%% of the fastest segment)", o->delta * tu->scale, tu->name, o->delta_pct);
	else if (o->delta_pct > 0)
		sb_addf(sb, "%g%% of the fastest segment", o->delta_pct);
	else
		sb_addf(sb, "%g %s", o->delta * tu->scale, tu->name);
}

void an_band(const struct an_pexec *p, const struct an_opts *o, double *lo, double *hi)
{
	band_of(p, pexec_delta(o, p), lo, hi);
}

/* the values of segment j that are no outliers */
static size_t seg_kept(const struct an_pexec *p, size_t j)
{
	const struct an_segment *sg = &p->segs[j];
	size_t a = 0, b = p->noutliers;
	while (a < b && p->outliers[a] < sg->start)
		a++;
	while (b > a && p->outliers[b - 1] >= sg->end)
		b--;
	return sg->end - sg->start - (b - a);
}

/*
 * Is segment j equivalent to the last one?  warmup_stats: its mean +- var
 * overlaps the band.  The default method also when its mean is within the
 * noise of the steady state's (anr_same_level, autocorrelation included;
 * the noise of the segments after j, which the steady state is made of):
 * a difference PELT found in noise that is not normal and independent
 * (heavy tails, a wander) is no change of level.
 */
static int equivalent(const struct an_pexec *p, size_t j, double lo, double hi, int replicate)
{
	const struct an_segment *sg = &p->segs[j], *ref = &p->segs[p->nsegs - 1];
	if (overlaps(sg, lo, hi))
		return 1;
	if (replicate)
		return 0;
	double v = 0;
	size_t n = 0;
	for (size_t q = j + 1; q < p->nsegs; q++) {
		size_t c = seg_kept(p, q);
		v += p->segs[q].var * (double)c;
		n += c;
	}
	v = n ? v / (double)n : 0;
	return anr_same_level(sg->mean, v, seg_kept(p, j), ref->mean, v, seg_kept(p, p->nsegs - 1), p->tau);
}

/* a segment between two at the steady level: is its mean within its own noise of the reference's? */
static int same_level_own(const struct an_pexec *p, size_t j)
{
	const struct an_segment *sg = &p->segs[j], *ref = &p->segs[p->nsegs - 1];
	return anr_same_level(sg->mean, sg->var, seg_kept(p, j), ref->mean, ref->var, seg_kept(p, p->nsegs - 1),
			      p->tau);
}

/*
 * Which segments are equivalent to the last one (eq[j]).  The default
 * method adds excursions: a run of segments between two equivalent ones
 * that is `transient` iterations long at most (half the outlier window),
 * or whose segments are each within their own noise of the reference (a
 * noisier stretch, not another level), is a clump of pauses the outlier
 * window could not see as such, not a change of level.  So a steady state
 * is not cut at it, and a late one does not make "no steady state".  A run
 * from the first iteration is no excursion: that is where warmup is, noisy
 * with compilations, and it must be unlike the steady state, not like
 * itself.
 */
static void equivalents(const struct an_pexec *p, double lo, double hi, int replicate, size_t transient, char *eq)
{
	for (size_t j = 0; j < p->nsegs; j++)
		eq[j] = j == p->nsegs - 1 || equivalent(p, j, lo, hi, replicate);
	for (size_t j = 1; !replicate && j + 1 < p->nsegs; j++) {
		if (eq[j] || !eq[j - 1])
			continue;
		size_t r = j;
		int noisy = 1;
		while (!eq[r])
			noisy &= same_level_own(p, r++); /* ends at the last segment at the latest: it is equivalent */
		if (p->segs[r - 1].end - p->segs[j].start <= transient || noisy)
			memset(eq + j, 1, r - j);
		j = r;
	}
}

static void classify(struct an_pexec *p, double delta, long steady, int replicate, size_t transient)
{
	double lo, hi;
	band_of(p, delta, &lo, &hi);
	char *eq = xmalloc(p->nsegs);
	equivalents(p, lo, hi, replicate, transient, eq);
	p->cls = AN_FLAT;
	for (size_t j = p->nsegs - 1; j-- > 0;) {
		const struct an_segment *sg = &p->segs[j];
		if (eq[j])
			continue;
		if ((long)sg->end - 1 > (long)p->n - steady) {
			p->cls = AN_NO_STEADY;
			break;
		}
		if (sg->mean + sg->var < lo) {
			p->cls = AN_SLOWDOWN;
			break;
		}
		p->cls = AN_WARMUP;
	}
	p->first_steady = p->nsegs - 1;
	while (p->first_steady > 0 && eq[p->first_steady - 1])
		p->first_steady--;
	free(eq);
}

/*
 * Where the steady state starts and what it costs to get there.  kiln's
 * convention (docs/analysis.md): the steady iteration is the number of
 * iterations before the steady state (the 0-based index of its first
 * iteration, warmup_stats' number wherever a pexec has changepoints), the
 * time to steady state their wall time, outliers included.  The pexec's
 * steady mean is what a steady iteration costs: the mean of every
 * iteration from the steady start on, pauses (outliers) included;
 * warmup_stats' - the mean of its steady segments' means, unweighted,
 * outliers left out - is beside it (steady_mean_clean), and is the steady
 * mean under --replicate-warmup-stats.  The warmup cost is the time the
 * iterations before the steady state took beyond the steady mean.
 * --replicate-warmup-stats: a flat pexec's steady iteration is 1, and the
 * time sums one iteration fewer (warmup_stats' errors).
 */
static void steady_part(struct an_pexec *p, const double *x, const struct an_opts *o)
{
	if (p->cls == AN_NO_STEADY) {
		p->steady_start = p->n;
		p->steady_iter = -1;
		p->time_to_steady = NAN;
		p->steady_mean = p->steady_mean_clean = p->warmup_cost = NAN;
		return;
	}
	size_t st = p->segs[p->first_steady].start;
	p->steady_start = st;
	p->steady_iter = (long)st;
	size_t upto = st;
	if (o->replicate) {
		if (p->cls == AN_FLAT) {
			p->steady_iter = 1;
			upto = 0;
		} else
			upto = st - 1;
	}
	double t = 0;
	for (size_t i = 0; i < upto; i++)
		t += x[i];
	p->time_to_steady = t;
	double sum = 0;
	for (size_t s = p->first_steady; s < p->nsegs; s++)
		sum += p->segs[s].mean;
	p->steady_mean = p->steady_mean_clean = sum / (double)(p->nsegs - p->first_steady);
	if (!o->replicate) {
		sum = 0;
		for (size_t i = st; i < p->n; i++)
			sum += x[i];
		p->steady_mean = sum / (double)(p->n - st);
	}
	p->warmup_cost = 0;
	for (size_t i = 0; i < st; i++)
		p->warmup_cost += x[i] - p->steady_mean;
}

/*
 * Start p's steady state at y[at] (original iteration idx[at]), inside it
 * (y[0, m) the values without outliers, idx[] their iterations):
 * the steady segment holding it is cut there, the steady segments before
 * the cut are no longer steady, and a pexec that was flat becomes warmup
 * (or slowdown) by what lies before.  The segments' means and variances
 * are of the values without outliers, as find_segments makes them.
 */
static void split_steady(struct an_pexec *p, const double *y, const size_t *idx, size_t m, size_t at)
{
	size_t cut = idx[at], q = p->first_steady;
	while (q < p->nsegs && p->segs[q].end <= cut)
		q++;
	if (q == p->nsegs)
		return;
	if (p->segs[q].start < cut) {
		p->segs = xrealloc(p->segs, (p->nsegs + 1) * sizeof(*p->segs));
		memmove(p->segs + q + 1, p->segs + q, (p->nsegs - q) * sizeof(*p->segs));
		p->nsegs++;
		p->segs[q].end = cut;
		p->segs[q + 1].start = cut;
		/* the two parts' values: y indices [b, at) and [at, e) */
		size_t b = at, e = at;
		while (b > 0 && idx[b - 1] >= p->segs[q].start)
			b--;
		while (e < m && idx[e] < p->segs[q + 1].end)
			e++;
		segment_stats(y, b, at, 0, &p->segs[q]);
		segment_stats(y, at, e, 0, &p->segs[q + 1]);
		q++;
	}
	p->first_steady = q;
	if (p->cls == AN_FLAT) {
		double lo, hi;
		band_of(p, p->delta, &lo, &hi);
		p->cls = p->segs[q - 1].mean < lo ? AN_SLOWDOWN : AN_WARMUP;
	}
}

/*
 * The default method's drift test: a steady part (no steady state: the
 * last segment) whose values trend by more than delta, significantly, and
 * along a line rather than a step, is no steady state (anr_trend,
 * anr_is_drift).  y[0, m) are the values without outliers, idx[] their
 * iterations.
 */
static void drift_check(struct an_pexec *p, const double *y, const size_t *idx, size_t m, size_t win, size_t steady)
{
	p->drift_rate = p->drift_late = NAN;
	p->drift_span = 0;
	size_t start = p->segs[p->cls == AN_NO_STEADY ? p->nsegs - 1 : p->first_steady].start, from = 0;
	while (from < m && idx[from] < start)
		from++;
	if (p->cls != AN_NO_STEADY) {
		/* a warmup's tail in the steady part (anr_tail_end): the steady state starts after it */
		size_t end = anr_tail_end(y, from, m, p->delta, win > 5 ? win : 5, p->tau);
		if (end > from && p->n - idx[end] >= steady) {
			split_steady(p, y, idx, m, end);
			from = end;
		}
	}
	struct anr_trend t;
	if (!anr_trend(y, idx, from, m, &t))
		return;
	p->drift_rate = t.rate;
	p->drift_span = t.span;
	struct anr_trend late;
	p->drift_late = anr_trend(y, idx, from + (m - from) / 2, m, &late) ? late.rate : NAN;
	if (anr_is_drift(&t, p->segs[p->nsegs - 1].mean, p->delta)) {
		p->warn |= AN_WARN_DRIFT;
		p->cls = AN_NO_STEADY;
	}
}

/*
 * The default's second look: pauses that come in clumps widen the windows
 * around them until a quarter of a window is pauses; with the pauses the
 * first look found taken out, the windows are the steady noise again and
 * show the rest of the clump.  The same band on the series without
 * out[0, nout) (ascending), its outliers merged in; returns the count.
 */
static size_t outliers_again(const double *x, size_t n, long w, double k, size_t *out, size_t nout)
{
	if (!nout)
		return nout;
	double *y = xmalloc(n * sizeof(double));
	size_t *idx = xmalloc(n * sizeof(size_t)), *more = xmalloc(n * sizeof(size_t)), m = 0, q = 0;
	for (size_t i = 0; i < n; i++) {
		if (q < nout && out[q] == i) {
			q++;
			continue;
		}
		y[m] = x[i];
		idx[m++] = i;
	}
	size_t nm = outliers_band(y, m, w, k, ANR_OUT_PLO, ANR_OUT_PHI, more);
	size_t h = w > 1 ? (size_t)w / 2 : 0, *all = xmalloc((nout + nm) * sizeof(size_t)), na = 0, a = 0, b = 0;
	/* merge, ascending; the early iterations stay the key's to decide (anr_early_find) */
	while (a < nout || b < nm) {
		size_t vb = b < nm ? idx[more[b]] : SIZE_MAX;
		if (b < nm && vb < h) {
			b++;
			continue;
		}
		if (a < nout && (b == nm || out[a] < vb))
			all[na++] = out[a++];
		else {
			all[na++] = vb;
			b++;
		}
	}
	memcpy(out, all, na * sizeof(size_t));
	free(all);
	free(y);
	free(idx);
	free(more);
	return na;
}

/*
 * A pexec's outliers, first step: those at w/2 and after; the default's
 * band spread is P75 - P25, which pauses do not inflate until a quarter of
 * the window is pauses, and it finds the candidates among the first w/2
 * (anr_early_find), which its key then decides on (anr_early_decide).
 */
static void pexec_outliers(const double *x, size_t n, const struct an_opts *o, struct an_pexec *p,
			   struct anr_early *e)
{
	long w = (long)opt_count(o->window, o->window_pct, n);
	p->n = n;
	p->outliers = xmalloc((n ? n : 1) * sizeof(size_t));
	memset(e, 0, sizeof(*e));
	if (o->replicate) {
		p->noutliers = an_outliers(x, n, w, o->outlier_k, p->outliers);
	} else {
		p->noutliers = outliers_band(x, n, w, o->outlier_k, ANR_OUT_PLO, ANR_OUT_PHI, p->outliers);
		p->noutliers = outliers_again(x, n, w, o->outlier_k, p->outliers, p->noutliers);
		anr_early_find(x, n, w > 1 ? (size_t)w / 2 : 0, o->outlier_k, p->outliers, p->noutliers, e);
	}
	/* kept with the result: only what it holds (a pexec's n would be 60 MB at Barrett scale) */
	p->outliers = xrealloc(p->outliers, (p->noutliers ? p->noutliers : 1) * sizeof(size_t));
}

/* the series x[0, n) without p's outliers, y[0, m), and where each value came from; returns m */
static size_t kept_values(const double *x, size_t n, const struct an_pexec *p, double **y, size_t **idx)
{
	*y = xmalloc((n ? n : 1) * sizeof(double));
	*idx = xmalloc((n ? n : 1) * sizeof(size_t));
	size_t m = 0, oi = 0;
	for (size_t i = 0; i < n; i++) {
		if (oi < p->noutliers && p->outliers[oi] == i) {
			oi++;
			continue;
		}
		(*y)[m] = x[i];
		(*idx)[m++] = i;
	}
	return m;
}

/*
 * Once the key decided on the early candidates (merged into the
 * outliers): the changepoints at the plain penalty (p->tau = 1), whose
 * residuals' autocorrelation goes to ac for the key.
 */
static void pexec_cut(const double *x, size_t n, const struct an_opts *o, struct an_pexec *p, struct anr_ac *ac)
{
	double *y;
	size_t *idx, m = kept_values(x, n, p, &y, &idx);
	p->tau = 1;
	find_segments(y, idx, m, n, o, p, o->replicate ? NULL : ac);
	free(y);
	free(idx);
}

/*
 * The rest, once the key decided on the autocorrelation of its noise
 * (p->tau; above 1, the changepoints again at the penalty it scales):
 * class, drift and steady part.
 */
static void pexec_rest(const double *x, size_t n, const struct an_opts *o, struct an_pexec *p)
{
	double *y;
	size_t *idx, m = kept_values(x, n, p, &y, &idx);
	if (p->tau > 1) {
		free(p->segs);
		find_segments(y, idx, m, n, o, p, NULL);
	}
	p->delta = pexec_delta(o, p);
	classify(p, p->delta, (long)opt_count(o->steady, o->steady_pct, n), o->replicate,
		 o->replicate ? 0 : opt_count(o->window, o->window_pct, n) / 2);
	p->drift_rate = NAN;
	if (!o->replicate)
		drift_check(p, y, idx, m, opt_count(o->window, o->window_pct, n) / 2,
			    opt_count(o->steady, o->steady_pct, n));
	steady_part(p, x, o);
	free(y);
	free(idx);
}

/*
 * The key's first decision, between its pexecs' outliers and their first
 * cut: which early candidates are pauses (anr_early_decide), merged into
 * the outliers of its np pexecs p[] (candidates e[], freed).  Nothing
 * under replicate.
 */
static void key_early(struct an_pexec *p, struct anr_early *e, size_t np, const struct an_opts *o)
{
	if (!o->replicate)
		anr_early_decide(e, np);
	for (size_t i = 0; i < np; i++) {
		p[i].noutliers = anr_early_merge(&e[i], &p[i].outliers, p[i].noutliers);
		anr_early_free(&e[i]);
	}
}

/* the key's second decision: the autocorrelation of its noise, from its pexecs' cuts (ac) */
static void key_tau(struct an_pexec *p, size_t np, const struct anr_ac *ac, const struct an_opts *o)
{
	double tau = o->replicate ? 1 : anr_ac_tau(ac);
	for (size_t i = 0; i < np; i++)
		p[i].tau = tau;
}

/* all of it for the series x[0, n) alone, as a key of one pexec (the short-series test aside) */
static void pexec_core(const double *x, size_t n, const struct an_opts *o, struct an_pexec *p)
{
	struct anr_early e;
	struct anr_ac ac = { 0, 0 };
	pexec_outliers(x, n, o, p, &e);
	key_early(p, &e, 1, o);
	pexec_cut(x, n, o, p, &ac);
	key_tau(p, 1, &ac, o);
	pexec_rest(x, n, o, p);
}

/* the first iterations the short-series test looks at: the outlier window's half, at least 3 */
static size_t short_lead(size_t n, const struct an_opts *o)
{
	size_t h = opt_count(o->window, o->window_pct, n) / 2;
	return h > 3 ? h : 3;
}

/* the last excursion of p's steady part (anr_excursion), -1 if none */
static long pexec_excursion(const struct an_pexec *p, const double *x, const struct an_opts *o)
{
	if (p->cls == AN_NO_STEADY)
		return -1;
	int examined = opt_count(o->window, o->window_pct, p->n) >= ANR_SHORT_WINDOW;
	return anr_excursion(x, p->n, p->steady_start, short_lead(p->n, o), examined, p->outliers, p->noutliers,
			     o->outlier_k, p->delta);
}

/* anr_short_need's re-analysis: is the excursion still in the steady part of the longer series? */
static int still_short(const double *x, size_t n, void *ctx)
{
	const struct an_opts *o = ctx;
	struct an_pexec q;
	memset(&q, 0, sizeof(q));
	pexec_core(x, n, o, &q);
	int r = q.cls == AN_NO_STEADY || pexec_excursion(&q, x, o) >= 0;
	free(q.outliers);
	free(q.segs);
	return r;
}

/*
 * The short-series test: a steady part that starts with iterations far
 * above all the rest of it, or, where the outlier window is too short to
 * examine anything, that holds iterations far above it, holds warmup the
 * method could not separate (too few iterations for the outlier window
 * and the changepoint penalty).  AN_WARN_SHORT, and how many iterations
 * would do: the series grown by a resample of what follows the excursion
 * (of the whole steady part when little follows).
 */
static void short_check(struct an_pexec *p, const double *x, const struct an_opts *o)
{
	p->short_need = 0;
	long at = pexec_excursion(p, x, o);
	if (at < 0)
		return;
	p->warn |= AN_WARN_SHORT;
	size_t from = (size_t)at + 1;
	if (p->n - from < 3)
		from = p->steady_start;
	p->short_need = anr_short_need(x, p->n, from, o->seed, still_short, (void *)o);
}

/* a pexec of a key, in steps around its key's decisions (key_early, key_tau) */
static void analyse_pexec_outliers(const struct ds_pexec *dp, const struct an_opts *o, struct an_pexec *p,
				   struct anr_early *e)
{
	p->num = dp->num;
	pexec_outliers(dp->wall, dp->n, o, p, e);
}

static void analyse_pexec_rest(const struct ds_pexec *dp, const struct an_opts *o, struct an_pexec *p)
{
	pexec_rest(dp->wall, dp->n, o, p);
	if (!o->replicate)
		short_check(p, dp->wall, o);
}

/* ---- per key ---- */

static int usable(const struct ds_pexec *p)
{
	return p->status == DS_OK && p->n > 0 && p->wall;
}

static void key_init(const struct ds_key *k, struct an_key *out)
{
	memset(out, 0, sizeof(*out));
	out->key = k;
	out->p = xcalloc(k->npexecs ? k->npexecs : 1, sizeof(*out->p));
	for (size_t i = 0; i < k->npexecs; i++) {
		if (usable(&k->pexecs[i]))
			out->p[out->np++].index = i;
		else
			out->nskipped++;
	}
}

/* the summary of series s in k, made when new; names holds k's series names by index (no linear search) */
static struct an_series_sum *series_slot(struct an_key *k, struct strmap *names, const struct ds_series *s)
{
	size_t i = strmap_add(names, s->name);
	if (i < k->nseries)
		return &k->series[i];
	if ((k->nseries & (k->nseries - 1)) == 0) /* grown at powers of two */
		k->series = xrealloc(k->series, (k->nseries ? 2 * k->nseries : 1) * sizeof(*k->series));
	struct an_series_sum *r = &k->series[k->nseries++];
	memset(r, 0, sizeof(*r));
	r->name = xstrdup(s->name);
	r->unit = xstrdup(s->unit ? s->unit : "");
	return r;
}

/* one more segment of s: the values x[from, to) that are not outliers (out[0..nout) ascending) */
static void sample_add(struct an_sample *s, const double *x, size_t from, size_t to, const size_t *out, size_t nout)
{
	s->seg = xrealloc(s->seg, (s->nseg + 1) * sizeof(*s->seg));
	s->len = xrealloc(s->len, (s->nseg + 1) * sizeof(*s->len));
	double *v = xmalloc((to > from ? to - from : 1) * sizeof(double));
	size_t n = 0, oi = 0;
	for (size_t j = from; j < to; j++) {
		while (oi < nout && out[oi] < j)
			oi++;
		if (oi < nout && out[oi] == j)
			continue;
		v[n++] = x[j];
	}
	s->seg[s->nseg] = v;
	s->len[s->nseg++] = n;
}

static void sample_end_group(struct an_sample *s)
{
	s->group_end = xrealloc(s->group_end, (s->ngroups + 1) * sizeof(*s->group_end));
	s->group_end[s->ngroups++] = s->nseg;
}

void an_sample_of(const struct an_key *k, const struct an_opts *o, struct an_sample *s)
{
	memset(s, 0, sizeof(*s));
	if (k->whole) {
		double *v = xmalloc((k->np ? k->np : 1) * sizeof(double));
		for (size_t i = 0; i < k->np; i++)
			v[i] = k->key->pexecs[k->p[i].index].wall[0];
		sample_add(s, v, 0, k->np, NULL, 0);
		sample_end_group(s);
		free(v);
		return;
	}
	for (size_t i = 0; i < k->np; i++) {
		const struct an_pexec *p = &k->p[i];
		if (p->cls == AN_NO_STEADY || an_left_out(k, p))
			continue;
		const double *x = k->key->pexecs[p->index].wall;
		for (size_t q = p->first_steady; q < p->nsegs; q++) {
			size_t from = p->segs[q].start;
			/* warmup_stats starts the last segment at its changepoint, one iteration early */
			if (o->replicate && q == p->nsegs - 1 && q > 0)
				from--;
			/* the default: what a steady iteration costs, pauses (outliers) included */
			sample_add(s, x, from, p->segs[q].end, p->outliers, o->replicate ? p->noutliers : 0);
		}
		sample_end_group(s);
	}
}

void an_sample_free(struct an_sample *s)
{
	for (size_t i = 0; i < s->nseg; i++)
		free(s->seg[i]);
	free(s->seg);
	free(s->len);
	free(s->group_end);
	memset(s, 0, sizeof(*s));
}

/* median, 5th and 95th percentiles of v[0..n) (reorders v) */
static void med_p5_p95(double *v, size_t n, double *med, double *p5, double *p95)
{
	sort_doubles(v, n);
	*med = an_percentile_sorted(v, n, 50);
	*p5 = an_percentile_sorted(v, n, 5);
	*p95 = an_percentile_sorted(v, n, 95);
}

/*
 * The pexecs' steady iteration and time to reach it (those left out
 * aside), when some pexec is not flat.  Iterations are counted, so the default's median and 5th and
 * 95th percentiles of the steady iteration are pexecs' own numbers (the
 * nearest rank: the ceil(p/100 * N)-th smallest; the median of an even
 * count the lower middle one); warmup_stats interpolates (29.45).
 */
static void key_steady_iters(struct an_key *k, int replicate)
{
	double *it = xmalloc(k->np * sizeof(double)), *tt = xmalloc(k->np * sizeof(double));
	size_t n = 0, flat = 0;
	for (size_t i = 0; i < k->np; i++) {
		if (an_left_out(k, &k->p[i]))
			continue;
		flat += k->p[i].cls == AN_FLAT;
		it[n] = (double)k->p[i].steady_iter;
		tt[n++] = k->p[i].time_to_steady;
	}
	/* all flat (the pexecs left out aside): none, as in warmup_stats */
	if (flat < n) {
		med_p5_p95(it, n, &k->iter_med, &k->iter_p5, &k->iter_p95);
		if (!replicate) {
			const double p[3] = { 50, 5, 95 };
			double *dst[3] = { &k->iter_med, &k->iter_p5, &k->iter_p95 };
			for (int q = 0; q < 3; q++) {
				size_t r = (size_t)ceil(p[q] / 100.0 * (double)n);
				*dst[q] = it[r ? r - 1 : 0];
			}
		}
		med_p5_p95(tt, n, &k->tts_med, &k->tts_p5, &k->tts_p95);
	}
	free(it);
	free(tt);
}

/* a per-pexec scalar (user_time, sys_time, max_rss) of pexec i, NAN if it has none */
static double scalar_of(const struct an_key *k, size_t i, const char *name)
{
	const struct ds_pexec *dp = &k->key->pexecs[k->p[i].index];
	for (size_t s = 0; s < dp->nscalars; s++)
		if (!strcmp(dp->scalars[s].name, name))
			return dp->scalars[s].value;
	return NAN;
}

/* mean of a scalar over the pexecs that have it (and its largest value) */
static double scalar_mean(const struct an_key *k, const char *name, double *maxp)
{
	double sum = 0, mx = NAN;
	size_t n = 0;
	for (size_t i = 0; i < k->np; i++) {
		double v = scalar_of(k, i, name);
		if (isnan(v))
			continue;
		sum += v;
		n++;
		if (!(v <= mx))
			mx = v;
	}
	if (maxp)
		*maxp = mx;
	return n ? sum / (double)n : NAN;
}

/* one iteration per pexec: what hyperfine reports, over the pexecs */
static void key_whole(struct an_key *k)
{
	struct an_whole *w = &k->wp;
	double *v = xmalloc(k->np * sizeof(double));
	double sum = 0;
	for (size_t i = 0; i < k->np; i++) {
		v[i] = k->key->pexecs[k->p[i].index].wall[0];
		sum += v[i];
	}
	w->mean = sum / (double)k->np;
	double ss = 0;
	for (size_t i = 0; i < k->np; i++)
		ss += (v[i] - w->mean) * (v[i] - w->mean);
	w->sd = k->np > 1 ? sqrt(ss / (double)(k->np - 1)) : NAN;
	sort_doubles(v, k->np);
	w->median = an_percentile_sorted(v, k->np, 50);
	w->min = v[0];
	w->max = v[k->np - 1];
	free(v);
	w->user = scalar_mean(k, "user_time", NULL);
	w->sys = scalar_mean(k, "sys_time", NULL);
	w->rss_mean = scalar_mean(k, "max_rss", &w->rss_max);
}

static void key_series(struct an_key *k);

int an_pexec_no_figure(const struct an_pexec *p)
{
	return p->cls == AN_NO_STEADY || (p->warn & AN_WARN_SHORT);
}

int an_left_out(const struct an_key *k, const struct an_pexec *p)
{
	return k->left_out && an_pexec_no_figure(p);
}

/*
 * A key's warnings, of the key as a whole (the default method): too short
 * when more than 1 in AN_LEFT_OUT_DEN of its pexecs are, drift by its own
 * test over the pexecs (anr_key_drift) or when more than 1 in
 * AN_LEFT_OUT_DEN drift on their own; not the OR of its pexecs' flags,
 * which stay on the pexecs.  Its pexecs without a figure, while at most 1
 * in AN_LEFT_OUT_DEN, are left out of its steady figures (left_out).  A
 * drifting key has no steady state, whatever its pexecs' classes; a short
 * one keeps them, and the most iterations a pexec would need.
 */
static void key_warnings(struct an_key *k, const struct an_opts *o)
{
	k->drift_rate = k->drift_lo = k->drift_hi = k->drift_span = NAN;
	size_t nshort = 0, ndrift = 0, nout = 0;
	for (size_t i = 0; i < k->np; i++) {
		const struct an_pexec *p = &k->p[i];
		nshort += (p->warn & AN_WARN_SHORT) != 0;
		ndrift += (p->warn & AN_WARN_DRIFT) != 0;
		nout += an_pexec_no_figure(p) != 0;
		if (p->short_need < 0 || k->short_need < 0)
			k->short_need = -1;
		else if (p->short_need > k->short_need)
			k->short_need = p->short_need;
	}
	if (o->replicate || k->whole)
		return;
	if (nout * AN_LEFT_OUT_DEN <= k->np)
		k->left_out = nout;
	else if (nshort * AN_LEFT_OUT_DEN > k->np)
		k->warn |= AN_WARN_SHORT;
	anr_key_drift(k, o);
	if (ndrift * AN_LEFT_OUT_DEN > k->np)
		k->warn |= AN_WARN_DRIFT;
	if (k->warn & AN_WARN_DRIFT)
		k->cls = AN_NO_STEADY;
}

static void key_summarise(struct an_key *k, const struct an_opts *o)
{
	k->whole = k->np > 0;
	for (size_t i = 0; i < k->np; i++) {
		const struct an_pexec *p = &k->p[i];
		k->counts[p->cls]++;
		k->whole &= p->n == 1;
		/* delta against the pexec's reference (its last segment's mean) */
		double ref = fabs(p->segs[p->nsegs - 1].mean);
		double r = ref > 0 ? p->delta / ref : p->delta > 0 ? INFINITY : 0;
		if (p->n > 1 && r > k->delta_ratio)
			k->delta_ratio = r;
	}
	int nclasses = 0;
	for (int c = 0; c < AN_NPCLASS; c++)
		nclasses += k->counts[c] > 0;
	if (!k->np)
		k->cls = AN_NO_DATA;
	else if (nclasses == 1)
		k->cls = k->p[0].cls;
	else if (!k->counts[AN_SLOWDOWN] && !k->counts[AN_NO_STEADY])
		k->cls = AN_GOOD_INCONSISTENT;
	else
		k->cls = AN_BAD_INCONSISTENT;
	key_warnings(k, o);
	k->has_steady = k->np > 0 && (!k->counts[AN_NO_STEADY] || k->left_out) && !(k->warn & AN_WARN_DRIFT);
	k->iter_med = k->iter_p5 = k->iter_p95 = NAN;
	k->tts_med = k->tts_p5 = k->tts_p95 = NAN;
	k->perf_med = k->perf_lo = k->perf_hi = k->perf_ci = k->perf_clean = NAN;
	if (k->has_steady)
		key_steady_iters(k, o->replicate);
	if (k->has_steady) {
		double c = 0;
		for (size_t i = 0; i < k->np; i++)
			c += an_left_out(k, &k->p[i]) ? 0 : k->p[i].steady_mean_clean;
		k->perf_clean = c / (double)(k->np - k->left_out);
	}
	if (k->has_steady && o->replicate) {
		struct an_sample smp;
		an_sample_of(k, o, &smp);
		an_bootstrap(&smp, o->resamples, o->seed, o->confidence, &k->perf_med, &k->perf_lo, &k->perf_hi);
		an_sample_free(&smp);
	} else if (k->has_steady) {
		/* the mean over the pexecs and its interval (stats-key.c, docs/statistics.md) */
		struct ks_mean m;
		an_key_mean(k, o, &m);
		k->perf_med = m.mean;
		k->perf_lo = m.lo;
		k->perf_hi = m.hi;
	}
	if (k->has_steady) {
		if (k->whole) {
			key_whole(k);
			k->perf_med = k->wp.mean;
		}
		k->perf_ci = ((k->perf_hi - k->perf_med) + (k->perf_med - k->perf_lo)) / 2.0;
	}
	key_series(k);
}

/* instrumentation: each series' mean per iteration before and after the steady state */
static void key_series(struct an_key *k)
{
	const struct ds_key *dk = k->key;
	struct strmap names = STRMAP_INIT;
	for (size_t i = 0; i < k->np; i++) {
		const struct an_pexec *p = &k->p[i];
		const struct ds_pexec *dp = &dk->pexecs[p->index];
		size_t st = p->steady_start;
		for (size_t s = 0; s < dp->nseries; s++) {
			const struct ds_series *ser = &dp->series[s];
			struct an_series_sum *sum = series_slot(k, &names, ser);
			for (size_t j = 0; j < ser->n; j++) {
				double v = ser->v[j];
				if (isnan(v))
					continue;
				if (j < st) {
					sum->before = sum->nbefore ? sum->before + v : v;
					sum->nbefore++;
				} else {
					sum->after = sum->nafter ? sum->after + v : v;
					sum->nafter++;
				}
			}
		}
	}
	strmap_clear(&names);
	for (size_t s = 0; s < k->nseries; s++) {
		struct an_series_sum *sum = &k->series[s];
		sum->before = sum->nbefore ? sum->before / (double)sum->nbefore : NAN;
		sum->after = sum->nafter ? sum->after / (double)sum->nafter : NAN;
	}
}

void an_analyse_key(const struct ds_key *k, const struct an_opts *o, struct an_key *out)
{
	key_init(k, out);
	struct anr_early *e = xcalloc(out->np ? out->np : 1, sizeof(*e));
	struct anr_ac ac = { 0, 0 };
	for (size_t i = 0; i < out->np; i++)
		analyse_pexec_outliers(&k->pexecs[out->p[i].index], o, &out->p[i], &e[i]);
	key_early(out->p, e, out->np, o);
	for (size_t i = 0; i < out->np; i++)
		pexec_cut(k->pexecs[out->p[i].index].wall, out->p[i].n, o, &out->p[i], &ac);
	key_tau(out->p, out->np, &ac, o);
	for (size_t i = 0; i < out->np; i++)
		analyse_pexec_rest(&k->pexecs[out->p[i].index], o, &out->p[i]);
	free(e);
	key_summarise(out, o);
}

void an_key_free(struct an_key *k)
{
	for (size_t i = 0; i < k->np; i++) {
		free(k->p[i].outliers);
		free(k->p[i].segs);
	}
	free(k->p);
	for (size_t i = 0; i < k->nseries; i++) {
		free(k->series[i].name);
		free(k->series[i].unit);
	}
	free(k->series);
	memset(k, 0, sizeof(*k));
}

/* ---- the threaded driver ---- */

struct job {
	const struct an_opts *o;
	struct an_key *keys;
	size_t nkeys;
	const char *todo;   /* per key: 1 to analyse it (NULL: every key) */
	size_t (*pairs)[2]; /* (key, analysed pexec), key by key */
	size_t npairs;
	/* the pexecs' steps, with their key's decisions between them (key_early, key_tau) */
	enum { STEP_OUTLIERS, STEP_CUT, STEP_REST } step;
	struct anr_early *early; /* per pair: its early candidates */
	struct anr_ac *ac;       /* per pair: its cut's residual autocorrelation */
	atomic_size_t next;
};

static void *pexec_worker(void *arg)
{
	struct job *j = arg;
	for (;;) {
		size_t i = atomic_fetch_add(&j->next, 1);
		if (i >= j->npairs)
			break;
		struct an_key *k = &j->keys[j->pairs[i][0]];
		struct an_pexec *p = &k->p[j->pairs[i][1]];
		const struct ds_pexec *dp = &k->key->pexecs[p->index];
		switch (j->step) {
		case STEP_OUTLIERS: analyse_pexec_outliers(dp, j->o, p, &j->early[i]); break;
		case STEP_CUT: pexec_cut(dp->wall, dp->n, j->o, p, &j->ac[i]); break;
		case STEP_REST: analyse_pexec_rest(dp, j->o, p); break;
		}
	}
	return NULL;
}

static void *key_worker(void *arg)
{
	struct job *j = arg;
	for (;;) {
		size_t i = atomic_fetch_add(&j->next, 1);
		if (i >= j->nkeys)
			break;
		if (!j->todo || j->todo[i])
			key_summarise(&j->keys[i], j->o);
	}
	return NULL;
}

/* run fn on nt threads (the caller being one); fewer if threads cannot start */
static void run_phase(void *(*fn)(void *), struct job *j, long nt)
{
	pthread_t th[64];
	long started = 0;
	atomic_store(&j->next, 0);
	for (long t = 1; t < nt; t++) {
		if (pthread_create(&th[started], NULL, fn, j))
			break;
		started++;
	}
	fn(j);
	for (long t = 0; t < started; t++)
		pthread_join(th[t], NULL);
}

void an_analyse_keys(const struct dataset *ds, const struct an_opts *o, const char *todo, struct an_key *keys)
{
	struct job j;
	memset(&j, 0, sizeof(j));
	j.o = o;
	j.keys = keys;
	j.nkeys = ds->nkeys;
	j.todo = todo;
	size_t total = 0;
	for (size_t i = 0; i < ds->nkeys; i++)
		if (!todo || todo[i]) {
			key_init(&ds->keys[i], &keys[i]);
			total += keys[i].np;
		}
	j.pairs = xmalloc((total ? total : 1) * sizeof(*j.pairs));
	for (size_t i = 0; i < ds->nkeys; i++)
		for (size_t p = 0; (!todo || todo[i]) && p < keys[i].np; p++) {
			j.pairs[j.npairs][0] = i;
			j.pairs[j.npairs][1] = p;
			j.npairs++;
		}
	long nt = o->threads > 0 ? o->threads : sysconf(_SC_NPROCESSORS_ONLN);
	if (nt < 1)
		nt = 1;
	if (nt > 64)
		nt = 64;
	j.early = xcalloc(j.npairs ? j.npairs : 1, sizeof(*j.early));
	j.ac = xcalloc(j.npairs ? j.npairs : 1, sizeof(*j.ac));
	j.step = STEP_OUTLIERS;
	run_phase(pexec_worker, &j, nt);
	/* each key's decisions between the steps (the pairs are key by key) */
	for (size_t i = 0, from = 0; i < ds->nkeys; i++)
		if (!todo || todo[i]) {
			key_early(keys[i].p, j.early + from, keys[i].np, o);
			from += keys[i].np;
		}
	j.step = STEP_CUT;
	run_phase(pexec_worker, &j, nt);
	for (size_t i = 0, from = 0; i < ds->nkeys; i++)
		if (!todo || todo[i]) {
			struct anr_ac ac = { 0, 0 };
			for (size_t q = from; q < from + keys[i].np; q++) {
				ac.phi_sum += j.ac[q].phi_sum;
				ac.pairs += j.ac[q].pairs;
			}
			key_tau(keys[i].p, keys[i].np, &ac, o);
			from += keys[i].np;
		}
	j.step = STEP_REST;
	run_phase(pexec_worker, &j, nt);
	run_phase(key_worker, &j, nt);
	free(j.early);
	free(j.ac);
	free(j.pairs);
}

int an_analyse(const struct dataset *ds, const struct an_opts *o, struct an_result *r, struct kerr *e)
{
	(void)e;
	memset(r, 0, sizeof(*r));
	r->opts = *o;
	r->nkeys = ds->nkeys;
	r->keys = xcalloc(ds->nkeys ? ds->nkeys : 1, sizeof(*r->keys));
	an_analyse_keys(ds, o, NULL, r->keys);
	return 0;
}

void an_result_free(struct an_result *r)
{
	for (size_t i = 0; i < r->nkeys; i++)
		an_key_free(&r->keys[i]);
	free(r->keys);
	memset(r, 0, sizeof(*r));
}

/*
 * The ratio of two keys' steady means: by default an_key_ratio's (the
 * pexecs as units, Fieller's interval: stats-key.c).  With
 * --replicate-warmup-stats, A's and B's bootstrap resample means made as
 * the report makes them (B's with the next seed), B's shuffled (GSL), and
 * each pair one ratio B/A; their median and interval.  diff compares
 * experiments with it, kiln bench its commands.
 */
struct an_ratio an_ratio_ci(const struct an_key *a, const struct an_key *b, const struct an_opts *o)
{
	struct an_ratio r = { NAN, NAN, NAN, 0 };
	if (!a->has_steady || !b->has_steady)
		return r;
	if (!o->replicate) {
		struct ks_ratio q;
		an_key_ratio(a, b, o, &q);
		if (q.ok)
			r = (struct an_ratio){ q.ratio, q.lo, q.hi, 1 };
		return r;
	}
	struct an_sample sa, sb;
	an_sample_of(a, o, &sa);
	an_sample_of(b, o, &sb);
	size_t ca = an_bootstrap_count(&sa, o->resamples), cb = an_bootstrap_count(&sb, o->resamples);
	double *ma = xmalloc((ca + 1) * sizeof(double)), *mb = xmalloc((cb + 1) * sizeof(double));
	size_t ga = an_bootstrap_means(&sa, o->resamples, o->seed, ma);
	size_t gb = an_bootstrap_means(&sb, o->resamples, o->seed + 1, mb);
	size_t N = ga < gb ? ga : gb;
	if (N) {
		gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
		gsl_rng_set(g, (unsigned long)(o->seed + 2));
		gsl_ran_shuffle(g, mb, gb, sizeof(double));
		gsl_rng_free(g);
		int finite = 1;
		for (size_t i = 0; i < N; i++) {
			mb[i] = mb[i] / ma[i];
			finite &= isfinite(mb[i]);
		}
		/* a zero steady time (an empty benchmark) has no ratio */
		if (finite) {
			an_quantiles(mb, N, o->confidence, &r.med, &r.lo, &r.hi);
			r.ok = 1;
		}
	}
	free(ma);
	free(mb);
	an_sample_free(&sa);
	an_sample_free(&sb);
	return r;
}
