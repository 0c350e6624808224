/*
 * config.c - read an experiment from YAML (libfyaml) into struct experiment.
 *
 * The walk is strict: every mapping is checked against the keys it may
 * hold, every value against its type, and then the things that would fail
 * later are checked now (plugins exist, VM executables exist, every
 * benchmark has a source for every VM's language).  Every message names
 * FILE:LINE:COL and the field, e.g.
 *   demo.yaml:12:11: vms.pypy.path: VM executable 'pypy9' not found in PATH
 * Scalars carry their own position; a mapping or sequence is located by
 * the key that holds it.  The text becomes a bounded YAML document in
 * config-yaml.c first; config-grow.c says whether a stored experiment's
 * config may change as it did.
 */
#include "config.h"
#include "config-int.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <libfyaml.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exec.h"
#include "plugin.h"

struct cfgctx {
	const char *file;
	int check_vms;
	struct kerr *e;
	struct fy_document *doc;
	const char *text;      /* the source libfyaml parsed (its marks index it) */
	size_t len;
	struct strvec owned;   /* scalar texts kiln made itself (scalar_text) */
	const char *dir;       /* the config's folder (absolute): relative paths in it are relative to it */
	struct strvec *warnings; /* the experiment's */
	/*
	 * `{name}`s in args that are no built-in placeholder, checked once the
	 * benchmarks' vars are known: "LINE:COL<TAB>FIELD<TAB>NAME<TAB>vm|bench<TAB>OWNER"
	 */
	struct strvec maybe_vars;
};


KILN_PRINTF(4, 5)
static int cerr(struct cfgctx *c, struct pos p, const char *field, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	sb_addf(&sb, "%s:%d:%d: %s: ", c->file, p.line, p.col, field);
	va_start(ap, fmt);
	sb_vaddf(&sb, fmt, ap);
	va_end(ap);
	kerr_setc(c->e, KEXIT_CONFIG, "%s", sb.buf);
	sb_release(&sb);
	return -1;
}

static const char *type_name(struct fy_node *n)
{
	switch (fy_node_get_type(n)) {
	case FYNT_SCALAR: return "a scalar";
	case FYNT_SEQUENCE: return "a list";
	case FYNT_MAPPING: return "a mapping";
	}
	return "?";
}

static int want(struct cfgctx *c, struct fy_node *n, enum fy_node_type t, struct pos p, const char *field)
{
	static const char *names[] = { "a scalar", "a list", "a mapping" };
	if (!n || fy_node_get_type(n) != t)
		return cerr(c, config_node_pos(n, p), field, "expected %s, found %s", names[t], n ? type_name(n) : "nothing");
	return 0;
}

/*
 * A scalar's text; NULL (error set) only for the case below.  libfyaml
 * 0.7.12 (Debian 12) formats a single-quoted scalar holding two escaped
 * quotes in a row ('a''''b') wrongly, from bytes it never wrote, and leaks
 * doing it (pantoniou/libfyaml#233).  kiln reads such a scalar from the
 * source itself when it is on one line, where its one escape is '' for ',
 * and refuses it, naming it, when it spans lines (YAML folds those).
 */
static const char *scalar_text(struct cfgctx *c, struct fy_node *n, struct pos p, const char *field)
{
	struct fy_token *t = fy_node_get_scalar_token(n);
	const struct fy_mark *a = t ? fy_token_start_mark(t) : NULL, *b = t ? fy_token_end_mark(t) : NULL;
	if (a && b && fy_token_scalar_style(t) == FYSS_SINGLE_QUOTED && a->input_pos <= b->input_pos &&
	    b->input_pos <= c->len) {
		const char *raw = c->text + a->input_pos; /* between the quotes */
		size_t len = b->input_pos - a->input_pos;
		if (memmem(raw, len, "''''", 4)) {
			if (memchr(raw, '\n', len) || memchr(raw, '\r', len)) {
				cerr(c, config_node_pos(n, p), field, "a single-quoted text with escaped quotes in a row ('''') "
				     "over several lines: libfyaml 0.7.12 misreads it; write it on one line or "
				     "double-quoted");
				return NULL;
			}
			struct strbuf sb = STRBUF_INIT;
			for (size_t i = 0; i < len; i++) {
				sb_addc(&sb, raw[i]);
				if (raw[i] == '\'' && i + 1 < len && raw[i + 1] == '\'')
					i++;
			}
			sv_push(&c->owned, sb_str(&sb));
			sb_release(&sb);
			return c->owned.v[c->owned.n - 1];
		}
	}
	const char *s = fy_node_get_scalar0(n);
	return s ? s : "";
}

static int get_str(struct cfgctx *c, struct fy_node *n, struct pos p, const char *field, char **out)
{
	if (want(c, n, FYNT_SCALAR, p, field) < 0)
		return -1;
	const char *s = scalar_text(c, n, p, field);
	if (!s)
		return -1;
	free(*out);
	*out = xstrdup(s);
	return 0;
}

/* an integer in [min, max]; a number of digits too large for a long says so, not "not an integer" */
static int get_long_in(struct cfgctx *c, struct fy_node *n, struct pos p, const char *field, long min, long max,
		       long *out)
{
	if (want(c, n, FYNT_SCALAR, p, field) < 0)
		return -1;
	const char *s = scalar_text(c, n, p, field);
	if (!s)
		return -1;
	long v;
	if (parse_long(s, &v) < 0) {
		size_t digits = strspn(s + (*s == '-' || *s == '+'), "0123456789");
		if (digits && !s[digits + (*s == '-' || *s == '+')])
			return cerr(c, config_node_pos(n, p), field, "%s is out of range (%ld to %ld)", s, min, max);
		return cerr(c, config_node_pos(n, p), field, "expected an integer, found '%s'", s);
	}
	if (v < min)
		return cerr(c, config_node_pos(n, p), field, "must be at least %ld, found %ld", min, v);
	if (v > max)
		return cerr(c, config_node_pos(n, p), field, "must be at most %ld, found %ld", max, v);
	*out = v;
	return 0;
}

static int get_long(struct cfgctx *c, struct fy_node *n, struct pos p, const char *field, long min, long *out)
{
	return get_long_in(c, n, p, field, min, LONG_MAX, out);
}

static int get_double(struct cfgctx *c, struct fy_node *n, struct pos p, const char *field, double min, double *out)
{
	if (want(c, n, FYNT_SCALAR, p, field) < 0)
		return -1;
	const char *s = scalar_text(c, n, p, field);
	if (!s)
		return -1;
	double v;
	if (parse_double(s, &v) < 0)
		return cerr(c, config_node_pos(n, p), field, "expected a number, found '%s'", s);
	if (v < min)
		return cerr(c, config_node_pos(n, p), field, "must be at least %g, found %g", min, v);
	*out = v;
	return 0;
}

static int get_bool(struct cfgctx *c, struct fy_node *n, struct pos p, const char *field, int *out)
{
	if (want(c, n, FYNT_SCALAR, p, field) < 0)
		return -1;
	const char *s = scalar_text(c, n, p, field);
	if (!s)
		return -1;
	if (!strcmp(s, "true") || !strcmp(s, "yes") || !strcmp(s, "on"))
		*out = 1;
	else if (!strcmp(s, "false") || !strcmp(s, "no") || !strcmp(s, "off"))
		*out = 0;
	else
		return cerr(c, config_node_pos(n, p), field, "expected true or false, found '%s'", s);
	return 0;
}

/* a list of scalars, or (when allowed) one scalar standing for a list of one */
static int get_strlist(struct cfgctx *c, struct fy_node *n, struct pos p, const char *field, struct strvec *out)
{
	sv_clear(out);
	if (n && fy_node_get_type(n) == FYNT_SCALAR) {
		const char *one = scalar_text(c, n, p, field);
		if (!one)
			return -1;
		sv_push(out, one);
		return 0;
	}
	if (want(c, n, FYNT_SEQUENCE, p, field) < 0)
		return -1;
	void *it = NULL;
	struct fy_node *item;
	int idx = 0;
	while ((item = fy_node_sequence_iterate(n, &it))) {
		char *f = xasprintf("%s[%d]", field, idx++);
		const char *one = want(c, item, FYNT_SCALAR, p, f) < 0 ? NULL : scalar_text(c, item, p, f);
		free(f);
		if (!one)
			return -1;
		sv_push(out, one);
	}
	return 0;
}

static int get_mode(struct cfgctx *c, struct fy_node *n, struct pos p, const char *field, enum check_mode *out)
{
	char *s = NULL;
	if (get_str(c, n, p, field, &s) < 0)
		return -1;
	int r = 0;
	if (!strcmp(s, "off"))
		*out = CHECK_OFF;
	else if (!strcmp(s, "warn"))
		*out = CHECK_WARN;
	else if (!strcmp(s, "require"))
		*out = CHECK_REQUIRE;
	else
		r = cerr(c, config_node_pos(n, p), field, "expected require, warn or off, found '%s'", s);
	free(s);
	return r;
}

static int get_cmdlist(struct cfgctx *c, struct fy_node *n, struct pos p, const char *field, struct strvec *out);

/*
 * A step (build, setup, prepare, cleanup): one command (a scalar, or a list
 * of scalars: its argv) or a list of commands.
 */
static int get_steps(struct cfgctx *c, struct fy_node *n, struct pos p, const char *field, struct strvec *out)
{
	sv_clear(out);
	int one = fy_node_is_scalar(n);
	if (fy_node_is_sequence(n)) {
		void *it = NULL;
		struct fy_node *item;
		one = 1;
		while ((item = fy_node_sequence_iterate(n, &it)))
			one &= fy_node_is_scalar(item);
	}
	if (!one)
		return get_cmdlist(c, n, p, field, out);
	if (get_strlist(c, n, p, field, out) < 0)
		return -1;
	if (!out->n || !*out->v[0])
		return cerr(c, config_node_pos(n, p), field, "a command needs at least a program name");
	sv_push(out, "");
	return 0;
}

/* which of a VM's or benchmark's steps the key names, NULL: none */
static struct strvec *step_of(const char *key, struct strvec *build, struct strvec *setup, struct strvec *prepare,
			      struct strvec *cleanup)
{
	return !strcmp(key, "build") ? build : !strcmp(key, "setup") ? setup : !strcmp(key, "prepare") ? prepare
	       : !strcmp(key, "cleanup") ? cleanup : NULL;
}

/*
 * Iterate a mapping, rejecting keys not in `allowed` (NULL: any key; an
 * entry may be a pattern, as "x-*").
 * For each pair calls fn with the key text, its position and the value.
 */
typedef int (*pair_fn)(struct cfgctx *c, void *arg, const char *key, struct pos kp, struct fy_node *val);

static int walk_map(struct cfgctx *c, struct fy_node *map, struct pos p, const char *field,
		    const char *const *allowed, pair_fn fn, void *arg)
{
	if (want(c, map, FYNT_MAPPING, p, field) < 0)
		return -1;
	void *it = NULL;
	struct fy_node_pair *pair;
	while ((pair = fy_node_mapping_iterate(map, &it))) {
		struct fy_node *k = fy_node_pair_key(pair);
		struct pos kp = config_node_pos(k, p);
		if (!k || fy_node_get_type(k) != FYNT_SCALAR)
			return cerr(c, kp, field, "keys must be plain names");
		const char *key = scalar_text(c, k, p, field);
		if (!key)
			return -1;
		if (allowed) {
			int ok = 0;
			for (size_t i = 0; allowed[i]; i++)
				if (star_match(allowed[i], key))
					ok = 1;
			if (!ok) {
				struct strbuf list = STRBUF_INIT;
				for (size_t i = 0; allowed[i]; i++)
					sb_addf(&list, "%s%s", i ? ", " : "", allowed[i]);
				cerr(c, kp, field, "unknown key '%s' (known: %s)", key, list.buf);
				sb_release(&list);
				return -1;
			}
		}
		struct fy_node *v = fy_node_pair_value(pair);
		if (!v) {
			char *f = *field ? xasprintf("%s.%s", field, key) : xstrdup(key);
			int r = cerr(c, kp, f, "has no value");
			free(f);
			return r;
		}
		if (fn(c, arg, key, kp, v) < 0)
			return -1;
	}
	return 0;
}

/*
 * pass_env: names of kiln's own variables that a VM's processes get
 * (patterns with `*`); everything else of kiln's environment is left out.
 */
static int get_pass_env(struct cfgctx *c, struct fy_node *n, struct pos p, const char *field, struct strvec *out)
{
	if (get_strlist(c, n, p, field, out) < 0)
		return -1;
	void *it = NULL;
	for (size_t i = 0; i < out->n; i++) {
		struct fy_node *item = fy_node_is_sequence(n) ? fy_node_sequence_iterate(n, &it) : n;
		if (!*out->v[i] || strchr(out->v[i], '='))
			return cerr(c, config_node_pos(item, p), field, "'%s' is not a variable name (nor a pattern of names)",
				    out->v[i]);
	}
	return 0;
}

