/*
 * stats-warmup.c - kiln diff's verdicts on warmup itself: time to steady
 * state, warmup cost and class, each a verdict of its own (see
 * stats-warmup.h).  Welch's t interval on per-pexec values: the pexec is
 * the independent unit, and two sides of a few pexecs each, one of them
 * often all zeros (every pexec flat), need neither equal variances nor a
 * large sample.  The class by Fisher's exact test on the pexecs' classes.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>

#include "analysis-robust.h"
#include "stats-warmup.h"

/*
 * what(p) of a pexec: its time to steady state or warmup cost, in seconds,
 * or (rel) in its own steady iterations' worth: divided by its steady mean,
 * so that a build slower at everything, whose warm-up takes as many
 * iterations, does not read as warming up longer.  NAN: none.
 */
static double pexec_value(const struct an_key *k, const struct an_pexec *p, int what, int rel)
{
	if (p->cls == AN_NO_STEADY || an_left_out(k, p))
		return NAN;
	double v = what ? p->warmup_cost : p->time_to_steady;
	if (rel)
		v = isfinite(p->steady_mean) && p->steady_mean > 0 ? v / p->steady_mean : NAN;
	return v;
}

/* mean and sample variance of what(p) over k's pexecs that have it; returns their count */
static size_t pexec_moments(const struct an_key *k, int what, int rel, double *mean, double *var)
{
	double s = 0, ss = 0;
	size_t n = 0;
	for (size_t i = 0; i < k->np; i++) {
		double v = pexec_value(k, &k->p[i], what, rel);
		if (isfinite(v)) {
			s += v;
			n++;
		}
	}
	*mean = n ? s / (double)n : NAN;
	for (size_t i = 0; i < k->np; i++) {
		double v = pexec_value(k, &k->p[i], what, rel);
		if (isfinite(v))
			ss += (v - *mean) * (v - *mean);
	}
	*var = n > 1 ? ss / (double)(n - 1) : NAN;
	return n;
}

/*
 * Each side's mean of what (rel: in steady iterations) into *ma, *mb, and
 * Welch's interval at conf of B - A into *lo, *hi; -1 (no interval) if a
 * side has under 2 pexecs with it
 */
static int welch(const struct an_key *a, const struct an_key *b, int what, int rel, double conf, double *ma,
		 double *mb, double *lo, double *hi)
{
	double va, vb;
	size_t na = pexec_moments(a, what, rel, ma, &va), nb = pexec_moments(b, what, rel, mb, &vb);
	if (na < 2 || nb < 2)
		return -1;
	double sa = va / (double)na, sb = vb / (double)nb, se2 = sa + sb, half = 0;
	if (se2 > 0) {
		double df = se2 * se2 / (sa * sa / (double)(na - 1) + sb * sb / (double)(nb - 1));
		half = gsl_cdf_tdist_Pinv((1 + conf) / 2, df) * sqrt(se2);
	}
	*lo = *mb - *ma - half;
	*hi = *mb - *ma + half;
	return 0;
}

static enum sw_verdict side_of(double lo, double hi)
{
	return lo > 0 ? SW_MORE : hi < 0 ? SW_LESS : SW_NONE;
}

/*
 * B - A of what, in seconds and in steady iterations, and the verdict: a
 * change only where both intervals agree on its direction.  In seconds
 * alone, two builds of one warm-up whose steady states differ by chance
 * (or for real: a build slower at everything) would read as a warm-up
 * change: a second, laxer test of the steady state (bench/live.sh G).
 */
static void change(const struct an_key *a, const struct an_key *b, int what, double conf, int blocked,
		   struct sw_change *c)
{
	double ra, rb;
	c->lo = c->hi = c->rel_lo = c->rel_hi = c->rel_diff = NAN;
	c->verdict = SW_CANNOT;
	/* the means in seconds are shown even where no verdict can be given */
	int ok = welch(a, b, what, 0, conf, &c->a, &c->b, &c->lo, &c->hi) == 0;
	c->diff = c->b - c->a;
	if (!ok || blocked || !a->has_steady || !b->has_steady) {
		c->lo = c->hi = NAN;
		return;
	}
	if (welch(a, b, what, 1, conf, &ra, &rb, &c->rel_lo, &c->rel_hi) < 0)
		return;
	c->rel_diff = rb - ra;
	enum sw_verdict s = side_of(c->lo, c->hi), r = side_of(c->rel_lo, c->rel_hi);
	c->verdict = s == r ? s : SW_NONE;
	c->speed_only = s != SW_NONE && s != r;
}

