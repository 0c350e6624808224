/*
 * gauge.c - reading the iteration times a harness prints (see gauge.h).
 *
 * The formats, as ReBench's adapters read them (facts, not their code):
 *   rebench  `[PREFIX: ]NAME: iterations=N runtime: Tus` (or `ms`) ends one
 *            iteration; `NAME CRITERION: iterations=N runtime: T..` and
 *            `[PREFIX: ]NAME: CRITERION: VALUEunit` are criteria of the
 *            iteration the next total line ends (criterion `total` is the
 *            total).  A line with `: iterations=` that does not parse is a
 *            fault, never skipped.
 *   jmh      `Iteration   1: 12.345 ms/op` measured, `# Warmup Iteration
 *            1: ...` warm-up (kept, counted in g->warmup); the unit must be
 *            a time per operation (s, ms, us, ns /op).
 *   time     `real 1.23` (time -p) or `real 0m1.234s` (bash's time) ends
 *            one iteration; `user` and `sys` lines are its criteria.
 *   regex    every line the regex matches is one iteration: its first
 *            capture group is the number, in the config's unit.
 * Lines are split by line_split() (util.h), the one splitter kiln's
 * streams share.
 */
#include "gauge.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char *const format_names[] = { "", "rebench", "jmh", "time", "regex", "multivariate", "plain_seconds",
					    "savina", "validation" };

enum gauge_format gauge_format_find(const char *name)
{
	for (size_t i = 1; i < ARRAY_SIZE(format_names); i++)
		if (!strcmp(name, format_names[i]))
			return (enum gauge_format)i;
	return GAUGE_NONE;
}

const char *gauge_format_name(enum gauge_format f)
{
	return (size_t)f < ARRAY_SIZE(format_names) ? format_names[f] : "";
}

const char *gauge_format_names(void)
{
	return "rebench, jmh, time, regex, multivariate, plain_seconds, savina, validation";
}

int gauge_unit_exp(const char *unit, size_t n)
{
	static const struct { const char *u; int exp; } units[] = {
		{ "s", 9 }, { "ms", 6 }, { "us", 3 }, { "\xc2\xb5s", 3 }, { "ns", 0 },
	};
	for (size_t i = 0; i < ARRAY_SIZE(units); i++)
		if (strlen(units[i].u) == n && !memcmp(unit, units[i].u, n))
			return units[i].exp;
	return -1;
}

int gauge_check_regex(const char *regex, struct strbuf *why)
{
	regex_t re;
	int rc = regcomp(&re, regex, REG_EXTENDED);
	if (rc) {
		char buf[256];
		regerror(rc, &re, buf, sizeof(buf));
		sb_addf(why, "not a POSIX extended regex: %s", buf);
		return -1;
	}
	size_t groups = re.re_nsub;
	regfree(&re);
	if (!groups) {
		sb_adds(why, "needs a capture group, (...), around the number");
		return -1;
	}
	return 0;
}

void gauge_describe(const struct gauge_conf *c, struct strbuf *out)
{
	sb_addf(out, "format=%s from=%s max_iterations=%ld", gauge_format_name(c->format),
		c->from_stderr ? "stderr" : "stdout", c->max_iterations);
	if (c->format == GAUGE_REGEX)
		sb_addf(out, " unit=%s regex=%s", c->unit, c->regex);
}

void gauge_conf_copy(struct gauge_conf *d, const struct gauge_conf *s)
{
	*d = *s;
	d->regex = s->regex ? xstrdup(s->regex) : NULL;
	d->unit = s->unit ? xstrdup(s->unit) : NULL;
}

void gauge_conf_release(struct gauge_conf *c)
{
	free(c->regex);
	free(c->unit);
	memset(c, 0, sizeof(*c));
}

/* ---- numbers ---- */

/* the parts of a decimal: digits [i0,i1), fraction [f0,f1), exponent */
struct decimal {
	size_t i0, i1, f0, f1;
	long e10;
};

static size_t digits(const char *s, size_t at, size_t n)
{
	while (at < n && s[at] >= '0' && s[at] <= '9')
		at++;
	return at;
}

static int decimal_split(const char *s, size_t n, struct decimal *d)
{
	d->i0 = 0;
	d->i1 = digits(s, 0, n);
	d->f0 = d->f1 = d->i1;
	if (d->i1 < n && s[d->i1] == '.') {
		d->f0 = d->i1 + 1;
		d->f1 = digits(s, d->f0, n);
	}
	if (d->i1 == d->i0 && d->f1 == d->f0)
		return -1;
	size_t at = d->f1;
	d->e10 = 0;
	if (at < n && (s[at] == 'e' || s[at] == 'E')) {
		int neg = at + 1 < n && s[at + 1] == '-';
		size_t e0 = at + 1 + (at + 1 < n && (s[at + 1] == '-' || s[at + 1] == '+'));
		size_t e1 = digits(s, e0, n);
		if (e1 == e0)
			return -1;
		for (size_t i = e0; i < e1; i++)
			d->e10 = d->e10 > 100000 ? d->e10 : d->e10 * 10 + (s[i] - '0');
		d->e10 = neg ? -d->e10 : d->e10;
		at = e1;
	}
	return at == n ? 0 : -1;
}