/*
 * cwd: a folder, relative to the config's, where the processes and steps
 * of a VM, a suite or a benchmark start (ReBench's `location`); it must be
 * there when the VMs are checked.
 */
static int get_cwd(struct cfgctx *c, struct fy_node *n, struct pos p, const char *field, char **out)
{
	char *s = NULL;
	if (get_str(c, n, p, field, &s) < 0)
		return -1;
	free(*out);
	*out = path_join(c->dir, s);
	struct stat st;
	int r = 0;
	if (!*s)
		r = cerr(c, config_node_pos(n, p), field, "an empty folder name");
	else if (c->check_vms && stat(*out, &st) < 0)
		r = cerr(c, config_node_pos(n, p), field, "the folder %s does not exist", *out);
	else if (c->check_vms && !S_ISDIR(st.st_mode))
		r = cerr(c, config_node_pos(n, p), field, "%s is not a folder", *out);
	free(s);
	return r;
}

/*
 * Command args (a VM's or a benchmark's): each `{name}` that is no
 * built-in placeholder is kept in c->maybe_vars, to be checked against the
 * benchmarks' vars once all are read (check_arg_names).
 */
static int get_args(struct cfgctx *c, struct fy_node *n, struct pos p, const char *field, const char *kind,
		    const char *owner, struct strvec *out)
{
	if (get_strlist(c, n, p, field, out) < 0)
		return -1;
	for (size_t i = 0; i < out->n; i++) {
		struct fy_node *item = fy_node_get_type(n) == FYNT_SEQUENCE ? fy_node_sequence_get_by_index(n, (int)i) : n;
		struct pos ip = config_node_pos(item, p);
		for (const char *at = out->v[i], *ph; (ph = plugin_next_name(at)); at = ph + 1) {
			size_t len = strcspn(ph + 1, "}");
			sv_pushf(&c->maybe_vars, "%d:%d\t%s[%zu]\t%.*s\t%s\t%s", ip.line, ip.col, field, i, (int)len, ph + 1,
				 kind, owner);
		}
	}
	return 0;
}

/* ---- vms ---- */

static const char *const vm_keys[] = { "plugin", "path", "args", "env", "iterations", "instrument",
				       "variant", "runner", "parser", "language", "entry", "stats_from",
				       "keep_log", "optional", "pass_env", "vary", "build", "setup",
				       "prepare", "cleanup", "gauge", "cwd", NULL };

struct vmarg {
	struct experiment *ex;
	int check_vms;
	struct vm_conf *vm;
	struct pos *plugin_pos, *path_pos, *iter_pos, *variant_pos;
	struct fy_node *vary;  /* read once the VM is checked */
	struct pos vary_pos;
	struct pos gauge_pos;  /* where `gauge` is, when given (checked once the plugin is known) */
};

static int env_pair(struct cfgctx *c, void *arg, const char *key, struct pos kp, struct fy_node *v)
{
	struct vm_conf *vm = arg;
	char *f = xasprintf("vms.%s.env.%s", vm->name, key);
	char *s = NULL;
	int r = get_str(c, v, kp, f, &s);
	if (r == 0)
		sv_setenv(&vm->env, key, s);
	free(s);
	free(f);
	return r;
}

/* a runner or parser template: a list of words with no misspelt placeholder */
static int get_template(struct cfgctx *c, struct fy_node *n, struct pos p, const char *field, struct strvec *out)
{
	if (get_strlist(c, n, p, field, out) < 0)
		return -1;
	for (size_t i = 0; i < out->n; i++) {
		size_t len;
		const char *bad = plugin_unknown_placeholder(out->v[i], &len);
		if (!bad)
			continue;
		struct fy_node *item = fy_node_get_type(n) == FYNT_SEQUENCE ? fy_node_sequence_get_by_index(n, (int)i) : n;
		struct strbuf names = STRBUF_INIT;
		plugin_placeholder_names(&names);
		char *f = xasprintf("%s[%zu]", field, i);
		cerr(c, config_node_pos(item, p), f, "unknown placeholder '%.*s' (the placeholders: %s)", (int)len, bad,
		     sb_str(&names));
		free(f);
		sb_release(&names);
		return -1;
	}
	return 0;
}

static const char *const gauge_keys[] = { "format", "regex", "unit", "from", "max_iterations", NULL };

/* a gauge being read: the settings and their field (vms.NAME.gauge, benchmarks.NAME.gauge) */
struct gaugearg {
	struct gauge_conf *g;
	const char *field;
};

static int gauge_format_at(struct cfgctx *c, struct fy_node *v, struct pos kp, const char *f, struct gauge_conf *g)
{
	char *name = NULL;
	if (get_str(c, v, kp, f, &name) < 0)
		return -1;
	g->format = gauge_format_find(name);
	int r = g->format ? 0 : cerr(c, config_node_pos(v, kp), f, "unknown gauge '%s' (known: %s)", name, gauge_format_names());
	free(name);
	return r;
}

static int gauge_pair(struct cfgctx *c, void *arg, const char *key, struct pos kp, struct fy_node *v)
{
	const struct gaugearg *a = arg;
	struct gauge_conf *g = a->g;
	char *f = xasprintf("%s.%s", a->field, key), *from = NULL;
	struct strbuf why = STRBUF_INIT;
	int r;
	if (!strcmp(key, "format"))
		r = gauge_format_at(c, v, kp, f, g);
	else if (!strcmp(key, "max_iterations"))
		r = get_long_in(c, v, kp, f, 1, CONFIG_MAX_ITERATIONS, &g->max_iterations);
	else if (!strcmp(key, "from")) {
		r = get_str(c, v, kp, f, &from);
		if (!r && strcmp(from, "stdout") && strcmp(from, "stderr"))
			r = cerr(c, config_node_pos(v, kp), f, "expected stdout or stderr, found '%s'", from);
		g->from_stderr = !r && !strcmp(from, "stderr");
	} else if (!strcmp(key, "unit")) {
		r = get_str(c, v, kp, f, &g->unit);
		if (!r && gauge_unit_exp(g->unit, strlen(g->unit)) < 0)
			r = cerr(c, config_node_pos(v, kp), f, "expected s, ms, us or ns, found '%s'", g->unit);
	} else {
		r = get_str(c, v, kp, f, &g->regex);
		if (!r && (strchr(g->regex, '\n') || gauge_check_regex(g->regex, &why) < 0))
			r = cerr(c, config_node_pos(v, kp), f, "%s", why.len ? why.buf : "one line expected (lines are matched one by one)");
	}
	sb_release(&why);
	free(from);
	free(f);
	return r;
}

/*
 * gauge: a format's name, or {format, regex, unit, from, max_iterations}
 * (format regex when a regex is given); time reads stderr unless told
 */
static int get_gauge(struct cfgctx *c, struct fy_node *v, struct pos kp, const char *f, struct gauge_conf *g)
{
	g->max_iterations = GAUGE_MAX_ITERATIONS;
	if (fy_node_is_scalar(v)) {
		if (gauge_format_at(c, v, kp, f, g) < 0)
			return -1;
		g->from_stderr = g->format == GAUGE_TIME;
		if (g->format == GAUGE_REGEX)
			return cerr(c, config_node_pos(v, kp), f, "a regex gauge is a mapping: {regex: \"...\", unit: ms}");
		return 0;
	}
	int from_given = fy_node_mapping_lookup_by_string(v, "from", FY_NT) != NULL;
	struct gaugearg a = { g, f };
	if (walk_map(c, v, kp, f, gauge_keys, gauge_pair, &a) < 0)
		return -1;
	if (!g->format)
		g->format = g->regex ? GAUGE_REGEX : GAUGE_NONE;
	if (!from_given)
		g->from_stderr = g->format == GAUGE_TIME;
	if (!g->format)
		return cerr(c, kp, f, "needs a format (%s) or a regex", gauge_format_names());
	if (g->format == GAUGE_REGEX && (!g->regex || !g->unit))
		return cerr(c, kp, f, "a regex gauge needs both regex (one capture group: the number) and unit");
	if (g->format != GAUGE_REGEX && (g->regex || g->unit))
		return cerr(c, kp, f, "regex and unit are for format regex; the %s format has its own",
			    gauge_format_name(g->format));
	return 0;
}

static int vm_pair(struct cfgctx *c, void *arg, const char *key, struct pos kp, struct fy_node *v)
{
	struct vmarg *a = arg;
	struct vm_conf *vm = a->vm;
	char *f = xasprintf("vms.%s.%s", vm->name, key);
	struct strvec *steps;
	int r = 0;
	if (!strcmp(key, "plugin")) {
		r = get_str(c, v, kp, f, &vm->plugin);
		*a->plugin_pos = config_node_pos(v, kp);
	} else if (!strcmp(key, "path")) {
		r = get_str(c, v, kp, f, &vm->path);
		*a->path_pos = config_node_pos(v, kp);
	} else if (!strcmp(key, "args"))
		r = get_args(c, v, kp, f, "vm", vm->name, &vm->args);
	else if (!strcmp(key, "env"))
		r = walk_map(c, v, kp, f, NULL, env_pair, vm);
	else if (!strcmp(key, "cwd"))
		r = get_cwd(c, v, kp, f, &vm->cwd);
	else if (!strcmp(key, "pass_env"))
		r = get_pass_env(c, v, kp, f, &vm->pass_env);
	else if ((steps = step_of(key, &vm->build, &vm->setup, &vm->prepare, &vm->cleanup)))
		r = get_steps(c, v, kp, f, steps);
	else if (!strcmp(key, "vary")) {
		a->vary = v;
		a->vary_pos = kp;
	}
	else if (!strcmp(key, "iterations")) {
		r = get_long_in(c, v, kp, f, 1, CONFIG_MAX_ITERATIONS, &vm->iterations);
		*a->iter_pos = config_node_pos(v, kp);
	}
	else if (!strcmp(key, "instrument"))
		r = get_bool(c, v, kp, f, &vm->instrument);
	else if (!strcmp(key, "variant")) {
		r = get_str(c, v, kp, f, &vm->variant);
		*a->variant_pos = config_node_pos(v, kp);
	}
	else if (!strcmp(key, "runner"))
		r = get_template(c, v, kp, f, &vm->runner);
	else if (!strcmp(key, "parser"))
		r = get_template(c, v, kp, f, &vm->parser);
	else if (!strcmp(key, "language"))
		r = get_str(c, v, kp, f, &vm->language);
	else if (!strcmp(key, "entry"))
		r = get_str(c, v, kp, f, &vm->entry);
	else if (!strcmp(key, "keep_log"))
		r = get_bool(c, v, kp, f, &vm->keep_log);
	else if (!strcmp(key, "optional"))
		r = get_bool(c, v, kp, f, &vm->optional);
	else if (!strcmp(key, "gauge")) {
		r = get_gauge(c, v, kp, f, &vm->gauge);
		a->gauge_pos = kp;
	} else if (!strcmp(key, "stats_from")) {
		r = get_str(c, v, kp, f, &vm->stats_from);
		if (!r && strcmp(vm->stats_from, "stderr") && strcmp(vm->stats_from, "file"))
			r = cerr(c, config_node_pos(v, kp), f, "expected stderr or file, found '%s'", vm->stats_from);
	}
	free(f);
	return r;
}

/* why find_in_path found no program at path: missing, a folder, not executable */
static void not_executable(const char *path, struct strbuf *why)
{
	struct stat st;
	if (!strchr(path, '/'))
		sb_adds(why, "not found in PATH");
	else if (stat(path, &st) < 0)
		sb_addf(why, "not found (%s: %s)", path, strerror(errno));
	else if (S_ISDIR(st.st_mode))
		sb_addf(why, "is a folder (%s), not a program", path);
	else if (!S_ISREG(st.st_mode))
		sb_addf(why, "is not a regular file (%s)", path);
	else
		sb_addf(why, "is not executable (%s: mode %04o)", path, (unsigned)(st.st_mode & 07777));
}

/*
 * The VM's executable found (vm->resolved, absolute), or its error at
 * path_pos.  With CONFIG_CHECK_AFTER_BUILD, a path (with a slash) that is
 * not there yet in a VM with a build step is taken as what the build
 * makes: checked by config_check_built() once it ran.
 */
