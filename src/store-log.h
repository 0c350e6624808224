/*
 * store-log.h - the pexec log: a pexec made durable by one write and one
 * flush, the least a durable pexec can cost (docs/results.md#the-pexec-log).
 *
 * Each pexec's commit, the statements store.c runs for it with their
 * values, is one record of RESULTS-log, a file beside the results that
 * kiln fills with zeros and flushes before it writes records into it: a
 * record is written at a 4 KiB-aligned offset with one pwrite and made
 * durable with one fdatasync, overwriting blocks the file already has (a
 * growing file would make each flush commit the filesystem's journal too).
 * store.c folds the records into the results file, in one transaction of
 * its own, between pexecs and now and then (store.c says when); after a
 * crash the next writer folds what the log holds.  Records are checked
 * before anything of them is used, because a log may come from elsewhere
 * beside a results file, and because the last record may be torn.
 *
 * A record, little-endian, starting where the one before it ended:
 *    0  "KLG1"
 *    4  u32  CRC-32 (zlib's) of bytes 8 .. 40 + len
 *    8  u64  generation: the results file's meta `pexec_log` when the
 *            record was written (a fold gives the file a new one)
 *   16  u64  the record's number in its generation: 0, 1, ...
 *   24  i64  the pexec's id
 *   32  u32  identity of the statements the values are for (CRC-32 of
 *            their SQL): a log of another kiln is not folded
 *   36  u32  len
 *   40  payload: ops, each u8 statement, u8 count of values, then each
 *       value: u8 type (SQLite's: 1 integer, 2 real, 3 text, 4 blob,
 *       5 null), then 8 bytes (integer, real as IEEE-754 bits) or a u32
 *       length and the bytes (text, blob)
 * then zeros to a multiple of 4096 bytes.  A record counts only while its
 * magic, CRC, generation and number are right: zeros, a torn write, and
 * what an earlier generation left further on never do.
 */
#ifndef KILN_STORE_LOG_H
#define KILN_STORE_LOG_H

#include <stdint.h>
#include <sys/types.h>

#include "util.h"

#define PLOG_BLOCK 4096
#define PLOG_HDR 40
/* the log is folded once its records fill this much (and a record never waits for more) */
#define PLOG_CAP ((off_t)4 << 20)
/* a record at most (a larger commit goes to the results file directly); readers refuse larger */
#define PLOG_REC_MAX ((size_t)1 << 20)
/* values of one op at most */
#define PLOG_MAXVALS 32

/* ---- a record being written ---- */
struct plog_rec {
	struct strbuf b;  /* header (filled by plog_rec_finish), then the payload */
	size_t count_at;  /* where the current op's count of values is */
	size_t len;       /* payload bytes, once finished (then b is padded) */
};
/* the payload: its ops, finished or not */
static inline const unsigned char *plog_rec_payload(const struct plog_rec *r, size_t *len)
{
	*len = r->len ? r->len : r->b.len - PLOG_HDR;
	return (const unsigned char *)r->b.buf + PLOG_HDR;
}
void plog_rec_start(struct plog_rec *r, int64_t pexec_id);
void plog_rec_op(struct plog_rec *r, int stmt);
void plog_rec_int(struct plog_rec *r, int64_t v);
void plog_rec_real(struct plog_rec *r, double v);
void plog_rec_text(struct plog_rec *r, const char *s);              /* NULL: null */
void plog_rec_blob(struct plog_rec *r, const void *p, size_t n);    /* p NULL: null */
/* header and CRC, zeros to the block: ready for plog_append */
void plog_rec_finish(struct plog_rec *r, uint64_t gen, uint64_t num, uint32_t table);
void plog_rec_release(struct plog_rec *r);

/* ---- a record's payload, read back ---- */
struct plog_val {
	int type;           /* 1 integer, 2 real, 3 text, 4 blob, 5 null */
	int64_t i;
	double d;
	const void *p;      /* text or blob bytes (in the record), n of them */
	uint32_t n;
};
struct plog_op {
	int stmt;
	int n;
	struct plog_val v[PLOG_MAXVALS];
};
/* the next op from *cur (advanced): 1, 0 at end, -1 malformed */
int plog_next_op(const unsigned char **cur, const unsigned char *end, struct plog_op *op);

struct plog_hdr {
	int64_t pexec_id;
	uint32_t table;
	const unsigned char *payload;  /* into the buffer given to plog_read */
	size_t len;
	off_t size;                     /* bytes the record takes in the file */
};
/*
 * The record at `at` if it is record `num` of generation `gen`: 1 and *h
 * (its payload in buf), 0 when there is none there (zeros, torn, another
 * generation or number, past the end), -1 on a read error.  A record is
 * at most `limit` bytes (the file's size).
 */
int plog_read(int fd, off_t at, off_t limit, uint64_t gen, uint64_t num, struct strbuf *buf, struct plog_hdr *h);
/*
 * Records read in order (a fold): the file read `ahead` bytes at a time
 * into buf, so a run of small records costs one pread per window, not one
 * per record.  h->payload points into buf until the next call.
 */
struct plog_reader {
	int fd;
	off_t limit;        /* the file's size */
	off_t at;           /* where buf's bytes come from */
	size_t ahead;
	struct strbuf *buf;
};
int plog_read_next(struct plog_reader *rd, off_t at, uint64_t gen, uint64_t num, struct plog_hdr *h);

/* ---- the file ---- */
struct plog {
	int fd;             /* -1: no log (commits go to the results file directly) */
	char *path;
	off_t end;          /* bytes of this generation's records */
	off_t size;         /* bytes the file has, written and flushed */
	uint64_t gen, num;  /* the generation and the next record's number */
};
#define PLOG_INIT { -1, NULL, 0, 0, 0, 0 }
/*
 * Open RESULTS-log for writing, creating it (with `mode`, and flushing its
 * folder) when missing, with at least `reserve` bytes of zeros, flushed; an exclusive
 * flock on it while it is open tells readers that a writer is at work.
 * Never through a symbolic link, never blocking on a FIFO: only a regular
 * file of kiln's own user with one name is used (anything else beside the
 * results is refused with an error naming it).
 */
int plog_open(struct plog *l, const char *path, mode_t mode, off_t reserve, struct kerr *e);
/* is there room for `len` more bytes before the log is full (PLOG_CAP)? */
int plog_room(const struct plog *l, size_t len);
/*
 * Write a finished record at the end (growing the file first when it is
 * too small: zeros, flushed), then, when `durable`, fdatasync: when it
 * returns 0 the record survives a power loss.  -1: nothing counts of it.
 */
int plog_append(struct plog *l, const struct plog_rec *r, int durable, struct kerr *e);
/* the zeros past the last record given back to the filesystem (the disk is full) */
void plog_trim(struct plog *l);
/* a new generation, from the start of the file (after a fold) */
void plog_restart(struct plog *l, uint64_t gen);
/* close; `remove`: unlink the file (it holds nothing to fold) */
void plog_close(struct plog *l, int remove);

/*
 * For readers: how many records of generation `gen` the log at path holds
 * (0 when there is none), -1 when a writer is at work on it.
 */
long plog_count(const char *path, uint64_t gen);
/* the log beside a results file: RESULTS-log */
char *plog_path(const char *results);
/* CRC-32 of the statement texts (the table's identity in records) */
uint32_t plog_table_id(const char *const *sql, size_t n);

#endif
