/*
 * import.c - Krun results files and warmup_stats CSV into a struct dataset,
 * and the writers for the other direction (kiln export).
 *
 * Krun: one JSON object, usually bzip2-compressed, with
 *   wallclock_times   {"bench:vm:variant": [[seconds per iteration] per pexec]}
 *   pexec_flags       {key: ["C" | "E" | "T" ...]}  completed, error, timeout
 *   core_cycle_counts {key: [[[cycles per iteration] per core] per pexec]}  optional,
 *                     likewise aperf_counts and mperf_counts
 *   instr_data        {key: [{name: [value per iteration]} per pexec]}     optional
 *   audit, config     kept by the writer; the reader takes the machine name from audit.uname
 * warmup_stats CSV: a header "pexec_idx,bench,0,1,2,..." then one row per
 * pexec "0,bench:vm:variant,0.1,0.2,..." where a "crash" cell marks a
 * crashed pexec.
 *
 * Outside data is untrusted (and fuzzed): every error names the file, the
 * line or key, and the field.  Keys are sorted so that datasets come out
 * the same whatever order the JSON object had.
 */
#include <bzlib.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fmt.h"
#include "import.h"
#include "store.h"


enum imp_format imp_detect(const char *path)
{
	unsigned char head[16] = { 0 };
	FILE *f = fopen(path, "rb");
	size_t n = 0;
	if (f) {
		n = fread(head, 1, sizeof(head), f);
		fclose(f);
	}
	if (n >= 16 && !memcmp(head, "SQLite format 3", 16))
		return IMP_KILN;
	if (n >= 3 && !memcmp(head, "BZh", 3))
		return str_ends_with(path, ".csv.bz2") ? IMP_CSV : IMP_KRUN;
	size_t i = 0;
	while (i < n && (head[i] == ' ' || head[i] == '\n' || head[i] == '\r' || head[i] == '\t'))
		i++;
	if (i < n && head[i] == '{')
		return IMP_KRUN;
	if (str_ends_with(path, ".db"))
		return IMP_KILN;
	if (str_ends_with(path, ".json") || str_ends_with(path, ".json.bz2") || str_ends_with(path, ".bz2"))
		return IMP_KRUN;
	if (str_ends_with(path, ".csv"))
		return IMP_CSV;
	if (n && (head[0] == 'p' || (head[0] >= '0' && head[0] <= '9')))
		return IMP_CSV;
	return IMP_UNKNOWN;
}

typedef int (*buf_parser)(const char *name, const char *data, size_t len, struct dataset *ds, struct kerr *e);

/* ---- bounds, and bzip2 ---- */

/* a bound from the environment, or its default; -1 with e set when it is not a positive number */
static int env_bound(const char *name, long dflt, long *out, struct kerr *e)
{
	const char *v = getenv(name);
	*out = dflt;
	if (!v || !*v)
		return 0;
	if (parse_long(v, out) || *out <= 0)
		return kerr_setc(e, KEXIT_USAGE, "%s: '%s' is not a positive whole number", name, esc(ESC_TERM, v));
	return 0;
}

int imp_bounds(struct imp_bounds *b, struct kerr *e)
{
	long ratio, floor_mb, max_mb;
	if (env_bound("KILN_INFLATE_RATIO", IMP_INFLATE_RATIO, &ratio, e) < 0 ||
	    env_bound("KILN_INFLATE_FLOOR_MB", IMP_INFLATE_FLOOR_MB, &floor_mb, e) < 0 ||
	    env_bound("KILN_INPUT_MAX_MB", IMP_INPUT_MAX_MB, &max_mb, e) < 0)
		return -1;
	b->ratio = (size_t)ratio;
	b->floor = (size_t)floor_mb << 20;
	b->max = (size_t)max_mb << 20;
	return 0;
}

size_t imp_inflate_limit(const struct imp_bounds *b, size_t compressed)
{
	size_t lim = compressed > SIZE_MAX / b->ratio ? SIZE_MAX : compressed * b->ratio;
	if (lim < b->floor)
		lim = b->floor;
	return lim < b->max ? lim : b->max;
}

/*
 * A bzip2 decompression read in pieces and bounded by imp_inflate_limit:
 * the JSON reader takes it as a stream (no copy of the text is kept), the
 * CSV reader into one buffer.  Several streams one after the other (what
 * pbzip2 and lbzip2 write) are one input; anything else after a stream,
 * or a stream cut short, is an error.
 */
struct bunzip {
	bz_stream bz;
	const char *name;
	const char *next;   /* compressed bytes not yet given to bz */
	size_t rest;
	size_t in_len;      /* the whole compressed input */
	size_t limit, out;  /* bytes allowed out, and out so far */
	int open, done;
	struct kerr *e;
};

