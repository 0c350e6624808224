/*
 * cmd-diff.c - `kiln diff A B [--json] [analysis options]`: what changed
 * between two experiments (a VM before and after a change), key by key:
 * the classification, whether the steady-state confidence intervals
 * overlap, and the ratio B/A of the steady-state means with a bootstrap
 * confidence interval.
 *
 * The ratio's interval: A's and B's bootstrap distributions of the steady
 * mean are made exactly as the report makes them (each pexec's steady
 * segments resampled separately; for a whole-process key, the pexecs'
 * times resampled as one sample, so it is the distribution of the mean
 * across pexecs), B's resamples are shuffled (GSL), and each pair gives
 * one ratio; the median and the --confidence interval of those ratios are
 * reported.  An interval that excludes 1 says "faster"/"slower".
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "analysis.h"
#include "cmd.h"
#include "store.h"
#include "platform.h"
#include "import.h"
#include "report.h"
#include "stats-warmup.h"

static int cmd_diff(int argc, char **argv);

const struct cmd_entry cmd_diff_entry = {
	.name = "diff",
	.usage = "A B [--json] [--key K] [--pool-machines] [analysis options]",
	.summary = "compare two experiments key by key: class, CI overlap, ratio of steady means",
	.help = "A and B are kiln results files, Krun results files or warmup_stats CSVs.\n"
		"  --json             machine-readable output\n"
		"  --key K            only keys matching K ('*' wildcards)\n" CMD_POOL_HELP AN_OPTS_HELP,
	.exec = cmd_diff,
};

static const char *verdict(const struct an_ratio *r)
{
	if (!r->ok)
		return "-";
	if (r->hi < 1)
		return "faster";
	if (r->lo > 1)
		return "slower";
	return "no change";
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

/* what the table cannot show: a delta that may hide warmup, per key and side */
static void print_warnings(const struct strvec *keys, const struct an_result *ra, const struct an_result *rb);

