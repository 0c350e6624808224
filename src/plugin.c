/*
 * plugin.c - the table of built-in plugins.  Each plugin's entry is defined
 * in plugins/<name>/plugin.c; adding a plugin is that folder plus one line
 * here.  External plugins defined in a config are not in this table: see
 * plugin_build() below.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include "conf.h"
#include "exec.h"
#include "plugin.h"

extern const struct kiln_plugin plugin_c;
extern const struct kiln_plugin plugin_command;
extern const struct kiln_plugin plugin_pypy;
extern const struct kiln_plugin plugin_stats;
extern const struct kiln_plugin plugin_python;
extern const struct kiln_plugin plugin_lua;
extern const struct kiln_plugin plugin_luajit;
extern const struct kiln_plugin plugin_node;
extern const struct kiln_plugin plugin_java;
extern const struct kiln_plugin plugin_ruby;
extern const struct kiln_plugin plugin_jruby;
extern const struct kiln_plugin plugin_php;

const struct kiln_plugin *const kiln_plugins[] = {
	&plugin_c,
	&plugin_command,
	&plugin_pypy,
	&plugin_stats,
	&plugin_python,
	&plugin_lua,
	&plugin_luajit,
	&plugin_node,
	&plugin_java,
	&plugin_ruby,
	&plugin_jruby,
	&plugin_php,
	NULL,
};

const struct kiln_plugin *plugin_find(const char *name)
{
	for (size_t i = 0; kiln_plugins[i]; i++)
		if (!strcmp(kiln_plugins[i]->name, name))
			return kiln_plugins[i];
	return NULL;
}

const struct plugin_variant *plugin_variant_find(const struct kiln_plugin *p, const char *name)
{
	for (size_t i = 0; p && p->variants && p->variants[i].name; i++)
		if (name && !strcmp(p->variants[i].name, name))
			return &p->variants[i];
	return NULL;
}

void plugin_variant_names(const struct kiln_plugin *p, struct strbuf *out)
{
	for (size_t i = 0; p && p->variants && p->variants[i].name; i++)
		sb_addf(out, "%s%s", i ? ", " : "", p->variants[i].name);
}

/* the first line of what the probe said, safe for a terminal and bounded */
static void probe_reason(const struct exec_result *r, struct strbuf *why)
{
	const char *s = r->err.len ? sb_str(&r->err) : sb_str(&r->out);
	size_t n = 0;
	while (s[n] && s[n] != '\n' && n < 200)
		n++;
	esc_addn(why, ESC_TERM, s, n);
	if (!n) {
		if (r->timed_out)
			sb_adds(why, "the probe timed out");
		else if (r->exited)
			sb_addf(why, "the probe exited with status %d", r->status);
		else
			sb_addf(why, "the probe was killed by signal %d", r->signal);
	}
}

int plugin_variant_probe(const struct plugin_variant *v, const char *vm_path, const struct strvec *vm_args,
			 struct strbuf *why)
{
	if (!v->probe)
		return 0;
	struct strvec argv = STRVEC_INIT;
	sv_push(&argv, vm_path);
	for (size_t i = 0; v->args && v->args[i]; i++)
		sv_push(&argv, v->args[i]);
	for (size_t i = 0; vm_args && i < vm_args->n; i++)
		sv_push(&argv, vm_args->v[i]);
	for (size_t i = 0; v->probe[i]; i++)
		sv_push(&argv, v->probe[i]);
	struct exec_result res;
	struct kerr e = KERR_INIT;
	int r = -1;
	if (exec_simple(sv_array(&argv), 60, &res, &e) < 0) {
		sb_adds(why, sb_str(&e.msg));
	} else {
		if (res.exited && res.status == 0)
			r = 0;
		else
			probe_reason(&res, why);
		exec_result_release(&res);
	}
	kerr_release(&e);
	sv_clear(&argv);
	return r;
}

/* the placeholders of runner and parser templates, in plugin_subst's order of values */
static const char *const placeholders[] = {
	"{benchmark}", "{vm}", "{variant}", "{iterations}", "{param}",
	"{entry}", "{bench_dir}", "{instr_dir}", "{pexec}", "{vm_path}",
};

/* the placeholder at p (an index into placeholders), or -1 */
static int placeholder_at(const char *p)
{
	for (size_t i = 0; i < ARRAY_SIZE(placeholders); i++)
		if (!strncmp(p, placeholders[i], strlen(placeholders[i])))
			return (int)i;
	return -1;
}

/* the value of the benchmark's var `name` (n bytes), NULL when it has none such */
static const char *bench_var(const struct bench_conf *b, const char *name, size_t n)
{
	for (size_t i = 0; i < b->vars.n; i++)
		if (!strncmp(b->vars.v[i], name, n) && b->vars.v[i][n] == '=')
			return b->vars.v[i] + n + 1;
	return NULL;
}

/* the value of the benchmark's var named by the `{name}` at p, NULL when it is none */
static const char *var_at(const struct plugin_ctx *c, const char *p, size_t *len)
{
	if (*p != '{' || !c->bench)
		return NULL;
	size_t n = 1;
	while (isalnum((unsigned char)p[n]) || p[n] == '_')
		n++;
	const char *v = n > 1 && p[n] == '}' ? bench_var(c->bench, p + 1, n - 1) : NULL;
	*len = n + 1;
	return v;
}

