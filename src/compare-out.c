/*
 * compare-out.c - the summary of `kiln compare` (compare.h): each side's
 * warmup analysis (the same as kiln report's, cached in the results file),
 * and per benchmark the ratio B/A of the steady-state means from the
 * pexecs paired by round (rounds.h) with stats.h's paired interval and the
 * smallest change the rounds could have shown, or why there is no verdict.
 * Printed as text (colour only on a terminal), Markdown or JSON.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "compare.h"
#include "config.h"
#include "dataset.h"
#include "platform.h"
#include "analysis-robust.h"
#include "rounds.h"
#include "stats-warmup.h"
#include "stats.h"
#include "json-num.h"

/* the verdict of one benchmark */
enum { V_FASTER = -1, V_SAME = 0, V_SLOWER = 1, V_NONE = 2 };

struct row {
	const char *bench;
	const struct an_key *k[2];  /* A's, B's (NULL: no data) */
	struct round_pairs rp;
	struct ks_ratio q;
	struct ks_mean m[2];        /* the shape of A's and B's paired figures (n 0: none) */
	int verdict;
	struct strbuf why;          /* V_NONE: why there is none */
	int warm;                   /* 1: wd holds the warmup verdicts (both sides in-process) */
	struct sw_diff wd;          /* B's warmup against A's: time to steady, cost, class (stats-warmup.h) */
};

static const struct an_key *key_of(const struct an_result *r, const char *name)
{
	for (size_t i = 0; i < r->nkeys; i++)
		if (!strcmp(r->keys[i].key->key, name))
			return &r->keys[i];
	return NULL;
}

/*
 * What keeps a side from a steady-state verdict, said into why; 0: nothing.
 * The key's drift is judged over its pexecs (anr_key_drift), not from the
 * warnings of single ones; a pexec without a figure (no steady state, too
 * short: rounds.h) leaves its round out, up to 1 in COMPARE_LEFT_OUT_DEN of
 * the side's pexecs.  Before, one such pexec in thousands (a stall on a
 * loaded machine) took the verdict of a whole kiln compare --time 10m.
 */
static int side_unfit(const struct an_key *k, const char *label, const struct an_opts *o, struct strbuf *why)
{
	if (!k || !k->np) {
		sb_addf(why, "%s has no completed pexec", label);
		return 1;
	}
	struct an_key kd = *k;
	kd.warn = 0;
	if (!o->replicate && !k->whole) /* as key_warnings (analysis.c) judges it */
		anr_key_drift(&kd, o);
	size_t nshort = 0, nsteady = 0;
	for (size_t i = 0; i < k->np; i++) {
		nshort += k->p[i].cls != AN_NO_STEADY && (k->p[i].warn & AN_WARN_SHORT);
		nsteady += k->p[i].cls == AN_NO_STEADY;
	}
	if ((nshort + nsteady) * COMPARE_LEFT_OUT_DEN <= k->np && !(kd.warn & AN_WARN_DRIFT))
		return 0;
	if (kd.warn & AN_WARN_DRIFT)
		sb_addf(why, "%s drifts slowly: no steady state, whatever the segments say", label);
	else if (nshort >= nsteady)
		sb_addf(why, "%s's pexecs are too short for the changepoint analysis to see a change their data shows "
			     "(%zu of %zu)", label, nshort, k->np);
	else
		sb_addf(why, "%s has no steady state in %zu of its %zu pexecs", label, nsteady, k->np);
	if (nshort + nsteady && !(kd.warn & AN_WARN_DRIFT))
		sb_addf(why, "; more than 1 in %d without a figure", COMPARE_LEFT_OUT_DEN);
	return 1;
}

static void row_judge(struct row *w, const struct compare *cp)
{
	w->verdict = V_NONE;
	w->warm = w->k[0] && w->k[1] && !w->k[0]->whole && !w->k[1]->whole && w->k[0]->np && w->k[1]->np;
	if (w->warm)
		sw_diff_keys(w->k[0], w->k[1], &cp->ao, &w->wd);
	/* paired first: the rounds and the pexecs left out are counted (JSON) for a row without a verdict too */
	if (w->k[0] && w->k[1])
		rounds_pair(w->k[0], w->k[1], &w->rp);
	if (side_unfit(w->k[0], cp->side[0].label, &cp->ao, &w->why) ||
	    side_unfit(w->k[1], cp->side[1].label, &cp->ao, &w->why))
		return;
	if (w->rp.n < 2) {
		sb_addf(&w->why, "%zu round%s with a figure of both sides: 2 at least are needed", w->rp.n,
			w->rp.n == 1 ? "" : "s");
		return;
	}
	ks_ratio_paired(w->rp.a, w->rp.b, w->rp.n, cp->ao.confidence, &w->q);
	ks_mean(w->rp.a, w->rp.n, cp->ao.confidence, &w->m[0]);
	ks_mean(w->rp.b, w->rp.n, cp->ao.confidence, &w->m[1]);
	if (!w->q.ok) {
		sb_adds(&w->why, "no ratio: a mean is not above zero");
		return;
	}
	w->verdict = ks_ratio_verdict(&w->q);
}

