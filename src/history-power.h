/*
 * history-power.h - what a key's history could have shown: the smallest
 * steady-state step, and the smallest stretch of its warm-up, the
 * detection (history-detect.h) finds in most injections into the key's
 * own series (history-power.c).
 */
#ifndef KILN_HISTORY_POWER_H
#define KILN_HISTORY_POWER_H

#include "history-detect.h"

struct hist_power {
	size_t sites;   /* commits a step was injected at (0: the series has too few to say) */
	double size;    /* the smallest step of the ladder found in >= 80% of them, relative (0.05: 5%);
			 * INFINITY: not even the largest (100%) */
	size_t found;   /* injections of that size found */
};

/*
 * The power of the steady-state detection on series s with opts (NULL:
 * defaults), ch[0..n) its changes as found with them (ch NULL: found here).
 */
void history_power(const struct hist_series *s, const struct hist_detect_opts *opts, const struct hist_change *ch,
		   size_t n, struct hist_power *out);

/* what pw says, for people: "steady steps of 15% or more (18 of 20 injected ...)", or why nothing is said */
void history_power_text(const struct hist_power *pw, struct strbuf *sb);

/*
 * A change of factor f injected at point k: is a change of one of the
 * series what (1 << w) and of its sign among ch[0..n), within 2 commits of k?
 */
int history_found_near_in(const struct hist_change *ch, size_t n, size_t k, double f, unsigned what);

/*
 * What a key's warm-up could have shown: the smallest stretch of its
 * pexecs' time to steady state the detection finds in most injections
 */
struct hist_power_warm {
	struct hist_power p; /* sites; size: the stretch (2: twice the time to steady state), INFINITY: not even
			      * the largest (10x); found */
	size_t pexecs;       /* the series' pexecs with a class */
	size_t warm, flat;   /* of them, those that warmed up, those flat */
};
/* the same as history_power, for a stretch of the warm-up (nothing when fewer than half of s's pexecs warm up) */
void history_power_warm(const struct hist_series *s, const struct hist_detect_opts *opts, const struct hist_change *ch,
			size_t n, struct hist_power_warm *out);
/* what pw says, for people: "warm-ups 2x as long or longer (18 of 20 ...)", or why nothing is said */
void history_power_warm_text(const struct hist_power_warm *pw, struct strbuf *sb);
/* why pw says nothing, as a word for JSON ("flat", "few-warm", "too-few-commits"); NULL: it says something */
const char *history_power_warm_why(const struct hist_power_warm *pw);

/* a step of factor f injected at point k: is a steady change of its sign among ch[0..n), within 2 commits of k? */
int history_found_near(const struct hist_change *ch, size_t n, size_t k, double f);

#endif
