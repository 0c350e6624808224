/*
 * cmd-bench.c - `kiln bench 'CMD' ['CMD'...]`: hyperfine's job, on kiln's
 * run path.
 *
 * The commands (after --parameter-scan/--parameter-list expansion) become
 * an experiment built in memory: one `command`-plugin VM per program, one
 * benchmark per command, only the intended keys (experiment.keys_only).
 * run_experiment_ex() runs it exactly as `kiln run` runs a config: the
 * stored schedule (in rounds: every command once per round, in a fresh random order),
 * store.c's one transaction per run, the machine checks, --warmup runs,
 * each command's setup/prepare/cleanup.  Unless --runs fixes the count,
 * the run hook `more` adds rounds of runs while a command's confidence
 * interval of the mean is wider than --ci of it (and --max-runs and
 * --max-time allow).  The results file is a kiln results file like any
 * other (report, diff, plot, export read it); meta "bench_commands" keeps each
 * key's command and parameters for the hyperfine-layout exports.
 *
 * No shell unless --shell: a command is split into words as a POSIX shell
 * would quote them (no expansion of any kind) and its program found in
 * PATH, as hyperfine -N does.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis.h"
#include "stats.h"
#include "cmd.h"
#include "compare.h"
#include "config.h"
#include "exec.h"
#include "fmt.h"
#include "plugin.h"
#include "run.h"
#include "safefs.h"
#include "session-record.h"
#include "rounds.h"
#include "store.h"
#include "report.h"

static int cmd_bench(int argc, char **argv);

const struct cmd_entry cmd_bench_entry = {
	.name = "bench",
	.usage = "'CMD' ['CMD'...] [-w N] [-r N | -m N -M N --ci P% --max-time S] [-p CMD] [--conclude CMD]\n"
		 "                  [-s CMD] [-c CMD] [-P NAME LO HI [-D STEP]] [-L NAME A,B,...] [-S SHELL|--shell|-N]\n"
		 "                  [-i] [-n NAME] [--show-output | --output WHERE] [--input FILE] [--sort ORDER]\n"
		 "                  [--style STYLE] [--export-json F] [--export-markdown F] [--export-csv F]\n"
		 "                  [--export-asciidoc F] [--export-orgmode F] [-o RESULTS] [-u UNIT] [--json] [-q]\n"
		 "                  [--duet [--duet-cpus A,B]]",
	.summary = "time whole commands, hyperfine-style, until the mean's confidence interval is tight",
	.help = "Each CMD runs as a process of its own, timed from fork to reaping, with user/sys time\n"
		"and max RSS; runs of the commands are interleaved.  Without -r, each command runs at\n"
		"least -m times and until the 99% CI of its mean is within --ci of it, or -M or --max-time.\n"
		"  -w, --warmup N            N untimed runs of each command first (not stored)\n"
		"  -r, --runs N              exactly N runs of each command\n"
		"  -m, --min-runs N          at least N runs (10)\n"
		"  -M, --max-runs N          at most N runs (1000)\n"
		"      --ci P%               stop once the CI's half-width is P% of the mean (1%)\n"
		"      --max-time S          stop adding runs of a command after S seconds of them (10)\n"
		"  -p, --prepare CMD         run before each run (untimed); once for all, or once per command\n"
		"      --conclude CMD        run after each run (untimed); once for all, or once per command\n"
		"  -s, --setup CMD           run once before a command's first run; once or per command\n"
		"  -c, --cleanup CMD         run once after a command's last run; once or per command\n"
		"  -P, --parameter-scan NAME LO HI   one command per value LO..HI of {NAME} in CMD\n"
		"  -D, --parameter-step-size STEP    the scan's step (1; decimals allowed)\n"
		"  -L, --parameter-list NAME A,B,... one command per value (several -L: every combination)\n"
		"  -S, --shell SHELL         run commands through SHELL -c (--shell alone: /bin/sh); default:\n"
		"                            no shell, the command split into words like -N in hyperfine\n"
		"  -N                        no shell (the default; hyperfine's spelling)\n"
		"  -i, --ignore-failure      a non-zero exit status does not fail a run (it is kept)\n"
		"  -n, --command-name NAME   a command's name in output and keys, in order ({NAME} expanded)\n"
		"      --show-output         the commands' stdout and stderr on kiln's (--output inherit)\n"
		"      --output WHERE        null: to /dev/null; pipe: drained and kept for failed runs (the\n"
		"                            default); inherit: kiln's terminal; ./FILE (a path with a /): stdout\n"
		"                            into FILE (made 0600; only a regular file of yours, never a link)\n"
		"      --input FILE          each run's stdin from FILE (a regular file; default /dev/null)\n"
		"      --export-json FILE    hyperfine's JSON layout (its scripts read it)\n"
		"      --export-markdown FILE, --export-csv FILE, --export-asciidoc FILE, --export-orgmode FILE\n"
		"                            hyperfine's table layouts\n"
		"      --sort ORDER          auto: the comparison by mean time, the tables in command order;\n"
		"                            command: both in command order; mean-time: both by mean time\n"
		"      --style STYLE         auto, full, basic (no colour, no progress), nocolor, color (no\n"
		"                            progress), none (no output but errors); colour only on a terminal\n"
		"                            and never with NO_COLOR\n"
		"  -o, --results FILE        the kiln results file (bench.kiln.db; a previous kiln bench's\n"
		"                            file is replaced, any other kiln file refused)\n"
		"  -u, --time-unit UNIT      s, ms or us for every time (default: the one that fits)\n"
		"      --json                hyperfine's JSON layout on stdout instead of the text\n"
		"  -q, --quiet               no progress, only the summary\n"
		"      --duet                two commands run at the same time, each on a CPU of its own\n"
		"                            (swapped every round), their runs paired (docs/kiln-compare.md)\n"
		"      --duet-cpus A,B       the two CPUs of --duet (default: the first two kiln may use)\n"
		"\nThe results file takes kiln report, diff, plot and export like any run.\n"
		"Exit status: 0 every run ok, 1 a run failed, 2 usage, 3 a command's program not found, or\n"
		"--input's or --output's FILE refused, 4 the results file in use, 5 it is unusable,\n"
		"130 interrupted.\n",
	.exec = cmd_bench,
};

#define MAX_COMMANDS 10000

struct param {
	char *name;
	struct strvec values;
};

/* one command after parameter expansion */
struct bcmd {
	char *text;             /* as it runs (parameters substituted) */
	char *name;             /* as shown */
	json_t *params;         /* {NAME: value} */
	char *prepare, *conclude, *setup, *cleanup; /* NULL: none */
	char *bench, *vm, *key;
};

/* where the commands' output goes: kiln's default (drained, kept for failed runs), or hyperfine's --output */
enum { OUT_PIPE, OUT_NULL, OUT_INHERIT, OUT_FILE };

struct bench {
	long warmup, runs, min_runs, max_runs;
	double ci, max_time;
	const char *shell;
	int ignore_failure, quiet, json, show_output;
	int duet;               /* --duet: the two commands run at the same time, on two CPUs */
	const char *duet_cpus;  /* --duet-cpus A,B */
	struct plat_pressure psi; /* the CPU pressure from where the runs began */
	int color, silent;      /* from --style: colours in the summary; no summary at all (none) */
	const char *results, *export_json, *export_md, *export_csv, *export_adoc, *export_org, *unit;
	const char *output, *input, *sort, *style;
	int out;                /* OUT_* */
	int out_fd, in_fd, null_fd; /* -1: none; the FILE of --output and --input, /dev/null */
	struct strvec templates, names, prepares, concludes, setups, cleanups;
	struct param *params;
	size_t nparams;
	struct bcmd *cmds;
	size_t ncmds;
	char *results_abs;
	struct strbuf cmdline;  /* the invocation, stored as the config text */
};

/* ---- words, as a POSIX shell quotes them (nothing expanded) ---- */

