/*
 * history-changes.c - `kiln track --changes HISTORY`: per machine and key,
 * the changes history-detect.c finds on its series over commits, each
 * with the commit (or the range the data leave), its size with a 99%
 * interval, which series moved, and what the series' same-binary commits
 * (A/A pairs) say of its false alarms.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dataset.h"
#include "history-cmd.h"
#include "history-detect.h"
#include "history-power.h"
#include "history.h"
#include "json-num.h"

/* does key (bench:vm:variant) match one of pats (none: all)? */
static int key_wanted(const char *key, const struct strvec *pats)
{
	if (!pats || !pats->n)
		return 1;
	char *b = xstrdup(key), *v = strchr(b, ':'), *var = v ? strchr(v + 1, ':') : NULL;
	int yes = 0;
	if (v && var) {
		*v++ = '\0';
		*var++ = '\0';
		struct ds_key k = { .bench = b, .vm = v, .variant = var, .key = (char *)key };
		for (size_t i = 0; i < pats->n && !yes; i++)
			yes = ds_key_matches(pats->v[i], &k);
	}
	free(b);
	return yes;
}

static void size_text(const struct hist_change *c, struct strbuf *sb)
{
	if (c->what == HIST_STEADY) {
		sb_addf(sb, "%+.1f%% (99%%: %+.1f%% to %+.1f%%)", 100 * (c->ratio - 1), 100 * (c->ratio_lo - 1),
			100 * (c->ratio_hi - 1));
	} else if (c->what == HIST_WARMUP || c->what == HIST_COST) {
		const char *name = c->what == HIST_WARMUP ? "warm-up" : "warmup cost";
		const char *above = c->what == HIST_WARMUP ? "" : " above the steady level";
		if (isfinite(c->ratio))
			sb_addf(sb, "%.2fx the %s (99%%: %.2fx to %.2fx; %.1f -> %.1f steady iterations' worth%s)", c->ratio,
				name, c->ratio_lo, c->ratio_hi, c->before, c->after, above);
		else /* too little before or after for a ratio (HIST_RATIO_MIN) */
			sb_addf(sb, "%s %+.1f steady iterations' worth (99%%: %+.1f to %+.1f; %.1f -> %.1f%s)", name,
				c->after - c->before, c->after_lo - c->before, c->after_hi - c->before, c->before, c->after,
				above);
	} else {
		sb_addf(sb, "%.0f%% -> %.0f%% of pexecs without a steady state or slowing down", 100 * c->before,
			100 * c->after);
	}
}

/*
 * The GOOD and BAD of a change of series what on points lo..hi of s: the
 * last commit before its range with a figure of that series (not the point
 * just before lo, which may be a failed build, or a commit with too few
 * pexecs: a GOOD that does not build, or one never shown like GOOD) and the
 * last of the range; 0 when there is none (the change at the series'
 * start) or bisect cannot (the class mix)
 */
int hist_bisect_pair(const struct hist_series *s, size_t lo, size_t hi, enum hist_what what,
		     const struct hist_commit *cs, const struct hist_commit **good, const struct hist_commit **bad)
{
	if (what == HIST_CLASS || hi >= s->n || lo > hi)
		return 0;
	double y, u;
	size_t g = lo;
	while (g > 0 && !hist_point_value(&s->p[g - 1], what, &y, &u))
		g--;
	if (!g)
		return 0;
	*good = &cs[s->p[g - 1].commit];
	*bad = &cs[s->p[hi].commit];
	return 1;
}

/* the same, 0 also when there is nothing to search (the change is on the one commit after GOOD) */
int hist_bisect_ends(const struct hist_series *s, size_t lo, size_t hi, enum hist_what what,
		     const struct hist_commit *cs, const struct hist_commit **good, const struct hist_commit **bad)
{
	return hist_bisect_pair(s, lo, hi, what, cs, good, bad) && (*bad)->depth - (*good)->depth >= 2;
}

/* the command line of that bisect, CONFIG and DIR left to the reader, the key one shell word (not escaped for a terminal or a page) */
void hist_bisect_command(struct strbuf *sb, const struct hist_commit *good, const struct hist_commit *bad,
			 const char *key, enum hist_what what)
{
	sb_addf(sb, "kiln bisect CONFIG --repo DIR %.12s %.12s --key ", good->hash, bad->hash);
	sb_add_shword(sb, key);
	if (what != HIST_STEADY)
		sb_addf(sb, " --series %s", hist_what_name(what));
}

