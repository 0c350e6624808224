/*
 * parse_pypylog.c - the pypy plugin's parser: a PYPYLOG becomes per-iteration
 * and per-pexec records of where PyPy's time went (GC, JIT, other sections,
 * outside any section), plus the zstd compressor that keeps a raw log.
 *
 * How the time is counted.  Every start/stop line is an event with a
 * timestamp; the time between two consecutive events belongs to whatever
 * section is innermost at that moment (or to "outside" when none is open).
 * That is PyPy's own exclusive-time rule (a parent's time excludes its
 * children's) computed in one pass with no per-section bookkeeping: for
 * foo[2..17] containing bar[4..5] and bar[7..9], then bar[20..30], it gives
 * foo 12, bar 13, outside 3.  Sections are grouped by name into categories:
 * gc-* -> gc, jit-* -> jit, anything else -> other.
 *
 * "kiln-iter" sections (written by runner.py around each iteration) are not
 * sections of this accounting but cuts in the timeline: they switch the
 * per-iteration accumulators on and off.  They may therefore cross other
 * sections (PyPy's tracer can start a trace in the runner's loop, so a
 * jit-tracing section can contain the start of an iteration and end inside
 * it); real sections must nest properly.
 *
 * Counts: gc.count and jit.count are the numbers of *outermost* sections of
 * the category (a gc-minor with its nested gc-minor-walkroots is one pause;
 * a jit-tracing with its nested jit-optimize, jit-backend... is one JIT
 * episode).  Per-name counts and exclusive times are per-pexec records
 * ("pypy.gc-minor.count", "pypy.gc-minor.time").
 *
 * Streaming: memory does not depend on the size of the log.  Every log goes
 * through one fixed buffer, read(2) (or decompressed) into, where only
 * complete lines are parsed and the incomplete tail is moved to the front
 * (pl_drain).  (A sliding mapping of a plain file, parsed in place, was
 * slower: on Linux 6.18 mapping the page cache's pages and unmapping them
 * cost more than copying them into a buffer that stays in L2; bench/pypylog
 * read 3.6 GB/s mapped, 4.8 GB/s read, and 6.1 against 2.3 MiB of RSS.)  Content
 * lines (full-logging mode) are skipped with memchr; a line longer than the
 * buffer is skipped without being held.  Every parsed line ends in '\n'
 * inside readable memory, so the byte scanners need no bounds checks.
 *
 * Speed: on CPUs with AVX2 (checked at run time; the binary runs on any
 * x86-64) runs of lines go through pl_avx2, which finds newlines 64 bytes at
 * a time and recognises a line whole from a small cache.  The line it stops
 * at goes through pl_fast, which handles the common cases (start of a known
 * section, stop of the innermost one) a word or sixteen bytes at a time, and
 * then pl_line, the byte-by-byte reference.  The fast paths change nothing
 * unless they are sure.  Per event only the name's time is added to; the
 * categories' totals are kept alongside and an iteration's figures are the
 * difference of the totals at its two ends.  `pypylog_fast` picks the paths
 * (0: the reference alone): tests and the fuzzer check all give the same
 * result.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "pypylog.h"

/* SSE2 (every x86-64) for the fast path; plain word arithmetic elsewhere */
#if defined(__SSE2__) && defined(__x86_64__) && !defined(PL_NO_SIMD)
#define PL_SIMD 1
#include <emmintrin.h>
/* the AVX2 line scanner, compiled for every x86-64, used when the CPU has it */
#if defined(__GNUC__)
#define PL_AVX2 1
#include <immintrin.h>
#endif
#endif

#define PL_BUF       (256 * 1024)  /* parse buffer: fits in L2 */
#define PL_SLACK     256           /* readable bytes after the buffer (word reads, name probes) */
#define PL_MAX_NAMES 4096
#define PL_HASH      8192          /* open addressing, power of two, > 2x names */
#define PL_MAX_DEPTH 1024
#define PL_NAME_MAX  128
#define PL_FORM_MAX  30            /* names the fast path compares in one go */
#define PL_ITER_NAME "kiln-iter"

enum { CAT_GC, CAT_JIT, CAT_OTHER, CAT_OUTSIDE, NCAT };
static const char *const cat_time[NCAT] = { "gc.time", "jit.time", "other.time", "outside.time" };
static const char *const cat_count[2] = { "gc.count", "jit.count" };

struct pl_name {
	char *s;          /* zero-padded (word reads) */
	/* the fast path's forms, "name\n" and "name}\n" zero-padded to 64 bytes,
	 * compared with a line in one go (names up to PL_FORM_MAX bytes) */
	char *open_form, *close_form;
	uint32_t len;
	uint8_t cat;
	uint8_t cbit;     /* 1 << cat for gc and jit (whose outermost sections count), else 0 */
	uint64_t ticks;   /* exclusive, whole log */
	uint64_t count;
};

/* an open section: its name is tops[d + 1] for stack[d] */
struct pl_frame {
	long line;
};

/*
 * The AVX2 path's cache of event lines: what follows "] " on a line ("{name\n"
 * for a start, "name}\n" for a stop, zero-padded: only that exact line
 * matches) -> the name, direct-mapped by a hash of those bytes.  A miss is
 * resolved through the name table.
 */
#define PL_RC      1024
#define PL_RC_MAX  31      /* longest "{name" / "name}" cached, without the newline */
struct pl_rc {
	unsigned char form[32];
	struct pl_name *nm;
	uint8_t start;        /* a start (1) or a stop (0); +2 for kiln-iter */
} __attribute__((aligned(64)));

struct pypylog {
	char *file;
	struct pypylog_calib cal;
	struct rec_sink *sink;
	char *buf;            /* PL_BUF + PL_SLACK bytes */
	size_t len;           /* bytes in buf not yet parsed (an incomplete line) */
	int skipping;         /* inside a content line longer than the buffer */
	long line;            /* complete lines seen */

	struct pl_name *names;
	uint32_t nnames;
	int32_t hash[PL_HASH]; /* index + 1 into names, 0: empty */

	struct pl_frame stack[PL_MAX_DEPTH];
	uint32_t depth;
	/* tops[d]: the name of the innermost section when d are open; tops[0] is
	 * `outside`, a sentinel whose category is CAT_OUTSIDE (no branch on depth) */
	struct pl_name *tops[PL_MAX_DEPTH + 1];
	struct pl_name outside;
	uint32_t guess[PL_MAX_DEPTH][2]; /* the two names last started at each depth (fast path) */
	/* omask[d]: the cbits of the sections open when d are open: a start is
	 * outermost in its category when its cbit is not in there */
	uint8_t omask[PL_MAX_DEPTH + 1];

