/*
 * util.c - allocation, strbuf/strvec, the kerr error style, file reading and
 * the other small helpers declared in util.h.  Nothing here knows about
 * experiments; everything else in kiln builds on it.
 */
#include "util.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <sha2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>
#include <zstd.h>

static KILN_NORETURN void oom(size_t n)
{
	fprintf(stderr, "kiln: out of memory (%zu bytes)\n", n);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom(n);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		oom(n * size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		oom(n);
	return p;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

/*
 * The n bytes at s, NUL-ended: the caller knows s has them.  Not strndup:
 * a NUL among them is copied too, so that a reader (fmt-rebench.c) can
 * find it by strlen() != n.  To cut a string to a width, strnlen first.
 */
char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	sb_vaddf(&sb, fmt, ap);
	va_end(ap);
	return sb_detach(&sb);
}

/* ---- strbuf ---- */

void sb_grow(struct strbuf *sb, size_t extra)
{
	size_t need = sb->len + extra + 1;
	if (need <= sb->alloc)
		return;
	size_t a = sb->alloc ? sb->alloc : 64;
	while (a < need)
		a = a * 2;
	sb->buf = xrealloc(sb->buf, a);
	sb->alloc = a;
	sb->buf[sb->len] = '\0'; /* a new buffer is a string at once, even if nothing is added */
}

void sb_add(struct strbuf *sb, const void *data, size_t n)
{
	sb_grow(sb, n);
	if (n)
		memcpy(sb->buf + sb->len, data, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void sb_adds(struct strbuf *sb, const char *s)
{
	sb_add(sb, s, strlen(s));
}

void sb_add_shword(struct strbuf *sb, const char *s)
{
	static const char plain[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,%+";
	if (*s && strspn(s, plain) == strlen(s)) {
		sb_adds(sb, s);
		return;
	}
	sb_addc(sb, '\'');
	for (; *s; s++)
		*s == '\'' ? sb_adds(sb, "'\\''") : sb_addc(sb, *s);
	sb_addc(sb, '\'');
}

void sb_addc(struct strbuf *sb, char c)
{
	sb_add(sb, &c, 1);
}

void sb_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list cp;
	va_copy(cp, ap);
	sb_grow(sb, 64);
	int n = vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, cp);
	va_end(cp);
	if (n < 0)
		return;
	if ((size_t)n >= sb->alloc - sb->len) {
		sb_grow(sb, (size_t)n);
		vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, ap);
	}
	sb->len += (size_t)n;
}

void sb_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sb_vaddf(sb, fmt, ap);
	va_end(ap);
}

void sb_reset(struct strbuf *sb)
{
	sb->len = 0;
	if (sb->buf)
		sb->buf[0] = '\0';
}

void sb_release(struct strbuf *sb)
{
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->alloc = 0;
}

char *sb_detach(struct strbuf *sb)
{
	if (!sb->buf)
		sb_grow(sb, 0), sb->buf[0] = '\0';
	char *p = sb->buf;
	sb->buf = NULL;
	sb->len = sb->alloc = 0;
	return p;
}

/* ---- escaping untrusted text (see util.h) ---- */

/*
 * The code point at s (n > 0 bytes left) and its length in *len; -1 with
 * *len 1 when the bytes there are not UTF-8 (RFC 3629: no overlong forms,
 * no surrogates, nothing above U+10FFFF, no truncated sequence).
 */
