/*
 * cmd-merge.c - `kiln merge RESULTS [SHARD...]`: fold the shards of a
 * cluster run into the experiment's results file (merge.c does it).  Also
 * run by Slurm when a job array ends and by every `kiln run --slurm`.
 */
#include <getopt.h>
#include <jansson.h>
#include <stdlib.h>

#include "cmd.h"
#include "history.h"
#include "merge.h"

static int cmd_merge(int argc, char **argv);

const struct cmd_entry cmd_merge_entry = {
	.name = "merge",
	.usage = "RESULTS [SHARD...] [--json] [-q]\n       kiln merge HISTORY OTHER... [-q]",
	.summary = "merge a cluster run's shards into its results file",
	.help = "RESULTS is the experiment's results file; SHARD a shard of it (default: every\n"
		"shard it gave out, in <stem>.shards/).  A shard of another config, of another\n"
		"results file or schedule, or holding pexecs it was not given, is refused; every\n"
		"pexec is merged once, so merging again changes nothing.  A history (kiln track's)\n"
		"takes other histories: their machines' runs are added (docs/history.md).\n"
		"  --json      what was merged, per shard, as JSON\n"
		"  -q, --quiet only errors\n"
		"\nExit status: 0 all merged, 2 usage, 3 a shard refused (another config, schedule or\n"
		"provenance), 4 results in use, 5 a shard or the results file unusable.\n",
	.exec = cmd_merge,
};

static json_t *result_json(const struct merge_result *mr)
{
	json_t *sh = json_array();
	for (size_t i = 0; i < mr->n; i++) {
		const struct merge_shard *m = &mr->v[i];
		json_array_append_new(sh, json_pack("{s:s,s:s,s:o,s:I,s:I,s:I,s:I,s:o}", "shard", esc(ESC_JSON, m->name),
						    "path", esc(ESC_JSON, m->path),
						    "machine", m->machine ? json_string(esc(ESC_JSON, m->machine)) : json_null(),
						    "merged", (json_int_t)m->merged, "merged_before", (json_int_t)m->before,
						    "duplicates", (json_int_t)m->duplicates, "unfinished",
						    (json_int_t)m->unfinished,
						    "refused", m->refused ? json_string(esc(ESC_JSON, m->why)) : json_null()));
	}
	return json_pack("{s:o,s:I,s:I}", "shards", sh, "done", (json_int_t)mr->done, "pexecs", (json_int_t)mr->total);
}

static void print_text(const char *results, const struct merge_result *mr)
{
	for (size_t i = 0; i < mr->n; i++) {
		const struct merge_shard *m = &mr->v[i];
		if (m->refused)
			continue;
		printf("%s (%s): %ld merged", esc(ESC_TERM, m->name), esc(ESC_TERM, m->machine ? m->machine : "never started"),
		       m->merged);
		if (m->before)
			printf(", %ld before", m->before);
		if (m->duplicates)
			printf(", %ld ran twice (the results' own kept)", m->duplicates);
		if (m->unfinished)
			printf(", %ld not finished (still pending)", m->unfinished);
		printf("\n");
	}
	printf("%s: %ld of %ld pexecs done\n", esc(ESC_TERM, results), mr->done, mr->total);
}

static int cmd_merge(int argc, char **argv)
{
	if (cmd_wants_help(&cmd_merge_entry, argc, argv))
		return 0;
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' }, { "quiet", no_argument, NULL, 'q' }, { NULL, 0, NULL, 0 },
	};
	int json = 0, quiet = 0, c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "q", opts, NULL)) != -1) {
		if (c == 'j')
			json = 1;
		else if (c == 'q')
			quiet = 1;
		else
			return cmd_usage_error(&cmd_merge_entry, "unknown option");
	}
	if (optind >= argc)
		return cmd_usage_error(&cmd_merge_entry, "RESULTS is needed");
	const char *results = argv[optind];
	struct strvec shards = STRVEC_INIT;
	for (int i = optind + 1; i < argc; i++)
		sv_push(&shards, argv[i]);
	/* kiln track's histories merge too (history-merge.c) */
	if (file_exists(results) && history_is_history(results)) {
		int hc = shards.n ? history_merge(results, &shards, quiet)
				  : cmd_usage_error(&cmd_merge_entry, "a history merges other histories: name them");
		sv_clear(&shards);
		return hc;
	}
	struct kerr e = KERR_INIT;
	struct store *st = NULL;
	struct merge_result mr = { 0 };
	int code = KEXIT_OK;
	/* a writable open would make an empty results file of a wrong name */
	if (!file_exists(results))
		code = kerr_setc(&e, KEXIT_STORE, "%s: no such results file", results) < 0 ? KEXIT_STORE : 0;
	else if (store_open(results, 1, &st, &e) < 0 || store_lock(st, &e) < 0 || merge_shards(st, &shards, &mr, &e) < 0)
		code = e.code ? e.code : KEXIT_STORE;
	if (code == KEXIT_OK) {
		for (size_t i = 0; i < mr.n; i++)
			if (mr.v[i].refused)
				kiln_error("%s: not merged: %s", mr.v[i].path, mr.v[i].why);
		if (json) {
			json_t *j = result_json(&mr);
			char *s = json_dumps(j, JSON_INDENT(2) | JSON_ENSURE_ASCII);
			puts(s);
			free(s);
			json_decref(j);
		} else if (!quiet) {
			print_text(results, &mr);
		}
		code = merge_exit_code(&mr);
	} else {
		kerr_print(&e);
	}
	merge_result_free(&mr);
	store_close(st);
	sv_clear(&shards);
	kerr_release(&e);
	return code;
}
