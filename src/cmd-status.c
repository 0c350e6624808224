/*
 * cmd-status.c - `kiln status RESULTS`: how far an experiment is, per key,
 * with an ETA from the pexecs done so far; --json for scripts.  Works while
 * a run is going on (it only reads).  For a cluster run it adds each task's
 * node, state and progress (cluster-status.c).
 */
#include <getopt.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "cmd.h"
#include "schedule.h"
#include "store.h"
#include <sqlite3.h>

static int cmd_status(int argc, char **argv);

const struct cmd_entry cmd_status_entry = {
	.name = "status",
	.usage = "RESULTS [--json] [--failures]",
	.summary = "done, pending and failed pexecs per key, with an ETA",
	.help = "  --json       machine-readable output\n"
		"  --failures   also print the error and the captured output tail of each failed pexec\n",
	.exec = cmd_status,
};

static void print_failures(struct store *st)
{
	sqlite3_stmt *q;
	struct sqlite3 *db = store_db(st);
	if (sqlite3_prepare_v2(db, "SELECT k.bench, k.vm, k.variant, p.num, p.status, p.error, p.stderr, p.instr_error"
			       " FROM pexecs p JOIN keys k ON k.id = p.key_id WHERE p.status IN ('failed','timeout','tainted')"
			       " OR (p.instr_error IS NOT NULL AND p.instr_error != '') ORDER BY p.seq", -1, &q, NULL) != SQLITE_OK)
		return;
	/* all of it from the file (the stderr from the benchmark): made visible */
	while (sqlite3_step(q) == SQLITE_ROW) {
		const char *stat = (const char *)sqlite3_column_text(q, 4), *ie = (const char *)sqlite3_column_text(q, 7);
		int bad = strcmp(stat, "ok") != 0;
		printf("\n%s:%s:%s pexec %lld: %s", esc(ESC_TERM, (const char *)sqlite3_column_text(q, 0)),
		       esc(ESC_TERM, (const char *)sqlite3_column_text(q, 1)),
		       esc(ESC_TERM, (const char *)sqlite3_column_text(q, 2)), (long long)sqlite3_column_int64(q, 3),
		       esc(ESC_TERM, stat));
		if (bad)
			printf(": %s", esc(ESC_TERM, (const char *)sqlite3_column_text(q, 5)));
		printf("\n");
		/* the parser's complaint: the pexec's iterations are kept, its instrumentation is not */
		if (ie && *ie)
			printf("  instrumentation parser: %s\n", esc(ESC_TERM, ie));
		if (!bad)
			continue;
		int n = sqlite3_column_bytes(q, 6);
		const char *t = sqlite3_column_blob(q, 6);
		if (n > 0) {
			int from = n > 2000 ? n - 2000 : 0;
			struct strbuf tail = STRBUF_INIT;
			esc_addn(&tail, ESC_LINES, t + from, (size_t)(n - from));
			printf("  stderr%s:\n%s\n", from ? " (tail)" : "", tail.buf);
			sb_release(&tail);
		}
	}
	sqlite3_finalize(q);
}

/* the key's programs (provenance) as JSON: seq, hash, since, finished pexecs */
static json_t *programs_json(const struct store_program *pg, size_t n, long kid)
{
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++)
		if (pg[i].key_id == kid)
			json_array_append_new(a, json_pack("{s:I, s:s, s:s?, s:I}", "seq", (json_int_t)pg[i].seq, "hash",
							   esc(ESC_JSON, pg[i].hash), "since", pg[i].since,
							   "pexecs", (json_int_t)pg[i].pexecs));
	return a;
}

/* a key that ran more than one program, as reports show it: KEY, KEY#2, ... */
static void print_programs(const struct schedule *sc, const struct store_program *pg, size_t n)
{
	for (size_t k = 0; k < sc->nkeys; k++) {
		size_t ran = 0;
		struct strbuf sb = STRBUF_INIT;
		char *kn = schedule_key_name(&sc->keys[k]);
		for (size_t i = 0; i < n; i++) {
			if (pg[i].key_id != sc->keys[k].id || !pg[i].pexecs)
				continue;
			if (ran++)
				sb_addf(&sb, ", %s#%ld: %ld pexec(s)", esc(ESC_TERM, kn), pg[i].seq, pg[i].pexecs);
			else
				sb_addf(&sb, "%s: %ld pexec(s)", esc(ESC_TERM, kn), pg[i].pexecs);
		}
		if (ran > 1)
			printf("%s: %zu programs (its provenance changed and kiln run --force went on), shown apart: %s\n",
			       esc(ESC_TERM, kn), ran, sb.buf);
		sb_release(&sb);
		free(kn);
	}
}

/* what status shows, read once from the results file */
struct status_view {
	const char *path;
	struct store *st;
	struct schedule sc;
	struct key_status *ks;
	long finished, remaining;
	double eta;                /* seconds, -1: unknown */
	struct store_program *pg;
	size_t npg;
	char *name, *started, *ended;
};

static int status_load(struct status_view *v, struct kerr *e)
{
	if (store_load_schedule(v->st, &v->sc, e) < 0 || store_status(v->st, &v->sc, &v->ks, e) < 0)
		return -1;
	long tot[6] = { 0 };
	double secs = 0;
	for (size_t k = 0; k < v->sc.nkeys; k++) {
		for (int s = 0; s < 6; s++)
			tot[s] += v->ks[k].n[s];
		secs += v->ks[k].seconds;
	}
	v->finished = tot[PX_OK] + tot[PX_FAILED] + tot[PX_TIMEOUT] + tot[PX_TAINTED];
	v->remaining = tot[PX_PENDING] + tot[PX_RUNNING];
	v->eta = v->finished ? secs / (double)v->finished * (double)v->remaining : -1;
	store_programs(v->st, 0, &v->pg, &v->npg, NULL);
	store_meta_get(v->st, "name", &v->name);
	store_meta_get(v->st, "started", &v->started);
	store_meta_get(v->st, "ended", &v->ended);
	return 0;
}

