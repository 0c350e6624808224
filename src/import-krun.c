/*
 * import-krun.c - Krun results files read as a stream: the JSON is parsed
 * piece by piece as it is read and decompressed (import-input.c), and each
 * pexec goes to a sink (import.h's struct imp_sink) as soon as it is read,
 * so that a file of any size is imported in memory that depends on its
 * largest pexec, not on the file.
 *
 * The parser is yajl (Debian's libyajl): an event-driven JSON parser that
 * takes its input in chunks, which jansson (whole documents only) cannot.
 * What is read:
 *   wallclock_times   {"bench:vm:variant": [[seconds per iteration] per pexec]}
 *                     ("data" in files before October 2016)
 *   pexec_flags       {key: ["C" | "E" | "T" ...]}  completed, error, timeout
 *   core_cycle_counts {key: [[[count per iteration] per core] per pexec]}, and
 *   aperf_counts, mperf_counts: one series per core (cycles.core0, aperf.core1...)
 *   eta_estimates     {key: [seconds per pexec]}: each pexec's duration
 *   instr_data        {key: [{name: [value per iteration]} per pexec]}
 *   kiln_status, kiln_partial_times  what kiln's export adds for its own
 *                     statuses and the times of pexecs that did not complete
 *   audit, config     kept whole (sink meta "audit" as JSON, "config" as text);
 *                     the machine is audit.uname's second word
 *   anything else     kept whole, as one JSON object (sink meta "extra")
 * Every value is checked as it comes; an error names the file, the field,
 * the key, the pexec and the iteration, or the line and column for bad JSON.
 * Bounds: nesting, keys, pexecs per key, iterations per pexec, the kept
 * JSON (audit, config, extra) and name lengths, besides the input's own.
 */
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <yajl_parse.h>

#include "fmt.h"
#include "import.h"
#include "store.h"

#define MAX_DEPTH 64
#define MAX_KEYS 1000000L
#define MAX_PEXECS 10000000L
#define MAX_ITERS 100000000L
#define MAX_KEPT ((size_t)256 << 20)  /* bytes of audit, config and other fields kept */
#define MAX_NAME 4096

enum sec {
	S_NONE, S_TIMES, S_PARTIAL, S_FLAGS, S_CYCLES, S_APERF, S_MPERF, S_ETA, S_INSTR, S_STATUS, S_AUDIT,
	S_CONFIG, S_OTHER, NSEC
};
static const char *const sec_field[NSEC] = {
	[S_TIMES] = "wallclock_times", [S_PARTIAL] = "kiln_partial_times", [S_FLAGS] = "pexec_flags",
	[S_CYCLES] = "core_cycle_counts", [S_APERF] = "aperf_counts", [S_MPERF] = "mperf_counts",
	[S_ETA] = "eta_estimates", [S_INSTR] = "instr_data", [S_STATUS] = "kiln_status", [S_AUDIT] = "audit",
	[S_CONFIG] = "config",
};
/* the per-pexec lists that must have one entry per pexec of wallclock_times, which comes first */
static const enum sec listed_sec[] = { S_TIMES, S_FLAGS, S_CYCLES, S_APERF, S_MPERF };
#define NLISTED (sizeof(listed_sec) / sizeof(listed_sec[0]))
/* the per-pexec lists that may be shorter (Krun writes no ETA for a pexec it did not plan) but never longer */
static const enum sec upto_sec[] = { S_ETA, S_INSTR };
#define NUPTO (sizeof(upto_sec) / sizeof(upto_sec[0]))
static const char *const core_series[NSEC] = { [S_CYCLES] = "cycles", [S_APERF] = "aperf", [S_MPERF] = "mperf" };

/* what the reader knows of one pexec until the end */
struct kpx {
	long h;          /* the sink's handle, -1 until something of it is read */
	double dur;      /* eta_estimates */
	size_t n;        /* iterations given to the sink */
	char flag;       /* pexec_flags: 'C', 'E', 'T' or 0 */
	unsigned char tsec; /* the section that gave its times (not []), 0 until one has: times twice are refused */
	unsigned char csec; /* the count section whose per-core lengths cn is (0: none yet) */
	long ccore;      /* ... and its core */
	size_t cn;       /* the length of its per-core lists (not []): its iterations, checked at the end */
	signed char st;  /* kiln_status: a ds_status, or -1 */
};

struct kkey {
	char *bench, *vm, *variant;
	long sk;         /* the sink's key index, -1 until made */
	struct kpx *px;
	size_t npx;
	unsigned seen;   /* sections that named this key (a key twice in one is refused) */
	long listed[NLISTED]; /* pexecs in each per-pexec list of listed_sec, plus 1 (0: no list) */
	long upto[NUPTO];     /* the same for upto_sec */
};

struct krun {
	const char *name;
	const struct imp_sink *sink;
	struct kerr *e;
	int failed;      /* e is set: the parse was cancelled by us */
	struct strmap keymap;
	struct kkey *keys;
	size_t nkeys;
	unsigned seen;   /* top-level fields met */
	int depth;       /* containers open */
	enum sec sec;    /* the top-level field being read */
	char *field;     /* its name, for S_OTHER */
	long key;        /* index in keys of the key being read (depth 2) */
	long pi;         /* pexec index within it */
	long core;       /* core index (count sections) */
	int skip;        /* > 0: inside a value that is skipped, this many containers deep */
	char *sname;     /* instr_data: the series being read */
	struct strmap snames; /* "key:pexec:name" of every series given: a name twice in a pexec is refused */
	const char *instr_path; /* the instrumentation file being read, for errors */
	double *v;       /* the values of the list being read */
	size_t nv, av;
	/* a value kept whole (audit, config, kiln_status, other fields) */
	json_t *tree[MAX_DEPTH + 1];
	char *tkey[MAX_DEPTH + 1];
	int tdepth;
	json_t *extra;
	size_t kept;
	char *machine;
	/* where the parser is, for errors: line and column, and the complaint of fail() */
	long line, col;
	char *why;
};

static int fail(struct krun *r, const char *fmt, ...) KILN_PRINTF(2, 3);
static int fail(struct krun *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	struct strbuf m = STRBUF_INIT;
	sb_vaddf(&m, fmt, ap);
	va_end(ap);
	kerr_setc(r->e, KEXIT_CONFIG, "%s: %s", r->name, m.buf);
	free(r->why);
	r->why = sb_detach(&m);
	r->failed = 1;
	return 0; /* stops yajl */
}

/* ---- numbers ---- */

static const double pow10_exact[23] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
					1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22 };

/*
 * A JSON number's text to a double, correctly rounded: the common case
 * (at most 15 significant digits, a small exponent) exactly as one
 * multiplication or division of two exactly representable values, which
 * IEEE arithmetic rounds correctly (Clinger's fast path); anything else by
 * strtod.
 */
static double num_value(const char *s, size_t len)
{
	const char *p = s, *end = s + len;
	int neg = 0;
	if (p < end && *p == '-') {
		neg = 1;
		p++;
	}
	uint64_t m = 0;
	int digits = 0, exp10 = 0;
	while (p < end && *p >= '0' && *p <= '9') {
		if (m || *p != '0')
			digits++;
		m = m * 10 + (uint64_t)(*p++ - '0');
		if (digits > 15)
			goto slow;
	}
	if (p < end && *p == '.') {
		p++;
		while (p < end && *p >= '0' && *p <= '9') {
			if (m || *p != '0')
				digits++;
			m = m * 10 + (uint64_t)(*p++ - '0');
			exp10--;
			if (digits > 15)
				goto slow;
		}
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		p++;
		int eneg = 0, ev = 0;
		if (p < end && (*p == '+' || *p == '-'))
			eneg = *p++ == '-';
		while (p < end && *p >= '0' && *p <= '9') {
			ev = ev * 10 + (*p++ - '0');
			if (ev > 400)
				goto slow;
		}
		exp10 += eneg ? -ev : ev;
	}
	if (p != end || exp10 < -22 || exp10 > 22)
		goto slow;
	double d = (double)m;
	d = exp10 < 0 ? d / pow10_exact[-exp10] : d * pow10_exact[exp10];
	return neg ? -d : d;
slow:;
	char buf[512];
	char *t = len < sizeof(buf) ? buf : xmalloc(len + 1);
	memcpy(t, s, len);
	t[len] = '\0';
	double x = strtod(t, NULL);
	if (t != buf)
		free(t);
	return x;
}

/* ---- keys and pexecs ---- */

static struct kkey *cur(struct krun *r)
{
	return &r->keys[r->key];
}

/*
 * The key named k (len bytes) in section sec: found or added; -1 (stop)
 * when it cannot be.  Found by the bench:vm:variant it becomes, not its
 * text: "b" and "b:unknown:default" are one key, and one twice in a
 * section is refused here naming it (the store would refuse the second
 * with an error naming no key).
 */
