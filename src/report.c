/*
 * report.c - formatting an analysis (see report.h).
 *
 * Every format shows, per key: the class (with per-pexec counts when the
 * pexecs disagree, and failed pexecs noted), the steady-state iteration and
 * the time to reach it (median, 5th-95th percentile), the steady-state
 * performance (mean over the pexecs and its confidence interval), and the means per
 * iteration of each instrumentation series before and after the steady
 * state.  The text, Markdown and LaTeX forms share the cell strings built by
 * key_cells(); JSON follows warmup_stats' summary (machines -> vm ->
 * benchmark) with kiln's additions beside its fields; the HTML page inlines
 * SVG plots made by plot.c, so it needs no other file.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis-robust.h"
#include "flame.h"
#include "plot.h"
#include "report.h"
#include "stats.h"
#include "store.h"
#include "json-num.h"

int rep_parse_format(const char *s, enum rep_format *f)
{
	static const struct { const char *n; enum rep_format f; } t[] = {
		{ "text", REP_TEXT }, { "markdown", REP_MARKDOWN }, { "md", REP_MARKDOWN }, { "latex", REP_LATEX },
		{ "tex", REP_LATEX }, { "html", REP_HTML }, { "json", REP_JSON }, { "csv", REP_CSV },
	};
	for (size_t i = 0; i < ARRAY_SIZE(t); i++)
		if (!strcmp(s, t[i].n)) {
			*f = t[i].f;
			return 0;
		}
	return -1;
}

int rep_format_for_path(const char *path)
{
	const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
	enum rep_format f;
	if (!dot || (slash && dot < slash) || dot[1] == '\0' || !strcmp(path, "-"))
		return REP_TEXT;
	if (!strcmp(dot + 1, "txt"))
		return REP_TEXT;
	if (!strcmp(dot + 1, "htm"))
		return REP_HTML;
	if (rep_parse_format(dot + 1, &f) < 0)
		return -1;
	return (int)f;
}

/* decimals enough to show the interval's width with two significant digits */
static int decimals_for(double width)
{
	if (!(width > 0) || !isfinite(width))
		return 6;
	int d = 1 - (int)floor(log10(width));
	return d < 0 ? 0 : d > 12 ? 12 : d;
}

static int decimals_sig3(double v)
{
	if (!(fabs(v) > 0) || !isfinite(v))
		return 6;
	int d = 2 - (int)floor(log10(fabs(v)));
	return d < 0 ? 0 : d > 12 ? 12 : d;
}

/*
 * How to print v and its interval [lo, hi]: "v ± h" when the interval is
 * symmetric about v (its two sides within 10% of each other; returns 1,
 * *dec digits after the point for h's two significant ones), else the
 * interval itself, "v (lo–hi)" (returns 0; digits for the shorter side and
 * three significant of v): a bootstrap interval of a few pexecs is often
 * lopsided, and a ± would misstate it.  -1: no interval (h = 0).
 */
static int ci_style(double v, double lo, double hi, int *dec)
{
	double up = hi - v, down = v - lo, half = (up + down) / 2;
	if (!(half > 0))
		return -1;
	if (fabs(up - down) <= 0.1 * fmax(up, down)) {
		*dec = decimals_for(half);
		return 1;
	}
	double side = fmin(up, down) > 0 ? fmin(up, down) : fmax(up, down);
	int d = decimals_for(side) - 1, d3 = decimals_sig3(v);
	*dec = d > d3 ? d : d3;
	return 0;
}

void rep_fmt_ci(struct strbuf *sb, double v, double lo, double hi)
{
	int d = 6;
	if (!isfinite(v))
		sb_adds(sb, "-");
	else if (isnan(lo) || isnan(hi))
		sb_addf(sb, "%.*g", 6, v); /* no interval (one value): not "± 0" */
	else
		switch (ci_style(v, lo, hi, &d)) {
		case -1: sb_addf(sb, "%.*g ± 0", 6, v); break;
		case 1: sb_addf(sb, "%.*f ± %.*f", d, v, d, ((hi - v) + (v - lo)) / 2); break;
		default: sb_addf(sb, "%.*f (%.*f–%.*f)", d, v, d, lo, d, hi);
		}
}

/* what the steady perf column holds (its footnote in every format; no markup characters) */
static const char *perf_what(const struct an_result *r)
{
	return r->opts.replicate ? "bootstrap median"
				 : "the mean over the pexecs (of their steady means; docs/statistics.md)";
}

/* ---- what every format adds below its table ---- */

/* "KEY: warning" per key that has one (an_delta_warning); returns how many */
/* has a key before i the same program note (the keys one key was split into share it)? */
static int note_said(const struct an_result *r, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (r->keys[j].key->program_note && !strcmp(r->keys[j].key->program_note, r->keys[i].key->program_note))
			return 1;
	return 0;
}

/*
 * When the mean is the wrong question, or its interval less than it seems
 * (stats.h: skew, heavy tails, a second mode, outliers; too few values,
 * one pexec): the sentence, the median and its interval named.  Not under
 * --replicate-warmup-stats, whose interval is warmup_stats' bootstrap.
 */
static int shape_warning(const struct an_key *k, const struct an_opts *o, struct strbuf *sb)
{
	if (o->replicate || !k->has_steady)
		return 0;
	struct ks_mean m;
	an_key_mean(k, o, &m);
	if (!(m.shape & KS_WARN))
		return 0;
	ks_shape_text(&m, rep_add_time, sb);
	return 1;
}

/*
 * What every human format says of a key: a δ large against its steady mean,
 * and that it ran more than one program (ds_split_programs), once for the
 * keys it became.  The lines hold names from the input: each format escapes them.
 */
static size_t key_warnings(const struct an_result *r, struct strvec *keys, struct strvec *lines)
{
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < r->nkeys; i++) {
		sb_reset(&sb);
		if (an_delta_warning(&r->keys[i], &sb)) {
			sv_push(keys, r->keys[i].key->key);
			sv_push(lines, sb.buf);
		}
		sb_reset(&sb);
		if (shape_warning(&r->keys[i], &r->opts, &sb)) {
			sv_push(keys, r->keys[i].key->key);
			sv_push(lines, sb.buf);
		}
		/* drift, too short (an_warn_text: a sentence a line) */
		sb_reset(&sb);
		an_warn_text(&r->keys[i], &sb);
		for (char *line = sb.buf, *nl; line && *line; line = nl ? nl + 1 : NULL) {
			nl = strchr(line, '\n');
			if (nl)
				*nl = '\0';
			sv_push(keys, r->keys[i].key->key);
			sv_push(lines, line);
		}
		sb_reset(&sb);
		if (an_left_out_text(&r->keys[i], &sb)) {
			sv_push(keys, r->keys[i].key->key);
			sv_push(lines, sb.buf);
		}
		if (r->keys[i].key->program_note && !note_said(r, i)) {
			sv_push(keys, r->keys[i].key->key);
			sv_push(lines, r->keys[i].key->program_note);
		}
	}
	sb_release(&sb);
	return lines->n;
}

/* whole-process keys (one iteration per pexec): hyperfine's numbers, over the pexecs */
enum { W_KEY, W_MEAN, W_MEDIAN, W_RANGE, W_USER, W_SYS, W_RSS, W_CI, W_PEXECS, NWCOLS };
static const char *const wcol_titles[NWCOLS] = {
	"benchmark:vm:variant", "mean ± σ s", "median (CI) s", "min–max s", "user s", "sys s", "max RSS KiB",
	"CI of the mean s", "pexecs",
};

static int any_whole(const struct an_result *r)
{
	for (size_t i = 0; i < r->nkeys; i++)
		if (r->keys[i].whole)
			return 1;
	return 0;
}

static void whole_cells(const struct an_key *k, const struct an_opts *o, char *cells[NWCOLS])
{
	const struct an_whole *w = &k->wp;
	/* the median's distribution-free interval (order statistics) beside the mean's */
	struct ks_mean m;
	an_key_mean(k, o, &m);
	double med_lo = o->replicate ? NAN : m.med_lo, med_hi = m.med_hi;
	struct strbuf sb = STRBUF_INIT;
	int d = decimals_for(isfinite(w->sd) && w->sd > 0 ? w->sd : w->max - w->min);
	int d3 = decimals_sig3(w->min);
	d = d > d3 ? d : d3;
	cells[W_KEY] = xstrdup(esc(ESC_TERM, k->key->key));
	if (isfinite(w->sd))
		sb_addf(&sb, "%.*f ± %.*f", d, w->mean, d, w->sd);
	else
		sb_addf(&sb, "%.*f", d, w->mean);
	cells[W_MEAN] = sb_detach(&sb);
	sb_addf(&sb, "%.*f", d, w->median);
	if (isfinite(med_lo))
		sb_addf(&sb, " (%.*f–%.*f)", d, med_lo, d, med_hi);
	cells[W_MEDIAN] = sb_detach(&sb);
	sb_addf(&sb, "%.*f–%.*f", d, w->min, d, w->max);
	cells[W_RANGE] = sb_detach(&sb);
	const double cpu[2] = { w->user, w->sys };
	for (int q = 0; q < 2; q++) {
		if (isfinite(cpu[q]))
			sb_addf(&sb, "%.*f", decimals_sig3(cpu[q]), cpu[q]); /* three digits of 78 us too: not 0.000078 */
		else
			sb_adds(&sb, "-");
		cells[W_USER + q] = sb_detach(&sb);
	}
	if (isfinite(w->rss_max))
		sb_addf(&sb, "%.0f", w->rss_max);
	else
		sb_adds(&sb, "-");
	cells[W_RSS] = sb_detach(&sb);
	if (isfinite(k->perf_lo)) {
		int dc = decimals_for(k->perf_hi - k->perf_lo);
		dc = dc > d ? dc : d;
		sb_addf(&sb, "%.*f–%.*f", dc, k->perf_lo, dc, k->perf_hi);
	} else
		sb_adds(&sb, "-");
	cells[W_CI] = sb_detach(&sb);
	sb_addf(&sb, "%zu", k->np);
	cells[W_PEXECS] = sb_detach(&sb);
}

static void free_wcells(char *cells[NWCOLS])
{
	for (int i = 0; i < NWCOLS; i++)
		free(cells[i]);
}

static const char *whole_caption = "whole-process keys (one iteration per pexec): over the pexecs, the wall "
				    "time's mean ± sample standard deviation, median and range, mean user and system "
				    "CPU time, the largest peak RSS, and the confidence interval of the mean (docs/statistics.md); "
				    "the median's interval is distribution-free (order statistics)";



