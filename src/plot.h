/*
 * plot.h - run-sequence plots with gnuplot: per pexec, the wall time of
 * every iteration with outliers marked, the changepoint segments drawn as
 * mean lines with mean +- var bands, the steady state marked, and one
 * subplot per instrumentation series sharing the iteration axis.  The
 * gnuplot script (NAME.gp) and its data (NAME.dat) stay beside the image so
 * that users can restyle it: cd DIR && gnuplot NAME.gp.
 */
#ifndef KILN_PLOT_H
#define KILN_PLOT_H

#include "analysis.h"
#include "dataset.h"
#include "util.h"

enum plot_fmt { PLOT_SVG, PLOT_PDF, PLOT_PNG };

int plot_parse_format(const char *s, enum plot_fmt *f);
const char *plot_ext(enum plot_fmt f);
/* a file-name-safe stem for a key's pexec: "bench_vm_variant-p03" */
char *plot_name(const struct ds_key *k, long pexec, long width);
/*
 * Plot analysed pexec ak->p[i] of key ak->key into dir (created if needed):
 * writes NAME.gp, NAME.dat and NAME.<ext>, runs gnuplot; *out (if not NULL)
 * gets the image's path.
 */
int plot_pexec(const struct an_key *ak, size_t i, const char *dir, enum plot_fmt fmt, char **out,
	       struct kerr *e);
/* s as a single-quoted gnuplot string ('' for a quote, line breaks dropped) */
void plot_quote(struct strbuf *sb, const char *s);
/* the gnuplot program to run: $KILN_GNUPLOT or "gnuplot"; NULL if not found */
char *plot_gnuplot_path(void);

#endif
