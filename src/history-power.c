/*
 * history-power.c - what a key's history could have shown, so that "no
 * change" is read with the size of change it could have seen
 * (docs/kiln-track.md, "What a series could have shown").
 *
 * The method is the accuracy bench's (bench/history.c), run on the series
 * as measured: a change injected at up to 20 commits spread evenly over
 * those where a change can be (the binary changed; five commits or more
 * from either end and from every change found in the series it is
 * injected into); found when the detection puts a change of that series
 * and sign within two commits of it.  Each injection is judged on the 60
 * commits either side of it, with the penalty of the whole series, so a
 * long history costs no more per key.  The size is a ladder, searched by
 * halving for the smallest found in at least 80% of the injections:
 * larger changes are found at least as often.  The injections are the
 * series' own noise, so the figure is measured, not modelled; with 20 of
 * them its 80% is known to about +-18% (a binomial 95% interval at 16 of
 * 20: 56% to 94%).  Two changes are injected this way:
 *   steady  every commit from there on slower, or faster (alternately),
 *           by a factor from 1% to 100%;
 *   warmup  every pexec classed warm-up from there on taking f times as
 *           long to reach its steady state (its time to steady and its
 *           warmup cost times f), f from 1.5x to 10x; found when the
 *           warmup or the cost series moves.  Time to steady is
 *           iterations plus cost, and a stretch of the iterations, as
 *           analysed, moved the warmup series by 0.31-0.34 at 1.5x,
 *           just over the 0.3 reported, the cost by 0.31-0.37: on noisy
 *           iterations the warmup series alone found 0.40 of such 1.5x
 *           stretches, the two 0.87.  The stretch is of the figures the
 *           series are made of, not of the iterations (the history holds
 *           none in memory, and a key would cost an analysis per pexec
 *           and injection): bench/history --synthetic-warm checks the
 *           size named against stretches of the iterations analysed
 *           again (docs/kiln-track.md has the rates).  Said only of a
 *           key whose pexecs mostly warm up: a flat pexec has no warm-up
 *           to stretch.
 */
#include "history-power.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"

static const double ladder[] = { 0.01, 0.02, 0.03, 0.05, 0.07, 0.10, 0.15, 0.20, 0.30, 0.50, 1.00 };
/*
 * The warm-up stretches.  The detection reports no warm-up change under
 * 0.3 in log(1 + time to steady / steady mean) (hist_detect_opts_default):
 * 1.35x at best, for a long warm-up, so 1.25x could never be named; 1.5x is
 * reported for a warm-up of 2.4 steady iterations' worth or more, 2x from
 * 0.54; a short or noisy warm-up needs 3x, 5x or 10x
 */
static const double warm_ladder[] = { 1.5, 2, 3, 5, 10 };
#define NOF(a) (sizeof(a) / sizeof((a)[0]))
#define POWER_SITES 20     /* injections per size at most */
#define POWER_MIN_SITES 5  /* fewer: nothing said */
#define POWER_MARGIN 5     /* commits kept from either end and from a change found */
#define POWER_FOUND 0.8    /* the share of injections found */
#define POWER_WINDOW 60    /* commits either side of an injection the detection sees (a long series' cost) */
#define WARM_SHARE 0.5     /* the share of pexecs that must warm up for a stretch to be injected */
#define MAX_LADDER 16      /* power_of's counts */
_Static_assert(NOF(ladder) <= MAX_LADDER && NOF(warm_ladder) <= MAX_LADDER, "a ladder longer than power_of counts");

/* one kind of change injected: into which series, how */
struct power_kind {
	enum hist_what what;   /* the series whose points a change is injected at */
	unsigned found;        /* 1 << w: the series searched, where a change of the right sign is the injection found */
	unsigned near;         /* 1 << w: the series whose changes an injection keeps POWER_MARGIN from */
	const double *ladder;
	size_t nladder;
	double (*factor)(double size, size_t j); /* injection j's factor at a size of the ladder */
	/* w's figures of points k to end: base's with a change of factor f (1: none) */
	void (*inject)(struct hist_series *w, const struct hist_series *base, size_t k, size_t end, double f);
};

/* can a change be injected at point i: its binary changed, away from the ends and from the changes found */
static int site_ok(const struct hist_series *s, size_t i, const struct hist_change *ch, size_t n,
		   const struct power_kind *pk)
{
	double y, u;
	if (i < POWER_MARGIN || i + POWER_MARGIN > s->n || !s->p[i].built || s->p[i].same_as_prev ||
	    !hist_point_value(&s->p[i], pk->what, &y, &u))
		return 0;
	for (size_t c = 0; c < n; c++)
		if ((pk->near & (1u << ch[c].what)) && i + POWER_MARGIN > ch[c].lo && i < ch[c].hi + POWER_MARGIN)
			return 0;
	return 1;
}

