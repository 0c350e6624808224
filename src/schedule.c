/*
 * schedule.c - plan the pexecs of an experiment.  The random order is a
 * Fisher-Yates shuffle driven by GSL's MT19937 seeded with the config's
 * seed, so the same config always gives the same schedule; the schedule is
 * stored in the results before the first pexec runs (store_init), so a
 * resumed run follows the stored one, not a re-plan.
 */
#include "schedule.h"
#include "plugin.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <stdio.h>
#include <string.h>

const char *sched_order_name(enum sched_order o)
{
	return o == ORDER_INTERLEAVED ? "interleaved" : "random";
}

/* Fisher-Yates with MT19937 seeded with seed: the same seed, the same order */
static void shuffle(struct sched_item *items, size_t n, unsigned long seed)
{
	if (n < 2)
		return;
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(r, seed);
	gsl_ran_shuffle(r, items, n, sizeof(*items));
	gsl_rng_free(r);
}

void schedule_plan(const struct experiment *ex, enum sched_order order, long pexecs, long iterations,
		   struct schedule *sc)
{
	memset(sc, 0, sizeof(*sc));
	/* warm-up pexecs come on top of the measured ones (--quick has none) */
	sc->warmup_pexecs = pexecs > 0 ? 0 : ex->warmup_pexecs;
	sc->warmup_iterations = iterations > 0 ? 0 : ex->warmup_iterations;
	sc->pexecs = (pexecs > 0 ? pexecs : ex->pexecs) + sc->warmup_pexecs;
	sc->keys = xcalloc(ex->nbenchs * ex->nvms + 1, sizeof(*sc->keys));
	for (size_t b = 0; b < ex->nbenchs; b++) {
		for (size_t v = 0; v < ex->nvms; v++) {
			const struct vm_conf *vm = &ex->vms[v];
			if (!config_runs(ex, &ex->benchs[b], vm))
				continue;
			struct sched_key *k = &sc->keys[sc->nkeys];
			k->id = (long)sc->nkeys + 1;
			k->bench = xstrdup(ex->benchs[b].name);
			k->vm = xstrdup(vm->name);
			k->variant = xstrdup(vm->variant);
			/* a whole-process plugin's pexec is one iteration, --quick or not */
			k->iterations = config_one_iteration(vm, &ex->benchs[b]) ? 1
					: iterations > 0 ? iterations : config_iterations(ex, vm, &ex->benchs[b]);
			sc->nkeys++;
		}
	}
	sc->n = sc->nkeys * (size_t)sc->pexecs;
	sc->items = xcalloc(sc->n + 1, sizeof(*sc->items));
	size_t i = 0;
	for (long p = 0; p < sc->pexecs; p++)
		for (size_t k = 0; k < sc->nkeys; k++, i++) {
			sc->items[i].key = (long)k;
			sc->items[i].num = p;
			sc->items[i].status = PX_PENDING;
		}
	/* the warm-up pexecs (the first rounds) run first, interleaved; the rest in the order asked */
	size_t warm = sc->nkeys * (size_t)sc->warmup_pexecs;
	if (order == ORDER_RANDOM)
		shuffle(sc->items + warm, sc->n - warm, ex->seed);
	for (i = 0; i < sc->n; i++)
		sc->items[i].seq = (long)i;
}

/* the next `more` pexecs of key k, round by round; warm: only those numbered below the warm-ups' end, else the others */
static size_t more_rounds(const struct schedule *sc, const long *more, long *next, int warm, struct sched_item *out)
{
	size_t n = 0;
	long rounds = 0;
	for (size_t k = 0; k < sc->nkeys; k++)
		rounds = more[k] > rounds ? more[k] : rounds;
	for (long r = 0; r < rounds; r++)
		for (size_t k = 0; k < sc->nkeys; k++) {
			long num = next[k] + r;
			if (r < more[k] && (num < sc->warmup_pexecs) == warm)
				out[n++] = (struct sched_item){ .key = (long)k, .num = num, .status = PX_PENDING };
		}
	return n;
}

struct sched_item *schedule_more(const struct schedule *sc, const long *more, const unsigned long *seed, size_t *n)
{
	long *next = xcalloc(sc->nkeys + 1, sizeof(long));
	size_t total = 0;
	for (size_t i = 0; i < sc->n; i++)
		if (sc->items[i].num + 1 > next[sc->items[i].key])
			next[sc->items[i].key] = sc->items[i].num + 1;
	for (size_t k = 0; k < sc->nkeys; k++)
		total += (size_t)more[k];
	struct sched_item *items = xcalloc(total + 1, sizeof(*items));
	size_t warm = more_rounds(sc, more, next, 1, items);
	*n = warm + more_rounds(sc, more, next, 0, items + warm);
	if (seed)
		shuffle(items + warm, *n - warm, *seed);
	free(next);
	return items;
}

void schedule_pexec_label(long num, long pexecs, char *buf, size_t n)
{
	int width = 1;
	for (long m = pexecs - 1; m >= 10; m /= 10)
		width++;
	snprintf(buf, n, "%0*ld", width, num);
}

char *schedule_key_name(const struct sched_key *k)
{
	return xasprintf("%s:%s:%s", k->bench, k->vm, k->variant);
}
