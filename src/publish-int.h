/*
 * publish-int.h - what the publish-*.c files share and nothing else uses:
 * the site in memory (machines, keys, their series and change points) and
 * the writers of its parts.
 */
#ifndef KILN_PUBLISH_INT_H
#define KILN_PUBLISH_INT_H

#include <stdio.h>

#include "history.h"
#include "history-power.h"
#include "publish.h"

/* the three series of a key history detection searches (history-detect.h's enum hist_what) */
enum pub_what { PUB_STEADY, PUB_WARMUP, PUB_CLASS, PUB_COST, PUB_NWHAT };
const char *pub_what_name(enum pub_what w);

/* one change point of a key's series, as the history's detection gives it */
struct pub_change {
	enum pub_what what;
	size_t at;               /* index in the series' points: the first commit after the change */
	size_t lo, hi;           /* the first commits the data allow (lo <= at <= hi) */
	double before, after;    /* steady: seconds; warmup: steady iterations' worth; class: fraction */
	double ratio, rlo, rhi;  /* after/before with its 99% interval (class: after - before; warmup, cost: NAN
				  * when before is under one steady iteration's worth) */
	int moved;               /* the data put it on a same-binary pair: it was moved off it */
	double alo, ahi;         /* warmup, cost: after's 99% interval (before held) */
};

/* the A/A pairs of one series and the alarms detection put on them */
struct pub_aa {
	size_t pairs, alarms;
};

/*
 * A point's figures the pages show.  Its steady-state mean is the key's
 * (with its interval) when the key has a steady state; when it has none
 * (a pexec without one makes the whole key have none), the mean of the
 * pexecs that have one, without an interval, marked as such (`pooled`: how
 * many pexecs it is the mean of), so that one odd pexec leaves no gap.
 */
struct pub_fig {
	double mean, lo, hi;             /* seconds, NAN: none */
	size_t pooled;                   /* 0: the key's figure; else the pexecs whose steady means were averaged */
	double tts_med, tts_lo, tts_hi;  /* time to steady state: median, 5th, 95th percentiles (NAN: none) */
	int major;                       /* the most frequent class (AN_FLAT.. AN_NO_STEADY), -1: none */
};

/* one key on one machine */
struct pub_key {
	size_t machine;          /* index into site->machines */
	char *key;               /* bench:vm:variant (untrusted) */
	char *bench, *column;    /* the overview's row and column: benchmark, VM (and variant when not a default-) */
	char *page;              /* its page, relative to the site: k/NAME.html (safe characters only) */
	struct hist_series s;
	struct pub_fig *fig;     /* s.n */
	char **report;           /* s.n: a per-commit report's path relative to the site, NULL: none */
	struct pub_change *ch;
	size_t nch;
	struct pub_aa aa[PUB_NWHAT];
	int detected;            /* 0: the history's detection was not available (no change points known) */
	struct hist_power power; /* the smallest steady step the series could have shown (history-power.c) */
	struct hist_power_warm power_warm; /* the smallest stretch of its warm-up it could have shown, or why none */
};

struct pub_site {
	const struct pub_opts *o;
	struct history *h;
	char *title;
	struct hist_commit *c;
	size_t nc;
	struct hist_machine *m;
	size_t nm;
	struct pub_key *k;
	size_t nk;
	char *dir;               /* the folder being written (the temporary one) */
	int64_t now_ns;
	struct pub_summary sum;
};

/* a file of the site written from sb (path relative to the site); counts it */
int pub_write(struct pub_site *s, const char *rel, const struct strbuf *sb, struct kerr *e);

/* publish-detect.c: k's change points and A/A counts (k->ch, k->nch, k->aa, k->detected) */
void pub_detect(struct pub_key *k);

/* publish-svg.c: the charts (x: the series' points in commit order) */
void svg_sparkline(struct strbuf *sb, const struct pub_site *s, const struct pub_key *k);
void svg_steady(struct strbuf *sb, const struct pub_site *s, const struct pub_key *k);
void svg_classes(struct strbuf *sb, const struct pub_site *s, const struct pub_key *k);
void svg_tts(struct strbuf *sb, const struct pub_site *s, const struct pub_key *k);

/* publish-page.c */
int page_overview(struct pub_site *s, struct kerr *e);
int page_key(struct pub_site *s, size_t ki, struct kerr *e);
/* a commit's short hash (12 hex digits, or "?" for one that is not hex) into buf */
const char *pub_short(const char *hash, char buf[16]);
/* the change's size: "steady +5.1% [+4.2%, +6.0%]" (full: and the levels of both sides, in words) */
void pub_change_size(struct strbuf *sb, const struct pub_change *c, int full);
/* 1: the change makes things worse (slower, longer warm-up, more pexecs without a steady state) */
int pub_change_worse(const struct pub_change *c);
/* a time in the unit that fits it, three significant digits: "12.3 ms" ("-" for NAN) */
void pub_fmt_time(struct strbuf *sb, double seconds);
/* a point's steady-state mean: "1.05 ± 0.01 ms", or "~1.05 ms (9 of 10 pexecs)" when pooled */
void pub_fmt_fig(struct strbuf *sb, const struct pub_fig *f, size_t n);
/* the A/A false alarms of the series of what: "0 of 37 (0.0%)" (full: in words) */
void pub_aa_text(struct strbuf *sb, const struct pub_key *k, enum pub_what w, int full);

/* publish-report.c: the per-commit reports the options ask for (k->report), then written */
int pub_reports(struct pub_site *s, struct kerr *e);

/* publish-assets.c: the style sheet and the script, written to the site's root */
int pub_assets(struct pub_site *s, struct kerr *e);
extern const char pub_css[];
extern const char pub_js[];

#endif