static int key_enter(struct krun *r, const unsigned char *k, size_t len)
{
	if (memchr(k, '\0', len))
		return fail(r, "%s: a key with a NUL byte", sec_field[r->sec]);
	if (len > MAX_NAME)
		return fail(r, "%s: a key longer than %d bytes", sec_field[r->sec], MAX_NAME);
	char *s = xstrndup((const char *)k, len);
	char *b, *v, *var;
	if (ds_split_key(s, &b, &v, &var) < 0) {
		fail(r, "%s: key '%s': not of the form bench:vm:variant", sec_field[r->sec], esc(ESC_TERM, s));
		free(s);
		return 0;
	}
	char *full = xasprintf("%s:%s:%s", b, v, var);
	long i = strmap_find(&r->keymap, full);
	if (i < 0) {
		if ((long)r->nkeys >= MAX_KEYS) {
			fail(r, "%s: more than %ld keys", sec_field[r->sec], MAX_KEYS);
			free(b);
			free(v);
			free(var);
		} else {
			i = (long)strmap_add(&r->keymap, full);
			if (!(r->nkeys & (r->nkeys - 1)))
				r->keys = xrealloc(r->keys, (r->nkeys ? 2 * r->nkeys : 1) * sizeof(*r->keys));
			r->keys[r->nkeys++] = (struct kkey){ .bench = b, .vm = v, .variant = var, .sk = -1 };
		}
	} else {
		free(b);
		free(v);
		free(var);
	}
	if (i < 0) {
		free(full);
		free(s);
		return 0;
	}
	r->key = i;
	struct kkey *kk = cur(r);
	if (kk->seen & (1u << r->sec)) {
		if (strcmp(s, full))
			fail(r, "%s: key '%s' is there twice (as '%s')", sec_field[r->sec], esc(ESC_TERM, s),
			     esc(ESC_TERM, full));
		else
			fail(r, "%s: key '%s' is there twice", sec_field[r->sec], esc(ESC_TERM, s));
		free(full);
		free(s);
		return 0;
	}
	free(full);
	free(s);
	kk->seen |= 1u << r->sec;
	r->pi = -1;
	return 1;
}

/* the key made in the sink when it first has something */
static int sink_key(struct krun *r, struct kkey *k)
{
	if (k->sk >= 0)
		return 1;
	k->sk = r->sink->key(r->sink->ctx, k->bench, k->vm, k->variant, r->e);
	if (k->sk < 0)
		r->failed = 1;
	return k->sk >= 0;
}

/* pexec pi of the current key as the reader keeps it (made when new) */
static struct kpx *kpx_at(struct krun *r, long pi)
{
	struct kkey *k = cur(r);
	if (pi >= MAX_PEXECS) {
		fail(r, "%s: key '%s': more than %ld pexecs", sec_field[r->sec], esc(ESC_TERM, k->bench), MAX_PEXECS);
		return NULL;
	}
	while ((size_t)pi >= k->npx) {
		if (!(k->npx & (k->npx - 1)))
			k->px = xrealloc(k->px, (k->npx ? 2 * k->npx : 1) * sizeof(*k->px));
		k->px[k->npx++] = (struct kpx){ .h = -1, .dur = NAN, .st = -1 };
	}
	return &k->px[pi];
}

/* the same, made in the sink too: what is read of it goes there */
static struct kpx *sink_pexec(struct krun *r, long pi)
{
	struct kpx *x = kpx_at(r, pi);
	if (!x || !sink_key(r, cur(r)))
		return NULL;
	if (x->h < 0) {
		x->h = r->sink->pexec(r->sink->ctx, cur(r)->sk, pi, r->e);
		if (x->h < 0) {
			r->failed = 1;
			return NULL;
		}
	}
	return x;
}

static const char *key_name(struct krun *r)
{
	if (r->key < 0 || (size_t)r->key >= r->nkeys)
		return "?";
	struct kkey *k = cur(r);
	static char buf[3][512];
	static int b;
	b = (b + 1) % 3;
	snprintf(buf[b], sizeof(buf[b]), "%s:%s:%s", k->bench, k->vm, k->variant);
	return esc(ESC_TERM, buf[b]);
}

/* ---- the values of one list ---- */

static int push(struct krun *r, double x)
{
	if (r->nv == r->av) {
		if ((long)r->nv >= MAX_ITERS)
			return fail(r, "%s: key '%s': pexec %ld: more than %ld values", sec_field[r->sec], key_name(r),
				    r->pi, MAX_ITERS);
		r->av = r->av ? 2 * r->av : 1024;
		r->v = xrealloc(r->v, r->av * sizeof(double));
	}
	r->v[r->nv++] = x;
	return 1;
}

/* a list of times has ended: to the sink */
static int times_done(struct krun *r)
{
	struct kpx *x = kpx_at(r, r->pi);
	if (!x)
		return 0;
	/* kiln's export gives a pexec that did not complete its times apart; Krun's [] does not replace them */
	if ((r->sec == S_TIMES && !r->nv && x->h >= 0 && x->n) || (r->sec == S_PARTIAL && !r->nv))
		return 1;
	/* a pexec's times in two places (wallclock_times and kiln_partial_times): the second would replace the first */
	if (r->nv && x->tsec)
		return fail(r, "%s: key '%s': pexec %ld: times already given in %s", sec_field[r->sec], key_name(r), r->pi,
			    sec_field[x->tsec]);
	if (!(x = sink_pexec(r, r->pi)))
		return 0;
	if (r->sink->times(r->sink->ctx, x->h, r->v, r->nv, r->e) < 0) {
		r->failed = 1;
		return 0;
	}
	x->n = r->nv;
	if (r->nv)
		x->tsec = (unsigned char)r->sec;
	return 1;
}

/* a series of the current pexec to the sink: a name it already has (instr_data's "cycles.core0" too) is refused */
static int series_done(struct krun *r, const char *name)
{
	struct kpx *x = sink_pexec(r, r->pi);
	if (!x)
		return 0;
	char *kn = xasprintf("%ld:%ld:%s", r->key, r->pi, name);
	int twice = strmap_find(&r->snames, kn) >= 0;
	if (!twice)
		strmap_add(&r->snames, kn);
	free(kn);
	if (twice)
		return fail(r, "%s: key '%s': pexec %ld: series '%s' is there twice",
			    r->instr_path ? esc(ESC_TERM, r->instr_path) : sec_field[r->sec], key_name(r), r->pi,
			    esc(ESC_TERM, name));
	if (r->sink->series(r->sink->ctx, x->h, name, "", r->v, r->nv, r->e) < 0) {
		r->failed = 1;
		return 0;
	}
	return 1;
}

/* ---- values kept whole ---- */

/* count what is kept against its bound */
static int kept(struct krun *r, size_t bytes)
{
	r->kept += bytes + 16;
	if (r->kept > MAX_KEPT)
		return fail(r, "%s: more than %zu MiB of audit, config and other fields", esc(ESC_TERM, r->field),
			    MAX_KEPT >> 20);
	return 1;
}

/* v (owned) into the container being built */
static void attach(struct krun *r, json_t *v)
{
	json_t *parent = r->tree[r->tdepth - 1];
	if (json_is_array(parent)) {
		json_array_append_new(parent, v);
	} else {
		json_object_set_new_nocheck(parent, r->tkey[r->tdepth - 1] ? r->tkey[r->tdepth - 1] : "", v);
		free(r->tkey[r->tdepth - 1]);
		r->tkey[r->tdepth - 1] = NULL;
	}
}

static int tree_done(struct krun *r);

/* a container starts: the root of the kept value, or inside it */
static int tree_open(struct krun *r, json_t *v)
{
	if (r->tdepth >= MAX_DEPTH) {
		json_decref(v);
		return fail(r, "%s: nested more than %d deep", esc(ESC_TERM, r->field), MAX_DEPTH);
	}
	if (!kept(r, 0)) {
		json_decref(v);
		return 0;
	}
	if (r->tdepth)
		attach(r, json_incref(v)); /* the parent's reference; the stack keeps its own */
	r->tree[r->tdepth++] = v;
	return 1;
}

static int tree_close(struct krun *r)
{
	json_t *v = r->tree[--r->tdepth];
	if (r->tdepth) {
		json_decref(v);
		return 1;
	}
	r->tree[0] = v;
	return tree_done(r);
}

static int tree_scalar(struct krun *r, json_t *v, size_t bytes)
{
	if (!v)
		return fail(r, "%s: a string that is not valid UTF-8", esc(ESC_TERM, r->field));
	if (!kept(r, bytes)) {
		json_decref(v);
		return 0;
	}
	if (r->tdepth) {
		attach(r, v);
		return 1;
	}
	r->tree[0] = v;
	return tree_done(r);
}

