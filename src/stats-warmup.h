/*
 * stats-warmup.h - `kiln diff`'s (and `kiln compare`'s) verdicts on warmup itself (issue 26): did
 * B take longer than A to reach its steady state, did its warmup cost more
 * (the time its iterations before the steady state took beyond the steady
 * level), and did its class change.  The steady state's own ratio is
 * cmd-diff.c's; these come beside it, through one call per key.
 *
 * The pexec is the independent unit: each side's figure is the mean over
 * its pexecs (those with a steady state) of their time to steady state or
 * warmup cost, and the interval of B - A is Welch's t interval on those
 * per-pexec values at the options' confidence, in seconds and in steady
 * iterations' worth (each pexec's over its steady mean): a verdict needs
 * both on one side of 0, so that a steady state that moved (by chance or
 * for real) is not read as a warm-up that did (docs/kiln-diff.md measures
 * the A/A false alarms on the corpus of bench/warmup, bench/live.sh G on
 * kiln compare's sessions).  A key with no
 * steady state has nothing to compare; a key warned too short
 * (AN_WARN_SHORT) or drifting gets no verdict at all: its warmup was not
 * seen, or never ended.  The class changed when the keys' classes differ
 * and their pexecs' classes do beyond chance (Fisher's exact test): a
 * pexec that missed a small warmup the others saw makes "warmup" "good
 * inconsistent" by chance.
 */
#ifndef KILN_STATS_WARMUP_H
#define KILN_STATS_WARMUP_H

#include <jansson.h>

#include "analysis.h"

#define AN_WARMUP_VERDICTS 1 /* for bench/warmup, which also builds against kilns without these */

enum sw_verdict {
	SW_NONE,     /* the interval holds 0: no change seen */
	SW_MORE,     /* B's is larger: warmup longer, or costs more */
	SW_LESS,     /* B's is smaller */
	SW_CANNOT,   /* no verdict: a side too short, drifting, or without a steady state */
};

struct sw_change {
	double a, b;           /* each side's mean over its pexecs, seconds (NAN: none) */
	double diff, lo, hi;   /* B - A and its interval */
	/* the same in steady iterations' worth: each pexec's value over its own steady mean */
	double rel_diff, rel_lo, rel_hi;
	/*
	 * The verdict: MORE or LESS only when both intervals are on that side
	 * of 0.  speed_only: the seconds' is and the steady iterations' is not
	 * (the steady state's speed moved, not the warm-up)
	 */
	enum sw_verdict verdict;
	int speed_only;
};

struct sw_diff {
	struct sw_change time;  /* time to steady state */
	struct sw_change cost;  /* warmup cost: time above the steady level */
	/*
	 * 1: the class changed, a verdict of its own: A's class is not B's
	 * and their pexecs' classes differ beyond chance (class_p, Fisher's
	 * exact test per class, Bonferroni, below 1 - confidence), or one side
	 * drifts and the other not, their mean trends' intervals apart; 0: no;
	 * -1: cannot tell (a side too short)
	 */
	int class_changed;
	double class_p;
	unsigned warn;          /* A's and B's AN_WARN_* bits together */
};

/* the warmup verdicts of key b against key a, both analysed with o */
void sw_diff_keys(const struct an_key *a, const struct an_key *b, const struct an_opts *o, struct sw_diff *d);
/* "longer", "costs more", ... for what (0 time, 1 cost) */
const char *sw_verdict_name(enum sw_verdict v, int what);
/* "+390 ms (+350–+430)", one unit for the three; "-" without an interval */
void sw_change_text(const struct sw_change *c, struct strbuf *sb);
/* the verdicts in words ("class changed; warmup longer", "no change"), or why nothing can be said */
void sw_verdict_text(const struct sw_diff *d, struct strbuf *sb);
/* the verdicts as diff's JSON gives them (an object) */
json_t *sw_json(const struct sw_diff *d);
/*
 * kiln diff's text section: one row per key both sides have, and the
 * warnings that took a verdict away.  keys: every key, in diff's order.
 */
void sw_print(const struct strvec *keys, const struct an_result *ra, const struct an_result *rb,
	      const struct an_opts *o);

#endif
