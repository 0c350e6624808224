/*
 * cmd-diff.c - `kiln diff A B [--json] [--session-sd P%] [analysis
 * options]`: what changed between two experiments (a VM before and after a
 * change), key by key: the classification, the ratio B/A of the
 * steady-state means with its interval, the smallest change the data could
 * have shown, and a verdict (docs/kiln-diff.md, docs/statistics.md).
 *
 * The ratio and verdict are an_key_compare's (stats-key.c): the pexecs are
 * the units (process times, or each pexec's steady mean), the interval is
 * Fieller's with a skew correction, and because A and B come from two
 * sessions, the machine's drift between sessions is added to the error
 * (--session-sd, else learned per key from the sessions kiln bench
 * recorded, session-record.h): a change it could explain is "drift?",
 * never "faster".
 * Keys whose figures the warmup analysis marks unsafe (AN_WARN_NO_VERDICT),
 * or that have no steady state, get no verdict, and the reason.  --replicate-warmup-stats compares with the old
 * bootstrap of the two keys' resample means (an_ratio_ci).
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "analysis.h"
#include "analysis-robust.h"
#include "cmd.h"
#include "stats.h"
#include "store.h"
#include "platform.h"
#include "import.h"
#include "report.h"
#include "stats-warmup.h"
#include "session-record.h"
#include "json-num.h"

static int cmd_diff(int argc, char **argv);

const struct cmd_entry cmd_diff_entry = {
	.name = "diff",
	.usage = "A B [--json] [--key K] [--session-sd P%] [--pool-machines] [analysis options]",
	.summary = "compare two experiments key by key: class, ratio of steady means, what it could see, verdict",
	.help = "A and B are kiln results files, Krun results files or warmup_stats CSVs.\n"
		"  --json             machine-readable output\n"
		"  --key K            only keys matching K ('*' wildcards)\n"
		"  --session-sd P%    how much a key's mean moves between sessions on this machine\n"
		"                     (0: A and B are one session's): added to the error; a change it\n"
		"                     could explain is 'drift?' (kiln compare measures A and B interleaved\n"
		"                     in one session, without that term).  Without it, kiln learns it per\n"
		"                     key from the other kiln bench sessions of the key's program on this\n"
		"                     machine (3 or more: a 95% upper bound), else assumes 1%; every\n"
		"                     output says which and from how many sessions\n" CMD_POOL_HELP AN_OPTS_HELP,
	.exec = cmd_diff,
};

/* the default --session-sd: docs/statistics.md says how it was measured */
#define DIFF_SESSION_SD 0.01

/* --session-sd P%|F: diff's own option */
static int diff_opt(void *ctx, const struct cmd_entry *c, int argc, char **argv, int *i)
{
	double *sd = ctx;
	if (strcmp(argv[*i], "--session-sd") || *i + 1 >= argc)
		return 0;
	const char *v = argv[++*i];
	char *s = xstrdup(v);
	size_t l = strlen(s);
	int pct = l && s[l - 1] == '%';
	if (pct)
		s[l - 1] = '\0';
	int bad = parse_double(s, sd) || !(*sd >= 0) || !isfinite(*sd);
	free(s);
	if (!pct)
		bad = 1;
	*sd /= 100;
	if (bad || *sd > 1)
		return cmd_usage_error(c, "--session-sd: '%s' is not a percentage from 0%% to 100%%, like 1%%", v);
	return 1;
}

/* the replicated (bootstrap) verdict: its interval against 1, no drift term, no MDE */
static void compare_replicated(const struct an_key *a, const struct an_key *b, const struct an_opts *o,
			       struct an_compare *c)
{
	memset(c, 0, sizeof(*c));
	c->lo = c->hi = c->ratio = c->wlo = c->whi = c->mde = c->drift = NAN;
	c->warn = a->warn | b->warn;
	struct an_ratio r = an_ratio_ci(a, b, o);
	if (!r.ok) {
		c->verdict = AN_V_NONE;
		return;
	}
	c->ratio = r.med;
	c->lo = c->wlo = r.lo;
	c->hi = c->whi = r.hi;
	c->verdict = r.hi < 1 ? AN_V_FASTER : r.lo > 1 ? AN_V_SLOWER : AN_V_SAME;
}

