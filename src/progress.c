/*
 * progress.c - `kiln run`'s progress line (see progress.h): on a terminal
 * one line, redrawn in place, cut to the terminal's width (by display
 * width: a wrapped line would leave one line per pexec behind).
 */
#include "progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>

#include "util.h"

/* the terminal's width on stderr: its window size, else $COLUMNS, else 80 (never under 20) */
static size_t term_columns(void)
{
	struct winsize ws;
	long c = 0;
	if (ioctl(2, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		c = ws.ws_col;
	else if (getenv("COLUMNS") && parse_long(getenv("COLUMNS"), &c))
		c = 0;
	if (c <= 0)
		c = 80;
	return c < 20 ? 20 : (size_t)c;
}

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
	struct strbuf line = STRBUF_INIT;
	sb_addf(&line, "[%zu/%zu] %s #%s %s", k, p->total, esc(ESC_TERM, key), label, what);
	if (rate > 0)
		sb_addf(&line, "  %.0f it/s", rate);
	sb_addf(&line, "  ETA %s", eta);
	if (p->tty) {
		/* one line narrower than the terminal: a wrapped line is not redrawn by \r */
		size_t cols = term_columns(), cut;
		if (display_width(line.buf) > cols - 1) {
			display_cut(line.buf, cols - 2, &cut);
			line.len = cut;
			line.buf[cut] = '\0';
			sb_adds(&line, "\xe2\x80\xa6"); /* … */
		}
		fprintf(stderr, "\r\033[K%s", line.buf);
	} else {
		fprintf(stderr, "%s\n", line.buf);
	}
	sb_release(&line);
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
