/*
 * plot.c - one gnuplot multiplot per pexec (see plot.h).
 *
 * plot_pexec writes the data file (iteration, wall time, the outliers'
 * times or "?", then one column per instrumentation series), writes a
 * script that draws it - top panel: the run sequence as a line, outliers as
 * red dots, each changepoint segment as its mean line with a mean +- var
 * band, a dashed line where the steady state starts; below it one panel per
 * series on the same iteration axis - and runs gnuplot on it in the output
 * directory.  File names inside the script are relative, so the script is
 * re-runnable by hand from that directory.
 *
 * run_gnuplot is the only process start here, kept in one function so that
 * it can be swapped for the shared exec module.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exec.h"
#include "plot.h"

extern char **environ;

int plot_parse_format(const char *s, enum plot_fmt *f)
{
	if (!strcmp(s, "svg"))
		*f = PLOT_SVG;
	else if (!strcmp(s, "pdf"))
		*f = PLOT_PDF;
	else if (!strcmp(s, "png"))
		*f = PLOT_PNG;
	else
		return -1;
	return 0;
}

const char *plot_ext(enum plot_fmt f)
{
	return f == PLOT_PDF ? "pdf" : f == PLOT_PNG ? "png" : "svg";
}

/*
 * The key in file-name-safe characters; a key with any other byte (a
 * newline, a slash, a quote...), or one that would start with '.' or '-'
 * or be too long, also gets '+' and a hash of the whole key, so that odd
 * keys can neither collide with another key's plots nor pass for an
 * option or a hidden file ('+' never appears otherwise).
 */
char *plot_name(const struct ds_key *k, long pexec, long width)
{
	enum { STEM_MAX = 120 };
	struct strbuf sb = STRBUF_INIT;
	int odd = k->key[0] == '.' || k->key[0] == '-' || strlen(k->key) > STEM_MAX;
	for (const char *p = k->key; *p && sb.len < STEM_MAX; p++) {
		char c = *p;
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
			 c == '-' || c == '_';
		odd |= !ok && c != ':';
		sb_addc(&sb, ok && (sb.len || (c != '.' && c != '-')) ? c : '_');
	}
	if (odd) {
		char h[65];
		hash_hex(k->key, strlen(k->key), h);
		sb_addf(&sb, "+%.8s", h);
	}
	sb_addf(&sb, "-p%0*ld", (int)(width > 0 ? width : 1), pexec);
	return sb_detach(&sb);
}

char *plot_gnuplot_path(void)
{
	const char *g = getenv("KILN_GNUPLOT");
	return find_in_path(g && *g ? g : "gnuplot");
}

/*
 * Run gnuplot on script (a name relative to dir) with dir as its working
 * directory, without a shell; its stderr goes to script.log, which is kept
 * only when gnuplot fails (its last lines become the error).
 */
static int run_gnuplot(const char *dir, const char *script, struct kerr *e)
{
	char *gp = plot_gnuplot_path();
	if (!gp)
		return kerr_set(e, "gnuplot not found (install gnuplot-nox, or set KILN_GNUPLOT)");
	/* started in `dir` so the kept script's relative paths work when rerun by hand */
	struct exec_opts o;
	memset(&o, 0, sizeof(o));
	char *argv[] = { gp, (char *)script, NULL };
	o.argv = argv;
	o.envp = environ;
	o.cwd = dir;
	o.aslr = -1;
	o.timeout_s = 300;
	struct exec_result r;
	int ret = 0;
	if (exec_run(&o, &r, e) < 0) {
		ret = -1;
	} else {
		if (!r.exited || r.status) {
			char *logpath = xasprintf("%s/%s.log", dir, script);
			write_file(logpath, r.err.buf ? r.err.buf : "", r.err.len, NULL);
			const char *msg = sb_str(&r.err);
			const char *tail = r.err.len > 600 ? msg + r.err.len - 600 : msg;
			ret = kerr_set(e, "gnuplot failed on %s/%s (log in %s): %s", dir, script, logpath, tail);
			free(logpath);
		}
		exec_result_release(&r);
	}
	free(gp);
	return ret;
}

