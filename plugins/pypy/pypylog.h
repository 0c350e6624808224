/*
 * pypylog.h - the PYPYLOG parser of the pypy plugin (parse_pypylog.c).
 *
 * A PYPYLOG is a stream of section starts and stops with timestamps in
 * PyPy's own clock ("ticks": the TSC on x86):
 *
 *   [2f1dd6c3b8b] {gc-collect-step
 *   [2f1dd6c8b01] gc-collect-step}
 *
 * plus, in full-logging mode, section content lines (ignored here).  The
 * runner marks every iteration with a "kiln-iter" section and writes a
 * calibration (pairs of tick and CLOCK_MONOTONIC_RAW readings) so that ticks
 * become seconds.  The parser is streaming: memory does not depend on the
 * size of the log; it can be fed any chunking of the bytes.
 */
#ifndef KILN_PYPYLOG_H
#define KILN_PYPYLOG_H

#include <stdint.h>
#include "record.h"
#include "util.h"

/* ticks -> nanoseconds of the result stream's clock */
struct pypylog_calib {
	double ns_per_tick;
	int64_t tick0;     /* one calibration point, for converting instants */
	int64_t ns0;
};

/* calibration.json as the runner writes it; FILE:field errors */
int pypylog_calib_parse(const char *name, const char *buf, size_t len,
			struct pypylog_calib *c, struct kerr *e);

struct pypylog;
/* `name` is used in messages ("NAME:LINE: ..."); records go to sink */
struct pypylog *pypylog_new(const char *name, const struct pypylog_calib *cal,
			    struct rec_sink *sink);
/* feed the next bytes; per-iteration records are emitted as iterations end */
int pypylog_feed(struct pypylog *p, const char *buf, size_t len, struct kerr *e);
/* end of input: checks for truncation and unfinished sections, emits the per-pexec totals */
int pypylog_finish(struct pypylog *p, struct kerr *e);
void pypylog_free(struct pypylog *p);

/*
 * Which paths lines go through before the byte-by-byte reference: 2
 * (default): the AVX2 path when the CPU has AVX2 and BMI2 (checked at run
 * time; else as 1), then the word-at-a-time one; 1: only the word-at-a-time
 * one; 0: only the reference.  All give the same records; tests and the
 * fuzzer check that.
 */
extern int pypylog_fast;
/* the widest path this CPU runs: "avx2", "sse2" or "portable" */
const char *pypylog_path(void);

/* all of it on a buffer (tests, fuzzing) */
int pypylog_parse_mem(const char *name, const char *buf, size_t len,
		      const struct pypylog_calib *cal, struct rec_sink *sink, struct kerr *e);
/*
 * The plugin's parse function: PATH (plain or .zst) with the calibration
 * from calibration.json in the same directory.
 */
int pypylog_parse_file(const struct instr_file *f, struct rec_sink *sink, struct kerr *e);

/*
 * Keep a raw log: compress PATH to PATH.zst (libzstd, streaming) and remove
 * PATH once PATH.zst is complete.  Call it after parsing.
 */
int pypylog_compress(const char *path, struct kerr *e);

#endif
