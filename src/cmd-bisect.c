/*
 * cmd-bisect.c - `kiln bisect CONFIG --repo DIR GOOD BAD --key K`: which
 * commit of the first-parent range changed the key's steady state (or,
 * with --series, its warm-up or warmup cost).  The
 * search is history-bisect.c's; this file drives it with real builds and
 * interleaved A/B measurements (history-ab.c), stored in the history, and
 * says what it found with the evidence (docs/kiln-bisect.md).
 */
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "config.h"
#include "history-ab.h"
#include "history-bisect.h"
#include "history-cmd.h"
#include "history-detect.h"
#include "history-git.h"
#include "history-power.h"

static int cmd_bisect(int argc, char **argv);

#define MAX_ROUNDS BISECT_MAX_ROUNDS /* --max-rounds at most: a bound on one comparison's pexecs */

const struct cmd_entry cmd_bisect_entry = {
	.name = "bisect",
	.usage = "CONFIG --repo DIR (GOOD BAD | --auto) --key K [--series S] [-o HISTORY]\n"
		 "                  [--machine NAME] [--min-change P%] [--max-rounds auto|N] [--json] [-q]",
	.summary = "find the commit that changed a key's steady state or warm-up: builds and interleaved A/B rounds",
	.help = "GOOD and BAD are commits of the VM's repository, BAD a first-parent descendant of\n"
		"GOOD.  Each tested commit is checked out in HISTORY.work/ab/HASH and built with the\n"
		"VM's build steps; two commits are compared in rounds (one pexec of each per round, in\n"
		"a seeded random order) with a sequential test that stops when it can tell\n"
		"(docs/kiln-bisect.md).\n"
		"Every round is stored in the history and reused by the next bisect of the same commits.\n"
		"  --repo DIR        the VM's git repository (never written to)\n"
		"  -k, --key K       the key (bench[:vm[:variant]]) that changed; one key\n"
		"  --series S        what changed: steady (the steady-state mean, the default), warmup\n"
		"                    (time to steady state, in steady iterations) or cost (warmup cost)\n"
		"  --auto            GOOD and BAD from the newest change `kiln track` found for the key\n"
		"                    in the history, of --series S, or of any (its series bisected)\n"
		"  -o, --history F   the history (default <config stem>.history.db beside the config)\n"
		"  --machine NAME    this machine's name in the history (default the host name)\n"
		"  --min-change P%   the smallest change worth a bisection (default 1%; warmup and cost:\n"
		"                    35%, of 1 + the warm-up, as kiln track's detection)\n"
		"  --max-rounds N    rounds at most per comparison (5 to 10000); a comparison undecided\n"
		"                    at the cap says which cap would decide it.  auto (the default):\n"
		"                    200 rounds, then as many as its test needs at the spread its\n"
		"                    rounds show, up to 10000 (said, with the time it may take)\n"
		"  --json            the outcome as JSON\n"
		"  -q, --quiet       no progress\n"
		"\nExit status: 0 a culprit named, or GOOD and BAD found not to differ; 1 the test could\n"
		"not decide, or builds failed where the change is (the range is printed); 2 usage;\n"
		"3 config; 4 history in use; 5 history unusable; 130 interrupted.\n",
	.exec = cmd_bisect,
};

struct adapt;

struct drive {
	struct ab_ctx ab;            /* ab.series: what is bisected */
	struct hist_commit *c;
	size_t n;
	int quiet;
	double run_s;      /* seconds of rounds run in this bisect (not stored ones), and their count: the pace */
	size_t run_rounds;
	const struct adapt *cur; /* the comparison in progress: its rounds so far count in the pace */
};

static int drive_build(void *ctx, size_t i, struct kerr *e)
{
	struct drive *d = ctx;
	if (!d->quiet)
		fprintf(stderr, "kiln bisect: building %.12s %s\n", d->c[i].hash, esc(ESC_TERM, d->c[i].subject));
	return ab_build(&d->ab, &d->c[i], e);
}

/* the one key's rounds for the search's test; the first look's are the stored ones */
struct adapt {
	bisect_more_fn more;
	void *mctx;
	size_t looks, n0, n;
	int64_t t0, t;
};