/* "1.0213 (1.0045–1.0391)": digits enough that an interval off 1 never prints as one touching it */
static void fmt_ratio(struct strbuf *sb, double r, double lo, double hi)
{
	int d = ks_decimals(r, lo, hi, 1.0, 4);
	if (isfinite(hi))
		sb_addf(sb, "%.*f (%.*f–%.*f)", d, r, d, lo, d, hi);
	else
		sb_addf(sb, "%.*f (%.*f–inf)", d, r, d, lo);
}

/* the MDE as a percentage, two significant digits: "±3.1%" */
static void fmt_mde(struct strbuf *sb, double mde)
{
	if (isfinite(mde)) {
		sb_adds(sb, "±");
		ks_fmt_pct(sb, 100 * mde, 2);
	} else
		sb_adds(sb, "-");
}

/* side (A or B) without a steady state for a reason the warn bits do not say: in words, after sb's */
static void no_steady_reason(const struct an_key *k, char side, struct strbuf *sb)
{
	if (k->has_steady || (k->warn & AN_WARN_DRIFT))
		return;
	if (sb->len)
		sb_adds(sb, "; ");
	if (!k->np)
		sb_addf(sb, "%c has no completed pexec", side);
	else
		sb_addf(sb, "%c has no steady state in %zu of its %zu pexecs (more than 1 in %d without a figure)", side,
			k->counts[AN_NO_STEADY], k->np, AN_LEFT_OUT_DEN);
}

/* why a key gets no verdict: its AN_WARN_NO_VERDICT bits in words, and a side without a steady state */
static void no_verdict_reason(const struct an_key *a, const struct an_key *b, unsigned warn, struct strbuf *sb)
{
	if (warn & AN_WARN_SHORT)
		sb_adds(sb, "too few iterations to see whether it warmed up");
	if (warn & AN_WARN_DRIFT) {
		if (sb->len)
			sb_adds(sb, "; ");
		sb_adds(sb, "a slow trend: no steady state to compare");
	}
	no_steady_reason(a, 'A', sb);
	no_steady_reason(b, 'B', sb);
	if (!sb->len)
		sb_adds(sb, "the warmup analysis marks its figures unsafe");
}

static json_t *jshape(unsigned shape)
{
	json_t *a = json_array();
	for (int i = 0; i < KS_NSHAPES; i++)
		if (shape & (1u << i))
			json_array_append_new(a, json_string(ks_shape_name(1u << i)));
	return a;
}

static const char *overlap(const struct an_key *a, const struct an_key *b)
{
	if (!a->has_steady || !b->has_steady)
		return "-";
	return (a->perf_hi < b->perf_lo || b->perf_hi < a->perf_lo) ? "no" : "yes";
}

/* the class column: whole-process keys have no warmup to classify */
static const char *cls_name(const struct an_key *k)
{
	return k->whole ? "whole process" : an_class_name(k->cls);
}

/* a delta large against a key's steady mean, in A or B: the sentence, or JSON null */
static json_t *jdelta(const struct an_key *k)
{
	struct strbuf sb = STRBUF_INIT;
	json_t *j = k && an_delta_warning(k, &sb) ? json_string(sb.buf) : json_null();
	sb_release(&sb);
	return j;
}


/* an interval's end: JSON has no infinity, so an unbounded end is the largest double (compares as one) */
static json_t *jend(double v)
{
	return isinf(v) ? json_real(v > 0 ? DBL_MAX : -DBL_MAX) : json_num(v);
}


static const struct an_key *find(const struct an_result *r, const char *key)
{
	for (size_t i = 0; i < r->nkeys; i++)
		if (!strcmp(r->keys[i].key->key, key))
			return &r->keys[i];
	return NULL;
}

