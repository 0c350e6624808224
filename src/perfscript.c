/*
 * perfscript.c - `perf script` text into samples and call chains (see
 * perfscript.h).
 *
 * A sample header is "COMM [PID/]TID TIME: [PERIOD] EVENT: [IP SYM (DSO)]";
 * COMM may hold spaces and anything else its thread named itself, so the
 * line is anchored by the last "[PID/]TID TIME:" pair whose ids start
 * within the columns perf gives the comm and pid (a symbol's text comes
 * later, a comm's earlier).  Frame lines are "IP SYM (DSO)", indented; the dso is the last
 * parenthesised group (symbols hold parentheses too).  Strings are interned:
 * samples repeat a few hundred names many thousand times.
 */
#include "perfscript.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* samples repeat a few hundred names many thousand times: keep one copy each */
uint32_t pscript_intern(struct pscript *ps, const char *s, size_t n)
{
	n = strnlen(s, n); /* a NUL in the input ends the name: the stored copy is what is compared */
	return n ? (uint32_t)strmap_addn(&ps->strs, s, n) : 0;
}

void pscript_init(struct pscript *ps)
{
	memset(ps, 0, sizeof(*ps));
	strmap_add(&ps->strs, ""); /* index 0 */
}

void pscript_release(struct pscript *ps)
{
	free(ps->s);
	free(ps->frames);
	strmap_clear(&ps->strs);
	memset(ps, 0, sizeof(*ps));
}

static int is_hex_word(const char *p, const char *end)
{
	if (p >= end || end - p > 16)
		return 0;
	for (; p < end; p++)
		if (!isxdigit((unsigned char)*p))
			return 0;
	return 1;
}

/* "123.456789012:" -> ns; 0 on success */
static int parse_time(const char *p, const char *end, int64_t *out)
{
	const char *dot = memchr(p, '.', (size_t)(end - p));
	if (!dot || dot == p || end - dot - 1 < 1 || end - dot - 1 > 9 || dot - p > 10)
		return -1;
	int64_t s = 0, f = 0;
	for (const char *q = p; q < dot; q++) {
		if (!isdigit((unsigned char)*q))
			return -1;
		s = s * 10 + (*q - '0');
	}
	int digits = 0;
	for (const char *q = dot + 1; q < end; q++, digits++) {
		if (!isdigit((unsigned char)*q))
			return -1;
		f = f * 10 + (*q - '0');
	}
	for (; digits < 9; digits++)
		f *= 10;
	/* ten digits of seconds can exceed what int64 nanoseconds hold (292 years) */
	if (s > (INT64_MAX - f) / 1000000000LL)
		return -1;
	*out = s * 1000000000LL + f;
	return 0;
}

/* "1234" or "1234/5678" (pid/tid) */
static int parse_ids(const char *p, const char *end, int *pid, int *tid)
{
	long a = 0, b = -1;
	const char *q = p;
	if (q == end)
		return -1;
	for (; q < end && isdigit((unsigned char)*q); q++)
		if ((a = a * 10 + (*q - '0')) > 1 << 30)
			return -1;
	if (q == p)
		return -1;
	if (q < end) {
		if (*q != '/' || q + 1 == end)
			return -1;
		b = 0;
		for (q++; q < end; q++) {
			if (!isdigit((unsigned char)*q) || (b = b * 10 + (*q - '0')) > 1 << 30)
				return -1;
		}
		*pid = (int)a;
		*tid = (int)b;
	} else {
		*pid = -1;
		*tid = (int)a;
	}
	return 0;
}

/* "  7f0eff0038f4 JS:*advance file.js:38:17 (/tmp/perf-1.map)" -> ip, sym, dso */
static int parse_frame(struct pscript *ps, const char *p, const char *end, struct ps_sample *s)
{
	while (p < end && isspace((unsigned char)*p))
		p++;
	while (end > p && isspace((unsigned char)end[-1]))
		end--;
	const char *w = p;
	while (w < end && !isspace((unsigned char)*w))
		w++;
	if (!is_hex_word(p, w))
		return -1;
	s->ip = strtoull(p, NULL, 16);
	p = w;
	while (p < end && isspace((unsigned char)*p))
		p++;
	/* the dso is the last parenthesised group; symbols may hold parentheses too */
	const char *sym_end = end, *dso = NULL, *dso_end = NULL;
	if (end > p && end[-1] == ')') {
		int depth = 0;
		for (const char *q = end - 1; q >= p; q--) {
			if (*q == ')')
				depth++;
			else if (*q == '(' && --depth == 0) {
				if (q == p || isspace((unsigned char)q[-1])) {
					dso = q + 1;
					dso_end = end - 1;
					sym_end = q;
				}
				break;
			}
		}
	}
	while (sym_end > p && isspace((unsigned char)sym_end[-1]))
		sym_end--;
	s->sym = pscript_intern(ps, p, (size_t)(sym_end - p));
	s->dso = dso ? pscript_intern(ps, dso, (size_t)(dso_end - dso)) : 0;
	return 0;
}

