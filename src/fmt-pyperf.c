/*
 * fmt-pyperf.c - pyperf's JSON results (file format "1.0", and 6 before
 * it), read and written; `pyperf compare_to`, `show` and `stats` read what
 * this writes.
 *
 *   {"version": "1.0", "metadata": {suite: name, hostname, unit, loops...},
 *    "benchmarks": [{"metadata": {...}, "runs": [{"metadata": {...},
 *       "warmups": [[loops, seconds per loop], ...], "values": [seconds per loop, ...]}]}]}
 *
 * Metadata is inherited: a run's is its own over its benchmark's over the
 * suite's.  Written, a benchmark is named after the key's bench (what
 * compare_to matches across files), or the whole key when two keys share
 * the bench, and metadata kiln_key holds the key.  Read, the key is
 * kiln_key, else the name when it reads bench:vm:variant, else bench is the
 * name and vm and variant come from python_implementation and
 * python_version ("timeit:cpython:3.5.2").
 * One run is one pexec; its warmups come first among its iterations, and
 * how many there were is kept as the pexec's scalar `warmups` (so they are
 * written back as warmups), with `loops` and `inner_loops`.  Runs without
 * values (pyperf's calibration runs) are not measurements and are skipped.
 * Only times are read (unit "second"); pyperf's memory benchmarks are not.
 */
#include "fmt.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int sniff(const char *text, size_t len)
{
	char key[16];
	return fmt_json_first_key(text, len, key, sizeof(key)) == 0 &&
	       (!strcmp(key, "benchmarks") || !strcmp(key, "version") || !strcmp(key, "metadata"));
}

/* what reading one file keeps track of */
struct rd {
	const char *name;
	struct dataset *ds;
	json_t *suite;      /* the suite's metadata (may be NULL) */
	long values;
	size_t calibration; /* runs without values, skipped */
	struct kerr *e;
	struct strmap seen; /* the keys of the benchmarks read so far */
};

/* metadata field f of a run, inherited from its benchmark and the suite */
static json_t *meta(json_t *run, json_t *bench, json_t *suite, const char *f)
{
	json_t *v = json_object_get(json_object_get(run, "metadata"), f);
	if (!v)
		v = json_object_get(json_object_get(bench, "metadata"), f);
	return v ? v : json_object_get(suite, f);
}

