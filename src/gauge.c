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

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char *const format_names[] = { "", "rebench", "jmh", "time", "regex" };

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
	return "rebench, jmh, time, regex";
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

/* a criterion of the iteration in progress: a per-iteration series gauge.NAME */
static int add_criterion(struct gauge *g, const char *name, size_t nl, double value, const char *unit)
{
	struct strbuf sb = STRBUF_INIT;
	if (!nl || nl > GAUGE_MAX_NAME) {
		sb_release(&sb);
		return bad(g, "a criterion's name must have 1 to %d bytes", GAUGE_MAX_NAME);
	}
	for (size_t i = 0; i < nl; i++)
		if ((unsigned char)name[i] < 0x20 || name[i] == 0x7f) {
			bad(g, "criterion %s has a control character", excerpt(name, nl, &sb));
			sb_release(&sb);
			return -1;
		}
	if (++g->crit_here > GAUGE_MAX_CRITERIA) {
		sb_release(&sb);
		return bad(g, "more than %d criteria for one iteration", GAUGE_MAX_CRITERIA);
	}
	sb_adds(&sb, "gauge.");
	sb_add(&sb, name, nl);
	if (strmap_find(&g->recs.names, sb.buf) < 0 && ++g->ncrit > GAUGE_MAX_CRITERIA) {
		sb_release(&sb);
		return bad(g, "more than %d criteria", GAUGE_MAX_CRITERIA);
	}
	struct kiln_rec r = { .kind = REC_ITER, .iter = (long)g->n, .name = sb.buf, .value = value, .unit = unit };
	struct rec_sink sink = rec_list_sink(&g->recs);
	sink.emit(sink.ctx, &r);
	sb_release(&sb);
	return 0;
}

/* ---- the formats ---- */

static const char *rfind(const char *p, size_t n, const char *what)
{
	size_t wl = strlen(what);
	for (size_t i = n >= wl ? n - wl + 1 : 0; i-- > 0;)
		if (!memcmp(p + i, what, wl))
			return p + i;
	return NULL;
}

static size_t skip_spaces(const char *p, size_t at, size_t n)
{
	while (at < n && (p[at] == ' ' || p[at] == '\t'))
		at++;
	return at;
}

/* `NAME[ CRITERION]: iterations=N runtime: T(us|ms)`, the head before `: iterations=` given */
static int rebench_runtime(struct gauge *g, const char *p, size_t n, const char *mark)
{
	const char *head = p, *sep = rfind(p, (size_t)(mark - p), ": ");
	if (sep)
		head = sep + 2;
	size_t hl = (size_t)(mark - head);
	const char *sp = memchr(head, ' ', hl);
	const char *rest = mark + strlen(": iterations=");
	size_t at = (size_t)(rest - p), d = digits(p, at, n);
	struct strbuf sb = STRBUF_INIT;
	static const char rt[] = " runtime: ";
	if (d == at || n - d < sizeof(rt) - 1 || memcmp(p + d, rt, sizeof(rt) - 1)) {
		bad(g, "%s: 'iterations=N runtime: T' expected after the name", excerpt(p, n, &sb));
		sb_release(&sb);
		return -1;
	}
	at = d + sizeof(rt) - 1;
	size_t u = at;
	while (u < n && ((p[u] >= '0' && p[u] <= '9') || p[u] == '.'))
		u++;
	int exp = u + 2 <= n && p[u + 1] == 's' && (p[u] == 'u' || p[u] == 'm') ? (p[u] == 'u' ? 3 : 6) : -1;
	if (exp < 0) {
		bad(g, "%s: a runtime in us or ms expected", excerpt(p + at, n - at, &sb));
		sb_release(&sb);
		return -1;
	}
	sb_release(&sb);
	int64_t ns;
	if (number(g, p + at, u - at, exp, &ns) < 0)
		return -1;
	if (sp && (size_t)(mark - sp - 1) && (mark - sp - 1 != 5 || memcmp(sp + 1, "total", 5)))
		return add_criterion(g, sp + 1, (size_t)(mark - sp - 1), (double)ns / 1e9, "s");
	return add_iteration(g, ns);
}