/* ---- text ---- */

static const char *verdict_word(int v)
{
	return v == V_FASTER ? "faster" : v == V_SLOWER ? "slower" : v == V_SAME ? "no change shown" : "no verdict";
}

/* a time with 4 significant digits in the unit that fits */
static void add_time(struct strbuf *sb, double s)
{
	if (!isfinite(s)) {
		sb_adds(sb, "-");
		return;
	}
	const struct time_unit *u = time_unit_for(s);
	double v = s * u->scale;
	int dec = v >= 1000 ? 0 : v >= 100 ? 1 : v >= 10 ? 2 : 3;
	sb_addf(sb, "%.*f %s", dec, v, u->name);
}

/* a ratio and its interval with the digits that keep the interval on its side of 1 */
static void add_ratio(struct strbuf *sb, const struct ks_ratio *q, double conf, const char *sep)
{
	int d = ks_decimals(q->ratio, q->lo, isfinite(q->hi) ? q->hi : q->ratio, 1.0, 3);
	sb_addf(sb, "%.*f%s", d, q->ratio, sep);
	if (conf > 0)
		sb_addf(sb, "%g%% CI ", conf * 100);
	sb_addf(sb, "%.*f–", d, q->lo);
	if (isfinite(q->hi))
		sb_addf(sb, "%.*f", d, q->hi);
	else
		sb_adds(sb, "∞");
}

static void text_side(struct strbuf *sb, const struct compare *cp, int s, const struct an_key *k)
{
	struct strbuf cls = STRBUF_INIT;
	sb_addf(sb, "  %s ", s ? "B" : "A");
	sb_pad(sb, esc(ESC_TERM, cp->side[s].label), 12);
	if (k)
		an_class_text(k, &cls);
	sb_pad(sb, cls.len ? cls.buf : "no data", 28);
	if (k && k->has_steady) {
		sb_adds(sb, "  steady ");
		add_time(sb, k->perf_med);
		sb_addf(sb, "  (%g%% CI ", cp->ao.confidence * 100);
		add_time(sb, k->perf_lo);
		sb_adds(sb, " – ");
		add_time(sb, k->perf_hi);
		sb_adds(sb, ")");
	}
	sb_addf(sb, "  %zu pexecs\n", k ? k->np : 0);
	sb_release(&cls);
}

/* "  warm-up  B-A time to steady +10 ms (+9.8–+10.2), cost +5 ms (...): warmup longer; ..." */
static void text_warm(struct strbuf *sb, const struct row *w)
{
	if (!w->warm)
		return;
	struct strbuf t = STRBUF_INIT, c = STRBUF_INIT, v = STRBUF_INIT;
	sw_change_text(&w->wd.time, &t);
	sw_change_text(&w->wd.cost, &c);
	sw_verdict_text(&w->wd, &v);
	sb_addf(sb, "  warm-up  B-A time to steady %s, warmup cost %s: %s\n", t.buf, c.buf, v.buf);
	sb_release(&t);
	sb_release(&c);
	sb_release(&v);
}

