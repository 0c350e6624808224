/*
 * convert-rebench.c - a ReBench configuration (rebench.conf) as a kiln
 * config (convert.h).
 *
 * ReBench's model, from its configuration schema (facts, not its code): an
 * experiment runs executions, each an executor with suites; a suite has a
 * gauge adapter, a command and benchmarks; run details (invocations,
 * iterations, warmup, max_invocation_time, env, ...) and variables
 * (input_sizes, variable_values, cores, tags) are inherited runs ->
 * experiment -> execution -> executor -> suite -> benchmark, each level's
 * value over the one before (a value ending in '!' over the levels after).
 * A run's command line is `[PATH/]EXECUTABLE [ARGS] COMMAND [EXTRA_ARGS]`,
 * its %(name)s expanded, run by a shell in the suite's location (else the
 * executor's path).
 *
 * kiln's reading: one command VM per executor and suite (named as
 * rebench_vm_name() says, its variant the suite), its args the executor's
 * and the suite's command, its cwd the location, its gauge the adapter;
 * the benchmarks with their extra args, each variable with more than one
 * value a benchmark var (one key per value: NAME[input=100]), a value the
 * same for all of a VM's runs written in as it is.  A command line with
 * shell syntax runs under /bin/sh -c.  What has no kiln equivalent is
 * listed with its line.
 */
#include "convert.h"

#include <ctype.h>
#include <libfyaml.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config.h"
#include "gauge.h"

#define RB_MAX_GROUPS 100000

/* run details as far as kiln takes them over; -2: not given at this level */
struct rb_details {
	long invocations, iterations, warmup, timeout;
	int inv_imp, it_imp, wu_imp;   /* given with '!' */
	struct fy_node *env;           /* the mapping, NULL: none */
};

/* the variables: a value list each, NULL node: not given at this level */
enum { V_INPUT, V_VARIABLE, V_CORES, V_TAG, NVARS };
static const char *const var_names[NVARS] = { "input", "variable", "cores", "tag" };
static const char *const var_keys[NVARS] = { "input_sizes", "variable_values", "cores", "tags" };

struct rb_vars {
	struct strvec v[NVARS];
};

/* one benchmark of one suite on one executor: a kiln key per combination of its variables */
struct rb_group {
	char *executor, *suite, *bench;
	char *command;                 /* %(benchmark)s: the benchmark's command, else its name */
	char *exe;                     /* [PATH/]EXECUTABLE */
	char *exec_args, *suite_cmd, *extra;
	char *location;                /* absolute, NULL: the config's folder */
	char *adapter;                 /* the gauge adapter's name */
	struct rb_details d;
	struct rb_vars vars;
	int line;                      /* the benchmark's line */
	size_t vm, kb;                 /* its kiln VM and benchmark */
};

struct rb_vm {
	char *name, *executor, *suite;
	size_t first;                  /* its first group */
	struct strvec args;            /* words (or, shell: "-c", the line, "sh") */
	int shell;
	int extra_shell;               /* its benchmarks' extra args need the shell too: {rb_args} in the line */
	int literal[NVARS + 3];        /* per placeholder: written in as its one value */
};

struct rb_kbench {
	char *name;                    /* the kiln benchmark's name */
	char *args, *vars;             /* its args ("[...]") and vars ("a: [..], b: ..." or "") as YAML */
	char *def;                     /* both with its command: the same text, the same benchmark */
	struct strvec vms;             /* its VMs' names */
	size_t first;                  /* its first group */
	int need_command;              /* a VM of it passes ReBench's %(benchmark)s as {rb_command} */
};

struct rb {
	const char *path, *text;
	char *dir;                     /* the config's folder */
	struct fy_document *doc;
	struct fy_node *root, *suites, *executors;
	struct convert_out *out;
	struct kerr *e;
	struct rb_group *g;
	size_t ng;
	struct rb_vm *vm;
	size_t nvm;
	struct rb_kbench *kb;
	size_t nkb;
};

/* ---- the YAML ---- */

/* a node's line: a scalar's own, a collection's first scalar's (0: none) */
static int line_of(struct fy_node *n)
{
	for (int depth = 0; n && depth < 64; depth++) {
		if (fy_node_is_scalar(n)) {
			struct fy_token *t = fy_node_get_scalar_token(n);
			const struct fy_mark *m = t ? fy_token_start_mark(t) : NULL;
			return m ? m->line + 1 : 0;
		}
		if (fy_node_is_mapping(n)) {
			struct fy_node_pair *pr = fy_node_mapping_get_by_index(n, 0);
			n = pr ? fy_node_pair_key(pr) : NULL;
		} else if (fy_node_is_sequence(n)) {
			n = fy_node_sequence_get_by_index(n, 0);
		} else {
			n = NULL;
		}
	}
	return 0;
}

KILN_PRINTF(4, 5)
static int rb_err(struct rb *r, struct fy_node *at, const char *field, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	sb_vaddf(&sb, fmt, ap);
	va_end(ap);
	kerr_setc(r->e, KEXIT_CONFIG, "%s:%d: %s: %s", r->path, line_of(at), field, sb.buf);
	sb_release(&sb);
	return -1;
}

KILN_PRINTF(4, 5)
static void unmapped(struct rb *r, struct fy_node *at, const char *field, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	sb_vaddf(&sb, fmt, ap);
	va_end(ap);
	int ln = line_of(at);
	char *line = ln ? xasprintf("%s:%d: %s: %s", r->path, ln, field, sb.buf) : xasprintf("%s: %s: %s", r->path, field, sb.buf);
	for (size_t i = 0; i < r->out->unmapped.n; i++)
		if (!strcmp(r->out->unmapped.v[i], line)) {
			free(line);
			sb_release(&sb);
			return;
		}
	sv_push(&r->out->unmapped, line);
	free(line);
	sb_release(&sb);
}

static struct fy_node *get(struct fy_node *map, const char *key)
{
	return map && fy_node_is_mapping(map) ? fy_node_mapping_lookup_by_string(map, key, FY_NT) : NULL;
}

/* a scalar's text, NULL when n is not a scalar */
static const char *text_of(struct fy_node *n)
{
	return n && fy_node_is_scalar(n) ? fy_node_get_scalar0(n) : NULL;
}

/* a scalar under key, NULL when absent; an error when not a scalar */
static int get_text(struct rb *r, struct fy_node *map, const char *key, const char *field, const char **out)
{
	struct fy_node *n = get(map, key);
	*out = NULL;
	if (!n)
		return 0;
	if (!fy_node_is_scalar(n))
		return rb_err(r, n, field, "a single value expected");
	*out = text_of(n);
	return 0;
}