static int split_words(const char *s, struct strvec *out, struct kerr *e)
{
	struct strbuf w = STRBUF_INIT;
	int in_word = 0;
	for (const char *p = s; *p; p++) {
		char c = *p;
		if (c == ' ' || c == '\t' || c == '\n') {
			if (in_word)
				sv_push(out, sb_str(&w));
			sb_reset(&w);
			in_word = 0;
			continue;
		}
		in_word = 1;
		if (c == '\\' && p[1]) {
			sb_addc(&w, *++p);
		} else if (c == '\'') {
			const char *q = strchr(p + 1, '\'');
			if (!q)
				goto unterminated;
			sb_add(&w, p + 1, (size_t)(q - p - 1));
			p = q;
		} else if (c == '"') {
			for (p++; *p && *p != '"'; p++) {
				if (*p == '\\' && p[1] && strchr("\"\\$`\n", p[1]))
					p++;
				sb_addc(&w, *p);
			}
			if (!*p)
				goto unterminated;
		} else {
			sb_addc(&w, c);
		}
	}
	if (in_word)
		sv_push(out, sb_str(&w));
	sb_release(&w);
	return out->n ? 0 : kerr_setc(e, KEXIT_USAGE, "command '%s' is empty", esc(ESC_TERM, s));
unterminated:
	sb_release(&w);
	return kerr_setc(e, KEXIT_USAGE, "command '%s': a quote is not closed", esc(ESC_TERM, s));
}

/* s with every {NAME} of the parameters replaced by values[i] */
static char *subst(const char *s, const struct bench *b, char *const *values)
{
	struct strbuf sb = STRBUF_INIT;
	for (const char *p = s; *p;) {
		size_t hit = 0, which = 0;
		for (size_t i = 0; i < b->nparams && !hit; i++) {
			size_t n = strlen(b->params[i].name);
			if (p[0] == '{' && !strncmp(p + 1, b->params[i].name, n) && p[n + 1] == '}')
				hit = n + 2, which = i;
		}
		if (hit) {
			sb_adds(&sb, values[which]);
			p += hit;
		} else {
			sb_addc(&sb, *p++);
		}
	}
	return sb_detach(&sb);
}

/* ---- options ---- */

/* the decimals a number is written with ("0.25" 2) */
static int decimals(const char *s)
{
	const char *d = strchr(s, '.');
	return d ? (int)strlen(d + 1) : 0;
}

static int scan_values(struct bench *b, const char *name, const char *lo, const char *hi, const char *step,
		       struct kerr *e)
{
	double l, h, st = 1;
	if (parse_double(lo, &l) || parse_double(hi, &h) || !isfinite(l) || !isfinite(h))
		return kerr_setc(e, KEXIT_USAGE, "--parameter-scan %s: LO and HI must be numbers", name);
	if (step && (parse_double(step, &st) || !(st > 0) || !isfinite(st)))
		return kerr_setc(e, KEXIT_USAGE, "--parameter-step-size must be a positive number");
	if (!step && (decimals(lo) || decimals(hi)))
		return kerr_setc(e, KEXIT_USAGE, "--parameter-scan %s: without -D the bounds must be whole numbers", name);
	if (h < l)
		return kerr_setc(e, KEXIT_USAGE, "--parameter-scan %s: HI is below LO", name);
	if ((h - l) / st > MAX_COMMANDS)
		return kerr_setc(e, KEXIT_USAGE, "--parameter-scan %s: more than %d values", name, MAX_COMMANDS);
	int dec = decimals(lo);
	if (step && decimals(step) > dec)
		dec = decimals(step);
	b->params = xrealloc(b->params, (b->nparams + 1) * sizeof(*b->params));
	struct param *p = &b->params[b->nparams++];
	p->name = xstrdup(name);
	p->values = (struct strvec)STRVEC_INIT;
	for (long i = 0;; i++) {
		double v = l + (double)i * st;
		if (v > h + st * 1e-9)
			break;
		sv_pushf(&p->values, "%.*f", dec, v);
	}
	return 0;
}

static int list_values(struct bench *b, const char *name, const char *list, struct kerr *e)
{
	b->params = xrealloc(b->params, (b->nparams + 1) * sizeof(*b->params));
	struct param *p = &b->params[b->nparams++];
	p->name = xstrdup(name);
	p->values = (struct strvec)STRVEC_INIT;
	for (const char *s = list;;) {
		const char *c = strchr(s, ',');
		char *v = c ? xstrndup(s, (size_t)(c - s)) : xstrdup(s);
		sv_push(&p->values, v);
		free(v);
		if (!c)
			break;
		s = c + 1;
	}
	if (p->values.n > MAX_COMMANDS)
		return kerr_setc(e, KEXIT_USAGE, "--parameter-list %s: more than %d values", name, MAX_COMMANDS);
	return 0;
}