static void text_row(struct strbuf *sb, const struct compare *cp, const struct row *w)
{
	const char *lb[2] = { esc(ESC_TERM, cp->side[0].label), esc(ESC_TERM, cp->side[1].label) };
	sb_addf(sb, "%s\n", esc(ESC_TERM, w->bench));
	for (int s = 0; s < 2; s++)
		text_side(sb, cp, s, w->k[s]);
	if (w->verdict == V_NONE) {
		sb_addf(sb, "  B/A  no verdict: %s\n", esc(ESC_TERM, w->why.buf));
		text_warm(sb, w);
		sb_addc(sb, '\n');
		return;
	}
	sb_adds(sb, "  B/A  ");
	add_ratio(sb, &w->q, cp->ao.confidence, "  (");
	sb_addf(sb, "), %zu rounds paired%s: ", w->rp.n, w->rp.duet ? " (run side by side)" : "");
	if (w->verdict == V_SAME)
		sb_adds(sb, "no change shown\n");
	else {
		sb_addf(sb, "%s is ", lb[1]);
		ks_fmt_pct(sb, 100 * fabs(w->q.ratio - 1), 3);
		sb_addf(sb, " %s than %s\n", w->verdict == V_SLOWER ? "slower" : "faster", lb[0]);
	}
	sb_adds(sb, "       the smallest change these rounds could show (80% power): ");
	ks_fmt_pct(sb, 100 * w->q.mde, 2);
	sb_addc(sb, '\n');
	if (w->rp.nofig_a || w->rp.nofig_b)
		sb_addf(sb, "       left out: %zu pexec(s) of A, %zu of B without a steady state or too short for the "
			    "warmup analysis, and their rounds\n", w->rp.nofig_a, w->rp.nofig_b);
	if (w->rp.alone_a || w->rp.alone_b)
		sb_addf(sb, "       not paired: %zu pexec(s) of A, %zu of B (their round's other has no figure)\n",
			w->rp.alone_a, w->rp.alone_b);
	for (int s = 0; s < 2; s++) {
		struct strbuf shape = STRBUF_INIT;
		if (w->m[s].shape & KS_SHAPE_WARN)
			ks_shape_text(&w->m[s], add_time, &shape);
		if (shape.len)
			sb_addf(sb, "       %s's %s: %s\n", s ? lb[1] : lb[0], w->k[s]->whole ? "times" : "pexecs' steady means",
				esc(ESC_TERM, shape.buf));
		sb_release(&shape);
	}
	text_warm(sb, w);
	sb_addc(sb, '\n');
}

static void text_head(struct strbuf *sb, const struct compare *cp)
{
	for (int s = 0; s < 2; s++)
		sb_addf(sb, "%s = %s (%s)%s", s ? "B" : "A", esc(ESC_TERM, cp->side[s].label),
			esc(ESC_TERM, cp->ex->vms[s].resolved), s ? "\n" : ", ");
	sb_addf(sb, "%s; B/A > 1: B is slower\n\n", cp->duet ? "in duets: A and B of a round side by side, on two CPUs "
			"swapped every round" : "in rounds: every key once per round, in a random order of its own");
}

/* is this a duet whose CPUs were contended (COMPARE_DUET_PRESSURE)? */
static int duet_contended(const struct compare *cp)
{
	return cp->duet && cp->cpu_wait > COMPARE_DUET_PRESSURE;
}

void compare_pressure_lines(struct strbuf *sb, const struct plat_pressure *psi, double cpu_wait, int duet)
{
	if (!psi->t0)
		return; /* no pexec ran in this session: nothing was measured */
	if (cpu_wait < 0) {
		sb_adds(sb, "CPU pressure: unknown (the kernel has no /proc/pressure/cpu)\n");
		return;
	}
	sb_addf(sb, "CPU pressure: some task waited for a CPU %.1f%% of the session\n", 100 * cpu_wait);
	if (duet && cpu_wait > COMPARE_DUET_PRESSURE)
		sb_addf(sb, "Warning: the CPUs were contended (over %.0f%%): a duet's two sides did not have their CPUs to "
			"themselves, and what took a CPU hit one side of a pair; rounds (without --duet) do not need two "
			"free CPUs\n", 100 * COMPARE_DUET_PRESSURE);
}

static void text_tail(struct strbuf *sb, const struct compare *cp, const struct row *w, size_t n)
{
	size_t c[4] = { 0 };
	for (size_t i = 0; i < n; i++)
		c[w[i].verdict + 1]++;
	sb_addf(sb, "%zu benchmark(s): %zu slower, %zu faster, %zu no change shown, %zu no verdict (%g%% confidence)\n",
		n, c[2], c[0], c[1], c[3], cp->ao.confidence * 100);
	size_t longer = 0, shorter = 0, cls = 0;
	for (size_t i = 0; i < n; i++) {
		longer += w[i].warm && w[i].wd.time.verdict == SW_MORE;
		shorter += w[i].warm && w[i].wd.time.verdict == SW_LESS;
		cls += w[i].warm && w[i].wd.class_changed > 0;
	}
	if (longer || shorter || cls)
		sb_addf(sb, "warm-up: %zu longer, %zu shorter to reach the steady state; %zu changed class\n", longer, shorter,
			cls);
	sb_addf(sb, "Results: %s (kiln report, kiln plot read it)\n", esc(ESC_TERM, cp->results_abs));
	compare_pressure_lines(sb, &cp->psi, cp->cpu_wait, cp->duet);
}

