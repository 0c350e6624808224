/*
 * report.h - the results of an analysis as a table, in the formats kiln
 * report offers: a terminal table, Markdown, LaTeX (for a paper), one
 * self-contained HTML page with the plots inline, JSON in warmup_stats'
 * summary layout (version 2) and CSV.  report.c only formats: the numbers
 * all come from analysis.c.
 */
#ifndef KILN_REPORT_H
#define KILN_REPORT_H

#include <stdio.h>

#include "analysis.h"
#include "dataset.h"
#include "util.h"

enum rep_format { REP_TEXT, REP_MARKDOWN, REP_LATEX, REP_HTML, REP_JSON, REP_CSV };

struct rep_opts {
	int color;           /* text: ANSI colours (decide with kiln_color) */
	int plots_per_key;   /* html: pexecs plotted per key (default 3, distinct classes first) */
	const char *title;   /* NULL: "kiln report: <dataset name>" */
	int compact;         /* latex: classes as symbols with a legend in the caption */
	int wide;            /* latex: table* (both columns of a two-column page) */
	const char *results; /* html: the kiln results file read (its stored profiles' flame graphs), or NULL */
	const char *const *profiles; /* html: kiln profile folders whose flame graphs the page carries */
	size_t nprofiles;
};

int rep_parse_format(const char *s, enum rep_format *f);
/*
 * The format a file name suggests (.txt, .md, .tex, .html, .json, .csv):
 * REP_TEXT without an extension, -1 for an extension that is none of
 * these (.pdf: kiln would write text into it).
 */
int rep_format_for_path(const char *path);
int rep_write(FILE *f, enum rep_format fmt, const struct dataset *ds, const struct an_result *r,
	      const struct rep_opts *ro, struct kerr *e);

/* shared by diff: a value and its interval in few digits ("0.10231 ± 0.00012") */
void rep_fmt_ci(struct strbuf *sb, double v, double lo, double hi);
/* the same for a time in seconds, in the unit that fits it: "102.31 ± 0.12 ms" */
void rep_fmt_time_ci(struct strbuf *sb, double v, double lo, double hi);
/* a time in seconds in the unit that fits it, four significant digits: "2.013 ms" */
void rep_add_time(struct strbuf *sb, double s);

#endif
