/*
 * progress.c - `kiln run`'s progress line (see progress.h).
 */
#include "progress.h"

#include <stdio.h>

#include "util.h"

static void fmt_dur(double s, char *buf, size_t n)
{
	if (s < 0 || s != s)
		snprintf(buf, n, "?");
	else if (s < 60)
		snprintf(buf, n, "%.0fs", s);
	else if (s < 3600)
		snprintf(buf, n, "%dm%02ds", (int)s / 60, (int)s % 60);
	else
		snprintf(buf, n, "%dh%02dm", (int)s / 3600, ((int)s % 3600) / 60);
}

void progress_show(struct progress *p, const char *key, const char *label, const char *what, int force)
{
	if (p->quiet)
		return;
	int64_t now = mono_ns();
	if (!p->tty && !force && now - p->last_print < 5000000000LL)
		return;
	p->last_print = now;
	size_t k = p->done_before + p->done;
	double avg = p->done ? p->pexec_s_sum / (double)p->done : -1;
	double rate = p->pexec_s_sum > 0 ? (double)p->iters_sum / p->pexec_s_sum : 0;
	char eta[32];
	fmt_dur(avg < 0 ? -1 : avg * (double)(p->total - k), eta, sizeof(eta));
	if (p->tty)
		fprintf(stderr, "\r\033[K");
	fprintf(stderr, "[%zu/%zu] %s #%s %s", k, p->total, key, label, what);
	if (rate > 0)
		fprintf(stderr, "  %.0f it/s", rate);
	fprintf(stderr, "  ETA %s%s", eta, p->tty ? "" : "\n");
	fflush(stderr);
}

void progress_count(struct progress *p, double seconds, long iterations)
{
	p->done++;
	p->pexec_s_sum += seconds;
	p->iters_sum += iterations;
}

void progress_end(struct progress *p)
{
	if (!p->quiet && p->tty)
		fprintf(stderr, "\r\033[K");
}