static int resolve_exe(struct cfgctx *c, struct experiment *ex, struct vm_conf *vm, const char *exe,
		       struct pos path_pos, int check_vms)
{
	char *rel = NULL;
	/* a relative path with a slash is relative to the config's folder */
	if (strchr(exe, '/') && exe[0] != '/') {
		char *dir = path_dirname(ex->path);
		rel = path_join(dir, exe);
		free(dir);
	}
	const char *field = vm->path ? "path" : vm->pl ? "plugin" : "runner";
	vm->resolved = find_in_path(rel ? rel : exe);
	if (!vm->resolved && check_vms == CONFIG_CHECK_AFTER_BUILD && vm->build.n && strchr(exe, '/')) {
		vm->resolved = xstrdup(rel ? rel : exe);
		vm->built_at = xasprintf("%s:%d:%d: vms.%s.%s", c->file, path_pos.line, path_pos.col, vm->name, field);
	}
	if (!vm->resolved && vm->optional) {
		free(rel);
		vm->missing = 1;
		return 0;
	}
	if (!vm->resolved) {
		struct strbuf why = STRBUF_INIT;
		not_executable(rel ? rel : exe, &why);
		char *f = xasprintf("vms.%s.%s", vm->name, field);
		cerr(c, path_pos, f, "VM executable '%s' %s", exe, sb_str(&why));
		sb_release(&why);
		free(f);
		free(rel);
		return -1;
	}
	free(rel);
	if (vm->resolved[0] != '/') {
		char *cwd = getcwd(NULL, 0);
		char *abs = path_join(cwd, vm->resolved);
		free(cwd);
		free(vm->resolved);
		vm->resolved = abs;
	}
	return 0;
}

static int check_vm(struct cfgctx *c, struct experiment *ex, struct vm_conf *vm, struct pos vp,
		    struct pos plugin_pos, struct pos path_pos, int check_vms)
{
	char *f;
	if (!vm->plugin)
		return cerr(c, vp, vm->name, "no plugin given (see `kiln plugins`)");
	if (!strcmp(vm->plugin, "external")) {
		if (!vm->runner.n) {
			f = xasprintf("vms.%s.runner", vm->name);
			cerr(c, vp, f, "an external plugin needs a runner argv template");
			free(f);
			return -1;
		}
		if (!vm->language)
			vm->language = xstrdup(vm->name);
	} else {
		vm->pl = plugin_find(vm->plugin);
		if (!vm->pl || !vm->pl->build) {
			f = xasprintf("vms.%s.plugin", vm->name);
			cerr(c, plugin_pos, f, "%s '%s' (see `kiln plugins`)",
			     vm->pl ? "is a parser-only plugin, not a runner:" : "unknown plugin", vm->plugin);
			free(f);
			return -1;
		}
		if (vm->runner.n || vm->language || vm->entry) {
			f = xasprintf("vms.%s", vm->name);
			cerr(c, vp, f, "runner, language and entry are for `plugin: external` only");
			free(f);
			return -1;
		}
		vm->language = xstrdup(vm->pl->language);
		if (vm->pl->needs_path && !vm->path) {
			f = xasprintf("vms.%s.path", vm->name);
			cerr(c, vp, f, "the %s plugin needs the program to run", vm->pl->name);
			free(f);
			return -1;
		}
	}
	if (!vm->variant)
		vm->variant = vm->pl && vm->pl->variants ? xstrdup(vm->pl->variants[0].name)
							 : xasprintf("default-%s", vm->language);
	if (strchr(vm->name, ':') || strchr(vm->variant, ':')) {
		f = xasprintf("vms.%s", vm->name);
		cerr(c, vp, f, "names may not contain ':' (it separates bench:vm:variant)");
		free(f);
		return -1;
	}
	const char *exe = vm->path ? vm->path : (vm->pl ? vm->pl->vm_default : vm->runner.v[0]);
	if (!vm->path && !vm->pl)
		path_pos = vp;
	if (exe && check_vms)
		return resolve_exe(c, ex, vm, exe, path_pos, check_vms);
	if (exe)
		vm->resolved = xstrdup(exe);
	return 0;
}

/*
 * A plugin with variants (ruby: interp, yjit; php: jit-off, tracing, ...)
 * takes only those names, the first by default; with the VMs checked, the
 * variant's probe must say that this executable can run it, so that a ruby
 * built without YJIT is refused here and not measured as an interpreter.
 */
static int check_variant(struct cfgctx *c, struct vm_conf *vm, struct pos vp, int check_vms)
{
	if (!vm->pl || !vm->pl->variants)
		return 0;
	const struct plugin_variant *v = plugin_variant_find(vm->pl, vm->variant);
	char *f = xasprintf("vms.%s.variant", vm->name);
	int r = 0;
	if (!v) {
		struct strbuf names = STRBUF_INIT;
		plugin_variant_names(vm->pl, &names);
		r = cerr(c, vp, f, "the %s plugin has no variant '%s' (it has: %s)", vm->pl->name, vm->variant,
			 sb_str(&names));
		sb_release(&names);
	} else if (check_vms && vm->built_at) {
		/* probed once its build made it (config_check_built) */
		vm->variant_at = xasprintf("%s:%d:%d: %s", c->file, vp.line, vp.col, f);
	} else if (check_vms && vm->resolved && !vm->missing) {
		struct strbuf why = STRBUF_INIT;
		if (plugin_variant_probe(v, vm->resolved, &vm->args, &why) < 0) {
			/* an optional VM that cannot run here is skipped like one that is not here */
			if (vm->optional) {
				vm->missing = 1;
				vm->missing_why = xasprintf("its variant '%s' cannot run on %s: %s", v->name,
							    vm->resolved, sb_str(&why));
			} else {
				r = cerr(c, vp, f, "variant '%s' (%s) cannot run on %s: %s", v->name, v->summary,
					 vm->resolved, sb_str(&why));
			}
		}
		sb_release(&why);
	}
	free(f);
	return r;
}

/* ---- variable sets: one VM per combination of its vary's args sets and env values ---- */

struct combo {
	struct strbuf label;   /* "noopt,N=4" */
	struct strvec args, env;
};

struct combos {
	struct combo *v;
	size_t n;
};

static void combos_free(struct combos *cs)
{
	for (size_t i = 0; i < cs->n; i++) {
		sb_release(&cs->v[i].label);
		sv_clear(&cs->v[i].args);
		sv_clear(&cs->v[i].env);
	}
	free(cs->v);
	cs->v = NULL;
	cs->n = 0;
}

/*
 * Every combination so far times the `n` choices of one more axis: choice j
 * adds label j, and args (the args axis) or NAME=value j (an env variable).
 */
static int combos_times(struct cfgctx *c, struct combos *cs, const struct strvec *labels,
			const struct strvec *args, const char *var, struct pos at, const char *field)
{
	if (!labels->n)
		return cerr(c, at, field, "has no values");
	if (cs->n * labels->n > (size_t)CONFIG_MAX_KEYS)
		return cerr(c, at, field, "%zu x %zu combinations is more than the %ld keys an experiment may have", cs->n,
			    labels->n, CONFIG_MAX_KEYS);
	struct combos out = { xcalloc(cs->n * labels->n, sizeof(struct combo)), 0 };
	for (size_t i = 0; i < cs->n; i++)
		for (size_t j = 0; j < labels->n; j++) {
			struct combo *d = &out.v[out.n++], *s = &cs->v[i];
			sb_addf(&d->label, "%s%s%s%s%s", s->label.len ? s->label.buf : "", s->label.len ? "," : "",
				var ? var : "", var ? "=" : "", labels->v[j]);
			for (size_t k = 0; k < s->args.n; k++)
				sv_push(&d->args, s->args.v[k]);
			for (size_t k = 0; k < s->env.n; k++)
				sv_push(&d->env, s->env.v[k]);
			if (var)
				sv_pushf(&d->env, "%s=%s", var, labels->v[j]);
			/* args: the j-th set, the sets' words each followed by "" */
			for (size_t k = 0, set = 0; args && k < args->n; k++) {
				if (!*args->v[k])
					set++;
				else if (set == j)
					sv_push(&d->args, args->v[k]);
			}
		}
	combos_free(cs);
	*cs = out;
	return 0;
}

/* a label names a key's part: no ':', '/', '[', ']', ',' and not empty */
static int check_label(struct cfgctx *c, const char *l, struct pos at, const char *field)
{
	if (!*l || strpbrk(l, ":/[],"))
		return cerr(c, at, field, "'%s' names a key's part (NAME[%s]): not empty, no ':', '/', '[', ']' or ','", l,
			    *l ? l : "");
	return 0;
}

struct varyarg {
	struct combos *cs;
	const char *vm;
	int env;               /* walking vary.env (else vary.args) */
	struct strvec labels, args;
};

/* vary.args NAME: [words] (one set), or vary.env VAR: [values] (one axis each) */
static int vary_item(struct cfgctx *c, void *arg, const char *key, struct pos kp, struct fy_node *v)
{
	struct varyarg *a = arg;
	char *f = xasprintf("vms.%s.vary.%s.%s", a->vm, a->env ? "env" : "args", key);
	struct strvec words = STRVEC_INIT;
	int r = get_strlist(c, v, kp, f, &words);
	if (!r && !a->env) {
		r = check_label(c, key, kp, f);
		sv_push(&a->labels, key);
		for (size_t i = 0; i < words.n; i++)
			if (*words.v[i])
				sv_push(&a->args, words.v[i]);
		sv_push(&a->args, "");
	} else if (!r) {
		if (strchr(key, '=') || !*key)
			r = cerr(c, kp, f, "'%s' is not a variable name", key);
		for (size_t i = 0; !r && i < words.n; i++)
			r = check_label(c, words.v[i], kp, f);
		if (!r)
			r = combos_times(c, a->cs, &words, NULL, key, kp, f);
	}
	sv_clear(&words);
	free(f);
	return r;
}

static const char *const vary_keys[] = { "args", "env", NULL };

static int vary_pair(struct cfgctx *c, void *arg, const char *key, struct pos kp, struct fy_node *v)
{
	struct varyarg *a = arg;
	char *f = xasprintf("vms.%s.vary.%s", a->vm, key);
	a->env = !strcmp(key, "env");
	int r = walk_map(c, v, kp, f, NULL, vary_item, a);
	if (!r && !a->env)
		r = combos_times(c, a->cs, &a->labels, &a->args, NULL, kp, f);
	sv_clear(&a->labels);
	sv_clear(&a->args);
	free(f);
	return r;
}

static void vm_copy(struct vm_conf *d, const struct vm_conf *s)
{
	*d = *s;
#define DUP(f) d->f = s->f ? xstrdup(s->f) : NULL
	DUP(name); DUP(base); DUP(plugin); DUP(path); DUP(resolved); DUP(variant); DUP(language); DUP(entry);
	DUP(stats_from); DUP(missing_why); DUP(built_at); DUP(variant_at); DUP(cwd);
#undef DUP
	gauge_conf_copy(&d->gauge, &s->gauge);
	struct strvec *vs[] = { &d->args, &d->env, &d->pass_env, &d->runner, &d->parser,
				&d->build, &d->setup, &d->prepare, &d->cleanup };
	const struct strvec *from[] = { &s->args, &s->env, &s->pass_env, &s->runner, &s->parser,
					&s->build, &s->setup, &s->prepare, &s->cleanup };
	for (size_t i = 0; i < ARRAY_SIZE(vs); i++) {
		*vs[i] = (struct strvec)STRVEC_INIT;
		for (size_t j = 0; j < from[i]->n; j++)
			sv_push(vs[i], from[i]->v[j]);
	}
}

static void vm_release(struct vm_conf *vm);

/*
 * The last VM read has a vary: it becomes one VM per combination, named
 * NAME[LABEL,...], its args followed by the combination's, its env with
 * the combination's values.
 */
static int vary_vm(struct cfgctx *c, struct experiment *ex, struct fy_node *vary, struct pos vp)
{
	struct vm_conf base = ex->vms[--ex->nvms];
	struct combos cs = { xcalloc(1, sizeof(struct combo)), 1 };
	struct varyarg a = { &cs, base.name, 0, STRVEC_INIT, STRVEC_INIT };
	char *f = xasprintf("vms.%s.vary", base.name);
	int r = walk_map(c, vary, vp, f, vary_keys, vary_pair, &a);
	free(f);
	if (!r && !cs.v[0].label.len)
		r = cerr(c, vp, "vms", "VM '%s': vary needs args or env to vary", base.name);
	if (!r && ex->nvms + cs.n > (size_t)CONFIG_MAX_KEYS)
		r = cerr(c, vp, "vms", "more than %ld VMs", CONFIG_MAX_KEYS);
	for (size_t i = 0; !r && i < cs.n; i++) {
		ex->vms = xrealloc(ex->vms, (ex->nvms + 1) * sizeof(*ex->vms));
		struct vm_conf *d = &ex->vms[ex->nvms++];
		vm_copy(d, &base);
		free(d->name);
		d->name = xasprintf("%s[%s]", base.base, cs.v[i].label.buf);
		for (size_t j = 0; j < cs.v[i].args.n; j++)
			sv_push(&d->args, cs.v[i].args.v[j]);
		for (size_t j = 0; j < cs.v[i].env.n; j++) {
			const char *kv = cs.v[i].env.v[j], *eq = strchr(kv, '=');
			char *name = xstrndup(kv, (size_t)(eq - kv));
			sv_setenv(&d->env, name, eq + 1);
			free(name);
		}
	}
	combos_free(&cs);
	vm_release(&base);
	return r;
}