/* the audit a kiln results file recorded at its start, NULL for other inputs */
static json_t *audit_of(const char *path)
{
	struct store *st;
	struct kerr e = KERR_INIT;
	json_t *a = NULL;
	if (imp_detect(path) == IMP_KILN && store_open(path, 0, &st, &e) == 0) {
		char *text = NULL;
		if (store_audit_get(st, "start", &text) == 0 && text)
			a = json_loads(text, 0, NULL);
		free(text);
		store_close(st);
	}
	kerr_release(&e);
	return a;
}

/*
 * Numbers from different machines or settings are not comparable as if
 * only the VM changed: say so before the table (hosts, CPU, kernel,
 * governor, VM versions... as platform_audit_diff sees them).
 */
static void warn_audits(const char *a, const char *b, const struct dataset *da, const struct dataset *db)
{
	json_t *ja = audit_of(a), *jb = audit_of(b);
	if (ja && jb) {
		struct strvec lines = STRVEC_INIT;
		if (platform_audit_diff(ja, jb, &lines)) {
			kiln_warn("A and B come from different machines or settings:");
			for (size_t i = 0; i < lines.n; i++)
				fprintf(stderr, "  %s\n", esc(ESC_TERM, lines.v[i]));
		}
		sv_clear(&lines);
	} else if (da->machine && db->machine && strcmp(da->machine, db->machine)) {
		kiln_warn("A ran on '%s' and B on '%s': differences may be the machines'", esc(ESC_TERM, da->machine),
			  esc(ESC_TERM, db->machine));
	}
	json_decref(ja);
	json_decref(jb);
}

/* cells (ncols a row, the titles first) as columns two spaces apart, padded by display width */
static void print_table(const struct strvec *cells, size_t ncols)
{
	size_t w[16] = { 0 };
	for (size_t i = 0; i < cells->n; i++) {
		size_t dw = display_width(cells->v[i]);
		w[i % ncols] = dw > w[i % ncols] ? dw : w[i % ncols];
	}
	struct strbuf line = STRBUF_INIT;
	for (size_t i = 0; i < cells->n; i++) {
		size_t c = i % ncols;
		if (c + 1 < ncols) {
			sb_pad(&line, cells->v[i], w[c] + 2);
			continue;
		}
		sb_adds(&line, cells->v[i]);
		printf("%s\n", line.buf);
		sb_reset(&line);
	}
	sb_release(&line);
}


/* one key's comparison: an_key_compare's, or the bootstrap's under --replicate-warmup-stats */
static void compare(const struct an_key *a, const struct an_key *b, const struct an_opts *o, double session_sd,
		    struct an_compare *c)
{
	if (o->replicate)
		compare_replicated(a, b, o, c);
	else
		an_key_compare(a, b, o, session_sd, c);
}

/* where a key's session sd came from, for JSON */
static json_t *jsession(const struct srec_sd *s)
{
	json_t *j = json_pack("{s:o,s:s,s:I}", "sd", json_num(s->sd), "source", srec_source_name(s->source),
			      "sessions", (json_int_t)s->sessions);
	if (s->source == SREC_MEASURED)
		json_object_set_new(j, "estimate", json_num(s->est.sd));
	json_object_set_new(j, "why_assumed", s->why ? json_string(s->why) : json_null());
	return j;
}

/* a key's session sd in words: "2.3% measured from 12 other sessions ..." */
static void session_text(const struct srec_sd *s, struct strbuf *sb)
{
	if (s->source == SREC_MEASURED)
		sb_addf(sb, "%.2g%% measured: the %g%% upper bound from %zu other sessions of its program on this machine "
			"(estimate %.2g%%)", 100 * s->sd, 100 * SS_UPPER_CONF, s->sessions, 100 * s->est.sd);
	else if (s->source == SREC_ASSUMED && s->looked_up)
		sb_addf(sb, "%.2g%% assumed, not measured (%zu other sessions of its program on this machine, %d needed)",
			100 * s->sd, s->sessions, SS_MIN_SESSIONS);
	else if (s->source == SREC_ASSUMED)
		sb_addf(sb, "%.2g%% assumed, not measured (%s)", 100 * s->sd, s->why ? s->why : "-");
	else
		sb_addf(sb, "%.2g%% (--session-sd)", 100 * s->sd);
}

