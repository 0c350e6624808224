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

static char *exe_dir(void)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	return path_dirname(buf);
}

const char *kiln_self_exe(char *buf, size_t n)
{
	static const char gone[] = " (deleted)";
	ssize_t len = n > 1 ? readlink("/proc/self/exe", buf, n - 1) : -1;
	if (len <= 0 || (size_t)len >= n - 1)
		return NULL;
	buf[len] = '\0';
	/* the kernel's mark of an unlinked file: this kiln's file is no longer at its path */
	if ((size_t)len > sizeof(gone) - 1 && !strcmp(buf + len - (sizeof(gone) - 1), gone))
		snprintf(buf, n, "/proc/self/exe");
	return buf;
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