static json_t *jnum_(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
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

static int cmd_diff(int argc, char **argv)
{
	const struct cmd_entry *c = &cmd_diff_entry;
	if (cmd_wants_help(c, argc, argv))
		return 0;
	struct an_opts o;
	an_opts_default(&o);
	struct cmd_an_args args;
	int bad = cmd_an_args(c, argc, argv, &o, 2, NULL, 1, &args, NULL, NULL);
	if (bad)
		return bad;
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
	json_t *jout = json ? json_array() : NULL;
	struct strbuf row = STRBUF_INIT;
	/* the text table's cells, printed once every width is known (padded by display width) */
	enum { DCOLS = 7 }; /* key, class A -> B, A and B steady perf, B/A, overlap, verdict */
	struct strvec cells = STRVEC_INIT;
	static const char *const dtitles[DCOLS] = { "key", "class A -> B", "A steady perf", "B steady perf",
						    "B/A (CI)", "overlap", "verdict" };
	for (int t = 0; t < DCOLS; t++)
		sv_push(&cells, dtitles[t]);
	for (size_t i = 0; i < keys.n; i++) {
		const char *key = keys.v[i];
		const struct an_key *a = find(&ra, key), *b = find(&rb, key);
		struct an_ratio r = { NAN, NAN, NAN, 0 };
		if (a && b)
			r = an_ratio_ci(a, b, &o);
		if (json) {
			json_t *j = json_object();
			json_object_set_new(j, "key", json_string(esc(ESC_JSON, key)));
			json_object_set_new(j, "class_a", a ? json_string(an_class_name(a->cls)) : json_null());
			json_object_set_new(j, "class_b", b ? json_string(an_class_name(b->cls)) : json_null());
			json_object_set_new(j, "class_changed", json_boolean(!a || !b || a->cls != b->cls));
			json_object_set_new(j, "steady_a", a ? json_pack("[ooo]", jnum_(a->perf_med), jnum_(a->perf_lo), jnum_(a->perf_hi)) : json_null());
			json_object_set_new(j, "steady_b", b ? json_pack("[ooo]", jnum_(b->perf_med), jnum_(b->perf_lo), jnum_(b->perf_hi)) : json_null());
			const char *ov = a && b ? overlap(a, b) : "-";
			json_object_set_new(j, "cis_overlap", !strcmp(ov, "-") ? json_null() : json_boolean(!strcmp(ov, "yes")));
			json_object_set_new(j, "ratio", jnum_(r.med));
			json_object_set_new(j, "ratio_ci", r.ok ? json_pack("[ff]", r.lo, r.hi) : json_null());
			json_object_set_new(j, "verdict", json_string(a && b ? verdict(&r) : a ? "only in A" : "only in B"));
			json_object_set_new(j, "whole_process", json_boolean((a && a->whole) || (b && b->whole)));
			json_object_set_new(j, "delta_warning_a", jdelta(a));
			json_object_set_new(j, "delta_warning_b", jdelta(b));
			if (a && b) { /* the verdicts on warmup itself (stats-warmup.h) */
				struct sw_diff wd;
				sw_diff_keys(a, b, &o, &wd);
				json_object_set_new(j, "warmup", sw_json(&wd));
			}
			json_array_append_new(jout, j);
			continue;
		}
		sb_reset(&row);
		sb_addf(&row, "%s -> %s", a ? cls_name(a) : "(absent)", b ? cls_name(b) : "(absent)");
		struct strbuf pa = STRBUF_INIT, pb = STRBUF_INIT, pr = STRBUF_INIT;
		if (a)
			rep_fmt_time_ci(&pa, a->perf_med, a->perf_lo, a->perf_hi);
		if (b)
			rep_fmt_time_ci(&pb, b->perf_med, b->perf_lo, b->perf_hi);
		if (r.ok)
			sb_addf(&pr, "%.4f (%.4f–%.4f)", r.med, r.lo, r.hi);
		else
			sb_adds(&pr, "-");
		sv_push(&cells, esc(ESC_TERM, key));
		sv_push(&cells, row.buf);
		sv_push(&cells, pa.len ? pa.buf : "-");
		sv_push(&cells, pb.len ? pb.buf : "-");
		sv_push(&cells, pr.buf);
		sv_push(&cells, a && b ? overlap(a, b) : "-");
		sv_push(&cells, a && b ? verdict(&r) : a ? "only in A" : "only in B");
		sb_release(&pa);
		sb_release(&pb);
		sb_release(&pr);
	}
	if (json) {
		json_t *root = json_pack("{s:s,s:s,s:o}", "a", esc(ESC_JSON, in[0]), "b", esc(ESC_JSON, in[1]), "keys", jout);
		char *t = json_dumps(root, JSON_INDENT(2) | JSON_REAL_PRECISION(17) | JSON_ENSURE_ASCII);
		puts(t);
		free(t);
		json_decref(root);
	} else {
		print_table(&cells, DCOLS);
		sw_print(&keys, &ra, &rb, &o); /* the verdicts on warmup itself */
		printf("\nB/A: ratio of steady-state means (whole-process keys: of the means over the pexecs), "
		       "bootstrap median and %g%% interval; verdict 'faster'/'slower' when that interval excludes 1.\n",
		       o.confidence * 100);
		print_warnings(&keys, &ra, &rb);
	}
	sb_release(&row);
	sv_clear(&cells);
	sv_clear(&keys);
	an_result_free(&ra);
	an_result_free(&rb);
	ds_free(&da);
	ds_free(&db);
	return rc;
}

static void print_warnings(const struct strvec *keys, const struct an_result *ra, const struct an_result *rb)
{
	struct strbuf sb = STRBUF_INIT;
	int first = 1;
	for (size_t i = 0; i < keys->n; i++) {
		const struct an_key *side[2] = { find(ra, keys->v[i]), find(rb, keys->v[i]) };
		for (int q = 0; q < 2; q++) {
			sb_reset(&sb);
			if (!side[q] || !an_delta_warning(side[q], &sb))
				continue;
			if (first)
				printf("\nwarnings\n");
			first = 0;
			printf("  %s (%c): %s\n", esc(ESC_TERM, keys->v[i]), "AB"[q], sb.buf);
		}
	}
	sb_release(&sb);
}