int gauge_decimal_ns(const char *s, size_t n, int exp, int64_t *ns)
{
	struct decimal d;
	if (decimal_split(s, n, &d) < 0)
		return -1;
	size_t il = d.i1 - d.i0, len = il + (d.f1 - d.f0);
	int nonzero = 0;
	for (size_t j = 0; j < len; j++)
		nonzero |= s[j < il ? d.i0 + j : d.f0 + j - il] != '0';
	*ns = 0;
	if (!nonzero)
		return 0;
	long shift = exp + d.e10 - (long)(d.f1 - d.f0);
	if (shift > 400 || shift < -(long)len - 400)
		return shift > 0 ? -1 : 0;
	long keep = (long)len + shift; /* digits left of the nanosecond point */
	int64_t acc = 0;
	for (long j = 0; j < keep; j++) {
		int dg = j < (long)len ? s[j < (long)il ? d.i0 + (size_t)j : d.f0 + (size_t)j - il] - '0' : 0;
		if (acc > (INT64_MAX - dg) / 10)
			return -1;
		acc = acc * 10 + dg;
	}
	if (keep >= 0 && keep < (long)len && s[keep < (long)il ? d.i0 + (size_t)keep : d.f0 + (size_t)keep - il] >= '5') {
		if (acc == INT64_MAX)
			return -1;
		acc++;
	}
	*ns = acc;
	return 0;
}

/* ---- faults ---- */

/* the first fault: at its line, or, once the output ended, after its last */
KILN_PRINTF(2, 3)
static int bad(struct gauge *g, const char *fmt, ...)
{
	if (g->error.len)
		return -1;
	va_list ap;
	sb_addf(&g->error, "gauge %s: %s ", gauge_format_name(g->c->format), g->c->from_stderr ? "stderr" : "stdout");
	sb_addf(&g->error, g->ended ? "(%ld line%s): " : "line %ld%s: ", g->lineno, g->ended && g->lineno != 1 ? "s" : "");
	va_start(ap, fmt);
	sb_vaddf(&g->error, fmt, ap);
	va_end(ap);
	return -1;
}

/* a piece of the output for a message: visible, at most 40 bytes */
static const char *excerpt(const char *p, size_t n, struct strbuf *sb)
{
	sb_reset(sb);
	sb_addc(sb, '\'');
	esc_addn(sb, ESC_TERM, p, n > 40 ? 40 : n);
	sb_adds(sb, n > 40 ? "...'" : "'");
	return sb->buf;
}

/* a number in the unit of 10^exp ns, or a fault naming it */
static int number(struct gauge *g, const char *p, size_t n, int exp, int64_t *ns)
{
	if (gauge_decimal_ns(p, n, exp, ns) == 0)
		return 0;
	struct strbuf sb = STRBUF_INIT;
	bad(g, "%s is not a number of nanoseconds kiln can store (digits, a '.', an exponent; at most %lld ns)",
	    excerpt(p, n, &sb), (long long)INT64_MAX);
	sb_release(&sb);
	return -1;
}

static int add_iteration(struct gauge *g, int64_t ns)
{
	long bound = g->expected ? g->expected : g->c->max_iterations;
	if ((long)g->n >= bound)
		return bad(g, "more iterations than the %ld %s", bound,
			   g->expected ? "asked for (iterations)" : "allowed (gauge.max_iterations)");
	if (g->n == g->alloc) {
		g->alloc = g->alloc ? g->alloc * 2 : 256;
		g->wall = xrealloc(g->wall, g->alloc * sizeof(*g->wall));
	}
	g->wall[g->n++] = ns;
	g->crit_here = 0;
	return 0;
}

/* a criterion of iteration `iter`: a per-iteration series gauge.NAME */
static int add_criterion_at(struct gauge *g, long iter, const char *name, size_t nl, double value, const char *unit)
{
	struct strbuf sb = STRBUF_INIT;
	if (!nl || nl > GAUGE_MAX_NAME) {
		sb_release(&sb);
		return bad(g, "a criterion's name must have 1 to %d bytes", GAUGE_MAX_NAME);
	}
	if (++g->crit_here > GAUGE_MAX_CRITERIA) {
		sb_release(&sb);
		return bad(g, "more than %d criteria for one iteration", GAUGE_MAX_CRITERIA);
	}
	sb_adds(&sb, "gauge.");
	esc_addn(&sb, ESC_TERM, name, nl); /* a control character in the name: kept visible, escaped */
	if (strmap_find(&g->recs.names, sb.buf) < 0 && ++g->ncrit > GAUGE_MAX_CRITERIA) {
		sb_release(&sb);
		return bad(g, "more than %d criteria", GAUGE_MAX_CRITERIA);
	}
	struct kiln_rec r = { .kind = REC_ITER, .iter = iter, .name = sb.buf, .value = value, .unit = unit };
	struct rec_sink sink = rec_list_sink(&g->recs);
	sink.emit(sink.ctx, &r);
	sb_release(&sb);
	return 0;
}

