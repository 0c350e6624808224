/*
 * cmd-track.c - `kiln track`: measure a VM at the commits of its
 * repository into a history (history-track.c), print the changes found
 * in a history (--changes, history-detect.c), or compare two commits for a
 * pull request (--compare, history-compare.c).
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "cmd.h"
#include "history-track.h"
#include "history-cmd.h"

static int cmd_track(int argc, char **argv);

const struct cmd_entry cmd_track_entry = {
	.name = "track",
	.usage = "CONFIG --repo DIR [A..B | REV | --new [REV] | --hashes FILE] [--steps N] [-o HISTORY]\n"
		 "                  [--machine NAME] [--benchmarks B,...] [--key K]... [--repeat] [--order spread|oldest]\n"
		 "                  [--interleave W|all] [--max-commits N] [--force] [--keep-results] [--clock wall|cpu] [-q]\n"
		 "       kiln track --changes HISTORY [--key K]... [--machine NAME] [--json]\n"
		 "       kiln track --reanalyse HISTORY [--clock wall|cpu]\n"
		 "       kiln track CONFIG --repo DIR --compare BASE HEAD [--threshold P%] [--warmup-threshold P%]\n"
		 "                  [--pexecs N] [-o HISTORY]",
	.summary = "measure a VM at each commit of its repository into a history; its changes",
	.help = "Each commit (first-parent, oldest to newest) is checked out cleanly in HISTORY.work/src,\n"
		"the config read with {src} standing for that folder, the VM's build steps run, and the\n"
		"experiment run as `kiln run` would; the results go into HISTORY (one SQLite file,\n"
		"docs/history.md). A failed build is recorded and skipped; an interrupted track resumes.\n"
		"  --repo DIR          the VM's git repository (never written to)\n"
		"  A..B | REV          the first-parent commits after A up to B, or one commit (default HEAD)\n"
		"  --new               from the newest commit this machine tracked to REV (default HEAD)\n"
		"  --hashes FILE       the commits of a file, one revision a line\n"
		"  --steps N           N commits spread evenly over the range, its ends included\n"
		"  -o, --history FILE  the history (default <config stem>.history.db beside the config)\n"
		"  --machine NAME      this machine's name in the history (default the host name)\n"
		"  --benchmarks LIST   only these benchmarks (comma-separated, * wildcards)\n"
		"  -k, --key K         only keys matching K (bench[:vm[:variant]], repeatable)\n"
		"  --repeat            measure commits already tracked again (repeats are A/A data)\n"
		"  --order ORDER       spread (default: ends first, then each gap halved: a drift of the\n"
		"                      machine is not laid along the series) or oldest (in history order)\n"
		"  --interleave W      W neighbouring commits at a time (all: every commit of the range),\n"
		"                      each in its own checkout (HISTORY.work/at/HASH), their pexecs in\n"
		"                      rounds: a moment of the machine falls on them alike (default 1:\n"
		"                      one commit at a time)\n"
		"  --max-commits N     stop after N commits not tracked before (the same command goes on)\n"
		"  --force             track on although the config changed since the history began\n"
		"  --keep-results      keep each commit's results file in HISTORY.work/runs\n"
		"  --clock CLOCK       what times an iteration in the history's figures: wall (default) or\n"
		"                      cpu, the process's CPU time in it (a shared machine; runners that\n"
		"                      report it); chosen by a history's first track\n"
		"  --reanalyse HISTORY every run's figures made again (with --clock: on that clock)\n"
		"  -q, --quiet         no progress\n"
		"  --changes HISTORY   the changes found in a history, per key, and the smallest steady\n"
		"                      step each key's series could have shown (docs/kiln-track.md)\n"
		"  --json              --changes or --compare as JSON\n"
		"  --compare BASE HEAD measure BASE and HEAD interleaved and print a Markdown summary for a\n"
		"                      pull request; exit 1 when a key is slower beyond --threshold, or\n"
		"                      its warm-up longer beyond --warmup-threshold\n"
		"  --threshold P%      --compare: the regression that fails it (default 2%)\n"
		"  --warmup-threshold P%  --compare: the longer warm-up that fails it, of 1 + the warm-up in\n"
		"                      steady iterations (default 35%, as kiln track's detection)\n"
		"  --pexecs N          --compare: rounds of one pexec each (default the config's pexecs)\n"
		"\nExit status: 0 done (failed builds included: they are recorded), 1 --compare found a\n"
		"regression (or a key with no data on head), 2 usage, 3 config, 4 history in use,\n"
		"5 history unusable, 130 interrupted.\n",
	.exec = cmd_track,
};

/* the comma-separated items of s pushed onto sv */
static void split_list(struct strvec *sv, const char *s)
{
	const char *p = s;
	while (*p) {
		size_t n = strcspn(p, ",");
		if (n) {
			char *t = xstrndup(p, n);
			sv_push(sv, t);
			free(t);
		}
		p += n + (p[n] == ',');
	}
}

