/*
 * test_report.c - plots (src/plot.c) and reports (src/report.c) of an
 * analysed in-memory dataset.  The SVG that gnuplot draws is parsed: the
 * wall-time line has a point per iteration, every outlier has its marker,
 * each instrumentation series has its own panel; the .gp and .dat files stay
 * beside it.  The HTML report is one file with inline SVG and no outside
 * reference; the JSON follows warmup_stats' layout; text, Markdown, LaTeX
 * and CSV carry the numbers of the analysis.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plot.h"
#include "report.h"

static char tmpdir[64];
static struct dataset ds;
static struct an_result res;

static uint64_t st = 12345;
static double urand(void)
{
	st ^= st << 13;
	st ^= st >> 7;
	st ^= st << 17;
	return ((st >> 11) + 0.5) / 9007199254740992.0;
}

#define N 400

static int setup(void **state)
{
	(void)state;
	strcpy(tmpdir, "/tmp/kiln-test-report.XXXXXX");
	if (!mkdtemp(tmpdir))
		return -1;
	memset(&ds, 0, sizeof(ds));
	ds.name = xstrdup("demo");
	ds.machine = xstrdup("box");
	struct ds_key *k = ds_add_key(&ds, "fannkuch", "pypy", "default-python");
	for (int p = 0; p < 2; p++) {
		struct ds_pexec *px = ds_add_pexec(k, p);
		px->n = N;
		px->wall = xmalloc(N * sizeof(double));
		struct ds_series *gc = ds_add_series(px, "gc.time", "s", N);
		for (int i = 0; i < N; i++) {
			px->wall[i] = (i < 40 ? 0.3 : 0.1) + 0.0002 * (urand() - 0.5);
			gc->v[i] = i < 40 ? 0.01 : 0.001;
		}
		ds_add_scalar(px, "us_compiling", "us", 1234 + 100 * p);
		/* three spikes well inside the series: outliers */
		px->wall[150] = px->wall[260] = px->wall[333] = 0.5;
	}
	struct ds_key *k2 = ds_add_key(&ds, "nbody", "lua", "default-lua");
	struct ds_pexec *px = ds_add_pexec(k2, 0);
	px->n = N;
	px->wall = xmalloc(N * sizeof(double));
	for (int i = 0; i < N; i++)
		px->wall[i] = 0.05 + 0.0001 * (urand() - 0.5);
	ds_add_pexec(k2, 1)->status = DS_FAILED;
	struct an_opts o;
	an_opts_default(&o);
	o.window = 100;
	o.steady = 100;
	o.resamples = 5000;
	struct kerr e = KERR_INIT;
	return an_analyse(&ds, &o, &res, &e);
}

static int teardown(void **state)
{
	(void)state;
	an_result_free(&res);
	ds_free(&ds);
	rm_rf(tmpdir);
	return 0;
}