/* a count, maybe with ReBench's '!' (over the levels after) */
static int get_count(struct rb *r, struct fy_node *map, const char *key, const char *field, long *out, int *imp)
{
	const char *s;
	if (get_text(r, map, key, field, &s) < 0)
		return -1;
	if (!s)
		return 0;
	char *t = xstrdup(s);
	size_t n = strlen(t);
	int bang = n && t[n - 1] == '!';
	if (bang)
		t[n - 1] = '\0';
	long v;
	int rc = parse_long(t, &v) < 0 ? rb_err(r, get(map, key), field, "'%s' is not a whole number", s) : 0;
	free(t);
	if (rc < 0)
		return -1;
	*out = v;
	if (imp)
		*imp = bang;
	return 0;
}

/* ---- inheritance: runs -> experiment -> execution -> executor -> suite -> benchmark ---- */

/* one level's run details over `base` (ReBench: a value with '!' is kept over the later levels') */
static int details_at(struct rb *r, struct fy_node *map, const char *field, struct rb_details *d)
{
	struct rb_details x = { -2, -2, -2, -2, 0, 0, 0, NULL };
	char *f = NULL;
	static const char *const keys[] = { "invocations", "iterations", "warmup", "max_invocation_time" };
	long *to[] = { &x.invocations, &x.iterations, &x.warmup, &x.timeout };
	int *imp[] = { &x.inv_imp, &x.it_imp, &x.wu_imp, NULL };
	long *cur[] = { &d->invocations, &d->iterations, &d->warmup, &d->timeout };
	int *cimp[] = { &d->inv_imp, &d->it_imp, &d->wu_imp, NULL };
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		f = xasprintf("%s.%s", field, keys[i]);
		int rc = get_count(r, map, keys[i], f, to[i], imp[i]);
		free(f);
		if (rc < 0)
			return -1;
		if (*to[i] == -2)
			continue;
		/* prefer_important: a later value wins unless the earlier one was marked and this one is not */
		if (cimp[i] && *cimp[i] && !*imp[i])
			continue;
		*cur[i] = *to[i];
		if (cimp[i])
			*cimp[i] = *imp[i];
	}
	struct fy_node *env = get(map, "env");
	if (env && !fy_node_is_mapping(env))
		return rb_err(r, env, field, "env: a mapping expected");
	if (env)
		d->env = env;
	static const struct { const char *key, *instead; } other[] = {
		{ "min_iteration_time", "kiln says nothing of too short iterations; `kiln report` shows them" },
		{ "ignore_timeouts", "a timed-out pexec is `timeout`, its iterations kept but not used" },
		{ "parallel_interference_factor", "kiln runs one pexec at a time" },
		{ "execute_exclusively", "kiln runs one pexec at a time" },
		{ "retries_after_failure", "`kiln run --retry-failed` runs failed pexecs again" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(other); i++)
		if (get(map, other[i].key)) {
			f = xasprintf("%s.%s", field, other[i].key);
			unmapped(r, get(map, other[i].key), f, "not taken over (%s)", other[i].instead);
			free(f);
		}
	return 0;
}

/* one level's variables over `v` */
static int vars_at(struct rb *r, struct fy_node *map, const char *field, struct rb_vars *v)
{
	for (int i = 0; i < NVARS; i++) {
		struct fy_node *n = get(map, var_keys[i]);
		if (!n)
			continue;
		if (!fy_node_is_sequence(n))
			return rb_err(r, n, field, "%s: a list expected", var_keys[i]);
		sv_clear(&v->v[i]);
		void *it = NULL;
		struct fy_node *item;
		while ((item = fy_node_sequence_iterate(n, &it))) {
			const char *s = text_of(item);
			if (!s)
				return rb_err(r, item, field, "%s: a list of values expected", var_keys[i]);
			sv_push(&v->v[i], s);
		}
		if (!v->v[i].n)
			return rb_err(r, n, field, "%s: an empty list makes no run", var_keys[i]);
	}
	return 0;
}

static void vars_copy(struct rb_vars *d, const struct rb_vars *s)
{
	for (int i = 0; i < NVARS; i++) {
		d->v[i] = (struct strvec)STRVEC_INIT;
		for (size_t j = 0; j < s->v[i].n; j++)
			sv_push(&d->v[i], s->v[i].v[j]);
	}
}

static void vars_release(struct rb_vars *v)
{
	for (int i = 0; i < NVARS; i++)
		sv_clear(&v->v[i]);
}

/* ReBench's defaults: ExpVariables.empty(): one empty input and variable, cores 1, no tag */
static void vars_default(struct rb_vars *v)
{
	memset(v, 0, sizeof(*v));
	sv_push(&v->v[V_INPUT], "");
	sv_push(&v->v[V_VARIABLE], "");
	sv_push(&v->v[V_CORES], "1");
	sv_push(&v->v[V_TAG], "");
}

/* an entry of a list that is a name, or a one-key mapping NAME: {details}: the name, and the details in *details */
static const char *name_and_details(struct fy_node *item, struct fy_node **details)
{
	*details = NULL;
	if (fy_node_is_scalar(item))
		return text_of(item);
	if (!fy_node_is_mapping(item) || fy_node_mapping_item_count(item) != 1)
		return NULL;
	struct fy_node_pair *pr = fy_node_mapping_get_by_index(item, 0);
	*details = fy_node_pair_value(pr);
	return text_of(fy_node_pair_key(pr));
}

/* a path of the config (location, an executor's path): absolute, ~ expanded, relative to the config's folder */
static char *rb_path(struct rb *r, const char *p)
{
	if (p[0] == '~' && (p[1] == '/' || !p[1])) {
		const char *home = getenv("HOME");
		return xasprintf("%s%s", home ? home : "", p + 1);
	}
	return path_join(r->dir, p);
}

/* ---- the groups: one per executor, suite and benchmark of the experiments converted ---- */

/* run details and variables: every level may have them */
static const char *const details_keys[] = { "invocations", "iterations", "warmup", "min_iteration_time",
					    "max_invocation_time", "ignore_timeouts", "parallel_interference_factor",
					    "execute_exclusively", "retries_after_failure", "env", "input_sizes", "cores",
					    "variable_values", "tags", NULL };
static const char *const suite_keys[] = { "gauge_adapter", "command", "location", "build", "benchmarks", "description",
					  "desc", NULL };

