/*
 * build-cache.c - kiln's cache of built benchmark objects (build-cache.h).
 */
#include "build-cache.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "idcache.h"
#include "safefs.h"

#define MAX_SOURCES 1000

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int wanted(const char *name, const char *const *exts)
{
	if (name[0] == '.')
		return 0;
	for (size_t i = 0; exts && exts[i]; i++)
		if (str_ends_with(name, exts[i]))
			return 1;
	return 0;
}

void bcache_add_sources(struct strbuf *text, const char *dir, const char *const *exts)
{
	struct strvec names = STRVEC_INIT;
	DIR *d = opendir(dir);
	struct dirent *de;
	while (d && (de = readdir(d)) && names.n < MAX_SOURCES)
		if (wanted(de->d_name, exts))
			sv_push(&names, de->d_name);
	if (d)
		closedir(d);
	else
		sb_addf(text, "dir %s: cannot be read\n", dir);
	if (names.n > 1)
		qsort(names.v, names.n, sizeof(*names.v), by_name);
	sb_addf(text, "dir %s\n", dir);
	for (size_t i = 0; i < names.n; i++) {
		char *p = path_join(dir, names.v[i]), sha[65];
		struct stat st;
		struct kerr e = KERR_INIT;
		if (lstat(p, &st) == 0 && S_ISREG(st.st_mode) && idc_sha256(p, sha, &e) == 0)
			sb_addf(text, "file %s sha256:%s\n", names.v[i], sha);
		else if (lstat(p, &st) == 0 && S_ISREG(st.st_mode))
			sb_addf(text, "file %s %s\n", names.v[i], sb_str(&e.msg));
		kerr_release(&e);
		free(p);
	}
	sv_clear(&names);
}

char *bcache_path(const char *kind, const char *text, const char *suffix, struct kerr *e)
{
	char *sub = xasprintf("build/%s", kind);
	char *dir = sfs_state_path(sub, 0755, e);
	free(sub);
	if (!dir)
		return NULL;
	char hash[65];
	hash_hex(text, strlen(text), hash);
	hash[32] = '\0';
	char *p = xasprintf("%s/%s%s", dir, hash, suffix ? suffix : "");
	free(dir);
	return p;
}

const char *bcache_known(const struct strvec *known, const char *dir)
{
	for (size_t i = 0; i + 1 < known->n; i += 2)
		if (!strcmp(known->v[i], dir))
			return known->v[i + 1];
	return NULL;
}

void bcache_remember(struct strvec *known, const char *dir, const char *p)
{
	if (!p)
		return;
	for (size_t i = 0; i + 1 < known->n; i += 2)
		if (!strcmp(known->v[i], dir)) {
			free(known->v[i + 1]);
			known->v[i + 1] = xstrdup(p);
			return;
		}
	sv_push(known, dir);
	sv_push(known, p);
}