static size_t adapt_more(void *ctx, const struct ab_keys *k)
{
	struct adapt *a = ctx;
	a->n = k->n ? k->nd[0] : 0;
	a->t = mono_ns();
	if (!a->looks++) {
		a->n0 = a->n;
		a->t0 = a->t;
	}
	return a->more(a->mctx, k->n ? k->d[0] : NULL, a->n, k->rounds);
}

static int drive_measure(void *ctx, size_t a, size_t b, bisect_more_fn more, void *mctx, struct kerr *e)
{
	struct drive *d = ctx;
	if (!d->quiet)
		fprintf(stderr, "kiln bisect: measuring %.12s against %.12s\n", d->c[b].hash, d->c[a].hash);
	struct adapt ad = { .more = more, .mctx = mctx };
	d->cur = &ad;
	struct ab_keys k;
	/* the search's test keeps its verdict from its last look at the rounds */
	int code = ab_measure(&d->ab, &d->c[a], &d->c[b], adapt_more, &ad, &k, e);
	if (ad.looks && ad.n > ad.n0) {
		d->run_s += (double)(ad.t - ad.t0) / 1e9;
		d->run_rounds += ad.n - ad.n0;
	}
	d->cur = NULL;
	ab_keys_free(&k);
	return code == KEXIT_OK ? 0 : -1;
}

static const char *drive_binary(void *ctx, size_t i)
{
	struct drive *d = ctx;
	return ab_binary(&d->ab, d->c[i].hash);
}

/* ---- the commits ---- */

static int range_commits(struct drive *d, const char *good, const char *bad, struct kerr *e)
{
	char *g = NULL, *b = NULL;
	struct strvec hashes = STRVEC_INIT;
	int r = hgit_resolve(d->ab.o->repo, good, &g, e) < 0 || hgit_resolve(d->ab.o->repo, bad, &b, e) < 0 ? -1 : 0;
	if (r == 0) {
		sv_push(&hashes, g);
		r = hgit_range(d->ab.o->repo, g, b, &hashes, e);
	}
	if (r == 0 && (hashes.n < 2 || strcmp(hashes.v[hashes.n - 1], b)))
		r = kerr_setc(e, KEXIT_USAGE, "%s is not a first-parent descendant of %s", esc(ESC_TERM, bad),
			      esc(ESC_TERM, good));
	if (r == 0 && hgit_info(d->ab.o->repo, &hashes, &d->c, e) < 0)
		r = -1;
	if (r == 0)
		d->n = hashes.n;
	/*
	 * GOOD..BAD walks BAD's first parents down to what GOOD reaches: GOOD
	 * is on that line only when the first commit after it is its child.
	 * Otherwise (GOOD on a branch of its own, or merged in as a second
	 * parent) the search would take commits GOOD never had for its
	 * descendants and name a culprit whose parent is not GOOD's line
	 */
	if (r == 0 && (!d->c[1].parent || strcmp(d->c[1].parent, d->c[0].hash)))
		r = kerr_setc(e, KEXIT_USAGE, "%s is not a first-parent descendant of %s: %.12s, the first commit after "
			      "it on %s's first-parent line, has %s for its parent (take GOOD from that line: `git log "
			      "--first-parent BAD`)", esc(ESC_TERM, bad), esc(ESC_TERM, good), d->c[1].hash, esc(ESC_TERM, bad),
			      d->c[1].parent ? "another commit" : "none");
	free(g);
	free(b);
	sv_clear(&hashes);
	return r;
}

/* may --auto bisect change c (of --series w, -1: any but class, which rounds of two pexecs cannot tell)? */
static int auto_takes(const struct hist_change *c, int w)
{
	return w >= 0 ? c->what == (enum hist_what)w : c->what != HIST_CLASS;
}

/* the newest change --auto may take: the latest commit; at one commit, steady before warmup before cost */
static const struct hist_change *auto_newest(const struct hist_change *ch, size_t n, int w)
{
	const struct hist_change *last = NULL;
	for (size_t i = 0; i < n; i++)
		if (auto_takes(&ch[i], w) &&
		    (!last || ch[i].at > last->at || (ch[i].at == last->at && ch[i].what < last->what)))
			last = &ch[i];
	return last;
}

