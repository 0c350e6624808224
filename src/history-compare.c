/*
 * history-compare.c - `kiln track CONFIG --repo DIR --compare BASE HEAD`:
 * the two commits built and measured in rounds of a random order (history-ab.c),
 * per key the ratio of HEAD's steady mean to BASE's with its 99% interval
 * (Fieller's, paired by round: stats.h; each round's pair shares the
 * machine's state) and the change it could have seen, the warm-up of each
 * with HEAD's against BASE's from the same rounds, and a Markdown summary
 * for a pull request on stdout.  Exit 1 when a key is slower beyond the
 * threshold (its interval above 1 and its estimate above 1 + threshold),
 * or its warm-up longer beyond the warm-up threshold alike.
 */
#include <jansson.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "history-ab.h"
#include "history-cmd.h"
#include "history-git.h"
#include "history-int.h"
#include "stats.h"

struct rounds_to {
	size_t want;
};

/*
 * Rounds until every key has `want` pairs; a key whose pexecs keep failing
 * or finding no steady state gets at most as many rounds again (2 want
 * rounds run in all, counted whether they paired or not: a build whose
 * pexecs all fail never pairs), then the comparison goes with what it has
 */
static size_t fixed_more(void *ctx, const struct ab_keys *k)
{
	const struct rounds_to *r = ctx;
	size_t least = r->want;
	for (size_t i = 0; i < k->n; i++)
		least = k->nd[i] < least ? k->nd[i] : least;
	if (k->rounds >= 2 * r->want)
		return 0;
	size_t more = k->n ? r->want - least : r->want;
	return more < 2 * r->want - k->rounds ? more : 2 * r->want - k->rounds;
}

struct verdict {
	double ratio, lo, hi, mde;
	size_t n;
	int slower, faster;
};

/*
 * head/base from the rounds' pairs: Fieller's interval of the ratio of
 * means paired by round (stats.h, ks_ratio_paired: what hits one round
 * hits both of its values), at 99%, and what it could have seen (mde)
 */
static struct verdict judge(const double *a, const double *b, size_t n, double threshold)
{
	struct verdict v = { NAN, NAN, NAN, NAN, n, 0, 0 };
	struct ks_ratio r;
	ks_ratio_paired(a, b, n, 0.99, &r);
	if (!r.ok)
		return v;
	v.ratio = r.ratio;
	v.lo = r.lo;
	v.hi = r.hi;
	v.mde = r.mde;
	int dir = ks_ratio_verdict(&r);
	v.slower = dir > 0 && v.ratio > 1 + threshold;
	v.faster = dir < 0 && v.ratio < 1 / (1 + threshold);
	return v;
}

/* "+93.2% (+87.1% to +99.5%)", or "-" without rounds */
static void warm_change_text(const struct ab_warm *v, struct strbuf *sb)
{
	if (!isfinite(v->ratio))
		sb_adds(sb, "-");
	else
		sb_addf(sb, "%+.1f%% (%+.1f%% to %+.1f%%)", 100 * (v->ratio - 1), 100 * (v->lo - 1), 100 * (v->hi - 1));
}

/* a run's key-level figures: class, time to steady state, median warmup cost */
struct keyfig {
	char *cls;
	double mean, tts, cost;
};

/* the median warmup cost of key's pexecs in run (NAN: none) */
static double median_cost(struct history *h, long run, const char *key)
{
	sqlite3_stmt *st = history_prepare(h, "SELECT f.warmup_cost FROM figures f JOIN pexecs p ON p.id = f.pexec_id"
					      " JOIN keys k ON k.id = p.key_id WHERE p.run_id=? AND f.warmup_cost IS NOT NULL"
					      " AND k.bench || ':' || k.vm || ':' || k.variant = ? ORDER BY f.warmup_cost", NULL);
	double *v = NULL, m = NAN;
	size_t n = 0;
	if (!st)
		return NAN;
	sqlite3_bind_int64(st, 1, run);
	sqlite3_bind_text(st, 2, key, -1, SQLITE_TRANSIENT);
	while (sqlite3_step(st) == SQLITE_ROW) {
		v = xrealloc(v, (n + 1) * sizeof(double));
		v[n++] = history_col_double(st, 0);
	}
	sqlite3_finalize(st);
	if (n)
		m = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	free(v);
	return m;
}