static void bunzip_feed(struct bunzip *u)
{
	if (u->bz.avail_in || !u->rest)
		return;
	unsigned n = u->rest > 0x40000000u ? 0x40000000u : (unsigned)u->rest;
	u->bz.next_in = (char *)u->next;
	u->bz.avail_in = n;
	u->next += n;
	u->rest -= n;
}

static int bunzip_start(struct bunzip *u, const char *name, const char *data, size_t len, struct kerr *e)
{
	memset(u, 0, sizeof(*u));
	u->name = name;
	u->next = data;
	u->rest = len;
	u->in_len = len;
	u->e = e;
	struct imp_bounds b;
	if (imp_bounds(&b, e) < 0)
		return -1;
	u->limit = imp_inflate_limit(&b, len);
	if (BZ2_bzDecompressInit(&u->bz, 0, 0) != BZ_OK)
		return kerr_setc(e, KEXIT_CONFIG, "%s: cannot start bzip2 decompression", name);
	u->open = 1;
	bunzip_feed(u);
	return 0;
}

static void bunzip_end(struct bunzip *u)
{
	if (u->open)
		BZ2_bzDecompressEnd(&u->bz);
	u->open = 0;
}

/* the end of one stream: the input ends, or another stream follows */
static int bunzip_next_stream(struct bunzip *u)
{
	const char *in = u->bz.next_in;
	unsigned avail = u->bz.avail_in;
	if (!avail && !u->rest) {
		u->done = 1;
		return 0;
	}
	size_t left = avail + u->rest; /* the next stream may start in the part not yet fed */
	char head[3];
	for (size_t i = 0; i < 3 && i < left; i++)
		head[i] = i < avail ? in[i] : u->next[i - avail];
	if (left < 3 || memcmp(head, "BZh", 3))
		return kerr_setc(u->e, KEXIT_CONFIG, "%s: data after the end of the bzip2 stream", u->name);
	BZ2_bzDecompressEnd(&u->bz);
	memset(&u->bz, 0, sizeof(u->bz));
	u->open = 0;
	if (BZ2_bzDecompressInit(&u->bz, 0, 0) != BZ_OK)
		return kerr_setc(u->e, KEXIT_CONFIG, "%s: cannot start bzip2 decompression", u->name);
	u->open = 1;
	u->bz.next_in = (char *)in;
	u->bz.avail_in = avail;
	bunzip_feed(u);
	return 0;
}

/* up to n decompressed bytes into buf: how many (0 at the end), or -1 with the error set */
static long bunzip_read(struct bunzip *u, char *buf, size_t n)
{
	if (n > 0x40000000u)
		n = 0x40000000u;
	while (!u->done) {
		bunzip_feed(u);
		u->bz.next_out = buf;
		u->bz.avail_out = (unsigned)n;
		unsigned in_before = u->bz.avail_in;
		int rc = BZ2_bzDecompress(&u->bz);
		size_t got = n - u->bz.avail_out;
		u->out += got;
		if (u->out > u->limit)
			return kerr_setc(u->e, KEXIT_CONFIG,
					 "%s: more than %zu MiB once decompressed (%zu bytes compressed): refused as a "
					 "decompression bomb; KILN_INFLATE_RATIO, KILN_INFLATE_FLOOR_MB and KILN_INPUT_MAX_MB "
					 "raise the bound (docs/security.md#input-files)",
					 u->name, u->limit >> 20, u->in_len);
		if (rc == BZ_STREAM_END) {
			if (bunzip_next_stream(u) < 0)
				return -1;
		} else if (rc != BZ_OK) {
			return kerr_setc(u->e, KEXIT_CONFIG, "%s: corrupt bzip2 data (error %d)", u->name, rc);
		} else if (!got && !u->bz.avail_in && !u->rest && in_before == 0) {
			return kerr_setc(u->e, KEXIT_CONFIG, "%s: truncated bzip2 data", u->name);
		}
		if (got)
			return (long)got;
	}
	return 0;
}

int imp_bunzip(const char *name, const char *data, size_t len, struct strbuf *out, struct kerr *e)
{
	struct bunzip u;
	sb_reset(out);
	int r = bunzip_start(&u, name, data, len, e);
	while (r == 0) {
		sb_grow(out, 1 << 20);
		long got = bunzip_read(&u, out->buf + out->len, out->alloc - out->len - 1);
		if (got <= 0) {
			r = (int)got;
			break;
		}
		out->len += (size_t)got;
		out->buf[out->len] = '\0';
	}
	bunzip_end(&u);
	return r;
}

