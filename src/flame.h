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

#define FLAME_MAX_SAMPLES 2000000

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