static int vms_pair(struct cfgctx *c, void *arg, const char *key, struct pos kp, struct fy_node *v)
{
	struct experiment *ex = arg;
	ex->vms = xrealloc(ex->vms, (ex->nvms + 1) * sizeof(*ex->vms));
	struct vm_conf *vm = &ex->vms[ex->nvms++];
	memset(vm, 0, sizeof(*vm));
	vm->name = xstrdup(key);
	vm->base = xstrdup(key);
	vm->line = kp.line;
	if (strpbrk(key, "[],"))
		return cerr(c, kp, "vms", "VM name '%s' may not contain '[', ']' or ','", key);
	struct pos pp = kp, ph = kp, pi = kp, pv = kp;
	struct vmarg a = { ex, c->check_vms, vm, &pp, &ph, &pi, &pv, NULL, kp, kp };
	char *f = xasprintf("vms.%s", key);
	int r = walk_map(c, v, kp, f, vm_keys, vm_pair, &a);
	free(f);
	if (r < 0)
		return -1;
	vm->col = kp.col;
	if (check_vm(c, ex, vm, kp, pp, ph, a.check_vms) < 0 || check_variant(c, vm, pv, a.check_vms) < 0)
		return -1;
	if (vm->gauge.format && !(vm->pl && vm->pl->whole_process)) {
		f = xasprintf("vms.%s.gauge", vm->name);
		cerr(c, a.gauge_pos, f, "the %s plugin's runner speaks kiln's protocol; gauge reads a program's own "
		     "output, with plugin: command", vm->pl ? vm->pl->name : vm->plugin);
		free(f);
		return -1;
	}
	/* whole-process plugins measure one process per pexec (unless a gauge reads the iterations it prints) */
	if (config_one_iteration(vm, NULL) && vm->iterations > 1) {
		f = xasprintf("vms.%s.iterations", vm->name);
		cerr(c, pi, f, "the %s plugin runs one iteration per process; use pexecs for repetitions", vm->pl->name);
		free(f);
		return -1;
	}
	return a.vary ? vary_vm(c, ex, a.vary, a.vary_pos) : 0;
}

/* ---- benchmarks ---- */

static const char *const bench_keys[] = { "param", "args", "build", "setup", "prepare", "cleanup", "layout", "gauge",
					  "vars", "iterations", "cwd", NULL };
static const char *const range_keys[] = { "from", "to", "step", NULL };

/* one benchmark being read: its params when a list or range is given */
struct benarg {
	struct bench_conf *b;
	struct strvec params;
	int listed;            /* param was a list or a range */
	struct pos ppos;
	struct combos vars;    /* its vars' combinations (label "NAME=LABEL,...", env NAME=VALUE each); n 0: none */
};

struct rangearg {
	long from, to, step;
	int has_from, has_to;
};

static int range_pair(struct cfgctx *c, void *arg, const char *key, struct pos kp, struct fy_node *v)
{
	struct rangearg *r = arg;
	char *f = xasprintf("param.%s", key);
	int rc;
	if (!strcmp(key, "from"))
		rc = get_long_in(c, v, kp, f, LONG_MIN, LONG_MAX, &r->from), r->has_from = 1;
	else if (!strcmp(key, "to"))
		rc = get_long_in(c, v, kp, f, LONG_MIN, LONG_MAX, &r->to), r->has_to = 1;
	else
		rc = get_long_in(c, v, kp, f, 1, LONG_MAX, &r->step);
	free(f);
	return rc;
}

/* param: {from: A, to: B, step: S}, integers A, A+S, ... up to B, at most CONFIG_MAX_KEYS of them */
static int get_range(struct cfgctx *c, struct fy_node *v, struct pos kp, const char *field, struct strvec *out)
{
	struct rangearg r = { 0, 0, 1, 0, 0 };
	if (walk_map(c, v, kp, field, range_keys, range_pair, &r) < 0)
		return -1;
	if (!r.has_from || !r.has_to)
		return cerr(c, kp, field, "a range needs from and to (and may have step)");
	if (r.to < r.from)
		return cerr(c, kp, field, "the range's to (%ld) is below its from (%ld)", r.to, r.from);
	double n = ((double)r.to - (double)r.from) / (double)r.step + 1;
	if (n > CONFIG_MAX_KEYS)
		return cerr(c, kp, field, "the range has %.0f values, more than the %ld keys an experiment may have", n,
			    CONFIG_MAX_KEYS);
	for (long x = r.from;; x += r.step) {
		sv_pushf(out, "%ld", x);
		if (x > r.to - r.step)
			break;
	}
	return 0;
}

/* param as a list: scalars, each one key */
static int get_params(struct cfgctx *c, struct fy_node *v, struct pos kp, const char *field, struct benarg *a)
{
	a->listed = 1;
	a->ppos = kp;
	if (fy_node_is_mapping(v))
		return get_range(c, v, kp, field, &a->params);
	if (get_strlist(c, v, kp, field, &a->params) < 0)
		return -1;
	void *it = NULL;
	for (size_t i = 0; i < a->params.n; i++) {
		struct fy_node *item = fy_node_sequence_iterate(v, &it);
		const char *p = a->params.v[i];
		if (!*p || strpbrk(p, ":/[],"))
			return cerr(c, config_node_pos(item, kp), field,
				    "'%s': a param of a list names its key (NAME[PARAM]): not empty, no ':', '/', '[', ']' or ','",
				    p);
	}
	return 0;
}

/* layout: kiln or krun, whose entry points the benchmark's sources have (docs/config.md#benchmarks) */
static int get_layout(struct cfgctx *c, struct fy_node *v, struct pos kp, const char *field, int *out)
{
	char *l = NULL;
	int r = get_str(c, v, kp, field, &l);
	if (!r && !strcmp(l, "kiln"))
		*out = LAYOUT_KILN;
	else if (!r && !strcmp(l, "krun"))
		*out = LAYOUT_KRUN;
	else if (!r)
		r = cerr(c, config_node_pos(v, kp), field, "expected kiln or krun, found '%s'", l);
	free(l);
	return r;
}

char *config_var_label(const char *v)
{
	if (!*v)
		return xstrdup("''");
	char *l = xstrdup(v);
	for (char *p = l; *p; p++)
		if (strchr(":/[],", *p))
			*p = '_';
	return l;
}

/* vars NAME: VALUE or [VALUE, ...]: one more axis of the benchmark's combinations */
static int bench_var_pair(struct cfgctx *c, void *arg, const char *key, struct pos kp, struct fy_node *v)
{
	struct benarg *a = arg;
	char *f = xasprintf("benchmarks.%s.vars.%s", a->b->name, key);
	struct strvec vals = STRVEC_INIT, labels = STRVEC_INIT;
	int r = get_strlist(c, v, kp, f, &vals);
	size_t kl = strlen(key);
	int name_ok = kl && (isalpha((unsigned char)key[0]) || key[0] == '_');
	for (size_t i = 1; name_ok && i < kl; i++)
		name_ok = isalnum((unsigned char)key[i]) || key[i] == '_';
	if (!r && !name_ok)
		r = cerr(c, kp, f, "'%s' is not a variable name (a letter or '_', then letters, digits and '_')", key);
	if (!r && plugin_is_placeholder(key, kl))
		r = cerr(c, kp, f, "'%s' is one of kiln's placeholders, not a variable of the benchmark's", key);
	for (size_t i = 0; !r && i < vals.n; i++) {
		char *l = config_var_label(vals.v[i]);
		sv_push(&labels, l);
		free(l);
	}
	if (!r && !a->vars.n) {
		a->vars.v = xcalloc(1, sizeof(struct combo));
		a->vars.n = 1;
	}
	/*
	 * The combinations so far times this axis; env gets the value as
	 * written, the label its name.  One value is no axis: it is every
	 * combination's, and names no key (as a single param does not).
	 */
	if (!r && vals.n > 1)
		r = combos_times(c, &a->vars, &labels, NULL, key, kp, f);
	for (size_t i = 0; !r && i < a->vars.n; i++)
		sv_setenv(&a->vars.v[i].env, key, vals.v[vals.n > 1 ? i % vals.n : 0]);
	sv_clear(&vals);
	sv_clear(&labels);
	free(f);
	return r;
}

static int bench_pair(struct cfgctx *c, void *arg, const char *key, struct pos kp, struct fy_node *v)
{
	struct benarg *a = arg;
	struct bench_conf *b = a->b;
	char *f = xasprintf("benchmarks.%s.%s", b->name, key);
	struct strvec *steps;
	int r;
	if (!strcmp(key, "param") && !fy_node_is_scalar(v))
		r = get_params(c, v, kp, f, a);
	else if (!strcmp(key, "param"))
		r = get_str(c, v, kp, f, &b->param);
	else if ((steps = step_of(key, &b->build, &b->setup, &b->prepare, &b->cleanup)))
		r = get_steps(c, v, kp, f, steps);
	else if (!strcmp(key, "layout"))
		r = get_layout(c, v, kp, f, &b->layout);
	else if (!strcmp(key, "gauge")) {
		r = get_gauge(c, v, kp, f, &b->gauge);
		b->gauge_line = kp.line;
		b->gauge_col = kp.col;
	} else if (!strcmp(key, "vars"))
		r = walk_map(c, v, kp, f, NULL, bench_var_pair, a);
	else if (!strcmp(key, "iterations"))
		r = get_long_in(c, v, kp, f, 1, CONFIG_MAX_ITERATIONS, &b->iterations);
	else if (!strcmp(key, "cwd"))
		r = get_cwd(c, v, kp, f, &b->cwd);
	else
		r = get_args(c, v, kp, f, "bench", b->name, &b->args);
	free(f);
	return r;
}

/* where benchmarks are being read: the top level or a suite */
struct bset {
	struct experiment *ex;
	const char *suite;           /* NULL: the top-level benchmarks */
	const struct strvec *vms;    /* the suite's vms */
	struct pos vms_pos;
	const char *cwd;             /* the suite's cwd */
};

static void bench_copy(struct bench_conf *d, const struct bench_conf *s)
{
	memset(d, 0, sizeof(*d));
	d->name = xstrdup(s->name);
	d->source = s->source ? xstrdup(s->source) : NULL;
	d->suite = s->suite ? xstrdup(s->suite) : NULL;
	d->param = s->param ? xstrdup(s->param) : NULL;
	for (size_t i = 0; i < s->vms.n; i++)
		sv_push(&d->vms, s->vms.v[i]);
	struct strvec *to[] = { &d->args, &d->build, &d->setup, &d->prepare, &d->cleanup };
	const struct strvec *from[] = { &s->args, &s->build, &s->setup, &s->prepare, &s->cleanup };
	for (size_t i = 0; i < ARRAY_SIZE(to); i++)
		for (size_t j = 0; j < from[i]->n; j++)
			sv_push(to[i], from[i]->v[j]);
	d->line = s->line;
	d->layout = s->layout;
	gauge_conf_copy(&d->gauge, &s->gauge);
	d->gauge_line = s->gauge_line;
	d->gauge_col = s->gauge_col;
	d->vms_line = s->vms_line;
	d->vms_col = s->vms_col;
	for (size_t j = 0; j < s->vars.n; j++)
		sv_push(&d->vars, s->vars.v[j]);
	d->iterations = s->iterations;
	d->cwd = s->cwd ? xstrdup(s->cwd) : NULL;
}

static void bench_release(struct bench_conf *b)
{
	free(b->name);
	free(b->source);
	free(b->suite);
	sv_clear(&b->vms);
	free(b->param);
	sv_clear(&b->args);
	sv_clear(&b->build);
	sv_clear(&b->setup);
	sv_clear(&b->prepare);
	sv_clear(&b->cleanup);
	sv_clear(&b->conclude);
	sv_clear(&b->vars);
	free(b->cwd);
	gauge_conf_release(&b->gauge);
}

