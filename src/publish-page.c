/*
 * publish-page.c - the site's HTML pages: the overview (index.html: the
 * changes, newest first, and per machine a benchmark x VM table of
 * sparklines) and one page per key (its charts, its change points with the
 * A/A false-alarm rate of their series, every commit in a table).  All the
 * essentials are HTML and SVG; kiln.js only adds to them.
 *
 * Untrusted text (subjects, authors, keys, machine names, the project's
 * name) reaches three contexts and is escaped for each: HTML text and
 * quoted attributes (ESC_HTML), and the JSON a page carries for its script
 * in <script type="application/json">, where <, > and & are written as
 * \u escapes so that no "</script>" or "<!--" can end or change the
 * element.  URLs are made of hashes and names kiln makes, never of data.
 * The pages allow no inline script or style (Content-Security-Policy):
 * were anything to slip through, it would not run.
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis.h"
#include "history-cmd.h"
#include "history-detect.h"
#include "publish-int.h"
#include "report.h"
#include "json-num.h"

/* ---- small formatters ---- */

const char *pub_short(const char *hash, char buf[16])
{
	size_t n = 0;
	while (hash && ((hash[n] >= '0' && hash[n] <= '9') || (hash[n] >= 'a' && hash[n] <= 'f')))
		n++;
	if (hash && n >= 12 && !hash[n]) {
		memcpy(buf, hash, 12);
	} else {
		/* not a hash as git writes them (a crafted file): a hash of it, still 12 hex digits */
		char hex[65];
		hash_hex(hash ? hash : "", hash ? strlen(hash) : 0, hex);
		memcpy(buf, hex, 12);
	}
	buf[12] = '\0';
	return buf;
}

void pub_fmt_time(struct strbuf *sb, double s)
{
	if (!isfinite(s)) {
		sb_adds(sb, "-");
		return;
	}
	const struct time_unit *tu = time_unit_for(s);
	double v = s * tu->scale;
	int dec = v == 0 ? 0 : (int)fmax(0, 2 - floor(log10(fabs(v))));
	sb_addf(sb, "%.*f %s", dec, v, tu->name);
}

void pub_fmt_fig(struct strbuf *sb, const struct pub_fig *f, size_t n)
{
	if (f->pooled) {
		sb_adds(sb, "~");
		pub_fmt_time(sb, f->mean);
		sb_addf(sb, " (%zu of %zu pexecs)", f->pooled, n);
	} else if (isfinite(f->mean) && isfinite(f->lo) && isfinite(f->hi) && f->hi > f->lo) {
		rep_fmt_time_ci(sb, f->mean, f->lo, f->hi);
	} else {
		pub_fmt_time(sb, f->mean);
	}
}

static void fmt_date(struct strbuf *sb, int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;
	if (t > 0 && gmtime_r(&tt, &tm))
		sb_addf(sb, "%04d-%02d-%02d", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday);
	else
		sb_adds(sb, "?");
}

/* untrusted s as HTML text, cut to `cols` columns (an ellipsis when cut) */
static void html_cut(struct strbuf *sb, const char *s, size_t cols)
{
	if (!s)
		return;
	size_t bytes;
	display_cut(s, cols, &bytes);
	char *cut = xstrndup(s, bytes);
	esc_add(sb, ESC_HTML, cut);
	free(cut);
	if (s[bytes])
		sb_adds(sb, "\xe2\x80\xa6");
}

/* a key as HTML text that may wrap after its colons, and only there */
static void html_key(struct strbuf *sb, const char *key)
{
	for (const char *p = key;;) {
		const char *c = strchr(p, ':');
		char *part = xstrndup(p, c ? (size_t)(c - p + 1) : strlen(p));
		sb_adds(sb, "<span class=\"kp\">");
		esc_add(sb, ESC_HTML, part);
		sb_adds(sb, "</span>");
		free(part);
		if (!c)
			break;
		sb_adds(sb, "<wbr>");
		p = c + 1;
	}
}

static void pct(struct strbuf *sb, double r)
{
	double p = (r - 1) * 100;
	sb_addf(sb, "%+.*f%%", fabs(p) < 100 ? 1 : 0, p);
}

/* the change in a few characters: "steady +5.1%", "warm-up ×2.00", "no steady +40 pts" */
static void change_brief(struct strbuf *sb, const struct pub_change *c)
{
	if (c->what == PUB_STEADY) {
		sb_adds(sb, "steady ");
		pct(sb, c->ratio);
	} else if (c->what == PUB_WARMUP || c->what == PUB_COST) {
		const char *name = c->what == PUB_WARMUP ? "warm-up" : "warm-up cost";
		if (isfinite(c->ratio))
			sb_addf(sb, "%s \xc3\x97%.2f", name, c->ratio);
		else
			sb_addf(sb, "%s %+.1f it.", name, c->after - c->before);
	} else {
		sb_addf(sb, "no steady %+.0f pts", c->ratio * 100);
	}
}

