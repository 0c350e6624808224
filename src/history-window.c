/*
 * history-window.c - `kiln track --interleave N`: N neighbouring commits
 * measured together, their pexecs in interleaved rounds (docs/kiln-track.md#interleave).
 *
 * Why: a commit measured alone gets one moment of the machine, and the
 * machine's moments differ (measured on the Lua corpus: the same binary
 * at two moments differs by 0.7-1.3% beyond its pexecs' error).  That
 * difference falls between neighbouring commits and places a 2% change
 * commits away from where it was made.  In rounds, each round runs a
 * pexec of every key of every commit of the window, the commits in a
 * fresh order each round (randomized multiple interleaved trials, Abedi &
 * Brecht, ICPE 2017; asv's --interleave-rounds across commits): a moment
 * of the machine falls on the window's commits alike.
 *
 * Each commit keeps its own checkout (<history>.work/at/HASH, moved to the
 * track's checkout folder for each of its sessions, removed once the
 * commit is folded), its own results file and its own run in the
 * history, as a commit measured alone does: a session of it is kiln run's
 * path stopped after one round (run_opts.max_pexecs), resumed at the next.
 * An interrupt leaves every commit of the window running; the same command
 * resumes them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "config.h"
#include "exec.h"
#include "history-git.h"
#include "history-int.h"
#include "history-track-int.h"
#include "schedule.h"

struct slot {
	struct track_commit tc;
	char *dir;        /* its checkout */
	int live;         /* still being measured */
	int code;         /* KEXIT_FAIL once a pexec of it failed, else KEXIT_OK */
	long round_size;  /* pexecs in a round: its keys */
	long left;        /* pending after its last session (-1: not known yet) */
};

/* the pexecs of one round of the commit's experiment: a pexec of each key it runs; 0 if it does not parse */
static long keys_of(struct track_job *j, const char *src)
{
	struct experiment ex;
	struct kerr e = KERR_INIT;
	long n = 0;
	if (track_experiment(j->o, j->text, src, &ex, &e) == KEXIT_OK) {
		struct schedule sc;
		schedule_plan(&ex, ORDER_ROUNDS, 0, 0, &sc);
		n = (long)sc.nkeys;
		schedule_free(&sc);
	}
	config_free(&ex);
	kerr_release(&e);
	return n;
}

/* ends the slot's commit with code; KEXIT_OK to go on */
static int slot_end(struct track_job *j, struct slot *s, int code, struct kerr *e)
{
	s->live = 0;
	int r = track_end(j, &s->tc, code, e);
	if (r != KEXIT_INTERRUPTED)
		rm_rf(s->dir); /* (an interrupted commit's is built again when it resumes) */
	return r;
}

/* the checkout of each commit to measure; KEXIT_OK, or what stops the track */
static int window_begin(struct track_job *j, struct slot *s, const struct hist_commit *cs, size_t n, struct kerr *e)
{
	for (size_t i = 0; i < n; i++) {
		int b = track_begin(j, &cs[i], &s[i].tc, e);
		if (b < 0)
			return e->code;
		if (!b)
			continue;
		s[i].dir = xasprintf("%s/at/%s", j->work, cs[i].hash);
		s[i].live = 1;
		s[i].left = -1;
		if (hgit_checkout(j->o->repo, s[i].dir, cs[i].hash, &s[i].tc.me) < 0) {
			int r = slot_end(j, &s[i], KEXIT_STORE, e);
			if (r != KEXIT_OK)
				return r;
			continue;
		}
		s[i].round_size = keys_of(j, j->src);
	}
	return KEXIT_OK;
}

/*
 * The commit's checkout moved to the track's one checkout folder for its
 * session, and back after it: every commit runs from the same path, as
 * it does in a track one commit at a time, so that the program of a key
 * (argv holds the VM's path, docs/provenance.md) and what a build embeds
 * of its folder are the same for the same binary.  What a crash left
 * there is a checkout its commit makes again.
 */
static int session_in_place(struct track_job *j, struct slot *s, const struct track_pace *pace)
{
	rm_rf(j->src);
	if (rename(s->dir, j->src) < 0)
		return kerr_setc(&s->tc.me, KEXIT_STORE, "%s -> %s: %s", s->dir, j->src, strerror(errno)), KEXIT_STORE;
	int code = track_measure(j, &s->tc, j->src, pace);
	if (rename(j->src, s->dir) < 0 && code != KEXIT_STORE)
		code = (kerr_setc(&s->tc.me, KEXIT_STORE, "%s -> %s: %s", j->src, s->dir, strerror(errno)), KEXIT_STORE);
	return code;
}