/* add b (taken) to the experiment; a name defined twice is an error */
static int bench_add(struct cfgctx *c, struct experiment *ex, struct bench_conf *b, struct pos kp)
{
	for (size_t i = 0; i < ex->nbenchs; i++)
		if (!strcmp(ex->benchs[i].name, b->name)) {
			int r = cerr(c, kp, "benchmarks", "benchmark '%s' is defined twice (%s%s and %s%s)", b->name,
				     ex->benchs[i].suite ? "suite " : "", ex->benchs[i].suite ? ex->benchs[i].suite : "benchmarks",
				     b->suite ? "suite " : "", b->suite ? b->suite : "benchmarks");
			bench_release(b);
			return r;
		}
	if (ex->nbenchs >= (size_t)CONFIG_MAX_KEYS) {
		bench_release(b);
		return cerr(c, kp, "benchmarks", "more than %ld benchmarks", CONFIG_MAX_KEYS);
	}
	ex->benchs = xrealloc(ex->benchs, (ex->nbenchs + 1) * sizeof(*ex->benchs));
	ex->benchs[ex->nbenchs++] = *b;
	return 0;
}

/* one benchmark NAME: VALUE (a param, a list of params, or a mapping); its params expanded, one key each */
static int bench_read(struct cfgctx *c, struct bset *bs, const char *key, struct pos kp, struct fy_node *v)
{
	if (strpbrk(key, ":/[]"))
		return cerr(c, kp, "benchmarks", "benchmark name '%s' may not contain ':', '/', '[' or ']'", key);
	struct bench_conf b;
	memset(&b, 0, sizeof(b));
	b.name = xstrdup(key);
	b.source = xstrdup(key);
	b.suite = bs->suite ? xstrdup(bs->suite) : NULL;
	b.cwd = bs->cwd ? xstrdup(bs->cwd) : NULL;
	for (size_t i = 0; bs->vms && i < bs->vms->n; i++)
		sv_push(&b.vms, bs->vms->v[i]);
	b.vms_line = bs->vms_pos.line;
	b.vms_col = bs->vms_pos.col;
	b.line = kp.line;
	struct benarg a = { &b, STRVEC_INIT, 0, kp, { NULL, 0 } };
	char *f = xasprintf("benchmarks.%s", key);
	int r;
	if (!v || fy_node_is_scalar(v)) /* shorthand: name: param (or a name alone in a list) */
		r = v ? get_str(c, v, kp, f, &b.param) : 0;
	else if (fy_node_is_sequence(v)) /* shorthand: name: [params] */
		r = get_params(c, v, kp, f, &a);
	else
		r = walk_map(c, v, kp, f, bench_keys, bench_pair, &a);
	if (!r && a.listed && !a.params.n)
		r = cerr(c, a.ppos, f, "an empty list of params");
	if (!r && !b.param)
		b.param = xstrdup("0");
	/* one benchmark per param of a list, times one per combination of its vars: NAME[PARAM,VAR=VALUE,...] */
	size_t np = a.listed ? a.params.n : 1, nv = a.vars.n ? a.vars.n : 1;
	if (!r && (double)np * (double)nv > CONFIG_MAX_KEYS)
		r = cerr(c, kp, f, "%zu params x %zu combinations of vars is more than the %ld keys an experiment may have",
			 np, nv, CONFIG_MAX_KEYS);
	free(f);
	for (size_t i = 0; !r && i < np; i++)
		for (size_t j = 0; !r && j < nv; j++) {
			struct bench_conf one;
			bench_copy(&one, &b);
			const char *vl = a.vars.n && a.vars.v[j].label.len ? a.vars.v[j].label.buf : NULL;
			if (a.listed || vl) {
				free(one.name);
				one.name = xasprintf("%s[%s%s%s]", key, a.listed ? a.params.v[i] : "", a.listed && vl ? "," : "",
						     vl ? vl : "");
			}
			if (a.listed) {
				free(one.param);
				one.param = xstrdup(a.params.v[i]);
			}
			for (size_t k = 0; a.vars.n && k < a.vars.v[j].env.n; k++)
				sv_push(&one.vars, a.vars.v[j].env.v[k]);
			r = bench_add(c, bs->ex, &one, kp);
		}
	bench_release(&b);
	sv_clear(&a.params);
	combos_free(&a.vars);
	return r;
}

static int benchs_pair(struct cfgctx *c, void *arg, const char *key, struct pos kp, struct fy_node *v)
{
	return bench_read(c, arg, key, kp, v);
}

/*
 * benchmarks: a mapping NAME: VALUE, or (as ReBench writes them) a list of
 * names and one-entry mappings.
 */
static int get_benchmarks(struct cfgctx *c, struct fy_node *n, struct pos kp, const char *field, struct bset *bs)
{
	if (!n || !fy_node_is_sequence(n))
		return walk_map(c, n, kp, field, NULL, benchs_pair, bs);
	void *it = NULL;
	struct fy_node *item;
	while ((item = fy_node_sequence_iterate(n, &it))) {
		struct pos ip = config_node_pos(item, kp);
		if (fy_node_is_scalar(item)) {
			const char *name = scalar_text(c, item, kp, field);
			if (!name || bench_read(c, bs, name, ip, NULL) < 0)
				return -1;
		} else if (fy_node_is_mapping(item) && fy_node_mapping_item_count(item) == 1) {
			if (walk_map(c, item, kp, field, NULL, benchs_pair, bs) < 0)
				return -1;
		} else {
			return cerr(c, ip, field, "a list of benchmarks holds names or NAME: SETTINGS entries, found %s",
				    type_name(item));
		}
	}
	return 0;
}

/* ---- suites: named sets of benchmarks, each on all VMs or on its vms ---- */

static const char *const suite_keys[] = { "benchmarks", "vms", "cwd", NULL };

struct suitearg {
	struct cfgctx *c;
	struct strvec vms;
	struct fy_node *benchs;
	struct pos benchs_pos, vms_pos;
	char *field;
	char *cwd;
};

static int suite_pair(struct cfgctx *c, void *arg, const char *key, struct pos kp, struct fy_node *v)
{
	struct suitearg *s = arg;
	if (!strcmp(key, "benchmarks")) {
		s->benchs = v;
		s->benchs_pos = kp;
		return 0;
	}
	if (!strcmp(key, "cwd")) {
		char *cf = xasprintf("%s.cwd", s->field);
		int rc = get_cwd(c, v, kp, cf, &s->cwd);
		free(cf);
		return rc;
	}
	char *f = xasprintf("%s.vms", s->field);
	s->vms_pos = config_node_pos(v, kp);
	int r = get_strlist(c, v, kp, f, &s->vms);
	free(f);
	return r;
}

static int suites_pair(struct cfgctx *c, void *arg, const char *key, struct pos kp, struct fy_node *v)
{
	struct experiment *ex = arg;
	struct suitearg s = { c, STRVEC_INIT, NULL, kp, kp, xasprintf("suites.%s", key), NULL };
	int r = walk_map(c, v, kp, s.field, suite_keys, suite_pair, &s);
	if (!r && !s.benchs)
		r = cerr(c, kp, s.field, "a suite needs its benchmarks");
	char *f = xasprintf("%s.benchmarks", s.field);
	struct bset bs = { ex, key, &s.vms, s.vms_pos, s.cwd };
	if (!r)
		r = get_benchmarks(c, s.benchs, s.benchs_pos, f, &bs);
	free(f);
	free(s.field);
	free(s.cwd);
	sv_clear(&s.vms);
	return r;
}

/* a suite's vms name VMs of the config (checked once every VM is read) */
static int check_suite_vms(struct cfgctx *c, struct experiment *ex, struct pos at)
{
	for (size_t b = 0; b < ex->nbenchs; b++)
		for (size_t i = 0; i < ex->benchs[b].vms.n; i++) {
			int found = 0;
			for (size_t v = 0; v < ex->nvms && !found; v++)
				found = !strcmp(ex->vms[v].base, ex->benchs[b].vms.v[i]);
			if (!found) {
				char *f = xasprintf("suites.%s.vms", ex->benchs[b].suite);
				struct pos p = { ex->benchs[b].vms_line, ex->benchs[b].vms_col };
				int r = cerr(c, p.line ? p : at, f, "no VM '%s' in vms", ex->benchs[b].vms.v[i]);
				free(f);
				return r;
			}
		}
	return 0;
}

/* ---- limits, platform ---- */

static const char *const limits_keys[] = { "timeout", "address_space_mb", "heap_mb", "stack_mb", "output_kb", "instr_mb",
					    "instr_records", "instr_names", "instr_timeout", "log_mb", "processes", "file_mb",
					    "disk_mb", "memory_mb", "isolate", NULL };

/* a plain word of the config ("auto"), NULL when v is not a scalar */
static const char *limits_word(struct fy_node *v)
{
	return v && fy_node_get_type(v) == FYNT_SCALAR ? fy_node_get_scalar0(v) : NULL;
}

/* limits.isolate: auto (a machine where kiln can make one), true (required) or false */
static int limits_isolate(struct cfgctx *c, struct fy_node *v, struct pos kp, const char *f, int *out)
{
	const char *s = limits_word(v);
	if (s && !strcmp(s, "auto")) {
		*out = ISOLATE_AUTO;
		return 0;
	}
	int b;
	int r = get_bool(c, v, kp, f, &b);
	if (r == 0)
		*out = b ? ISOLATE_ON : ISOLATE_OFF;
	return r;
}

/* the bounds on the benchmark's resources; memory_mb: "auto" is the default */
static int limits_bound(struct cfgctx *c, const char *key, struct pos kp, struct fy_node *v, const char *f,
			struct limits_conf *l)
{
	if (!strcmp(key, "isolate"))
		return limits_isolate(c, v, kp, f, &l->isolate);
	if (!strcmp(key, "processes"))
		return get_long_in(c, v, kp, f, 0, 1L << 22, &l->processes);
	if (!strcmp(key, "file_mb"))
		return get_long_in(c, v, kp, f, 0, 1L << 30, &l->file_mb);
	if (!strcmp(key, "disk_mb"))
		return get_long_in(c, v, kp, f, 1, 1L << 30, &l->disk_mb);
	const char *s = limits_word(v);
	if (s && !strcmp(s, "auto")) {
		l->memory_mb = -1;
		return 0;
	}
	return get_long_in(c, v, kp, f, 0, 1L << 30, &l->memory_mb);
}

static int limits_pair(struct cfgctx *c, void *arg, const char *key, struct pos kp, struct fy_node *v)
{
	struct limits_conf *l = arg;
	char *f = xasprintf("limits.%s", key);
	int r;
	if (!strcmp(key, "timeout"))
		r = get_double(c, v, kp, f, 0, &l->timeout_s);
	else if (!strcmp(key, "address_space_mb") || !strcmp(key, "heap_mb")) {
		/* heap_mb was the old name: RLIMIT_AS bounds every mapping, not the heap */
		if (l->address_space_mb_set)
			r = cerr(c, kp, f, "limits.address_space_mb and limits.heap_mb (its old name) are one "
				 "setting: give it once");
		else
			r = get_long_in(c, v, kp, f, 0, 1L << 30, &l->address_space_mb);
		l->address_space_mb_set = 1;
		if (!r && key[0] == 'h')
			kiln_note("%s:%d:%d: limits.heap_mb is read as limits.address_space_mb: it is RLIMIT_AS, which bounds "
				  "the VM's whole address space (what node and java reserve included), not its heap; "
				  "rename it (docs/config.md#limits)", c->file, kp.line, kp.col);
	}
	else if (!strcmp(key, "stack_mb"))
		r = get_long_in(c, v, kp, f, 0, 1L << 30, &l->stack_mb);
	else if (!strcmp(key, "instr_mb"))
		r = get_long(c, v, kp, f, 1, &l->instr_mb);
	else if (!strcmp(key, "instr_records"))
		r = get_long(c, v, kp, f, 1, &l->instr_records);
	else if (!strcmp(key, "instr_names"))
		r = get_long(c, v, kp, f, 1, &l->instr_names);
	else if (!strcmp(key, "instr_timeout"))
		r = get_double(c, v, kp, f, 0.001, &l->instr_timeout_s);
	else if (!strcmp(key, "log_mb"))
		r = get_long(c, v, kp, f, 1, &l->log_mb);
	else if (strcmp(key, "output_kb"))
		r = limits_bound(c, key, kp, v, f, l);
	else
		r = get_long_in(c, v, kp, f, 1, 1L << 20, &l->output_kb);
	free(f);
	return r;
}

/* the platform settings a config without a platform section has */
void platform_conf_defaults(struct platform_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->aslr = ASLR_SYSTEM;
	c->temperature = CHECK_WARN;
	c->load = CHECK_OFF;      /* opt-in: waiting for load stalls runs on shared machines */
	c->kmsg = CHECK_WARN;
	c->governor = CHECK_WARN;
	c->temp_tolerance_c = 3;
	c->temp_wait_max_s = 600;
	c->load_max = 1.0;
	c->sync = 0;              /* opt-in: sync(2) before every pexec costs time */
	c->nice = 0;
}

