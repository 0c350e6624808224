/*
 * build-cache.h - where kiln puts what it builds from a benchmark's
 * sources (a C benchmark's bench.so, Java classes): never beside the
 * sources, which may be someone else's checkout, but in kiln's state
 * folder, <state>/build/<kind>/<key>, the key a hash of what defines the
 * build (the sources' folder and contents, the compiler by SHA-256, its
 * flags).  Another source, compiler or flag is another key, so an object
 * is never stale and two configs never share a wrong one; provenance.c
 * hashes the same things.
 */
#ifndef KILN_BUILD_CACHE_H
#define KILN_BUILD_CACHE_H

#include "util.h"

/*
 * The files of `dir` that a build reads (regular files of its top level,
 * not hidden, those whose name ends in one of `exts`, NULL-terminated),
 * name and SHA-256 each, sorted, added to `text`; a file that cannot be
 * hashed adds why.
 */
void bcache_add_sources(struct strbuf *text, const char *dir, const char *const *exts);
/*
 * The cache path for the build that `text` describes: <state>/build/KIND/
 * <32 hex digits of its SHA-256><suffix>, its folder made (0755: a
 * benchmark user reads the objects).  NULL with e set when the state
 * folder cannot be made.
 */
char *bcache_path(const char *kind, const char *text, const char *suffix, struct kerr *e);

/*
 * What this kiln found for each benchmark folder (pairs dir, path in
 * `known`): a pexec's argv needs the path again, without hashing the
 * sources per pexec.  bcache_known: the path kept for dir, NULL: none;
 * bcache_remember: p kept for dir, over what was (nothing when p is NULL).
 */
const char *bcache_known(const struct strvec *known, const char *dir);
void bcache_remember(struct strvec *known, const char *dir, const char *p);

#endif