/* one session of the slot's commit: the next round of its pexecs (the first also builds it); KEXIT_OK to go on */
static int slot_round(struct track_job *j, struct slot *s, struct kerr *e)
{
	long before = s->left, left = -1;
	struct track_pace pace = { s->round_size > 0 ? s->round_size : 1, &left };
	int code = session_in_place(j, s, &pace);
	s->left = left;
	int moved = left >= 0 && (before < 0 || left < before);
	if (!s->tc.build_failed && moved && left > 0 && (code == KEXIT_OK || code == KEXIT_FAIL)) {
		if (code == KEXIT_FAIL)
			s->code = KEXIT_FAIL; /* a pexec failed: kept with its error, the rounds go on */
		return KEXIT_OK;
	}
	if (code == KEXIT_OK && left == 0)
		code = s->code;
	else if (code == KEXIT_OK) { /* a session that ran nothing: its keys cannot run */
		kerr_setc(&s->tc.me, KEXIT_FAIL, "%ld pexecs could not run", left);
		code = KEXIT_FAIL;
	}
	return slot_end(j, s, code, e);
}

/* where the rounds' pace is measured from: the first moment every live commit's pending pexecs are known */
struct pace_mark {
	int64_t t0;
	long left0;
};

static void progress(const struct track_job *j, const struct slot *s, size_t n, long round, struct pace_mark *pm)
{
	if (j->o->quiet)
		return;
	long left = 0, live = 0, known = 1;
	for (size_t i = 0; i < n; i++)
		if (s[i].live) {
			live++;
			left += s[i].left > 0 ? s[i].left : 0;
			known &= s[i].left >= 0;
		}
	if (!known) {
		fprintf(stderr, "kiln track:   round %ld: %ld commits (built in the first)\n", round + 1, live);
		return;
	}
	struct strbuf eta = STRBUF_INIT;
	if (!pm->t0) {
		pm->t0 = mono_ns();
		pm->left0 = left;
	} else if (left < pm->left0) {
		track_eta(&eta, (double)(mono_ns() - pm->t0) / 1e9 / (double)(pm->left0 - left), (double)left);
	}
	fprintf(stderr, "kiln track:   round %ld: %ld commits, %ld pexecs left%s\n", round + 1, live, left, sb_str(&eta));
	sb_release(&eta);
}

/* the live slots in this round's order, drawn from the window's seed and the round */
static size_t round_order(const struct slot *s, size_t n, unsigned long seed, long round, size_t *idx)
{
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (s[i].live)
			idx[m++] = i;
	if (m > 1) { /* (GSL's shuffle of nothing asks its generator for a number below 0) */
		gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
		gsl_rng_set(r, seed + (unsigned long)round);
		gsl_ran_shuffle(r, idx, m, sizeof(*idx));
		gsl_rng_free(r);
	}
	return m;
}

int track_window(struct track_job *j, const struct hist_commit *cs, size_t n, struct kerr *e)
{
	struct slot *s = xcalloc(n, sizeof(*s));
	size_t *idx = xcalloc(n, sizeof(*idx));
	/* the window's runs share a session: their pexec num r ran in round r + 1 */
	char *session = xasprintf("window %.12s..%.12s %lld", cs[0].hash, cs[n - 1].hash, (long long)(wall_ns() / 1000000000));
	j->session = session;
	int r = window_begin(j, s, cs, n, e);
	j->session = NULL;
	free(session);
	char first[9];
	snprintf(first, sizeof(first), "%s", cs[0].hash); /* the seed: the window's first commit */
	unsigned long seed = strtoul(first, NULL, 16);
	struct pace_mark pm = { 0, 0 };
	for (long round = 0; r == KEXIT_OK; round++) {
		size_t m = round_order(s, n, seed, round, idx);
		if (!m)
			break;
		progress(j, s, n, round, &pm);
		for (size_t k = 0; k < m && r == KEXIT_OK; k++) {
			if (exec_interrupted) {
				kerr_setc(e, KEXIT_INTERRUPTED, "interrupted; the same `kiln track` resumes");
				r = KEXIT_INTERRUPTED;
			} else
				r = slot_round(j, &s[idx[k]], e);
		}
	}
	for (size_t i = 0; i < n; i++) {
		if (s[i].dir || s[i].tc.results)
			track_commit_release(&s[i].tc);
		free(s[i].dir);
	}
	free(idx);
	free(s);
	return r;
}