static long u8_decode(const unsigned char *s, size_t n, size_t *len)
{
	unsigned char c = s[0];
	*len = 1;
	if (c < 0x80)
		return c;
	size_t need;
	long cp, min;
	if (c >= 0xc2 && c <= 0xdf)
		need = 1, cp = c & 0x1f, min = 0x80;
	else if (c >= 0xe0 && c <= 0xef)
		need = 2, cp = c & 0x0f, min = 0x800;
	else if (c >= 0xf0 && c <= 0xf4)
		need = 3, cp = c & 0x07, min = 0x10000;
	else
		return -1;
	if (n < need + 1)
		return -1;
	for (size_t i = 1; i <= need; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return -1;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return -1;
	*len = need + 1;
	return cp;
}

/* a code point no text target shows as itself: controls, bidi overrides, line separators */
static int u8_invisible(long cp, int keep_lines)
{
	if (keep_lines && (cp == '\n' || cp == '\t'))
		return 0;
	return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp == 0x200e || cp == 0x200f ||
	       (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

/* one ASCII character (the text's or an escape's) written for a target */
static void esc_ascii(struct strbuf *sb, enum esc_to to, char c)
{
	const char *r = NULL;
	switch (to) {
	case ESC_HTML:
		r = c == '&' ? "&amp;" : c == '<' ? "&lt;" : c == '>' ? "&gt;" : c == '"' ? "&quot;" : c == '\'' ? "&#39;" : NULL;
		break;
	case ESC_TEX:
		switch (c) {
		case '\\': r = "\\textbackslash{}"; break;
		case '~': r = "\\textasciitilde{}"; break;
		case '^': r = "\\textasciicircum{}"; break;
		case '<': r = "\\textless{}"; break;
		case '>': r = "\\textgreater{}"; break;
		case '|': r = "\\textbar{}"; break;
		/* a table row starts after \midrule or \\, which read a [ there as an optional argument (\\ a * too): in braces it is text */
		case '[': r = "{[}"; break;
		case ']': r = "{]}"; break;
		case '*': r = "{*}"; break;
		case '&': case '%': case '$': case '#': case '_': case '{': case '}':
			sb_addc(sb, '\\');
			break;
		}
		break;
	case ESC_GP:
		if (c == '\'')
			sb_addc(sb, '\'');
		break;
	case ESC_MD:
		if (strchr("\\`*_[]<>|#!~&$", c))
			sb_addc(sb, '\\');
		/*
		 * GitHub and GitLab mention @name (and notify: a commit subject in
		 * a pull-request comment would ping whomever it names) wherever the
		 * text, escaped or not, reads @ then a name: a zero-width space
		 * (U+200B) between them leaves the text as it reads
		 */
		if (c == '@')
			r = "@\xe2\x80\x8b";
		break;
	default:
		break;
	}
	if (r)
		sb_adds(sb, r);
	else
		sb_addc(sb, c);
}

static void esc_ascii_str(struct strbuf *sb, enum esc_to to, const char *s)
{
	for (; *s; s++)
		esc_ascii(sb, to, *s);
}

/* the visible form of n bytes, each ASCII character through the target's escaping */
static void esc_visible(struct strbuf *sb, enum esc_to to, const unsigned char *s, size_t n)
{
	int lines = to == ESC_LINES;
	for (size_t i = 0; i < n;) {
		size_t len;
		long cp = u8_decode(s + i, n - i, &len);
		char tmp[16];
		if (cp < 0) {
			snprintf(tmp, sizeof(tmp), "\\x%02x", s[i]);
			esc_ascii_str(sb, to, tmp);
		} else if (cp == 0 || (to != ESC_JSON && u8_invisible(cp, lines))) {
			if (cp == '\n' || cp == '\r' || cp == '\t')
				snprintf(tmp, sizeof(tmp), "\\%c", cp == '\n' ? 'n' : cp == '\r' ? 'r' : 't');
			else if (cp < 0x80)
				snprintf(tmp, sizeof(tmp), "\\x%02lx", cp);
			else
				snprintf(tmp, sizeof(tmp), "\\u%04lx", cp);
			esc_ascii_str(sb, to, tmp);
		} else if (cp < 0x80) {
			esc_ascii(sb, to, (char)cp);
		} else {
			sb_add(sb, s + i, len);
		}
		i += len;
	}
}

/* is t a plain decimal number ("-2", "+0.5", "-1.5e-3"): what a spreadsheet reads as a number, never a formula */
static int csv_number(const char *t)
{
	size_t i = *t == '-' || *t == '+', digits = 0;
	for (; t[i] >= '0' && t[i] <= '9'; i++)
		digits++;
	if (t[i] == '.')
		for (i++; t[i] >= '0' && t[i] <= '9'; i++)
			digits++;
	if (!digits)
		return 0;
	if (t[i] == 'e' || t[i] == 'E') {
		i += t[i + 1] == '-' || t[i + 1] == '+';
		if (!(t[++i] >= '0' && t[i] <= '9'))
			return 0;
		while (t[i] >= '0' && t[i] <= '9')
			i++;
	}
	return t[i] == '\0';
}

/*
 * one CSV field: the visible text, quoted when it holds , " or spaces at
 * an end; a formula start disarmed, but not a number's sign (-P n -2 2's
 * parameter_n was '-2, which no script reads back as -2)
 */
static void esc_csv(struct strbuf *sb, const unsigned char *s, size_t n)
{
	struct strbuf v = STRBUF_INIT;
	esc_visible(&v, ESC_TERM, s, n);
	const char *t = sb_str(&v);
	int formula = v.len && strchr("=+-@", t[0]) && !csv_number(t);
	if (formula || strpbrk(t, ",\"") || (v.len && (t[0] == ' ' || t[v.len - 1] == ' '))) {
		sb_addc(sb, '"');
		if (formula)
			sb_addc(sb, '\'');
		for (; *t; t++) {
			if (*t == '"')
				sb_addc(sb, '"');
			sb_addc(sb, *t);
		}
		sb_addc(sb, '"');
	} else {
		sb_add(sb, v.buf ? v.buf : "", v.len);
	}
	sb_release(&v);
}

/*
 * A Markdown code span: nothing is interpreted inside one but its end, so
 * the fence is one backtick longer than the longest run of them inside
 * (CommonMark 6.1), and '|' is written \| for GitHub's tables, which take
 * that out before the span is read.
 */
static void esc_mdcode(struct strbuf *sb, const unsigned char *s, size_t n)
{
	struct strbuf v = STRBUF_INIT;
	esc_visible(&v, ESC_TERM, s, n);
	const char *t = sb_str(&v);
	size_t run = 0, longest = 0;
	for (const char *p = t; *p; p++) {
		run = *p == '`' ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	int pad = v.len && (t[0] == '`' || t[v.len - 1] == '`');
	for (size_t i = 0; i <= longest; i++)
		sb_addc(sb, '`');
	if (pad)
		sb_addc(sb, ' ');
	for (const char *p = t; *p; p++) {
		if (*p == '|')
			sb_addc(sb, '\\');
		sb_addc(sb, *p);
	}
	if (pad)
		sb_addc(sb, ' ');
	for (size_t i = 0; i <= longest; i++)
		sb_addc(sb, '`');
	sb_release(&v);
}

/*
 * An AsciiDoc monospace literal that nothing in the text can end or turn
 * into markup: `pass:c[...]` keeps a run literally (only <, >, & escaped,
 * Asciidoctor's "c"), and the three characters that would end the run or
 * the table cell are attribute references: \ {backslash}, ] {endsb},
 * | {vbar}.
 */
static void esc_adoccode(struct strbuf *sb, const unsigned char *s, size_t n)
{
	struct strbuf v = STRBUF_INIT;
	esc_visible(&v, ESC_TERM, s, n);
	int open = 0;
	const char *t = sb_str(&v);
	/* words, numbers, paths and single dashes and dots mean nothing to AsciiDoc: `gzip -1 -c f` as hyperfine writes it */
	int plain = v.len && t[0] != ' ' && t[v.len - 1] != ' ' && !strstr(t, "--") && !strstr(t, "..") &&
		    strspn(t, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 /,%.-=") == v.len;
	sb_addc(sb, '`');
	for (const char *p = t; *p; p++) {
		if (plain) {
			sb_addc(sb, *p);
			continue;
		}
		const char *ref = *p == '\\' ? "{backslash}" : *p == ']' ? "{endsb}" : *p == '|' ? "{vbar}" : NULL;
		if (ref && open)
			sb_addc(sb, ']');
		if (ref) {
			sb_adds(sb, ref);
			open = 0;
			continue;
		}
		if (!open)
			sb_adds(sb, "pass:c[");
		open = 1;
		sb_addc(sb, *p);
	}
	sb_adds(sb, open ? "]`" : "`");
	sb_release(&v);
}

/* can t be Org verbatim between `m`s: no |, not starting or ending with a space, no inner m that would end it */
static int org_verbatim_ok(const char *t, char m)
{
	size_t n = strlen(t);
	if (!n || strchr(t, '|') || t[0] == m || strchr(" \t", t[0]) || strchr(" \t", t[n - 1]))
		return 0;
	for (const char *p = t; *p; p++)
		if (*p == m && (!p[1] || strchr(" \t-.,:!?;'\")}\\[", p[1])))
			return 0;
	return 1;
}

/* the Org entity that stands for c wherever it is (its exports give c back, org-entities.el), or NULL */
static const char *org_entity(char c)
{
	static const char *const ents[][2] = { { "|", "vert" }, { "$", "dollar" }, { "_", "under" }, { "/", "slash" },
					       { "<", "lt" }, { ">", "gt" }, { "~", "tilde" }, { "+", "plus" },
					       { "=", "equal" }, { "^", "asciicirc" }, { ":", "colon" } };
	for (size_t i = 0; i < ARRAY_SIZE(ents); i++)
		if (c == ents[i][0][0])
			return ents[i][1];
	return NULL;
}

/*
 * Org: =verbatim= as hyperfine writes it when the text allows, else
 * ~code~; else (a | in it, or both markers would end early) Org text in
 * which nothing is markup, a link, a macro, an entity, a LaTeX fragment,
 * a special string or an export snippet: | $ _ / < > ~ + = ^ : as Org
 * entities (\vert{}...), and a zero-width space after each of * [ ] { } \
 * @ - . (which have none).  Org splits a table row at every |, escaped or
 * not.
 */
static void esc_orgcode(struct strbuf *sb, const unsigned char *s, size_t n)
{
	struct strbuf v = STRBUF_INIT;
	esc_visible(&v, ESC_TERM, s, n);
	const char *t = sb_str(&v);
	char m = org_verbatim_ok(t, '=') ? '=' : org_verbatim_ok(t, '~') ? '~' : 0;
	if (m)
		sb_addf(sb, "%c%s%c", m, t, m);
	for (; !m && *t; t++) {
		const char *ent = org_entity(*t);
		if (ent)
			sb_addf(sb, "\\%s{}", ent);
		else
			sb_addc(sb, *t);
		if (strchr("*[]{}\\@-.", *t))
			sb_adds(sb, "\xe2\x80\x8b"); /* U+200B */
	}
	sb_release(&v);
}

void esc_addn(struct strbuf *sb, enum esc_to to, const void *s, size_t n)
{
	sb_grow(sb, n);
	if (to == ESC_CSV)
		esc_csv(sb, s, n);
	else if (to == ESC_MDCODE)
		esc_mdcode(sb, s, n);
	else if (to == ESC_ADOCCODE)
		esc_adoccode(sb, s, n);
	else if (to == ESC_ORGCODE)
		esc_orgcode(sb, s, n);
	else
		esc_visible(sb, to, s, n);
}

void esc_add(struct strbuf *sb, enum esc_to to, const char *s)
{
	esc_addn(sb, to, s ? s : "", s ? strlen(s) : 0);
}

const char *esc(enum esc_to to, const char *s)
{
	static struct strbuf ring[8];
	static unsigned next;
	struct strbuf *sb = &ring[next++ % ARRAY_SIZE(ring)];
	if (sb->alloc > 65536)
		sb_release(sb); /* one long text does not stay allocated for the rest of the run */
	sb_reset(sb);
	esc_add(sb, to, s);
	return sb_str(sb);
}

void esc_fputs(enum esc_to to, const char *s, FILE *f)
{
	struct strbuf sb = STRBUF_INIT;
	esc_add(&sb, to, s);
	fputs(sb_str(&sb), f);
	sb_release(&sb);
}

/* ---- strvec ---- */

static void sv_grow(struct strvec *sv)
{
	if (sv->n + 2 > sv->alloc) {
		sv->alloc = sv->alloc ? sv->alloc * 2 : 8;
		sv->v = xrealloc(sv->v, sv->alloc * sizeof(char *));
	}
}

void sv_push(struct strvec *sv, const char *s)
{
	sv_grow(sv);
	sv->v[sv->n++] = xstrdup(s);
	sv->v[sv->n] = NULL;
}

void sv_pushf(struct strvec *sv, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	sb_vaddf(&sb, fmt, ap);
	va_end(ap);
	sv_grow(sv);
	sv->v[sv->n++] = sb_detach(&sb);
	sv->v[sv->n] = NULL;
}

static ssize_t sv_findenv(const struct strvec *sv, const char *name)
{
	size_t nl = strlen(name);
	for (size_t i = 0; i < sv->n; i++)
		if (!strncmp(sv->v[i], name, nl) && sv->v[i][nl] == '=')
			return (ssize_t)i;
	return -1;
}

void sv_setenv(struct strvec *sv, const char *name, const char *value)
{
	ssize_t i = sv_findenv(sv, name);
	/* NAME=VALUE copied, not printed: a pexec's environment is built a dozen setenvs at a time, per pexec */
	size_t nl = strlen(name), vl = strlen(value);
	char *s = xmalloc(nl + vl + 2);
	memcpy(s, name, nl);
	s[nl] = '=';
	memcpy(s + nl + 1, value, vl + 1);
	if (i >= 0) {
		free(sv->v[i]);
		sv->v[i] = s;
		return;
	}
	sv_grow(sv);
	sv->v[sv->n++] = s;
	sv->v[sv->n] = NULL;
}

const char *sv_getenv(const struct strvec *sv, const char *name)
{
	ssize_t i = sv_findenv(sv, name);
	return i < 0 ? NULL : sv->v[i] + strlen(name) + 1;
}

void sv_clear(struct strvec *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = sv->alloc = 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void sv_sort(struct strvec *sv)
{
	if (sv->n > 1)
		qsort(sv->v, sv->n, sizeof(char *), cmp_str);
}

int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

void sort_doubles(double *v, size_t n)
{
	if (n > 1)
		qsort(v, n, sizeof(double), cmp_double);
}

char **sv_array(struct strvec *sv)
{
	if (!sv->v) {
		sv_grow(sv);
		sv->v[0] = NULL;
	}
	return sv->v;
}

/* ---- errors ---- */

static int kerr_vset(struct kerr *e, int code, const char *fmt, va_list ap)
{
	if (!e)
		return -1;
	sb_reset(&e->msg);
	sb_vaddf(&e->msg, fmt, ap);
	e->code = code;
	return -1;
}

int kerr_set(struct kerr *e, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	kerr_vset(e, KEXIT_FAIL, fmt, ap);
	va_end(ap);
	return -1;
}

int kerr_setc(struct kerr *e, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	kerr_vset(e, code, fmt, ap);
	va_end(ap);
	return -1;
}

int kerr_wrap(struct kerr *e, const char *fmt, ...)
{
	if (!e)
		return -1;
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	sb_vaddf(&sb, fmt, ap);
	va_end(ap);
	sb_adds(&sb, ": ");
	sb_adds(&sb, sb_str(&e->msg));
	sb_release(&e->msg);
	e->msg = sb;
	return -1;
}

void kerr_print(const struct kerr *e)
{
	kiln_error("%s", sb_str(&e->msg));
}

void kerr_release(struct kerr *e)
{
	sb_release(&e->msg);
}

int kiln_color(FILE *f)
{
	const char *nc = getenv("NO_COLOR");
	if (nc && *nc)
		return 0;
	const char *t = getenv("TERM");
	if (t && !strcmp(t, "dumb"))
		return 0;
	return isatty(fileno(f));
}

const char *kiln_col(FILE *f, const char *sgr)
{
	return kiln_color(f) ? sgr : "";
}

static void diag(const char *label, const char *sgr, const char *fmt, va_list ap)
{
	struct strbuf sb = STRBUF_INIT;
	int c = kiln_color(stderr);
	sb_adds(&sb, "kiln: ");
	if (label) {
		if (c)
			sb_adds(&sb, sgr);
		sb_adds(&sb, label);
		if (c)
			sb_adds(&sb, "\033[0m");
	}
	/* the message as a whole made visible: whatever it quotes from outside cannot reach the terminal raw */
	struct strbuf msg = STRBUF_INIT;
	sb_vaddf(&msg, fmt, ap);
	esc_addn(&sb, ESC_LINES, sb_str(&msg), msg.len);
	sb_release(&msg);
	sb_addc(&sb, '\n');
	fputs(sb.buf, stderr);
	sb_release(&sb);
}

void kiln_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag("error: ", "\033[1;31m", fmt, ap);
	va_end(ap);
}

void kiln_warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag("warning: ", "\033[1;33m", fmt, ap);
	va_end(ap);
}

void kiln_note(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag(NULL, "", fmt, ap);
	va_end(ap);
}

void kiln_die(int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag("error: ", "\033[1;31m", fmt, ap);
	va_end(ap);
	exit(code);
}

/* ---- files ---- */

int read_file(const char *path, struct strbuf *out, struct kerr *e)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return kerr_setc(e, KEXIT_CONFIG, "%s: %s", path, strerror(errno));
	sb_reset(out);
	sb_grow(out, 65536);
	out->buf[out->len] = '\0'; /* an empty file is "" too */
	for (;;) {
		sb_grow(out, 65536);
		ssize_t r = read(fd, out->buf + out->len, out->alloc - out->len - 1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			int err = errno;
			close(fd);
			return kerr_setc(e, KEXIT_CONFIG, "%s: %s", path, strerror(err));
		}
		if (r == 0)
			break;
		out->len += (size_t)r;
		out->buf[out->len] = '\0';
	}
	close(fd);
	return 0;
}

ssize_t pwrite_zeros(int fd, off_t at, size_t n)
{
	static const char page[4096];
	struct iovec v[16];
	int nv = 0;
	for (size_t left = n; left && nv < 16; nv++) {
		v[nv].iov_base = (void *)page;
		v[nv].iov_len = left < sizeof(page) ? left : sizeof(page);
		left -= v[nv].iov_len;
	}
	return pwritev(fd, v, nv, at);
}

/*
 * A new file at TMP, a name beside an output that anyone who can write to
 * its folder can guess (PATH.tmp.PID): whatever is there (a link to a file
 * of root's, a file made to be reused) is removed and the file made anew,
 * never followed or truncated in place.
 */
int open_tmp_new(const char *tmp)
{
	if (unlink(tmp) < 0 && errno != ENOENT)
		return -1;
	return open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
}

int write_file(const char *path, const void *data, size_t n, struct kerr *e)
{
	char *tmp = xasprintf("%s.tmp.%d", path, (int)getpid());
	int fd = open_tmp_new(tmp);
	if (fd < 0) {
		kerr_set(e, "%s: %s", tmp, strerror(errno));
		free(tmp);
		return -1;
	}
	const char *p = data;
	size_t left = n;
	while (left) {
		ssize_t w = write(fd, p, left);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			kerr_set(e, "%s: %s", path, strerror(errno));
			close(fd);
			unlink(tmp);
			free(tmp);
			return -1;
		}
		p += w;
		left -= (size_t)w;
	}
	if (fsync(fd) < 0 || close(fd) < 0 || rename(tmp, path) < 0) {
		kerr_set(e, "%s: %s", path, strerror(errno));
		unlink(tmp);
		free(tmp);
		return -1;
	}
	free(tmp);
	return 0;
}

/* state, process group and start time of PID from /proc (after the command's closing parenthesis) */
int proc_stat(const char *pid, char *state, long *pgrp, unsigned long long *start)
{
	char path[300], buf[1024];
	snprintf(path, sizeof(path), "/proc/%s/stat", pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	char *p = strrchr(buf, ')');
	if (!p)
		return -1;
	/* after the command: field 3 (state), 4 (ppid), 5 (pgrp) ... 22 (starttime) */
	char *save = NULL;
	int field = 3;
	for (char *t = strtok_r(p + 1, " ", &save); t; t = strtok_r(NULL, " ", &save), field++) {
		if (field == 3)
			*state = *t;
		if (field == 5)
			*pgrp = atol(t);
		if (field == 22) {
			*start = strtoull(t, NULL, 10);
			return 0;
		}
	}
	return -1;
}

/* kiln's own start time (clock ticks since boot), the record's proof that a live pid is still this kiln */
unsigned long long proc_self_start(void)
{
	char state;
	long pg;
	unsigned long long start = 0;
	return proc_stat("self", &state, &pg, &start) == 0 ? start : 0;
}

int random_bytes(void *p, size_t n, struct kerr *e)
{
	for (size_t got = 0; got < n;) {
		ssize_t k = getrandom((char *)p + got, n - got, 0);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return kerr_set(e, "cannot draw random bytes (getrandom): %s", strerror(errno));
		got += (size_t)k;
	}
	return 0;
}

int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t wall_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void iso_time(int64_t ns, char *buf, size_t n)
{
	time_t t = (time_t)(ns / 1000000000);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int parse_long(const char *s, long *out)
{
	char *end;
	if (!s || !*s || isspace((unsigned char)*s))
		return -1;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

int line_split(struct strbuf *part, size_t max, const char *data, size_t n, line_fn fn, void *ctx)
{
	while (n) {
		const char *nl = memchr(data, '\n', n);
		size_t take = nl ? (size_t)(nl - data) : n;
		if (part->len + take > max)
			return LINE_TOO_LONG;
		if (!nl) {
			sb_add(part, data, take);
			return 0;
		}
		int r;
		if (part->len) {
			sb_add(part, data, take);
			r = fn(ctx, part->buf, part->len);
			sb_reset(part);
		} else {
			r = fn(ctx, data, take);
		}
		if (r < 0)
			return -1;
		data += take + 1;
		n -= take + 1;
	}
	return 0;
}

int line_split_end(struct strbuf *part, line_fn fn, void *ctx)
{
	if (!part->len)
		return 0;
	int r = fn(ctx, part->buf, part->len);
	sb_reset(part);
	return r;
}

int parse_double(const char *s, double *out)
{
	char *end;
	if (!s || !*s || isspace((unsigned char)*s))
		return -1;
	/*
	 * decimal only: strtod also reads C's hexadecimal floats, so a
	 * warmup_stats CSV cell or a ReBench value '0x10' was read as 16
	 * (seconds, ms), where Python's float() and every peer refuse it
	 */
	const char *d = s + (*s == '-' || *s == '+');
	if (d[0] == '0' && (d[1] == 'x' || d[1] == 'X'))
		return -1;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || *end || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}

size_t utf8_cut(const char *s, size_t max)
{
	size_t n = strlen(s);
	if (n <= max)
		return n;
	n = max;
	while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;
	return n;
}

size_t utf8_len(const unsigned char *p, const unsigned char *end)
{
	unsigned char c = *p;
	size_t n = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
	int ok = n && (size_t)(end - p) >= n;
	for (size_t k = 1; ok && k < n; k++)
		ok = (p[k] & 0xc0) == 0x80;
	if (ok && n == 2)
		ok = c >= 0xc2;
	else if (ok && n == 3)
		ok = !(c == 0xe0 && p[1] < 0xa0) && !(c == 0xed && p[1] >= 0xa0);
	else if (ok && n == 4)
		ok = c <= 0xf4 && !(c == 0xf0 && p[1] < 0x90) && !(c == 0xf4 && p[1] >= 0x90);
	return ok ? n : 0;
}

int str_ends_with(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);
	return n >= m && !memcmp(s + n - m, suf, m);
}

int star_match(const char *pat, const char *s)
{
	const char *star = NULL, *ss = NULL;
	while (*s) {
		if (*pat == '*') {
			star = pat++;
			ss = s;
		} else if (*pat == *s) {
			pat++;
			s++;
		} else if (star) {
			pat = star + 1;
			s = ++ss;
		} else {
			return 0;
		}
	}
	while (*pat == '*')
		pat++;
	return *pat == '\0';
}

int mkdir_p(const char *path, int mode)
{
	char *p = xstrdup(path);
	for (char *q = p + 1; *q; q++) {
		if (*q == '/') {
			*q = '\0';
			if (mkdir(p, (mode_t)mode) < 0 && errno != EEXIST) {
				free(p);
				return -1;
			}
			*q = '/';
		}
	}
	int r = mkdir(p, (mode_t)mode);
	free(p);
	return (r < 0 && errno != EEXIST) ? -1 : 0;
}

/*
 * Remove NAME inside the folder open as dfd, whatever it is, without ever
 * following a symbolic link and without leaving the file system of `dev`:
 * every step is relative to a descriptor kiln opened itself (openat with
 * O_NOFOLLOW|O_DIRECTORY, unlinkat), so a process that swaps a folder for a
 * link while kiln walks cannot send the walk anywhere else.  Depth is
 * bounded (a hostile tree cannot exhaust kiln's stack or descriptors).
 */
#define RM_MAX_DEPTH 256
static int rm_at(int dfd, const char *name, dev_t dev, int depth)
{
	for (int attempt = 0; attempt < 8; attempt++) {
		if (unlinkat(dfd, name, 0) == 0 || errno == ENOENT)
			return 0;
		if (errno != EISDIR && errno != EPERM)
			return -1;
		if (depth >= RM_MAX_DEPTH) {
			errno = ELOOP;
			return -1;
		}
		int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			if (errno == ENOTDIR || errno == ELOOP || errno == ENOENT)
				continue; /* replaced by something else meanwhile: unlink that */
			return -1;
		}
		struct stat st;
		if (fstat(fd, &st) < 0 || st.st_dev != dev) {
			close(fd);
			errno = EXDEV; /* a mount point inside: never walk into another file system */
			return -1;
		}
		DIR *d = fdopendir(fd);
		if (!d) {
			close(fd);
			return -1;
		}
		struct dirent *de;
		int r = 0;
		while ((de = readdir(d))) {
			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			if (rm_at(dirfd(d), de->d_name, dev, depth + 1) < 0)
				r = -1;
		}
		int err = errno;
		closedir(d);
		if (r < 0) {
			errno = err;
			return -1;
		}
		if (unlinkat(dfd, name, AT_REMOVEDIR) == 0 || errno == ENOENT)
			return 0;
		if (errno != ENOTEMPTY && errno != EEXIST)
			return -1;
		/* something appeared inside meanwhile: go round again */
	}
	errno = EBUSY;
	return -1;
}

int rm_rf_at(int dfd, const char *name)
{
	struct stat st;
	if (!*name || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, "..")) {
		errno = EINVAL;
		return -1;
	}
	return fstat(dfd, &st) == 0 ? rm_at(dfd, name, st.st_dev, 0) : -1;
}

int rm_rf(const char *path)
{
	char *dir = path_dirname(path);
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	if (dfd < 0)
		return errno == ENOENT ? 0 : -1;
	int r = rm_rf_at(dfd, base);
	int err = errno;
	close(dfd);
	errno = err;
	return r;
}

char *path_join(const char *a, const char *b)
{
	if (!a || !*a || b[0] == '/')
		return xstrdup(b);
	size_t al = strlen(a);
	return xasprintf("%s%s%s", a, a[al - 1] == '/' ? "" : "/", b);
}

char *abspath(const char *p)
{
	if (p[0] == '/')
		return xstrdup(p);
	char *cwd = getcwd(NULL, 0);
	char *r = path_join(cwd ? cwd : ".", p);
	free(cwd);
	return r;
}

char *path_dirname(const char *path)
{
	const char *s = strrchr(path, '/');
	if (!s)
		return xstrdup(".");
	if (s == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(s - path));
}

int file_exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

int file_up_to_date(const char *target, const char *source)
{
	struct stat st, ss;
	if (stat(target, &st) < 0)
		return 0;
	if (stat(source, &ss) < 0)
		return 1;
	return st.st_mtim.tv_sec > ss.st_mtim.tv_sec ||
	       (st.st_mtim.tv_sec == ss.st_mtim.tv_sec && st.st_mtim.tv_nsec >= ss.st_mtim.tv_nsec);
}

int is_executable(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

char *find_in_path(const char *name)
{
	if (!name || !*name)
		return NULL;
	if (strchr(name, '/'))
		return is_executable(name) ? xstrdup(name) : NULL;
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		const char *c = strchr(path, ':');
		size_t l = c ? (size_t)(c - path) : strlen(path);
		char *dir = xstrndup(path, l);
		char *full = path_join(*dir ? dir : ".", name);
		free(dir);
		if (is_executable(full))
			return full;
		free(full);
		if (!c)
			break;
		path = c + 1;
	}
	return NULL;
}

/* ---- strmap ---- */

static uint64_t fnv1a(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ULL;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	return h;
}

/* the slot holding the n bytes at s, or the empty one where they would go */
static size_t strmap_slot(const struct strmap *m, const char *s, size_t n)
{
	size_t mask = m->nslots - 1, i = (size_t)fnv1a(s, n) & mask;
	while (m->slots[i]) {
		const char *k = m->keys[m->slots[i] - 1];
		if (!strncmp(k, s, n) && !k[n])
			break;
		i = (i + 1) & mask;
	}
	return i;
}

long strmap_find(const struct strmap *m, const char *s)
{
	if (!m->nslots)
		return -1;
	size_t i = strmap_slot(m, s, strlen(s));
	return m->slots[i] ? (long)(m->slots[i] - 1) : -1;
}

size_t strmap_addn(struct strmap *m, const char *s, size_t n)
{
	if (2 * (m->n + 1) > m->nslots) {
		size_t ns = m->nslots ? m->nslots * 2 : 16;
		free(m->slots);
		m->slots = xcalloc(ns, sizeof(*m->slots));
		m->nslots = ns;
		for (size_t k = 0; k < m->n; k++)
			m->slots[strmap_slot(m, m->keys[k], strlen(m->keys[k]))] = k + 1;
	}
	size_t i = strmap_slot(m, s, n);
	if (m->slots[i])
		return m->slots[i] - 1;
	if ((m->n & (m->n - 1)) == 0) /* grow the key array at powers of two */
		m->keys = xrealloc(m->keys, (m->n ? 2 * m->n : 1) * sizeof(*m->keys));
	m->keys[m->n] = xstrndup(s, n);
	m->slots[i] = ++m->n;
	return m->n - 1;
}

size_t strmap_add(struct strmap *m, const char *s)
{
	return strmap_addn(m, s, strlen(s));
}

void strmap_clear(struct strmap *m)
{
	for (size_t k = 0; k < m->n; k++)
		free(m->keys[k]);
	free(m->keys);
	free(m->slots);
	memset(m, 0, sizeof(*m));
}

void hash_hex(const void *data, size_t n, char out[65])
{
	SHA256Data(data, n, out);
}

int read_file_zst(const char *path, size_t max, struct strbuf *out, struct kerr *e)
{
	struct strbuf in = STRBUF_INIT;
	int r = read_file(path, &in, e);
	if (r < 0 || !str_ends_with(path, ".zst")) {
		if (r == 0 && in.len > max)
			r = kerr_setc(e, KEXIT_CONFIG, "%s: more than %zu bytes", path, max);
		if (r == 0)
			sb_add(out, in.buf ? in.buf : "", in.len);
		sb_release(&in);
		return r;
	}
	ZSTD_DCtx *d = ZSTD_createDCtx();
	ZSTD_inBuffer ib = { in.buf, in.len, 0 };
	size_t left = 1;
	char chunk[65536];
	while (r == 0 && (ib.pos < ib.size || left)) {
		ZSTD_outBuffer ob = { chunk, sizeof(chunk), 0 };
		left = ZSTD_decompressStream(d, &ob, &ib);
		if (ZSTD_isError(left))
			r = kerr_setc(e, KEXIT_CONFIG, "%s: zstd: %s", path, ZSTD_getErrorName(left));
		else if (out->len + ob.pos > max)
			r = kerr_setc(e, KEXIT_CONFIG, "%s: more than %zu bytes decompressed", path, max);
		else if (!ob.pos && ib.pos == ib.size && left)
			r = kerr_setc(e, KEXIT_CONFIG, "%s: zstd: the compressed stream is truncated", path);
		else
			sb_add(out, chunk, ob.pos);
	}
	ZSTD_freeDCtx(d);
	sb_release(&in);
	return r;
}

/* used by keep_log (run.c) and the pypy plugin's tests */
int zstd_compress_file(const char *path, struct kerr *e)
{
	char *out = xasprintf("%s.zst", path);
	char *tmp = xasprintf("%s.zst.tmp", path);
	int in = -1, fo = -1, r = -1;
	ZSTD_CCtx *c = ZSTD_createCCtx();
	size_t incap = ZSTD_CStreamInSize(), outcap = ZSTD_CStreamOutSize();
	char *ib = xmalloc(incap), *ob = xmalloc(outcap);
	ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, 3);
	ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);

	in = open(path, O_RDONLY | O_CLOEXEC);
	if (in < 0) {
		kerr_set(e, "%s: %s", path, strerror(errno));
		goto out;
	}
	fo = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fo < 0) {
		kerr_set(e, "%s: %s", tmp, strerror(errno));
		goto out;
	}
	for (;;) {
		ssize_t n = read(in, ib, incap);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			kerr_set(e, "%s: %s", path, strerror(errno));
			goto out;
		}
		ZSTD_EndDirective mode = n == 0 ? ZSTD_e_end : ZSTD_e_continue;
		ZSTD_inBuffer zi = { ib, (size_t)n, 0 };
		size_t left;
		do {
			ZSTD_outBuffer zo = { ob, outcap, 0 };
			left = ZSTD_compressStream2(c, &zo, &zi, mode);
			if (ZSTD_isError(left)) {
				kerr_set(e, "%s: zstd: %s", path, ZSTD_getErrorName(left));
				goto out;
			}
			for (size_t w = 0; w < zo.pos;) {
				ssize_t k = write(fo, ob + w, zo.pos - w);
				if (k < 0 && errno == EINTR)
					continue;
				if (k < 0) {
					kerr_set(e, "%s: %s", tmp, strerror(errno));
					goto out;
				}
				w += (size_t)k;
			}
		} while (mode == ZSTD_e_end ? left != 0 : zi.pos < zi.size);
		if (n == 0)
			break;
	}
	if (fsync(fo) < 0 || close(fo) < 0) {
		fo = -1;
		kerr_set(e, "%s: %s", tmp, strerror(errno));
		goto out;
	}
	fo = -1;
	if (rename(tmp, out) < 0) {
		kerr_set(e, "%s: %s", out, strerror(errno));
		goto out;
	}
	unlink(path);
	r = 0;
