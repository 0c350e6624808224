/*
 * analysis-store.c - analyses kept in the results file they come from.
 *
 * an_analyse_input() is what report, diff, plan and demo call: for a kiln
 * results file, each key's result is looked up in its cache table under
 * (the key's data hash, the options' hash) and computed only when the data
 * or the options changed; for anything else (Krun, CSV) it just analyses.
 * A results file that cannot be written (read-only, in use) is analysed
 * with what its cache holds, and nothing is added: caching is an
 * optimisation, never a failure.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis-cache.h"
#include "import.h"
#include "store.h"

struct cache_ctx {
	struct store *st;
	long hits, misses, puts;
	int in_txn;     /* 1: the puts share one transaction (one flush, not one a key); -1: could not begin */
};

static char *cache_key(const char *data_hash, const char *opts_hash)
{
	return xasprintf("%s:%s", data_hash, opts_hash);
}

static int cache_get(void *ctx, const struct ds_key *k, const char *data_hash, const char *opts_hash,
		     struct an_key *out)
{
	struct cache_ctx *c = ctx;
	char *key = cache_key(data_hash, opts_hash), *text = NULL;
	int r = store_cache_get(c->st, "analysis", key, &text);
	free(key);
	if (r == 0) {
		struct kerr e = KERR_INIT;
		r = an_key_deserialize(text, k, out, &e); /* a stale or foreign entry is a miss */
		kerr_release(&e);
	}
	free(text);
	r == 0 ? c->hits++ : c->misses++;
	return r;
}

static void cache_put(void *ctx, const struct ds_key *k, const char *data_hash, const char *opts_hash,
		      const struct an_key *ak)
{
	(void)k;
	struct cache_ctx *c = ctx;
	c->puts++;
	if (!c->in_txn)
		c->in_txn = store_begin(c->st, NULL) == 0 ? 1 : -1;
	char *key = cache_key(data_hash, opts_hash), *text = an_key_serialize(ak);
	store_cache_put(c->st, "analysis", key, text, NULL);
	free(key);
	free(text);
}

int an_analyse_input(const char *path, const struct dataset *ds, const struct an_opts *o, struct an_result *r,
		     struct kerr *e)
{
	struct cache_ctx c = { NULL, 0, 0, 0, 0 };
	struct kerr ignore = KERR_INIT;
	/* a file this user cannot write still gives what is cached in it */
	if (imp_detect(path) == IMP_KILN && store_open(path, 1, &c.st, &ignore) < 0 &&
	    store_open(path, 0, &c.st, &ignore) < 0)
		c.st = NULL;
	kerr_release(&ignore);
	if (!c.st)
		return an_analyse(ds, o, r, e);
	struct an_cache cache = { cache_get, cache_put, &c };
	int rc = an_analyse_cached(ds, o, &cache, r, e);
	if (c.in_txn == 1)
		store_commit(c.st, NULL);
	if (getenv("KILN_DEBUG_CACHE"))
		kiln_note("analysis cache: %ld hits, %ld misses, %ld analysed", c.hits, c.misses, c.puts);
	store_close(c.st);
	return rc;
}
