/*
 * jitcode.c - the JIT'd code of PyPy and LuaJIT from their logs (see
 * jitcode.h): parsed, named, its bytes rebuilt, looked up, and written as
 * a jitdump and a perf map.
 *
 * PyPy logs each loop's and bridge's addresses once (jit-backend-addr) and
 * its machine code in pieces, as the assembler writes it and as guards are
 * later patched to jump to bridges (jit-backend-dump); a region's bytes are
 * the last ones written at each address before another region took its
 * place, the final code as it ran, as the JIT notes' annotate tool showed
 * it.  Bridges are named after where they start (the first
 * debug_merge_point of their jit-log-opt listing) and the loop or bridge
 * whose guard they leave from.
 */
#include "jitcode.h"

#include <ctype.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "jitdump.h"

void jitcode_init(struct jitcode *jc)
{
	memset(jc, 0, sizeof(*jc));
}

void jitcode_free(struct jitcode *jc)
{
	for (size_t i = 0; i < jc->n; i++) {
		free(jc->v[i].name);
		free(jc->v[i].code);
	}
	free(jc->v);
	free(jc->by_addr);
	memset(jc, 0, sizeof(*jc));
}

static struct jc_entry *jc_add(struct jitcode *jc)
{
	if (jc->n == jc->alloc) {
		jc->alloc = jc->alloc ? jc->alloc * 2 : 64;
		jc->v = xrealloc(jc->v, jc->alloc * sizeof(*jc->v));
	}
	struct jc_entry *x = &jc->v[jc->n];
	memset(x, 0, sizeof(*x));
	x->index = (uint32_t)jc->n++;
	x->t_ns = -1;
	return x;
}

/* ---- PYPYLOG ---- */

struct pl_dump {
	uint64_t addr;
	size_t seq, off, len;    /* seq: order in the log; bytes at dump_bytes + off */
};

/* a loop or bridge as jit-backend-addr gave it, named at the end */
struct pl_region {
	uint64_t lo, hi;
	size_t seq;              /* order in the log */
	long line;               /* of its "has address" line */
	int64_t tick;
	int bridge;
	uint64_t guard;          /* a bridge's guard */
	char *loop;              /* a loop's "Loop 4 (...)" */
};

/* a guard's owner: a loop's name, or the guard of the bridge it is in */
struct pl_guard {
	uint64_t guard;
	char *loop;              /* NULL: in the bridge of `parent` */
	uint64_t parent;
};

/* where a bridge starts: its first debug_merge_point */
struct pl_start {
	uint64_t guard;
	char *where;
};

struct pl {
	const char *name;
	long line;
	struct kerr *e;
	char section[64];
	int64_t tick;            /* the current section's start */
	size_t seq;
	struct pl_region *r, cur;
	size_t nr, ralloc;
	int have_cur;
	struct pl_dump *d;
	size_t nd, dalloc;
	struct strbuf bytes;     /* every dump's bytes */
	struct pl_guard *g;
	size_t ng, galloc;
	struct pl_start *s;
	size_t ns, salloc;
	char *opt_loop;          /* the jit-log-opt-loop being read */
	uint64_t opt_bridge;     /* the jit-log-opt-bridge being read (its guard), 0: none */
	int opt_bridge_started;
};

#define PL_MAX_DUMP_BYTES ((size_t)512 << 20)
#define PL_MAX_GUARDS 10000000

/* whether the line [s, end) starts with `lit` (lines here are not NUL-terminated: the last may end the buffer) */
static int starts(const char *s, const char *end, const char *lit)
{
	size_t n = strlen(lit);
	return (size_t)(end - s) >= n && !memcmp(s, lit, n);
}

static int pl_bad(struct pl *p, const char *what)
{
	return kerr_setc(p->e, KEXIT_CONFIG, "%s:%ld: %s", p->name, p->line, what);
}

