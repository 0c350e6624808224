/*
 * convert.h - other tools' experiment configurations read as a kiln
 * config: ReBench's rebench.conf (convert-rebench.c) and Krun's .krun
 * files (convert-krun.c).  A converter writes the kiln config as YAML text
 * (what `kiln convert` prints and `kiln run` reads in its place) and lists
 * what it could not take over, each with the file's line, never dropping
 * it silently.  Text it cannot read at all is refused with FILE:LINE.
 */
#ifndef KILN_CONVERT_H
#define KILN_CONVERT_H

#include "util.h"

struct convert_out {
	struct strbuf yaml;      /* the kiln config */
	struct strvec unmapped;  /* "FILE:LINE: FIELD: what kiln does not take over (and what it does instead)" */
};
#define CONVERT_OUT_INIT { STRBUF_INIT, STRVEC_INIT }
void convert_out_release(struct convert_out *o);

/* does the text look like a ReBench configuration (a YAML mapping with executors or benchmark_suites, no vms)? */
int convert_rebench_sniff(const char *text, size_t len);
/*
 * A ReBench configuration `path` (its text) as a kiln config: the
 * experiment `experiment` (NULL: its default_experiment, "all": every
 * one).  0, or -1 with e set (exit 3, FILE:LINE).
 */
int convert_rebench(const char *path, const char *text, size_t len, const char *experiment, struct convert_out *out,
		    struct kerr *e);

/* does the path name a Krun config (*.krun)? */
int convert_krun_sniff(const char *path);
/*
 * A Krun configuration (Python, read as the subset Krun configs use: never
 * run) as a kiln config.  0, or -1 with e set (FILE:LINE of what it could
 * not read).
 */
int convert_krun(const char *path, const char *text, size_t len, struct convert_out *out, struct kerr *e);

/*
 * Any of them: the converter the file's name or text says; 0 converted,
 * 1 not another tool's config (a kiln config: out untouched), -1 error.
 */
int convert_any(const char *path, const char *text, size_t len, const char *experiment, struct convert_out *out,
		struct kerr *e);

/* s as a YAML double-quoted scalar (control characters, quotes and backslashes escaped) */
void yaml_quote(struct strbuf *sb, const char *s);

/*
 * The names kiln gives a ReBench run, the same for a converted config's
 * keys and for an import of ReBench's .data (fmt-rebench.c), so that `kiln
 * diff` pairs them: the VM is the executor, or EXECUTOR.SUITE when the
 * executor runs several suites; the variant is the suite.
 */
char *rebench_vm_name(const char *executor, const char *suite, int executor_suites);

#endif
