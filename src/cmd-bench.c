/*
 * cmd-bench.c - `kiln bench 'CMD' ['CMD'...]`: hyperfine's job, on kiln's
 * run path.
 *
 * The commands (after --parameter-scan/--parameter-list expansion) become
 * an experiment built in memory: one `command`-plugin VM per program, one
 * benchmark per command, only the intended keys (experiment.keys_only).
 * run_experiment_ex() runs it exactly as `kiln run` runs a config: the
 * stored schedule (interleaved: run n of every command before run n+1),
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
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis.h"
#include "cmd.h"
#include "config.h"
#include "fmt.h"
#include "plugin.h"
#include "run.h"
#include "store.h"

static int cmd_bench(int argc, char **argv);

const struct cmd_entry cmd_bench_entry = {
	.name = "bench",
	.usage = "'CMD' ['CMD'...] [-w N] [-r N | -m N -M N --ci P% --max-time S] [-p CMD] [-s CMD] [-c CMD]\n"
		 "                  [-P NAME LO HI [-D STEP]] [-L NAME A,B,...] [-S SHELL|--shell|-N] [-i] [-n NAME]\n"
		 "                  [--export-json F] [--export-markdown F] [--export-csv F] [-o RESULTS] [-u UNIT]\n"
		 "                  [--json] [-q]",
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
		"      --export-json FILE    hyperfine's JSON layout (its scripts read it)\n"
		"      --export-markdown FILE, --export-csv FILE   hyperfine's table layouts\n"
		"  -o, --results FILE        the kiln results file (bench.kiln.db; a previous kiln bench's\n"
		"                            file is replaced, any other kiln file refused)\n"
		"  -u, --time-unit UNIT      s, ms or us for every time (default: the one that fits)\n"
		"      --json                hyperfine's JSON layout on stdout instead of the text\n"
		"  -q, --quiet               no progress, only the summary\n"
		"\nThe results file takes kiln report, diff, plot and export like any run.\n"
		"Exit status: 0 every run ok, 1 a run failed, 2 usage, 3 a command's program not found or\n"
		"a bad parameter, 4 the results file in use, 5 it is unusable, 130 interrupted.\n",
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
	char *prepare, *setup, *cleanup; /* NULL: none */
	char *bench, *vm, *key;
};

struct bench {
	long warmup, runs, min_runs, max_runs;
	double ci, max_time;
	const char *shell;
	int ignore_failure, quiet, json;
	const char *results, *export_json, *export_md, *export_csv, *unit;
	struct strvec templates, names, prepares, setups, cleanups;
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
	if (*s && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,%+") == strlen(s)) {
		sb_adds(sb, s);
		return;
	}
	sb_addc(sb, '\'');
	for (; *s; s++)
		*s == '\'' ? sb_adds(sb, "'\\''") : sb_addc(sb, *s);
	sb_addc(sb, '\'');
}

static int parse_long_opt(const char *what, const char *v, long lo, long *out, struct kerr *e)
{
	if (parse_long(v, out) || *out < lo)
		return kerr_setc(e, KEXIT_USAGE, "%s needs a whole number >= %ld, not '%s'", what, lo, esc(ESC_TERM, v));
	return 0;
}