void rep_fmt_time_ci(struct strbuf *sb, double v, double lo, double hi)
{
	if (!isfinite(v)) {
		sb_adds(sb, "-");
		return;
	}
	const struct time_unit *tu = time_unit_for(v);
	rep_fmt_ci(sb, v * tu->scale, lo * tu->scale, hi * tu->scale);
	sb_addf(sb, " %s", tu->name);
}

void rep_add_time(struct strbuf *sb, double s)
{
	if (!isfinite(s)) {
		sb_adds(sb, "-");
		return;
	}
	const struct time_unit *tu = time_unit_for(s);
	sb_addf(sb, "%.4g %s", s * tu->scale, tu->name);
}

/* a time and its 5th-95th percentile range in one unit: "49.9 ms (34.7–84.6)" */
static void fmt_time_range(struct strbuf *sb, double m, double lo, double hi)
{
	if (!isfinite(m)) {
		sb_adds(sb, "-");
		return;
	}
	const struct time_unit *tu = time_unit_for(fabs(m) > fabs(hi) ? m : hi);
	sb_addf(sb, "%.3g %s (%.3g–%.3g)", m * tu->scale, tu->name, lo * tu->scale, hi * tu->scale);
}

static void fmt_iter_range(struct strbuf *sb, double m, double lo, double hi)
{
	if (!isfinite(m))
		sb_adds(sb, "-");
	else
		sb_addf(sb, "%g (%g–%g)", m, lo, hi);
}

/* the letters the text table uses for per-pexec classes, and their legend */
static const char *const class_letters[AN_NPCLASS] = { "F", "W", "S", "N" };
#define CLASS_LETTER_LEGEND "F flat, W warmup, S slowdown, N no steady state"

enum { C_KEY, C_CLASS, C_ITER, C_TTS, C_PERF, C_PEXECS, NCOLS };
static const char *const col_titles[NCOLS] = {
	"benchmark:vm:variant", "class", "steady iter", "to steady", "steady perf", "pexecs",
};

/* the cells of a key's row; short: the class's counts as letters (the text table) */
static void key_cells(const struct an_key *k, char *cells[NCOLS], int short_class)
{
	struct strbuf sb = STRBUF_INIT;
	cells[C_KEY] = xstrdup(esc(ESC_TERM, k->key->key)); /* visible; each format escapes its own characters */
	if (short_class)
		an_class_text_as(k, class_letters, " ", &sb);
	else
		an_class_text(k, &sb);
	cells[C_CLASS] = sb_detach(&sb);
	fmt_iter_range(&sb, k->iter_med, k->iter_p5, k->iter_p95);
	cells[C_ITER] = sb_detach(&sb);
	fmt_time_range(&sb, k->tts_med, k->tts_p5, k->tts_p95);
	cells[C_TTS] = sb_detach(&sb);
	rep_fmt_time_ci(&sb, k->perf_med, k->perf_lo, k->perf_hi);
	cells[C_PERF] = sb_detach(&sb);
	sb_addf(&sb, "%zu", k->np);
	if (k->nskipped)
		sb_addf(&sb, " (+%zu failed)", k->nskipped);
	cells[C_PEXECS] = sb_detach(&sb);
}

static void free_cells(char *cells[NCOLS])
{
	for (int i = 0; i < NCOLS; i++)
		free(cells[i]);
}

static const char *class_color(enum an_class c)
{
	switch (c) {
	case AN_FLAT:
	case AN_WARMUP: return "\033[32m";
	case AN_GOOD_INCONSISTENT: return "\033[33m";
	case AN_NO_DATA: return "\033[2m";
	default: return "\033[31m";
	}
}

static void opts_line(struct strbuf *sb, const struct an_result *r)
{
	an_opts_describe(&r->opts, sb);
}

/* an instrumentation mean, or "-" where that part (before/after the steady state) has none */
static const char *fmt_mean(double v, char buf[32])
{
	if (!isfinite(v))
		return strcpy(buf, "-");
	snprintf(buf, 32, "%.4g", v);
	return buf;
}

/* ---- what every human format says under the table: notes, failures, per-pexec values ---- */

/* pexecs of k whose steady state is several segments that the band made one (flat ones included) */
static size_t merged_segments(const struct an_key *k, size_t *flat)
{
	size_t n = 0;
	*flat = 0;
	for (size_t i = 0; i < k->np; i++) {
		const struct an_pexec *p = &k->p[i];
		if (p->cls != AN_NO_STEADY && p->nsegs - p->first_steady >= 2) {
			n++;
			*flat += p->cls == AN_FLAT;
		}
	}
	return n;
}

/* what of a key's pexecs the warm-up settings left out (not analysed, kept in the results) */
static void warmup_left_out(const struct ds_key *dk, struct strbuf *sb)
{
	sb_adds(sb, "left out, kept in the results but not analysed: ");
	if (dk->warmup_pexecs)
		sb_addf(sb, "%ld warm-up pexec%s (warmup_pexecs)%s", dk->warmup_pexecs, dk->warmup_pexecs == 1 ? "" : "s",
			dk->warmup_iterations ? " and " : "");
	if (dk->warmup_iterations)
		sb_addf(sb, "the first %ld iteration%s of every pexec (warmup_iterations)", dk->warmup_iterations,
			dk->warmup_iterations == 1 ? "" : "s");
}

/*
 * "steady perf counts 14 pauses ...; without them 10.0 ms": the steady
 * figure is what a steady iteration costs, pauses (outliers) included; the
 * one without them (warmup_stats') is named beside it where they differ.
 * Returns 0 (nothing added) where the steady parts have no outlier.
 */
static int key_clean_note(const struct an_key *k, struct strbuf *sb)
{
	size_t pauses = 0, iters = 0;
	for (size_t i = 0; k->has_steady && i < k->np; i++) {
		const struct an_pexec *p = &k->p[i];
		if (an_left_out(k, p))
			continue;
		iters += p->n - p->steady_start;
		for (size_t q = 0; q < p->noutliers; q++)
			pauses += p->outliers[q] >= p->steady_start;
	}
	/* where the two differ by less than 0.1%, the note would be noise (JSON and CSV always have both) */
	if (!pauses || !isfinite(k->perf_clean) || !(fabs(k->perf_med - k->perf_clean) >= 1e-3 * fabs(k->perf_clean)))
		return 0;
	const struct time_unit *tu = time_unit_for(k->perf_clean);
	sb_addf(sb, "steady perf counts the %zu outlier%s (pauses: GC, JIT) among the %zu steady iterations, as a "
		    "steady iteration costs them; steady perf without outliers: %.4g %s",
		pauses, pauses == 1 ? "" : "s", iters, k->perf_clean * tu->scale, tu->name);
	return 1;
}

/* the notes of a key, one line each, as plain text (the caller escapes for its format) */
static void key_notes(const struct an_key *k, const struct an_opts *o, struct strvec *out)
{
	size_t flat, merged = merged_segments(k, &flat);
	if (merged) {
		struct strbuf sb = STRBUF_INIT;
		sb_addf(&sb, "%zu of %zu pexecs (%zu of them flat) have a steady state of several segments that count as "
			     "one: each segment's mean ± var overlaps the band, the last segment's mean ± max(var, δ = ",
			merged, k->np, flat);
		an_delta_text(o, &sb);
		sb_adds(&sb, o->replicate ? ")" : "), or is within the noise of the steady state");
		sv_push(out, sb.buf);
		sb_release(&sb);
	}
	struct strbuf cn = STRBUF_INIT;
	if (key_clean_note(k, &cn))
		sv_push(out, cn.buf);
	sb_release(&cn);
	const struct ds_key *dk = k->key;
	if (dk->warmup_pexecs || dk->warmup_iterations) {
		struct strbuf sb = STRBUF_INIT;
		warmup_left_out(dk, &sb);
		sv_push(out, sb.buf);
		sb_release(&sb);
	}
	size_t shown = 0;
	for (size_t i = 0; i < dk->npexecs; i++) {
		const struct ds_pexec *p = &dk->pexecs[i];
		const char *st = p->status == DS_FAILED ? "failed" : p->status == DS_TIMEOUT ? "timed out"
				 : p->status == DS_TAINTED ? "tainted" : p->status == DS_OK && !p->n ? "no iterations" : NULL;
		if (st && shown++ < 3)
			sv_pushf(out, "pexec %ld %s: %s", p->num, st, p->error ? p->error : "(no reason recorded)");
		if (p->instr_error)
			sv_pushf(out, "pexec %ld: instrumentation: %s", p->num, p->instr_error);
	}
	if (shown > 3)
		sv_pushf(out, "%zu more pexecs did not complete (kiln status --failures lists them)", shown - 3);
}

/* one per-pexec value over a key's completed pexecs */
struct scalar_sum {
	const char *name, *unit;
	double mean, min, max;
	size_t n;
};

static size_t key_scalars(const struct an_key *k, struct scalar_sum **out)
{
	struct scalar_sum *v = NULL;
	size_t n = 0;
	for (size_t i = 0; i < k->np; i++) {
		const struct ds_pexec *p = &k->key->pexecs[k->p[i].index];
		for (size_t s = 0; s < p->nscalars; s++) {
			const struct ds_scalar *sc = &p->scalars[s];
			if (!isfinite(sc->value))
				continue;
			size_t j = 0;
			while (j < n && strcmp(v[j].name, sc->name))
				j++;
			if (j == n) {
				v = xrealloc(v, (n + 1) * sizeof(*v));
				v[n++] = (struct scalar_sum){ sc->name, sc->unit ? sc->unit : "", 0, sc->value, sc->value, 0 };
			}
			/* a running mean: values near DBL_MAX never add up to infinity */
			v[j].n++;
			v[j].mean += sc->value / (double)v[j].n - v[j].mean / (double)v[j].n;
			v[j].min = sc->value < v[j].min ? sc->value : v[j].min;
			v[j].max = sc->value > v[j].max ? sc->value : v[j].max;
		}
	}
	*out = v;
	return n;
}