/* ---- markdown ---- */

static void md_row(struct strbuf *sb, const struct compare *cp, const struct row *w)
{
	sb_addf(sb, "| %s |", esc(ESC_MD, w->bench));
	for (int s = 0; s < 2; s++) {
		struct strbuf cls = STRBUF_INIT;
		if (w->k[s])
			an_class_text(w->k[s], &cls);
		sb_addf(sb, " %s, ", cls.len ? esc(ESC_MD, cls.buf) : "no data");
		add_time(sb, w->k[s] && w->k[s]->has_steady ? w->k[s]->perf_med : NAN);
		sb_adds(sb, " |");
		sb_release(&cls);
	}
	struct strbuf wv = STRBUF_INIT;
	if (w->warm)
		sw_verdict_text(&w->wd, &wv);
	if (w->verdict == V_NONE) {
		sb_addf(sb, " - | - | - | no verdict: %s | %s |\n", esc(ESC_MD, w->why.buf), wv.len ? wv.buf : "-");
		sb_release(&wv);
		return;
	}
	sb_adds(sb, " ");
	add_ratio(sb, &w->q, 0, " (");
	sb_addf(sb, ") | %zu | ", w->rp.n);
	ks_fmt_pct(sb, 100 * w->q.mde, 2);
	sb_addf(sb, " | %s", verdict_word(w->verdict));
	for (int s = 0; s < 2; s++) {
		struct strbuf words = STRBUF_INIT;
		ks_shape_words(w->m[s].shape & KS_SHAPE_WARN, ", ", &words);
		if (words.len)
			sb_addf(sb, "; %s: %s (the median says more)", s ? "B" : "A", words.buf);
		sb_release(&words);
	}
	sb_addf(sb, " | %s |\n", wv.len ? wv.buf : "-");
	sb_release(&wv);
}

static void md_all(struct strbuf *sb, const struct compare *cp, const struct row *w, size_t n)
{
	sb_addf(sb, "A = %s, B = %s, %s\n\n", esc(ESC_MDCODE, cp->side[0].label), esc(ESC_MDCODE, cp->side[1].label),
		cp->duet ? "in duets" : "in rounds");
	sb_addf(sb, "| benchmark | A: class, steady | B: class, steady | B/A (%g%% CI) | rounds | smallest change "
		"(80%% power) | verdict | warm-up B vs A |\n|---|---|---|---|---|---|---|---|\n", cp->ao.confidence * 100);
	for (size_t i = 0; i < n; i++)
		md_row(sb, cp, &w[i]);
	sb_addc(sb, '\n');
	compare_pressure_lines(sb, &cp->psi, cp->cpu_wait, cp->duet);
}

/* ---- JSON ---- */

static json_t *json_side(const struct compare *cp, int s, const struct an_key *k)
{
	struct strbuf cls = STRBUF_INIT;
	if (k)
		an_class_text(k, &cls);
	json_t *o = json_pack("{s:s, s:s, s:I}", "label", esc(ESC_JSON, cp->side[s].label), "class",
			      cls.len ? esc(ESC_JSON, cls.buf) : "no data", "pexecs", (json_int_t)(k ? k->np : 0));
	json_object_set_new(o, "steady_mean", json_num(k && k->has_steady ? k->perf_med : NAN));
	json_object_set_new(o, "steady_lo", json_num(k && k->has_steady ? k->perf_lo : NAN));
	json_object_set_new(o, "steady_hi", json_num(k && k->has_steady ? k->perf_hi : NAN));
	json_object_set_new(o, "warn", json_integer(k ? k->warn : 0));
	sb_release(&cls);
	return o;
}