static int known_keys(struct rb *r, struct fy_node *map, const char *field, const char *const *keys,
		      const char *const *also)
{
	void *it = NULL;
	struct fy_node_pair *pr;
	while ((pr = fy_node_mapping_iterate(map, &it))) {
		const char *k = text_of(fy_node_pair_key(pr));
		int ok = k && k[0] == '.';
		for (size_t i = 0; !ok && k && keys[i]; i++)
			ok = !strcmp(k, keys[i]);
		for (size_t i = 0; !ok && k && also && also[i]; i++)
			ok = !strcmp(k, also[i]);
		if (!ok)
			return rb_err(r, fy_node_pair_key(pr), field, "'%s' is not a key of ReBench's configuration here",
				      k ? k : "?");
	}
	return 0;
}

/* the executor's [PATH/]EXECUTABLE, ARGS, and its build and profiler said */
static int executor_of(struct rb *r, const char *name, struct fy_node *at, struct fy_node **ex)
{
	*ex = get(r->executors, name);
	if (!*ex || !fy_node_is_mapping(*ex))
		return rb_err(r, at, "executions", "no executor '%s' in executors", name);
	static const char *const also[] = { "path", "executable", "args", "description", "desc", "build", "profiler",
					    NULL };
	char *f = xasprintf("executors.%s", name);
	int rc = known_keys(r, *ex, f, details_keys, also);
	if (rc == 0 && !text_of(get(*ex, "executable")))
		rc = rb_err(r, *ex, f, "no executable");
	if (rc == 0 && get(*ex, "profiler"))
		unmapped(r, get(*ex, "profiler"), f, "profiler: not taken over (`kiln profile CONFIG --key K` profiles a key "
			 "with perf)");
	free(f);
	return rc;
}

/* a group per benchmark of suite `sname` on executor `ename` with the details so far */
static int add_suite(struct rb *r, const char *ename, struct fy_node *ex, const char *sname, struct fy_node *at,
		     const struct rb_details *d0, const struct rb_vars *v0)
{
	struct fy_node *s = get(r->suites, sname);
	if (!s || !fy_node_is_mapping(s))
		return rb_err(r, at, "suites", "no suite '%s' in benchmark_suites", sname);
	char *f = xasprintf("benchmark_suites.%s", sname);
	struct rb_details d = *d0;
	struct rb_vars v;
	vars_copy(&v, v0);
	const char *cmd, *loc, *exe, *path, *args;
	int rc = known_keys(r, s, f, suite_keys, details_keys);
	struct fy_node *adapter = get(s, "gauge_adapter"), *benchs = get(s, "benchmarks");
	/* executor, then suite */
	char *ef = xasprintf("executors.%s", ename);
	if (rc == 0)
		rc = details_at(r, ex, ef, &d) < 0 || vars_at(r, ex, ef, &v) < 0 ? -1 : 0;
	free(ef);
	if (rc == 0)
		rc = details_at(r, s, f, &d) < 0 || vars_at(r, s, f, &v) < 0 ? -1 : 0;
	/* a command that is not a scalar is get_text's error, and must stop here as one: cmd is NULL then too */
	if (rc == 0 && (rc = get_text(r, s, "command", f, &cmd)) == 0 && !cmd)
		rc = rb_err(r, s, f, "no command");
	if (rc == 0 && !adapter)
		rc = rb_err(r, s, f, "no gauge_adapter");
	if (rc == 0 && !text_of(adapter))
		rc = rb_err(r, adapter, f, "gauge_adapter: a Python adapter of your own (%s) cannot run in kiln: give the "
			    "suite a kiln gauge instead (a regex: docs/plugins/command.md)", "a class in a file");
	if (rc == 0 && (!benchs || !fy_node_is_sequence(benchs)))
		rc = rb_err(r, benchs ? benchs : s, f, "benchmarks: a list expected");
	if (rc == 0)
		rc = get_text(r, s, "location", f, &loc) < 0 || get_text(r, ex, "path", "executors", &path) < 0 ||
		     get_text(r, ex, "args", "executors", &args) < 0 ? -1 : 0;
	exe = text_of(get(ex, "executable"));
	void *it = NULL;
	struct fy_node *item;
	while (rc == 0 && (item = fy_node_sequence_iterate(benchs, &it))) {
		struct fy_node *bd;
		const char *bname = name_and_details(item, &bd);
		if (!bname || !*bname || (bd && !fy_node_is_mapping(bd))) {
			rc = rb_err(r, item, f, "benchmarks: a name, or NAME: {settings}, expected");
			break;
		}
		if (r->ng >= RB_MAX_GROUPS) {
			rc = rb_err(r, item, f, "more than %d benchmarks of executors and suites", RB_MAX_GROUPS);
			break;
		}
		char *bf = xasprintf("%s.benchmarks.%s", f, bname);
		static const char *const bkeys[] = { "extra_args", "command", "codespeed_name", "gauge_adapter", NULL };
		if (bd && known_keys(r, bd, bf, details_keys, bkeys) < 0) {
			free(bf);
			rc = -1;
			break;
		}
		r->g = xrealloc(r->g, (r->ng + 1) * sizeof(*r->g));
		struct rb_group *g = &r->g[r->ng++];
		memset(g, 0, sizeof(*g));
		g->d = d;
		vars_copy(&g->vars, &v);
		g->line = line_of(item);
		if (bd && (details_at(r, bd, bf, &g->d) < 0 || vars_at(r, bd, bf, &g->vars) < 0)) {
			free(bf);
			rc = -1;
			break;
		}
		const char *bcmd = bd ? text_of(get(bd, "command")) : NULL, *extra = bd ? text_of(get(bd, "extra_args")) : NULL;
		const char *badapter = bd ? text_of(get(bd, "gauge_adapter")) : NULL;
		if (bd && get(bd, "codespeed_name"))
			unmapped(r, get(bd, "codespeed_name"), bf, "codespeed_name: not taken over (kiln reports to no Codespeed)");
		g->executor = xstrdup(ename);
		g->suite = xstrdup(sname);
		g->bench = xstrdup(bname);
		g->command = xstrdup(bcmd ? bcmd : bname);
		g->exe = path && *path ? xasprintf("%s/%s", path, exe) : xstrdup(exe);
		g->exec_args = xstrdup(args ? args : "");
		g->suite_cmd = xstrdup(cmd);
		g->extra = xstrdup(extra ? extra : "");
		g->location = loc ? rb_path(r, loc) : path && *path ? rb_path(r, path) : NULL;
		g->adapter = xstrdup(badapter ? badapter : text_of(adapter));
		free(bf);
	}
	vars_release(&v);
	free(f);
	return rc;
}