/* "0.0123 s" as "12.3 ms", others as "%.4g unit"; "mean (min–max)" when they differ */
static void fmt_scalar(const struct scalar_sum *s, struct strbuf *sb)
{
	double f = 1;
	const char *u = s->unit;
	if (!strcmp(u, "s") || !strcmp(u, "us") || !strcmp(u, "ms")) {
		double to_s = !strcmp(u, "s") ? 1 : !strcmp(u, "ms") ? 1e-3 : 1e-6;
		const struct time_unit *tu = time_unit_for(fabs(s->max) * to_s);
		f = to_s * tu->scale;
		u = tu->name;
	}
	/* whole numbers (counts, KiB, a checksum) in full, others to 4 digits */
	int whole = f == 1 && s->min == floor(s->min) && s->max == floor(s->max) && fabs(s->max) < 1e15 &&
		    fabs(s->min) < 1e15;
	const char *fm = whole ? "%.0f" : "%.4g";
	char a[40], b[40], c[40];
	snprintf(a, sizeof(a), whole && s->mean != floor(s->mean) ? "%.1f" : fm, s->mean * f);
	snprintf(b, sizeof(b), fm, s->min * f);
	snprintf(c, sizeof(c), fm, s->max * f);
	if (s->min == s->max)
		sb_adds(sb, a);
	else
		sb_addf(sb, "%s (%s–%s)", a, b, c);
	if (*u)
		sb_addf(sb, " %s", u);
}

/* untrusted text for a terminal (the shared escaper: control characters made visible) */
static void term_text(FILE *f, const char *s)
{
	esc_fputs(ESC_TERM, s, f);
}

/* ---- text ---- */

static void pad(FILE *f, const char *s, size_t w)
{
	fputs(s, f);
	for (size_t i = display_width(s); i < w; i++)
		fputc(' ', f);
}

/*
 * When every row's steady perf is in one unit, the unit goes to the title
 * ("steady perf (ms)") and leaves the cells: the honest, lopsided
 * intervals are wide enough without it.  Returns the title, to free.
 */
static char *common_unit(char *(*cells)[NCOLS], size_t n)
{
	const char *u = NULL;
	for (size_t i = 0; i < n; i++) {
		const char *c = cells[i][C_PERF], *sp = strrchr(c, ' ');
		if (!strcmp(c, "-"))
			continue;
		if (!sp || (u && strcmp(u, sp)))
			return xstrdup(col_titles[C_PERF]);
		u = sp;
	}
	if (!u)
		return xstrdup(col_titles[C_PERF]);
	char *t = xasprintf("%s (%s)", col_titles[C_PERF], u + 1);
	for (size_t i = 0; i < n; i++) {
		char *sp = strrchr(cells[i][C_PERF], ' ');
		if (sp)
			*sp = 0;
	}
	return t;
}

static void text_table(FILE *f, const struct an_result *r, const struct rep_opts *ro, int *letters)
{
	size_t w[NCOLS];
	char *(*cells)[NCOLS] = xcalloc(r->nkeys ? r->nkeys : 1, sizeof(*cells));
	*letters = 0;
	for (size_t i = 0; i < r->nkeys; i++) {
		key_cells(&r->keys[i], cells[i], 1);
		*letters |= r->keys[i].cls == AN_GOOD_INCONSISTENT || r->keys[i].cls == AN_BAD_INCONSISTENT;
	}
	char *perf_title = common_unit(cells, r->nkeys);
	const char *titles[NCOLS];
	for (int c = 0; c < NCOLS; c++) {
		titles[c] = c == C_PERF ? perf_title : col_titles[c];
		w[c] = display_width(titles[c]);
		for (size_t i = 0; i < r->nkeys; i++)
			if (display_width(cells[i][c]) > w[c])
				w[c] = display_width(cells[i][c]);
	}
	const char *bold = ro->color ? "\033[1m" : "", *reset = ro->color ? "\033[0m" : "";
	fputs(bold, f);
	for (int c = 0; c < NCOLS; c++)
		pad(f, titles[c], c == NCOLS - 1 ? 0 : w[c] + 2);
	fprintf(f, "%s\n", reset);
	free(perf_title);
	for (size_t i = 0; i < r->nkeys; i++) {
		for (int c = 0; c < NCOLS; c++) {
			if (c == C_CLASS && ro->color) {
				fputs(class_color(r->keys[i].cls), f);
				pad(f, cells[i][c], 0);
				fputs(reset, f);
				for (size_t q = display_width(cells[i][c]); q < w[c] + 2; q++)
					fputc(' ', f);
			} else if (c == C_KEY) {
				term_text(f, cells[i][c]);
				for (size_t q = display_width(cells[i][c]); q < w[c] + 2; q++)
					fputc(' ', f);
			} else
				pad(f, cells[i][c], c == NCOLS - 1 ? 0 : w[c] + 2);
		}
		fputc('\n', f);
		free_cells(cells[i]);
	}
	free(cells);
}

static void text_instrumentation(FILE *f, const struct an_result *r, const char *bold, const char *reset)
{
	int any = 0;
	size_t wname = 0;
	for (size_t i = 0; i < r->nkeys; i++) {
		any |= r->keys[i].nseries > 0;
		for (size_t s = 0; s < r->keys[i].nseries; s++)
			if (display_width(r->keys[i].series[s].name) > wname)
				wname = display_width(r->keys[i].series[s].name);
	}
	if (!any)
		return;
	fprintf(f, "\n%sinstrumentation, mean per iteration before -> after the steady state%s\n", bold, reset);
	for (size_t i = 0; i < r->nkeys; i++) {
		const struct an_key *k = &r->keys[i];
		if (k->nseries) {
			fputs("  ", f);
			term_text(f, k->key->key);
			fputc('\n', f);
		}
		for (size_t s = 0; s < k->nseries; s++) {
			const struct an_series_sum *ss = &k->series[s];
			char before[32], after[32];
			fputs("    ", f);
			term_text(f, ss->name);
			fprintf(f, "%*s  %10s -> ", (int)(wname - display_width(ss->name)), "", fmt_mean(ss->before, before));
			if (*ss->unit) {
				fprintf(f, "%-10s ", fmt_mean(ss->after, after));
				term_text(f, ss->unit);
			} else
				fputs(fmt_mean(ss->after, after), f);
			fputc('\n', f);
		}
	}
}

/* prefix and text, wrapped at spaces to `width` columns, continued under the text */
static void text_wrapped(FILE *f, const char *prefix, const char *text, size_t width)
{
	size_t indent = display_width(prefix), col = indent;
	fputs(prefix, f);
	const char *p = text;
	while (*p) {
		const char *sp = strchr(p, ' ');
		size_t n = sp ? (size_t)(sp - p) : strlen(p);
		char *word = xstrndup(p, n);
		size_t w = display_width(word);
		if (col > indent && col + 1 + w > width) {
			fprintf(f, "\n%*s", (int)indent, "");
			col = indent;
		} else if (col > indent) {
			fputc(' ', f);
			col++;
		}
		term_text(f, word);
		col += w;
		free(word);
		p += n;
		while (*p == ' ')
			p++;
	}
	fputc('\n', f);
}

/*
 * Per key: its notes and per-pexec values, under a heading when there is
 * any.  One walk for every human format; each says how it writes the parts
 * (and escapes them: the key, notes and names come from the input).
 */
struct details_fmt {
	void (*heading)(FILE *f, const void *ctx);
	void (*key)(FILE *f, const char *key);
	void (*note)(FILE *f, const char *note);
	void (*value)(FILE *f, const char *name, const char *value);
};

static void write_details(FILE *f, const struct an_result *r, const struct details_fmt *d, const void *ctx)
{
	int head = 0;
	for (size_t i = 0; i < r->nkeys; i++) {
		const struct an_key *k = &r->keys[i];
		struct strvec notes = STRVEC_INIT;
		key_notes(k, &r->opts, &notes);
		struct scalar_sum *sc;
		size_t nsc = key_scalars(k, &sc);
		if (notes.n || nsc) {
			if (!head++)
				d->heading(f, ctx);
			d->key(f, k->key->key);
		}
		for (size_t q = 0; q < notes.n; q++)
			d->note(f, notes.v[q]);
		for (size_t q = 0; q < nsc; q++) {
			struct strbuf sb = STRBUF_INIT;
			fmt_scalar(&sc[q], &sb);
			d->value(f, sc[q].name, sb.buf);
			sb_release(&sb);
		}
		free(sc);
		sv_clear(&notes);
	}
}

/* the text form's bold and reset (empty without colour) */
struct text_style {
	const char *bold, *reset;
};

static void text_details_heading(FILE *f, const void *ctx)
{
	const struct text_style *st = ctx;
	fprintf(f, "\n%snotes and per-pexec values (mean, min–max over the completed pexecs)%s\n", st->bold, st->reset);
}

static void text_details_key(FILE *f, const char *key)
{
	fputs("  ", f);
	term_text(f, key);
	fputc('\n', f);
}

static void text_details_note(FILE *f, const char *note)
{
	text_wrapped(f, "    note: ", note, 100);
}

static void text_details_value(FILE *f, const char *name, const char *value)
{
	fputs("    ", f);
	term_text(f, name);
	fputs(": ", f);
	term_text(f, value);
	fputc('\n', f);
}

static void text_details(FILE *f, const struct an_result *r, const char *bold, const char *reset)
{
	static const struct details_fmt d = { text_details_heading, text_details_key, text_details_note,
					      text_details_value };
	struct text_style st = { bold, reset };
	write_details(f, r, &d, &st);
}

static void text_whole(FILE *f, const struct an_result *r, const char *bold, const char *reset)
{
	if (!any_whole(r))
		return;
	char *(*cells)[NWCOLS] = xcalloc(r->nkeys, sizeof(*cells));
	size_t w[NWCOLS], n = 0;
	for (int c = 0; c < NWCOLS; c++)
		w[c] = display_width(wcol_titles[c]);
	for (size_t i = 0; i < r->nkeys; i++) {
		if (!r->keys[i].whole)
			continue;
		whole_cells(&r->keys[i], &r->opts, cells[n]);
		for (int c = 0; c < NWCOLS; c++)
			if (display_width(cells[n][c]) > w[c])
				w[c] = display_width(cells[n][c]);
		n++;
	}
	fprintf(f, "\n%s%s%s\n%s", bold, whole_caption, reset, bold);
	for (int c = 0; c < NWCOLS; c++)
		pad(f, wcol_titles[c], c == NWCOLS - 1 ? 0 : w[c] + 2);
	fprintf(f, "%s\n", reset);
	for (size_t i = 0; i < n; i++) {
		for (int c = 0; c < NWCOLS; c++)
			pad(f, cells[i][c], c == NWCOLS - 1 ? 0 : w[c] + 2);
		fputc('\n', f);
		free_wcells(cells[i]);
	}
	free(cells);
}

#define WARN_GROUP 3 /* a warning said alike of this many keys or more is said once, with their names */

/* how many of lines read as lines->v[i] does, and whether i is the first of them */
static size_t warning_kin(const struct strvec *lines, size_t i, int *first)
{
	size_t n = 0;
	*first = 1;
	for (size_t j = 0; j < lines->n; j++)
		if (!strcmp(lines->v[j], lines->v[i])) {
			n++;
			*first &= j >= i;
		}
	return n;
}

