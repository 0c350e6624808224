/*
 * cmd-report.c - `kiln report INPUT [--format F] [-o FILE] [analysis options]`:
 * load any input kiln accepts (import.c: kiln results, Krun, warmup_stats
 * CSV), analyse it (analysis.c) and write the table (report.c).  Without
 * --format the format follows -o's extension, else text.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis.h"
#include "cmd.h"
#include "import.h"
#include "report.h"

static int cmd_report(int argc, char **argv);

const struct cmd_entry cmd_report_entry = {
	.name = "report",
	.usage = "INPUT [--format text|markdown|latex|html|json|csv] [-o FILE] [--key K]... [--plots N]\n"
		 "          [--title T] [--profile DIR]... [--compact] [--wide] [--pool-machines] [analysis options]",
	.summary = "classify warmup and summarise steady-state performance, per key",
	.help = "INPUT is a kiln results file (*.db), a Krun results file (.json, .json.bz2)\n"
		"or a warmup_stats CSV.\n"
		"  --format F         text (default; coloured on a terminal), markdown, latex,\n"
		"                     html (one self-contained page with plots), json\n"
		"                     (warmup_stats summary layout, version 2), csv\n"
		"  -o, --output FILE  write there instead of stdout (the format follows its\n"
		"                     extension when --format is not given: .txt, .md, .tex,\n"
		"                     .html, .json, .csv; another one, such as .pdf, is refused)\n"
		"  --key K            only keys matching K (bench:vm:variant, bench:vm or bench,\n"
		"                     '*' wildcards; repeat for several)\n" CMD_POOL_HELP
		"  --plots N          html: pexecs plotted per key (3; 0: none)\n"
		"  --profile DIR      html: the flame graph of the kiln profile in DIR too (repeat for\n"
		"                     several); a results file's own stored profiles are shown anyway\n"
		"                     (each key's newest)\n"
		"  --title T          the report's title\n"
		"  --compact          latex: classes as symbols, with a legend in the caption\n"
		"  --wide             latex: table* (across both columns of a two-column paper)\n" AN_OPTS_HELP,
	.exec = cmd_report,
};

/* the report's own options: --format/-f F, -o FILE, --title T, --plots N */
struct report_args {
	const char *out;
	struct strvec profiles;
	int fmt; /* enum rep_format, -1: from the output's name */
	struct rep_opts ro;
};

static int report_opt(void *ctx, const struct cmd_entry *c, int argc, char **argv, int *i)
{
	struct report_args *ra = ctx;
	const char *a = argv[*i];
	if (!strcmp(a, "--compact") || !strcmp(a, "--wide")) {
		*(a[2] == 'c' ? &ra->ro.compact : &ra->ro.wide) = 1;
		return 1;
	}
	if (*i + 1 >= argc)
		return 0;
	if (!strcmp(a, "--format") || !strcmp(a, "-f")) {
		enum rep_format rf;
		if (rep_parse_format(argv[++*i], &rf) < 0)
			return cmd_usage_error(c, "--format: '%s' is not text, markdown, latex, html, json or csv",
					       argv[*i]);
		ra->fmt = (int)rf;
	} else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
		ra->out = argv[++*i];
	} else if (!strcmp(a, "--profile")) {
		sv_push(&ra->profiles, argv[++*i]);
	} else if (!strcmp(a, "--title")) {
		ra->ro.title = argv[++*i];
	} else if (!strcmp(a, "--plots")) {
		long n;
		if (parse_long(argv[++*i], &n) || n < 0 || n > 1000)
			return cmd_usage_error(c, "--plots: '%s' is not a count", argv[*i]);
		ra->ro.plots_per_key = (int)n;
	} else {
		return 0;
	}
	return 1;
}

static int cmd_report(int argc, char **argv)
{
	const struct cmd_entry *c = &cmd_report_entry;
	if (cmd_wants_help(c, argc, argv))
		return 0;
	struct report_args ra = { NULL, STRVEC_INIT, -1, { 0 } };
	ra.ro.plots_per_key = 3;
	struct an_opts o;
	an_opts_default(&o);
	struct kerr e = KERR_INIT;
	struct cmd_an_args args;
	int bad = cmd_an_args(c, argc, argv, &o, 1, "INPUT", 0, &args, report_opt, &ra);
	if (bad) {
		sv_clear(&ra.profiles);
		return bad;
	}
	const char *input = args.inputs[0], *out = ra.out;
	int fmt = ra.fmt;
	struct rep_opts ro = ra.ro;
	ro.profiles = (const char *const *)ra.profiles.v;
	ro.nprofiles = ra.profiles.n;
	if (imp_detect(input) == IMP_KILN)
		ro.results = input;
	if (fmt < 0 && out && (fmt = rep_format_for_path(out)) < 0) {
		cmd_an_args_release(&args);
		sv_clear(&ra.profiles);
		return cmd_usage_error(c, "-o %s: kiln report writes text, markdown, latex, html, json or csv; name "
				       "the file .txt, .md, .tex, .html, .json or .csv, or give --format (for a PDF, "
				       "write .tex and run pdflatex on it)", out);
	}
	if (fmt < 0)
		fmt = REP_TEXT;
	if (ra.profiles.n && fmt != REP_HTML) {
		cmd_an_args_release(&args);
		sv_clear(&ra.profiles);
		return cmd_usage_error(c, "--profile: flame graphs are part of the html format only");
	}
	struct dataset ds = { 0 };
	struct an_result r;
	int loaded = cmd_load_matched(input, &args, &o, &ds, &r);
	if (loaded) {
		cmd_an_args_release(&args);
		sv_clear(&ra.profiles);
		return loaded;
	}
	FILE *f = stdout;
	char *tmp = NULL;
	if (out && strcmp(out, "-")) {
		tmp = xasprintf("%s.tmp.%d", out, (int)getpid());
		int fd = open_tmp_new(tmp);
		f = fd >= 0 ? fdopen(fd, "w") : NULL;
		if (!f) {
			if (fd >= 0)
				close(fd);
			kiln_error("%s: %s", out, strerror(errno));
			free(tmp);
			an_result_free(&r);
			ds_free(&ds);
			cmd_an_args_release(&args);
			sv_clear(&ra.profiles);
			return KEXIT_FAIL;
		}
	}
	ro.color = fmt == REP_TEXT && f == stdout && kiln_color(stdout);
	int rc = rep_write(f, (enum rep_format)fmt, &ds, &r, &ro, &e);
	if (f != stdout) {
		if (fclose(f) != 0 && rc == 0)
			rc = kerr_set(&e, "%s: %s", out, strerror(errno));
		if (rc == 0 && rename(tmp, out) < 0)
			rc = kerr_set(&e, "%s: %s", out, strerror(errno));
		if (rc < 0)
			unlink(tmp);
		free(tmp);
	} else
		fflush(stdout);
	if (rc < 0)
		kerr_print(&e);
	kerr_release(&e);
	an_result_free(&r);
	ds_free(&ds);
	cmd_an_args_release(&args);
	sv_clear(&ra.profiles);
	return rc < 0 ? KEXIT_FAIL : 0;
}
