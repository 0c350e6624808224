/*
 * record.c - the instrumentation record model of record.h: the sinks records
 * go to (a rec_list that keeps copies for the pexec's transaction, a printer
 * for `kiln parse`), the one JSON form of a record, and the parser of the
 * generic *.kiln.jsonl files any runner may write.
 *
 * The generic parser is also the reference for what a valid record is: the
 * kind follows from which fields a line has (value+i: per iteration, value:
 * per pexec, start_ns+end_ns: event); anything else is refused with
 * "FILE:LINE: field 'x': what is wrong", because a record silently dropped
 * or misfiled would turn into a wrong plot much later.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record.h"
#include "safefs.h"

/* longest name and unit accepted from outside data */
#define REC_NAME_MAX 256
#define REC_UNIT_MAX 32

/* ---- rec_list ---- */

static int list_emit(void *ctx, const struct kiln_rec *r)
{
	struct rec_list *l = ctx;
	if (l->n == l->alloc) {
		l->alloc = l->alloc ? l->alloc * 2 : 64;
		l->v = xrealloc(l->v, l->alloc * sizeof(*l->v));
	}
	struct kiln_rec *c = &l->v[l->n++];
	*c = *r;
	/* the parser's strings live in its buffers: keep our own, once each */
	c->nid = strmap_add(&l->names, r->name ? r->name : "");
	c->name = l->names.keys[c->nid];
	c->unit = NULL;
	if (r->unit) {
		size_t u = strmap_add(&l->units, r->unit); /* before keys is read: it may move */
		c->unit = l->units.keys[u];
	}
	return 0;
}

struct rec_sink rec_list_sink(struct rec_list *l)
{
	struct rec_sink s = { list_emit, l };
	return s;
}

void rec_list_clear(struct rec_list *l)
{
	free(l->v);
	l->v = NULL;
	l->n = l->alloc = 0;
	strmap_clear(&l->names);
	strmap_clear(&l->units);
}

/* seconds per unit of a time unit, 0: not one */
static double time_unit_s(const char *u)
{
	static const struct { const char *u; double s; } t[] = {
		{ "s", 1 }, { "ms", 1e-3 }, { "us", 1e-6 }, { "\xc2\xb5s", 1e-6 }, { "ns", 1e-9 },
	};
	for (size_t i = 0; u && i < ARRAY_SIZE(t); i++)
		if (!strcmp(u, t[i].u))
			return t[i].s;
	return 0;
}

size_t rec_list_same_units(struct rec_list *l, struct strbuf *why)
{
	/* first[nid]: the unit of the name's first per-iteration record ("" for none) */
	const char **first = xcalloc(l->names.n ? l->names.n : 1, sizeof(*first));
	size_t kept = 0, out = 0;
	for (size_t i = 0; i < l->n; i++) {
		struct kiln_rec *r = &l->v[i];
		if (r->kind == REC_ITER) {
			const char *u = r->unit ? r->unit : "", *f = first[r->nid];
			if (!f) {
				first[r->nid] = u;
			} else if (strcmp(u, f)) {
				double a = time_unit_s(u), b = time_unit_s(f);
				if (a > 0 && b > 0) {
					r->value = r->value * a / b;
					r->unit = *f ? f : NULL;
				} else {
					if (!out++)
						sb_addf(why, "%srecord '%s' of iteration %ld in '%s' where its series' first record is in "
							"'%s': records in another unit are left out", why->len ? "; " : "", r->name,
							r->iter, u, f);
					continue;
				}
			}
		}
		l->v[kept++] = *r;
	}
	l->n = kept;
	free(first);
	return out;
}

/* ---- JSON form ---- */

static void put_str(struct strbuf *out, const char *s)
{
	sb_addc(out, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\') {
			sb_addc(out, '\\');
			sb_addc(out, (char)c);
		} else if (c < 0x20 || c == 0x7f) {
			sb_addf(out, "\\u%04x", c);
		} else {
			sb_addc(out, (char)c);
		}
	}
	sb_addc(out, '"');
}

/*
 * The shortest %g form that reads back as the same double, so 0.0031 prints
 * as 0.0031 and not as 0.0030999999999999999, and nothing is lost.
 */
static void put_num(struct strbuf *out, double v)
{
	if (!isfinite(v)) {
		sb_adds(out, "null"); /* JSON has no NaN/inf; readers refuse it */
		return;
	}
	char buf[40];
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	sb_adds(out, buf);
}

void rec_to_json(const struct kiln_rec *r, struct strbuf *out)
{
	sb_addc(out, '{');
	if (r->kind == REC_ITER)
		sb_addf(out, "\"i\":%ld,", r->iter);
	sb_adds(out, "\"name\":");
	put_str(out, r->name ? r->name : "");
	if (r->kind == REC_EVENT) {
		sb_addf(out, ",\"start_ns\":%" PRId64 ",\"end_ns\":%" PRId64 "}", r->start_ns, r->end_ns);
		return;
	}
	sb_adds(out, ",\"value\":");
	put_num(out, r->value);
	if (r->unit && *r->unit) {
		sb_adds(out, ",\"unit\":");
		put_str(out, r->unit);
	}
	sb_addc(out, '}');
}

