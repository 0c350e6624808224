/*
 * cmd-compare.c - `kiln compare CONFIG --vm A --vm B`: two builds of a VM
 * measured in one session, interleaved, and the ratio of their steady
 * states with an interval that the machine's moods cannot decide.
 *
 * The config's experiment is kept but for its VMs: the two sides, each a VM
 * of the config (--vm NAME) or a copy of one with another executable
 * (--vm LABEL=PATH: the config's VM, or --like's, run from PATH), and only
 * the benchmarks both run.  run_experiment_ex() runs it as `kiln run` runs
 * a config (the same pexecs, in-process iterations and all, results,
 * resume, progress), in rounds (schedule.h: every key once per round in a
 * random order of its own; --duet: A and B of a benchmark at the same time
 * on two CPUs).  The run hook `more` adds rounds up to --rounds, or while
 * --time lasts.  Then each side gets the warmup analysis of every kiln
 * report (an_analyse_key, through the analysis cache), and each benchmark
 * the ratio B/A of the steady-state means from the per-pexec steady means
 * paired by round (rounds.h, stats.h's ks_ratio_paired) with the smallest
 * change it could have shown; compare-out.c prints it as text, Markdown or
 * JSON.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "analysis.h"
#include "cmd.h"
#include "compare.h"
#include "config.h"
#include "platform.h"
#include "run.h"
#include "store.h"

static int cmd_compare(int argc, char **argv);

const struct cmd_entry cmd_compare_entry = {
	.name = "compare",
	.usage = "CONFIG --vm A --vm B [--like VM] [--duet [--duet-cpus C,D]] [--rounds N | --time T]\n"
		 "                    [-k BENCH]... [-o RESULTS] [--format text|markdown|json] [--json] [--force]\n"
		 "                    [--retry-failed] [--max-pexecs N] [-q] [analysis options]",
	.summary = "two builds of a VM measured interleaved in one session: the ratio of their steady states",
	.help = "A and B are VMs of CONFIG (NAME), or copies of its VM run from another executable\n"
		"(LABEL=PATH: CONFIG's only VM, or --like's); B/A > 1 means B is slower.  Every\n"
		"benchmark both run is measured as kiln run measures it, in rounds: each round runs\n"
		"each key once, in a random order of its own, and B/A comes from the steady means\n"
		"paired by round.  The run resumes like kiln run.\n"
		"  --vm NAME|LABEL=PATH  a side (twice: A, then B)\n"
		"  --like VM          the VM that LABEL=PATH copies (when CONFIG has several)\n"
		"  --duet             A and B of a benchmark run at the same time, each on a CPU of\n"
		"                     its own, swapped every round (Bulej et al., ICPE 2020)\n"
		"  --duet-cpus C,D    the two CPUs of --duet (default: the first two kiln may use)\n"
		"  --rounds N         rounds (pexecs of each key; default: CONFIG's pexecs)\n"
		"  --time T           rounds until T has passed (90s, 10m, 2h) instead of --rounds\n"
		"  -k, --key BENCH    only the benchmarks matching BENCH ('*' wildcards; repeatable)\n"
		"  -o, --results FILE the results file (default: <config stem>.A-vs-B.kiln.db)\n"
		"  --format F         text (default), markdown or json; --json is --format json\n"
		"  --force            resume although CONFIG or the sides changed\n"
		"  --retry-failed     run again the pexecs that failed or timed out\n"
		"  --max-pexecs N     stop after N pexecs (resume later)\n"
		"  -q, --quiet        no progress\n" AN_OPTS_HELP
		"\nExit status: 0 every pexec ran, 1 some failed, 2 usage, 3 bad config or sides,\n"
		"4 results in use, 5 results unusable, 130 interrupted (resume with the same command).\n",
	.exec = cmd_compare,
};

/* --time's most, in seconds (31 years): no session lasts longer, and hook_more's arithmetic stays well in range */
#define COMPARE_MAX_TIME_S 1e9

/* "90", "90s", "10m", "2h" in seconds; -1 when it is none, or above COMPARE_MAX_TIME_S */
static double parse_time(const char *s)
{
	char *end = NULL;
	double v = strtod(s, &end);
	double unit = !end || !*end || !strcmp(end, "s") ? 1 : !strcmp(end, "m") ? 60 : !strcmp(end, "h") ? 3600 : -1;
	return end != s && unit > 0 && v > 0 && v * unit <= COMPARE_MAX_TIME_S ? v * unit : -1;
}