/* kiln_status: {key: [status name per pexec]} */
static int take_status(struct krun *r, json_t *o)
{
	const char *k;
	json_t *l;
	json_object_foreach(o, k, l) {
		if (!key_enter(r, (const unsigned char *)k, strlen(k)))
			return 0;
		size_t i;
		json_t *s;
		json_array_foreach(l, i, s) {
			static const char *const names[] = { [DS_OK] = "ok", [DS_FAILED] = "failed",
							     [DS_TIMEOUT] = "timeout", [DS_PENDING] = "pending",
							     [DS_TAINTED] = "tainted" };
			int st = -1;
			for (int j = 0; j < (int)ARRAY_SIZE(names); j++)
				if (json_is_string(s) && !strcmp(json_string_value(s), names[j]))
					st = j;
			if (st < 0 || st == DS_PENDING)
				return fail(r, "kiln_status: key '%s': pexec %zu: not a status", key_name(r), i);
			struct kpx *x = kpx_at(r, (long)i);
			if (!x)
				return 0;
			x->st = (signed char)st;
		}
	}
	return 1;
}

/* the machine: uname's second word as Krun writes it ("Linux bencher9 4.9.0 ..."), or kiln's nodename */
static void take_machine(struct krun *r, json_t *audit)
{
	json_t *u = json_object_get(audit, "uname");
	const char *m = NULL;
	size_t len = 0;
	if (json_is_string(u)) {
		const char *sp = strchr(json_string_value(u), ' ');
		if (sp) {
			m = sp + 1;
			len = strcspn(m, " ");
		}
	} else if (json_is_string(json_object_get(u, "nodename"))) {
		m = json_string_value(json_object_get(u, "nodename"));
		len = strlen(m);
	}
	if (m && len) {
		free(r->machine);
		r->machine = xstrndup(m, len);
	}
}

static int tree_done(struct krun *r)
{
	json_t *v = r->tree[0];
	r->tree[0] = NULL;
	int ok = 1;
	switch (r->sec) {
	case S_AUDIT:
		if (json_is_object(v)) {
			char *t = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS);
			take_machine(r, v);
			ok = !t || r->sink->meta(r->sink->ctx, "audit", t, r->e) == 0;
			free(t);
		}
		break;
	case S_CONFIG:
		if (json_is_string(v))
			ok = r->sink->meta(r->sink->ctx, "config", json_string_value(v), r->e) == 0;
		else if (!json_is_null(v))
			ok = fail(r, "config: not a string");
		break;
	case S_STATUS:
		ok = json_is_object(v) ? take_status(r, v) : fail(r, "kiln_status: not an object");
		break;
	default:
		json_object_set_new(r->extra, r->field, v);
		v = NULL;
		break;
	}
	json_decref(v);
	if (!ok)
		r->failed = 1;
	r->sec = S_NONE;
	return ok;
}

static int keeping(const struct krun *r)
{
	return r->sec == S_AUDIT || r->sec == S_CONFIG || r->sec == S_STATUS || r->sec == S_OTHER;
}

/* ---- the events ---- */

static int is_counts(enum sec s)
{
	return s == S_CYCLES || s == S_APERF || s == S_MPERF;
}

/* a value that is not what the field holds at this depth */
static int wrong(struct krun *r, const char *what)
{
	const char *f = sec_field[r->sec];
	switch (r->depth) {
	case 0:
		return fail(r, "not a Krun results file (the top level is not an object)");
	case 1:
		return fail(r, "%s: not an object", f);
	case 2:
		return fail(r, "%s: key '%s': not a list of pexecs", f, key_name(r));
	case 3:
		if (r->sec == S_TIMES || r->sec == S_PARTIAL)
			return fail(r, "%s: key '%s': pexec %ld: not a list of times", f, key_name(r), r->pi + 1);
		if (r->sec == S_FLAGS)
			return fail(r, "%s: key '%s': pexec %ld: not a string", f, key_name(r), r->pi + 1);
		return fail(r, "%s: key '%s': pexec %ld: %s", f, key_name(r), r->pi + 1, what);
	case 4:
		if (is_counts(r->sec))
			return fail(r, "%s: key '%s': pexec %ld: core %ld: not an array", f, key_name(r), r->pi,
				    r->core + 1);
		return fail(r, "%s: key '%s': pexec %ld: iteration %zu: not a number", f, key_name(r), r->pi, r->nv);
	default:
		return fail(r, "%s: key '%s': pexec %ld: core %ld: a value is not a number", f, key_name(r), r->pi,
			    r->core);
	}
}

/* where a list of numbers is read: the value at this depth in this section is one */
static int numbers_here(const struct krun *r)
{
	switch (r->sec) {
	case S_TIMES: case S_PARTIAL: return r->depth == 4;
	case S_CYCLES: case S_APERF: case S_MPERF: case S_INSTR: return r->depth == 5;
	case S_ETA: return r->depth == 3;
	default: return 0;
	}
}

/*
 * A scalar where a container was expected that is not an error: ETA
 * estimates of other shapes (not durations), and the shapes of counts and
 * instrumentation that Krun's VM-specific writers use (not ours), as
 * Krun's own tools skip them.  1: skipped (the pexec index moves on where
 * the scalar stood for a pexec).
 */
static int lenient(struct krun *r)
{
	int soft = (r->sec == S_ETA && r->depth <= 3) || ((is_counts(r->sec) || r->sec == S_INSTR) &&
							     (r->depth == 2 || r->depth == 3 || (r->sec == S_INSTR && r->depth == 4)));
	if (soft && r->depth == 3)
		r->pi++;
	return soft;
}

static int on_number(void *ctx, const char *s, size_t len)
{
	struct krun *r = ctx;
	if (r->skip)
		return 1;
	if (keeping(r)) {
		json_t *v;
		if (memchr(s, '.', len) || memchr(s, 'e', len) || memchr(s, 'E', len))
			v = json_real(num_value(s, len));
		else {
			char buf[32];
			long long x = len < sizeof(buf) ? (memcpy(buf, s, len), buf[len] = 0, strtoll(buf, NULL, 10)) : 0;
			v = json_integer(x);
		}
		return tree_scalar(r, v, len);
	}
	if (!numbers_here(r)) {
		if (r->depth == 1)
			return fail(r, "%s: not an object", sec_field[r->sec]);
		return lenient(r) ? 1 : wrong(r, "a number");
	}
	double x = num_value(s, len);
	if (r->sec == S_ETA) {
		/* a duration that cannot be one is the file's error, not a pexec without an ETA */
		if (!isfinite(x) || x < 0)
			return fail(r, "eta_estimates: key '%s': pexec %ld: %g is not a duration in seconds", key_name(r),
				    r->pi + 1, x);
		struct kpx *p = kpx_at(r, ++r->pi);
		if (p)
			p->dur = x;
		return p != NULL;
	}
	if ((r->sec == S_TIMES || r->sec == S_PARTIAL) && ds_time_subns(x))
		return fail(r, "%s: key '%s': pexec %ld: iteration %zu: %g " DS_TIME_SUBNS_WHY, sec_field[r->sec],
			    key_name(r), r->pi, r->nv, x);
	if ((r->sec == S_TIMES || r->sec == S_PARTIAL) && !ds_time_ok(x))
		return fail(r, "%s: key '%s': pexec %ld: iteration %zu: %g is not a time", sec_field[r->sec], key_name(r),
			    r->pi, r->nv, x);
	return push(r, x);
}

static int on_null(void *ctx)
{
	struct krun *r = ctx;
	if (r->skip)
		return 1;
	if (keeping(r))
		return tree_scalar(r, json_null(), 4);
	if (r->depth == 1)
		return r->sec == S_TIMES ? fail(r, "%s: not an object", sec_field[r->sec]) : 1;
	if ((is_counts(r->sec) || r->sec == S_INSTR) && r->depth == 5)
		return push(r, NAN);
	if (is_counts(r->sec) && r->depth == 4) {
		r->core++; /* a core without counts */
		return 1;
	}
	if (r->sec == S_FLAGS && r->depth == 3) {
		r->pi++;
		return 1;
	}
	return lenient(r) ? 1 : wrong(r, "null");
}

static int on_bool(void *ctx, int b)
{
	struct krun *r = ctx;
	if (r->skip)
		return 1;
	if (keeping(r))
		return tree_scalar(r, json_boolean(b), 5);
	if (r->depth == 1)
		return fail(r, "%s: not an object", sec_field[r->sec]);
	return lenient(r) ? 1 : wrong(r, "a boolean");
}

static int on_string(void *ctx, const unsigned char *s, size_t len)
{
	struct krun *r = ctx;
	if (r->skip)
		return 1;
	if (keeping(r))
		return tree_scalar(r, json_stringn_nocheck((const char *)s, len), len);
	if (r->sec == S_FLAGS && r->depth == 3) {
		struct kpx *x = sink_pexec(r, ++r->pi);
		if (!x)
			return 0;
		if (len == 1 && (s[0] == 'C' || s[0] == 'E' || s[0] == 'T')) {
			x->flag = (char)s[0];
			return 1;
		}
		char *f = xstrndup((const char *)s, len);
		fail(r, "pexec_flags: key '%s': pexec %ld: unknown flag '%s'", key_name(r), r->pi, esc(ESC_TERM, f));
		free(f);
		return 0;
	}
	if (r->depth == 1)
		return fail(r, "%s: not an object", sec_field[r->sec]);
	return lenient(r) ? 1 : wrong(r, "a string");
}