static int parse_args(struct bench *b, int argc, char **argv, struct kerr *e)
{
	enum { O_CI = 256, O_MAXTIME, O_JSONF, O_MD, O_CSV, O_JSON };
	static const struct option opts[] = {
		{ "warmup", required_argument, NULL, 'w' }, { "runs", required_argument, NULL, 'r' },
		{ "min-runs", required_argument, NULL, 'm' }, { "max-runs", required_argument, NULL, 'M' },
		{ "ci", required_argument, NULL, O_CI }, { "max-time", required_argument, NULL, O_MAXTIME },
		{ "prepare", required_argument, NULL, 'p' }, { "setup", required_argument, NULL, 's' },
		{ "cleanup", required_argument, NULL, 'c' }, { "parameter-scan", required_argument, NULL, 'P' },
		{ "parameter-step-size", required_argument, NULL, 'D' },
		{ "parameter-list", required_argument, NULL, 'L' }, { "shell", optional_argument, NULL, 'S' },
		{ "ignore-failure", no_argument, NULL, 'i' }, { "command-name", required_argument, NULL, 'n' },
		{ "export-json", required_argument, NULL, O_JSONF }, { "export-markdown", required_argument, NULL, O_MD },
		{ "export-csv", required_argument, NULL, O_CSV }, { "results", required_argument, NULL, 'o' },
		{ "time-unit", required_argument, NULL, 'u' }, { "json", no_argument, NULL, O_JSON },
		{ "quiet", no_argument, NULL, 'q' }, { NULL, 0, NULL, 0 },
	};
	const char *step = NULL, *scan[3] = { NULL, NULL, NULL };
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "w:r:m:M:p:s:c:P:D:L:S:Nin:o:u:q", opts, NULL)) != -1) {
		int r = 0;
		switch (c) {
		case 'w': r = parse_long_opt("--warmup", optarg, 0, &b->warmup, e); break;
		case 'r': r = parse_long_opt("--runs", optarg, 1, &b->runs, e); break;
		case 'm': r = parse_long_opt("--min-runs", optarg, 2, &b->min_runs, e); break;
		case 'M': r = parse_long_opt("--max-runs", optarg, 1, &b->max_runs, e); break;
		case O_CI: {
			char *v = xstrdup(optarg);
			size_t n = strlen(v);
			if (n && v[n - 1] == '%')
				v[n - 1] = '\0';
			if (parse_double(v, &b->ci) || !(b->ci > 0) || b->ci >= 100)
				r = kerr_setc(e, KEXIT_USAGE, "--ci needs a percentage above 0, like 1%%");
			b->ci /= 100;
			free(v);
			break;
		}
		case O_MAXTIME:
			if (parse_double(optarg, &b->max_time) || !(b->max_time > 0) || !isfinite(b->max_time))
				r = kerr_setc(e, KEXIT_USAGE, "--max-time needs seconds above 0");
			break;
		case 'p': sv_push(&b->prepares, optarg); break;
		case 's': sv_push(&b->setups, optarg); break;
		case 'c': sv_push(&b->cleanups, optarg); break;
		case 'P':
			if (optind + 1 >= argc)
				return kerr_setc(e, KEXIT_USAGE, "--parameter-scan needs NAME LO HI");
			scan[0] = optarg, scan[1] = argv[optind], scan[2] = argv[optind + 1];
			optind += 2;
			break;
		case 'D': step = optarg; break;
		case 'L': {
			const char *list = optind < argc ? argv[optind++] : NULL;
			if (!list)
				return kerr_setc(e, KEXIT_USAGE, "--parameter-list needs NAME and VALUES");
			if (!valid_param_name(optarg))
				return kerr_setc(e, KEXIT_USAGE, "parameter name '%s': letters, digits and _ only", esc(ESC_TERM, optarg));
			r = list_values(b, optarg, list, e);
			break;
		}
		case 'S': b->shell = optarg && *optarg ? optarg : "/bin/sh"; break;
		case 'N': b->shell = NULL; break;
		case 'i': b->ignore_failure = 1; break;
		case 'n': sv_push(&b->names, optarg); break;
		case O_JSONF: b->export_json = optarg; break;
		case O_MD: b->export_md = optarg; break;
		case O_CSV: b->export_csv = optarg; break;
		case 'o': b->results = optarg; break;
		case 'u':
			if (strcmp(optarg, "s") && strcmp(optarg, "ms") && strcmp(optarg, "us") && strcmp(optarg, "µs"))
				r = kerr_setc(e, KEXIT_USAGE, "--time-unit is s, ms or us");
			b->unit = optarg;
			break;
		case O_JSON: b->json = 1; break;
		case 'q': b->quiet = 1; break;
		default: return kerr_setc(e, KEXIT_USAGE, "unknown option or missing value");
		}
		if (r < 0)
			return -1;
	}
	if (scan[0]) {
		if (!valid_param_name(scan[0]))
			return kerr_setc(e, KEXIT_USAGE, "parameter name '%s': letters, digits and _ only", esc(ESC_TERM, scan[0]));
		if (scan_values(b, scan[0], scan[1], scan[2], step, e) < 0)
			return -1;
	} else if (step) {
		return kerr_setc(e, KEXIT_USAGE, "-D is the step of --parameter-scan");
	}
	for (int i = optind; i < argc; i++)
		sv_push(&b->templates, argv[i]);
	if (!b->templates.n)
		return kerr_setc(e, KEXIT_USAGE, "no command to time");
	if (b->names.n > b->templates.n)
		return kerr_setc(e, KEXIT_USAGE, "%zu --command-name for %zu commands: one each at most", b->names.n,
				 b->templates.n);
	const struct strvec *per[] = { &b->prepares, &b->setups, &b->cleanups };
	static const char *const what[] = { "--prepare", "--setup", "--cleanup" };
	for (size_t i = 0; i < ARRAY_SIZE(per); i++)
		if (per[i]->n > 1 && per[i]->n != b->templates.n)
			return kerr_setc(e, KEXIT_USAGE, "%zu %s for %zu commands: one for all, or one each", per[i]->n, what[i],
					 b->templates.n);
	if (b->runs && b->max_runs && b->runs > b->max_runs)
		return kerr_setc(e, KEXIT_USAGE, "--runs is above --max-runs");
	if (!b->max_runs)
		b->max_runs = b->runs ? b->runs : b->min_runs > 1000 ? b->min_runs : 1000;
	if (b->runs)
		b->min_runs = b->runs;
	if (b->min_runs > b->max_runs)
		return kerr_setc(e, KEXIT_USAGE, "--min-runs is above --max-runs");
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

