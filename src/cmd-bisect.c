/*
 * cmd-bisect.c - `kiln bisect CONFIG --repo DIR GOOD BAD --key K`: which
 * commit of the first-parent range changed the key's steady state.  The
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
#include "history-detect.h"
#include "history-git.h"
#include "history-power.h"

static int cmd_bisect(int argc, char **argv);

#define MAX_ROUNDS 10000 /* --max-rounds at most: a bound on one comparison's pexecs */

const struct cmd_entry cmd_bisect_entry = {
	.name = "bisect",
	.usage = "CONFIG --repo DIR (GOOD BAD | --auto) --key K [-o HISTORY] [--machine NAME]\n"
		 "                  [--min-change P%] [--max-rounds N] [--json] [-q]",
	.summary = "find the commit that changed a key's steady state: builds and interleaved A/B rounds",
	.help = "GOOD and BAD are commits of the VM's repository, BAD a first-parent descendant of\n"
		"GOOD.  Each tested commit is checked out in HISTORY.work/ab/HASH and built with the\n"
		"VM's build steps; two commits are compared in rounds (one pexec of each per round, in\n"
		"a seeded random order) with a sequential test that stops when it can tell\n"
		"(docs/kiln-bisect.md).\n"
		"Every round is stored in the history and reused by the next bisect of the same commits.\n"
		"  --repo DIR        the VM's git repository (never written to)\n"
		"  -k, --key K       the key (bench[:vm[:variant]]) whose steady state changed; one key\n"
		"  --auto            GOOD and BAD from the newest steady-state change `kiln track` found\n"
		"                    for the key in the history\n"
		"  -o, --history F   the history (default <config stem>.history.db beside the config)\n"
		"  --machine NAME    this machine's name in the history (default the host name)\n"
		"  --min-change P%   the smallest change worth a bisection (default 1%)\n"
		"  --max-rounds N    rounds at most per comparison (default 200, at most 10000); a\n"
		"                    comparison undecided at the cap says which cap would decide it\n"
		"  --json            the outcome as JSON\n"
		"  -q, --quiet       no progress\n"
		"\nExit status: 0 a culprit named, or GOOD and BAD found not to differ; 1 the test could\n"
		"not decide, or builds failed where the change is (the range is printed); 2 usage;\n"
		"3 config; 4 history in use; 5 history unusable; 130 interrupted.\n",
	.exec = cmd_bisect,
};

struct drive {
	struct ab_ctx ab;
	struct hist_commit *c;
	size_t n;
	int quiet;
	double run_s;      /* seconds of rounds run in this bisect (not stored ones), and their count: the pace */
	size_t run_rounds;
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
	return a->more(a->mctx, k->n ? k->d[0] : NULL, a->n);
}

static int drive_measure(void *ctx, size_t a, size_t b, bisect_more_fn more, void *mctx, struct kerr *e)
{
	struct drive *d = ctx;
	if (!d->quiet)
		fprintf(stderr, "kiln bisect: measuring %.12s against %.12s\n", d->c[b].hash, d->c[a].hash);
	struct adapt ad = { .more = more, .mctx = mctx };
	struct ab_keys k;
	/* the search's test keeps its verdict from its last look at the rounds */
	int code = ab_measure(&d->ab, &d->c[a], &d->c[b], adapt_more, &ad, &k, e);
	if (ad.looks && ad.n > ad.n0) {
		d->run_s += (double)(ad.t - ad.t0) / 1e9;
		d->run_rounds += ad.n - ad.n0;
	}
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
	free(g);
	free(b);
	sv_clear(&hashes);
	return r;
}

