/*
 * publish-svg.c - the site's charts, written as SVG by kiln itself (no
 * gnuplot: a chart per key and a sparkline per key are too many processes
 * for a site of hundreds of keys, and kiln's own SVG is a tenth of the
 * size).  x is the series' points in commit order, one slot each; every
 * point is a link to its commit's row of the key page with a <title> (a
 * tooltip without JavaScript).  Colours and strokes come from kiln.css by
 * class (the pages forbid inline styles).  Untrusted text (subjects) is
 * only ever inside <title>, escaped.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "publish-int.h"
#include "report.h"

#define CHART_W 960.0
#define LEFT 72.0
#define RIGHT 12.0
#define TOP 10.0
#define BOTTOM 34.0
#define TITLE_SUBJECT 60 /* columns of a subject kept in a tooltip */
#define Y_TICKS_MAX 16   /* nice_step aims at 4 */

/* a linear map of [lo, hi] onto [p0, p1] (pixels) */
struct scale {
	double lo, hi, p0, p1;
};

static double sc_at(const struct scale *s, double v)
{
	if (!(s->hi > s->lo))
		return (s->p0 + s->p1) / 2;
	return s->p0 + (v - s->lo) / (s->hi - s->lo) * (s->p1 - s->p0);
}

/* a round step giving about n ticks over [lo, hi]: 1, 2 or 5 times a power of ten */
static double nice_step(double lo, double hi, int n)
{
	double raw = (hi - lo) / n;
	if (!(raw > 0) || !isfinite(raw))
		return 1;
	double p = pow(10, floor(log10(raw))), f = raw / p;
	return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
}

/* the point's slot centre */
static double xat(const struct pub_key *k, size_t i)
{
	double dx = (CHART_W - LEFT - RIGHT) / (double)(k->s.n ? k->s.n : 1);
	return LEFT + ((double)i + 0.5) * dx;
}

static const struct hist_commit *commit_of(const struct pub_site *s, const struct pub_key *k, size_t i)
{
	size_t c = k->s.p[i].commit;
	return c < s->nc ? &s->c[c] : NULL;
}

/* a point's link and tooltip, opened: <a href="#c-HASH"><title>HASH DATE SUBJECT: WHAT</title> */
static void point_open(struct strbuf *sb, const struct pub_site *s, const struct pub_key *k, size_t i, const char *what)
{
	const struct hist_commit *c = commit_of(s, k, i);
	char h[16];
	pub_short(c ? c->hash : NULL, h);
	sb_addf(sb, "<a href=\"#c-%s\"><title>%s ", h, h);
	if (c && c->subject) {
		size_t bytes;
		display_cut(c->subject, TITLE_SUBJECT, &bytes);
		char *cut = xstrndup(c->subject, bytes);
		esc_add(sb, ESC_HTML, cut);
		if (c->subject[bytes])
			sb_adds(sb, "\xe2\x80\xa6");
		free(cut);
	}
	sb_adds(sb, ": ");
	esc_add(sb, ESC_HTML, what);
	sb_adds(sb, "</title>");
}

/* the <svg> element with the geometry the script needs to find a point under the cursor */
static void svg_open(struct strbuf *sb, const struct pub_key *k, const char *id, double h, const char *label)
{
	sb_addf(sb, "<svg class=\"chart\" id=\"%s\" viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" height=\"%.0f\" role=\"img\""
		    " data-n=\"%zu\" data-x0=\"%.0f\" data-x1=\"%.0f\" aria-label=\"",
		id, CHART_W, h, CHART_W, h, k->s.n, LEFT, CHART_W - RIGHT);
	esc_add(sb, ESC_HTML, label);
	sb_adds(sb, "\" xmlns=\"http://www.w3.org/2000/svg\">\n");
}