static enum sec sec_of(const char *k)
{
	if (!strcmp(k, "data"))
		return S_TIMES; /* Krun before October 2016 */
	for (int i = 1; i < NSEC; i++)
		if (sec_field[i] && !strcmp(k, sec_field[i]))
			return (enum sec)i;
	return S_OTHER;
}

static int on_map_key(void *ctx, const unsigned char *k, size_t len)
{
	struct krun *r = ctx;
	if (r->skip)
		return 1;
	if (keeping(r) && r->tdepth) {
		if (len > MAX_NAME)
			return fail(r, "%s: a name longer than %d bytes", esc(ESC_TERM, r->field), MAX_NAME);
		free(r->tkey[r->tdepth - 1]);
		r->tkey[r->tdepth - 1] = xstrndup((const char *)k, len);
		if (json_object_get(r->tree[r->tdepth - 1], r->tkey[r->tdepth - 1]))
			return fail(r, "%s: '%s' is there twice", esc(ESC_TERM, r->field),
				    esc(ESC_TERM, r->tkey[r->tdepth - 1]));
		return 1;
	}
	if (r->depth == 1) {
		free(r->field);
		r->field = xstrndup((const char *)k, len);
		if (memchr(k, '\0', len) || len > MAX_NAME)
			return fail(r, "(document): a field name with a NUL byte or too long");
		r->sec = sec_of(r->field);
		unsigned bit = r->sec == S_OTHER ? 0 : 1u << r->sec;
		if ((r->seen & bit) || (r->sec == S_OTHER && json_object_get(r->extra, r->field)))
			return fail(r, "%s: the field is there twice%s", esc(ESC_TERM, r->field),
				    r->sec == S_TIMES ? " (or both data and wallclock_times)" : "");
		r->seen |= bit;
		return 1;
	}
	if (r->depth == 2)
		return key_enter(r, k, len);
	if (r->sec == S_INSTR && r->depth == 4) {
		if (len > MAX_NAME || memchr(k, '\0', len))
			return fail(r, "instr_data: key '%s': pexec %ld: a series name with a NUL byte or too long",
				    key_name(r), r->pi);
		free(r->sname);
		r->sname = xstrndup((const char *)k, len);
		return 1;
	}
	return 1;
}

static int on_start_map(void *ctx)
{
	struct krun *r = ctx;
	if (r->skip) {
		r->skip++;
		return 1;
	}
	if (r->depth == 0) {
		r->depth = 1;
		return 1;
	}
	if (keeping(r)) {
		r->depth++;
		return tree_open(r, json_object());
	}
	if (r->depth == 1 || (r->sec == S_INSTR && r->depth == 3)) {
		if (r->depth == 3)
			r->pi++;
		r->depth++;
		return 1;
	}
	if (r->sec == S_ETA) {
		/* Krun's ETA estimates of another shape: not durations */
		if (r->depth == 3)
			r->pi++;
		r->skip = 1;
		return 1;
	}
	if (r->sec == S_INSTR && r->depth == 4) {
		r->skip = 1; /* a VM-specific shape other than name -> list: not ours */
		return 1;
	}
	return wrong(r, "an object");
}

/* the end of a container, what maps and arrays share: yajl's answer, or -1 when the caller goes on */
static int container_end(struct krun *r)
{
	if (r->skip) {
		r->skip--;
		return 1;
	}
	r->depth--;
	if (keeping(r) && r->tdepth)
		return tree_close(r);
	return -1;
}

static int on_end_map(void *ctx)
{
	struct krun *r = ctx;
	int x = container_end(r);
	if (x >= 0)
		return x;
	if (r->depth == 1)
		r->sec = S_NONE;
	return 1;
}

static int on_start_array(void *ctx)
{
	struct krun *r = ctx;
	if (r->skip) {
		r->skip++;
		return 1;
	}
	if (r->depth == 0)
		return fail(r, "not a Krun results file (the top level is not an object)");
	if (keeping(r)) {
		r->depth++;
		return tree_open(r, json_array());
	}
	if (r->depth == 1) {
		if (r->sec == S_ETA) {
			r->skip = 1; /* warmup_stats' csv_to_krun_json writes a list */
			return 1;
		}
		return fail(r, "%s: not an object", sec_field[r->sec]);
	}
	if (r->depth == 2) {
		r->depth++;
		return 1;
	}
	int ok = 1;
	if (r->depth == 3) {
		switch (r->sec) {
		case S_TIMES: case S_PARTIAL:
			r->pi++;
			r->nv = 0;
			break;
		case S_CYCLES: case S_APERF: case S_MPERF:
			r->pi++;
			r->core = -1;
			break;
		case S_ETA:
			r->pi++;
			r->skip = 1;
			return 1;
		case S_FLAGS:
			return fail(r, "pexec_flags: key '%s': pexec %ld: not a string", key_name(r), r->pi + 1);
		default:
			r->pi++;
			r->skip = 1;
			return 1;
		}
	} else if (r->depth == 4 && is_counts(r->sec)) {
		r->core++;
		r->nv = 0;
	} else if (r->depth == 4 && r->sec == S_INSTR) {
		r->nv = 0;
	} else {
		ok = wrong(r, "a list");
	}
	r->depth++;
	return ok;
}

/* a key's list of pexecs has ended: how many, for the check against wallclock_times at the end */
static void key_listed(struct krun *r)
{
	for (size_t i = 0; i < NLISTED; i++)
		if (listed_sec[i] == r->sec && r->key >= 0 && (size_t)r->key < r->nkeys)
			cur(r)->listed[i] = r->pi + 2;
	for (size_t i = 0; i < NUPTO; i++)
		if (upto_sec[i] == r->sec && r->key >= 0 && (size_t)r->key < r->nkeys)
			cur(r)->upto[i] = r->pi + 2;
}

/*
 * A core's list of counts has one value per iteration of the pexec, or
 * none: another length is not the pexec's (Krun writes [] for a pexec that
 * failed).  Checked against the times when they came first, against the
 * other cores' lists, and at the end (check_cores) for times that come later.
 */
static int core_length(struct krun *r)
{
	struct kpx *x = kpx_at(r, r->pi);
	if (!x || !r->nv)
		return x != NULL;
	size_t want = x->tsec ? x->n : x->cn;
	if ((x->tsec || x->cn) && r->nv != want)
		return fail(r, "%s: key '%s': pexec %ld: core %ld: %zu values, but %zu iterations in %s", sec_field[r->sec],
			    key_name(r), r->pi, r->core, r->nv, want,
			    x->tsec ? sec_field[x->tsec] : "its other cores");
	x->cn = r->nv;
	x->csec = (unsigned char)r->sec;
	x->ccore = r->core;
	return 1;
}

static int on_end_array(void *ctx)
{
	struct krun *r = ctx;
	int x = container_end(r);
	if (x >= 0)
		return x;
	if (r->depth == 2)
		key_listed(r);
	if (r->depth == 3 && (r->sec == S_TIMES || r->sec == S_PARTIAL))
		return times_done(r);
	if (r->depth == 4 && is_counts(r->sec)) {
		if (!core_length(r))
			return 0;
		char name[64];
		snprintf(name, sizeof(name), "%s.core%ld", core_series[r->sec], r->core);
		return series_done(r, name);
	}
	if (r->depth == 4 && r->sec == S_INSTR)
		return series_done(r, r->sname ? r->sname : "?");
	return 1;
}

static const yajl_callbacks callbacks = {
	.yajl_null = on_null,
	.yajl_boolean = on_bool,
	.yajl_number = on_number,
	.yajl_string = on_string,
	.yajl_start_map = on_start_map,
	.yajl_map_key = on_map_key,
	.yajl_end_map = on_end_map,
	.yajl_start_array = on_start_array,
	.yajl_end_array = on_end_array,
};

/* ---- the end ---- */

static enum ds_status status_of(const struct kpx *x)
{
	if (x->st >= 0)
		return (enum ds_status)x->st;
	switch (x->flag) {
	case 'E': return DS_FAILED;
	case 'T': return DS_TIMEOUT;
	case 'C': return DS_OK;
	default: return x->n ? DS_OK : DS_FAILED; /* no flags and no data: it did not complete */
	}
}

/* every per-pexec list of a key as long as its wallclock_times (a list not there is not checked) */
static int check_lengths(struct krun *r, const struct kkey *k)
{
	for (size_t i = 1; i < NLISTED; i++) {
		if (!k->listed[i] || k->listed[i] == k->listed[0])
			continue;
		char *key = xasprintf("%s:%s:%s", k->bench, k->vm, k->variant);
		kerr_setc(r->e, KEXIT_CONFIG, "%s: %s: key '%s': %ld pexecs, but %ld in wallclock_times", r->name,
			  sec_field[listed_sec[i]], esc(ESC_TERM, key), k->listed[i] - 1,
			  k->listed[0] ? k->listed[0] - 1 : 0);
		free(key);
		return -1;
	}
	return 0;
}

