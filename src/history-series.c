/*
 * history-series.c - one key's series over commits on one machine, from
 * the stored figures (history.h): per commit the per-pexec steady means,
 * times to steady state, warmup costs and classes of its track runs, the
 * key-level interval of its latest run, whether it built, and whether it
 * ran the same binary as the commit before it (an A/A pair).
 */
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "history-int.h"

static unsigned char class_of(const char *name)
{
	for (int c = 0; c < AN_NPCLASS; c++)
		if (name && !strcmp(name, an_class_name((enum an_class)c)))
			return (unsigned char)c;
	return HIST_NOCLASS;
}

static void point_add(struct hist_point *p, double steady, double tts, double cost, unsigned char cls)
{
	p->steady = xrealloc(p->steady, (p->n + 1) * sizeof(double));
	p->tts = xrealloc(p->tts, (p->n + 1) * sizeof(double));
	p->cost = xrealloc(p->cost, (p->n + 1) * sizeof(double));
	p->cls = xrealloc(p->cls, p->n + 1);
	p->steady[p->n] = steady;
	p->tts[p->n] = tts;
	p->cost[p->n] = cost;
	p->cls[p->n] = cls;
	if (cls < AN_NPCLASS)
		p->counts[cls]++;
	p->n++;
}

/* the pexec figures of key_id in run_id, added to p */
static void add_figures(sqlite3_stmt *fig, long run_id, long key_id, struct hist_point *p)
{
	sqlite3_reset(fig);
	sqlite3_bind_int64(fig, 1, run_id);
	sqlite3_bind_int64(fig, 2, key_id);
	while (sqlite3_step(fig) == SQLITE_ROW)
		point_add(p, history_col_double(fig, 0), history_col_double(fig, 1), history_col_double(fig, 2),
			  class_of((const char *)sqlite3_column_text(fig, 3)));
}

/* the key-level figures of the run (its latest, so far), 0 when the run did not measure the key */
static int add_key(sqlite3_stmt *rk, long run_id, long key_id, struct hist_point *p)
{
	sqlite3_reset(rk);
	sqlite3_bind_int64(rk, 1, run_id);
	sqlite3_bind_int64(rk, 2, key_id);
	if (sqlite3_step(rk) != SQLITE_ROW)
		return 0;
	p->mean = history_col_double(rk, 0);
	p->lo = history_col_double(rk, 1);
	p->hi = history_col_double(rk, 2);
	free(p->program);
	p->program = history_col_text(rk, 3);
	return 1;
}

static const char key_sql[] = "SELECT id FROM keys WHERE bench || ':' || vm || ':' || variant = ?";
static const char runs_sql[] = "SELECT r.id, r.commit_id, r.status, r.binary FROM runs r JOIN commits c ON"
			       " c.id = r.commit_id WHERE r.machine_id=? AND r.kind='track' AND r.status != 'running'"
			       " ORDER BY c.depth, r.commit_id, r.id";
static const char fig_sql[] = "SELECT f.steady_mean, f.time_to_steady, f.warmup_cost, f.class FROM figures f"
			      " JOIN pexecs p ON p.id = f.pexec_id WHERE p.run_id=? AND p.key_id=? ORDER BY p.num";
static const char rk_sql[] = "SELECT steady_mean, steady_lo, steady_hi, program FROM run_keys WHERE run_id=? AND"
			     " key_id=?";

static long key_id_of(struct history *h, const char *key)
{
	sqlite3_stmt *st = history_stmt(h, key_sql, NULL);
	if (!st)
		return 0;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_TRANSIENT);
	long id = sqlite3_step(st) == SQLITE_ROW ? (long)sqlite3_column_int64(st, 0) : 0;
	history_stmt_done(h, st);
	return id;
}

/* index in c[] of the commit with id, nc when none */
static size_t commit_index(const struct hist_commit *c, size_t nc, long id)
{
	for (size_t i = 0; i < nc; i++)
		if (c[i].id == id)
			return i;
	return nc;
}