static size_t count(const char *s, const char *needle)
{
	size_t n = 0;
	for (const char *p = strstr(s, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

/* points (M and L commands) of all paths stroked in colour col */
static size_t path_points(const char *svg, const char *col)
{
	size_t pts = 0;
	for (const char *p = strstr(svg, "<path"); p; p = strstr(p + 1, "<path")) {
		const char *end = strchr(p, '>');
		char *tag = xstrndup(p, (size_t)(end - p));
		if (strstr(tag, col)) {
			const char *d = strstr(tag, " d='");
			for (; d && *d; d++)
				pts += *d == 'M' || *d == 'L';
		}
		free(tag);
	}
	return pts;
}

static void test_plot_svg(void **state)
{
	(void)state;
	char *gp = plot_gnuplot_path();
	if (!gp)
		skip();
	free(gp);
	const struct an_key *k = &res.keys[0];
	assert_int_equal(k->p[0].cls, AN_WARMUP);
	assert_int_equal(k->p[0].noutliers, 3);
	char *dir = path_join(tmpdir, "plots"), *out = NULL;
	struct kerr e = KERR_INIT;
	struct plot_opts po;
	plot_opts_default(&po);
	po.inset = PLOT_INSET_OFF;
	char *stem = plot_name(k->key);
	if (plot_pexec(k, 0, &res.opts, &po, dir, stem, &out, &e) < 0)
		fail_msg("%s", e.msg.buf);
	assert_true(strstr(out, "fannkuch_pypy_default-python-p0.svg") != NULL);
	struct strbuf svg = STRBUF_INIT;
	assert_int_equal(read_file(out, &svg, &e), 0);
	assert_non_null(strstr(svg.buf, "<svg"));
	/* the wall-time line: one point per iteration, plus the legend's sample (2) */
	assert_int_equal(path_points(svg.buf, "rgb( 59,  66,  82)"), N + 2);
	/* the gc.time panel: a step per iteration over the same iterations */
	assert_true(path_points(svg.buf, "rgb( 94, 129, 172)") >= N);
	/* outlier markers in red: one per outlier and one in the legend */
	assert_int_equal(count(svg.buf, "color='rgb(208,   0,   0)'"), 3 + 1);
	/* with the inset (auto: the steady part is flat against the warmup), the steady iterations twice */
	po.inset = PLOT_INSET_AUTO;
	free(out);
	assert_int_equal(plot_pexec(k, 0, &res.opts, &po, dir, stem, &out, &e), 0);
	sb_reset(&svg);
	assert_int_equal(read_file(out, &svg, &e), 0);
	assert_true(path_points(svg.buf, "rgb( 59,  66,  82)") >= N + 2 + (N - 40) - 3);
	/* segments: a mean line per segment in the steady colour or the warmup colour */
	assert_true(path_points(svg.buf, "rgb( 46, 139,  87)") >= 2);
	assert_true(path_points(svg.buf, "rgb(230, 159,   0)") >= 2);
	/* script and data kept beside it */
	char *gpf = path_join(dir, "fannkuch_pypy_default-python-p0.gp");
	char *dat = path_join(dir, "fannkuch_pypy_default-python-p0.dat");
	struct strbuf d = STRBUF_INIT;
	assert_int_equal(read_file(dat, &d, &e), 0);
	/* the iterations (and a header), then the segment means and the band */
	assert_non_null(strstr(d.buf, "\n\n\n# segment means before the steady state\n"));
	assert_true(count(d.buf, "\n") > N + 1);
	assert_true(file_exists(gpf));
	/* PNG too */
	char *png = NULL;
	po.fmt = PLOT_PNG;
	assert_int_equal(plot_pexec(k, 1, &res.opts, &po, dir, stem, &png, &e), 0);
	struct strbuf pb = STRBUF_INIT;
	assert_int_equal(read_file(png, &pb, &e), 0);
	assert_memory_equal(pb.buf, "\x89PNG", 4);
	sb_release(&pb);
	free(png);
	sb_release(&d);
	sb_release(&svg);
	free(gpf);
	free(dat);
	free(out);
	free(dir);
	free(stem);
}

/* the first "set NAME [a:b]" of a script */
static int first_range(const char *gp, const char *name, double *a, double *b)
{
	char *pat = xasprintf("set %s [", name);
	const char *p = strstr(gp, pat);
	free(pat);
	return p && sscanf(strchr(p, '[') + 1, "%lf:%lf", a, b) == 2 ? 0 : -1;
}

/* the screen-fraction height of the n-th panel (tmargin - bmargin) */
static double panel_height(const char *gp, int n)
{
	const char *p = gp;
	double b = 0, t = 0;
	for (int i = 0; i <= n; i++) {
		p = strstr(p, "set bmargin at screen ");
		if (!p)
			return -1;
		b = atof(p + 22);
		p = strstr(p, "set tmargin at screen ");
		t = atof(p + 22);
		p++;
	}
	return t - b;
}

/*
 * A short pexec (12 iterations) with a slow first iteration, a series that
 * never changes, a count and a byte series: iteration ticks are whole,
 * the wall-time axis stays >= 0, the constant series is named instead of
 * drawn, instrumentation panels are short, bytes get binary units, and the
 * band in the data is the one the classification used.
 */
static void test_plot_layout(void **state)
{
	(void)state;
	char *gp = plot_gnuplot_path();
	if (!gp)
		skip();
	free(gp);
	struct dataset d = { 0 };
	struct ds_key *k = ds_add_key(&d, "short", "vm", "v");
	struct ds_pexec *px = ds_add_pexec(k, 0);
	px->n = 12;
	px->wall = xmalloc(12 * sizeof(double));
	/* ds_add_series may move px->series: take the pointers after the last add */
	ds_add_series(px, "gc.major.count", "", 12);
	ds_add_series(px, "gc.count", "", 12);
	ds_add_series(px, "heap", "bytes", 12);
	struct ds_series *zero = &px->series[0], *cnt = &px->series[1], *heap = &px->series[2];
	for (int i = 0; i < 12; i++) {
		px->wall[i] = i == 0 ? 0.05 : 0.002 + 0.00001 * (i % 3);
		zero->v[i] = 0;
		cnt->v[i] = i % 4 == 0 ? 3 : 0;
		heap->v[i] = 14486000 + 50000.0 * i;
	}
	struct an_opts o;
	an_opts_default(&o);
	o.resamples = 10;
	struct an_key ak;
	an_analyse_key(k, &o, &ak);
	struct plot_opts po;
	plot_opts_default(&po);
	po.inset = PLOT_INSET_OFF;
	char *dir = path_join(tmpdir, "layout"), *out = NULL;
	struct kerr e = KERR_INIT;
	if (plot_pexec(&ak, 0, &o, &po, dir, "short", &out, &e) < 0)
		fail_msg("%s", e.msg.buf);
	char *gpf = path_join(dir, "short-p0.gp"), *datf = path_join(dir, "short-p0.dat");
	struct strbuf g = STRBUF_INIT, dat = STRBUF_INIT;
	assert_int_equal(read_file(gpf, &g, &e), 0);
	assert_int_equal(read_file(datf, &dat, &e), 0);
	double a, b;
	assert_int_equal(first_range(g.buf, "yrange", &a, &b), 0);
	assert_true(a >= 0);
	assert_true(b > 50 && b < 60); /* wall time in ms: 50 ms at most, a little room */
	assert_non_null(strstr(g.buf, "set ylabel 'wall time (ms)'"));
	assert_int_equal(first_range(g.buf, "xrange", &a, &b), 0);
	assert_true(a == 0.5 && b == 12.5);
	assert_non_null(strstr(g.buf, "set xtics 1\n") ? strstr(g.buf, "set xtics 1\n") : strstr(g.buf, "set xtics 2\n"));
	assert_non_null(strstr(g.buf, "set format x '%.0f'"));
	assert_null(strstr(g.buf, "set xtics 0."));
	/* the constant series is named, not drawn; the two others have panels */
	assert_non_null(strstr(g.buf, "constant, not drawn: gc.major.count = 0"));
	assert_null(strstr(g.buf, "'gc.major.count"));
	assert_non_null(strstr(g.buf, "'gc.count'"));
	assert_non_null(strstr(g.buf, "'heap (MiB)'"));
	assert_null(strstr(g.buf, "e+0"));
	assert_int_equal(count(g.buf, "with histeps"), 2);
	/* instrumentation panels are a fraction of the run sequence's height */
	double hm = panel_height(g.buf, 0), h1 = panel_height(g.buf, 1), h2 = panel_height(g.buf, 2);
	assert_true(hm > 0 && h1 > 0 && h2 > 0);
	assert_true(h1 < hm / 2.5 && h2 < hm / 2.5);
	/* the band block holds an_band's bounds */
	double lo, hi;
	an_band(&ak.p[0], &o, &lo, &hi);
	const char *band = strstr(dat.buf, "# band:");
	assert_non_null(band);
	double x, blo, bhi;
	assert_int_equal(sscanf(strchr(band, '\n') + 1, "%lf %lf %lf", &x, &blo, &bhi), 3);
	assert_true(blo == lo && bhi == hi);
	/* a count axis has whole-number ticks */
	sb_release(&g);
	sb_release(&dat);
	free(gpf);
	free(datf);
	free(out);
	free(dir);
	an_key_free(&ak);
	ds_free(&d);
}

/*
 * A pexec with 30 changing series and 40 constant ones: one page draws at
 * most 16 panels and names at most 24 constant series, and says how many
 * more there are (a pexec with 50,000 series made gnuplot fail after
 * minutes).
 */
static void test_plot_many_series(void **state)
{
	(void)state;
	char *gp = plot_gnuplot_path();
	if (!gp)
		skip();
	free(gp);
	struct dataset d = { 0 };
	struct ds_key *k = ds_add_key(&d, "many", "vm", "v");
	struct ds_pexec *px = ds_add_pexec(k, 0);
	px->n = 10;
	px->wall = xmalloc(10 * sizeof(double));
	for (int s = 0; s < 70; s++) {
		char name[16];
		snprintf(name, sizeof(name), s < 30 ? "chg%02d" : "const%02d", s < 30 ? s : s - 30);
		ds_add_series(px, name, "", 10);
	}
	for (int i = 0; i < 10; i++) {
		px->wall[i] = 0.1 + 0.001 * i;
		for (int s = 0; s < 70; s++)
			px->series[s].v[i] = s < 30 ? (double)(i * (s + 1)) : 7;
	}
	struct an_opts o;
	an_opts_default(&o);
	o.resamples = 10;
	struct an_key ak;
	an_analyse_key(k, &o, &ak);
	struct plot_opts po;
	plot_opts_default(&po);
	char *dir = path_join(tmpdir, "many"), *out = NULL;
	struct kerr e = KERR_INIT;
	if (plot_pexec(&ak, 0, &o, &po, dir, "many", &out, &e) < 0)
		fail_msg("%s", e.msg.buf);
	char *gpf = path_join(dir, "many-p0.gp");
	struct strbuf g = STRBUF_INIT;
	assert_int_equal(read_file(gpf, &g, &e), 0);
	assert_int_equal(count(g.buf, "with histeps"), 16);
	assert_non_null(strstr(g.buf, "'chg15'"));
	assert_null(strstr(g.buf, "'chg16'"));
	assert_non_null(strstr(g.buf, "const23 = 7"));
	assert_null(strstr(g.buf, "const24 = 7"));
	assert_non_null(strstr(g.buf, "and 16 more"));
	assert_non_null(strstr(g.buf, "14 more series not drawn"));
	sb_release(&g);
	free(gpf);
	free(out);
	free(dir);
	an_key_free(&ak);
	ds_free(&d);
}

/*
 * A flat pexec of two segments (a 50 µs step, within delta = 1% of 9.95 ms): the
 * plot says why it is flat; the options change the script as asked.
 */
static void test_plot_flat_two_segments(void **state)
{
	(void)state;
	char *gp = plot_gnuplot_path();
	if (!gp)
		skip();
	free(gp);
	struct dataset d = { 0 };
	struct ds_key *k = ds_add_key(&d, "step", "vm", "v");
	struct ds_pexec *px = ds_add_pexec(k, 0);
	px->n = 200;
	px->wall = xmalloc(200 * sizeof(double));
	for (int i = 0; i < 200; i++)
		px->wall[i] = (i < 100 ? 0.0100 : 0.00995) + 0.000001 * (urand() - 0.5);
	struct an_opts o;
	an_opts_default(&o);
	o.resamples = 10;
	struct an_key ak;
	an_analyse_key(k, &o, &ak);
	assert_int_equal(ak.p[0].cls, AN_FLAT);
	assert_int_equal(ak.p[0].nsegs, 2);
	struct plot_opts po;
	plot_opts_default(&po);
	po.fmt = PLOT_PNG;
	po.log_y = 1;
	po.xmin = 50;
	po.xmax = 150;
	po.width = 800;
	po.height = 500;
	po.wall_only = 1;
	char *dir = path_join(tmpdir, "flat"), *out = NULL;
	struct kerr e = KERR_INIT;
	if (plot_pexec(&ak, 0, &o, &po, dir, "step", &out, &e) < 0)
		fail_msg("%s", e.msg.buf);
	char *gpf = path_join(dir, "step-p0.gp");
	struct strbuf g = STRBUF_INIT;
	assert_int_equal(read_file(gpf, &g, &e), 0);
	assert_non_null(strstr(g.buf, "flat although 2 segments: every segment mean ± var overlaps the band"));
	assert_non_null(strstr(g.buf, "δ = min(1 ms, 1% of the fastest segment) = 99.5 µs"));
	assert_non_null(strstr(g.buf, "set terminal pngcairo size 800,500"));
	assert_non_null(strstr(g.buf, "set logscale y"));
	double a, b;
	assert_int_equal(first_range(g.buf, "xrange", &a, &b), 0);
	assert_true(a == 49.5 && b == 150.5);
	/* the PNG has the size asked for */
	struct strbuf png = STRBUF_INIT;
	assert_int_equal(read_file(out, &png, &e), 0);
	const unsigned char *u = (const unsigned char *)png.buf;
	assert_int_equal((u[16] << 24 | u[17] << 16 | u[18] << 8 | u[19]), 800);
	assert_int_equal((u[20] << 24 | u[21] << 16 | u[22] << 8 | u[23]), 500);
	/* many pexecs to a page */
	struct strvec outs = STRVEC_INIT;
	size_t idx[1] = { 0 };
	po.per_page = 4;
	po.width = po.height = 0;
	assert_int_equal(plot_pages(&ak, idx, 1, &o, &po, dir, "step", &outs, &e), 0);
	assert_int_equal(outs.n, 1);
	assert_non_null(strstr(outs.v[0], "step-page1.png"));
	sv_clear(&outs);
	sb_release(&png);
	sb_release(&g);
	free(gpf);
	free(out);
	free(dir);
	an_key_free(&ak);
	ds_free(&d);
}

/* file names: one per key name, readable where the name is */
static void test_plot_names(void **state)
{
	(void)state;
	const char *names[][3] = { { "a b", "vm", "v" }, { "a_b", "vm", "v" }, { "größe", "vm", "v" },
				   { "grüße", "vm", "v" }, { "a%20b", "vm", "v" }, { "..", "vm", "v" } };
	struct dataset d = { 0 };
	char *got[ARRAY_SIZE(names)];
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		got[i] = plot_name(ds_add_key(&d, names[i][0], names[i][1], names[i][2]));
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		for (size_t j = i + 1; j < ARRAY_SIZE(names); j++)
			assert_string_not_equal(got[i], got[j]);
	assert_true(!strncmp(got[0], "a_b_vm_v+", 9));
	assert_string_equal(got[1], "a_b_vm_v");
	assert_true(!strncmp(got[2], "gr____e_vm_v+", 13));
	assert_true(!strncmp(got[5], "__._vm_v+", 9) || !strncmp(got[5], "_._vm_v+", 8));
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		assert_null(strchr(got[i], '/'));
		free(got[i]);
	}
	double w, h;
	assert_int_equal(plot_parse_size("8x5in", &w, &h), 0);
	assert_true(w == 768 && h == 480);
	assert_int_equal(plot_parse_size("960x600", &w, &h), 0);
	assert_int_not_equal(plot_parse_size("9x6", &w, &h), 0);
	assert_int_not_equal(plot_parse_size("960", &w, &h), 0);
	long a, b;
	assert_int_equal(plot_parse_xlim("2:", &a, &b), 0);
	assert_true(a == 2 && b == 0);
	assert_int_not_equal(plot_parse_xlim("5:3", &a, &b), 0);
	assert_int_not_equal(plot_parse_xlim(":", &a, &b), 0);
	ds_free(&d);
}

static char *render(enum rep_format f)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mf = open_memstream(&buf, &len);
	struct rep_opts ro = { 0 };
	ro.plots_per_key = 2;
	struct kerr e = KERR_INIT;
	if (rep_write(mf, f, &ds, &res, &ro, &e) < 0)
		fail_msg("%s", e.msg.buf);
	fclose(mf);
	return buf;
}

static void test_html_self_contained(void **state)
{
	(void)state;
	char *gp = plot_gnuplot_path();
	if (!gp)
		skip();
	free(gp);
	char *h = render(REP_HTML);
	assert_true(!strncmp(h, "<!DOCTYPE html>", 15));
	/* 2 pexecs of fannkuch, 1 of nbody */
	assert_int_equal(count(h, "<svg"), 3);
	assert_null(strstr(h, "src="));
	assert_null(strstr(h, "http://www.w3.org/1999/xhtml")); /* no foreign HTML islands */
	assert_null(strstr(h, "<link"));
	assert_null(strstr(h, "<script"));
	assert_null(strstr(h, "<?xml"));
	assert_non_null(strstr(h, "warmup"));
	assert_non_null(strstr(h, "gc.time"));
	free(h);
	/* --plots 0: no plot at all */
	char *buf = NULL;
	size_t len = 0;
	FILE *mf = open_memstream(&buf, &len);
	struct rep_opts ro = { 0 };
	struct kerr e = KERR_INIT;
	assert_int_equal(rep_write(mf, REP_HTML, &ds, &res, &ro, &e), 0);
	fclose(mf);
	assert_null(strstr(buf, "<svg"));
	free(buf);
}

static void test_json_layout(void **state)
{
	(void)state;
	char *t = render(REP_JSON);
	json_error_t je;
	json_t *j = json_loads(t, 0, &je);
	assert_non_null(j);
	assert_string_equal(json_string_value(json_object_get(j, "warmup_format_version")), "2");
	json_t *b = json_object_get(json_object_get(json_object_get(json_object_get(j, "machines"), "box"), "pypy"),
				    "fannkuch");
	assert_non_null(b);
	assert_string_equal(json_string_value(json_object_get(b, "classification")), "warmup");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(b, "detailed_classification"), "warmup")), 2);
	assert_true(json_number_value(json_object_get(b, "steady_state_iteration")) == res.keys[0].iter_med);
	assert_true(json_number_value(json_object_get(b, "steady_state_time")) == res.keys[0].perf_med);
	assert_int_equal(json_array_size(json_object_get(b, "steady_state_time_list")), 2);
	json_t *px = json_object_get(b, "process_executons");
	assert_int_equal(json_array_size(px), 2);
	assert_int_equal(json_array_size(json_object_get(json_array_get(px, 0), "outliers")), 3);
	json_t *pp = json_object_get(json_object_get(b, "per_pexec"), "us_compiling");
	assert_true(json_number_value(json_object_get(pp, "mean")) == 1284);
	assert_true(json_number_value(json_object_get(pp, "max")) == 1334);
	json_t *ins = json_object_get(json_object_get(b, "instrumentation"), "gc.time");
	assert_true(fabs(json_number_value(json_object_get(ins, "before_steady")) - 0.01) < 1e-12);
	json_t *nb = json_object_get(json_object_get(json_object_get(json_object_get(j, "machines"), "box"), "lua"),
				     "nbody");
	assert_string_equal(json_string_value(json_object_get(nb, "classification")), "flat");
	assert_int_equal(json_integer_value(json_object_get(nb, "failed_pexecs")), 1);
	json_decref(j);
	free(t);
}