int imp_bzip(const char *data, size_t len, struct strbuf *out, struct kerr *e)
{
	if (len > 0x7fffffff)
		return kerr_set(e, "bzip2: %zu bytes is too much for one buffer", len);
	unsigned dl = (unsigned)(len + len / 100 + 601);
	sb_reset(out);
	sb_grow(out, dl);
	int rc = BZ2_bzBuffToBuffCompress(out->buf, &dl, (char *)data, (unsigned)len, 9, 0, 0);
	if (rc != BZ_OK)
		return kerr_set(e, "bzip2 compression failed (error %d)", rc);
	out->len = dl;
	out->buf[dl] = '\0';
	return 0;
}

/* ---- keys ---- */

/* "bench:vm:variant" (the variant may itself contain ':'); a bare name gets vm "unknown" */
static int split_key(const char *key, char **b, char **v, char **var)
{
	const char *c1 = strchr(key, ':');
	if (!c1) {
		if (!*key)
			return -1;
		*b = xstrdup(key);
		*v = xstrdup("unknown");
		*var = xstrdup("default");
		return 0;
	}
	const char *c2 = strchr(c1 + 1, ':');
	if (c1 == key || !c2 || c2 == c1 + 1 || !c2[1])
		return -1;
	*b = xstrndup(key, (size_t)(c1 - key));
	*v = xstrndup(c1 + 1, (size_t)(c2 - c1 - 1));
	*var = xstrdup(c2 + 1);
	return 0;
}

static struct ds_key *key_for(struct dataset *ds, const char *key)
{
	char *b, *v, *var;
	if (split_key(key, &b, &v, &var) < 0)
		return NULL;
	char *full = xasprintf("%s:%s:%s", b, v, var);
	struct ds_key *k = ds_find_key(ds, full);
	free(full);
	if (!k)
		k = ds_add_key(ds, b, v, var);
	free(b);
	free(v);
	free(var);
	return k;
}

/* ---- Krun ---- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static const char **sorted_keys(json_t *obj, size_t *n)
{
	*n = json_object_size(obj);
	const char **keys = xmalloc((*n ? *n : 1) * sizeof(char *));
	size_t i = 0;
	const char *k;
	json_t *v;
	json_object_foreach(obj, k, v) keys[i++] = k;
	qsort(keys, *n, sizeof(char *), cmp_str);
	return keys;
}

/* an array of numbers (nulls become NAN when allow_null) into a new double array */
static int num_array(json_t *a, int allow_null, double **out, size_t *n)
{
	if (!json_is_array(a))
		return -1;
	*n = json_array_size(a);
	double *v = xmalloc((*n ? *n : 1) * sizeof(double));
	for (size_t i = 0; i < *n; i++) {
		json_t *x = json_array_get(a, i);
		if (json_is_number(x))
			v[i] = json_number_value(x);
		else if (allow_null && json_is_null(x))
			v[i] = NAN;
		else {
			free(v);
			*n = i;
			return -2;
		}
	}
	*out = v;
	return 0;
}

/* core_cycle_counts and the like: per pexec, per core, per iteration; summed over cores */
static int krun_percore(const char *name, json_t *root, const char *field, const char *series, struct dataset *ds,
			struct kerr *e)
{
	json_t *obj = json_object_get(root, field);
	if (!obj || json_is_null(obj))
		return 0;
	if (!json_is_object(obj))
		return kerr_setc(e, KEXIT_CONFIG, "%s: %s: not an object", name, field);
	size_t nk;
	const char **keys = sorted_keys(obj, &nk);
	for (size_t i = 0; i < nk; i++) {
		struct ds_key *k = ds_find_key(ds, keys[i]);
		json_t *pl = json_object_get(obj, keys[i]);
		if (!k || !json_is_array(pl))
			continue; /* counts for a key without times: nothing to attach them to */
		for (size_t p = 0; p < json_array_size(pl) && p < k->npexecs; p++) {
			json_t *cores = json_array_get(pl, p);
			if (!json_is_array(cores) || !json_array_size(cores))
				continue;
			struct ds_pexec *px = &k->pexecs[p];
			struct ds_series *s = NULL;
			for (size_t c = 0; c < json_array_size(cores); c++) {
				double *v;
				size_t n;
				int r = num_array(json_array_get(cores, c), 1, &v, &n);
				if (r < 0) {
					free(keys);
					return kerr_setc(e, KEXIT_CONFIG, "%s: %s: key '%s': pexec %zu: core %zu: %s", name,
							 field, esc(ESC_TERM, k->key), p, c,
							 r == -1 ? "not an array" : "a value is not a number");
				}
				if (!s)
					s = ds_add_series(px, series, "", n);
				for (size_t j = 0; j < n && j < s->n; j++)
					s->v[j] = isnan(s->v[j]) ? v[j] : s->v[j] + v[j];
				free(v);
			}
		}
	}
	free(keys);
	return 0;
}

