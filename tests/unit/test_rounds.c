/*
 * test_rounds.c - rounds and duets in the schedule (schedule.c), their
 * storage and reading back (store-rounds.c), and the pairing of two keys'
 * pexecs by round (rounds.c), with what it is for: the machine's moods
 * cancel in a paired ratio.  Deterministic, a fraction of a second.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "analysis.h"
#include "config.h"
#include "dataset.h"
#include "rounds.h"
#include "stats.h"
#include "schedule.h"
#include "store.h"
#include "util.h"

/* 3 benchmarks x 2 VMs: keys (a,t) (a,u) (b,t) (b,u) (c,t) (c,u), pairs by benchmark */
static const char cfg_text[] =
	"name: rounds\n"
	"pexecs: 40\n"
	"seed: 9\n"
	"vms:\n"
	"  t: {plugin: command, path: /bin/true}\n"
	"  u: {plugin: command, path: /bin/true, variant: v2}\n"
	"benchmarks:\n"
	"  a: 1\n"
	"  b: 2\n"
	"  c: 3\n";

static void load(struct experiment *ex)
{
	struct kerr e = KERR_INIT;
	assert_int_equal(config_parse("/tmp/unit-rounds.yaml", cfg_text, strlen(cfg_text), "/nonexistent", 1, ex, &e), 0);
	kerr_release(&e);
}

/* every round holds each key once, its pexec round - 1; rounds follow each other in the run order */
static void check_rounds(const struct schedule *sc, long first, long last)
{
	long want = first;
	size_t i = 0;
	while (i < sc->n && sc->items[i].round < first)
		i++;
	for (; i < sc->n; want++) {
		unsigned seen = 0;
		size_t j = i;
		for (; j < sc->n && sc->items[j].round == want; j++) {
			unsigned bit = 1u << sc->items[j].key;
			assert_false(seen & bit);
			seen |= bit;
		}
		assert_true(j > i);
		assert_int_equal(seen, (1u << sc->nkeys) - 1);
		i = j;
	}
	assert_int_equal(want - 1, last);
}

/* ORDER_ROUNDS: rounds of every key, each in an order of its own, the same for the same seed */
static void test_plan_rounds(void **state)
{
	(void)state;
	struct experiment ex;
	load(&ex);
	struct schedule a, b;
	schedule_plan(&ex, ORDER_ROUNDS, 0, 0, &a);
	schedule_plan(&ex, ORDER_ROUNDS, 0, 0, &b);
	assert_int_equal(a.n, 240);
	check_rounds(&a, 1, 40);
	int same = 1, firsts[6] = { 0 };
	for (size_t i = 0; i < a.n; i++) {
		same &= a.items[i].key == b.items[i].key;
		assert_int_equal(a.items[i].num, a.items[i].round - 1);
		assert_int_equal(a.items[i].pair, 0);
		if (i % 6 == 0)
			firsts[a.items[i].key]++;
	}
	assert_true(same);
	/* a fresh order each round: every key starts some of the 40 rounds (each does with p = 1 - (5/6)^40 > 0.999) */
	for (int k = 0; k < 6; k++)
		assert_true(firsts[k] > 0);
	schedule_free(&a);
	schedule_free(&b);
	config_free(&ex);
}

/* ORDER_DUET: keys 2i and 2i+1 side by side in every round, 2i in slot 0 */
static void test_plan_duet(void **state)
{
	(void)state;
	struct experiment ex;
	load(&ex);
	struct schedule sc;
	schedule_plan(&ex, ORDER_DUET, 0, 0, &sc);
	check_rounds(&sc, 1, 40);
	int moved = 0;
	for (size_t i = 0; i < sc.n; i += 2) {
		const struct sched_item *x = &sc.items[i], *y = &sc.items[i + 1];
		assert_int_equal(x->round, y->round);
		assert_true(x->pair > 0 && x->pair == y->pair);
		assert_int_equal(x->slot, 0);
		assert_int_equal(y->slot, 1);
		assert_int_equal(x->key ^ 1, y->key);
		assert_int_equal(x->key & 1, 0);
		moved |= i % 6 == 0 && x->key != 0;
	}
	assert_true(moved); /* the pairs of a round are shuffled too */
	schedule_free(&sc);
	config_free(&ex);
}

