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
/* BASE and HEAD measured interleaved, a Markdown summary (or JSON) on stdout; KEXIT_FAIL on a regression beyond threshold */
int track_compare(const struct track_opts *o, const char *base, const char *head, double threshold, long pexecs,
		  int json);

/* after a track: the changes whose range holds one of the commits just measured (hashes), on this machine */
void track_new_changes(const char *history, const struct strvec *hashes, const char *machine);
/* every run's figures made again (clock NULL: the history's own), a KEXIT_* code */
struct an_opts;
int track_reanalyse(const char *history, const char *clock, const struct an_opts *an);

#endif