static int krun_instr(const char *name, json_t *root, struct dataset *ds, struct kerr *e)
{
	json_t *obj = json_object_get(root, "instr_data");
	if (!obj || !json_is_object(obj))
		return 0;
	size_t nk;
	const char **keys = sorted_keys(obj, &nk);
	for (size_t i = 0; i < nk; i++) {
		struct ds_key *k = ds_find_key(ds, keys[i]);
		json_t *pl = json_object_get(obj, keys[i]);
		if (!k || !json_is_array(pl))
			continue;
		for (size_t p = 0; p < json_array_size(pl) && p < k->npexecs; p++) {
			json_t *po = json_array_get(pl, p);
			if (!json_is_object(po))
				continue; /* Krun's VM-specific shapes other than name -> list: not ours */
			size_t ns;
			const char **names = sorted_keys(po, &ns);
			for (size_t s = 0; s < ns; s++) {
				double *v;
				size_t n;
				int r = num_array(json_object_get(po, names[s]), 1, &v, &n);
				if (r == -1)
					continue;
				if (r < 0) {
					kerr_setc(e, KEXIT_CONFIG, "%s: instr_data: key '%s': pexec %zu: series '%s': a value is not a number",
						  name, esc(ESC_TERM, k->key), p, esc(ESC_TERM, names[s]));
					free(names);
					free(keys);
					return -1;
				}
				struct ds_series *ser = ds_add_series(&k->pexecs[p], names[s], "", n);
				memcpy(ser->v, v, n * sizeof(double));
				free(v);
			}
			free(names);
		}
	}
	free(keys);
	return 0;
}

/* jansson reads a bzip2-compressed file as it is decompressed */
static size_t bunzip_json_read(void *buf, size_t n, void *ctx)
{
	long got = bunzip_read(ctx, buf, n);
	return got < 0 ? (size_t)-1 : (size_t)got;
}

/* the JSON of a Krun file, plain or bzip2 (streamed, bounded) */
static json_t *krun_json(const char *name, const char *data, size_t len, struct kerr *e)
{
	json_error_t je;
	json_t *root;
	if (len >= 3 && !memcmp(data, "BZh", 3)) {
		struct bunzip u;
		if (bunzip_start(&u, name, data, len, e) < 0) {
			bunzip_end(&u);
			return NULL;
		}
		struct kerr mine = KERR_INIT;
		u.e = &mine;
		root = json_load_callback(bunzip_json_read, &u, JSON_REJECT_DUPLICATES, &je);
		bunzip_end(&u);
		if (mine.msg.len) {
			/* the decompression failed: that is the error, not the JSON it cut short */
			json_decref(root);
			kerr_setc(e, mine.code, "%s", mine.msg.buf);
			kerr_release(&mine);
			return NULL;
		}
		kerr_release(&mine);
	} else {
		root = json_loadb(data, len, JSON_REJECT_DUPLICATES, &je);
	}
	if (!root)
		kerr_setc(e, KEXIT_CONFIG, "%s:%d:%d: not valid JSON: %s", name, je.line, je.column, esc(ESC_TERM, je.text));
	return root;
}

