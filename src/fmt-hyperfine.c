/*
 * fmt-hyperfine.c - hyperfine's --export-json files (layout of hyperfine
 * 1.15), read and written.
 *
 *   {"results": [{"command": "gzip -1 -c f", "mean": s, "stddev": s|null,
 *     "median": s, "user": s, "system": s, "min": s, "max": s,
 *     "times": [s per run], "memory_usage_byte": [bytes per run],
 *     "exit_codes": [int per run], "parameters": {"NAME": "value"}}]}
 *   (parameters only when scanned; memory_usage_byte from hyperfine 1.19)
 *
 * One result is one key, named as `kiln bench` names its commands
 * (fmt_command_key): a hyperfine file and a kiln bench run of the same
 * commands have the same keys, so `kiln diff` compares them.  One run is a
 * pexec of one iteration.  hyperfine keeps only the means of user and
 * system time, so every imported run carries those means (their mean is
 * hyperfine's).  A run's memory_usage_byte (its peak RSS) is its max_rss,
 * and goes back out of an export of the import as the file had it.  Written back, the statistics are kiln's whole-process
 * statistics (analysis.h), computed as hyperfine defines them; a key with
 * more than one iteration per pexec has no place in this format.
 */
#include "fmt.h"
#include "stats.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "json-num.h"
#include "rounds.h"

static int sniff(const char *text, size_t len)
{
	char key[16];
	return fmt_json_first_key(text, len, key, sizeof(key)) == 0 && !strcmp(key, "results");
}

/* a number field of result i that must be a finite time, or null when allowed */
static int time_field(const char *name, size_t i, json_t *r, const char *field, int required, struct kerr *e)
{
	json_t *v = json_object_get(r, field);
	if (!v && !required)
		return 0;
	if (!v)
		return kerr_setc(e, KEXIT_CONFIG, "%s: results[%zu].%s: missing", name, i, field);
	if (json_is_null(v) && !required)
		return 0;
	if (json_is_number(v) && ds_time_subns(json_number_value(v)))
		return kerr_setc(e, KEXIT_CONFIG, "%s: results[%zu].%s: %g " DS_TIME_SUBNS_WHY, name, i, field,
				 json_number_value(v));
	if (!json_is_number(v) || !ds_time_ok(json_number_value(v)))
		return kerr_setc(e, KEXIT_CONFIG, "%s: results[%zu].%s: not a time in seconds (0 to %g)", name, i, field,
				 DS_TIME_MAX_S);
	return 0;
}

