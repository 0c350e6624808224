/*
 * flame.h - a profile's samples as call stacks, and what is drawn or
 * exported from them: interactive flame graphs (one self-contained HTML
 * page: the whole profile, a phase, an iteration range, a pexec; or the
 * difference of two selections or two profiles), the folded format, and
 * the files speedscope and the Firefox Profiler open.
 *
 * The data (kept in profile.json as "flame"):
 *   {"version":1, "key", "event", "categories":["jit","vm",...,"thread"],
 *    "frames":[[name, dso, category], ...],      the thread's name is each stack's root
 *    "stacks":[[prefix or -1, frame], ...],      a prefix tree, root first
 *    "samples":{"stack":[...], "pexec":[...], "iter":[...] (-1 outside), "phase":[...] (0 warmup,
 *               1 steady, 2 outside), "t_ms":[...] (since the pexec's first sample)},
 *    "pexecs":[{"pid", "iterations", "split"}]}
 */
#ifndef KILN_FLAME_H
#define KILN_FLAME_H

#include <jansson.h>

#include "profile.h"
#include "util.h"

/*
 * Bounds (docs/security.md#bounds): a profile's data, checked when it is
 * read (a crafted profile.json is refused with the field and index), and
 * what one output may become.  A stack's prefix must be an earlier stack,
 * which rules out cycles; its depth is at most FLAME_MAX_DEPTH.  The
 * folded and speedscope files repeat a stack's frames for each distinct
 * stack or sample: past FLAME_MAX_OUT_FRAMES frames or FLAME_MAX_OUT_MB
 * they are refused (select fewer samples), and they are streamed to the
 * file, so that kiln's memory stays that of the data.
 */
#define FLAME_MAX_SAMPLES 2000000
#define FLAME_MAX_FRAMES 4000000       /* distinct frames */
#define FLAME_MAX_STACKS 8000000       /* distinct stacks */
#define FLAME_MAX_DEPTH 1024           /* frames in one stack (perf's chains are cut at 512) */
#define FLAME_MAX_NAME 4096            /* bytes of a frame's name or file (longer JIT names are cut) */
#define FLAME_MAX_PEXECS 100000
#define FLAME_MAX_INPUT_MB 512         /* profile.json read */
#define FLAME_MAX_OUT_FRAMES 50000000L /* frames one folded or speedscope file may hold */
#define FLAME_MAX_OUT_MB 1024L         /* bytes of one such file */

/* the data of a profile's samples (caller decrefs) */
json_t *flame_data(const struct prof_input *in);

/* which samples: phase -1 all, 0 warmup, 1 steady, 2 outside; iterations [it_lo, it_hi] 1-based (0: any); pexec -1 any */
struct flame_sel {
	int phase;
	long it_lo, it_hi;
	long pexec;
};
void flame_sel_all(struct flame_sel *s);
/* "all", "warmup", "steady", "outside" */
int flame_parse_phase(const char *s, int *phase);

/*
 * The page: the flame graph of data (b NULL), interactive (zoom, search,
 * phase, iterations, pexec, the top list beside), or the difference from a
 * to b (b's widths, coloured by the change in share); sel is the initial
 * selection (and for a difference of one profile: a = warmup, b = steady).
 */
int flame_write_html(const char *path, const json_t *a, const json_t *b, const struct flame_sel *sel, struct kerr *e);
void flame_page(struct strbuf *out, const json_t *a, const json_t *b, const struct flame_sel *sel);
/*
 * The flame graph of d (every sample) as an iframe for another page (kiln
 * report's): the page in srcdoc, escaped for the attribute.
 */
void flame_iframe(struct strbuf *out, const json_t *d, const char *title);
/* a profile report's checked flame data (a new reference), NULL with e set; where names it */
json_t *flame_of_profile(const json_t *rep, const char *where, struct kerr *e);
/* DIR/profile.json's */
json_t *flame_load_dir(const char *dir, struct kerr *e);
/* one line per distinct stack: "root;...;leaf COUNT" (Brendan Gregg's folded stacks) */
int flame_write_folded(const char *path, const json_t *d, const struct flame_sel *sel, struct kerr *e);
/* speedscope's file format (one sampled profile per pexec) */
int flame_write_speedscope(const char *path, const json_t *d, const struct flame_sel *sel, struct kerr *e);
/* the Gecko profile format the Firefox Profiler imports (one thread per pexec) */
int flame_write_gecko(const char *path, const json_t *d, const struct flame_sel *sel, struct kerr *e);

/*
 * The differential top list: each symbol's self share in a's selection and
 * in b's, largest changes first (top entries), as JSON.
 */
json_t *flame_diff_top(const json_t *a, const struct flame_sel *sa, const json_t *b, const struct flame_sel *sb, int top);
void flame_print_diff(FILE *f, const json_t *diff);

#endif
