/*
 * stats-ratio.c - the ratio of two means B/A with its interval, unpaired
 * (two keys, two experiments) and paired by round (interleaved rounds,
 * duet pairs), and the smallest change a comparison could have detected
 * (stats.h; docs/statistics.md).
 *
 * Both intervals are Fieller's (1954): the ratios R for which the
 * statistic mean(B) - R mean(A), studentized, is not significant; unlike
 * the delta method's, the interval is exact for normal values and
 * lopsided as a ratio's should be.  Each R is also accepted when Hall's
 * skew-corrected version of the test accepts it (the union, as ks_mean
 * makes for one mean), so that skewed times keep the coverage.  The
 * accepted set's ends are found by bracketing and bisection.
 */
#include <math.h>
#include <string.h>

#include "stats.h"
#include "util.h"

/* what the unpaired test needs of one sample */
struct side {
	double n, m;      /* count, mean */
	double v;         /* variance (n - 1) */
	double m2, m3;    /* central moments (n) */
};

static int side_of(const double *x, size_t n, struct side *s)
{
	memset(s, 0, sizeof(*s));
	s->n = (double)n;
	double sum = 0;
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(x[i]))
			return -1;
		sum += x[i];
	}
	s->m = sum / s->n;
	for (size_t i = 0; i < n; i++) {
		double d = x[i] - s->m;
		s->m2 += d * d;
		s->m3 += d * d * d;
	}
	s->v = s->m2 / (s->n - 1);
	s->m2 /= s->n;
	s->m3 /= s->n;
	/* equal values whose mean was rounded: no spread (as ks_mean's KS_CONSTANT) */
	if (!(sqrt(s->v) > 1e-12 * fabs(s->m)))
		s->v = s->m2 = s->m3 = 0;
	return 0;
}

/*
 * The unpaired test's degrees of freedom: the smaller side's, n - 1, not
 * Welch-Satterthwaite's.  Welch's assume the two variance estimates are
 * as steady as normal samples' are; benchmark times are skewed and
 * heavy-tailed, their variances far less steady, and Welch's df then
 * claims too much (A/A, 10 runs against 30, exponential: 1.6% significant
 * at 99%; with these, 0.6%).  Never more liberal than Welch's (which is at
 * least this); the MDE shows what it costs (4% wider at 30 a side, 13% at
 * 10: docs/statistics.md).
 */
static double conservative_df(const struct side *A, const struct side *B)
{
	return (A->n < B->n ? A->n : B->n) - 1;
}

/* the test at a candidate ratio: the statistic, its df and its estimator's skewness */
struct test {
	double t, df, a;
};

/* accepted at level conf by the t test or by Hall's skew-corrected one */
static int accepts(const struct test *t, double conf)
{
	if (!isfinite(t->t))
		return 0;
	double q = ks_tquantile(1 - (1 - conf) / 2, t->df);
	if (fabs(t->t) <= q)
		return 1;
	return t->t >= ks_hall_inv(-q, t->a) && t->t <= ks_hall_inv(q, t->a);
}

struct problem {
	int paired;
	struct side a, b;             /* unpaired */
	/* paired: sums of the centred rounds' products (n - 1 for the variances, n for the third moments) */
	double n, ma, mb, saa, sab, sbb, aaa, aab, abb, bbb;
};

static struct test test_at(const struct problem *p, double r)
{
	struct test t;
	if (p->paired) {
		double d = p->mb - r * p->ma;
		double var = p->sbb - 2 * r * p->sab + r * r * p->saa;
		double m2 = var * (p->n - 1) / p->n;
		/* the third central moment of d_i = b_i - r a_i about its mean */
		double m3 = p->bbb - 3 * r * p->abb + 3 * r * r * p->aab - r * r * r * p->aaa;
		t.t = d / sqrt(var / p->n);
		t.df = p->n - 1;
		t.a = m2 > 0 ? m3 / pow(m2, 1.5) / sqrt(p->n) : 0;
		return t;
	}
	const struct side *A = &p->a, *B = &p->b;
	double d = B->m - r * A->m;
	double va = r * r * A->v / A->n, vb = B->v / B->n, v = va + vb;
	t.t = d / sqrt(v);
	t.df = conservative_df(A, B);
	double k3 = B->m3 / (B->n * B->n) - r * r * r * A->m3 / (A->n * A->n);
	double vm = B->m2 / B->n + r * r * A->m2 / A->n;
	t.a = vm > 0 ? k3 / pow(vm, 1.5) : 0;
	return t;
}

static int ok_at(const struct problem *p, double r, double conf)
{
	struct test t = test_at(p, r);
	return accepts(&t, conf);
}

/*
 * The end of the accepted set from r0 (accepted) in direction dir: steps
 * doubling from h until one is rejected, then bisection.  Below, the set
 * stops at 0 (ratios of times); above, at 1e6 times r0 it is unbounded.
 */
static double bound(const struct problem *p, double r0, double h, int dir, double conf)
{
	double in = r0, out = NAN;
	for (int i = 0; i < 200; i++) {
		double r = r0 + dir * h;
		if (dir < 0 && r <= 0) {
			if (ok_at(p, 0, conf))
				return 0;
			out = 0;
			break;
		}
		if (dir > 0 && r > 1e6 * r0)
			return INFINITY;
		if (!ok_at(p, r, conf)) {
			out = r;
			break;
		}
		in = r;
		h *= 2;
	}
	if (isnan(out))
		return dir > 0 ? INFINITY : 0;
	for (int i = 0; i < 200 && fabs(out - in) > 1e-13 * fabs(in); i++) {
		double mid = (in + out) / 2;
		if (ok_at(p, mid, conf))
			in = mid;
		else
			out = mid;
	}
	return in;
}

