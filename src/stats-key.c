/*
 * stats-key.c - a key's steady-state figure as stats.h sees it: the values
 * that are its independent units (the pexecs), the interval of their mean,
 * and the ratio of two keys' figures (analysis.h declares these; analysis.c
 * summarises keys with them, diff and bench compare keys with them).
 *
 * The unit is the pexec.  A whole-process key's values are its process
 * times; an in-process key's, its pexecs' steady means (whatever the
 * warmup analysis makes of a pexec's steady iterations), so the interval
 * holds the variation between processes and, through each pexec's mean,
 * the autocorrelation inside one.  A key of one pexec has no variation
 * between processes to measure: its steady iterations' batch means stand
 * in, and every output says the interval covers within-process noise only.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "stats.h"

/* the steady iterations of a key's only pexec (outliers included), or NULL */
static const double *steady_iters(const struct an_key *k, size_t *n)
{
	const struct an_pexec *p = &k->p[0];
	const struct ds_pexec *dp = &k->key->pexecs[p->index];
	if (p->cls == AN_NO_STEADY || p->steady_start >= dp->n) {
		*n = 0;
		return NULL;
	}
	*n = dp->n - p->steady_start;
	return dp->wall + p->steady_start;
}

size_t an_key_units(const struct an_key *k, double **v, int *within)
{
	*v = NULL;
	*within = 0;
	if (!k->has_steady || !k->np)
		return 0;
	double *u = xmalloc((k->np + 1) * sizeof(double));
	if (k->whole) {
		for (size_t i = 0; i < k->np; i++)
			u[i] = k->key->pexecs[k->p[i].index].wall[0];
		*v = u;
		return k->np;
	}
	if (k->np >= 2) {
		size_t n = 0;
		for (size_t i = 0; i < k->np; i++)
			if (!an_left_out(k, &k->p[i])) /* no figure of its own, AN_LEFT_OUT_DEN */
				u[n++] = k->p[i].steady_mean;
		*v = u;
		return n;
	}
	free(u);
	size_t n;
	const double *x = steady_iters(k, &n);
	if (!n)
		return 0;
	u = xmalloc(n * sizeof(double));
	size_t b = ks_batch_means(x, n, u);
	*v = u;
	*within = 1;
	return b;
}

void an_key_mean(const struct an_key *k, const struct an_opts *o, struct ks_mean *m)
{
	if (k->has_steady && k->np == 1 && !k->whole) {
		size_t n;
		const double *x = steady_iters(k, &n);
		ks_mean_series(x, n, o->confidence, m);
		/* the key's figure is its pexec's steady mean: the interval moves with it */
		double shift = k->p[0].steady_mean - m->mean;
		if (isfinite(shift)) {
			m->mean += shift;
			m->lo += shift;
			m->hi += shift;
		}
		return;
	}
	double *v;
	int within;
	size_t n = an_key_units(k, &v, &within);
	ks_mean(v, n, o->confidence, m);
	free(v);
}

void an_key_ratio(const struct an_key *a, const struct an_key *b, const struct an_opts *o, struct ks_ratio *r)
{
	double *va, *vb;
	int wa, wb;
	size_t na = an_key_units(a, &va, &wa), nb = an_key_units(b, &vb, &wb);
	ks_ratio_unpaired(va, na, vb, nb, o->confidence, r);
	if (r->ok && a->np == 1 && !a->whole && b->np == 1 && !b->whole) {
		/* batch means: the ratio of the keys' own figures, the interval scaled with it */
		double want = b->p[0].steady_mean / a->p[0].steady_mean, f = want / r->ratio;
		if (isfinite(f) && f > 0) {
			r->ratio = want;
			r->lo *= f;
			r->hi *= f;
		}
	}
	free(va);
	free(vb);
}

void an_key_compare(const struct an_key *a, const struct an_key *b, const struct an_opts *o, double session_sd,
		    struct an_compare *c)
{
	memset(c, 0, sizeof(*c));
	c->ratio = c->lo = c->hi = c->wlo = c->whi = c->mde = c->drift = NAN;
	c->warn = a->warn | b->warn;
	struct ks_mean m;
	an_key_mean(a, o, &m);
	c->shape_a = m.shape;
	an_key_mean(b, o, &m);
	c->shape_b = m.shape;
	struct ks_ratio r;
	an_key_ratio(a, b, o, &r);
	if (!r.ok) {
		/*
		 * a side the warmup analysis marks unsafe, or without a steady
		 * state (drifting, none in too many pexecs), has no ratio either:
		 * checked here, so that it gets "no verdict" and its reason, not "-"
		 */
		int unfit = (c->warn & AN_WARN_NO_VERDICT) || !a->has_steady || !b->has_steady;
		c->verdict = unfit ? AN_V_NO_VERDICT : AN_V_NONE;
		return;
	}
	c->wlo = r.lo;
	c->whi = r.hi;
	int within = ks_ratio_verdict(&r);
	ks_ratio_add_sessions(&r, session_sd, o->confidence);
	c->ratio = r.ratio;
	c->lo = r.lo;
	c->hi = r.hi;
	c->mde = r.mde;
	if (c->warn & AN_WARN_NO_VERDICT) {
		c->verdict = AN_V_NO_VERDICT;
		return;
	}
	int v = ks_ratio_verdict(&r);
	if (v)
		c->verdict = v < 0 ? AN_V_FASTER : AN_V_SLOWER;
	else if (within) {
		c->verdict = AN_V_DRIFT;
		/* the drift that would move the within-session interval's near end to 1 */
		c->drift = within > 0 ? c->wlo - 1 : 1 - c->whi;
	} else
		c->verdict = AN_V_SAME;
}

const char *an_verdict_name(enum an_verdict v)
{
	switch (v) {
	case AN_V_NO_VERDICT: return "no verdict";
	case AN_V_SAME: return "no change";
	case AN_V_FASTER: return "faster";
	case AN_V_SLOWER: return "slower";
	case AN_V_DRIFT: return "drift?";
	default: return "-";
	}
}
