/*
 * parse_stats.c - the `stats` parser: finds `Stats:` ... `(End of stats)`
 * blocks in a text that may be anything else too (a VM's stderr mixed with
 * the program's own), and turns the block's `name: value` lines into
 * per-pexec records.
 *
 * Rules, chosen so that a wrong number cannot slip through:
 *  - text outside a block is ignored, a stray "(End of stats)" included;
 *  - inside a block every non-blank line must be `name: value` with a number,
 *    and a name may appear once; anything else is an error naming the line;
 *  - an unfinished block (truncated output) is an error;
 *  - with several blocks the LAST one wins: a process that forks dumps once
 *    per child at exit, each child carrying the counts it inherited from the
 *    parent, so summing would count the parent's work twice; the parent,
 *    which exits last, has the whole story;
 *  - no block at all is an error: the VM was asked for stats and gave none.
 */
#include <stdlib.h>
#include <string.h>

#include "stats.h"

struct st_ent {
	const char *name; /* into the input */
	size_t len;
	double value;
	long line;
};

struct st_block {
	struct st_ent *v;
	size_t n, alloc;
	long line; /* of "Stats:" */
};

static int st_err(struct kerr *e, const char *file, long line, const char *fmt, ...) KILN_PRINTF(4, 5);
static int st_err(struct kerr *e, const char *file, long line, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	sb_vaddf(&sb, fmt, ap);
	va_end(ap);
	kerr_setc(e, KEXIT_CONFIG, "%s:%ld: %s", file, line, sb_str(&sb));
	sb_release(&sb);
	return -1;
}

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

/* [s, *n) without surrounding blanks */
static const char *trim(const char *s, size_t *n)
{
	while (*n && is_space(*s))
		s++, (*n)--;
	while (*n && is_space(s[*n - 1]))
		(*n)--;
	return s;
}

static int same(const char *s, size_t n, const char *lit)
{
	return n == strlen(lit) && !memcmp(s, lit, n);
}

static int namechar(unsigned char c)
{
	return c > 0x20 && c < 0x7f && c != ':';
}

static int ent_cmp(const void *a, const void *b)
{
	const struct st_ent *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->name, y->name, n);
	if (c)
		return c;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* one `name: value` line inside a block */
static int st_entry(const char *file, long line, const char *s, size_t n, struct st_block *b,
		    struct kerr *e)
{
	const char *colon = memchr(s, ':', n);
	if (!colon)
		return st_err(e, file, line, "expected 'name: value' inside the stats block opened at line %ld",
			      b->line);
	size_t nl = (size_t)(colon - s);
	const char *name = trim(s, &nl);
	if (!nl || nl > 256)
		return st_err(e, file, line, "empty or over-long counter name");
	for (size_t i = 0; i < nl; i++)
		if (!namechar((unsigned char)name[i]))
			return st_err(e, file, line, "field '%.*s': the name has a blank or control character",
				      (int)nl, name);
	size_t vl = (size_t)(s + n - colon - 1);
	const char *val = trim(colon + 1, &vl);
	char buf[64];
	double v;
	if (!vl || vl >= sizeof(buf) || memchr(val, '\0', vl))
		return st_err(e, file, line, "field '%.*s': missing or over-long value", (int)nl, name);
	memcpy(buf, val, vl);
	buf[vl] = '\0';
	if (parse_double(buf, &v) < 0 || v != v || v - v != 0)
		return st_err(e, file, line, "field '%.*s': value '%s' is not a finite number", (int)nl, name, buf);
	if (b->n == b->alloc) {
		b->alloc = b->alloc ? 2 * b->alloc : 64;
		b->v = xrealloc(b->v, b->alloc * sizeof(*b->v));
	}
	b->v[b->n++] = (struct st_ent){ name, nl, v, line };
	return 0;
}

/* a finished block: names must be unique */
static int st_check(const char *file, struct st_block *b, struct kerr *e)
{
	if (b->n < 2)
		return 0;
	struct st_ent *sorted = xmalloc(b->n * sizeof(*sorted));
	memcpy(sorted, b->v, b->n * sizeof(*sorted));
	qsort(sorted, b->n, sizeof(*sorted), ent_cmp);
	int r = 0;
	for (size_t i = 1; i < b->n && !r; i++)
		if (sorted[i].len == sorted[i - 1].len && !memcmp(sorted[i].name, sorted[i - 1].name, sorted[i].len))
			r = st_err(e, file, sorted[i].line, "field '%.*s': appears twice in one stats block (first at line %ld)",
				   (int)sorted[i].len, sorted[i].name, sorted[i - 1].line);
	free(sorted);
	return r;
}

int stats_parse_mem(const char *file, const char *buf, size_t len, struct rec_sink *sink, struct kerr *e)
{
	struct st_block cur = { 0 }, done = { 0 };
	int inside = 0, found = 0, r = -1;
	long line = 0;
	for (size_t at = 0; at < len;) {
		const char *s = buf + at;
		const char *nl = memchr(s, '\n', len - at);
		size_t n = nl ? (size_t)(nl - s) : len - at;
		at += n + (nl ? 1 : 0);
		line++;
		s = trim(s, &n);
		if (same(s, n, "Stats:")) {
			if (inside) {
				st_err(e, file, line, "'Stats:' inside the unfinished stats block opened at line %ld", cur.line);
				goto out;
			}
			inside = 1;
			cur.n = 0;
			cur.line = line;
		} else if (!inside) {
			continue;
		} else if (same(s, n, "(End of stats)")) {
			if (st_check(file, &cur, e) < 0)
				goto out;
			struct st_block t = done;
			done = cur;
			cur = t;
			inside = 0;
			found = 1;
		} else if (n && st_entry(file, line, s, n, &cur, e) < 0) {
			goto out;
		}
	}
	if (inside) {
		st_err(e, file, cur.line, "stats block opened here has no '(End of stats)' (truncated output?)");
		goto out;
	}
	if (!found) {
		kerr_setc(e, KEXIT_CONFIG, "%s: no 'Stats:' ... '(End of stats)' block (was the VM asked to dump its stats?)", file);
		goto out;
	}
	char name[260];
	for (size_t i = 0; i < done.n; i++) {
		struct st_ent *t = &done.v[i];
		snprintf(name, sizeof(name), "%.*s", (int)t->len, t->name);
		struct kiln_rec rec = { .kind = REC_PEXEC, .name = name, .value = t->value,
					.unit = t->len >= 3 && !memcmp(t->name, "us_", 3) ? "us" : "" };
		if (sink->emit(sink->ctx, &rec)) {
			kerr_setc(e, KEXIT_FAIL, "%s:%ld: record '%s' was not accepted", file, t->line, name);
			goto out;
		}
	}
	r = 0;
out:
	free(cur.v);
	free(done.v);
	return r;
}

int stats_parse_file(const struct instr_file *f, struct rec_sink *sink, struct kerr *e)
{
	struct strbuf sb = STRBUF_INIT;
	int r = instr_read(f, f->name, &sb, e);
	char *shown = path_join(f->dir, f->name);
	if (!r)
		r = stats_parse_mem(shown, sb_str(&sb), sb.len, sink, e);
	free(shown);
	sb_release(&sb);
	return r;
}
