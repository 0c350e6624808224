/*
 * progress.h - the one progress line of `kiln run`: pexecs done of all,
 * the key and pexec in flight, iterations per second and an ETA from the
 * pexecs measured so far.  Redrawn in place on a terminal, a plain line
 * every few seconds otherwise, nothing with --quiet.
 */
#ifndef KILN_PROGRESS_H
#define KILN_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

struct progress {
	int tty, quiet;
	size_t total, done_before, done;
	int64_t t0, last_print;
	double pexec_s_sum;
	long iters_sum;
};

/* show "[k/total] KEY #LABEL WHAT  rate  ETA"; `force` prints even when not due */
void progress_show(struct progress *p, const char *key, const char *label, const char *what, int force);
/* a pexec was stored: count it for the rate and the ETA */
void progress_count(struct progress *p, double seconds, long iterations);
/* clear the line (before a message, and at the end) */
void progress_end(struct progress *p);

#endif