	int started;
	uint64_t first, last; /* timestamps of the first and latest events */

	int in_iter;
	long iter, iter_line;
	/* per category, the exclusive ticks and the outermost starts (gc and jit
	 * only) of the whole log, and their values when the iteration started */
	uint64_t cat_ticks[NCAT], it_ticks[NCAT];
	/* outer[b]: the starts whose cbit b was not yet in omask: [1] gc, [2]
	 * jit ([0]: every other start), indexed without a branch */
	uint64_t outer[3], it_outer[3];

	struct pl_rc *rc;     /* PL_RC slots (64-byte aligned in rc_mem), on the AVX2 path's first use */
	void *rc_mem;
	struct pl_rc *miss;   /* where pl_avx2 stopped on a cache miss, for rc_fill */
	const unsigned char *miss_q;
	size_t miss_rl;
	const char *at_iter;  /* where pl_avx2 stopped on a kiln-iter line: its end, */
	uint64_t at_t;        /* timestamp */
	int at_start;         /* and kind, for event() */
};

static void name_masks_init(void);
#ifdef PL_AVX2
static void pl_avx2_init(void);
#endif

/* character classes: hex digit values (16 = not hex) and section-name bytes */
static unsigned char hexval[256], namechar[256];

static void pl_tables(void)
{
	static int done;
	if (done)
		return;
	for (int c = 0; c < 256; c++) {
		hexval[c] = 16;
		namechar[c] = c > 0x20 && c < 0x7f && c != '{' && c != '}' && c != '[' && c != ']';
	}
	for (int c = '0'; c <= '9'; c++)
		hexval[c] = (unsigned char)(c - '0');
	for (int c = 'a'; c <= 'f'; c++)
		hexval[c] = hexval[c - 'a' + 'A'] = (unsigned char)(c - 'a' + 10);
	name_masks_init();
#ifdef PL_AVX2
	pl_avx2_init();
#endif
	done = 1;
}

static int pl_error(struct pypylog *p, struct kerr *e, long line, const char *fmt, ...) KILN_PRINTF(4, 5);
static int pl_error(struct pypylog *p, struct kerr *e, long line, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	sb_vaddf(&sb, fmt, ap);
	va_end(ap);
	kerr_setc(e, KEXIT_CONFIG, "%s:%ld: %s", p->file, line, sb_str(&sb));
	sb_release(&sb);
	return -1;
}

/* ---- section names ---- */

/* two word loads instead of a byte loop; the buffer's slack makes them safe */
static uint32_t name_hash(const unsigned char *s, size_t n)
{
	uint64_t a, b = 0;
	memcpy(&a, s, 8);
	if (n < 8)
		a &= (UINT64_C(1) << (8 * n)) - 1;
	else
		memcpy(&b, s + n - 8, 8);
	uint64_t h = (a * UINT64_C(0x9E3779B97F4A7C15)) ^ (b * UINT64_C(0xC2B2AE3D27D4EB4F)) ^ n;
	h ^= h >> 31;
	h *= UINT64_C(0xBF58476D1CE4E5B9);
	return (uint32_t)(h >> 32);
}

static int name_cat(const char *s, size_t n)
{
	if (n >= 3 && !memcmp(s, "gc-", 3))
		return CAT_GC;
	if (n >= 4 && !memcmp(s, "jit-", 4))
		return CAT_JIT;
	return CAT_OTHER;
}

/* the index of a name, added on first sight; -1 when the table is full */
static long name_id(struct pypylog *p, const unsigned char *s, size_t n)
{
	uint32_t h = name_hash(s, n) & (PL_HASH - 1);
	for (;;) {
		int32_t v = p->hash[h];
		if (!v)
			break;
		struct pl_name *nm = &p->names[v - 1];
		if (nm->len == n && !memcmp(nm->s, s, n))
			return v - 1;
		h = (h + 1) & (PL_HASH - 1);
	}
	if (p->nnames == PL_MAX_NAMES)
		return -1;
	struct pl_name *nm = &p->names[p->nnames];
	nm->s = xcalloc(1, n + 32); /* zero padding: name_eq reads whole words, up to 24 bytes */
	memcpy(nm->s, s, n);
	nm->open_form = xcalloc(1, 128);
	nm->close_form = nm->open_form + 64;
	if (n <= PL_FORM_MAX) {
		memcpy(nm->open_form, s, n);
		nm->open_form[n] = '\n';
		memcpy(nm->close_form, s, n);
		memcpy(nm->close_form + n, "}\n", 2);
	}
	nm->len = (uint32_t)n;
	nm->cat = (uint8_t)name_cat(nm->s, n);
	nm->cbit = (uint8_t)(nm->cat < 2 ? 1 << nm->cat : 0);
	nm->ticks = nm->count = 0;
	p->hash[h] = (int32_t)++p->nnames;
	return p->nnames - 1;
}

/* ---- records ---- */

static double ticks_s(const struct pypylog *p, uint64_t t)
{
	return (double)t * p->cal.ns_per_tick / 1e9;
}

static int put(struct pypylog *p, struct kerr *e, enum rec_kind kind, const char *name,
	       double v, const char *unit)
{
	struct kiln_rec r = { .kind = kind, .iter = p->iter, .name = name, .value = v, .unit = unit };
	if (p->sink->emit(p->sink->ctx, &r))
		return kerr_setc(e, KEXIT_FAIL, "%s:%ld: record '%s' was not accepted", p->file, p->line, name);
	return 0;
}

static int emit_group(struct pypylog *p, struct kerr *e, enum rec_kind kind,
		      const uint64_t *ticks, const uint64_t *count)
{
	for (int c = 0; c < NCAT; c++)
		if (put(p, e, kind, cat_time[c], ticks_s(p, ticks[c]), "s") < 0)
			return -1;
	for (int c = 0; c < 2; c++)
		if (put(p, e, kind, cat_count[c], (double)count[c], "") < 0)
			return -1;
	return 0;
}

/* ---- events ---- */