int pub_change_worse(const struct pub_change *c)
{
	if (c->what == PUB_COST || c->what == PUB_WARMUP)
		return c->after > c->before;
	return c->what == PUB_CLASS ? c->ratio > 0 : c->ratio > 1;
}

void pub_change_size(struct strbuf *sb, const struct pub_change *c, int full)
{
	switch (c->what) {
	case PUB_STEADY:
		sb_adds(sb, "steady ");
		pct(sb, c->ratio);
		sb_adds(sb, " [");
		pct(sb, c->rlo);
		sb_adds(sb, ", ");
		pct(sb, c->rhi);
		sb_adds(sb, "]");
		if (full) {
			sb_adds(sb, c->ratio > 1 ? " slower: " : " faster: ");
			pub_fmt_time(sb, c->before);
			sb_adds(sb, " \xe2\x86\x92 ");
			pub_fmt_time(sb, c->after);
		}
		break;
	case PUB_WARMUP:
	case PUB_COST: {
		const char *name = c->what == PUB_WARMUP ? "warm-up" : "warm-up cost";
		if (isfinite(c->ratio))
			sb_addf(sb, "%s \xc3\x97%.2f [%.2f, %.2f]", name, c->ratio, c->rlo, c->rhi);
		else /* too little before or after for a ratio: the difference, in iterations */
			sb_addf(sb, "%s %+.1f [%+.1f, %+.1f] iterations' worth", name, c->after - c->before,
				c->alo - c->before, c->ahi - c->before);
		if (full)
			sb_addf(sb, ": %.1f \xe2\x86\x92 %.1f steady iterations' worth%s", c->before, c->after,
				c->what == PUB_WARMUP ? "" : " above the steady level");
		break;
	}
	default:
		sb_addf(sb, "no steady state %+.0f pts [%+.0f, %+.0f]", c->ratio * 100, c->rlo * 100, c->rhi * 100);
		if (full)
			sb_addf(sb, ": %.0f%% \xe2\x86\x92 %.0f%% of the pexecs without a steady state or slowing down",
				c->before * 100, c->after * 100);
	}
}

void pub_aa_text(struct strbuf *sb, const struct pub_key *k, enum pub_what w, int full)
{
	const struct pub_aa *a = &k->aa[w];
	if (!k->detected)
		sb_adds(sb, full ? "not measured (no change detection in this kiln)" : "-");
	else if (!a->pairs)
		sb_adds(sb, full ? "not measured: no same-binary commits in this series" : "no A/A pairs");
	else if (full)
		sb_addf(sb, "%zu false alarm%s in %zu same-binary pair%s (%.1f%%)", a->alarms, a->alarms == 1 ? "" : "s",
			a->pairs, a->pairs == 1 ? "" : "s", 100.0 * (double)a->alarms / (double)a->pairs);
	else
		sb_addf(sb, "%zu of %zu (%.1f%%)", a->alarms, a->pairs, 100.0 * (double)a->alarms / (double)a->pairs);
}

static const struct hist_commit *commit_of(const struct pub_site *s, const struct pub_key *k, size_t i)
{
	size_t c = i < k->s.n ? k->s.p[i].commit : s->nc;
	return c < s->nc ? &s->c[c] : NULL;
}

/* ---- the frame of every page ---- */

static void page_head(struct strbuf *sb, const struct pub_site *s, const char *root, const char *title,
		      const char *body_class)
{
	sb_adds(sb, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'self'; "
		    "style-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'\">\n"
		    "<meta name=\"generator\" content=\"kiln " KILN_VERSION "\">\n<title>");
	esc_add(sb, ESC_HTML, title);
	sb_addf(sb, "</title>\n<link rel=\"stylesheet\" href=\"%skiln.css\">\n<script src=\"%skiln.js\" defer></script>\n"
		    "</head>\n<body class=\"%s\">\n<header><a class=\"home\" href=\"%sindex.html\">",
		root, root, body_class, root);
	esc_add(sb, ESC_HTML, s->title);
	sb_adds(sb, "</a></header>\n<main>\n");
}

static void page_foot(struct strbuf *sb, const struct pub_site *s)
{
	char when[40];
	iso_time(s->now_ns, when, sizeof(when));
	const char *base = strrchr(s->o->history, '/');
	sb_addf(sb, "</main>\n<footer>Published by kiln %s on %s from <code>", KILN_VERSION, when);
	esc_add(sb, ESC_HTML, base ? base + 1 : s->o->history);
	sb_adds(sb, "</code>. Every page reads without JavaScript; with it, a cursor follows the charts.</footer>\n"
		    "</body>\n</html>\n");
}

/* ---- JSON inside a page ---- */

static json_t *jstr(const char *s)
{
	return s ? json_string(esc(ESC_JSON, s)) : json_null();
}

