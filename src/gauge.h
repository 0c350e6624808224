/*
 * gauge.h - the iteration times a benchmark's own harness prints (ReBench's
 * "gauge adapters"), read from its stdout or stderr as kiln drains it.
 *
 * A `command` VM with `gauge:` runs a program that times its iterations
 * itself and prints them: ReBench's RebenchLog lines, JMH's iteration
 * lines, `time -p`-style `real` lines, or lines a POSIX extended regex with
 * one capture group picks out.  Each such line is one iteration, in order.
 * The reader splits the stream into lines as it arrives (each at most
 * GAUGE_MAX_LINE bytes), keeps the times in integer nanoseconds (converted
 * from the printed decimal exactly, as kiln stores every wall time), and
 * stops at the first fault (a line too long, a malformed number, more
 * iterations than the bound) with the line number in its error.  What it
 * reads is never the truncated stored copy of the output.
 */
#ifndef KILN_GAUGE_H
#define KILN_GAUGE_H

#include <regex.h>
#include <stdint.h>

#include "record.h"
#include "util.h"

#define GAUGE_MAX_LINE (1 << 20)
#define GAUGE_MAX_ITERATIONS 100000L  /* the default of gauge.max_iterations */
#define GAUGE_MAX_CRITERIA 32         /* distinct per-criterion series of one pexec, and criteria lines of one iteration */
#define GAUGE_MAX_NAME 64             /* bytes of a criterion's name */

enum gauge_format {
	GAUGE_NONE, GAUGE_REBENCH, GAUGE_JMH, GAUGE_TIME, GAUGE_REGEX,
	/* ReBench's Multivariate, PlainSecondsLog, SavinaLog and ValidationLog adapters */
	GAUGE_MULTIVARIATE, GAUGE_PLAIN, GAUGE_SAVINA, GAUGE_VALIDATION,
};

/* what the config says (config.h's vm_conf holds one) */
struct gauge_conf {
	enum gauge_format format;
	char *regex;           /* GAUGE_REGEX: one capture group, the number */
	char *unit;            /* GAUGE_REGEX: s, ms, us or ns */
	int from_stderr;       /* read stderr instead of stdout */
	long max_iterations;   /* a pexec printing more is failed */
};

/* the format named `name`, GAUGE_NONE if there is none such */
enum gauge_format gauge_format_find(const char *name);
const char *gauge_format_name(enum gauge_format f);
/* "rebench, jmh, ...", for messages */
const char *gauge_format_names(void);
/* the power of ten from the unit to nanoseconds (s 9, ms 6, us 3, ns 0), -1 for another unit */
int gauge_unit_exp(const char *unit, size_t n);
/* does the regex compile with at least one capture group?  0, else -1 and why */
int gauge_check_regex(const char *regex, struct strbuf *why);
/* one line of provenance: everything of the gauge that decides what is measured */
void gauge_describe(const struct gauge_conf *c, struct strbuf *out);
void gauge_conf_copy(struct gauge_conf *d, const struct gauge_conf *s);
void gauge_conf_release(struct gauge_conf *c);

/*
 * A decimal number (digits, an optional fraction, an optional exponent
 * e[+-]N) times 10^exp nanoseconds, rounded to the nearest nanosecond: 0;
 * -1 when it is not such a number or out of range.
 */
int gauge_decimal_ns(const char *s, size_t n, int exp, int64_t *ns);

/* one pexec's reading */
struct gauge {
	const struct gauge_conf *c;
	regex_t re;
	int have_re;
	long expected;         /* the count asked for, 0: any (up to max_iterations) */
	long warmup_expected;  /* JMH: the warm-up iterations the config keeps (warmup_iterations) */
	int64_t *wall;         /* n iterations, nanoseconds */
	size_t n, alloc;
	size_t warmup;         /* JMH: the leading `# Warmup Iteration` lines among them */
	struct rec_list recs;  /* per-iteration criteria (RebenchLog, time's user and sys) */
	size_t ncrit;          /* distinct criteria so far */
	size_t crit_here;      /* criteria lines since the last iteration (bounded: recs stays within 32 a line) */
	struct strbuf part;    /* an unfinished line */
	long lineno;
	int ended;             /* gauge_finish read the last line: faults are the output's, not a line's */
	int stopped;           /* JMH: `Run complete` seen, nothing more is read */
	struct strbuf error;   /* the first fault, empty if none */
};

/* 0, or -1 with why in e (a regex that does not compile: the config check says so first) */
int gauge_init(struct gauge *g, const struct gauge_conf *c, long expected, long warmup_expected, struct kerr *e);
/* bytes as they arrive; -1 once the output is bad (later bytes are ignored) */
int gauge_feed(struct gauge *g, const char *data, size_t n);
/* one whole line, without its newline (gauge_feed's unit; tests and fuzzing call it) */
int gauge_line(struct gauge *g, const char *line, size_t n);
/* after the process ended: the last line, then the count; 0 when the output gave what was asked */
int gauge_finish(struct gauge *g);
void gauge_release(struct gauge *g);

#endif