/* a criterion of the iteration in progress */
static int add_criterion(struct gauge *g, const char *name, size_t nl, double value, const char *unit)
{
	return add_criterion_at(g, (long)g->n, name, nl, value, unit);
}

/* 10^e for e in 0..18 */
static int64_t pow10i(int e)
{
	int64_t x = 1;
	while (e-- > 0)
		x *= 10;
	return x;
}

/* ---- the formats ---- */

static size_t skip_spaces(const char *p, size_t at, size_t n)
{
	while (at < n && (p[at] == ' ' || p[at] == '\t'))
		at++;
	return at;
}

/*
 * RebenchLog, as ReBench's two regular expressions match a line (from its
 * start, not to its end; Python's greedy `(?:.*: )?` prefix tries the last
 * ": " first, then earlier ones, then none):
 *   total      PREFIX NAME[ CRIT]: iterations=N runtime: NUM(u|m)s
 *   criterion  PREFIX NAME: CRIT: \s* NUM UNIT      (CRIT 1 to 30 bytes, no ':')
 * NAME is a run without white space, CRIT (of a total line) of \w and '.';
 * NUM is (\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?.  A line neither matches is
 * skipped, as ReBench skips it (AWFY's `NAME: iterations=N average: ...
 * total: ...` summary line is a criterion line, of the iteration that the
 * next total would end: dropped with it when none does).
 */

static int is_ws(unsigned char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f);
}

static int is_word(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
}

/* the end of a run of bytes that are not white space, from at */
static size_t run_end(const char *p, size_t at, size_t n)
{
	while (at < n && !is_ws((unsigned char)p[at]))
		at++;
	return at;
}

/* NUM at `at`: its end, or 0 when there is none; *e_at: where an exponent starts (its end when none) */
static size_t num_end(const char *p, size_t at, size_t n, size_t *e_at)
{
	size_t d = digits(p, at, n);
	if (d > at) {
		if (d < n && p[d] == '.')
			d = digits(p, d + 1, n);
	} else if (at < n && p[at] == '.' && digits(p, at + 1, n) > at + 1) {
		d = digits(p, at + 1, n);
	} else {
		return 0;
	}
	*e_at = d;
	if (d < n && (p[d] == 'e' || p[d] == 'E')) {
		size_t s = d + 1 + (d + 1 < n && (p[d + 1] == '-' || p[d + 1] == '+'));
		size_t x = digits(p, s, n);
		if (x > s)
			return x;
	}
	return d;
}

/* what a RebenchLog line matched */
struct rb_match {
	size_t crit0, crit1;   /* the criterion (crit1 == crit0: none, i.e. total) */
	size_t num0, num1;     /* its value */
	size_t unit0, unit1;
};

/* the total line's pattern from `at` (after the prefix) */
static int rb_total_at(const char *p, size_t n, size_t at, struct rb_match *m)
{
	static const char iters[] = ": iterations=", rt[] = " runtime: ";
	size_t r1 = run_end(p, at, n), after;
	if (r1 == at)
		return 0;
	memset(m, 0, sizeof(*m));
	if (r1 < n && p[r1] == ' ') { /* NAME CRIT: with CRIT of \w and '.' */
		size_t c = r1 + 1;
		while (c < n && (is_word((unsigned char)p[c]) || p[c] == '.'))
			c++;
		if (c > r1 + 1 && n - c >= sizeof(iters) - 1 && !memcmp(p + c, iters, sizeof(iters) - 1)) {
			m->crit0 = r1 + 1;
			m->crit1 = c;
			after = c;
			goto rest;
		}
	}
	/* NAME: (the run ends in ':') */
	if (r1 - at < 2 || p[r1 - 1] != ':' || n - (r1 - 1) < sizeof(iters) - 1 ||
	    memcmp(p + r1 - 1, iters, sizeof(iters) - 1))
		return 0;
	after = r1 - 1;
rest:
	after += sizeof(iters) - 1;
	size_t d = digits(p, after, n), e_at;
	if (d == after || n - d < sizeof(rt) - 1 || memcmp(p + d, rt, sizeof(rt) - 1))
		return 0;
	m->num0 = d + sizeof(rt) - 1;
	size_t x = num_end(p, m->num0, n, &e_at);
	if (!x)
		return 0;
	if (!(x + 1 < n && (p[x] == 'u' || p[x] == 'm') && p[x + 1] == 's'))
		x = e_at; /* the exponent given back: [mu]s must follow the number */
	if (!(x + 1 < n && (p[x] == 'u' || p[x] == 'm') && p[x + 1] == 's'))
		return 0;
	m->num1 = x;
	m->unit0 = x;
	m->unit1 = x + 2;
	return 1;
}