int imp_krun_buf(const char *name, const char *data, size_t len, struct dataset *ds, struct kerr *e)
{
	json_t *root = krun_json(name, data, len, e);
	if (!root)
		return -1;
	int rc = -1;
	const char **keys = NULL;
	if (!json_is_object(root)) {
		kerr_setc(e, KEXIT_CONFIG, "%s: not a Krun results file (the top level is not an object)", name);
		goto out;
	}
	json_t *wt = json_object_get(root, "wallclock_times");
	if (!json_is_object(wt)) {
		kerr_setc(e, KEXIT_CONFIG, "%s: wallclock_times: %s", name, wt ? "not an object" : "missing");
		goto out;
	}
	json_t *flags = json_object_get(root, "pexec_flags");
	if (flags && !json_is_object(flags) && !json_is_null(flags)) {
		kerr_setc(e, KEXIT_CONFIG, "%s: pexec_flags: not an object", name);
		goto out;
	}
	size_t nk;
	keys = sorted_keys(wt, &nk);
	for (size_t i = 0; i < nk; i++) {
		json_t *pl = json_object_get(wt, keys[i]);
		if (!json_is_array(pl)) {
			kerr_setc(e, KEXIT_CONFIG, "%s: wallclock_times: key '%s': not a list of pexecs", name, esc(ESC_TERM, keys[i]));
			goto out;
		}
		struct ds_key *k = key_for(ds, keys[i]);
		if (!k) {
			kerr_setc(e, KEXIT_CONFIG, "%s: wallclock_times: key '%s': not of the form bench:vm:variant", name,
				  esc(ESC_TERM, keys[i]));
			goto out;
		}
		json_t *fl = flags ? json_object_get(flags, keys[i]) : NULL;
		if (fl && !json_is_array(fl)) {
			kerr_setc(e, KEXIT_CONFIG, "%s: pexec_flags: key '%s': not a list", name, esc(ESC_TERM, keys[i]));
			goto out;
		}
		size_t np = json_array_size(pl);
		k->planned_pexecs = (long)np;
		for (size_t p = 0; p < np; p++) {
			struct ds_pexec *px = ds_add_pexec(k, (long)p);
			double *v;
			size_t n;
			int r = num_array(json_array_get(pl, p), 0, &v, &n);
			if (r == -1) {
				kerr_setc(e, KEXIT_CONFIG, "%s: wallclock_times: key '%s': pexec %zu: not a list of times",
					  name, esc(ESC_TERM, keys[i]), p);
				goto out;
			}
			if (r == -2) {
				kerr_setc(e, KEXIT_CONFIG, "%s: wallclock_times: key '%s': pexec %zu: iteration %zu: not a number",
					  name, esc(ESC_TERM, keys[i]), p, n);
				goto out;
			}
			for (size_t j = 0; j < n; j++)
				if (!isfinite(v[j]) || v[j] < 0) {
					kerr_setc(e, KEXIT_CONFIG, "%s: wallclock_times: key '%s': pexec %zu: iteration %zu: %g is not a time",
						  name, esc(ESC_TERM, keys[i]), p, j, v[j]);
					free(v);
					goto out;
				}
			px->wall = v;
			px->n = n;
			if ((long)n > k->iterations)
				k->iterations = (long)n;
			const char *f = fl ? json_string_value(json_array_get(fl, p)) : NULL;
			if (fl && p < json_array_size(fl) && !f) {
				kerr_setc(e, KEXIT_CONFIG, "%s: pexec_flags: key '%s': pexec %zu: not a string", name, esc(ESC_TERM, keys[i]), p);
				goto out;
			}
			if (f && !strcmp(f, "E"))
				px->status = DS_FAILED;
			else if (f && !strcmp(f, "T"))
				px->status = DS_TIMEOUT;
			else if (f && strcmp(f, "C")) {
				kerr_setc(e, KEXIT_CONFIG, "%s: pexec_flags: key '%s': pexec %zu: unknown flag '%s'", name,
					  esc(ESC_TERM, keys[i]), p, esc(ESC_TERM, f));
				goto out;
			} else if (!n)
				px->status = DS_FAILED; /* no flags and no data: it did not complete */
		}
	}
	if (krun_percore(name, root, "core_cycle_counts", "cycles", ds, e) < 0 ||
	    krun_percore(name, root, "aperf_counts", "aperf", ds, e) < 0 ||
	    krun_percore(name, root, "mperf_counts", "mperf", ds, e) < 0 || krun_instr(name, root, ds, e) < 0)
		goto out;
	if (!ds->machine) {
		json_t *audit = json_object_get(root, "audit");
		const char *un = json_string_value(json_object_get(audit, "uname"));
		const char *sp = un ? strchr(un, ' ') : NULL;
		if (sp) {
			const char *end = strchr(sp + 1, ' ');
			ds->machine = end ? xstrndup(sp + 1, (size_t)(end - sp - 1)) : xstrdup(sp + 1);
		}
	}
	rc = 0;
out:
	free(keys);
	json_decref(root);
	return rc;
}

/* ---- warmup_stats CSV ---- */

/* next cell of line [p, end): returns its copy (quotes stripped), advances *p */
static char *csv_cell(const char **p, const char *end)
{
	const char *s = *p;
	const char *c = memchr(s, ',', (size_t)(end - s));
	const char *e = c ? c : end;
	*p = c ? c + 1 : end + 1;
	while (s < e && (*s == ' ' || *s == '\t'))
		s++;
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		e--;
	if (e - s >= 2 && *s == '"' && e[-1] == '"') {
		s++;
		e--;
	}
	return xstrndup(s, (size_t)(e - s));
}