static int bisect_ends(const struct hist_series *s, const struct hist_change *c, const struct hist_commit *cs,
		       const struct hist_commit **good, const struct hist_commit **bad)
{
	return hist_bisect_ends(s, c->lo, c->hi, c->what, cs, good, bad);
}

static json_t *change_json(const struct hist_change *c, const struct hist_series *s, const struct hist_commit *cs)
{
	const struct hist_commit *at = &cs[s->p[c->at].commit], *lo = &cs[s->p[c->lo].commit], *hi = &cs[s->p[c->hi].commit];
	/* a ratio there is none of (a warm-up or cost under HIST_RATIO_MIN before or after) is null, not a number */
	json_t *j = json_pack("{s:s,s:s,s:s,s:[s,s],s:o,s:o,s:o,s:f,s:f,s:f,s:b}", "series",
			      hist_what_name(c->what), "commit", at->hash, "subject",
			      esc(ESC_JSON, at->subject ? at->subject : ""), "range", lo->hash, hi->hash, "ratio",
			      json_num(c->ratio), "ratio_lo", json_num(c->ratio_lo), "ratio_hi", json_num(c->ratio_hi),
			      "before", c->before, "after", c->after, "score", c->score, "moved_off_aa", c->aa_alarm);
	/* the GOOD and BAD kiln bisect would search between (print_bisect_hint), null when one commit is all */
	const struct hist_commit *good, *bad;
	json_object_set_new(j, "bisect", bisect_ends(s, c, cs, &good, &bad) ? json_pack("[s,s]", good->hash, bad->hash)
									     : json_null());
	if (c->what == HIST_WARMUP || c->what == HIST_COST) {
		json_object_set_new(j, "after_lo", json_num(c->after_lo));
		json_object_set_new(j, "after_hi", json_num(c->after_hi));
	}
	return j;
}

/*
 * A change whose commits the history did not all measure (--steps, or a
 * range of several): the kiln bisect that finds the one, between the last
 * tracked commit before its range and the last of it (what bisect --auto
 * takes for the newest change).  Not for the class mix, which bisect
 * cannot compare round by round.  The key is a shell word, escaped again
 * for the terminal.
 */
static void print_bisect_hint(const struct hist_series *s, const struct hist_change *c, const struct hist_commit *cs)
{
	const struct hist_commit *good, *bad;
	if (!bisect_ends(s, c, cs, &good, &bad))
		return;
	struct strbuf cmd = STRBUF_INIT;
	hist_bisect_command(&cmd, good, bad, s->key, c->what);
	printf("         find the commit (%ld after %.12s): %s\n", bad->depth - good->depth, good->hash,
	       esc(ESC_TERM, cmd.buf));
	sb_release(&cmd);
}

/* the changes of s printed (only those whose range holds one of hashes, when hashes is given); how many */
static size_t print_changes(const struct hist_series *s, const struct hist_change *ch, size_t n,
			    const struct hist_commit *cs, const struct strvec *hashes)
{
	size_t shown = 0;
	for (size_t i = 0; i < n; i++) {
		const struct hist_change *c = &ch[i];
		int in = !hashes;
		for (size_t p = c->lo ? c->lo - 1 : 0; !in && p <= c->hi; p++)
			for (size_t k = 0; k < hashes->n && !in; k++)
				in = !strcmp(hashes->v[k], cs[s->p[p].commit].hash);
		if (!in)
			continue;
		if (hashes && !shown)
			printf("%s:\n", esc(ESC_TERM, s->key));
		shown++;
		const struct hist_commit *at = &cs[s->p[c->at].commit];
		struct strbuf sz = STRBUF_INIT;
		size_text(c, &sz);
		char *subj = history_short(at->subject, 60);
		printf("  %-6s %.12s %s\n         %s\n", hist_what_name(c->what), at->hash, subj, sb_str(&sz));
		if (c->lo != c->hi)
			printf("         the data allow any first commit from %.12s to %.12s (%zu tracked)\n",
			       cs[s->p[c->lo].commit].hash, cs[s->p[c->hi].commit].hash, c->hi - c->lo + 1);
		if (c->aa_alarm)
			printf("         the data put it between two commits of one binary, where only the machine can "
			       "change: shown on the nearest commit whose binary changed; check it (--compare, bisect)\n");
		print_bisect_hint(s, c, cs);
		free(subj);
		sb_release(&sz);
	}
	return shown;
}