static int hexval(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* "0x7f1390baf99b" (or without 0x) at s, up to end; 0 on success, *len the digits read */
static int parse_hex(const char *s, const char *end, uint64_t *v, size_t *len)
{
	const char *p = s;
	if (end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	uint64_t x = 0;
	const char *q = p;
	for (; q < end && hexval((unsigned char)*q) >= 0; q++) {
		if (q - p >= 16)
			return -1;
		x = x << 4 | (uint64_t)hexval((unsigned char)*q);
	}
	if (q == p)
		return -1;
	*v = x;
	if (len)
		*len = (size_t)(q - s);
	return 0;
}

/* the hex number after `key` in [s, end), 0 on success */
static int hex_after(const char *s, const char *end, const char *key, uint64_t *v)
{
	const char *k = memmem(s, (size_t)(end - s), key, strlen(key));
	return k ? parse_hex(k + strlen(key), end, v, NULL) : -1;
}

static char *dup_range(const char *a, const char *b)
{
	size_t n = (size_t)(b - a);
	return xstrndup(a, n > JC_MAX_NAME ? JC_MAX_NAME : n);
}

static void pl_commit(struct pl *p)
{
	if (!p->have_cur)
		return;
	if (p->nr == p->ralloc) {
		p->ralloc = p->ralloc ? p->ralloc * 2 : 64;
		p->r = xrealloc(p->r, p->ralloc * sizeof(*p->r));
	}
	p->r[p->nr++] = p->cur;
	memset(&p->cur, 0, sizeof(p->cur));
	p->have_cur = 0;
}

/* "Loop 4 (NAME) has address A to B (bootstrap C)", "bridge out of Guard G has address A to B", details */
static int pl_addr_line(struct pl *p, const char *s, const char *end)
{
	static const char has[] = " has address ";
	const char *h = NULL;
	for (const char *q = s; (q = memmem(q, (size_t)(end - q), has, sizeof(has) - 1)); q++)
		h = q; /* the last one: the loop's name is PyPy's text of the user's code */
	if (h) {
		pl_commit(p);
		if (p->nr >= JC_MAX_ENTRIES)
			return pl_bad(p, "more than 1000000 loops and bridges");
		struct pl_region *c = &p->cur;
		uint64_t a, b;
		if (hex_after(h, end, has, &a) < 0 || hex_after(h, end, " to ", &b) < 0 || b < a)
			return pl_bad(p, "jit-backend-addr: 'has address A to B' expected");
		c->lo = a;
		c->hi = b;
		c->seq = p->seq++;
		c->line = p->line;
		c->tick = p->tick;
		uint64_t boot;
		if (!hex_after(h, end, "(bootstrap ", &boot) && boot < a)
			c->lo = boot;
		if (starts(s, end, "bridge out of Guard ")) {
			c->bridge = 1;
			if (parse_hex(s + 20, h, &c->guard, NULL) < 0)
				return pl_bad(p, "jit-backend-addr: a bridge's guard address expected");
		} else {
			c->loop = dup_range(s, h);
		}
		p->have_cur = 1;
		return 0;
	}
	/* the detail lines: "function: 0x..." (a loop's entry), "end: 0x..." (after the failure stubs) */
	while (s < end && isspace((unsigned char)*s))
		s++;
	uint64_t v;
	if (p->have_cur && starts(s, end, "function: ") && !parse_hex(s + 10, end, &v, NULL) && v < p->cur.lo)
		p->cur.lo = v;
	else if (p->have_cur && starts(s, end, "end: ") && !parse_hex(s + 5, end, &v, NULL) && v > p->cur.hi &&
		 v - p->cur.lo <= JC_MAX_CODE)
		p->cur.hi = v;
	return 0;
}

/* "CODE_DUMP @7f1390bae000 +0  4889..." */
static int pl_dump_line(struct pl *p, const char *s, const char *end)
{
	if (!starts(s, end, "CODE_DUMP @"))
		return 0; /* BACKEND, SYS_EXECUTABLE */
	uint64_t base, off;
	size_t len;
	const char *q = s + 11;
	if (parse_hex(q, end, &base, &len) < 0)
		return pl_bad(p, "CODE_DUMP: an address expected");
	q += len;
	while (q < end && *q == ' ')
		q++;
	if (q == end || *q != '+')
		return pl_bad(p, "CODE_DUMP: '+OFFSET' expected");
	q++;
	off = 0;
	const char *d0 = q;
	for (; q < end && isdigit((unsigned char)*q) && q - d0 < 12; q++)
		off = off * 10 + (uint64_t)(*q - '0');
	if (q == d0)
		return pl_bad(p, "CODE_DUMP: '+OFFSET' expected");
	while (q < end && *q == ' ')
		q++;
	size_t nhex = (size_t)(end - q);
	if (nhex % 2 || nhex / 2 > JC_MAX_CODE)
		return pl_bad(p, "CODE_DUMP: an even number of hex digits expected");
	if (p->bytes.len + nhex / 2 > PL_MAX_DUMP_BYTES)
		return pl_bad(p, "more than 512 MiB of code dumps");
	size_t at = p->bytes.len;
	sb_grow(&p->bytes, nhex / 2);
	for (size_t i = 0; i < nhex; i += 2) {
		int h = hexval((unsigned char)q[i]), l = hexval((unsigned char)q[i + 1]);
		if (h < 0 || l < 0) {
			p->bytes.len = at;
			return pl_bad(p, "CODE_DUMP: not a hex digit");
		}
		p->bytes.buf[p->bytes.len++] = (char)(h << 4 | l);
	}
	if (p->nd == p->dalloc) {
		p->dalloc = p->dalloc ? p->dalloc * 2 : 256;
		p->d = xrealloc(p->d, p->dalloc * sizeof(*p->d));
	}
	p->d[p->nd++] = (struct pl_dump){ base + off, p->seq++, at, nhex / 2 };
	return 0;
}

static void pl_add_guard(struct pl *p, uint64_t guard, const char *loop, uint64_t parent)
{
	if (p->ng >= PL_MAX_GUARDS)
		return;
	if (p->ng == p->galloc) {
		p->galloc = p->galloc ? p->galloc * 2 : 256;
		p->g = xrealloc(p->g, p->galloc * sizeof(*p->g));
	}
	p->g[p->ng++] = (struct pl_guard){ guard, loop ? xstrdup(loop) : NULL, parent };
}

/* jit-log-opt: "# Loop 1 (NAME) : loop with 31 ops", "# bridge out of Guard 0x.. with 13 ops", guards, merge points */
static void pl_opt_line(struct pl *p, const char *s, const char *end)
{
	if (starts(s, end, "# Loop ")) {
		const char *c = NULL;
		for (const char *q = s; (q = memmem(q, (size_t)(end - q), " : ", 3)); q++)
			c = q;
		free(p->opt_loop);
		p->opt_loop = dup_range(s + 2, c ? c : end);
		return;
	}
	if (starts(s, end, "# bridge out of Guard ")) {
		parse_hex(s + 22, end, &p->opt_bridge, NULL);
		p->opt_bridge_started = 0;
		return;
	}
	static const char gd[] = "descr=<Guard0x";
	const char *g = memmem(s, (size_t)(end - s), gd, sizeof(gd) - 1);
	uint64_t guard;
	if (g && !parse_hex(g + sizeof(gd) - 3, end, &guard, NULL)) {
		if (!strcmp(p->section, "jit-log-opt-loop") && p->opt_loop)
			pl_add_guard(p, guard, p->opt_loop, 0);
		else if (!strcmp(p->section, "jit-log-opt-bridge") && p->opt_bridge)
			pl_add_guard(p, guard, NULL, p->opt_bridge);
		return;
	}
	if (!strcmp(p->section, "jit-log-opt-bridge") && p->opt_bridge && !p->opt_bridge_started &&
	    memmem(s, (size_t)(end - s), "debug_merge_point(", 18)) {
		/* the location is the last quoted argument */
		const char *b = memrchr(s, '\'', (size_t)(end - s));
		const char *a = b ? memrchr(s, '\'', (size_t)(b - s)) : NULL;
		if (a && p->ns < PL_MAX_GUARDS) {
			if (p->ns == p->salloc) {
				p->salloc = p->salloc ? p->salloc * 2 : 64;
				p->s = xrealloc(p->s, p->salloc * sizeof(*p->s));
			}
			p->s[p->ns++] = (struct pl_start){ p->opt_bridge, dup_range(a + 1, b) };
			p->opt_bridge_started = 1;
		}
	}
}

/*
 * "[a6d29bf1708] {jit-backend-addr" or "[a6d29bf1708] jit-backend-addr}":
 * 1 when the line is neither (section content may start with '[': "[p0, p1]")
 */
static int pl_section_line(struct pl *p, const char *s, const char *end)
{
	const char *rb = memchr(s, ']', (size_t)(end - s));
	uint64_t tick;
	size_t len;
	if (!rb || parse_hex(s + 1, rb, &tick, &len) < 0 || s + 1 + len != rb || rb + 1 == end || rb[1] != ' ')
		return 1;
	const char *q = rb + 2;
	if (q < end && *q != '{' && end[-1] != '}')
		return 1;
	if (q < end && *q == '{') {
		size_t n = (size_t)(end - q - 1);
		if (n >= sizeof(p->section))
			n = sizeof(p->section) - 1;
		memcpy(p->section, q + 1, n);
		p->section[n] = 0;
		p->tick = (int64_t)tick;
	} else {
		if (!strcmp(p->section, "jit-backend-addr"))
			pl_commit(p);
		p->section[0] = 0;
	}
	return 0;
}

static int pl_line(struct pl *p, const char *s, const char *end)
{
	if (s == end)
		return 0;
	int r;
	if (*s == '[' && (r = pl_section_line(p, s, end)) <= 0)
		return r;
	if (!strcmp(p->section, "jit-backend-addr"))
		return pl_addr_line(p, s, end);
	if (!strcmp(p->section, "jit-backend-dump"))
		return pl_dump_line(p, s, end);
	if (!strncmp(p->section, "jit-log-opt", 11))
		pl_opt_line(p, s, end);
	return 0;
}

/* guards and bridge starts sorted by guard (the first listed of a guard wins), then searched */
static int cmp_guard(const void *a, const void *b)
{
	const struct pl_guard *x = a, *y = b;
	return x->guard < y->guard ? -1 : x->guard > y->guard;
}

static int cmp_start(const void *a, const void *b)
{
	const struct pl_start *x = a, *y = b;
	return x->guard < y->guard ? -1 : x->guard > y->guard;
}

static const char *pl_guard_owner(const struct pl *p, uint64_t guard, uint64_t *parent)
{
	struct pl_guard key = { guard, NULL, 0 };
	const struct pl_guard *g = bsearch(&key, p->g, p->ng, sizeof(*p->g), cmp_guard);
	*parent = g ? g->parent : 0;
	return g ? g->loop : NULL;
}

static const char *pl_bridge_start(const struct pl *p, uint64_t guard)
{
	struct pl_start key = { guard, NULL };
	const struct pl_start *s = bsearch(&key, p->s, p->ns, sizeof(*p->s), cmp_start);
	return s ? s->where : NULL;
}

/* "bridge (WHERE) from Loop 1 (...)", through bridges of bridges up to a loop */
static void pl_bridge_name(const struct pl *p, uint64_t guard, struct strbuf *out)
{
	const char *where = pl_bridge_start(p, guard);
	if (where)
		sb_addf(out, "bridge (%s)", where);
	else
		sb_addf(out, "bridge out of Guard 0x%llx", (unsigned long long)guard);
	for (int depth = 0; depth < 16; depth++) {
		uint64_t parent;
		const char *loop = pl_guard_owner(p, guard, &parent);
		if (loop) {
			sb_addf(out, " from %s", loop);
			return;
		}
		if (!parent)
			return;
		guard = parent;
		where = pl_bridge_start(p, guard);
		sb_addf(out, " from bridge (%s)", where ? where : "?");
	}
}

static int cmp_dump_addr(const void *a, const void *b)
{
	const struct pl_dump *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr ? 1 : x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int cmp_dump_seq(const void *a, const void *b)
{
	const struct pl_dump *x = *(const struct pl_dump *const *)a, *y = *(const struct pl_dump *const *)b;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * Region k's bytes: the dumps over it, in log order, until another region
 * takes its addresses: the next region over them, or already the new
 * code written for it before its jit-backend-addr (a dump of 16 bytes or
 * more over it; patches of guards are smaller).
 */
static void pl_code(struct pl *p, size_t k, size_t maxdump, struct jc_entry *x, struct jitcode *jc)
{
	const struct pl_region *r = &p->r[k], *next = NULL;
	size_t until = SIZE_MAX;
	for (size_t j = k + 1; j < p->nr && !next; j++)
		if (p->r[j].lo < r->hi && p->r[j].hi > r->lo) {
			next = &p->r[j];
			until = next->seq;
		}
	x->code = xmalloc(x->size ? x->size : 1);
	memset(x->code, 0xcc, x->size); /* int3 where no dump reached */
	uint8_t *seen = xcalloc(x->size ? x->size : 1, 1);
	/* the dumps that may overlap: sorted by address, starting at most maxdump bytes before lo */
	size_t lo = 0, hi = p->nd;
	uint64_t from = r->lo > maxdump ? r->lo - maxdump : 0;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (p->d[mid].addr < from)
			lo = mid + 1;
		else
			hi = mid;
	}
	const struct pl_dump **use = NULL;
	size_t nuse = 0, ause = 0;
	for (size_t i = lo; i < p->nd && p->d[i].addr < r->hi; i++) {
		const struct pl_dump *d = &p->d[i];
		if (d->addr + d->len <= r->lo || d->seq > until)
			continue;
		if (nuse == ause) {
			ause = ause ? ause * 2 : 16;
			use = xrealloc(use, ause * sizeof(*use));
		}
		use[nuse++] = d;
	}
	if (nuse)
		qsort(use, nuse, sizeof(*use), cmp_dump_seq);
	for (size_t i = 0; next && i < nuse; i++) {
		const struct pl_dump *d = use[i];
		if (d->seq > r->seq && d->seq < until && d->len >= 16 && d->addr < next->hi && d->addr + d->len > next->lo)
			until = d->seq;
	}
	for (size_t i = 0; i < nuse && use[i]->seq < until; i++) {
		const struct pl_dump *d = use[i];
		uint64_t a = d->addr > r->lo ? d->addr : r->lo, b = d->addr + d->len < r->hi ? d->addr + d->len : r->hi;
		memcpy(x->code + (a - r->lo), p->bytes.buf + d->off + (a - d->addr), (size_t)(b - a));
		memset(seen + (a - r->lo), 1, (size_t)(b - a));
	}
	for (size_t i = 0; i < x->size; i++)
		jc->missing_bytes += !seen[i];
	free(seen);
	free(use);
}

static void pl_release(struct pl *p)
{
	for (size_t i = 0; i < p->nr; i++)
		free(p->r[i].loop);
	free(p->cur.loop);
	free(p->r);
	free(p->d);
	sb_release(&p->bytes);
	for (size_t i = 0; i < p->ng; i++)
		free(p->g[i].loop);
	free(p->g);
	for (size_t i = 0; i < p->ns; i++)
		free(p->s[i].where);
	free(p->s);
	free(p->opt_loop);
}

int jitcode_parse_pypylog(const char *name, const char *buf, size_t n, const struct jc_ticks *t,
			  struct jitcode *jc, struct kerr *e)
{
	struct pl p;
	memset(&p, 0, sizeof(p));
	p.name = name;
	p.e = e;
	int r = 0;
	for (const char *s = buf, *end = buf + n; s < end && r == 0;) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *le = nl ? nl : end;
		p.line++;
		if (memchr(s, 0, (size_t)(le - s)))
			r = pl_bad(&p, "a NUL byte");
		else
			r = pl_line(&p, s, le > s && le[-1] == '\r' ? le - 1 : le);
		s = nl ? nl + 1 : end;
	}
	pl_commit(&p);
	if (r == 0) {
		if (p.nd)
			qsort(p.d, p.nd, sizeof(*p.d), cmp_dump_addr);
		if (p.ng)
			qsort(p.g, p.ng, sizeof(*p.g), cmp_guard);
		if (p.ns)
			qsort(p.s, p.ns, sizeof(*p.s), cmp_start);
		size_t maxdump = 0;
		for (size_t i = 0; i < p.nd; i++)
			if (p.d[i].len > maxdump)
				maxdump = p.d[i].len;
		jc->dumps += p.nd;
		for (size_t k = 0; k < p.nr; k++) {
			const struct pl_region *rg = &p.r[k];
			if (rg->hi - rg->lo > JC_MAX_CODE || jc->n >= JC_MAX_ENTRIES)
				continue;
			if (jc->code_bytes + (rg->hi - rg->lo) > JC_MAX_TOTAL_CODE) {
				r = kerr_setc(e, KEXIT_CONFIG, "%s:%ld: this loop or bridge takes the JIT'd code's regions past "
					      "%llu MiB (JC_MAX_TOTAL_CODE): each is held with its bytes", name, rg->line,
					      (unsigned long long)(JC_MAX_TOTAL_CODE >> 20));
				break;
			}
			/* the section's tick in the runner's clock: the log's 16 hex digits and the calibration are the benchmark's */
			double d = 0;
			if (t && t->valid) {
				uint64_t tk = (uint64_t)rg->tick, t0 = (uint64_t)t->tick0;
				d = (tk >= t0 ? (double)(tk - t0) : -(double)(t0 - tk)) * t->ns_per_tick;
				if (!(d >= -(double)t->ns0 && d < 9.0e18 - (double)t->ns0)) {
					r = kerr_setc(e, KEXIT_CONFIG, "%s:%ld: its section's tick %#llx is not a time of the "
						      "run by the calibration", name, rg->line, (unsigned long long)tk);
					break;
				}
			}
			jc->code_bytes += rg->hi - rg->lo;
			struct jc_entry *x = jc_add(jc);
			x->addr = rg->lo;
			x->size = rg->hi - rg->lo;
			if (t && t->valid)
				x->t_ns = t->ns0 + (int64_t)d;
			struct strbuf nm = STRBUF_INIT;
			sb_adds(&nm, "pypy:");
			if (rg->bridge)
				pl_bridge_name(&p, rg->guard, &nm);
			else
				sb_adds(&nm, rg->loop);
			if (nm.len > JC_MAX_NAME)
				nm.buf[nm.len = JC_MAX_NAME] = 0;
			x->name = sb_detach(&nm);
			pl_code(&p, k, maxdump, x, jc);
		}
	}
	pl_release(&p);
	return r;
}

/* ---- LuaJIT ---- */

static int lj_int(json_t *o, const char *k, json_int_t lo, json_int_t *v)
{
	json_t *x = json_object_get(o, k);
	if (!json_is_integer(x) || json_integer_value(x) < lo)
		return -1;
	*v = json_integer_value(x);
	return 0;
}

/* {"trace":N,"parent":P,"exit":E,"t_ns":T,"addr":A,"size":S,"src":"@b.lua","line":L,"code":"HEX"} */
static int lj_line(struct jitcode *jc, const char *name, long line, json_t *o, struct kerr *e)
{
	json_int_t tr, parent, ex, t, addr, size, ln;
	if (lj_int(o, "trace", 1, &tr) || lj_int(o, "parent", 0, &parent) || lj_int(o, "exit", 0, &ex) ||
	    lj_int(o, "t_ns", 0, &t) || lj_int(o, "addr", 1, &addr) || lj_int(o, "size", 1, &size) ||
	    lj_int(o, "line", 0, &ln))
		return kerr_setc(e, KEXIT_CONFIG, "%s:%ld: fields trace, parent, exit, t_ns, addr, size, line: "
				 "non-negative integers expected", name, line);
	const char *src = json_string_value(json_object_get(o, "src"));
	const char *hex = json_string_value(json_object_get(o, "code"));
	if (!src || !hex)
		return kerr_setc(e, KEXIT_CONFIG, "%s:%ld: fields src and code: strings expected", name, line);
	if ((uint64_t)size > JC_MAX_CODE || strlen(hex) != (size_t)size * 2)
		return kerr_setc(e, KEXIT_CONFIG, "%s:%ld: field 'code': %lld bytes in hex expected", name, line,
				 (long long)size);
	if (jc->n >= JC_MAX_ENTRIES)
		return kerr_setc(e, KEXIT_CONFIG, "%s:%ld: more than 1000000 traces", name, line);
	if (jc->code_bytes + (uint64_t)size > JC_MAX_TOTAL_CODE)
		return kerr_setc(e, KEXIT_CONFIG, "%s:%ld: this trace takes the JIT'd code's regions past %llu MiB "
				 "(JC_MAX_TOTAL_CODE)", name, line, (unsigned long long)(JC_MAX_TOTAL_CODE >> 20));
	uint8_t *code = xmalloc((size_t)size);
	for (json_int_t i = 0; i < size; i++) {
		int h = hexval((unsigned char)hex[2 * i]), l = hexval((unsigned char)hex[2 * i + 1]);
		if (h < 0 || l < 0) {
			free(code);
			return kerr_setc(e, KEXIT_CONFIG, "%s:%ld: field 'code': not a hex digit", name, line);
		}
		code[i] = (uint8_t)(h << 4 | l);
	}
	struct jc_entry *x = jc_add(jc);
	x->addr = (uint64_t)addr;
	x->size = (uint64_t)size;
	x->t_ns = t;
	x->code = code;
	jc->code_bytes += (uint64_t)size;
	struct strbuf nm = STRBUF_INIT;
	const char *s = *src == '@' || *src == '=' ? src + 1 : src;
	sb_addf(&nm, "luajit:trace %lld (%.*s:%lld)", (long long)tr, (int)(strnlen(s, JC_MAX_NAME / 2)), s, (long long)ln);
	if (parent)
		sb_addf(&nm, " side of %lld/exit %lld", (long long)parent, (long long)ex);
	x->name = sb_detach(&nm);
	return 0;
}

int jitcode_parse_luajit(const char *name, const char *buf, size_t n, struct jitcode *jc, struct kerr *e)
{
	long line = 0;
	for (const char *s = buf, *end = buf + n; s < end;) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *le = nl ? nl : end;
		line++;
		if (le > s) {
			json_error_t je;
			json_t *o = json_loadb(s, (size_t)(le - s), JSON_REJECT_DUPLICATES, &je);
			int r = o && json_is_object(o) ? lj_line(jc, name, line, o, e)
						       : kerr_setc(e, KEXIT_CONFIG, "%s:%ld: a JSON object expected", name, line);
			json_decref(o);
			if (r < 0)
				return -1;
		}
		s = nl ? nl + 1 : end;
	}
	return 0;
}

/* ---- use ---- */

void jitcode_map_times(struct jitcode *jc, int64_t (*map)(const void *ctx, int64_t t), const void *ctx)
{
	for (size_t i = 0; i < jc->n; i++)
		if (jc->v[i].t_ns >= 0)
			jc->v[i].t_ns = map(ctx, jc->v[i].t_ns);
}

static int cmp_entry_addr(const void *a, const void *b, void *ctx)
{
	const struct jitcode *jc = ctx;
	const struct jc_entry *x = &jc->v[*(const uint32_t *)a], *y = &jc->v[*(const uint32_t *)b];
	return x->addr < y->addr ? -1 : x->addr > y->addr ? 1 : x->index < y->index ? -1 : x->index > y->index;
}

void jitcode_index(struct jitcode *jc)
{
	free(jc->by_addr);
	jc->by_addr = xmalloc((jc->n ? jc->n : 1) * sizeof(*jc->by_addr));
	jc->max_size = 0;
	for (size_t i = 0; i < jc->n; i++) {
		jc->by_addr[i] = (uint32_t)i;
		if (jc->v[i].size > jc->max_size)
			jc->max_size = jc->v[i].size;
	}
	if (jc->n)
		qsort_r(jc->by_addr, jc->n, sizeof(*jc->by_addr), cmp_entry_addr, jc);
}

const struct jc_entry *jitcode_lookup(const struct jitcode *jc, uint64_t ip, int64_t t)
{
	if (!jc->by_addr)
		return NULL;
	/* the regions starting at or before ip, back to max_size before it */
	size_t lo = 0, hi = jc->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (jc->v[jc->by_addr[mid]].addr <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	const struct jc_entry *best = NULL;
	for (size_t k = lo; k-- > 0;) {
		const struct jc_entry *x = &jc->v[jc->by_addr[k]];
		if (ip - x->addr >= jc->max_size)
			break;
		if (ip - x->addr >= x->size || (t >= 0 && x->t_ns > t))
			continue; /* too short, or made after the sample */
		if (!best || x->index > best->index)
			best = x;
	}
	return best;
}

static void put32(struct strbuf *b, uint32_t v)
{
	sb_add(b, &v, 4);
}

static void put64(struct strbuf *b, uint64_t v)
{
	sb_add(b, &v, 8);
}

int jitcode_write_jitdump(const struct jitcode *jc, uint32_t pid, const unsigned char *keep, const char *path,
			  struct kerr *e)
{
	struct strbuf b = STRBUF_INIT;
	int64_t t0 = mono_ns();
	put32(&b, JITDUMP_MAGIC);
	put32(&b, 1);  /* version */
	put32(&b, 40); /* header size */
	put32(&b, 62); /* EM_X86_64 */
	put32(&b, 0);
	put32(&b, pid);
	put64(&b, (uint64_t)t0);
	put64(&b, 0);  /* flags: timestamps in perf's clock */
	for (size_t i = 0; i < jc->n; i++) {
		const struct jc_entry *x = &jc->v[i];
		if (keep && !keep[i])
			continue;
		size_t nlen = strlen(x->name) + 1;
		put32(&b, JIT_CODE_LOAD);
		put32(&b, (uint32_t)(16 + 40 + nlen + x->size));
		put64(&b, (uint64_t)(x->t_ns >= 0 ? x->t_ns : 0));
		put32(&b, pid);
		put32(&b, pid);
		put64(&b, x->addr); /* vma */
		put64(&b, x->addr);
		put64(&b, x->size);
		put64(&b, x->index);
		sb_add(&b, x->name, nlen);
		if (x->code) {
			sb_add(&b, x->code, x->size);
		} else {
			sb_grow(&b, x->size);
			memset(b.buf + b.len, 0xcc, x->size);
			b.len += x->size;
		}
	}
	int r = write_file(path, b.buf, b.len, e);
	sb_release(&b);
	return r;
}

int jitcode_write_perfmap(const struct jitcode *jc, const char *path, struct kerr *e)
{
	struct strbuf b = STRBUF_INIT;
	for (size_t i = 0; i < jc->n; i++) {
		sb_addf(&b, "%llx %llx ", (unsigned long long)jc->v[i].addr, (unsigned long long)jc->v[i].size);
		esc_add(&b, ESC_TERM, jc->v[i].name); /* one line each, whatever the name holds */
		sb_addc(&b, '\n');
	}
	int r = write_file(path, b.buf ? b.buf : "", b.len, e);
	sb_release(&b);
	return r;
}