static json_t *key_json(const char *key, const struct an_key *a, const struct an_key *b, const struct an_compare *c)
{
	json_t *j = json_object();
	json_object_set_new(j, "key", json_string(esc(ESC_JSON, key)));
	json_object_set_new(j, "class_a", a ? json_string(an_class_name(a->cls)) : json_null());
	json_object_set_new(j, "class_b", b ? json_string(an_class_name(b->cls)) : json_null());
	json_object_set_new(j, "class_changed", json_boolean(!a || !b || a->cls != b->cls));
	json_object_set_new(j, "steady_a",
			    a ? json_pack("[ooo]", json_num(a->perf_med), json_num(a->perf_lo), json_num(a->perf_hi))
			      : json_null());
	json_object_set_new(j, "steady_b",
			    b ? json_pack("[ooo]", json_num(b->perf_med), json_num(b->perf_lo), json_num(b->perf_hi))
			      : json_null());
	const char *ov = a && b ? overlap(a, b) : "-";
	json_object_set_new(j, "cis_overlap", !strcmp(ov, "-") ? json_null() : json_boolean(!strcmp(ov, "yes")));
	int has = a && b && isfinite(c->ratio); /* no verdict may come without a ratio (no steady state) */
	json_object_set_new(j, "ratio", has ? json_num(c->ratio) : json_null());
	json_object_set_new(j, "ratio_ci", has ? json_pack("[oo]", jend(c->lo), jend(c->hi)) : json_null());
	json_object_set_new(j, "ratio_ci_within_sessions", has ? json_pack("[oo]", jend(c->wlo), jend(c->whi)) : json_null());
	json_object_set_new(j, "mde", has ? json_num(c->mde) : json_null());
	json_object_set_new(j, "verdict", json_string(a && b ? an_verdict_name(c->verdict) : a ? "only in A" : "only in B"));
	json_object_set_new(j, "drift_explains", has && c->verdict == AN_V_DRIFT ? json_num(c->drift) : json_null());
	struct strbuf sb = STRBUF_INIT;
	if (a && b && c->verdict == AN_V_NO_VERDICT)
		no_verdict_reason(a, b, c->warn, &sb);
	json_object_set_new(j, "no_verdict", sb.len ? json_string(sb.buf) : json_null());
	sb_release(&sb);
	json_object_set_new(j, "shape_a", a ? jshape(c->shape_a) : json_null());
	json_object_set_new(j, "shape_b", b ? jshape(c->shape_b) : json_null());
	json_object_set_new(j, "whole_process", json_boolean((a && a->whole) || (b && b->whole)));
	json_object_set_new(j, "delta_warning_a", jdelta(a));
	json_object_set_new(j, "delta_warning_b", jdelta(b));
	/* pexecs left out of a side's steady figures (analysis.h, AN_LEFT_OUT_DEN) */
	json_object_set_new(j, "left_out_a", a ? json_integer((json_int_t)a->left_out) : json_null());
	json_object_set_new(j, "left_out_b", b ? json_integer((json_int_t)b->left_out) : json_null());
	return j;
}

/* the text table's cells of one key */
static void key_cells(const char *key, const struct an_key *a, const struct an_key *b, const struct an_compare *c,
		      struct strvec *cells)
{
	struct strbuf sb = STRBUF_INIT;
	sv_push(cells, esc(ESC_TERM, key));
	sb_addf(&sb, "%s -> %s", a ? cls_name(a) : "(absent)", b ? cls_name(b) : "(absent)");
	sv_push(cells, sb.buf);
	const struct an_key *side[2] = { a, b };
	for (int q = 0; q < 2; q++) {
		sb_reset(&sb);
		if (side[q])
			rep_fmt_time_ci(&sb, side[q]->perf_med, side[q]->perf_lo, side[q]->perf_hi);
		sv_push(cells, sb.len ? sb.buf : "-");
	}
	int has = a && b && isfinite(c->ratio); /* no verdict may come without a ratio (no steady state) */
	sb_reset(&sb);
	if (has)
		fmt_ratio(&sb, c->ratio, c->lo, c->hi);
	sv_push(cells, sb.len ? sb.buf : "-");
	sb_reset(&sb);
	if (has)
		fmt_mde(&sb, c->mde);
	sv_push(cells, sb.len ? sb.buf : "-");
	sv_push(cells, a && b ? an_verdict_name(c->verdict) : a ? "only in A" : "only in B");
	sb_release(&sb);
}

