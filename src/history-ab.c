/*
 * history-ab.c - two commits measured against each other (history-ab.h).
 *
 * Each commit gets its own checkout (<history>.work/ab/HASH) and build
 * (the VM's build steps, through kiln run's session with build_only).  A
 * measurement of commits A and B is one kiln run of the config read twice,
 * {src} being A's checkout, then B's, its VMs renamed NAME.HASH8 so that
 * the two make one experiment, in `rounds` order (randomized multiple
 * interleaved trials, Abedi & Brecht, ICPE 2017; schedule.h): round r runs
 * pexec r of every key, A's and B's, before round r + 1, each round in an
 * order of its own drawn from a seed, so that what the machine does
 * meanwhile hits both alike, and what depends on the place in a round (a
 * cache the previous process left warm, a periodic daemon) falls on A and
 * B alike too.  The seed is the session's (session_seed), stored in the
 * results' meta and so in both runs' run_meta with the order.  Rounds are
 * added through the run's `more` hook, as the caller's sequential test
 * asks.  The results file is folded into the history as two runs of kind
 * `ab` sharing a session id, and the next measurement of the same two
 * commits starts from the rounds stored.
 */
#include "history-ab.h"

#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis.h"
#include "config.h"
#include "dataset.h"
#include "history-git.h"
#include "history-int.h"
#include "run.h"
#include "stats-robust.h"
#include "store.h"

#include <gsl/gsl_cdf.h>

void ab_keys_free(struct ab_keys *k)
{
	for (size_t i = 0; i < k->n; i++) {
		free(k->key[i]);
		free(k->d[i]);
		free(k->a[i]);
		free(k->b[i]);
		free(k->fa[i]);
		free(k->fb[i]);
	}
	free(k->key);
	free(k->d);
	free(k->a);
	free(k->b);
	free(k->fa);
	free(k->fb);
	free(k->nd);
	memset(k, 0, sizeof(*k));
}

static size_t ab_key_index(struct ab_keys *k, const char *key)
{
	for (size_t i = 0; i < k->n; i++)
		if (!strcmp(k->key[i], key))
			return i;
	k->key = xrealloc(k->key, (k->n + 1) * sizeof(char *));
	k->d = xrealloc(k->d, (k->n + 1) * sizeof(double *));
	k->a = xrealloc(k->a, (k->n + 1) * sizeof(double *));
	k->b = xrealloc(k->b, (k->n + 1) * sizeof(double *));
	k->fa = xrealloc(k->fa, (k->n + 1) * sizeof(struct ab_fig *));
	k->fb = xrealloc(k->fb, (k->n + 1) * sizeof(struct ab_fig *));
	k->nd = xrealloc(k->nd, (k->n + 1) * sizeof(size_t));
	k->key[k->n] = xstrdup(key);
	k->d[k->n] = k->a[k->n] = k->b[k->n] = NULL;
	k->fa[k->n] = k->fb[k->n] = NULL;
	k->nd[k->n] = 0;
	return k->n++;
}

/* one round of key i as it is: a's and b's figures and the difference d */
static void ab_key_push(struct ab_keys *k, size_t i, const struct ab_fig *a, const struct ab_fig *b, double d)
{
	size_t n = k->nd[i];
	k->d[i] = xrealloc(k->d[i], (n + 1) * sizeof(double));
	k->a[i] = xrealloc(k->a[i], (n + 1) * sizeof(double));
	k->b[i] = xrealloc(k->b[i], (n + 1) * sizeof(double));
	k->fa[i] = xrealloc(k->fa[i], (n + 1) * sizeof(struct ab_fig));
	k->fb[i] = xrealloc(k->fb[i], (n + 1) * sizeof(struct ab_fig));
	k->a[i][n] = a->steady;
	k->b[i][n] = b->steady;
	k->fa[i][n] = *a;
	k->fb[i][n] = *b;
	k->d[i][n] = d;
	k->nd[i]++;
}