/* horizontal grid lines and their labels, in the time unit of the range's top (seconds in) */
static void y_axis_time(struct strbuf *sb, const struct scale *y)
{
	/*
	 * The ticks counted, not stepped to: a step below the values' precision
	 * (levels an ulp apart) or an infinite range would never get past hi
	 */
	if (!isfinite(y->hi - y->lo) || !(y->hi > y->lo))
		return;
	const struct time_unit *tu = time_unit_for(fmax(fabs(y->hi), fabs(y->lo)));
	double step = nice_step(y->lo, y->hi, 4), first = ceil(y->lo / step) * step, last = NAN;
	int dec = (int)fmax(0, -floor(log10(step * tu->scale) + 1e-9));
	for (int i = 0; i < Y_TICKS_MAX; i++) {
		double v = first + i * step;
		if (!(v <= y->hi + step * 1e-9))
			break;
		if (v == last)
			continue;
		last = v;
		double py = sc_at(y, v);
		sb_addf(sb, "<path class=\"grid\" d=\"M%.0f %.1fH%.0f\"/><text class=\"yl\" x=\"%.0f\" y=\"%.1f\">%.*f %s</text>\n",
			LEFT, py, CHART_W - RIGHT, LEFT - 6, py + 4, dec, v * tu->scale, tu->name);
	}
}

/* a few commits named under the x axis */
static void x_axis(struct strbuf *sb, const struct pub_site *s, const struct pub_key *k, double h)
{
	size_t n = k->s.n, every = n > 8 ? (n + 7) / 8 : 1;
	sb_addf(sb, "<path class=\"axis\" d=\"M%.0f %.1fH%.0f\"/>\n", LEFT, h - BOTTOM, CHART_W - RIGHT);
	for (size_t i = 0; i < n; i += every) {
		const struct hist_commit *c = commit_of(s, k, i);
		char hb[16];
		pub_short(c ? c->hash : NULL, hb);
		sb_addf(sb, "<text class=\"xl\" x=\"%.1f\" y=\"%.1f\">%.7s</text>\n", xat(k, i), h - BOTTOM + 14, hb);
	}
}

/* the changes of series w as dashed lines between two commits, their ranges shaded */
static void change_marks(struct strbuf *sb, const struct pub_key *k, enum pub_what w, double h)
{
	double dx = (CHART_W - LEFT - RIGHT) / (double)(k->s.n ? k->s.n : 1);
	for (size_t j = 0; j < k->nch; j++) {
		const struct pub_change *c = &k->ch[j];
		if (c->what != w || c->at >= k->s.n)
			continue;
		const char *cls = pub_change_worse(c) ? "worse" : "better";
		if (c->hi > c->lo)
			sb_addf(sb, "<rect class=\"range %s\" x=\"%.1f\" y=\"%.0f\" width=\"%.1f\" height=\"%.0f\"/>\n", cls,
				xat(k, c->lo) - dx, TOP, (double)(c->hi - c->lo + 1) * dx, h - TOP - BOTTOM);
		double x = xat(k, c->at) - dx / 2;
		sb_addf(sb, "<a href=\"#ch-%zu\"><title>", j);
		struct strbuf t = STRBUF_INIT;
		pub_change_size(&t, c, 1);
		esc_add(sb, ESC_HTML, t.buf);
		sb_release(&t);
		sb_addf(sb, "</title><path class=\"cp %s\" d=\"M%.1f %.0fV%.0f\"/></a>\n", cls, x, TOP, h - BOTTOM);
	}
}

/* commits whose build failed: a cross on the x axis */
static void failed_marks(struct strbuf *sb, const struct pub_site *s, const struct pub_key *k, double h)
{
	for (size_t i = 0; i < k->s.n; i++) {
		if (k->s.p[i].built)
			continue;
		point_open(sb, s, k, i, "the build failed");
		double x = xat(k, i), y = h - BOTTOM;
		sb_addf(sb, "<path class=\"fail\" d=\"M%.1f %.1fl6 6m0 -6l-6 6\"/></a>\n", x - 3, y - 3);
	}
}