static int valid_param_name(const char *n)
{
	if (!*n)
		return 0;
	for (const char *p = n; *p; p++)
		if (!(*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
			return 0;
	return 1;
}

/* a shell word for the stored command line */
static void add_quoted(struct strbuf *sb, const char *s)
{
	sb_addc(sb, ' ');
	sb_add_shword(sb, s);
}

static int parse_long_opt(const char *what, const char *v, long lo, long *out, struct kerr *e)
{
	if (parse_long(v, out) || *out < lo)
		return kerr_setc(e, KEXIT_USAGE, "%s needs a whole number >= %ld, not '%s'", what, lo, esc(ESC_TERM, v));
	return 0;
}

/* the command line being read: options that take more than one word read on from argv */
struct parsing {
	struct bench *b;
	int argc;
	char **argv;
	const char *step, *scan[3];
};

static int opt_ci(struct parsing *ps, const char *v, struct kerr *e)
{
	struct bench *b = ps->b;
	char *s = xstrdup(v);
	size_t n = strlen(s);
	if (n && s[n - 1] == '%')
		s[n - 1] = '\0';
	int bad = parse_double(s, &b->ci) || !(b->ci > 0) || b->ci >= 100;
	free(s);
	b->ci /= 100;
	return bad ? kerr_setc(e, KEXIT_USAGE, "--ci needs a percentage above 0, like 1%%") : 0;
}

/* --max-time's most, in seconds (31 years): no session lasts longer, and more_for's arithmetic stays in range */
#define BENCH_MAX_TIME_S 1e9

static int opt_max_time(struct parsing *ps, const char *v, struct kerr *e)
{
	double *t = &ps->b->max_time;
	if (parse_double(v, t) || !(*t > 0) || !(*t <= BENCH_MAX_TIME_S))
		return kerr_setc(e, KEXIT_USAGE, "--max-time needs seconds above 0, up to %g", BENCH_MAX_TIME_S);
	return 0;
}

static int opt_scan(struct parsing *ps, const char *v, struct kerr *e)
{
	if (optind + 1 >= ps->argc)
		return kerr_setc(e, KEXIT_USAGE, "--parameter-scan needs NAME LO HI");
	ps->scan[0] = v, ps->scan[1] = ps->argv[optind], ps->scan[2] = ps->argv[optind + 1];
	optind += 2;
	return 0;
}

static int opt_step(struct parsing *ps, const char *v, struct kerr *e)
{
	(void)e;
	ps->step = v;
	return 0;
}

static int opt_list(struct parsing *ps, const char *v, struct kerr *e)
{
	const char *list = optind < ps->argc ? ps->argv[optind++] : NULL;
	if (!list)
		return kerr_setc(e, KEXIT_USAGE, "--parameter-list needs NAME and VALUES");
	if (!valid_param_name(v))
		return kerr_setc(e, KEXIT_USAGE, "parameter name '%s': letters, digits and _ only", esc(ESC_TERM, v));
	return list_values(ps->b, v, list, e);
}

static int opt_shell(struct parsing *ps, const char *v, struct kerr *e)
{
	(void)e;
	ps->b->shell = v && *v ? v : "/bin/sh";
	return 0;
}

static int opt_no_shell(struct parsing *ps, const char *v, struct kerr *e)
{
	(void)v, (void)e;
	ps->b->shell = NULL;
	return 0;
}

static int opt_unit(struct parsing *ps, const char *v, struct kerr *e)
{
	if (strcmp(v, "s") && strcmp(v, "ms") && strcmp(v, "us") && strcmp(v, "µs"))
		return kerr_setc(e, KEXIT_USAGE, "--time-unit is s, ms or us");
	ps->b->unit = v;
	return 0;
}

/* --output WHERE: hyperfine's words, or a FILE (with a '/' in it, as hyperfine tells them apart) */
static int opt_output(struct parsing *ps, const char *v, struct kerr *e)
{
	static const char *const modes[] = { [OUT_NULL] = "null", [OUT_PIPE] = "pipe", [OUT_INHERIT] = "inherit" };
	struct bench *b = ps->b;
	b->output = v;
	for (size_t i = 0; i < ARRAY_SIZE(modes); i++)
		if (modes[i] && !strcmp(v, modes[i])) {
			b->out = (int)i;
			return 0;
		}
	if (!strchr(v, '/'))
		return kerr_setc(e, KEXIT_USAGE, "--output is null, pipe, inherit or a FILE: '%s' is none (./%s for a file)",
				 esc(ESC_TERM, v), esc(ESC_TERM, v));
	b->out = OUT_FILE;
	return 0;
}

enum { B_STR, B_VEC, B_FLAG, B_LONG, B_CHOICE, B_FN };

/* one option: where its value goes (a field of struct bench at off), or what reads it */
struct bopt {
	const char *name;       /* NULL: a short option only */
	int arg, shortc;        /* getopt's has_arg; the short letter, 0: none */
	int kind;               /* B_* */
	size_t off;             /* B_STR, B_VEC, B_FLAG, B_LONG, B_CHOICE: the field */
	long min;               /* B_LONG: the least value */
	const char *choices;    /* B_CHOICE: "a|b|c" */
	int (*fn)(struct parsing *ps, const char *v, struct kerr *e);
};

#define AT(f) offsetof(struct bench, f)
static const struct bopt bench_opts[] = {
	{ "warmup", 1, 'w', B_LONG, AT(warmup), 0, NULL, NULL },
	{ "runs", 1, 'r', B_LONG, AT(runs), 1, NULL, NULL },
	{ "min-runs", 1, 'm', B_LONG, AT(min_runs), 2, NULL, NULL },
	{ "max-runs", 1, 'M', B_LONG, AT(max_runs), 1, NULL, NULL },
	{ "ci", 1, 0, B_FN, 0, 0, NULL, opt_ci },
	{ "max-time", 1, 0, B_FN, 0, 0, NULL, opt_max_time },
	{ "prepare", 1, 'p', B_VEC, AT(prepares), 0, NULL, NULL },
	{ "conclude", 1, 0, B_VEC, AT(concludes), 0, NULL, NULL },
	{ "setup", 1, 's', B_VEC, AT(setups), 0, NULL, NULL },
	{ "cleanup", 1, 'c', B_VEC, AT(cleanups), 0, NULL, NULL },
	{ "parameter-scan", 1, 'P', B_FN, 0, 0, NULL, opt_scan },
	{ "parameter-step-size", 1, 'D', B_FN, 0, 0, NULL, opt_step },
	{ "parameter-list", 1, 'L', B_FN, 0, 0, NULL, opt_list },
	{ "shell", 2, 'S', B_FN, 0, 0, NULL, opt_shell },
	{ NULL, 0, 'N', B_FN, 0, 0, NULL, opt_no_shell },
	{ "ignore-failure", 0, 'i', B_FLAG, AT(ignore_failure), 0, NULL, NULL },
	{ "command-name", 1, 'n', B_VEC, AT(names), 0, NULL, NULL },
	{ "show-output", 0, 0, B_FLAG, AT(show_output), 0, NULL, NULL },
	{ "output", 1, 0, B_FN, 0, 0, NULL, opt_output },
	{ "input", 1, 0, B_STR, AT(input), 0, NULL, NULL },
	{ "sort", 1, 0, B_CHOICE, AT(sort), 0, "auto|command|mean-time", NULL },
	{ "style", 1, 0, B_CHOICE, AT(style), 0, "auto|basic|full|nocolor|color|none", NULL },
	{ "export-json", 1, 0, B_STR, AT(export_json), 0, NULL, NULL },
	{ "export-markdown", 1, 0, B_STR, AT(export_md), 0, NULL, NULL },
	{ "export-csv", 1, 0, B_STR, AT(export_csv), 0, NULL, NULL },
	{ "export-asciidoc", 1, 0, B_STR, AT(export_adoc), 0, NULL, NULL },
	{ "export-orgmode", 1, 0, B_STR, AT(export_org), 0, NULL, NULL },
	{ "results", 1, 'o', B_STR, AT(results), 0, NULL, NULL },
	{ "time-unit", 1, 'u', B_FN, 0, 0, NULL, opt_unit },
	{ "json", 0, 0, B_FLAG, AT(json), 0, NULL, NULL },
	{ "quiet", 0, 'q', B_FLAG, AT(quiet), 0, NULL, NULL },
	{ "duet", 0, 0, B_FLAG, AT(duet), 0, NULL, NULL },
	{ "duet-cpus", 1, 0, B_STR, AT(duet_cpus), 0, NULL, NULL },
};
#undef AT

/* is v one of "a|b|c"? */
static int one_of(const char *choices, const char *v)
{
	size_t n = strlen(v);
	for (const char *p = choices; n && p; p = strchr(p, '|') ? strchr(p, '|') + 1 : NULL)
		if (!strncmp(p, v, n) && (p[n] == '|' || !p[n]))
			return 1;
	return 0;
}

static int apply_opt(struct parsing *ps, const struct bopt *o, const char *v, struct kerr *e)
{
	char *field = (char *)ps->b + o->off;
	switch (o->kind) {
	case B_STR: *(const char **)(void *)field = v; return 0;
	case B_VEC: sv_push((struct strvec *)(void *)field, v); return 0;
	case B_FLAG: *(int *)(void *)field = 1; return 0;
	case B_LONG: {
		char what[64];
		snprintf(what, sizeof(what), "--%s", o->name);
		return parse_long_opt(what, v, o->min, (long *)(void *)field, e);
	}
	case B_CHOICE:
		if (!one_of(o->choices, v))
			return kerr_setc(e, KEXIT_USAGE, "--%s is one of %s, not '%s'", o->name, o->choices, esc(ESC_TERM, v));
		*(const char **)(void *)field = v;
		return 0;
	default: return o->fn(ps, v, e);
	}
}

/* getopt's tables from bench_opts: a long option's value is its short letter, or 256 + its index */
static void getopt_tables(struct option *lo, char *so)
{
	size_t nl = 0, ns = 0;
	for (size_t i = 0; i < ARRAY_SIZE(bench_opts); i++) {
		const struct bopt *o = &bench_opts[i];
		int val = o->shortc ? o->shortc : 256 + (int)i;
		if (o->name)
			lo[nl++] = (struct option){ o->name, o->arg, NULL, val };
		if (o->shortc) {
			so[ns++] = (char)o->shortc;
			if (o->arg)
				so[ns++] = ':'; /* -S takes its word; --shell alone is /bin/sh */
		}
	}
	lo[nl] = (struct option){ NULL, 0, NULL, 0 };
	so[ns] = '\0';
}

static const struct bopt *opt_of(int c)
{
	for (size_t i = 0; i < ARRAY_SIZE(bench_opts); i++)
		if (c == (bench_opts[i].shortc ? bench_opts[i].shortc : 256 + (int)i))
			return &bench_opts[i];
	return NULL;
}

/* the parameter scan, once every option is read (-D may come after -P) */
static int finish_scan(struct parsing *ps, struct kerr *e)
{
	if (!ps->scan[0])
		return ps->step ? kerr_setc(e, KEXIT_USAGE, "-D is the step of --parameter-scan") : 0;
	if (!valid_param_name(ps->scan[0]))
		return kerr_setc(e, KEXIT_USAGE, "parameter name '%s': letters, digits and _ only", esc(ESC_TERM, ps->scan[0]));
	return scan_values(ps->b, ps->scan[0], ps->scan[1], ps->scan[2], ps->step, e);
}

/* counts that fit: names, one or one-per-command helpers, runs within their bounds */
static int check_counts(struct bench *b, struct kerr *e)
{
	if (!b->templates.n)
		return kerr_setc(e, KEXIT_USAGE, "no command to time");
	if (b->names.n > b->templates.n)
		return kerr_setc(e, KEXIT_USAGE, "%zu --command-name for %zu commands: one each at most", b->names.n,
				 b->templates.n);
	const struct strvec *per[] = { &b->prepares, &b->concludes, &b->setups, &b->cleanups };
	static const char *const what[] = { "--prepare", "--conclude", "--setup", "--cleanup" };
	for (size_t i = 0; i < ARRAY_SIZE(per); i++)
		if (per[i]->n > 1 && per[i]->n != b->templates.n)
			return kerr_setc(e, KEXIT_USAGE, "%zu %s for %zu commands: one for all, or one each", per[i]->n, what[i],
					 b->templates.n);
	if (b->show_output && b->output)
		return kerr_setc(e, KEXIT_USAGE, "--show-output is --output inherit: one or the other");
	if (b->runs && b->max_runs && b->runs > b->max_runs)
		return kerr_setc(e, KEXIT_USAGE, "--runs is above --max-runs");
	if (!b->max_runs)
		b->max_runs = b->runs ? b->runs : b->min_runs > 1000 ? b->min_runs : 1000;
	if (b->runs)
		b->min_runs = b->runs;
	if (b->min_runs > b->max_runs)
		return kerr_setc(e, KEXIT_USAGE, "--min-runs is above --max-runs");
	if (b->duet_cpus && !b->duet)
		return kerr_setc(e, KEXIT_USAGE, "--duet-cpus goes with --duet");
	return 0;
}

static int parse_args(struct bench *b, int argc, char **argv, struct kerr *e)
{
	struct option lo[ARRAY_SIZE(bench_opts) + 1];
	char so[3 * ARRAY_SIZE(bench_opts) + 1];
	getopt_tables(lo, so);
	struct parsing ps = { b, argc, argv, NULL, { NULL, NULL, NULL } };
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, so, lo, NULL)) != -1) {
		const struct bopt *o = opt_of(c);
		if (!o)
			return kerr_setc(e, KEXIT_USAGE, "unknown option or missing value");
		if (apply_opt(&ps, o, optarg, e) < 0)
			return -1;
	}
	if (finish_scan(&ps, e) < 0)
		return -1;
	for (int i = optind; i < argc; i++)
		sv_push(&b->templates, argv[i]);
	if (b->show_output)
		b->out = OUT_INHERIT;
	if (check_counts(b, e) < 0)
		return -1;
	sb_adds(&b->cmdline, "kiln bench");
	for (int i = 1; i < argc; i++)
		add_quoted(&b->cmdline, argv[i]);
	return 0;
}