static double num_or_nan(json_t *r, const char *field)
{
	json_t *v = json_object_get(r, field);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

/*
 * A result's parameters (hyperfine's -P/-L: {"NAME": "value"}), NULL when
 * none; -1 with e set for anything else
 */
static int read_params(const char *name, size_t i, json_t *r, json_t **out, struct kerr *e)
{
	json_t *p = json_object_get(r, "parameters");
	*out = NULL;
	if (!p || json_is_null(p))
		return 0;
	if (!json_is_object(p))
		return kerr_setc(e, KEXIT_CONFIG, "%s: results[%zu].parameters: not an object", name, i);
	const char *pn;
	json_t *pv;
	json_object_foreach(p, pn, pv)
		if (!json_is_string(pv))
			return kerr_setc(e, KEXIT_CONFIG, "%s: results[%zu].parameters.%s: not a string", name, i,
					 esc(ESC_TERM, pn));
	*out = p;
	return 0;
}

/*
 * One result: its runs into a key.  Its command as the file has it (the
 * key's name has ':' as '_', and " (2)" when two results share it) and its
 * parameters go to cmds, as kiln bench keeps its own (meta
 * "bench_commands"), so that an export writes them back as they were.
 */
static int read_result(const char *name, size_t i, json_t *r, struct dataset *ds, long *values, json_t *cmds,
		       struct kerr *e)
{
	if (!json_is_object(r))
		return kerr_setc(e, KEXIT_CONFIG, "%s: results[%zu]: not an object", name, i);
	const char *cmd = json_string_value(json_object_get(r, "command"));
	if (!cmd || !*cmd)
		return kerr_setc(e, KEXIT_CONFIG, "%s: results[%zu].command: missing or not a string", name, i);
	json_t *times = json_object_get(r, "times"), *codes = json_object_get(r, "exit_codes");
	if (!json_is_array(times))
		return kerr_setc(e, KEXIT_CONFIG, "%s: results[%zu].times: missing or not a list", name, i);
	if (codes && !json_is_array(codes))
		return kerr_setc(e, KEXIT_CONFIG, "%s: results[%zu].exit_codes: not a list", name, i);
	size_t n = json_array_size(times);
	if (codes && json_array_size(codes) != n)
		return kerr_setc(e, KEXIT_CONFIG, "%s: results[%zu].exit_codes: %zu of them for %zu times", name, i,
				 json_array_size(codes), n);
	json_t *mem = json_object_get(r, "memory_usage_byte");
	if (mem && !json_is_null(mem) && (!json_is_array(mem) || json_array_size(mem) != n))
		return kerr_setc(e, KEXIT_CONFIG, "%s: results[%zu].memory_usage_byte: not a list of one per time (%zu)",
				 name, i, n);
	for (size_t j = 0; j < json_array_size(mem); j++) {
		json_t *b = json_array_get(mem, j);
		/* bytes, as hyperfine's u64 that a JSON integer holds */
		if (!json_is_integer(b) || json_integer_value(b) < 0)
			return kerr_setc(e, KEXIT_CONFIG, "%s: results[%zu].memory_usage_byte[%zu]: not a number of bytes",
					 name, i, j);
	}
	if ((long)n > FMT_MAX_PEXECS || (*values += (long)n) > FMT_MAX_VALUES)
		return kerr_setc(e, KEXIT_CONFIG, "%s: results[%zu].times: more runs than kiln reads (%ld)", name, i,
				 FMT_MAX_PEXECS);
	static const char *const checked[] = { "mean", "median", "min", "max", "user", "system" };
	for (size_t f = 0; f < ARRAY_SIZE(checked); f++)
		if (time_field(name, i, r, checked[f], 0, e) < 0)
			return -1;
	if (time_field(name, i, r, "stddev", 0, e) < 0)
		return -1;
	json_t *params;
	if (read_params(name, i, r, &params, e) < 0)
		return -1;
	struct ds_key *k = fmt_command_key(ds, cmd, NULL);
	if (!k)
		return kerr_setc(e, KEXIT_CONFIG, "%s: results[%zu].command: '%s' names no key", name, i, esc(ESC_TERM, cmd));
	json_t *entry = json_pack("{s:s, s:s, s:s}", "key", esc(ESC_JSON, k->key), "command", esc(ESC_JSON, cmd),
				  "name", esc(ESC_JSON, k->bench));
	json_object_set_new(entry, "parameters", params ? json_deep_copy(params) : json_object());
	if (json_array_size(mem))
		json_object_set_new(entry, "memory_usage_byte", json_deep_copy(mem));
	json_array_append_new(cmds, entry);
	double user = num_or_nan(r, "user"), sys = num_or_nan(r, "system");
	for (size_t j = 0; j < n; j++) {
		json_t *t = json_array_get(times, j);
		double v = json_number_value(t);
		if (json_is_number(t) && ds_time_subns(v))
			return kerr_setc(e, KEXIT_CONFIG, "%s: results[%zu].times[%zu]: %g " DS_TIME_SUBNS_WHY, name, i, j, v);
		if (!json_is_number(t) || !ds_time_ok(v))
			return kerr_setc(e, KEXIT_CONFIG, "%s: results[%zu].times[%zu]: not a time in seconds (0 to %g)", name,
					 i, j, DS_TIME_MAX_S);
		json_t *c = codes ? json_array_get(codes, j) : NULL;
		if (c && !json_is_integer(c) && !json_is_null(c))
			return kerr_setc(e, KEXIT_CONFIG, "%s: results[%zu].exit_codes[%zu]: not an integer", name, i, j);
		struct ds_pexec *p = ds_add_pexec(k, (long)j);
		p->wall = xmalloc(sizeof(double));
		p->wall[0] = v;
		p->n = 1;
		/* a run killed by a signal has a null exit code in hyperfine's file */
		ds_add_scalar(p, "exit_status", "", json_is_integer(c) ? (double)json_integer_value(c) : NAN);
		if (!isnan(user))
			ds_add_scalar(p, "user_time", "s", user);
		if (!isnan(sys))
			ds_add_scalar(p, "sys_time", "s", sys);
		if (json_array_size(mem))
			ds_add_scalar(p, "max_rss", "KiB", (double)json_integer_value(json_array_get(mem, j)) / 1024.0);
	}
	k->planned_pexecs = (long)n;
	k->iterations = 1;
	return 0;
}

static int hf_read(const char *name, const char *text, size_t len, struct dataset *ds, struct kerr *e)
{
	json_t *root = fmt_json_load(name, text, len, e);
	if (!root)
		return -1;
	json_t *res = json_object_get(root, "results"), *cmds = json_array();
	int rc = 0;
	long values = 0;
	if (!json_is_array(res))
		rc = kerr_setc(e, KEXIT_CONFIG, "%s: results: not a list", name);
	else if ((long)json_array_size(res) > FMT_MAX_KEYS)
		rc = kerr_setc(e, KEXIT_CONFIG, "%s: results: more than %ld commands", name, FMT_MAX_KEYS);
	for (size_t i = 0; rc == 0 && i < json_array_size(res); i++)
		rc = read_result(name, i, json_array_get(res, i), ds, &values, cmds, e);
	/* each key's command and parameters as the file had them: the export's (hf_write's bench_entry) */
	if (rc == 0 && !ds->keep_name) {
		json_t *bench = json_pack("{s:o}", "commands", json_incref(cmds));
		ds->keep_name = xstrdup("bench_commands");
		ds->keep_text = json_dumps(bench, JSON_COMPACT);
		json_decref(bench);
	}
	json_decref(cmds);
	json_decref(root);
	return rc;
}

/* ---- writing ---- */

/* kiln bench's own record of key k's command and parameters, NULL when none */
static json_t *bench_entry(json_t *bench, const struct ds_key *k)
{
	json_t *cmds = json_object_get(bench, "commands"), *c;
	size_t i;
	json_array_foreach(cmds, i, c) {
		const char *key = json_string_value(json_object_get(c, "key"));
		if (key && !strcmp(key, k->key))
			return c;
	}
	return NULL;
}

/* one key of the output: its analysis, command and parameters */
struct row {
	const struct ds_key *k;
	struct an_key ak;
	const char *command;
	json_t *params;         /* borrowed from the bench description, may be NULL */
	json_t *mem;            /* an imported file's memory_usage_byte (borrowed), NULL: none */
};

struct rows {
	struct row *v;
	size_t n;
	json_t *bench;
	struct an_opts o;
};

static void rows_free(struct rows *r)
{
	for (size_t i = 0; i < r->n; i++)
		an_key_free(&r->v[i].ak);
	free(r->v);
	json_decref(r->bench);
}

/* every key with a completed run, analysed as whole processes; -1 for a key that is not one */
static int rows_of(const struct dataset *ds, const struct fmt_extra *x, struct rows *r, struct kerr *e)
{
	memset(r, 0, sizeof(*r));
	an_opts_default(&r->o);
	r->o.resamples = 10000; /* few: no table prints the bootstrap interval (Relative is rounds_ratio's), the means are exact */
	r->o.threads = 1;
	r->bench = x->bench_json ? json_loads(x->bench_json, 0, NULL) : NULL;
	r->v = xcalloc(ds->nkeys + 1, sizeof(*r->v));
	for (size_t i = 0; i < ds->nkeys; i++) {
		struct row *w = &r->v[r->n];
		w->k = &ds->keys[i];
		an_analyse_key(w->k, &r->o, &w->ak);
		if (!w->ak.np) {
			an_key_free(&w->ak); /* no run that completed: hyperfine has no result without one */
			continue;
		}
		r->n++;
		if (!w->ak.whole) {
			kerr_set(e, "key '%s' has more than one iteration per pexec: hyperfine's format has one time per run "
				 "(--format pyperf keeps iterations)", esc(ESC_TERM, w->k->key));
			rows_free(r);
			return -1;
		}
		json_t *entry = bench_entry(r->bench, w->k);
		w->command = json_string_value(json_object_get(entry, "command"));
		if (!w->command)
			w->command = w->k->bench;
		w->params = json_object_get(entry, "parameters");
		w->mem = json_object_get(entry, "memory_usage_byte");
		if (!json_is_array(w->mem))
			w->mem = NULL;
		if (!json_is_object(w->params) || !json_object_size(w->params))
			w->params = NULL;
	}
	return 0;
}

static json_t *result_json(const struct row *w)
{
	const struct an_whole *wp = &w->ak.wp;
	json_t *r = json_object(), *times = json_array(), *codes = json_array();
	json_object_set_new(r, "command", json_string(esc(ESC_JSON, w->command)));
	json_object_set_new(r, "mean", json_num(wp->mean));
	json_object_set_new(r, "stddev", json_num(wp->sd));
	json_object_set_new(r, "median", json_num(wp->median));
	json_object_set_new(r, "user", json_num(isnan(wp->user) ? 0 : wp->user));
	json_object_set_new(r, "system", json_num(isnan(wp->sys) ? 0 : wp->sys));
	json_object_set_new(r, "min", json_num(wp->min));
	json_object_set_new(r, "max", json_num(wp->max));
	for (size_t i = 0; i < w->ak.np; i++) {
		const struct ds_pexec *p = &w->k->pexecs[w->ak.p[i].index];
		json_array_append_new(times, json_real(p->wall[0]));
		double c = fmt_scalar(p, "exit_status");
		json_array_append_new(codes, fabs(c) < 9.2e18 ? json_integer((json_int_t)c) : json_null());
	}
	json_object_set_new(r, "times", times);
	if (w->mem) {
		/*
		 * hyperfine 1.19's peak RSS per run, written for an imported file
		 * that had it (hyperfine 1.15's layout has none): the file's bytes
		 * where kiln's whole KiB are still theirs, else those KiB
		 */
		json_t *mem = json_array();
		for (size_t i = 0; i < w->ak.np; i++) {
			const struct ds_pexec *p = &w->k->pexecs[w->ak.p[i].index];
			double kib = fmt_scalar(p, "max_rss");
			json_t *b = p->num >= 0 ? json_array_get(w->mem, (size_t)p->num) : NULL;
			if (json_is_integer(b) && llround((double)json_integer_value(b) / 1024.0) == llround(kib))
				json_array_append(mem, b);
			else
				json_array_append_new(mem, kib >= 0 && kib < 9e15 ? json_integer((json_int_t)llround(kib * 1024))
										  : json_null());
		}
		json_object_set_new(r, "memory_usage_byte", mem);
	}
	json_object_set_new(r, "exit_codes", codes);
	if (w->params)
		json_object_set(r, "parameters", w->params);
	return r;
}

static int hf_write(const struct dataset *ds, const struct fmt_extra *x, struct strbuf *out, struct kerr *e)
{
	struct rows r;
	if (rows_of(ds, x, &r, e) < 0)
		return -1;
	json_t *root = json_object(), *results = json_array();
	json_object_set_new(root, "results", results);
	for (size_t i = 0; i < r.n; i++)
		json_array_append_new(results, result_json(&r.v[i]));
	/* hyperfine's own layout: two-space indent, its order of keys */
	char *text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
	sb_adds(out, text);
	sb_addc(out, '\n');
	free(text);
	json_decref(root);
	rows_free(&r);
	return 0;
}

/* the row with the smallest mean (hyperfine's reference for Relative) */
static const struct row *fastest(const struct rows *r)
{
	const struct row *best = NULL;
	for (size_t i = 0; i < r->n; i++)
		if (!best || r->v[i].ak.wp.mean < best->ak.wp.mean)
			best = &r->v[i];
	return best;
}

/* hyperfine's markup tables: Markdown, AsciiDoc, Org */
enum markup { MK_MD, MK_ADOC, MK_ORG };

/* one row of five cells, as each layout writes it (hyperfine's spacing) */
static void markup_row(enum markup m, struct strbuf *out, const char *const c[5])
{
	for (int i = 0; i < 5; i++)
		if (m == MK_ADOC)
			sb_addf(out, "| %s \n", c[i]);
		else if (m == MK_ORG)
			sb_addf(out, i ? "  %s |" : "| %s  |", c[i]);
		else
			sb_addf(out, i ? " %s |" : "| %s |", c[i]);
	if (m != MK_ADOC)
		sb_addc(out, '\n');
}

static void markup_head(enum markup m, struct strbuf *out, const char *u)
{
	char mean[32], min[32], max[32];
	snprintf(mean, sizeof(mean), "Mean [%s]", u);
	snprintf(min, sizeof(min), "Min [%s]", u);
	snprintf(max, sizeof(max), "Max [%s]", u);
	const char *const c[5] = { "Command", mean, min, max, "Relative" };
	/* hyperfine writes no header option, and Asciidoctor then renders its header as a row of data */
	if (m == MK_ADOC)
		sb_adds(out, "[cols=\"<,>,>,>,>\",options=\"header\"]\n|===\n");
	markup_row(m, out, c);
	if (m == MK_MD)
		sb_adds(out, "|:---|---:|---:|---:|---:|\n");
	else if (m == MK_ORG)
		sb_adds(out, "|--+--+--+--+--|\n");
}

/* row w's cells: the command escaped for the layout, mean ± sd, min, max, Relative with its interval (rounds.h) */
static void markup_cells(enum markup m, const struct rows *r, const struct row *w, const struct row *best,
			 double scale, struct strbuf c[5])
{
	const struct an_whole *wp = &w->ak.wp;
	esc_add(&c[0], m == MK_MD ? ESC_MDCODE : m == MK_ADOC ? ESC_ADOCCODE : ESC_ORGCODE, w->command);
	/* hyperfine's one decimal, or more for three significant digits of the smallest */
	int d = ks_decimals(wp->min * scale, NAN, NAN, NAN, 3);
	d = d < 1 ? 1 : d > 6 ? 6 : d;
	sb_addf(&c[1], "%.*f ± %.*f", d, wp->mean * scale, d, isfinite(wp->sd) ? wp->sd * scale : 0);
	sb_addf(&c[2], "%.*f", d, wp->min * scale);
	sb_addf(&c[3], "%.*f", d, wp->max * scale);
	if (w == best) {
		sb_adds(&c[4], "1.00");
		return;
	}
	/*
	 * the runs paired by round, as kiln bench's summary gives the ratio
	 * (rounds.h; unpaired without rounds): the table and the terminal of
	 * one session then print one interval, not a paired and an unpaired one
	 */
	struct ks_ratio q;
	rounds_ratio(&best->ak, &w->ak, r->o.confidence, &q);
	if (q.ok)
		ks_fmt_ratio(&c[4], q.ratio, q.lo, q.hi, 3); /* never a significant ratio printed as touching 1 */
	else
		ks_fmt_ratio(&c[4], wp->mean / best->ak.wp.mean, NAN, NAN, 3);
}

static int row_by_mean(const void *pa, const void *pb)
{
	const struct row *a = pa, *b = pb;
	if (a->ak.wp.mean != b->ak.wp.mean)
		return a->ak.wp.mean < b->ak.wp.mean ? -1 : 1;
	return a->k < b->k ? -1 : a->k > b->k; /* keys in the dataset's order: stable */
}

/* the table's unit: -u's, else hyperfine's choice (seconds from 1 s, else milliseconds, never µs unless asked) */
static double table_scale(const struct fmt_extra *x, const struct row *best, const char **u)
{
	const char *t = x->time_unit;
	if (t && !strcmp(t, "s"))
		return *u = "s", 1;
	if (t && (!strcmp(t, "us") || !strcmp(t, "µs")))
		return *u = "µs", 1e6;
	if (!t && best && best->ak.wp.mean >= 1)
		return *u = "s", 1;
	return *u = "ms", 1e3;
}

static int markup_write(enum markup m, const struct dataset *ds, const struct fmt_extra *x, struct strbuf *out,
			struct kerr *e)
{
	struct rows r;
	if (rows_of(ds, x, &r, e) < 0)
		return -1;
	if (x->sort_by_mean)
		qsort(r.v, r.n, sizeof(*r.v), row_by_mean);
	const struct row *best = fastest(&r);
	const char *u;
	double scale = table_scale(x, best, &u);
	markup_head(m, out, u);
	for (size_t i = 0; i < r.n; i++) {
		struct strbuf c[5] = { STRBUF_INIT, STRBUF_INIT, STRBUF_INIT, STRBUF_INIT, STRBUF_INIT };
		markup_cells(m, &r, &r.v[i], best, scale, c);
		const char *const cells[5] = { sb_str(&c[0]), sb_str(&c[1]), sb_str(&c[2]), sb_str(&c[3]), sb_str(&c[4]) };
		if (m == MK_ADOC)
			sb_addc(out, '\n');
		markup_row(m, out, cells);
		for (int j = 0; j < 5; j++)
			sb_release(&c[j]);
	}
	if (m == MK_ADOC)
		sb_adds(out, "|===\n");
	rows_free(&r);
	return 0;
}

static int md_write(const struct dataset *ds, const struct fmt_extra *x, struct strbuf *out, struct kerr *e)
{
	return markup_write(MK_MD, ds, x, out, e);
}

static int adoc_write(const struct dataset *ds, const struct fmt_extra *x, struct strbuf *out, struct kerr *e)
{
	return markup_write(MK_ADOC, ds, x, out, e);
}

static int org_write(const struct dataset *ds, const struct fmt_extra *x, struct strbuf *out, struct kerr *e)
{
	return markup_write(MK_ORG, ds, x, out, e);
}

/* hyperfine's CSV: command,mean,stddev,median,user,system,min,max[,parameter_NAME...] */
static int csv_write(const struct dataset *ds, const struct fmt_extra *x, struct strbuf *out, struct kerr *e)
{
	struct rows r;
	if (rows_of(ds, x, &r, e) < 0)
		return -1;
	json_t *names = r.n && r.v[0].params ? r.v[0].params : NULL;
	const char *pn;
	json_t *pv;
	sb_adds(out, "command,mean,stddev,median,user,system,min,max");
	json_object_foreach(names, pn, pv) {
		sb_adds(out, ",");
		char *h = xasprintf("parameter_%s", pn);
		esc_add(out, ESC_CSV, h);
		free(h);
	}
	sb_addc(out, '\n');
	for (size_t i = 0; i < r.n; i++) {
		const struct an_whole *wp = &r.v[i].ak.wp;
		esc_add(out, ESC_CSV, r.v[i].command);
		const double v[] = { wp->mean, wp->sd, wp->median, isnan(wp->user) ? 0 : wp->user,
				     isnan(wp->sys) ? 0 : wp->sys, wp->min, wp->max };
		for (size_t j = 0; j < ARRAY_SIZE(v); j++)
			isfinite(v[j]) ? sb_addf(out, ",%.17g", v[j]) : sb_adds(out, ",");
		json_object_foreach(names, pn, pv) {
			sb_addc(out, ',');
			esc_add(out, ESC_CSV, json_string_value(json_object_get(r.v[i].params, pn)));
		}
		sb_addc(out, '\n');
	}
	rows_free(&r);
	return 0;
}

const struct kiln_format fmt_hyperfine = {
	.name = "hyperfine",
	.summary = "hyperfine's --export-json: per command mean, stddev, median, user, system, min, max, times, "
		   "exit_codes, parameters",
	.suffix = ".json",
	.sniff = sniff,
	.read = hf_read,
	.write = hf_write,
};

const struct kiln_format fmt_hyperfine_md = {
	.name = "hyperfine-markdown",
	.summary = "hyperfine's --export-markdown table (Command, Mean, Min, Max, Relative)",
	.suffix = ".md",
	.write = md_write,
};

const struct kiln_format fmt_hyperfine_adoc = {
	.name = "hyperfine-asciidoc",
	.summary = "hyperfine's --export-asciidoc table (Command, Mean, Min, Max, Relative)",
	.suffix = ".adoc",
	.write = adoc_write,
};

const struct kiln_format fmt_hyperfine_org = {
	.name = "hyperfine-orgmode",
	.summary = "hyperfine's --export-orgmode table (Command, Mean, Min, Max, Relative)",
	.suffix = ".org",
	.write = org_write,
};

const struct kiln_format fmt_hyperfine_csv = {
	.name = "hyperfine-csv",
	.summary = "hyperfine's --export-csv (command, mean, stddev, median, user, system, min, max, parameter_*)",
	.suffix = ".csv",
	.write = csv_write,
};