static const char *const platform_keys[] = {
	"aslr", "temperature", "temperature_tolerance", "temperature_wait", "load", "load_max",
	"kmsg", "kmsg_allow", "governor", "settle", "sync", "rerun_tainted", "user", "pin_cpus",
	"nice", "notify", "counters", "reboot_command", "max_reboots", NULL
};

/*
 * platform.pin_cpus: CPU list items.  Whether this machine has the CPUs is
 * kiln run's preflight (run.c): a cluster's nodes may have others.
 */
static int get_pin_cpus(struct cfgctx *c, struct fy_node *n, struct pos p, const char *field, struct strvec *out,
			struct strvec *where)
{
	if (get_strlist(c, n, p, field, out) < 0)
		return -1;
	for (size_t i = 0; i < out->n; i++) {
		struct fy_node *item = fy_node_get_type(n) == FYNT_SEQUENCE ? fy_node_sequence_get_by_index(n, (int)i) : n;
		char *f = xasprintf("%s[%zu]", field, i);
		cpu_set_t want;
		int r = 0;
		struct pos ip = config_node_pos(item, p);
		char at[32];
		snprintf(at, sizeof(at), "%d:%d", ip.line, ip.col);
		sv_setenv(where, f + strlen("platform."), at);
		if (exec_parse_cpus(out->v[i], &want) < 0 || !CPU_COUNT(&want))
			r = cerr(c, config_node_pos(item, p), f, "'%s' is not a CPU list item (\"3\", \"2-5\")", out->v[i]);
		free(f);
		if (r < 0)
			return -1;
	}
	return 0;
}

/* platform.aslr: off (false), on (true) or system */
static int get_aslr(struct cfgctx *c, struct fy_node *v, struct pos kp, const char *f, enum aslr_mode *out)
{
	char *s = NULL;
	int r = get_str(c, v, kp, f, &s);
	if (!r) {
		if (!strcmp(s, "off") || !strcmp(s, "false"))
			*out = ASLR_OFF;
		else if (!strcmp(s, "on") || !strcmp(s, "true"))
			*out = ASLR_ON;
		else if (!strcmp(s, "system"))
			*out = ASLR_SYSTEM;
		else
			r = cerr(c, config_node_pos(v, kp), f, "expected off, on or system, found '%s'", s);
	}
	free(s);
	return r;
}

/*
 * The platform keys of the checks before and during a run (ASLR, the
 * temperature, load and kernel-log checks, the governor): 1 when key is one
 * of them, its result in *r; 0 when it is not.
 */
static int platform_checks(struct cfgctx *c, struct platform_conf *p, const char *key, const char *f, struct pos kp,
			   struct fy_node *v, int *r)
{
	if (!strcmp(key, "aslr"))
		*r = get_aslr(c, v, kp, f, &p->aslr);
	else if (!strcmp(key, "temperature"))
		*r = get_mode(c, v, kp, f, &p->temperature);
	else if (!strcmp(key, "load"))
		*r = get_mode(c, v, kp, f, &p->load);
	else if (!strcmp(key, "kmsg"))
		*r = get_mode(c, v, kp, f, &p->kmsg);
	else if (!strcmp(key, "governor"))
		*r = get_mode(c, v, kp, f, &p->governor);
	else if (!strcmp(key, "temperature_tolerance"))
		*r = get_double(c, v, kp, f, 0, &p->temp_tolerance_c);
	else if (!strcmp(key, "temperature_wait"))
		*r = get_double(c, v, kp, f, 0, &p->temp_wait_max_s);
	else if (!strcmp(key, "load_max"))
		*r = get_double(c, v, kp, f, 0, &p->load_max);
	else if (!strcmp(key, "settle"))
		*r = get_double(c, v, kp, f, 0, &p->settle_s);
	else if (!strcmp(key, "kmsg_allow"))
		*r = get_strlist(c, v, kp, f, &p->kmsg_allow);
	else
		return 0;
	return 1;
}

/*
 * The other platform keys, how the benchmark runs and what kiln does
 * around it (the user, CPUs, nice, notifications, counters, reboots); any
 * key walk_map let through that is not one is ignored, as before.
 */
static int platform_running(struct cfgctx *c, struct platform_conf *p, const char *key, const char *f, struct pos kp,
			    struct fy_node *v)
{
	int r = 0;
	if (!strcmp(key, "sync"))
		r = get_bool(c, v, kp, f, &p->sync);
	else if (!strcmp(key, "rerun_tainted"))
		r = get_bool(c, v, kp, f, &p->rerun_tainted);
	else if (!strcmp(key, "user"))
		r = get_str(c, v, kp, f, &p->user);
	else if (!strcmp(key, "pin_cpus"))
		r = get_pin_cpus(c, v, kp, f, &p->pin_cpus, &p->where);
	else if (!strcmp(key, "nice")) {
		long n;
		r = get_long(c, v, kp, f, -20, &n);
		if (!r && n > 19)
			r = cerr(c, config_node_pos(v, kp), f, "must be between -20 and 19");
		p->nice = (int)n;
		p->has_nice = 1;
	} else if (!strcmp(key, "notify"))
		r = get_strlist(c, v, kp, f, &p->notify);
	else if (!strcmp(key, "counters"))
		r = get_strlist(c, v, kp, f, &p->counters);
	else if (!strcmp(key, "reboot_command"))
		r = get_strlist(c, v, kp, f, &p->reboot_command);
	else if (!strcmp(key, "max_reboots"))
		r = get_long(c, v, kp, f, 0, &p->max_reboots);
	return r;
}

/* one platform key: where it was written remembered (for the preflight's messages), then its value */
static int platform_pair(struct cfgctx *c, void *arg, const char *key, struct pos kp, struct fy_node *v)
{
	struct platform_conf *p = arg;
	char *f = xasprintf("platform.%s", key);
	int r = 0;
	struct pos vp = config_node_pos(v, kp);
	char at[32];
	snprintf(at, sizeof(at), "%d:%d", vp.line, vp.col);
	sv_setenv(&p->where, key, at);
	if (!platform_checks(c, p, key, f, kp, v, &r))
		r = platform_running(c, p, key, f, kp, v);
	free(f);
	return r;
}

/* pre_execution / post_execution: a list of argv lists */
static int get_cmdlist(struct cfgctx *c, struct fy_node *n, struct pos p, const char *field, struct strvec *out)
{
	/* stored flattened: each command's words, then a "" separator */
	if (want(c, n, FYNT_SEQUENCE, p, field) < 0)
		return -1;
	void *it = NULL;
	struct fy_node *item;
	int idx = 0;
	while ((item = fy_node_sequence_iterate(n, &it))) {
		char *f = xasprintf("%s[%d]", field, idx++);
		struct strvec one = STRVEC_INIT;
		int r = get_strlist(c, item, p, f, &one);
		free(f);
		if (r < 0) {
			sv_clear(&one);
			return -1;
		}
		if (!one.n || !*one.v[0]) {
			sv_clear(&one);
			return cerr(c, config_node_pos(item, p), field, "a command needs at least a program name");
		}
		for (size_t i = 0; i < one.n; i++)
			sv_push(out, one.v[i]);
		sv_push(out, "");
		sv_clear(&one);
	}
	return 0;
}

/* ---- top level ---- */

/* x-*: free for the user (anchors to alias elsewhere), as in Docker Compose files */
static const char *const top_keys[] = { "name", "pexecs", "iterations", "seed", "results",
					"benchmarks_dir", "vms", "benchmarks", "skip", "limits",
					"pre_execution", "post_execution", "platform", "durability",
					"pass_env", "suites", "warmup_pexecs", "warmup_iterations", "layout", "x-*", NULL };

struct toparg {
	struct experiment *ex;
	struct pos vms_pos, benchs_pos, bdir_pos, pexecs_pos, suites_pos, warmup_pos, skip_pos, results_pos;
	struct fy_node *skip;    /* the skip list, for the position of a pattern matching nothing */
	int seen_vms, seen_benchs;
};

/*
 * The top level's numbers (pexecs, iterations, warmup, seed), each with its
 * bounds, and where some were written for the checks of the whole config:
 * 1 when key is one of them, its result in *r; 0 when it is not.
 */
static int top_number(struct cfgctx *c, struct toparg *a, const char *key, struct pos kp, struct fy_node *v, int *r)
{
	struct experiment *ex = a->ex;
	if (!strcmp(key, "pexecs")) {
		a->pexecs_pos = config_node_pos(v, kp);
		*r = get_long_in(c, v, kp, key, 1, CONFIG_MAX_PEXECS, &ex->pexecs);
	} else if (!strcmp(key, "iterations")) {
		ex->iterations_set = 1;
		*r = get_long_in(c, v, kp, key, 1, CONFIG_MAX_ITERATIONS, &ex->iterations);
	} else if (!strcmp(key, "warmup_pexecs")) {
		a->warmup_pos = config_node_pos(v, kp);
		*r = get_long_in(c, v, kp, key, 0, CONFIG_MAX_PEXECS, &ex->warmup_pexecs);
	} else if (!strcmp(key, "warmup_iterations")) {
		a->warmup_pos = config_node_pos(v, kp);
		*r = get_long_in(c, v, kp, key, 0, CONFIG_MAX_ITERATIONS, &ex->warmup_iterations);
	} else if (!strcmp(key, "seed")) {
		long sd;
		*r = get_long(c, v, kp, key, 0, &sd);
		if (!*r)
			ex->seed = (unsigned long)sd;
	} else {
		return 0;
	}
	return 1;
}

/* durability: power (every commit survives a power cut) or crash (survives kiln's crash only) */
static int get_durability(struct cfgctx *c, struct fy_node *v, struct pos kp, const char *key, int *power)
{
	char *d = NULL;
	int r = get_str(c, v, kp, key, &d);
	if (!r && !strcmp(d, "power"))
		*power = 1;
	else if (!r && !strcmp(d, "crash"))
		*power = 0;
	else if (!r)
		r = cerr(c, config_node_pos(v, kp), key, "expected power or crash, found '%s'", d);
	free(d);
	return r;
}

/*
 * The top level's sections, what is run (vms, benchmarks, suites, skip)
 * and how (limits, layout): 1 when key is one of them, its result in *r;
 * 0 when it is not.  Whether there are VMs and benchmarks at all, and
 * where, is for check_whole.
 */
static int top_section(struct cfgctx *c, struct toparg *a, const char *key, struct pos kp, struct fy_node *v, int *r)
{
	struct experiment *ex = a->ex;
	if (!strcmp(key, "vms")) {
		a->vms_pos = kp;
		a->seen_vms = 1;
		*r = walk_map(c, v, kp, key, NULL, vms_pair, ex);
	} else if (!strcmp(key, "benchmarks")) {
		a->benchs_pos = kp;
		a->seen_benchs = 1;
		struct bset bs = { ex, NULL, NULL, kp, NULL };
		*r = get_benchmarks(c, v, kp, key, &bs);
	} else if (!strcmp(key, "suites")) {
		a->seen_benchs = 1;
		a->suites_pos = kp;
		*r = walk_map(c, v, kp, key, NULL, suites_pair, ex);
	} else if (!strcmp(key, "skip")) {
		a->skip = v;
		a->skip_pos = kp;
		*r = get_strlist(c, v, kp, key, &ex->skip);
	} else if (!strcmp(key, "limits")) {
		*r = walk_map(c, v, kp, key, limits_keys, limits_pair, &ex->limits);
	} else if (!strcmp(key, "layout")) {
		*r = get_layout(c, v, kp, key, &ex->layout);
	} else {
		return 0;
	}
	return 1;
}

/* one top-level key (walk_map has refused unknown ones): the rest are texts, commands, x-* and platform */
static int top_pair(struct cfgctx *c, void *arg, const char *key, struct pos kp, struct fy_node *v)
{
	struct toparg *a = arg;
	struct experiment *ex = a->ex;
	int r;
	if (top_number(c, a, key, kp, v, &r) || top_section(c, a, key, kp, v, &r))
		return r;
	if (!strcmp(key, "name"))
		return get_str(c, v, kp, key, &ex->name);
	if (!strcmp(key, "results")) {
		a->results_pos = config_node_pos(v, kp);
		return get_str(c, v, kp, key, &ex->results);
	}
	if (!strcmp(key, "benchmarks_dir")) {
		a->bdir_pos = config_node_pos(v, kp);
		return get_str(c, v, kp, key, &ex->benchmarks_dir);
	}
	if (!strcmp(key, "durability"))
		return get_durability(c, v, kp, key, &ex->durable_power);
	if (!strcmp(key, "pre_execution"))
		return get_cmdlist(c, v, kp, key, &ex->pre_exec);
	if (!strcmp(key, "post_execution"))
		return get_cmdlist(c, v, kp, key, &ex->post_exec);
	if (!strcmp(key, "pass_env"))
		return get_pass_env(c, v, kp, key, &ex->pass_env);
	if (!strncmp(key, "x-", 2))
		return 0;
	return walk_map(c, v, kp, key, platform_keys, platform_pair, &ex->platform);
}

