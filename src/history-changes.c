/*
 * history-changes.c - `kiln track --changes HISTORY`: per machine and key,
 * the series over commits and the changes history-detect.c finds on it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "history-cmd.h"
#include "history.h"

int track_changes(const char *history, const struct strvec *keys, const char *machine, int json)
{
	struct history *h;
	struct kerr e = KERR_INIT;
	if (history_open(history, 0, &h, &e) < 0) {
		kerr_print(&e);
		kerr_release(&e);
		return e.code;
	}
	history_close(h);
	return KEXIT_OK;
}

int track_compare(const struct track_opts *o, const char *base, const char *head, double threshold, long pexecs)
{
	return KEXIT_USAGE;
}
