/*
 * analysis-robust.c - the default method's departures from warmup_stats for
 * the series real VMs produce (see analysis-robust.h): pauses as outliers
 * from the first iteration on, the changepoint penalty and equivalence
 * scaled for autocorrelation, equivalence within the noise, drift, and
 * short series.  Each is a small pure function of the values it is given;
 * analysis.c decides when to call them (never under
 * --replicate-warmup-stats).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>

#include "analysis-int.h"
#include "analysis-robust.h"

/*
 * The p-th percentile of v[0, n) by linear interpolation at (n-1)p/100
 * (numpy's default, as analysis.c's), by selection: linear time; v is
 * reordered, and stays a permutation, so the next call on it is right too.
 */
static double pct_select(double *v, size_t n, double p)
{
	double pos = (double)(n - 1) * p / 100.0;
	size_t lo = (size_t)pos;
	an_select_kth(v, n, lo);
	if (lo >= n - 1)
		return v[n - 1];
	double next = v[lo + 1];
	for (size_t i = lo + 2; i < n; i++)
		next = v[i] < next ? v[i] : next;
	return v[lo] + (next - v[lo]) * (pos - (double)lo);
}

/* median and P75 - P25 of x[from, to), to tmp (room for to - from) */
static void med_iqr(const double *x, size_t from, size_t to, double *tmp, double *med, double *iqr)
{
	size_t n = to - from;
	memcpy(tmp, x + from, n * sizeof(double));
	*med = pct_select(tmp, n, 50);
	*iqr = pct_select(tmp, n, ANR_OUT_PHI) - pct_select(tmp, n, ANR_OUT_PLO);
}

void anr_early_find(const double *x, size_t n, size_t h, double k, const size_t *out, size_t nout,
		    struct anr_early *e)
{
	memset(e, 0, sizeof(*e));
	e->top = -INFINITY;
	if (!h || n < 2 * h)
		return;
	double *tmp = xmalloc(2 * h * sizeof(double)), med, iqr;
	for (size_t q = 0; q < nout; q++) {
		size_t j = out[q], to = j + h < n ? j + h : n;
		med_iqr(x, j - h, to, tmp, &med, &iqr);
		if (x[j] - med > e->top)
			e->top = x[j] - med;
	}
	e->nlater = nout;
	e->span = n - h;
	med_iqr(x, 0, 2 * h, tmp, &med, &iqr);
	free(tmp);
	/* few candidates, so only as much as they take (3,660 pexecs hold them at once) */
	for (size_t i = 0; i < h; i++)
		if (x[i] > med + k * iqr) {
			if ((e->ncand & (e->ncand - 1)) == 0) {
				size_t cap = e->ncand ? 2 * e->ncand : 1;
				e->cand = xrealloc(e->cand, cap * sizeof(size_t));
				e->excess = xrealloc(e->excess, cap * sizeof(double));
				e->pause = xrealloc(e->pause, cap);
			}
			e->pause[e->ncand] = 0;
			e->cand[e->ncand] = i;
			e->excess[e->ncand++] = x[i] - med;
		}
}

void anr_early_decide(struct anr_early *e, size_t np)
{
	size_t later = 0, span = 0, most = 0;
	double top = -INFINITY;
	for (size_t p = 0; p < np; p++) {
		later += e[p].nlater;
		span += e[p].span;
		top = fmax(top, e[p].top);
		for (size_t c = 0; c < e[p].ncand; c++)
			most = e[p].cand[c] + 1 > most ? e[p].cand[c] + 1 : most;
	}
	if (!most || !isfinite(top))
		return;
	/* how many pexecs with a candidate at one iteration random pauses make unlikely */
	double rate = ((double)later + 1) / ((double)span + 2);
	size_t need = 1;
	while (need <= np && gsl_cdf_binomial_Q((unsigned)need - 1, rate, (unsigned)np) >= ANR_EARLY_ALPHA)
		need++;
	size_t *count = xcalloc(most, sizeof(size_t));
	for (size_t p = 0; p < np; p++)
		for (size_t c = 0; c < e[p].ncand; c++)
			count[e[p].cand[c]]++;
	for (size_t p = 0; p < np; p++)
		for (size_t c = 0; c < e[p].ncand; c++)
			e[p].pause[c] = count[e[p].cand[c]] < need && e[p].excess[c] <= ANR_EARLY_RATIO * top;
	free(count);
}

size_t anr_early_merge(const struct anr_early *e, size_t **outp, size_t nout)
{
	size_t add = 0;
	for (size_t c = 0; c < e->ncand; c++)
		add += e->pause[c] != 0;
	if (!add)
		return nout;
	size_t *out = *outp = xrealloc(*outp, (nout + add) * sizeof(size_t));
	memmove(out + add, out, nout * sizeof(size_t));
	for (size_t c = 0, a = 0; c < e->ncand; c++)
		if (e->pause[c])
			out[a++] = e->cand[c];
	return nout + add;
}