static int opt_value(const struct cmd_entry *c, int argc, char **argv, int *i, const char **v)
{
	if (*i + 1 >= argc) {
		cmd_usage_error(c, "%s needs a value", argv[*i]);
		return 2;
	}
	*v = argv[++*i];
	return 1;
}

/* compare's own options (cmd_an_args takes the analysis options, --key, --json and CONFIG) */
static int own_opt(void *ctx, const struct cmd_entry *c, int argc, char **argv, int *i)
{
	struct compare *cp = ctx;
	const char *a = argv[*i], *v = NULL;
	int r;
	if (!strcmp(a, "--duet"))
		return cp->duet = 1;
	if (!strcmp(a, "--force"))
		return cp->force = 1;
	if (!strcmp(a, "--retry-failed"))
		return cp->retry_failed = 1;
	if (!strcmp(a, "-q") || !strcmp(a, "--quiet"))
		return cp->quiet = 1;
	static const char *const valued[] = { "--vm", "--like", "--duet-cpus", "--rounds", "--time", "-o", "--results",
					      "--format", "--max-pexecs" };
	int which = -1;
	for (size_t k = 0; k < ARRAY_SIZE(valued) && which < 0; k++)
		which = strcmp(a, valued[k]) ? -1 : (int)k;
	if (which < 0)
		return 0;
	if ((r = opt_value(c, argc, argv, i, &v)) != 1)
		return r;
	switch (which) {
	case 0:
		if (cp->nsides == 2)
			return cmd_usage_error(c, "--vm is given more than twice: A, then B"), 2;
		cp->side[cp->nsides++].spec = v;
		return 1;
	case 1: cp->like = v; return 1;
	case 2: cp->duet_cpus = v; return 1;
	case 3:
		if (parse_long(v, &cp->rounds) < 0 || cp->rounds < 2 || cp->rounds > COMPARE_MAX_ROUNDS)
			return cmd_usage_error(c, "--rounds needs a number from 2 to %d", COMPARE_MAX_ROUNDS), 2;
		return 1;
	case 4:
		if ((cp->time_s = parse_time(v)) < 0)
			return cmd_usage_error(c, "--time needs a duration up to %g s: 90s, 10m, 2h", COMPARE_MAX_TIME_S), 2;
		return 1;
	case 5: case 6: cp->results = v; return 1;
	case 7:
		if (strcmp(v, "text") && strcmp(v, "markdown") && strcmp(v, "json"))
			return cmd_usage_error(c, "--format is text, markdown or json, not '%s'", esc(ESC_TERM, v)), 2;
		cp->format = v;
		return 1;
	default:
		if (parse_long(v, &cp->max_pexecs) < 0 || cp->max_pexecs < 1)
			return cmd_usage_error(c, "--max-pexecs needs a positive number"), 2;
		return 1;
	}
}

static int check_args(struct compare *cp)
{
	const struct cmd_entry *c = &cmd_compare_entry;
	if (cp->nsides != 2)
		return cmd_usage_error(c, "two sides are needed: --vm A --vm B");
	if (!strcmp(cp->side[0].spec, cp->side[1].spec))
		return cmd_usage_error(c, "A and B are the same: '%s'", esc(ESC_TERM, cp->side[0].spec));
	if (cp->duet_cpus && !cp->duet)
		return cmd_usage_error(c, "--duet-cpus goes with --duet");
	if (cp->rounds && cp->time_s > 0)
		return cmd_usage_error(c, "--rounds or --time, not both");
	if (cp->args.json)
		cp->format = "json";
	return 0;
}

/* ---- the experiment: the config with its VMs the two sides, its benchmarks those both run ---- */

/* the VM named name of ex, NULL when none (a slot a side was moved out of has no name) */
static struct vm_conf *vm_named(struct experiment *ex, const char *name)
{
	for (size_t i = 0; i < ex->nvms; i++)
		if (ex->vms[i].name && !strcmp(ex->vms[i].name, name))
			return &ex->vms[i];
	return NULL;
}

static void vm_names(const struct experiment *ex, struct strbuf *sb)
{
	for (size_t i = 0; i < ex->nvms; i++)
		if (ex->vms[i].name)
			sb_addf(sb, "%s%s", sb->len ? ", " : "", esc(ESC_TERM, ex->vms[i].name));
}