static void key_figures(struct history *h, long run, const char *key, struct keyfig *f)
{
	memset(f, 0, sizeof(*f));
	f->mean = f->tts = NAN;
	f->cost = median_cost(h, run, key);
	sqlite3_stmt *st = history_prepare(h, "SELECT rk.class, rk.steady_mean, rk.tts_med FROM run_keys rk JOIN keys k"
					      " ON k.id = rk.key_id WHERE rk.run_id=? AND"
					      " k.bench || ':' || k.vm || ':' || k.variant = ?", NULL);
	if (!st)
		return;
	sqlite3_bind_int64(st, 1, run);
	sqlite3_bind_text(st, 2, key, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st) == SQLITE_ROW) {
		f->cls = history_col_text(st, 0);
		f->mean = history_col_double(st, 1);
		f->tts = history_col_double(st, 2);
	}
	sqlite3_finalize(st);
}

/* the runs of the newest session of the two commits with this config (history-ab.c's stored_rounds) */
static void last_session(struct history *h, long machine, const char *config_hash, long ca, long cb, long *ra, long *rb)
{
	*ra = *rb = 0;
	sqlite3_stmt *st = history_prepare(h, "SELECT x.id, y.id FROM runs x JOIN runs y ON y.session = x.session AND"
					      " y.id != x.id WHERE x.kind='ab' AND x.machine_id=? AND x.commit_id=? AND"
					      " y.commit_id=? AND (x.commit_id != y.commit_id OR x.id < y.id) AND"
					      " x.config_hash=?4 AND y.config_hash=?4 ORDER BY x.id DESC LIMIT 1", NULL);
	if (!st)
		return;
	sqlite3_bind_int64(st, 1, machine);
	sqlite3_bind_int64(st, 2, ca);
	sqlite3_bind_int64(st, 3, cb);
	sqlite3_bind_text(st, 4, config_hash, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st) == SQLITE_ROW) {
		*ra = sqlite3_column_int64(st, 0);
		*rb = sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
}

static void fmt_time(double s, struct strbuf *sb)
{
	if (!isfinite(s))
		sb_adds(sb, "-");
	else if (fabs(s) >= 1)
		sb_addf(sb, "%.3f s", s);
	else if (fabs(s) >= 1e-3)
		sb_addf(sb, "%.3f ms", s * 1e3);
	else
		sb_addf(sb, "%.3f us", s * 1e6);
}

static void warm_text(const struct keyfig *f, struct strbuf *sb)
{
	sb_adds(sb, f->cls ? f->cls : "-");
	if (isfinite(f->tts) && f->tts > 0) {
		sb_adds(sb, ", ");
		fmt_time(f->tts, sb);
		sb_adds(sb, " to steady");
		if (isfinite(f->cost)) {
			sb_adds(sb, " (cost ");
			fmt_time(f->cost, sb);
			sb_adds(sb, ")");
		}
	}
}

/* the counts of a comparison's verdicts */
struct tally {
	size_t slower, faster, longer, shorter, lost;
};

/*
 * No round paired, and base has a steady state where head has none: head's
 * pexecs failed or stopped reaching a steady state, a regression the ratio
 * cannot show (a CI job must not pass it as "no data")
 */
static int lost_on_head(const struct verdict *v, const struct keyfig *fa, const struct keyfig *fb)
{
	return !isfinite(v->ratio) && isfinite(fa->mean) && !isfinite(fb->mean);
}

