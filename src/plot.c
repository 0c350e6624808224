/*
 * plot.c - gnuplot run-sequence plots (see plot.h).
 *
 * A pexec's data file keeps the measurements in their own units (seconds,
 * bytes...) in four blocks: the iterations (iteration, wall time, the
 * outlier's time or "?", one column per instrumentation series), the means
 * of the segments before the steady state, those of the steady segments,
 * and the band the classification used.  The script scales them to the
 * unit each panel shows (ms, MiB...) in its `using` expressions, sets every
 * range and tick step itself (so a wall-time axis never goes below zero and
 * iteration ticks are whole numbers), and places each panel at fixed
 * margins: the run sequence is tall, each instrumentation panel short.
 *
 * The layout is computed in pixels (96 per inch) and written as screen
 * fractions, so --size only stretches it.  run_gnuplot is the only process
 * start here.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"
#include "plot.h"

extern char **environ;

/* colours: the warmup_stats palette kiln has always used */
#define COL_WALL "#3b4252"
#define COL_OUTLIER "#d00000"
#define COL_STEADY "#2e8b57"
#define COL_BEFORE "#e69f00"
#define COL_NOSTEADY "#7a7a7a"
#define COL_SERIES "#5e81ac"

/* the layout, in pixels */
enum {
	PX_WIDTH = 960, PX_LEFT = 84, PX_RIGHT = 24, PX_TITLE = 30, PX_NOTE = 16,
	PX_MAIN = 300, PX_SERIES = 80, PX_GAP = 22, PX_BOTTOM = 54,
	PX_CELL_W = 480, PX_CELL_H = 236, PX_CELL_TITLE = 22,
};

void plot_opts_default(struct plot_opts *po)
{
	memset(po, 0, sizeof(*po));
	po->fmt = PLOT_SVG;
	po->inset = PLOT_INSET_AUTO;
	po->per_page = 1;
}

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

int plot_parse_size(const char *s, double *w, double *h)
{
	char *end;
	errno = 0;
	double a = strtod(s, &end);
	if (end == s || (*end != 'x' && *end != 'X'))
		return -1;
	const char *b0 = end + 1;
	double b = strtod(b0, &end);
	if (end == b0 || errno)
		return -1;
	double px = !strcmp(end, "") || !strcmp(end, "px") ? 1 : !strcmp(end, "in") ? 96
		    : !strcmp(end, "cm") ? 96 / 2.54 : !strcmp(end, "pt") ? 96 / 72.0 : -1;
	if (px < 0 || !(a > 0) || !(b > 0))
		return -1;
	a *= px;
	b *= px;
	if (a < 200 || b < 150 || a > 20000 || b > 20000)
		return -1;
	*w = a;
	*h = b;
	return 0;
}

int plot_parse_xlim(const char *s, long *a, long *b)
{
	const char *colon = strchr(s, ':');
	if (!colon || (colon == s && !colon[1]))
		return -1;
	char *lo = xstrndup(s, (size_t)(colon - s));
	long x = 0, y = 0;
	int bad = (*lo && (parse_long(lo, &x) || x < 1)) || (colon[1] && (parse_long(colon + 1, &y) || y < 1));
	free(lo);
	if (bad || (x && y && y <= x))
		return -1;
	*a = x;
	*b = y;
	return 0;
}

const char *plot_ext(enum plot_fmt f)
{
	return f == PLOT_PDF ? "pdf" : f == PLOT_PNG ? "png" : "svg";
}

char *plot_name(const struct ds_key *k)
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
	char *argv[] = { gp, (char *)script, NULL };
	exec_opts_plain(&o, argv, environ, 300);
	o.cwd = dir;
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

/* ---- what one pexec's plot shows ---- */

/* how one instrumentation series is drawn */
struct pseries {
	size_t s;           /* index in ds_pexec.series */
	size_t col;         /* its column in the data file (1-based) */
	double lo, hi;      /* its finite values' range over the iterations shown */
	int integer;        /* every value whole (a count): whole-number ticks */
	double scale;       /* unit shown = value * scale */
	char *label;        /* "gc.time (ms)" */
};

struct pview {
	const struct ds_key *k;
	const struct ds_pexec *dp;
	const struct an_pexec *ap;
	const struct plot_opts *po;
	char *stem;         /* STEM-pNN: its .dat, .gp and image */
	long x0, x1;        /* iterations shown, 1-based */
	int steady;         /* has a steady state */
	double band_lo, band_hi, delta;
	double wlo, whi;    /* wall time's range over the iterations shown (with the band) */
	double wminpos;     /* its smallest positive value (log axis) */
	struct pseries *ser; /* drawn, in order */
	size_t nser;
	struct strbuf folded; /* "gc.major.count = 0, ..." */
	size_t nfolded;     /* constant series, PLOT_MAX_FOLDED of them named in folded */
	size_t nundrawn;    /* changing series beyond PLOT_MAX_PANELS */
};

/* bounds of one page: panels drawn and constant series named (a VM may record thousands) */
#define PLOT_MAX_PANELS 16
#define PLOT_MAX_FOLDED 24

