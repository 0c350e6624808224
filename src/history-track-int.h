/*
 * history-track-int.h - what `kiln track`'s two ways of measuring share:
 * one commit at a time (history-track.c) and a window of commits whose
 * pexecs run in interleaved rounds (history-window.c).  Nothing else uses
 * it.
 */
#ifndef KILN_HISTORY_TRACK_INT_H
#define KILN_HISTORY_TRACK_INT_H

#include "history-track.h"

struct track_job {
	const struct track_opts *o;
	struct track_summary *sum;
	struct history *h;
	long machine;
	char *work, *src, *runs;   /* the work folder, the checkout, the results files in flight */
	char *text;                /* the config's text as written */
	char config_hash[65];
	size_t built, failed, skipped, measured;
	size_t partial;            /* measured with a failed pexec or pexecs that could not run */
	int cut;                   /* --max-commits left commits of the range for the same command to resume */
	double spent_s;            /* on measured commits, for the ETA */
	const char *session;       /* the runs begun now share it (a window's, history-window.c); NULL: none */
};

/* one commit being measured: its run in the history and its results file */
struct track_commit {
	const struct hist_commit *c;
	long rid;
	char *results;
	double took;               /* seconds spent in its sessions */
	int build_failed;
	char *binary;              /* the VMs' hash as built (NULL until a session built them) */
	struct kerr me;            /* what its sessions said */
};

/* a session that runs part of a commit's pexecs, in rounds (NULL: all of them, as kiln run orders them) */
struct track_pace {
	long max_pexecs;           /* stop after this many */
	long *left;                /* set to the pexecs still pending */
};

/*
 * The commit's run (a new one, or the one an interrupted track left
 * running): 1 to measure it, 0 when it is tracked already (not --repeat),
 * -1 with e set.  tc to track_commit_release unless 0 or -1.
 */
int track_begin(struct track_job *j, const struct hist_commit *c, struct track_commit *tc, struct kerr *e);
/* one session of the commit's experiment, built in the checkout src; a KEXIT_* code (what it said in tc->me) */
int track_measure(struct track_job *j, struct track_commit *tc, const char *src, const struct track_pace *pace);
/*
 * The commit's outcome after its last session ended with code: folded,
 * recorded as a failed build or run (KEXIT_OK: the track goes on), left
 * running (KEXIT_INTERRUPTED), or what stops the track
 */
int track_end(struct track_job *j, struct track_commit *tc, int code, struct kerr *e);
void track_commit_release(struct track_commit *tc);
/* "  ETA <duration>" for units left at per seconds each, appended to sb; nothing while the rate is unknown (per <= 0) */
void track_eta(struct strbuf *sb, double per, double units);

/*
 * n consecutive commits measured together (--interleave): each checked out
 * and built in a folder of its own, then their pexecs in rounds, each
 * round a pexec of every key of every commit, the commits in a fresh order
 * each round; KEXIT_OK to go on, else what stops the track
 */
int track_window(struct track_job *j, const struct hist_commit *cs, size_t n, struct kerr *e);

#endif