/* a benchmark's own iterations on a VM that runs one per process (the command plugin without a gauge) */
static int check_bench_iterations(struct cfgctx *c, const struct experiment *ex)
{
	for (size_t j = 0; j < ex->nbenchs; j++)
		for (size_t i = 0; ex->benchs[j].iterations > 1 && i < ex->nvms; i++) {
			const struct bench_conf *b = &ex->benchs[j];
			const struct vm_conf *vm = &ex->vms[i];
			if (!config_one_iteration(vm, b) || !config_runs(ex, b, vm))
				continue;
			char *f = xasprintf("benchmarks.%s.iterations", config_bench_source(b));
			struct pos p = { b->line, 1 };
			int r = cerr(c, p, f, "VM '%s' runs it with the %s plugin, one iteration per process; use pexecs for "
				     "repetitions (or a gauge, when the program times its own iterations)", vm->name, vm->pl->name);
			free(f);
			return r;
		}
	return 0;
}

/* warmup_iterations leaves every in-process key iterations to analyse */
static int check_warmup(struct cfgctx *c, const struct experiment *ex, struct pos at)
{
	for (size_t i = 0; ex->warmup_iterations && i < ex->nvms; i++)
		for (size_t j = 0; j < ex->nbenchs; j++) {
			const struct vm_conf *vm = &ex->vms[i];
			const struct bench_conf *b = &ex->benchs[j];
			if (config_one_iteration(vm, b) || !config_runs(ex, b, vm))
				continue; /* one iteration per process: warmup_iterations is not for it */
			long n = config_iterations(ex, vm, b);
			if (n <= ex->warmup_iterations)
				return cerr(c, at, "warmup_iterations", "%ld leaves VM '%s' nothing to analyse: it runs %ld "
					    "iterations", ex->warmup_iterations, vm->name, n);
		}
	return 0;
}

/* a benchmark's gauge reads its own harness: every VM that runs it must be a command VM */
static int check_bench_gauges(struct cfgctx *c, const struct experiment *ex)
{
	for (size_t j = 0; j < ex->nbenchs; j++) {
		const struct bench_conf *b = &ex->benchs[j];
		for (size_t i = 0; b->gauge.format && i < ex->nvms; i++) {
			const struct vm_conf *vm = &ex->vms[i];
			if ((vm->pl && vm->pl->whole_process) || !config_runs(ex, b, vm))
				continue;
			char *f = xasprintf("benchmarks.%s.gauge", config_bench_source(b));
			struct pos p = { b->gauge_line, b->gauge_col };
			cerr(c, p, f, "VM '%s' runs it with the %s plugin, whose runner speaks kiln's protocol; gauge reads a "
			     "program's own output, with plugin: command (skip the key, or give the benchmark to a suite "
			     "of command VMs)", vm->name, vm->pl ? vm->pl->name : vm->plugin);
			free(f);
			return -1;
		}
	}
	return 0;
}

/* every skip pattern matches a key (a misspelt one would run what it meant to skip) */
static int check_skip(struct cfgctx *c, const struct experiment *ex, const struct toparg *a)
{
	for (size_t i = 0; i < ex->skip.n; i++) {
		int hit = 0;
		struct strbuf keys = STRBUF_INIT;
		for (size_t b = 0; b < ex->nbenchs && !hit; b++)
			for (size_t v = 0; v < ex->nvms && !hit; v++) {
				char *key = xasprintf("%s:%s:%s", ex->benchs[b].name, ex->vms[v].name, ex->vms[v].variant);
				hit = star_match(ex->skip.v[i], key);
				if (keys.len < 200)
					sb_addf(&keys, "%s%s", keys.len ? ", " : "", key);
				else if (!strstr(keys.buf, ", ..."))
					sb_adds(&keys, ", ...");
				free(key);
			}
		if (!hit) {
			struct fy_node *item = fy_node_get_type(a->skip) == FYNT_SEQUENCE
						       ? fy_node_sequence_get_by_index(a->skip, (int)i) : a->skip;
			char *f = xasprintf("skip[%zu]", i);
			cerr(c, config_node_pos(item, a->skip_pos), f, "'%s' matches no key (BENCH:VM:VARIANT, * for any text; "
			     "the keys: %s)", ex->skip.v[i], sb_str(&keys));
			free(f);
		}
		sb_release(&keys);
		if (!hit)
			return -1;
	}
	return 0;
}

/* every VM's pass_env: the experiment's, then its own */
static void merge_pass_env(struct experiment *ex)
{
	for (size_t i = 0; i < ex->nvms; i++) {
		struct strvec all = STRVEC_INIT;
		for (size_t j = 0; j < ex->pass_env.n; j++)
			sv_push(&all, ex->pass_env.v[j]);
		for (size_t j = 0; j < ex->vms[i].pass_env.n; j++)
			sv_push(&all, ex->vms[i].pass_env.v[j]);
		sv_clear(&ex->vms[i].pass_env);
		ex->vms[i].pass_env = all;
	}
}

static char *config_stem(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t n = strlen(base);
	const char *exts[] = { ".yaml", ".yml", ".conf", ".krun" }; /* kiln's, ReBench's, Krun's */
	for (size_t i = 0; i < ARRAY_SIZE(exts); i++) {
		size_t el = strlen(exts[i]);
		if (n > el && !strcmp(base + n - el, exts[i]))
			return xstrndup(base, n - el);
	}
	return xstrdup(base);
}

/* where a benchmark's folder is: benchmarks_dir, or the bundled suite when only it has one */
static const char *bench_root(const struct experiment *ex, const struct bench_conf *b)
{
	if (!ex->bundled_dir)
		return ex->benchmarks_dir;
	char *mine = path_join(ex->benchmarks_dir, config_bench_source(b));
	char *theirs = path_join(ex->bundled_dir, config_bench_source(b));
	int bundled = !file_exists(mine) && file_exists(theirs);
	free(mine);
	free(theirs);
	return bundled ? ex->bundled_dir : ex->benchmarks_dir;
}

char *config_bench_dir(const struct experiment *ex, const struct bench_conf *b, const struct vm_conf *vm)
{
	const char *root = bench_root(ex, b);
	char *dir = xasprintf("%s/%s/%s", root, config_bench_source(b), vm->language);
	const struct kiln_plugin *pl = vm->pl;
	/* only the plugin's own folder name has Krun's alias (a config's language is what it says) */
	if (!pl || !pl->krun_language || !pl->entry || strcmp(vm->language, pl->language))
		return dir;
	char *entry = path_join(dir, pl->entry);
	int here = file_exists(entry);
	free(entry);
	if (here)
		return dir;
	char *krun = xasprintf("%s/%s/%s", root, config_bench_source(b), pl->krun_language);
	entry = path_join(krun, pl->entry);
	int there = file_exists(entry);
	free(entry);
	if (!there) {
		free(krun);
		return dir;
	}
	free(dir);
	return krun;
}

char *config_entry_path(const struct experiment *ex, const struct bench_conf *b, const struct vm_conf *vm)
{
	const char *entry = vm->pl ? vm->pl->entry : vm->entry;
	if (!entry)
		return NULL;
	char *dir = config_bench_dir(ex, b, vm);
	char *path = path_join(dir, entry);
	if (!file_exists(path) && vm->pl && vm->pl->krun_entry) {
		char *krun = path_join(dir, vm->pl->krun_entry);
		if (file_exists(krun)) {
			free(path);
			path = krun;
		} else {
			free(krun);
		}
	}
	free(dir);
	return path;
}

/* the source check: every (benchmark, VM) pair that will run has its entry file */
static int check_sources(struct cfgctx *c, struct experiment *ex)
{
	for (size_t b = 0; b < ex->nbenchs; b++) {
		for (size_t v = 0; v < ex->nvms; v++) {
			struct vm_conf *vm = &ex->vms[v];
			if (!config_runs(ex, &ex->benchs[b], vm))
				continue;
			char *entry = config_entry_path(ex, &ex->benchs[b], vm);
			if (entry && !file_exists(entry)) {
				char *f = xasprintf("benchmarks.%s", ex->benchs[b].name);
				cerr(c, (struct pos){ ex->benchs[b].line, 1 }, f,
				     "no source for VM '%s': %s does not exist", vm->name, entry);
				free(f);
				free(entry);
				return -1;
			}
			free(entry);
		}
	}
	return 0;
}

void config_defaults(struct experiment *ex)
{
	memset(ex, 0, sizeof(*ex));
	ex->pexecs = 1;
	ex->iterations = 1;
	ex->durable_power = 1;
	ex->seed = 0;
	ex->limits.output_kb = 64;
	ex->limits.instr_mb = 1024;
	ex->limits.instr_records = 2000000;
	ex->limits.instr_names = 10000;
	ex->limits.instr_timeout_s = 300;
	ex->limits.log_mb = 4096;
	ex->limits.processes = 4096;
	ex->limits.file_mb = 4096;
	ex->limits.memory_mb = -1;
	platform_conf_defaults(&ex->platform);
}

/* does a benchmark read as `owner` (its name in the config) have a var `name`? */
static int bench_has_var(const struct experiment *ex, const char *owner, const char *name)
{
	for (size_t b = 0; b < ex->nbenchs; b++)
		if (!strcmp(config_bench_source(&ex->benchs[b]), owner) && config_bench_var(&ex->benchs[b], name, strlen(name)))
			return 1;
	return 0;
}

/* does any benchmark have a var `name`? */
static int any_var(const struct experiment *ex, const char *name)
{
	for (size_t b = 0; b < ex->nbenchs; b++)
		if (config_bench_var(&ex->benchs[b], name, strlen(name)))
			return 1;
	return 0;
}

/*
 * The `{name}`s in args that nothing will substitute, said as warnings
 * (the args pass them on as written): in a command VM's args or a
 * benchmark's, a name that is no placeholder and no var of a benchmark;
 * in another plugin's VM args, any (they go to the VM as they are).
 */
static void check_arg_names(struct cfgctx *c, struct experiment *ex)
{
	struct strbuf names = STRBUF_INIT;
	plugin_placeholder_names_of(PLACEHOLDERS_COMMAND, &names);
	for (size_t i = 0; i < c->maybe_vars.n; i++) {
		char *line = xstrdup(c->maybe_vars.v[i]), *fld[5], *save = NULL;
		size_t n = 0;
		for (char *t = strtok_r(line, "\t", &save); t && n < 5; t = strtok_r(NULL, "\t", &save))
			fld[n++] = t;
		const struct vm_conf *vm = NULL;
		for (size_t v = 0; n == 5 && !strcmp(fld[3], "vm") && v < ex->nvms && !vm; v++)
			if (!strcmp(ex->vms[v].base, fld[4]))
				vm = &ex->vms[v];
		int command = vm && vm->pl && vm->pl->whole_process, known = plugin_is_command_placeholder(fld[2], strlen(fld[2]));
		if (n < 5)
			;
		else if (vm && !command && vm->pl)
			sv_pushf(c->warnings, "%s:%s: %s: '{%s}' is passed on as it is: the %s plugin gives its VM's args to the "
				 "VM unchanged (placeholders are substituted in command VMs' args and in steps)", c->file, fld[0],
				 fld[1], fld[2], vm->pl->name);
		else if (!strcmp(fld[3], "vm") && !vm)
			;
		else if (!known && !(strcmp(fld[3], "bench") ? any_var(ex, fld[2]) : bench_has_var(ex, fld[4], fld[2])))
			sv_pushf(c->warnings, "%s:%s: %s: '{%s}' is no placeholder nor a var of %s: passed on as it is "
				 "(the placeholders: %s)", c->file, fld[0], fld[1], fld[2],
				 strcmp(fld[3], "bench") ? "any benchmark" : "the benchmark", names.buf);
		free(line);
	}
	sb_release(&names);
}