/* one round of key i from a's and b's pexecs, when both have a steady state and a figure in series w */
static void ab_key_add(struct ab_keys *k, size_t i, const struct ab_fig *a, const struct ab_fig *b, enum hist_what w)
{
	double fa = hist_pexec_figure(w, a->steady, a->tts, a->cost), fb = hist_pexec_figure(w, b->steady, b->tts, b->cost);
	if (a->steady > 0 && b->steady > 0 && isfinite(fa) && isfinite(fb))
		ab_key_push(k, i, a, b, fb - fa);
}

int ab_open(struct ab_ctx *c, const struct track_opts *o, struct kerr *e)
{
	memset(c, 0, sizeof(*c));
	c->o = o;
	struct strbuf sb = STRBUF_INIT;
	if (read_file(o->config, &sb, e) < 0)
		return KEXIT_CONFIG;
	c->text = sb_detach(&sb);
	hash_hex(c->text, strlen(c->text), c->config_hash);
	char *abs = track_history_path(o);
	c->dir = xasprintf("%s.work/ab", abs);
	int code = KEXIT_OK;
	if (!track_plain_path(c->dir))
		code = (kerr_setc(e, KEXIT_USAGE, "%s: the checkouts' paths go into the config as {src}: choose a history "
				 "path of letters, digits and / . _ + - only", c->dir), KEXIT_USAGE);
	else if (mkdir_p(c->dir, 0755) < 0)
		code = (kerr_setc(e, KEXIT_STORE, "%s: %s", c->dir, strerror(errno)), KEXIT_STORE);
	else if (history_open(abs, 1, &c->h, e) < 0)
		code = e->code;
	else if ((c->machine = track_machine(c->h, o->machine, e)) <= 0)
		code = e->code ? e->code : KEXIT_STORE;
	if (code == KEXIT_OK) {
		char host[256] = "";
		gethostname(host, sizeof(host) - 1);
		c->machine_name = xstrdup(o->machine ? o->machine : host[0] ? host : "localhost");
	}
	free(abs);
	return code;
}

const char *ab_binary(const struct ab_ctx *c, const char *hash)
{
	const char *b = NULL;
	for (size_t i = 0; i + 1 < c->built.n; i += 2)
		if (!strcmp(c->built.v[i], hash))
			b = c->built.v[i + 1]; /* the last build of it */
	return b;
}

void ab_close(struct ab_ctx *c)
{
	sv_clear(&c->built);
	history_close(c->h);
	free(c->text);
	free(c->dir);
	free(c->machine_name);
	memset(c, 0, sizeof(*c));
}

/* has this machine found commit cid broken before, with this config (another may build it)? */
static int known_broken(struct ab_ctx *c, long cid)
{
	sqlite3_stmt *st = history_prepare(c->h, "SELECT COUNT(*) FROM runs WHERE commit_id=? AND machine_id=? AND"
					       " status='build-failed' AND config_hash=?", NULL);
	int yes = st && (sqlite3_bind_int64(st, 1, cid), sqlite3_bind_int64(st, 2, c->machine),
			 sqlite3_bind_text(st, 3, c->config_hash, -1, SQLITE_TRANSIENT), sqlite3_step(st) == SQLITE_ROW) &&
		  sqlite3_column_int(st, 0) > 0;
	sqlite3_finalize(st);
	return yes;
}

static char *tree_of(const struct ab_ctx *c, const struct hist_commit *x)
{
	return xasprintf("%s/%s", c->dir, x->hash);
}

