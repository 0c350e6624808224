/*
 * kiln.h - libkiln, the public API for iteration runners and VM authors.
 *
 * Small and stable: a monotonic raw clock, per-iteration hardware counters,
 * the writer of the result stream (runner protocol v1, docs/protocol.md),
 * the writer of generic instrumentation records, and Pyston-style internal
 * timers and counters dumped in the `stats` format.  Every name is prefixed
 * kiln_; no function allocates inside a timed region.
 */
#ifndef KILN_H
#define KILN_H

#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KILN_PROTOCOL 1

/* ---- clock ---- */

/* CLOCK_MONOTONIC_RAW in nanoseconds: never slewed by NTP; `perf record -k monotonic_raw` */
uint64_t kiln_clock_ns(void);
/* CPU time of the whole process (all threads) in nanoseconds, CLOCK_PROCESS_CPUTIME_ID */
uint64_t kiln_cpu_ns(void);

/* ---- hardware / software counters (perf_event_open) ---- */

/*
 * Open the counters named in `spec`, a comma-separated list such as
 * "cycles,instructions,aperf,mperf,task-clock"; NULL takes $KILN_COUNTERS,
 * and an empty list opens none.  A counter the machine lacks is not an
 * error: it is listed as unavailable and never reported as zero.
 */
struct kiln_counters;
struct kiln_counters *kiln_counters_open(const char *spec);
/* the available counters, in order: their names and how many */
int kiln_counters_count(const struct kiln_counters *c);
const char *kiln_counters_name(const struct kiln_counters *c, int i);
/* requested counters that could not be opened (and why, for humans) */
int kiln_counters_unavailable_count(const struct kiln_counters *c);
const char *kiln_counters_unavailable_name(const struct kiln_counters *c, int i);
const char *kiln_counters_unavailable_reason(const struct kiln_counters *c, int i);
/* read the current values of all available counters into out[count] */
void kiln_counters_read(struct kiln_counters *c, uint64_t *out);
void kiln_counters_close(struct kiln_counters *c);

/* ---- result stream (protocol v1) ---- */

/*
 * Open the result stream on `fd` (-1: $KILN_RESULT_FD) and write its header.
 * `counters` may be NULL.  Returns NULL with errno set on failure.
 */
struct kiln_stream;
struct kiln_stream *kiln_stream_open(int fd, const struct kiln_counters *counters);
/*
 * Write one iteration: index, wall time, and counter deltas (count as given
 * by kiln_counters_count, may be NULL when there are none).  Call after the
 * iteration's clock stopped, never inside the timed region.  0 or -1.
 */
int kiln_stream_iter(struct kiln_stream *s, long i, uint64_t wall_ns, const uint64_t *counters);
/*
 * The same with the iteration's window: start_ns and end_ns are the two
 * kiln_clock_ns() reads around the iteration (wall time is their
 * difference), cpu_ns the process CPU time it took (kiln_cpu_ns() read just
 * outside them), or -1 when not measured.  kiln profile places samples in
 * iterations by these windows.
 */
int kiln_stream_iter_at(struct kiln_stream *s, long i, uint64_t start_ns, uint64_t end_ns, int64_t cpu_ns,
			const uint64_t *counters);
/* write {"done":true}, flush, close; 0 or -1 */
int kiln_stream_done(struct kiln_stream *s);

/* ---- generic instrumentation records ---- */

/*
 * Open KILN_INSTR_DIR/<name>.kiln.jsonl for records; NULL if the variable is
 * unset or the file cannot be made.  Records are buffered; call close.
 */
struct kiln_instr;
struct kiln_instr *kiln_instr_open(const char *name);
int kiln_instr_iter(struct kiln_instr *w, long i, const char *name, double value, const char *unit);
int kiln_instr_pexec(struct kiln_instr *w, const char *name, double value, const char *unit);
int kiln_instr_event(struct kiln_instr *w, const char *name, uint64_t start_ns, uint64_t end_ns);
int kiln_instr_close(struct kiln_instr *w);

/* ---- internal timers and counters for VM authors (Pyston conventions) ---- */

/*
 * Nested named timers: kiln_timer_start("us_compiling") ...
 * kiln_timer_stop().  Names starting us_ are reported in microseconds; a name
 * that is a prefix of another (us_compiling, us_compiling_irgen) is, by
 * convention, the superset.  kiln_count("num_traces", 1) adds to a counter.
 * Cheap enough to leave in a release build.  Thread-safe: each thread has
 * its own stack of running timers and its own totals, summed at the dump;
 * stop a timer on the thread that started it.
 */
void kiln_timer_start(const char *name);
void kiln_timer_stop(void);
void kiln_count(const char *name, int64_t n);
/*
 * Dump every timer and counter in the stats format:
 *   Stats:\n  us_compiling: 18234\n  num_traces: 12\n(End of stats)\n
 * to `f`, or, when f is NULL, to KILN_INSTR_DIR/stats.txt if that variable is
 * set and to stderr otherwise.  kiln_stats_atexit() arranges this at exit.
 */
void kiln_stats_dump(FILE *f);
void kiln_stats_atexit(void);
void kiln_stats_reset(void);

#ifdef __cplusplus
}
#endif
#endif
