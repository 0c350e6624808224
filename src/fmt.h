/*
 * fmt.h - other tools' results files, one file format per source file
 * (fmt-hyperfine.c, fmt-pyperf.c, fmt-rebench.c, ...) behind one table, the
 * way plugins and commands are registered.  A format reads a file's text
 * into a struct dataset (report, plot, diff, plan and import take it from
 * there) and/or writes one from a dataset (kiln export, kiln bench's
 * --export-*).  import.c keeps the Krun and warmup_stats readers it had and
 * registers them here too, so that export and import name every format the
 * same way.
 *
 * Every reader takes untrusted text: it is bounded (FMT_MAX_* below and the
 * input's size), has a fuzz target (tests/fuzz/fuzz_fmt_NAME.c) and names
 * the file, the line or the JSON path, and the field in its errors (exit 3).
 */
#ifndef KILN_FMT_H
#define KILN_FMT_H

#include <stddef.h>

#include "dataset.h"
#include "util.h"

/* bounds every reader keeps (besides the input's own size) */
#define FMT_MAX_KEYS 100000L        /* benchmarks (keys) in one file */
#define FMT_MAX_PEXECS 10000000L    /* runs of one key */
#define FMT_MAX_VALUES 100000000L   /* values in one file */

/* what a writer may add beside the measurements (each may be NULL) */
struct fmt_extra {
	const char *config_text;  /* the experiment's config (Krun's "config") */
	const char *audit_json;   /* the audit at the start, a JSON object */
	const char *bench_json;   /* kiln bench's description of its commands (meta "bench_commands") */
	const char *krun_audit;   /* an imported Krun file's own audit (audit "krun"), written back as it was */
	const char *krun_extra;   /* an imported Krun file's other fields (meta "krun_extra"), a JSON object */
	const char *pyperf_source; /* an imported pyperf file as it was (meta "pyperf_source"): its metadata and exact values */
	/* hyperfine's markup tables (kiln bench --sort, -u): rows by mean, not in order; "s", "ms", "us" or NULL: fitting */
	int sort_by_mean;
	const char *time_unit;
};

struct kiln_format {
	const char *name;         /* --format NAME */
	const char *summary;      /* one line for --help and the docs */
	const char *suffix;       /* the output's default suffix (".json") */
	/*
	 * Is `text` (a whole file, decompressed) this format's?  Only from its
	 * first bytes: it must not parse what another format would.  NULL: the
	 * format is detected by import.c (Krun, warmup_stats CSV).
	 */
	int (*sniff)(const char *text, size_t len);
	/* text into ds (name is for messages); -1 with e set (KEXIT_CONFIG) */
	int (*read)(const char *name, const char *text, size_t len, struct dataset *ds, struct kerr *e);
	/* ds as this format's text into out; NULL: not written */
	int (*write)(const struct dataset *ds, const struct fmt_extra *x, struct strbuf *out, struct kerr *e);
	/* what the format keeps beside a file written at path (Krun's instrumentation folder); NULL: nothing */
	int (*write_beside)(const struct dataset *ds, const char *path, struct kerr *e);
};

/* the table, NULL-terminated, and a lookup by name */
extern const struct kiln_format *const kiln_formats[];
const struct kiln_format *fmt_find(const char *name);
/* "krun, csv, pyperf, ..." of the formats that write (or read), for messages */
void fmt_names(int writers, struct strbuf *out);

/*
 * The file at path, whole and decompressed (gzip or bzip2, by content),
 * within the input bound.  -1 with e set.
 */
int fmt_read_input(const char *path, struct strbuf *out, struct kerr *e);
/* which sniffing format claims the file at path, from its first bytes; NULL: none */
const struct kiln_format *fmt_sniff(const char *path);
/*
 * Read path when a sniffing format claims it: 0 read, 1 none of them
 * (import.c's own detection goes on), -1 error.
 */
int fmt_load(const char *path, struct dataset *ds, struct kerr *e);
/* text to path, gzip- or bzip2-compressed when the name ends in .gz or .bz2 */
int fmt_write_text(const char *path, const char *text, size_t len, struct kerr *e);
/* write ds in format f to path (".gz"/".bz2" compress where the format allows) */
int fmt_write_file(const struct kiln_format *f, const struct dataset *ds, const struct fmt_extra *x,
		   const char *path, struct kerr *e);

/* ---- shared by the formats ---- */

/* text as a JSON object, duplicate keys refused; NULL with e set (file:line:col) */
typedef struct json_t json_t;
json_t *fmt_json_load(const char *name, const char *text, size_t len, struct kerr *e);
/* the first JSON object key of text ("results" of {"results": ...}), copied into key; 0 if it has one */
int fmt_json_first_key(const char *text, size_t len, char *key, size_t keylen);
/* the dataset's key for bench:vm:variant of an outside file, made when missing (NULL if it cannot be) */
struct ds_key *fmt_key(struct dataset *ds, const char *bench, const char *vm, const char *variant);
/*
 * A time in seconds as text: a whole number of nanoseconds (what kiln
 * stores) as its exact decimal (1563 us: 0.001563, not
 * 0.0015629999999999999), any other value as the shortest decimal that
 * reads back as the same double
 */
void fmt_seconds(struct strbuf *sb, double s);
/*
 * How `kiln bench` names a command's key, and so hyperfine's results too:
 * bench is the command's display name (name, else the command), vm the
 * base name of its program (the command's first word), variant
 * "default-command"; ':' (it separates bench:vm:variant) becomes '_'.
 * Both malloc'd.
 */
void fmt_command_names(const char *command, const char *name, char **bench, char **vm);
/* the key of that command in ds, a new one: " (2)", " (3)"... added to a name already taken */
struct ds_key *fmt_command_key(struct dataset *ds, const char *command, const char *name);
/* a per-pexec scalar of p by name, NAN when absent */
double fmt_scalar(const struct ds_pexec *p, const char *name);

/* the formats (each fmt-NAME.c) */
extern const struct kiln_format fmt_hyperfine;
extern const struct kiln_format fmt_hyperfine_md;
extern const struct kiln_format fmt_hyperfine_csv;
extern const struct kiln_format fmt_hyperfine_adoc;
extern const struct kiln_format fmt_hyperfine_org;
extern const struct kiln_format fmt_pyperf;
extern const struct kiln_format fmt_rebench;
extern const struct kiln_format fmt_krun;
extern const struct kiln_format fmt_csv;

#endif