/*
 * A sample header: "COMM [PID/]TID TIME: [EVENT:] [IP SYM (DSO)]".  COMM may
 * hold spaces ("C2 CompilerThre"), so the first word shaped like a time
 * anchors the line.  Returns 1 for a header with its frame, 2 for a header
 * whose frame follows on the next lines (a call chain), -1 for no header.
 */
/*
 * Where perf script starts the ids word at the latest: the comm (at most
 * 15 bytes, TASK_COMM_LEN - 1) right-aligned in 16 columns and a space
 * ("%16s "), then the pid right-aligned in 7 ("%7d/%-7d "): column 23.
 */
#define PS_IDS_MAX_COL 23

static int all_digits(const char *p, const char *end)
{
	if (p >= end || end - p > 19)
		return 0;
	for (; p < end; p++)
		if (!isdigit((unsigned char)*p))
			return 0;
	return 1;
}

/*
 * A sample header: "COMM [PID/]TID TIME: [PERIOD] [EVENT:] [IP SYM (DSO)]".
 * Returns 1 for a header with its frame, 2 for a header whose frame follows
 * on the next lines (a call chain), -1 for no header.
 */
static int parse_header(struct pscript *ps, const char *p, const char *end, struct ps_sample *s)
{
	const char *words[64][2];
	int nw = 0;
	for (const char *q = p; q < end && nw < 64;) {
		while (q < end && isspace((unsigned char)*q))
			q++;
		if (q == end)
			break;
		words[nw][0] = q;
		while (q < end && !isspace((unsigned char)*q))
			q++;
		words[nw++][1] = q;
	}
	/*
	 * The anchor: "[PID/]TID TIME:" whose ids begin where perf puts them,
	 * after the comm, and the last such pair there.  The comm is the
	 * benchmark's (a thread names itself, up to 15 bytes): one reading
	 * "1/1 12345.6: 0" would otherwise be taken for the sample's ids and
	 * time and move its samples to any pid and time it likes.
	 */
	int ti = -1;
	for (int i = 1; i < nw && words[i - 1][0] - p <= PS_IDS_MAX_COL; i++) {
		const char *a = words[i][0], *b = words[i][1];
		int64_t t;
		int pid, tid;
		if (b - a >= 3 && b[-1] == ':' && !parse_time(a, b - 1, &t) &&
		    !parse_ids(words[i - 1][0], words[i - 1][1], &pid, &tid)) {
			ti = i;
			s->t_ns = t;
			s->pid = pid;
			s->tid = tid;
		}
	}
	if (ti < 1)
		return -1;
	s->comm = ti >= 2 ? pscript_intern(ps, words[0][0], (size_t)(words[ti - 2][1] - words[0][0])) : 0;
	const char *rest = words[ti][1];
	int wi = ti + 1;
	/* the period: a decimal number followed by the event name */
	if (wi + 1 < nw && all_digits(words[wi][0], words[wi][1]) && words[wi + 1][1][-1] == ':') {
		s->period = strtoull(words[wi][0], NULL, 10);
		rest = words[wi++][1];
	}
	/* an event name ends in ':' and is not a hex address */
	if (wi < nw && words[wi][1][-1] == ':' && !is_hex_word(words[wi][0], words[wi][1]))
		rest = words[wi++][1];
	if (wi >= nw)
		return 2;
	return parse_frame(ps, rest, end, s) < 0 ? -1 : 1;
}

static void ps_push(struct pscript *ps, const struct ps_sample *s)
{
	if (ps->n == ps->alloc) {
		ps->alloc = ps->alloc ? ps->alloc * 2 : 1024;
		ps->s = xrealloc(ps->s, ps->alloc * sizeof(*ps->s));
	}
	ps->s[ps->n++] = *s;
}

/* one more frame of the sample being read, whose chain is the last frames */
static void ps_push_frame(struct pscript *ps, struct ps_sample *s, uint64_t ip, uint32_t sym, uint32_t dso)
{
	if (!s->nframes)
		s->frame0 = (uint32_t)ps->nframes;
	if (s->nframes >= PS_MAX_FRAMES) {
		if (s->nframes == PS_MAX_FRAMES)
			ps->cut_chains++;
		s->nframes = PS_MAX_FRAMES + 1; /* counted once; the chain stays at the maximum */
		return;
	}
	if (ps->nframes == ps->falloc) {
		ps->falloc = ps->falloc ? ps->falloc * 2 : 4096;
		ps->frames = xrealloc(ps->frames, ps->falloc * sizeof(*ps->frames));
	}
	ps->frames[ps->nframes++] = (struct ps_frame){ ip, sym, dso };
	s->nframes++;
}