/*
 * v as the text of a <script type="application/json"> element: jansson's
 * JSON with <, > and & as \u003c, \u003e, \u0026 (they occur only inside
 * strings, where the escapes mean the same), so that the element's text
 * can hold no end tag and no comment opener
 */
static void json_in_script(struct strbuf *sb, const char *id, json_t *v)
{
	char *text = json_dumps(v, JSON_COMPACT | JSON_ENSURE_ASCII);
	sb_addf(sb, "<script type=\"application/json\" id=\"%s\">", id);
	for (const char *p = text ? text : "null"; *p; p++)
		switch (*p) {
		case '<': sb_adds(sb, "\\u003c"); break;
		case '>': sb_adds(sb, "\\u003e"); break;
		case '&': sb_adds(sb, "\\u0026"); break;
		default: sb_addc(sb, *p);
		}
	sb_adds(sb, "</script>\n");
	free(text);
}

/* ---- the overview ---- */

static const struct pub_change *latest_change(const struct pub_key *k)
{
	const struct pub_change *best = NULL;
	for (size_t j = 0; j < k->nch; j++)
		if (!best || k->ch[j].at > best->at)
			best = &k->ch[j];
	return best;
}

/* the changes of every key, newest commit first */
struct change_ref {
	const struct pub_site *s;
	size_t key, ch;
	long depth;
};

/* how far a change moved its series, comparable across series (class: the fraction; the rest: the log ratio) */
static double change_magnitude(const struct pub_change *c)
{
	if (c->what == PUB_CLASS)
		return fabs(c->ratio);
	if (c->what == PUB_COST)
		return fabs(asinh(c->after) - asinh(c->before));
	if (c->what == PUB_WARMUP) /* the series' own units: a ratio of a warm-up of nothing is none */
		return fabs(log1p(c->after) - log1p(c->before));
	return fabs(log(c->ratio));
}

static int change_cmp(const void *a, const void *b)
{
	const struct change_ref *x = a, *y = b;
	if (x->depth != y->depth)
		return x->depth > y->depth ? -1 : 1;
	const struct pub_change *cx = &x->s->k[x->key].ch[x->ch], *cy = &y->s->k[y->key].ch[y->ch];
	double mx = change_magnitude(cx), my = change_magnitude(cy);
	return mx > my ? -1 : mx < my ? 1 : (x->key > y->key) - (x->key < y->key);
}

/* a commit cell: its short hash (a link to its row on the key page), its date */
static void commit_cell(struct strbuf *sb, const struct pub_site *s, const struct pub_key *k, size_t i, const char *to)
{
	const struct hist_commit *c = commit_of(s, k, i);
	char h[16];
	pub_short(c ? c->hash : NULL, h);
	sb_addf(sb, "<td class=\"commit\"><a href=\"%s#c-%s\"><code>%.10s</code></a> <span class=\"date\">", to, h, h);
	fmt_date(sb, c ? c->time : 0);
	sb_adds(sb, "</span>");
	if (!*to && i < k->s.n && k->report[i])
		sb_addf(sb, " <a class=\"report\" href=\"../%s\">report</a>", k->report[i]);
	sb_adds(sb, "</td>");
}

static void subject_cell(struct strbuf *sb, const struct hist_commit *c)
{
	sb_adds(sb, "<td class=\"subj\"");
	if (c && c->subject) {
		sb_adds(sb, " title=\"");
		esc_add(sb, ESC_HTML, c->subject);
		sb_adds(sb, "\">");
		html_cut(sb, c->subject, 90);
	} else {
		sb_adds(sb, ">");
	}
	sb_adds(sb, "</td>");
}

/* the commits a change may be at, when more than one: "one of 3: abc1234…def5678" */
static void range_text(struct strbuf *sb, const struct pub_site *s, const struct pub_key *k, const struct pub_change *c)
{
	if (c->hi <= c->lo) {
		sb_adds(sb, "this commit");
		return;
	}
	char a[16], b[16];
	const struct hist_commit *ca = commit_of(s, k, c->lo), *cb = commit_of(s, k, c->hi);
	sb_addf(sb, "one of %zu: <span class=\"kp\">%.7s\xe2\x80\xa6%.7s</span>", c->hi - c->lo + 1,
		pub_short(ca ? ca->hash : NULL, a), pub_short(cb ? cb->hash : NULL, b));
}

/* a change, short, as a link to its row on its key's page (to: that page, "" on it) */
static void change_cell(struct strbuf *sb, const struct pub_key *k, size_t j, const char *to)
{
	const struct pub_change *c = &k->ch[j];
	struct strbuf t = STRBUF_INIT;
	pub_change_size(&t, c, 0);
	sb_addf(sb, "<td class=\"delta %s\"><a href=\"%s#ch-%zu\">", pub_change_worse(c) ? "worse" : "better", to, j);
	esc_add(sb, ESC_HTML, t.buf);
	sb_adds(sb, "</a></td>");
	sb_release(&t);
}