/* give the time since the last event to the innermost open section */
static inline void advance(struct pypylog *p, uint64_t t)
{
	struct pl_name *top = p->tops[p->depth];
	top->ticks += t - p->last;
	p->cat_ticks[top->cat] += t - p->last;
	p->last = t;
}

/* an iteration's figures are the difference of the sums at its two ends */
static int iter_mark(struct pypylog *p, int start, struct kerr *e)
{
	if (start) {
		if (p->in_iter)
			return pl_error(p, e, p->line, "'{%s' inside the unfinished iteration opened at line %ld",
					PL_ITER_NAME, p->iter_line);
		p->in_iter = 1;
		p->iter_line = p->line;
		memcpy(p->it_ticks, p->cat_ticks, sizeof(p->it_ticks));
		memcpy(p->it_outer, p->outer, sizeof(p->it_outer));
		return 0;
	}
	if (!p->in_iter)
		return pl_error(p, e, p->line, "'%s}' without '{%s'", PL_ITER_NAME, PL_ITER_NAME);
	p->in_iter = 0;
	uint64_t ticks[NCAT], count[NCAT];
	for (int c = 0; c < NCAT; c++) {
		ticks[c] = p->cat_ticks[c] - p->it_ticks[c];
		count[c] = c < 2 ? p->outer[1 + c] - p->it_outer[1 + c] : 0;
	}
	if (emit_group(p, e, REC_ITER, ticks, count) < 0)
		return -1;
	p->iter++;
	return 0;
}

/* the bookkeeping of a start (the time is advanced already) */
static inline void push(struct pypylog *p, struct pl_name *nm)
{
	uint32_t d = p->depth;
	nm->count++;
	p->outer[nm->cbit & ~p->omask[d]]++;
	p->omask[d + 1] = p->omask[d] | nm->cbit;
	p->stack[d].line = p->line;
	p->tops[d + 1] = nm;
	p->depth = d + 1;
}

static int event(struct pypylog *p, uint64_t t, int start, const unsigned char *s, size_t n,
		 struct kerr *e)
{
	if (!p->started) {
		p->started = 1;
		p->first = p->last = t;
	}
	if (t < p->last)
		return pl_error(p, e, p->line, "timestamp %llx is earlier than the one before (%llx)",
				(unsigned long long)t, (unsigned long long)p->last);
	advance(p, t);
	if (n == sizeof(PL_ITER_NAME) - 1 && !memcmp(s, PL_ITER_NAME, n))
		return iter_mark(p, start, e);
	if (!start) {
		if (!p->depth)
			return pl_error(p, e, p->line, "'%.*s}' closes no open section", (int)n, (const char *)s);
		struct pl_frame *f = &p->stack[p->depth - 1];
		struct pl_name *nm = p->tops[p->depth];
		if (nm->len != n || memcmp(nm->s, s, n))
			return pl_error(p, e, p->line, "'%.*s}' does not close the innermost open section '%s' (line %ld)",
					(int)n, (const char *)s, nm->s, f->line);
		p->depth--;
		return 0;
	}
	if (p->depth == PL_MAX_DEPTH)
		return pl_error(p, e, p->line, "sections nested deeper than %d", PL_MAX_DEPTH);
	long id = name_id(p, s, n);
	if (id < 0)
		return pl_error(p, e, p->line, "more than %d distinct section names", PL_MAX_NAMES);
	push(p, &p->names[id]);
	return 0;
}

/*
 * One complete line at s (a '\n' is before `end`); returns where the next
 * line starts, or NULL with e set.  `[HEX] {name` and `[HEX] name}` are
 * events; every other line is section content.
 */
static const char *pl_line(struct pypylog *p, const char *s, const char *end, struct kerr *e)
{
	p->line++;
	if (*s == '[') {
		const unsigned char *q = (const unsigned char *)s + 1;
		uint64_t t = 0;
		unsigned v;
		int nd = 0;
		while ((v = hexval[*q]) < 16) {
			t = (t << 4) | v;
			q++;
			nd++;
		}
		if (nd && q[0] == ']' && q[1] == ' ') {
			q += 2;
			int start = *q == '{';
			const unsigned char *nm = q + start, *r = nm;
			while (namechar[*r])
				r++;
			size_t n = (size_t)(r - nm);
			if (n && (start ? r[0] == '\n' : r[0] == '}' && r[1] == '\n')) {
				if (nd > 16)
					return pl_error(p, e, p->line, "timestamp longer than 16 hex digits"), NULL;
				if (n > PL_NAME_MAX)
					return pl_error(p, e, p->line, "section name longer than %d bytes", PL_NAME_MAX), NULL;
				if (event(p, t, start, nm, n, e) < 0)
					return NULL;
				return (const char *)r + (start ? 1 : 2);
			}
		}
	}
	const char *nl = memchr(s, '\n', (size_t)(end - s));
	return nl + 1;
}

/*
 * ---- the fast path ----
 *
 * Almost every line of a real log is the start of a section whose name was
 * seen before, or the stop of the innermost open section.  pl_fast handles
 * exactly those without a byte loop: the timestamp's digits are found,
 * checked and converted sixteen bytes at a time (SSE2; eight at a time in
 * plain word arithmetic elsewhere), the name is taken to be the innermost
 * open one (a stop) or one of the two last started at this depth (a start)
 * and checked a word at a time together with the newline right after it;
 * only when the guess is wrong is the newline searched for and the name
 * looked up in the table.  Anything else (content
 * lines, kiln-iter, new names, every kind of error) returns NULL *before any
 * state changes*, and pl_line, the byte-by-byte reference, does the line
 * instead, so both paths give the same result by construction.  Words may be
 * read past the line: the buffer's slack and the names' zero padding make
 * that safe.
 */
#define ONES  UINT64_C(0x0101010101010101)
#define HIGHS UINT64_C(0x8080808080808080)