/* none found is not none made: what the key's series could have shown, as "; its series could show ..." */
static void auto_could(const struct hist_series *s, const struct hist_change *ch, size_t n, int w, struct strbuf *sb)
{
	if (w < 0 || w == HIST_STEADY) {
		struct hist_power pw;
		history_power(s, NULL, ch, n, &pw);
		sb_adds(sb, "; its series could show ");
		history_power_text(&pw, sb);
	}
	if (w != HIST_STEADY) {
		struct hist_power_warm pw;
		history_power_warm(s, NULL, ch, n, &pw);
		sb_adds(sb, w < 0 ? "; and " : "; its series could show ");
		history_power_warm_text(&pw, sb);
	}
}

/* --auto: GOOD and BAD around the newest change of the key in the history (*w: its series when < 0) */
static int auto_range(struct drive *d, const char *key, int *w, char **good, char **bad, struct kerr *e)
{
	struct hist_commit *c;
	size_t nc;
	if (history_commits(d->ab.h, &c, &nc, e) < 0)
		return -1;
	struct hist_series s;
	int r = history_series(d->ab.h, d->ab.machine, key, c, nc, &s, e);
	struct hist_change *ch = NULL;
	size_t n = 0;
	if (r == 0)
		history_detect(&s, NULL, &ch, &n, NULL);
	const struct hist_change *last = r == 0 ? auto_newest(ch, n, *w) : NULL;
	if (r == 0 && !last) {
		struct strbuf could = STRBUF_INIT;
		auto_could(&s, ch, n, *w, &could);
		r = kerr_setc(e, KEXIT_USAGE, "%s: no %s change of %s on this machine to bisect (`kiln track --changes` "
			      "lists them)%s", history_path(d->ab.h), *w < 0 ? "steady-state, warm-up or cost"
			      : hist_what_name((enum hist_what)*w), esc(ESC_TERM, key), could.buf);
		sb_release(&could);
	}
	const struct hist_commit *g, *b;
	if (r == 0 && !hist_bisect_pair(&s, last->lo, last->hi, last->what, c, &g, &b))
		r = kerr_setc(e, KEXIT_USAGE, "%s: the newest change of %s has no commit measured before it to bisect from",
			      history_path(d->ab.h), esc(ESC_TERM, key));
	if (r == 0) {
		*good = xstrdup(g->hash);
		*bad = xstrdup(b->hash);
		*w = (int)last->what;
	}
	free(ch);
	history_series_free(&s);
	history_commits_free(c, nc);
	return r;
}

/* the one key the options name (in the config's names) */
static int the_key(const struct track_opts *o, const char *text, char **key, struct kerr *e)
{
	struct experiment ex;
	int code = track_experiment(o, text, "/nonexistent-kiln-src", &ex, e);
	size_t found = 0;
	for (size_t b = 0; code == KEXIT_OK && b < ex.nbenchs; b++)
		for (size_t v = 0; v < ex.nvms; v++) {
			char *k = xasprintf("%s:%s:%s", ex.benchs[b].name, ex.vms[v].name, ex.vms[v].variant);
			for (size_t i = 0; i < ex.keys_only.n; i++)
				if (!strcmp(ex.keys_only.v[i], k) && !found++)
					*key = xstrdup(k);
			free(k);
		}
	config_free(&ex);
	if (code == KEXIT_OK && found != 1)
		code = (kerr_setc(e, KEXIT_USAGE, "--key must name one key of %s (it matches %zu)", o->config, found), KEXIT_USAGE);
	return code;
}

/* ---- the outcome ---- */

static const char *outcome_name(enum bisect_outcome o)
{
	static const char *const n[] = { "found", "no change", "unsure", "range" };
	return (unsigned)o < 4 ? n[o] : "?";
}

/*
 * How each series' evidence reads.  The search's ratio is exp of the
 * rounds' centre: for steady, BAD's steady mean over GOOD's; for warmup,
 * BAD's 1 + warm-up (time to steady state in steady iterations) over
 * GOOD's; for cost (asinh of the warmup cost in steady iterations) no
 * ratio of anything, so its shift is printed instead.
 */
struct words {
	const char *column;   /* the steps table's heading */
	const char *level;    /* "BAD's ... is" */
	const char *versus;   /* "(... 0.9988, 0.9840-1.0138)" */
	const char *round;    /* what a round's d is */
	int ratio;            /* 1: print exp(d) as a ratio; 0: d itself */
};