static void overview_changes(struct strbuf *sb, const struct pub_site *s)
{
	size_t n = 0, detected = 0;
	for (size_t i = 0; i < s->nk; i++) {
		n += s->k[i].nch;
		detected += s->k[i].detected != 0;
	}
	sb_adds(sb, "<section id=\"changes\">\n<h2>Changes</h2>\n");
	if (!s->nk) {
		sb_adds(sb, "<p>No key has been measured yet.</p>\n</section>\n");
		return;
	}
	if (!detected) {
		sb_adds(sb, "<p class=\"note\">This kiln has no change detection yet: the series are shown, their changes "
			    "are not.</p>\n</section>\n");
		return;
	}
	if (!n) {
		sb_addf(sb, "<p>No change found in the %zu series.</p>\n</section>\n", s->nk);
		return;
	}
	struct change_ref *r = xcalloc(n, sizeof(*r));
	size_t m = 0;
	for (size_t i = 0; i < s->nk; i++)
		for (size_t j = 0; j < s->k[i].nch; j++) {
			const struct hist_commit *c = commit_of(s, &s->k[i], s->k[i].ch[j].at);
			r[m++] = (struct change_ref){ s, i, j, c ? c->depth : -1 };
		}
	qsort(r, m, sizeof(*r), change_cmp);
	sb_adds(sb, "<table class=\"changes sortable\">\n<thead><tr><th>commit</th><th>key</th>");
	if (s->sum.machines > 1)
		sb_adds(sb, "<th>machine</th>");
	sb_adds(sb, "<th>change (99% CI)</th><th>A/A false alarms</th><th>where</th><th>subject</th></tr></thead>\n<tbody>\n");
	for (size_t q = 0; q < m; q++) {
		const struct pub_key *k = &s->k[r[q].key];
		const struct pub_change *c = &k->ch[r[q].ch];
		sb_adds(sb, "<tr data-key=\"");
		esc_add(sb, ESC_HTML, k->key);
		sb_adds(sb, "\">");
		commit_cell(sb, s, k, c->at, k->page);
		sb_addf(sb, "<td class=\"key\"><a href=\"%s\"><code>", k->page);
		html_key(sb, k->key);
		sb_adds(sb, "</code></a></td>");
		if (s->sum.machines > 1) {
			sb_adds(sb, "<td>");
			esc_add(sb, ESC_HTML, s->m[k->machine].name);
			sb_adds(sb, "</td>");
		}
		change_cell(sb, k, r[q].ch, k->page);
		sb_adds(sb, "<td>");
		pub_aa_text(sb, k, c->what, 0);
		sb_adds(sb, "</td><td class=\"where\">");
		range_text(sb, s, k, c);
		sb_adds(sb, "</td>");
		subject_cell(sb, commit_of(s, k, c->at));
		sb_adds(sb, "</tr>\n");
	}
	sb_adds(sb, "</tbody>\n</table>\n</section>\n");
	free(r);
}

/* the latest point of k with a steady mean, or the last point */
static size_t latest_point(const struct pub_key *k)
{
	for (size_t i = k->s.n; i-- > 0;)
		if (isfinite(k->fig[i].mean))
			return i;
	return k->s.n ? k->s.n - 1 : 0;
}

static void overview_cell(struct strbuf *sb, const struct pub_site *s, const struct pub_key *k)
{
	const struct pub_change *c = latest_change(k);
	sb_adds(sb, "<td class=\"cell\" data-key=\"");
	esc_add(sb, ESC_HTML, k->key);
	sb_addf(sb, "\" data-changes=\"%zu\"><a href=\"%s\">", k->nch, k->page);
	svg_sparkline(sb, s, k);
	size_t li = latest_point(k);
	const struct hist_point *p = k->s.n ? &k->s.p[li] : NULL;
	sb_adds(sb, "<span class=\"latest\">");
	if (p)
		pub_fmt_fig(sb, &k->fig[li], p->n);
	sb_adds(sb, "</span>");
	if (c) {
		char h[16];
		const struct hist_commit *cc = commit_of(s, k, c->at);
		sb_addf(sb, "<span class=\"chg %s\">", pub_change_worse(c) ? "worse" : "better");
		change_brief(sb, c);
		sb_addf(sb, " at %.7s</span>", pub_short(cc ? cc->hash : NULL, h));
	}
	sb_adds(sb, "</a></td>");
}