static inline uint64_t ld64(const void *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

/* high bit set in each byte that is zero (exact up to the first zero byte) */
static inline uint64_t zero_bytes(uint64_t v)
{
	return (v - ONES) & ~v & HIGHS;
}

/* the low k bytes of a word, k = 0..8 */
static const uint64_t low_bytes[9] = {
	0, 0xff, 0xffff, 0xffffff, 0xffffffff, UINT64_C(0xffffffffff), UINT64_C(0xffffffffffff),
	UINT64_C(0xffffffffffffff), ~UINT64_C(0),
};

/* name_masks[n]: which bytes of the three words of an n-byte name count */
static uint64_t name_masks[25][3];

static void name_masks_init(void)
{
	for (int n = 0; n <= 24; n++)
		for (int w = 0; w < 3; w++) {
			int k = n - 8 * w;
			name_masks[n][w] = low_bytes[k < 0 ? 0 : k > 8 ? 8 : k];
		}
}

/* a[0..n) == b[0..n): names up to 24 bytes in three words without branching on n */
static inline int name_eq(const unsigned char *a, const char *b, size_t n)
{
	if (n <= 24) {
		const uint64_t *m = name_masks[n];
		uint64_t x = ((ld64(a) ^ ld64(b)) & m[0]) | ((ld64(a + 8) ^ ld64(b + 8)) & m[1]) |
			     ((ld64(a + 16) ^ ld64(b + 16)) & m[2]);
		return x == 0;
	}
	size_t i = 0;
	for (; i + 8 <= n; i += 8)
		if (ld64(a + i) != ld64(b + i))
			return 0;
	if (i == n)
		return 1;
	uint64_t m = (UINT64_C(1) << (8 * (n - i))) - 1;
	return ((ld64(a + i) ^ ld64(b + i)) & m) == 0;
}

#ifdef PL_SIMD
/* do the first k (<= 32) bytes at a equal those of the padded form f? */
static inline int form_eq(const unsigned char *a, const char *f, size_t k)
{
	__m128i a0 = _mm_loadu_si128((const __m128i *)(const void *)a);
	__m128i a1 = _mm_loadu_si128((const __m128i *)(const void *)(a + 16));
	__m128i f0 = _mm_loadu_si128((const __m128i *)(const void *)f);
	__m128i f1 = _mm_loadu_si128((const __m128i *)(const void *)(f + 16));
	uint32_t m = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(a0, f0)) |
		     ((uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(a1, f1)) << 16);
	uint32_t want = (uint32_t)((UINT64_C(1) << k) - 1);
	return (m & want) == want;
}
#else
static inline int form_eq(const unsigned char *a, const char *f, size_t k)
{
	return name_eq(a, f, k);
}
#endif

/* is the line at q (after "] ") "{name\n" for this name? */
static inline int is_open_of(const unsigned char *q, const struct pl_name *nm)
{
	if (nm->len <= PL_FORM_MAX)
		return form_eq(q + 1, nm->open_form, nm->len + 1);
	return q[1 + nm->len] == '\n' && name_eq(q + 1, nm->s, nm->len);
}

/* is the line at q "name}\n" for this name? */
static inline int is_close_of(const unsigned char *q, const struct pl_name *nm)
{
	if (nm->len <= PL_FORM_MAX)
		return form_eq(q, nm->close_form, nm->len + 2);
	return q[nm->len] == '}' && q[nm->len + 1] == '\n' && name_eq(q, nm->s, nm->len);
}

/* a known name's index, or -1 (never adds one) */
static inline long name_find(const struct pypylog *p, const unsigned char *s, size_t n)
{
	uint32_t h = name_hash(s, n) & (PL_HASH - 1);
	for (;;) {
		int32_t v = p->hash[h];
		if (!v)
			return -1;
		const struct pl_name *nm = &p->names[v - 1];
		if (nm->len == n && name_eq(s, nm->s, n))
			return v - 1;
		h = (h + 1) & (PL_HASH - 1);
	}
}

#ifdef PL_SIMD
/*
 * The timestamp at d: 1 to 15 lowercase hex digits and ']'.  Its length,
 * or 0 when it is not one; all sixteen bytes are looked at at once: find
 * ']', check the digits, turn them into values, and pack value pairs into
 * bytes (the first digit ends up in the top nibble once byte-swapped).
 */
static inline size_t timestamp(const unsigned char *d, uint64_t *out)
{
	__m128i c = _mm_loadu_si128((const __m128i *)(const void *)d);
	unsigned br = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(c, _mm_set1_epi8(']')));
	if (!br)
		return 0;
	size_t n = (size_t)__builtin_ctz(br);
	/* lo <= c < lo + w in one signed compare: c - lo + 0x80 < -128 + w */
	__m128i dig = _mm_cmpgt_epi8(_mm_set1_epi8((char)(-128 + 10)),
				     _mm_add_epi8(c, _mm_set1_epi8((char)(0x80 - '0'))));
	__m128i low = _mm_cmpgt_epi8(_mm_set1_epi8((char)(-128 + 6)),
				     _mm_add_epi8(c, _mm_set1_epi8((char)(0x80 - 'a'))));
	__m128i hex = _mm_or_si128(dig, low);
	unsigned ok = (unsigned)_mm_movemask_epi8(hex);
	unsigned want = (1u << n) - 1;
	if (!n || (ok & want) != want)
		return 0;
	/*
	 * Digit values, 0 for bytes that are not hex digits, so that every
	 * pair packs without carry; whatever follows ']' lands in nibbles
	 * that the final shift drops.
	 */
	__m128i v = _mm_sub_epi8(c, _mm_set1_epi8('0'));
	v = _mm_sub_epi8(v, _mm_and_si128(low, _mm_set1_epi8('a' - '0' - 10)));
	v = _mm_and_si128(v, hex);
	__m128i pairs = _mm_or_si128(_mm_slli_epi16(_mm_and_si128(v, _mm_set1_epi16(0x00ff)), 4),
				     _mm_srli_epi16(v, 8));
	uint64_t x = (uint64_t)_mm_cvtsi128_si64(_mm_packus_epi16(pairs, pairs));
	*out = __builtin_bswap64(x) >> (4 * (16 - n));
	return n;
}

#else
/* high bit set in each byte c with lo < c < hi (exact for every byte, hi <= 128) */
static inline uint64_t between(uint64_t x, unsigned lo, unsigned hi)
{
	uint64_t x7 = x & (ONES * 127);
	return (ONES * (127 + hi) - x7) & ~x & (x7 + ONES * (127 - lo)) & HIGHS;
}

/* are the bytes selected by `keep` (0xff per byte) all of 0-9a-f? */
static inline int hex_ok(uint64_t w, uint64_t keep)
{
	uint64_t ok = between(w, '0' - 1, '9' + 1) | between(w, 'a' - 1, 'f' + 1);
	return (ok & keep & HIGHS) == (keep & HIGHS);
}

