/*
 * manpage.h - a docs/ page (Markdown) as the body of a man page (roff),
 * for kiln --man-pages: see manpage.c.
 */
#ifndef KILN_MANPAGE_H
#define KILN_MANPAGE_H

#include <stddef.h>

#include "util.h"

/* md[0..len) as roff after a page's .TH and NAME (appended to out); -1 with e set */
int man_from_markdown(const char *md, size_t len, struct strbuf *out, struct kerr *e);

#endif