static int is_alpha(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* the criterion line's pattern from `at` */
static int rb_criterion_at(const char *p, size_t n, size_t at, struct rb_match *m)
{
	size_t r1 = run_end(p, at, n);
	if (r1 - at < 2 || p[r1 - 1] != ':' || r1 >= n || p[r1] != ' ')
		return 0;
	size_t c0 = r1 + 1, c1 = c0;
	while (c1 < n && p[c1] != ':' && c1 - c0 < 31)
		c1++;
	if (c1 == c0 || c1 >= n || p[c1] != ':' || c1 - c0 > 30)
		return 0;
	size_t v = c1 + 1, e_at;
	while (v < n && is_ws((unsigned char)p[v]))
		v++;
	size_t x = num_end(p, v, n, &e_at);
	if (!x)
		return 0;
	if (!(x < n && is_alpha((unsigned char)p[x])))
		x = e_at;
	if (!(x < n && is_alpha((unsigned char)p[x])))
		return 0;
	size_t u = x;
	while (u < n && is_alpha((unsigned char)p[u]))
		u++;
	*m = (struct rb_match){ c0, c1, v, x, x, u };
	return 1;
}

/* try `at_fn` after each ": " from the last to the first, then at the line's start */
static int rb_match(const char *p, size_t n, int (*at_fn)(const char *, size_t, size_t, struct rb_match *),
		    struct rb_match *m)
{
	for (size_t i = n >= 2 ? n - 1 : 0; i-- > 0;)
		if (p[i] == ':' && p[i + 1] == ' ' && at_fn(p, n, i + 2, m))
			return 1;
	return at_fn(p, n, 0, m);
}

static int rebench_line(struct gauge *g, const char *p, size_t n)
{
	struct rb_match m;
	if (rb_match(p, n, rb_total_at, &m)) {
		int64_t ns;
		if (number(g, p + m.num0, m.num1 - m.num0, p[m.unit0] == 'u' ? 3 : 6, &ns) < 0)
			return -1;
		if (m.crit1 > m.crit0 && (m.crit1 - m.crit0 != 5 || memcmp(p + m.crit0, "total", 5)))
			return add_criterion(g, p + m.crit0, m.crit1 - m.crit0, (double)ns / 1e9, "s");
		return add_iteration(g, ns);
	}
	if (!rb_match(p, n, rb_criterion_at, &m))
		return 0;
	char num[64], unit[32];
	if (m.num1 - m.num0 >= sizeof(num))
		return bad(g, "a criterion's value of more than %zu characters", sizeof(num) - 1);
	memcpy(num, p + m.num0, m.num1 - m.num0);
	num[m.num1 - m.num0] = '\0';
	size_t ul = m.unit1 - m.unit0 < sizeof(unit) ? m.unit1 - m.unit0 : sizeof(unit) - 1;
	memcpy(unit, p + m.unit0, ul);
	unit[ul] = '\0';
	if (m.crit1 - m.crit0 == 5 && !memcmp(p + m.crit0, "total", 5)) { /* a total in a criterion's form */
		int exp = gauge_unit_exp(unit, ul);
		int64_t ns;
		if (exp < 0)
			return bad(g, "a total in '%s', not a time (s, ms, us, ns)", esc(ESC_TERM, unit));
		return number(g, num, strlen(num), exp, &ns) < 0 ? -1 : add_iteration(g, ns);
	}
	double value;
	if (parse_double(num, &value) < 0)
		return bad(g, "criterion value '%s' is not a number", num);
	return add_criterion(g, p + m.crit0, m.crit1 - m.crit0, value, unit);
}

/*
 * JMH, as ReBench's adapter reads it: `(Iteration|# Warmup Iteration)\s+N:\s+
 * VALUE\s+UNIT` with VALUE \d+(\.\d+)?, other lines skipped, nothing read
 * after a line with `Run complete`.  UNIT is a time per operation (s/op,
 * ms/op, us/op, ns/op: the iteration's time) or a throughput (ops/s,
 * ops/ms, ops/us, ops/ns: its inverse is the time, and the printed value is
 * kept as the series gauge.throughput).
 */
static int jmh_line(struct gauge *g, const char *p, size_t n)
{
	static const char warm[] = "# Warmup Iteration", meas[] = "Iteration";
	if (g->stopped || memmem(p, n, "Run complete", 12)) {
		g->stopped = 1;
		return 0;
	}
	int warmup = n >= sizeof(warm) - 1 && !memcmp(p, warm, sizeof(warm) - 1);
	size_t at = warmup ? sizeof(warm) - 1 : sizeof(meas) - 1;
	if (!warmup && (n < at || memcmp(p, meas, at)))
		return 0;
	size_t s = at, d, v0, v1, u0, u1;
	while (s < n && is_ws((unsigned char)p[s]))
		s++;
	d = digits(p, s, n);
	if (s == at || d == s || d >= n || p[d] != ':')
		return 0; /* `Iterations: 5` and the like, not an iteration's line */
	for (v0 = d + 1; v0 < n && is_ws((unsigned char)p[v0]);)
		v0++;
	v1 = digits(p, v0, n);
	if (v1 > v0 && v1 < n && p[v1] == '.' && digits(p, v1 + 1, n) > v1 + 1)
		v1 = digits(p, v1 + 1, n);
	for (u0 = v1; u0 < n && is_ws((unsigned char)p[u0]);)
		u0++;
	if (v0 == d + 1 || v1 == v0 || u0 == v1 || u0 == n)
		return 0; /* not `N: VALUE UNIT` with VALUE of digits: ReBench skips it */
	for (u1 = u0; u1 < n && !is_ws((unsigned char)p[u1]);)
		u1++;
	int exp = u1 - u0 > 3 && !memcmp(p + u1 - 3, "/op", 3) ? gauge_unit_exp(p + u0, u1 - u0 - 3) : -1;
	int texp = u1 - u0 > 4 && !memcmp(p + u0, "ops/", 4) ? gauge_unit_exp(p + u0 + 4, u1 - u0 - 4) : -1;
	if (exp < 0 && texp < 0) {
		struct strbuf sb = STRBUF_INIT;
		bad(g, "%s: a time per operation (s/op, ms/op, us/op, ns/op) or a throughput (ops/s, ops/ms, ops/us, "
		       "ops/ns) expected", excerpt(p + v0, n - v0, &sb));
		sb_release(&sb);
		return -1;
	}
	if (warmup && g->warmup_expected && g->n > g->warmup)
		return bad(g, "a warm-up iteration after measured ones (several forks in one process? run one fork "
			      "per pexec: -f 1)");
	int64_t ns;
	if (exp >= 0 && number(g, p + v0, v1 - v0, exp, &ns) < 0)
		return -1;
	if (texp >= 0) { /* the time of one operation: the throughput's inverse */
		char num[64], unit[16];
		double ops;
		snprintf(num, sizeof(num), "%.*s", (int)(v1 - v0 < 63 ? v1 - v0 : 63), p + v0);
		snprintf(unit, sizeof(unit), "%.*s", (int)(u1 - u0 < 15 ? u1 - u0 : 15), p + u0);
		if (parse_double(num, &ops) < 0 || ops <= 0 || 1e9 / ops * 1e-9 * (double)pow10i(texp) > 9e18)
			return bad(g, "throughput %s %s gives no time per operation kiln can store", num, esc(ESC_TERM, unit));
		ns = (int64_t)llroundl((long double)pow10i(texp) / (long double)ops);
		if (add_criterion(g, "throughput", 10, ops, unit) < 0)
			return -1;
	}
	if (add_iteration(g, ns) < 0)
		return -1;
	g->warmup += warmup && g->warmup_expected;
	return 0;
}

/*
 * time: `real 1.23` (time -p) or `real 0m1.234s` (bash's time) ends an
 * iteration, `user` and `sys` lines are its criteria; the layout ReBench's
 * Time adapter asks GNU time for, `wall-time (secounds): 1.23` and `max rss
 * (kb): 1234`, too.  A line whose time does not read is skipped, as ReBench
 * skips it.
 */
static int time_line(struct gauge *g, const char *p, size_t n)
{
	static const char wall[] = "wall-time (secounds):", rss[] = "max rss (kb):";
	static const char *const words[] = { "real", "user", "sys" };
	int64_t ns, min_ns = 0;
	if (n > sizeof(wall) - 1 && !memcmp(p, wall, sizeof(wall) - 1)) {
		size_t at = skip_spaces(p, sizeof(wall) - 1, n);
		return gauge_decimal_ns(p + at, n - at, 9, &ns) < 0 ? 0 : add_iteration(g, ns);
	}
	if (n > sizeof(rss) - 1 && !memcmp(p, rss, sizeof(rss) - 1)) {
		size_t at = skip_spaces(p, sizeof(rss) - 1, n);
		char num[32];
		double kb;
		snprintf(num, sizeof(num), "%.*s", (int)(n - at < 31 ? n - at : 31), p + at);
		return parse_double(num, &kb) < 0 ? 0 : add_criterion(g, "MaxRSS", 6, kb, "kb");
	}
	size_t w = 0;
	while (w < ARRAY_SIZE(words) && (n <= strlen(words[w]) || memcmp(p, words[w], strlen(words[w])) ||
					 (p[strlen(words[w])] != ' ' && p[strlen(words[w])] != '\t')))
		w++;
	if (w == ARRAY_SIZE(words))
		return 0;
	size_t at = skip_spaces(p, strlen(words[w]), n), m = digits(p, at, n);
	if (m < n && p[m] == 'm' && m > at) { /* bash: 0m1.234s */
		if (gauge_decimal_ns(p + at, m - at, 9, &min_ns) < 0)
			return 0;
		if (min_ns > INT64_MAX / 60)
			return bad(g, "minutes out of range");
		min_ns *= 60;
		at = m + 1;
		n -= n > at && p[n - 1] == 's';
	}
	if (gauge_decimal_ns(p + at, n - at, 9, &ns) < 0)
		return 0;
	if (ns > INT64_MAX - min_ns)
		return bad(g, "a time out of range");
	ns += min_ns;
	if (w)
		return add_criterion(g, words[w], strlen(words[w]), (double)ns / 1e9, "s");
	return add_iteration(g, ns);
}

/*
 * ReBench's Multivariate adapter: `[N:]RESULT-NAME:[UNIT:]\s*VALUE` at the
 * line's start, VALUE \d+(\.\d+)?, UNIT ms when none.  NAME total is the
 * iteration's time (its unit a time): without N it ends the iteration, as
 * a RebenchLog total does; with N it is iteration N's (0, 1, ... in order),
 * and other names with N are criteria of iteration N.
 */
static int multivariate_line(struct gauge *g, const char *p, size_t n)
{
	static const char tag[] = "RESULT-";
	size_t at = digits(p, 0, n);
	long counter = -1;
	if (at > 0 && at < n && p[at] == ':' && n - at - 1 >= sizeof(tag) - 1 && !memcmp(p + at + 1, tag, sizeof(tag) - 1)) {
		counter = 0;
		for (size_t i = 0; i < at; i++)
			counter = counter > 100000000L ? counter : counter * 10 + (p[i] - '0');
		at++;
	} else {
		at = 0;
	}
	if (n - at < sizeof(tag) - 1 || memcmp(p + at, tag, sizeof(tag) - 1))
		return 0;
	size_t v0 = at + sizeof(tag) - 1, v1 = v0;
	while (v1 < n && is_word((unsigned char)p[v1]))
		v1++;
	if (v1 == v0 || v1 >= n || p[v1] != ':')
		return 0;
	size_t u0 = v1 + 1, u1 = u0, x0 = 0, x1 = 0;
	for (int with_unit = 1; with_unit >= 0 && !x1; with_unit--) {
		size_t s = u0;
		u1 = u0;
		if (with_unit) {
			while (u1 < n && is_word((unsigned char)p[u1]))
				u1++;
			if (u1 == u0 || u1 >= n || p[u1] != ':')
				continue;
			s = u1 + 1;
		}
		while (s < n && is_ws((unsigned char)p[s]))
			s++;
		size_t d = digits(p, s, n);
		if (d == s)
			continue;
		if (d + 1 < n && p[d] == '.' && digits(p, d + 1, n) > d + 1)
			d = digits(p, d + 1, n);
		x0 = s;
		x1 = d;
		if (!with_unit)
			u1 = u0;
	}
	if (!x1)
		return 0;
	char unit[32];
	snprintf(unit, sizeof(unit), "%.*s", u1 > u0 ? (int)(u1 - u0 < 31 ? u1 - u0 : 31) : 2, u1 > u0 ? p + u0 : "ms");
	int total = v1 - v0 == 5 && !memcmp(p + v0, "total", 5);
	if (counter > (long)g->n)
		return bad(g, "data point %ld before data point %zu has its total", counter, g->n);
	if (total) {
		int exp = gauge_unit_exp(unit, strlen(unit));
		int64_t ns;
		if (exp < 0)
			return bad(g, "a total in '%s', not a time (s, ms, us, ns)", esc(ESC_TERM, unit));
		if (counter >= 0 && counter < (long)g->n)
			return bad(g, "a second total for data point %ld", counter);
		return number(g, p + x0, x1 - x0, exp, &ns) < 0 ? -1 : add_iteration(g, ns);
	}
	char num[64];
	double value;
	snprintf(num, sizeof(num), "%.*s", (int)(x1 - x0 < 63 ? x1 - x0 : 63), p + x0);
	if (parse_double(num, &value) < 0)
		return bad(g, "value '%s' is not a number", num);
	return add_criterion_at(g, counter >= 0 ? counter : (long)g->n, p + v0, v1 - v0, value, unit);
}

/* ReBench's PlainSecondsLog adapter: a line that is a number alone is one iteration, in seconds */
static int plain_line(struct gauge *g, const char *p, size_t n)
{
	size_t at = 0;
	while (at < n && is_ws((unsigned char)p[at]))
		at++;
	at += at < n && p[at] == '+';
	int64_t ns;
	if (gauge_decimal_ns(p + at, n - at, 9, &ns) == 0)
		return add_iteration(g, ns);
	if (at < n && p[at] == '-' && gauge_decimal_ns(p + at + 1, n - at - 1, 9, &ns) == 0) {
		struct strbuf sb = STRBUF_INIT;
		bad(g, "%s: a negative time", excerpt(p, n, &sb));
		sb_release(&sb);
		return -1;
	}
	return 0;
}

/* ReBench's SavinaLog adapter: `NAME\s+Iteration-N:\s+D.D ms` */
static int savina_line(struct gauge *g, const char *p, size_t n)
{
	static const char it[] = "Iteration-";
	size_t a = 0;
	while (a < n && (is_word((unsigned char)p[a]) || p[a] == '.'))
		a++;
	size_t s = a;
	while (s < n && is_ws((unsigned char)p[s]))
		s++;
	if (!a || s == a || n - s < sizeof(it) - 1 || memcmp(p + s, it, sizeof(it) - 1))
		return 0;
	size_t d = digits(p, s + sizeof(it) - 1, n);
	if (d == s + sizeof(it) - 1 || d >= n || p[d] != ':')
		return 0;
	size_t v = d + 1;
	while (v < n && is_ws((unsigned char)p[v]))
		v++;
	size_t i1 = digits(p, v, n);
	if (v == d + 1 || i1 == v || i1 >= n || p[i1] != '.' || digits(p, i1 + 1, n) == i1 + 1)
		return 0;
	size_t f1 = digits(p, i1 + 1, n);
	if (n - f1 < 3 || memcmp(p + f1, " ms", 3))
		return 0;
	int64_t ns;
	return number(g, p + v, f1 - v, 6, &ns) < 0 ? -1 : add_iteration(g, ns);
}

/*
 * ReBench's ValidationLog adapter (SOMns' ImpactHarness): RebenchLog's total
 * line with NAME of \w and '.', an integer runtime and `success: true|false`
 * after it (the series gauge.Success, 1 or 0); `[Total] A#N M#N P#N` lines
 * are iterations of 0 s with the counts as criteria Actors, Messages and
 * Promises.
 */
static int validation_at(const char *p, size_t n, size_t at, struct rb_match *m)
{
	static const char iters[] = ": iterations=", rt[] = " runtime: ", ok[] = "s success: ";
	size_t a = at;
	while (a < n && (is_word((unsigned char)p[a]) || p[a] == '.'))
		a++;
	if (a == at || a >= n)
		return 0;
	memset(m, 0, sizeof(*m));
	if (p[a] == ' ') {
		size_t c = a + 1;
		while (c < n && (is_word((unsigned char)p[c]) || p[c] == '.'))
			c++;
		if (c == a + 1)
			return 0;
		m->crit0 = a + 1;
		m->crit1 = c;
		a = c;
	}
	if (n - a < sizeof(iters) - 1 || memcmp(p + a, iters, sizeof(iters) - 1))
		return 0;
	size_t d = digits(p, a + sizeof(iters) - 1, n);
	if (d == a + sizeof(iters) - 1 || n - d < sizeof(rt) - 1 || memcmp(p + d, rt, sizeof(rt) - 1))
		return 0;
	m->num0 = d + sizeof(rt) - 1;
	m->num1 = digits(p, m->num0, n);
	if (m->num1 == m->num0 || m->num1 >= n || (p[m->num1] != 'u' && p[m->num1] != 'm'))
		return 0;
	m->unit0 = m->num1;
	size_t s = m->num1 + 1;
	if (n - s < sizeof(ok) - 1 || memcmp(p + s, ok, sizeof(ok) - 1))
		return 0;
	s += sizeof(ok) - 1;
	if (n - s >= 4 && !memcmp(p + s, "true", 4))
		m->unit1 = 1;
	else if (n - s >= 5 && !memcmp(p + s, "false", 5))
		m->unit1 = 0;
	else
		return 0;
	return 1;
}

static int validation_line(struct gauge *g, const char *p, size_t n)
{
	struct rb_match m;
	if (rb_match(p, n, validation_at, &m)) {
		int64_t ns;
		if (number(g, p + m.num0, m.num1 - m.num0, p[m.unit0] == 'u' ? 3 : 6, &ns) < 0 ||
		    add_criterion(g, "Success", 7, (double)m.unit1, "bool") < 0)
			return -1;
		if (m.crit1 > m.crit0 && (m.crit1 - m.crit0 != 5 || memcmp(p + m.crit0, "total", 5)))
			return add_criterion(g, p + m.crit0, m.crit1 - m.crit0, (double)ns / 1e9, "s");
		return add_iteration(g, ns);
	}
	static const char tot[] = "[Total]";
	static const char *const names[3] = { "Actors", "Messages", "Promises" };
	static const char marks[3] = { 'A', 'M', 'P' };
	if (n < sizeof(tot) - 1 || memcmp(p, tot, sizeof(tot) - 1))
		return 0;
	size_t at = sizeof(tot) - 1;
	double counts[3];
	for (int i = 0; i < 3; i++) {
		size_t s = at;
		while (s < n && is_ws((unsigned char)p[s]))
			s++;
		if (s == at || s + 2 > n || p[s] != marks[i] || p[s + 1] != '#')
			return 0;
		at = digits(p, s + 2, n);
		if (at == s + 2)
			return 0;
		char num[32];
		snprintf(num, sizeof(num), "%.*s", (int)(at - s - 2 < 31 ? at - s - 2 : 31), p + s + 2);
		counts[i] = strtod(num, NULL);
	}
	for (int i = 0; i < 3; i++)
		if (add_criterion(g, names[i], strlen(names[i]), counts[i], "count") < 0)
			return -1;
	return add_iteration(g, 0);
}

static int regex_line(struct gauge *g, const char *p, size_t n)
{
	char *line = xstrndup(p, n); /* regexec needs its text ended; a NUL in the line ends it early */
	regmatch_t m[2];
	int r = 0;
	if (regexec(&g->re, line, 2, m, 0) == 0) {
		int64_t ns;
		struct strbuf sb = STRBUF_INIT;
		if (m[1].rm_so < 0)
			r = bad(g, "%s matches, but its capture group took no part", excerpt(p, n, &sb));
		else
			r = number(g, line + m[1].rm_so, (size_t)(m[1].rm_eo - m[1].rm_so),
				   gauge_unit_exp(g->c->unit, strlen(g->c->unit)), &ns) < 0 ? -1 : add_iteration(g, ns);
		sb_release(&sb);
	}
	free(line);
	return r;
}

int gauge_line(struct gauge *g, const char *p, size_t n)
{
	if (g->error.len)
		return -1;
	g->lineno++;
	while (n && (p[n - 1] == '\r' || p[n - 1] == ' ' || p[n - 1] == '\t'))
		n--;
	if (!n)
		return 0;
	switch (g->c->format) {
	case GAUGE_REBENCH: return rebench_line(g, p, n);
	case GAUGE_JMH: return jmh_line(g, p, n);
	case GAUGE_TIME: return time_line(g, p, n);
	case GAUGE_REGEX: return regex_line(g, p, n);
	case GAUGE_MULTIVARIATE: return multivariate_line(g, p, n);
	case GAUGE_PLAIN: return plain_line(g, p, n);
	case GAUGE_SAVINA: return savina_line(g, p, n);
	case GAUGE_VALIDATION: return validation_line(g, p, n);
	case GAUGE_NONE: break;
	}
	return 0;
}

/* ---- the reader ---- */

int gauge_init(struct gauge *g, const struct gauge_conf *c, long expected, long warmup_expected, struct kerr *e)
{
	memset(g, 0, sizeof(*g));
	g->c = c;
	g->expected = expected;
	g->warmup_expected = warmup_expected;
	g->recs = (struct rec_list)REC_LIST_INIT;
	if (c->format != GAUGE_REGEX)
		return 0;
	struct strbuf why = STRBUF_INIT;
	if (gauge_check_regex(c->regex, &why) < 0 || regcomp(&g->re, c->regex, REG_EXTENDED)) {
		kerr_set(e, "gauge.regex: %s", sb_str(&why));
		sb_release(&why);
		return -1;
	}
	g->have_re = 1;
	return 0;
}

static int line_cb(void *ctx, const char *p, size_t n)
{
	return gauge_line(ctx, p, n);
}

int gauge_feed(struct gauge *g, const char *data, size_t n)
{
	if (g->error.len)
		return -1;
	int r = line_split(&g->part, GAUGE_MAX_LINE, data, n, line_cb, g);
	if (r == LINE_TOO_LONG) {
		g->lineno++;
		return bad(g, "a line longer than %d bytes", GAUGE_MAX_LINE);
	}
	return r;
}

int gauge_finish(struct gauge *g)
{
	if (g->error.len)
		return -1;
	if (line_split_end(&g->part, line_cb, g) < 0)
		return -1;
	g->ended = 1;
	if (!g->n)
		return bad(g, "no iterations in the output");
	if (g->c->format == GAUGE_JMH && (long)g->warmup != g->warmup_expected)
		return bad(g, "%zu warm-up iterations where warmup_iterations is %ld (they are kept as kiln's "
			      "warm-up: make the two agree, -wi N and warmup_iterations: N)", g->warmup, g->warmup_expected);
	if (g->expected && (long)g->n != g->expected)
		return bad(g, "%zu iterations where %ld were asked for (iterations)", g->n, g->expected);
	return 0;
}

void gauge_release(struct gauge *g)
{
	if (g->have_re)
		regfree(&g->re);
	free(g->wall);
	rec_list_clear(&g->recs);
	sb_release(&g->part);
	sb_release(&g->error);
	memset(g, 0, sizeof(*g));
}
