/*
 * analysis-cache.h - analyses kept for later: a key's result is stored
 * under (a hash of the key's data, an_opts_hash() of the options) and read
 * back instead of being recomputed while both stay the same.
 *
 * The dependency is one way: analysis-cache.c and analysis-store.c use
 * analysis.h; analysis.c knows nothing of caches.
 *   analysis-cache.c  the cache keys and a lossless text form of a result,
 *                     and the cached driver around an_analyse_keys();
 *   analysis-store.c  that cache kept in a kiln results file.
 */
#ifndef KILN_ANALYSIS_CACHE_H
#define KILN_ANALYSIS_CACHE_H

#include "analysis.h"

/*
 * A cache of per-key results, e.g. in the results DB.  get() fills out (for
 * instance with an_key_deserialize) and returns 0 on a hit, -1 on a miss;
 * put() stores a computed result (an_key_serialize).  Both are called from
 * the calling thread only, with the key's an_key_data_hash() and the
 * options' an_opts_hash().  Either may be NULL.
 */
struct an_cache {
	int (*get)(void *ctx, const struct ds_key *k, const char *data_hash, const char *opts_hash,
		   struct an_key *out);
	void (*put)(void *ctx, const struct ds_key *k, const char *data_hash, const char *opts_hash,
		    const struct an_key *ak);
	void *ctx;
};
/*
 * A cache in memory: the results' text forms (an_key_serialize) by (data
 * hash, options hash), for a process that analyses the same data again
 * (tests, benches, a series re-analysed as it grows).  hits and puts count
 * what it gave and what was analysed.
 */
struct an_memcache {
	struct strmap index;    /* "data/options" -> position in texts */
	struct strvec texts;
	long hits, puts;
};
#define AN_MEMCACHE_INIT { STRMAP_INIT, STRVEC_INIT, 0, 0 }
struct an_cache an_memcache(struct an_memcache *m);
void an_memcache_release(struct an_memcache *m);
/* an_analyse, taking what it can from cache c (NULL: none) and storing the rest there */
int an_analyse_cached(const struct dataset *ds, const struct an_opts *o, const struct an_cache *c,
		      struct an_result *r, struct kerr *e);
/*
 * The analysis of the dataset read from `path`: when that is a kiln results
 * file, per-key results are cached in it (analysis-store.c).
 */
int an_analyse_input(const char *path, const struct dataset *ds, const struct an_opts *o, struct an_result *r,
		     struct kerr *e);
/*
 * A hash of one key's data (its name, pexecs, statuses, times and series);
 * with an_opts_hash() the pair identifies an an_analyse_key() result.  The
 * result's lossless text form and its reading back against the same ds_key
 * (-1 with e set if the text does not fit the data).
 */
void an_key_data_hash(const struct ds_key *k, char out[65]);
char *an_key_serialize(const struct an_key *k);
int an_key_deserialize(const char *text, const struct ds_key *k, struct an_key *out, struct kerr *e);

#endif