/*
 * Nothing of a key or pexec that wallclock_times lacks: an ETA or
 * instr_data list longer than the key's pexecs, a key only in other
 * fields, and per-core counts of another length than the pexec's times
 * (the order of the fields is free, so this is known only at the end).
 */
static int check_known(struct krun *r, const struct kkey *k)
{
	char *key = xasprintf("%s:%s:%s", k->bench, k->vm, k->variant);
	long have = k->listed[0] ? k->listed[0] - 1 : 0;
	int rc = 0;
	for (size_t i = 0; i < NUPTO && !rc; i++)
		if (k->upto[i] - 1 > have)
			rc = kerr_setc(r->e, KEXIT_CONFIG, "%s: %s: key '%s': %ld pexecs, but %ld in wallclock_times", r->name,
				       sec_field[upto_sec[i]], esc(ESC_TERM, key), k->upto[i] - 1, have);
	if (!rc && !(k->seen & (1u << S_TIMES))) {
		int s = 1;
		while (s < NSEC - 1 && !(k->seen & (1u << s)))
			s++;
		rc = kerr_setc(r->e, KEXIT_CONFIG, "%s: %s: key '%s' is not in wallclock_times", r->name, sec_field[s],
			       esc(ESC_TERM, key));
	}
	for (size_t p = 0; p < k->npx && !rc; p++)
		if (k->px[p].cn && k->px[p].cn != k->px[p].n)
			rc = kerr_setc(r->e, KEXIT_CONFIG, "%s: %s: key '%s': pexec %zu: core %ld: %zu values, but %zu iterations "
				       "in wallclock_times", r->name, sec_field[k->px[p].csec], esc(ESC_TERM, key), p,
				       k->px[p].ccore, k->px[p].cn, k->px[p].n);
	free(key);
	return rc;
}

static int finish(struct krun *r)
{
	for (size_t i = 0; i < r->nkeys; i++) {
		struct kkey *k = &r->keys[i];
		if (check_lengths(r, k) < 0 || check_known(r, k) < 0)
			return -1;
		/* a key of wallclock_times is one of the experiment's even before its first pexec */
		if ((k->seen & (1u << S_TIMES)) && k->sk < 0) {
			r->key = (long)i;
			if (!sink_key(r, k))
				return -1;
		}
		for (size_t p = 0; p < k->npx; p++)
			if (k->px[p].h >= 0 &&
			    r->sink->finish(r->sink->ctx, k->px[p].h, status_of(&k->px[p]), k->px[p].dur, r->e) < 0)
				return -1;
	}
	if (r->machine && r->sink->meta(r->sink->ctx, "machine", r->machine, r->e) < 0)
		return -1;
	if (json_object_size(r->extra)) {
		char *t = json_dumps(r->extra, JSON_COMPACT | JSON_SORT_KEYS);
		int x = t ? r->sink->meta(r->sink->ctx, "extra", t, r->e) : 0;
		free(t);
		if (x < 0)
			return -1;
	}
	return 0;
}

/* ---- Krun's instrumentation folder: one bzip2 JSON file per pexec ---- */

/* the file name's part for a key, as Krun makes it (':' -> "__") */
static char *instr_prefix(const char *bench, const char *vm, const char *variant)
{
	return xasprintf("%s__%s__%s", bench, vm, variant);
}

/* one pexec's file: {name: [value per iteration]} series, other shapes (Krun's raw VM events) skipped */
static int instr_one(struct krun *r, const char *path, long key, long pi)
{
	struct imp_input *in;
	struct strbuf sb = STRBUF_INIT;
	if (imp_input_file(path, &in, r->e) < 0)
		return -1;
	int rc = imp_input_slurp(in, &sb, r->e);
	imp_input_close(in);
	json_error_t je;
	json_t *o = rc == 0 ? json_loadb(sb_str(&sb), sb.len, JSON_REJECT_DUPLICATES, &je) : NULL;
	sb_release(&sb);
	if (rc < 0)
		return -1;
	if (!o)
		return kerr_setc(r->e, KEXIT_CONFIG, "%s:%d:%d: not valid JSON: %s", path, je.line, je.column,
				 esc(ESC_TERM, je.text));
	r->key = key;
	r->pi = pi;
	r->instr_path = path;
	struct kpx *x = json_is_object(o) ? sink_pexec(r, pi) : NULL;
	const char *name;
	json_t *l;
	json_object_foreach(o, name, l) {
		if (!x || !json_is_array(l))
			continue;
		r->nv = 0;
		size_t i;
		json_t *v;
		int ok = 1;
		json_array_foreach(l, i, v) {
			if (!json_is_number(v) && !json_is_null(v)) {
				ok = 0; /* not a series of values */
				break;
			}
			if (!push(r, json_is_null(v) ? NAN : json_number_value(v)))
				break;
		}
		if (r->failed || (ok && !series_done(r, name)))
			break;
	}
	json_decref(o);
	r->instr_path = NULL;
	return r->failed ? -1 : 0;
}

/* every file of the folder that names a pexec of a key read: its series to that pexec */
static int instr_dir(struct krun *r, const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return 0; /* no folder: no instrumentation */
	struct strmap pre = STRMAP_INIT;
	for (size_t i = 0; i < r->nkeys; i++) {
		char *p = instr_prefix(r->keys[i].bench, r->keys[i].vm, r->keys[i].variant);
		strmap_add(&pre, p);
		free(p);
	}
	struct dirent *de;
	int rc = 0;
	while (rc == 0 && (de = readdir(d))) {
		const char *n = de->d_name, *suf = ".json.bz2";
		size_t len = strlen(n);
		if (len <= strlen(suf) || !str_ends_with(n, suf))
			continue;
		char *base = xstrndup(n, len - strlen(suf));
		char *us = strrchr(base, '_');
		long pi, key = -1;
		if (us && us > base + 1 && us[-1] == '_' && !parse_long(us + 1, &pi) && pi >= 0) {
			us[-1] = '\0';
			key = strmap_find(&pre, base);
		}
		free(base);
		if (key < 0)
			continue; /* not a pexec of this file's keys */
		char *path = path_join(dir, n);
		const struct kkey *k = &r->keys[key];
		/* a file for a pexec wallclock_times does not have would make one up */
		if (!(k->seen & (1u << S_TIMES)) || pi >= k->listed[0] - 1) {
			rc = kerr_setc(r->e, KEXIT_CONFIG, "%s: %s: key '%s:%s:%s' has no pexec %ld in wallclock_times", r->name,
				       esc(ESC_TERM, path), esc(ESC_TERM, k->bench), esc(ESC_TERM, k->vm),
				       esc(ESC_TERM, k->variant), pi);
			free(path);
			break;
		}
		struct stat st;
		/* a file of the folder itself: never through a link */
		if (lstat(path, &st) == 0 && S_ISREG(st.st_mode))
			rc = instr_one(r, path, key, pi);
		free(path);
	}
	closedir(d);
	strmap_clear(&pre);
	return rc;
}

static void krun_free(struct krun *r)
{
	for (size_t i = 0; i < r->nkeys; i++) {
		free(r->keys[i].bench);
		free(r->keys[i].vm);
		free(r->keys[i].variant);
		free(r->keys[i].px);
	}
	free(r->keys);
	strmap_clear(&r->keymap);
	strmap_clear(&r->snames);
	for (int i = 0; i <= MAX_DEPTH; i++)
		free(r->tkey[i]);
	/* a value cut short: the containers still open each hold a reference of the stack's */
	for (int i = 1; i < r->tdepth; i++)
		json_decref(r->tree[i]);
	json_decref(r->tree[0]);
	json_decref(r->extra);
	free(r->v);
	free(r->sname);
	free(r->field);
	free(r->machine);
	free(r->why);
}

/* line and column of byte `upto` of chunk c, counting from where the lines so far left off */
static void advance(struct krun *r, const char *c, size_t upto)
{
	const char *p = c, *end = c + upto, *nl;
	while ((nl = memchr(p, '\n', (size_t)(end - p)))) {
		r->line++;
		r->col = 1;
		p = nl + 1;
	}
	r->col += end - p;
}

/*
 * yajl's own complaint about the JSON at its line and column, or ours
 * (fail() in a callback, which stopped yajl) at the line of the value
 */
static int json_error(struct krun *r, yajl_handle h, const char *chunk, size_t len)
{
	size_t at = chunk ? yajl_get_bytes_consumed(h) : 0;
	if (chunk)
		advance(r, chunk, at > len ? len : at);
	if (r->failed) {
		if (r->why)
			kerr_setc(r->e, KEXIT_CONFIG, "%s:%ld: %s", r->name, r->line, r->why);
		return -1;
	}
	unsigned char *m = yajl_get_error(h, 0, NULL, 0);
	char *msg = xstrdup(m ? (const char *)m : "?");
	yajl_free_error(h, m);
	char *nl = strchr(msg, '\n');
	if (nl)
		*nl = '\0';
	kerr_setc(r->e, KEXIT_CONFIG, "%s:%ld:%ld: not valid JSON: %s", r->name, r->line, r->col,
		  esc(ESC_TERM, msg));
	free(msg);
	return -1;
}