int ab_build(struct ab_ctx *c, const struct hist_commit *x, struct kerr *e)
{
	long cid = history_put_commit(c->h, x, e);
	if (cid < 0)
		return -1;
	if (known_broken(c, cid))
		return 1;
	char *tree = tree_of(c, x), *results = xasprintf("%s/%s.build.kiln.db", c->dir, x->hash);
	struct kerr me = KERR_INIT;
	int failed = 0, code, r = 0;
	int64_t t0 = mono_ns();
	if (hgit_checkout(c->o->repo, tree, x->hash, e) < 0) {
		r = -1; /* the repository or the work folder, not the commit */
	} else {
		struct experiment ex;
		code = track_experiment(c->o, c->text, tree, &ex, e);
		if (code == KEXIT_OK) {
			struct run_opts ro;
			memset(&ro, 0, sizeof(ro));
			ro.results = results;
			ro.quiet = 1;
			ro.build_only = 1;
			ro.build_failed = &failed;
			unlink(results);
			code = run_experiment_ex(&ex, c->o->config, &ro, &me);
			char *bin = code == KEXIT_OK && !failed ? track_binary_hash(&ex) : NULL;
			if (bin) {
				sv_push(&c->built, x->hash);
				sv_push(&c->built, bin);
			}
			free(bin);
		}
		config_free(&ex);
		if (code != KEXIT_OK && !failed) {
			if (!me.msg.len)
				kerr_setc(&me, code, "%s", sb_str(&e->msg));
			kerr_setc(e, code, "%.12s: %s", x->hash, sb_str(&me.msg));
			r = -1;
		}
	}
	unlink(results);
	char *s = xasprintf("%s-wal", results);
	unlink(s);
	free(s);
	c->builds++;
	if (r == 0 && failed) {
		/* recorded: the next bisect over it skips it without building */
		long rid = history_begin_run(c->h, cid, c->machine, "ab", NULL, c->config_hash, e);
		if (rid < 0 || history_end_run(c->h, rid, "build-failed", (double)(mono_ns() - t0) / 1e9, NULL,
					       sb_str(&me.msg), e) < 0)
			r = -1;
		else
			r = 1;
	}
	kerr_release(&me);
	free(tree);
	free(results);
	return r;
}

/* ---- the rounds stored ---- */

/* pexec num -> figures of key in run rid, into v (size cap), steady NAN where none */
static void figs_by_num(struct ab_ctx *c, long rid, const char *key, struct ab_fig *v, size_t cap)
{
	for (size_t i = 0; i < cap; i++)
		v[i] = (struct ab_fig){ NAN, NAN, NAN };
	sqlite3_stmt *st = history_prepare(c->h, "SELECT p.num, f.steady_mean, f.time_to_steady, f.warmup_cost FROM"
					       " figures f JOIN pexecs p ON p.id = f.pexec_id JOIN keys k ON k.id = p.key_id"
					       " WHERE p.run_id=? AND k.bench || ':' || k.vm || ':' || k.variant = ?", NULL);
	if (!st)
		return;
	sqlite3_bind_int64(st, 1, rid);
	sqlite3_bind_text(st, 2, key, -1, SQLITE_TRANSIENT);
	while (sqlite3_step(st) == SQLITE_ROW) {
		long num = sqlite3_column_int64(st, 0);
		if (num >= 0 && (size_t)num < cap)
			v[num] = (struct ab_fig){ history_col_double(st, 1), history_col_double(st, 2),
						  history_col_double(st, 3) };
	}
	sqlite3_finalize(st);
}

#define AB_MAX_ROUNDS 10000

/*
 * The rounds of every stored session of a and b (either way round) on this
 * machine with this config, per key of keys: rounds of another config (its
 * benchmarks' params, iterations, build steps, VM options changed) measured
 * something else, and would be taken for this config's
 */