/* a label is a VM name in keys: letters, digits, '.', '_', '-' */
static int good_label(const char *s)
{
	if (!*s || strlen(s) > 64)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || strchr("._-", *s)))
			return 0;
	return 1;
}

/* the VM a LABEL=PATH side copies: --like, else the config's only VM */
static const char *base_vm(const struct compare *cp, const struct experiment *ex, struct kerr *e)
{
	if (cp->like)
		return cp->like;
	if (ex->nvms == 1)
		return ex->vms[0].name;
	struct strbuf sb = STRBUF_INIT;
	vm_names(ex, &sb);
	kerr_setc(e, KEXIT_USAGE, "%s has %zu VMs (%s): --like VM says which one LABEL=PATH runs from another "
		  "executable", cp->config, ex->nvms, sb.buf);
	sb_release(&sb);
	return NULL;
}

/* side s of a LABEL=PATH spec: a copy of the base VM (from a second reading of the config), its executable PATH */
static int side_copy(struct compare *cp, struct side *s, const struct experiment *ex, struct vm_conf *out,
		     struct kerr *e)
{
	const char *eq = strchr(s->spec, '=');
	s->label = xstrndup(s->spec, (size_t)(eq - s->spec));
	s->path = xstrdup(eq + 1);
	if (!good_label(s->label))
		return kerr_setc(e, KEXIT_USAGE, "--vm %s: LABEL is letters, digits, '.', '_' and '-' (64 at most)",
				 esc(ESC_TERM, s->spec));
	const char *base = base_vm(cp, ex, e);
	if (!base)
		return -1;
	struct experiment again;
	if (config_load(cp->config, kiln_datadir(), CONFIG_CHECK_AFTER_BUILD, &again, e) < 0)
		return -1;
	struct vm_conf *vm = vm_named(&again, base);
	char *found = strchr(s->path, '/') ? xstrdup(s->path) : find_in_path(s->path);
	int r = 0;
	if (!vm)
		r = kerr_setc(e, KEXIT_CONFIG, "--like %s: %s has no such VM", esc(ESC_TERM, base), cp->config);
	else if (!found || !is_executable(found))
		r = kerr_setc(e, KEXIT_CONFIG, "--vm %s: '%s' is not an executable", esc(ESC_TERM, s->spec),
			      esc(ESC_TERM, s->path));
	if (r == 0) {
		*out = *vm;
		/* taken out of `again`: its last VM moves into the hole */
		*vm = again.vms[--again.nvms];
		free(out->name);
		free(out->path);
		free(out->resolved);
		out->name = xstrdup(s->label);
		out->path = xstrdup(s->path);
		out->resolved = abspath(found);
		out->missing = 0;
		free(out->built_at);
		out->built_at = NULL;
	}
	free(found);
	config_free(&again);
	return r;
}

/* side s of a NAME spec: the config's VM, moved out of ex (its slot left zeroed) */
static int side_named(struct side *s, struct experiment *ex, struct vm_conf *out)
{
	struct vm_conf *vm = vm_named(ex, s->spec);
	s->label = xstrdup(vm->name);
	*out = *vm;
	memset(vm, 0, sizeof(*vm));
	return 0;
}

/* the NAME sides are VMs of the config, here */
static int check_named(const struct compare *cp, struct experiment *ex, struct kerr *e)
{
	for (int i = 0; i < 2; i++) {
		const char *spec = cp->side[i].spec;
		const struct vm_conf *vm = strchr(spec, '=') ? NULL : vm_named(ex, spec);
		if (strchr(spec, '='))
			continue;
		if (!vm) {
			struct strbuf sb = STRBUF_INIT;
			vm_names(ex, &sb);
			kerr_setc(e, KEXIT_CONFIG, "--vm %s: %s has no such VM (it has %s; LABEL=PATH runs one from another "
				  "executable)", esc(ESC_TERM, spec), cp->config, sb_str(&sb));
			sb_release(&sb);
			return -1;
		}
		if (vm->missing)
			return kerr_setc(e, KEXIT_CONFIG, "--vm %s: the VM is optional and not here", esc(ESC_TERM, spec));
	}
	return 0;
}