int imp_krun_stream(const char *name, struct imp_input *in, const char *instr, const struct imp_sink *sink,
		    struct kerr *e)
{
	struct krun r;
	memset(&r, 0, sizeof(r));
	r.name = name;
	r.sink = sink;
	r.e = e;
	r.line = 1;
	r.col = 1;
	r.extra = json_object();
	yajl_handle h = yajl_alloc(&callbacks, NULL, &r);
	size_t cap = 256 << 10;
	char *chunk = xmalloc(cap);
	int rc = -1;
	for (;;) {
		long got = imp_input_read(in, chunk, cap, e);
		if (got < 0)
			goto out;
		if (!got)
			break;
		if (yajl_parse(h, (const unsigned char *)chunk, (size_t)got) != yajl_status_ok) {
			json_error(&r, h, chunk, (size_t)got);
			goto out;
		}
		advance(&r, chunk, (size_t)got);
	}
	if (yajl_complete_parse(h) != yajl_status_ok) {
		json_error(&r, h, NULL, 0);
		goto out;
	}
	if (!(r.seen & (1u << S_TIMES))) {
		kerr_setc(e, KEXIT_CONFIG, "%s: wallclock_times: missing", name);
		goto out;
	}
	if (instr && instr_dir(&r, instr) < 0)
		goto out;
	rc = finish(&r);
out:
	yajl_free(h);
	free(chunk);
	krun_free(&r);
	return rc;
}

/* ---- a dataset as the sink (report, plot, diff and the fuzz target read Krun files so) ---- */

struct ds_sink {
	struct dataset *ds;
	long *hk;        /* per pexec handle: its key and index in the key */
	size_t *hi;
	size_t n;
	struct strmap names; /* "handle:series name" of every series given: a name twice is found without a search */
};

static long ds_key_cb(void *ctx, const char *bench, const char *vm, const char *variant, struct kerr *e)
{
	struct ds_sink *s = ctx;
	ds_add_key(s->ds, bench, vm, variant);
	return (long)s->ds->nkeys - 1;
}

static long ds_pexec_cb(void *ctx, long key, long num, struct kerr *e)
{
	struct ds_sink *s = ctx;
	struct ds_key *k = &s->ds->keys[key];
	ds_add_pexec(k, num);
	if (!(s->n & (s->n - 1))) {
		s->hk = xrealloc(s->hk, (s->n ? 2 * s->n : 1) * sizeof(*s->hk));
		s->hi = xrealloc(s->hi, (s->n ? 2 * s->n : 1) * sizeof(*s->hi));
	}
	s->hk[s->n] = key;
	s->hi[s->n] = k->npexecs - 1;
	return (long)s->n++;
}

static struct ds_pexec *ds_px(struct ds_sink *s, long h)
{
	return &s->ds->keys[s->hk[h]].pexecs[s->hi[h]];
}

static int ds_times_cb(void *ctx, long h, const double *v, size_t n, struct kerr *e)
{
	struct ds_pexec *p = ds_px(ctx, h);
	free(p->wall);
	p->wall = xmalloc((n ? n : 1) * sizeof(double));
	if (n)
		memcpy(p->wall, v, n * sizeof(double));
	p->n = n;
	return 0;
}

static int ds_series_cb(void *ctx, long h, const char *name, const char *unit, const double *v, size_t n,
			struct kerr *e)
{
	struct ds_sink *s = ctx;
	struct ds_pexec *p = ds_px(s, h);
	char *hn = xasprintf("%ld:%s", h, name);
	int twice = strmap_find(&s->names, hn) >= 0;
	if (!twice)
		strmap_add(&s->names, hn);
	free(hn);
	if (twice)
		return kerr_setc(e, KEXIT_CONFIG, "series '%s' is there twice in one pexec", esc(ESC_TERM, name));
	struct ds_series *se = ds_add_series(p, name, unit, n);
	if (n)
		memcpy(se->v, v, n * sizeof(double));
	return 0;
}

static int ds_finish_cb(void *ctx, long h, enum ds_status st, double dur, struct kerr *e)
{
	struct ds_sink *s = ctx;
	struct ds_pexec *p = ds_px(s, h);
	struct ds_key *k = &s->ds->keys[s->hk[h]];
	p->status = st;
	p->duration = dur;
	if ((long)p->n > k->iterations)
		k->iterations = (long)p->n;
	k->planned_pexecs = (long)k->npexecs;
	return 0;
}

static int ds_meta_cb(void *ctx, const char *name, const char *value, struct kerr *e)
{
	struct ds_sink *s = ctx;
	if (!strcmp(name, "machine") && !s->ds->machine)
		s->ds->machine = xstrdup(value);
	return 0;
}

static int cmp_key(const void *a, const void *b)
{
	return strcmp(((const struct ds_key *)a)->key, ((const struct ds_key *)b)->key);
}

int imp_krun_input(const char *name, struct imp_input *in, const char *instr, struct dataset *ds, struct kerr *e)
{
	struct ds_sink s = { .ds = ds };
	const struct imp_sink sink = {
		.ctx = &s, .key = ds_key_cb, .pexec = ds_pexec_cb, .times = ds_times_cb, .series = ds_series_cb,
		.finish = ds_finish_cb, .meta = ds_meta_cb,
	};
	int r = imp_krun_stream(name, in, instr, &sink, e);
	free(s.hk);
	strmap_clear(&s.names);
	free(s.hi);
	/* the same dataset whatever order the file had */
	if (r == 0 && ds->nkeys > 1)
		qsort(ds->keys, ds->nkeys, sizeof(*ds->keys), cmp_key);
	return r;
}

int imp_krun_buf(const char *name, const char *data, size_t len, struct dataset *ds, struct kerr *e)
{
	struct imp_input *in;
	if (imp_input_mem(name, data, len, &in, e) < 0)
		return -1;
	int r = imp_krun_input(name, in, NULL, ds, e);
	imp_input_close(in);
	return r;
}

int imp_krun_file(const char *path, struct dataset *ds, struct kerr *e)
{
	struct imp_input *in;
	if (imp_input_file(path, &in, e) < 0)
		return -1;
	char *dir = imp_krun_instr_dir(path);
	int r = imp_krun_input(path, in, dir, ds, e);
	free(dir);
	imp_input_close(in);
	if (r == 0 && !ds->source)
		ds->source = xstrdup(path);
	return r;
}

/* ---- a results file being written as the sink (kiln import) ---- */

struct st_sink {
	struct store_writer *w;
};

static long st_key_cb(void *ctx, const char *bench, const char *vm, const char *variant, struct kerr *e)
{
	return store_writer_key(((struct st_sink *)ctx)->w, bench, vm, variant, 0, e);
}

static long st_pexec_cb(void *ctx, long key, long num, struct kerr *e)
{
	return store_writer_pexec(((struct st_sink *)ctx)->w, key, num, e);
}

static int st_times_cb(void *ctx, long h, const double *v, size_t n, struct kerr *e)
{
	return store_writer_times(((struct st_sink *)ctx)->w, h, v, n, e);
}

static int st_series_cb(void *ctx, long h, const char *name, const char *unit, const double *v, size_t n,
			struct kerr *e)
{
	return store_writer_series(((struct st_sink *)ctx)->w, h, name, unit, v, n, e);
}

static int st_finish_cb(void *ctx, long h, enum ds_status st, double dur, struct kerr *e)
{
	struct store_writer_pexec p = { st, dur, NAN, NAN, NAN, NAN };
	return store_writer_finish(((struct st_sink *)ctx)->w, h, &p, e);
}

/* what the file says besides its measurements, where kiln keeps it (docs/kiln-import.md) */
static int st_meta_cb(void *ctx, const char *name, const char *value, struct kerr *e)
{
	struct store_writer *w = ((struct st_sink *)ctx)->w;
	if (!strcmp(name, "machine"))
		return store_writer_audit(w, "hostname", value, e);
	if (!strcmp(name, "audit"))
		return store_writer_audit(w, "krun", value, e);
	if (!strcmp(name, "config"))
		return store_writer_meta(w, "config_text", value, e);
	return store_writer_meta(w, "krun_extra", value, e);
}

int imp_krun_to_store(const char *path, const char *results, const char *name, struct kerr *e)
{
	struct imp_input *in;
	if (imp_input_file(path, &in, e) < 0)
		return -1;
	struct st_sink s;
	int r = store_writer_open(results, name, path, &s.w, e);
	const struct imp_sink sink = {
		.ctx = &s, .key = st_key_cb, .pexec = st_pexec_cb, .times = st_times_cb, .series = st_series_cb,
		.finish = st_finish_cb, .meta = st_meta_cb,
	};
	char *dir = imp_krun_instr_dir(path);
	if (r == 0)
		r = imp_krun_stream(path, in, dir, &sink, e);
	free(dir);
	imp_input_close(in);
	if (store_writer_close(s.w, r == 0, e) < 0)
		r = -1;
	return r;
}

