/*
 * schedule.h - from an experiment to the list of pexecs, in run order.
 */
#ifndef KILN_SCHEDULE_H
#define KILN_SCHEDULE_H

#include "config.h"
#include "store.h"

enum sched_order { ORDER_RANDOM, ORDER_INTERLEAVED, ORDER_ROUNDS, ORDER_DUET };

/*
 * Every key (bench x vm, minus skipped ones) times `pexecs`.  ORDER_RANDOM
 * shuffles all pexecs with the experiment's seed (reproducible);
 * ORDER_INTERLEAVED is Krun's order: pexec n of every key before pexec n+1.
 * ORDER_ROUNDS is randomized multiple interleaved trials (Abedi & Brecht,
 * ICPE 2017): round n runs pexec n of every key, in an order of its own
 * drawn from the seed, so that a drift or a stall of the machine falls on
 * the keys alike, and the pexecs of one round are a pair (sched_item.round).
 * ORDER_DUET is rounds in which keys 2i and 2i+1 form a pair that runs at
 * the same time on two CPUs (sched_item.pair, slot; the pairs of a round
 * and the keys left alone in a random order).
 * `pexecs`/`iterations` > 0 override the config (--quick).
 */
void schedule_plan(const struct experiment *ex, enum sched_order order, long pexecs, long iterations,
		   struct schedule *sc);
const char *sched_order_name(enum sched_order o);
/* "random", "interleaved", "rounds", "duet" into *o; -1 for another word */
int sched_order_parse(const char *name, enum sched_order *o);
/* is o one whose pexecs carry rounds? */
int sched_order_rounds(enum sched_order o);
/*
 * The pexecs to add to a stored schedule sc, more[k] for key k, numbered
 * after its last, in run order (n of them, malloc'd): as a fresh schedule
 * orders them, the warm-up pexecs of a new key first, interleaved, then
 * the rest interleaved (seed NULL: Krun's order) or shuffled with *seed.
 * In ORDER_ROUNDS and ORDER_DUET, both parts are rounds numbered after sc's
 * last, each in its own order drawn from *seed and the round's number.
 */
struct sched_item *schedule_more(const struct schedule *sc, const long *more, enum sched_order order,
				 const unsigned long *seed, size_t *n);
/* pexec number zero-padded to the width of the largest: "07" of 30 */
void schedule_pexec_label(long num, long pexecs, char *buf, size_t n);
/* "bench:vm:variant" */
char *schedule_key_name(const struct sched_key *k);

#endif
