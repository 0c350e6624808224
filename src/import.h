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
#include "util.h"

enum imp_format { IMP_UNKNOWN, IMP_KRUN, IMP_CSV, IMP_KILN, IMP_OTHER /* one of fmt.h's */ };

/* the format of a file from its name (.json, .json.bz2, .csv, .db) and first bytes */
enum imp_format imp_detect(const char *path);

/* read a Krun results file (.json or .json.bz2, detected by content) */
int imp_krun_file(const char *path, struct dataset *ds, struct kerr *e);
/* the same from memory (name is used in messages; data may be bzip2) */
int imp_krun_buf(const char *name, const char *data, size_t len, struct dataset *ds, struct kerr *e);
/* read a warmup_stats CSV file */
int imp_csv_file(const char *path, struct dataset *ds, struct kerr *e);
int imp_csv_buf(const char *name, const char *data, size_t len, struct dataset *ds, struct kerr *e);

/*
 * Any input kiln accepts: Krun, CSV or a kiln results file (store.c).
 * The one entry point report/plot/diff/plan use.
 */
int imp_load(const char *path, struct dataset *ds, struct kerr *e);

/*
 * Write a Krun results file: wallclock_times, core_cycle_counts (when a
 * "cycles" series exists), pexec_flags (C ok, E failed, T timeout), audit,
 * config, and every instrumentation series under "instr_data" as Krun's
 * instrumentation does ({key: [{name: [value per iteration]} per pexec]}).
 * bzip2-compressed when path ends in .bz2.  config_text and audit_json (a
 * JSON object as text) may be NULL.
 */
int export_krun(const struct dataset *ds, const char *path, const char *config_text, const char *audit_json,
		struct kerr *e);
/* write a warmup_stats CSV: pexec_idx,bench,0,1,... with "crash" for failed pexecs */
int export_csv(const struct dataset *ds, const char *path, struct kerr *e);
/* the same two as text, added to out (fmt.h's table writes them) */
int export_krun_text(const struct dataset *ds, const char *config_text, const char *audit_json, struct strbuf *out,
		     struct kerr *e);
int export_csv_text(const struct dataset *ds, struct strbuf *out, struct kerr *e);

/*
 * How large an input may become once decompressed: `ratio` times its
 * compressed size, at least `floor`, never more than `max` (bytes), which
 * also bounds a plain input file.  From KILN_INFLATE_RATIO,
 * KILN_INFLATE_FLOOR_MB and KILN_INPUT_MAX_MB, or these defaults
 * (docs/security.md#input-files).
 */
#define IMP_INFLATE_RATIO 200
#define IMP_INFLATE_FLOOR_MB 4
#define IMP_INPUT_MAX_MB 2048
struct imp_bounds {
	size_t ratio, floor, max;
};
int imp_bounds(struct imp_bounds *b, struct kerr *e);
/* a whole input file as it is (compressed or not), within KILN_INPUT_MAX_MB */
int imp_read_input(const char *path, struct strbuf *sb, struct kerr *e);
size_t imp_inflate_limit(const struct imp_bounds *b, size_t compressed);

/* bzip2 helpers (used by the writers and by the tests); imp_bunzip is bounded as above */
int imp_bunzip(const char *name, const char *data, size_t len, struct strbuf *out, struct kerr *e);
int imp_bzip(const char *data, size_t len, struct strbuf *out, struct kerr *e);

#endif