static int print_emit(void *ctx, const struct kiln_rec *r)
{
	FILE *f = ctx;
	struct strbuf sb = STRBUF_INIT;
	rec_to_json(r, &sb);
	sb_addc(&sb, '\n');
	size_t w = fwrite(sb.buf, 1, sb.len, f);
	size_t want = sb.len;
	sb_release(&sb);
	return w == want ? 0 : -1;
}

struct rec_sink rec_print_sink(FILE *f)
{
	struct rec_sink s = { print_emit, f };
	return s;
}

/* ---- generic JSON Lines ---- */

static int bad(struct kerr *e, const char *file, long line, const char *field, const char *what)
{
	return kerr_setc(e, KEXIT_CONFIG, "%s:%ld: field '%s': %s", file, line, field, what);
}

static int check_text(const char *s, size_t max)
{
	size_t n = strlen(s);
	if (n == 0 || n > max)
		return -1;
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return -1;
	return 0;
}

/* an integer field that must be a JSON integer >= 0 */
static int get_count(json_t *v, const char *file, long line, const char *field,
		     int64_t *out, struct kerr *e)
{
	if (!json_is_integer(v))
		return bad(e, file, line, field, json_is_number(v)
			   ? "not an integer" : "not a number");
	json_int_t x = json_integer_value(v);
	if (x < 0)
		return bad(e, file, line, field, "negative");
	*out = (int64_t)x;
	return 0;
}

/* one object → one record, or an error saying which field is wrong */
static int parse_obj(json_t *o, const char *file, long line, struct rec_sink *sink, struct kerr *e)
{
	static const char *const known[] = { "i", "name", "value", "unit", "start_ns", "end_ns" };
	const char *key;
	json_t *val;
	json_object_foreach(o, key, val) {
		size_t k = 0;
		while (k < ARRAY_SIZE(known) && strcmp(key, known[k]))
			k++;
		if (k == ARRAY_SIZE(known))
			return bad(e, file, line, key, "unknown field (expected i, name, value, unit, start_ns, end_ns)");
	}
	json_t *jn = json_object_get(o, "name");
	json_t *ji = json_object_get(o, "i");
	json_t *jv = json_object_get(o, "value");
	json_t *ju = json_object_get(o, "unit");
	json_t *js = json_object_get(o, "start_ns");
	json_t *je = json_object_get(o, "end_ns");

	if (!jn)
		return bad(e, file, line, "name", "missing");
	if (!json_is_string(jn))
		return bad(e, file, line, "name", "not a string");
	if (check_text(json_string_value(jn), REC_NAME_MAX) < 0)
		return bad(e, file, line, "name", "empty, longer than 256 bytes or has control characters");

	struct kiln_rec r = { 0 };
	r.name = json_string_value(jn);
	if (jv) {
		if (js || je)
			return bad(e, file, line, js ? "start_ns" : "end_ns",
				   "an event has no value (unknown combination)");
		if (!json_is_number(jv))
			return bad(e, file, line, "value", "not a number");
		r.value = json_number_value(jv);
		if (!isfinite(r.value))
			return bad(e, file, line, "value", "not finite");
		if (ju) {
			if (!json_is_string(ju))
				return bad(e, file, line, "unit", "not a string");
			r.unit = json_string_value(ju);
			if (*r.unit && check_text(r.unit, REC_UNIT_MAX) < 0)
				return bad(e, file, line, "unit", "longer than 32 bytes or has control characters");
		}
		if (ji) {
			int64_t i;
			if (get_count(ji, file, line, "i", &i, e) < 0)
				return -1;
			if (i > (int64_t)LONG_MAX)
				return bad(e, file, line, "i", "too large");
			r.kind = REC_ITER;
			r.iter = (long)i;
		} else {
			r.kind = REC_PEXEC;
		}
	} else if (js || je) {
		if (!js || !je)
			return bad(e, file, line, js ? "end_ns" : "start_ns", "missing (an event needs start_ns and end_ns)");
		if (ji)
			return bad(e, file, line, "i", "an event has no iteration (unknown combination)");
		if (ju)
			return bad(e, file, line, "unit", "an event has no unit (unknown combination)");
		if (get_count(js, file, line, "start_ns", &r.start_ns, e) < 0 ||
		    get_count(je, file, line, "end_ns", &r.end_ns, e) < 0)
			return -1;
		if (r.end_ns < r.start_ns)
			return bad(e, file, line, "end_ns", "before start_ns");
		r.kind = REC_EVENT;
	} else {
		return bad(e, file, line, "value", "missing (a record has a value, or start_ns and end_ns)");
	}
	if (sink->emit(sink->ctx, &r))
		return kerr_setc(e, KEXIT_FAIL, "%s:%ld: the record was not accepted", file, line);
	return 0;
}