/* the key of benchmark b, from its first run's metadata */
static struct ds_key *bench_key(struct rd *r, size_t bi, json_t *b, json_t *run0)
{
	const char *name = json_string_value(meta(run0, b, r->suite, "name"));
	if (!name || !*name) {
		kerr_setc(r->e, KEXIT_CONFIG, "%s: benchmarks[%zu]: no name in its metadata", r->name, bi);
		return NULL;
	}
	/* what kiln wrote: the key itself */
	const char *kk = json_string_value(meta(run0, b, r->suite, "kiln_key"));
	if (kk && *kk)
		name = kk;
	const char *c1 = strchr(name, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
	struct ds_key *k;
	if (c1 && c2 && c1 > name && c2 > c1 + 1 && c2[1] && !strchr(c2 + 1, ':')) {
		char *bn = xstrndup(name, (size_t)(c1 - name)), *vm = xstrndup(c1 + 1, (size_t)(c2 - c1 - 1));
		k = fmt_key(r->ds, bn, vm, c2 + 1);
		free(bn);
		free(vm);
	} else {
		char *bn = xstrdup(name);
		for (char *p = bn; *p; p++)
			*p = *p == ':' ? '_' : *p;
		const char *impl = json_string_value(meta(run0, b, r->suite, "python_implementation"));
		const char *ver = json_string_value(meta(run0, b, r->suite, "python_version"));
		char *vm = xstrdup(impl && *impl && !strchr(impl, ':') ? impl : "python");
		char *var = ver && *ver && !strchr(ver, ':') ? xstrndup(ver, strcspn(ver, " ")) : xstrdup("default-python");
		k = fmt_key(r->ds, bn, vm, *var ? var : "default-python");
		free(bn);
		free(vm);
		free(var);
	}
	/*
	 * by its key, not its pexecs: a benchmark of calibration runs alone has
	 * none, and one of the same name after it was merged into it
	 */
	if (k && (k->npexecs || strmap_find(&r->seen, k->key) >= 0)) {
		kerr_setc(r->e, KEXIT_CONFIG, "%s: benchmarks[%zu]: benchmark '%s' is there twice", r->name, bi,
			  esc(ESC_TERM, name));
		return NULL;
	}
	if (k)
		strmap_add(&r->seen, k->key);
	if (!k)
		kerr_setc(r->e, KEXIT_CONFIG, "%s: benchmarks[%zu]: name '%s' makes no key", r->name, bi, esc(ESC_TERM, name));
	return k;
}

/* a positive whole-number metadata field (loops, inner_loops), 1 when absent; -1 when bad */
static long count_meta(json_t *v)
{
	if (!v)
		return 1;
	return json_is_integer(v) && json_integer_value(v) >= 1 ? (long)json_integer_value(v) : -1;
}

/* append a list's times (per loop) to x; `pairs`: warmups, [loops, value] each */
static int times_of(struct rd *r, size_t bi, size_t ri, json_t *list, int pairs, double **x, size_t *n)
{
	const char *what = pairs ? "warmups" : "values";
	if (!list)
		return 0;
	if (!json_is_array(list))
		return kerr_setc(r->e, KEXIT_CONFIG, "%s: benchmarks[%zu].runs[%zu].%s: not a list", r->name, bi, ri, what);
	size_t m = json_array_size(list);
	if ((r->values += (long)m) > FMT_MAX_VALUES)
		return kerr_setc(r->e, KEXIT_CONFIG, "%s: more than %ld values", r->name, FMT_MAX_VALUES);
	*x = xrealloc(*x, (*n + m + 1) * sizeof(double));
	for (size_t j = 0; j < m; j++) {
		json_t *v = json_array_get(list, j);
		if (pairs) {
			json_t *loops = json_array_get(v, 0);
			if (!json_is_array(v) || json_array_size(v) != 2 || !json_is_integer(loops) ||
			    json_integer_value(loops) < 1)
				return kerr_setc(r->e, KEXIT_CONFIG, "%s: benchmarks[%zu].runs[%zu].warmups[%zu]: not [loops, value]",
						 r->name, bi, ri, j);
			v = json_array_get(v, 1);
		}
		double t = json_number_value(v);
		if (json_is_number(v) && ds_time_subns(t))
			return kerr_setc(r->e, KEXIT_CONFIG, "%s: benchmarks[%zu].runs[%zu].%s[%zu]: %g " DS_TIME_SUBNS_WHY,
					 r->name, bi, ri, what, j, t);
		if (!json_is_number(v) || !ds_time_ok(t) || (!pairs && t == 0))
			return kerr_setc(r->e, KEXIT_CONFIG, "%s: benchmarks[%zu].runs[%zu].%s[%zu]: not a time in seconds "
					 "(0 to %g)", r->name, bi, ri, what, j, DS_TIME_MAX_S);
		(*x)[(*n)++] = t;
	}
	return 0;
}

/* one run of benchmark b as a pexec of k */
static int read_run(struct rd *r, size_t bi, size_t ri, json_t *b, json_t *run, struct ds_key *k)
{
	if (!json_is_object(run))
		return kerr_setc(r->e, KEXIT_CONFIG, "%s: benchmarks[%zu].runs[%zu]: not an object", r->name, bi, ri);
	json_t *md = json_object_get(run, "metadata");
	if (md && !json_is_object(md))
		return kerr_setc(r->e, KEXIT_CONFIG, "%s: benchmarks[%zu].runs[%zu].metadata: not an object", r->name, bi, ri);
	const char *unit = json_string_value(meta(run, b, r->suite, "unit"));
	if (unit && strcmp(unit, "second"))
		return kerr_setc(r->e, KEXIT_CONFIG, "%s: benchmarks[%zu]: unit '%s': kiln reads times (unit 'second') only",
				 r->name, bi, esc(ESC_TERM, unit));
	json_t *values = json_object_get(run, "values");
	if (values && !json_is_array(values))
		return kerr_setc(r->e, KEXIT_CONFIG, "%s: benchmarks[%zu].runs[%zu].values: not a list", r->name, bi, ri);
	if (!json_array_size(values)) {
		/* a calibration run: checked, but not a measurement */
		double *x = NULL;
		size_t n = 0;
		int c = times_of(r, bi, ri, json_object_get(run, "warmups"), 1, &x, &n);
		free(x);
		r->calibration++;
		return c;
	}
	long loops = count_meta(meta(run, b, r->suite, "loops")), inner = count_meta(meta(run, b, r->suite, "inner_loops"));
	if (loops < 0 || inner < 0)
		return kerr_setc(r->e, KEXIT_CONFIG, "%s: benchmarks[%zu].runs[%zu]: loops and inner_loops must be whole "
				 "numbers >= 1", r->name, bi, ri);
	if ((long)k->npexecs >= FMT_MAX_PEXECS)
		return kerr_setc(r->e, KEXIT_CONFIG, "%s: benchmarks[%zu]: more than %ld runs", r->name, bi, FMT_MAX_PEXECS);
	double *x = NULL;
	size_t n = 0;
	if (times_of(r, bi, ri, json_object_get(run, "warmups"), 1, &x, &n) < 0) {
		free(x);
		return -1;
	}
	size_t nwarm = n;
	if (times_of(r, bi, ri, values, 0, &x, &n) < 0) {
		free(x);
		return -1;
	}
	struct ds_pexec *p = ds_add_pexec(k, (long)k->npexecs);
	p->wall = x;
	p->n = n;
	ds_add_scalar(p, "warmups", "", (double)nwarm);
	ds_add_scalar(p, "loops", "", (double)loops);
	if (inner != 1)
		ds_add_scalar(p, "inner_loops", "", (double)inner);
	json_t *rss = meta(run, b, r->suite, "mem_max_rss");
	if (json_is_integer(rss) && json_integer_value(rss) >= 0)
		ds_add_scalar(p, "max_rss", "KiB", (double)json_integer_value(rss) / 1024.0);
	if ((long)n > k->iterations)
		k->iterations = (long)n;
	return 0;
}

static int read_bench(struct rd *r, size_t bi, json_t *b)
{
	if (!json_is_object(b))
		return kerr_setc(r->e, KEXIT_CONFIG, "%s: benchmarks[%zu]: not an object", r->name, bi);
	json_t *runs = json_object_get(b, "runs"), *bm = json_object_get(b, "metadata");
	if (bm && !json_is_object(bm))
		return kerr_setc(r->e, KEXIT_CONFIG, "%s: benchmarks[%zu].metadata: not an object", r->name, bi);
	if (!json_is_array(runs) || !json_array_size(runs))
		return kerr_setc(r->e, KEXIT_CONFIG, "%s: benchmarks[%zu].runs: missing, empty or not a list", r->name, bi);
	struct ds_key *k = bench_key(r, bi, b, json_array_get(runs, 0));
	if (!k)
		return -1;
	for (size_t ri = 0; ri < json_array_size(runs); ri++)
		if (read_run(r, bi, ri, b, json_array_get(runs, ri), k) < 0)
			return -1;
	k->planned_pexecs = (long)k->npexecs;
	return 0;
}

static int pp_read(const char *name, const char *text, size_t len, struct dataset *ds, struct kerr *e)
{
	json_t *root = fmt_json_load(name, text, len, e);
	if (!root)
		return -1;
	struct rd r = { name, ds, json_object_get(root, "metadata"), 0, 0, e, STRMAP_INIT };
	json_t *ver = json_object_get(root, "version"), *benchs = json_object_get(root, "benchmarks");
	int rc = 0;
	if (!(json_is_string(ver) && !strcmp(json_string_value(ver), "1.0")) &&
	    !(json_is_integer(ver) && json_integer_value(ver) == 6))
		rc = kerr_setc(e, KEXIT_CONFIG, "%s: version: pyperf's file format \"1.0\" or 6 is read, not this one", name);
	else if (r.suite && !json_is_object(r.suite))
		rc = kerr_setc(e, KEXIT_CONFIG, "%s: metadata: not an object", name);
	else if (!json_is_array(benchs) || !json_array_size(benchs))
		rc = kerr_setc(e, KEXIT_CONFIG, "%s: benchmarks: missing, empty or not a list", name);
	else if ((long)json_array_size(benchs) > FMT_MAX_KEYS)
		rc = kerr_setc(e, KEXIT_CONFIG, "%s: benchmarks: more than %ld", name, FMT_MAX_KEYS);
	for (size_t i = 0; rc == 0 && i < json_array_size(benchs); i++)
		rc = read_bench(&r, i, json_array_get(benchs, i));
	strmap_clear(&r.seen);
	const char *host = json_string_value(json_object_get(r.suite, "hostname"));
	if (rc == 0 && host && *host && !ds->machine)
		ds->machine = xstrdup(host);
	/* the file as it was: an export writes its metadata and exact values back (pp_write) */
	if (rc == 0 && !ds->keep_name) {
		ds->keep_name = xstrdup("pyperf_source");
		ds->keep_text = json_dumps(root, JSON_COMPACT | JSON_REAL_PRECISION(17));
	}
	json_decref(root);
	return rc;
}

/* ---- writing ---- */

/* pyperf refuses empty metadata strings and newlines in them */
static void set_text(json_t *o, const char *name, const char *v)
{
	if (!v)
		return;
	const char *t = esc(ESC_TERM, v);
	while (*t == ' ')
		t++;
	if (*t)
		json_object_set_new(o, name, json_string(t));
}

/* one pexec as a run: its first `warmups` iterations as warmups */
static int write_run(const struct ds_key *k, const struct ds_pexec *p, json_t *runs, struct kerr *e)
{
	double w = fmt_scalar(p, "warmups"), lp = fmt_scalar(p, "loops"), rss = fmt_scalar(p, "max_rss");
	size_t nwarm = isfinite(w) && w >= 0 && w <= (double)p->n ? (size_t)w : 0;
	long loops = lp >= 1 && lp < 1e18 ? (long)lp : 1; /* NaN or out of a long's range: 1 */
	json_t *run = json_object(), *warm = json_array(), *vals = json_array(), *md = json_object();
	for (size_t i = 0; i < p->n; i++) {
		if (!(p->wall[i] >= 0) || (i >= nwarm && p->wall[i] <= 0)) {
			json_decref(run);
			json_decref(warm);
			json_decref(vals);
			json_decref(md);
			return kerr_set(e, "key '%s' pexec %ld iteration %zu: %g s: pyperf takes only times > 0",
					esc(ESC_TERM, k->key), p->num, i, p->wall[i]);
		}
		if (i < nwarm)
			json_array_append_new(warm, json_pack("[I,f]", (json_int_t)loops, p->wall[i]));
		else
			json_array_append_new(vals, json_real(p->wall[i]));
	}
	json_object_set_new(md, "loops", json_integer(loops));
	if (rss > 0 && rss < 9e15) /* KiB that fit bytes in a JSON integer */
		json_object_set_new(md, "mem_max_rss", json_integer((json_int_t)llround(rss * 1024.0)));
	json_object_set_new(md, "kiln_pexec", json_integer(p->num));
	json_object_set_new(run, "metadata", md);
	if (json_array_size(warm))
		json_object_set_new(run, "warmups", warm);
	else
		json_decref(warm);
	json_object_set_new(run, "values", vals);
	json_array_append_new(runs, run);
	return 0;
}

/* the benchmark of an imported pyperf file that kiln's key k came from, NULL: none */
static json_t *source_bench(json_t *src, const struct ds_key *k)
{
	json_t *suite = json_object_get(src, "metadata"), *b;
	size_t i;
	json_array_foreach(json_object_get(src, "benchmarks"), i, b) {
		json_t *run0 = json_array_get(json_object_get(b, "runs"), 0);
		struct dataset one = { 0 };
		struct rd r = { "", &one, suite, 0, 0, NULL, STRMAP_INIT };
		struct kerr e = KERR_INIT;
		r.e = &e;
		struct ds_key *mine = run0 ? bench_key(&r, i, b, run0) : NULL;
		int same = mine && !strcmp(mine->key, k->key);
		strmap_clear(&r.seen);
		ds_free(&one);
		kerr_release(&e);
		if (same)
			return b;
	}
	return NULL;
}

/*
 * The run of the source benchmark that pexec p is (the p->num-th with
 * values), when kiln's iterations are its warmups and values as stored
 * (each within kiln's rounding to the nanosecond): written back as it was
 */
static json_t *source_run(json_t *sb, const struct ds_pexec *p)
{
	json_t *run;
	size_t i;
	long nth = -1;
	json_array_foreach(json_object_get(sb, "runs"), i, run) {
		json_t *vals = json_object_get(run, "values");
		if (!json_array_size(vals) || ++nth != p->num)
			continue;
		json_t *warm = json_object_get(run, "warmups");
		size_t nw = json_array_size(warm), nv = json_array_size(vals);
		if (nw + nv != p->n)
			return NULL;
		for (size_t j = 0; j < p->n; j++) {
			double v = json_number_value(j < nw ? json_array_get(json_array_get(warm, j), 1) : json_array_get(vals, j - nw));
			if (!(fabs(v - p->wall[j]) <= 0.5e-9 + 1e-15 * v))
				return NULL;
		}
		return run;
	}
	return NULL;
}

static int pp_write(const struct dataset *ds, const struct fmt_extra *x, struct strbuf *out, struct kerr *e)
{
	json_error_t je;
	json_t *src = x && x->pyperf_source ? json_loads(x->pyperf_source, 0, &je) : NULL;
	json_t *root = json_object(), *benchs = json_array(), *suite = json_object();
	json_object_set_new(root, "version", json_string("1.0"));
	json_object_set_new(root, "benchmarks", benchs);
	/* an imported file's own metadata first, kiln's over it */
	if (json_is_object(json_object_get(src, "metadata")))
		json_object_update(suite, json_object_get(src, "metadata"));
	set_text(suite, "hostname", ds->machine);
	json_object_set_new(suite, "unit", json_string("second"));
	json_object_set_new(suite, "kiln_version", json_string(KILN_VERSION));
	json_object_set_new(root, "metadata", suite);
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < ds->nkeys; i++) {
		const struct ds_key *k = &ds->keys[i];
		json_t *runs = json_array(), *sb = src ? source_bench(src, k) : NULL, *sr;
		/* pyperf's calibration runs (no values), which kiln does not keep, come back from the source */
		size_t ci;
		json_array_foreach(json_object_get(sb, "runs"), ci, sr)
			if (!json_array_size(json_object_get(sr, "values")))
				json_array_append(runs, sr);
		for (size_t p = 0; rc == 0 && p < k->npexecs; p++) {
			const struct ds_pexec *px = &k->pexecs[p];
			if (px->status != DS_OK || !px->n)
				continue;
			if (sb && (sr = source_run(sb, px))) {
				json_t *copy = json_deep_copy(sr), *md = json_object_get(copy, "metadata");
				if (!json_is_object(md)) {
					md = json_object();
					json_object_set_new(copy, "metadata", md);
				}
				json_object_set_new(md, "kiln_pexec", json_integer(px->num));
				json_array_append_new(runs, copy);
			} else {
				rc = write_run(k, px, runs, e);
			}
		}
		if (rc || !json_array_size(runs)) {
			json_decref(runs); /* pyperf has no benchmark without a run */
			continue;
		}
		json_t *b = json_object(), *md = json_object();
		if (json_is_object(json_object_get(sb, "metadata")))
			json_object_update(md, json_object_get(sb, "metadata"));
		/* pyperf compares benchmarks by name: the bench's, unless two keys share it */
		int shared = 0;
		for (size_t j = 0; j < ds->nkeys; j++)
			shared |= j != i && !strcmp(ds->keys[j].bench, k->bench);
		set_text(md, "name", shared ? k->key : k->bench);
		set_text(md, "kiln_key", k->key);
		json_object_set_new(b, "metadata", md);
		json_object_set_new(b, "runs", runs);
		json_array_append_new(benchs, b);
	}
	if (rc == 0 && !json_array_size(benchs))
		rc = kerr_set(e, "no key has a completed pexec: pyperf has no file without a benchmark");
	if (rc == 0) {
		char *text = json_dumps(root, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(17));
		sb_adds(out, text);
		sb_addc(out, '\n');
		free(text);
	}
	json_decref(root);
	json_decref(src);
	return rc;
}

const struct kiln_format fmt_pyperf = {
	.name = "pyperf",
	.summary = "pyperf's JSON (format 1.0; .json.gz compressed): a benchmark per key, a run per pexec",
	.suffix = ".json",
	.sniff = sniff,
	.read = pp_read,
	.write = pp_write,
};