/* hex digit characters -> their values, one per byte */
static inline uint64_t nibbles(uint64_t w)
{
	return (w & (ONES * 0x0f)) + ((w >> 6) & ONES) * 9;
}

/* eight digit values, the first at the lowest address, -> the 32-bit number */
static inline uint64_t pack8(uint64_t v)
{
	v = ((v & UINT64_C(0x000F000F000F000F)) << 4) | ((v & UINT64_C(0x0F000F000F000F00)) >> 8);
	v = ((v & UINT64_C(0x000000FF000000FF)) << 8) | ((v & UINT64_C(0x00FF000000FF0000)) >> 16);
	return ((v & 0xFFFF) << 16) | ((v >> 32) & 0xFFFF);
}

/* the same a word at a time, for machines without SSE2 */
static inline size_t timestamp(const unsigned char *d, uint64_t *out)
{
	uint64_t w0 = ld64(d), w1 = ld64(d + 8);
	uint64_t m = zero_bytes(w0 ^ (ONES * ']'));
	size_t n;
	if (m) {
		n = (size_t)__builtin_ctzll(m) >> 3;
		if (!n)
			return 0;
		uint64_t keep = (UINT64_C(1) << (8 * n)) - 1;
		if (!hex_ok(w0, keep))
			return 0;
		*out = pack8(nibbles(w0) & keep) >> (4 * (8 - n));
		return n;
	}
	m = zero_bytes(w1 ^ (ONES * ']'));
	if (!m || !hex_ok(w0, ~UINT64_C(0)))
		return 0;
	n = 8 + ((size_t)__builtin_ctzll(m) >> 3);
	uint64_t t = pack8(nibbles(w0));
	if (n > 8) {
		uint64_t keep = (UINT64_C(1) << (8 * (n - 8))) - 1;
		if (!hex_ok(w1, keep))
			return 0;
		t = (t << (4 * (n - 8))) | (pack8(nibbles(w1) & keep) >> (4 * (16 - n)));
	}
	*out = t;
	return n;
}

#endif

/*
 * One line: where the next line starts when it was the start of a known
 * section or the stop of the innermost one and has been accounted, NULL
 * (nothing changed) when the reference path must decide.  The expected
 * name is compared first and the newline checked right after it, so the
 * newline is only searched for when the guess was wrong.
 */
static inline __attribute__((always_inline)) const char *pl_fast(struct pypylog *p, const char *line)
{
	const unsigned char *d = (const unsigned char *)line + 1;
	uint64_t t;
	size_t n;
	if (line[0] != '[' || !(n = timestamp(d, &t)))
		return NULL;
	/* before the first event p->last is UINT64_MAX: the reference path starts the log */
	if (d[n + 1] != ' ' || t < p->last)
		return NULL;
	const unsigned char *q = d + n + 2;
	if (*q == '{') {
		/* the two names last started at this depth, else the table */
		uint32_t *g = p->guess[p->depth];
		long id = g[0];
		size_t len = p->names[id].len;
		if (id && is_open_of(q, &p->names[id]))
			goto known;
		id = g[1];
		len = p->names[id].len;
		if (id && is_open_of(q, &p->names[id])) {
			g[1] = g[0];
			g[0] = (uint32_t)id;
		} else {
			const unsigned char *r = q;
			for (;;) {
				uint64_t z = zero_bytes(ld64(r) ^ (ONES * '\n'));
				if (z) {
					r += __builtin_ctzll(z) >> 3;
					break;
				}
				r += 8;
			}
			len = (size_t)(r - q - 1);
			if (!len || len > PL_NAME_MAX)
				return NULL;
			id = name_find(p, q + 1, len);
			if (id <= 0) /* unknown, or kiln-iter (slot 0) */
				return NULL;
			g[1] = g[0];
			g[0] = (uint32_t)id;
		}
	known:
		if (p->depth == PL_MAX_DEPTH)
			return NULL;
		struct pl_name *nm = &p->names[id];
		advance(p, t);
		p->line++;
		push(p, nm);
		return (const char *)q + len + 2;
	}
	/* a stop: of the innermost open section, or the reference path decides */
	if (!p->depth)
		return NULL;
	struct pl_name *nm = p->tops[p->depth];
	size_t len = nm->len;
	if (!is_close_of(q, nm))
		return NULL;
	advance(p, t);
	p->line++;
	p->depth--;
	return (const char *)q + len + 2;
}

#ifdef PL_AVX2
/*
 * ---- the AVX2 path ----
 *
 * On CPUs with AVX2, BMI2 and SSE4.2 (checked at run time) runs of lines go
 * through pl_avx2 before pl_fast.  It finds the newlines of 64 bytes at
 * once, so the next line's start never waits for this line's parse; the
 * timestamp is located, checked and converted in one 16-byte register
 * (pshufb puts the digits in place, pmaddubsw and packus pack them).  What
 * follows "] ", with its newline, is then compared whole: a stop with the
 * innermost section's close form, anything else with the slot of a small
 * cache (struct pl_rc, CRC-hashed) that says which name it starts, so no
 * branch depends on a guess of which section comes next.  The accounting
 * is pl_fast's, on local copies of the parser's state.  Like pl_fast it
 * stops *before* any line it is not sure of (a name not cached yet, a new
 * name, kiln-iter, every kind of error); the caller fills the cache,
 * records an iteration mark, or gives the line to the other paths.
 */
#define PL_TGT __attribute__((target("avx2,bmi,bmi2,sse4.2")))

static int pl_has_avx2;
/* pl_rev[n]: the pshufb control reversing n digits (last digit first), zeros above */
static unsigned char pl_rev[16][16] __attribute__((aligned(16)));

static void pl_avx2_init(void)
{
	__builtin_cpu_init();
	pl_has_avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") &&
		      __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("sse4.2");
	for (int n = 0; n < 16; n++)
		for (int k = 0; k < 16; k++)
			pl_rev[n][k] = (unsigned char)(k < n ? n - 1 - k : 0x80);
}

/* the cache slot of the rl (2..31) bytes at q: their first and last eight */
static inline PL_TGT uint32_t rc_hash(const unsigned char *q, size_t rl)
{
	uint64_t a = _bzhi_u64(ld64(q), (unsigned)rl * 8);
	uint64_t b = rl >= 8 ? ld64(q + rl - 8) : 0;
	return (uint32_t)_mm_crc32_u64(_mm_crc32_u64(0, a), b) & (PL_RC - 1);
}