/* `[PREFIX: ]NAME: CRITERION: VALUEunit` at the end of the line; other lines are not RebenchLog's */
static int rebench_criterion(struct gauge *g, const char *p, size_t n)
{
	size_t u = n;
	while (u > 0 && ((p[u - 1] >= 'a' && p[u - 1] <= 'z') || (p[u - 1] >= 'A' && p[u - 1] <= 'Z')))
		u--;
	size_t v = u;
	while (v > 0 && ((p[v - 1] >= '0' && p[v - 1] <= '9') || p[v - 1] == '.'))
		v--;
	if (u == n || v == u || v == 0)
		return 0;
	size_t c1 = v;
	while (c1 > 0 && (p[c1 - 1] == ' ' || p[c1 - 1] == '\t'))
		c1--;
	if (c1 < 2 || p[c1 - 1] != ':')
		return 0;
	const char *sep = rfind(p, c1 - 1, ": ");
	if (!sep || sep == p || memchr(sep + 2, ':', (size_t)(p + c1 - 1 - (sep + 2))))
		return 0;
	const char *name = sep + 2;
	double value;
	char num[64];
	if (u - v >= sizeof(num))
		return bad(g, "a criterion's value of more than %zu characters", sizeof(num) - 1);
	memcpy(num, p + v, u - v);
	num[u - v] = '\0';
	if (parse_double(num, &value) < 0)
		return bad(g, "criterion value '%s' is not a number", num);
	char unit[32];
	size_t ul = n - u < sizeof(unit) ? n - u : sizeof(unit) - 1;
	memcpy(unit, p + u, ul);
	unit[ul] = '\0';
	return add_criterion(g, name, (size_t)(p + c1 - 1 - name), value, unit);
}

static int rebench_line(struct gauge *g, const char *p, size_t n)
{
	const char *mark = memmem(p, n, ": iterations=", 13);
	return mark ? rebench_runtime(g, p, n, mark) : rebench_criterion(g, p, n);
}

/* JMH: `[# Warmup ]Iteration   N: VALUE UNIT/op` */
static int jmh_line(struct gauge *g, const char *p, size_t n)
{
	static const char warm[] = "# Warmup Iteration", meas[] = "Iteration";
	int warmup = n >= sizeof(warm) - 1 && !memcmp(p, warm, sizeof(warm) - 1);
	size_t at = warmup ? sizeof(warm) - 1 : sizeof(meas) - 1;
	if (!warmup && (n < at || memcmp(p, meas, at)))
		return 0;
	size_t s = skip_spaces(p, at, n), d = digits(p, s, n);
	if (s == at || d == s || d >= n || p[d] != ':')
		return 0; /* `Iterations: 5` and the like, not an iteration's line */
	struct strbuf sb = STRBUF_INIT;
	size_t v0 = skip_spaces(p, d + 1, n), v1 = v0;
	while (v1 < n && p[v1] != ' ' && p[v1] != '\t')
		v1++;
	size_t u0 = skip_spaces(p, v1, n), u1 = u0;
	while (u1 < n && p[u1] != ' ' && p[u1] != '\t')
		u1++;
	int exp = u1 - u0 > 3 && !memcmp(p + u1 - 3, "/op", 3) ? gauge_unit_exp(p + u0, u1 - u0 - 3) : -1;
	if (exp < 0) {
		bad(g, "%s: a time per operation (s/op, ms/op, us/op, ns/op) expected; throughput and sample modes "
		       "are not read (run JMH with -bm avgt or ss)", excerpt(p + v0, n - v0, &sb));
		sb_release(&sb);
		return -1;
	}
	sb_release(&sb);
	if (warmup && g->n > g->warmup)
		return bad(g, "a warm-up iteration after measured ones (several forks in one process? run one fork "
			      "per pexec: -f 1)");
	int64_t ns;
	if (number(g, p + v0, v1 - v0, exp, &ns) < 0 || add_iteration(g, ns) < 0)
		return -1;
	g->warmup += warmup;
	return 0;
}

/* time: `real 1.23` or `real 0m1.234s`; user and sys are criteria */
static int time_line(struct gauge *g, const char *p, size_t n)
{
	static const char *const words[] = { "real", "user", "sys" };
	size_t w = 0;
	while (w < ARRAY_SIZE(words) && (n <= strlen(words[w]) || memcmp(p, words[w], strlen(words[w])) ||
					 (p[strlen(words[w])] != ' ' && p[strlen(words[w])] != '\t')))
		w++;
	if (w == ARRAY_SIZE(words))
		return 0;
	size_t at = skip_spaces(p, strlen(words[w]), n), m = digits(p, at, n);
	int64_t ns, min_ns = 0;
	if (m < n && p[m] == 'm' && m > at) { /* bash: 0m1.234s */
		if (number(g, p + at, m - at, 9, &min_ns) < 0)
			return -1;
		if (min_ns > INT64_MAX / 60)
			return bad(g, "minutes out of range");
		min_ns *= 60;
		at = m + 1;
		n -= n > at && p[n - 1] == 's';
	}
	if (number(g, p + at, n - at, 9, &ns) < 0)
		return -1;
	if (ns > INT64_MAX - min_ns)
		return bad(g, "a time out of range");
	ns += min_ns;
	if (w)
		return add_criterion(g, words[w], strlen(words[w]), (double)ns / 1e9, "s");
	return add_iteration(g, ns);
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
