/*
 * plugins/command/plugin.c - the `command` plugin: hyperfine's job.
 *
 * Any program, timed as a whole process: each pexec runs the VM's path and
 * args followed by the benchmark's args ({param} substituted) once, and its
 * single iteration is the process's wall time, from fork to reaping.  There
 * is no runner and no result stream; run.c records exit status, user and
 * system time and maximum RSS as per-pexec records.
 */
#include <string.h>

#include "config.h"
#include "plugin.h"

/* substitute {param} in one argument */
static void subst_param(struct strvec *argv, const char *arg, const char *param)
{
	struct strbuf sb = STRBUF_INIT;
	const char *p = arg, *hit;
	while ((hit = strstr(p, "{param}"))) {
		sb_add(&sb, p, (size_t)(hit - p));
		sb_adds(&sb, param);
		p = hit + 7;
	}
	sb_adds(&sb, p);
	sv_push(argv, sb.buf);
	sb_release(&sb);
}

static int command_build(const struct plugin_ctx *c, struct strvec *argv, struct strvec *env, struct kerr *e)
{
	(void)env;
	if (!c->vm_path)
		return kerr_setc(e, KEXIT_CONFIG, "vms.%s.path: the command plugin needs the program to run", c->vm->name);
	sv_push(argv, c->vm_path);
	for (size_t i = 0; i < c->vm->args.n; i++)
		subst_param(argv, c->vm->args.v[i], c->param);
	for (size_t i = 0; i < c->bench->args.n; i++)
		subst_param(argv, c->bench->args.v[i], c->param);
	return 0;
}

const struct kiln_plugin plugin_command = {
	.name = "command",
	.language = "command",
	.entry = NULL,
	.vm_default = NULL,
	.summary = "any program, timed as a whole process (one process = one iteration)",
	.records = "process wall time; exit status, user/sys time (s), max RSS (KiB) per pexec",
	.whole_process = 1,
	.needs_path = 1,
	.build = command_build,
};