/* the keys whose warning reads as lines->v[i], from i on, comma-separated in lines of about 100 columns */
static void warning_keys(FILE *f, const struct strvec *keys, const struct strvec *lines, size_t i)
{
	size_t col = 0;
	for (size_t j = i; j < lines->n; j++) {
		if (strcmp(lines->v[j], lines->v[i]))
			continue;
		const char *k = esc(ESC_TERM, keys->v[j]);
		if (col && col + strlen(k) + 2 > 100) {
			fprintf(f, ",\n");
			col = 0;
		} else if (col) {
			col += (size_t)fprintf(f, ", ");
		}
		if (!col)
			col = (size_t)fprintf(f, "    ");
		col += (size_t)fprintf(f, "%s", k);
	}
	fprintf(f, "\n");
}

/*
 * The text report's warnings, a line a key's warning; one said alike of
 * WARN_GROUP keys or more (a short demo: "2 values: too few to check
 * their shape" of every key) once, the keys listed under it.
 */
static void text_warnings(FILE *f, const struct an_result *r, const char *bold, const char *reset)
{
	struct strvec keys = STRVEC_INIT, lines = STRVEC_INIT;
	if (key_warnings(r, &keys, &lines))
		fprintf(f, "\n%swarnings%s\n", bold, reset);
	for (size_t i = 0; i < lines.n; i++) {
		int first;
		size_t kin = warning_kin(&lines, i, &first);
		if (kin < WARN_GROUP) {
			fprintf(f, "  %s: %s\n", esc(ESC_TERM, keys.v[i]), esc(ESC_TERM, lines.v[i]));
		} else if (first) {
			fprintf(f, "  %zu keys: %s\n", kin, esc(ESC_TERM, lines.v[i]));
			warning_keys(f, &keys, &lines, i);
		}
	}
	sv_clear(&keys);
	sv_clear(&lines);
}


static int write_text(FILE *f, const struct dataset *ds, const struct an_result *r, const struct rep_opts *ro)
{
	const char *bold = ro->color ? "\033[1m" : "", *reset = ro->color ? "\033[0m" : "";
	fputs(bold, f);
	term_text(f, ro->title ? ro->title : ds->name ? ds->name : "kiln report");
	fprintf(f, "%s\n", reset);
	int letters;
	text_table(f, r, ro, &letters);
	text_instrumentation(f, r, bold, reset);
	text_details(f, r, bold, reset);
	text_whole(f, r, bold, reset);
	text_warnings(f, r, bold, reset);
	struct strbuf o = STRBUF_INIT;
	opts_line(&o, r);
	fputc('\n', f);
	if (letters)
		fputs("inconsistent keys count their pexecs' classes: " CLASS_LETTER_LEGEND "\n", f);
	fprintf(f, "steady iter, to steady: median (5th–95th percentile) over pexecs; steady perf: %s ± "
		   "half the %g%% interval (or the interval, when lopsided)\nanalysis: %s\n", perf_what(r),
		r->opts.confidence * 100, o.buf);
	sb_release(&o);
	return 0;
}

/* ---- markdown ---- */

static void md_details_heading(FILE *f, const void *ctx)
{
	fputs("\n## Notes and per-pexec values\n\nPer-pexec values: mean (min–max) over the completed pexecs.\n", f);
}

static void md_details_key(FILE *f, const char *key)
{
	fprintf(f, "\n%s\n\n", esc(ESC_MDCODE, key));
}

static void md_details_note(FILE *f, const char *note)
{
	fputs("- ", f);
	esc_fputs(ESC_MD, note, f);
	fputc('\n', f);
}

static void md_details_value(FILE *f, const char *name, const char *value)
{
	fputs("- ", f);
	esc_fputs(ESC_MD, name, f);
	fputs(": ", f);
	esc_fputs(ESC_MD, value, f);
	fputc('\n', f);
}

/* notes and per-pexec values, one list per key */
static void md_details(FILE *f, const struct an_result *r)
{
	static const struct details_fmt d = { md_details_heading, md_details_key, md_details_note, md_details_value };
	write_details(f, r, &d, NULL);
}

/* one Markdown table row; the first cell (the key) as a code span */
static void md_row(FILE *f, char *const *cells, int n)
{
	fputc('|', f);
	for (int c = 0; c < n; c++) {
		fputc(' ', f);
		esc_fputs(c == 0 ? ESC_MDCODE : ESC_MD, cells[c], f);
		fputs(" |", f);
	}
	fputc('\n', f);
}

static void md_whole(FILE *f, const struct an_result *r)
{
	if (!any_whole(r))
		return;
	fprintf(f, "\n## Whole-process keys\n\n%s.\n\n|", whole_caption);
	for (int c = 0; c < NWCOLS; c++)
		fprintf(f, " %s |", wcol_titles[c]);
	fputs("\n|", f);
	for (int c = 0; c < NWCOLS; c++)
		fputs(c ? " ---: |" : " --- |", f);
	fputc('\n', f);
	for (size_t i = 0; i < r->nkeys; i++) {
		if (!r->keys[i].whole)
			continue;
		char *cells[NWCOLS];
		whole_cells(&r->keys[i], &r->opts, cells);
		md_row(f, cells, NWCOLS);
		free_wcells(cells);
	}
}

static void md_warnings(FILE *f, const struct an_result *r)
{
	struct strvec keys = STRVEC_INIT, lines = STRVEC_INIT;
	if (key_warnings(r, &keys, &lines))
		fputc('\n', f);
	for (size_t i = 0; i < lines.n; i++)
		fprintf(f, "> **Warning** %s: %s\n>\n", esc(ESC_MDCODE, keys.v[i]), esc(ESC_MD, lines.v[i]));
	sv_clear(&keys);
	sv_clear(&lines);
}


static int write_markdown(FILE *f, const struct dataset *ds, const struct an_result *r, const struct rep_opts *ro)
{
	fprintf(f, "# %s\n\n", esc(ESC_MD, ro->title ? ro->title : ds->name ? ds->name : "kiln report"));
	fputs("|", f);
	for (int c = 0; c < NCOLS; c++)
		fprintf(f, " %s |", col_titles[c]);
	fputs("\n|", f);
	for (int c = 0; c < NCOLS; c++)
		fputs(c >= C_ITER ? " ---: |" : " --- |", f);
	fputc('\n', f);
	for (size_t i = 0; i < r->nkeys; i++) {
		char *cells[NCOLS];
		key_cells(&r->keys[i], cells, 0);
		md_row(f, cells, NCOLS);
		free_cells(cells);
	}
	int any = 0;
	for (size_t i = 0; i < r->nkeys; i++)
		any |= r->keys[i].nseries > 0;
	if (any) {
		fputs("\n## Instrumentation (mean per iteration)\n\n| key | series | before steady state | after | unit |\n"
		      "| --- | --- | ---: | ---: | --- |\n", f);
		for (size_t i = 0; i < r->nkeys; i++)
			for (size_t s = 0; s < r->keys[i].nseries; s++) {
				const struct an_series_sum *ss = &r->keys[i].series[s];
				fprintf(f, "| %s | %s", esc(ESC_MDCODE, r->keys[i].key->key), esc(ESC_MD, ss->name));
				char before[32], after[32];
				fprintf(f, " | %s | %s | %s", fmt_mean(ss->before, before), fmt_mean(ss->after, after),
					esc(ESC_MD, ss->unit));
				fputs(" |\n", f);
			}
	}
	md_whole(f, r);
	md_warnings(f, r);
	md_details(f, r);
	struct strbuf o = STRBUF_INIT;
	opts_line(&o, r);
	fprintf(f, "\nSteady perf: %s ± half the %g%% confidence interval (or the interval, when "
		   "lopsided). Analysis: `%s`.\n", perf_what(r), r->opts.confidence * 100, o.buf);
	sb_release(&o);
	return 0;
}

/* ---- LaTeX ---- */

/* the compact form's class symbols (per pexec class, then good and bad inconsistent) */
static const char *const tex_symbols[AN_NPCLASS + 2] = {
	"$\\rightarrow$", "$\\searrow$", "$\\nearrow$", "$\\approx$", "$\\star$", "$\\times$",
};

static void tex_class(FILE *f, const struct an_key *k, int compact)
{
	int incons = k->cls == AN_GOOD_INCONSISTENT || k->cls == AN_BAD_INCONSISTENT;
	if (compact && k->cls <= AN_BAD_INCONSISTENT) {
		fputs(tex_symbols[k->cls], f);
		if (incons) {
			struct strbuf sb = STRBUF_INIT;
			an_class_text_as(k, tex_symbols, "\\,", &sb);
			const char *counts = strchr(sb.buf, '(');
			/* "(3$\searrow$\,1$\rightarrow$)" from an_class_text_as, without the parentheses */
			fprintf(f, "\\,{\\scriptsize %.*s}", (int)strlen(counts) - 2, counts + 1);
			sb_release(&sb);
		}
		return;
	}
	if (!incons) {
		esc_fputs(ESC_TEX, an_class_name(k->cls), f);
		return;
	}
	/* the counts on a second line, so the column stays narrow */
	struct strbuf sb = STRBUF_INIT;
	an_class_text(k, &sb);
	char *paren = strchr(sb.buf, '(');
	fputs("\\begin{tabular}[t]{@{}l@{}}", f);
	esc_fputs(ESC_TEX, an_class_name(k->cls), f);
	fputs("\\\\{\\scriptsize ", f);
	paren[strlen(paren) - 1] = '\0';
	esc_fputs(ESC_TEX, paren + 1, f);
	fputs("}\\end{tabular}", f);
	sb_release(&sb);
}

static void tex_time_range(FILE *f, double m, double lo, double hi)
{
	if (!isfinite(m)) {
		fputs("--", f);
		return;
	}
	const struct time_unit *tu = time_unit_for(fabs(m) > fabs(hi) ? m : hi);
	fprintf(f, "%.3g\\,%s {\\scriptsize(%.3g--%.3g)}", m * tu->scale, tu->latex, lo * tu->scale, hi * tu->scale);
}