/* an experiment's executions: each executor with its suites */
static int add_experiment(struct rb *r, const char *name, struct fy_node *x, const struct rb_details *d0,
			  const struct rb_vars *v0)
{
	char *f = xasprintf("experiments.%s", name);
	static const char *const keys[] = { "description", "desc", "data_file", "action", "reporting", "executions",
					    "suites", NULL };
	struct rb_details d = *d0;
	struct rb_vars v;
	vars_copy(&v, v0);
	int rc = known_keys(r, x, f, details_keys, keys);
	if (rc == 0)
		rc = details_at(r, x, f, &d) < 0 || vars_at(r, x, f, &v) < 0 ? -1 : 0;
	const char *action = text_of(get(x, "action"));
	if (rc == 0 && action && strcmp(action, "benchmark"))
		rc = rb_err(r, get(x, "action"), f, "action %s: kiln converts benchmarking experiments (profile a key with "
			    "`kiln profile`)", action);
	if (get(x, "data_file"))
		unmapped(r, get(x, "data_file"), f, "data_file: kiln keeps the results in CONFIG-STEM.kiln.db (`results:` in "
			 "the kiln config, `kiln run -o`)");
	if (get(x, "reporting"))
		unmapped(r, get(x, "reporting"), f, "reporting: not taken over (kiln reports to no ReBenchDB nor Codespeed)");
	struct fy_node *execs = get(x, "executions"), *suites = get(x, "suites");
	if (rc == 0 && (!execs || !fy_node_is_sequence(execs)))
		rc = rb_err(r, execs ? execs : x, f, "executions: a list expected");
	void *it = NULL;
	struct fy_node *item;
	while (rc == 0 && (item = fy_node_sequence_iterate(execs, &it))) {
		struct fy_node *ed, *ex;
		const char *ename = name_and_details(item, &ed);
		if (!ename || (ed && !fy_node_is_mapping(ed))) {
			rc = rb_err(r, item, f, "executions: an executor's name, or NAME: {suites: [...]}, expected");
			break;
		}
		struct rb_details de = d;
		struct rb_vars ve;
		vars_copy(&ve, &v);
		struct fy_node *ss = ed && get(ed, "suites") ? get(ed, "suites") : suites;
		rc = executor_of(r, ename, item, &ex);
		if (rc == 0 && ed)
			rc = details_at(r, ed, f, &de) < 0 || vars_at(r, ed, f, &ve) < 0 ? -1 : 0;
		if (rc == 0 && (!ss || !fy_node_is_sequence(ss)))
			rc = rb_err(r, ss ? ss : item, f, "suites: a list of suites expected for executor %s", ename);
		void *sit = NULL;
		struct fy_node *sn;
		while (rc == 0 && (sn = fy_node_sequence_iterate(ss, &sit))) {
			const char *sname = text_of(sn);
			rc = sname ? add_suite(r, ename, ex, sname, sn, &de, &ve) : rb_err(r, sn, f, "suites: names expected");
		}
		vars_release(&ve);
	}
	vars_release(&v);
	free(f);
	return rc;
}

/* ---- kiln's VMs and benchmarks ---- */

/* the value placeholder p has in group g ("" for a variable of several values: not one) */
enum { P_BENCHMARK = NVARS, P_ITERATIONS, P_WARMUP };

static const char *one_value(const struct rb_group *g, int p, char *buf, size_t n)
{
	if (p < NVARS)
		return g->vars.v[p].n == 1 ? g->vars.v[p].v[0] : NULL;
	if (p == P_BENCHMARK)
		return g->command;
	long x = p == P_ITERATIONS ? g->d.iterations : g->d.warmup;
	if (x < 0 && p == P_WARMUP)
		return "None";
	snprintf(buf, n, "%ld", x);
	return buf;
}

/* is placeholder p one value for every group of VM `vm`? */
static int same_over_vm(const struct rb *r, size_t vm, int p)
{
	const char *v0 = NULL;
	char b0[32], b1[32];
	for (size_t i = 0; i < r->ng; i++) {
		if (r->g[i].vm != vm)
			continue;
		const char *v = one_value(&r->g[i], p, v0 ? b1 : b0, 32);
		if (!v || (v0 && strcmp(v, v0)))
			return 0;
		if (!v0)
			v0 = v;
	}
	return 1;
}

/*
 * ReBench's %(name)s in `s` as kiln writes it: the group's value when
 * `literal[p]` says it is one for all, else the kiln placeholder or var;
 * %% is %.  An unknown name is listed and kept as written.
 */
static void expand(struct rb *r, const struct rb_group *g, const char *s, const int *literal, struct strbuf *out)
{
	static const char *const kiln[] = { "{input}", "{variable}", "{cores}", "{tag}", "{rb_command}", "{rb_iterations}",
					    "{rb_warmup}" };
	static const char *const names[] = { "input", "variable", "cores", "tag", "benchmark", "iterations", "warmup" };
	for (const char *p = s; *p;) {
		if (p[0] == '%' && p[1] == '%') {
			sb_addc(out, '%');
			p += 2;
			continue;
		}
		const char *close = p[0] == '%' && p[1] == '(' ? strchr(p, ')') : NULL;
		if (!close || !close[1] || !strchr("sdirf", close[1])) {
			sb_addc(out, *p++);
			continue;
		}
		size_t n = (size_t)(close - p - 2);
		int k = -1;
		for (size_t i = 0; i < ARRAY_SIZE(names) && k < 0; i++)
			if (strlen(names[i]) == n && !strncmp(p + 2, names[i], n))
				k = (int)i;
		char buf[32];
		if (k >= 0 && literal[k])
			sb_adds(out, one_value(g, k, buf, sizeof(buf)));
		else if (k >= 0)
			sb_adds(out, kiln[k]);
		else if (n == 8 && !strncmp(p + 2, "executor", 8))
			sb_adds(out, g->executor);
		else if (n == 5 && !strncmp(p + 2, "suite", 5))
			sb_adds(out, g->suite);
		else {
			unmapped(r, NULL, "command", "%%(%.*s)s: kiln has no such value for a command line (kept as written)",
				 (int)n, p + 2);
			sb_add(out, p, (size_t)(close - p + 2));
		}
		p = close + 2;
	}
}

/*
 * A shell-free split of a command line into words (quotes and backslashes
 * as the shell reads them): 0, or -1 when it needs a shell (a pipe, a
 * redirection, $, `, a glob, ...).
 */