enum { O_REPO = 256, O_NEW, O_HASHES, O_STEPS, O_MACHINE, O_BENCH, O_REPEAT, O_ORDER, O_MAX, O_FORCE, O_KEEP,
       O_CHANGES, O_JSON, O_COMPARE, O_THRESHOLD, O_WARM_THRESHOLD, O_PEXECS, O_CLOCK, O_REANALYSE, O_INTERLEAVE };

struct track_args {
	struct track_opts t;
	const char *changes;
	const char *reanalyse;
	int json;
	const char *compare;       /* BASE (HEAD is the next word) */
	struct compare_opts cmp;
	struct strvec pos;
};

/* "P%" or "P" above 0 and below 1000, as a share (2% -> 0.02); -1 when not */
static int parse_share(const char *text, double *v)
{
	char *t = xstrdup(text);
	size_t n = strlen(t);
	if (n && t[n - 1] == '%')
		t[n - 1] = '\0';
	int bad = parse_double(t, v) < 0 || !(*v > 0 && *v < 1000);
	free(t);
	*v /= 100;
	return bad ? -1 : 0;
}

static int parse_args(int argc, char **argv, struct track_args *a)
{
	static const struct option opts[] = {
		{ "repo", required_argument, NULL, O_REPO }, { "new", no_argument, NULL, O_NEW },
		{ "hashes", required_argument, NULL, O_HASHES }, { "steps", required_argument, NULL, O_STEPS },
		{ "history", required_argument, NULL, 'o' }, { "machine", required_argument, NULL, O_MACHINE },
		{ "benchmarks", required_argument, NULL, O_BENCH }, { "key", required_argument, NULL, 'k' },
		{ "repeat", no_argument, NULL, O_REPEAT }, { "order", required_argument, NULL, O_ORDER },
		{ "max-commits", required_argument, NULL, O_MAX }, { "force", no_argument, NULL, O_FORCE },
		{ "keep-results", no_argument, NULL, O_KEEP }, { "quiet", no_argument, NULL, 'q' },
		{ "changes", required_argument, NULL, O_CHANGES }, { "json", no_argument, NULL, O_JSON },
		{ "compare", required_argument, NULL, O_COMPARE }, { "threshold", required_argument, NULL, O_THRESHOLD },
		{ "warmup-threshold", required_argument, NULL, O_WARM_THRESHOLD },
		{ "pexecs", required_argument, NULL, O_PEXECS }, { "clock", required_argument, NULL, O_CLOCK },
		{ "reanalyse", required_argument, NULL, O_REANALYSE }, { "interleave", required_argument, NULL, O_INTERLEAVE },
		{ NULL, 0, NULL, 0 },
	};
	const struct cmd_entry *c = &cmd_track_entry;
	int ch;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "o:k:q", opts, NULL)) != -1) {
		switch (ch) {
		case O_REPO: a->t.repo = optarg; break;
		case O_NEW: a->t.new_only = 1; break;
		case O_HASHES: a->t.hashes_file = optarg; break;
		case 'o': a->t.history = optarg; break;
		case O_MACHINE: a->t.machine = optarg; break;
		case O_BENCH: split_list(&a->t.benchmarks, optarg); break;
		case 'k': sv_push(&a->t.keys, optarg); break;
		case O_REPEAT: a->t.repeat = 1; break;
		case O_FORCE: a->t.force = 1; break;
		case O_KEEP: a->t.keep_results = 1; break;
		case 'q': a->t.quiet = 1; break;
		case O_CHANGES: a->changes = optarg; break;
		case O_JSON: a->json = 1; break;
		case O_COMPARE: a->compare = optarg; break;
		case O_REANALYSE: a->reanalyse = optarg; break;
		case O_CLOCK:
			if (strcmp(optarg, "wall") && strcmp(optarg, "cpu"))
				return cmd_usage_error(c, "--clock is wall or cpu, not '%s'", optarg);
			a->t.clock = optarg;
			break;
		case O_STEPS:
			if (parse_long(optarg, &a->t.steps) < 0 || a->t.steps < 1)
				return cmd_usage_error(c, "--steps needs a positive number");
			break;
		case O_INTERLEAVE:
			if (!strcmp(optarg, "all"))
				a->t.interleave = TRACK_INTERLEAVE_ALL;
			else if (parse_long(optarg, &a->t.interleave) < 0 || a->t.interleave < 1 || a->t.interleave > 100000)
				return cmd_usage_error(c, "--interleave needs a number of commits from 1 to 100000, or all");
			break;
		case O_MAX:
			if (parse_long(optarg, &a->t.max_commits) < 0 || a->t.max_commits < 1)
				return cmd_usage_error(c, "--max-commits needs a positive number");
			break;
		case O_PEXECS:
			if (parse_long(optarg, &a->cmp.pexecs) < 0 || a->cmp.pexecs < 2 || a->cmp.pexecs > 10000)
				return cmd_usage_error(c, "--pexecs needs a number from 2 to 10000");
			break;
		case O_THRESHOLD:
			if (parse_share(optarg, &a->cmp.threshold) < 0)
				return cmd_usage_error(c, "--threshold needs a percentage, such as 2%%");
			break;
		case O_WARM_THRESHOLD:
			if (parse_share(optarg, &a->cmp.warm_threshold) < 0)
				return cmd_usage_error(c, "--warmup-threshold needs a percentage, such as 35%%");
			break;
		case O_ORDER:
			if (!strcmp(optarg, "spread"))
				a->t.order = TRACK_SPREAD;
			else if (!strcmp(optarg, "oldest"))
				a->t.order = TRACK_OLDEST;
			else
				return cmd_usage_error(c, "--order is spread or oldest, not '%s'", optarg);
			break;
		default:
			return cmd_usage_error(c, "unknown option");
		}
	}
	for (int i = optind; i < argc; i++)
		sv_push(&a->pos, argv[i]);
	return 0;
}