static double steady_factor(double size, size_t j)
{
	return j % 2 ? 1 / (1 + size) : 1 + size;
}

static void steady_inject(struct hist_series *w, const struct hist_series *base, size_t k, size_t end, double f)
{
	for (size_t i = k; i < end; i++)
		for (size_t j = 0; j < w->p[i].n; j++)
			w->p[i].steady[j] = base->p[i].steady[j] * f;
}

/* a warm-up is stretched, never shrunk: 10x shorter is under an iteration for most */
static double warm_factor(double size, size_t j)
{
	return size;
}

static void warm_inject(struct hist_series *w, const struct hist_series *base, size_t k, size_t end, double f)
{
	for (size_t i = k; i < end; i++)
		for (size_t j = 0; j < w->p[i].n; j++)
			if (base->p[i].cls[j] == AN_WARMUP) {
				w->p[i].tts[j] = base->p[i].tts[j] * f;
				if (base->p[i].cost)
					w->p[i].cost[j] = base->p[i].cost[j] * f;
			}
}

int history_found_near_in(const struct hist_change *ch, size_t n, size_t k, double f, unsigned what)
{
	for (size_t c = 0; c < n; c++)
		if ((what & (1u << ch[c].what)) && (ch[c].at > k ? ch[c].at - k : k - ch[c].at) <= 2 &&
		    (ch[c].level_after - ch[c].level_before) * log(f) > 0)
			return 1;
	return 0;
}

int history_found_near(const struct hist_change *ch, size_t n, size_t k, double f)
{
	return history_found_near_in(ch, n, k, f, 1u << HIST_STEADY); /* a steady ratio is exp(level after - before) */
}

/* how many of the sites' injections of ladder step li the detection finds */
static size_t found_of(struct hist_series *w, const struct hist_series *s, const struct hist_detect_opts *o,
		       const size_t *site, size_t nsite, size_t li, const struct power_kind *pk)
{
	size_t found = 0;
	for (size_t j = 0; j < nsite; j++) {
		double f = pk->factor(pk->ladder[li], j);
		/*
		 * The detection sees POWER_WINDOW commits either side (with the
		 * whole series' penalty, set by the caller): a change is told from
		 * its neighbourhood, and a series of thousands of commits would
		 * otherwise cost seconds a key
		 */
		size_t lo = site[j] > POWER_WINDOW ? site[j] - POWER_WINDOW : 0;
		size_t hi = site[j] + POWER_WINDOW < w->n ? site[j] + POWER_WINDOW : w->n;
		struct hist_series view = *w;
		view.p = w->p + lo;
		view.n = hi - lo;
		pk->inject(w, s, site[j], hi, f);
		struct hist_change *ch;
		size_t n;
		history_detect(&view, o, &ch, &n, NULL);
		found += history_found_near_in(ch, n, site[j] - lo, f, pk->found);
		free(ch);
		pk->inject(w, s, site[j], hi, 1);
	}
	return found;
}

/* up to POWER_SITES sites spread evenly over those a change can be injected at, in site[]; how many */
static size_t pick_sites(const struct hist_series *s, const struct hist_detect_opts *opts, const struct hist_change *ch,
			 size_t n, const struct power_kind *pk, size_t *site)
{
	struct hist_change *own = NULL;
	if (!ch) {
		history_detect(s, opts, &own, &n, NULL);
		ch = own;
	}
	size_t m = 0, *cand = xcalloc(s->n + 1, sizeof(size_t));
	for (size_t i = 0; i < s->n; i++)
		if (site_ok(s, i, ch, n, pk))
			cand[m++] = i;
	free(own);
	size_t k = m < POWER_SITES ? m : POWER_SITES;
	for (size_t j = 0; j < k; j++)
		site[j] = cand[(2 * j + 1) * m / (2 * k)]; /* spread evenly */
	free(cand);
	return k;
}

/* opts (NULL: the defaults) searching pk's series alone, with the whole series' penalty */
static void power_opts(const struct hist_series *s, const struct hist_detect_opts *opts, const struct power_kind *pk,
		       struct hist_detect_opts *o)
{
	if (opts)
		*o = *opts;
	else
		hist_detect_opts_default(o);
	o->skip = ~pk->found;
	if (!(o->beta > 0)) {
		/* the whole series' penalty (history-detect.c's default), though each look sees a window of it */
		size_t pts = 0;
		double y, u;
		for (size_t i = 0; i < s->n; i++)
			pts += hist_point_value(&s->p[i], pk->what, &y, &u);
		o->beta = 2.0 * log((double)(pts > 2 ? pts : 2)) + 6.0;
	}
}