void anr_early_free(struct anr_early *e)
{
	free(e->cand);
	free(e->excess);
	free(e->pause);
	memset(e, 0, sizeof(*e));
}

void anr_ac_add(const double *y, size_t m, const size_t *ends, size_t ns, struct anr_ac *ac)
{
	double num = 0, den = 0;
	size_t pairs = 0, b = ns > 1 ? ends[ns - 2] : 0;
	for (size_t s = ns - 1; s < ns; s++) {
		size_t e = ends[s], L = e - b;
		if (L >= 4) {
			/* the segment's line through (t, y[t]), t = 0 .. L-1 */
			double mt = (double)(L - 1) / 2, my = 0, sxy = 0, sxx = 0;
			for (size_t i = b; i < e; i++)
				my += y[i];
			my /= (double)L;
			for (size_t i = b; i < e; i++) {
				double dt = (double)(i - b) - mt;
				sxy += dt * (y[i] - my);
				sxx += dt * dt;
			}
			double slope = sxy / sxx, prev = 0, sn = 0, sd = 0;
			for (size_t i = b; i < e; i++) {
				double r = y[i] - my - slope * ((double)(i - b) - mt);
				sd += r * r;
				if (i > b)
					sn += r * prev;
				prev = r;
			}
			/* a segment without noise (constant, or quantized flat) has no autocorrelation to tell */
			if (sd > (double)L * 1e-18 * my * my) {
				num += sn;
				den += sd;
				pairs += L - 1;
			}
		}
		b = e;
	}
	(void)m;
	if (pairs && den > 0) {
		ac->phi_sum += (double)pairs * (num / den);
		ac->pairs += pairs;
	}
}

double anr_ac_tau(const struct anr_ac *ac)
{
	if (ac->pairs < 8)
		return 1;
	double phi = ac->phi_sum / (double)ac->pairs;
	if (!(phi > ANR_PHI_Z / sqrt((double)ac->pairs)) || phi < ANR_PHI_MIN)
		return 1;
	phi = phi > ANR_PHI_MAX ? ANR_PHI_MAX : phi;
	return (1 + phi) / (1 - phi);
}

int anr_same_level(double m1, double v1, size_t n1, double m2, double v2, size_t n2, double tau)
{
	if (!n1 || !n2)
		return 0;
	double se2 = tau * (v1 / (double)n1 + v2 / (double)n2);
	double d = m1 - m2;
	return d * d <= ANR_EQ_Z * ANR_EQ_Z * se2;
}

/* the least squared error of one step (two means, at least 2 values each) through y[from, m) */
static double step_sse(const double *y, size_t from, size_t m)
{
	size_t n = m - from;
	double tot = 0, tot2 = 0;
	for (size_t i = from; i < m; i++) {
		tot += y[i];
		tot2 += y[i] * y[i];
	}
	double best = INFINITY, s1 = 0, mu = tot / (double)n;
	/* centred sums: the squares of large times lose nothing that matters */
	tot2 -= tot * mu;
	tot -= mu * (double)n;
	for (size_t k = 1; k + 1 < n; k++) {
		s1 += y[from + k - 1] - mu;
		if (k < 2)
			continue;
		double s2 = tot - s1;
		double sse = tot2 - s1 * s1 / (double)k - s2 * s2 / (double)(n - k);
		best = sse < best ? sse : best;
	}
	return best;
}

int anr_trend(const double *y, const size_t *idx, size_t from, size_t m, struct anr_trend *t)
{
	size_t n = m > from ? m - from : 0;
	if (n < ANR_TREND_MIN)
		return 0;
	double mx = 0, my = 0;
	for (size_t i = from; i < m; i++) {
		mx += (double)idx[i];
		my += y[i];
	}
	mx /= (double)n;
	my /= (double)n;
	double sxx = 0, sxy = 0;
	for (size_t i = from; i < m; i++) {
		double dx = (double)idx[i] - mx;
		sxx += dx * dx;
		sxy += dx * (y[i] - my);
	}
	if (!(sxx > 0) || !(my != 0))
		return 0;
	double b = sxy / sxx;
	/* the residuals' variance and lag-1 autocorrelation (consecutive kept values) */
	double ss = 0, num = 0, prev = 0;
	for (size_t i = from; i < m; i++) {
		double r = y[i] - my - b * ((double)idx[i] - mx);
		ss += r * r;
		if (i > from)
			num += r * prev;
		prev = r;
	}
	double phi = ss > 0 ? num / ss : 0;
	phi = phi < 0 ? 0 : phi > 0.95 ? 0.95 : phi;
	double tau = (1 + phi) / (1 - phi);
	double s2 = ss / (double)(n - 2);
	double se = sqrt(s2 * tau / sxx);
	t->rate = b / my;
	t->z = se > 0 ? b / se : (b != 0 ? INFINITY : 0);
	t->df = (double)n / tau - 2;
	t->df = t->df < 1 ? 1 : t->df;
	t->span = idx[m - 1] - idx[from];
	t->fit = s2 > 0 ? (step_sse(y, from, m) - ss) / s2 : 0;
	return 1;
}

