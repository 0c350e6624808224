/*
 * schedule.h - from an experiment to the list of pexecs, in run order.
 */
#ifndef KILN_SCHEDULE_H
#define KILN_SCHEDULE_H

#include "config.h"
#include "store.h"

enum sched_order { ORDER_RANDOM, ORDER_INTERLEAVED };

/*
 * Every key (bench x vm, minus skipped ones) times `pexecs`.  ORDER_RANDOM
 * shuffles all pexecs with the experiment's seed (reproducible);
 * ORDER_INTERLEAVED is Krun's order: pexec n of every key before pexec n+1.
 * `pexecs`/`iterations` > 0 override the config (--quick).
 */
void schedule_plan(const struct experiment *ex, enum sched_order order, long pexecs, long iterations,
		   struct schedule *sc);
const char *sched_order_name(enum sched_order o);
/*
 * The pexecs to add to a stored schedule sc, more[k] for key k, numbered
 * after its last, in run order (n of them, malloc'd): as a fresh schedule
 * orders them, the warm-up pexecs of a new key first, interleaved, then
 * the rest interleaved (seed NULL: Krun's order, and a bench's rounds) or
 * shuffled with *seed.
 */
struct sched_item *schedule_more(const struct schedule *sc, const long *more, const unsigned long *seed, size_t *n);
/* pexec number zero-padded to the width of the largest: "07" of 30 */
void schedule_pexec_label(long num, long pexecs, char *buf, size_t n);
/* "bench:vm:variant" */
char *schedule_key_name(const struct sched_key *k);

#endif