/* what the whole config must have, once every key of it is read */
static int check_whole(struct cfgctx *c, struct experiment *ex, struct toparg *ta, struct pos top)
{
	if (!ta->seen_vms || !ex->nvms)
		return cerr(c, ta->seen_vms ? ta->vms_pos : top, "vms", "at least one VM is needed");
	if (!ta->seen_benchs || !ex->nbenchs)
		return cerr(c, ta->seen_benchs ? ta->benchs_pos : top, "benchmarks", "at least one benchmark is needed");
	if (check_skip(c, ex, ta) < 0)
		return -1;
	if (!ex->name)
		ex->name = config_stem(c->file);
	merge_pass_env(ex);
	check_arg_names(c, ex);
	if (check_suite_vms(c, ex, ta->suites_pos) < 0 || check_warmup(c, ex, ta->warmup_pos) < 0 ||
	    check_bench_gauges(c, ex) < 0 || check_bench_iterations(c, ex) < 0)
		return -1;
	if ((double)ex->nbenchs * (double)ex->nvms > CONFIG_MAX_KEYS)
		return cerr(c, ta->benchs_pos.line ? ta->benchs_pos : ta->suites_pos, "benchmarks",
			    "%zu benchmarks x %zu VMs is more than the %ld keys an experiment may have", ex->nbenchs,
			    ex->nvms, CONFIG_MAX_KEYS);
	return 0;
}

/* results: beside the config (CONFIG-STEM.kiln.db), or relative to its folder, which must exist */
static int resolve_results(struct cfgctx *c, struct experiment *ex, const struct toparg *ta, const char *cdir)
{
	if (!ex->results) {
		char *stem = config_stem(c->file);
		char *fn = xasprintf("%s.kiln.db", stem);
		ex->results = path_join(cdir, fn);
		free(fn);
		free(stem);
		return 0;
	}
	char *p = path_join(cdir, ex->results);
	free(ex->results);
	ex->results = p;
	/* the commands that write it say so here, with the position, not when they open it */
	char *rdir = path_dirname(p);
	struct stat st;
	int r = 0;
	if (c->check_vms && (stat(rdir, &st) < 0 || !S_ISDIR(st.st_mode)))
		r = cerr(c, ta->results_pos, "results", "the folder %s does not exist (kiln creates the results file, "
			 "not its folder)", rdir);
	free(rdir);
	return r;
}

/* benchmarks_dir relative to the config's folder; without it, a benchmarks/ beside the config, then the bundled suite */
static int resolve_benchmarks_dir(struct cfgctx *c, struct experiment *ex, const struct toparg *ta, const char *cdir,
				  const char *datadir)
{
	if (ex->benchmarks_dir) {
		char *p = path_join(cdir, ex->benchmarks_dir);
		free(ex->benchmarks_dir);
		ex->benchmarks_dir = p;
		return file_exists(p) ? 0 : cerr(c, ta->bdir_pos, "benchmarks_dir", "%s does not exist", p);
	}
	char *p = path_join(cdir, "benchmarks");
	if (file_exists(p)) {
		/* your own benchmarks first, the bundled suite for the rest */
		ex->benchmarks_dir = p;
		ex->bundled_dir = path_join(datadir ? datadir : ".", "benchmarks");
	} else {
		free(p);
		ex->benchmarks_dir = path_join(datadir ? datadir : ".", "benchmarks");
	}
	return 0;
}

/* the schedule's size, bounded before anything is allocated for it */
static int check_schedule_size(struct cfgctx *c, const struct experiment *ex, const struct toparg *ta, struct pos top)
{
	long keys = 0;
	for (size_t b = 0; b < ex->nbenchs; b++)
		for (size_t v = 0; v < ex->nvms; v++)
			keys += config_runs(ex, &ex->benchs[b], &ex->vms[v]);
	if (keys && ex->pexecs + ex->warmup_pexecs > CONFIG_MAX_SCHEDULE / keys)
		return cerr(c, ta->pexecs_pos.line ? ta->pexecs_pos : top, "pexecs",
			    "%ld keys x %ld pexecs is more than the %ld pexecs a schedule may hold", keys, ex->pexecs,
			    (long)CONFIG_MAX_SCHEDULE);
	return 0;
}

/* the parsed document into ex: its keys, then the whole's checks, paths and sources */
static int parse_document(struct cfgctx *c, struct experiment *ex, const char *datadir)
{
	struct fy_node *root = fy_document_root(c->doc);
	struct toparg ta;
	memset(&ta, 0, sizeof(ta));
	ta.ex = ex;
	struct pos top = { 1, 1 };
	if (!root)
		return cerr(c, top, "(document)", "the file is empty");
	if (walk_map(c, root, top, "(document)", top_keys, top_pair, &ta) < 0 || check_whole(c, ex, &ta, top) < 0)
		return -1;
	char *cdir = path_dirname(ex->path);
	int r = resolve_results(c, ex, &ta, cdir) < 0 || resolve_benchmarks_dir(c, ex, &ta, cdir, datadir) < 0 ? -1 : 0;
	free(cdir);
	if (r == 0)
		r = check_sources(c, ex);
	if (r == 0)
		r = check_schedule_size(c, ex, &ta, top);
	return r;
}

static int parse_experiment(const char *path, const char *text, size_t len, const char *datadir,
			    int check_vms, struct experiment *ex, struct kerr *e)
{
	config_defaults(ex);
	ex->path = abspath(path);
	ex->text = xstrndup(text, len);
	hash_hex(text, len, ex->hash);

	if (config_check_text(path, text, len, e) < 0)
		return -1;
	if (config_only_comments(text, len))
		return kerr_setc(e, KEXIT_CONFIG, "%s:1:1: (document): the file is empty%s", path,
				 memchr(text, '#', len) ? " (it holds only comments): no VMs, no benchmarks" : "");
	char *dir = path_dirname(ex->path);
	struct cfgctx c = { path, check_vms, e, NULL, ex->text, len, STRVEC_INIT, dir, &ex->warnings, STRVEC_INIT };
	struct fy_diag *diag = NULL;
	c.doc = config_load_yaml(path, ex->text, len, &diag, e);
	int r = c.doc ? parse_document(&c, ex, datadir) : -1;
	free(dir);
	sv_clear(&c.maybe_vars);
	if (c.doc)
		fy_document_destroy(c.doc);
	if (diag)
		config_diag_release(diag);
	sv_clear(&c.owned);
	return r;
}

int config_parse(const char *path, const char *text, size_t len, const char *datadir,
		 int check_vms, struct experiment *ex, struct kerr *e)
{
	int r = parse_experiment(path, text, len, datadir, check_vms, ex, e);
	if (r < 0)
		config_free(ex); /* a failed parse leaves nothing to free */
	return r;
}

int config_load(const char *path, const char *datadir, int check_vms, struct experiment *ex, struct kerr *e)
{
	struct strbuf sb = STRBUF_INIT;
	if (read_file(path, &sb, e) < 0) {
		memset(ex, 0, sizeof(*ex));
		return -1;
	}
	int r = config_parse(path, sb.buf, sb.len, datadir, check_vms, ex, e);
	sb_release(&sb);
	return r;
}

static void vm_release(struct vm_conf *vm)
{
	free(vm->name);
	free(vm->cwd);
	free(vm->base);
	free(vm->plugin);
	free(vm->path);
	free(vm->resolved);
	sv_clear(&vm->args);
	sv_clear(&vm->env);
	sv_clear(&vm->pass_env);
	free(vm->variant);
	free(vm->missing_why);
	free(vm->built_at);
	free(vm->variant_at);
	sv_clear(&vm->runner);
	sv_clear(&vm->parser);
	free(vm->language);
	free(vm->entry);
	free(vm->stats_from);
	gauge_conf_release(&vm->gauge);
	sv_clear(&vm->build);
	sv_clear(&vm->setup);
	sv_clear(&vm->prepare);
	sv_clear(&vm->cleanup);
}

void config_free(struct experiment *ex)
{
	for (size_t i = 0; i < ex->nvms; i++)
		vm_release(&ex->vms[i]);
	free(ex->vms);
	for (size_t i = 0; i < ex->nbenchs; i++)
		bench_release(&ex->benchs[i]);
	free(ex->benchs);
	sv_clear(&ex->skip);
	sv_clear(&ex->keys_only);
	sv_clear(&ex->pre_exec);
	sv_clear(&ex->post_exec);
	sv_clear(&ex->pass_env);
	struct platform_conf *p = &ex->platform;
	sv_clear(&p->kmsg_allow);
	free(p->user);
	sv_clear(&p->pin_cpus);
	sv_clear(&p->where);
	sv_clear(&p->notify);
	sv_clear(&p->counters);
	sv_clear(&p->reboot_command);
	free(ex->path);
	free(ex->text);
	free(ex->name);
	free(ex->results);
	free(ex->benchmarks_dir);
	free(ex->bundled_dir);
	sv_clear(&ex->warnings);
	memset(ex, 0, sizeof(*ex));
}

const struct bench_conf *config_bench_named(const struct experiment *ex, const char *name)
{
	for (size_t i = 0; i < ex->nbenchs; i++)
		if (!strcmp(ex->benchs[i].name, name))
			return &ex->benchs[i];
	return NULL;
}

const char *config_bench_source(const struct bench_conf *b)
{
	return b->source ? b->source : b->name;
}

const struct gauge_conf *config_gauge(const struct vm_conf *vm, const struct bench_conf *b)
{
	if (!vm->pl || !vm->pl->whole_process)
		return NULL;
	if (b && b->gauge.format)
		return &b->gauge;
	return vm->gauge.format ? &vm->gauge : NULL;
}

int config_counts_set(const struct experiment *ex, const struct vm_conf *vm, const struct bench_conf *b)
{
	return (b && b->iterations > 0) || vm->iterations > 0 || ex->iterations_set;
}

const char *config_cwd(const struct vm_conf *vm, const struct bench_conf *b)
{
	return b && b->cwd ? b->cwd : vm ? vm->cwd : NULL;
}

const char *config_bench_var(const struct bench_conf *b, const char *name, size_t n)
{
	for (size_t i = 0; b && i < b->vars.n; i++)
		if (!strncmp(b->vars.v[i], name, n) && b->vars.v[i][n] == '=')
			return b->vars.v[i] + n + 1;
	return NULL;
}

long config_iterations(const struct experiment *ex, const struct vm_conf *vm, const struct bench_conf *b)
{
	const struct gauge_conf *g = config_gauge(vm, b);
	if (g && !config_counts_set(ex, vm, b))
		return g->max_iterations;
	return b && b->iterations > 0 ? b->iterations : vm->iterations > 0 ? vm->iterations : ex->iterations;
}

int config_check_built_vm(const struct vm_conf *vm, struct kerr *e)
{
	if (!vm->built_at)
		return 0;
	if (!is_executable(vm->resolved)) {
		struct strbuf why = STRBUF_INIT;
		not_executable(vm->resolved, &why);
		kerr_setc(e, KEXIT_CONFIG, "%s: VM executable '%s' %s after the VM's build step", vm->built_at,
			  vm->path ? vm->path : vm->resolved, sb_str(&why));
		sb_release(&why);
		return -1;
	}
	const struct plugin_variant *v = vm->variant_at ? plugin_variant_find(vm->pl, vm->variant) : NULL;
	struct strbuf why = STRBUF_INIT;
	int r = v ? plugin_variant_probe(v, vm->resolved, &vm->args, &why) : 0;
	if (r < 0)
		kerr_setc(e, KEXIT_CONFIG, "%s: variant '%s' (%s) cannot run on %s: %s", vm->variant_at, v->name,
			  v->summary, vm->resolved, sb_str(&why));
	sb_release(&why);
	return r;
}

int config_check_built(const struct experiment *ex, struct kerr *e)
{
	for (size_t i = 0; i < ex->nvms; i++)
		if (config_check_built_vm(&ex->vms[i], e) < 0)
			return -1;
	return 0;
}

int config_krun_layout(const struct experiment *ex, const struct bench_conf *b)
{
	return (b->layout != LAYOUT_DEFAULT ? b->layout : ex->layout) == LAYOUT_KRUN;
}

int config_one_iteration(const struct vm_conf *vm, const struct bench_conf *b)
{
	return vm->pl && vm->pl->whole_process && !config_gauge(vm, b);
}

int config_skipped(const struct experiment *ex, const char *key)
{
	for (size_t i = 0; i < ex->skip.n; i++)
		if (star_match(ex->skip.v[i], key))
			return 1;
	return 0;
}

int config_runs(const struct experiment *ex, const struct bench_conf *b, const struct vm_conf *vm)
{
	if (vm->missing)
		return 0;
	if (b->vms.n) { /* a suite's benchmark runs on its suite's VMs */
		int in = 0;
		for (size_t i = 0; i < b->vms.n && !in; i++)
			in = !strcmp(b->vms.v[i], vm->base ? vm->base : vm->name);
		if (!in)
			return 0;
	}
	char *key = xasprintf("%s:%s:%s", b->name, vm->name, vm->variant);
	int skipped = config_skipped(ex, key);
	if (ex->keys_only.n && !skipped) {
		skipped = 1;
		for (size_t i = 0; i < ex->keys_only.n; i++)
			skipped &= strcmp(ex->keys_only.v[i], key) != 0;
	}
	free(key);
	return !skipped;
}