/* ---- the commands ---- */

static const char *pick(const struct strvec *sv, size_t i)
{
	return sv->n == 0 ? NULL : sv->v[sv->n == 1 ? 0 : i];
}

/* template t with one combination of parameter values (idx[] into each's values) */
static void add_command(struct bench *b, size_t t, const size_t *idx)
{
	char **values = xcalloc(b->nparams + 1, sizeof(char *));
	json_t *params = json_object();
	for (size_t i = 0; i < b->nparams; i++) {
		values[i] = b->params[i].values.v[idx[i]];
		json_object_set_new(params, b->params[i].name, json_string(esc(ESC_JSON, values[i])));
	}
	b->cmds = xrealloc(b->cmds, (b->ncmds + 1) * sizeof(*b->cmds));
	struct bcmd *c = &b->cmds[b->ncmds++];
	memset(c, 0, sizeof(*c));
	c->text = subst(b->templates.v[t], b, values);
	c->name = subst(t < b->names.n ? b->names.v[t] : b->templates.v[t], b, values);
	c->params = params;
	const char *s;
	if ((s = pick(&b->prepares, t)))
		c->prepare = subst(s, b, values);
	if ((s = pick(&b->concludes, t)))
		c->conclude = subst(s, b, values);
	if ((s = pick(&b->setups, t)))
		c->setup = subst(s, b, values);
	if ((s = pick(&b->cleanups, t)))
		c->cleanup = subst(s, b, values);
	free(values);
}

/* every template with every combination of the parameters, in hyperfine's order */
static int expand(struct bench *b, struct kerr *e)
{
	size_t combos = 1;
	for (size_t i = 0; i < b->nparams; i++) {
		combos *= b->params[i].values.n;
		if (combos * b->templates.n > MAX_COMMANDS)
			return kerr_setc(e, KEXIT_USAGE, "more than %d commands once the parameters are expanded", MAX_COMMANDS);
	}
	size_t *idx = xcalloc(b->nparams + 1, sizeof(size_t));
	for (size_t t = 0; t < b->templates.n; t++)
		for (size_t n = 0; n < combos; n++) {
			size_t rest = n;
			for (size_t i = b->nparams; i-- > 0;) {
				idx[i] = rest % b->params[i].values.n;
				rest /= b->params[i].values.n;
			}
			add_command(b, t, idx);
		}
	free(idx);
	return 0;
}

/* a helper command (prepare, setup, cleanup) as a flattened argv list */
static int helper_argv(const struct bench *b, const char *text, struct strvec *out, struct kerr *e)
{
	if (!text)
		return 0;
	struct strvec w = STRVEC_INIT;
	if (b->shell) {
		sv_push(&w, b->shell);
		sv_push(&w, "-c");
		sv_push(&w, text);
	} else if (split_words(text, &w, e) < 0) {
		sv_clear(&w);
		return -1;
	}
	for (size_t i = 0; i < w.n; i++)
		sv_push(out, w.v[i]);
	sv_push(out, "");
	sv_clear(&w);
	return 0;
}

/* the VM that runs program `path` (one per program), made when new */
static struct vm_conf *vm_for(struct experiment *ex, const char *name, const char *path, const char *resolved,
			      const struct bench *b)
{
	for (size_t i = 0; i < ex->nvms; i++)
		if (!strcmp(ex->vms[i].resolved, resolved) && !strncmp(ex->vms[i].name, name, strlen(name)))
			return &ex->vms[i];
	ex->vms = xrealloc(ex->vms, (ex->nvms + 1) * sizeof(*ex->vms));
	struct vm_conf *vm = &ex->vms[ex->nvms++];
	memset(vm, 0, sizeof(*vm));
	vm->name = xstrdup(name);
	for (int n = 2; n < 1000; n++) {
		int taken = 0;
		for (size_t i = 0; i + 1 < ex->nvms; i++)
			taken |= !strcmp(ex->vms[i].name, vm->name);
		if (!taken)
			break;
		free(vm->name);
		vm->name = xasprintf("%s-%d", name, n);
	}
	vm->plugin = xstrdup("command");
	vm->pl = plugin_find("command");
	vm->path = xstrdup(path);
	vm->resolved = xstrdup(resolved);
	vm->variant = xstrdup("default-command");
	vm->ignore_exit = b->ignore_failure;
	if (b->shell)
		sv_push(&vm->args, "-c");
	return vm;
}

