/*
 * store-rounds.c - the rounds of a schedule in the results file.
 *
 * A schedule in rounds (schedule.h: ORDER_ROUNDS, ORDER_DUET) runs each key
 * once per round; which pexecs shared a round is what pairs them for a
 * comparison, so it is part of the schedule, stored beside it before any
 * of them runs, and read back on resume and by every reader:
 *
 *   pexec_rounds(pexec_id, round, pair, slot)
 *
 * round from 1; pair, in a duet, the pair of the round that runs at the
 * same time (from 1, 0: alone) and slot its place in it (0, 1).  A pexec
 * without a row ran outside rounds.  A file from an older kiln has no such
 * table: its pexecs have no round.  Values read are bounded (a crafted
 * file's nonsense is left out, never trusted).
 */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "dataset.h"
#include "store.h"

static int rounds_err(struct store *s, struct kerr *e)
{
	return kerr_setc(e, KEXIT_STORE, "%s: pexec_rounds: %s", store_path(s), sqlite3_errmsg(store_db(s)));
}

int store_rounds_put(struct store *s, const struct sched_item *items, size_t n, long seq0, struct kerr *e)
{
	size_t any = 0;
	for (size_t i = 0; i < n; i++)
		any += items[i].round > 0;
	if (!any)
		return 0;
	sqlite3 *db = store_db(s);
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO pexec_rounds(pexec_id, round, pair, slot)"
			       " SELECT id, ?2, ?3, ?4 FROM pexecs WHERE seq = ?1", -1, &st, NULL) != SQLITE_OK)
		return rounds_err(s, e);
	int r = 0;
	for (size_t i = 0; i < n && r == 0; i++) {
		if (items[i].round <= 0)
			continue;
		sqlite3_bind_int64(st, 1, seq0 + (sqlite3_int64)i);
		sqlite3_bind_int64(st, 2, items[i].round);
		sqlite3_bind_int(st, 3, items[i].pair);
		sqlite3_bind_int(st, 4, items[i].slot);
		if (sqlite3_step(st) != SQLITE_DONE || sqlite3_changes(db) != 1)
			r = rounds_err(s, e);
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	return r;
}

struct by_id {
	long id;
	size_t at;
};

static int cmp_id(const void *a, const void *b)
{
	long x = ((const struct by_id *)a)->id, y = ((const struct by_id *)b)->id;
	return x < y ? -1 : x > y;
}

/* a stored round worth believing: rounds from 1, pairs from 0, slot 0 or 1, all below a bound no schedule reaches */
#define ROUNDS_MAX 1000000000L
static int sane(long round, long pair, long slot)
{
	return round > 0 && round < ROUNDS_MAX && pair >= 0 && pair < ROUNDS_MAX && (slot == 0 || slot == 1);
}

int store_rounds_load(struct store *s, struct schedule *sc, struct kerr *e)
{
	(void)e;
	sqlite3_stmt *st;
	/* the items were read field by field into memory not cleared: none in a round until the table says */
	for (size_t i = 0; i < sc->n; i++)
		sc->items[i].round = 0, sc->items[i].pair = sc->items[i].slot = 0;
	/* no table (an older kiln's file): no rounds */
	if (!sc->n || sqlite3_prepare_v2(store_db(s), "SELECT pexec_id, round, pair, slot FROM pexec_rounds", -1, &st,
					 NULL) != SQLITE_OK)
		return 0;
	struct by_id *ix = xcalloc(sc->n, sizeof(*ix));
	for (size_t i = 0; i < sc->n; i++)
		ix[i] = (struct by_id){ sc->items[i].id, i };
	qsort(ix, sc->n, sizeof(*ix), cmp_id);
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct by_id want = { (long)sqlite3_column_int64(st, 0), 0 };
		long round = (long)sqlite3_column_int64(st, 1), pair = (long)sqlite3_column_int64(st, 2),
		     slot = (long)sqlite3_column_int64(st, 3);
		const struct by_id *hit = bsearch(&want, ix, sc->n, sizeof(*ix), cmp_id);
		if (!hit || !sane(round, pair, slot))
			continue;
		struct sched_item *it = &sc->items[hit->at];
		it->round = round;
		it->pair = (int)pair;
		it->slot = (int)slot;
	}
	sqlite3_finalize(st);
	free(ix);
	return 0;
}

/* the pexec numbered num of key dk (its pexecs are in number order), NULL: not in the dataset */
static struct ds_pexec *pexec_of(struct ds_key *dk, long num)
{
	size_t lo = 0, hi = dk->npexecs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (dk->pexecs[mid].num < num)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < dk->npexecs && dk->pexecs[lo].num == num ? &dk->pexecs[lo] : NULL;
}

void store_rounds_dataset(const struct schedule *sc, struct dataset *ds)
{
	for (size_t i = 0; i < sc->n; i++) {
		const struct sched_item *it = &sc->items[i];
		if (it->round <= 0 || it->key < 0 || (size_t)it->key >= ds->nkeys)
			continue;
		struct ds_pexec *p = pexec_of(&ds->keys[it->key], it->num);
		if (p) {
			p->round = it->round;
			p->duet_pair = it->pair;
		}
	}
}