/* the distinct values of field(k) over the keys of machine mi, sorted */
static void distinct(const struct pub_site *s, size_t mi, int column, struct strvec *out)
{
	for (size_t i = 0; i < s->nk; i++) {
		if (s->k[i].machine != mi)
			continue;
		const char *v = column ? s->k[i].column : s->k[i].bench;
		size_t j = 0;
		while (j < out->n && strcmp(out->v[j], v))
			j++;
		if (j == out->n)
			sv_push(out, v);
	}
	for (size_t a = 1; a < out->n; a++)
		for (size_t b = a; b > 0 && strcmp(out->v[b - 1], out->v[b]) > 0; b--) {
			char *t = out->v[b];
			out->v[b] = out->v[b - 1];
			out->v[b - 1] = t;
		}
}

static void overview_machine(struct strbuf *sb, const struct pub_site *s, size_t mi)
{
	struct strvec rows = STRVEC_INIT, cols = STRVEC_INIT;
	distinct(s, mi, 0, &rows);
	distinct(s, mi, 1, &cols);
	if (!rows.n)
		return;
	sb_addf(sb, "<section class=\"machine\" id=\"m%zu\">\n<h2>Machine <code>", mi);
	esc_add(sb, ESC_HTML, s->m[mi].name);
	sb_adds(sb, "</code></h2>\n<table class=\"matrix\">\n<thead><tr><th>benchmark</th>");
	for (size_t c = 0; c < cols.n; c++) {
		sb_adds(sb, "<th>");
		esc_add(sb, ESC_HTML, cols.v[c]);
		sb_adds(sb, "</th>");
	}
	sb_adds(sb, "</tr></thead>\n<tbody>\n");
	for (size_t r = 0; r < rows.n; r++) {
		sb_adds(sb, "<tr><th scope=\"row\">");
		esc_add(sb, ESC_HTML, rows.v[r]);
		sb_adds(sb, "</th>");
		for (size_t c = 0; c < cols.n; c++) {
			const struct pub_key *k = NULL;
			for (size_t i = 0; i < s->nk && !k; i++)
				if (s->k[i].machine == mi && !strcmp(s->k[i].bench, rows.v[r]) &&
				    !strcmp(s->k[i].column, cols.v[c]))
					k = &s->k[i];
			if (k)
				overview_cell(sb, s, k);
			else
				sb_adds(sb, "<td class=\"empty\"></td>");
		}
		sb_adds(sb, "</tr>\n");
	}
	sb_adds(sb, "</tbody>\n</table>\n</section>\n");
	sv_clear(&rows);
	sv_clear(&cols);
}

/* the first and last commits any series holds */
static void overview_intro(struct strbuf *sb, const struct pub_site *s)
{
	size_t lo = s->nc, hi = 0, measured = 0;
	char *seen = xcalloc(s->nc + 1, 1);
	for (size_t i = 0; i < s->nk; i++)
		for (size_t j = 0; j < s->k[i].s.n; j++) {
			size_t c = s->k[i].s.p[j].commit;
			if (c >= s->nc)
				continue;
			measured += !seen[c];
			seen[c] = 1;
			lo = c < lo ? c : lo;
			hi = c > hi ? c : hi;
		}
	free(seen);
	sb_adds(sb, "<h1>");
	esc_add(sb, ESC_HTML, s->title);
	sb_addf(sb, "</h1>\n<p class=\"intro\">%zu key%s on %zu machine%s, %zu commit%s measured", s->nk,
		s->nk == 1 ? "" : "s", s->sum.machines, s->sum.machines == 1 ? "" : "s", measured, measured == 1 ? "" : "s");
	if (lo <= hi && hi < s->nc) {
		char a[16], b[16];
		sb_addf(sb, " from <code>%.10s</code> (", pub_short(s->c[lo].hash, a));
		fmt_date(sb, s->c[lo].time);
		sb_addf(sb, ") to <code>%.10s</code> (", pub_short(s->c[hi].hash, b));
		fmt_date(sb, s->c[hi].time);
		sb_adds(sb, ")");
	}
	sb_addf(sb, "; %zu change%s found.</p>\n", s->sum.changes, s->sum.changes == 1 ? "" : "s");
	sb_adds(sb, "<div class=\"js-only controls\" hidden><label>Keys <input type=\"search\" id=\"filter\" "
		    "placeholder=\"filter by key\"></label> <label><input type=\"checkbox\" id=\"only-changed\"> only keys "
		    "with a change</label></div>\n");
}

int page_overview(struct pub_site *s, struct kerr *e)
{
	struct strbuf sb = STRBUF_INIT;
	page_head(&sb, s, "", s->title, "overview");
	overview_intro(&sb, s);
	overview_changes(&sb, s);
	for (size_t mi = 0; mi < s->nm; mi++)
		overview_machine(&sb, s, mi);
	sb_adds(&sb, "<p class=\"legend\">Each cell: the steady-state mean per commit (oldest to newest), the latest "
		     "with its 99% interval, the latest change; below the line, each commit's most frequent warm-up class: "
		     "<span class=\"sw c-flat\"></span> flat <span class=\"sw c-warmup\"></span> warmup "
		     "<span class=\"sw c-slowdown\"></span> slowdown <span class=\"sw c-nosteady\"></span> no steady "
		     "state.</p>\n");
	page_foot(&sb, s);
	int r = pub_write(s, "index.html", &sb, e);
	sb_release(&sb);
	return r;
}