/* what the series could have shown (history-power.c) */
static void print_power(const struct hist_power *pw)
{
	struct strbuf t = STRBUF_INIT;
	history_power_text(pw, &t);
	printf("  could see: %s%s\n", t.buf,
	       pw->sites ? "" : " (steps are injected 5 or more commits from either end and from each change)");
	sb_release(&t);
}

/* what its warm-up could have shown, or why nothing is said (history-power.c) */
static void print_power_warm(const struct hist_power_warm *pw)
{
	struct strbuf t = STRBUF_INIT;
	history_power_warm_text(pw, &t);
	printf("  could see: %s\n", t.buf);
	sb_release(&t);
}

/* {"stretch": 2, "found": 18, "injected": 20, "pexecs": 200, "warm_pexecs": 196, "why": null} */
static json_t *power_warm_json(const struct hist_power_warm *pw)
{
	const char *why = history_power_warm_why(pw);
	return json_pack("{s:o,s:I,s:I,s:I,s:I,s:o}", "stretch",
			 pw->p.sites && isfinite(pw->p.size) ? json_real(pw->p.size) : json_null(), "found",
			 (json_int_t)pw->p.found, "injected", (json_int_t)pw->p.sites, "pexecs", (json_int_t)pw->pexecs,
			 "warm_pexecs", (json_int_t)pw->warm, "why", why ? json_string(why) : json_null());
}

static json_t *power_json(const struct hist_power *pw)
{
	if (!pw->sites)
		return json_null();
	return json_pack("{s:o,s:I,s:I}", "step", isfinite(pw->size) ? json_real(pw->size) : json_null(), "found",
			 (json_int_t)pw->found, "injected", (json_int_t)pw->sites);
}

/* one key of one machine: its changes printed, or added to arr */
static void one_series(struct history *h, const struct hist_machine *m, const char *key, const struct hist_commit *cs,
		       size_t nc, json_t *arr, size_t *total)
{
	struct hist_series s;
	struct kerr e = KERR_INIT;
	if (history_series(h, m->id, key, cs, nc, &s, &e) < 0) {
		kerr_print(&e);
		kerr_release(&e);
		return;
	}
	if (!s.n) {
		/* a key measured only in A/B sessions (kiln bisect, --compare): no series to search */
		if (arr)
			json_array_append_new(arr, json_pack("{s:s,s:s,s:I,s:I,s:I,s:I,s:n,s:n,s:n,s:[],s:n}", "machine",
							     esc(ESC_JSON, m->name), "key", esc(ESC_JSON, key), "commits",
							     (json_int_t)0, "build_failed", (json_int_t)0, "aa_pairs",
							     (json_int_t)0, "aa_alarms", (json_int_t)0, "session_sd",
							     "dispersion", "could_see", "changes", "could_see_warmup"));
		else
			printf("%s on %s: no tracked commits (its pexecs are of kiln bisect or kiln track --compare "
			       "sessions; kiln track measures commits into its series)\n",
			       esc(ESC_TERM, key), esc(ESC_TERM, m->name));
		history_series_free(&s);
		return;
	}
	struct hist_change *ch;
	size_t n;
	struct hist_detect_stats st;
	history_detect(&s, NULL, &ch, &n, &st);
	size_t failed = 0;
	for (size_t i = 0; i < s.n; i++)
		failed += !s.p[i].built;
	*total += n;
	struct hist_power pw;
	history_power(&s, NULL, ch, n, &pw);
	struct hist_power_warm pww;
	history_power_warm(&s, NULL, ch, n, &pww);
	if (arr) {
		json_t *c = json_array();
		for (size_t i = 0; i < n; i++)
			json_array_append_new(c, change_json(&ch[i], &s, cs));
		json_array_append_new(arr, json_pack("{s:s,s:s,s:I,s:I,s:I,s:I,s:o,s:o,s:o,s:o,s:o}", "machine",
						     esc(ESC_JSON, m->name), "key", esc(ESC_JSON, key), "commits", (json_int_t)s.n,
						     "build_failed", (json_int_t)failed,
						     "aa_pairs", (json_int_t)st.aa_pairs[HIST_STEADY],
						     "aa_alarms", (json_int_t)st.aa_alarms[HIST_STEADY],
						     "session_sd", json_real(st.tau[HIST_STEADY]),
						     "dispersion", json_real(st.phi[HIST_STEADY]),
						     "could_see", power_json(&pw), "changes", c, "could_see_warmup",
						     power_warm_json(&pww)));
	} else {
		printf("%s on %s: %zu commits (%zu build%s failed); same-binary pairs %zu, changes the data put on them "
		       "%zu; session sd %.2f%%, dispersion %.2f\n", esc(ESC_TERM, key), esc(ESC_TERM, m->name), s.n, failed,
		       failed == 1 ? "" : "s", st.aa_pairs[HIST_STEADY], st.aa_alarms[HIST_STEADY], 100 * st.tau[HIST_STEADY],
		       st.phi[HIST_STEADY]);
		print_power(&pw);
		print_power_warm(&pww);
		print_changes(&s, ch, n, cs, NULL);
	}
	free(ch);
	history_series_free(&s);
}