/* a frame line of the sample being read (its chain): the first is the leaf */
static void chain_frame(struct pscript *ps, struct ps_sample *s, const struct ps_sample *f, int leaf)
{
	if (leaf) {
		s->ip = f->ip;
		s->sym = f->sym;
		s->dso = f->dso;
	}
	ps_push_frame(ps, s, f->ip, f->sym, f->dso);
}

/* the sample being read is complete: its chain is cut to the maximum */
static void ps_finish(struct pscript *ps, struct ps_sample *s)
{
	if (s->nframes > PS_MAX_FRAMES)
		s->nframes = PS_MAX_FRAMES;
	ps_push(ps, s);
}

void pscript_parse(struct pscript *ps, const char *buf, size_t n)
{
	if (!ps->strs.n)
		pscript_init(ps);
	const char *p = buf, *end = buf + n;
	struct ps_sample cur;
	int open = 0;      /* a sample is being read (its frames may follow) */
	int want_leaf = 0; /* its header had no frame: the next frame line is the leaf */
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		const char *q = p;
		while (q < le && isspace((unsigned char)*q))
			q++;
		struct ps_sample h;
		memset(&h, 0, sizeof(h));
		h.t_ns = -1;
		int r = q == le ? 0 : parse_header(ps, p, le, &h);
		if (q == le) {
			/* a blank line ends a call chain */
			if (open)
				ps_finish(ps, &cur);
			open = 0;
		} else if (r > 0) {
			/* a header ("C2 CompilerThre" starts with a hex-looking word: headers first) */
			if (open)
				ps_finish(ps, &cur);
			cur = h;
			open = 1;
			want_leaf = r == 2;
			if (r == 1)
				chain_frame(ps, &cur, &h, 1);
		} else if (q > p) {
			/* an indented frame: the first one after a bare header is where the sample hit */
			struct ps_sample f;
			memset(&f, 0, sizeof(f));
			if (!open) {
				/* a frame of no sample: ignored */
			} else if (parse_frame(ps, q, le, &f) < 0) {
				ps->bad_lines++;
			} else {
				chain_frame(ps, &cur, &f, want_leaf);
				want_leaf = 0;
			}
		} else {
			if (open)
				ps_finish(ps, &cur);
			open = 0;
			ps->bad_lines++;
		}
		p = nl ? nl + 1 : end;
	}
	if (open)
		ps_finish(ps, &cur);
}

size_t pscript_attach_chains(struct pscript *ps, size_t from, const char *buf, size_t n)
{
	struct pscript c;
	pscript_init(&c);
	pscript_parse(&c, buf, n);
	size_t missing = 0, k = 0;
	for (size_t i = from; i < ps->n; i++) {
		struct ps_sample *s = &ps->s[i];
		const struct ps_sample *x = k < c.n ? &c.s[k] : NULL;
		if (!x || x->t_ns != s->t_ns || x->tid != s->tid) {
			missing++;
			continue;
		}
		k++;
		/* the leaf comes from the -G line; the chain from the other, where it has one */
		s->nframes = 0;
		size_t f = 0;
		/* the chain's first frame is this leaf (perf prints a dso's addresses relative in chains) */
		if (x->nframes && !strcmp(ps_str(&c, c.frames[x->frame0].sym), ps_str(ps, s->sym)) &&
		    !strcmp(ps_str(&c, c.frames[x->frame0].dso), ps_str(ps, s->dso)))
			f = 1;
		ps_push_frame(ps, s, s->ip, s->sym, s->dso);
		for (; f < x->nframes; f++) {
			const struct ps_frame *fr = &c.frames[x->frame0 + f];
			uint32_t sym = pscript_intern(ps, ps_str(&c, fr->sym), strlen(ps_str(&c, fr->sym)));
			uint32_t dso = pscript_intern(ps, ps_str(&c, fr->dso), strlen(ps_str(&c, fr->dso)));
			ps_push_frame(ps, s, fr->ip, sym, dso);
		}
		if (s->nframes > PS_MAX_FRAMES)
			s->nframes = PS_MAX_FRAMES;
	}
	pscript_release(&c);
	return missing;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

int prof_is_jit_dso(const char *dso)
{
	const char *b = base_name(dso);
	return (!strncmp(b, "perf-", 5) && strstr(b, ".map")) || (!strncmp(b, "jitted-", 7) && strstr(b, ".so")) ||
	       !strncmp(dso, "[JIT]", 5) || !strncmp(dso, "//anon", 6) || !strncmp(dso, "[anon", 5) ||
	       !strcmp(dso, "memfd:doublemapper (deleted)");
}
