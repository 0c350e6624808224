/*
 * util.h - the small things every part of kiln uses: allocation that cannot
 * fail, the one error-reporting style (struct kerr), string buffers (strbuf),
 * argv/env vectors (strvec) and the one way to read a file.
 *
 * Error style: a function that can fail takes a `struct kerr *` and returns -1
 * after kerr_set(); the caller either adds context or reports it with
 * kerr_print().  Only the command entry points exit.  Messages that point into
 * a file read "FILE:LINE:COL: field: what is wrong".
 */
#ifndef KILN_UTIL_H
#define KILN_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define KILN_VERSION "0.1.0"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define KILN_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define KILN_NORETURN __attribute__((noreturn))

/* exit codes, stable across versions (docs/exit-codes.md) */
enum {
	KEXIT_OK = 0,
	KEXIT_FAIL = 1,     /* the job ran but something in it failed */
	KEXIT_USAGE = 2,    /* bad command line */
	KEXIT_CONFIG = 3,   /* bad config or input file */
	KEXIT_LOCKED = 4,   /* results file in use by another kiln */
	KEXIT_STORE = 5,    /* results file unusable (schema, corruption, disk full) */
	KEXIT_INTERRUPTED = 130,
};

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) KILN_PRINTF(1, 2);

/* growable byte string, always NUL-terminated */
struct strbuf {
	char *buf;
	size_t len, alloc;
};
#define STRBUF_INIT { NULL, 0, 0 }
void sb_grow(struct strbuf *sb, size_t extra);
void sb_add(struct strbuf *sb, const void *data, size_t n);
void sb_adds(struct strbuf *sb, const char *s);
/* s as one POSIX shell word: as it is when it holds only characters no shell gives a meaning, else single-quoted */
void sb_add_shword(struct strbuf *sb, const char *s);
void sb_addc(struct strbuf *sb, char c);
void sb_addf(struct strbuf *sb, const char *fmt, ...) KILN_PRINTF(2, 3);
void sb_vaddf(struct strbuf *sb, const char *fmt, va_list ap);
void sb_reset(struct strbuf *sb);
void sb_release(struct strbuf *sb);
char *sb_detach(struct strbuf *sb);
static inline const char *sb_str(const struct strbuf *sb) { return sb->buf ? sb->buf : ""; }

/*
 * Lines out of chunks as they arrive (a pipe's reads): fn gets each whole
 * line without its newline, `part` keeps an unfinished one between calls.
 * A line over `max` bytes is not assembled: LINE_TOO_LONG; fn's -1 stops
 * the split and is returned.  The last line without a newline stays in
 * `part` for the caller to give fn when the input ends.
 */
#define LINE_TOO_LONG (-2)
typedef int (*line_fn)(void *ctx, const char *line, size_t n);
int line_split(struct strbuf *part, size_t max, const char *data, size_t n, line_fn fn, void *ctx);
/* the input ended: the last line, when it had no newline, to fn (its return, else 0) */
int line_split_end(struct strbuf *part, line_fn fn, void *ctx);

/* NULL-terminated vector of owned strings: argv arrays and environments */
struct strvec {
	char **v;
	size_t n, alloc;
};
#define STRVEC_INIT { NULL, 0, 0 }
void sv_push(struct strvec *sv, const char *s);
void sv_pushf(struct strvec *sv, const char *fmt, ...) KILN_PRINTF(2, 3);
/* set NAME=VALUE, replacing an existing NAME= entry */
void sv_setenv(struct strvec *sv, const char *name, const char *value);
const char *sv_getenv(const struct strvec *sv, const char *name);
void sv_clear(struct strvec *sv);
/* sort sv's strings by strcmp */
void sv_sort(struct strvec *sv);
/* the NULL-terminated array (never NULL itself) */
char **sv_array(struct strvec *sv);

/* the error carried back to whoever can report it */
struct kerr {
	struct strbuf msg;
	int code; /* a KEXIT_* value suggested for the command's exit */
};
#define KERR_INIT { STRBUF_INIT, KEXIT_FAIL }
int kerr_set(struct kerr *e, const char *fmt, ...) KILN_PRINTF(2, 3);
int kerr_setc(struct kerr *e, int code, const char *fmt, ...) KILN_PRINTF(3, 4);
/* prefix more context: "context: old message" */
int kerr_wrap(struct kerr *e, const char *fmt, ...) KILN_PRINTF(2, 3);
void kerr_print(const struct kerr *e);
void kerr_release(struct kerr *e);