/* one command as a VM (its program) and a benchmark (its arguments) */
static int add_key(struct experiment *ex, struct bench *b, struct bcmd *c, struct kerr *e)
{
	struct strvec w = STRVEC_INIT;
	if (b->shell)
		sv_push(&w, b->shell), sv_push(&w, c->text);
	else if (split_words(c->text, &w, e) < 0) {
		sv_clear(&w);
		return -1;
	}
	char *resolved = find_in_path(w.v[0]);
	if (!resolved || !is_executable(resolved)) {
		kerr_setc(e, KEXIT_CONFIG, "command '%s': '%s' is not a program in PATH%s", esc(ESC_TERM, c->text),
			  esc(ESC_TERM, w.v[0]), b->shell ? "" : " (no shell runs it: --shell for shell syntax)");
		free(resolved);
		sv_clear(&w);
		return -1;
	}
	char *abs = abspath(resolved);
	free(resolved);
	fmt_command_names(c->text, c->name, &c->bench, &c->vm);
	struct vm_conf *vm = vm_for(ex, c->vm, w.v[0], abs, b);
	free(abs);
	free(c->vm);
	c->vm = xstrdup(vm->name);
	/* the same name twice: (2), (3)... as hyperfine files are read */
	char *base = c->bench;
	for (int n = 2; config_bench_named(ex, c->bench); n++) {
		if (c->bench != base)
			free(c->bench);
		c->bench = xasprintf("%s (%d)", base, n);
	}
	if (c->bench != base)
		free(base);
	ex->benchs = xrealloc(ex->benchs, (ex->nbenchs + 1) * sizeof(*ex->benchs));
	struct bench_conf *bc = &ex->benchs[ex->nbenchs++];
	memset(bc, 0, sizeof(*bc));
	bc->name = xstrdup(c->bench);
	bc->param = xstrdup("");
	for (size_t i = 1; i < w.n; i++)
		sv_push(&bc->args, w.v[i]);
	sv_clear(&w);
	c->key = xasprintf("%s:%s:default-command", c->bench, c->vm);
	sv_push(&ex->keys_only, c->key);
	if (helper_argv(b, c->prepare, &bc->prepare, e) < 0 || helper_argv(b, c->conclude, &bc->conclude, e) < 0 ||
	    helper_argv(b, c->setup, &bc->setup, e) < 0 || helper_argv(b, c->cleanup, &bc->cleanup, e) < 0)
		return -1;
	return 0;
}

/* meta "bench_commands": each key's command, name and parameters, and how it was run */
static char *bench_json(const struct bench *b)
{
	json_t *root = json_object(), *cmds = json_array();
	for (size_t i = 0; i < b->ncmds; i++) {
		const struct bcmd *c = &b->cmds[i];
		json_t *o = json_pack("{s:s, s:s, s:s, s:O}", "key", esc(ESC_JSON, c->key), "command",
				      esc(ESC_JSON, c->text), "name", esc(ESC_JSON, c->name), "parameters", c->params);
		json_array_append_new(cmds, o);
	}
	json_object_set_new(root, "commands", cmds);
	json_object_set_new(root, "shell", b->shell ? json_string(esc(ESC_JSON, b->shell)) : json_null());
	json_object_set_new(root, "warmup", json_integer(b->warmup));
	json_object_set_new(root, "ci", json_real(b->ci));
	char *t = json_dumps(root, JSON_COMPACT);
	json_decref(root);
	return t;
}

static int build(struct bench *b, struct experiment *ex, struct kerr *e)
{
	config_defaults(ex);
	char cwd[PATH_MAX];
	if (!getcwd(cwd, sizeof(cwd)))
		return kerr_set(e, "the current folder: cannot name it");
	/* runners start in the config's folder: here, the current one */
	ex->path = path_join(cwd, "kiln-bench");
	ex->text = xstrdup(sb_str(&b->cmdline));
	hash_hex(ex->text, strlen(ex->text), ex->hash);
	ex->name = xstrdup("kiln bench");
	ex->pexecs = b->runs ? b->runs : b->min_runs;
	ex->results = xstrdup(b->results_abs);
	ex->benchmarks_dir = xstrdup(cwd);
	for (size_t i = 0; i < b->ncmds; i++)
		if (add_key(ex, b, &b->cmds[i], e) < 0)
			return -1;
	return 0;
}

/* ---- where the commands' stdin and output go ---- */

/* a descriptor moved to 3 or above (exec.h keeps the child's 0-2 apart); -1 with e set */
static int fd_above_2(int fd, const char *what, struct kerr *e)
{
	if (fd > 2)
		return fd;
	int to = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	close(fd);
	if (to < 0)
		kerr_set(e, "%s: %s", what, strerror(errno));
	return to;
}

/* --input FILE: opened once, read-only, never through a link at its end, only a regular file */
static int open_input(struct bench *b, struct kerr *e)
{
	if (!b->input)
		return 0;
	char *dir = path_dirname(b->input);
	const char *slash = strrchr(b->input, '/');
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), fd = -1;
	if (dfd < 0)
		kerr_setc(e, KEXIT_CONFIG, "%s: %s", dir, strerror(errno));
	else
		fd = sfs_open_file_at(dfd, dir, slash ? slash + 1 : b->input, (uid_t)-1, NULL, e);
	if (dfd >= 0)
		close(dfd);
	free(dir);
	if (fd < 0)
		return kerr_wrap(e, "--input");
	b->in_fd = fd_above_2(fd, b->input, e);
	return b->in_fd < 0 ? -1 : 0;
}

/* --output null: /dev/null; FILE: kiln's own regular file, made 0600 when missing (safefs.h) */
static int open_output(struct bench *b, struct kerr *e)
{
	if (b->out == OUT_NULL) {
		int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			return kerr_set(e, "/dev/null: %s", strerror(errno));
		b->null_fd = fd_above_2(fd, "/dev/null", e);
		return b->null_fd < 0 ? -1 : 0;
	}
	if (b->out != OUT_FILE)
		return 0;
	int fd = sfs_open_output(b->output, getuid(), e);
	if (fd < 0)
		return kerr_wrap(e, "--output");
	b->out_fd = fd_above_2(fd, b->output, e);
	return b->out_fd < 0 ? -1 : 0;
}

/*
 * Each run's stdin and output (the run hook `spawn`): --input's FILE read
 * from its start, --output's FILE emptied (it holds the last run's output,
 * as hyperfine's), /dev/null or kiln's terminal; else kiln's capture.
 */
/* the runs begin: the CPU pressure is read from here (the commands' builds and probes are not the session's) */
static void hook_loop(void *ctx)
{
	struct bench *b = ctx;
	plat_pressure_begin(&b->psi);
}

static int hook_spawn(void *ctx, const char *key, struct exec_opts *eo, struct kerr *e)
{
	const struct bench *b = ctx;
	(void)key;
	if (b->in_fd >= 0 && lseek(b->in_fd, 0, SEEK_SET) < 0)
		return kerr_set(e, "--input %s: %s", b->input, strerror(errno));
	if (b->out_fd >= 0 && (ftruncate(b->out_fd, 0) < 0 || lseek(b->out_fd, 0, SEEK_SET) < 0))
		return kerr_set(e, "--output %s: %s", b->output, strerror(errno));
	eo->use_std_fds = 1;
	eo->std_fds[0] = b->in_fd;
	eo->std_fds[1] = b->out == OUT_FILE ? b->out_fd : b->out == OUT_NULL ? b->null_fd : -1;
	eo->std_fds[2] = b->out == OUT_NULL ? b->null_fd : -1;
	eo->no_capture = b->out == OUT_INHERIT;
	return 0;
}

/* ---- the run's hooks ---- */

static int hook_init(void *ctx, struct store *st, struct kerr *e)
{
	char *t = bench_json(ctx);
	int r = store_meta_set(st, "bench_commands", t, e);
	free(t);
	return r;
}

static const struct ds_key *ds_key_of(const struct dataset *ds, const struct sched_key *k)
{
	char *name = schedule_key_name(k);
	const struct ds_key *dk = ds_find_key(ds, name);
	free(name);
	return dk;
}

