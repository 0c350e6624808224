/*
 * history-cmd.h - what `kiln track --changes` and `kiln track --compare`
 * print (history-changes.c, history-compare.c): the parts of the command
 * that read a history or compare two commits, apart from cmd-track.c's
 * options.
 */
#ifndef KILN_HISTORY_CMD_H
#define KILN_HISTORY_CMD_H

#include "history-track.h"

/* the changes of every key (matching keys, none: all) of the machine (NULL: each) in the history; a KEXIT_* code */
int track_changes(const char *history, const struct strvec *keys, const char *machine, int json);
/* what --compare judges by */
struct compare_opts {
	double threshold;       /* a steady mean slower by more than this (relative) fails (default 0.02) */
	double warm_threshold;  /* a 1 + warm-up longer by more than this fails (default 0.35, kiln track's 0.3 in log) */
	long pexecs;            /* rounds (<= 0: the config's pexecs) */
	int json;
};
/* BASE and HEAD measured interleaved, a Markdown summary (or JSON) on stdout; KEXIT_FAIL on a regression beyond a threshold */
int track_compare(const struct track_opts *o, const char *base, const char *head, const struct compare_opts *co);

/* kiln bisect for a change on points lo..hi of s (history-changes.c): its GOOD and BAD, 0 when none is worth it */
struct hist_series;
struct hist_commit;
enum hist_what;
int hist_bisect_ends(const struct hist_series *s, size_t lo, size_t hi, enum hist_what what,
		     const struct hist_commit *cs, const struct hist_commit **good, const struct hist_commit **bad);
/* the same ends, also when they are neighbours (kiln bisect --auto measures them); 0 when there are none */
int hist_bisect_pair(const struct hist_series *s, size_t lo, size_t hi, enum hist_what what,
		     const struct hist_commit *cs, const struct hist_commit **good, const struct hist_commit **bad);
/* its command line (CONFIG and DIR for the reader to fill), the key one shell word, unescaped */
struct strbuf;
void hist_bisect_command(struct strbuf *sb, const struct hist_commit *good, const struct hist_commit *bad,
			 const char *key, enum hist_what what);

/* after a track: the changes whose range holds one of the commits just measured (hashes), on this machine */
void track_new_changes(const char *history, const struct strvec *hashes, const char *machine);
/* every run's figures made again (clock NULL: the history's own), a KEXIT_* code */
struct an_opts;
int track_reanalyse(const char *history, const char *clock, const struct an_opts *an);

#endif