static const struct words *words_of(enum hist_what w)
{
	static const struct words steady = { "steady mean / GOOD's", "steady mean", "BAD/GOOD", "log ratio", 1 },
				  warm = { "1+warm-up / GOOD's", "1 + warm-up (time to steady state in steady iterations)",
					   "BAD/GOOD of 1 + warm-up", "log ratio of 1 + warm-up", 1 },
				  cost = { "asinh(cost) - GOOD's", "asinh(warmup cost in steady iterations)",
					   "BAD - GOOD in asinh(warmup cost)", "asinh(warmup cost) difference", 0 };
	return w == HIST_WARMUP ? &warm : w == HIST_COST ? &cost : &steady;
}

/* a ratio and its interval as the series reads, "1.1000", "1.0900-1.1100", or as a shift, "+0.693", "+0.600..+0.786" */
static void effect(enum hist_what w, double ratio, double lo, double hi, char est[24], char iv[48])
{
	if (words_of(w)->ratio) {
		snprintf(est, 24, "%.4f", ratio);
		snprintf(iv, 48, "%.4f-%.4f", lo, hi);
	} else {
		snprintf(est, 24, "%+.3f", log(ratio));
		snprintf(iv, 48, "%+.3f..%+.3f", log(lo), log(hi));
	}
}

/* a round's sd as the series reads: a percentage of the steady mean, else in the figure's units */
static void fmt_round_sd(const struct drive *d, double sd, char buf[48])
{
	if (d->ab.series == HIST_STEADY)
		snprintf(buf, 48, "%.3g%%", 100 * sd);
	else
		snprintf(buf, 48, "%.3g", sd);
}

/* seconds a round at this bisect's pace: the rounds it ran, the comparison in progress with them (0: none yet) */
static double drive_pace(const struct drive *d)
{
	double s = d->run_s;
	size_t n = d->run_rounds;
	if (d->cur && d->cur->looks && d->cur->n > d->cur->n0) {
		s += (double)(d->cur->t - d->cur->t0) / 1e9;
		n += d->cur->n - d->cur->n0;
	}
	return n ? s / (double)n : 0;
}

/*
 * An undecided comparison: the cap that would decide it at the spread its
 * rounds showed, and how long that is at this bisect's pace
 */
static void print_needed(const struct drive *d, const struct bisect_result *r)
{
	const char *what = r->outcome == BISECT_UNSURE ? "telling GOOD and BAD apart (a change of --min-change) or "
							 "together"
						       : "telling the midpoint like GOOD or like BAD";
	char sd[48];
	fmt_round_sd(d, r->round_sd, sd);
	const char *round = words_of(d->ab.series)->round;
	if (r->rounds_needed > MAX_ROUNDS) {
		printf("  a round's %s varies by %s (sd): %s would want more than the %d rounds --max-rounds "
		       "allows; measure on a quieter machine\n", round, sd, what, MAX_ROUNDS);
		return;
	}
	printf("  a round's %s varies by %s (sd): %s wants about --max-rounds %zu", round, sd, what, r->rounds_needed);
	double pace = drive_pace(d);
	if (pace > 0) {
		struct strbuf t = STRBUF_INIT;
		fmt_duration(&t, (double)r->rounds_needed * pace);
		printf(" (%s a comparison at this bisect's %.2f s a round)", t.buf, pace);
		sb_release(&t);
	}
	printf("\n");
}

/* a comparison's cap raised (--max-rounds auto): how far, and how long that may take at this bisect's pace */
static void drive_capped(void *ctx, size_t cap, double sd)
{
	struct drive *d = ctx;
	if (d->quiet)
		return;
	char v[48];
	fmt_round_sd(d, sd, v);
	fprintf(stderr, "kiln bisect: a round's %s varies by %s: up to %zu rounds to decide", words_of(d->ab.series)->round,
		v, cap);
	double pace = drive_pace(d);
	if (pace > 0) {
		struct strbuf t = STRBUF_INIT;
		fmt_duration(&t, (double)cap * pace);
		fprintf(stderr, " (at most %s at this bisect's pace; --max-rounds N to bound it)", t.buf);
		sb_release(&t);
	}
	fprintf(stderr, "\n");
}