/*
 * a cache miss: is q[0..rl) "{name" or "name}" of a known name (kiln-iter
 * included)?  Then it goes into the slot r, and pl_avx2 finds it there when
 * it starts again from this line.  Kept out of pl_avx2's loop, so that the
 * loop makes no call and keeps its state in registers.
 */
static int rc_fill(struct pypylog *p, struct pl_rc *r, const unsigned char *q, size_t rl)
{
	int start = q[0] == '{';
	if (!start && q[rl - 1] != '}')
		return 0;
	long id = name_find(p, q + start, rl - 1);
	if (id < 0)
		return 0;
	memset(r->form, 0, sizeof(r->form));
	memcpy(r->form, q, rl + 1);
	r->start = (uint8_t)(start + (id ? 0 : 2));
	r->nm = &p->names[id];
	return 1;
}

/*
 * The lines from s, up to stop (just after a newline), while the path is
 * sure of them; returns the first line left to the others (stop: none).
 * Reads up to 63 bytes past a line's newline, which the buffer's slack and
 * the mapping's extra page cover.
 */
static PL_TGT const char *pl_avx2(struct pypylog *p, const char *s, const char *stop)
{
	if (!p->rc) {
		p->rc_mem = xcalloc(1, (PL_RC + 1) * sizeof(struct pl_rc));
		p->rc = (struct pl_rc *)(((uintptr_t)p->rc_mem + 63) & ~(uintptr_t)63);
	}
	struct pl_rc *rc = p->rc;
	p->miss = NULL;
	p->at_iter = NULL;
	uint32_t depth = p->depth;
	uint64_t last = p->last;
	long line = p->line;
	/*
	 * The constants, made opaque so that the compiler keeps them in
	 * registers instead of rebuilding them on every line.
	 */
	__m256i nlv = _mm256_set1_epi8('\n');
	__m128i k_0 = _mm_set1_epi8((char)(0x80 - '0')),
		k_a = _mm_set1_epi8((char)(0x80 - 'a')), k_10 = _mm_set1_epi8((char)(-128 + 10)),
		k_6 = _mm_set1_epi8((char)(-128 + 6)), k_f = _mm_set1_epi8(0x0f), k_9 = _mm_set1_epi8(9),
		k_pair = _mm_set1_epi16(0x1001);
	__asm__("" : "+x"(nlv), "+x"(k_0), "+x"(k_a), "+x"(k_10));
	__asm__("" : "+x"(k_6), "+x"(k_f), "+x"(k_9), "+x"(k_pair));
	const char *blk = s;
	uint64_t nl = 0; /* the newlines at and after s, before stop, in the 64 bytes at blk */
	for (;;) {
		if (!nl) {
			if (s >= stop)
				break;
			blk = s;
			__m256i c0 = _mm256_loadu_si256((const __m256i *)(const void *)blk);
			__m256i c1 = _mm256_loadu_si256((const __m256i *)(const void *)(blk + 32));
			nl = (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(c0, nlv)) |
			     (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(c1, nlv)) << 32;
			if (stop - blk < 64)
				nl = _bzhi_u64(nl, (unsigned)(stop - blk));
			if (!nl)
				break; /* a line longer than 64 bytes */
			__builtin_prefetch(blk + 2048);
		}
		const char *e = blk + _tzcnt_u64(nl);
		if (s[0] != '[') {
			/* section content, as for the reference */
			line++;
			goto next;
		}
		/*
		 * The digits: the run of 0-9a-f after '[' (lo <= c < lo + w in one
		 * signed compare: c - lo + 0x80 < -128 + w), 1 to 15 of them,
		 * then "] " (anything else, uppercase digits included, is left
		 * to the reference)
		 */
		__m128i c = _mm_loadu_si128((const __m128i *)(const void *)(s + 1));
		__m128i dig = _mm_cmpgt_epi8(k_10, _mm_add_epi8(c, k_0));
		__m128i low = _mm_cmpgt_epi8(k_6, _mm_add_epi8(c, k_a));
		unsigned n = _tzcnt_u32(~(unsigned)_mm_movemask_epi8(_mm_or_si128(dig, low)));
		uint16_t sep;
		memcpy(&sep, s + n + 1, 2);
		if (n - 1 >= 15 || sep != (']' | ' ' << 8))
			break;
		const unsigned char *q = (const unsigned char *)s + n + 3;
		size_t rl = (size_t)((const unsigned char *)e - q);
		if (rl - 2 > PL_RC_MAX - 2)
			break;
		/* digit values, last digit first, two per byte */
		__m128i v = _mm_add_epi8(_mm_and_si128(c, k_f), _mm_and_si128(low, k_9));
		v = _mm_shuffle_epi8(v, _mm_load_si128((const __m128i *)(const void *)pl_rev[n]));
		v = _mm_maddubs_epi16(v, k_pair);
		uint64_t t = (uint64_t)_mm_cvtsi128_si64(_mm_packus_epi16(v, v));
		if (t < last)
			break;
		__m256i rest = _mm256_loadu_si256((const __m256i *)(const void *)q);
		if (*q != '{') {
			/*
			 * A stop, of the innermost section as a rule: "name}\n" is
			 * compared with its close form (zero-padded, so that only
			 * this exact line matches) without a lookup.
			 */
			struct pl_name *top = p->tops[depth];
			uint32_t m = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(
				rest, _mm256_loadu_si256((const __m256i *)(const void *)top->close_form)));
			if (!_bzhi_u32(~m, (unsigned)rl + 1)) {
				top->ticks += t - last;
				p->cat_ticks[top->cat] += t - last;
				line++;
				depth--;
				last = t;
				goto next;
			}
		}
		struct pl_rc *r = &rc[rc_hash(q, rl)];
		uint32_t m = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(
			rest, _mm256_load_si256((const __m256i *)(const void *)r->form)));
		if (_bzhi_u32(~m, (unsigned)rl + 1)) {
			p->miss = r;
			p->miss_q = q;
			p->miss_rl = rl;
			break;
		}
		struct pl_name *nm = r->nm;
		if (r->start != 1) {
			/* kiln-iter: records to emit, which the caller does */
			if (r->start > 1) {
				p->at_iter = e + 1;
				p->at_t = t;
				p->at_start = r->start & 1;
			}
			/* else a stop of another section than the innermost: an error */
			break;
		}
		{
			if (depth == PL_MAX_DEPTH)
				break;
			struct pl_name *top = p->tops[depth];
			top->ticks += t - last;
			p->cat_ticks[top->cat] += t - last;
			line++;
			nm->count++;
			p->outer[nm->cbit & ~p->omask[depth]]++;
			p->omask[depth + 1] = p->omask[depth] | nm->cbit;
			p->stack[depth].line = line;
			p->tops[++depth] = nm;
		}
		last = t;
	next:
		nl = _blsr_u64(nl);
		s = e + 1;
	}
	p->depth = depth;
	p->last = last;
	p->line = line;
	return s;
}
#endif

