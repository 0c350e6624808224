/*
 * manpage.c - a docs/ page (Markdown) as the body of a man page, rendered
 * by lowdown's library (Debian's liblowdown): headings as .SH/.SS,
 * paragraphs, lists, code blocks as .EX/.EE, tables through tbl, inline
 * code in bold, links as their text, and all text roff-escaped by lowdown
 * (a leading '.' or '\'', backslashes).  Around it, what a man page needs
 * that the Markdown is not: the page's own "# " title is dropped (NAME says
 * it) and the headings below move up one level; a table too wide for 80
 * columns (four columns or more) becomes a list, one item per row, and
 * the others get a last column that fills the line; non-
 * ASCII text becomes groff's \[uXXXX] escapes, so the page is the same
 * with or without preconv; lines are left-adjusted (filled table cells
 * cannot be stretched without groff's warnings).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/cdefs.h>
#include <sys/queue.h>

#include <lowdown.h>

#include "manpage.h"

/* s[0..len) one line each onto lines */
static void split_lines(const char *s, size_t len, struct strvec *lines)
{
	for (size_t a = 0; a < len;) {
		const char *nl = memchr(s + a, '\n', len - a);
		size_t b = nl ? (size_t)(nl - s) : len;
		char *l = xstrndup(s + a, b - a);
		sv_push(lines, l);
		free(l);
		a = b + 1;
	}
}

/* a fence of ``` or ~~~ opens or closes a code block */
static int is_fence(const char *l)
{
	return !strncmp(l, "```", 3) || !strncmp(l, "~~~", 3);
}

/* s[0..n) without the spaces around it, onto cells */
static void push_trimmed(struct strvec *cells, const char *s, size_t n)
{
	while (n && (*s == ' ' || *s == '\t'))
		s++, n--;
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	char *t = xstrndup(s, n);
	sv_push(cells, t);
	free(t);
}

/* the cells of a table row "| a | `b|c` | d |", split at '|' outside code spans and not escaped */
static void table_cells(const char *l, struct strvec *cells)
{
	struct strbuf c = STRBUF_INIT;
	int code = 0;
	size_t len = strlen(l), i = l[0] == '|' ? 1 : 0;
	for (; i < len; i++) {
		if (l[i] == '\\' && i + 1 < len && l[i + 1] == '|') {
			sb_addc(&c, '|');
			i++;
		} else if (l[i] == '`') {
			code = !code;
			sb_addc(&c, '`');
		} else if (l[i] == '|' && !code) {
			push_trimmed(cells, c.buf ? c.buf : "", c.len);
			sb_reset(&c);
		} else
			sb_addc(&c, l[i]);
	}
	size_t k = 0;
	while (k < c.len && (c.buf[k] == ' ' || c.buf[k] == '\t'))
		k++;
	if (k < c.len)
		push_trimmed(cells, c.buf, c.len);
	sb_release(&c);
}

/* a last column that is the row's text rather than one more field */
static int is_text_column(const char *h)
{
	static const char *const words[] = { "", "meaning", "description", "what", "notes", "why" };
	for (size_t i = 0; i < ARRAY_SIZE(words); i++)
		if (!strcasecmp(h, words[i]))
			return 1;
	return 0;
}

/* one row of a wide table as a list item: "- FIRST (HEAD2: CELL2; ...): LAST" */
static void row_item(const struct strvec *head, const struct strvec *row, struct strbuf *out)
{
	size_t n = row->n, text = n > 1 && head->n >= n && is_text_column(head->v[n - 1]);
	sb_addf(out, "- %s", n ? row->v[0] : "");
	int open = 0;
	for (size_t k = 1; k < n - text; k++) {
		if (!*row->v[k])
			continue;
		sb_addf(out, "%s%s: %s", open ? "; " : " (", k < head->n ? head->v[k] : "", row->v[k]);
		open = 1;
	}
	if (open)
		sb_adds(out, ")");
	if (text)
		sb_addf(out, ": %s", row->v[n - 1]);
	sb_adds(out, "\n");
}

