/*
 * kiln.c - main: the table of subcommands and the dispatch.
 *
 * The flow of DESIGN.md is in the file names: config.c reads an experiment,
 * schedule.c plans its pexecs, store.c keeps results in SQLite, exec.c
 * spawns runners, stream.c checks their result streams, run.c drives a run,
 * analysis.c classifies warmup, report.c and plot.c present it.  Each
 * command is src/cmd-<name>.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd.h"
#include "exec.h"
#include "manpage.h"
#include "store.h"
#include "util.h"

static const struct cmd_entry *const cmd_table[] = {
	/* in the order of the flow: run, look, compare, exchange, profile, the machine, tools */
	&cmd_run_entry,
	&cmd_bench_entry,
	&cmd_status_entry,
	&cmd_merge_entry,
	&cmd_track_entry,
	&cmd_bisect_entry,
	&cmd_publish_entry,
	&cmd_report_entry,
	&cmd_plot_entry,
	&cmd_diff_entry,
	&cmd_compare_entry,
	&cmd_plan_entry,
	&cmd_export_entry,
	&cmd_import_entry,
	&cmd_convert_entry,
	&cmd_profile_entry,
	&cmd_annotate_entry,
	&cmd_flame_entry,
	&cmd_stat_entry,
	&cmd_doctor_entry,
	&cmd_audit_entry,
	&cmd_plugins_entry,
	&cmd_parse_entry,
	&cmd_demo_entry,
	&cmd_task_entry,
	NULL,
};

static void usage(FILE *f)
{
	fprintf(f, "usage: kiln [--version] [--help] [--completion bash|zsh] COMMAND [ARGS]\n\n"
		   "kiln runs benchmarks of language implementations, instruments and profiles\n"
		   "them, and says with statistics whether and when they warm up.\n\ncommands:\n");
	for (size_t i = 0; cmd_table[i]; i++)
		fprintf(f, "  %-10s %s\n", cmd_table[i]->name, cmd_table[i]->summary);
	fprintf(f, "\n`kiln COMMAND --help` describes one command; docs/ has a page for each.\n");
}

/* text for roff: backslashes and hyphens escaped, a leading . or ' made literal */
static void roff(FILE *f, const char *s)
{
	for (int bol = 1; *s; s++) {
		if (bol && (*s == '.' || *s == '\''))
			fputs("\\&", f);
		if (*s == '\\')
			fputs("\\e", f);
		else if (*s == '-')
			fputs("\\-", f);
		else
			fputc(*s, f);
		bol = *s == '\n';
	}
}

/*
 * A man page NAME.SECTION made from docs/DOC's Markdown (manpage.c: real
 * headings, lists, tables, code); DOC from the source tree kiln runs from
 * (the build and make install run it there).
 */
static int doc_page(const char *dir, const char *docs, const char *doc, const char *name, const char *section,
		    const char *what)
{
	char *src = xasprintf("%s/docs/%s", kiln_datadir(), doc);
	struct strbuf text = STRBUF_INIT;
	int r = read_file(src, &text, NULL);
	free(src);
	if (r < 0) {
		sb_release(&text);
		return 0; /* not a source tree: the command pages only */
	}
	struct strbuf body = STRBUF_INIT;
	struct kerr e = KERR_INIT;
	r = man_from_markdown(text.buf, text.len, &body, &e);
	sb_release(&text);
	char *path = xasprintf("%s/%s.%s", dir, name, section);
	FILE *f = r < 0 ? NULL : fopen(path, "w");
	if (r < 0)
		kiln_error("%s: %s", path, sb_str(&e.msg));
	free(path);
	kerr_release(&e);
	if (!f) {
		sb_release(&body);
		return -1;
	}
	fprintf(f, ".TH %s %s \"\" \"kiln %s\" \"kiln manual\"\n.SH NAME\n", name, section, KILN_VERSION);
	roff(f, name);
	fputs(" \\- ", f);
	roff(f, what);
	fputs("\n.SH DESCRIPTION\n", f);
	fwrite(body.buf ? body.buf : "", 1, body.len, f);
	fprintf(f, ".SH SEE ALSO\n.BR kiln (1);\n%s/%s\n", docs, doc);
	sb_release(&body);
	return fclose(f) ? -1 : 0;
}

/*
 * `kiln --man-pages DIR [DOCDIR]` (run by the build, and by make install
 * with its PREFIX's DOCDIR): kiln.1 and one kiln-NAME.1
 * per command, made from the same usage and help text as --help, so the
 * two never disagree.  The long pages stay in docs/ (installed beside).
 */