out:
	if (in >= 0)
		close(in);
	if (fo >= 0)
		close(fo);
	if (r < 0)
		unlink(tmp);
	ZSTD_freeCCtx(c);
	free(ib);
	free(ob);
	free(tmp);
	free(out);
	return r;
}

size_t display_width(const char *s)
{
	return display_cut(s, (size_t)-1, NULL);
}

size_t display_cut(const char *s, size_t width, size_t *bytes)
{
	static locale_t utf8;
	const char *s0 = s;
	if (!utf8)
		utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
	locale_t old = utf8 ? uselocale(utf8) : (locale_t)0;
	size_t w = 0, len = strlen(s);
	mbstate_t st;
	memset(&st, 0, sizeof(st));
	while (len) {
		wchar_t wc;
		size_t n = utf8 ? mbrtowc(&wc, s, len, &st) : (size_t)-1, c = 1;
		if (n == (size_t)-1 || n == (size_t)-2 || n == 0) {
			memset(&st, 0, sizeof(st));
			n = 1;
		} else {
			int cw = wcwidth(wc);
			c = cw < 0 ? 1 : (size_t)cw;
		}
		if (w + c > width)
			break;
		w += c;
		s += n;
		len -= n;
	}
	if (utf8)
		uselocale(old);
	if (bytes)
		*bytes = (size_t)(s - s0);
	return w;
}

