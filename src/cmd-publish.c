/*
 * cmd-publish.c - `kiln publish HISTORY -o DIR`: a history as a static web
 * site that opens from disk (publish.h; docs/kiln-publish.md).
 */
#include <getopt.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "publish.h"
#include "run.h"

static int cmd_publish(int argc, char **argv);

const struct cmd_entry cmd_publish_entry = {
	.name = "publish",
	.usage = "HISTORY -o DIR [--machine NAME]... [--key K]... [--reports changes|all|none] [--plots N]\n"
		 "                    [--title T] [--json] [-q]",
	.summary = "a history as a static web site that opens from disk: series, changes, reports",
	.help = "Writes DIR/index.html (every benchmark x VM of every machine: a sparkline of its steady\n"
		"state over the commits, the latest value, the latest change; the changes, newest first),\n"
		"a page per key (steady-state mean and 99% interval per commit, the warm-up class mix,\n"
		"the time to steady state, the change points with the A/A false-alarm rate of their\n"
		"series, every commit) and kiln's report of the commits around each change. No server:\n"
		"open DIR/index.html; nothing is loaded from elsewhere; it reads without JavaScript.\n"
		"  -o, --output DIR    the site's folder: new, empty, or a site kiln publish wrote\n"
		"                      (replaced whole, never half-written)\n"
		"  --machine NAME      only this machine's series (repeatable; default all)\n"
		"  -k, --key K         only keys matching K (bench[:vm[:variant]], '*' wildcards; repeatable)\n"
		"  --reports WHICH     per-commit reports: changes (default: each side of every change and\n"
		"                      each key's newest commit), all (every commit: small histories), none\n"
		"  --plots N           pexecs plotted per report (3; 0: none, faster)\n"
		"  --title T           the site's title (default: the history's project name)\n"
		"  --json              what was written, as JSON on stdout\n"
		"  -q, --quiet         no progress\n"
		"\nExit status: 0 written, 1 writing failed, 2 usage (or DIR is not a site kiln wrote),\n"
		"5 HISTORY missing or unusable, 130 interrupted (DIR left as it was).\n",
	.exec = cmd_publish,
};

enum { O_MACHINE = 256, O_REPORTS, O_PLOTS, O_TITLE, O_JSON };

static int parse_args(int argc, char **argv, struct pub_opts *o, int *json)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },     { "machine", required_argument, NULL, O_MACHINE },
		{ "key", required_argument, NULL, 'k' },        { "reports", required_argument, NULL, O_REPORTS },
		{ "plots", required_argument, NULL, O_PLOTS },  { "title", required_argument, NULL, O_TITLE },
		{ "json", no_argument, NULL, O_JSON },          { "quiet", no_argument, NULL, 'q' },
		{ NULL, 0, NULL, 0 },
	};
	const struct cmd_entry *c = &cmd_publish_entry;
	int ch;
	long n;
	optind = 1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "o:k:q", opts, NULL)) != -1) {
		switch (ch) {
		case 'o': o->out = optarg; break;
		case O_MACHINE: sv_push(&o->machines, optarg); break;
		case 'k': sv_push(&o->keys, optarg); break;
		case O_TITLE: o->title = optarg; break;
		case O_JSON: *json = 1; break;
		case 'q': o->quiet = 1; break;
		case O_REPORTS:
			if (!strcmp(optarg, "changes"))
				o->reports = PUB_REPORTS_CHANGES;
			else if (!strcmp(optarg, "all"))
				o->reports = PUB_REPORTS_ALL;
			else if (!strcmp(optarg, "none"))
				o->reports = PUB_REPORTS_NONE;
			else
				return cmd_usage_error(c, "--reports is changes, all or none, not '%s'", esc(ESC_TERM, optarg));
			break;
		case O_PLOTS:
			if (parse_long(optarg, &n) < 0 || n < 0 || n > 100)
				return cmd_usage_error(c, "--plots needs a count from 0 to 100");
			o->plots = (int)n;
			break;
		default:
			return cmd_usage_error(c, "unknown option or missing value: '%s'", esc(ESC_TERM, argv[optind - 1]));
		}
	}
	if (optind + 1 != argc)
		return cmd_usage_error(c, optind >= argc ? "which history?" : "one history only");
	o->history = argv[optind];
	if (!o->out)
		return cmd_usage_error(c, "-o DIR: where to write the site");
	return 0;
}

static void print_summary(const struct pub_opts *o, const struct pub_summary *s, int json)
{
	if (json) {
		json_t *j = json_pack("{s:s,s:s,s:I,s:I,s:I,s:I,s:I,s:I,s:I}", "dir", esc(ESC_JSON, o->out), "index",
				      "index.html", "machines", (json_int_t)s->machines, "keys", (json_int_t)s->keys,
				      "commits", (json_int_t)s->commits, "changes", (json_int_t)s->changes, "reports",
				      (json_int_t)s->reports, "files", (json_int_t)s->files, "bytes", (json_int_t)s->bytes);
		json_dumpf(j, stdout, JSON_INDENT(2));
		fputc('\n', stdout);
		json_decref(j);
		return;
	}
	printf("%zu key%s of %zu machine%s over %zu commits, %zu change%s, %zu report%s: %zu files, %.1f MB in %s\n",
	       s->keys, s->keys == 1 ? "" : "s", s->machines, s->machines == 1 ? "" : "s", s->commits, s->changes,
	       s->changes == 1 ? "" : "s", s->reports, s->reports == 1 ? "" : "s", s->files, (double)s->bytes / 1e6,
	       esc(ESC_TERM, o->out));
	printf("open %s/index.html\n", esc(ESC_TERM, o->out));
}

static int cmd_publish(int argc, char **argv)
{
	if (cmd_wants_help(&cmd_publish_entry, argc, argv))
		return KEXIT_OK;
	struct pub_opts o;
	pub_opts_init(&o);
	int json = 0;
	int code = parse_args(argc, argv, &o, &json);
	if (code == 0) {
		run_catch_signals(); /* the site is left unwritten, its scratch folder removed (exit 130) */
		struct pub_summary sum;
		struct kerr e = KERR_INIT;
		if (publish_site(&o, &sum, &e) < 0) {
			kerr_print(&e);
			code = e.code ? e.code : KEXIT_FAIL;
		} else {
			print_summary(&o, &sum, json);
		}
		kerr_release(&e);
	}
	pub_opts_release(&o);
	return code;
}