static int split_words(const char *s, struct strvec *out)
{
	struct strbuf w = STRBUF_INIT;
	int in = 0, rc = 0;
	for (const char *p = s; *p && rc == 0; p++) {
		if (*p == ' ' || *p == '\t' || *p == '\n') {
			if (in)
				sv_push(out, sb_str(&w));
			sb_reset(&w);
			in = 0;
		} else if (*p == '\'') {
			const char *q = strchr(p + 1, '\'');
			if (!q)
				rc = -1;
			else
				sb_add(&w, p + 1, (size_t)(q - p - 1)), p = q, in = 1;
		} else if (*p == '"') {
			for (p++, in = 1; *p && *p != '"'; p++) {
				if (*p == '$' || *p == '`')
					rc = -1;
				if (*p == '\\' && p[1] && strchr("\"\\$`", p[1]))
					p++;
				sb_addc(&w, *p);
			}
			if (!*p)
				rc = -1, p--;
		} else if (*p == '\\' && p[1]) {
			sb_addc(&w, *++p);
			in = 1;
		} else if (strchr("|&;<>()$`*?[#~", *p) && !(*p == '~' && in) && !(*p == '#' && in)) {
			rc = -1;
		} else {
			sb_addc(&w, *p);
			in = 1;
		}
	}
	if (rc == 0 && in)
		sv_push(out, sb_str(&w));
	sb_release(&w);
	return rc;
}

static const char *const adapters[][2] = {
	{ "RebenchLog", "rebench" }, { "JMH", "jmh" }, { "Time", "time" }, { "TimeManual", "time" },
	{ "Multivariate", "multivariate" }, { "PlainSecondsLog", "plain_seconds" }, { "SavinaLog", "savina" },
	{ "ValidationLog", "validation" },
};

/* kiln's gauge format for ReBench's adapter, NULL: none (ReBench finds adapters by name, ignoring case) */
static const char *gauge_of(const char *adapter)
{
	for (size_t i = 0; i < ARRAY_SIZE(adapters); i++)
		if (!strcasecmp(adapter, adapters[i][0]))
			return adapters[i][1];
	return NULL;
}

/* the VMs: one per executor and suite, its args the line up to the suite's command */
static int make_vms(struct rb *r)
{
	for (size_t i = 0; i < r->ng; i++) {
		struct rb_group *g = &r->g[i];
		size_t v = 0;
		while (v < r->nvm && (strcmp(r->vm[v].executor, g->executor) || strcmp(r->vm[v].suite, g->suite)))
			v++;
		if (v == r->nvm) {
			r->vm = xrealloc(r->vm, (r->nvm + 1) * sizeof(*r->vm));
			memset(&r->vm[v], 0, sizeof(*r->vm));
			r->vm[v].executor = g->executor;
			r->vm[v].suite = g->suite;
			r->vm[v].first = i;
			r->nvm++;
		}
		g->vm = v;
	}
	for (size_t v = 0; v < r->nvm; v++) {
		struct rb_vm *m = &r->vm[v];
		int nsuites = 0;
		for (size_t w = 0; w < r->nvm; w++)
			nsuites += !strcmp(r->vm[w].executor, m->executor);
		m->name = rebench_vm_name(m->executor, m->suite, nsuites);
		/* two executors (or executor.suite pairs) whose names become one VM's would be one VM twice */
		for (size_t w = 0; w < v; w++)
			if (!strcmp(r->vm[w].name, m->name))
				return rb_err(r, get(r->executors, m->executor), "executors",
					      "%s (suite %s) and %s (suite %s) are both kiln's VM '%s' (a VM's name has no ':', "
					      "'[', ']' or ',', and an executor of several suites is EXECUTOR.SUITE): rename one",
					      m->executor, m->suite, r->vm[w].executor, r->vm[w].suite, m->name);
		const struct rb_group *g = &r->g[m->first];
		if (!gauge_of(g->adapter))
			return rb_err(r, get(get(r->suites, m->suite), "gauge_adapter"), m->suite, "gauge_adapter %s: kiln has no gauge for it (it reads RebenchLog, JMH, "
				      "Time, Multivariate, PlainSecondsLog, SavinaLog, ValidationLog; a regex gauge reads "
				      "one time a line)", g->adapter);
		for (int p = 0; p < NVARS + 3; p++)
			m->literal[p] = same_over_vm(r, v, p);
		struct strbuf line = STRBUF_INIT;
		struct strvec words = STRVEC_INIT;
		sb_addf(&line, "%s %s %s", g->exe, g->exec_args, g->suite_cmd);
		struct strbuf x = STRBUF_INIT;
		expand(r, g, line.buf, m->literal, &x);
		/*
		 * A line with shell syntax runs under sh -c, the benchmark's extra
		 * args after it as "$@" (words, as without a shell); extra args
		 * with shell syntax themselves come into the line as {rb_args}
		 */
		struct strvec probe = STRVEC_INIT;
		int shell = split_words(x.buf, &words) < 0, extra_shell = 0;
		for (size_t i = 0; i < r->ng; i++)
			if (r->g[i].vm == v && split_words(r->g[i].extra, &probe) < 0)
				extra_shell = 1;
		sv_clear(&probe);
		m->shell = shell || extra_shell;
		m->extra_shell = extra_shell;
		if (m->shell) {
			sv_push(&m->args, "-c");
			sb_adds(&x, extra_shell ? " {rb_args}" : " \"$@\"");
			sv_push(&m->args, x.buf);
			sv_push(&m->args, "sh");
		} else {
			for (size_t k = 0; k < words.n; k++)
				sv_push(&m->args, words.v[k]);
		}
		sb_release(&x);
		sb_release(&line);
		sv_clear(&words);
	}
	return 0;
}

/* a benchmark's definition for group g: its args and its vars, as kiln's config text writes them */
static void bench_def(struct rb *r, const struct rb_group *g, struct strbuf *args, struct strbuf *vars)
{
	const struct rb_vm *m = &r->vm[g->vm];
	struct strbuf x = STRBUF_INIT;
	expand(r, g, g->extra, m->literal, &x);
	sb_adds(args, "[");
	if (!m->extra_shell) {
		struct strvec w = STRVEC_INIT;
		split_words(sb_str(&x), &w);
		for (size_t i = 0; i < w.n; i++) {
			sb_adds(args, i ? ", " : "");
			yaml_quote(args, w.v[i]);
		}
		sv_clear(&w);
	}
	sb_adds(args, "]");
	if (m->extra_shell) {
		sb_adds(vars, "rb_args: ");
		yaml_quote(vars, sb_str(&x));
	}
	/* a variable of several values names keys; one not written into the VM's args is the benchmark's too */
	for (int p = 0; p < NVARS; p++) {
		if (m->literal[p] && g->vars.v[p].n == 1)
			continue;
		sb_addf(vars, "%s%s: [", vars->len ? ", " : "", var_names[p]);
		for (size_t i = 0; i < g->vars.v[p].n; i++) {
			sb_adds(vars, i ? ", " : "");
			yaml_quote(vars, g->vars.v[p].v[i]);
		}
		sb_adds(vars, "]");
	}
	char buf[32];
	if (!m->literal[P_WARMUP]) {
		sb_addf(vars, "%srb_warmup: ", vars->len ? ", " : "");
		yaml_quote(vars, one_value(g, P_WARMUP, buf, sizeof(buf)));
	}
	if (!m->literal[P_ITERATIONS])
		sb_addf(vars, "%srb_iterations: \"%ld\"", vars->len ? ", " : "", g->d.iterations);
	sb_release(&x);
}