/* "**slower**, **longer warm-up**", "faster", "" ...: a key's marks */
static void marks(const struct verdict *v, const struct ab_warm *w, int lost, struct strbuf *sb)
{
	const char *m[] = { lost ? "**no data on head**" : v->slower ? "**slower**" : v->faster ? "faster" : NULL,
			    w->longer ? "**longer warm-up**" : w->shorter ? "shorter warm-up" : NULL };
	for (size_t i = 0; i < 2; i++)
		if (m[i])
			sb_addf(sb, "%s%s", sb->len ? ", " : "", m[i]);
	if (!sb->len && !isfinite(v->ratio))
		sb_adds(sb, "no data");
}

/* head/base and its interval, with what it could have seen */
static void steady_change_text(const struct verdict *v, char r[32], char ci[96])
{
	snprintf(r, 32, "-");
	snprintf(ci, 96, "-");
	if (!isfinite(v->ratio))
		return;
	snprintf(r, 32, "%+.2f%%", 100 * (v->ratio - 1));
	if (isfinite(v->hi))
		snprintf(ci, 96, "%+.2f%% to %+.2f%%", 100 * (v->lo - 1), 100 * (v->hi - 1));
	else
		snprintf(ci, 96, "%+.2f%% and up", 100 * (v->lo - 1));
	if (isfinite(v->mde))
		snprintf(ci + strlen(ci), 96 - strlen(ci), " (could see ±%.1f%%)", 100 * v->mde);
}

/* key i judged, for the Markdown table and the JSON alike: its verdicts, each side's figures, lost on head */
struct key_row {
	struct verdict v;
	struct ab_warm w;
	struct keyfig fa, fb; /* base's and head's, from the newest session (runs ra, rb) */
	int lost;
};

static void key_row(struct ab_ctx *c, long ra, long rb, const struct ab_keys *k, size_t i,
		    const struct compare_opts *co, struct key_row *r)
{
	r->v = judge(k->a[i], k->b[i], k->nd[i], co->threshold);
	r->w = ab_judge_warm(k->fa[i], k->fb[i], k->nd[i], co->warm_threshold);
	key_figures(c->h, ra, k->key[i], &r->fa);
	key_figures(c->h, rb, k->key[i], &r->fb);
	r->lost = lost_on_head(&r->v, &r->fa, &r->fb);
}

static void key_row_release(struct key_row *r)
{
	free(r->fa.cls);
	free(r->fb.cls);
}

/* key i's row of the Markdown table, its verdicts counted in t; 1 when it regressed (slower, a longer warm-up, lost) */
static int markdown_row(struct ab_ctx *c, long ra, long rb, const struct ab_keys *k, size_t i,
			 const struct compare_opts *co, struct tally *t)
{
	struct key_row kr;
	key_row(c, ra, rb, k, i, co, &kr);
	const struct verdict v = kr.v;
	const struct ab_warm w = kr.w;
	const int lost = kr.lost;
	struct strbuf ta = STRBUF_INIT, tb = STRBUF_INIT, wa = STRBUF_INIT, wb = STRBUF_INIT, wc = STRBUF_INIT,
		      mk = STRBUF_INIT;
	fmt_time(kr.fa.mean, &ta);
	fmt_time(kr.fb.mean, &tb);
	warm_text(&kr.fa, &wa);
	warm_text(&kr.fb, &wb);
	warm_change_text(&w, &wc);
	marks(&v, &w, lost, &mk);
	t->lost += lost;
	t->slower += v.slower;
	t->faster += v.faster;
	t->longer += w.longer;
	t->shorter += w.shorter;
	char r[32], ci[96];
	steady_change_text(&v, r, ci);
	printf("| %s | %s | %s | %s | %s | %s -> %s | %s | %s |\n", esc(ESC_MDCODE, k->key[i]), sb_str(&ta), sb_str(&tb),
	       r, ci, esc(ESC_MD, sb_str(&wa)), esc(ESC_MD, sb_str(&wb)), sb_str(&wc), sb_str(&mk));
	key_row_release(&kr);
	sb_release(&ta);
	sb_release(&tb);
	sb_release(&wa);
	sb_release(&wb);
	sb_release(&wc);
	sb_release(&mk);
	return v.slower || w.longer || lost;
}