static void stored_rounds(struct ab_ctx *c, long ca, long cb, const struct strvec *keys, struct ab_keys *out)
{
	sqlite3_stmt *st = history_prepare(c->h, "SELECT x.id, y.id, x.commit_id FROM runs x JOIN runs y ON"
					       " y.session = x.session AND y.id != x.id WHERE x.kind='ab' AND y.kind='ab'"
					       " AND x.status='ok' AND y.status='ok' AND x.machine_id=?1 AND x.commit_id=?2"
					       " AND y.commit_id=?3 AND (?2 != ?3 OR x.id < y.id) AND x.config_hash=?4"
					       " AND y.config_hash=?4 ORDER BY x.id", NULL);
	if (!st)
		return;
	sqlite3_bind_int64(st, 1, c->machine);
	sqlite3_bind_int64(st, 2, ca);
	sqlite3_bind_int64(st, 3, cb);
	sqlite3_bind_text(st, 4, c->config_hash, -1, SQLITE_TRANSIENT);
	struct ab_fig *va = xmalloc(AB_MAX_ROUNDS * sizeof(*va)), *vb = xmalloc(AB_MAX_ROUNDS * sizeof(*vb));
	while (sqlite3_step(st) == SQLITE_ROW) {
		long ra = sqlite3_column_int64(st, 0), rb = sqlite3_column_int64(st, 1);
		for (size_t k = 0; k < keys->n; k++) {
			figs_by_num(c, ra, keys->v[k], va, AB_MAX_ROUNDS);
			figs_by_num(c, rb, keys->v[k], vb, AB_MAX_ROUNDS);
			size_t i = ab_key_index(out, keys->v[k]);
			for (size_t r = 0; r < AB_MAX_ROUNDS; r++)
				ab_key_add(out, i, &va[r], &vb[r], c->series);
		}
	}
	/* the rounds they ran: as many as the best-paired key's (what was not kept, failed, is not known) */
	for (size_t k = 0; k < out->n; k++)
		out->rounds = out->nd[k] > out->rounds ? out->nd[k] : out->rounds;
	free(va);
	free(vb);
	sqlite3_finalize(st);
}

/* ---- one session ---- */

struct session {
	struct ab_ctx *c;
	const char *results;
	char sa[16], sb[16];        /* the VM name suffixes: .HASH8 of a and b */
	const struct strvec *keys;  /* the config's keys */
	const struct ab_keys *stored;
	ab_more_fn more;
	void *mctx;
	struct ab_keys now;         /* stored + this session's */
	size_t asked;               /* rounds this session has run (asked of kiln run) */
	struct an_opts an;
};