/* kiln's benchmarks: one per distinct definition; a name defined otherwise again is NAME@SUITE */
static void make_benches(struct rb *r)
{
	for (size_t i = 0; i < r->ng; i++) {
		struct rb_group *g = &r->g[i];
		struct strbuf args = STRBUF_INIT, vars = STRBUF_INIT, def = STRBUF_INIT;
		bench_def(r, g, &args, &vars);
		sb_addf(&def, "%s\x1f%s\x1f%s", args.buf, vars.buf ? vars.buf : "", g->command);
		size_t k = 0, same_name = 0;
		for (; k < r->nkb; k++) {
			if (strcmp(r->g[r->kb[k].first].bench, g->bench))
				continue;
			same_name++;
			if (!strcmp(r->kb[k].def, def.buf))
				break;
		}
		if (k == r->nkb) {
			r->kb = xrealloc(r->kb, (r->nkb + 1) * sizeof(*r->kb));
			struct rb_kbench *b = &r->kb[r->nkb++];
			memset(b, 0, sizeof(*b));
			b->name = same_name ? xasprintf("%s@%s", g->bench, g->suite) : xstrdup(g->bench);
			b->args = sb_detach(&args);
			b->vars = xstrdup(vars.buf ? vars.buf : "");
			b->def = sb_detach(&def);
			b->first = i;
			if (same_name)
				unmapped(r, NULL, g->suite, "benchmark %s is run otherwise here than in another suite (args, "
					 "variables or command): its keys are named %s, not as ReBench's data names them",
					 g->bench, b->name);
		}
		sb_release(&args);
		sb_release(&vars);
		sb_release(&def);
		g->kb = k;
		int have = 0;
		for (size_t j = 0; j < r->kb[k].vms.n; j++)
			have |= !strcmp(r->kb[k].vms.v[j], r->vm[g->vm].name);
		if (!have)
			sv_push(&r->kb[k].vms, r->vm[g->vm].name);
	}
	/* %(benchmark)s that is not one value for a VM: kiln's {benchmark} when it is each benchmark's kiln name */
	for (size_t v = 0; v < r->nvm; v++) {
		int plain = 1;
		for (size_t i = 0; i < r->ng; i++)
			if (r->g[i].vm == v && strcmp(r->kb[r->g[i].kb].name, r->g[i].command))
				plain = 0;
		for (size_t a = 0; a < r->vm[v].args.n; a++) {
			char *w = r->vm[v].args.v[a], *at;
			while (plain && (at = strstr(w, "{rb_command}"))) {
				memmove(at + 11, at + 12, strlen(at + 12) + 1);
				memcpy(at, "{benchmark}", 11);
			}
		}
		for (size_t i = 0; !plain && i < r->ng; i++)
			if (r->g[i].vm == v)
				r->kb[r->g[i].kb].need_command = 1;
	}
}

/* ---- the YAML kiln reads ---- */

static int sv_has(const struct strvec *v, const char *s)
{
	for (size_t i = 0; i < v->n; i++)
		if (!strcmp(v->v[i], s))
			return 1;
	return 0;
}

static void yaml_list(struct strbuf *sb, const struct strvec *v)
{
	sb_addc(sb, '[');
	for (size_t i = 0; i < v->n; i++) {
		sb_adds(sb, i ? ", " : "");
		yaml_quote(sb, v->v[i]);
	}
	sb_addc(sb, ']');
}

/* the experiment-wide counts: a value the groups disagree on is listed, the largest (warm-up: the smallest) taken */
static long counts(struct rb *r, size_t off, const char *what, int smallest, long none)
{
	long best = none, first = none;
	int differ = 0;
	for (size_t i = 0; i < r->ng; i++) {
		long v = *(const long *)((const char *)&r->g[i].d + off);
		if (i == 0)
			first = v;
		differ |= v != first;
		if (i == 0 || (smallest ? v < best : v > best))
			best = v;
	}
	if (differ)
		unmapped(r, NULL, what, "differs between runs; kiln's %s is one for the experiment: %ld, the %s",
			 !strcmp(what, "invocations") ? "pexecs" : !strcmp(what, "warmup") ? "warmup_iterations" : "limits.timeout",
			 best, smallest ? "smallest" : "largest");
	return best;
}

