/*
 * cmd-audit.c - `kiln audit RESULTS`: what the results file recorded about
 * the machine and the run: kiln, the config, uname, CPU, kernel command
 * line, distribution, VM packages and versions, doctor's findings at the
 * start and at the end, limits and environment; for a cluster run, the
 * same for each task's node (kept by kiln merge).
 */
#include <getopt.h>
#include <jansson.h>
#include <sqlite3.h>
#include <sys/personality.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "store.h"

static int cmd_audit(int argc, char **argv);

const struct cmd_entry cmd_audit_entry = {
	.name = "audit",
	.usage = "RESULTS [--json] [--full]",
	.summary = "show what the results recorded about the machine, the VMs and the run",
	.help = "  --json   the whole audit as JSON (start and end)\n"
		"  --full   also print cpuinfo, environment and limits in the text form\n",
	.exec = cmd_audit,
};

/* a string of the audit, made visible (the audit comes from the results file), or dflt */
static const char *str(json_t *o, const char *k, const char *dflt)
{
	json_t *v = json_object_get(o, k);
	return json_is_string(v) ? esc(ESC_TERM, json_string_value(v)) : dflt;
}

/* an audit value printed as indented JSON, made visible */
static void print_json(json_t *v)
{
	char *s = json_is_string(v) ? xstrdup(json_string_value(v)) : json_dumps(v, JSON_INDENT(2));
	printf("%s\n", esc(ESC_LINES, s));
	free(s);
}

static void print_doctor(const char *title, json_t *a)
{
	json_t *d = json_object_get(a, "doctor");
	if (!json_is_array(d))
		return;
	printf("\n%s:\n", title);
	size_t i;
	json_t *c;
	json_array_foreach(d, i, c) {
		printf("  %-16s %-12s %s\n", str(c, "name", "?"), str(c, "state", "?"),
		       str(c, "value", ""));
	}
}

/* a JSON array of names on one line, made visible */
static void print_names(const char *title, json_t *a)
{
	size_t i;
	json_t *x;
	printf("%s", title);
	json_array_foreach(a, i, x)
		printf("%s%s", i ? ", " : "", json_is_string(x) ? esc(ESC_TERM, json_string_value(x)) : "?");
	printf("%s\n", json_array_size(a) ? "" : "none");
}

/* which of kiln's environment variables the runners got (pass_env), per VM */
static void print_runner_env(json_t *re)
{
	json_t *vms = json_object_get(re, "vms"), *v;
	const char *name;
	if (!json_is_object(vms))
		return;
	printf("\nrunner environment (besides PATH, the config's env and KILN_*):\n");
	json_object_foreach(vms, name, v) {
		char *t = xasprintf("  %s: passed from kiln's (pass_env): ", esc(ESC_TERM, name));
		print_names(t, json_object_get(v, "passed"));
		free(t);
	}
	print_names("  not passed to any: ", json_object_get(re, "not_passed"));
}

/* one machine's audit: start (uname, CPU, VMs, doctor...) and end */
static void print_machine(json_t *all, int full)
{
	json_t *a = json_object_get(all, "start");
	json_t *u = json_object_get(a, "uname");
	if (json_is_object(u))
		printf("machine %s: %s %s %s\n", str(u, "nodename", "?"), str(u, "sysname", ""), str(u, "release", ""),
		       str(u, "machine", ""));
	if (str(a, "cpu_model", NULL))
		printf("cpu %s\n", str(a, "cpu_model", NULL));
	if (str(a, "distribution", NULL))
		printf("distribution %s\n", str(a, "distribution", NULL));
	if (str(a, "cmdline", NULL))
		printf("kernel command line %s\n", str(a, "cmdline", NULL));
	json_t *vms = json_object_get(a, "vms");
	if (vms) {
		printf("\nVMs:\n");
		print_json(vms);
	}
	print_runner_env(json_object_get(a, "runner_env"));
	print_doctor("doctor at the start", a);
	print_doctor("doctor at the end", json_object_get(all, "end"));
	if (full) {
		const char *big[] = { "cpuinfo", "environment", "rlimits" };
		for (size_t i = 0; i < ARRAY_SIZE(big); i++) {
			printf("\n%s:\n", big[i]);
			print_json(json_object_get(a, big[i]));
		}
	}
}

/*
 * What the pexecs' children had, as kiln read it back (or inherited it):
 * {"fixed": N, "randomized": N, "unknown": N}.  The doctor's "aslr" line
 * says what the system does; a run under `setarch -R` or with `aslr: off`
 * fixes the addresses of its children nonetheless.
 */
static json_t *pexec_aslr(struct store *st)
{
	sqlite3_stmt *q;
	long fixed = 0, rnd = 0, unknown = 0;
	if (sqlite3_prepare_v2(store_db(st), "SELECT personality FROM pexecs WHERE status NOT IN ('pending','running')",
			       -1, &q, NULL) != SQLITE_OK)
		return NULL;
	while (sqlite3_step(q) == SQLITE_ROW) {
		if (sqlite3_column_type(q, 0) == SQLITE_NULL || sqlite3_column_int(q, 0) < 0)
			unknown++;
		else if (sqlite3_column_int(q, 0) & ADDR_NO_RANDOMIZE)
			fixed++;
		else
			rnd++;
	}
	sqlite3_finalize(q);
	return json_pack("{s:I, s:I, s:I}", "fixed", (json_int_t)fixed, "randomized", (json_int_t)rnd, "unknown",
			 (json_int_t)unknown);
}