int track_changes(const char *history, const struct strvec *keys, const char *machine, int json)
{
	struct history *h;
	struct kerr e = KERR_INIT;
	struct hist_commit *cs = NULL;
	struct hist_machine *ms = NULL;
	size_t nc = 0, nm = 0;
	int code = KEXIT_OK;
	if (history_open(history, 0, &h, &e) < 0 || history_commits(h, &cs, &nc, &e) < 0 ||
	    history_machines(h, &ms, &nm, &e) < 0) {
		kerr_print(&e);
		code = e.code;
		kerr_release(&e);
		history_commits_free(cs, nc);
		history_close(h); /* opened, when what failed was reading it (a refused commit hash) */
		return code;
	}
	json_t *arr = json ? json_array() : NULL;
	size_t total = 0, seen = 0;
	for (size_t mi = 0; mi < nm; mi++) {
		if (machine && strcmp(machine, ms[mi].name))
			continue;
		struct strvec ks = STRVEC_INIT;
		history_keys(h, ms[mi].id, &ks, &e);
		for (size_t k = 0; k < ks.n; k++)
			if (key_wanted(ks.v[k], keys)) {
				seen++;
				one_series(h, &ms[mi], ks.v[k], cs, nc, arr, &total);
			}
		sv_clear(&ks);
	}
	if (arr) {
		char *s = json_dumps(arr, JSON_INDENT(2) | JSON_ENSURE_ASCII);
		printf("%s\n", s);
		free(s);
		json_decref(arr);
	} else if (!seen) {
		kiln_error("%s: no key%s of %s", history, keys && keys->n ? " matching --key" : "",
			   machine ? machine : "any machine");
		code = KEXIT_USAGE;
	} else {
		printf("%zu change%s\n", total, total == 1 ? "" : "s");
	}
	history_commits_free(cs, nc);
	history_machines_free(ms, nm);
	history_close(h);
	kerr_release(&e);
	return code;
}

static void step_text(double v)
{
	if (isfinite(v))
		printf("%.0f%%", 100 * v);
	else
		printf("more than 100%%");
}

static void stretch_text(double v)
{
	if (isfinite(v))
		printf("%gx", v);
	else
		printf("more than 10x");
}

/* what the keys could see, gathered for one line: the sizes named, and the keys that say nothing */
struct power_sum {
	double *v, *w;  /* steady steps, warm-up stretches named */
	size_t m, mw;
	size_t few;     /* keys too short to say a steady step */
	size_t nowarm;  /* keys that say nothing of their warm-up (flat, too few pexecs warming, too short) */
};

static void power_sum_add(struct power_sum *ps, const struct hist_power *pw, const struct hist_power_warm *pww)
{
	if (pw->sites) {
		ps->v = xrealloc(ps->v, (ps->m + 1) * sizeof(double));
		ps->v[ps->m++] = pw->size;
	} else {
		ps->few++;
	}
	if (history_power_warm_why(pww)) {
		ps->nowarm++;
	} else {
		ps->w = xrealloc(ps->w, (ps->mw + 1) * sizeof(double));
		ps->w[ps->mw++] = pww->p.size;
	}
}

