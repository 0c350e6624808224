/*
 * analysis-cache.c - what a cache of analysis results needs (see
 * analysis-cache.h): a hash of one key's data (with an_opts_hash() for the
 * options, the pair is the cache key), a lossless text form of an an_key
 * (JSON, doubles to 17 digits, NaN as null) to store and read back, and
 * the driver that analyses (an_analyse_keys) only what the cache lacks.
 *
 * an_analyse_key() is a pure function of the key's data and the options,
 * so a stored result is valid exactly as long as both hashes match.  The
 * store decides where the text lives; nothing here touches SQLite.
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "analysis-cache.h"
#include "json-num.h"

/*
 * The key's data, fed to XXH3-128 as it is laid out (the text parts, then
 * the raw doubles; no copy): a cache key, not a signature - whoever can
 * write a results file can write its cache too.  At 20 GB/s it costs a
 * report nothing (SHA-256 here took 0.2 s of Barrett scale's 59 MB, more
 * than re-analysing a key that gained a pexec).
 */
static void hash_text(XXH3_state_t *h, struct strbuf *sb)
{
	XXH3_128bits_update(h, sb->buf, sb->len);
	sb_reset(sb);
}

void an_key_data_hash(const struct ds_key *k, char out[65])
{
	XXH3_state_t h;
	XXH3_128bits_reset(&h);
	struct strbuf sb = STRBUF_INIT;
	sb_addf(&sb, "kiln-key v2\n%s\n%zu\n", k->key, k->npexecs);
	for (size_t p = 0; p < k->npexecs; p++) {
		const struct ds_pexec *px = &k->pexecs[p];
		sb_addf(&sb, "p %ld %d %zu\n", px->num, (int)px->status, px->n);
		hash_text(&h, &sb);
		if (px->n)
			XXH3_128bits_update(&h, px->wall, px->n * sizeof(double));
		for (size_t s = 0; s < px->nseries; s++) {
			const struct ds_series *ser = &px->series[s];
			sb_addf(&sb, "s %s %s %zu\n", ser->name, ser->unit ? ser->unit : "", ser->n);
			hash_text(&h, &sb);
			if (ser->n)
				XXH3_128bits_update(&h, ser->v, ser->n * sizeof(double));
		}
	}
	hash_text(&h, &sb);
	sb_release(&sb);
	XXH128_canonical_t c;
	XXH128_canonicalFromHash(&c, XXH3_128bits_digest(&h));
	for (size_t i = 0; i < sizeof(c.digest); i++)
		snprintf(out + 2 * i, 3, "%02x", c.digest[i]);
}