/* [lo, hi] of the finite values a[i*stride], padded by 6%; 0 when there are none */
static int range_of(const double *lo, const double *hi, size_t n, size_t stride, double *a, double *b)
{
	*a = INFINITY;
	*b = -INFINITY;
	for (size_t i = 0; i < n; i++) {
		double l = lo[i * stride], u = hi[i * stride];
		if (isfinite(l))
			*a = fmin(*a, l);
		if (isfinite(u))
			*b = fmax(*b, u);
	}
	if (!(*b >= *a))
		return 0;
	double pad = (*b - *a) * 0.06;
	if (!(pad > 0))
		pad = fabs(*a) * 0.05 + 1e-12;
	/* values near DBL_MAX (a crafted history): the padded range stays finite */
	*a = fmax(*a - pad, -DBL_MAX);
	*b = fmin(*b + pad, DBL_MAX);
	return 1;
}

/* a point's interval, or its mean where the interval is missing */
static void point_interval(const struct pub_fig *f, double *lo, double *hi)
{
	*lo = isfinite(f->lo) ? f->lo : f->mean;
	*hi = isfinite(f->hi) ? f->hi : f->mean;
}

/* the levels between the steady changes: a line from one change to the next */
static void steady_levels(struct strbuf *sb, const struct pub_key *k, const struct scale *y)
{
	double dx = (CHART_W - LEFT - RIGHT) / (double)(k->s.n ? k->s.n : 1);
	for (size_t j = 0; j < k->nch; j++) {
		const struct pub_change *c = &k->ch[j];
		if (c->what != PUB_STEADY)
			continue;
		size_t start = 0, end = k->s.n;
		for (size_t q = 0; q < k->nch; q++)
			if (k->ch[q].what == PUB_STEADY && k->ch[q].at < c->at && k->ch[q].at > start)
				start = k->ch[q].at;
		for (size_t q = 0; q < k->nch; q++)
			if (k->ch[q].what == PUB_STEADY && k->ch[q].at > c->at && k->ch[q].at < end)
				end = k->ch[q].at;
		if (isfinite(c->before))
			sb_addf(sb, "<path class=\"lvl\" d=\"M%.1f %.1fH%.1f\"/>\n", xat(k, start) - dx / 2,
				sc_at(y, c->before), xat(k, c->at) - dx / 2);
		if (isfinite(c->after))
			sb_addf(sb, "<path class=\"lvl\" d=\"M%.1f %.1fH%.1f\"/>\n", xat(k, c->at) - dx / 2,
				sc_at(y, c->after), xat(k, end - 1) + dx / 2);
	}
}

void svg_steady(struct strbuf *sb, const struct pub_site *s, const struct pub_key *k)
{
	const double h = 280;
	size_t n = k->s.n;
	double *lo = xmalloc((n + 1) * sizeof(double)), *hi = xmalloc((n + 1) * sizeof(double));
	for (size_t i = 0; i < n; i++)
		point_interval(&k->fig[i], &lo[i], &hi[i]);
	struct scale y = { 0, 1, h - BOTTOM, TOP };
	int any = range_of(lo, hi, n, 1, &y.lo, &y.hi);
	svg_open(sb, k, "steady", h, "steady-state mean per commit, with its 99% confidence interval");
	if (any)
		y_axis_time(sb, &y);
	change_marks(sb, k, PUB_STEADY, h);
	steady_levels(sb, k, &y);
	x_axis(sb, s, k, h);
	for (size_t i = 0; i < n; i++) {
		const struct hist_point *p = &k->s.p[i];
		const struct pub_fig *f = &k->fig[i];
		if (!isfinite(f->mean))
			continue;
		struct strbuf v = STRBUF_INIT;
		pub_fmt_fig(&v, f, p->n);
		point_open(sb, s, k, i, v.buf);
		sb_release(&v);
		double x = xat(k, i);
		if (hi[i] > lo[i])
			sb_addf(sb, "<path class=\"ci\" d=\"M%.1f %.1fV%.1f\"/>", x, sc_at(&y, lo[i]), sc_at(&y, hi[i]));
		sb_addf(sb, "<circle class=\"pt%s%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"2.6\"/></a>\n",
			p->same_as_prev ? " aa" : "", f->pooled ? " est" : "", x, sc_at(&y, f->mean));
	}
	failed_marks(sb, s, k, h);
	if (!any)
		sb_addf(sb, "<text class=\"none\" x=\"%.0f\" y=\"%.0f\">no steady state at any commit</text>\n",
			CHART_W / 2, h / 2);
	sb_adds(sb, "</svg>\n");
	free(lo);
	free(hi);
}