int anr_is_drift(const struct anr_trend *t, double level, double delta)
{
	return t->fit > ANR_DRIFT_FIT && fabs(t->z) > gsl_cdf_tdist_Pinv(1 - ANR_DRIFT_ALPHA / 2, t->df) &&
	       fabs(t->rate * (double)t->span * level) > delta;
}

size_t anr_tail_end(const double *y, size_t from, size_t m, double delta, size_t win, double tau)
{
	size_t c = m > from ? m - from : 0;
	if (!win || c < 8 * win)
		return from;
	/* the level and the noise of the region's second half: median, and (P75 - P25) / 1.349 */
	size_t half = c / 2;
	double *tmp = xmalloc(half * sizeof(double)), level, iqr;
	med_iqr(y, m - half, m, tmp, &level, &iqr);
	/* a block median's standard error, for normal noise: 1.2533 sd / sqrt(win) */
	double bar = fmax(delta, ANR_TAIL_Z * 1.2533 * iqr / 1.349 * sqrt(tau / (double)win));
	/* the last block of win values off the level (medians: a pause or a heavy tail does not move them) */
	size_t end = from;
	for (size_t b = from; b + win <= m; b += win) {
		double med, spread;
		med_iqr(y, b, b + win, tmp, &med, &spread);
		if (fabs(med - level) > bar)
			end = b + win;
	}
	free(tmp);
	if (end == from || m - end < 2 * win)
		return from;
	/* a tail: what it cuts off lies on one side of the level, off it by more than the bar */
	double *cut = xmalloc((end - from) * sizeof(double)), med, spread;
	med_iqr(y, from, end, cut, &med, &spread);
	free(cut);
	return fabs(med - level) > bar ? end : from;
}

/* mean of the pexecs' v (finite ones), and its standard error; returns how many */
static size_t pexec_mean_se(const struct an_key *k, int late, double *mean, double *se)
{
	double s = 0, ss = 0;
	size_t n = 0;
	for (size_t i = 0; i < k->np; i++) {
		double v = late ? k->p[i].drift_late : k->p[i].drift_rate;
		if (isfinite(v) && isfinite(k->p[i].drift_rate)) {
			s += v;
			n++;
		}
	}
	*mean = n ? s / (double)n : NAN;
	for (size_t i = 0; i < k->np; i++) {
		double v = late ? k->p[i].drift_late : k->p[i].drift_rate;
		if (isfinite(v) && isfinite(k->p[i].drift_rate))
			ss += (v - *mean) * (v - *mean);
	}
	*se = n > 1 ? sqrt(ss / (double)(n - 1) / (double)n) : NAN;
	return n;
}

void anr_key_drift(struct an_key *k, const struct an_opts *o)
{
	k->drift_rate = k->drift_lo = k->drift_hi = k->drift_span = NAN;
	double span = 0, dsum = 0, mean, se, late, late_se;
	size_t n = pexec_mean_se(k, 0, &mean, &se), nl = pexec_mean_se(k, 1, &late, &late_se);
	if (n < 3)
		return;
	for (size_t i = 0; i < k->np; i++)
		if (isfinite(k->p[i].drift_rate)) {
			span += (double)k->p[i].drift_span;
			/* delta relative to the pexec's reference level */
			double ref = fabs(k->p[i].segs[k->p[i].nsegs - 1].mean);
			dsum += ref > 0 ? k->p[i].delta / ref : 0;
		}
	double t = gsl_cdf_tdist_Pinv((1 + o->confidence) / 2, (double)(n - 1));
	k->drift_rate = mean;
	k->drift_lo = mean - t * se;
	k->drift_hi = mean + t * se;
	k->drift_span = span / (double)n;
	double tk = gsl_cdf_tdist_Pinv((1 + ANR_KEY_DRIFT_CONF) / 2, (double)(n - 1));
	if (!(fabs(mean) > tk * se && fabs(mean) * k->drift_span > dsum / (double)n))
		return;
	/* and it goes on: the second halves trend the same way (a warmup's tail, a missed step, stop) */
	if (nl >= 3 && late * mean > 0 && fabs(late) > gsl_cdf_tdist_Pinv((1 + o->confidence) / 2, (double)(nl - 1)) * late_se)
		k->warn |= AN_WARN_DRIFT;
}