/* same binary and, per key, same program as the point before: an A/A pair */
static void mark_same(struct hist_series *s)
{
	for (size_t i = 1; i < s->n; i++) {
		const struct hist_point *a = &s->p[i - 1], *b = &s->p[i];
		int bin = a->binary && b->binary && !strcmp(a->binary, b->binary);
		int prog = !a->program || !b->program || !strcmp(a->program, b->program);
		s->p[i].same_as_prev = a->built && b->built && bin && prog;
	}
}

int history_series(struct history *h, long machine_id, const char *key, const struct hist_commit *c, size_t nc,
		   struct hist_series *out, struct kerr *e)
{
	memset(out, 0, sizeof(*out));
	out->key = xstrdup(key);
	out->machine_id = machine_id;
	long kid = key_id_of(h, key);
	sqlite3_stmt *runs = history_stmt(h, runs_sql, e), *fig = history_stmt(h, fig_sql, e),
		     *rk = history_stmt(h, rk_sql, e);
	if (!runs || !fig || !rk)
		return -1;
	sqlite3_bind_int64(runs, 1, machine_id);
	while (sqlite3_step(runs) == SQLITE_ROW) {
		long rid = sqlite3_column_int64(runs, 0), cid = sqlite3_column_int64(runs, 1);
		const char *status = (const char *)sqlite3_column_text(runs, 2);
		size_t ci = commit_index(c, nc, cid);
		if (ci == nc)
			continue;
		int failed = status && !strcmp(status, "build-failed");
		struct hist_point *p = out->n ? &out->p[out->n - 1] : NULL;
		struct hist_point tmp;
		memset(&tmp, 0, sizeof(tmp));
		tmp.mean = tmp.lo = tmp.hi = NAN;
		int measured = !failed && add_key(rk, rid, kid, p && p->commit_id == cid ? p : &tmp);
		if (!measured && !failed)
			continue; /* this run did not measure the key */
		if (!p || p->commit_id != cid) {
			out->p = xrealloc(out->p, (out->n + 1) * sizeof(*out->p));
			p = &out->p[out->n++];
			*p = tmp;
			p->commit = ci;
			p->commit_id = cid;
		}
		if (failed) {
			if (!p->runs)
				p->run_id = rid;
			continue;
		}
		p->built = 1;
		p->run_id = rid;
		p->runs++;
		free(p->binary);
		p->binary = history_col_text(runs, 3);
		add_figures(fig, rid, kid, p);
	}
	/* a commit that never built this key: a gap, kept as one (built 0) */
	history_stmt_done(h, runs);
	history_stmt_done(h, fig);
	history_stmt_done(h, rk);
	mark_same(out);
	return 0;
}

void history_series_copy(const struct hist_series *a, struct hist_series *b)
{
	*b = *a;
	b->key = xstrdup(a->key);
	b->p = xcalloc(a->n + 1, sizeof(*b->p));
	for (size_t i = 0; i < a->n; i++) {
		struct hist_point *q = &b->p[i];
		const struct hist_point *p = &a->p[i];
		*q = *p;
		size_t m = p->n ? p->n : 1;
		q->steady = xmalloc(m * sizeof(double));
		q->tts = xmalloc(m * sizeof(double));
		q->cost = xmalloc(m * sizeof(double));
		q->cls = xmalloc(m);
		memcpy(q->steady, p->steady, p->n * sizeof(double));
		memcpy(q->tts, p->tts, p->n * sizeof(double));
		memcpy(q->cost, p->cost, p->n * sizeof(double));
		memcpy(q->cls, p->cls, p->n);
		q->binary = p->binary ? xstrdup(p->binary) : NULL;
		q->program = p->program ? xstrdup(p->program) : NULL;
	}
}

void history_series_free(struct hist_series *s)
{
	for (size_t i = 0; i < s->n; i++) {
		struct hist_point *p = &s->p[i];
		free(p->steady);
		free(p->tts);
		free(p->cost);
		free(p->cls);
		free(p->binary);
		free(p->program);
	}
	free(s->p);
	free(s->key);
	memset(s, 0, sizeof(*s));
}