/* ex's VMs become the two sides, A then B; the others are released */
static int choose_vms(struct compare *cp, struct experiment *ex, struct kerr *e)
{
	if (check_named(cp, ex, e) < 0)
		return -1;
	struct vm_conf *two = xcalloc(2, sizeof(*two));
	int r = 0, got = 0;
	/* copies first: they read the config's VMs as they are */
	for (int pass = 0; pass < 2 && r == 0; pass++)
		for (int i = 0; i < 2 && r == 0; i++) {
			struct side *s = &cp->side[i];
			int copy = strchr(s->spec, '=') != NULL;
			if (copy == !pass)
				r = copy ? side_copy(cp, s, ex, &two[i], e) : side_named(s, ex, &two[i]), got |= (r == 0) << i;
		}
	if (r == 0 && !strcmp(cp->side[0].label, cp->side[1].label))
		r = kerr_setc(e, KEXIT_USAGE, "A and B are both named '%s': give them LABELs of their own",
			      esc(ESC_TERM, cp->side[0].label));
	/* what is left of the config's VMs (moved-out slots zeroed) is released as an experiment of VMs only */
	struct experiment rest;
	memset(&rest, 0, sizeof(rest));
	rest.vms = ex->vms;
	rest.nvms = ex->nvms;
	config_free(&rest);
	ex->vms = two;
	ex->nvms = 2;
	if (r < 0)
		for (int i = 0; i < 2; i++)
			if (!(got >> i & 1))
				memset(&two[i], 0, sizeof(two[i]));
	return r;
}

/* does benchmark b match one of the --key patterns (none: all)? */
static int bench_wanted(const struct compare *cp, const char *b)
{
	if (!cp->args.keys.n)
		return 1;
	for (size_t i = 0; i < cp->args.keys.n; i++) {
		char *pat = xstrndup(cp->args.keys.v[i], strcspn(cp->args.keys.v[i], ":"));
		int m = star_match(pat, b);
		free(pat);
		if (m)
			return 1;
	}
	return 0;
}

/* the benchmarks both sides run (and --key wants): their keys, A's then B's, each benchmark's in turn */
static int choose_benchmarks(struct compare *cp, struct experiment *ex, struct kerr *e)
{
	/* config_runs reads keys_only: every benchmark is judged before any key is added to it */
	struct strvec keys = STRVEC_INIT;
	for (size_t b = 0; b < ex->nbenchs; b++) {
		const struct bench_conf *bc = &ex->benchs[b];
		if (!bench_wanted(cp, bc->name))
			continue;
		int runs[2] = { config_runs(ex, bc, &ex->vms[0]), config_runs(ex, bc, &ex->vms[1]) };
		if (!runs[0] || !runs[1]) {
			if (!cp->quiet && (runs[0] || runs[1]))
				kiln_note("%s: only %s runs it: not compared", esc(ESC_TERM, bc->name),
					  esc(ESC_TERM, cp->side[runs[0] ? 0 : 1].label));
			continue;
		}
		for (int s = 0; s < 2; s++)
			sv_pushf(&keys, "%s:%s:%s", bc->name, ex->vms[s].name, ex->vms[s].variant);
		sv_push(&cp->benchs, bc->name);
	}
	for (size_t i = 0; i < keys.n; i++)
		sv_push(&ex->keys_only, keys.v[i]);
	sv_clear(&keys);
	if (!cp->benchs.n)
		return kerr_setc(e, KEXIT_CONFIG, "%s: no benchmark %sthat both %s and %s run", cp->config,
				 cp->args.keys.n ? "matching --key " : "", esc(ESC_TERM, cp->side[0].label),
				 esc(ESC_TERM, cp->side[1].label));
	return 0;
}

