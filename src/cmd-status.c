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
	struct store *st;
	struct schedule sc;
	struct key_status *ks = NULL;
	if (store_open(argv[optind], 0, &st, &e) < 0) {
		kerr_print(&e);
		int code = e.code;
		kerr_release(&e);
		return code;
	}
	if (store_load_schedule(st, &sc, &e) < 0 || store_status(st, &sc, &ks, &e) < 0) {
		kerr_print(&e);
		kerr_release(&e);
		schedule_free(&sc);
		store_close(st);
		return KEXIT_STORE;
	}
	long tot[6] = { 0 };
	double secs = 0;
	for (size_t k = 0; k < sc.nkeys; k++) {
		for (int s = 0; s < 6; s++)
			tot[s] += ks[k].n[s];
		secs += ks[k].seconds;
	}
	long finished = tot[PX_OK] + tot[PX_FAILED] + tot[PX_TIMEOUT] + tot[PX_TAINTED];
	long remaining = tot[PX_PENDING] + tot[PX_RUNNING];
	double eta = finished ? secs / (double)finished * (double)remaining : -1;
	struct store_program *pg = NULL;
	size_t npg = 0;
	store_programs(st, 0, &pg, &npg, NULL);
	char *name = NULL, *started = NULL, *ended = NULL;
	store_meta_get(st, "name", &name);
	store_meta_get(st, "started", &started);
	store_meta_get(st, "ended", &ended);

	if (json) {
		json_t *o = json_object(), *keys = json_array();
		json_object_set_new(o, "experiment", json_string(esc(ESC_JSON, name)));
		json_object_set_new(o, "started", started ? json_string(esc(ESC_JSON, started)) : json_null());
		json_object_set_new(o, "ended", ended ? json_string(esc(ESC_JSON, ended)) : json_null());
		for (size_t k = 0; k < sc.nkeys; k++) {
			json_t *ko = json_object();
			char *kn = schedule_key_name(&sc.keys[k]);
			json_object_set_new(ko, "key", json_string(esc(ESC_JSON, kn)));
			free(kn);
			for (int s = 0; s < 6; s++)
				json_object_set_new(ko, pexec_status_name((enum pexec_status)s), json_integer(ks[k].n[s]));
			json_object_set_new(ko, "programs", programs_json(pg, npg, sc.keys[k].id));
			json_array_append_new(keys, ko);
		}
		json_object_set_new(o, "keys", keys);
		json_object_set_new(o, "pexecs", json_integer((json_int_t)sc.n));
		json_object_set_new(o, "finished", json_integer(finished));
		json_object_set_new(o, "remaining", json_integer(remaining));
		json_object_set_new(o, "eta_s", eta < 0 ? json_null() : json_real(eta));
		json_t *cs = cluster_status(st);
		if (cs)
			json_object_set_new(o, "cluster", cs);
		char *s = json_dumps(o, JSON_INDENT(2) | JSON_ENSURE_ASCII);
		puts(s);
		free(s);
		json_decref(o);
	} else {
		printf("%s: %s, started %s%s%s\n", esc(ESC_TERM, argv[optind]), name ? esc(ESC_TERM, name) : "?",
		       started ? esc(ESC_TERM, started) : "?", ended ? ", ended " : "", esc(ESC_TERM, ended));
		/* keys padded by the columns they take on a terminal, not their bytes */
		size_t kw = 3;
		for (size_t k = 0; k < sc.nkeys; k++) {
			char *kn = schedule_key_name(&sc.keys[k]);
			size_t w = display_width(esc(ESC_TERM, kn));
			kw = w > kw ? w : kw;
			free(kn);
		}
		struct strbuf line = STRBUF_INIT;
		sb_pad(&line, "key", kw);
		printf("%s %6s %7s %6s %7s %7s\n", line.buf, "ok", "pending", "failed", "timeout", "tainted");
		for (size_t k = 0; k < sc.nkeys; k++) {
			char *kn = schedule_key_name(&sc.keys[k]);
			sb_reset(&line);
			sb_pad(&line, esc(ESC_TERM, kn), kw);
			printf("%s %6ld %7ld %6ld %7ld %7ld\n", line.buf, ks[k].n[PX_OK],
			       ks[k].n[PX_PENDING] + ks[k].n[PX_RUNNING], ks[k].n[PX_FAILED], ks[k].n[PX_TIMEOUT],
			       ks[k].n[PX_TAINTED]);
			free(kn);
		}
		printf("%ld of %zu pexecs done", finished, sc.n);
		if (remaining && eta >= 0) {
			sb_reset(&line);
			fmt_duration(&line, eta);
			printf(", about %s to go", line.buf);
		}
		printf("\n");
		sb_release(&line);
		json_t *cs = cluster_status(st);
		if (cs) {
			cluster_status_print(stdout, cs);
			json_decref(cs);
		}
		print_programs(&sc, pg, npg);
		if (failures)
			print_failures(st);
	}
	store_programs_free(pg, npg);
	free(name);
	free(started);
	free(ended);
	free(ks);
	schedule_free(&sc);
	store_close(st);
	kerr_release(&e);
	return KEXIT_OK;
}