static int man_pages(const char *dir, const char *docs)
{
	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		kiln_error("%s: %s", dir, strerror(errno));
		return KEXIT_FAIL;
	}
	for (size_t i = 0; cmd_table[i]; i++) {
		const struct cmd_entry *c = cmd_table[i];
		char *path = xasprintf("%s/kiln-%s.1", dir, c->name);
		FILE *f = fopen(path, "w");
		if (!f) {
			kiln_error("%s: %s", path, strerror(errno));
			free(path);
			return KEXIT_FAIL;
		}
		char *upper = xstrdup(c->name);
		for (char *p = upper; *p; p++)
			*p = (char)(*p >= 'a' && *p <= 'z' ? *p - 32 : *p);
		fprintf(f, ".TH KILN\\-%s 1 \"\" \"kiln %s\" \"kiln manual\"\n.SH NAME\nkiln\\-%s \\- ", upper,
			KILN_VERSION, c->name);
		roff(f, c->summary);
		fprintf(f, "\n.SH SYNOPSIS\n.nf\nkiln %s ", c->name);
		roff(f, c->usage);
		fputs("\n.fi\n.SH OPTIONS\n.nf\n", f);
		roff(f, c->help ? c->help : "");
		fprintf(f, "\n.fi\n.SH SEE ALSO\n.BR kiln (1);\nthe whole page: %s/kiln\\-%s.md\n", docs, c->name);
		free(upper);
		int bad = fclose(f) != 0;
		free(path);
		if (bad)
			return KEXIT_FAIL;
	}
	/* the pages that are not commands': the docs themselves, made man pages */
	static const struct { const char *doc, *name, *section, *what; } pages[] = {
		{ "config.md", "kiln-config", "5", "the experiment config file" },
		{ "environment.md", "kiln-environment", "7", "the environment variables kiln sets and reads" },
		{ "exit-codes.md", "kiln-exit-codes", "7", "kiln's exit codes" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(pages); i++)
		if (doc_page(dir, docs, pages[i].doc, pages[i].name, pages[i].section, pages[i].what) < 0)
			return KEXIT_FAIL;
	char *path = xasprintf("%s/kiln.1", dir);
	FILE *f = fopen(path, "w");
	free(path);
	if (!f)
		return KEXIT_FAIL;
	fprintf(f, ".TH KILN 1 \"\" \"kiln %s\" \"kiln manual\"\n.SH NAME\nkiln \\- benchmark runner, "
		   "instrumenter and profiler for language implementations\n.SH SYNOPSIS\n.B kiln\n"
		   "[\\-\\-version] [\\-\\-help] [\\-\\-completion bash|zsh] COMMAND [ARGS]\n.SH COMMANDS\n", KILN_VERSION);
	for (size_t i = 0; cmd_table[i]; i++) {
		fprintf(f, ".TP\n.BR kiln\\-%s (1)\n", cmd_table[i]->name);
		roff(f, cmd_table[i]->summary);
		fputc('\n', f);
	}
	fprintf(f, ".SH SEE ALSO\n.BR kiln\\-config (5),\n.BR kiln\\-environment (7),\n.BR kiln\\-exit\\-codes (7);\n%s/index.md\n",
		docs);
	return fclose(f) ? KEXIT_FAIL : 0;
}

static int kiln_main(int argc, char **argv)
{
	exec_init();
	store_library_init();
	if (argc < 2) {
		usage(stderr);
		return KEXIT_USAGE;
	}
	const char *name = argv[1];
	if (!strcmp(name, "--version") || !strcmp(name, "-V") || !strcmp(name, "version")) {
		printf("kiln %s\n", KILN_VERSION);
		return 0;
	}
	/* --man-pages DIR [DOCDIR]: DOCDIR is where the pages say docs/ went (make install passes its PREFIX's) */
	if (!strcmp(name, "--man-pages") && (argc == 3 || argc == 4))
		return man_pages(argv[2], argc == 4 ? argv[3] : KILN_PREFIX "/share/doc/kiln");
	if (!strcmp(name, "--completion") && argc == 3)
		return kiln_completion(cmd_table, argv[2], stdout);
	if (!strcmp(name, "--help") || !strcmp(name, "-h") || !strcmp(name, "help")) {
		if (argc > 2) {
			for (size_t i = 0; cmd_table[i]; i++)
				if (!strcmp(cmd_table[i]->name, argv[2])) {
					cmd_usage(cmd_table[i], stdout);
					return 0;
				}
			kiln_error("'%s' is not a kiln command (see kiln --help)", argv[2]);
			return KEXIT_USAGE;
		}
		usage(stdout);
		return 0;
	}
	for (size_t i = 0; cmd_table[i]; i++)
		if (!strcmp(cmd_table[i]->name, name))
			return cmd_table[i]->exec(argc - 1, argv + 1);
	kiln_error("'%s' is not a kiln command (see kiln --help)", name);
	return KEXIT_USAGE;
}

/*
 * What a command printed must have reached its standard output: a full
 * disk, a closed or unwritable file there is a failure (exit 1, said),
 * never a report, a JSON or a CSV cut short under exit 0.  A reader that
 * closed its pipe (`kiln report | head`) is not: SIGPIPE ends kiln there
 * unless a run ignores it, and then EPIPE is not reported either.
 */
static int stdout_written(int rc)
{
	errno = 0;
	int bad = ferror(stdout) != 0;
	if (fflush(stdout) != 0)
		bad = 1;
	if (!bad || errno == EPIPE)
		return rc;
	kiln_error("standard output: %s", errno ? strerror(errno) : "write error");
	return rc ? rc : KEXIT_FAIL;
}

int main(int argc, char **argv)
{
	return stdout_written(kiln_main(argc, argv));
}