static void print_steps(const struct drive *d, const struct bisect_result *r)
{
	printf("  %-12s %-7s %7s  %-24s %s\n", "commit", "verdict", "rounds", words_of(d->ab.series)->column, "subject");
	for (size_t i = 0; i < r->nsteps; i++) {
		const struct bisect_step *s = &r->steps[i];
		char ratio[80] = "-", est[24], iv[48];
		if (isfinite(s->ratio)) {
			effect(d->ab.series, s->ratio, s->lo, s->hi, est, iv);
			snprintf(ratio, sizeof(ratio), "%s (%s)", est, iv);
		} else if (s->same_as != SIZE_MAX) {
			snprintf(ratio, sizeof(ratio), "binary of %.12s", d->c[s->same_as].hash);
		}
		char *subj = history_short(d->c[s->commit].subject, 50);
		printf("  %.12s %-7s %7zu  %-24s %s\n", d->c[s->commit].hash, bisect_verdict_name(s->verdict), s->rounds,
		       ratio, subj);
		free(subj);
	}
}

static void print_outcome(const struct drive *d, const struct bisect_result *r)
{
	const struct words *w = words_of(d->ab.series);
	char est[24], iv[48];
	effect(d->ab.series, r->ratio, r->ratio_lo, r->ratio_hi, est, iv);
	switch (r->outcome) {
	case BISECT_FOUND: {
		const struct hist_commit *c = &d->c[r->culprit];
		printf("culprit: %s %s (%s)\n", c->hash, esc(ESC_TERM, c->subject), esc(ESC_TERM, c->author));
		printf("  BAD's %s is %s %s GOOD's (99%% interval %s); %.12s is the first commit like BAD, %.12s (its "
		       "parent) is like GOOD\n", w->level, est, w->ratio ? "x" : "from", iv, c->hash,
		       d->c[r->culprit - 1].hash);
		break;
	}
	case BISECT_NO_CHANGE:
		printf("no culprit: GOOD and BAD do not differ by the smallest change asked for (%s %s, 99%% interval %s)\n",
		       w->versus, est, iv);
		break;
	case BISECT_UNSURE:
		if (!isfinite(r->ratio))
			printf("no culprit: too few rounds of GOOD and BAD paired to judge (%zu, of --max-rounds run: the "
			       "pexecs of a side failed or found no steady state)\n", r->rounds);
		else
			printf("no culprit: the rounds could not tell GOOD and BAD apart or together (%s %s, %s)\n",
			       w->versus, est, iv);
		break;
	case BISECT_RANGE:
		printf("the change is after %.12s and at or before %.12s (%zu commits): broken builds or a midpoint the "
		       "rounds could not tell hide where\n", d->c[r->lo].hash, d->c[r->hi].hash, r->hi - r->lo);
		break;
	}
}

static void print_text(const struct drive *d, const char *key, const struct bisect_result *r, size_t n)
{
	printf("%s: %zu commits after %.12s up to %.12s", esc(ESC_TERM, key), n - 1, d->c[0].hash, d->c[n - 1].hash);
	printf(d->ab.series == HIST_STEADY ? "\n" : ", its %s\n", hist_what_name(d->ab.series));
	print_steps(d, r);
	print_outcome(d, r);
	if (r->rounds_needed)
		print_needed(d, r);
	size_t lg = 0;
	while (((size_t)1 << lg) < n - 1)
		lg++;
	printf("builds: %zu (ceil(log2 %zu) + 2 = %zu), rounds: %zu\n", r->builds, n - 1, lg + 2, r->rounds);
}

/* x as JSON; NULL for what is not finite, or for a ratio of a series that has none (cost) */
static json_t *jratio(const struct drive *d, double x)
{
	return isfinite(x) && words_of(d->ab.series)->ratio ? json_real(x) : json_null();
}

/* the shift log(x) of a ratio x: the rounds' centre, in the series' units */
static json_t *jshift(double x)
{
	return x > 0 && isfinite(x) ? json_real(log(x)) : json_null();
}

