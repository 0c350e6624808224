/*
 * plugins/command/plugin.c - the `command` plugin: hyperfine's job.
 *
 * Any program, timed as a whole process: each pexec runs the VM's path and
 * args followed by the benchmark's args once ({benchmark}, {vm}, {variant},
 * {iterations}, {param} and the benchmark's vars substituted), and its
 * single iteration is the process's wall time, from fork to reaping.  There
 * is no runner and no result stream; run.c records exit status, user and
 * system time and maximum RSS as per-pexec records.
 *
 * With `gauge:` (gauge.h) the program is a benchmark with its own harness:
 * its iterations are the times it prints, read by run-pexec.c.  The gauge's settings are
 * part of the key's program (describe).
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "plugin.h"

/* does the word consist of `{name}`s only? */
static int only_names(const char *w)
{
	const char *p = w;
	while (*p == '{') {
		size_t n = 1;
		while (isalnum((unsigned char)p[n]) || p[n] == '_')
			n++;
		if (n == 1 || p[n] != '}')
			return 0;
		p += n + 1;
	}
	return p > w && !*p;
}

/*
 * One argument with its placeholders and the benchmark's vars
 * substituted; a word of placeholders only that comes to nothing is no
 * argument (as a shell drops an empty expansion: ReBench's %(input)s of
 * no input)
 */
static void subst_param(struct strvec *argv, const char *arg, const struct plugin_ctx *c)
{
	struct strbuf sb = STRBUF_INIT;
	plugin_subst_args(c, arg, &sb);
	if (sb.len || !only_names(arg))
		sv_push(argv, sb_str(&sb));
	sb_release(&sb);
}

/* the gauge, as the key's program: another format or regex reads other times */
static void command_describe(const struct plugin_ctx *c, struct strvec *lines)
{
	const struct gauge_conf *g = config_gauge(c->vm, c->bench);
	if (!g)
		return;
	struct strbuf sb = STRBUF_INIT;
	sb_adds(&sb, "gauge ");
	gauge_describe(g, &sb);
	sv_push(lines, sb.buf);
	sb_release(&sb);
}

static int command_build(const struct plugin_ctx *c, struct strvec *argv, struct strvec *env, struct kerr *e)
{
	(void)env;
	if (!c->vm_path)
		return kerr_setc(e, KEXIT_CONFIG, "vms.%s.path: the command plugin needs the program to run", c->vm->name);
	sv_push(argv, c->vm_path);
	for (size_t i = 0; i < c->vm->args.n; i++)
		subst_param(argv, c->vm->args.v[i], c);
	for (size_t i = 0; i < c->bench->args.n; i++)
		subst_param(argv, c->bench->args.v[i], c);
	return 0;
}

const struct kiln_plugin plugin_command = {
	.name = "command",
	.language = "command",
	.entry = NULL,
	.vm_default = NULL,
	.summary = "any program, timed as a whole process (one process = one iteration)",
	.records = "process wall time (with gauge: the iteration times the program prints); exit status, user/sys time (s), max RSS (KiB) per pexec",
	.whole_process = 1,
	.needs_path = 1,
	.build = command_build,
	.describe = command_describe,
};