/*
 * Untrusted text made safe for where it is written, one target each: keys,
 * names, units, messages, audit text, failure reasons and captured output
 * come from input files or benchmarks, and reach terminals, gnuplot, HTML,
 * LaTeX, CSV, Markdown and JSON.  Every target first makes the text
 * visible: valid UTF-8 without control characters, where a byte that is
 * not UTF-8 is written \xNN, a control character \n, \r, \t or \xNN
 * (ESC is \x1b), and C1 controls, bidirectional overrides and line
 * separators \uNNNN; then it escapes its own metacharacters in what is
 * left (the escapes included).  JSON keeps control characters (jansson
 * writes them as \u00NN) and only replaces what is not UTF-8, which
 * jansson would refuse.  kiln_error/warn/note pass their whole message
 * through ESC_LINES.  docs/security.md#input-files lists the rules.
 */
enum esc_to {
	ESC_TERM,  /* a terminal or plain text, on one line */
	ESC_LINES, /* the same, keeping newlines and tabs (captured output, multi-line text) */
	ESC_HTML,  /* HTML text or a double- or single-quoted attribute value */
	ESC_TEX,   /* LaTeX text */
	ESC_GP,    /* the inside of a single-quoted gnuplot string */
	ESC_CSV,   /* one whole CSV field: quoted when needed (RFC 4180), `'` before a formula start */
	ESC_MD,    /* Markdown text, table cells included */
	ESC_MDCODE, /* a whole Markdown code span, backticks included, safe in a table cell */
	ESC_ADOCCODE, /* a whole AsciiDoc monospace literal, safe in a table cell */
	ESC_ORGCODE, /* a whole Org verbatim (=...=), or Org text where that cannot hold it; safe in a table cell */
	ESC_JSON,  /* a string for jansson: valid UTF-8, nothing else changed */
};
void esc_add(struct strbuf *sb, enum esc_to to, const char *s);
void esc_addn(struct strbuf *sb, enum esc_to to, const void *s, size_t n);
/*
 * s made safe for `to`, in one of eight buffers used in turn: for printf
 * arguments, valid until the eighth call after this one.  NULL gives "".
 */
const char *esc(enum esc_to to, const char *s);
void esc_fputs(enum esc_to to, const char *s, FILE *f);

/* diagnostics on stderr, "kiln: " prefixed, coloured on a terminal */
void kiln_error(const char *fmt, ...) KILN_PRINTF(1, 2);
void kiln_warn(const char *fmt, ...) KILN_PRINTF(1, 2);
void kiln_note(const char *fmt, ...) KILN_PRINTF(1, 2);
KILN_NORETURN void kiln_die(int code, const char *fmt, ...) KILN_PRINTF(2, 3);
/* colour is used only on a terminal and never when NO_COLOR is set */
int kiln_color(FILE *f);
const char *kiln_col(FILE *f, const char *sgr); /* "" when colour is off */

/* the one way to read a whole file; -1 with e set on failure */
int read_file(const char *path, struct strbuf *out, struct kerr *e);
/* write a whole file atomically (temp + rename) */
/* state, process group and start time (clock ticks since boot) of /proc/PID ("self" too): 0, or -1 */
int proc_stat(const char *pid, char *state, long *pgrp, unsigned long long *start);
/* this process's start time in those ticks (0: unknown), the proof that a live pid is still the same process */
unsigned long long proc_self_start(void);
/* a new file at tmp (PATH.tmp.PID), whatever was at that name removed, never followed: the fd, -1 errno */
int open_tmp_new(const char *tmp);
int write_file(const char *path, const void *data, size_t n, struct kerr *e);
/*
 * pwrite(2) of up to n zero bytes (at most 64 KiB a call) at `at`: one
 * zeroed page written over and over, so that reserving a file's space
 * keeps no 64 KiB of zeros resident in kiln while benchmarks run
 */
ssize_t pwrite_zeros(int fd, off_t at, size_t n);

/* n bytes from the kernel's random source (ids that must not repeat) */
int random_bytes(void *p, size_t n, struct kerr *e);