int imp_csv_buf(const char *name, const char *data, size_t len, struct dataset *ds, struct kerr *e)
{
	const char *p = data, *end = data + len;
	long line = 0;
	long ncols = -1;
	int rc = -1;
	char *cell = NULL;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		line++;
		const char *q = p;
		p = nl ? nl + 1 : end;
		const char *t = q;
		while (t < le && (*t == ' ' || *t == '\t' || *t == '\r'))
			t++;
		if (t == le)
			continue; /* blank line */
		if (memchr(q, '\0', (size_t)(le - q))) {
			kerr_setc(e, KEXIT_CONFIG, "%s:%ld: a NUL byte: not a CSV file", name, line);
			goto out;
		}
		if (ncols < 0) {
			/* header: two names, then the iteration numbers 0, 1, 2, ... */
			long col = 0;
			while (q <= le) {
				cell = csv_cell(&q, le);
				if (col >= 2) {
					long it;
					if (!*cell && q > le) {
						free(cell);
						cell = NULL;
						break; /* a trailing comma */
					}
					if (parse_long(cell, &it) || it != col - 2) {
						kerr_setc(e, KEXIT_CONFIG, "%s:%ld: header column %ld: expected iteration %ld, got '%s'",
							  name, line, col + 1, col - 2, esc(ESC_TERM, cell));
						goto out;
					}
				}
				free(cell);
				cell = NULL;
				col++;
			}
			if (col < 2) {
				kerr_setc(e, KEXIT_CONFIG, "%s:%ld: header: expected pexec_idx,bench,0,1,...", name, line);
				goto out;
			}
			ncols = col;
			continue;
		}
		cell = csv_cell(&q, le);
		long idx;
		if (parse_long(cell, &idx) || idx < 0) {
			kerr_setc(e, KEXIT_CONFIG, "%s:%ld: column 1 (pexec_idx): '%s' is not a pexec number", name, line,
				  esc(ESC_TERM, cell));
			goto out;
		}
		free(cell);
		cell = q <= le ? csv_cell(&q, le) : xstrdup("");
		struct ds_key *k = key_for(ds, cell);
		if (!k) {
			kerr_setc(e, KEXIT_CONFIG, "%s:%ld: column 2 (bench): '%s' is not bench or bench:vm:variant", name,
				  line, esc(ESC_TERM, cell));
			goto out;
		}
		free(cell);
		cell = NULL;
		struct ds_pexec *px = ds_add_pexec(k, idx);
		k->planned_pexecs = (long)k->npexecs;
		size_t cap = ncols > 2 ? (size_t)ncols - 2 : 1, n = 0;
		px->wall = xmalloc(cap * sizeof(double));
		long col = 2;
		while (q <= le) {
			cell = csv_cell(&q, le);
			col++;
			if (!*cell) {
				free(cell);
				cell = NULL;
				continue; /* a short row padded with empty cells */
			}
			if (!strcmp(cell, "crash")) {
				px->status = DS_FAILED;
				free(cell);
				cell = NULL;
				break;
			}
			double v;
			if (parse_double(cell, &v) || !isfinite(v) || v < 0) {
				kerr_setc(e, KEXIT_CONFIG, "%s:%ld: column %ld (iteration %ld): '%s' is not a time in seconds",
					  name, line, col, col - 3, esc(ESC_TERM, cell));
				goto out;
			}
			if (n == cap) {
				cap *= 2;
				px->wall = xrealloc(px->wall, cap * sizeof(double));
			}
			px->wall[n++] = v;
			free(cell);
			cell = NULL;
		}
		px->n = n;
		if (!n)
			px->status = DS_FAILED;
		if ((long)n > k->iterations)
			k->iterations = (long)n;
	}
	if (ncols < 0) {
		kerr_setc(e, KEXIT_CONFIG, "%s: empty: no header line", name);
		goto out;
	}
	rc = 0;
out:
	free(cell);
	return rc;
}

/*
 * A whole input file, no larger than the input bound, bunzipped when it is
 * a CSV in bzip2 (a .json.bz2 is decompressed as the JSON is read).
 */
int imp_read_input(const char *path, struct strbuf *sb, struct kerr *e)
{
	struct imp_bounds b;
	struct stat st;
	if (imp_bounds(&b, e) < 0)
		return -1;
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size > b.max)
		return kerr_setc(e, KEXIT_CONFIG, "%s: %lld MiB is more than an input may be (KILN_INPUT_MAX_MB=%zu)", path,
				 (long long)(st.st_size >> 20), b.max >> 20);
	if (read_file(path, sb, e) < 0)
		return -1;
	if (sb->len > b.max)
		return kerr_setc(e, KEXIT_CONFIG, "%s: more than an input may be (KILN_INPUT_MAX_MB=%zu)", path, b.max >> 20);
	return 0;
}

static int load_file(const char *path, buf_parser parse, struct strbuf *sb, struct kerr *e)
{
	if (imp_read_input(path, sb, e) < 0)
		return -1;
	if (parse != imp_krun_buf && sb->len >= 3 && !memcmp(sb->buf, "BZh", 3)) {
		struct strbuf out = STRBUF_INIT;
		if (imp_bunzip(path, sb->buf, sb->len, &out, e) < 0) {
			sb_release(&out);
			return -1;
		}
		sb_release(sb);
		*sb = out;
	}
	return 0;
}

/* a whole file through one of the buffer parsers, remembering where it came from */
static int parse_file(const char *path, buf_parser parse, struct dataset *ds, struct kerr *e)
{
	struct strbuf sb = STRBUF_INIT;
	int r = load_file(path, parse, &sb, e);
	if (r == 0)
		r = parse(path, sb_str(&sb), sb.len, ds, e);
	sb_release(&sb);
	if (r == 0 && !ds->source)
		ds->source = xstrdup(path);
	return r;
}