static void test_text_formats(void **state)
{
	(void)state;
	char *t = render(REP_TEXT);
	assert_non_null(strstr(t, "fannkuch:pypy:default-python"));
	assert_non_null(strstr(t, "warmup"));
	assert_non_null(strstr(t, "1 (+1 failed)"));
	assert_null(strstr(t, "\033[")); /* colour only when asked */
	assert_non_null(strstr(t, "us_compiling: 1.284 (1.234–1.334) ms"));
	assert_non_null(strstr(t, "note: pexec 1 failed: (no reason recorded)"));
	struct strbuf want = STRBUF_INIT;
	rep_fmt_time_ci(&want, res.keys[0].perf_med, res.keys[0].perf_lo, res.keys[0].perf_hi);
	assert_non_null(strstr(want.buf, " ms")); /* 0.1 s shown as 100 ms */
	/* every key's steady perf in ms: the unit is in the title, the values without it */
	assert_non_null(strstr(t, "steady perf (ms)"));
	*strrchr(want.buf, ' ') = 0;
	assert_non_null(strstr(t, want.buf));
	free(t);
	t = render(REP_MARKDOWN);
	assert_non_null(strstr(t, "| `fannkuch:pypy:default-python` | warmup |"));
	assert_non_null(strstr(t, "| --- |"));
	free(t);
	t = render(REP_LATEX);
	assert_non_null(strstr(t, "\\begin{table}"));
	assert_non_null(strstr(t, "\\begin{tabular}"));
	assert_non_null(strstr(t, "\\,ms {\\scriptsize$\\pm$"));
	assert_non_null(strstr(t, "fannkuch & pypy & warmup"));
	assert_null(strstr(t, "default_python")); /* underscores would be escaped, and defaults are hidden */
	free(t);
	t = render(REP_CSV);
	assert_true(!strncmp(t, "key,bench,vm,variant,classification", 35));
	assert_non_null(strstr(t, "gc.time_before,gc.time_after"));
	assert_non_null(strstr(t, ",us_compiling_mean"));
	assert_int_equal(count(t, "\n"), 3);
	free(t);
	sb_release(&want);
}