static int bench_taken(const struct experiment *ex, const char *name)
{
	for (size_t i = 0; i < ex->nbenchs; i++)
		if (!strcmp(ex->benchs[i].name, name))
			return 1;
	return 0;
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
	for (int n = 2; bench_taken(ex, c->bench); n++) {
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
	if (helper_argv(b, c->prepare, &bc->prepare, e) < 0 || helper_argv(b, c->setup, &bc->setup, e) < 0 ||
	    helper_argv(b, c->cleanup, &bc->cleanup, e) < 0)
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
		long by_time = (long)ceil((b->max_time - spent) / mean);
		if (more > by_time)
			more = by_time > 0 ? by_time : 1;
		if (more > b->max_runs - n)
			more = b->max_runs - n;
	}
	an_key_free(&ak);
	return more;
}

static void hook_more(void *ctx, const struct schedule *sc, long *more)
{
	struct bench *b = ctx;
	if (b->runs)
		return;
	struct dataset ds;
	struct kerr e = KERR_INIT;
	if (store_load_dataset(b->results_abs, &ds, &e) == 0) {
		for (size_t k = 0; k < sc->nkeys; k++) {
			const struct ds_key *dk = ds_key_of(&ds, &sc->keys[k]);
			more[k] = dk ? more_for(b, dk) : 0;
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

static void add_time(struct strbuf *sb, struct unit u, double s, int width)
{
	if (!isfinite(s))
		sb_addf(sb, "%*s %s", width, "-", u.name);
	else
		sb_addf(sb, "%*.*f %s", width, u.prec, s * u.scale, u.name);
}

/* "1.42 ± 0.03", or the interval itself when it is lopsided */
static void add_ratio(struct strbuf *sb, const struct an_ratio *r)
{
	double up = r->hi - r->med, down = r->med - r->lo;
	if (fabs(up - down) > 0.25 * (up > down ? up : down))
		sb_addf(sb, "%.2f (%.2f–%.2f)", r->med, r->lo, r->hi);
	else
		sb_addf(sb, "%.2f ± %.2f", r->med, (r->hi - r->lo) / 2);
}

static const struct an_key *an_of(const struct an_result *r, const char *key)
{
	for (size_t i = 0; i < r->nkeys; i++)
		if (!strcmp(r->keys[i].key->key, key))
			return &r->keys[i];
	return NULL;
}

static void print_one(const struct bench *b, size_t i, const struct an_key *k, double conf)
{
	const struct bcmd *c = &b->cmds[i];
	printf("Benchmark %zu: %s\n", i + 1, esc(ESC_TERM, c->name));
	size_t failed = k ? k->nskipped : 0;
	if (!k || !k->np || !k->whole) {
		printf("  no completed run%s\n\n", failed ? "s: every run failed" : "");
		return;
	}
	const struct an_whole *w = &k->wp;
	struct unit u = unit_for(b, w->mean);
	struct strbuf sb = STRBUF_INIT;
	sb_adds(&sb, "  Time (mean ± σ):   ");
	add_time(&sb, u, w->mean, 8);
	sb_adds(&sb, " ± ");
	add_time(&sb, u, w->sd, 6);
	struct unit uu = unit_for(b, isfinite(w->user) ? w->user : w->mean);
	sb_adds(&sb, "    [User: ");
	add_time(&sb, uu, w->user, 0);
	sb_adds(&sb, ", System: ");
	add_time(&sb, uu, w->sys, 0);
	sb_adds(&sb, "]\n  Range (min … max): ");
	add_time(&sb, u, w->min, 8);
	sb_adds(&sb, " … ");
	add_time(&sb, u, w->max, 6);
	sb_addf(&sb, "    %zu runs\n  Mean, %g%% CI:      ", k->np, conf * 100);
	add_time(&sb, u, k->perf_lo, 8);
	sb_adds(&sb, " … ");
	add_time(&sb, u, k->perf_hi, 6);
	sb_adds(&sb, "    [Median: ");
	add_time(&sb, u, w->median, 0);
	if (isfinite(w->rss_max) && w->rss_max > 0)
		sb_addf(&sb, ", Max RSS: %.1f MiB", w->rss_max / 1024);
	sb_adds(&sb, "]\n");
	double half = (k->perf_hi - k->perf_lo) / 2;
	if (!b->runs && half > b->ci * w->mean * 1.0001)
		sb_addf(&sb, "  The CI is ±%.2g%% of the mean, not %.2g%%: --max-time, --max-runs or --runs give it more runs\n",
			100 * half / w->mean, 100 * b->ci);
	if (failed)
		sb_addf(&sb, "  %zu run(s) not counted (failed or tainted): kiln status --failures %s\n", failed,
			esc(ESC_TERM, b->results_abs));
	fputs(sb.buf, stdout);
	putchar('\n');
	sb_release(&sb);
}

/* which command was fastest, and by how much, with the interval of each ratio */
static void print_ratios(const struct bench *b, const struct an_result *r, const struct an_opts *o)
{
	const struct an_key *best = NULL;
	size_t bi = 0;
	for (size_t i = 0; i < b->ncmds; i++) {
		const struct an_key *k = an_of(r, b->cmds[i].key);
		if (k && k->np && k->whole && (!best || k->wp.mean < best->wp.mean))
			best = k, bi = i;
	}
	if (!best || b->ncmds < 2)
		return;
	printf("Summary\n  '%s' ran\n", esc(ESC_TERM, b->cmds[bi].name));
	int unsure = 0;
	for (size_t i = 0; i < b->ncmds; i++) {
		const struct an_key *k = an_of(r, b->cmds[i].key);
		if (i == bi || !k || !k->np || !k->whole)
			continue;
		struct an_ratio q = an_ratio_ci(best, k, o);
		struct strbuf sb = STRBUF_INIT;
		if (q.ok)
			add_ratio(&sb, &q);
		else
			sb_addf(&sb, "%.2f", k->wp.mean / best->wp.mean);
		int same = q.ok && q.lo <= 1;
		unsure |= same;
		printf("    %s times faster than '%s'%s\n", sb.buf, esc(ESC_TERM, b->cmds[i].name), same ? " (*)" : "");
		sb_release(&sb);
	}
	printf("  ± is half the %g%% confidence interval of the ratio of means (bootstrap)\n", o->confidence * 100);
	if (unsure)
		printf("  (*) the interval includes 1: no difference shown at this confidence\n");
}

static int write_exports(const struct bench *b, const struct dataset *ds, int *code)
{
	const struct { const char *path; const struct kiln_format *f; } out[] = {
		{ b->export_json, &fmt_hyperfine }, { b->export_md, &fmt_hyperfine_md }, { b->export_csv, &fmt_hyperfine_csv },
	};
	char *bj = bench_json(b);
	struct fmt_extra x = { .bench_json = bj };
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
	struct an_opts o;
	an_opts_default(&o);
	struct dataset ds;
	struct an_result r;
	struct cmd_an_args all = { .inputs = { b->results_abs, NULL } };
	int lc = cmd_load_analysed(b->results_abs, &all, &o, &ds, &r);
	if (lc)
		return lc;
	if (!b->json) {
		for (size_t i = 0; i < b->ncmds; i++)
			print_one(b, i, an_of(&r, b->cmds[i].key), o.confidence);
		print_ratios(b, &r, &o);
	}
	write_exports(b, &ds, &code);
	if (!b->quiet && !b->json)
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
	sv_clear(&b->setups);
	sv_clear(&b->cleanups);
	free(b->results_abs);
	sb_release(&b->cmdline);
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
	struct kerr e = KERR_INIT;
	struct experiment ex;
	memset(&ex, 0, sizeof(ex));
	int code;
	if (parse_args(&b, argc, argv, &e) < 0) {
		code = cmd_usage_error(ce, "%s", sb_str(&e.msg));
		goto out;
	}
	b.results_abs = abspath(b.results ? b.results : "bench.kiln.db");
	if (expand(&b, &e) < 0 || build(&b, &ex, &e) < 0) {
		code = e.code == KEXIT_USAGE ? cmd_usage_error(ce, "%s", sb_str(&e.msg)) : (kerr_print(&e), e.code);
		goto out;
	}
	struct run_hooks hooks = { &b, hook_init, hook_more };
	struct run_opts o;
	memset(&o, 0, sizeof(o));
	o.order = ORDER_INTERLEAVED;
	o.results = b.results_abs;
	o.quiet = b.quiet || b.json;
	o.warmup = b.warmup;
	o.scratch = "bench";
	o.hooks = &hooks;
	code = run_experiment_ex(&ex, "kiln bench", &o, &e);
	/* failed runs are said with the summary; anything else that went wrong, here */
	int failed_runs = code == KEXIT_FAIL && strstr(sb_str(&e.msg), "pexec(s) failed");
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
