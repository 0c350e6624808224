/*
 * stats.h - the parser of `name: value` counter dumps (parse_stats.c), the
 * format of Pyston's -s output and of libkiln's kiln_stats_dump():
 *
 *   Stats:
 *     us_compiling: 18234
 *     num_traces: 12
 *   (End of stats)
 *
 * us_* are microsecond timers (unit "us"), everything else (num_* counts
 * and the rest) has no unit.  Each value becomes one per-pexec record.
 */
#ifndef KILN_STATS_H
#define KILN_STATS_H

#include "record.h"
#include "util.h"

/* a buffer (a captured stderr, a test, a fuzzer); `name` for messages */
int stats_parse_mem(const char *name, const char *buf, size_t len,
		    struct rec_sink *sink, struct kerr *e);
/* the plugin's parse function: a file */
int stats_parse_file(const struct instr_file *f, struct rec_sink *sink, struct kerr *e);

#endif