/* how many more runs key dk needs for its CI to be tight, within the bounds */
static long more_for(const struct bench *b, const struct ds_key *dk)
{
	long n = (long)dk->npexecs;
	double spent = 0;
	for (size_t p = 0; p < dk->npexecs; p++) {
		if (dk->pexecs[p].status == DS_FAILED || dk->pexecs[p].status == DS_TIMEOUT)
			return 0; /* a failing command: the run fails, no use timing it more */
		spent += dk->pexecs[p].n ? dk->pexecs[p].wall[0] : 0;
	}
	if (n >= b->max_runs || spent >= b->max_time)
		return 0;
	struct an_opts o;
	an_opts_default(&o);
	o.resamples = 2000; /* enough to decide whether to go on; the report uses the default */
	o.threads = 1;
	struct an_key ak;
	memset(&ak, 0, sizeof(ak));
	an_analyse_key(dk, &o, &ak);
	long more = 0;
	double half = (ak.perf_hi - ak.perf_lo) / 2, mean = ak.wp.mean;
	if (ak.np >= 2 && mean > 0 && half > b->ci * mean) {
		/* the half-width shrinks as 1/sqrt(n): the runs that would make it tight, at most as many again */
		double want = (double)ak.np * (half / (b->ci * mean)) * (half / (b->ci * mean));
		more = (long)ceil(want) - (long)ak.np;
		if (more > n)
			more = n;
		if (more < 2)
			more = 2;
		/* a double: only a count below more (a long) is made one */
		double by_time = ceil((b->max_time - spent) / mean);
		if ((double)more > by_time)
			more = by_time > 0 ? (long)by_time : 1;
		if (more > b->max_runs - n)
			more = b->max_runs - n;
	}
	an_key_free(&ak);
	return more;
}

/* may key dk run more: none of its runs failed, below --max-runs and --max-time */
static int may_run_more(const struct bench *b, const struct ds_key *dk)
{
	double spent = 0;
	for (size_t p = 0; p < dk->npexecs; p++) {
		if (dk->pexecs[p].status == DS_FAILED || dk->pexecs[p].status == DS_TIMEOUT)
			return 0;
		spent += dk->pexecs[p].n ? dk->pexecs[p].wall[0] : 0;
	}
	return (long)dk->npexecs < b->max_runs && spent < b->max_time;
}

/*
 * More rounds while a command's CI is wide: the runs are stored in rounds
 * (every command once per round, schedule.h), so every command that may
 * still run gets the rounds the widest needs, each within its own bounds,
 * and the comparison pairs them round by round.
 */
static void hook_more(void *ctx, const struct schedule *sc, long *more)
{
	struct bench *b = ctx;
	if (b->runs)
		return;
	struct dataset ds;
	struct kerr e = KERR_INIT;
	if (store_load_dataset(b->results_abs, &ds, &e) == 0) {
		long need = 0;
		for (size_t k = 0; k < sc->nkeys; k++) {
			const struct ds_key *dk = ds_key_of(&ds, &sc->keys[k]);
			more[k] = dk ? more_for(b, dk) : 0;
			need = more[k] > need ? more[k] : need;
		}
		for (size_t k = 0; k < sc->nkeys; k++) {
			const struct ds_key *dk = ds_key_of(&ds, &sc->keys[k]);
			long room = dk ? b->max_runs - (long)dk->npexecs : 0;
			more[k] = dk && may_run_more(b, dk) ? (need < room ? need : room) : 0;
		}
		ds_free(&ds);
	}
	kerr_release(&e);
}

/* ---- the summary ---- */

struct unit {
	const char *name;
	double scale;
	int prec;
};

static struct unit unit_for(const struct bench *b, double s)
{
	static const struct unit units[] = { { "s", 1, 3 }, { "ms", 1e3, 1 }, { "µs", 1e6, 1 }, { "ns", 1e9, 0 } };
	if (b->unit)
		return units[!strcmp(b->unit, "s") ? 0 : !strcmp(b->unit, "ms") ? 1 : 2];
	size_t i = 0;
	while (i + 1 < ARRAY_SIZE(units) && !(fabs(s) >= 1 / units[i].scale))
		i++;
	return units[i];
}

/* decimals for s in unit u: the unit's own, or more for three significant digits (2.31 ms, not 2.3) */
static int time_decimals(struct unit u, double s)
{
	int d = u.prec;
	double v = fabs(s * u.scale);
	if (v > 0 && isfinite(v)) {
		int d3 = 2 - (int)floor(log10(v));
		d = d3 > d ? d3 : d;
	}
	return d > 9 ? 9 : d;
}

static void add_time_d(struct strbuf *sb, struct unit u, double s, int width, int dec)
{
	if (!isfinite(s))
		sb_addf(sb, "%*s %s", width, "-", u.name);
	else
		sb_addf(sb, "%*.*f %s", width, dec, s * u.scale, u.name);
}

static void add_time(struct strbuf *sb, struct unit u, double s, int width)
{
	add_time_d(sb, u, s, width, time_decimals(u, s));
}

/* "1.42 ± 0.03", or the interval itself when lopsided; never a significant interval printed as touching 1 */
static const struct an_key *an_of(const struct an_result *r, const char *key)
{
	for (size_t i = 0; i < r->nkeys; i++)
		if (!strcmp(r->keys[i].key->key, key))
			return &r->keys[i];
	return NULL;
}

/* colours as hyperfine's, only when --style and the terminal allow (b->color) */
#define C_BOLD "\033[1m"
#define C_GREEN "\033[32m"
#define C_BGREEN "\033[1;32m"
#define C_BLUE "\033[34m"
#define C_CYAN "\033[36m"
#define C_MAGENTA "\033[35m"
#define C_DIM "\033[2m"
#define C_OFF "\033[0m"

static const char *col(const struct bench *b, const char *sgr)
{
	return b->color ? sgr : "";
}

/* a time in colour sgr */
static void add_time_c(struct strbuf *sb, const struct bench *b, const char *sgr, struct unit u, double s, int width)
{
	sb_adds(sb, col(b, sgr));
	add_time(sb, u, s, width);
	sb_adds(sb, col(b, C_OFF));
}

/* "Time", "Range" and "Mean, CI" of a command with completed runs */
static void add_stats(struct strbuf *sb, const struct bench *b, const struct an_key *k, double conf)
{
	const struct an_whole *w = &k->wp;
	struct unit u = unit_for(b, w->mean), uu = unit_for(b, isfinite(w->user) ? w->user : w->mean);
	sb_addf(sb, "  %sTime%s (%smean%s ± %sσ%s):   ", col(b, C_BOLD), col(b, C_OFF), col(b, C_BGREEN), col(b, C_OFF),
		col(b, C_GREEN), col(b, C_OFF));
	add_time_c(sb, b, C_BGREEN, u, w->mean, 8);
	sb_adds(sb, " ± ");
	add_time_c(sb, b, C_GREEN, u, w->sd, 6);
	sb_adds(sb, "    [User: ");
	add_time_c(sb, b, C_BLUE, uu, w->user, 0);
	sb_adds(sb, ", System: ");
	add_time_c(sb, b, C_BLUE, uu, w->sys, 0);
	sb_addf(sb, "]\n  Range (%smin%s … %smax%s): ", col(b, C_CYAN), col(b, C_OFF), col(b, C_MAGENTA), col(b, C_OFF));
	add_time_c(sb, b, C_CYAN, u, w->min, 8);
	sb_adds(sb, " … ");
	add_time_c(sb, b, C_MAGENTA, u, w->max, 6);
	sb_addf(sb, "    %s%zu runs%s\n  Mean, %g%% CI:      ", col(b, C_DIM), k->np, col(b, C_OFF), conf * 100);
	/* the interval's ends to three significant digits, and to two of its width */
	int dc = time_decimals(u, k->perf_lo), dw = time_decimals(u, (k->perf_hi - k->perf_lo) * 10);
	dc = dw > dc ? dw : dc;
	add_time_d(sb, u, k->perf_lo, 8, dc);
	sb_adds(sb, " … ");
	add_time_d(sb, u, k->perf_hi, 6, dc);
	sb_adds(sb, "    [Median: ");
	add_time(sb, u, w->median, 0);
	if (isfinite(w->rss_max) && w->rss_max > 0)
		sb_addf(sb, ", Max RSS: %.1f MiB", w->rss_max / 1024);
	sb_adds(sb, "]\n");
}

/* when the mean is the wrong question (stats.h: skew, heavy tails, a second mode, outliers, few runs): say so */
static void shape_line(struct strbuf *sb, const struct bench *b, const struct an_key *k, double conf)
{
	struct an_opts o;
	an_opts_default(&o);
	o.confidence = conf;
	struct ks_mean m;
	an_key_mean(k, &o, &m);
	if (!(m.shape & KS_WARN))
		return;
	sb_addf(sb, "  %sWarning%s: ", col(b, C_BOLD), col(b, C_OFF));
	ks_shape_text(&m, rep_add_time, sb);
	sb_addc(sb, '\n');
}

