/*
 * idcache.h - what a file is (its identity and its content's hash), and
 * what kiln learned from a file that has not changed since (a VM's
 * package, libraries and --version output, the machine's virtualization),
 * kept in kiln's state folder so that a run on an unchanged machine does
 * not ask again.
 *
 * A file's identity is (device, inode, size, mtime, ctime) after links are
 * followed: replacing, rewriting or even touching the file changes it, and
 * only root can set a ctime.  An entry holds the identities it was learned
 * from and is used only while they all still hold.  The cache is one SQLite
 * file, <state>/cache/ids.db, created and written only by kiln (the state
 * folder is kiln's, mode 0711, the cache folder 0700: a benchmark user can
 * neither read nor write it); a row is read when first asked for, and the
 * rows added (and the last use of those hit) are written by idc_save() in
 * one transaction, so a run's cost does not grow with the cache.  Each kind
 * keeps its 1,024 most recently used rows.  Losing it costs only the time
 * to learn everything again; a damaged file is emptied, not believed.
 */
#ifndef KILN_IDCACHE_H
#define KILN_IDCACHE_H

#include <jansson.h>
#include "util.h"

/* the identity of the file `path` leads to, as text ("dev:ino:size:mtime:ctime"); -1 if it is no regular file */
int fileid(const char *path, char out[96]);
/* the same of an open descriptor */
int fileid_fd(int fd, char out[96]);

/*
 * The cached value of (kind, key), valid while every file named in its
 * "ids" ({path: identity}) still has that identity; NULL otherwise.
 * Borrowed: valid until the next idc_put of the same (kind, key) or
 * idc_release.
 */
json_t *idc_get(const char *kind, const char *key);
/* remember value (taken) under (kind, key); its "ids" object says what it depends on */
void idc_put(const char *kind, const char *key, json_t *value);
/* write what changed (errors only lose it; a kiln writing at the same time is waited for, up to 5 s) */
void idc_save(void);
void idc_release(void);

/*
 * The SHA-256 of a regular file's content (links followed for `path`, the
 * file itself opened without following one), cached by its identity.
 * At most 1 GiB is hashed: a larger file is refused.
 */
int idc_sha256(const char *path, char out[65], struct kerr *e);
/* the same for NAME in the folder dirfd (never through a link) */
int idc_sha256_at(int dirfd, const char *dirname, const char *name, char out[65], struct kerr *e);

#endif
