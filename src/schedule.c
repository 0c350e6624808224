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
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static const char *const order_names[] = { "random", "interleaved", "rounds", "duet" };

const char *sched_order_name(enum sched_order o)
{
	return (size_t)o < ARRAY_SIZE(order_names) ? order_names[o] : "random";
}

int sched_order_parse(const char *name, enum sched_order *o)
{
	for (size_t i = 0; i < ARRAY_SIZE(order_names); i++)
		if (name && !strcmp(name, order_names[i])) {
			*o = (enum sched_order)i;
			return 0;
		}
	return -1;
}

int sched_order_rounds(enum sched_order o)
{
	return o == ORDER_ROUNDS || o == ORDER_DUET;
}

/* what runs as one in a round: a key alone, or a duet's pair (at, and partner) */
struct unit {
	size_t at, partner; /* partner SIZE_MAX: none */
};

/*
 * One round's items (each key at most once) in a fresh order drawn from r,
 * numbered `round`.  In a duet, keys 2i and 2i+1 of the round make a pair:
 * adjacent, 2i in slot 0; the pairs and the keys left alone are shuffled
 * as units.
 */
static void order_round(struct sched_item *items, size_t n, long round, int duet, gsl_rng *r)
{
	struct sched_item *was = xcalloc(n + 1, sizeof(*was));
	struct unit *u = xcalloc(n + 1, sizeof(*u));
	char *taken = xcalloc(n + 1, 1);
	size_t nu = 0;
	memcpy(was, items, n * sizeof(*items));
	for (size_t i = 0; i < n; i++) {
		if (taken[i])
			continue;
		u[nu] = (struct unit){ i, SIZE_MAX };
		for (size_t j = i + 1; duet && j < n && u[nu].partner == SIZE_MAX; j++)
			if (!taken[j] && (was[j].key ^ 1) == was[i].key) {
				taken[j] = 1;
				u[nu] = was[i].key & 1 ? (struct unit){ j, i } : (struct unit){ i, j };
			}
		taken[i] = 1;
		nu++;
	}
	if (nu > 1)
		gsl_ran_shuffle(r, u, nu, sizeof(*u));
	size_t w = 0;
	int pair = 0;
	for (size_t k = 0; k < nu; k++) {
		int paired = u[k].partner != SIZE_MAX;
		pair += paired;
		items[w] = was[u[k].at];
		items[w++].slot = 0;
		if (paired) {
			items[w] = was[u[k].partner];
			items[w++].slot = 1;
		}
		for (size_t q = w - 1 - (size_t)paired; q < w; q++) {
			items[q].round = round;
			items[q].pair = paired ? pair : 0;
		}
	}
	free(taken);
	free(u);
	free(was);
}

/*
 * items[0..n), whose `round` says which of them make one round (runs of
 * the same value), as rounds numbered after `last`, each ordered afresh
 * from seed; returns the last round's number.
 */
static long order_rounds(struct sched_item *items, size_t n, long last, enum sched_order order, unsigned long seed)
{
	if (!n)
		return last;
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(r, seed);
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j < n && items[j].round == items[i].round)
			j++;
		order_round(items + i, j - i, ++last, order == ORDER_DUET, r);
		i = j;
	}
	gsl_rng_free(r);
	return last;
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
	if (sched_order_rounds(order)) {
		for (i = 0; i < sc->n; i++)
			sc->items[i].round = sc->items[i].num + 1;
		order_rounds(sc->items, sc->n, 0, order, ex->seed);
	}
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
				out[n++] = (struct sched_item){ .key = (long)k, .num = num, .status = PX_PENDING,
								.round = r + 1 };
		}
	return n;
}

struct sched_item *schedule_more(const struct schedule *sc, const long *more, enum sched_order order,
				 const unsigned long *seed, size_t *n)
{
	long *next = xcalloc(sc->nkeys + 1, sizeof(long)), last = 0;
	size_t total = 0;
	for (size_t i = 0; i < sc->n; i++) {
		if (sc->items[i].num + 1 > next[sc->items[i].key])
			next[sc->items[i].key] = sc->items[i].num + 1;
		if (sc->items[i].round > last)
			last = sc->items[i].round;
	}
	for (size_t k = 0; k < sc->nkeys; k++)
		total += (size_t)more[k];
	struct sched_item *items = xcalloc(total + 1, sizeof(*items));
	size_t warm = more_rounds(sc, more, next, 1, items);
	*n = warm + more_rounds(sc, more, next, 0, items + warm);
	if (sched_order_rounds(order)) {
		/* each call's rounds drawn afresh: the seed moved on by the rounds already there */
		unsigned long s = (seed ? *seed : 0) + 1000003UL * (unsigned long)last;
		last = order_rounds(items, warm, last, order, s);
		order_rounds(items + warm, *n - warm, last, order, s + 1);
	} else {
		for (size_t i = 0; i < *n; i++)
			items[i].round = 0;
		if (seed)
			shuffle(items + warm, *n - warm, *seed);
	}
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