int64_t mono_ns(void);     /* CLOCK_MONOTONIC */
int64_t wall_ns(void);     /* CLOCK_REALTIME */
void iso_time(int64_t ns, char *buf, size_t n); /* 2026-11-29T16:46:18Z */

/* parse an integer/double strictly (whole string); 0 on success */
int parse_long(const char *s, long *out);
int parse_double(const char *s, double *out);

/*
 * The length (1-4) of the well-formed UTF-8 sequence at p (before end), 0
 * when it is not one: truncated, overlong, a surrogate or past U+10FFFF.
 */
size_t utf8_len(const unsigned char *p, const unsigned char *end);

/*
 * The bytes of s to keep to cut it to at most max without splitting a
 * UTF-8 character: strlen(s) when it fits, else max less the
 * continuation bytes that would start the rest.
 */
size_t utf8_cut(const char *s, size_t max);

/* does s end with suf? */
int str_ends_with(const char *s, const char *suf);

/* glob-style match with '*' only (used for skip patterns) */
int star_match(const char *pat, const char *s);

/* compress PATH to PATH.zst (streaming, level 3, with checksum), then remove PATH */
int zstd_compress_file(const char *path, struct kerr *e);
/* PATH whole into out, decompressed when its name ends in .zst; at most max bytes (exit code 3 beyond) */
int read_file_zst(const char *path, size_t max, struct strbuf *out, struct kerr *e);

/* directory helpers */
int mkdir_p(const char *path, int mode);
int rm_rf(const char *path);
/* the same for NAME (one component) inside the folder open as dfd, on dfd's file system */
int rm_rf_at(int dfd, const char *name);
char *path_join(const char *a, const char *b);
/* p made absolute against the current folder (no links resolved) */
char *abspath(const char *p);
char *path_dirname(const char *path);
int file_exists(const char *path);
/* is `target` present and at least as new as `source` (make's rule)? */
int file_up_to_date(const char *target, const char *source);
int is_executable(const char *path);
/* search PATH (or take an absolute/relative path as is); NULL if not found */
char *find_in_path(const char *name);

/*
 * A set of strings, each with its index in insertion order (0, 1, ...):
 * names interned once, found in O(1) (open addressing, FNV-1a), so that
 * per-record name lookups never become a linear search.
 */
struct strmap {
	char **keys;      /* by index */
	size_t n;
	size_t *slots;    /* index + 1, 0: empty */
	size_t nslots;    /* a power of two, > 2n */
};
#define STRMAP_INIT { NULL, 0, NULL, 0 }
/* the index of s, or -1 when absent */
long strmap_find(const struct strmap *m, const char *s);
/* the index of s, added (copied) when absent */
size_t strmap_add(struct strmap *m, const char *s);
/* the same for the n bytes at s (not NUL-terminated; a NUL among them is not allowed) */
size_t strmap_addn(struct strmap *m, const char *s, size_t n);
void strmap_clear(struct strmap *m);

/*
 * Columns a UTF-8 string takes on a terminal (libc's wcwidth in C.UTF-8:
 * combining marks 0, East Asian wide characters 2; an invalid byte or a
 * control character counts 1); sb_pad appends s and spaces up to width.
 */
size_t display_width(const char *s);
/* the longest prefix of s at most width columns wide: its width, its length in bytes (NULL: not wanted) */
size_t display_cut(const char *s, size_t width, size_t *bytes);
void sb_pad(struct strbuf *sb, const char *s, size_t width);

/*
 * The unit to show a time of about `s` seconds in: s, ms, µs or ns (the
 * largest one in which it is >= 1), with its ASCII and LaTeX spellings and
 * the factor seconds are multiplied by.
 */
struct time_unit {
	const char *name, *ascii, *latex;
	double scale;
};
const struct time_unit *time_unit_for(double s);
/* a duration for people: "45 s", "12 min", "3 h 05 min", "2 d 4 h", "3.5 weeks", "2.1 years"; "?" for a negative or NaN s */
void fmt_duration(struct strbuf *sb, double s);

/* FNV-1a/sha-like content hash as hex (for config hashes) */
void hash_hex(const void *data, size_t n, char out[65]);

/* qsort's comparison of two doubles, ascending (NaNs compare equal to everything) */
int cmp_double(const void *a, const void *b);
/* sort v[0..n) ascending */
void sort_doubles(double *v, size_t n);

#endif