static int parse_lines(struct pypylog *p, const char *s, const char *stop, struct kerr *e);

/* parse every complete line in the buffer and keep the incomplete tail */
static int pl_drain(struct pypylog *p, struct kerr *e)
{
	char *b = p->buf, *end = p->buf + p->len;
	if (p->skipping) {
		char *nl = memchr(b, '\n', p->len);
		if (!nl) {
			p->len = 0;
			return 0;
		}
		p->skipping = 0;
		p->line++;
		b = nl + 1;
	}
	char *last = b < end ? memrchr(b, '\n', (size_t)(end - b)) : NULL;
	if (!last) {
		if (b == p->buf && p->len == PL_BUF) {
			/* a line longer than the buffer: content, never an event */
			p->skipping = 1;
			p->len = 0;
			return 0;
		}
		memmove(p->buf, b, (size_t)(end - b));
		p->len = (size_t)(end - b);
		return 0;
	}
	const char *stop = last + 1;
	if (parse_lines(p, b, stop, e) < 0)
		return -1;
	size_t tail = (size_t)(end - stop);
	memmove(p->buf, stop, tail);
	p->len = tail;
	return 0;
}

/* ---- the public streaming interface ---- */

struct pypylog *pypylog_new(const char *name, const struct pypylog_calib *cal, struct rec_sink *sink)
{
	pl_tables();
	struct pypylog *p = xcalloc(1, sizeof(*p));
	p->file = xstrdup(name);
	p->cal = *cal;
	p->sink = sink;
	p->buf = xcalloc(1, PL_BUF + PL_SLACK);
	p->names = xcalloc(PL_MAX_NAMES, sizeof(*p->names));
	p->last = UINT64_MAX; /* no event yet: see pl_fast */
	p->outside.cat = CAT_OUTSIDE;
	p->outside.s = (char *)"";
	static char nothing[128];
	p->outside.open_form = nothing;
	p->outside.close_form = nothing + 64;
	p->tops[0] = &p->outside;
	/* the iteration marker takes slot 0 so that it never counts as a section name */
	name_id(p, (const unsigned char *)PL_ITER_NAME "\0\0\0\0\0\0\0", sizeof(PL_ITER_NAME) - 1);
	return p;
}

int pypylog_feed(struct pypylog *p, const char *buf, size_t len, struct kerr *e)
{
	while (len) {
		size_t n = PL_BUF - p->len;
		if (n > len)
			n = len;
		memcpy(p->buf + p->len, buf, n);
		p->len += n;
		buf += n;
		len -= n;
		if (pl_drain(p, e) < 0)
			return -1;
	}
	return 0;
}

int pypylog_finish(struct pypylog *p, struct kerr *e)
{
	if (p->len || p->skipping)
		return pl_error(p, e, p->line + 1, "last line has no newline (truncated log?)");
	if (p->depth) {
		struct pl_frame *f = &p->stack[p->depth - 1];
		return pl_error(p, e, f->line, "section '%s' opened here is not finished (truncated log?)",
				p->tops[p->depth]->s);
	}
	if (p->in_iter)
		return pl_error(p, e, p->iter_line, "iteration %ld ('{%s') is not finished (truncated log?)",
				p->iter, PL_ITER_NAME);
	if (!p->started)
		return kerr_setc(e, KEXIT_CONFIG, "%s: no sections in the log (empty, or PyPy stopped before writing it)",
				 p->file);
	if (emit_group(p, e, REC_PEXEC, p->cat_ticks, p->outer + 1) < 0)
		return -1;
	char name[PL_NAME_MAX + 16];
	for (uint32_t i = 1; i < p->nnames; i++) {
		struct pl_name *nm = &p->names[i];
		snprintf(name, sizeof(name), "pypy.%s.time", nm->s);
		if (put(p, e, REC_PEXEC, name, ticks_s(p, nm->ticks), "s") < 0)
			return -1;
		snprintf(name, sizeof(name), "pypy.%s.count", nm->s);
		if (put(p, e, REC_PEXEC, name, (double)nm->count, "") < 0)
			return -1;
	}
	return 0;
}

void pypylog_free(struct pypylog *p)
{
	if (!p)
		return;
	for (uint32_t i = 0; i < p->nnames; i++) {
		free(p->names[i].s);
		free(p->names[i].open_form);
	}
	free(p->names);
	free(p->buf);
	free(p->rc_mem);
	free(p->file);
	free(p);
}

int pypylog_parse_mem(const char *name, const char *buf, size_t len,
		      const struct pypylog_calib *cal, struct rec_sink *sink, struct kerr *e)
{
	struct pypylog *p = pypylog_new(name, cal, sink);
	int r = pypylog_feed(p, buf, len, e);
	if (!r)
		r = pypylog_finish(p, e);
	pypylog_free(p);
	return r;
}

/* ---- calibration ---- */