int imp_krun_file(const char *path, struct dataset *ds, struct kerr *e)
{
	return parse_file(path, imp_krun_buf, ds, e);
}

int imp_csv_file(const char *path, struct dataset *ds, struct kerr *e)
{
	return parse_file(path, imp_csv_buf, ds, e);
}

/* the file's base name without .json.bz2/.json/.csv/.db: the default experiment and machine name */
static char *stem(const char *path)
{
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	static const char *const sufs[] = { ".json.bz2", ".json.gz", ".json", ".csv", ".kiln.db", ".db", ".bz2", ".data" };
	for (size_t i = 0; i < ARRAY_SIZE(sufs); i++)
		if (str_ends_with(b, sufs[i]) && strlen(b) > strlen(sufs[i]))
			return xstrndup(b, strlen(b) - strlen(sufs[i]));
	return xstrdup(b);
}

int imp_load(const char *path, struct dataset *ds, struct kerr *e)
{
	/* as every command that reads results says it (store_open) */
	if (!file_exists(path))
		return kerr_setc(e, KEXIT_STORE, "%s: no such results file", path);
	int r;
	enum imp_format f = imp_detect(path);
	/* the formats of fmt.h that know their files (hyperfine, pyperf, ReBench) */
	if (f != IMP_KILN && (r = fmt_load(path, ds, e)) <= 0) {
		if (r < 0)
			return -1;
		f = IMP_OTHER;
	}
	switch (f) {
	case IMP_OTHER:
		r = 0;
		break;
	case IMP_KILN:
		r = store_load_dataset(path, ds, e);
		break;
	case IMP_KRUN:
		r = imp_krun_file(path, ds, e);
		break;
	case IMP_CSV:
		r = imp_csv_file(path, ds, e);
		break;
	default:
		return kerr_setc(e, KEXIT_CONFIG,
				 "%s: not a kiln results file, Krun results file (.json, .json.bz2), warmup_stats CSV, "
				 "hyperfine or pyperf JSON or ReBench data file",
				 path);
	}
	if (r < 0)
		return -1;
	if (!ds->name)
		ds->name = stem(path);
	if (!ds->machine)
		ds->machine = stem(path);
	if (!ds->source)
		ds->source = xstrdup(path);
	return 0;
}

/* ---- writers ---- */

static const char *flag_of(enum ds_status s)
{
	switch (s) {
	case DS_OK: return "C";
	case DS_TIMEOUT: return "T";
	default: return "E";
	}
}

static json_t *num_list(const double *v, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, isfinite(v[i]) ? json_real(v[i]) : json_null());
	return a;
}

/* write text to path, compressed when the name ends in .bz2 */
static int write_maybe_bz2(const char *path, const char *text, size_t len, struct kerr *e)
{
	if (!str_ends_with(path, ".bz2"))
		return write_file(path, text, len, e);
	struct strbuf z = STRBUF_INIT;
	int r = imp_bzip(text, len, &z, e);
	if (r == 0)
		r = write_file(path, z.buf, z.len, e);
	sb_release(&z);
	return r;
}

