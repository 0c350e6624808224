/*
 * test_manpage.c - docs/ Markdown made man page roff (manpage.c): hostile
 * text stays text (a line starting with '.' or '\'' is never a request, a
 * backslash never an escape), the page's title goes, headings move up a
 * level, wide tables become lists, narrow ones tbl, non-ASCII \[uXXXX].
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "manpage.h"
#include "util.h"

static char *render(const char *md)
{
	struct strbuf sb = STRBUF_INIT;
	struct kerr e = KERR_INIT;
	assert_int_equal(man_from_markdown(md, strlen(md), &sb, &e), 0);
	kerr_release(&e);
	return sb_detach(&sb);
}

/* is there a line that starts with `start` */
static int has_line(const char *roff, const char *start)
{
	size_t n = strlen(start);
	for (const char *l = roff; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (!strncmp(l, start, n))
			return 1;
	return 0;
}

/* every line that is a request is one of those a rendered page may have */
static void only_known_requests(const char *roff)
{
	static const char *const ok[] = { ".SH", ".SS", ".LP", ".PP", ".IP", ".TP", ".EX", ".EE", ".TS", ".TE",
					  ".RS", ".RE", ".ad", ".sp", ".br", ".nf", ".fi", ".in", ".ti", ".B ",
					  ".I ", ".UR", ".UE", ".MT", ".ME", ".ft", ".PD", ".HP", ".if", ".ie", ".el" };
	for (const char *l = roff; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (*l != '.' && *l != '\'')
			continue;
		int known = 0;
		for (size_t i = 0; i < ARRAY_SIZE(ok); i++)
			if (!strncmp(l, ok[i], strlen(ok[i])) && (l[strlen(ok[i])] == '\n' || l[strlen(ok[i])] == ' ' ||
								 ok[i][strlen(ok[i]) - 1] == ' '))
				known = 1;
		if (!known) {
			const char *nl = strchr(l, '\n');
			print_error("an unknown request: %.*s\n", (int)(nl ? nl - l : (long)strlen(l)), l);
			fail();
		}
	}
}

static void test_hostile_lines(void **state)
{
	(void)state;
	char *r = render("# Title\n\n## .TH hack\n\nHello\n.so /etc/passwd\n'br x\n"
			 "back\\\\slash \\\\fB x and `code \\fI .in`\n\n"
			 "```\n.nf\n'sp\n\\e\n.so /etc/shadow\n```\n\n"
			 "- .ds item\n- 'mc x\n\n| a | b |\n|---|---|\n| .ds x | 'y |\n");
	only_known_requests(r);
	assert_false(has_line(r, ".so"));
	assert_false(has_line(r, ".TH"));
	assert_false(has_line(r, "'br"));
	assert_false(has_line(r, "'sp"));
	assert_false(has_line(r, ".ds"));
	assert_false(has_line(r, "'mc"));
	assert_non_null(strstr(r, "\\&.so /etc/passwd"));   /* kept, as text */
	assert_non_null(strstr(r, "\\&.so /etc/shadow"));
	/* the input's backslashes are printed, never read as escapes */
	assert_null(strstr(r, "\\fI .in"));
	assert_null(strstr(r, "\\fB x"));
	assert_non_null(strstr(r, "back\\eslash"));
	/* inline code is bold on a terminal */
	assert_non_null(strstr(r, "\\fBcode "));
	free(r);
}

static void test_structure(void **state)
{
	(void)state;
	char *r = render("# The page\n\nIntro.\n\n## First\n\nText größe.\n\n### Sub\n\n1. one\n2. two\n\n"
			 "| k | v |\n|---|---|\n| a | 1 |\n\n"
			 "| key | type | default | meaning |\n|---|---|---|---|\n| `n` | int | 1 | how `a|b` many |\n"
			 "| `m` | string | | what |\n\n[a link](other.md)\n");
	only_known_requests(r);
	assert_null(strstr(r, "The page"));          /* the title is NAME's */
	assert_non_null(strstr(r, ".SH\nFirst"));
	assert_non_null(strstr(r, ".SS\nSub"));
	assert_non_null(strstr(r, "gr\\[u00F6]\\[u00DF]e"));
	assert_true(has_line(r, ".TS"));             /* two columns: a table, the only one */
	assert_null(strstr(strstr(r, ".TS\n") + 1, ".TS\n"));
	/* made to fit: the last column fills the line, a short cell of the others is plain data */
	assert_null(strstr(r, "expand"));
	assert_non_null(strstr(r, "\nl lx.\n"));
	assert_non_null(strstr(r, "\na|T{\n1\nT}\n"));
	/* four columns: a list, the middle cells named by their header */
	assert_non_null(strstr(r, "(type: int; default: 1): how"));
	assert_non_null(strstr(r, "a|b"));
	assert_non_null(strstr(r, "(type: string): what"));
	assert_non_null(strstr(r, "a link"));
	assert_null(strstr(r, "other.md"));          /* links as their text */
	assert_null(strstr(r, "|---"));
	assert_null(strstr(r, "**"));
	for (const char *p = r; *p; p++)
		assert_true((unsigned char)*p < 0x80);
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hostile_lines),
		cmocka_unit_test(test_structure),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