static void print_one(const struct bench *b, size_t i, const struct an_key *k, double conf)
{
	const struct bcmd *c = &b->cmds[i];
	printf("%sBenchmark %zu%s: %s\n", col(b, C_BOLD), i + 1, col(b, C_OFF), esc(ESC_TERM, c->name));
	size_t failed = k ? k->nskipped : 0;
	if (!k || !k->np || !k->whole) {
		printf("  no completed run%s\n\n", failed ? "s: every run failed" : "");
		return;
	}
	struct strbuf sb = STRBUF_INIT;
	add_stats(&sb, b, k, conf);
	const struct an_whole *w = &k->wp;
	double half = (k->perf_hi - k->perf_lo) / 2;
	if (!b->runs && half > b->ci * w->mean * 1.0001) {
		sb_adds(&sb, "  The CI is ±");
		ks_fmt_pct(&sb, 100 * half / w->mean, 2);
		sb_adds(&sb, " of the mean, not ");
		ks_fmt_pct(&sb, 100 * b->ci, 2);
		sb_adds(&sb, ": --max-time, --max-runs or --runs give it more runs\n");
	}
	if (failed)
		sb_addf(&sb, "  %zu run(s) not counted (failed or tainted): kiln status --failures %s\n", failed,
			esc(ESC_TERM, b->results_abs));
	shape_line(&sb, b, k, conf);
	fputs(sb.buf, stdout);
	putchar('\n');
	sb_release(&sb);
}

/* a command with completed runs, for the comparison */
struct ranked {
	size_t i;               /* its index in b->cmds */
	const struct an_key *k;
};

