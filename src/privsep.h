/*
 * privsep.h - privilege separation for what a benchmark leaves behind.
 *
 * kiln's core runs with kiln's privileges (often root); everything a pexec
 * wrote into its instrumentation folder belongs to the benchmark user and is
 * hostile until proven otherwise.  So the core never reads it: after the
 * runner has gone, a collector child (privsep-collect.c) drops to the
 * benchmark user, reads the folder, runs the plugin's parser, the stats
 * parser and an external parser command, compresses kept logs, and sends
 * the results back over one pipe as typed, bounded messages.  The monitor
 * (privsep-monitor.c, in the core) accepts only the message types of its
 * table, checks every field and every bound, and is the only one that
 * writes: records into the pexec's rec_list, kept logs into files it makes
 * itself below the results.  The OpenSSH monitor / monitor_wrap split, for
 * one job.
 *
 * Messages: a header {u32 type, u32 length} and a payload of at most
 * PS_MSG_MAX bytes, little-endian integers and doubles, strings as u16
 * length + bytes (no NUL).
 *   PS_ITER      i64 iteration, f64 value, str name, str unit
 *   PS_SCALAR    f64 value, str name, str unit
 *   PS_EVENT     i64 start_ns, i64 end_ns, str name
 *   PS_ERROR     str text (the first one becomes the pexec's instr_error)
 *   PS_LOG_OPEN  u8 compressed, str file name   (keep_log only)
 *   PS_LOG_DATA  bytes                          (between OPEN and END)
 *   PS_LOG_END
 *   PS_LOG_ERROR str text (a log that could not be kept: a warning)
 *   PS_DONE      the collector finished
 */
#ifndef KILN_PRIVSEP_H
#define KILN_PRIVSEP_H

#include <stdint.h>
#include <sys/types.h>

#include "record.h"
#include "util.h"

struct kiln_plugin;

enum ps_type {
	PS_ITER = 1,
	PS_SCALAR,
	PS_EVENT,
	PS_ERROR,
	PS_LOG_OPEN,
	PS_LOG_DATA,
	PS_LOG_END,
	PS_LOG_ERROR,
	PS_DONE,
};

#define PS_MSG_MAX   65536   /* payload bytes of one message */
#define PS_NAME_MAX  256     /* a record's name */
#define PS_UNIT_MAX  32      /* a record's unit */
#define PS_TEXT_MAX  2048    /* an error's text */
#define PS_FILE_MAX  200     /* a kept log's file name */
#define PS_FILES_MAX 4096    /* files in one instrumentation folder (and kept logs of one pexec) */
#define PS_LOG_FILE_BYTES 4096 /* what a kept log file costs against limits.log_mb beside its bytes: a block */

/* what one pexec's instrumentation may cost (limits.instr_* in the config) */
struct ps_bounds {
	uint64_t bytes;          /* read from the folder */
	uint64_t log_bytes;      /* kept (compressed) by keep_log */
	size_t records;
	size_t names;            /* distinct record names */
	long iterations;         /* a per-iteration record's index is below this */
	double timeout_s;        /* for the whole collection */
};
struct limits_conf;
/* the bounds the config's limits give (limits.instr_*, limits.log_mb) for pexecs of `iterations` */
void ps_bounds_of(struct ps_bounds *b, const struct limits_conf *l, long iterations);

/* what to collect, and as whom */
struct ps_request {
	const char *dir;                 /* the pexec's KILN_INSTR_DIR, NULL: none */
	const struct kiln_plugin *pl;    /* its parser of the VM's own files (may be NULL) */
	int stats_files;                 /* stats_from: file (Stats: dumps in the folder) */
	const char *stats_text;          /* stats_from: stderr (the captured text), NULL: none */
	size_t stats_len;
	char **parser_argv;              /* an external parser command, NULL: none */
	char **parser_envp;              /* its environment (the benchmark's) */
	int keep_log;
	int set_user;                    /* drop to uid/gid (platform.user) */
	uid_t uid;
	gid_t gid;
	const int *join_ns;              /* the pexec's machine, joined first (isolate.h), NULL: none */
	struct ps_bounds b;
};

/* what came back */
struct ps_result {
	struct rec_list recs;
	struct strbuf error;    /* the first instrumentation error, "" if none */
	struct strbuf log_error; /* keep_log: what could not be kept (a warning) */
	uint64_t log_bytes;     /* kept */
};

/*
 * Collect the instrumentation of one pexec (privsep-monitor.c): fork the
 * collector, read its messages, and keep what passes.  logs_dirfd: a
 * folder kiln made for the kept logs (keep_log), else -1.  Returns 0
 * (problems with the benchmark's files are in r->error, never fatal), -1
 * with e set when kiln itself could not work (no fork, no pipe).
 */
int ps_collect(const struct ps_request *rq, int logs_dirfd, struct ps_result *r, struct kerr *e);
void ps_result_release(struct ps_result *r);

/* the collector, in the child (privsep-collect.c): never returns */
KILN_NORETURN void ps_collector_main(const struct ps_request *rq, int wfd);

/*
 * The monitor's side of the channel on a buffer of messages (what
 * ps_collect does with the pipe's bytes): for tests and the fuzzer.
 * Returns 0 when the messages ended with PS_DONE, -1 otherwise (r->error
 * says why).
 */
int ps_monitor_feed(const struct ps_request *rq, int logs_dirfd, const void *buf, size_t len, struct ps_result *r);

#endif