/* a per-pexec value's column is one CSV field: its name and _mean quoted together, not "a,b"_mean */
static void test_csv_scalar_name(void **state)
{
	(void)state;
	struct dataset d = { 0 };
	struct ds_key *k = ds_add_key(&d, "b", "vm", "v");
	for (int p = 0; p < 2; p++) {
		struct ds_pexec *px = ds_add_pexec(k, p);
		px->n = 50;
		px->wall = xmalloc(px->n * sizeof(double));
		for (size_t i = 0; i < px->n; i++)
			px->wall[i] = 0.1 + 0.0001 * (urand() - 0.5);
		ds_add_scalar(px, "a,b", "us", 10 + p);
	}
	struct an_opts o;
	an_opts_default(&o);
	o.resamples = 200;
	struct an_result r;
	struct kerr e = KERR_INIT;
	assert_int_equal(an_analyse(&d, &o, &r, &e), 0);
	char *buf = NULL;
	size_t len = 0;
	FILE *mf = open_memstream(&buf, &len);
	struct rep_opts ro = { 0 };
	if (rep_write(mf, REP_CSV, &d, &r, &ro, &e) < 0)
		fail_msg("%s", e.msg.buf);
	fclose(mf);
	char *nl = strchr(buf, '\n');
	assert_non_null(nl);
	*nl = '\0';
	const char *want = ",\"a,b_mean\"";
	assert_true(strlen(buf) > strlen(want));
	assert_string_equal(buf + strlen(buf) - strlen(want), want);
	free(buf);
	an_result_free(&r);
	ds_free(&d);
}

