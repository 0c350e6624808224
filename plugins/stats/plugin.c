/*
 * plugin.c - the `stats` plugin: a parser only (no runner, build is NULL).
 * Any VM that dumps `name: value` counters in the Pyston format (Pyston's -s,
 * libkiln's kiln_stats_dump()) can be given it through the config:
 *
 *   vms:
 *     pyston: {plugin: python, path: pyston, args: [-s], stats_from: stderr}
 *
 * `stats_from: stderr` parses the pexec's captured stderr, `stats_from: file`
 * the files of KILN_INSTR_DIR matching parse_glob (libkiln writes stats.txt
 * there).  The records are per-pexec scalars; see parse_stats.c for the rules.
 */
#include "plugin.h"
#include "stats.h"

const struct kiln_plugin plugin_stats = {
	.name = "stats",
	.language = NULL,
	.entry = NULL,
	.vm_default = NULL,
	.summary = "parser only: 'Stats:' ... '(End of stats)' counter dumps (Pyston -s, libkiln timers), with stats_from:",
	.records = "per pexec: every us_* timer (us) and num_*/other counter of the last stats block",
	.whole_process = 0,
	.build = NULL,
	.prepare = NULL,
	.parse_glob = "*stats.txt",
	.parse = stats_parse_file,
	.parse_mem = stats_parse_mem,
};