static int run_track(struct track_args *a)
{
	const struct cmd_entry *c = &cmd_track_entry;
	if (a->pos.n < 1)
		return cmd_usage_error(c, "a CONFIG is needed");
	if (!a->t.repo)
		return cmd_usage_error(c, "--repo DIR is needed: the VM's repository");
	a->t.config = a->pos.v[0];
	if (a->pos.n > 2)
		return cmd_usage_error(c, "one range or revision, not %zu", a->pos.n - 1);
	a->t.range = a->pos.n == 2 ? a->pos.v[1] : NULL;
	if (a->t.hashes_file && (a->t.range || a->t.new_only))
		return cmd_usage_error(c, "--hashes names the commits itself: no range or --new with it");
	if (a->t.new_only && a->t.range && strstr(a->t.range, ".."))
		return cmd_usage_error(c, "--new starts at the newest tracked commit: give it one revision, not a range");
	struct track_summary sum;
	struct kerr e = KERR_INIT;
	int code = track_run(&a->t, &sum, &e);
	if (code != KEXIT_OK)
		kerr_print(&e);
	else if (!a->t.quiet) {
		char with[64] = "";
		if (sum.partial)
			snprintf(with, sizeof(with), " (%zu with errors, above)", sum.partial);
		kiln_note("%zu commits: %zu measured%s, %zu failed (recorded), %zu tracked before", sum.commits,
			  sum.measured, with, sum.failed, sum.skipped);
		/* the morning after: the changes the commits measured now are in */
		if (sum.hashes.n)
			track_new_changes(sum.history, &sum.hashes, a->t.machine);
	}
	sv_clear(&sum.hashes);
	free(sum.history);
	kerr_release(&e);
	return code;
}

static int cmd_track(int argc, char **argv)
{
	if (cmd_wants_help(&cmd_track_entry, argc, argv))
		return 0;
	struct track_args a;
	memset(&a, 0, sizeof(a));
	track_opts_init(&a.t);
	a.cmp.threshold = 0.02;
	a.cmp.warm_threshold = 0.35;
	int code = parse_args(argc, argv, &a);
	/* git runs in other folders: the repository by its absolute path */
	char *repo = a.t.repo ? abspath(a.t.repo) : NULL;
	a.t.repo = repo;
	if (code == 0 && a.reanalyse)
		code = a.pos.n ? cmd_usage_error(&cmd_track_entry, "--reanalyse reads a history: no CONFIG")
			       : track_reanalyse(a.reanalyse, a.t.clock, &a.t.an);
	else if (code == 0 && a.changes)
		code = a.pos.n ? cmd_usage_error(&cmd_track_entry, "--changes reads a history: no CONFIG")
			       : track_changes(a.changes, &a.t.keys, a.t.machine, a.json);
	else if (code == 0 && a.compare)
		code = a.pos.n != 2 ? cmd_usage_error(&cmd_track_entry, "--compare BASE HEAD CONFIG: CONFIG and HEAD")
				    : (a.t.config = a.pos.v[0],
				       a.cmp.json = a.json, track_compare(&a.t, a.compare, a.pos.v[1], &a.cmp));
	else if (code == 0)
		code = run_track(&a);
	sv_clear(&a.t.benchmarks);
	sv_clear(&a.t.keys);
	sv_clear(&a.pos);
	free(repo);
	return code;
}