/* the steady performance as rep_fmt_ci writes it, in the unit that fits, in LaTeX */
static void tex_perf(FILE *f, const struct an_key *k)
{
	if (!isfinite(k->perf_med)) {
		fputs("--", f);
		return;
	}
	const struct time_unit *tu = time_unit_for(k->perf_med);
	double v = k->perf_med * tu->scale, lo = k->perf_lo * tu->scale, hi = k->perf_hi * tu->scale;
	int d = 6;
	if (isnan(lo) || isnan(hi)) { /* no interval (one value) */
		fprintf(f, "%.6g\\,%s", v, tu->latex);
		return;
	}
	switch (ci_style(v, lo, hi, &d)) {
	case -1: fprintf(f, "%.6g\\,%s {\\scriptsize$\\pm$0}", v, tu->latex); break;
	case 1: fprintf(f, "%.*f\\,%s {\\scriptsize$\\pm$%.*f}", d, v, tu->latex, d, k->perf_ci * tu->scale); break;
	default: fprintf(f, "%.*f\\,%s {\\scriptsize(%.*f--%.*f)}", d, v, tu->latex, d, lo, d, hi);
	}
}

static void latex_whole(FILE *f, const struct an_result *r)
{
	if (!any_whole(r))
		return;
	fputs("\\begin{table}[t]\n\\centering\n\\small\n\\begin{tabular}{lrrrrrrrr}\n\\toprule\n"
	      "Key & Mean $\\pm$ $\\sigma$ (s) & Median (CI) (s) & Min--max (s) & User (s) & Sys (s) & Max RSS (KiB) & "
	      "CI of the mean (s) & Pexecs \\\\\n\\midrule\n", f);
	for (size_t i = 0; i < r->nkeys; i++) {
		if (!r->keys[i].whole)
			continue;
		char *cells[NWCOLS];
		whole_cells(&r->keys[i], &r->opts, cells);
		for (int c = 0; c < NWCOLS; c++) {
			struct strbuf sb = STRBUF_INIT;
			for (const char *q = cells[c]; *q; q++) {
				if (!strncmp(q, "±", strlen("±"))) {
					sb_adds(&sb, "$\\pm$");
					q += strlen("±") - 1;
				} else if (!strncmp(q, "–", strlen("–"))) {
					sb_adds(&sb, "--");
					q += strlen("–") - 1;
				} else
					sb_addc(&sb, *q);
			}
			if (c == W_KEY)
				esc_fputs(ESC_TEX, sb.buf, f);
			else
				fputs(sb.buf, f); /* numbers and the two marks above only */
			fputs(c == NWCOLS - 1 ? " \\\\\n" : " & ", f);
			sb_release(&sb);
		}
		free_wcells(cells);
	}
	fputs("\\bottomrule\n\\end{tabular}\n\\caption{", f);
	esc_fputs(ESC_TEX, whole_caption, f);
	fputs(".}\n\\end{table}\n", f);
}

static void latex_warnings(FILE *f, const struct an_result *r)
{
	struct strvec keys = STRVEC_INIT, lines = STRVEC_INIT;
	key_warnings(r, &keys, &lines);
	for (size_t i = 0; i < lines.n; i++) {
		fputs("\\noindent\\textbf{Warning:} ", f);
		esc_fputs(ESC_TEX, keys.v[i], f);
		fputs(": ", f);
		esc_fputs(ESC_TEX, lines.v[i], f);
		fputs(".\\par\n", f);
	}
	/* the steady figure without outliers, named as such (the table's counts them) */
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < r->nkeys; i++) {
		sb_reset(&sb);
		if (!key_clean_note(&r->keys[i], &sb))
			continue;
		fputs("\\noindent\\textbf{Note:} ", f);
		esc_fputs(ESC_TEX, r->keys[i].key->key, f);
		fputs(": ", f);
		esc_fputs(ESC_TEX, sb.buf, f);
		fputs(".\\par\n", f);
	}
	sb_release(&sb);
	sv_clear(&keys);
	sv_clear(&lines);
}

static int write_latex(FILE *f, const struct dataset *ds, const struct an_result *r, const struct rep_opts *ro)
{
	const char *env = ro->wide ? "table*" : "table";
	fputs("% kiln report (kiln " KILN_VERSION "); needs \\usepackage{booktabs}\n", f);
	fprintf(f, "\\begin{%s}[t]\n\\centering\n%s\n\\setlength{\\tabcolsep}{%s}\n\\begin{tabular}{ll%crrr}\n\\toprule\n",
		env, ro->compact || !ro->wide ? "\\footnotesize" : "\\small", ro->compact ? "1pt" : "3pt", ro->compact ? 'c' : 'l');
	fputs("Benchmark & VM & Class & Steady iter & Steady time & Steady perf \\\\\n\\midrule\n", f);
	for (size_t i = 0; i < r->nkeys; i++) {
		const struct an_key *k = &r->keys[i];
		esc_fputs(ESC_TEX, k->key->bench, f);
		if (strncmp(k->key->variant, "default", 7)) {
			fputs(" (", f);
			esc_fputs(ESC_TEX, k->key->variant, f);
			fputc(')', f);
		}
		fputs(" & ", f);
		esc_fputs(ESC_TEX, k->key->vm, f);
		fputs(" & ", f);
		tex_class(f, k, ro->compact);
		fputs(" & ", f);
		if (isfinite(k->iter_med))
			fprintf(f, "%g {\\scriptsize(%g--%g)}", k->iter_med, k->iter_p5, k->iter_p95);
		else
			fputs("--", f);
		fputs(" & ", f);
		tex_time_range(f, k->tts_med, k->tts_p5, k->tts_p95);
		fputs(" & ", f);
		tex_perf(f, k);
		fputs(" \\\\\n", f);
	}
	fputs("\\bottomrule\n\\end{tabular}\n\\caption{", f);
	esc_fputs(ESC_TEX, ro->title ? ro->title : ds->name ? ds->name : "kiln report", f);
	fprintf(f, ": steady iteration and time to reach the steady state as median (5th--95th percentile) over "
		   "process executions; steady performance as %s $\\pm$ half the %g\\%% interval "
		   "(or the interval, when lopsided).",
		perf_what(r), r->opts.confidence * 100);
	if (ro->compact)
		fputs(" Classes: $\\rightarrow$ flat, $\\searrow$ warmup, $\\nearrow$ slowdown, $\\approx$ no steady "
		      "state, $\\star$ good and $\\times$ bad inconsistent, with their process executions' classes.", f);
	fprintf(f, "}\n\\end{%s}\n", env);
	latex_whole(f, r);
	latex_warnings(f, r);
	return 0;
}

/* ---- CSV ---- */

static void csv_num(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, ",%.17g", v);
	else
		fputs(",", f);
}

/* the names of every series of any key, in first-seen order */
static void all_series(const struct an_result *r, struct strvec *names)
{
	for (size_t i = 0; i < r->nkeys; i++)
		for (size_t s = 0; s < r->keys[i].nseries; s++) {
			int seen = 0;
			for (size_t q = 0; q < names->n; q++)
				seen |= !strcmp(names->v[q], r->keys[i].series[s].name);
			if (!seen)
				sv_push(names, r->keys[i].series[s].name);
		}
}

static void csv_field(FILE *f, const char *s)
{
	esc_fputs(ESC_CSV, s, f);
}

/* a series' column: its name and a suffix, as one field */
static void csv_series_field(FILE *f, const char *name, const char *suffix)
{
	struct strbuf sb = STRBUF_INIT;
	sb_addf(&sb, "%s%s", name, suffix);
	csv_field(f, sb.buf);
	sb_release(&sb);
}

/* the units' median and its interval, the shape words and whether any warns (stats.h) */
static void csv_shape(FILE *f, const struct an_key *k, const struct an_opts *o)
{
	struct ks_mean m;
	memset(&m, 0, sizeof(m));
	m.median = m.med_lo = m.med_hi = NAN;
	if (!o->replicate && k->has_steady)
		an_key_mean(k, o, &m);
	csv_num(f, m.median);
	csv_num(f, m.med_lo);
	csv_num(f, m.med_hi);
	struct strbuf sb = STRBUF_INIT;
	ks_shape_words(m.shape, ";", &sb);
	fputc(',', f);
	csv_field(f, sb.buf ? sb.buf : "");
	fprintf(f, ",%d", (m.shape & KS_WARN) != 0);
	sb_release(&sb);
}

static int write_csv(FILE *f, const struct an_result *r)
{
	struct strvec names = STRVEC_INIT;
	all_series(r, &names);
	fputs("key,bench,vm,variant,classification,flat,warmup,slowdown,no_steady_state,failed,"
	      "steady_iter,steady_iter_p5,steady_iter_p95,time_to_steady_s,time_to_steady_p5,time_to_steady_p95,"
	      "steady_perf_s,steady_perf_lo,steady_perf_hi,delta_ratio,delta_warning,"
	      "whole_process,mean_s,sd_s,median_s,min_s,max_s,user_s,sys_s,max_rss_kib,"
	      "units_median_s,units_median_lo,units_median_hi,shape,shape_warning,"
	      "steady_perf_without_outliers_s,warn_drift,drift_per_iteration,warn_short,short_iterations_needed,"
	      "left_out_pexecs", f);
	for (size_t q = 0; q < names.n; q++) {
		fputc(',', f);
		csv_series_field(f, names.v[q], "_before");
		fputc(',', f);
		csv_series_field(f, names.v[q], "_after");
	}
	/* per-pexec values: their mean over the completed pexecs */
	struct strvec snames = STRVEC_INIT;
	for (size_t i = 0; i < r->nkeys; i++) {
		struct scalar_sum *sc;
		size_t nsc = key_scalars(&r->keys[i], &sc);
		for (size_t q = 0; q < nsc; q++) {
			int seen = 0;
			for (size_t j = 0; j < snames.n; j++)
				seen |= !strcmp(snames.v[j], sc[q].name);
			if (!seen)
				sv_push(&snames, sc[q].name);
		}
		free(sc);
	}
	for (size_t q = 0; q < snames.n; q++) {
		fputc(',', f);
		csv_series_field(f, snames.v[q], "_mean");
	}
	fputc('\n', f);
	for (size_t i = 0; i < r->nkeys; i++) {
		const struct an_key *k = &r->keys[i];
		csv_field(f, k->key->key);
		fputc(',', f);
		csv_field(f, k->key->bench);
		fputc(',', f);
		csv_field(f, k->key->vm);
		fputc(',', f);
		csv_field(f, k->key->variant);
		fprintf(f, ",%s,%zu,%zu,%zu,%zu,%zu", an_class_name(k->cls), k->counts[AN_FLAT], k->counts[AN_WARMUP],
			k->counts[AN_SLOWDOWN], k->counts[AN_NO_STEADY], k->nskipped);
		double v[] = { k->iter_med, k->iter_p5, k->iter_p95, k->tts_med, k->tts_p5, k->tts_p95,
			       k->perf_med, k->perf_lo, k->perf_hi, k->delta_ratio };
		for (size_t q = 0; q < ARRAY_SIZE(v); q++)
			csv_num(f, v[q]);
		fprintf(f, ",%d,%d", k->delta_ratio >= AN_DELTA_WARN, k->whole);
		const struct an_whole *w = &k->wp;
		double wv[] = { w->mean, w->sd, w->median, w->min, w->max, w->user, w->sys, w->rss_max };
		for (size_t q = 0; q < ARRAY_SIZE(wv); q++)
			csv_num(f, k->whole ? wv[q] : NAN);
		csv_shape(f, k, &r->opts);
		/* the warmup analysis' warnings (issue 26) */
		csv_num(f, k->perf_clean);
		fprintf(f, ",%d", (k->warn & AN_WARN_DRIFT) != 0);
		csv_num(f, k->drift_rate);
		fprintf(f, ",%d,", (k->warn & AN_WARN_SHORT) != 0);
		if (k->warn & AN_WARN_SHORT)
			fprintf(f, "%ld", k->short_need);
		fprintf(f, ",%zu", k->left_out);
		for (size_t q = 0; q < names.n; q++) {
			const struct an_series_sum *ss = NULL;
			for (size_t s = 0; s < k->nseries; s++)
				if (!strcmp(k->series[s].name, names.v[q]))
					ss = &k->series[s];
			csv_num(f, ss ? ss->before : NAN);
			csv_num(f, ss ? ss->after : NAN);
		}
		struct scalar_sum *sc;
		size_t nsc = key_scalars(k, &sc);
		for (size_t q = 0; q < snames.n; q++) {
			double mean = NAN;
			for (size_t j = 0; j < nsc; j++)
				if (!strcmp(sc[j].name, snames.v[q]))
					mean = sc[j].mean;
			csv_num(f, mean);
		}
		free(sc);
		fputc('\n', f);
	}
	sv_clear(&snames);
	sv_clear(&names);
	return 0;
}

