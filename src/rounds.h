/*
 * rounds.h - two keys' pexecs paired by the round they ran in.
 *
 * A schedule in rounds (schedule.h) runs every key once per round, and a
 * duet runs two keys' pexecs of a round at the same time; the results file
 * keeps which (ds_pexec.round, duet_pair).  A comparison of two keys pairs
 * their pexecs round by round, so that what the machine did during one
 * round (a stall, a drift, a noisy neighbour) falls on both values of one
 * pair: the paired ratio (stats.h, ks_ratio_paired) then sees it once.
 * A pexec's figure is what the comparison compares: a whole-process key's
 * time, an in-process key's steady-state mean (none without a steady state,
 * nor when the warmup analysis found the pexec too short, AN_WARN_SHORT).
 */
#ifndef KILN_ROUNDS_H
#define KILN_ROUNDS_H

#include <stddef.h>

#include "analysis.h"

struct round_pairs {
	double *a, *b;      /* a[i], b[i]: A's and B's figure in round round[i] */
	long *round;
	size_t n;
	size_t duet;        /* of the n pairs, those that ran at the same time (a duet's) */
	size_t alone_a, alone_b;   /* figures without a partner (its round's other has none, no round) */
	size_t nofig_a, nofig_b;   /* analysed pexecs without a figure (no steady state, too short) */
};

/* the figure of k's analysed pexec p: its time (whole process) or steady mean; NAN: none */
double rounds_figure(const struct an_key *k, const struct an_pexec *p);
/* a's and b's pexecs paired by round, in round order (out zeroed first; round_pairs_free after) */
void rounds_pair(const struct an_key *a, const struct an_key *b, struct round_pairs *out);
void round_pairs_free(struct round_pairs *p);
/*
 * B/A of two keys' figures: paired by round (stats.h's ks_ratio_paired)
 * when at least two rounds pair them, else the two samples of figures
 * unpaired (ks_ratio_unpaired); returns 1 when paired, 0 when not
 * (q->ok 0: no ratio).
 */
struct ks_ratio;
int rounds_ratio(const struct an_key *a, const struct an_key *b, double conf, struct ks_ratio *q);

#endif