void svg_classes(struct strbuf *sb, const struct pub_site *s, const struct pub_key *k)
{
	static const char *const cls[AN_NPCLASS] = { "flat", "warmup", "slowdown", "nosteady" };
	const double h = 90, top = TOP, bottom = h - BOTTOM;
	double dx = (CHART_W - LEFT - RIGHT) / (double)(k->s.n ? k->s.n : 1), w = dx < 24 ? dx : 24;
	svg_open(sb, k, "classes", h, "the pexecs of each commit by warm-up class");
	sb_addf(sb, "<text class=\"yl\" x=\"%.0f\" y=\"%.1f\">100%%</text><text class=\"yl\" x=\"%.0f\" y=\"%.1f\">0%%</text>\n",
		LEFT - 6, top + 8, LEFT - 6, bottom);
	change_marks(sb, k, PUB_CLASS, h);
	x_axis(sb, s, k, h);
	for (size_t i = 0; i < k->s.n; i++) {
		const struct hist_point *p = &k->s.p[i];
		size_t tot = 0;
		for (int c = 0; c < AN_NPCLASS; c++)
			tot += p->counts[c];
		if (!tot)
			continue;
		struct strbuf t = STRBUF_INIT;
		for (int c = 0; c < AN_NPCLASS; c++)
			if (p->counts[c])
				sb_addf(&t, "%s%zu %s", t.len ? ", " : "", p->counts[c], an_class_name((enum an_class)c));
		point_open(sb, s, k, i, t.buf);
		sb_release(&t);
		double y = top;
		for (int c = 0; c < AN_NPCLASS; c++) {
			if (!p->counts[c])
				continue;
			double hh = (bottom - top) * (double)p->counts[c] / (double)tot;
			sb_addf(sb, "<rect class=\"c-%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>", cls[c],
				xat(k, i) - w / 2, y, w, hh);
			y += hh;
		}
		sb_adds(sb, "</a>\n");
	}
	failed_marks(sb, s, k, h);
	sb_adds(sb, "</svg>\n");
}

void svg_tts(struct strbuf *sb, const struct pub_site *s, const struct pub_key *k)
{
	const double h = 200;
	size_t n = k->s.n;
	double top = 0;
	for (size_t i = 0; i < n; i++)
		if (isfinite(k->fig[i].tts_hi))
			top = fmax(top, k->fig[i].tts_hi);
	struct scale y = { 0, top > 0 ? top * 1.06 : 1, h - BOTTOM, TOP };
	svg_open(sb, k, "tts", h, "time to steady state per commit: median and 5th to 95th percentile of its pexecs");
	y_axis_time(sb, &y);
	change_marks(sb, k, PUB_WARMUP, h);
	change_marks(sb, k, PUB_COST, h);
	x_axis(sb, s, k, h);
	for (size_t i = 0; i < n; i++) {
		const struct pub_fig *f = &k->fig[i];
		if (!isfinite(f->tts_med))
			continue;
		struct strbuf v = STRBUF_INIT;
		sb_adds(&v, "time to steady ");
		pub_fmt_time(&v, f->tts_med);
		sb_adds(&v, " (");
		pub_fmt_time(&v, f->tts_lo);
		sb_adds(&v, " to ");
		pub_fmt_time(&v, f->tts_hi);
		sb_adds(&v, ")");
		point_open(sb, s, k, i, v.buf);
		sb_release(&v);
		double x = xat(k, i);
		if (f->tts_hi > f->tts_lo)
			sb_addf(sb, "<path class=\"ci\" d=\"M%.1f %.1fV%.1f\"/>", x, sc_at(&y, f->tts_lo), sc_at(&y, f->tts_hi));
		sb_addf(sb, "<circle class=\"pt\" cx=\"%.1f\" cy=\"%.1f\" r=\"2.6\"/></a>\n", x, sc_at(&y, f->tts_med));
	}
	failed_marks(sb, s, k, h);
	sb_adds(sb, "</svg>\n");
}