static void test_fmt(void **state)
{
	(void)state;
	struct strbuf sb = STRBUF_INIT;
	rep_fmt_ci(&sb, 0.102314, 0.102194, 0.102434);
	assert_string_equal(sb.buf, "0.10231 ± 0.00012");
	sb_reset(&sb);
	rep_fmt_ci(&sb, NAN, NAN, NAN);
	assert_string_equal(sb.buf, "-");
	/* a lopsided interval is printed as one, never as a ± (issue 12: "0.0009 ± 0.0032") */
	sb_reset(&sb);
	rep_fmt_ci(&sb, 0.000897, 0.000897, 0.00722);
	assert_string_equal(sb.buf, "0.000897 (0.000897–0.007220)");
	sb_reset(&sb);
	rep_fmt_ci(&sb, 0.2093, 0.1620, 0.2670); /* sides 0.047 and 0.058: more than 10% apart */
	assert_string_equal(sb.buf, "0.209 (0.162–0.267)");
	sb_release(&sb);
	enum rep_format f;
	assert_int_equal(rep_parse_format("latex", &f), 0);
	assert_int_equal(f, REP_LATEX);
	assert_int_equal(rep_parse_format("pdf", &f), -1);
	assert_int_equal(rep_format_for_path("out/r.html"), REP_HTML);
	assert_int_equal(rep_format_for_path("r.txt"), REP_TEXT);
	assert_int_equal(rep_format_for_path("out.d/report"), REP_TEXT);
	assert_int_equal(rep_format_for_path("r.htm"), REP_HTML);
	assert_int_equal(rep_format_for_path("out.pdf"), -1); /* kiln report refuses it rather than write text there */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plot_svg),
		cmocka_unit_test(test_plot_layout),
		cmocka_unit_test(test_plot_many_series),
		cmocka_unit_test(test_plot_flat_two_segments),
		cmocka_unit_test(test_plot_names),
		cmocka_unit_test(test_html_self_contained),
		cmocka_unit_test(test_json_layout),
		cmocka_unit_test(test_text_formats),
		cmocka_unit_test(test_fmt),
		cmocka_unit_test(test_csv_scalar_name),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