/* ---- JSON (warmup_stats summary, version 2) ---- */

/* iterations are counted: an integral value as a JSON integer */
static json_t *jiter(double v)
{
	return isfinite(v) && v == floor(v) && fabs(v) < 9e15 ? json_integer((json_int_t)v) : json_num(v);
}

static json_t *jiters(double a, double b)
{
	if (!isfinite(a) || !isfinite(b))
		return json_null();
	return json_pack("[oo]", jiter(a), jiter(b));
}

static json_t *jpair(double a, double b)
{
	if (!isfinite(a) || !isfinite(b))
		return json_null();
	return json_pack("[oo]", json_real(a), json_real(b));
}

/*
 * What the key's units (its pexecs: process times or steady means) say
 * beyond their mean (stats.h): the interval's method, the shape flags and
 * their sentence, the median with its order-statistic interval, and the
 * share of runs a behaviour could have and not show.  null without a
 * steady state or under --replicate-warmup-stats.
 */
static json_t *dist_json(const struct an_key *k, const struct an_opts *o)
{
	if (o->replicate || !k->has_steady)
		return json_null();
	struct ks_mean m;
	an_key_mean(k, o, &m);
	json_t *d = json_object(), *sh = json_array();
	for (int i = 0; i < KS_NSHAPES; i++)
		if (m.shape & (1u << i))
			json_array_append_new(sh, json_string(ks_shape_name(1u << i)));
	json_object_set_new(d, "units", json_integer((json_int_t)m.n));
	json_object_set_new(d, "interval_method", json_string(m.shape & KS_WITHIN ? "batch means, t with Hall's skew correction"
								 : m.n < 8 ? "t"
									   : "t with Hall's skew correction"));
	json_object_set_new(d, "shape", sh);
	struct strbuf sb = STRBUF_INIT;
	if (m.shape & KS_WARN)
		ks_shape_text(&m, rep_add_time, &sb);
	json_object_set_new(d, "warning", sb.len ? json_string(sb.buf) : json_null());
	sb_release(&sb);
	json_object_set_new(d, "skewness", json_num(m.skew));
	json_object_set_new(d, "excess_kurtosis", json_num(m.kurt));
	json_object_set_new(d, "outliers", json_integer((json_int_t)m.noutliers));
	json_object_set_new(d, "median", json_num(m.median));
	json_object_set_new(d, "median_interval", jpair(m.med_lo, m.med_hi));
	json_object_set_new(d, "median_interval_coverage", json_num(m.med_conf));
	json_object_set_new(d, "unseen_share", json_num(m.unseen));
	return d;
}

/* one pexec's figures in a key's JSON (warmup_stats' fields, then kiln's) */
static json_t *pexec_json(const struct an_key *k, const struct an_pexec *p)
{
	json_t *o = json_object();
	json_object_set_new(o, "index", json_integer(p->num));
	json_object_set_new(o, "classification", json_string(an_class_name(p->cls)));
	json_t *ol = json_array(), *cp = json_array(), *means = json_array(), *vars = json_array();
	for (size_t q = 0; q < p->noutliers; q++)
		json_array_append_new(ol, json_integer((json_int_t)p->outliers[q]));
	for (size_t s = 0; s < p->nsegs; s++) {
		if (s + 1 < p->nsegs)
			json_array_append_new(cp, json_integer((json_int_t)p->segs[s].end - 1));
		json_array_append_new(means, json_real(p->segs[s].mean));
		json_array_append_new(vars, json_real(p->segs[s].var));
	}
	json_object_set_new(o, "outliers", ol);
	json_object_set_new(o, "changepoints", cp);
	json_object_set_new(o, "segment_means", means);
	json_object_set_new(o, "segment_vars", vars);
	json_object_set_new(o, "steady_state_iteration",
			    p->cls != AN_NO_STEADY ? json_integer(p->steady_iter) : json_null());
	/* kiln's: what a steady iteration costs (pauses in), without outliers, the warmup's cost, the warnings */
	json_object_set_new(o, "steady_state_time", json_num(p->steady_mean));
	json_object_set_new(o, "steady_state_time_without_outliers", json_num(p->steady_mean_clean));
	json_object_set_new(o, "warmup_cost_s", json_num(p->warmup_cost));
	json_object_set_new(o, "drift_per_iteration", json_num(p->drift_rate));
	json_object_set_new(o, "autocorrelation_tau", json_num(p->tau));
	json_object_set_new(o, "warn_drift", json_boolean(p->warn & AN_WARN_DRIFT));
	json_object_set_new(o, "warn_short", json_boolean(p->warn & AN_WARN_SHORT));
	json_object_set_new(o, "left_out", json_boolean(an_left_out(k, p)));
	/* the whole process, start to reap (null: the file does not say) */
	json_object_set_new(o, "duration_s", json_num(k->key->pexecs[p->index].duration));
	return o;
}

/* the warmup analysis' warnings, one sentence an element */
static json_t *warnings_json(const struct an_key *k)
{
	struct strbuf wt = STRBUF_INIT;
	an_warn_text(k, &wt);
	json_t *wl = json_array();
	for (char *line = wt.buf, *nl; line && *line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		json_array_append_new(wl, json_string(line));
	}
	sb_release(&wt);
	return wl;
}

/* kiln's: per-pexec values over the completed pexecs */
static json_t *per_pexec_json(const struct an_key *k)
{
	struct scalar_sum *sc;
	size_t nsc = key_scalars(k, &sc);
	json_t *pp = json_object();
	for (size_t q = 0; q < nsc; q++)
		json_object_set_new(pp, esc(ESC_JSON, sc[q].name), json_pack("{s:s,s:o,s:o,s:o,s:I}", "unit", esc(ESC_JSON, sc[q].unit), "mean",
							      json_num(sc[q].mean), "min", json_num(sc[q].min), "max",
							      json_num(sc[q].max), "pexecs", (json_int_t)sc[q].n));
	free(sc);
	return pp;
}

/* the pexecs that did not complete, or whose instrumentation failed, and why */
static json_t *failures_json(const struct an_key *k)
{
	json_t *fl = json_array();
	for (size_t q = 0; q < k->key->npexecs; q++) {
		const struct ds_pexec *dp = &k->key->pexecs[q];
		if (dp->status == DS_OK && !dp->instr_error)
			continue;
		static const char *const names[] = { "ok", "failed", "timeout", "pending", "tainted" };
		json_array_append_new(fl, json_pack("{s:I,s:s,s:o,s:o}", "pexec", (json_int_t)dp->num, "status",
						    names[dp->status], "error", dp->error ? json_string(esc(ESC_JSON, dp->error)) : json_null(),
						    "instrumentation_error",
						    dp->instr_error ? json_string(esc(ESC_JSON, dp->instr_error)) : json_null()));
	}
	return fl;
}