/* more rounds after the stored ones: numbered on, each complete, drawn afresh */
static void test_more_rounds(void **state)
{
	(void)state;
	struct experiment ex;
	load(&ex);
	struct schedule sc;
	schedule_plan(&ex, ORDER_DUET, 3, 0, &sc);
	assert_int_equal(sc.n, 18);
	long more[6] = { 5, 5, 5, 5, 5, 5 };
	size_t n;
	struct sched_item *it = schedule_more(&sc, more, ORDER_DUET, &ex.seed, &n);
	assert_int_equal(n, 30);
	struct schedule all = sc;
	all.items = xcalloc(sc.n + n, sizeof(*all.items));
	memcpy(all.items, sc.items, sc.n * sizeof(*sc.items));
	memcpy(all.items + sc.n, it, n * sizeof(*it));
	all.n = sc.n + n;
	check_rounds(&all, 1, 8);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(it[i].num, it[i].round - 1);
	/* a key that gets fewer runs: its rounds are the first ones, it runs alone there no more */
	more[3] = 2;
	free(it);
	it = schedule_more(&sc, more, ORDER_DUET, &ex.seed, &n);
	assert_int_equal(n, 27);
	for (size_t i = 0; i < n; i++)
		if (it[i].key == 2 && it[i].round > 5)
			assert_int_equal(it[i].pair, 0);
	/* other orders carry no rounds */
	free(it);
	it = schedule_more(&sc, more, ORDER_INTERLEAVED, NULL, &n);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(it[i].round, 0);
	free(it);
	free(all.items);
	schedule_free(&sc);
	config_free(&ex);
}

/* stored with the schedule, read back by a resumed run and by readers, kept when rounds are added */
static void test_store_rounds(void **state)
{
	(void)state;
	char dir[] = "/tmp/kiln-unit-rounds.XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *path = xasprintf("%s/r.kiln.db", dir);
	struct experiment ex;
	load(&ex);
	struct kerr e = KERR_INIT;
	struct schedule plan, sc;
	schedule_plan(&ex, ORDER_DUET, 2, 1, &plan);
	struct store *st;
	assert_int_equal(store_open(path, 1, &st, &e), 0);
	assert_int_equal(store_lock(st, &e), 0);
	assert_int_equal(store_init(st, &ex, &plan, "duet", &e), 0);
	assert_int_equal(store_load_schedule(st, &sc, &e), 0);
	assert_int_equal(sc.n, plan.n);
	for (size_t i = 0; i < sc.n; i++) {
		assert_int_equal(sc.items[i].key, plan.items[i].key);
		assert_int_equal(sc.items[i].round, plan.items[i].round);
		assert_int_equal(sc.items[i].pair, plan.items[i].pair);
		assert_int_equal(sc.items[i].slot, plan.items[i].slot);
	}
	long more[6] = { 1, 1, 1, 1, 1, 1 };
	size_t n;
	struct sched_item *it = schedule_more(&sc, more, ORDER_DUET, &ex.seed, &n);
	assert_int_equal(store_add_pexecs(st, it, n, &sc, &e), 0);
	free(it);
	check_rounds(&sc, 1, 3);
	/* every pexec run, its wall time its round, so that the dataset shows which round each came from */
	struct pexec_result pr;
	memset(&pr, 0, sizeof(pr));
	for (size_t i = 0; i < sc.n; i++) {
		int64_t w = sc.items[i].round * 1000000;
		pr.status = PX_OK;
		pr.wall_ns = &w;
		pr.n = 1;
		assert_int_equal(store_mark_running(st, sc.items[i].id, &e), 0);
		assert_int_equal(store_commit_pexec(st, sc.items[i].id, &pr, &e), 0);
	}
	store_close(st);
	struct dataset ds;
	assert_int_equal(store_load_dataset(path, &ds, &e), 0);
	assert_int_equal(ds.nkeys, 6);
	for (size_t k = 0; k < ds.nkeys; k++) {
		assert_int_equal(ds.keys[k].npexecs, 3);
		for (size_t p = 0; p < 3; p++) {
			assert_int_equal(ds.keys[k].pexecs[p].round, ds.keys[k].pexecs[p].num + 1);
			assert_true(fabs(ds.keys[k].pexecs[p].wall[0] * 1e3 - (double)ds.keys[k].pexecs[p].round) < 1e-9);
			assert_true(ds.keys[k].pexecs[p].duet_pair > 0);
		}
	}
	ds_free(&ds);
	/* a crafted row is left out, not believed */
	sqlite3 *db;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "UPDATE pexec_rounds SET round = -4, slot = 7 WHERE pexec_id = 1", NULL, NULL,
				      NULL), SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(store_load_dataset(path, &ds, &e), 0);
	size_t none = 0;
	for (size_t k = 0; k < ds.nkeys; k++)
		for (size_t p = 0; p < ds.keys[k].npexecs; p++)
			none += ds.keys[k].pexecs[p].round == 0;
	assert_int_equal(none, 1);
	ds_free(&ds);
	schedule_free(&sc);
	schedule_free(&plan);
	config_free(&ex);
	kerr_release(&e);
	rm_rf(dir);
	free(path);
}