static void finish(const struct problem *p, double conf, struct ks_ratio *out)
{
	double r = out->ratio;
	struct test t0 = test_at(p, r);
	if (!(out->se > 0) || !isfinite(t0.t)) {
		/* no spread on either side: the ratio is what it is, to the means' rounding */
		out->lo = r * (1 - 1e-12);
		out->hi = r * (1 + 1e-12);
		out->mde = 0;
		out->ok = 1;
		return;
	}
	double h = r * out->se * 0.5;
	if (!(h > 0))
		h = r * 1e-9;
	out->lo = bound(p, r, h, -1, conf);
	out->hi = bound(p, r, h, 1, conf);
	out->mde = ks_mde(out->se, out->df, conf, 0.8);
	out->ok = 1;
}

static void ratio_init(struct ks_ratio *out)
{
	memset(out, 0, sizeof(*out));
	out->ratio = out->lo = out->hi = out->se = out->df = out->mde = NAN;
}

/*
 * A side whose values are all equal has shown no spread, which says
 * nothing of the spread it has (times never repeat to the nanosecond
 * unless something hides them: ten runs that missed a slow mode).  Its
 * relative spread is taken to be the other side's, so that one sample's
 * silence cannot make the other's noise a verdict.
 */
static void borrow_spread(struct side *s, const struct side *o)
{
	if (s->v > 0 || !(o->v > 0))
		return;
	double f = s->m / o->m;
	s->v = o->v * f * f;
	s->m2 = o->m2 * f * f;
	s->m3 = o->m3 * f * f * f;
}

void ks_ratio_unpaired(const double *a, size_t na, const double *b, size_t nb, double conf, struct ks_ratio *out)
{
	ratio_init(out);
	struct problem p;
	memset(&p, 0, sizeof(p));
	if (na < 2 || nb < 2 || side_of(a, na, &p.a) || side_of(b, nb, &p.b) || !(p.a.m > 0) || !(p.b.m > 0))
		return;
	borrow_spread(&p.a, &p.b);
	borrow_spread(&p.b, &p.a);
	out->ratio = p.b.m / p.a.m;
	double ea = p.a.v / (p.a.n * p.a.m * p.a.m), eb = p.b.v / (p.b.n * p.b.m * p.b.m);
	out->se = sqrt(ea + eb);
	out->df = conservative_df(&p.a, &p.b);
	finish(&p, conf, out);
}

void ks_ratio_paired(const double *a, const double *b, size_t n, double conf, struct ks_ratio *out)
{
	ratio_init(out);
	if (n < 2)
		return;
	struct problem p;
	memset(&p, 0, sizeof(p));
	p.paired = 1;
	p.n = (double)n;
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(a[i]) || !isfinite(b[i]))
			return;
		p.ma += a[i];
		p.mb += b[i];
	}
	p.ma /= p.n;
	p.mb /= p.n;
	if (!(p.ma > 0) || !(p.mb > 0))
		return;
	for (size_t i = 0; i < n; i++) {
		double x = a[i] - p.ma, y = b[i] - p.mb;
		p.saa += x * x;
		p.sab += x * y;
		p.sbb += y * y;
		p.aaa += x * x * x;
		p.aab += x * x * y;
		p.abb += x * y * y;
		p.bbb += y * y * y;
	}
	p.saa /= p.n - 1;
	p.sab /= p.n - 1;
	p.sbb /= p.n - 1;
	p.aaa /= p.n;
	p.aab /= p.n;
	p.abb /= p.n;
	p.bbb /= p.n;
	out->ratio = p.mb / p.ma;
	/* log(B/A) ~ mean of b_i/mB - a_i/mA: its variance over the rounds */
	double r = out->ratio, var = p.sbb - 2 * r * p.sab + r * r * p.saa;
	out->se = sqrt(var) > 1e-12 * p.mb ? sqrt(var / p.n) / p.mb : 0;
	out->df = p.n - 1;
	finish(&p, conf, out);
}

double ks_mde(double se, double df, double conf, double power)
{
	if (!(se >= 0) || !(df >= 1) || !isfinite(se))
		return NAN;
	return exp((ks_tquantile(1 - (1 - conf) / 2, df) + ks_tquantile(power, df)) * se) - 1;
}

void ks_ratio_add_sessions(struct ks_ratio *r, double session_sd, double conf)
{
	if (!r->ok || !(session_sd > 0))
		return;
	double add = 2 * session_sd * session_sd, z = ks_tquantile(1 - (1 - conf) / 2, 1e9);
	double lr = log(r->ratio);
	double hl = r->lo > 0 ? lr - log(r->lo) : INFINITY, hh = isfinite(r->hi) ? log(r->hi) - lr : INFINITY;
	hl = sqrt(hl * hl + z * z * add);
	hh = sqrt(hh * hh + z * z * add);
	r->lo = isfinite(hl) ? exp(lr - hl) : 0;
	r->hi = isfinite(hh) ? exp(lr + hh) : INFINITY;
	r->se = sqrt(r->se * r->se + add);
	r->mde = ks_mde(r->se, r->df, conf, 0.8);
}

int ks_ratio_verdict(const struct ks_ratio *r)
{
	if (!r->ok)
		return 0;
	if (r->hi < 1)
		return -1;
	if (r->lo > 1)
		return 1;
	return 0;
}
