/*
 * publish.h - `kiln publish HISTORY -o DIR`: a history (history.h) as a
 * static web site that opens from disk (file://, no server, nothing loaded
 * from elsewhere): an overview of every benchmark x VM of every machine
 * (sparklines, the latest change), a page per key (the steady-state mean
 * and its interval per commit, the warm-up class mix, the time to steady
 * state, the change points with their commits and the A/A false-alarm rate
 * of their series) and kiln's own report of the commits around each change
 * (docs/kiln-publish.md).  Every page is readable without JavaScript; the
 * one script only adds a cursor, a selection and filters.
 *
 * publish-site.c    the driver: what to read, in what order, the folder
 * publish-detect.c  the change points, from the history's detection
 * publish-page.c    the HTML pages
 * publish-svg.c     the charts, as SVG kiln writes itself
 * publish-report.c  per-commit reports (report.c on history_load_run)
 * publish-assets.c  the style sheet and the script
 */
#ifndef KILN_PUBLISH_H
#define KILN_PUBLISH_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

/* which commits get kiln's report of their run */
enum pub_reports {
	PUB_REPORTS_CHANGES, /* each side of every change, and each key's newest commit (default) */
	PUB_REPORTS_ALL,     /* every commit of every key */
	PUB_REPORTS_NONE,
};

struct pub_opts {
	const char *history;     /* the history file */
	const char *out;         /* the site's folder */
	struct strvec machines;  /* only these machines (none: all) */
	struct strvec keys;      /* only keys matching one of these (ds_key_matches; none: all) */
	enum pub_reports reports;
	int plots;               /* pexecs plotted per key in a per-commit report (default 3, 0: none) */
	const char *title;       /* NULL: the history's project name */
	int quiet;               /* no progress on stderr */
};
void pub_opts_init(struct pub_opts *o);
void pub_opts_release(struct pub_opts *o);

/* what was written */
struct pub_summary {
	size_t machines, keys, commits, changes, reports, files;
	uint64_t bytes;
};

/*
 * Write the site into o->out: built beside it under a temporary name and
 * renamed into place, so that a reader never sees half a site.  o->out
 * must be missing, empty, or a site kiln publish wrote before (it is then
 * replaced); anything else is refused (KEXIT_USAGE).  A history that
 * cannot be read: KEXIT_STORE.
 */
int publish_site(const struct pub_opts *o, struct pub_summary *sum, struct kerr *e);

#endif