static void print_json(const struct drive *d, const char *key, const struct bisect_result *r)
{
	json_t *steps = json_array();
	for (size_t i = 0; i < r->nsteps; i++) {
		const struct bisect_step *s = &r->steps[i];
		json_array_append_new(steps, json_pack("{s:s,s:s,s:o,s:I,s:I,s:o,s:o,s:o,s:o,s:o,s:o}", "commit",
						       d->c[s->commit].hash, "verdict", bisect_verdict_name(s->verdict),
						       "same_binary_as", s->same_as != SIZE_MAX ? json_string(d->c[s->same_as].hash)
											: json_null(),
						       "rounds", (json_int_t)s->rounds, "cap", (json_int_t)s->cap,
						       "ratio", jratio(d, s->ratio),
						       "lo", jratio(d, s->lo), "hi", jratio(d, s->hi), "shift", jshift(s->ratio),
						       "shift_lo", jshift(s->lo), "shift_hi", jshift(s->hi)));
	}
	json_t *j = json_pack("{s:s,s:s,s:s,s:s,s:s,s:o,s:s,s:s,s:o,s:o,s:o,s:o,s:o,s:o,s:I,s:I,s:o}", "key",
			      esc(ESC_JSON, key), "series", hist_what_name(d->ab.series), "good", d->c[0].hash, "bad",
			      d->c[d->n - 1].hash, "outcome", outcome_name(r->outcome),
			      "culprit", r->outcome == BISECT_FOUND ? json_string(d->c[r->culprit].hash) : json_null(),
			      "last_good", d->c[r->lo].hash, "first_bad", d->c[r->hi].hash, "ratio", jratio(d, r->ratio),
			      "ratio_lo", jratio(d, r->ratio_lo), "ratio_hi", jratio(d, r->ratio_hi),
			      "shift", jshift(r->ratio), "shift_lo", jshift(r->ratio_lo), "shift_hi", jshift(r->ratio_hi),
			      "builds", (json_int_t)r->builds, "rounds", (json_int_t)r->rounds, "steps", steps);
	if (r->rounds_needed) {
		/* an undecided comparison: the cap that would decide it (null: more than --max-rounds allows) */
		json_object_set_new(j, "round_sd", json_real(r->round_sd));
		json_object_set_new(j, "rounds_needed",
				    r->rounds_needed <= MAX_ROUNDS ? json_integer((json_int_t)r->rounds_needed) : json_null());
	}
	char *s = json_dumps(j, JSON_INDENT(2) | JSON_ENSURE_ASCII);
	printf("%s\n", s);
	free(s);
	json_decref(j);
}

/* ---- the command ---- */

enum { O_REPO = 256, O_AUTO, O_MACHINE, O_MIN, O_ROUNDS, O_JSON, O_SERIES };

/* what the command line asks beyond track's and the search's options */
struct cli {
	int autorange, json;
	int series;      /* --series (enum hist_what), -1: not given */
	int min_given;   /* --min-change given */
};

/* --series S: steady, warmup or cost (class, a fraction of pexecs, is not a figure two pexecs can be compared in) */
static int parse_series(const char *s)
{
	for (int w = 0; w < HIST_NWHAT; w++)
		if (w != HIST_CLASS && !strcmp(s, hist_what_name((enum hist_what)w)))
			return w;
	return -1;
}

static int parse(int argc, char **argv, struct track_opts *o, struct bisect_opts *bo, struct cli *cl,
		 struct strvec *pos)
{
	static const struct option opts[] = {
		{ "repo", required_argument, NULL, O_REPO }, { "auto", no_argument, NULL, O_AUTO },
		{ "key", required_argument, NULL, 'k' }, { "history", required_argument, NULL, 'o' },
		{ "machine", required_argument, NULL, O_MACHINE }, { "min-change", required_argument, NULL, O_MIN },
		{ "max-rounds", required_argument, NULL, O_ROUNDS }, { "json", no_argument, NULL, O_JSON },
		{ "quiet", no_argument, NULL, 'q' }, { "series", required_argument, NULL, O_SERIES }, { NULL, 0, NULL, 0 },
	};
	const struct cmd_entry *c = &cmd_bisect_entry;
	int ch;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "k:o:q", opts, NULL)) != -1) {
		switch (ch) {
		case O_REPO: o->repo = optarg; break;
		case O_AUTO: cl->autorange = 1; break;
		case 'k': sv_push(&o->keys, optarg); break;
		case 'o': o->history = optarg; break;
		case O_MACHINE: o->machine = optarg; break;
		case O_JSON: cl->json = 1; break;
		case O_SERIES:
			if ((cl->series = parse_series(optarg)) < 0)
				return cmd_usage_error(c, "--series is steady, warmup or cost");
			break;
		case 'q': o->quiet = 1; break;
		case O_MIN: {
			char *t = xstrdup(optarg);
			size_t n = strlen(t);
			if (n && t[n - 1] == '%')
				t[n - 1] = '\0';
			int bad = parse_double(t, &bo->min_change) < 0 || !(bo->min_change > 0 && bo->min_change < 100);
			free(t);
			if (bad)
				return cmd_usage_error(c, "--min-change needs a percentage, such as 1%%");
			bo->min_change /= 100;
			cl->min_given = 1;
			break;
		}
		case O_ROUNDS: {
			long v;
			if (!strcmp(optarg, "auto")) {
				bo->auto_cap = 1;
				bo->max_rounds = MAX_ROUNDS;
				break;
			}
			if (parse_long(optarg, &v) < 0 || v < 5 || v > MAX_ROUNDS)
				return cmd_usage_error(c, "--max-rounds needs auto or a number from 5 to %d", MAX_ROUNDS);
			bo->max_rounds = (size_t)v;
			bo->auto_cap = 0;
			break;
		}
		default:
			return cmd_usage_error(c, "unknown option");
		}
	}
	for (int i = optind; i < argc; i++)
		sv_push(pos, argv[i]);
	if (!pos->n)
		return cmd_usage_error(c, "a CONFIG is needed");
	if (!o->repo)
		return cmd_usage_error(c, "--repo DIR is needed: the VM's repository");
	if (o->keys.n != 1)
		return cmd_usage_error(c, "one --key K is needed: the key that changed");
	if (cl->autorange ? pos->n != 1 : pos->n != 3)
		return cmd_usage_error(c, cl->autorange ? "--auto takes GOOD and BAD from the history: CONFIG alone"
					  : "CONFIG GOOD BAD are needed (or --auto)");
	o->config = pos->v[0];
	return 0;
}

