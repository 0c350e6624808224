/*
 * cmd.c - what every subcommand shares: --help handling, usage errors, and
 * where kiln's own files are.  kiln runs both from its build tree (build/kiln
 * beside plugins/ and benchmarks/) and installed (PREFIX/bin/kiln with
 * PREFIX/share/kiln and PREFIX/libexec/kiln); KILN_DATADIR and
 * KILN_LIBEXECDIR override both.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "util.h"

#ifndef KILN_PREFIX
#define KILN_PREFIX "/usr/local"
#endif

void cmd_usage(const struct cmd_entry *c, FILE *f)
{
	fprintf(f, "usage: kiln %s %s\n\n%s\n", c->name, c->usage, c->summary);
	if (c->help && *c->help)
		fprintf(f, "\n%s", c->help);
	fprintf(f, "\nSee docs/kiln-%s.md (or man kiln-%s) for details.\n", c->name, c->name);
}

int cmd_wants_help(const struct cmd_entry *c, int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			cmd_usage(c, stdout);
			return 1;
		}
	}
	return 0;
}

int cmd_usage_error(const struct cmd_entry *c, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	sb_vaddf(&sb, fmt, ap);
	va_end(ap);
	kiln_error("%s", sb.buf);
	fprintf(stderr, "usage: kiln %s %s\n", c->name, c->usage);
	sb_release(&sb);
	return KEXIT_USAGE;
}

static char *exe_dir(void)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	return path_dirname(buf);
}

/* the source tree, when this kiln is build/kiln (or build-X/kiln) inside one */
static const char *tree_root(void)
{
	static int done;
	static char *root;
	if (done)
		return root;
	done = 1;
	char *d = exe_dir();
	if (!d)
		return NULL;
	char *up = path_dirname(d);
	char *probe = path_join(up, "plugins/c/runner.c");
	if (file_exists(probe))
		root = up;
	else
		free(up);
	free(probe);
	free(d);
	return root;
}

const char *kiln_datadir(void)
{
	static char *dir;
	if (dir)
		return dir;
	const char *env = getenv("KILN_DATADIR");
	if (env && *env)
		return dir = xstrdup(env);
	const char *root = tree_root();
	if (root)
		return dir = xstrdup(root);
	char *d = exe_dir();
	if (d) {
		char *up = path_dirname(d);
		char *share = path_join(up, "share/kiln");
		free(up);
		free(d);
		if (file_exists(share))
			return dir = share;
		free(share);
	}
	return dir = xstrdup(KILN_PREFIX "/share/kiln");
}

const char *kiln_libexecdir(void)
{
	static char *dir;
	if (dir)
		return dir;
	const char *env = getenv("KILN_LIBEXECDIR");
	if (env && *env)
		return dir = xstrdup(env);
	char *d = exe_dir();
	if (d && tree_root())
		return dir = d; /* build/ holds kiln-runner-c */
	if (d) {
		char *up = path_dirname(d);
		char *lx = path_join(up, "libexec/kiln");
		free(up);
		free(d);
		if (file_exists(lx))
			return dir = lx;
		free(lx);
	}
	return dir = xstrdup(KILN_PREFIX "/libexec/kiln");
}