/* the Markdown table; returns how many keys regressed (slower, or a longer warm-up) beyond the thresholds */
static size_t print_markdown(struct ab_ctx *c, const struct hist_commit *b, const struct hist_commit *hd,
			     const struct ab_keys *k, const struct compare_opts *co)
{
	long ca = history_commit_id(c->h, b->hash), cb = history_commit_id(c->h, hd->hash), ra, rb;
	last_session(c->h, c->machine, c->config_hash, ca, cb, &ra, &rb);
	size_t rounds = 0, bad = 0;
	struct tally t = { 0 };
	for (size_t i = 0; i < k->n; i++)
		rounds = k->nd[i] > rounds ? k->nd[i] : rounds;
	printf("### kiln: `%.12s` (head) against `%.12s` (base)\n\n", hd->hash, b->hash);
	printf("Head: %s  \nBase: %s  \n%zu rounds (one pexec of each commit per round, in a random order) on %s; a key is "
	       "slower when the 99%% interval of head/base is above 1 and its estimate above %g%%, its warm-up longer "
	       "when that of head's 1 + warm-up (in steady iterations) over base's is and its estimate above %g%%.\n\n",
	       esc(ESC_MD, hd->subject), esc(ESC_MD, b->subject), rounds, esc(ESC_MD, c->machine_name),
	       100 * co->threshold, 100 * co->warm_threshold);
	printf("| key | base | head | head/base | 99%% interval | warm-up base -> head | 1 + warm-up head/base (99%%) | |\n");
	printf("|---|---|---|---|---|---|---|---|\n");
	for (size_t i = 0; i < k->n; i++)
		bad += markdown_row(c, ra, rb, k, i, co, &t);
	printf("\n%zu of %zu key%s slower beyond %g%%, %zu faster; %zu with a warm-up longer beyond %g%%, %zu shorter",
	       t.slower, k->n, k->n == 1 ? "" : "s", 100 * co->threshold, t.faster, t.longer, 100 * co->warm_threshold,
	       t.shorter);
	if (t.lost)
		printf("; %zu with no data on head (no round paired: head's pexecs failed or found no steady state, where "
		       "base's had one)", t.lost);
	printf(".\n");
	return bad;
}

/* the same as JSON: per key the ratio, its interval, the verdict, and the warm-up's */
static size_t print_json(struct ab_ctx *c, const struct hist_commit *b, const struct hist_commit *hd,
			 const struct ab_keys *k, const struct compare_opts *co)
{
	long ra, rb;
	last_session(c->h, c->machine, c->config_hash, history_commit_id(c->h, b->hash), history_commit_id(c->h, hd->hash), &ra, &rb);
	json_t *keys = json_array();
	size_t slower = 0, longer = 0, lost = 0, bad = 0;
	for (size_t i = 0; i < k->n; i++) {
		struct key_row kr;
		key_row(c, ra, rb, k, i, co, &kr);
		key_row_release(&kr);
		const struct verdict v = kr.v;
		const struct ab_warm w = kr.w;
		const int l = kr.lost;
		slower += v.slower;
		longer += w.longer;
		lost += l;
		bad += v.slower || w.longer || l;
		json_t *warm = json_pack("{s:I,s:o,s:o,s:o,s:s}", "rounds", (json_int_t)w.n,
					 "ratio", isfinite(w.ratio) ? json_real(w.ratio) : json_null(),
					 "ratio_lo", isfinite(w.lo) ? json_real(w.lo) : json_null(),
					 "ratio_hi", isfinite(w.hi) ? json_real(w.hi) : json_null(), "verdict",
					 w.longer ? "longer" : w.shorter ? "shorter" : isfinite(w.ratio) ? "same" : "no data");
		json_array_append_new(keys, json_pack("{s:s,s:I,s:o,s:o,s:o,s:o,s:s,s:o}", "key", esc(ESC_JSON, k->key[i]),
						      "rounds", (json_int_t)k->nd[i],
						      "ratio", isfinite(v.ratio) ? json_real(v.ratio) : json_null(),
						      "ratio_lo", isfinite(v.lo) ? json_real(v.lo) : json_null(),
						      "ratio_hi", isfinite(v.hi) ? json_real(v.hi) : json_null(),
						      "mde", isfinite(v.mde) ? json_real(v.mde) : json_null(), "verdict",
						      l ? "no data on head" : v.slower ? "slower" : v.faster ? "faster"
						      : isfinite(v.ratio) ? "same" : "no data",
						      "warmup", warm));
	}
	json_t *j = json_pack("{s:s,s:s,s:f,s:f,s:o,s:I,s:I,s:I}", "base", b->hash, "head", hd->hash, "threshold",
			      co->threshold, "warmup_threshold", co->warm_threshold, "keys", keys, "slower",
			      (json_int_t)slower, "longer_warmup", (json_int_t)longer, "no_data_on_head", (json_int_t)lost);
	char *s = json_dumps(j, JSON_INDENT(2) | JSON_ENSURE_ASCII);
	printf("%s\n", s);
	free(s);
	json_decref(j);
	return bad;
}