static void status_json(const struct status_view *v)
{
	json_t *o = json_object(), *keys = json_array();
	json_object_set_new(o, "experiment", json_string(esc(ESC_JSON, v->name)));
	json_object_set_new(o, "started", v->started ? json_string(esc(ESC_JSON, v->started)) : json_null());
	json_object_set_new(o, "ended", v->ended ? json_string(esc(ESC_JSON, v->ended)) : json_null());
	for (size_t k = 0; k < v->sc.nkeys; k++) {
		json_t *ko = json_object();
		char *kn = schedule_key_name(&v->sc.keys[k]);
		json_object_set_new(ko, "key", json_string(esc(ESC_JSON, kn)));
		free(kn);
		for (int s = 0; s < 6; s++)
			json_object_set_new(ko, pexec_status_name((enum pexec_status)s), json_integer(v->ks[k].n[s]));
		json_object_set_new(ko, "programs", programs_json(v->pg, v->npg, v->sc.keys[k].id));
		json_array_append_new(keys, ko);
	}
	json_object_set_new(o, "keys", keys);
	json_object_set_new(o, "pexecs", json_integer((json_int_t)v->sc.n));
	json_object_set_new(o, "finished", json_integer(v->finished));
	json_object_set_new(o, "remaining", json_integer(v->remaining));
	json_object_set_new(o, "eta_s", v->eta < 0 ? json_null() : json_real(v->eta));
	json_t *cs = cluster_status(v->st);
	if (cs)
		json_object_set_new(o, "cluster", cs);
	char *s = json_dumps(o, JSON_INDENT(2) | JSON_ENSURE_ASCII);
	puts(s);
	free(s);
	json_decref(o);
}

/* one row per key, padded by the columns the keys take on a terminal, not their bytes */
static void status_table(const struct status_view *v)
{
	size_t kw = 3;
	for (size_t k = 0; k < v->sc.nkeys; k++) {
		char *kn = schedule_key_name(&v->sc.keys[k]);
		size_t w = display_width(esc(ESC_TERM, kn));
		kw = w > kw ? w : kw;
		free(kn);
	}
	struct strbuf line = STRBUF_INIT;
	sb_pad(&line, "key", kw);
	printf("%s %6s %7s %6s %7s %7s\n", line.buf, "ok", "pending", "failed", "timeout", "tainted");
	for (size_t k = 0; k < v->sc.nkeys; k++) {
		const struct key_status *ks = &v->ks[k];
		char *kn = schedule_key_name(&v->sc.keys[k]);
		sb_reset(&line);
		sb_pad(&line, esc(ESC_TERM, kn), kw);
		printf("%s %6ld %7ld %6ld %7ld %7ld\n", line.buf, ks->n[PX_OK], ks->n[PX_PENDING] + ks->n[PX_RUNNING],
		       ks->n[PX_FAILED], ks->n[PX_TIMEOUT], ks->n[PX_TAINTED]);
		free(kn);
	}
	sb_release(&line);
}

static void status_text(const struct status_view *v, int failures)
{
	printf("%s: %s, started %s%s%s\n", esc(ESC_TERM, v->path), v->name ? esc(ESC_TERM, v->name) : "?",
	       v->started ? esc(ESC_TERM, v->started) : "?", v->ended ? ", ended " : "", esc(ESC_TERM, v->ended));
	status_table(v);
	printf("%ld of %zu pexecs done", v->finished, v->sc.n);
	if (v->remaining && v->eta >= 0) {
		struct strbuf d = STRBUF_INIT;
		fmt_duration(&d, v->eta);
		printf(", about %s to go", d.buf);
		sb_release(&d);
	}
	printf("\n");
	json_t *cs = cluster_status(v->st);
	if (cs) {
		cluster_status_print(stdout, cs);
		json_decref(cs);
	}
	print_programs(&v->sc, v->pg, v->npg);
	if (failures)
		print_failures(v->st);
}

static void status_free(struct status_view *v)
{
	store_programs_free(v->pg, v->npg);
	free(v->name);
	free(v->started);
	free(v->ended);
	free(v->ks);
	schedule_free(&v->sc);
	store_close(v->st);
}

static int cmd_status(int argc, char **argv)
{
	if (cmd_wants_help(&cmd_status_entry, argc, argv))
		return 0;
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' }, { "failures", no_argument, NULL, 'F' }, { NULL, 0, NULL, 0 },
	};
	int json = 0, failures = 0, c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 'j')
			json = 1;
		else if (c == 'F')
			failures = 1;
		else
			return cmd_usage_error(&cmd_status_entry, "unknown option");
	}
	if (optind != argc - 1)
		return cmd_usage_error(&cmd_status_entry, "one RESULTS file is needed");
	struct kerr e = KERR_INIT;
	struct status_view v;
	memset(&v, 0, sizeof(v));
	v.path = argv[optind];
	int code = KEXIT_OK;
	if (store_open(v.path, 0, &v.st, &e) < 0) {
		kerr_print(&e);
		code = e.code;
	} else if (status_load(&v, &e) < 0) {
		kerr_print(&e);
		code = KEXIT_STORE;
		status_free(&v);
	} else {
		if (json)
			status_json(&v);
		else
			status_text(&v, failures);
		status_free(&v);
	}
	kerr_release(&e);
	return code;
}