static json_t *key_json(const struct an_key *k, const struct an_opts *ao)
{
	json_t *b = json_object();
	json_object_set_new(b, "classification", json_string(an_class_name(k->cls)));
	json_t *det = json_object();
	for (int c = 0; c < AN_NPCLASS; c++)
		json_object_set_new(det, an_class_name(c), json_integer((json_int_t)k->counts[c]));
	json_object_set_new(b, "detailed_classification", det);
	json_t *itl = json_array(), *ttl = json_array(), *sml = json_array(), *px = json_array();
	for (size_t i = 0; i < k->np; i++) {
		const struct an_pexec *p = &k->p[i];
		if (p->cls != AN_NO_STEADY) {
			json_array_append_new(itl, json_integer(p->steady_iter));
			json_array_append_new(ttl, json_real(p->time_to_steady));
			json_array_append_new(sml, json_num(p->steady_mean));
		}
		json_array_append_new(px, pexec_json(k, p));
	}
	int has = k->has_steady;
	/* warmup_stats' "_iqr" fields hold the 5th and 95th percentiles (its median_iqr) */
	json_object_set_new(b, "steady_state_iteration", has ? jiter(k->iter_med) : json_null());
	json_object_set_new(b, "steady_state_iteration_iqr", has ? jiters(k->iter_p5, k->iter_p95) : json_null());
	json_object_set_new(b, "steady_state_iteration_percentiles", has ? jiters(k->iter_p5, k->iter_p95) : json_null());
	json_object_set_new(b, "steady_state_iteration_list", itl);
	json_object_set_new(b, "steady_state_time_to_reach_secs", has ? json_num(k->tts_med) : json_null());
	json_object_set_new(b, "steady_state_time_to_reach_secs_iqr", has ? jpair(k->tts_p5, k->tts_p95) : json_null());
	json_object_set_new(b, "steady_state_time_to_reach_secs_percentiles",
			    has ? jpair(k->tts_p5, k->tts_p95) : json_null());
	json_object_set_new(b, "steady_state_time_to_reach_secs_list", ttl);
	json_object_set_new(b, "steady_state_time", has ? json_num(k->perf_med) : json_null());
	json_object_set_new(b, "steady_state_time_ci", has ? json_num(k->perf_ci) : json_null());
	json_object_set_new(b, "steady_state_time_interval", has ? jpair(k->perf_lo, k->perf_hi) : json_null());
	json_object_set_new(b, "steady_state_time_list", sml);
	json_object_set_new(b, "steady_state_time_without_outliers", has ? json_num(k->perf_clean) : json_null());
	/* kiln's: the warmup analysis' warnings, each with its sentence (issue 26) */
	json_object_set_new(b, "warnings", warnings_json(k));
	json_object_set_new(b, "warn_drift", json_boolean(k->warn & AN_WARN_DRIFT));
	json_object_set_new(b, "drift_per_iteration", json_num(k->drift_rate));
	json_object_set_new(b, "drift_per_iteration_interval", jpair(k->drift_lo, k->drift_hi));
	json_object_set_new(b, "warn_short", json_boolean(k->warn & AN_WARN_SHORT));
	json_object_set_new(b, "short_iterations_needed",
			    k->warn & AN_WARN_SHORT ? json_integer(k->short_need) : json_null());
	/* pexecs without a figure left out of the steady figures (AN_LEFT_OUT_DEN), with the sentence */
	json_object_set_new(b, "left_out_pexecs", json_integer((json_int_t)k->left_out));
	struct strbuf wt = STRBUF_INIT;
	json_object_set_new(b, "left_out", an_left_out_text(k, &wt) ? json_string(wt.buf) : json_null());
	sb_release(&wt);
	json_object_set_new(b, "process_executons", px); /* sic: warmup_stats' spelling */
	json_object_set_new(b, "key", json_string(esc(ESC_JSON, k->key->key)));
	json_object_set_new(b, "variant", json_string(esc(ESC_JSON, k->key->variant)));
	json_object_set_new(b, "failed_pexecs", json_integer((json_int_t)k->nskipped));
	json_t *ins = json_object();
	for (size_t s = 0; s < k->nseries; s++) {
		const struct an_series_sum *ss = &k->series[s];
		json_object_set_new(ins, esc(ESC_JSON, ss->name),
				    json_pack("{s:o,s:o,s:s}", "before_steady", json_num(ss->before), "after_steady",
					      json_num(ss->after), "unit", esc(ESC_JSON, ss->unit)));
	}
	json_object_set_new(b, "instrumentation", ins);
	struct strbuf dw = STRBUF_INIT;
	json_object_set_new(b, "delta_ratio", json_num(k->delta_ratio));
	json_object_set_new(b, "delta_warning", an_delta_warning(k, &dw) ? json_string(dw.buf) : json_null());
	sb_release(&dw);
	const struct an_whole *w = &k->wp;
	json_object_set_new(b, "whole_process",
			    k->whole ? json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o}", "mean", json_num(w->mean),
						 "sd", json_num(w->sd), "median", json_num(w->median), "min",
						 json_num(w->min), "max", json_num(w->max), "mean_ci",
						 jpair(k->perf_lo, k->perf_hi), "user_s", json_num(w->user), "sys_s",
						 json_num(w->sys), "max_rss_kib", json_num(w->rss_max), "mean_rss_kib",
						 json_num(w->rss_mean))
				     : json_null());
	json_object_set_new(b, "distribution", dist_json(k, ao));
	if (k->key->program_note)
		json_object_set_new(b, "program_note", json_string(esc(ESC_JSON, k->key->program_note)));
	json_object_set_new(b, "per_pexec", per_pexec_json(k));
	json_object_set_new(b, "warmup_left_out", json_pack("{s:I,s:I}", "pexecs", (json_int_t)k->key->warmup_pexecs,
								 "iterations_per_pexec",
								 (json_int_t)k->key->warmup_iterations));
	json_object_set_new(b, "failures", failures_json(k));
	return b;
}

static int write_json(FILE *f, const struct dataset *ds, const struct an_result *r, struct kerr *e)
{
	json_t *root = json_object();
	json_t *machines = json_object();
	for (size_t i = 0; i < r->nkeys; i++) {
		const struct an_key *k = &r->keys[i];
		/* a cluster run's keys are one per machine (ds_split_machines) */
		const char *mname = esc(ESC_JSON, k->key->machine ? k->key->machine : ds->machine ? ds->machine : "unknown");
		json_t *m = json_object_get(machines, mname);
		if (!m) {
			m = json_object();
			json_object_set_new(machines, mname, m);
		}
		const char *vmname = esc(ESC_JSON, k->key->vm);
		json_t *vm = json_object_get(m, vmname);
		if (!vm) {
			vm = json_object();
			json_object_set_new(m, vmname, vm);
		}
		/* warmup_stats has no variant level: a second variant of a bench gets "bench:variant" */
		int clash = 0;
		for (size_t j = 0; j < r->nkeys; j++)
			clash |= j != i && !strcmp(r->keys[j].key->vm, k->key->vm) &&
				 !strcmp(r->keys[j].key->bench, k->key->bench) &&
				 !strcmp(r->keys[j].key->machine ? r->keys[j].key->machine : "", k->key->machine ? k->key->machine : "");
		char *name = clash ? xasprintf("%s:%s", k->key->bench, k->key->variant) : xstrdup(k->key->bench);
		json_t *kj = key_json(k, &r->opts); /* before esc(): key_json uses its buffers too */
		json_object_set_new(vm, esc(ESC_JSON, name), kj);
		free(name);
	}
	json_object_set_new(root, "machines", machines);
	json_object_set_new(root, "warmup_format_version", json_string("2"));
	char hash[65];
	an_opts_hash(&r->opts, hash);
	struct strbuf o = STRBUF_INIT;
	an_opts_describe(&r->opts, &o);
	json_object_set_new(root, "kiln", json_pack("{s:s,s:s,s:s,s:s,s:f}", "version", KILN_VERSION, "analysis", o.buf,
						    "analysis_hash", hash, "source", esc(ESC_JSON, ds->source),
						    "confidence", r->opts.confidence));
	sb_release(&o);
	char *text = json_dumps(root, JSON_INDENT(2) | JSON_REAL_PRECISION(17) | JSON_ENSURE_ASCII);
	json_decref(root);
	if (!text)
		return kerr_set(e, "cannot encode the report as JSON");
	fputs(text, f);
	fputc('\n', f);
	free(text);
	return 0;
}

/* ---- HTML ---- */

static void html_escape(FILE *f, const char *s)
{
	esc_fputs(ESC_HTML, s, f);
}

static const char *class_css(enum an_class c)
{
	switch (c) {
	case AN_FLAT: case AN_WARMUP: return "good";
	case AN_GOOD_INCONSISTENT: return "meh";
	default: return "bad";
	}
}

/* a key's notes (failure reasons among them) and per-pexec values */
static void html_details(FILE *f, const struct an_key *k, const struct an_opts *o)
{
	struct strvec notes = STRVEC_INIT;
	key_notes(k, o, &notes);
	if (notes.n) {
		fputs("<ul class=\"notes\">\n", f);
		for (size_t q = 0; q < notes.n; q++) {
			fputs("<li>", f);
			html_escape(f, notes.v[q]);
			fputs("</li>\n", f);
		}
		fputs("</ul>\n", f);
	}
	sv_clear(&notes);
	struct scalar_sum *sc;
	size_t nsc = key_scalars(k, &sc);
	if (nsc) {
		fputs("<table><tr><th>per pexec</th><th>mean (min–max) over the completed pexecs</th></tr>\n", f);
		for (size_t q = 0; q < nsc; q++) {
			struct strbuf sb = STRBUF_INIT;
			fmt_scalar(&sc[q], &sb);
			fputs("<tr><td>", f);
			html_escape(f, sc[q].name);
			fputs("</td><td class=\"n\">", f);
			html_escape(f, sb.buf);
			fputs("</td></tr>\n", f);
			sb_release(&sb);
		}
		fputs("</table>\n", f);
	}
	free(sc);
}

/* inline an SVG file: drop the XML declaration and DOCTYPE */
static int inline_svg(FILE *f, const char *path, struct kerr *e)
{
	struct strbuf sb = STRBUF_INIT;
	if (read_file(path, &sb, e) < 0)
		return -1;
	const char *s = strstr(sb_str(&sb), "<svg");
	if (!s) {
		sb_release(&sb);
		return kerr_set(e, "%s: not an SVG file", path);
	}
	fputs(s, f);
	sb_release(&sb);
	return 0;
}

/* which pexecs of k to plot: the first of each class, then more up to n */
static size_t pick_plots(const struct an_key *k, int n, size_t *out)
{
	size_t m = 0;
	for (int c = 0; c < AN_NPCLASS && (int)m < n; c++)
		for (size_t i = 0; i < k->np; i++)
			if ((int)k->p[i].cls == c) {
				out[m++] = i;
				break;
			}
	for (size_t i = 0; i < k->np && (int)m < n; i++) {
		int seen = 0;
		for (size_t q = 0; q < m; q++)
			seen |= out[q] == i;
		if (!seen)
			out[m++] = i;
	}
	return m;
}

static void html_whole(FILE *f, const struct an_result *r)
{
	if (!any_whole(r))
		return;
	fputs("<h2>Whole-process keys</h2>\n<p>", f);
	html_escape(f, whole_caption);
	fputs(".</p>\n<table>\n<tr>", f);
	for (int c = 0; c < NWCOLS; c++) {
		fputs("<th>", f);
		html_escape(f, wcol_titles[c]);
		fputs("</th>", f);
	}
	fputs("</tr>\n", f);
	for (size_t i = 0; i < r->nkeys; i++) {
		if (!r->keys[i].whole)
			continue;
		char *cells[NWCOLS];
		whole_cells(&r->keys[i], &r->opts, cells);
		fputs("<tr>", f);
		for (int c = 0; c < NWCOLS; c++) {
			fputs(c == W_KEY ? "<td><code>" : "<td class=\"n\">", f);
			html_escape(f, cells[c]);
			fputs(c == W_KEY ? "</code></td>" : "</td>", f);
		}
		fputs("</tr>\n", f);
		free_wcells(cells);
	}
	fputs("</table>\n", f);
}