/* a key's side in the notes below the table: shape words and what they mean */
static void shape_note(const char *key, char side, const struct an_key *k, const struct an_opts *o, int *first)
{
	struct ks_mean m;
	an_key_mean(k, o, &m);
	if (!(m.shape & KS_WARN))
		return;
	struct strbuf sb = STRBUF_INIT;
	ks_shape_text(&m, rep_add_time, &sb);
	if (*first)
		printf("\nwarnings\n");
	*first = 0;
	printf("  %s (%c): %s\n", esc(ESC_TERM, key), side, sb.buf);
	sb_release(&sb);
}

/* below the table: what each key's verdict cannot show */
static void print_notes(const struct strvec *keys, const struct an_result *ra, const struct an_result *rb,
			const struct an_compare *cmp, const struct an_opts *o)
{
	struct strbuf sb = STRBUF_INIT;
	int first = 1;
	for (size_t i = 0; i < keys->n; i++) {
		const struct an_key *side[2] = { find(ra, keys->v[i]), find(rb, keys->v[i]) };
		/* a large delta; the pexecs left out of a side's figures (analysis.h, AN_LEFT_OUT_DEN) */
		for (int q = 0; q < 4; q++) {
			sb_reset(&sb);
			const struct an_key *k = side[q % 2];
			if (!k || !(q < 2 ? an_delta_warning(k, &sb) : an_left_out_text(k, &sb)))
				continue;
			if (first)
				printf("\nwarnings\n");
			first = 0;
			printf("  %s (%c): %s\n", esc(ESC_TERM, keys->v[i]), "AB"[q % 2], sb.buf);
		}
		for (int q = 0; q < 2 && !o->replicate; q++)
			if (side[q])
				shape_note(keys->v[i], "AB"[q], side[q], o, &first);
		const struct an_compare *c = &cmp[i];
		if (side[0] && side[1] && c->verdict == AN_V_NO_VERDICT) {
			sb_reset(&sb);
			no_verdict_reason(side[0], side[1], c->warn, &sb);
			if (first)
				printf("\nwarnings\n");
			first = 0;
			printf("  %s: no verdict: %s\n", esc(ESC_TERM, keys->v[i]), sb.buf);
		}
		if (side[0] && side[1] && c->verdict == AN_V_DRIFT) {
			if (first)
				printf("\nwarnings\n");
			first = 0;
			printf("  %s: %s within the sessions (%.4g–%.4g), but a drift of the machine of %.2g%% between "
			       "them would do the same: measure A and B interleaved, kiln compare CONFIG --vm A --vm B\n",
			       esc(ESC_TERM, keys->v[i]), c->whi < 1 ? "faster" : "slower", c->wlo, c->whi, 100 * c->drift);
		}
	}
	sb_release(&sb);
}

/*
 * A change common to every key and the machine's drift between the
 * sessions look alike: with three keys or more, say how much B moved them
 * all (the geometric mean of the ratios)
 */
static void print_common(const struct an_compare *cmp, size_t n, double session_sd)
{
	double sum = 0;
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (cmp[i].verdict != AN_V_NONE && cmp[i].ratio > 0 && isfinite(cmp[i].ratio)) {
			sum += log(cmp[i].ratio);
			k++;
		}
	if (k < 3)
		return;
	printf("Across the %zu keys B/A is %.4g (geometric mean): a change common to all keys and the machine's drift "
	       "between the two sessions look alike.\n",
	       k, exp(sum / (double)k));
	(void)session_sd;
}