static double nice_step(double range, double target, int integer)
{
	if (!(range > 0) || !isfinite(range))
		return integer ? 1 : 0;
	double raw = range / target, p = pow(10, floor(log10(raw))), f = raw / p;
	double step = (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
	return integer && step < 1 ? 1 : step;
}

/* the factor and unit that show a series of unit `unit` whose largest value is about m */
static double series_scale(const char *unit, double m, struct strbuf *lab, int *is_time)
{
	static const struct { const char *u; double to_s; } times[] = {
		{ "s", 1 }, { "ms", 1e-3 }, { "us", 1e-6 }, { "µs", 1e-6 }, { "ns", 1e-9 },
	};
	m = fabs(m);
	for (size_t i = 0; i < ARRAY_SIZE(times); i++)
		if (!strcmp(unit, times[i].u)) {
			const struct time_unit *tu = time_unit_for(m * times[i].to_s);
			sb_addf(lab, " (%s)", tu->name);
			*is_time = 1;
			return tu->scale * times[i].to_s;
		}
	if (!strcmp(unit, "bytes") || !strcmp(unit, "B") || !strcmp(unit, "byte")) {
		static const char *const bin[] = { "bytes", "KiB", "MiB", "GiB", "TiB" };
		size_t i = 0;
		double f = 1;
		while (i + 1 < ARRAY_SIZE(bin) && m >= 1024 * f * 2) {
			f *= 1024;
			i++;
		}
		sb_addf(lab, " (%s)", bin[i]);
		return 1 / f;
	}
	static const char *const big[] = { "", "thousands", "millions", "billions" };
	size_t i = 0;
	double f = 1;
	while (i + 1 < ARRAY_SIZE(big) && m >= 1e5 * f) {
		f *= 1e3;
		i++;
	}
	if (*unit || i)
		sb_addf(lab, " (%s%s%s)", unit, *unit && i ? ", " : "", big[i]);
	return 1 / f;
}

static void pview_series(struct pview *v)
{
	const struct ds_pexec *dp = v->dp;
	v->ser = xcalloc(dp->nseries + 1, sizeof(*v->ser));
	size_t col = 4;
	if (v->po->wall_only)
		return;
	for (size_t s = 0; s < dp->nseries; s++) {
		const struct ds_series *se = &dp->series[s];
		double lo = INFINITY, hi = -INFINITY;
		int integer = 1, any = 0;
		for (long j = v->x0 - 1; j < v->x1 && (size_t)j < se->n; j++) {
			double x = se->v[j];
			if (!isfinite(x))
				continue;
			any = 1;
			lo = x < lo ? x : lo;
			hi = x > hi ? x : hi;
			integer &= x == floor(x);
		}
		if (!any)
			continue;
		if (lo == hi) {
			if (v->nfolded++ < PLOT_MAX_FOLDED)
				sb_addf(&v->folded, "%s%s = %.6g%s%s", v->folded.len ? ", " : "", se->name, lo,
					se->unit && *se->unit ? " " : "", se->unit ? se->unit : "");
			continue;
		}
		if (v->nser == PLOT_MAX_PANELS) {
			v->nundrawn++;
			continue;
		}
		struct pseries *p = &v->ser[v->nser++];
		p->s = s;
		p->col = col++;
		p->lo = lo;
		p->hi = hi;
		const char *unit = se->unit ? se->unit : "";
		struct strbuf lab = STRBUF_INIT;
		sb_adds(&lab, se->name);
		int is_time = 0;
		p->scale = series_scale(unit, fabs(hi) > fabs(lo) ? hi : lo, &lab, &is_time);
		p->integer = integer && !is_time;
		p->label = sb_detach(&lab);
	}
}

static void pview_init(struct pview *v, const struct an_key *ak, size_t i, const struct an_opts *ao,
		       const struct plot_opts *po, const char *stem)
{
	memset(v, 0, sizeof(*v));
	v->k = ak->key;
	v->ap = &ak->p[i];
	v->dp = &v->k->pexecs[v->ap->index];
	v->po = po;
	long maxnum = 1;
	for (size_t q = 0; q < v->k->npexecs; q++)
		if (v->k->pexecs[q].num > maxnum)
			maxnum = v->k->pexecs[q].num;
	v->stem = xasprintf("%s-p%0*ld", stem, snprintf(NULL, 0, "%ld", maxnum), v->dp->num);
	long n = (long)v->dp->n;
	v->x0 = po->xmin > 0 ? po->xmin : 1;
	v->x1 = po->xmax > 0 && po->xmax < n ? po->xmax : n;
	if (v->x0 > v->x1)
		v->x0 = v->x1 > 1 ? v->x1 - 1 : 1;
	v->steady = v->ap->cls != AN_NO_STEADY;
	an_band(v->ap, ao, &v->band_lo, &v->band_hi);
	v->delta = an_delta(v->ap, ao);
	v->wlo = INFINITY;
	v->whi = -INFINITY;
	v->wminpos = INFINITY;
	for (long j = v->x0 - 1; j < v->x1; j++) {
		double x = v->dp->wall[j];
		if (!isfinite(x))
			continue;
		v->wlo = x < v->wlo ? x : v->wlo;
		v->whi = x > v->whi ? x : v->whi;
		if (x > 0 && x < v->wminpos)
			v->wminpos = x;
	}
	if (!isfinite(v->wlo))
		v->wlo = v->whi = 0;
	if (v->band_lo < v->wlo && v->band_lo > v->wlo - (v->whi - v->wlo))
		v->wlo = v->band_lo > 0 ? v->band_lo : v->wlo;
	if (v->band_hi > v->whi && v->band_hi < v->whi + (v->whi - v->wlo))
		v->whi = v->band_hi;
	pview_series(v);
}

static void pview_free(struct pview *v)
{
	for (size_t i = 0; i < v->nser; i++)
		free(v->ser[i].label);
	free(v->ser);
	free(v->stem);
	sb_release(&v->folded);
}

/* the data file: iterations, then segment means before / in the steady state, then the band */
static void pview_data(const struct pview *v, struct strbuf *d)
{
	const struct ds_pexec *dp = v->dp;
	const struct an_pexec *ap = v->ap;
	/* comments end at a newline only (the quoted form has none) or go on after a last backslash (it ends in ') */
	sb_adds(d, "# ");
	plot_quote(d, v->k->key);
	sb_addf(d, " pexec %ld: iteration wall_s outlier_s", dp->num);
	for (size_t c = 0; c < v->nser; c++) {
		sb_addc(d, ' ');
		plot_quote(d, dp->series[v->ser[c].s].name);
	}
	sb_addc(d, '\n');
	size_t oi = 0;
	for (size_t j = 0; j < dp->n; j++) {
		int is_out = oi < ap->noutliers && ap->outliers[oi] == j;
		if (is_out)
			oi++;
		sb_addf(d, "%zu %.17g ", j + 1, dp->wall[j]);
		if (is_out)
			sb_addf(d, "%.17g", dp->wall[j]);
		else
			sb_addc(d, '?');
		for (size_t c = 0; c < v->nser; c++) {
			const struct ds_series *s = &dp->series[v->ser[c].s];
			if (j < s->n && isfinite(s->v[j]))
				sb_addf(d, " %.17g", s->v[j]);
			else
				sb_adds(d, " ?");
		}
		sb_addc(d, '\n');
	}
	for (int steady = 0; steady < 2; steady++) {
		sb_addf(d, "\n\n# segment means %s\n", steady ? "in the steady state" : "before the steady state");
		int any = 0;
		for (size_t s = 0; s < ap->nsegs; s++) {
			const struct an_segment *sg = &ap->segs[s];
			int st = v->steady && s >= ap->first_steady;
			if (st != steady)
				continue;
			/* a segment covers its iterations from the left edge of the first to the right of the last */
			sb_addf(d, "%.17g %.17g\n%.17g %.17g\n\n", (double)sg->start + 0.5, sg->mean, (double)sg->end + 0.5,
				sg->mean);
			any = 1;
		}
		if (!any)
			sb_adds(d, "? ?\n");
	}
	sb_addf(d, "\n\n# band: the last segment's mean +- max(var, delta)\n0.5 %.17g %.17g\n%.1f %.17g %.17g\n",
		v->band_lo, v->band_hi, (double)dp->n + 0.5, v->band_lo, v->band_hi);
}

static int pview_has_before(const struct pview *v)
{
	return !v->steady ? v->ap->nsegs > 0 : v->ap->first_steady > 0;
}

/* the title's "warmup (steady from iteration 12), 3 segments, 1 outlier" */
static void pview_summary(const struct pview *v, struct strbuf *sb)
{
	const struct an_pexec *ap = v->ap;
	sb_adds(sb, an_class_name(ap->cls));
	if (ap->cls != AN_NO_STEADY && ap->cls != AN_FLAT)
		sb_addf(sb, " (steady after iteration %zu)", ap->steady_start);
	sb_addf(sb, ", %zu segment%s, %zu outlier%s", ap->nsegs, ap->nsegs == 1 ? "" : "s", ap->noutliers,
		ap->noutliers == 1 ? "" : "s");
	/* the warnings (docs/analysis.md): a trend, or warmup the series was too short to separate */
	if (ap->warn & AN_WARN_DRIFT)
		sb_addf(sb, ", drifting %+.2g%% per 100 iterations", ap->drift_rate * 1e4);
	if (ap->warn & AN_WARN_SHORT)
		sb_adds(sb, ", too short to separate its warmup");
}

/* why a flat pexec has several segments, or why the steady state spans several */
static void pview_note(const struct pview *v, const struct an_opts *ao, struct strbuf *sb)
{
	const struct an_pexec *ap = v->ap;
	size_t eq = ap->nsegs - ap->first_steady;
	if (!v->steady || eq < 2)
		return;
	/* the default method's equivalence also takes a segment within the noise (docs/analysis.md) */
	const char *why = ao->replicate ? "mean ± var overlaps the band" : "mean ± var overlaps the band or is within the noise";
	if (ap->cls == AN_FLAT)
		sb_addf(sb, "flat although %zu segments: every segment %s", ap->nsegs, why);
	else
		sb_addf(sb, "the steady state is the last %zu segments: each %s", eq, why);
	const struct time_unit *tu = time_unit_for(v->delta);
	sb_adds(sb, " (last segment mean ± max(var, δ), δ = ");
	if (ao->delta_pct > 0) {
		an_delta_text(ao, sb);
		sb_adds(sb, " = ");
	}
	sb_addf(sb, "%.3g %s)", v->delta * tu->scale, tu->name);
}

/* ---- the script ---- */

struct box {
	double l, r, b, t; /* screen fractions */
};

struct canvas {
	double w, h;       /* pixels */
	double yscale;     /* vertical stretch of the pixel layout (--size) */
};

/* screen fraction of the pixel row y counted from the top */
static double row(const struct canvas *cv, double y)
{
	return 1 - y * cv->yscale / cv->h;
}

static void gp_terminal(struct strbuf *g, const struct plot_opts *po, const struct canvas *cv, const char *out)
{
	switch (po->fmt) {
	case PLOT_SVG:
		sb_addf(g, "set terminal svg size %.0f,%.0f noenhanced font 'sans,10' background rgb 'white'\n", cv->w,
			cv->h);
		break;
	case PLOT_PDF:
		sb_addf(g, "set terminal pdfcairo size %.2fin,%.2fin noenhanced font 'sans,8'\n", cv->w / 96, cv->h / 96);
		break;
	case PLOT_PNG:
		sb_addf(g, "set terminal pngcairo size %.0f,%.0f noenhanced font 'sans,10' background rgb 'white'\n",
			cv->w, cv->h);
		break;
	}
	sb_adds(g, "set encoding utf8\nset output ");
	plot_quote(g, out);
	sb_adds(g, "\nset datafile missing '?'\nset grid lc rgb '#e4e4e4'\nset tics nomirror out scale 0.6\n"
		   "set border 3 lc rgb '#555555'\nunset xlabel\nunset ylabel\n");
}

static void gp_box(struct strbuf *g, const struct box *b)
{
	sb_addf(g, "set lmargin at screen %.5f\nset rmargin at screen %.5f\nset bmargin at screen %.5f\n"
		   "set tmargin at screen %.5f\n", b->l, b->r, b->b, b->t);
}

/* x axis: the iterations shown, whole-number ticks, labelled only under the bottom panel */
static void gp_xaxis(struct strbuf *g, long x0, long x1, int labels, double width_px)
{
	double lo = (double)x0 - 0.5, hi = (double)x1 + 0.5;
	double step = nice_step(hi - lo, width_px / 90 > 2 ? width_px / 90 : 2, 1);
	sb_addf(g, "set xrange [%.1f:%.1f]\nset xtics %.17g\nunset mxtics\n", lo, hi, step);
	if (labels)
		sb_adds(g, "set format x '%.0f'\n");
	else
		sb_adds(g, "set format x ''\n");
	if (labels > 1)
		sb_adds(g, "set xlabel 'iteration' offset 0,0.4\n");
	else
		sb_adds(g, "unset xlabel\n");
}

/* the ticks of a log axis over [a, b]: 1, 2, 5 (or every digit, dense) times the powers of ten; how many */
static int log_ticks(struct strbuf *g, double a, double b, int dense)
{
	static const double digits[2][9] = { { 1, 2, 5 }, { 1, 2, 3, 4, 5, 6, 7, 8, 9 } };
	int n = 0;
	for (double p = pow(10, floor(log10(a))); p <= b; p *= 10)
		for (size_t q = 0; q < (dense ? 9u : 3u); q++) {
			double t = digits[dense][q] * p;
			if (t < a || t > b)
				continue;
			if (g)
				sb_addf(g, "%s%.6g", n ? ", " : "", t);
			n++;
		}
	return n;
}

/* a y range [lo:hi] (already scaled) with a little room, never below zero for non-negative data */
static void gp_yaxis(struct strbuf *g, double lo, double hi, int integer, int log_y, double minpos, double height_px)
{
	if (log_y) {
		double a = (minpos < INFINITY ? minpos : 1) / 1.15, b = (hi > a ? hi : a * 10) * 1.15;
		sb_addf(g, "set logscale y\nset yrange [%.17g:%.17g]\nset format y '%%g'\nset ytics (", a, b);
		/* 1, 2 and 5 times the powers of ten in range, or every digit when that gives fewer than 3 */
		if (log_ticks(NULL, a, b, 0) >= 3)
			log_ticks(g, a, b, 0);
		else
			log_ticks(g, a, b, 1);
		sb_adds(g, ")\n");
		return;
	}
	sb_adds(g, "unset logscale y\n");
	double pad = (hi - lo) * 0.06;
	if (!(pad > 0))
		pad = fabs(hi) > 0 ? fabs(hi) * 0.1 : 1;
	double a = lo - pad, b = hi + pad;
	if (lo >= 0 && a < 0)
		a = 0;
	double step = nice_step(b - a, height_px / 45 > 3 ? height_px / 45 : 3, integer);
	sb_addf(g, "set yrange [%.17g:%.17g]\nset ytics %.17g\nset format y '%%g'\n", a, b, step);
}

struct rs_style {
	int xlabels;      /* 0: none, 1: tick labels, 2: and the axis label */
	int inset;        /* a small plot over the main one: no grid, a white background */
	const struct legend *legend; /* drawn above the panel, its top at key_y */
	double key_y;
};

/*
 * The legend, in rows centred under the title: a sample (a line, a dot, a
 * patch of the band) and its text per entry, drawn as labels, arrows and
 * objects so that it never covers the data as gnuplot's key does.  Text
 * width is estimated at 7 px a character (9 pt sans).
 */
struct legend {
	struct { char kind; const char *col, *text; double w; int row; } e[5];
	size_t n;
	int rows;
};

#define LEGEND_ROW 16

static void legend_make(const struct pview *v, double width, struct legend *lg)
{
	size_t n = 0;
	memset(lg, 0, sizeof(*lg));
#define ENTRY(k, c, t) (lg->e[n].kind = (k), lg->e[n].col = (c), lg->e[n++].text = (t))
	ENTRY('b', v->steady ? COL_STEADY : COL_NOSTEADY, "band: last mean ± max(var, δ)");
	ENTRY('l', COL_WALL, "wall time");
	if (v->ap->noutliers)
		ENTRY('p', COL_OUTLIER, "outliers");
	if (pview_has_before(v))
		ENTRY('L', v->steady ? COL_BEFORE : COL_NOSTEADY,
		      v->steady ? "segment mean before steady state" : "segment mean (no steady state)");
	if (v->steady)
		ENTRY('L', COL_STEADY, "steady segment mean");
#undef ENTRY
	lg->n = n;
	double x = 0;
	lg->rows = 1;
	for (size_t i = 0; i < n; i++) {
		lg->e[i].w = 22 + 5 + 7.0 * (double)display_width(lg->e[i].text);
		if (x > 0 && x + lg->e[i].w > width - 40) {
			lg->rows++;
			x = 0;
		}
		lg->e[i].row = lg->rows - 1;
		x += lg->e[i].w + 26;
	}
}

static void gp_legend(struct strbuf *g, const struct legend *lg, const struct canvas *cv, double cx, double top)
{
	for (int r = 0; r < lg->rows; r++) {
		double total = 0;
		for (size_t i = 0; i < lg->n; i++)
			if (lg->e[i].row == r)
				total += lg->e[i].w + (total > 0 ? 26 : 0);
		double x = cx * cv->w - total / 2, y = top - (r + 0.5) * LEGEND_ROW * cv->yscale / cv->h;
		for (size_t i = 0; i < lg->n; i++) {
			if (lg->e[i].row != r)
				continue;
			double a = x / cv->w, b = (x + 22) / cv->w;
			const char *col = lg->e[i].col;
			if (lg->e[i].kind == 'b')
				sb_addf(g, "set object %zu rect from screen %.5f,%.5f to screen %.5f,%.5f fc rgb '%s' "
					   "fs transparent solid 0.25 border lc rgb '%s' dt 2 front\n", 20 + i, a,
					y - 5 / cv->h, b, y + 5 / cv->h, col, col);
			else if (lg->e[i].kind == 'p')
				sb_addf(g, "set label %zu '' at screen %.5f,%.5f point pt 7 ps 0.6 lc rgb '%s' front\n",
					20 + i, (a + b) / 2, y, col);
			else
				sb_addf(g, "set arrow %zu from screen %.5f,%.5f to screen %.5f,%.5f nohead lw %s lc rgb '%s' "
					   "front\n", 20 + i, a, y, b, y, lg->e[i].kind == 'L' ? "2.5" : "1", col);
			sb_addf(g, "set label %zu ", 30 + i);
			plot_quote(g, lg->e[i].text);
			sb_addf(g, " at screen %.5f,%.5f left font ',9' tc rgb '#222222' front\n", (x + 27) / cv->w, y);
			x += lg->e[i].w + 26;
		}
	}
}

/* the wall-time panel's plot command (and its band, segments, outliers) */
static void gp_runseq(struct strbuf *g, const struct pview *v, const struct box *b, const struct canvas *cv,
		      long x0, long x1, double ylo, double yhi, const struct rs_style *st)
{
	const struct time_unit *tu = time_unit_for(yhi > 0 ? yhi : v->whi);
	double sc = tu->scale, wpx = (b->r - b->l) * cv->w, hpx = (b->t - b->b) * cv->h;
	const char *dat = v->stem;
	int log_y = v->po->log_y && !st->inset;
	gp_box(g, b);
	gp_xaxis(g, x0, x1, st->xlabels, wpx);
	gp_yaxis(g, ylo * sc, yhi * sc, 0, log_y, v->wminpos * sc, hpx);
	if (st->inset) {
		sb_addf(g, "unset grid\nunset ylabel\nset object 1 rect from screen %.5f,%.5f to screen %.5f,%.5f "
			   "behind fc rgb 'white' fs solid 1.0 border lc rgb '#999999'\nunset key\n"
			   "set tics font ',8'\nset label 1 'steady state (%s)' at graph 0.01, graph 1 left offset 0,0.6 "
			   "font ',8' tc rgb '#333333' front\n", b->l - 44 / cv->w, b->b - 22 / cv->h, b->r + 4 / cv->w,
			b->t + 18 / cv->h, tu->name);
	} else {
		sb_addf(g, "set ylabel 'wall time (%s)'\n", tu->name);
	}
	if (st->inset) {
	} else if (st->legend) {
		gp_legend(g, st->legend, cv, (b->l + b->r) / 2, st->key_y);
	}
	sb_adds(g, "unset key\n");
	/* between the last iteration before the steady state and the first in it (x counts from 1) */
	long first = (long)v->ap->steady_start + 1;
	if (v->steady && first > x0 && first <= x1 && !st->inset)
		sb_addf(g, "set arrow 1 from %.1f, graph 0 to %.1f, graph 1 nohead dt 3 lc rgb '%s' back\n",
			(double)first - 0.5, (double)first - 0.5, COL_STEADY);
	const char *bandcol = v->steady ? COL_STEADY : COL_NOSTEADY;
	char ylo_s[40];
	snprintf(ylo_s, sizeof(ylo_s), "%.17g", log_y ? v->wminpos * sc / 1.15 : -1e300);
	sb_addf(g, "S = %.17g\nYLO = %s\n", sc, ylo_s);
	sb_addf(g, "plot '%s.dat' index 3 using 1:($2*S > YLO ? $2*S : YLO):($3*S) with filledcurves fc rgb '%s' "
		   "fs transparent solid 0.16 noborder notitle, \\\n"
		   "  '' index 3 using 1:($2*S > YLO ? $2*S : YLO) with lines dt 2 lw 1 lc rgb '%s' notitle, \\\n"
		   "  '' index 3 using 1:($3*S) with lines dt 2 lw 1 lc rgb '%s' notitle, \\\n"
		   "  '' index 0 using 1:($2*S) with lines lw 1 lc rgb '%s' notitle",
		dat, bandcol, bandcol, bandcol, COL_WALL);
	if (v->ap->noutliers)
		sb_addf(g, ", \\\n  '' index 0 using 1:($3*S) with points pt 7 ps 0.45 lc rgb '%s' notitle",
			COL_OUTLIER);
	if (pview_has_before(v))
		sb_addf(g, ", \\\n  '' index 1 using 1:($2*S) with lines lw 2.5 lc rgb '%s' notitle",
			v->steady ? COL_BEFORE : COL_NOSTEADY);
	if (v->steady)
		sb_addf(g, ", \\\n  '' index 2 using 1:($2*S) with lines lw 2.5 lc rgb '%s' notitle",
			COL_STEADY);
	sb_adds(g, "\nunset arrow\nunset object\nunset label\nset tics font ''\nset ylabel font '' offset 0,0\n"
		   "set grid\nunset title\n");
}

/* the part of the steady state an inset shows, and whether it is worth one */
static int pview_inset(const struct pview *v, double *lo, double *hi, long *from)
{
	if (!v->steady || v->po->inset == PLOT_INSET_OFF)
		return 0;
	long s = (long)v->ap->steady_start + 1 > v->x0 ? (long)v->ap->steady_start + 1 : v->x0;
	if (v->x1 - s < 4)
		return 0;
	double *y = xmalloc((size_t)(v->x1 - s + 1) * sizeof(double));
	size_t m = 0, oi = 0;
	for (long j = s - 1; j < v->x1; j++) {
		while (oi < v->ap->noutliers && (long)v->ap->outliers[oi] < j)
			oi++;
		if ((oi < v->ap->noutliers && (long)v->ap->outliers[oi] == j) || !isfinite(v->dp->wall[j]))
			continue;
		y[m++] = v->dp->wall[j];
	}
	int ok = m >= 4;
	if (ok) {
		/* the 2nd to 98th percentile: one slow steady iteration does not flatten the inset */
		*lo = an_percentile(y, m, 2);
		*hi = an_percentile(y, m, 98);
		double span = v->whi - v->wlo;
		ok = v->po->inset == PLOT_INSET_ON || (span > 0 && *hi - *lo < 0.2 * span);
		*from = s;
	}
	free(y);
	return ok;
}

/* one instrumentation panel */
static void gp_series(struct strbuf *g, const struct pview *v, const struct pseries *p, const struct box *b,
		      const struct canvas *cv, int xlabels)
{
	gp_box(g, b);
	gp_xaxis(g, v->x0, v->x1, xlabels, (b->r - b->l) * cv->w);
	gp_yaxis(g, p->lo * p->scale, p->hi * p->scale, p->integer && p->scale == 1, 0, INFINITY,
		 (b->t - b->b) * cv->h);
	sb_adds(g, "unset key\nunset ylabel\nset label 1 ");
	plot_quote(g, p->label);
	sb_adds(g, " at graph 0, graph 1 left offset 0,0.7 front font ',9' tc rgb '#333333'\n");
	/* a value per iteration: a step over each iteration, never a slope between two */
	sb_addf(g, "plot '%s.dat' index 0 using 1:($%zu*%.17g) with histeps lw 1 lc rgb '%s' notitle\nunset label\n",
		v->stem, p->col, p->scale, COL_SERIES);
}

/* wrap text into lines of at most w characters (at ", "), as gnuplot labels */
static size_t wrap_lines(const char *text, size_t w, struct strvec *out)
{
	struct strbuf line = STRBUF_INIT;
	const char *p = text;
	while (*p) {
		const char *q = strstr(p, ", ");
		size_t n = q ? (size_t)(q - p) + 1 : strlen(p);
		if (line.len && line.len + n + 1 > w) {
			sv_push(out, line.buf);
			sb_reset(&line);
		}
		if (line.len)
			sb_addc(&line, ' ');
		sb_add(&line, p, n);
		p += n;
		while (*p == ' ')
			p++;
	}
	if (line.len)
		sv_push(out, line.buf);
	sb_release(&line);
	return out->n;
}

/* the whole single-pexec script */
static void pexec_script(const struct pview *v, const struct an_opts *ao, struct strbuf *g, const char *image)
{
	const struct plot_opts *po = v->po;
	struct strbuf note = STRBUF_INIT, title = STRBUF_INIT;
	pview_note(v, ao, &note);
	struct strvec folded = STRVEC_INIT;
	if (v->folded.len || v->nundrawn) {
		struct strbuf f = STRBUF_INIT;
		if (v->folded.len)
			sb_addf(&f, "constant, not drawn: %s", v->folded.buf);
		if (v->nfolded > PLOT_MAX_FOLDED)
			sb_addf(&f, " and %zu more", v->nfolded - PLOT_MAX_FOLDED);
		if (v->nundrawn)
			sb_addf(&f, "%s%zu more series not drawn (%d panels at most)", f.len ? "; " : "", v->nundrawn,
				PLOT_MAX_PANELS);
		double w = po->width > 0 ? po->width : PX_WIDTH;
		wrap_lines(f.buf, (size_t)((w - 40) / 6.2), &folded);
		sb_release(&f);
	}
	size_t nser = po->wall_only ? 0 : v->nser;
	struct legend lg;
	legend_make(v, po->width > 0 ? po->width : PX_WIDTH, &lg);
	double keyh = lg.rows * LEGEND_ROW + 8;
	double natural = PX_TITLE + (note.len ? PX_NOTE : 0) + keyh + PX_MAIN + (double)nser * (PX_SERIES + PX_GAP) +
			 PX_BOTTOM + (double)folded.n * PX_NOTE + (folded.n ? 6 : 0);
	struct canvas cv = { po->width > 0 ? po->width : PX_WIDTH, po->height > 0 ? po->height : natural, 1 };
	cv.yscale = cv.h / natural;
	sb_adds(g, "# ");
	plot_quote(g, v->k->key);
	sb_addf(g, " pexec %ld, written by kiln %s: run as  cd DIR && gnuplot %s.gp\n", v->dp->num, KILN_VERSION,
		v->stem);
	gp_terminal(g, po, &cv, image);
	sb_addf(&title, "%s, pexec %ld: ", v->k->key, v->dp->num);
	pview_summary(v, &title);
	sb_adds(g, "set multiplot title ");
	plot_quote(g, title.buf);
	/* 11 pt is about 8 px a character: a smaller font where the title would not fit */
	sb_adds(g, 8.0 * (double)display_width(title.buf) > cv.w - 16 ? " font ',9'\n" : " font ',11'\n");
	double y = PX_TITLE;
	if (note.len) {
		sb_addf(g, "set label 2 ");
		plot_quote(g, note.buf);
		sb_addf(g, " at screen 0.5,%.5f center font ',9' tc rgb '#444444'\n", row(&cv, y + PX_NOTE * 0.45));
		y += PX_NOTE;
	}
	double key_y = row(&cv, y + 2);
	y += keyh;
	for (size_t i = 0; i < folded.n; i++) {
		sb_addf(g, "set label %zu ", 3 + i);
		plot_quote(g, folded.v[i]);
		sb_addf(g, " at screen %.5f,%.5f left font ',9' tc rgb '#444444'\n", 8 / cv.w,
			(((double)folded.n - (double)i) * PX_NOTE - 4) * cv.yscale / cv.h);
	}
	struct box main = { PX_LEFT / cv.w, 1 - PX_RIGHT / cv.w, row(&cv, y + PX_MAIN), row(&cv, y) };
	struct rs_style st = { nser == 0 ? 2 : 0, 0, &lg, key_y };
	gp_runseq(g, v, &main, &cv, v->x0, v->x1, v->wlo, v->whi, &st);
	double ilo, ihi;
	long ifrom;
	if (pview_inset(v, &ilo, &ihi, &ifrom)) {
		/* top right, or bottom right when the steady state runs high in the panel */
		double mid = (v->ap->steady_mean - v->wlo) / (v->whi - v->wlo > 0 ? v->whi - v->wlo : 1);
		double ih = (main.t - main.b) * 0.42, iw = (main.r - main.l) * 0.36;
		struct box in = { main.r - iw - 10 / cv.w, main.r - 10 / cv.w, 0, 0 };
		in.t = mid < 0.5 ? main.t - 26 / cv.h : main.b + ih + 30 / cv.h;
		in.b = in.t - ih;
		struct rs_style ist = { 1, 1, NULL, 0 };
		sb_adds(g, "# the inset: the steady state, zoomed\n");
		gp_runseq(g, v, &in, &cv, ifrom, v->x1, ilo, ihi, &ist);
	}
	y += PX_MAIN;
	for (size_t s = 0; s < nser; s++) {
		y += PX_GAP;
		struct box b = { main.l, main.r, row(&cv, y + PX_SERIES), row(&cv, y) };
		gp_series(g, v, &v->ser[s], &b, &cv, s + 1 == nser ? 2 : 0);
		y += PX_SERIES;
	}
	sb_adds(g, "unset multiplot\n");
	sv_clear(&folded);
	sb_release(&note);
	sb_release(&title);
}

static int write_pview_data(const struct pview *v, const char *dir, struct kerr *e)
{
	struct strbuf d = STRBUF_INIT;
	pview_data(v, &d);
	char *dat = xasprintf("%s/%s.dat", dir, v->stem);
	int r = write_file(dat, d.buf, d.len, e);
	free(dat);
	sb_release(&d);
	return r;
}

/* write NAME.gp and run it in dir */
static int run_script(const char *dir, const char *name, const struct strbuf *g, struct kerr *e)
{
	char *gpf = xasprintf("%s/%s.gp", dir, name), *script = xasprintf("%s.gp", name);
	int r = write_file(gpf, g->buf, g->len, e);
	if (r == 0)
		r = run_gnuplot(dir, script, e);
	free(gpf);
	free(script);
	return r;
}

int plot_pexec(const struct an_key *ak, size_t i, const struct an_opts *ao, const struct plot_opts *po,
	       const char *dir, const char *stem, char **out, struct kerr *e)
{
	if (mkdir_p(dir, 0755) < 0)
		return kerr_set(e, "%s: cannot create: %s", dir, strerror(errno));
	struct pview v;
	pview_init(&v, ak, i, ao, po, stem);
	char *image = xasprintf("%s.%s", v.stem, plot_ext(po->fmt));
	struct strbuf g = STRBUF_INIT;
	pexec_script(&v, ao, &g, image);
	int r = write_pview_data(&v, dir, e);
	if (r == 0)
		r = run_script(dir, v.stem, &g, e);
	if (r == 0 && out)
		*out = xasprintf("%s/%s", dir, image);
	free(image);
	sb_release(&g);
	pview_free(&v);
	return r;
}

/* ---- many pexecs to a page ---- */

static void page_script(struct pview *vs, size_t n, int page, const struct canvas *cv, int cols, struct strbuf *g)
{
	const struct ds_key *k = vs[0].k;
	sb_addf(g, "set multiplot title ");
	struct strbuf t = STRBUF_INIT;
	sb_addf(&t, "%s: pexecs %ld-%ld (page %d)", k->key, vs[0].dp->num, vs[n - 1].dp->num, page);
	plot_quote(g, t.buf);
	sb_release(&t);
	sb_adds(g, " font ',11'\n");
	sb_addf(g, "set label 2 'black: wall time, red: outliers, orange/green: segment means before/in the steady "
		   "state, band: last segment mean ± max(var, δ)' at screen 0.5,%.5f center font ',9' tc rgb '#444444'\n",
		12 / cv->h);
	for (size_t c = 0; c < n; c++) {
		struct pview *v = &vs[c];
		int col = (int)c % cols, rw = (int)c / cols;
		double x = col * PX_CELL_W, y = PX_TITLE + rw * PX_CELL_H;
		struct box b = { (x + 70) / cv->w, (x + PX_CELL_W - 14) / cv->w, row(cv, y + PX_CELL_H - 46),
				 row(cv, y + PX_CELL_TITLE) };
		struct strbuf ct = STRBUF_INIT;
		sb_addf(&ct, "pexec %ld: ", v->dp->num);
		pview_summary(v, &ct);
		sb_adds(g, "set title ");
		plot_quote(g, ct.buf);
		sb_adds(g, " font ',9' offset 0,-0.4\n");
		sb_release(&ct);
		struct rs_style st = { 2, 0, NULL, 0 };
		gp_runseq(g, v, &b, cv, v->x0, v->x1, v->wlo, v->whi, &st);
	}
	sb_adds(g, "unset multiplot\n");
}

int plot_pages(const struct an_key *ak, const size_t *idx, size_t n, const struct an_opts *ao,
	       const struct plot_opts *po, const char *dir, const char *stem, struct strvec *outs, struct kerr *e)
{
	if (mkdir_p(dir, 0755) < 0)
		return kerr_set(e, "%s: cannot create: %s", dir, strerror(errno));
	size_t per = po->per_page > 1 ? (size_t)po->per_page : 1;
	int cols = per >= 9 ? 3 : per >= 4 ? 2 : 1;
	int rows = (int)((per + (size_t)cols - 1) / (size_t)cols);
	struct canvas cv = { po->width > 0 ? po->width : cols * PX_CELL_W,
			     po->height > 0 ? po->height : PX_TITLE + rows * PX_CELL_H + 24, 1 };
	struct canvas grid = cv;
	/* the cells are laid out for the natural size and stretched to --size */
	grid.w = cols * PX_CELL_W;
	grid.yscale = cv.h / (PX_TITLE + rows * PX_CELL_H + 24.0);
	struct plot_opts wall = *po;
	wall.wall_only = 1;
	struct pview *vs = xcalloc(n ? n : 1, sizeof(*vs));
	int r = 0;
	for (size_t i = 0; i < n && r == 0; i++) {
		pview_init(&vs[i], ak, idx[i], ao, &wall, stem);
		r = write_pview_data(&vs[i], dir, e);
	}
	int pdf = po->fmt == PLOT_PDF;
	struct strbuf g = STRBUF_INIT;
	for (size_t from = 0, page = 1; r == 0 && from < n; from += per, page++) {
		size_t m = n - from < per ? n - from : per;
		char *name = pdf ? xasprintf("%s-pages", stem) : xasprintf("%s-page%zu", stem, page);
		char *image = xasprintf("%s.%s", name, plot_ext(po->fmt));
		if (!pdf || page == 1) {
			sb_reset(&g);
			sb_adds(&g, "# ");
			plot_quote(&g, ak->key->key);
			sb_addf(&g, ", %zu pexecs a page, written by kiln %s: run as  cd DIR && gnuplot %s.gp\n", per,
				KILN_VERSION, name);
			gp_terminal(&g, po, &cv, image);
		}
		page_script(vs + from, m, (int)page, &grid, cols, &g);
		if (!pdf || from + per >= n) {
			r = run_script(dir, name, &g, e);
			if (r == 0)
				sv_pushf(outs, "%s/%s", dir, image);
		}
		free(name);
		free(image);
	}
	for (size_t i = 0; i < n; i++)
		pview_free(&vs[i]);
	free(vs);
	sb_release(&g);
	return r;
}