/* ---- a key's page ---- */

static void class_counts(struct strbuf *sb, const struct hist_point *p)
{
	static const char letter[AN_NPCLASS] = { 'F', 'W', 'S', 'N' };
	for (int c = 0; c < AN_NPCLASS; c++)
		if (p->counts[c])
			sb_addf(sb, "%s%zu%c", sb->len ? " " : "", p->counts[c], letter[c]);
}

static void key_intro(struct strbuf *sb, const struct pub_site *s, const struct pub_key *k)
{
	sb_adds(sb, "<p class=\"crumbs\"><a href=\"../index.html\">overview</a> \xe2\x80\xba machine <code>");
	esc_add(sb, ESC_HTML, s->m[k->machine].name);
	sb_adds(sb, "</code></p>\n<h1><code>");
	esc_add(sb, ESC_HTML, k->key);
	sb_adds(sb, "</code></h1>\n<p class=\"intro\">");
	size_t failed = 0, aa = 0;
	for (size_t i = 0; i < k->s.n; i++) {
		failed += !k->s.p[i].built;
		aa += k->s.p[i].same_as_prev != 0;
	}
	sb_addf(sb, "%zu commit%s", k->s.n, k->s.n == 1 ? "" : "s");
	if (failed)
		sb_addf(sb, " (%zu whose build failed)", failed);
	sb_addf(sb, ", %zu same-binary pair%s (A/A), %zu change%s.", aa, aa == 1 ? "" : "s", k->nch,
		k->nch == 1 ? "" : "s");
	size_t li = latest_point(k);
	if (k->s.n) {
		const struct hist_point *p = &k->s.p[li];
		struct strbuf t = STRBUF_INIT;
		char h[16];
		const struct hist_commit *c = commit_of(s, k, li);
		sb_addf(sb, " Latest, at <a href=\"#c-%s\"><code>%.10s</code></a>: steady state ", pub_short(c ? c->hash : NULL, h), h);
		pub_fmt_fig(&t, &k->fig[li], p->n);
		esc_add(sb, ESC_HTML, t.buf);
		sb_reset(&t);
		class_counts(&t, p);
		sb_adds(sb, ", pexecs ");
		esc_add(sb, ESC_HTML, t.len ? t.buf : "-");
		sb_adds(sb, ", time to steady state ");
		sb_reset(&t);
		pub_fmt_time(&t, k->fig[li].tts_med);
		esc_add(sb, ESC_HTML, t.buf);
		sb_adds(sb, ".");
		sb_release(&t);
	}
	sb_adds(sb, "</p>\n");
}

static void report_link(struct strbuf *sb, const struct pub_key *k, size_t i, const char *label)
{
	if (i < k->s.n && k->report[i])
		sb_addf(sb, " <a class=\"report\" href=\"../%s\">%s</a>", k->report[i], label);
}


/*
 * What the series could have shown (history-power.c): the smallest steady
 * step injected into it found often enough, then the smallest stretch of
 * its warm-up, or why nothing is said of it
 */
static void power_text(struct strbuf *sb, const struct hist_power *pw, const struct hist_power_warm *pww)
{
	struct strbuf t = STRBUF_INIT;
	history_power_text(pw, &t);
	sb_adds(sb, "<p class=\"could-see\">Could see: ");
	esc_add(sb, ESC_HTML, t.buf);
	sb_adds(sb, ". Smaller ones may raise no alarm: none is not no change.</p>\n<p class=\"could-see-warmup\">Could "
		    "see in the warm-up: ");
	sb_reset(&t);
	history_power_warm_text(pww, &t);
	esc_add(sb, ESC_HTML, t.buf);
	sb_adds(sb, ".</p>\n");
	sb_release(&t);
}

/*
 * A change whose range holds commits the history did not measure: the kiln
 * bisect that finds the one (what `kiln track --changes` prints beside it)
 */
static void bisect_hint(struct strbuf *sb, const struct pub_site *s, const struct pub_key *k, const struct pub_change *c)
{
	const struct hist_commit *good, *bad;
	if (!hist_bisect_ends(&k->s, c->lo, c->hi, (enum hist_what)c->what, s->c, &good, &bad))
		return;
	struct strbuf cmd = STRBUF_INIT;
	hist_bisect_command(&cmd, good, bad, k->key, (enum hist_what)c->what);
	sb_addf(sb, ". <span class=\"bisect\">Find the commit (%ld after %.12s): <code>", bad->depth - good->depth,
		good->hash);
	esc_add(sb, ESC_HTML, cmd.buf);
	sb_adds(sb, "</code></span>");
	sb_release(&cmd);
}

