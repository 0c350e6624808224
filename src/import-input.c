/*
 * import-input.c - an input file read in pieces, within its bounds: plain,
 * or bzip2 decompressed on the way (by content, whatever the name), from
 * a file descriptor or from memory.  The streaming readers (import-krun.c)
 * take it piece by piece, so that neither the compressed nor the
 * decompressed text is ever held whole; the CSV reader slurps it.
 *
 * Bounds (docs/security.md#input-files): a plain input is at most
 * KILN_INPUT_MAX_MB; a compressed one may become imp_inflate_limit() of its
 * compressed size.  Several bzip2 streams one after the other (what pbzip2
 * and lbzip2 write) are one input; anything else after a stream, or a
 * stream cut short, is an error.
 */
#include <bzlib.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "import-input.h"

/* ---- bounds ---- */

/* a bound from the environment, or its default; -1 with e set when it is not a positive number */
static int env_bound(const char *name, long dflt, long *out, struct kerr *e)
{
	const char *v = getenv(name);
	*out = dflt;
	if (!v || !*v)
		return 0;
	if (parse_long(v, out) || *out <= 0)
		return kerr_setc(e, KEXIT_USAGE, "%s: '%s' is not a positive whole number", name, esc(ESC_TERM, v));
	return 0;
}

int imp_bounds(struct imp_bounds *b, struct kerr *e)
{
	long ratio, floor_mb, max_mb;
	if (env_bound("KILN_INFLATE_RATIO", IMP_INFLATE_RATIO, &ratio, e) < 0 ||
	    env_bound("KILN_INFLATE_FLOOR_MB", IMP_INFLATE_FLOOR_MB, &floor_mb, e) < 0 ||
	    env_bound("KILN_INPUT_MAX_MB", IMP_INPUT_MAX_MB, &max_mb, e) < 0)
		return -1;
	b->ratio = (size_t)ratio;
	b->floor = (size_t)floor_mb << 20;
	b->max = (size_t)max_mb << 20;
	return 0;
}

size_t imp_inflate_limit(const struct imp_bounds *b, size_t compressed)
{
	size_t lim = compressed > SIZE_MAX / b->ratio ? SIZE_MAX : compressed * b->ratio;
	if (lim < b->floor)
		lim = b->floor;
	return lim < b->max ? lim : b->max;
}

/* a whole file as it is (another format's reader decompresses it: fmt.c), within the plain input's bound */
int imp_read_input(const char *path, struct strbuf *sb, struct kerr *e)
{
	struct imp_bounds b;
	struct stat st;
	if (imp_bounds(&b, e) < 0)
		return -1;
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size > b.max)
		return kerr_setc(e, KEXIT_CONFIG, "%s: %lld MiB is more than an input may be (KILN_INPUT_MAX_MB=%zu)", path,
				 (long long)(st.st_size >> 20), b.max >> 20);
	if (read_file(path, sb, e) < 0)
		return -1;
	if (sb->len > b.max)
		return kerr_setc(e, KEXIT_CONFIG, "%s: more than an input may be (KILN_INPUT_MAX_MB=%zu)", path, b.max >> 20);
	return 0;
}

/* ---- the raw bytes: a window over memory, or over a buffer refilled from the file ---- */

#define RAW_BUF (1u << 20)

struct imp_input {
	char *name;
	int fd;               /* -1: the bytes are in memory */
	char *buf;            /* the file's bytes read so far but not used (fd only) */
	const char *p;        /* the window of raw bytes not yet used */
	size_t avail;
	int eof;              /* nothing more to read into the window */
	size_t in_len;        /* the whole raw input (the file's size) */
	size_t raw_read;      /* raw bytes taken so far */
	struct imp_bounds b;
	/* bzip2 */
	int bz_on, bz_open, done;
	bz_stream bz;
	size_t limit, out;    /* decompressed bytes allowed, and given out so far */
	struct kerr err;      /* what went wrong, for the caller of imp_input_read */
};