void plugin_subst(const struct plugin_ctx *c, const char *pexec_label, const char *tmpl, struct strbuf *out)
{
	char iters[32];
	snprintf(iters, sizeof(iters), "%ld", c->iterations);
	const char *values[ARRAY_SIZE(placeholders)] = {
		c->bench->name, c->vm->name, c->vm->variant, iters, c->param,
		c->entry_path ? c->entry_path : "", c->bench_dir, c->instr_dir ? c->instr_dir : "",
		pexec_label ? pexec_label : "", c->vm_path ? c->vm_path : "",
	};
	const char *p = tmpl, *v;
	size_t vl;
	while (*p) {
		int i = placeholder_at(p);
		if (i >= 0) {
			sb_adds(out, values[i]);
			p += strlen(placeholders[i]);
		} else if ((v = var_at(c, p, &vl))) {
			sb_adds(out, v);
			p += vl;
		} else {
			sb_addc(out, *p++);
		}
	}
}

/* a command VM's args: the placeholders a command line can use (ReBench's %(benchmark)s and the like) */
static const char *const command_placeholders[] = { "benchmark", "vm", "variant", "iterations", "param" };

void plugin_subst_args(const struct plugin_ctx *c, const char *arg, struct strbuf *out)
{
	char iters[32];
	snprintf(iters, sizeof(iters), "%ld", c->iterations);
	const char *values[ARRAY_SIZE(command_placeholders)] = {
		c->bench->source ? c->bench->source : c->bench->name, c->vm->name, c->vm->variant, iters, c->param,
	};
	const char *p = arg, *v;
	size_t vl;
	while (*p) {
		size_t i = 0, n;
		for (; *p == '{' && i < ARRAY_SIZE(command_placeholders); i++) {
			n = strlen(command_placeholders[i]);
			if (!strncmp(p + 1, command_placeholders[i], n) && p[n + 1] == '}')
				break;
		}
		if (*p == '{' && i < ARRAY_SIZE(command_placeholders)) {
			sb_adds(out, values[i]);
			p += strlen(command_placeholders[i]) + 2;
		} else if ((v = var_at(c, p, &vl))) {
			sb_adds(out, v);
			p += vl;
		} else {
			sb_addc(out, *p++);
		}
	}
}

const char *plugin_next_name(const char *s)
{
	for (const char *p = strchr(s, '{'); p; p = strchr(p + 1, '{')) {
		size_t n = 1;
		while (isalnum((unsigned char)p[n]) || p[n] == '_')
			n++;
		if (n > 1 && p[n] == '}')
			return p;
	}
	return NULL;
}

int plugin_is_placeholder(const char *name, size_t n)
{
	for (size_t i = 0; i < ARRAY_SIZE(placeholders); i++)
		if (strlen(placeholders[i]) == n + 2 && !strncmp(placeholders[i] + 1, name, n))
			return 1;
	return 0;
}

int plugin_is_command_placeholder(const char *name, size_t n)
{
	for (size_t i = 0; i < ARRAY_SIZE(command_placeholders); i++)
		if (strlen(command_placeholders[i]) == n && !strncmp(command_placeholders[i], name, n))
			return 1;
	return 0;
}

void plugin_placeholder_names_of(int which, struct strbuf *out)
{
	if (which == PLACEHOLDERS_ALL) {
		plugin_placeholder_names(out);
		return;
	}
	for (size_t i = 0; i < ARRAY_SIZE(command_placeholders); i++)
		sb_addf(out, "%s{%s}", i ? ", " : "", command_placeholders[i]);
	sb_adds(out, " and the benchmark's vars");
}

const char *plugin_unknown_placeholder(const char *tmpl, size_t *len)
{
	for (const char *p = strchr(tmpl, '{'); p; p = strchr(p + 1, '{')) {
		size_t n = 1;
		while (isalnum((unsigned char)p[n]) || p[n] == '_')
			n++;
		if (n > 1 && p[n] == '}' && placeholder_at(p) < 0) {
			*len = n + 1;
			return p;
		}
	}
	return NULL;
}

void plugin_placeholder_names(struct strbuf *out)
{
	for (size_t i = 0; i < ARRAY_SIZE(placeholders); i++)
		sb_addf(out, "%s%s", i ? ", " : "", placeholders[i]);
}

int plugin_build(const struct plugin_ctx *c, const char *pexec_label, struct strvec *argv,
		 struct strvec *env, struct kerr *e)
{
	if (c->vm->pl)
		return c->vm->pl->build(c, argv, env, e);
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < c->vm->runner.n; i++) {
		sb_reset(&sb);
		plugin_subst(c, pexec_label, c->vm->runner.v[i], &sb);
		/* the program itself is the resolved VM path */
		sv_push(argv, i == 0 && !c->vm->path && c->vm_path ? c->vm_path : sb_str(&sb));
	}
	sb_release(&sb);
	if (!argv->n)
		return kerr_setc(e, KEXIT_CONFIG, "vms.%s.runner: empty", c->vm->name);
	return 0;
}

int plugin_build_script(const struct plugin_ctx *c, const char *runner, const char *const *profile_flags,
			struct strvec *argv, struct strvec *env, struct kerr *e)
{
	if (!c->vm_path || !c->plugin_dir || !c->entry_path)
		return kerr_set(e, "%s: missing VM, plugin or benchmark path", c->vm && c->vm->pl ? c->vm->pl->name : "?");
	sv_push(argv, c->vm_path);
	const struct plugin_variant *v = c->vm ? plugin_variant_find(c->vm->pl, c->vm->variant) : NULL;
	for (size_t i = 0; v && v->args && v->args[i]; i++)
		sv_push(argv, v->args[i]);
	if (c->profile && profile_flags)
		for (size_t i = 0; profile_flags[i]; i++)
			sv_push(argv, profile_flags[i]);
	if (c->vm)
		for (size_t i = 0; i < c->vm->args.n; i++)
			sv_push(argv, c->vm->args.v[i]);
	sv_pushf(argv, "%s/%s", c->plugin_dir, runner);
	sv_push(argv, c->entry_path);
	if (c->instrument)
		sv_setenv(env, "KILN_INSTRUMENT", "1");
	return 0;
}