static void power_of(const struct hist_series *s, const struct hist_detect_opts *opts, const struct hist_change *ch,
		     size_t n, const struct power_kind *pk, struct hist_power *out)
{
	memset(out, 0, sizeof(*out));
	out->size = NAN;
	size_t site[POWER_SITES], k = pick_sites(s, opts, ch, n, pk, site);
	if (k < POWER_MIN_SITES)
		return;
	struct hist_detect_opts o;
	power_opts(s, opts, pk, &o);
	struct hist_series w;
	history_series_copy(s, &w);
	/* halving over the ladder for its first step found often enough (nladder: none is) */
	size_t lo = 0, hi = pk->nladder, found[MAX_LADDER] = { 0 };
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		found[mid] = found_of(&w, s, &o, site, k, mid, pk);
		if ((double)found[mid] >= POWER_FOUND * (double)k)
			hi = mid;
		else
			lo = mid + 1;
	}
	history_series_free(&w);
	out->sites = k;
	out->size = lo < pk->nladder ? pk->ladder[lo] : INFINITY;
	out->found = lo < pk->nladder ? found[lo] : 0;
}

void history_power(const struct hist_series *s, const struct hist_detect_opts *opts, const struct hist_change *ch,
		   size_t n, struct hist_power *out)
{
	static const struct power_kind steady = { HIST_STEADY, 1u << HIST_STEADY, 1u << HIST_STEADY, ladder, NOF(ladder),
						  steady_factor, steady_inject };
	power_of(s, opts, ch, n, &steady, out);
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

/* ---- warm-up ---- */

/* the pexecs of s with a class, those of them that warmed up, and the flat ones */
static void warm_count(const struct hist_series *s, struct hist_power_warm *pw)
{
	for (size_t i = 0; i < s->n; i++)
		for (size_t j = 0; s->p[i].built && j < s->p[i].n; j++) {
			pw->pexecs += s->p[i].cls[j] != HIST_NOCLASS;
			pw->warm += s->p[i].cls[j] == AN_WARMUP;
			pw->flat += s->p[i].cls[j] == AN_FLAT;
		}
}

/* why pw says nothing: one of these, or WHY_NONE when it does */
enum { WHY_NONE, WHY_SHORT, WHY_FLAT, WHY_FEW };
static int warm_why(const struct hist_power_warm *pw)
{
	if (!pw->pexecs)
		return WHY_SHORT;
	if (!pw->warm && pw->flat == pw->pexecs)
		return WHY_FLAT;
	if ((double)pw->warm < WARM_SHARE * (double)pw->pexecs)
		return WHY_FEW;
	return pw->p.sites ? WHY_NONE : WHY_SHORT;
}

void history_power_warm(const struct hist_series *s, const struct hist_detect_opts *opts, const struct hist_change *ch,
			size_t n, struct hist_power_warm *out)
{
	static const struct power_kind warm = {
		HIST_WARMUP, (1u << HIST_WARMUP) | (1u << HIST_COST), (1u << HIST_WARMUP) | (1u << HIST_CLASS) | (1u << HIST_COST),
		warm_ladder, NOF(warm_ladder), warm_factor, warm_inject,
	};
	memset(out, 0, sizeof(*out));
	out->p.size = NAN;
	warm_count(s, out);
	int why = warm_why(out);
	if (why == WHY_NONE || why == WHY_SHORT)
		power_of(s, opts, ch, n, &warm, &out->p);
}

void history_power_warm_text(const struct hist_power_warm *pw, struct strbuf *sb)
{
	switch (warm_why(pw)) {
	case WHY_SHORT:
		sb_adds(sb, "no warm-up stretch: too few commits to say");
		break;
	case WHY_FLAT:
		sb_adds(sb, "no warm-up stretch: its pexecs are flat, no warm-up to stretch");
		break;
	case WHY_FEW:
		sb_addf(sb, "no warm-up stretch: %zu of its %zu pexecs warm up (%zu flat), too few to stretch", pw->warm,
			pw->pexecs, pw->flat);
		break;
	default:
		if (!isfinite(pw->p.size))
			sb_addf(sb, "not even a 10x warm-up (found in fewer than 80%% of %zu stretched in this series)",
				pw->p.sites);
		else
			sb_addf(sb, "warm-ups %gx as long or longer (%zu of %zu stretched in this series found, within 2 "
				    "commits)", pw->p.size, pw->p.found, pw->p.sites);
	}
}

const char *history_power_warm_why(const struct hist_power_warm *pw)
{
	static const char *const why[] = { NULL, "too-few-commits", "flat", "few-warm" };
	return why[warm_why(pw)];
}