static double getnum(json_t *o, const char *name)
{
	json_t *v = json_object_get(o, name);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

char *an_key_serialize(const struct an_key *k)
{
	json_t *root = json_object();
	json_object_set_new(root, "v", json_integer(AN_METHOD_VERSION));
	json_object_set_new(root, "key", json_string(k->key->key));
	json_object_set_new(root, "cls", json_integer(k->cls));
	json_object_set_new(root, "nskipped", json_integer((json_int_t)k->nskipped));
	json_object_set_new(root, "has_steady", json_integer(k->has_steady));
	json_object_set_new(root, "whole", json_integer(k->whole));
	const struct an_whole *w = &k->wp;
	const double nums[] = { k->iter_med, k->iter_p5, k->iter_p95, k->tts_med, k->tts_p5, k->tts_p95,
				k->perf_med, k->perf_lo, k->perf_hi, k->perf_ci, k->delta_ratio,
				w->mean, w->sd, w->median, w->min, w->max, w->user, w->sys, w->rss_max, w->rss_mean };
	json_t *na = json_array();
	for (size_t i = 0; i < ARRAY_SIZE(nums); i++)
		json_array_append_new(na, json_num(nums[i]));
	json_object_set_new(root, "nums", na);
	/* the warmup analysis' warnings and what goes with them (issue 26) */
	json_object_set_new(root, "warn", json_integer(k->warn));
	json_object_set_new(root, "short_need", json_integer(k->short_need));
	json_object_set_new(root, "left_out", json_integer((json_int_t)k->left_out));
	json_object_set_new(root, "perf_clean", json_num(k->perf_clean));
	json_object_set_new(root, "drift",
			    json_pack("[oooo]", json_num(k->drift_rate), json_num(k->drift_lo), json_num(k->drift_hi),
				      json_num(k->drift_span)));
	json_t *pa = json_array();
	for (size_t i = 0; i < k->np; i++) {
		const struct an_pexec *p = &k->p[i];
		json_t *o = json_pack("{s:I,s:I,s:I,s:i,s:I,s:I,s:I,s:o,s:o,s:o}", "num", (json_int_t)p->num, "index",
				      (json_int_t)p->index, "n", (json_int_t)p->n, "cls", (int)p->cls, "first_steady",
				      (json_int_t)p->first_steady, "steady_start", (json_int_t)p->steady_start,
				      "steady_iter", (json_int_t)p->steady_iter, "tts", json_num(p->time_to_steady),
				      "steady_mean", json_num(p->steady_mean), "delta", json_num(p->delta));
		json_t *ol = json_array();
		for (size_t q = 0; q < p->noutliers; q++)
			json_array_append_new(ol, json_integer((json_int_t)p->outliers[q]));
		json_object_set_new(o, "outliers", ol);
		json_t *sl = json_array();
		for (size_t q = 0; q < p->nsegs; q++)
			json_array_append_new(sl, json_pack("[I,I,o,o]", (json_int_t)p->segs[q].start,
							    (json_int_t)p->segs[q].end, json_num(p->segs[q].mean),
							    json_num(p->segs[q].var)));
		json_object_set_new(o, "segs", sl);
		json_object_set_new(o, "warn", json_integer(p->warn));
		json_object_set_new(o, "more",
				    json_pack("[ooooooI]", json_num(p->steady_mean_clean), json_num(p->warmup_cost),
					      json_num(p->tau), json_num(p->drift_rate), json_num(p->drift_late),
					      json_integer((json_int_t)p->drift_span), (json_int_t)p->short_need));
		json_array_append_new(pa, o);
	}
	json_object_set_new(root, "pexecs", pa);
	json_t *sa = json_array();
	for (size_t i = 0; i < k->nseries; i++) {
		const struct an_series_sum *s = &k->series[i];
		json_array_append_new(sa,
				      json_pack("{s:s,s:s,s:o,s:o,s:I,s:I}", "name", s->name, "unit", s->unit, "before",
						json_num(s->before), "after", json_num(s->after), "nbefore",
						(json_int_t)s->nbefore, "nafter", (json_int_t)s->nafter));
	}
	json_object_set_new(root, "series", sa);
	char *t = json_dumps(root, JSON_COMPACT | JSON_REAL_PRECISION(17));
	json_decref(root);
	return t;
}

static int bad(struct kerr *e, const char *what)
{
	return kerr_set(e, "analysis cache: %s", what);
}

/* the numbers of a JSON array into *dst[0..n-1]: NaN for what is not a number (null, missing) */
static void getnums(json_t *a, double *const dst[], size_t n)
{
	for (size_t i = 0; i < n; i++) {
		json_t *v = json_array_get(a, i);
		*dst[i] = json_is_number(v) ? json_number_value(v) : NAN;
	}
}

/* the key's own results: its class, counts, the 20 "nums" and the drift */
static void read_key_sums(json_t *root, struct an_key *out)
{
	out->cls = (enum an_class)json_integer_value(json_object_get(root, "cls"));
	out->nskipped = (size_t)json_integer_value(json_object_get(root, "nskipped"));
	out->has_steady = (int)json_integer_value(json_object_get(root, "has_steady"));
	out->whole = (int)json_integer_value(json_object_get(root, "whole"));
	struct an_whole *w = &out->wp;
	double *const dst[] = { &out->iter_med, &out->iter_p5, &out->iter_p95, &out->tts_med, &out->tts_p5, &out->tts_p95,
				&out->perf_med, &out->perf_lo, &out->perf_hi, &out->perf_ci, &out->delta_ratio,
				&w->mean, &w->sd, &w->median, &w->min, &w->max, &w->user, &w->sys, &w->rss_max, &w->rss_mean };
	getnums(json_object_get(root, "nums"), dst, ARRAY_SIZE(dst));
	out->warn = (unsigned)json_integer_value(json_object_get(root, "warn"));
	out->short_need = (long)json_integer_value(json_object_get(root, "short_need"));
	out->left_out = (size_t)json_integer_value(json_object_get(root, "left_out"));
	out->perf_clean = getnum(root, "perf_clean");
	double *const dd[] = { &out->drift_rate, &out->drift_lo, &out->drift_hi, &out->drift_span };
	getnums(json_object_get(root, "drift"), dd, ARRAY_SIZE(dd));
}

/* a pexec's segments, [start, end, mean, var] each */
static void read_segs(json_t *sl, struct an_pexec *p)
{
	p->nsegs = json_array_size(sl);
	p->segs = xcalloc(p->nsegs, sizeof(*p->segs));
	for (size_t q = 0; q < p->nsegs; q++) {
		json_t *sg = json_array_get(sl, q);
		p->segs[q].start = (size_t)json_integer_value(json_array_get(sg, 0));
		p->segs[q].end = (size_t)json_integer_value(json_array_get(sg, 1));
		json_t *m = json_array_get(sg, 2), *v = json_array_get(sg, 3);
		p->segs[q].mean = json_is_number(m) ? json_number_value(m) : NAN;
		p->segs[q].var = json_is_number(v) ? json_number_value(v) : NAN;
	}
}

/*
 * Do p's segments and outliers index its n iterations: each segment
 * [start, end) non-empty, in order, not past n; each outlier below n,
 * ascending.  What reads them (the steady sample, plots, reports) indexes
 * the pexec's times with them, so a cache entry that does not fit (a
 * crafted results file can carry one under its own data's hash) is a miss.
 */
static int within(const struct an_pexec *p)
{
	size_t at = 0;
	for (size_t q = 0; q < p->nsegs; q++) {
		if (p->segs[q].start < at || p->segs[q].start >= p->segs[q].end || p->segs[q].end > p->n)
			return 0;
		at = p->segs[q].end;
	}
	for (size_t q = 0; q < p->noutliers; q++)
		if (p->outliers[q] >= p->n || (q && p->outliers[q] <= p->outliers[q - 1]))
			return 0;
	return 1;
}

/*
 * One pexec's analysis into p; -1 with e set when it cannot be this key's
 * (its index, its length, its class or its first steady segment out of
 * range): the text is another key's, or damaged
 */
static int read_pexec(json_t *o, const struct ds_key *k, struct an_pexec *p, struct kerr *e)
{
	p->num = (long)json_integer_value(json_object_get(o, "num"));
	p->index = (size_t)json_integer_value(json_object_get(o, "index"));
	p->n = (size_t)json_integer_value(json_object_get(o, "n"));
	p->cls = (enum an_class)json_integer_value(json_object_get(o, "cls"));
	p->first_steady = (size_t)json_integer_value(json_object_get(o, "first_steady"));
	p->steady_start = (size_t)json_integer_value(json_object_get(o, "steady_start"));
	p->delta = getnum(o, "delta");
	p->steady_iter = (long)json_integer_value(json_object_get(o, "steady_iter"));
	p->time_to_steady = getnum(o, "tts");
	p->steady_mean = getnum(o, "steady_mean");
	p->warn = (unsigned)json_integer_value(json_object_get(o, "warn"));
	json_t *more = json_object_get(o, "more");
	double *const pd[] = { &p->steady_mean_clean, &p->warmup_cost, &p->tau, &p->drift_rate, &p->drift_late };
	getnums(more, pd, ARRAY_SIZE(pd));
	p->drift_span = (size_t)json_integer_value(json_array_get(more, 5));
	p->short_need = (long)json_integer_value(json_array_get(more, 6));
	json_t *ol = json_object_get(o, "outliers"), *sl = json_object_get(o, "segs");
	if (p->index >= k->npexecs || k->pexecs[p->index].n != p->n || !json_is_array(ol) ||
	    !json_is_array(sl) || !json_array_size(sl) || p->cls > AN_NO_STEADY)
		return bad(e, "a pexec does not match the data");
	p->noutliers = json_array_size(ol);
	p->outliers = xmalloc((p->noutliers + 1) * sizeof(size_t));
	for (size_t q = 0; q < p->noutliers; q++)
		p->outliers[q] = (size_t)json_integer_value(json_array_get(ol, q));
	read_segs(sl, p);
	if (p->first_steady >= p->nsegs || p->steady_start > p->n)
		return bad(e, "first steady segment out of range");
	if (!within(p))
		return bad(e, "a segment or an outlier out of the pexec's iterations");
	return 0;
}

/* a series' summary before and after the steady state */
static void read_series(json_t *o, struct an_series_sum *s)
{
	const char *nm = json_string_value(json_object_get(o, "name"));
	const char *un = json_string_value(json_object_get(o, "unit"));
	s->name = xstrdup(nm ? nm : "");
	s->unit = xstrdup(un ? un : "");
	s->before = getnum(o, "before");
	s->after = getnum(o, "after");
	s->nbefore = (size_t)json_integer_value(json_object_get(o, "nbefore"));
	s->nafter = (size_t)json_integer_value(json_object_get(o, "nafter"));
}

int an_key_deserialize(const char *text, const struct ds_key *k, struct an_key *out, struct kerr *e)
{
	memset(out, 0, sizeof(*out));
	json_error_t je;
	json_t *root = json_loads(text, 0, &je);
	if (!root)
		return kerr_set(e, "analysis cache: not JSON: %s", je.text);
	int rc = -1;
	json_t *pa = json_object_get(root, "pexecs"), *sa = json_object_get(root, "series");
	json_t *na = json_object_get(root, "nums");
	const char *key = json_string_value(json_object_get(root, "key"));
	if (json_integer_value(json_object_get(root, "v")) != AN_METHOD_VERSION || !key || strcmp(key, k->key) ||
	    !json_is_array(pa) || !json_is_array(sa) || json_array_size(na) != 20) {
		bad(e, "wrong version, key or shape");
		goto out;
	}
	out->key = k;
	read_key_sums(root, out);
	out->np = json_array_size(pa);
	out->p = xcalloc(out->np ? out->np : 1, sizeof(*out->p));
	for (size_t i = 0; i < out->np; i++)
		if (read_pexec(json_array_get(pa, i), k, &out->p[i], e) < 0)
			goto out;
	out->nseries = json_array_size(sa);
	out->series = xcalloc(out->nseries ? out->nseries : 1, sizeof(*out->series));
	for (size_t i = 0; i < out->nseries; i++)
		read_series(json_array_get(sa, i), &out->series[i]);
	for (size_t i = 0; i < out->np; i++)
		out->counts[out->p[i].cls]++;
	rc = 0;
out:
	json_decref(root);
	if (rc < 0)
		an_key_free(out);
	return rc;
}

static int mem_get(void *ctx, const struct ds_key *k, const char *dh, const char *oh, struct an_key *out)
{
	struct an_memcache *m = ctx;
	char *key = xasprintf("%s/%s", dh, oh);
	long at = strmap_find(&m->index, key);
	free(key);
	if (at < 0 || (size_t)at >= m->texts.n || an_key_deserialize(m->texts.v[at], k, out, NULL) < 0)
		return -1;
	m->hits++;
	return 0;
}

static void mem_put(void *ctx, const struct ds_key *k, const char *dh, const char *oh, const struct an_key *ak)
{
	(void)k;
	struct an_memcache *m = ctx;
	char *key = xasprintf("%s/%s", dh, oh), *text = an_key_serialize(ak);
	size_t at = strmap_add(&m->index, key);
	if (at < m->texts.n) { /* the same key again: the newer text */
		free(m->texts.v[at]);
		m->texts.v[at] = text;
	} else {
		sv_push(&m->texts, text);
		free(text);
	}
	free(key);
	m->puts++;
}

struct an_cache an_memcache(struct an_memcache *m)
{
	struct an_cache c = { mem_get, mem_put, m };
	return c;
}

void an_memcache_release(struct an_memcache *m)
{
	strmap_clear(&m->index);
	sv_clear(&m->texts);
}

int an_analyse_cached(const struct dataset *ds, const struct an_opts *o, const struct an_cache *c,
		      struct an_result *r, struct kerr *e)
{
	if (!c)
		return an_analyse(ds, o, r, e);
	memset(r, 0, sizeof(*r));
	r->opts = *o;
	r->nkeys = ds->nkeys;
	r->keys = xcalloc(ds->nkeys ? ds->nkeys : 1, sizeof(*r->keys));
	char *todo = xcalloc(ds->nkeys ? ds->nkeys : 1, 1);
	char (*dhash)[65] = xcalloc(ds->nkeys ? ds->nkeys : 1, 65);
	char ohash[65];
	an_opts_hash(o, ohash);
	for (size_t i = 0; i < ds->nkeys; i++) {
		an_key_data_hash(&ds->keys[i], dhash[i]);
		todo[i] = !c->get || c->get(c->ctx, &ds->keys[i], dhash[i], ohash, &r->keys[i]) != 0;
	}
	an_analyse_keys(ds, o, todo, r->keys);
	/* store what was computed, from this thread only (the store need not be thread-safe) */
	for (size_t i = 0; c->put && i < ds->nkeys; i++)
		if (todo[i])
			c->put(c->ctx, &ds->keys[i], dhash[i], ohash, &r->keys[i]);
	free(todo);
	free(dhash);
	return 0;
}