/* at least k raw bytes in the window unless the input ends first; -1 on a read error */
static int raw_fill(struct imp_input *in, size_t k)
{
	if (in->fd < 0 || in->avail >= k || in->eof)
		return 0;
	memmove(in->buf, in->p, in->avail);
	in->p = in->buf;
	while (in->avail < k && !in->eof) {
		ssize_t r = read(in->fd, in->buf + in->avail, RAW_BUF - in->avail);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return kerr_setc(&in->err, KEXIT_CONFIG, "%s: %s", in->name, strerror(errno));
		if (r == 0)
			in->eof = 1;
		in->avail += (size_t)r;
		in->raw_read += (size_t)r;
		if (in->fd >= 0 && in->raw_read > in->b.max)
			return kerr_setc(&in->err, KEXIT_CONFIG, "%s: more than an input may be (KILN_INPUT_MAX_MB=%zu)",
					 in->name, in->b.max >> 20);
	}
	return 0;
}

static void raw_take(struct imp_input *in, size_t n)
{
	in->p += n;
	in->avail -= n;
}

/* ---- bzip2 ---- */

static int bz_start(struct imp_input *in)
{
	memset(&in->bz, 0, sizeof(in->bz));
	if (BZ2_bzDecompressInit(&in->bz, 0, 0) != BZ_OK)
		return kerr_setc(&in->err, KEXIT_CONFIG, "%s: cannot start bzip2 decompression", in->name);
	in->bz_open = 1;
	return 0;
}

static void bz_end(struct imp_input *in)
{
	if (in->bz_open)
		BZ2_bzDecompressEnd(&in->bz);
	in->bz_open = 0;
}

/* the end of one stream: the input ends, or another stream follows */
static int bz_next_stream(struct imp_input *in)
{
	if (raw_fill(in, 3) < 0)
		return -1;
	if (!in->avail) {
		in->done = 1;
		return 0;
	}
	if (in->avail < 3 || memcmp(in->p, "BZh", 3))
		return kerr_setc(&in->err, KEXIT_CONFIG, "%s: data after the end of the bzip2 stream", in->name);
	bz_end(in);
	return bz_start(in);
}

static long bz_read(struct imp_input *in, char *buf, size_t n)
{
	if (n > 0x40000000u)
		n = 0x40000000u;
	while (!in->done) {
		if (raw_fill(in, 1) < 0)
			return -1;
		unsigned give = in->avail > 0x40000000u ? 0x40000000u : (unsigned)in->avail;
		in->bz.next_in = (char *)in->p;
		in->bz.avail_in = give;
		in->bz.next_out = buf;
		in->bz.avail_out = (unsigned)n;
		int rc = BZ2_bzDecompress(&in->bz);
		size_t used = give - in->bz.avail_in, got = n - in->bz.avail_out;
		raw_take(in, used);
		in->out += got;
		if (in->out > in->limit)
			return kerr_setc(&in->err, KEXIT_CONFIG,
					 "%s: more than %zu MiB once decompressed (%zu bytes compressed): refused as a "
					 "decompression bomb; KILN_INFLATE_RATIO, KILN_INFLATE_FLOOR_MB and KILN_INPUT_MAX_MB "
					 "raise the bound (docs/security.md#input-files)",
					 in->name, in->limit >> 20, in->in_len);
		if (rc == BZ_STREAM_END) {
			if (bz_next_stream(in) < 0)
				return -1;
		} else if (rc != BZ_OK) {
			return kerr_setc(&in->err, KEXIT_CONFIG, "%s: corrupt bzip2 data (error %d)", in->name, rc);
		} else if (!got && !used && !in->avail && (in->fd < 0 || in->eof)) {
			return kerr_setc(&in->err, KEXIT_CONFIG, "%s: truncated bzip2 data", in->name);
		}
		if (got)
			return (long)got;
	}
	return 0;
}

/* ---- the input ---- */

static int input_start(struct imp_input *in, struct kerr *e)
{
	if (raw_fill(in, 3) < 0) {
		kerr_setc(e, in->err.code, "%s", sb_str(&in->err.msg));
		return -1;
	}
	if (in->avail >= 3 && !memcmp(in->p, "BZh", 3)) {
		in->bz_on = 1;
		in->limit = imp_inflate_limit(&in->b, in->in_len);
		if (bz_start(in) < 0) {
			kerr_setc(e, in->err.code, "%s", sb_str(&in->err.msg));
			return -1;
		}
	}
	return 0;
}

static struct imp_input *input_new(const char *name, struct kerr *e)
{
	struct imp_input *in = xcalloc(1, sizeof(*in));
	in->name = xstrdup(name);
	in->fd = -1;
	in->err = (struct kerr)KERR_INIT;
	in->err.code = KEXIT_CONFIG;
	if (imp_bounds(&in->b, e) < 0) {
		imp_input_close(in);
		return NULL;
	}
	return in;
}