/* Fisher's exact test, two-sided: x of na against y of nb pexecs in a class */
static double fisher(size_t x, size_t na, size_t y, size_t nb)
{
	unsigned k = (unsigned)(x + y), n1 = k, n2 = (unsigned)(na + nb) - k;
	double obs = gsl_ran_hypergeometric_pdf((unsigned)x, n1, n2, (unsigned)na), p = 0;
	unsigned lo = k > nb ? k - (unsigned)nb : 0, hi = k < na ? k : (unsigned)na;
	for (unsigned i = lo; i <= hi; i++) {
		double q = gsl_ran_hypergeometric_pdf(i, n1, n2, (unsigned)na);
		if (q <= obs * (1 + 1e-7))
			p += q;
	}
	return p < 1 ? p : 1;
}

/*
 * How unlikely A's and B's pexecs' classes are if both keys' pexecs fall
 * in the classes alike: the smallest of the per-class Fisher tests,
 * Bonferroni-corrected for the classes seen.
 */
static double class_p(const struct an_key *a, const struct an_key *b)
{
	double best = 1;
	int seen = 0;
	for (int c = 0; c < AN_NPCLASS; c++)
		seen += a->counts[c] || b->counts[c];
	for (int c = 0; c < AN_NPCLASS; c++)
		if (a->counts[c] || b->counts[c])
			best = fmin(best, fisher(a->counts[c], a->np, b->counts[c], b->np) * seen);
	return best < 1 ? best : 1;
}

/* one side drifts and the other not, and their trends' intervals (over pexecs) are apart */
static int drift_changed(const struct an_key *a, const struct an_key *b)
{
	if (!((a->warn ^ b->warn) & AN_WARN_DRIFT))
		return 0;
	return a->drift_hi < b->drift_lo || b->drift_hi < a->drift_lo;
}

void sw_diff_keys(const struct an_key *a, const struct an_key *b, const struct an_opts *o, struct sw_diff *d)
{
	memset(d, 0, sizeof(*d));
	d->warn = a->warn | b->warn;
	/* too short: the warmup was not seen; drifting: it never ended */
	int blocked = (d->warn & AN_WARN_NO_VERDICT) != 0 || a->whole || b->whole;
	change(a, b, 0, o->confidence, blocked, &d->time);
	change(a, b, 1, o->confidence, blocked, &d->cost);
	/*
	 * The class: a verdict when the keys' classes differ and so do their
	 * pexecs' (a pexec that found a small warmup where the others did not
	 * turns "warmup" into "good inconsistent" by chance), or one side
	 * drifts and the other does not, their trends apart: a key's drift is
	 * its class whatever its pexecs say.
	 */
	d->class_p = class_p(a, b);
	if ((d->warn & AN_WARN_SHORT) || a->whole || b->whole || !a->np || !b->np)
		d->class_changed = -1;
	else
		d->class_changed = a->cls != b->cls && (d->class_p < 1 - o->confidence || drift_changed(a, b));
}

const char *sw_verdict_name(enum sw_verdict v, int what)
{
	switch (v) {
	case SW_NONE: return "no change";
	case SW_MORE: return what ? "costs more" : "longer";
	case SW_LESS: return what ? "costs less" : "shorter";
	case SW_CANNOT: break;
	}
	return "-";
}

static json_t *jnum_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *change_json(const struct sw_change *c, int what)
{
	return json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:b,s:s}", "a", jnum_or_null(c->a), "b", jnum_or_null(c->b), "diff",
			 jnum_or_null(c->diff), "interval", isfinite(c->lo) ? json_pack("[ff]", c->lo, c->hi) : json_null(),
			 "diff_steady_iterations", jnum_or_null(c->rel_diff), "interval_steady_iterations",
			 isfinite(c->rel_lo) ? json_pack("[ff]", c->rel_lo, c->rel_hi) : json_null(), "speed_only",
			 c->speed_only != 0, "verdict", sw_verdict_name(c->verdict, what));
}

json_t *sw_json(const struct sw_diff *d)
{
	return json_pack("{s:o,s:o,s:o,s:o,s:b,s:b}", "time_to_steady_s", change_json(&d->time, 0), "warmup_cost_s",
			 change_json(&d->cost, 1), "class_changed",
			 d->class_changed < 0 ? json_null() : json_boolean(d->class_changed), "class_p",
			 d->class_changed < 0 ? json_null() : json_real(d->class_p), "warn_short",
			 (d->warn & AN_WARN_SHORT) != 0, "warn_drift", (d->warn & AN_WARN_DRIFT) != 0);
}

