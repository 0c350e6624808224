/*
 * stream.h - reading a runner's result stream (protocol v1) as it arrives.
 *
 * The runner writes JSON Lines to KILN_RESULT_FD; exec.c hands the bytes to
 * stream_feed() in whatever chunks the pipe gives.  The reader keeps only
 * the iterations (wall time, counters, and the optional window in the
 * runner's clock and CPU time), checks every rule of the protocol, and after
 * the process ended says whether the stream was complete.  A bad stream
 * keeps its good iterations, marked partial, never silently used.
 */
#ifndef KILN_STREAM_H
#define KILN_STREAM_H

#include <stdint.h>
#include <time.h>
#include "util.h"

#define STREAM_MAX_LINE (1 << 20)
#define STREAM_MAX_COUNTERS 32

struct stream {
	long expected;          /* iterations the pexec was asked for */
	int have_header, done;
	char *clock;
	char *counter_names[STREAM_MAX_COUNTERS];
	size_t ncounters;
	struct strvec unavailable;
	int64_t *wall;          /* n iterations */
	int64_t *counters;      /* n x ncounters */
	int windows;            /* iterations carry start_ns/end_ns: -1 not yet known, 0 no, 1 yes */
	int64_t *start, *end;   /* n iterations when windows, in the header's clock */
	int64_t *cpu;           /* n iterations: cpu_ns, INT64_MIN where not given */
	size_t n, alloc;
	struct strbuf line;     /* an unfinished line */
	long lineno;
	struct strbuf error;    /* the first protocol violation, empty if none */
};

void stream_init(struct stream *s, long expected);
/* feed bytes; returns -1 once the stream is bad (later bytes are ignored) */
int stream_feed(struct stream *s, const char *data, size_t n);
/* after the process ended: checks done and the count; 0 if complete */
int stream_finish(struct stream *s);
void stream_release(struct stream *s);
/*
 * The clock id of a header's clock name, for the clocks perf can record
 * with (`perf record -k`): monotonic, monotonic_raw, boottime, realtime,
 * tai.  -1 for any other name.
 */
clockid_t stream_clock_id(const char *name);

#endif