static void html_warnings(FILE *f, const struct an_result *r)
{
	struct strvec keys = STRVEC_INIT, lines = STRVEC_INIT;
	key_warnings(r, &keys, &lines);
	for (size_t i = 0; i < lines.n; i++) {
		fputs("<p class=\"bad\"><strong>Warning</strong> <code>", f);
		html_escape(f, keys.v[i]);
		fputs("</code>: ", f);
		html_escape(f, lines.v[i]);
		fputs("</p>\n", f);
	}
	sv_clear(&keys);
	sv_clear(&lines);
}


/* ---- profiles in the HTML page: flame graphs ---- */

#define REP_PROFILE_MAX ((size_t)256 << 20)

/* the --profile folders, loaded (flame NULL: unusable, warned) */
struct rep_prof {
	const char *dir;
	json_t *flame;
	int shown;
};

static void html_flame(FILE *f, const char *heading, const char *what, const json_t *flame)
{
	struct strbuf b = STRBUF_INIT;
	sb_adds(&b, "<h3>");
	esc_add(&b, ESC_HTML, heading);
	sb_adds(&b, " <code>");
	esc_add(&b, ESC_HTML, what);
	sb_adds(&b, "</code></h3>\n");
	flame_iframe(&b, flame, what);
	fputs(sb_str(&b), f);
	sb_release(&b);
}

/* the newest profile of k stored in the results file (kiln profile's ids are KEY@TIME#PID) */
static void html_stored_profile(FILE *f, struct store *st, const struct ds_key *k)
{
	char *prefix = xasprintf("%s:%s:%s@", k->bench, k->vm, k->variant), *id = NULL, *value = NULL;
	if (st && store_cache_last(st, "profile", prefix, REP_PROFILE_MAX, &id, &value) == 0) {
		json_error_t je;
		json_t *rep = value ? json_loads(value, 0, &je) : NULL, *fl = NULL;
		struct kerr e = KERR_INIT;
		if (!value)
			kiln_warn("profile '%s': larger than %zu MiB: not in the report", id, REP_PROFILE_MAX >> 20);
		else if (!rep)
			kiln_warn("profile '%s': line %d: %s", id, je.line, je.text);
		else if (!(fl = flame_of_profile(rep, id, &e)))
			kiln_warn("%s", sb_str(&e.msg));
		if (fl)
			html_flame(f, "Flame graph of profile", id, fl);
		kerr_release(&e);
		json_decref(fl);
		json_decref(rep);
	}
	free(prefix);
	free(id);
	free(value);
}

/* the --profile folders of k's program (all that are left when k is NULL) */
static void html_dir_profiles(FILE *f, struct rep_prof *p, size_t n, const struct ds_key *k)
{
	char *key = k ? xasprintf("%s:%s:%s", k->bench, k->vm, k->variant) : NULL;
	for (size_t i = 0; i < n; i++) {
		const char *pk = json_string_value(json_object_get(p[i].flame, "key"));
		if (!p[i].flame || p[i].shown || (key && (!pk || strcmp(pk, key))))
			continue;
		struct strbuf h = STRBUF_INIT;
		if (k)
			sb_adds(&h, "Flame graph of the profile in");
		else
			sb_addf(&h, "Flame graph of %s, the profile in", pk ? pk : "a profile");
		html_flame(f, h.buf, p[i].dir, p[i].flame);
		sb_release(&h);
		p[i].shown = 1;
	}
	free(key);
}

static struct rep_prof *load_dir_profiles(const struct rep_opts *ro)
{
	struct rep_prof *p = xcalloc(ro->nprofiles ? ro->nprofiles : 1, sizeof(*p));
	for (size_t i = 0; i < ro->nprofiles; i++) {
		struct kerr e = KERR_INIT;
		p[i].dir = ro->profiles[i];
		if (!(p[i].flame = flame_load_dir(p[i].dir, &e)))
			kiln_warn("--profile: %s", sb_str(&e.msg));
		kerr_release(&e);
	}
	return p;
}

/* the page's head and its title */
static void html_head(FILE *f, const char *title)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>", f);
	html_escape(f, title);
	fputs("</title>\n<style>\n"
	      "body{font-family:system-ui,sans-serif;margin:2em;color:#222;background:#fff}\n"
	      "table{border-collapse:collapse;margin:1em 0}\n"
	      "th,td{padding:.3em .8em;border-bottom:1px solid #ddd;text-align:left}\n"
	      "td.n{text-align:right;font-variant-numeric:tabular-nums}\n"
	      "th{background:#f3f3f3}\n.good{color:#1a7f37}.meh{color:#9a6700}.bad{color:#cf222e}\n"
	      ".plot svg{max-width:100%;height:auto;border:1px solid #eee;margin:.5em 0}\n"
	      "code{font-size:90%}\n</style>\n</head>\n<body>\n<h1>", f);
	html_escape(f, title);
	fputs("</h1>\n", f);
}

/* the table of every key, each linked to its section */
static void html_table(FILE *f, const struct an_result *r)
{
	fputs("<table>\n<tr>", f);
	for (int c = 0; c < NCOLS; c++) {
		fputs("<th>", f);
		html_escape(f, col_titles[c]);
		fputs("</th>", f);
	}
	fputs("</tr>\n", f);
	for (size_t i = 0; i < r->nkeys; i++) {
		char *cells[NCOLS];
		key_cells(&r->keys[i], cells, 0);
		fputs("<tr>", f);
		for (int c = 0; c < NCOLS; c++) {
			if (c == C_KEY)
				fprintf(f, "<td><a href=\"#k%zu\"><code>", i);
			else if (c == C_CLASS)
				fprintf(f, "<td class=\"%s\">", class_css(r->keys[i].cls));
			else
				fputs("<td class=\"n\">", f);
			html_escape(f, cells[c]);
			fputs(c == C_KEY ? "</code></a></td>" : "</td>", f);
		}
		fputs("</tr>\n", f);
		free_cells(cells);
	}
	fputs("</table>\n", f);
}

/* a key's instrumentation series: mean per iteration before and after the steady state */
static void html_series(FILE *f, const struct an_key *k)
{
	if (!k->nseries)
		return;
	fputs("<table><tr><th>series</th><th>mean/iteration before steady state</th><th>after</th><th>unit</th></tr>\n", f);
	for (size_t s = 0; s < k->nseries; s++) {
		const struct an_series_sum *ss = &k->series[s];
		fputs("<tr><td>", f);
		html_escape(f, ss->name);
		char before[32], after[32];
		fprintf(f, "</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td>", fmt_mean(ss->before, before),
			fmt_mean(ss->after, after));
		html_escape(f, ss->unit);
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

/* up to nplots of key i's pexecs, drawn by gnuplot gp in dir and inlined */
static int html_plots(FILE *f, const struct an_result *r, size_t i, int nplots, const char *dir, const char *gp,
		      const struct plot_opts *po, struct kerr *e)
{
	const struct an_key *k = &r->keys[i];
	if (!dir || !gp) {
		fputs("<p>(plots unavailable: gnuplot not found)</p>\n", f);
		return 0;
	}
	int rc = 0;
	size_t *pick = xmalloc((k->np + 1) * sizeof(size_t));
	size_t m = pick_plots(k, nplots, pick);
	for (size_t q = 0; q < m && rc == 0; q++) {
		char *svg = NULL;
		char stem[32];
		snprintf(stem, sizeof(stem), "k%zu", i);
		rc = plot_pexec(k, pick[q], &r->opts, po, dir, stem, &svg, e);
		if (rc == 0) {
			fputs("<div class=\"plot\">\n", f);
			rc = inline_svg(f, svg, e);
			fputs("</div>\n", f);
		}
		free(svg);
	}
	if (m < k->np)
		fprintf(f, "<p>%zu of %zu pexecs shown (kiln plot draws them all).</p>\n", m, k->np);
	free(pick);
	return rc;
}

static int write_html(FILE *f, const struct dataset *ds, const struct an_result *r, const struct rep_opts *ro,
		      struct kerr *e)
{
	html_head(f, ro->title ? ro->title : ds->name ? ds->name : "kiln report");
	html_table(f, r);
	html_whole(f, r);
	html_warnings(f, r);
	struct strbuf o = STRBUF_INIT;
	opts_line(&o, r);
	fprintf(f, "<p>Steady perf: %s &plusmn; half the %g%% confidence interval (or the interval, "
		   "when lopsided). Analysis: <code>", perf_what(r), r->opts.confidence * 100);
	html_escape(f, o.buf);
	fputs("</code></p>\n", f);
	sb_release(&o);

	struct store *st = NULL;
	struct kerr se = KERR_INIT;
	if (ro->results && store_open(ro->results, 0, &st, &se) < 0)
		kiln_warn("the profiles in %s: %s", ro->results, sb_str(&se.msg));
	kerr_release(&se);
	struct rep_prof *profs = load_dir_profiles(ro);

	char tmpl[] = "/tmp/kiln-report.XXXXXX";
	char *dir = mkdtemp(tmpl);
	char *gp = plot_gnuplot_path();
	int nplots = ro->plots_per_key;
	struct plot_opts po;
	plot_opts_default(&po);
	int rc = 0;
	for (size_t i = 0; i < r->nkeys && rc == 0; i++) {
		const struct an_key *k = &r->keys[i];
		fprintf(f, "<h2 id=\"k%zu\"><code>", i);
		html_escape(f, k->key->key);
		fputs("</code></h2>\n", f);
		html_series(f, k);
		html_details(f, k, &r->opts);
		html_stored_profile(f, st, k->key);
		html_dir_profiles(f, profs, ro->nprofiles, k->key);
		if (nplots > 0)
			rc = html_plots(f, r, i, nplots, dir, gp, &po, e);
	}
	if (!gp && nplots > 0)
		kiln_warn("gnuplot not found: the HTML report has no plots");
	html_dir_profiles(f, profs, ro->nprofiles, NULL);
	for (size_t i = 0; i < ro->nprofiles; i++)
		json_decref(profs[i].flame);
	free(profs);
	if (st)
		store_close(st);
	fputs("</body>\n</html>\n", f);
	if (dir)
		rm_rf(dir);
	free(gp);
	return rc;
}

int rep_write(FILE *f, enum rep_format fmt, const struct dataset *ds, const struct an_result *r,
	      const struct rep_opts *ro, struct kerr *e)
{
	switch (fmt) {
	case REP_TEXT: return write_text(f, ds, r, ro);
	case REP_MARKDOWN: return write_markdown(f, ds, r, ro);
	case REP_LATEX: return write_latex(f, ds, r, ro);
	case REP_HTML: return write_html(f, ds, r, ro, e);
	case REP_JSON: return write_json(f, ds, r, e);
	case REP_CSV: return write_csv(f, r);
	}
	return kerr_set(e, "unknown report format");
}