static json_t *json_row(const struct compare *cp, const struct row *w)
{
	json_t *o = json_pack("{s:s, s:o, s:o, s:s}", "benchmark", esc(ESC_JSON, w->bench), "a", json_side(cp, 0, w->k[0]),
			      "b", json_side(cp, 1, w->k[1]), "verdict", verdict_word(w->verdict));
	int ok = w->verdict != V_NONE;
	json_object_set_new(o, "ratio", json_num(ok ? w->q.ratio : NAN));
	json_object_set_new(o, "ratio_lo", json_num(ok ? w->q.lo : NAN));
	json_object_set_new(o, "ratio_hi", ok && isinf(w->q.hi) ? json_string("inf") : json_num(ok ? w->q.hi : NAN));
	json_object_set_new(o, "mde", json_num(ok ? w->q.mde : NAN));
	json_object_set_new(o, "rounds", json_integer((json_int_t)w->rp.n));
	json_object_set_new(o, "rounds_side_by_side", json_integer((json_int_t)w->rp.duet));
	json_object_set_new(o, "unpaired", json_pack("{s:I, s:I}", "a", (json_int_t)w->rp.alone_a, "b",
						     (json_int_t)w->rp.alone_b));
	json_object_set_new(o, "left_out", json_pack("{s:I, s:I}", "a", (json_int_t)w->rp.nofig_a, "b",
						     (json_int_t)w->rp.nofig_b));
	json_object_set_new(o, "why", ok ? json_null() : json_string(esc(ESC_JSON, w->why.buf)));
	json_object_set_new(o, "warmup", w->warm ? sw_json(&w->wd) : json_null());
	for (int s = 0; s < 2 && ok; s++) {
		struct strbuf words = STRBUF_INIT;
		ks_shape_words(w->m[s].shape & KS_SHAPE_WARN, ";", &words);
		json_object_set_new(json_object_get(o, s ? "b" : "a"), "shape", json_string(sb_str(&words)));
		sb_release(&words);
	}
	return o;
}

static void json_all(struct strbuf *sb, const struct compare *cp, const struct row *w, size_t n)
{
	json_t *root = json_pack("{s:i, s:s, s:s, s:f, s:f}", "kiln_compare", 1, "results", esc(ESC_JSON, cp->results_abs),
				 "mode", cp->duet ? "duet" : "rounds", "confidence", cp->ao.confidence, "power", 0.8);
	for (int s = 0; s < 2; s++)
		json_object_set_new(root, s ? "b" : "a", json_pack("{s:s, s:s, s:s}", "label", esc(ESC_JSON, cp->side[s].label),
								   "spec", esc(ESC_JSON, cp->side[s].spec), "path",
								   esc(ESC_JSON, cp->ex->vms[s].resolved)));
	json_t *rows = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(rows, json_row(cp, &w[i]));
	json_object_set_new(root, "benchmarks", rows);
	json_object_set_new(root, "cpu_pressure", cp->cpu_wait >= 0 ? json_real(cp->cpu_wait) : json_null());
	json_object_set_new(root, "cpu_contended", json_boolean(duet_contended(cp)));
	char *t = json_dumps(root, JSON_INDENT(2));
	sb_adds(sb, t);
	sb_addc(sb, '\n');
	free(t);
	json_decref(root);
}

int compare_summary(struct compare *cp)
{
	cp->cpu_wait = plat_pressure_share(&cp->psi);
	struct dataset ds;
	struct an_result r;
	struct cmd_an_args all;
	memset(&all, 0, sizeof(all));
	all.inputs[0] = cp->results_abs;
	int code = cmd_load_analysed(cp->results_abs, &all, &cp->ao, &ds, &r);
	if (code)
		return code;
	size_t n = cp->benchs.n;
	struct row *w = xcalloc(n + 1, sizeof(*w));
	for (size_t i = 0; i < n; i++) {
		w[i].bench = cp->benchs.v[i];
		for (int s = 0; s < 2; s++) {
			const struct vm_conf *vm = &cp->ex->vms[s];
			char *name = xasprintf("%s:%s:%s", w[i].bench, vm->name, vm->variant);
			w[i].k[s] = key_of(&r, name);
			free(name);
		}
		row_judge(&w[i], cp);
	}
	struct strbuf sb = STRBUF_INIT;
	if (!strcmp(cp->format, "json")) {
		json_all(&sb, cp, w, n);
	} else if (!strcmp(cp->format, "markdown")) {
		md_all(&sb, cp, w, n);
	} else {
		text_head(&sb, cp);
		for (size_t i = 0; i < n; i++)
			text_row(&sb, cp, &w[i]);
		text_tail(&sb, cp, w, n);
	}
	fputs(sb.buf, stdout);
	sb_release(&sb);
	for (size_t i = 0; i < n; i++) {
		round_pairs_free(&w[i].rp);
		sb_release(&w[i].why);
	}
	free(w);
	an_result_free(&r);
	ds_free(&ds);
	return KEXIT_OK;
}