/* "; warm-ups 1.5x to 3x as long, median 2x; 2 keys name no warm-up stretch (`--changes` says why)" */
static void print_warm_summary(struct power_sum *ps)
{
	if (ps->mw) {
		sort_doubles(ps->w, ps->mw);
		printf("; warm-ups ");
		stretch_text(ps->w[0]);
		printf(" to ");
		stretch_text(ps->w[ps->mw - 1]);
		printf(" as long, median ");
		stretch_text(ps->w[ps->mw / 2]);
	}
	if (ps->nowarm)
		printf("; %zu key%s no warm-up stretch (`--changes` says why)", ps->nowarm,
		       ps->nowarm == 1 ? " names" : "s name");
}

/*
 * The keys' could-see in one line, so that a morning without a change is
 * read with the steps, and warm-up stretches, the series could have shown
 */
static void print_power_summary(struct power_sum *ps)
{
	double *v = ps->v;
	size_t m = ps->m;
	if (m) {
		sort_doubles(v, m);
		/* by key, the smallest step each could show: the least, the most, the median */
		printf("could see: steady steps of ");
		step_text(v[0]);
		printf(" on the keenest key, ");
		step_text(v[m - 1]);
		printf(" on the least, median ");
		step_text(v[m / 2]);
		printf(" (`--changes` per key)");
	}
	if (ps->few)
		printf("%s%zu key%s too few commits to say", m ? "; " : "could see: ", ps->few,
		       ps->few == 1 ? " has" : "s have");
	if (m || ps->few) {
		print_warm_summary(ps);
		printf("\n");
	}
	free(ps->v);
	free(ps->w);
}

void track_new_changes(const char *history, const struct strvec *hashes, const char *machine)
{
	struct history *h;
	struct kerr e = KERR_INIT;
	struct hist_commit *cs = NULL;
	struct hist_machine *ms = NULL;
	size_t nc = 0, nm = 0, total = 0;
	char host[256] = "";
	struct power_sum ps = { 0 };
	gethostname(host, sizeof(host) - 1);
	const char *name = machine ? machine : host;
	if (history_open(history, 0, &h, &e) == 0 && history_commits(h, &cs, &nc, &e) == 0 &&
	    history_machines(h, &ms, &nm, &e) == 0) {
		long mid = history_machine_id(h, name);
		struct strvec ks = STRVEC_INIT;
		history_keys(h, mid, &ks, &e);
		for (size_t k = 0; k < ks.n; k++) {
			struct hist_series s;
			if (history_series(h, mid, ks.v[k], cs, nc, &s, &e) < 0)
				continue;
			if (!s.n) {
				/* a key held only from A/B sessions (bisect, --compare): no series, nothing to say of it */
				history_series_free(&s);
				continue;
			}
			struct hist_change *ch;
			size_t n;
			history_detect(&s, NULL, &ch, &n, NULL);
			total += print_changes(&s, ch, n, cs, hashes);
			struct hist_power pw;
			struct hist_power_warm pww;
			history_power(&s, NULL, ch, n, &pw);
			history_power_warm(&s, NULL, ch, n, &pww);
			power_sum_add(&ps, &pw, &pww);
			free(ch);
			history_series_free(&s);
		}
		sv_clear(&ks);
		printf("%zu change%s around the commits measured now (`kiln track --changes %s` lists every one)\n", total,
		       total == 1 ? "" : "s", esc(ESC_TERM, history));
		print_power_summary(&ps);
	} else {
		kerr_print(&e);
	}
	history_commits_free(cs, nc);
	history_machines_free(ms, nm);
	history_close(h);
	kerr_release(&e);
}

int track_reanalyse(const char *history, const char *clock, const struct an_opts *an)
{
	struct history *h;
	struct kerr e = KERR_INIT;
	int code = KEXIT_OK;
	if (history_open(history, 1, &h, &e) < 0) {
		kerr_print(&e);
		code = e.code;
		kerr_release(&e);
		return code;
	}
	long n = clock && history_meta_set(h, "clock", clock, &e) < 0 ? -1 : history_refigure(h, an, &e);
	if (n < 0) {
		kerr_print(&e);
		code = e.code ? e.code : KEXIT_STORE;
	} else {
		char *c = NULL;
		history_meta_get(h, "clock", &c);
		printf("%s: %ld runs analysed again, on the %s clock\n", esc(ESC_TERM, history), n, c ? c : "wall");
		free(c);
	}
	history_close(h);
	kerr_release(&e);
	return code;
}
