/*
 * record.h - the one model of instrumentation data.
 *
 * Whatever a VM wrote (PYPYLOG sections, GC callbacks, JMX beans, a stats
 * dump, generic *.kiln.jsonl lines), a parser turns it into records of three
 * kinds and hands each to a sink.  `kiln run` collects them into the pexec's
 * transaction (store.c), `kiln parse` prints them as JSON Lines, and the
 * report and plot code read them back without knowing which VM wrote them.
 *
 *   REC_ITER   a value for one iteration:   {"i":12,"name":"gc","value":0.0031,"unit":"s"}
 *   REC_PEXEC  a value for the whole pexec: {"name":"us_compiling","value":18234,"unit":"us"}
 *   REC_EVENT  an interval in the stream's clock: {"name":"gc-minor","start_ns":..,"end_ns":..}
 */
#ifndef KILN_RECORD_H
#define KILN_RECORD_H

#include <stdint.h>
#include "util.h"

enum rec_kind { REC_ITER, REC_PEXEC, REC_EVENT };

struct kiln_rec {
	enum rec_kind kind;
	long iter;         /* REC_ITER: 0-based iteration */
	const char *name;
	double value;      /* REC_ITER, REC_PEXEC */
	const char *unit;  /* may be NULL or "" */
	int64_t start_ns, end_ns; /* REC_EVENT */
};

/* a parser calls emit() once per record; a non-zero return stops it */
struct rec_sink {
	int (*emit)(void *ctx, const struct kiln_rec *r);
	void *ctx;
};

/* an in-memory collection of records (what one pexec produced) */
struct rec_list {
	struct kiln_rec *v;
	size_t n, alloc;
};
#define REC_LIST_INIT { NULL, 0, 0 }
/* a sink that copies records (and their strings) into a rec_list */
struct rec_sink rec_list_sink(struct rec_list *l);
void rec_list_clear(struct rec_list *l);

/* one record as one JSON line (no newline), the generic format */
void rec_to_json(const struct kiln_rec *r, struct strbuf *out);
/* a sink that prints JSON Lines to a FILE * */
struct rec_sink rec_print_sink(FILE *f);

/*
 * Parse generic records (JSON Lines, the format above) from a buffer.
 * `name` is used in error messages ("NAME:LINE: ...").  Stops at the first bad
 * line with e set; records emitted before it stand.
 */
int rec_parse_jsonl(const char *name, const char *buf, size_t len,
		    struct rec_sink *sink, struct kerr *e);
/* the same for a file */
int rec_parse_jsonl_file(const char *path, struct rec_sink *sink, struct kerr *e);

#endif
