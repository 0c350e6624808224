/*
 * cmd-demo.c - `kiln demo`: the bundled default experiment
 * (examples/demo.yaml: two benchmarks on every VM found here), run into a
 * folder of the user's, then its report as a terminal table and the path of
 * the HTML report.  Running it again resumes, then reports.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "analysis-cache.h"
#include "cmd.h"
#include "import.h"
#include "report.h"
#include "run.h"

static int cmd_demo(int argc, char **argv);

const struct cmd_entry cmd_demo_entry = {
	.name = "demo",
	.usage = "[-o DIR] [--quick] [-q]",
	.summary = "run the bundled demo experiment and print its report",
	.help = "  -o DIR     where the results and reports go (default ./kiln-demo)\n"
		"  --quick    1 pexec x 3 iterations per key\n"
		"  -q         no progress output\n",
	.exec = cmd_demo,
};

static int cmd_demo(int argc, char **argv)
{
	if (cmd_wants_help(&cmd_demo_entry, argc, argv))
		return 0;
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' }, { "quick", no_argument, NULL, 'Q' },
		{ "quiet", no_argument, NULL, 'q' }, { NULL, 0, NULL, 0 },
	};
	const char *dir = "kiln-demo";
	struct run_opts ro;
	memset(&ro, 0, sizeof(ro));
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:q", opts, NULL)) != -1) {
		if (c == 'o')
			dir = optarg;
		else if (c == 'Q')
			ro.quick = 1;
		else if (c == 'q')
			ro.quiet = 1;
		else
			return cmd_usage_error(&cmd_demo_entry, "unknown option");
	}
	if (optind != argc)
		return cmd_usage_error(&cmd_demo_entry, "no arguments expected");
	struct kerr e = KERR_INIT;
	if (mkdir_p(dir, 0755) < 0) {
		kiln_error("%s: cannot create the demo folder", dir);
		return KEXIT_FAIL;
	}
	char *config = xasprintf("%s/examples/demo.yaml", kiln_datadir());
	char *results = xasprintf("%s/demo%s.kiln.db", dir, ro.quick ? ".quick" : "");
	char *html = xasprintf("%s/demo%s.html", dir, ro.quick ? ".quick" : "");
	ro.results = results;
	if (!ro.quiet)
		kiln_note("running %s into %s (about a minute; `kiln status %s` from another terminal)", config, results, results);
	int code = run_experiment(config, &ro, &e);
	if (code != KEXIT_OK && code != KEXIT_FAIL) {
		kerr_print(&e);
		goto out;
	}
	if (code == KEXIT_FAIL)
		kerr_print(&e);
	struct dataset ds;
	struct an_opts ao;
	struct an_result ar;
	an_opts_default(&ao);
	if (imp_load(results, &ds, &e) < 0 || an_analyse_input(results, &ds, &ao, &ar, &e) < 0) {
		kerr_print(&e);
		code = e.code ? e.code : KEXIT_FAIL;
		goto out;
	}
	struct rep_opts rp;
	memset(&rp, 0, sizeof(rp));
	rp.color = kiln_color(stdout);
	rp.plots_per_key = 1;
	printf("\n");
	if (rep_write(stdout, REP_TEXT, &ds, &ar, &rp, &e) < 0) {
		kerr_print(&e);
		code = KEXIT_FAIL;
	} else {
		FILE *f = fopen(html, "w");
		rp.color = 0;
		if (!f || rep_write(f, REP_HTML, &ds, &ar, &rp, &e) < 0) {
			kiln_warn("%s: the HTML report was not written: %s", html, f ? sb_str(&e.msg) : "cannot create");
		} else {
			printf("\nHTML report: %s\nresults:     %s (kiln report / plot / export / audit read it)\n", html, results);
		}
		if (f)
			fclose(f);
	}
	an_result_free(&ar);
	ds_free(&ds);
out:
	free(config);
	free(results);
	free(html);
	kerr_release(&e);
	return code;
}