/* a revision's commit data */
static int one_commit(const char *repo, const char *rev, struct hist_commit **c, struct kerr *e)
{
	char *hash = NULL;
	struct strvec v = STRVEC_INIT;
	int r = hgit_resolve(repo, rev, &hash, e);
	if (r == 0) {
		sv_push(&v, hash);
		r = hgit_info(repo, &v, c, e);
	}
	free(hash);
	sv_clear(&v);
	return r;
}

int track_compare(const struct track_opts *o, const char *base, const char *head, const struct compare_opts *co)
{
	long pexecs = co->pexecs;
	struct ab_ctx c;
	struct kerr e = KERR_INIT;
	struct hist_commit *cb = NULL, *ch = NULL;
	int code = ab_open(&c, o, &e);
	if (code == KEXIT_OK && (one_commit(o->repo, base, &cb, &e) < 0 || one_commit(o->repo, head, &ch, &e) < 0))
		code = e.code ? e.code : KEXIT_USAGE;
	if (code == KEXIT_OK && pexecs <= 0) {
		/* as many rounds as the config has pexecs */
		struct experiment ex;
		code = track_experiment(o, c.text, "/nonexistent-kiln-src", &ex, &e);
		pexecs = ex.pexecs > 1 ? ex.pexecs : 10;
		config_free(&ex);
	}
	for (int i = 0; i < 2 && code == KEXIT_OK; i++) {
		const struct hist_commit *x = i ? ch : cb;
		int b = ab_build(&c, x, &e);
		if (b == 1)
			code = (kerr_setc(&e, KEXIT_FAIL, "%s %.12s does not build (the history has why: kiln track --changes)",
					 i ? "head" : "base", x->hash), KEXIT_FAIL);
		else if (b < 0)
			code = e.code ? e.code : KEXIT_FAIL;
	}
	struct ab_keys k;
	memset(&k, 0, sizeof(k));
	struct rounds_to want = { (size_t)pexecs };
	if (code == KEXIT_OK)
		code = ab_measure(&c, cb, ch, fixed_more, &want, &k, &e);
	if (code == KEXIT_OK && (co->json ? print_json(&c, cb, ch, &k, co) : print_markdown(&c, cb, ch, &k, co)) > 0)
		code = KEXIT_FAIL;
	else if (code != KEXIT_OK)
		kerr_print(&e);
	ab_keys_free(&k);
	if (cb)
		hgit_commit_release(cb);
	if (ch)
		hgit_commit_release(ch);
	free(cb);
	free(ch);
	if (c.h)
		ab_close(&c);
	kerr_release(&e);
	return code;
}