long anr_excursion(const double *x, size_t n, size_t s, size_t lead, int examined, const size_t *out, size_t nout,
		   double k, double delta)
{
	if (s >= n || n - s < 4)
		return -1;
	size_t end = s + lead < n ? s + lead : n;
	/* the band: median + k * 2 (P50 - P25), which upward excursions do not widen */
	double *tmp = xmalloc((n - s) * sizeof(double));
	memcpy(tmp, x + s, (n - s) * sizeof(double));
	double med = pct_select(tmp, n - s, 50), spread = 2 * (med - pct_select(tmp, n - s, 25));
	free(tmp);
	/* far: outside the band, and moving the steady part's mean by more than delta on its own */
	double bar = fmax(med + k * spread, med + delta * (double)(n - s));
	if (examined) {
		for (size_t i = end; i < n; i++)
			bar = fmax(bar, x[i] + k * spread);
	} else
		end = n;
	long last = -1;
	size_t q = 0;
	for (size_t i = s; i < end; i++) {
		while (q < nout && out[q] < i)
			q++;
		if (q < nout && out[q] == i)
			continue;
		if (x[i] > bar)
			last = (long)i;
	}
	return last;
}

long anr_short_need(const double *x, size_t n, size_t from, uint64_t seed,
		    int (*still_short)(const double *x, size_t n, void *ctx), void *ctx)
{
	if (from >= n)
		return -1;
	double *ext = xmalloc(ANR_SHORT_CAP * sizeof(double));
	memcpy(ext, x, n * sizeof(double));
	/* a seeded resample (splitmix64) of the steady values after the excursion */
	uint64_t st = seed * 0x9e3779b97f4a7c15ULL + n;
	size_t have = n;
	long need = -1;
	for (size_t len = n + n / 2 > n + 2 ? n + n / 2 : n + 2; len <= ANR_SHORT_CAP;
	     len = len + len / 2 > len + 2 ? len + len / 2 : len + 2) {
		for (; have < len; have++) {
			uint64_t z = (st += 0x9e3779b97f4a7c15ULL);
			z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
			z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
			z ^= z >> 31;
			ext[have] = x[from + z % (n - from)];
		}
		if (!still_short(ext, len, ctx)) {
			need = (long)len;
			break;
		}
	}
	free(ext);
	return need;
}

int an_warn_text(const struct an_key *k, struct strbuf *out)
{
	int n = 0;
	if (k->warn & AN_WARN_DRIFT) {
		size_t np = 0;
		for (size_t i = 0; i < k->np; i++)
			np += (k->p[i].warn & AN_WARN_DRIFT) != 0;
		sb_adds(out, "drift: no steady state, the times keep ");
		if (isfinite(k->drift_rate)) {
			sb_addf(out, "%s by %.2g%% per 100 iterations (%.2g%% to %.2g%%, over the pexecs)",
				k->drift_rate > 0 ? "rising" : "falling", k->drift_rate * 1e4, k->drift_lo * 1e4,
				k->drift_hi * 1e4);
		} else
			sb_adds(out, "changing");
		sb_addf(out, "; %zu of %zu pexecs drift on their own; no steady figure or verdict\n", np, k->np);
		n++;
	}
	if (k->warn & AN_WARN_SHORT) {
		size_t np = 0;
		for (size_t i = 0; i < k->np; i++)
			np += (k->p[i].warn & AN_WARN_SHORT) != 0;
		sb_addf(out, "too short: in %zu of %zu pexecs the first iterations lie far above the steady state, and "
			     "the series is too short for the method to separate them; ", np, k->np);
		if (k->short_need > 0)
			sb_addf(out, "about %ld iterations per pexec would do (kiln plan)", k->short_need);
		else
			sb_addf(out, "even %d iterations per pexec would not do: look at the plots", ANR_SHORT_CAP);
		sb_adds(out, "; no verdict rests on these pexecs\n");
		n++;
	}
	return n;
}

int an_left_out_text(const struct an_key *k, struct strbuf *out)
{
	if (!k->left_out)
		return 0;
	sb_addf(out, "left out: %zu pexec(s) of %zu without a steady state or too short for the warmup analysis "
		     "(up to 1 in %d may be); the steady figures are the other %zu's",
		k->left_out, k->np, AN_LEFT_OUT_DEN, k->np - k->left_out);
	return 1;
}
