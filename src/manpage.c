/*
 * manpage.c - a docs/ page (Markdown) as the body of a man page, rendered
 * by lowdown's library (Debian's liblowdown): headings as .SH/.SS,
 * paragraphs, lists, code blocks as .EX/.EE, tables through tbl, inline
 * code in bold, links as their text, and all text roff-escaped by lowdown
 * (a leading '.' or '\'', backslashes).  Around it, what a man page needs
 * that the Markdown is not: the page's own "# " title is dropped (NAME says
 * it) and the headings below move up one level; a table too wide for 80
 * columns (four columns or more) becomes a list, one item per row; non-
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
	for (size_t a = 0; a < len;) {
		const char *nl = memchr(md + a, '\n', len - a);
		size_t b = nl ? (size_t)(nl - md) : len;
		char *l = xstrndup(md + a, b - a);
		sv_push(&lines, l);
		free(l);
		a = b + 1;
	}
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
	sb_adds(out, ".ad l\n");
	man_ascii(roff, n, out);
	free(roff);
	return 0;
}
