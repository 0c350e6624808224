/*
 * plot.h - run-sequence plots with gnuplot, after warmup_stats'
 * plot_krun_results: per pexec, the wall time of every iteration with
 * outliers marked, the changepoint segments drawn as their mean lines, the
 * band the classification compared them with (the last segment's mean +-
 * max(var, delta)), the steady state marked, optionally an inset of the
 * steady part, and below it one short panel per instrumentation series that
 * changes (constant ones are named in a note instead).  Or many pexecs of a
 * key per page (run sequences only).  The gnuplot script (NAME.gp) and its
 * data (NAME.dat) stay beside the image so that users can restyle it:
 * cd DIR && gnuplot NAME.gp.
 */
#ifndef KILN_PLOT_H
#define KILN_PLOT_H

#include "analysis.h"
#include "dataset.h"
#include "util.h"

enum plot_fmt { PLOT_SVG, PLOT_PDF, PLOT_PNG };
enum plot_inset { PLOT_INSET_AUTO, PLOT_INSET_ON, PLOT_INSET_OFF };

struct plot_opts {
	enum plot_fmt fmt;
	double width, height; /* the image, in pixels at 96 per inch; 0: kiln's size */
	long xmin, xmax;      /* iterations shown (1-based, inclusive); 0: the first / the last */
	enum plot_inset inset; /* auto: when the steady part is flattened by slower iterations */
	int wall_only;        /* no instrumentation panels */
	int log_y;            /* logarithmic wall-time axis */
	int per_page;         /* > 1: that many pexecs on one page (run sequences only) */
};

void plot_opts_default(struct plot_opts *po);
int plot_parse_format(const char *s, enum plot_fmt *f);
/* "WxH" in pixels, or with a unit: "8x5in", "16x10cm", "600x400pt"; 0 on success */
int plot_parse_size(const char *s, double *w, double *h);
/* "A:B", "A:" or ":B" (iterations, 1-based); 0 on success */
int plot_parse_xlim(const char *s, long *a, long *b);
const char *plot_ext(enum plot_fmt f);
/*
 * A file-name stem for a key: [A-Za-z0-9._-] kept, anything else '_'; a
 * key with a byte other than those and ':', starting with '.' or '-', or
 * over 120 bytes also gets '+' and a hash of the key (docs/kiln-plot.md).
 * Two plain keys can still meet ("a_b:c" and "a:b_c"): kiln plot adds a
 * hash for those.
 */
char *plot_name(const struct ds_key *k);
/*
 * Plot analysed pexec ak->p[i] (analysed with ao) into dir (created if
 * needed) as STEM-pNN.<ext> (NN zero-padded to the key's largest pexec
 * number), with STEM-pNN.gp and STEM-pNN.dat beside it; runs gnuplot.
 * *out (if not NULL) gets the image's path.
 */
int plot_pexec(const struct an_key *ak, size_t i, const struct an_opts *ao, const struct plot_opts *po,
	       const char *dir, const char *stem, char **out, struct kerr *e);
/*
 * The pexecs ak->p[idx[0..n)] po->per_page to a page: one multi-page
 * STEM-pages.pdf, or STEM-page1.<ext>, STEM-page2.<ext>... for SVG and
 * PNG.  The paths written are pushed to outs.
 */
int plot_pages(const struct an_key *ak, const size_t *idx, size_t n, const struct an_opts *ao,
	       const struct plot_opts *po, const char *dir, const char *stem, struct strvec *outs, struct kerr *e);
/* s as a single-quoted gnuplot string (esc ESC_GP: inert there) */
void plot_quote(struct strbuf *sb, const char *s);
/* the gnuplot program to run: $KILN_GNUPLOT or "gnuplot"; NULL if not found */
char *plot_gnuplot_path(void);

#endif