/* splitmix64: the test's own numbers, the same everywhere */
static uint64_t mix_state = 42;
static double uniform(void)
{
	uint64_t z = (mix_state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return ((double)((z ^ (z >> 31)) >> 11) + 0.5) / 9007199254740992.0;
}

/* a whole-process pexec of k: time t, run in round `round` (0: none), duet pair `pair` */
static void add_run(struct ds_key *k, long num, double t, long round, int pair)
{
	struct ds_pexec *p = ds_add_pexec(k, num);
	p->wall = xmalloc(sizeof(double));
	p->wall[0] = t;
	p->n = 1;
	p->round = round;
	p->duet_pair = pair;
}

/*
 * The machine's mood moves from round to round (a drift of +-30%, a stall
 * of 3x in one round) and falls on both sides of a round alike; B is 2%
 * slower.  Paired by round, the ratio sees it; the same values taken as two
 * independent samples do not (the moods are their spread).  The pairing
 * leaves out what has no partner.
 */
static void test_pair_by_round(void **state)
{
	(void)state;
	struct dataset ds;
	memset(&ds, 0, sizeof(ds));
	struct ds_key *a = ds_add_key(&ds, "b", "old", "v");
	a->iterations = 1;
	for (long r = 1; r <= 30; r++) {
		double mood = (1 + 0.3 * sin((double)r)) * (r == 7 ? 3 : 1);
		add_run(a, r - 1, 0.1 * mood * (1 + 0.01 * (uniform() - 0.5)), r, r <= 10 ? 1 : 0);
	}
	add_run(a, 30, 0.1, 0, 0); /* run outside rounds */
	struct ds_key *b = ds_add_key(&ds, "b", "new", "v");
	b->iterations = 1;
	mix_state = 7;
	for (long r = 1; r <= 30; r++) {
		double mood = (1 + 0.3 * sin((double)r)) * (r == 7 ? 3 : 1);
		add_run(b, r - 1, 0.102 * mood * (1 + 0.01 * (uniform() - 0.5)), r, r <= 10 ? 1 : 0);
	}
	add_run(b, 30, 0.1, 31, 0); /* a round A has no run in */
	struct an_opts o;
	an_opts_default(&o);
	o.resamples = 1000;
	o.threads = 1;
	struct an_key ka, kb;
	memset(&ka, 0, sizeof(ka));
	memset(&kb, 0, sizeof(kb));
	an_analyse_key(&ds.keys[0], &o, &ka);
	an_analyse_key(&ds.keys[1], &o, &kb);
	assert_true(ka.whole && kb.whole);
	struct round_pairs rp;
	rounds_pair(&ka, &kb, &rp);
	assert_int_equal(rp.n, 30);
	assert_int_equal(rp.duet, 10);
	assert_int_equal(rp.alone_a, 1);
	assert_int_equal(rp.alone_b, 1);
	for (size_t i = 0; i < rp.n; i++) {
		assert_int_equal(rp.round[i], (long)i + 1);
		assert_true(fabs(rp.b[i] / rp.a[i] - 1.02) < 0.02);
	}
	struct ks_ratio paired, unpaired;
	ks_ratio_paired(rp.a, rp.b, rp.n, 0.99, &paired);
	ks_ratio_unpaired(rp.a, rp.n, rp.b, rp.n, 0.99, &unpaired);
	assert_true(paired.ok && unpaired.ok);
	assert_int_equal(ks_ratio_verdict(&paired), 1);
	assert_true(paired.lo < 1.02 && 1.02 < paired.hi);
	assert_int_equal(ks_ratio_verdict(&unpaired), 0);
	assert_true(paired.mde < 0.01 && unpaired.mde > 0.1);
	/* rounds_ratio (kiln bench's summary): the paired one when rounds pair the keys, else unpaired */
	struct ks_ratio q;
	assert_int_equal(rounds_ratio(&ka, &kb, 0.99, &q), 1);
	assert_true(q.ok && q.ratio == paired.ratio && q.lo == paired.lo && q.hi == paired.hi);
	for (size_t i = 0; i < ds.keys[1].npexecs; i++)
		ds.keys[1].pexecs[i].round = 0; /* B's runs outside rounds: nothing to pair */
	assert_int_equal(rounds_ratio(&ka, &kb, 0.99, &q), 0);
	assert_true(q.ok && ks_ratio_verdict(&q) == 0 && q.mde > 0.1);
	round_pairs_free(&rp);
	an_key_free(&ka);
	an_key_free(&kb);
	ds_free(&ds);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plan_rounds),
		cmocka_unit_test(test_plan_duet),
		cmocka_unit_test(test_more_rounds),
		cmocka_unit_test(test_store_rounds),
		cmocka_unit_test(test_pair_by_round),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