/*
 * The table whose header is at lines[*i]: copied as it is when it fits in
 * 80 columns (three columns or fewer), else a list.  *i moves past it.
 */
static void wide_table(const struct strvec *lines, size_t *i, struct strbuf *out)
{
	struct strvec head = STRVEC_INIT;
	table_cells(lines->v[*i], &head);
	if (head.n < 4) {
		sv_clear(&head);
		return;
	}
	size_t j = *i + 2; /* past the header and its |---| line */
	sb_adds(out, "\n");
	for (; j < lines->n && lines->v[j][0] == '|'; j++) {
		struct strvec row = STRVEC_INIT;
		table_cells(lines->v[j], &row);
		row_item(&head, &row, out);
		sv_clear(&row);
	}
	sb_adds(out, "\n");
	sv_clear(&head);
	*i = j;
}

static int is_table_start(const struct strvec *lines, size_t i)
{
	return lines->v[i][0] == '|' && i + 1 < lines->n && !strncmp(lines->v[i + 1], "|-", 2);
}

/* the Markdown lowdown is given: no title, headings up a level, wide tables as lists */
static void man_markdown(const char *md, size_t len, struct strbuf *out)
{
	struct strvec lines = STRVEC_INIT;
	split_lines(md, len, &lines);
	int fence = 0, titled = 0;
	for (size_t i = 0; i < lines.n;) {
		const char *l = lines.v[i];
		if (is_fence(l))
			fence = !fence;
		if (!fence && l[0] == '#') {
			size_t h = strspn(l, "#");
			if (l[h] == ' ' && h == 1 && !titled) {
				titled = 1;
				i++;
				continue;
			}
			if (l[h] == ' ' && h > 1)
				l++;
		}
		if (!fence && is_table_start(&lines, i)) {
			size_t was = i;
			wide_table(&lines, &i, out);
			if (i != was)
				continue;
		}
		sb_addf(out, "%s\n", l);
		i++;
	}
	sv_clear(&lines);
}

/*
 * A tbl table as lowdown writes it (every cell a T{ text block, the
 * columns of equal width) made to fit: the last column fills what the
 * others leave (x), and a short one-line cell of the others is plain data,
 * so its column is as wide as its text.
 */
struct tbl_cell {
	struct strbuf text;
	size_t lines;
};

static void tbl_row(struct tbl_cell *cells, size_t n, struct strbuf *out)
{
	for (size_t i = 0; i < n; i++) {
		struct strbuf *t = &cells[i].text;
		int plain = i + 1 < n && cells[i].lines == 1 && t->len <= 30 && !memchr(t->buf, '|', t->len) &&
			    t->buf[0] != '.' && t->buf[0] != '\'';
		if (i)
			sb_addc(out, '|');
		if (plain)
			sb_addf(out, "%s", t->buf);
		else
			sb_addf(out, "T{\n%sT}", t->len ? t->buf : "");
		if (plain && t->len && t->buf[t->len - 1] == '\n')
			out->len--, out->buf[out->len] = '\0';
		sb_release(t);
		cells[i].lines = 0;
	}
	sb_addc(out, '\n');
}