int pypylog_calib_parse(const char *name, const char *buf, size_t len,
			struct pypylog_calib *c, struct kerr *e)
{
	json_error_t je;
	json_t *o = json_loadb(buf, len, JSON_DECODE_ANY, &je);
	if (!o)
		return kerr_setc(e, KEXIT_CONFIG, "%s:%d:%d: not valid JSON: %s", name, je.line, je.column, je.text);
	int r = -1;
	json_t *pairs = json_is_object(o) ? json_object_get(o, "pairs") : NULL;
	if (!json_is_object(o)) {
		kerr_setc(e, KEXIT_CONFIG, "%s: the calibration must be a JSON object", name);
		goto out;
	}
	if (!json_is_array(pairs) || json_array_size(pairs) < 2) {
		kerr_setc(e, KEXIT_CONFIG, "%s: field 'pairs': missing, or fewer than 2 [tick, ns] pairs", name);
		goto out;
	}
	json_int_t v[2][2];
	for (int k = 0; k < 2; k++) {
		json_t *pr = json_array_get(pairs, k ? json_array_size(pairs) - 1 : 0);
		if (!json_is_array(pr) || json_array_size(pr) != 2 ||
		    !json_is_integer(json_array_get(pr, 0)) || !json_is_integer(json_array_get(pr, 1))) {
			kerr_setc(e, KEXIT_CONFIG, "%s: field 'pairs': each pair must be [tick, ns] integers", name);
			goto out;
		}
		v[k][0] = json_integer_value(json_array_get(pr, 0));
		v[k][1] = json_integer_value(json_array_get(pr, 1));
	}
	if (v[1][0] <= v[0][0] || v[1][1] <= v[0][1] || v[0][0] < 0 || v[0][1] < 0) {
		kerr_setc(e, KEXIT_CONFIG, "%s: field 'pairs': ticks and ns must both increase from the first pair to the last", name);
		goto out;
	}
	c->ns_per_tick = (double)(v[1][1] - v[0][1]) / (double)(v[1][0] - v[0][0]);
	c->tick0 = v[0][0];
	c->ns0 = v[0][1];
	r = 0;
out:
	json_decref(o);
	return r;
}

/* ---- files ---- */

static int ends_with(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a >= b && !strcmp(s + a - b, suf);
}

static int read_plain(struct pypylog *p, int fd, struct kerr *e)
{
	for (;;) {
		ssize_t n = read(fd, p->buf + p->len, PL_BUF - p->len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return kerr_set(e, "%s: %s", p->file, strerror(errno));
		}
		if (n == 0)
			return 0;
		p->len += (size_t)n;
		if (pl_drain(p, e) < 0)
			return -1;
	}
}

int pypylog_fast = 2;

const char *pypylog_path(void)
{
	pl_tables();
#ifdef PL_AVX2
	if (pl_has_avx2)
		return "avx2";
#endif
#ifdef PL_SIMD
	return "sse2";
#else
	return "portable";
#endif
}

/* every line of [s, stop), which ends with a newline */
static int parse_lines(struct pypylog *p, const char *s, const char *stop, struct kerr *e)
{
	while (s < stop) {
#ifdef PL_AVX2
		if (pypylog_fast > 1 && pl_has_avx2) {
			/* runs of lines, and the one line in between through the others */
			s = pl_avx2(p, s, stop);
			if (s == stop)
				return 0;
			/* a line of a known name not in the cache yet: again, from the cache */
			if (p->miss && rc_fill(p, p->miss, p->miss_q, p->miss_rl))
				continue;
			/* an iteration mark: what pl_line would do with it */
			if (p->at_iter) {
				p->line++;
				if (event(p, p->at_t, p->at_start, (const unsigned char *)PL_ITER_NAME,
					  sizeof(PL_ITER_NAME) - 1, e) < 0)
					return -1;
				s = p->at_iter;
				continue;
			}
			const char *next = pl_fast(p, s);
			s = next ? next : pl_line(p, s, stop, e);
			if (!s)
				return -1;
			continue;
		}
#endif
		if (pypylog_fast) {
			const char *next;
			while ((next = pl_fast(p, s)) && next < stop) {
				/*
				 * The log comes from memory, not cache, one 4 KB page
				 * at a time, and the hardware prefetcher stops at page
				 * ends: asking for the bytes 2 KB ahead overlaps the
				 * fetching with the parsing.
				 */
				__builtin_prefetch(next + 2048);
				s = next;
			}
			if (next) /* the last line */
				return 0;
		}
		s = pl_line(p, s, stop, e);
		if (!s)
			return -1;
	}
	return 0;
}

/* a .zst log decompressed straight into the parse buffer */
static int read_zst(struct pypylog *p, int fd, struct kerr *e)
{
	ZSTD_DCtx *d = ZSTD_createDCtx();
	size_t incap = ZSTD_DStreamInSize();
	char *in = xmalloc(incap);
	size_t last = 1;
	int r = -1, eof = 0;
	while (!eof) {
		ssize_t n = read(fd, in, incap);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			kerr_set(e, "%s: %s", p->file, strerror(errno));
			goto out;
		}
		eof = n == 0;
		if (eof && last == 0)
			break; /* the last frame is complete and flushed */
		ZSTD_inBuffer ib = { in, (size_t)n, 0 };
		/* on eof, keep flushing until the decompressor has nothing left */
		for (;;) {
			ZSTD_outBuffer ob = { p->buf + p->len, PL_BUF - p->len, 0 };
			size_t z = ZSTD_decompressStream(d, &ob, &ib);
			if (ZSTD_isError(z)) {
				kerr_setc(e, KEXIT_CONFIG, "%s: zstd: %s", p->file, ZSTD_getErrorName(z));
				goto out;
			}
			last = z;
			p->len += ob.pos;
			if (pl_drain(p, e) < 0)
				goto out;
			if (ib.pos == ib.size && ob.pos < ob.size)
				break;
		}
	}
	if (last != 0) {
		kerr_setc(e, KEXIT_CONFIG, "%s: zstd: the compressed stream is truncated", p->file);
		goto out;
	}
	r = 0;
out:
	free(in);
	ZSTD_freeDCtx(d);
	return r;
}

int pypylog_parse_file(const struct instr_file *f, struct rec_sink *sink, struct kerr *e)
{
	struct pypylog_calib cal;
	struct strbuf sb = STRBUF_INIT;
	int r = instr_read(f, "calibration.json", &sb, e);
	if (!r)
		r = pypylog_calib_parse("calibration.json", sb_str(&sb), sb.len, &cal, e);
	sb_release(&sb);
	if (r < 0)
		return kerr_wrap(e, "%s: the runner's calibration (ticks to seconds) is needed beside the log", f->name);
	int fd = instr_open(f, f->name, NULL, e);
	if (fd < 0)
		return -1;
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	char *shown = path_join(f->dir, f->name);
	struct pypylog *p = pypylog_new(shown, &cal, sink);
	free(shown);
	if (ends_with(f->name, ".zst"))
		r = read_zst(p, fd, e);
	else
		r = read_plain(p, fd, e);
	if (!r)
		r = pypylog_finish(p, e);
	pypylog_free(p);
	close(fd);
	return r;
}

/* ---- keeping the raw log ---- */

int pypylog_compress(const char *path, struct kerr *e)
{
	return zstd_compress_file(path, e);
}