int export_krun_text(const struct dataset *ds, const char *config_text, const char *audit_json, struct strbuf *out,
		     struct kerr *e)
{
	json_t *root = json_object();
	json_t *wt = json_object(), *fl = json_object(), *cyc = json_object(), *instr = json_object();
	json_t *eta = json_object();
	/* held by root from here, so one decref frees all; the optional two go again when empty */
	json_object_set_new(root, "wallclock_times", wt);
	json_object_set_new(root, "pexec_flags", fl);
	json_object_set_new(root, "core_cycle_counts", cyc);
	json_object_set_new(root, "instr_data", instr);
	json_object_set_new(root, "eta_estimates", eta);
	int any_cycles = 0, any_instr = 0, any_error = 0;
	for (size_t i = 0; i < ds->nkeys; i++) {
		const struct ds_key *k = &ds->keys[i];
		json_t *pl = json_array(), *fa = json_array(), *ca = json_array(), *ia = json_array();
		for (size_t p = 0; p < k->npexecs; p++) {
			const struct ds_pexec *px = &k->pexecs[p];
			/* Krun keeps no times for failed pexecs; kiln's partial ones are not results */
			int ok = px->status == DS_OK;
			json_array_append_new(pl, ok ? num_list(px->wall, px->n) : json_array());
			json_array_append_new(fa, json_string(flag_of(px->status)));
			any_error |= !ok;
			const struct ds_series *c = ds_find_series(px, "cycles");
			json_t *cores = json_array();
			if (c && ok) {
				json_array_append_new(cores, num_list(c->v, c->n));
				any_cycles = 1;
			}
			json_array_append_new(ca, cores);
			json_t *io = json_object();
			for (size_t s = 0; ok && s < px->nseries; s++) {
				if (!strcmp(px->series[s].name, "cycles"))
					continue;
				json_object_set_new(io, esc(ESC_JSON, px->series[s].name),
						    num_list(px->series[s].v, px->series[s].n));
				any_instr = 1;
			}
			json_array_append_new(ia, io);
		}
		/* Krun's keys: what is not UTF-8 in a kiln file's key is written \xNN (JSON cannot hold it) */
		const char *key = esc(ESC_JSON, k->key);
		if (json_object_get(wt, key)) {
			json_t *mine[] = { pl, fa, ca, ia, root };
			for (size_t q = 0; q < ARRAY_SIZE(mine); q++)
				json_decref(mine[q]);
			return kerr_set(e, "two keys are both '%s' once made valid UTF-8 for JSON",
					esc(ESC_TERM, key));
		}
		json_object_set_new(wt, key, pl);
		json_object_set_new(fl, key, fa);
		json_object_set_new(cyc, key, ca);
		json_object_set_new(instr, key, ia);
		json_object_set_new(eta, key, json_array());
	}
	if (!any_cycles)
		json_object_del(root, "core_cycle_counts");
	if (!any_instr)
		json_object_del(root, "instr_data");
	json_object_set_new(root, "error_flag", json_boolean(any_error));
	json_object_set_new(root, "reboots", json_integer(0));
	json_object_set_new(root, "config", json_string(esc(ESC_JSON, config_text)));
	json_t *audit = NULL;
	if (audit_json) {
		json_error_t je;
		audit = json_loads(audit_json, 0, &je);
		if (audit && !json_is_object(audit)) {
			json_decref(audit);
			audit = NULL;
		}
	}
	if (!audit)
		audit = json_object();
	if (!json_object_get(audit, "uname") && ds->machine)
		json_object_set_new(audit, "uname", json_sprintf("Linux %s", esc(ESC_JSON, ds->machine)));
	json_object_set_new(audit, "kiln_version", json_string(KILN_VERSION));
	json_object_set_new(root, "audit", audit);
	char *text = json_dumps(root, JSON_COMPACT | JSON_REAL_PRECISION(17) | JSON_SORT_KEYS);
	json_decref(root);
	if (!text)
		return kerr_set(e, "cannot encode the results as JSON");
	sb_adds(out, text);
	free(text);
	return 0;
}

int export_krun(const struct dataset *ds, const char *path, const char *config_text, const char *audit_json,
		struct kerr *e)
{
	struct strbuf sb = STRBUF_INIT;
	int r = export_krun_text(ds, config_text, audit_json, &sb, e);
	if (r == 0)
		r = write_maybe_bz2(path, sb_str(&sb), sb.len, e);
	else
		kerr_wrap(e, "%s", path);
	sb_release(&sb);
	return r;
}

int export_csv_text(const struct dataset *ds, struct strbuf *sb, struct kerr *e)
{
	size_t maxn = 0;
	for (size_t i = 0; i < ds->nkeys; i++)
		for (size_t p = 0; p < ds->keys[i].npexecs; p++)
			if (ds->keys[i].pexecs[p].n > maxn)
				maxn = ds->keys[i].pexecs[p].n;
	sb_adds(sb, "pexec_idx,bench");
	for (size_t j = 0; j < maxn; j++)
		sb_addf(sb, ",%zu", j);
	sb_addc(sb, '\n');
	for (size_t i = 0; i < ds->nkeys; i++) {
		const struct ds_key *k = &ds->keys[i];
		for (size_t p = 0; p < k->npexecs; p++) {
			const struct ds_pexec *px = &k->pexecs[p];
			/* warmup_stats splits lines at commas: a key that needs quoting or escaping cannot go there as it is */
			if (strcmp(esc(ESC_CSV, k->key), k->key) || strchr(k->key, '"')) {
				return kerr_set(e, "key '%s' cannot be written to a warmup_stats CSV (it would need quoting "
					       "or escaping)", esc(ESC_TERM, k->key));
			}
			sb_addf(sb, "%ld,%s", px->num, k->key);
			for (size_t j = 0; j < px->n; j++)
				sb_addf(sb, ",%.17g", px->wall[j]);
			if (px->status != DS_OK || !px->n)
				sb_adds(sb, ",crash");
			sb_addc(sb, '\n');
		}
	}
	return 0;
}

int export_csv(const struct dataset *ds, const char *path, struct kerr *e)
{
	struct strbuf sb = STRBUF_INIT;
	int r = export_csv_text(ds, &sb, e);
	if (r == 0)
		r = write_maybe_bz2(path, sb_str(&sb), sb.len, e);
	else
		kerr_wrap(e, "%s", path);
	sb_release(&sb);
	return r;
}
