/*
 * paths.c - where kiln's own files are.  kiln runs both from its build tree
 * (build/kiln beside plugins/ and benchmarks/) and installed (PREFIX/bin/kiln
 * with PREFIX/share/kiln and PREFIX/libexec/kiln); KILN_DATADIR and
 * KILN_LIBEXECDIR override both.  Below every other module: it needs only
 * util.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "paths.h"
#include "util.h"

#ifndef KILN_PREFIX
#define KILN_PREFIX "/usr/local"
#endif

/* the kernel's mark, at the end of /proc/self/exe's link, of a file unlinked since it ran */
static const char gone_mark[] = " (deleted)";

/* /proc/self/exe's link into buf (n bytes), the mark cut off: 1 if it had it, -1 if unreadable */
static int read_self(char *buf, size_t n)
{
	ssize_t r = n > 1 ? readlink("/proc/self/exe", buf, n - 1) : -1;
	if (r <= 0 || (size_t)r >= n - 1)
		return -1;
	buf[r] = '\0';
	size_t len = (size_t)r, m = sizeof(gone_mark) - 1;
	if (len > m && !strcmp(buf + len - m, gone_mark)) {
		buf[len - m] = '\0';
		return 1;
	}
	return 0;
}

const char *kiln_self_path(char *buf, size_t n)
{
	return read_self(buf, n) < 0 ? NULL : buf;
}

const char *kiln_self_exe(char *buf, size_t n)
{
	int gone = read_self(buf, n);
	if (gone < 0)
		return NULL;
	/* this kiln's file is no longer at its path: the path may hold another kiln, or nothing */
	if (gone)
		snprintf(buf, n, "/proc/self/exe");
	return buf;
}

static char *exe_dir(void)
{
	char buf[PATH_MAX];
	return kiln_self_path(buf, sizeof(buf)) ? path_dirname(buf) : NULL;
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

/* PREFIX/REL of the prefix kiln's binary is in (PREFIX/bin/kiln) when it has one, else of KILN_PREFIX */
static char *prefix_dir(const char *rel)
{
	char *d = exe_dir();
	if (d) {
		char *up = path_dirname(d);
		char *p = path_join(up, rel);
		free(up);
		free(d);
		if (file_exists(p))
			return p;
		free(p);
	}
	return path_join(KILN_PREFIX, rel);
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
	return dir = prefix_dir("share/kiln");
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
	free(d);
	return dir = prefix_dir("libexec/kiln");
}