static void emit_vm(struct rb *r, const struct rb_vm *m, struct strbuf *y)
{
	const struct rb_group *g = &r->g[m->first];
	const char *gauge = gauge_of(g->adapter);
	int wrap = !strcasecmp(g->adapter, "Time");
	sb_adds(y, "  ");
	yaml_quote(y, m->name);
	/* a run ReBench cannot start fails, the others go on: a VM not here is skipped, said at the start */
	sb_adds(y, ":\n    plugin: command\n    optional: true\n    path: ");
	yaml_quote(y, wrap ? "/usr/bin/time" : m->shell ? "/bin/sh" : m->args.n ? m->args.v[0] : g->exe);
	sb_adds(y, "\n    variant: ");
	yaml_quote(y, m->suite);
	struct strvec args = STRVEC_INIT;
	if (wrap)
		sv_push(&args, "-p");
	for (size_t i = wrap || m->shell ? 0 : 1; i < m->args.n; i++)
		sv_push(&args, m->args.v[i]);
	if (wrap && m->shell) { /* time runs the shell */
		sv_clear(&args);
		sv_push(&args, "-p");
		sv_push(&args, "/bin/sh");
		for (size_t i = 0; i < m->args.n; i++)
			sv_push(&args, m->args.v[i]);
	}
	sb_adds(y, "\n    args: ");
	yaml_list(y, &args);
	sv_clear(&args);
	sb_addf(y, "\n    gauge: %s", gauge);
	if (g->location) {
		sb_adds(y, "\n    cwd: ");
		yaml_quote(y, g->location);
	}
	/* the env of its runs (ReBench's run details: the same for all of them, or listed) */
	struct fy_node *env = g->d.env;
	for (size_t i = 0; i < r->ng; i++)
		if (r->g[i].vm == (size_t)(m - r->vm) && r->g[i].d.env != env)
			unmapped(r, r->g[i].d.env, m->name, "env differs between its benchmarks; kiln's env is the VM's: the "
				 "first benchmark's is taken");
	if (env && fy_node_mapping_item_count(env)) {
		sb_adds(y, "\n    env: {");
		void *it = NULL;
		struct fy_node_pair *pr;
		int n = 0;
		while ((pr = fy_node_mapping_iterate(env, &it))) {
			const char *k = text_of(fy_node_pair_key(pr)), *v = text_of(fy_node_pair_value(pr));
			if (!k || !v)
				continue;
			sb_adds(y, n++ ? ", " : "");
			yaml_quote(y, k);
			sb_adds(y, ": ");
			yaml_quote(y, v);
		}
		sb_adds(y, "}");
	}
	/* builds: the executor's in its path, the suite's in its location, each by the shell */
	struct strvec steps = STRVEC_INIT;
	struct fy_node *ex = get(r->executors, g->executor), *su = get(r->suites, g->suite);
	struct fy_node *builds[2] = { get(ex, "build"), get(su, "build") };
	const char *where[2] = { text_of(get(ex, "path")), NULL };
	for (int b = 0; b < 2; b++) {
		if (!builds[b] || !fy_node_is_sequence(builds[b]))
			continue;
		struct strbuf sh = STRBUF_INIT;
		char *dir = b == 0 ? (where[0] && *where[0] ? rb_path(r, where[0]) : NULL) : g->location ? xstrdup(g->location) : NULL;
		if (dir) {
			sb_adds(&sh, "cd '");
			for (const char *p = dir; *p; p++)
				sb_adds(&sh, *p == '\'' ? "'\\''" : (char[]){ *p, 0 });
			sb_adds(&sh, "' && ");
		}
		void *it = NULL;
		struct fy_node *c;
		int n = 0;
		while ((c = fy_node_sequence_iterate(builds[b], &it)))
			if (text_of(c))
				sb_addf(&sh, "%s%s", n++ ? "\n" : "", text_of(c));
		if (n) {
			sv_push(&steps, sh.buf);
		}
		free(dir);
		sb_release(&sh);
	}
	if (steps.n) {
		sb_adds(y, "\n    build: [");
		for (size_t i = 0; i < steps.n; i++) {
			sb_adds(y, i ? ", " : "");
			sb_adds(y, "[/bin/sh, -c, ");
			yaml_quote(y, steps.v[i]);
			sb_adds(y, "]");
		}
		sb_adds(y, "]");
	}
	sv_clear(&steps);
	sb_addc(y, '\n');
}

/*
 * A VM run by the shell whose program is not here: its keys skipped (the
 * shell itself is there, so `optional` cannot say it), ReBench would fail
 * each of its runs
 */
static int shell_program_missing(struct rb *r, const struct rb_vm *m)
{
	const struct rb_group *g = &r->g[m->first];
	if (!m->shell)
		return 0;
	char *p = strchr(g->exe, '/') ? (g->exe[0] == '/' ? xstrdup(g->exe) : path_join(r->dir, g->exe)) : find_in_path(g->exe);
	int missing = !p || !is_executable(p);
	free(p);
	if (missing)
		unmapped(r, get(r->executors, g->executor), m->name, "'%s' is not here: its keys are skipped (ReBench would "
			 "fail each of its runs)", g->exe);
	return missing;
}

static void emit(struct rb *r, const char *experiment)
{
	struct strbuf *y = &r->out->yaml;
	/* the file's name and the experiment's are not ours: a newline in either would end the comment (ESC_TERM shows it) */
	sb_adds(y, "# kiln's reading of the ReBench configuration ");
	esc_add(y, ESC_TERM, r->path);
	sb_adds(y, " (experiment ");
	esc_add(y, ESC_TERM, experiment);
	sb_adds(y, "), by `kiln convert`\n");
	const char *base = strrchr(r->path, '/') ? strrchr(r->path, '/') + 1 : r->path;
	char *stem = xstrdup(base);
	char *dot = strrchr(stem, '.');
	if (dot && dot != stem)
		*dot = '\0';
	sb_adds(y, "name: ");
	yaml_quote(y, stem);
	free(stem);
	long pexecs = counts(r, offsetof(struct rb_details, invocations), "invocations", 0, 1);
	long warm = counts(r, offsetof(struct rb_details, warmup), "warmup", 1, -1);
	long timeout = counts(r, offsetof(struct rb_details, timeout), "max_invocation_time", 0, -1);
	sb_addf(y, "\npexecs: %ld\n", pexecs > 0 ? pexecs : 1);
	if (warm > 0)
		sb_addf(y, "warmup_iterations: %ld\n", warm);
	if (timeout > 0)
		sb_addf(y, "limits: {timeout: %ld}\n", timeout);
	sb_adds(y, "vms:\n");
	for (size_t v = 0; v < r->nvm; v++)
		emit_vm(r, &r->vm[v], y);
	/* a suite per set of VMs: benchmarks with the same VMs together */
	sb_adds(y, "suites:\n");
	unsigned char *done = xcalloc(r->nkb + 1, 1);
	struct strvec snames = STRVEC_INIT;
	for (size_t k = 0; k < r->nkb; k++) {
		if (done[k])
			continue;
		const char *sbase = r->g[r->kb[k].first].suite;
		char *sname = xstrdup(sbase);
		for (int n = 2; sv_has(&snames, sname); n++) {
			free(sname);
			sname = xasprintf("%s-%d", sbase, n);
		}
		sv_push(&snames, sname);
		sb_adds(y, "  ");
		yaml_quote(y, sname);
		sb_adds(y, ":\n    vms: ");
		yaml_list(y, &r->kb[k].vms);
		sb_adds(y, "\n    benchmarks:\n");
		for (size_t j = k; j < r->nkb; j++) {
			int same = !done[j] && r->kb[j].vms.n == r->kb[k].vms.n;
			for (size_t i = 0; same && i < r->kb[k].vms.n; i++)
				same = !strcmp(r->kb[j].vms.v[i], r->kb[k].vms.v[i]);
			if (!same)
				continue;
			done[j] = 1;
			const struct rb_kbench *b = &r->kb[j];
			sb_adds(y, "      - ");
			yaml_quote(y, b->name);
			sb_addf(y, ": {args: %s", b->args);
			if (*b->vars || b->need_command) {
				sb_addf(y, ", vars: {%s", b->vars);
				if (b->need_command) {
					sb_addf(y, "%srb_command: ", *b->vars ? ", " : "");
					yaml_quote(y, r->g[b->first].command);
				}
				sb_adds(y, "}");
			}
			sb_adds(y, "}\n");
		}
		free(sname);
	}
	free(done);
	sv_clear(&snames);
	struct strvec skip = STRVEC_INIT;
	for (size_t v = 0; v < r->nvm; v++)
		if (shell_program_missing(r, &r->vm[v]))
			sv_pushf(&skip, "*:%s:*", r->vm[v].name);
	if (skip.n) {
		sb_adds(y, "skip: ");
		yaml_list(y, &skip);
		sb_addc(y, '\n');
	}
	sv_clear(&skip);
	if (r->out->unmapped.n) {
		sb_adds(y, "# not taken over:\n");
		for (size_t i = 0; i < r->out->unmapped.n; i++) {
			sb_adds(y, "#   ");
			esc_add(y, ESC_TERM, r->out->unmapped.v[i]);
			sb_addc(y, '\n');
		}
	}
}