static int blank(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r')
			return 0;
	return 1;
}

int rec_parse_jsonl(const char *name, const char *buf, size_t len,
		    struct rec_sink *sink, struct kerr *e)
{
	long line = 0;
	size_t at = 0;
	while (at < len) {
		const char *p = buf + at;
		const char *nl = memchr(p, '\n', len - at);
		size_t n = nl ? (size_t)(nl - p) : len - at; /* the last line may lack its newline */
		at += n + (nl ? 1 : 0);
		line++;
		if (blank(p, n))
			continue;
		json_error_t je;
		json_t *o = json_loadb(p, n, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &je);
		if (!o)
			return kerr_setc(e, KEXIT_CONFIG, "%s:%ld:%d: not valid JSON: %s", name, line,
					 je.column, je.text);
		int r;
		if (!json_is_object(o))
			r = kerr_setc(e, KEXIT_CONFIG, "%s:%ld: a record must be a JSON object", name, line);
		else
			r = parse_obj(o, name, line, sink, e);
		json_decref(o);
		if (r < 0)
			return -1;
	}
	return 0;
}

/* ---- instrumentation files ---- */

int instr_open(const struct instr_file *f, const char *name, off_t *size, struct kerr *e)
{
	off_t sz = 0;
	int fd;
	if (f->follow) {
		fd = openat(f->dirfd, name, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		struct stat st;
		if (fd < 0)
			return kerr_setc(e, KEXIT_CONFIG, "%s/%s: %s", f->dir, name, strerror(errno));
		if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
			close(fd);
			return kerr_setc(e, KEXIT_CONFIG, "%s/%s: not a regular file", f->dir, name);
		}
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
		sz = st.st_size;
	} else if ((fd = sfs_open_file_at(f->dirfd, f->dir, name, f->owner, &sz, e)) < 0) {
		return -1;
	}
	if (f->budget) {
		if ((uint64_t)sz > *f->budget) {
			close(fd);
			return kerr_setc(e, KEXIT_CONFIG, "%s/%s: %lld bytes: over what is left of limits.instr_mb "
					 "(%llu bytes)", f->dir, name, (long long)sz, (unsigned long long)*f->budget);
		}
		*f->budget -= (uint64_t)sz;
	}
	if (size)
		*size = sz;
	return fd;
}

int instr_read(const struct instr_file *f, const char *name, struct strbuf *out, struct kerr *e)
{
	off_t sz;
	int fd = instr_open(f, name, &sz, e);
	if (fd < 0)
		return -1;
	sb_reset(out);
	sb_grow(out, (size_t)sz + 1);
	out->buf[0] = '\0';
	/* never more than fstat said: a file that grows is read as it was */
	size_t want = (size_t)sz;
	while (out->len < want) {
		ssize_t n = read(fd, out->buf + out->len, want - out->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int err = errno;
			close(fd);
			return n < 0 ? kerr_setc(e, KEXIT_CONFIG, "%s/%s: %s", f->dir, name, strerror(err)) : 0;
		}
		out->len += (size_t)n;
		out->buf[out->len] = '\0';
	}
	close(fd);
	return 0;
}

int instr_file_path(struct instr_file *f, const char *path, struct kerr *e)
{
	memset(f, 0, sizeof(*f));
	char *dir = path_dirname(path);
	f->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (f->dirfd < 0) {
		kerr_setc(e, KEXIT_CONFIG, "%s: %s", path, strerror(errno));
		free(dir);
		return -1;
	}
	f->dir = dir;
	f->name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	f->owner = (uid_t)-1;
	f->follow = 1;
	return 0;
}

void instr_file_close(struct instr_file *f)
{
	if (f->dirfd >= 0)
		close(f->dirfd);
	free((char *)f->dir);
	f->dirfd = -1;
	f->dir = NULL;
}

int instr_parse_path(instr_parse_fn parse, const char *path, struct rec_sink *sink, struct kerr *e)
{
	struct instr_file f;
	if (instr_file_path(&f, path, e) < 0)
		return -1;
	int r = parse(&f, sink, e);
	instr_file_close(&f);
	return r;
}

int rec_parse_jsonl_file(const struct instr_file *f, struct rec_sink *sink, struct kerr *e)
{
	struct strbuf sb = STRBUF_INIT;
	if (instr_read(f, f->name, &sb, e) < 0) {
		sb_release(&sb);
		return -1;
	}
	char *shown = path_join(f->dir, f->name);
	int r = rec_parse_jsonl(shown, sb_str(&sb), sb.len, sink, e);
	free(shown);
	sb_release(&sb);
	return r;
}