void sb_pad(struct strbuf *sb, const char *s, size_t width)
{
	sb_adds(sb, s);
	for (size_t w = display_width(s); w < width; w++)
		sb_addc(sb, ' ');
}

const struct time_unit *time_unit_for(double s)
{
	static const struct time_unit units[] = {
		{ "s", "s", "s", 1 },
		{ "ms", "ms", "ms", 1e3 },
		{ "µs", "us", "\\textmu{}s", 1e6 },
		{ "ns", "ns", "ns", 1e9 },
	};
	size_t i = 0;
	s = fabs(s);
	if (isfinite(s) && s > 0)
		while (i + 1 < ARRAY_SIZE(units) && s * units[i].scale < 1)
			i++;
	return &units[i];
}

void fmt_duration(struct strbuf *sb, double s)
{
	if (!(s >= 0) || !isfinite(s)) {
		sb_adds(sb, "?");
		return;
	}
	double r = floor(s + 0.5);
	if (r < 60)
		sb_addf(sb, "%.0f s", r);
	else if (r < 3600)
		sb_addf(sb, "%.0f min", floor(r / 60));
	else if (r < 86400)
		sb_addf(sb, "%d h %02d min", (int)(r / 3600), (int)fmod(r, 3600) / 60);
	else if (r < 14 * 86400)
		sb_addf(sb, "%.0f d %d h", floor(r / 86400), (int)fmod(r, 86400) / 3600);
	else if (r < 365.25 * 86400)
		sb_addf(sb, "%.1f weeks", r / (7 * 86400));
	else
		sb_addf(sb, "%.1f years", r / (365.25 * 86400));
}