/* ---- the whole ---- */

int convert_rebench_sniff(const char *text, size_t len)
{
	/* a top-level key executors: or benchmark_suites: at a line's start, and no vms: */
	int rb = 0, kiln = 0;
	for (size_t i = 0; i < len; i = (const char *)memchr(text + i, '\n', len - i) ? (size_t)((const char *)memchr(text + i, '\n', len - i) - text) + 1 : len) {
		const char *l = text + i;
		size_t n = len - i;
		rb |= (n >= 10 && !memcmp(l, "executors:", 10)) || (n >= 17 && !memcmp(l, "benchmark_suites:", 17));
		kiln |= n >= 4 && !memcmp(l, "vms:", 4);
	}
	return rb && !kiln;
}

static void rb_free(struct rb *r)
{
	for (size_t i = 0; i < r->ng; i++) {
		struct rb_group *g = &r->g[i];
		free(g->executor);
		free(g->suite);
		free(g->bench);
		free(g->command);
		free(g->exe);
		free(g->exec_args);
		free(g->suite_cmd);
		free(g->extra);
		free(g->location);
		free(g->adapter);
		vars_release(&g->vars);
	}
	free(r->g);
	for (size_t v = 0; v < r->nvm; v++) {
		free(r->vm[v].name);
		sv_clear(&r->vm[v].args);
	}
	free(r->vm);
	for (size_t k = 0; k < r->nkb; k++) {
		free(r->kb[k].name);
		free(r->kb[k].def);
		free(r->kb[k].args);
		free(r->kb[k].vars);
		sv_clear(&r->kb[k].vms);
	}
	free(r->kb);
	free(r->dir);
}

/* the top level: what it holds, what kiln takes over, the base details */
static int top(struct rb *r, struct rb_details *d, struct rb_vars *v)
{
	static const char *const keys[] = { "default_experiment", "default_data_file", "artifact_review", "build_log",
					    "runs", "reporting", "machines", "benchmark_suites", "executors",
					    "experiments", NULL };
	if (!fy_node_is_mapping(r->root))
		return rb_err(r, r->root, "(document)", "a mapping expected");
	if (known_keys(r, r->root, "(document)", keys, NULL) < 0)
		return -1;
	r->suites = get(r->root, "benchmark_suites");
	r->executors = get(r->root, "executors");
	if (!r->suites || !fy_node_is_mapping(r->suites))
		return rb_err(r, r->suites ? r->suites : r->root, "benchmark_suites", "a mapping of suites expected");
	if (!r->executors || !fy_node_is_mapping(r->executors))
		return rb_err(r, r->executors ? r->executors : r->root, "executors", "a mapping of executors expected");
	*d = (struct rb_details){ 1, 1, -1, -1, 0, 0, 0, NULL };
	vars_default(v);
	struct fy_node *runs = get(r->root, "runs");
	if (runs && (details_at(r, runs, "runs", d) < 0 || vars_at(r, runs, "runs", v) < 0))
		return -1;
	if (get(r->root, "machines"))
		unmapped(r, get(r->root, "machines"), "machines", "not taken over (ReBench's -m MACHINE settings: put them "
			 "in the kiln config)");
	if (get(r->root, "reporting"))
		unmapped(r, get(r->root, "reporting"), "reporting", "not taken over (kiln reports to no ReBenchDB nor "
			 "Codespeed)");
	if (get(r->root, "default_data_file"))
		unmapped(r, get(r->root, "default_data_file"), "default_data_file", "kiln keeps the results in "
			 "CONFIG-STEM.kiln.db (`kiln run -o` for another)");
	return 0;
}

int convert_rebench(const char *path, const char *text, size_t len, const char *experiment, struct convert_out *out,
		    struct kerr *e)
{
	struct rb r;
	memset(&r, 0, sizeof(r));
	r.path = path;
	r.text = text;
	r.out = out;
	r.e = e;
	char *abs = abspath(path);
	r.dir = path_dirname(abs);
	free(abs);
	struct config_yaml *y = NULL;
	r.doc = config_yaml_load(path, text, len, &y, e);
	struct rb_details d;
	struct rb_vars v;
	memset(&v, 0, sizeof(v));
	r.root = r.doc ? fy_document_root(r.doc) : NULL;
	int rc = r.doc ? top(&r, &d, &v) : -1;
	const char *want = experiment ? experiment : r.root ? text_of(get(r.root, "default_experiment")) : NULL;
	if (!want)
		want = "all";
	struct fy_node *exps = r.root ? get(r.root, "experiments") : NULL;
	if (rc == 0 && (!exps || !fy_node_is_mapping(exps)))
		rc = rb_err(&r, exps ? exps : r.root, "experiments", "a mapping of experiments expected");
	if (rc == 0 && strcmp(want, "all") && !get(exps, want))
		rc = rb_err(&r, exps, "experiments", "no experiment '%s'", want);
	void *it = NULL;
	struct fy_node_pair *pr;
	while (rc == 0 && (pr = fy_node_mapping_iterate(exps, &it))) {
		const char *name = text_of(fy_node_pair_key(pr));
		if (!name || (strcmp(want, "all") && strcmp(want, name)))
			continue;
		struct fy_node *x = fy_node_pair_value(pr);
		if (!fy_node_is_mapping(x))
			rc = rb_err(&r, x, "experiments", "%s: a mapping expected", name);
		else
			rc = add_experiment(&r, name, x, &d, &v);
	}
	if (rc == 0 && !r.ng)
		rc = rb_err(&r, exps, "experiments", "experiment '%s' runs no benchmark", want);
	if (rc == 0)
		rc = make_vms(&r);
	if (rc == 0) {
		make_benches(&r);
		emit(&r, want);
	}
	vars_release(&v);
	rb_free(&r);
	config_yaml_free(y);
	return rc;
}

char *rebench_vm_name(const char *executor, const char *suite, int executor_suites)
{
	char *n = executor_suites > 1 ? xasprintf("%s.%s", executor, suite) : xstrdup(executor);
	/* a VM's name names a key's part: no ':' '[' ']' ',' */
	for (char *p = n; *p; p++)
		if (strchr(":[],", *p))
			*p = '_';
	return n;
}