/* without --session-sd: the drift term of each key, and where its sd came from */
static void print_sessions(const struct strvec *keys, const struct an_compare *cmp, const struct srec_sd *ssd)
{
	printf("A and B are two sessions: each interval includes the machine's drift between sessions, a key's mean "
	       "moving by the session sd below; 'drift?' is a change that drift could explain. kiln compare CONFIG "
	       "--vm A --vm B measures both in one session, interleaved, without it.\n");
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < keys->n; i++) {
		if (!isfinite(cmp[i].ratio))
			continue; /* no ratio, no drift term in it */
		sb_reset(&sb);
		session_text(&ssd[i], &sb);
		printf("  session sd of %s: %s\n", esc(ESC_TERM, keys->v[i]), sb.buf);
	}
	sb_release(&sb);
}

/* a key's JSON: its comparison, where its session sd came from, the verdicts on warmup itself */
static json_t *key_entry(const char *key, const struct an_key *a, const struct an_key *b, const struct an_compare *cmp,
			 const struct srec_sd *ssd, const struct an_opts *o)
{
	json_t *j = key_json(key, a, b, cmp);
	if (a && b) {
		json_object_set_new(j, "session", jsession(ssd));
		struct sw_diff wd; /* stats-warmup.h */
		sw_diff_keys(a, b, o, &wd);
		json_object_set_new(j, "warmup", sw_json(&wd));
	}
	return j;
}

static void print_json(const char *const *in, const struct an_opts *o, int sd_given, double session_sd, json_t *keys)
{
	json_t *root = json_pack("{s:s,s:s,s:f,s:f,s:s,s:o}", "a", esc(ESC_JSON, in[0]), "b", esc(ESC_JSON, in[1]),
				 "confidence", o->confidence, "session_sd", o->replicate ? 0.0 : session_sd,
				 "session_sd_from", o->replicate ? "none" : sd_given ? "option" : "per key", "keys", keys);
	char *t = json_dumps(root, JSON_INDENT(2) | JSON_REAL_PRECISION(17) | JSON_ENSURE_ASCII);
	puts(t);
	free(t);
	json_decref(root);
}

/* what the table's figures are, and what the sessions add to their error */
static void print_legend(const struct an_opts *o, int sd_given, double session_sd, const struct strvec *keys,
			 const struct an_compare *cmp, const struct srec_sd *ssd)
{
	if (o->replicate) {
		printf("\nB/A: ratio of steady-state means, warmup_stats-style bootstrap median and %g%% interval; "
		       "verdict 'faster'/'slower' when that interval excludes 1.\n",
		       o->confidence * 100);
		return;
	}
	printf("\nB/A: ratio of the steady-state means (the pexecs are the units: process times, or each "
	       "pexec's steady mean) and its %g%% interval (docs/statistics.md); 'could see': the smallest "
	       "change these runs detect 80%% of the time, so 'no change' means no change of that size.\n",
	       o->confidence * 100);
	if (!sd_given)
		print_sessions(keys, cmp, ssd);
	else if (session_sd > 0)
		printf("A and B are two sessions: the interval includes a drift of the machine between sessions "
		       "of %.2g%% (--session-sd); 'drift?' is a change that drift could explain. kiln compare "
		       "CONFIG --vm A --vm B measures both in one session, interleaved, without it.\n",
		       100 * session_sd);
	else
		printf("--session-sd 0%%: no drift of the machine between A's and B's sessions is in the interval; "
		       "if they were measured apart, a verdict may be the machine's.\n");
	print_common(cmp, keys->n, session_sd);
}

