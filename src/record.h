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
#include <sys/types.h>
#include "util.h"

enum rec_kind { REC_ITER, REC_PEXEC, REC_EVENT };

struct kiln_rec {
	enum rec_kind kind;
	long iter;         /* REC_ITER: 0-based iteration */
	const char *name;
	double value;      /* REC_ITER, REC_PEXEC */
	const char *unit;  /* may be NULL or "" */
	int64_t start_ns, end_ns; /* REC_EVENT */
	size_t nid;        /* in a rec_list: the index of name in its `names` (parsers leave it 0) */
};

/* a parser calls emit() once per record; a non-zero return stops it */
struct rec_sink {
	int (*emit)(void *ctx, const struct kiln_rec *r);
	void *ctx;
};

/*
 * An in-memory collection of records (what one pexec produced).  Names and
 * units are interned: a record's name points into `names` (its index is
 * nid), so grouping by name is an index, never a search.
 */
struct rec_list {
	struct kiln_rec *v;
	size_t n, alloc;
	struct strmap names, units;
};
#define REC_LIST_INIT { NULL, 0, 0, STRMAP_INIT, STRMAP_INIT }
/* a sink that copies records (and their strings) into a rec_list */
struct rec_sink rec_list_sink(struct rec_list *l);
void rec_list_clear(struct rec_list *l);
/*
 * One unit per series before its records are added together (the store
 * sums the records of one name and iteration): a per-iteration record in
 * another time unit (s, ms, us, ns) than its name's first record is
 * converted to that one; one in a unit that cannot be converted (bytes
 * against s, a unit against none) is taken out of the list, and the first
 * such is said in `why` (appended).  Returns how many were taken out.
 */
size_t rec_list_same_units(struct rec_list *l, struct strbuf *why);

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
/*
 * Where a parser reads a file from: a name inside a folder kiln opened.  In
 * a benchmark's instrumentation folder the files belong to the benchmark
 * user, who may have left links, FIFOs or devices there, so files are opened
 * only through instr_open(): never through a symbolic link (unless
 * `follow`, for files a user names on kiln's command line), never blocking,
 * only regular files, only those owned by `owner` (unless (uid_t)-1), and
 * only while their sizes fit in *budget (bytes left to read, NULL: no bound).
 */
struct instr_file {
	int dirfd;          /* the folder */
	const char *dir;    /* its name, for messages */
	const char *name;   /* the file */
	uid_t owner;
	int follow;
	uint64_t *budget;
};
/* open f->dir/NAME (NAME may be a sibling of f->name) as said above; a descriptor or -1 */
int instr_open(const struct instr_file *f, const char *name, off_t *size, struct kerr *e);
/* read f->dir/NAME whole (instr_open's rules) */
int instr_read(const struct instr_file *f, const char *name, struct strbuf *out, struct kerr *e);
/* f for a path given on the command line (follows links, any owner); instr_file_close() after */
int instr_file_path(struct instr_file *f, const char *path, struct kerr *e);
void instr_file_close(struct instr_file *f);
/* a parser on a path named on the command line: instr_file_path, parse, close */
typedef int (*instr_parse_fn)(const struct instr_file *f, struct rec_sink *sink, struct kerr *e);
int instr_parse_path(instr_parse_fn parse, const char *path, struct rec_sink *sink, struct kerr *e);
/* the generic parser on a file */
int rec_parse_jsonl_file(const struct instr_file *f, struct rec_sink *sink, struct kerr *e);

#endif
