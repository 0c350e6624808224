/*
 * idcache.c - file identities, content hashes and the state folder's cache
 * of what was learned from unchanged files (see idcache.h).
 */
#include "idcache.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "safefs.h"

#define IDC_VERSION 1
#define IDC_MAX_BYTES (16u << 20)   /* a larger cache file is dropped, not read */
#define IDC_MAX_ENTRIES 1024        /* per kind: past it the kind starts afresh (the file stays small to read) */
#define HASH_MAX_BYTES (1ull << 30)

static json_t *cache;   /* {"version":1, KIND: {KEY: value}} */
static int dirty;

static void id_text(const struct stat *st, char out[96])
{
	snprintf(out, 96, "%llu:%llu:%lld:%lld.%09ld:%lld.%09ld", (unsigned long long)st->st_dev,
		 (unsigned long long)st->st_ino, (long long)st->st_size, (long long)st->st_mtim.tv_sec,
		 st->st_mtim.tv_nsec, (long long)st->st_ctim.tv_sec, st->st_ctim.tv_nsec);
}

int fileid(const char *path, char out[96])
{
	struct stat st;
	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return -1;
	id_text(&st, out);
	return 0;
}

int fileid_fd(int fd, char out[96])
{
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return -1;
	id_text(&st, out);
	return 0;
}

static char *cache_path(void)
{
	struct kerr e = KERR_INIT;
	char *dir = sfs_state_path("cache", 0700, &e);
	kerr_release(&e);
	if (!dir)
		return NULL;
	char *p = path_join(dir, "ids.json");
	free(dir);
	return p;
}

static void cache_load(void)
{
	if (cache)
		return;
	char *p = cache_path();
	struct strbuf sb = STRBUF_INIT;
	struct stat st;
	if (p && stat(p, &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= IDC_MAX_BYTES &&
	    read_file(p, &sb, NULL) == 0) {
		cache = json_loadb(sb.buf, sb.len, 0, NULL);
		json_t *v = json_object_get(cache, "version");
		if (!json_is_object(cache) || !json_is_integer(v) || json_integer_value(v) != IDC_VERSION) {
			json_decref(cache);
			cache = NULL;
		}
	}
	if (!cache)
		cache = json_pack("{s:i}", "version", IDC_VERSION);
	sb_release(&sb);
	free(p);
}

/* does every file the entry was learned from still have the identity it had? */
static int still_valid(const json_t *value)
{
	const json_t *ids = json_object_get(value, "ids");
	const char *path;
	json_t *id;
	char now[96];
	json_object_foreach((json_t *)ids, path, id)
		if (!json_is_string(id) || fileid(path, now) < 0 || strcmp(now, json_string_value(id)))
			return 0;
	return 1;
}

json_t *idc_get(const char *kind, const char *key)
{
	cache_load();
	json_t *v = json_object_get(json_object_get(cache, kind), key);
	return v && still_valid(v) ? v : NULL;
}

void idc_put(const char *kind, const char *key, json_t *value)
{
	cache_load();
	json_t *k = json_object_get(cache, kind);
	if (!json_is_object(k) || json_object_size(k) >= IDC_MAX_ENTRIES) {
		k = json_object();
		json_object_set_new(cache, kind, k);
	}
	json_object_set_new(k, key, value);
	dirty = 1;
}

void idc_save(void)
{
	if (!cache || !dirty)
		return;
	char *p = cache_path();
	char *txt = json_dumps(cache, JSON_COMPACT);
	if (p && txt)
		write_file(p, txt, strlen(txt), NULL);
	dirty = 0;
	free(txt);
	free(p);
}

void idc_release(void)
{
	json_decref(cache);
	cache = NULL;
	dirty = 0;
}

/* the hash of an open regular file, cached under its identity */
static int sha256_fd(int fd, const char *what, char out[65], struct kerr *e)
{
	char id[96];
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return kerr_set(e, "%s: not a regular file", what);
	if ((unsigned long long)st.st_size > HASH_MAX_BYTES)
		return kerr_set(e, "%s: %lld bytes: larger than kiln hashes (1 GiB)", what, (long long)st.st_size);
	id_text(&st, id);
	json_t *hit = json_object_get(idc_get("sha256", id), "sha256");
	if (json_is_string(hit) && strlen(json_string_value(hit)) == 64) {
		memcpy(out, json_string_value(hit), 65);
		return 0;
	}
	SHA2_CTX c;
	SHA256Init(&c);
	static char buf[1 << 16];
	ssize_t n;
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return kerr_set(e, "%s: %s", what, strerror(errno));
		SHA256Update(&c, (const uint8_t *)buf, (size_t)n);
	}
	SHA256End(&c, out);
	/* read again after hashing: a file rewritten meanwhile is not cached */
	char id2[96];
	if (fileid_fd(fd, id2) == 0 && !strcmp(id, id2))
		idc_put("sha256", id, json_pack("{s:s}", "sha256", out));
	return 0;
}

int idc_sha256_at(int dirfd, const char *dirname, const char *name, char out[65], struct kerr *e)
{
	int fd = sfs_open_file_at(dirfd, dirname, name, (uid_t)-1, NULL, e);
	if (fd < 0)
		return -1;
	char *what = xasprintf("%s/%s", dirname ? dirname : ".", name);
	int r = sha256_fd(fd, what, out, e);
	free(what);
	close(fd);
	return r;
}

int idc_sha256(const char *path, char out[65], struct kerr *e)
{
	char *real = realpath(path, NULL);
	if (!real)
		return kerr_set(e, "%s: %s", path, strerror(errno));
	char *dir = path_dirname(real);
	const char *base = strrchr(real, '/') + 1;
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int r = dfd < 0 ? kerr_set(e, "%s: %s", dir, strerror(errno)) : idc_sha256_at(dfd, dir, base, out, e);
	if (dfd >= 0)
		close(dfd);
	free(dir);
	free(real);
	return r;
}