void sw_change_text(const struct sw_change *c, struct strbuf *sb)
{
	if (!isfinite(c->lo)) {
		sb_adds(sb, "-");
		return;
	}
	if (c->lo == 0 && c->hi == 0) { /* every pexec flat on both sides */
		sb_adds(sb, "0");
		return;
	}
	double big = fmax(fabs(c->lo), fabs(c->hi));
	const struct time_unit *tu = time_unit_for(big > 0 ? big : 1);
	sb_addf(sb, "%+.3g %s (%+.3g–%+.3g)", c->diff * tu->scale, tu->name, c->lo * tu->scale, c->hi * tu->scale);
}

static const struct an_key *find(const struct an_result *r, const char *key)
{
	for (size_t i = 0; i < r->nkeys; i++)
		if (!strcmp(r->keys[i].key->key, key))
			return &r->keys[i];
	return NULL;
}

void sw_verdict_text(const struct sw_diff *d, struct strbuf *sb)
{
	if (d->warn & AN_WARN_SHORT) {
		sb_adds(sb, "cannot tell: too short");
		return;
	}
	if (d->class_changed > 0)
		sb_adds(sb, "class changed");
	const struct sw_change *c[2] = { &d->time, &d->cost };
	for (int w = 0; w < 2; w++)
		if (c[w]->verdict == SW_MORE || c[w]->verdict == SW_LESS)
			sb_addf(sb, "%swarmup %s", sb->len ? "; " : "", sw_verdict_name(c[w]->verdict, w));
	if (sb->len)
		return;
	if (d->warn & AN_WARN_DRIFT)
		sb_adds(sb, "cannot tell: drifting");
	else if (d->time.verdict == SW_CANNOT && d->cost.verdict == SW_CANNOT)
		/* no test ran (a side without a steady state in too many pexecs, or too few pexecs): not "no change" */
		sb_adds(sb, "cannot tell: too few pexecs with a steady state");
	else
		sb_adds(sb, d->time.speed_only || d->cost.speed_only ? "no change (the steady state moved)" : "no change");
}

void sw_print(const struct strvec *keys, const struct an_result *ra, const struct an_result *rb,
	      const struct an_opts *o)
{
	enum { NC = 5 };
	static const char *const titles[NC] = { "key", "class A -> B", "time to steady B-A", "warmup cost B-A",
						"warmup verdict" };
	struct strvec cells = STRVEC_INIT, notes = STRVEC_INIT;
	for (int c = 0; c < NC; c++)
		sv_push(&cells, titles[c]);
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < keys->n; i++) {
		const struct an_key *a = find(ra, keys->v[i]), *b = find(rb, keys->v[i]);
		if (!a || !b || a->whole || b->whole)
			continue;
		struct sw_diff d;
		sw_diff_keys(a, b, o, &d);
		sv_push(&cells, esc(ESC_TERM, keys->v[i]));
		sb_reset(&sb);
		sb_addf(&sb, "%s -> %s", an_class_name(a->cls), an_class_name(b->cls));
		sv_push(&cells, sb.buf);
		sb_reset(&sb);
		sw_change_text(&d.time, &sb);
		sv_push(&cells, sb.buf);
		sb_reset(&sb);
		sw_change_text(&d.cost, &sb);
		sv_push(&cells, sb.buf);
		sb_reset(&sb);
		sw_verdict_text(&d, &sb);
		sv_push(&cells, sb.buf);
		const struct an_key *side[2] = { a, b };
		for (int q = 0; q < 2; q++) {
			sb_reset(&sb);
			an_warn_text(side[q], &sb);
			for (char *line = sb.buf, *nl; line && *line; line = nl ? nl + 1 : NULL) {
				nl = strchr(line, '\n');
				if (nl)
					*nl = '\0';
				sv_pushf(&notes, "  %s (%c): %s", esc(ESC_TERM, keys->v[i]), "AB"[q], esc(ESC_TERM, line));
			}
		}
	}
	if (cells.n > NC) {
		size_t w[NC] = { 0 };
		for (size_t i = 0; i < cells.n; i++)
			w[i % NC] = display_width(cells.v[i]) > w[i % NC] ? display_width(cells.v[i]) : w[i % NC];
		printf("\nwarmup: B - A of the means over pexecs, %g%% intervals (Welch, the pexec the unit)\n",
		       o->confidence * 100);
		for (size_t i = 0; i < cells.n; i += NC) {
			sb_reset(&sb);
			for (int c = 0; c < NC; c++)
				if (c < NC - 1)
					sb_pad(&sb, cells.v[i + c], w[c] + 2);
				else
					sb_adds(&sb, cells.v[i + c]);
			printf("%s\n", sb.buf);
		}
	}
	if (notes.n) {
		printf("\nwarmup warnings (no verdict rests on these keys' steady state or warmup)\n");
		for (size_t i = 0; i < notes.n; i++)
			printf("%s\n", notes.v[i]);
	}
	sb_release(&sb);
	sv_clear(&cells);
	sv_clear(&notes);
}