/* key "bench:vm:variant" with the vm given a suffix */
static char *key_with(const char *key, const char *suffix)
{
	const char *c1 = strchr(key, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
	if (!c2)
		return xstrdup(key);
	return xasprintf("%.*s%s%s", (int)(c2 - key), key, suffix, c2);
}

/*
 * Did pexecs x (of A) and y (of B) share a round?  The schedule says so
 * (its stored round); its rounds run pexec r - 1 of every key in round r,
 * in whatever order, so the numbers agree wherever the round does, and a
 * pexec without a round (a file from before rounds) pairs by number.  The
 * history keeps the numbers, not the rounds: stored_rounds pairs by them.
 */
static int same_round(const struct ds_pexec *x, const struct ds_pexec *y)
{
	if (x->round > 0 && y->round > 0)
		return x->round == y->round;
	return x->num == y->num;
}

static struct ab_fig fig_of(const struct an_pexec *ap)
{
	return (struct ab_fig){ ap->steady_mean, ap->time_to_steady, ap->warmup_cost };
}

/* the stored rounds, then this session's from its results file, into s->now */
static int session_rounds(struct session *s, struct kerr *e)
{
	ab_keys_free(&s->now);
	s->now.rounds = s->stored->rounds + s->asked;
	for (size_t k = 0; k < s->stored->n; k++) {
		size_t i = ab_key_index(&s->now, s->stored->key[k]);
		for (size_t r = 0; r < s->stored->nd[k]; r++)
			ab_key_push(&s->now, i, &s->stored->fa[k][r], &s->stored->fb[k][r], s->stored->d[k][r]);
	}
	struct dataset ds;
	if (store_load_dataset(s->results, &ds, e) < 0)
		return -1;
	for (size_t k = 0; k < s->keys->n; k++) {
		size_t i = ab_key_index(&s->now, s->keys->v[k]);
		char *ka = key_with(s->keys->v[k], s->sa), *kb = key_with(s->keys->v[k], s->sb);
		const struct ds_key *da0 = ds_find_key(&ds, ka), *db0 = ds_find_key(&ds, kb);
		struct an_key aa, ab;
		memset(&aa, 0, sizeof(aa));
		memset(&ab, 0, sizeof(ab));
		if (da0 && db0) {
			/* on the history's clock: wall time, or each iteration's CPU time */
			int cpu = history_clock_cpu(s->c->h);
			struct ds_key da, db;
			history_clock_key(da0, cpu, &da);
			history_clock_key(db0, cpu, &db);
			an_analyse_key(&da, &s->an, &aa);
			an_analyse_key(&db, &s->an, &ab);
			for (size_t x = 0; x < aa.np; x++)
				for (size_t y = 0; y < ab.np; y++)
					if (same_round(&da.pexecs[aa.p[x].index], &db.pexecs[ab.p[y].index])) {
						struct ab_fig fa = fig_of(&aa.p[x]), fb = fig_of(&ab.p[y]);
						ab_key_add(&s->now, i, &fa, &fb, s->c->series);
					}
			history_clock_release(&da, cpu);
			history_clock_release(&db, cpu);
		}
		an_key_free(&aa);
		an_key_free(&ab);
		free(ka);
		free(kb);
	}
	ds_free(&ds);
	return 0;
}

/* kiln run's hook: no pexec is pending; the caller's test says how many more rounds */
static void session_more(void *ctx, const struct schedule *sc, long *more)
{
	struct session *s = ctx;
	struct kerr e = KERR_INIT;
	size_t k = 0;
	if (session_rounds(s, &e) == 0)
		k = s->more(s->mctx, &s->now);
	else
		kiln_warn("%s", sb_str(&e.msg));
	kerr_release(&e);
	s->asked += k;
	for (size_t i = 0; i < sc->nkeys; i++)
		more[i] = (long)k;
}

/* rename every VM of ex NAME.SUFFIX, and its keys_only with them */
static void rename_vms(struct experiment *ex, const char *suffix)
{
	for (size_t v = 0; v < ex->nvms; v++) {
		char *n = xasprintf("%s%s", ex->vms[v].name, suffix);
		free(ex->vms[v].name);
		ex->vms[v].name = n;
	}
	for (size_t i = 0; i < ex->keys_only.n; i++) {
		char *k = key_with(ex->keys_only.v[i], suffix);
		free(ex->keys_only.v[i]);
		ex->keys_only.v[i] = k;
	}
}

/* b's VMs moved into a: one experiment of both */
static void join_experiments(struct experiment *a, struct experiment *b)
{
	a->vms = xrealloc(a->vms, (a->nvms + b->nvms) * sizeof(*a->vms));
	memcpy(a->vms + a->nvms, b->vms, b->nvms * sizeof(*b->vms));
	a->nvms += b->nvms;
	b->nvms = 0;
	for (size_t i = 0; i < b->keys_only.n; i++)
		sv_push(&a->keys_only, b->keys_only.v[i]);
}

/* the config's keys (their names, before renaming) that run on it */
static void config_keys(const struct experiment *ex, struct strvec *keys)
{
	for (size_t b = 0; b < ex->nbenchs; b++)
		for (size_t v = 0; v < ex->nvms; v++) {
			char *k = xasprintf("%s:%s:%s", ex->benchs[b].name, ex->vms[v].name, ex->vms[v].variant);
			int in = !ex->keys_only.n;
			for (size_t i = 0; i < ex->keys_only.n && !in; i++)
				in = !strcmp(ex->keys_only.v[i], k);
			if (in && config_runs(ex, &ex->benchs[b], &ex->vms[v]))
				sv_push(keys, k);
			free(k);
		}
}

/* the session's results folded in as two ab runs sharing a session id */
static int session_fold(struct session *s, long ca, long cb, struct kerr *e)
{
	unsigned char rnd[8];
	char id[17];
	if (random_bytes(rnd, sizeof(rnd), e) < 0)
		return -1;
	for (int i = 0; i < 8; i++)
		snprintf(id + 2 * i, 3, "%02x", rnd[i]);
	long ra = history_begin_run(s->c->h, ca, s->c->machine, "ab", id, s->c->config_hash, e);
	long rb = ra < 0 ? -1 : history_begin_run(s->c->h, cb, s->c->machine, "ab", id, s->c->config_hash, e);
	if (rb < 0 || history_fold_suffix(s->c->h, ra, s->results, s->sa, &s->c->o->an, e) < 0 ||
	    history_fold_suffix(s->c->h, rb, s->results, s->sb, &s->c->o->an, e) < 0 ||
	    history_end_run(s->c->h, ra, "ok", NAN, NULL, NULL, e) < 0 ||
	    history_end_run(s->c->h, rb, "ok", NAN, NULL, NULL, e) < 0)
		return -1;
	return 0;
}

/*
 * The seed of a session's round order: the config's seed, the two commits
 * and how many rounds of theirs are stored, hashed: the same config gives
 * the same orders again (reproducible), while another pair, or the next
 * session of the same pair, draws orders of its own rather than repeating
 * the first session's.  48 bits (the results' meta keeps it as a number).
 */
static unsigned long session_seed(unsigned long seed, const char *a, const char *b, const struct ab_keys *stored)
{
	size_t rounds = 0;
	for (size_t k = 0; k < stored->n; k++)
		rounds = stored->nd[k] > rounds ? stored->nd[k] : rounds;
	char *s = xasprintf("kiln-ab %lu %s %s %zu", seed, a, b, rounds), h[65];
	hash_hex(s, strlen(s), h);
	free(s);
	h[12] = '\0';
	return strtoul(h, NULL, 16);
}

static void remove_files(const char *path)
{
	static const char *const suf[] = { "", "-wal", "-shm", "-journal" };
	for (size_t i = 0; i < ARRAY_SIZE(suf); i++) {
		char *p = xasprintf("%s%s", path, suf[i]);
		unlink(p);
		free(p);
	}
	char *log = store_sibling(path, ".kiln.log");
	unlink(log);
	free(log);
}

int ab_measure(struct ab_ctx *c, const struct hist_commit *a, const struct hist_commit *b, ab_more_fn more, void *mctx,
	       struct ab_keys *out, struct kerr *e)
{
	memset(out, 0, sizeof(*out));
	long ca = history_put_commit(c->h, a, e), cb = ca < 0 ? -1 : history_put_commit(c->h, b, e);
	if (cb < 0)
		return e->code;
	char *ta = tree_of(c, a), *tb = tree_of(c, b);
	struct experiment ea, eb;
	int code = track_experiment(c->o, c->text, ta, &ea, e);
	if (code == KEXIT_OK)
		code = track_experiment(c->o, c->text, tb, &eb, e);
	else
		memset(&eb, 0, sizeof(eb));
	struct strvec keys = STRVEC_INIT;
	struct ab_keys stored;
	memset(&stored, 0, sizeof(stored));
	struct session s;
	memset(&s, 0, sizeof(s));
	if (code == KEXIT_OK) {
		config_keys(&ea, &keys);
		stored_rounds(c, ca, cb, &keys, &stored);
		for (size_t k = 0; k < keys.n; k++)
			ab_key_index(&stored, keys.v[k]);
	}
	size_t first = code == KEXIT_OK ? more(mctx, &stored) : 0;
	char *results = NULL;
	if (code == KEXIT_OK && first > 0) {
		results = xasprintf("%s/%.8s-%.8s.kiln.db", c->dir, a->hash, b->hash);
		remove_files(results);
		s.c = c;
		s.results = results;
		snprintf(s.sa, sizeof(s.sa), ".%.8s", a->hash);
		snprintf(s.sb, sizeof(s.sb), ".%.8s", b->hash);
		if (!strcmp(a->hash, b->hash)) {
			/* a commit against itself (A/A: the machine's noise floor): two names all the same */
			snprintf(s.sa, sizeof(s.sa), ".%.8s-a", a->hash);
			snprintf(s.sb, sizeof(s.sb), ".%.8s-b", b->hash);
		}
		s.keys = &keys;
		s.stored = &stored;
		s.more = more;
		s.mctx = mctx;
		s.asked = first;
		s.an = c->o->an;
		s.an.resamples = 1000;
		rename_vms(&ea, s.sa);
		rename_vms(&eb, s.sb);
		join_experiments(&ea, &eb);
		ea.pexecs = (long)first;
		ea.seed = session_seed(ea.seed, a->hash, b->hash, &stored);
		struct run_hooks hooks = { .ctx = &s, .more = session_more };
		struct run_opts ro;
		memset(&ro, 0, sizeof(ro));
		int failed = 0;
		ro.results = results;
		ro.quiet = 1;
		ro.order = ORDER_ROUNDS;
		ro.hooks = &hooks;
		ro.build_failed = &failed;
		code = run_experiment_ex(&ea, c->o->config, &ro, e);
		/* failed pexecs leave a round without its pair: the rest still count */
		if (code == KEXIT_FAIL && !failed && file_exists(results))
			code = KEXIT_OK;
		if (code == KEXIT_OK && (session_fold(&s, ca, cb, e) < 0 || session_rounds(&s, e) < 0))
			code = e->code ? e->code : KEXIT_STORE;
		else if (code == KEXIT_INTERRUPTED && file_exists(results)) {
			/* the rounds that finished are kept: the next measurement of the two starts from them */
			struct kerr fe = KERR_INIT;
			if (session_fold(&s, ca, cb, &fe) < 0)
				kiln_warn("the finished rounds could not be kept: %s", sb_str(&fe.msg));
			kerr_release(&fe);
		}
		if (code == KEXIT_OK) {
			*out = s.now;
			memset(&s.now, 0, sizeof(s.now));
		}
		remove_files(results);
	} else if (code == KEXIT_OK) {
		*out = stored;
		memset(&stored, 0, sizeof(stored));
	}
	ab_keys_free(&s.now);
	ab_keys_free(&stored);
	sv_clear(&keys);
	config_free(&ea);
	config_free(&eb);
	free(results);
	free(ta);
	free(tb);
	return code;
}

/*
 * HEAD's warm-up against BASE's, round by round: each round's difference of
 * the two pexecs' log(1 + time to steady / steady mean) (the warm-up in
 * steady iterations' worth, kiln track's warmup series and kiln bisect
 * --series warmup's rounds), their centre by Tukey's biweight (Huber's
 * below 20 rounds: kiln bisect's; a pexec whose warm-up the analysis
 * missed is a round far off) with a t interval at 99%; ratio = exp of it,
 * HEAD's 1 + warm-up over BASE's.  Longer when the interval lies above 1
 * and the ratio above 1 + threshold.
 */
struct ab_warm ab_judge_warm(const struct ab_fig *a, const struct ab_fig *b, size_t n, double threshold)
{
	struct ab_warm v = { NAN, NAN, NAN, 0, 0, 0 };
	double *d = xmalloc((n ? n : 1) * sizeof(double)), m, sd, df;
	for (size_t i = 0; i < n; i++) {
		double x = hist_pexec_figure(HIST_WARMUP, a[i].steady, a[i].tts, a[i].cost),
		       y = hist_pexec_figure(HIST_WARMUP, b[i].steady, b[i].tts, b[i].cost);
		if (isfinite(x) && isfinite(y))
			d[v.n++] = y - x;
	}
	if (v.n >= 2 && robust_biweight(d, v.n, ROBUST_BIWEIGHT_C, &m, &sd, &df) == 0 && isfinite(sd)) {
		double h = gsl_cdf_tdist_Pinv(0.995, df > 1 ? df : 1) * sd / sqrt((double)v.n);
		v.ratio = exp(m);
		v.lo = exp(m - h);
		v.hi = exp(m + h);
		v.longer = v.lo > 1 && v.ratio > 1 + threshold;
		v.shorter = v.hi < 1 && v.ratio < 1 / (1 + threshold);
	}
	free(d);
	return v;
}