/* the table from lines[*i] (".TS") to its ".TE", rewritten; *i moves past it */
static void tbl_fit(const struct strvec *lines, size_t *i, struct strbuf *out)
{
	size_t j = *i;
	sb_adds(out, ".TS\n");
	for (j++; j < lines->n && !strchr(lines->v[j], ';'); j++)
		sb_addf(out, "%s\n", lines->v[j]);
	if (j < lines->n) { /* the options: no "expand" (the x column fills the line) */
		const char *o = lines->v[j], *x = strstr(o, "expand ");
		sb_addf(out, "%.*s%s\n", (int)(x ? x - o : (long)strlen(o)), o, x ? x + 7 : "");
	}
	for (j++; j < lines->n && !strchr(lines->v[j], '.'); j++) /* format lines before the last */
		sb_addf(out, "%s\n", lines->v[j]);
	if (j < lines->n) /* the last: its last column x */
		sb_addf(out, "%.*sx.\n", (int)(strlen(lines->v[j]) - 1), lines->v[j]);
	struct tbl_cell *cells = NULL;
	size_t n = 0, cap = 0;
	for (j++; j < lines->n && strcmp(lines->v[j], ".TE"); j++) {
		const char *l = lines->v[j];
		if (!strcmp(l, "T{") || !strcmp(l, "T}|T{")) {
			if (n == cap)
				cells = xrealloc(cells, (cap = cap ? 2 * cap : 8) * sizeof(*cells));
			cells[n].text = (struct strbuf)STRBUF_INIT;
			cells[n++].lines = 0;
		} else if (!strcmp(l, "T}")) {
			tbl_row(cells, n, out);
			n = 0;
		} else if (n) {
			sb_addf(&cells[n - 1].text, "%s\n", l);
			cells[n - 1].lines++;
		} else
			sb_addf(out, "%s\n", l); /* a rule or a data line of its own */
	}
	for (size_t k = 0; k < n; k++)
		sb_release(&cells[k].text);
	free(cells);
	sb_adds(out, ".TE\n");
	*i = j + 1;
}

/* lowdown's roff with its tables made to fit */
static void man_tables(const char *roff, size_t len, struct strbuf *out)
{
	struct strvec lines = STRVEC_INIT;
	split_lines(roff, len, &lines);
	for (size_t i = 0; i < lines.n;) {
		if (!strcmp(lines.v[i], ".TS"))
			tbl_fit(&lines, &i, out);
		else
			sb_addf(out, "%s\n", lines.v[i++]);
	}
	sv_clear(&lines);
}

/* lowdown's roff made plain ASCII (\[uXXXX] for the rest) and its code font bold */
static void man_ascii(const char *s, size_t n, struct strbuf *out)
{
	for (size_t i = 0; i < n;) {
		unsigned char c = (unsigned char)s[i];
		if (c == '\\' && i + 2 < n && s[i + 1] == 'f' && s[i + 2] == 'C') {
			sb_adds(out, "\\fB"); /* constant width is not a font on a terminal */
			i += 3;
			continue;
		}
		if (c < 0x80) {
			sb_addc(out, (char)c);
			i++;
			continue;
		}
		int len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
		uint32_t cp = len == 4 ? c & 0x07 : len == 3 ? c & 0x0f : len == 2 ? c & 0x1f : 0xfffd;
		int k = 1;
		for (; k < len && i + (size_t)k < n && ((unsigned char)s[i + (size_t)k] & 0xc0) == 0x80; k++)
			cp = cp << 6 | ((unsigned char)s[i + (size_t)k] & 0x3f);
		if (k < len)
			cp = 0xfffd; /* a broken sequence */
		sb_addf(out, "\\[u%04X]", (unsigned)cp);
		i += (size_t)k;
	}
}

int man_from_markdown(const char *md, size_t len, struct strbuf *out, struct kerr *e)
{
	struct strbuf pre = STRBUF_INIT;
	man_markdown(md, len, &pre);
	struct lowdown_opts o;
	memset(&o, 0, sizeof(o));
	o.type = LOWDOWN_MAN;
	o.feat = LOWDOWN_TABLES | LOWDOWN_FENCED | LOWDOWN_STRIKE | LOWDOWN_COMMONMARK;
	o.oflags = LOWDOWN_NROFF_GROFF | LOWDOWN_NROFF_NOLINK;
	o.maxdepth = 128;
	char *roff = NULL;
	size_t n = 0;
	int ok = lowdown_buf(&o, pre.buf ? pre.buf : "", pre.len, &roff, &n, NULL);
	sb_release(&pre);
	if (!ok) {
		free(roff);
		return kerr_set(e, "the Markdown could not be rendered as roff");
	}
	struct strbuf fit = STRBUF_INIT;
	man_tables(roff, n, &fit);
	free(roff);
	sb_adds(out, ".ad l\n");
	man_ascii(fit.buf ? fit.buf : "", fit.len, out);
	sb_release(&fit);
	return 0;
}