int imp_input_file(const char *path, struct imp_input **out, struct kerr *e)
{
	*out = NULL;
	struct imp_input *in = input_new(path, e);
	if (!in)
		return -1;
	struct stat st;
	in->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (in->fd < 0 || fstat(in->fd, &st) < 0) {
		kerr_setc(e, KEXIT_CONFIG, "%s: %s", path, strerror(errno));
		imp_input_close(in);
		return -1;
	}
	if (S_ISREG(st.st_mode) && (size_t)st.st_size > in->b.max) {
		kerr_setc(e, KEXIT_CONFIG, "%s: %lld MiB is more than an input may be (KILN_INPUT_MAX_MB=%zu)", path,
			  (long long)(st.st_size >> 20), in->b.max >> 20);
		imp_input_close(in);
		return -1;
	}
	in->in_len = S_ISREG(st.st_mode) ? (size_t)st.st_size : in->b.max;
	in->buf = xmalloc(RAW_BUF);
	in->p = in->buf;
	if (input_start(in, e) < 0) {
		imp_input_close(in);
		return -1;
	}
	*out = in;
	return 0;
}

int imp_input_mem(const char *name, const char *data, size_t len, struct imp_input **out, struct kerr *e)
{
	*out = NULL;
	struct imp_input *in = input_new(name, e);
	if (!in)
		return -1;
	if (len > in->b.max) {
		kerr_setc(e, KEXIT_CONFIG, "%s: more than an input may be (KILN_INPUT_MAX_MB=%zu)", name, in->b.max >> 20);
		imp_input_close(in);
		return -1;
	}
	in->p = data;
	in->avail = len;
	in->in_len = len;
	in->eof = 1;
	if (input_start(in, e) < 0) {
		imp_input_close(in);
		return -1;
	}
	*out = in;
	return 0;
}

long imp_input_read(struct imp_input *in, char *buf, size_t n, struct kerr *e)
{
	long got;
	if (in->bz_on) {
		got = bz_read(in, buf, n);
	} else if (raw_fill(in, 1) < 0) {
		got = -1;
	} else {
		size_t k = in->avail < n ? in->avail : n;
		memcpy(buf, in->p, k);
		raw_take(in, k);
		got = (long)k;
	}
	if (got < 0)
		kerr_setc(e, in->err.code, "%s", sb_str(&in->err.msg));
	return got;
}

int imp_input_compressed(const struct imp_input *in)
{
	return in->bz_on;
}

void imp_input_close(struct imp_input *in)
{
	if (!in)
		return;
	bz_end(in);
	if (in->fd >= 0)
		close(in->fd);
	free(in->buf);
	free(in->name);
	kerr_release(&in->err);
	free(in);
}

int imp_input_slurp(struct imp_input *in, struct strbuf *out, struct kerr *e)
{
	sb_reset(out);
	for (;;) {
		sb_grow(out, 1 << 20);
		long got = imp_input_read(in, out->buf + out->len, out->alloc - out->len - 1, e);
		if (got < 0)
			return -1;
		if (!got)
			return 0;
		out->len += (size_t)got;
		out->buf[out->len] = '\0';
	}
}

int imp_bunzip(const char *name, const char *data, size_t len, struct strbuf *out, struct kerr *e)
{
	struct imp_input *in;
	sb_reset(out);
	if (imp_input_mem(name, data, len, &in, e) < 0)
		return -1;
	int r = imp_input_slurp(in, out, e);
	imp_input_close(in);
	return r;
}

int imp_bzip(const char *data, size_t len, struct strbuf *out, struct kerr *e)
{
	if (len > 0x7fffffff)
		return kerr_set(e, "bzip2: %zu bytes is too much for one buffer", len);
	unsigned dl = (unsigned)(len + len / 100 + 601);
	sb_reset(out);
	sb_grow(out, dl);
	int rc = BZ2_bzBuffToBuffCompress(out->buf, &dl, (char *)data, (unsigned)len, 9, 0, 0);
	if (rc != BZ_OK)
		return kerr_set(e, "bzip2 compression failed (error %d)", rc);
	out->len = dl;
	out->buf[dl] = '\0';
	return 0;
}