/* a name fit for a file: letters, digits, '.', '_', '-' kept, the rest '_' */
static void file_part(struct strbuf *sb, const char *s)
{
	for (; *s; s++)
		sb_addc(sb, (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || strchr("._-", *s)
				    ? *s : '_');
}

/*
 * What the results stand for: the config's text, and below it, as a YAML
 * comment, the sides and the mode, so that a resumed comparison of other
 * sides (or of a changed config) is refused as kiln run refuses one.
 */
static void describe(struct compare *cp, struct experiment *ex)
{
	struct strbuf sb = STRBUF_INIT;
	sb_adds(&sb, ex->text);
	/* one comment line whatever the words hold (esc: no newline, no control character) */
	sb_addf(&sb, "\n# kiln compare --vm %s", esc(ESC_TERM, cp->side[0].spec));
	sb_addf(&sb, " --vm %s", esc(ESC_TERM, cp->side[1].spec));
	if (cp->like)
		sb_addf(&sb, " --like %s", esc(ESC_TERM, cp->like));
	if (cp->duet)
		sb_adds(&sb, " --duet");
	for (size_t i = 0; i < cp->args.keys.n; i++)
		sb_addf(&sb, " -k %s", esc(ESC_TERM, cp->args.keys.v[i]));
	sb_addc(&sb, '\n');
	free(ex->text);
	ex->text = sb_detach(&sb);
	hash_hex(ex->text, strlen(ex->text), ex->hash);
	if (cp->results) {
		cp->results_abs = abspath(cp->results);
	} else {
		struct strbuf suf = STRBUF_INIT;
		sb_addc(&suf, '.');
		file_part(&suf, cp->side[0].label);
		sb_adds(&suf, "-vs-");
		file_part(&suf, cp->side[1].label);
		sb_adds(&suf, cp->duet ? ".duet.kiln.db" : ".kiln.db");
		cp->results_abs = store_sibling(ex->results, suf.buf);
		sb_release(&suf);
	}
	/* the rounds to start with: --rounds, the config's pexecs, or a few to time them by (--time) */
	long first = cp->time_s > 0 ? 3 : cp->rounds ? cp->rounds : ex->pexecs;
	cp->want = cp->time_s > 0 ? COMPARE_MAX_ROUNDS : first < 2 ? 2 : first;
	ex->pexecs = first < 2 ? 2 : first;
}

/* ---- the run's hooks ---- */

/* meta "compare": the sides and the mode, for the summary of a later reading */
static int hook_init(void *ctx, struct store *st, struct kerr *e)
{
	struct compare *cp = ctx;
	json_t *o = json_object();
	for (int s = 0; s < 2; s++) {
		const struct vm_conf *vm = &cp->ex->vms[s];
		json_object_set_new(o, s ? "b" : "a", json_pack("{s:s, s:s, s:s, s:s}", "label", esc(ESC_JSON, cp->side[s].label),
								"spec", esc(ESC_JSON, cp->side[s].spec), "variant",
								esc(ESC_JSON, vm->variant), "path", esc(ESC_JSON, vm->resolved)));
	}
	json_object_set_new(o, "mode", json_string(cp->duet ? "duet" : "rounds"));
	char *t = json_dumps(o, JSON_COMPACT);
	int r = store_meta_set(st, "compare", t, e);
	free(t);
	json_decref(o);
	return r;
}

/*
 * No pexec is pending: more rounds, up to --rounds (a resumed comparison
 * asked for more), or while --time lasts: as many as the rounds so far
 * say fit in what is left, at most as many again as this session ran.
 */
static void hook_more(void *ctx, const struct schedule *sc, long *more)
{
	struct compare *cp = ctx;
	long have = LONG_MAX;
	for (size_t k = 0; k < sc->nkeys; k++) {
		long n = 0;
		for (size_t i = 0; i < sc->n; i++)
			n += sc->items[i].key == (long)k && sc->items[i].num >= sc->warmup_pexecs;
		have = n < have ? n : have;
	}
	long add = cp->want - have;
	if (cp->time_s > 0) {
		double spent = (double)(mono_ns() - cp->t0) / 1e9, per = spent / (double)(have - cp->have0 > 0 ? have - cp->have0 : 1);
		long most = have - cp->have0 > 1 ? have - cp->have0 : 1;
		/* the rounds that fit, compared as a double: only a count below most is made a long */
		double fit = per > 0 ? (cp->time_s - spent) / per : 0;
		add = fit >= (double)most ? most : fit > 0 ? (long)fit : 0;
		if (have + add > COMPARE_MAX_ROUNDS)
			add = COMPARE_MAX_ROUNDS - have;
	}
	for (size_t k = 0; k < sc->nkeys && add > 0; k++)
		more[k] = add;
}

/* the pexecs start: the CPU pressure is read from here (a VM's build before them is not the session's) */
static void hook_loop(void *ctx)
{
	struct compare *cp = ctx;
	plat_pressure_begin(&cp->psi);
}

/* ---- the command ---- */

/* the complete rounds a results file holds already (0: none, or no file): --time counts from there */
static long stored_rounds(const char *results)
{
	struct store *st;
	struct schedule sc;
	long have = 0;
	if (!file_exists(results) || store_open(results, 0, &st, NULL) < 0)
		return 0;
	if (store_load_schedule(st, &sc, NULL) == 0) {
		have = sc.nkeys ? LONG_MAX : 0;
		for (size_t k = 0; k < sc.nkeys; k++) {
			long n = 0;
			for (size_t i = 0; i < sc.n; i++)
				n += sc.items[i].key == (long)k && sc.items[i].num >= sc.warmup_pexecs &&
				     sc.items[i].status != PX_PENDING && sc.items[i].status != PX_RUNNING;
			have = n < have ? n : have;
		}
		schedule_free(&sc);
	}
	store_close(st);
	return have;
}

static int run(struct compare *cp, struct experiment *ex, struct kerr *e)
{
	struct run_hooks hooks = { .ctx = cp, .init = hook_init, .more = hook_more, .loop = hook_loop };
	struct run_opts o;
	memset(&o, 0, sizeof(o));
	o.order = cp->duet ? ORDER_DUET : ORDER_ROUNDS;
	o.duet_cpus = cp->duet_cpus;
	o.results = cp->results_abs;
	o.force = cp->force;
	o.retry_failed = cp->retry_failed;
	o.quiet = cp->quiet;
	o.max_pexecs = cp->max_pexecs;
	o.hooks = &hooks;
	cp->have0 = cp->time_s > 0 ? stored_rounds(cp->results_abs) : 0;
	cp->t0 = mono_ns();
	return run_experiment_ex(ex, cp->config, &o, e);
}

/*
 * What stopped the run, said for this command: run.c's messages name `kiln
 * run CONFIG`, which would run the config's own experiment, not this one.
 */
static void say_stopped(const struct compare *cp, int code, size_t failed, struct kerr *e)
{
	if (failed)
		kiln_error("%zu pexec(s) failed: `kiln status --failures %s` lists them, the same kiln compare with "
			   "--retry-failed runs them again", failed, esc(ESC_TERM, cp->results_abs));
	else
		kerr_print(e);
	if (code == KEXIT_INTERRUPTED)
		kiln_note("the same kiln compare command resumes (%s keeps what ran)", esc(ESC_TERM, cp->results_abs));
}

static void compare_free(struct compare *cp)
{
	for (int s = 0; s < 2; s++) {
		free(cp->side[s].label);
		free(cp->side[s].path);
	}
	sv_clear(&cp->benchs);
	free(cp->results_abs);
	cmd_an_args_release(&cp->args);
}

static int cmd_compare(int argc, char **argv)
{
	const struct cmd_entry *c = &cmd_compare_entry;
	if (cmd_wants_help(c, argc, argv))
		return 0;
	struct compare cp;
	memset(&cp, 0, sizeof(cp));
	cp.format = "text";
	an_opts_default(&cp.ao);
	int code = cmd_an_args(c, argc, argv, &cp.ao, 1, "CONFIG", 1, &cp.args, own_opt, &cp);
	if (code)
		return code;
	cp.config = cp.args.inputs[0];
	if ((code = check_args(&cp)) != 0) {
		compare_free(&cp);
		return code;
	}
	struct kerr e = KERR_INIT;
	struct experiment ex;
	memset(&ex, 0, sizeof(ex));
	cp.ex = &ex;
	if (config_load(cp.config, kiln_datadir(), CONFIG_CHECK_AFTER_BUILD, &ex, &e) < 0 || choose_vms(&cp, &ex, &e) < 0 ||
	    choose_benchmarks(&cp, &ex, &e) < 0) {
		code = e.code == KEXIT_USAGE ? cmd_usage_error(c, "%s", sb_str(&e.msg)) : (kerr_print(&e), e.code);
		goto out;
	}
	describe(&cp, &ex);
	code = run(&cp, &ex, &e);
	size_t failed = run_failed_pexecs(code, &e);
	if (code != KEXIT_OK)
		say_stopped(&cp, code, failed, &e);
	if (code == KEXIT_OK || failed) {
		int sc = compare_summary(&cp);
		code = code == KEXIT_OK ? sc : code;
	}
out:
	config_free(&ex);
	compare_free(&cp);
	kerr_release(&e);
	return code;
}
