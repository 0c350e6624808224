/*
 * import-input.h - reading an input file from elsewhere, bounded: whole or
 * in pieces, plain or bzip2 (by content), never more than the bounds below
 * once decompressed.  Below both import.c's readers and fmt.c's table,
 * which share it; it knows neither.
 */
#ifndef KILN_IMPORT_INPUT_H
#define KILN_IMPORT_INPUT_H

#include <stddef.h>

#include "util.h"

/*
 * An input read in pieces (import-input.c): a file or a buffer, plain or
 * bzip2 (by content), within the bounds below.  imp_input_read returns how
 * many bytes it put in buf (0 at the end), or -1 with e set.
 */
struct imp_input;
int imp_input_file(const char *path, struct imp_input **in, struct kerr *e);
int imp_input_mem(const char *name, const char *data, size_t len, struct imp_input **in, struct kerr *e);
long imp_input_read(struct imp_input *in, char *buf, size_t n, struct kerr *e);
int imp_input_compressed(const struct imp_input *in);
/* the rest of the input, whole, into out */
int imp_input_slurp(struct imp_input *in, struct strbuf *out, struct kerr *e);
void imp_input_close(struct imp_input *in);

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
