/*
 * history-track.h - `kiln track` (history-track.c): an experiment measured
 * at each commit of a range of a VM's repository, into its history.
 */
#ifndef KILN_HISTORY_TRACK_H
#define KILN_HISTORY_TRACK_H

#include "analysis.h"
#include "history.h"

enum track_order { TRACK_SPREAD, TRACK_OLDEST };
#define TRACK_INTERLEAVE_ALL (-1L)

struct track_opts {
	const char *config;        /* the experiment; {src} stands for the commit's checkout */
	const char *repo;          /* the VM's repository */
	const char *history;       /* NULL: <config stem>.history.db */
	const char *machine;       /* NULL: the host name */
	const char *range;         /* A..B, or one revision; NULL: HEAD */
	const char *hashes_file;   /* a file of revisions instead */
	int new_only;              /* --new: from the deepest tracked commit to range (or HEAD) */
	long steps;                /* > 0: that many commits spread over the range */
	long max_commits;          /* > 0: stop after that many (resume later) */
	struct strvec benchmarks;  /* --benchmarks patterns (none: all) */
	struct strvec keys;        /* --key patterns */
	int repeat;                /* measure commits already tracked again (A/A data) */
	int force;                 /* track on although the config changed */
	int keep_results;          /* keep each commit's results file in the work folder */
	int quiet;
	enum track_order order;
	long interleave;           /* > 1: windows of that many commits, their pexecs in rounds (history-window.c);
				      TRACK_INTERLEAVE_ALL: one window of every commit */
	const char *clock;         /* "wall" or "cpu" (each iteration's process CPU time); NULL: the history's, else wall */
	struct an_opts an;         /* the analysis of each pexec and key (figures) */
};
void track_opts_init(struct track_opts *o);

struct track_summary {
	size_t commits, measured, failed, skipped;
	size_t partial;            /* of the measured: with errors (a failed pexec, pexecs that could not run) */
	struct strvec hashes;      /* the commits measured now (sv_clear when done) */
	char *history;             /* its absolute path (free) */
};

/*
 * The order commits 0..n-1 are measured in (idx gets a permutation):
 * TRACK_OLDEST in order; TRACK_SPREAD the ends, then the middle of each
 * gap, breadth first
 */
void track_measure_order(size_t n, enum track_order order, size_t *idx);

/* a KEXIT_* code; e set when not KEXIT_OK */
int track_run(const struct track_opts *o, struct track_summary *sum, struct kerr *e);
/* this machine's id in h, named machine (NULL: the host name), added when new; a changed identity is warned of */
long track_machine(struct history *h, const char *machine, struct kerr *e);
/* this machine's identity as a history records it (JSON, malloc'd) */
char *track_machine_identity(void);
/* do two identities differ where one series needs them alike (CPU model, CPUs, memory)? why says how */
int track_identity_differs(const char *a, const char *b, struct strbuf *why);
/*
 * The experiment for a checkout: the config's text with {src} standing for
 * src, parsed (VMs made by their build checked after it), restricted to
 * o's --benchmarks and --key; a KEXIT_* code, ex to config_free either way
 */
struct experiment;
int track_experiment(const struct track_opts *o, const char *text, const char *src, struct experiment *ex,
		     struct kerr *e);
/* SHA-256 of the VMs' executables as built, NULL when one is missing */
char *track_binary_hash(const struct experiment *ex);
/* the history's absolute path: o->history, else <config without .yaml>.history.db beside it */
char *track_history_path(const struct track_opts *o);
/* does the path need no quoting in YAML (letters, digits, / . _ + -)? {src} is substituted as text */
int track_plain_path(const char *p);

#endif