/* a cluster run's tasks' audits, kept by kiln merge as shard:NAME:ENTRY: {NAME: {ENTRY: value}} */
static json_t *shard_audits(struct store *st)
{
	struct strvec names = STRVEC_INIT;
	store_audit_names(st, "shard:", &names);
	json_t *out = names.n ? json_object() : NULL;
	for (size_t i = 0; i < names.n; i++) {
		const char *rest = names.v[i] + strlen("shard:"), *colon = strchr(rest, ':');
		char *v = NULL;
		if (!colon || store_audit_get(st, names.v[i], &v) < 0 || !v)
			continue;
		char *shard = xstrndup(rest, (size_t)(colon - rest));
		const char *sk = esc(ESC_JSON, shard);
		json_t *sh = json_object_get(out, sk);
		if (!sh) {
			sh = json_object();
			json_object_set_new(out, sk, sh);
		}
		json_t *j = json_loads(v, 0, NULL);
		json_object_set_new(sh, esc(ESC_JSON, colon + 1), j ? j : json_string(esc(ESC_JSON, v)));
		free(shard);
		free(v);
	}
	sv_clear(&names);
	return out;
}

static int cmd_audit(int argc, char **argv)
{
	if (cmd_wants_help(&cmd_audit_entry, argc, argv))
		return 0;
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' }, { "full", no_argument, NULL, 'f' }, { NULL, 0, NULL, 0 },
	};
	int json = 0, full = 0, c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 'j')
			json = 1;
		else if (c == 'f')
			full = 1;
		else
			return cmd_usage_error(&cmd_audit_entry, "unknown option");
	}
	if (optind != argc - 1)
		return cmd_usage_error(&cmd_audit_entry, "one RESULTS file is needed");
	struct kerr e = KERR_INIT;
	struct store *st;
	if (store_open(argv[optind], 0, &st, &e) < 0) {
		kerr_print(&e);
		kerr_release(&e);
		return KEXIT_STORE;
	}
	const char *names[] = { "start", "end", "tune_saved", "sanity" };
	json_t *all = json_object();
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		char *v = NULL;
		if (store_audit_get(st, names[i], &v) == 0 && v) {
			json_t *j = json_loads(v, 0, NULL);
			json_object_set_new(all, names[i], j ? j : json_string(esc(ESC_JSON, v)));
		}
		free(v);
	}
	const char *meta[] = { "name", "kiln_version", "config_path", "config_hash", "seed", "order", "started", "ended" };
	json_t *m = json_object();
	for (size_t i = 0; i < ARRAY_SIZE(meta); i++) {
		char *v = NULL;
		if (store_meta_get(st, meta[i], &v) == 0 && v)
			json_object_set_new(m, meta[i], json_string(esc(ESC_JSON, v)));
		free(v);
	}
	json_object_set_new(all, "experiment", m);
	json_t *aslr = pexec_aslr(st);
	if (aslr)
		json_object_set_new(all, "pexec_aslr", aslr);
	json_t *shards = shard_audits(st);
	if (shards)
		json_object_set_new(all, "shards", shards);
	if (json) {
		char *s = json_dumps(all, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_ENSURE_ASCII);
		puts(s);
		free(s);
	} else {
		printf("experiment %s (config %s, sha256 %.16s...), seed %s, order %s\n", str(m, "name", "?"),
		       str(m, "config_path", "?"), str(m, "config_hash", "?"),
		       str(m, "seed", "?"), str(m, "order", "?"));
		printf("kiln %s, started %s, ended %s\n", str(m, "kiln_version", "?"),
		       str(m, "started", "?"), str(m, "ended", "(not finished)"));
		if (aslr)
			printf("pexecs' address space: %lld fixed (ADDR_NO_RANDOMIZE), %lld randomized, %lld unknown\n",
			       (long long)json_integer_value(json_object_get(aslr, "fixed")),
			       (long long)json_integer_value(json_object_get(aslr, "randomized")),
			       (long long)json_integer_value(json_object_get(aslr, "unknown")));
		if (json_is_object(json_object_get(all, "start")))
			print_machine(all, full);
		else if (!shards)
			printf("(no audit recorded: results imported or from an older kiln)\n");
		const char *name;
		json_t *sh;
		json_object_foreach(shards, name, sh) {
			json_t *t = json_object_get(sh, "task");
			printf("\n== cluster task %s on %s (kiln exit %s)\n", esc(ESC_TERM, name), str(t, "machine", "?"),
			       str(t, "task_exit", "?"));
			if (json_is_object(json_object_get(sh, "start")))
				print_machine(sh, full);
		}
	}
	json_decref(all);
	store_close(st);
	return 0;
}