/* ---- the overview's sparkline ---- */

#define SPARK_W 168.0
#define SPARK_H 40.0

void svg_sparkline(struct strbuf *sb, const struct pub_site *s, const struct pub_key *k)
{
	static const char *const cls[AN_NPCLASS] = { "flat", "warmup", "slowdown", "nosteady" };
	size_t n = k->s.n;
	double lo = INFINITY, hi = -INFINITY;
	for (size_t i = 0; i < n; i++)
		if (isfinite(k->fig[i].mean)) {
			lo = fmin(lo, k->fig[i].mean);
			hi = fmax(hi, k->fig[i].mean);
		}
	/* at least 4% of the level tall: a steady series' noise is not drawn as swings */
	double span = hi - lo, least = 0.04 * fabs(hi + lo) / 2;
	if (span < least) {
		lo -= (least - span) / 2;
		hi += (least - span) / 2;
	}
	double dx = (SPARK_W - 4) / (double)(n ? n : 1);
	struct scale y = { lo, hi, SPARK_H - 10, 4 };
	sb_addf(sb, "<svg class=\"spark\" viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" height=\"%.0f\" "
		    "xmlns=\"http://www.w3.org/2000/svg\" aria-hidden=\"true\">",
		SPARK_W, SPARK_H, SPARK_W, SPARK_H);
	/* the changes first, under the line */
	for (size_t j = 0; j < k->nch; j++)
		if (k->ch[j].at < n)
			sb_addf(sb, "<path class=\"cp %s\" d=\"M%.1f 2V%.0f\"/>", pub_change_worse(&k->ch[j]) ? "worse" : "better",
				2 + (double)k->ch[j].at * dx, SPARK_H - 8);
	struct strbuf d = STRBUF_INIT;
	int pen = 0;
	double lx = 0, ly = 0;
	for (size_t i = 0; i < n; i++) {
		double m = k->fig[i].mean;
		if (!isfinite(m)) {
			pen = 0;
			continue;
		}
		lx = 2 + ((double)i + 0.5) * dx;
		ly = sc_at(&y, m);
		sb_addf(&d, "%c%.1f %.1f", pen ? 'L' : 'M', lx, ly);
		pen = 1;
	}
	if (d.len)
		sb_addf(sb, "<path class=\"line\" d=\"%s\"/><circle class=\"pt\" cx=\"%.1f\" cy=\"%.1f\" r=\"2\"/>", d.buf, lx,
			ly);
	sb_release(&d);
	/* the most frequent class of each commit, runs of one class as one rectangle */
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		int c = k->fig[i].major;
		while (j < n && k->fig[j].major == c)
			j++;
		if (c >= 0)
			sb_addf(sb, "<rect class=\"c-%s\" x=\"%.1f\" y=\"%.0f\" width=\"%.1f\" height=\"4\"/>", cls[c],
				2 + (double)i * dx, SPARK_H - 5, (double)(j - i) * dx);
		i = j;
	}
	sb_adds(sb, "</svg>");
}
