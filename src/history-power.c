/*
 * history-power.c - what a key's history could have shown, so that "no
 * change" is read with the size of change it could have seen
 * (docs/kiln-track.md, "What a series could have shown").
 *
 * The method is the accuracy bench's (bench/history.c), run on the series
 * as measured: a step injected at up to 20 commits spread evenly over those
 * where a change can be (the binary changed; five commits or more from
 * either end and from every steady change found), every commit from there
 * on slower, or faster, by a factor (alternately); found when the
 * detection puts a steady change of that sign within two commits of it.
 * Each injection is judged on the 60 commits either side of it, with the
 * penalty of the whole series, so a long history costs no more per key.
 * The factor is a ladder from 1% to 100%, searched by halving for the
 * smallest found in at least 80% of the injections: larger steps are found
 * at least as often.  The injections are the series' own noise, so the
 * figure is measured, not modelled; with 20 of them its 80% is known to
 * about +-18% (a binomial 95% interval at 16 of 20: 56% to 94%).
 */
#include "history-power.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double ladder[] = { 0.01, 0.02, 0.03, 0.05, 0.07, 0.10, 0.15, 0.20, 0.30, 0.50, 1.00 };
#define NLADDER (sizeof(ladder) / sizeof(ladder[0]))
#define POWER_SITES 20     /* injections per size at most */
#define POWER_MIN_SITES 5  /* fewer: nothing said */
#define POWER_MARGIN 5     /* commits kept from either end and from a change found */
#define POWER_FOUND 0.8    /* the share of injections found */
#define POWER_WINDOW 60    /* commits either side of an injection the detection sees (a long series' cost) */

/* can a step be injected at point i: its binary changed, away from the ends and from the changes found */
static int site_ok(const struct hist_series *s, size_t i, const struct hist_change *ch, size_t n)
{
	double y, u;
	if (i < POWER_MARGIN || i + POWER_MARGIN > s->n || !s->p[i].built || s->p[i].same_as_prev ||
	    !hist_point_value(&s->p[i], HIST_STEADY, &y, &u))
		return 0;
	for (size_t c = 0; c < n; c++)
		if (ch[c].what == HIST_STEADY && i + POWER_MARGIN > ch[c].lo && i < ch[c].hi + POWER_MARGIN)
			return 0;
	return 1;
}

/* w's steady figures of points k to end: base's, times f */
static void inject(struct hist_series *w, const struct hist_series *base, size_t k, size_t end, double f)
{
	for (size_t i = k; i < end; i++)
		for (size_t j = 0; j < w->p[i].n; j++)
			w->p[i].steady[j] = base->p[i].steady[j] * f;
}

int history_found_near(const struct hist_change *ch, size_t n, size_t k, double f)
{
	for (size_t c = 0; c < n; c++)
		if (ch[c].what == HIST_STEADY && (ch[c].at > k ? ch[c].at - k : k - ch[c].at) <= 2 &&
		    (ch[c].ratio - 1) * (f - 1) > 0)
			return 1;
	return 0;
}

/* how many of the sites' injections of ladder step li the detection finds */
static size_t found_of(struct hist_series *w, const struct hist_series *s, const struct hist_detect_opts *o,
		       const size_t *site, size_t nsite, size_t li)
{
	size_t found = 0;
	for (size_t j = 0; j < nsite; j++) {
		double f = j % 2 ? 1 / (1 + ladder[li]) : 1 + ladder[li];
		/*
		 * The detection sees POWER_WINDOW commits either side (with the
		 * whole series' penalty, set by the caller): a step is told from
		 * its neighbourhood, and a series of thousands of commits would
		 * otherwise cost seconds a key
		 */
		size_t lo = site[j] > POWER_WINDOW ? site[j] - POWER_WINDOW : 0;
		size_t hi = site[j] + POWER_WINDOW < w->n ? site[j] + POWER_WINDOW : w->n;
		struct hist_series view = *w;
		view.p = w->p + lo;
		view.n = hi - lo;
		inject(w, s, site[j], hi, f);
		struct hist_change *ch;
		size_t n;
		history_detect(&view, o, &ch, &n, NULL);
		found += history_found_near(ch, n, site[j] - lo, f);
		free(ch);
		inject(w, s, site[j], hi, 1);
	}
	return found;
}

void history_power(const struct hist_series *s, const struct hist_detect_opts *opts, const struct hist_change *ch,
		   size_t n, struct hist_power *out)
{
	memset(out, 0, sizeof(*out));
	out->size = NAN;
	struct hist_change *own = NULL;
	if (!ch) {
		history_detect(s, opts, &own, &n, NULL);
		ch = own;
	}
	size_t m = 0, *cand = xcalloc(s->n + 1, sizeof(size_t));
	for (size_t i = 0; i < s->n; i++)
		if (site_ok(s, i, ch, n))
			cand[m++] = i;
	free(own);
	size_t k = m < POWER_SITES ? m : POWER_SITES, site[POWER_SITES];
	for (size_t j = 0; j < k; j++)
		site[j] = cand[(2 * j + 1) * m / (2 * k)]; /* spread evenly */
	free(cand);
	if (k < POWER_MIN_SITES)
		return;
	struct hist_detect_opts o;
	if (opts)
		o = *opts;
	else
		hist_detect_opts_default(&o);
	o.skip = ~(1u << HIST_STEADY);
	if (!(o.beta > 0)) {
		/* the whole series' penalty (history-detect.c's default), though each look sees a window of it */
		size_t pts = 0;
		double y, u;
		for (size_t i = 0; i < s->n; i++)
			pts += hist_point_value(&s->p[i], HIST_STEADY, &y, &u);
		o.beta = 2.0 * log((double)(pts > 2 ? pts : 2)) + 6.0;
	}
	struct hist_series w;
	history_series_copy(s, &w);
	/* halving over the ladder for its first step found often enough (NLADDER: none is) */
	size_t lo = 0, hi = NLADDER, found[NLADDER] = { 0 };
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		found[mid] = found_of(&w, s, &o, site, k, mid);
		if ((double)found[mid] >= POWER_FOUND * (double)k)
			hi = mid;
		else
			lo = mid + 1;
	}
	history_series_free(&w);
	out->sites = k;
	out->size = lo < NLADDER ? ladder[lo] : INFINITY;
	out->found = lo < NLADDER ? found[lo] : 0;
}

void history_power_text(const struct hist_power *pw, struct strbuf *sb)
{
	if (!pw->sites)
		sb_adds(sb, "too few commits to say");
	else if (!isfinite(pw->size))
		sb_addf(sb, "not even a 100%% steady step (found in fewer than 80%% of %zu injected into this series)",
			pw->sites);
	else
		sb_addf(sb, "steady steps of %.0f%% or more (%zu of %zu injected into this series found, within 2 commits)",
			100 * pw->size, pw->found, pw->sites);
}