/* ---- the writer: a Krun results file that Krun and warmup_stats read as their own ---- */

/* a JSON string of s (made valid UTF-8 first) */
static void js(struct strbuf *sb, const char *s)
{
	json_t *j = json_string(esc(ESC_JSON, s));
	char *t = j ? json_dumps(j, JSON_ENCODE_ANY) : NULL;
	sb_adds(sb, t ? t : "\"\"");
	free(t);
	json_decref(j);
}

static void num_list(struct strbuf *sb, const double *v, size_t n)
{
	sb_addc(sb, '[');
	for (size_t i = 0; i < n; i++) {
		if (i)
			sb_addc(sb, ',');
		if (isfinite(v[i]))
			fmt_seconds(sb, v[i]);
		else
			sb_adds(sb, "null");
	}
	sb_addc(sb, ']');
}

/* which core a per-core series is ("cycles.core3" of field "cycles": 3), or -1 */
static long core_of(const char *series, const char *field)
{
	size_t fl = strlen(field);
	long c;
	if (strncmp(series, field, fl) || strncmp(series + fl, ".core", 5) || parse_long(series + fl + 5, &c) || c < 0 ||
	    c > 4095)
		return -1;
	return c;
}

static int is_core_series(const char *name)
{
	return core_of(name, "cycles") >= 0 || core_of(name, "aperf") >= 0 || core_of(name, "mperf") >= 0;
}

/* how many cores the file's per-core counts have (Krun's num_per_core_measurements) */
static long count_cores(const struct dataset *ds)
{
	long n = 0;
	for (size_t i = 0; i < ds->nkeys; i++)
		for (size_t p = 0; p < ds->keys[i].npexecs; p++)
			for (size_t s = 0; s < ds->keys[i].pexecs[p].nseries; s++) {
				const char *nm = ds->keys[i].pexecs[p].series[s].name;
				static const char *const f[] = { "cycles", "aperf", "mperf" };
				for (int j = 0; j < 3; j++) {
					long c = core_of(nm, f[j]);
					if (c >= n)
						n = c + 1;
				}
			}
	return n;
}

static const char *status_word(enum ds_status s)
{
	static const char *const w[] = { [DS_OK] = "ok", [DS_FAILED] = "failed", [DS_TIMEOUT] = "timeout",
					 [DS_PENDING] = "pending", [DS_TAINTED] = "tainted" };
	return w[s];
}

/*
 * A pexec's per-core counts as Krun writes them: a completed one has one
 * list per core as long as its times (missing values null), any other
 * one an empty list per core.
 */
static void core_lists(struct strbuf *sb, const struct ds_pexec *px, const char *field, long ncores)
{
	sb_addc(sb, '[');
	for (long c = 0; c < ncores; c++) {
		if (c)
			sb_addc(sb, ',');
		char name[64];
		snprintf(name, sizeof(name), "%s.core%ld", field, c);
		const struct ds_series *s = ds_find_series(px, name);
		if (px->status != DS_OK) {
			sb_adds(sb, "[]");
			continue;
		}
		sb_addc(sb, '[');
		for (size_t i = 0; i < px->n; i++) {
			double v = s && i < s->n ? s->v[i] : NAN;
			sb_adds(sb, i ? "," : "");
			if (isfinite(v))
				sb_addf(sb, "%.17g", v);
			else
				sb_adds(sb, "null");
		}
		sb_addc(sb, ']');
	}
	sb_addc(sb, ']');
}

/* Krun's ETA estimate of a pexec: how long it took, or the sum of its iterations when that was not kept */
static double eta_of(const struct ds_pexec *px)
{
	if (isfinite(px->duration))
		return px->duration;
	double t = 0;
	for (size_t i = 0; i < px->n; i++)
		t += px->wall[i];
	return t;
}

enum { F_TIMES, F_FLAGS, F_CYCLES, F_APERF, F_MPERF, F_ETA, F_STATUS, F_PARTIAL, NF };

/* one key's entry of field f */
static void key_field(struct strbuf *sb, const struct ds_key *k, int f, long ncores)
{
	static const char *const counts[] = { [F_CYCLES] = "cycles", [F_APERF] = "aperf", [F_MPERF] = "mperf" };
	sb_addc(sb, '[');
	for (size_t p = 0; p < k->npexecs; p++) {
		const struct ds_pexec *px = &k->pexecs[p];
		if (p)
			sb_addc(sb, ',');
		switch (f) {
		case F_TIMES:
			num_list(sb, px->wall, px->status == DS_OK ? px->n : 0);
			break;
		case F_PARTIAL:
			num_list(sb, px->wall, px->status == DS_OK ? 0 : px->n);
			break;
		case F_FLAGS:
			sb_adds(sb, px->status == DS_OK ? "\"C\"" : px->status == DS_TIMEOUT ? "\"T\"" : "\"E\"");
			break;
		case F_STATUS:
			sb_addf(sb, "\"%s\"", status_word(px->status));
			break;
		case F_ETA:
			sb_addf(sb, "%.17g", eta_of(px));
			break;
		default:
			core_lists(sb, px, counts[f], ncores);
			break;
		}
	}
	sb_addc(sb, ']');
}

/* the audit Krun's tools read: the imported file's own, else Krun's fields made from kiln's audit */
static json_t *krun_audit(const struct dataset *ds, const struct fmt_extra *x)
{
	json_error_t je;
	json_t *a = x && x->krun_audit ? json_loads(x->krun_audit, 0, &je) : NULL;
	if (json_is_object(a))
		return a;
	json_decref(a);
	a = json_object();
	json_t *k = x && x->audit_json ? json_loads(x->audit_json, 0, &je) : NULL;
	if (json_is_object(k)) {
		json_t *u = json_object_get(k, "uname");
		if (json_is_object(u)) {
			/* Krun keeps `uname -a`'s line: warmup_stats splits it at spaces for the machine's name */
			const char *f[] = { "sysname", "nodename", "release", "version", "machine" };
			struct strbuf l = STRBUF_INIT;
			for (size_t i = 0; i < ARRAY_SIZE(f); i++) {
				const char *v = json_string_value(json_object_get(u, f[i]));
				if (v && *v)
					sb_addf(&l, "%s%s", l.len ? " " : "", v);
			}
			json_object_set_new(a, "uname", json_string(esc(ESC_JSON, l.buf)));
			sb_release(&l);
		} else if (json_is_string(u)) {
			json_object_set(a, "uname", u);
		}
		const char *same[][2] = { { "cpuinfo", "cpuinfo" }, { "packages", "packages" }, { "dmesg", "kmsg" },
					  { "debian_version", "debian_version" } };
		for (size_t i = 0; i < ARRAY_SIZE(same); i++) {
			json_t *v = json_object_get(k, same[i][1]);
			if (json_is_string(v))
				json_object_set(a, same[i][0], v);
		}
		json_object_set(a, "kiln", k);
	}
	json_decref(k);
	if (!json_is_string(json_object_get(a, "uname")) || !strchr(json_string_value(json_object_get(a, "uname")), ' '))
		json_object_set_new(a, "uname", json_sprintf("Linux %s", esc(ESC_JSON, ds->machine ? ds->machine : "unknown")));
	json_object_set_new(a, "kiln_version", json_string(KILN_VERSION));
	return a;
}

/* a JSON value as text, added to sb */
static void jv(struct strbuf *sb, json_t *v)
{
	char *t = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
	sb_adds(sb, t ? t : "null");
	free(t);
}

static int any_status(const struct dataset *ds, int tainted)
{
	for (size_t i = 0; i < ds->nkeys; i++)
		for (size_t p = 0; p < ds->keys[i].npexecs; p++) {
			const struct ds_pexec *px = &ds->keys[i].pexecs[p];
			if (tainted ? px->status == DS_TAINTED : px->status != DS_OK && px->n)
				return 1;
		}
	return 0;
}