static int cmd_diff(int argc, char **argv)
{
	const struct cmd_entry *c = &cmd_diff_entry;
	if (cmd_wants_help(c, argc, argv))
		return 0;
	struct an_opts o;
	an_opts_default(&o);
	struct cmd_an_args args;
	double session_sd = NAN; /* NAN: no --session-sd, learned per key (session-record.h) */
	int bad = cmd_an_args(c, argc, argv, &o, 2, NULL, 1, &args, diff_opt, &session_sd);
	if (bad)
		return bad;
	int sd_given = !isnan(session_sd);
	if (!sd_given)
		session_sd = DIFF_SESSION_SD;
	const char *const *in = args.inputs;
	int json = args.json;
	struct dataset da = { 0 }, db = { 0 };
	struct an_result ra = { 0 }, rb = { 0 };
	int rc = cmd_load_analysed(in[0], &args, &o, &da, &ra);
	if (rc == 0)
		rc = cmd_load_analysed(in[1], &args, &o, &db, &rb);
	if (rc == 0 && args.keys.n && !da.nkeys && !db.nkeys)
		rc = cmd_no_key_matches(in[0], &args.keys);
	cmd_an_args_release(&args);
	if (rc) {
		an_result_free(&ra);
		an_result_free(&rb);
		ds_free(&da);
		ds_free(&db);
		return rc;
	}
	warn_audits(in[0], in[1], &da, &db);
	/* every key of A, then the keys only B has */
	struct strvec keys = STRVEC_INIT;
	for (size_t i = 0; i < ra.nkeys; i++)
		sv_push(&keys, ra.keys[i].key->key);
	for (size_t i = 0; i < rb.nkeys; i++)
		if (!find(&ra, rb.keys[i].key->key))
			sv_push(&keys, rb.keys[i].key->key);
	struct an_compare *cmp = xcalloc(keys.n + 1, sizeof(*cmp));
	struct srec_sd *ssd = xcalloc(keys.n + 1, sizeof(*ssd));
	struct srec_diff *rec = sd_given || o.replicate ? NULL : srec_diff_open(in[0], &da, in[1], &db);
	json_t *jout = json ? json_array() : NULL;
	/* the text table's cells, printed once every width is known (padded by display width) */
	enum { DCOLS = 7 }; /* key, class A -> B, A and B steady perf, B/A, MDE, verdict */
	struct strvec cells = STRVEC_INIT;
	static const char *const dtitles[DCOLS] = { "key", "class A -> B", "A steady perf", "B steady perf",
						    "B/A (CI)", "could see", "verdict" };
	for (int t = 0; t < DCOLS; t++)
		sv_push(&cells, dtitles[t]);
	for (size_t i = 0; i < keys.n; i++) {
		const char *key = keys.v[i];
		const struct an_key *a = find(&ra, key), *b = find(&rb, key);
		ssd[i] = (struct srec_sd){ .sd = o.replicate ? 0 : session_sd, .source = o.replicate ? SREC_NONE : SREC_OPTION };
		if (a && b && rec)
			srec_diff_key(rec, a, b, DIFF_SESSION_SD, &ssd[i]);
		if (a && b)
			compare(a, b, &o, ssd[i].sd, &cmp[i]);
		else {
			/* a key only one side has: no ratio (calloc's 0 was finite, and its session sd was listed) */
			cmp[i].verdict = AN_V_NONE;
			cmp[i].ratio = cmp[i].lo = cmp[i].hi = cmp[i].wlo = cmp[i].whi = cmp[i].mde = cmp[i].drift = NAN;
		}
		if (json)
			json_array_append_new(jout, key_entry(key, a, b, &cmp[i], &ssd[i], &o));
		else
			key_cells(key, a, b, &cmp[i], &cells);
	}
	if (json) {
		print_json(in, &o, sd_given, session_sd, jout);
	} else {
		print_table(&cells, DCOLS);
		sw_print(&keys, &ra, &rb, &o); /* the verdicts on warmup itself */
		print_legend(&o, sd_given, session_sd, &keys, cmp, ssd);
		print_notes(&keys, &ra, &rb, cmp, &o);
	}
	free(cmp);
	free(ssd);
	srec_diff_close(rec);
	sv_clear(&cells);
	sv_clear(&keys);
	an_result_free(&ra);
	an_result_free(&rb);
	ds_free(&da);
	ds_free(&db);
	return rc;
}