static void key_changes(struct strbuf *sb, const struct pub_site *s, const struct pub_key *k)
{
	sb_adds(sb, "<section id=\"changes\">\n<h2>Change points</h2>\n");
	if (!k->detected) {
		sb_adds(sb, "<p class=\"note\">This kiln has no change detection yet.</p>\n");
	} else if (!k->nch) {
		sb_adds(sb, "<p>No change found.</p>\n");
	} else {
		sb_adds(sb, "<table class=\"changes\">\n<thead><tr><th>#</th><th>commit</th><th>change (99% CI)</th>"
			    "<th>A/A false alarms</th><th>where</th><th>reports</th><th>subject</th></tr></thead>\n<tbody>\n");
		for (size_t j = 0; j < k->nch; j++) {
			const struct pub_change *c = &k->ch[j];
			sb_addf(sb, "<tr id=\"ch-%zu\"><td>%zu</td>", j, j + 1);
			commit_cell(sb, s, k, c->at, "");
			change_cell(sb, k, j, "");
			sb_adds(sb, "<td>");
			pub_aa_text(sb, k, c->what, 0);
			sb_adds(sb, "</td><td class=\"where\">");
			range_text(sb, s, k, c);
			sb_adds(sb, "</td><td>");
			report_link(sb, k, c->at ? c->at - 1 : c->at, "before");
			report_link(sb, k, c->at, "after");
			sb_adds(sb, "</td>");
			subject_cell(sb, commit_of(s, k, c->at));
			sb_adds(sb, "</tr>\n");
		}
		sb_adds(sb, "</tbody>\n</table>\n<ul class=\"details\">\n");
		for (size_t j = 0; j < k->nch; j++) {
			struct strbuf t = STRBUF_INIT;
			pub_change_size(&t, &k->ch[j], 1);
			sb_addf(sb, "<li>%zu: ", j + 1);
			esc_add(sb, ESC_HTML, t.buf);
			if (k->ch[j].moved)
				sb_adds(sb, " (the data put it between two commits that ran the same binary, where "
					    "nothing changed: it was moved to the nearest commit that changed the binary)");
			bisect_hint(sb, s, k, &k->ch[j]);
			sb_adds(sb, "</li>\n");
			sb_release(&t);
		}
		sb_adds(sb, "</ul>\n");
	}
	sb_adds(sb, "<p class=\"aa\">False alarms measured on this key's same-binary commits (where nothing changed): ");
	for (int w = 0; w < PUB_NWHAT; w++) {
		sb_addf(sb, "%s%s ", w ? "; " : "", pub_what_name((enum pub_what)w));
		pub_aa_text(sb, k, (enum pub_what)w, 1);
	}
	sb_adds(sb, ".</p>\n");
	power_text(sb, &k->power, &k->power_warm);
	sb_adds(sb, "</section>\n");
}

/* the notes of point i: build failed, same binary, several runs, the changes at it */
static void point_notes(struct strbuf *sb, const struct pub_key *k, size_t i)
{
	const struct hist_point *p = &k->s.p[i];
	const char *sep = "";
	if (!p->built) {
		sb_adds(sb, "<span class=\"bad\">build failed</span>");
		sep = "; ";
	}
	if (p->same_as_prev) {
		sb_addf(sb, "%ssame binary", sep);
		sep = "; ";
	}
	if (p->runs > 1) {
		sb_addf(sb, "%s%zu runs", sep, p->runs);
		sep = "; ";
	}
	for (size_t j = 0; j < k->nch; j++) {
		const struct pub_change *c = &k->ch[j];
		if (c->at != i)
			continue;
		sb_addf(sb, "%s<a class=\"%s\" href=\"#ch-%zu\">", sep, pub_change_worse(c) ? "worse" : "better", j);
		change_brief(sb, c);
		sb_adds(sb, "</a>");
		sep = "; ";
	}
}