int export_krun_text(const struct dataset *ds, const struct fmt_extra *x, struct strbuf *sb, struct kerr *e)
{
	/* every key once, as JSON can hold it */
	struct strmap seen = STRMAP_INIT;
	for (size_t i = 0; i < ds->nkeys; i++) {
		const char *k = esc(ESC_JSON, ds->keys[i].key);
		if (strmap_find(&seen, k) >= 0) {
			strmap_clear(&seen);
			return kerr_set(e, "two keys are both '%s' once made valid UTF-8 for JSON", esc(ESC_TERM, k));
		}
		strmap_add(&seen, k);
	}
	strmap_clear(&seen);
	long ncores = count_cores(ds);
	json_error_t je;
	json_t *extra = x && x->krun_extra ? json_loads(x->krun_extra, 0, &je) : NULL;
	if (!json_is_object(extra)) {
		json_decref(extra);
		extra = json_object();
	}
	/* the fields kiln writes itself are not taken from what an imported file had */
	static const char *const fname[NF] = { "wallclock_times", "pexec_flags", "core_cycle_counts", "aperf_counts",
					       "mperf_counts", "eta_estimates", "kiln_status", "kiln_partial_times" };
	int want[NF] = { 1, 1, 1, 1, 1, 1, any_status(ds, 1), any_status(ds, 0) };
	for (int f = 0; f < NF; f++)
		json_object_del(extra, fname[f]);
	if (!json_object_get(extra, "reboots"))
		json_object_set_new(extra, "reboots", json_integer(0));
	if (!json_object_get(extra, "starting_temperatures"))
		json_object_set_new(extra, "starting_temperatures", json_object());
	/*
	 * Krun sets error_flag for more than a failed pexec (a change in the
	 * kernel's log between pexecs): an imported file's true stays true
	 */
	int error = json_is_true(json_object_get(extra, "error_flag"));
	for (size_t i = 0; i < ds->nkeys; i++)
		for (size_t p = 0; p < ds->keys[i].npexecs; p++)
			error |= ds->keys[i].pexecs[p].status != DS_OK;
	const char *mine[] = { "audit", "config", "error_flag", "instr_data" };
	for (size_t i = 0; i < ARRAY_SIZE(mine); i++)
		json_object_del(extra, mine[i]);
	json_t *audit = krun_audit(ds, x);
	json_object_set_new(extra, "audit", audit);
	json_object_set_new(extra, "config", json_string(esc(ESC_JSON, x && x->config_text ? x->config_text : "")));
	json_object_set_new(extra, "error_flag", json_boolean(error));
	/* the measurement fields as text (a large file would be many millions of JSON nodes), the rest by jansson */
	sb_addc(sb, '{');
	int first = 1;
	for (int f = 0; f < NF; f++) {
		if (!want[f])
			continue;
		sb_adds(sb, first ? "" : ",");
		first = 0;
		sb_addf(sb, "\"%s\":{", fname[f]);
		for (size_t i = 0; i < ds->nkeys; i++) {
			if (i)
				sb_addc(sb, ',');
			js(sb, ds->keys[i].key);
			sb_addc(sb, ':');
			key_field(sb, &ds->keys[i], f, ncores);
		}
		sb_addc(sb, '}');
	}
	const char *k;
	json_t *v;
	json_object_foreach(extra, k, v) {
		sb_addc(sb, ',');
		js(sb, k);
		sb_addc(sb, ':');
		jv(sb, v);
	}
	sb_addc(sb, '}');
	json_decref(extra);
	return 0;
}

/*
 * Krun's instrumentation folder beside a results file: X_results.json.bz2
 * and X.json.bz2 both have X_instr_data/ (Krun names it after its config,
 * whose results file is CONFIG_results.json.bz2).
 */
char *imp_krun_instr_dir(const char *results)
{
	static const char *const sufs[] = { "_results.json.bz2", "_results.json", ".json.bz2", ".json" };
	for (size_t i = 0; i < ARRAY_SIZE(sufs); i++)
		if (str_ends_with(results, sufs[i]) && strlen(results) > strlen(sufs[i]))
			return xasprintf("%.*s_instr_data", (int)(strlen(results) - strlen(sufs[i])), results);
	return xasprintf("%s_instr_data", results);
}

/* Krun's name of a pexec's instrumentation file: bench__vm__variant__N.json.bz2 */
static char *instr_file(const char *dir, const char *key, size_t p)
{
	struct strbuf f = STRBUF_INIT;
	for (const char *c = key; *c; c++) {
		if (*c == ':')
			sb_adds(&f, "__");
		else if (*c == '/' || (unsigned char)*c < 0x20)
			sb_addc(&f, '_'); /* a name, never a path */
		else
			sb_addc(&f, *c);
	}
	char *path = xasprintf("%s/%s__%zu.json.bz2", dir, f.buf, p);
	sb_release(&f);
	return path;
}

/* a pexec's per-iteration series `name`, NULL when it has none of that length */
static const struct ds_series *iter_series(const struct ds_pexec *px, const char *name)
{
	const struct ds_series *s = ds_find_series(px, name);
	return s && s->n == px->n ? s : NULL;
}

/*
 * The pexec's GC and JIT time as Krun's instrumented VMs wrote them, which
 * warmup_stats' plotter reads (its INSTRUMENTATION_PARSERS, by the key's
 * VM name): a VM named HotSpot, per iteration [i, cumulative JIT ms,
 * [[collector, [], cumulative GC ms, cumulative GC count]]]; any other,
 * PyPy's event tree, per iteration ["root", null, null, [["gc-collect", 0,
 * GC s, []]]], with "jit_times" (s per iteration).  Nothing without
 * gc.time or jit.time.
 */
static void krun_raw_events(struct strbuf *sb, const char *vm, const struct ds_pexec *px)
{
	const struct ds_series *gc = iter_series(px, "gc.time"), *jit = iter_series(px, "jit.time");
	const struct ds_series *gcn = iter_series(px, "gc.count");
	if (!gc && !jit)
		return;
	int hotspot = !strcmp(vm, "HotSpot");
	double cj = 0, cg = 0, cn = 0;
	sb_adds(sb, ",\"raw_vm_events\":[");
	for (size_t i = 0; i < px->n; i++) {
		double g = gc && isfinite(gc->v[i]) ? gc->v[i] : 0, j = jit && isfinite(jit->v[i]) ? jit->v[i] : 0;
		sb_adds(sb, i ? "," : "");
		if (hotspot) {
			cj += j * 1000;
			cg += g * 1000;
			cn += gcn && isfinite(gcn->v[i]) ? gcn->v[i] : 0;
			sb_addf(sb, "[%zu,", i);
			fmt_seconds(sb, cj);
			sb_adds(sb, ",[[\"kiln\",[],");
			fmt_seconds(sb, cg);
			sb_addc(sb, ',');
			fmt_seconds(sb, cn);
			sb_adds(sb, "]]]");
		} else {
			sb_adds(sb, "[\"root\",null,null,[[\"gc-collect\",0,");
			fmt_seconds(sb, g);
			sb_adds(sb, ",[]]]]");
		}
	}
	sb_addc(sb, ']');
	if (!hotspot) {
		sb_adds(sb, ",\"jit_times\":[");
		for (size_t i = 0; i < px->n; i++) {
			sb_adds(sb, i ? "," : "");
			fmt_seconds(sb, jit && isfinite(jit->v[i]) ? jit->v[i] : 0);
		}
		sb_addc(sb, ']');
	}
}

/* every pexec's instrumentation series, one file per pexec as Krun writes them; how many files */
static long write_instr(const struct dataset *ds, const char *dir, struct kerr *e)
{
	long files = 0;
	for (size_t i = 0; i < ds->nkeys; i++)
		for (size_t p = 0; p < ds->keys[i].npexecs; p++) {
			const struct ds_pexec *px = &ds->keys[i].pexecs[p];
			struct strbuf sb = STRBUF_INIT;
			for (size_t s = 0; s < px->nseries; s++) {
				if (is_core_series(px->series[s].name))
					continue;
				sb_adds(&sb, sb.len ? "," : "{");
				js(&sb, px->series[s].name);
				sb_addc(&sb, ':');
				num_list(&sb, px->series[s].v, px->series[s].n);
			}
			if (!sb.len)
				continue;
			krun_raw_events(&sb, ds->keys[i].vm, px);
			sb_addc(&sb, '}');
			if (!files && mkdir_p(dir, 0755) < 0) {
				sb_release(&sb);
				return kerr_set(e, "%s: cannot create the folder: %s", dir, strerror(errno));
			}
			char *path = instr_file(dir, ds->keys[i].key, p);
			struct strbuf z = STRBUF_INIT;
			int r = imp_bzip(sb.buf, sb.len, &z, e);
			if (r == 0)
				r = write_file(path, z.buf, z.len, e);
			sb_release(&z);
			sb_release(&sb);
			free(path);
			if (r < 0)
				return -1;
			files++;
		}
	return files;
}

int export_krun_instr(const struct dataset *ds, const char *path, struct kerr *e)
{
	char *dir = imp_krun_instr_dir(path);
	int r = write_instr(ds, dir, e) < 0 ? -1 : 0;
	free(dir);
	return r;
}

int export_krun(const struct dataset *ds, const char *path, const struct fmt_extra *x, struct kerr *e)
{
	return fmt_write_file(&fmt_krun, ds, x, path, e);
}

/* ---- Krun in fmt.h's table of formats ---- */

static int krun_write(const struct dataset *ds, const struct fmt_extra *x, struct strbuf *out, struct kerr *e)
{
	return export_krun_text(ds, x, out, e);
}

const struct kiln_format fmt_krun = {
	.name = "krun",
	.summary = "Krun's results JSON (wallclock_times, pexec_flags, eta_estimates, per-core counts, audit, config) "
		   "and its _instr_data folder",
	.suffix = ".json.bz2",
	.read = imp_krun_buf,
	.write = krun_write,
	.write_beside = export_krun_instr,
};