static int cmd_bisect(int argc, char **argv)
{
	if (cmd_wants_help(&cmd_bisect_entry, argc, argv))
		return 0;
	struct track_opts o;
	track_opts_init(&o);
	struct bisect_opts bo;
	bisect_opts_default(&bo);
	struct cli cl = { .series = -1 };
	struct strvec pos = STRVEC_INIT;
	int code = parse(argc, argv, &o, &bo, &cl, &pos);
	/* git runs in other folders: the repository by its absolute path */
	char *repo = o.repo ? abspath(o.repo) : NULL;
	o.repo = repo;
	struct drive d;
	memset(&d, 0, sizeof(d));
	d.quiet = o.quiet;
	struct kerr e = KERR_INIT;
	char *key = NULL, *good = NULL, *bad = NULL;
	if (code == 0)
		code = ab_open(&d.ab, &o, &e);
	if (code == 0)
		code = the_key(&o, d.ab.text, &key, &e);
	if (code == 0 && cl.autorange && auto_range(&d, key, &cl.series, &good, &bad, &e) < 0)
		code = e.code;
	d.ab.series = cl.series < 0 ? HIST_STEADY : (enum hist_what)cl.series;
	if (!cl.min_given && d.ab.series != HIST_STEADY) {
		/* the smallest warm-up change worth a bisection is the one kiln track reports */
		struct hist_detect_opts dop;
		hist_detect_opts_default(&dop);
		bo.min_change = expm1(dop.min_change[d.ab.series]);
	}
	if (code == 0 && range_commits(&d, good ? good : pos.v[1], bad ? bad : pos.v[2], &e) < 0)
		code = e.code ? e.code : KEXIT_FAIL;
	struct bisect_result r;
	memset(&r, 0, sizeof(r));
	if (code == 0) {
		struct bisect_ops ops = { &d, drive_build, drive_measure, drive_binary, drive_capped };
		code = bisect_run(d.n, &bo, &ops, &r, &e);
	}
	if (code == 0) {
		if (cl.json)
			print_json(&d, key, &r);
		else
			print_text(&d, key, &r, d.n);
		code = r.outcome == BISECT_FOUND || r.outcome == BISECT_NO_CHANGE ? KEXIT_OK : KEXIT_FAIL;
	} else if (code != KEXIT_USAGE || e.msg.len) {
		kerr_print(&e);
	}
	bisect_result_free(&r);
	if (d.c)
		for (size_t i = 0; i < d.n; i++)
			hgit_commit_release(&d.c[i]);
	free(d.c);
	if (d.ab.h)
		ab_close(&d.ab);
	kerr_release(&e);
	free(key);
	free(good);
	free(bad);
	sv_clear(&o.keys);
	sv_clear(&pos);
	free(repo);
	return code;
}
