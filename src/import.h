/*
 * import.h - measurements from elsewhere into a struct dataset, and back out:
 * Krun results files (JSON, optionally bzip2-compressed) and warmup_stats
 * CSV files.  kiln report/plot/diff/plan read them directly, kiln import
 * stores them, kiln export writes them.
 */
#ifndef KILN_IMPORT_H
#define KILN_IMPORT_H

#include <stddef.h>

#include "dataset.h"
#include "import-input.h"
#include "util.h"

enum imp_format { IMP_UNKNOWN, IMP_KRUN, IMP_CSV, IMP_KILN, IMP_OTHER /* one of fmt.h's */ };

/* the format of a file from its name (.json, .json.bz2, .csv, .db) and first bytes */
enum imp_format imp_detect(const char *path);

/*
 * Where a streaming reader puts what it reads (import-krun.c), pexec by
 * pexec, so that a large file is never in memory whole: a dataset (report,
 * plot) or a results file being written (kiln import, store_writer).  key
 * returns the key's index (0, 1, ...), pexec a handle for the pexec's
 * times, series and finish; times may come again for a pexec (the later
 * replace the earlier); every pexec is finished once, after all its data.
 * meta: "machine", "audit" (a JSON object), "config" (text), "extra" (a
 * JSON object of the file's other fields).  Each returns -1 with e set.
 */
struct imp_sink {
	void *ctx;
	long (*key)(void *ctx, const char *bench, const char *vm, const char *variant, struct kerr *e);
	long (*pexec)(void *ctx, long key, long num, struct kerr *e);
	int (*times)(void *ctx, long px, const double *v, size_t n, struct kerr *e);
	int (*series)(void *ctx, long px, const char *name, const char *unit, const double *v, size_t n,
		      struct kerr *e);
	int (*finish)(void *ctx, long px, enum ds_status st, double duration, struct kerr *e);
	int (*meta)(void *ctx, const char *name, const char *value, struct kerr *e);
};
/*
 * A Krun results file from `in` into a sink; name is for messages.  instr:
 * Krun's instrumentation folder (imp_krun_instr_dir), read when it exists
 * (its files' {name: [value per iteration]} series go to their pexecs).
 */
int imp_krun_stream(const char *name, struct imp_input *in, const char *instr, const struct imp_sink *sink,
		    struct kerr *e);

/* read a Krun results file (.json or .json.bz2, detected by content) into a dataset */
int imp_krun_file(const char *path, struct dataset *ds, struct kerr *e);
/* the same from memory (name is used in messages; data may be bzip2) */
int imp_krun_buf(const char *name, const char *data, size_t len, struct dataset *ds, struct kerr *e);
/* the same from an input opened by the caller */
int imp_krun_input(const char *name, struct imp_input *in, const char *instr, struct dataset *ds, struct kerr *e);
/*
 * kiln import of a Krun file: streamed into a new results file (nothing
 * held whole), the audit kept as audit "krun", the config as config_text,
 * the other fields as meta krun_extra, ETAs as the pexecs' durations.
 */
int imp_krun_to_store(const char *path, const char *results, const char *name, struct kerr *e);
/* read a warmup_stats CSV file */
int imp_csv_file(const char *path, struct dataset *ds, struct kerr *e);
int imp_csv_buf(const char *name, const char *data, size_t len, struct dataset *ds, struct kerr *e);
/*
 * The VM and variant a CSV's bare benchmark names get (warmup_stats'
 * csv_to_krun_json -v VM -l LANGUAGE: bench:VM:default-LANGUAGE); NULL
 * members keep "unknown" and "default".
 */
struct imp_names {
	const char *vm, *variant;
};
int imp_csv_file_named(const char *path, const struct imp_names *nm, struct dataset *ds, struct kerr *e);
int imp_csv_buf_named(const char *name, const char *data, size_t len, const struct imp_names *nm, struct dataset *ds,
		      struct kerr *e);

/*
 * Any input kiln accepts: Krun, CSV or a kiln results file (store.c).
 * The one entry point report/plot/diff/plan use.
 */
int imp_load(const char *path, struct dataset *ds, struct kerr *e);

/*
 * Write a Krun results file that Krun's own code and warmup_stats read as
 * theirs (import-krun.c; docs/kiln-export.md): wallclock_times, pexec_flags
 * (C ok, T timeout, E anything else, with an empty list of times as Krun
 * writes it), core_cycle_counts/aperf_counts/mperf_counts with one list
 * per core (from series cycles.coreN...; an empty list per core for a pexec
 * that did not complete), eta_estimates (each pexec's duration), audit
 * (an imported file's own, else uname as `uname -a`'s line, cpuinfo,
 * packages... and kiln's whole audit under "kiln"), config, error_flag,
 * reboots; kiln_status and kiln_partial_times when some pexec was tainted
 * or left partial times, so that nothing kiln measured is lost.  The
 * other series go to Krun's instrumentation folder (imp_krun_instr_dir),
 * one bzip2 JSON file per pexec.  bzip2-compressed when path ends in .bz2.
 */
struct fmt_extra;
int export_krun(const struct dataset *ds, const char *path, const struct fmt_extra *x, struct kerr *e);
int export_krun_text(const struct dataset *ds, const struct fmt_extra *x, struct strbuf *out, struct kerr *e);
/* the instrumentation folder of a Krun file written at path (fmt.h's write_beside); -1 with e set */
int export_krun_instr(const struct dataset *ds, const char *path, struct kerr *e);
/* X_instr_data beside X_results.json.bz2 or X.json.bz2 (malloc'd) */
char *imp_krun_instr_dir(const char *results);
/* write a warmup_stats CSV: pexec_idx,bench,0,1,... with "crash" for failed pexecs */
int export_csv(const struct dataset *ds, const char *path, struct kerr *e);
/* the same as text, added to out (fmt.h's table writes it) */
int export_csv_text(const struct dataset *ds, struct strbuf *out, struct kerr *e);

#endif