static void key_commits(struct strbuf *sb, const struct pub_site *s, const struct pub_key *k)
{
	sb_adds(sb, "<section id=\"commits\">\n<h2>Commits</h2>\n<table class=\"commits\">\n<thead><tr><th>commit</th>"
		    "<th>steady state (99% CI)</th><th>pexecs</th><th>time to steady</th><th>subject</th><th>author</th>"
		    "<th>notes</th></tr></thead>\n<tbody>\n");
	for (size_t i = k->s.n; i-- > 0;) {
		const struct hist_point *p = &k->s.p[i];
		const struct hist_commit *c = commit_of(s, k, i);
		char h[16];
		pub_short(c ? c->hash : NULL, h);
		sb_addf(sb, "<tr id=\"c-%s\">", h);
		commit_cell(sb, s, k, i, "");
		struct strbuf t = STRBUF_INIT;
		pub_fmt_fig(&t, &k->fig[i], p->n);
		sb_adds(sb, "<td class=\"n\">");
		esc_add(sb, ESC_HTML, t.buf);
		sb_reset(&t);
		class_counts(&t, p);
		sb_adds(sb, "</td><td>");
		esc_add(sb, ESC_HTML, t.buf);
		sb_reset(&t);
		pub_fmt_time(&t, k->fig[i].tts_med);
		sb_adds(sb, "</td><td class=\"n\">");
		esc_add(sb, ESC_HTML, t.buf);
		sb_release(&t);
		sb_adds(sb, "</td>");
		subject_cell(sb, c);
		sb_adds(sb, "<td class=\"author\">");
		html_cut(sb, c ? c->author : NULL, 24);
		sb_adds(sb, "</td><td class=\"notes\">");
		point_notes(sb, k, i);
		sb_adds(sb, "</td></tr>\n");
	}
	sb_adds(sb, "</tbody>\n</table>\n<p class=\"caption\">Pexecs: F flat, W warmup, S slowdown, N no steady state. "
		    "~: the key has no steady state at that commit (some pexec has none): the mean of the pexecs that "
		    "have one, without an interval.</p>\n</section>\n");
}

/* what the script shows under the cursor: per point its commit and figures */
static void key_json(struct strbuf *sb, const struct pub_site *s, const struct pub_key *k)
{
	json_t *pts = json_array();
	for (size_t i = 0; i < k->s.n; i++) {
		const struct hist_point *p = &k->s.p[i];
		const struct hist_commit *c = commit_of(s, k, i);
		char h[16];
		struct strbuf d = STRBUF_INIT;
		fmt_date(&d, c ? c->time : 0);
		json_t *cls = json_array();
		for (int q = 0; q < AN_NPCLASS; q++)
			json_array_append_new(cls, json_integer((json_int_t)p->counts[q]));
		json_array_append_new(pts,
				      json_pack("{s:s,s:s,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:I,s:b,s:b,s:o}", "h",
						pub_short(c ? c->hash : NULL, h), "d", d.buf, "s",
						jstr(c ? c->subject : NULL), "a", jstr(c ? c->author : NULL), "m",
						json_num(k->fig[i].mean), "lo", json_num(k->fig[i].lo), "hi",
						json_num(k->fig[i].hi), "t", json_num(k->fig[i].tts_med), "c", cls, "e",
						(json_int_t)k->fig[i].pooled, "b", p->built, "aa", p->same_as_prev, "r",
						k->report[i] ? json_string(k->report[i]) : json_null()));
		sb_release(&d);
	}
	json_t *root = json_pack("{s:o,s:o,s:o}", "key", jstr(k->key), "machine", jstr(s->m[k->machine].name), "points",
				 pts);
	json_in_script(sb, "kiln-data", root);
	json_decref(root);
}

int page_key(struct pub_site *s, size_t ki, struct kerr *e)
{
	const struct pub_key *k = &s->k[ki];
	struct strbuf sb = STRBUF_INIT, title = STRBUF_INIT;
	sb_addf(&title, "%s on %s", k->key, s->m[k->machine].name);
	page_head(&sb, s, "../", title.buf, "key");
	sb_release(&title);
	key_intro(&sb, s, k);
	sb_adds(&sb, "<div id=\"cursor\" class=\"js-only cursor\" hidden aria-live=\"polite\"></div>\n");
	sb_adds(&sb, "<section id=\"charts\">\n<h2>Steady-state mean</h2>\n");
	svg_steady(&sb, s, k);
	sb_adds(&sb, "<p class=\"caption\">Per commit, the steady-state mean of its pexecs with its 99% confidence "
		     "interval (bootstrap); open circles ran the same binary as the commit before. Dashed lines: change "
		     "points (<span class=\"worse\">slower</span>, <span class=\"better\">faster</span>), with the level "
		     "of each side; a shaded band: the commits the change may be at. A cross: the build failed.</p>\n");
	sb_adds(&sb, "<h2>Warm-up classes</h2>\n");
	svg_classes(&sb, s, k);
	sb_adds(&sb, "<p class=\"caption\">The pexecs of each commit by class: <span class=\"sw c-flat\"></span> flat "
		     "<span class=\"sw c-warmup\"></span> warmup <span class=\"sw c-slowdown\"></span> slowdown "
		     "<span class=\"sw c-nosteady\"></span> no steady state.</p>\n");
	sb_adds(&sb, "<h2>Time to steady state</h2>\n");
	svg_tts(&sb, s, k);
	sb_adds(&sb, "<p class=\"caption\">Per commit, the median time its pexecs took to reach their steady state, "
		     "with the 5th to 95th percentile of its pexecs.</p>\n</section>\n");
	key_changes(&sb, s, k);
	key_commits(&sb, s, k);
	key_json(&sb, s, k);
	page_foot(&sb, s);
	int r = pub_write(s, k->page, &sb, e);
	sb_release(&sb);
	return r;
}