static int by_mean(const void *pa, const void *pb)
{
	const struct ranked *a = pa, *b = pb;
	if (a->k->wp.mean != b->k->wp.mean)
		return a->k->wp.mean < b->k->wp.mean ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

/* hyperfine's --sort: the comparison by mean time unless `command`; the markup tables by command unless `mean-time` */
static int sorted_by_mean(const struct bench *b, int tables)
{
	if (!b->sort || !strcmp(b->sort, "auto"))
		return !tables;
	return !strcmp(b->sort, "mean-time");
}

/* the commands with completed runs into v, in command order or by mean; how many */
static size_t ranked_of(const struct bench *b, const struct an_result *r, struct ranked *v)
{
	size_t n = 0;
	for (size_t i = 0; i < b->ncmds; i++) {
		const struct an_key *k = an_of(r, b->cmds[i].key);
		if (k && k->np && k->whole)
			v[n++] = (struct ranked){ i, k };
	}
	if (sorted_by_mean(b, 0))
		qsort(v, n, sizeof(*v), by_mean);
	return n;
}

/* what a ratio's interval says: a difference, none shown (it includes 1), or no interval at all */
enum ratio_is { R_APART, R_SAME, R_NONE };

/*
 * k's mean against the fastest's: the text of the ratio, its runs paired
 * by round (rounds.h: each round's runs of the two commands a pair, so
 * that what the machine did in one round falls on both), or unpaired for
 * results without rounds; and what it could have seen (the smallest change
 * detectable at 80% power) in *mde.  Returns what its interval says.
 */
static enum ratio_is ratio_text(const struct an_key *best, const struct an_key *k, const struct an_opts *o,
				struct strbuf *sb, double *mde)
{
	struct ks_ratio q;
	rounds_ratio(best, k, o->confidence, &q);
	*mde = q.ok ? q.mde : NAN;
	ks_fmt_ratio(sb, q.ok ? q.ratio : k->wp.mean / best->wp.mean, q.ok ? q.lo : NAN, q.ok ? q.hi : NAN, 3);
	if (!q.ok)
		return R_NONE; /* a command of one run (-r 1): a bare ratio, which must not read as an interval's */
	return q.lo <= 1 && q.hi >= 1 ? R_SAME : R_APART;
}

/* "could see ±2.1%", what a ratio could have seen, or why it has no interval */
static void could_see(struct strbuf *sb, enum ratio_is is, double mde)
{
	if (is == R_NONE)
		sb_adds(sb, "no interval: too few runs");
	else if (isfinite(mde)) {
		sb_adds(sb, "could see ±");
		ks_fmt_pct(sb, 100 * mde, 2);
	}
}

/*
 * --sort command: every command in its order, its ratio to the fastest
 * (hyperfine's "Relative speed comparison"); returns the ratio_is seen,
 * a bit each
 */
static unsigned print_relative(const struct bench *b, const struct ranked *v, size_t n, const struct ranked *best,
			       const struct an_opts *o)
{
	unsigned seen = 0;
	printf("%sRelative speed comparison%s\n", col(b, C_BOLD), col(b, C_OFF));
	for (size_t j = 0; j < n; j++) {
		struct strbuf sb = STRBUF_INIT;
		enum ratio_is is = R_APART;
		double mde = NAN;
		if (&v[j] == best)
			sb_adds(&sb, "1.00");
		else
			is = ratio_text(best->k, v[j].k, o, &sb, &mde);
		if (&v[j] != best && (is == R_NONE || isfinite(mde))) {
			sb_adds(&sb, ", ");
			could_see(&sb, is, mde);
		}
		if (&v[j] != best)
			seen |= 1u << is;
		size_t w = display_width(sb.buf);
		printf("  %s%s%s%*s  %s%s\n", col(b, C_BGREEN), sb.buf, col(b, C_OFF), w < 18 ? (int)(18 - w) : 0, "",
		       esc(ESC_TERM, b->cmds[v[j].i].name), is == R_SAME ? " (*)" : "");
		sb_release(&sb);
	}
	return seen;
}

/* by mean time: the fastest, then how much faster it ran than each of the others; the ratio_is seen, a bit each */
static unsigned print_faster(const struct bench *b, const struct ranked *v, size_t n, const struct ranked *best,
			     const struct an_opts *o)
{
	unsigned seen = 0;
	printf("%sSummary%s\n  '%s%s%s' ran\n", col(b, C_BOLD), col(b, C_OFF), col(b, C_CYAN),
	       esc(ESC_TERM, b->cmds[best->i].name), col(b, C_OFF));
	for (size_t j = 0; j < n; j++) {
		if (&v[j] == best)
			continue;
		struct strbuf sb = STRBUF_INIT, see = STRBUF_INIT;
		double mde;
		enum ratio_is is = ratio_text(best->k, v[j].k, o, &sb, &mde);
		seen |= 1u << is;
		could_see(&see, is, mde);
		printf("    %s%s%s times faster than '%s%s%s'%s%s%s%s\n", col(b, C_BGREEN), sb.buf, col(b, C_OFF),
		       col(b, C_MAGENTA), esc(ESC_TERM, b->cmds[v[j].i].name), col(b, C_OFF), see.len ? " (" : "", see.buf ? see.buf : "",
		       see.len ? ")" : "", is == R_SAME ? " (*)" : "");
		sb_release(&sb);
		sb_release(&see);
	}
	return seen;
}

/* which command was fastest, and by how much, with the interval of each ratio */
static void print_ratios(const struct bench *b, const struct an_result *r, const struct an_opts *o)
{
	struct ranked *v = xcalloc(b->ncmds + 1, sizeof(*v));
	size_t n = ranked_of(b, r, v);
	const struct ranked *best = NULL;
	for (size_t j = 0; j < n; j++)
		if (!best || v[j].k->wp.mean < best->k->wp.mean)
			best = &v[j];
	if (b->ncmds >= 2 && n < 2) {
		/* a ratio needs two commands with runs: the rest failed every run (said above each) */
		printf("\nSummary\n  no ratio: %zu of %zu commands completed a run\n", n, b->ncmds);
	} else if (best && b->ncmds >= 2) {
		unsigned seen = sorted_by_mean(b, 0) ? print_faster(b, v, n, best, o) : print_relative(b, v, n, best, o);
		/* the legend of the intervals printed: a bare ratio (R_NONE) has neither ± nor could see */
		if (seen & (1u << R_APART | 1u << R_SAME))
			printf("  ± is half the %g%% confidence interval of the ratio of means, the runs paired by round "
			       "(docs/statistics.md);\n  could see: the smallest change these runs would show 4 times in 5\n",
			       o->confidence * 100);
		if (seen & 1u << R_SAME)
			printf("  (*) the interval includes 1: no difference shown at this confidence\n");
	}
	free(v);
}

static int write_exports(const struct bench *b, const struct dataset *ds, int *code)
{
	const struct { const char *path; const struct kiln_format *f; } out[] = {
		{ b->export_json, &fmt_hyperfine }, { b->export_md, &fmt_hyperfine_md }, { b->export_csv, &fmt_hyperfine_csv },
		{ b->export_adoc, &fmt_hyperfine_adoc }, { b->export_org, &fmt_hyperfine_org },
	};
	char *bj = bench_json(b);
	struct fmt_extra x = { .bench_json = bj, .sort_by_mean = sorted_by_mean(b, 1), .time_unit = b->unit };
	for (size_t i = 0; i < ARRAY_SIZE(out); i++) {
		struct kerr e = KERR_INIT;
		if (out[i].path && fmt_write_file(out[i].f, ds, &x, out[i].path, &e) < 0) {
			kerr_wrap(&e, "%s", out[i].path);
			kerr_print(&e);
			*code = KEXIT_FAIL;
		}
		kerr_release(&e);
	}
	if (b->json) {
		struct strbuf sb = STRBUF_INIT;
		struct kerr e = KERR_INIT;
		if (fmt_hyperfine.write(ds, &x, &sb, &e) == 0)
			fputs(sb.buf, stdout);
		else
			kerr_print(&e), *code = KEXIT_FAIL;
		sb_release(&sb);
		kerr_release(&e);
	}
	free(bj);
	return 0;
}

/* after the run: the summary from the results file (its analysis cached there for kiln report) */
static int summarise(const struct bench *b, int code)
{
	double cpu_wait = plat_pressure_share(&b->psi); /* the session ended with its runs */
	struct an_opts o;
	an_opts_default(&o);
	struct dataset ds;
	struct an_result r;
	struct cmd_an_args all = { .inputs = { b->results_abs, NULL } };
	int lc = cmd_load_analysed(b->results_abs, &all, &o, &ds, &r);
	if (lc)
		return lc;
	/* the session, for kiln diff's session-to-session sd (session-record.h); a duet is not a session alone */
	struct kerr re = KERR_INIT;
	if (!b->duet && srec_add_session(b->results_abs, &r, &re) < 0)
		kiln_warn("not recorded for kiln diff: %s", sb_str(&re.msg));
	kerr_release(&re);
	if (!b->json && !b->silent) {
		for (size_t i = 0; i < b->ncmds; i++)
			print_one(b, i, an_of(&r, b->cmds[i].key), o.confidence);
		print_ratios(b, &r, &o);
		struct strbuf sb = STRBUF_INIT;
		compare_pressure_lines(&sb, &b->psi, cpu_wait, b->duet);
		if (sb.len)
			printf("\n%s", sb.buf);
		sb_release(&sb);
	} else if (b->duet && cpu_wait > COMPARE_DUET_PRESSURE) {
		kiln_warn("the CPUs were contended %.0f%% of the session (over %.0f%%): a duet's pairs were hit unevenly; "
			  "rounds (without --duet) do not need two free CPUs", 100 * cpu_wait, 100 * COMPARE_DUET_PRESSURE);
	}
	write_exports(b, &ds, &code);
	if (!b->quiet && !b->json && !b->silent)
		printf("%sResults: %s (kiln report, kiln diff, kiln plot read it)\n", b->ncmds > 1 ? "\n" : "",
		       esc(ESC_TERM, b->results_abs));
	an_result_free(&r);
	ds_free(&ds);
	return code;
}

static void bench_free(struct bench *b)
{
	for (size_t i = 0; i < b->ncmds; i++) {
		struct bcmd *c = &b->cmds[i];
		free(c->text);
		free(c->name);
		json_decref(c->params);
		free(c->prepare);
		free(c->conclude);
		free(c->setup);
		free(c->cleanup);
		free(c->bench);
		free(c->vm);
		free(c->key);
	}
	free(b->cmds);
	for (size_t i = 0; i < b->nparams; i++) {
		free(b->params[i].name);
		sv_clear(&b->params[i].values);
	}
	free(b->params);
	sv_clear(&b->templates);
	sv_clear(&b->names);
	sv_clear(&b->prepares);
	sv_clear(&b->concludes);
	sv_clear(&b->setups);
	sv_clear(&b->cleanups);
	free(b->results_abs);
	sb_release(&b->cmdline);
	int fds[] = { b->out_fd, b->in_fd, b->null_fd };
	for (size_t i = 0; i < ARRAY_SIZE(fds); i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

/*
 * hyperfine's --style: colour (only on a terminal and without NO_COLOR,
 * whatever the style), the progress line, and for `none` no output but
 * errors.  The commands' own output on the terminal (auto): no progress
 * between it, as hyperfine's basic.
 */
static void apply_style(struct bench *b, struct run_opts *o)
{
	const char *s = b->style ? b->style : "auto";
	b->color = one_of("auto|full|color", s) && kiln_color(stdout);
	b->silent = !strcmp(s, "none");
	o->quiet = b->quiet || b->json || b->silent;
	o->no_progress = one_of("basic|color", s) || (!strcmp(s, "auto") && b->out == OUT_INHERIT);
}

static int cmd_bench(int argc, char **argv)
{
	const struct cmd_entry *ce = &cmd_bench_entry;
	if (cmd_wants_help(ce, argc, argv))
		return 0;
	struct bench b;
	memset(&b, 0, sizeof(b));
	b.min_runs = 10;
	b.ci = 0.01;
	b.max_time = 10;
	b.out_fd = b.in_fd = b.null_fd = -1;
	struct kerr e = KERR_INIT;
	struct experiment ex;
	memset(&ex, 0, sizeof(ex));
	int code;
	if (parse_args(&b, argc, argv, &e) < 0) {
		code = cmd_usage_error(ce, "%s", sb_str(&e.msg));
		goto out;
	}
	b.results_abs = abspath(b.results ? b.results : "bench.kiln.db");
	if (expand(&b, &e) < 0 || (b.duet && b.ncmds != 2 && kerr_setc(&e, KEXIT_USAGE, "--duet runs two commands side "
		"by side: %zu commands were given", b.ncmds) < 0) || build(&b, &ex, &e) < 0 || open_input(&b, &e) < 0 ||
	    open_output(&b, &e) < 0) {
		code = e.code == KEXIT_USAGE ? cmd_usage_error(ce, "%s", sb_str(&e.msg)) : (kerr_print(&e), e.code);
		goto out;
	}
	struct run_hooks hooks = { .ctx = &b, .init = hook_init, .more = hook_more, .spawn = hook_spawn,
				   .loop = hook_loop };
	struct run_opts o;
	memset(&o, 0, sizeof(o));
	o.order = b.duet ? ORDER_DUET : ORDER_ROUNDS;
	o.duet_cpus = b.duet_cpus;
	o.results = b.results_abs;
	apply_style(&b, &o);
	o.warmup = b.warmup;
	o.scratch = "bench";
	o.hooks = &hooks;
	code = run_experiment_ex(&ex, "kiln bench", &o, &e);
	/* failed runs are said with the summary; anything else that went wrong, here */
	int failed_runs = run_failed_pexecs(code, &e) > 0;
	if (code != KEXIT_OK && !failed_runs)
		kerr_print(&e);
	if (code == KEXIT_OK || failed_runs)
		code = summarise(&b, code);
	if (failed_runs)
		kiln_error("some runs failed (-i ignores exit statuses): kiln status --failures %s",
			   esc(ESC_TERM, b.results_abs));
out:
	config_free(&ex);
	bench_free(&b);
	kerr_release(&e);
	return code;
}