/* untrusted text as a single-quoted gnuplot string (inert: no escapes, macros or backquotes there) */
void plot_quote(struct strbuf *sb, const char *s)
{
	sb_addc(sb, '\'');
	esc_add(sb, ESC_GP, s);
	sb_addc(sb, '\'');
}

static int series_has_values(const struct ds_series *s)
{
	for (size_t j = 0; j < s->n; j++)
		if (isfinite(s->v[j]))
			return 1;
	return 0;
}

int plot_pexec(const struct an_key *ak, size_t i, const char *dir, enum plot_fmt fmt, char **out, struct kerr *e)
{
	const struct ds_key *k = ak->key;
	const struct an_pexec *ap = &ak->p[i];
	const struct ds_pexec *dp = &k->pexecs[ap->index];
	if (mkdir_p(dir, 0755) < 0)
		return kerr_set(e, "%s: cannot create: %s", dir, strerror(errno));
	long maxnum = 1;
	for (size_t q = 0; q < k->npexecs; q++)
		if (k->pexecs[q].num > maxnum)
			maxnum = k->pexecs[q].num;
	int width = snprintf(NULL, 0, "%ld", maxnum);
	char *name = plot_name(k, dp->num, width);
	size_t *cols = xmalloc((dp->nseries + 1) * sizeof(size_t));
	size_t ncols = 0;
	for (size_t s = 0; s < dp->nseries; s++)
		if (series_has_values(&dp->series[s]))
			cols[ncols++] = s;

	/* the data */
	struct strbuf d = STRBUF_INIT;
	/* comments end at a newline only (the quoted form has none) or go on after a last backslash (it ends in ') */
	sb_adds(&d, "# ");
	plot_quote(&d, k->key);
	sb_addf(&d, " pexec %ld: iteration wall_s outlier_s", dp->num);
	for (size_t c = 0; c < ncols; c++) {
		sb_addc(&d, ' ');
		plot_quote(&d, dp->series[cols[c]].name);
	}
	sb_addc(&d, '\n');
	size_t oi = 0;
	for (size_t j = 0; j < dp->n; j++) {
		int is_out = oi < ap->noutliers && ap->outliers[oi] == j;
		if (is_out)
			oi++;
		sb_addf(&d, "%zu %.17g ", j + 1, dp->wall[j]);
		if (is_out)
			sb_addf(&d, "%.17g", dp->wall[j]);
		else
			sb_addc(&d, '?');
		for (size_t c = 0; c < ncols; c++) {
			const struct ds_series *s = &dp->series[cols[c]];
			if (j < s->n && isfinite(s->v[j]))
				sb_addf(&d, " %.17g", s->v[j]);
			else
				sb_adds(&d, " ?");
		}
		sb_addc(&d, '\n');
	}

	/* the script */
	struct strbuf g = STRBUF_INIT;
	int panels = 1 + (int)ncols;
	int height = 360 + 170 * (int)ncols;
	sb_adds(&g, "# ");
	plot_quote(&g, k->key);
	sb_addf(&g, " pexec %ld, written by kiln %s: run as  cd DIR && gnuplot %s.gp\n", dp->num, KILN_VERSION, name);
	switch (fmt) {
	case PLOT_SVG:
		sb_addf(&g, "set terminal svg size 960,%d noenhanced font 'sans,11' background rgb 'white'\n", height);
		break;
	case PLOT_PDF:
		sb_addf(&g, "set terminal pdfcairo size 10in,%.1fin noenhanced font 'sans,9'\n", height / 96.0);
		break;
	case PLOT_PNG:
		sb_addf(&g, "set terminal pngcairo size 960,%d noenhanced font 'sans,10' background rgb 'white'\n",
			height);
		break;
	}
	sb_addf(&g, "set output '%s.%s'\n", name, plot_ext(fmt));
	sb_adds(&g, "set datafile missing '?'\nset grid lc rgb '#dddddd'\nset key top right\nset offsets 0, 0, graph 0.05, graph 0.05\n");
	sb_addf(&g, "set xrange [1:%zu]\n", dp->n > 1 ? dp->n : 2);
	struct strbuf title = STRBUF_INIT;
	sb_addf(&title, "%s, pexec %ld: %s", k->key, dp->num, an_class_name(ap->cls));
	if (ap->cls != AN_NO_STEADY && ap->cls != AN_FLAT)
		sb_addf(&title, " (steady after iteration %zu)", ap->steady_start);
	sb_addf(&title, ", %zu outlier%s, %zu segment%s", ap->noutliers, ap->noutliers == 1 ? "" : "s", ap->nsegs,
		ap->nsegs == 1 ? "" : "s");
	sb_addf(&g, "set multiplot layout %d,1 title ", panels);
	plot_quote(&g, title.buf);
	sb_addc(&g, '\n');
	sb_release(&title);
	if (panels > 1)
		sb_adds(&g, "set format x ''\n");
	/* segments: a band mean +- var and the mean line */
	for (size_t s = 0; s < ap->nsegs; s++) {
		const struct an_segment *sg = &ap->segs[s];
		double x1 = (double)sg->start + 1, x2 = (double)sg->end;
		int steady = s >= ap->first_steady && ap->cls != AN_NO_STEADY;
		sb_addf(&g, "set object %zu rect from %.17g,%.17g to %.17g,%.17g fc rgb '%s' fs transparent solid 0.25 noborder behind\n",
			s + 1, x1, sg->mean - sg->var, x2, sg->mean + sg->var, steady ? "#2e8b57" : "#e69f00");
		sb_addf(&g, "set arrow %zu from %.17g,%.17g to %.17g,%.17g nohead lw 2 lc rgb '%s' front\n", s + 1, x1,
			sg->mean, x2, sg->mean, steady ? "#2e8b57" : "#e69f00");
	}
	/* between the last iteration before the steady state and the first in it (x counts from 1) */
	if (ap->cls != AN_NO_STEADY && ap->steady_start > 0)
		sb_addf(&g, "set arrow %zu from %.1f, graph 0 to %.1f, graph 1 nohead dt 2 lc rgb '#2e8b57'\n",
			ap->nsegs + 1, (double)ap->steady_start + 0.5, (double)ap->steady_start + 0.5);
	sb_adds(&g, "set ylabel 'wall time (s)'\n");
	if (panels == 1)
		sb_adds(&g, "set xlabel 'iteration'\n");
	sb_addf(&g, "plot '%s.dat' using 1:2 with lines lw 1 lc rgb '#3b4252' title 'wall time'", name);
	if (ap->noutliers)
		sb_adds(&g, ", '' using 1:3 with points pt 7 ps 0.5 lc rgb '#d00000' title 'outliers'");
	sb_adds(&g, "\nunset object\nunset arrow\nset key top right\n");
	for (size_t c = 0; c < ncols; c++) {
		const struct ds_series *s = &dp->series[cols[c]];
		if (c + 1 == ncols) {
			sb_adds(&g, "set format x '%g'\nset xlabel 'iteration'\n");
		}
		struct strbuf lab = STRBUF_INIT;
		sb_adds(&lab, s->name);
		if (s->unit && *s->unit)
			sb_addf(&lab, " (%s)", s->unit);
		sb_adds(&g, "set ylabel ");
		plot_quote(&g, lab.buf);
		sb_addf(&g, "\nplot '%s.dat' using 1:%zu with lines lw 1 lc rgb '#5e81ac' title ", name, 4 + c);
		plot_quote(&g, s->name);
		sb_addc(&g, '\n');
		sb_release(&lab);
	}
	sb_adds(&g, "unset multiplot\n");

	char *dat = xasprintf("%s/%s.dat", dir, name), *gpf = xasprintf("%s/%s.gp", dir, name);
	char *script = xasprintf("%s.gp", name);
	int r = write_file(dat, d.buf, d.len, e);
	if (r == 0)
		r = write_file(gpf, g.buf, g.len, e);
	if (r == 0)
		r = run_gnuplot(dir, script, e);
	if (r == 0 && out)
		*out = xasprintf("%s/%s.%s", dir, name, plot_ext(fmt));
	free(dat);
	free(gpf);
	free(script);
	free(cols);
	free(name);
	sb_release(&d);
	sb_release(&g);
	return r;
}