/* --auto: GOOD and BAD around the newest steady change of the key in the history */
static int auto_range(struct drive *d, const char *key, char **good, char **bad, struct kerr *e)
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
	const struct hist_change *last = NULL;
	for (size_t i = 0; i < n; i++)
		if (ch[i].what == HIST_STEADY && (!last || ch[i].at > last->at))
			last = &ch[i];
	if (r == 0 && !last) {
		/* none found is not none made: say what the series could have shown */
		struct hist_power pw;
		history_power(&s, NULL, ch, n, &pw);
		char could[96] = "";
		if (pw.sites && isfinite(pw.size))
			snprintf(could, sizeof(could), "; its series could show steady steps of %.0f%% or more", 100 * pw.size);
		else if (pw.sites)
			snprintf(could, sizeof(could), "; its series could not show even a 100%% step");
		r = kerr_setc(e, KEXIT_USAGE, "%s: no steady-state change of %s on this machine to bisect (`kiln track "
			      "--changes` lists them)%s", history_path(d->ab.h), esc(ESC_TERM, key), could);
	}
	if (r == 0) {
		size_t lo = last->lo ? last->lo - 1 : 0;
		*good = xstrdup(c[s.p[lo].commit].hash);
		*bad = xstrdup(c[s.p[last->hi].commit].hash);
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
 * An undecided comparison: the cap that would decide it at the spread its
 * rounds showed, and how long that is at this bisect's pace
 */
static void print_needed(const struct drive *d, const struct bisect_result *r)
{
	const char *what = r->outcome == BISECT_UNSURE ? "telling GOOD and BAD apart (a change of --min-change) or "
							 "together"
						       : "telling the midpoint like GOOD or like BAD";
	if (r->rounds_needed > MAX_ROUNDS) {
		printf("  a round's log ratio varies by %.3g%% (sd): %s would want more than the %d rounds --max-rounds "
		       "allows; measure on a quieter machine\n", 100 * r->round_sd, what, MAX_ROUNDS);
		return;
	}
	printf("  a round's log ratio varies by %.3g%% (sd): %s wants about --max-rounds %zu", 100 * r->round_sd, what,
	       r->rounds_needed);
	if (d->run_rounds) {
		struct strbuf t = STRBUF_INIT;
		double pace = d->run_s / (double)d->run_rounds;
		fmt_duration(&t, (double)r->rounds_needed * pace);
		printf(" (%s a comparison at this bisect's %.2f s a round)", t.buf, pace);
		sb_release(&t);
	}
	printf("\n");
}

static void print_text(const struct drive *d, const char *key, const struct bisect_result *r, size_t n)
{
	printf("%s: %zu commits after %.12s up to %.12s\n", esc(ESC_TERM, key), n - 1, d->c[0].hash, d->c[n - 1].hash);
	printf("  %-12s %-7s %7s  %-24s %s\n", "commit", "verdict", "rounds", "steady mean / GOOD's", "subject");
	for (size_t i = 0; i < r->nsteps; i++) {
		const struct bisect_step *s = &r->steps[i];
		char ratio[64] = "-";
		if (isfinite(s->ratio))
			snprintf(ratio, sizeof(ratio), "%.4f (%.4f-%.4f)", s->ratio, s->lo, s->hi);
		else if (s->same_as != SIZE_MAX)
			snprintf(ratio, sizeof(ratio), "binary of %.12s", d->c[s->same_as].hash);
		char *subj = history_short(d->c[s->commit].subject, 50);
		printf("  %.12s %-7s %7zu  %-24s %s\n", d->c[s->commit].hash, bisect_verdict_name(s->verdict), s->rounds,
		       ratio, subj);
		free(subj);
	}
	switch (r->outcome) {
	case BISECT_FOUND: {
		const struct hist_commit *c = &d->c[r->culprit];
		printf("culprit: %s %s (%s)\n", c->hash, esc(ESC_TERM, c->subject), esc(ESC_TERM, c->author));
		printf("  BAD's steady mean is %.4f x GOOD's (99%% interval %.4f-%.4f); %.12s is the first commit like "
		       "BAD, %.12s (its parent) is like GOOD\n", r->ratio, r->ratio_lo, r->ratio_hi, c->hash,
		       d->c[r->culprit - 1].hash);
		break;
	}
	case BISECT_NO_CHANGE:
		printf("no culprit: GOOD and BAD do not differ by the smallest change asked for (BAD/GOOD %.4f, 99%% "
		       "interval %.4f-%.4f)\n", r->ratio, r->ratio_lo, r->ratio_hi);
		break;
	case BISECT_UNSURE:
		printf("no culprit: the rounds could not tell GOOD and BAD apart or together (BAD/GOOD %.4f, %.4f-%.4f)\n",
		       r->ratio, r->ratio_lo, r->ratio_hi);
		break;
	case BISECT_RANGE:
		printf("the change is after %.12s and at or before %.12s (%zu commits): broken builds or a midpoint the "
		       "rounds could not tell hide where\n", d->c[r->lo].hash, d->c[r->hi].hash, r->hi - r->lo);
		break;
	}
	if (r->rounds_needed)
		print_needed(d, r);
	size_t lg = 0;
	while (((size_t)1 << lg) < n - 1)
		lg++;
	printf("builds: %zu (ceil(log2 %zu) + 2 = %zu), rounds: %zu\n", r->builds, n - 1, lg + 2, r->rounds);
}

static void print_json(const struct drive *d, const char *key, const struct bisect_result *r)
{
	json_t *steps = json_array();
	for (size_t i = 0; i < r->nsteps; i++) {
		const struct bisect_step *s = &r->steps[i];
		json_array_append_new(steps, json_pack("{s:s,s:s,s:o,s:I,s:o,s:o,s:o}", "commit", d->c[s->commit].hash,
						       "verdict", bisect_verdict_name(s->verdict), "same_binary_as",
						       s->same_as != SIZE_MAX ? json_string(d->c[s->same_as].hash) : json_null(),
						       "rounds", (json_int_t)s->rounds,
						       "ratio", isfinite(s->ratio) ? json_real(s->ratio) : json_null(),
						       "lo", isfinite(s->lo) ? json_real(s->lo) : json_null(),
						       "hi", isfinite(s->hi) ? json_real(s->hi) : json_null()));
	}
	json_t *j = json_pack("{s:s,s:s,s:s,s:s,s:o,s:s,s:s,s:o,s:o,s:o,s:I,s:I,s:o}", "key", esc(ESC_JSON, key),
			      "good", d->c[0].hash, "bad", d->c[d->n - 1].hash, "outcome", outcome_name(r->outcome),
			      "culprit", r->outcome == BISECT_FOUND ? json_string(d->c[r->culprit].hash) : json_null(),
			      "last_good", d->c[r->lo].hash, "first_bad", d->c[r->hi].hash,
			      "ratio", isfinite(r->ratio) ? json_real(r->ratio) : json_null(),
			      "ratio_lo", isfinite(r->ratio_lo) ? json_real(r->ratio_lo) : json_null(),
			      "ratio_hi", isfinite(r->ratio_hi) ? json_real(r->ratio_hi) : json_null(),
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

enum { O_REPO = 256, O_AUTO, O_MACHINE, O_MIN, O_ROUNDS, O_JSON };

static int parse(int argc, char **argv, struct track_opts *o, struct bisect_opts *bo, int *autorange, int *json,
		 struct strvec *pos)
{
	static const struct option opts[] = {
		{ "repo", required_argument, NULL, O_REPO }, { "auto", no_argument, NULL, O_AUTO },
		{ "key", required_argument, NULL, 'k' }, { "history", required_argument, NULL, 'o' },
		{ "machine", required_argument, NULL, O_MACHINE }, { "min-change", required_argument, NULL, O_MIN },
		{ "max-rounds", required_argument, NULL, O_ROUNDS }, { "json", no_argument, NULL, O_JSON },
		{ "quiet", no_argument, NULL, 'q' }, { NULL, 0, NULL, 0 },
	};
	const struct cmd_entry *c = &cmd_bisect_entry;
	int ch;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "k:o:q", opts, NULL)) != -1) {
		switch (ch) {
		case O_REPO: o->repo = optarg; break;
		case O_AUTO: *autorange = 1; break;
		case 'k': sv_push(&o->keys, optarg); break;
		case 'o': o->history = optarg; break;
		case O_MACHINE: o->machine = optarg; break;
		case O_JSON: *json = 1; break;
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
			break;
		}
		case O_ROUNDS: {
			long v;
			if (parse_long(optarg, &v) < 0 || v < 5 || v > MAX_ROUNDS)
				return cmd_usage_error(c, "--max-rounds needs a number from 5 to %d", MAX_ROUNDS);
			bo->max_rounds = (size_t)v;
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
		return cmd_usage_error(c, "one --key K is needed: the key whose steady state changed");
	if (*autorange ? pos->n != 1 : pos->n != 3)
		return cmd_usage_error(c, *autorange ? "--auto takes GOOD and BAD from the history: CONFIG alone"
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
	int autorange = 0, json = 0;
	struct strvec pos = STRVEC_INIT;
	int code = parse(argc, argv, &o, &bo, &autorange, &json, &pos);
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
	if (code == 0 && autorange && auto_range(&d, key, &good, &bad, &e) < 0)
		code = e.code;
	if (code == 0 && range_commits(&d, good ? good : pos.v[1], bad ? bad : pos.v[2], &e) < 0)
		code = e.code ? e.code : KEXIT_FAIL;
	struct bisect_result r;
	memset(&r, 0, sizeof(r));
	if (code == 0) {
		struct bisect_ops ops = { &d, drive_build, drive_measure, drive_binary };
		code = bisect_run(d.n, &bo, &ops, &r, &e);
	}
	if (code == 0) {
		if (json)
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
