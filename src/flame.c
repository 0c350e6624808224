/*
 * flame.c - call stacks of a profile's samples and what is made of them
 * (see flame.h): the data, the interactive flame graph page, the folded
 * format, speedscope's and the Firefox Profiler's formats, the
 * differential top list.
 *
 * The page is one file with its script and its data inside: the script
 * builds the tree of the selected samples in the browser (so phase,
 * iteration range and pexec can be changed there) and draws it as SVG with
 * DOM calls only (textContent: no name from a profile is ever parsed as
 * markup); the data is JSON whose '<', '>' and '&' are written as \u
 * escapes, so it cannot end the script element it is in.
 */
#include "flame.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>

/* ---- the data ---- */

/* (a, b, c) -> index, open addressing */
struct tri_map {
	uint32_t (*k)[3];
	uint32_t *idx;   /* index + 1, 0 empty */
	size_t n, cap;
};

static uint32_t tri_find(struct tri_map *m, uint32_t a, uint32_t b, uint32_t c, int *fresh)
{
	if ((m->n + 1) * 2 > m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 1024;
		uint32_t *idx = xcalloc(cap, sizeof(*idx));
		for (size_t i = 0; i < m->n; i++) {
			size_t h = ((size_t)m->k[i][0] * 2654435761u ^ m->k[i][1] * 40503u ^ m->k[i][2]) & (cap - 1);
			while (idx[h])
				h = (h + 1) & (cap - 1);
			idx[h] = (uint32_t)i + 1;
		}
		free(m->idx);
		m->idx = idx;
		m->cap = cap;
		m->k = xrealloc(m->k, cap * sizeof(*m->k));
	}
	size_t h = ((size_t)a * 2654435761u ^ b * 40503u ^ c) & (m->cap - 1);
	while (m->idx[h]) {
		uint32_t *k = m->k[m->idx[h] - 1];
		if (k[0] == a && k[1] == b && k[2] == c) {
			*fresh = 0;
			return m->idx[h] - 1;
		}
		h = (h + 1) & (m->cap - 1);
	}
	m->k[m->n][0] = a;
	m->k[m->n][1] = b;
	m->k[m->n][2] = c;
	m->idx[h] = (uint32_t)++m->n;
	*fresh = 1;
	return (uint32_t)m->n - 1;
}

static void tri_free(struct tri_map *m)
{
	free(m->k);
	free(m->idx);
}

/* a name for the data: visible, at most FLAME_MAX_NAME bytes (a longer one is cut, and says so) */
static json_t *flame_str(const char *s)
{
	const char *v = esc(ESC_JSON, s);
	size_t n = strlen(v);
	if (n <= FLAME_MAX_NAME)
		return json_string(v);
	n = utf8_cut(v, FLAME_MAX_NAME - 16);
	char *t = xasprintf("%.*s...[cut]", (int)n, v);
	json_t *j = json_string(t);
	free(t);
	return j;
}

static json_t *flame_name(const struct pscript *ps, uint32_t sym)
{
	const char *s = ps_str(ps, sym);
	return flame_str(*s ? s : "[unknown]");
}

/* the frame (sym, dso, category) of the data, added when new */
static uint32_t frame_of(struct tri_map *fm, json_t *frames, const struct pscript *ps, uint32_t sym, uint32_t dso,
			 int cat)
{
	int fresh;
	uint32_t f = tri_find(fm, sym, dso, (uint32_t)cat, &fresh);
	if (fresh)
		json_array_append_new(frames, json_pack("[o,o,i]", flame_name(ps, sym), flame_str(ps_str(ps, dso)), cat));
	return f;
}

static uint32_t stack_of(struct tri_map *sm, json_t *stacks, long prefix, uint32_t frame)
{
	int fresh;
	uint32_t s = tri_find(sm, (uint32_t)(prefix + 1), frame, 0, &fresh);
	if (fresh)
		json_array_append_new(stacks, json_pack("[I,i]", (json_int_t)prefix, (int)frame));
	return s;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

/*
 * The time between two samples, in ms, as perf took them: the median
 * period of a time-based event (cpu-clock, task-clock: ns), else the
 * median gap between a thread's successive samples; 0 when unknown.
 */
static double sample_interval_ms(const struct prof_input *in)
{
	const struct pscript *ps = in->ps;
	size_t n = ps->n < FLAME_MAX_SAMPLES ? ps->n : FLAME_MAX_SAMPLES, m = 0;
	int64_t *v = xcalloc(n + 1, sizeof(*v));
	int by_period = in->event && (!strncmp(in->event, "cpu-clock", 9) || !strncmp(in->event, "task-clock", 10));
	for (size_t i = 0; i < n; i++) {
		const struct ps_sample *s = &ps->s[i];
		if (by_period && s->period) {
			v[m++] = (int64_t)s->period;
			continue;
		}
		for (size_t j = i; !by_period && j-- > 0 && i - j < 64;) /* the thread's sample before, nearby in the file */
			if (ps->s[j].tid == s->tid && ps->s[j].pexec == s->pexec) {
				if (s->t_ns > ps->s[j].t_ns && ps->s[j].t_ns > 0)
					v[m++] = s->t_ns - ps->s[j].t_ns;
				break;
			}
	}
	qsort(v, m, sizeof(*v), cmp_i64);
	double ms = m ? (double)v[m / 2] / 1e6 : 0;
	free(v);
	return ms;
}

json_t *flame_data(const struct prof_input *in)
{
	const struct pscript *ps = in->ps;
	json_t *d = json_object(), *cats = json_array(), *frames = json_array(), *stacks = json_array();
	json_t *st = json_array(), *px = json_array(), *it = json_array(), *ph = json_array(), *tm = json_array();
	for (int c = 0; c < PC_N; c++)
		json_array_append_new(cats, json_string(prof_cat_name((enum prof_cat)c)));
	json_array_append_new(cats, json_string("thread"));
	struct tri_map fm = { 0 }, sm = { 0 };
	int64_t *t0 = xcalloc(in->npx + 1, sizeof(*t0));
	for (size_t i = 0; i < ps->n && i < FLAME_MAX_SAMPLES; i++) {
		const struct ps_sample *s = &ps->s[i];
		size_t p = s->pexec < in->npx ? s->pexec : in->npx;
		long prefix = (long)stack_of(&sm, stacks, -1, frame_of(&fm, frames, ps, s->comm, 0, PC_N));
		for (uint32_t k = s->nframes; k-- > 0;) {
			const struct ps_frame *f = &ps->frames[s->frame0 + k];
			int cat = prof_classify_frame(&in->vm, ps_str(ps, f->sym), ps_str(ps, f->dso));
			prefix = (long)stack_of(&sm, stacks, prefix, frame_of(&fm, frames, ps, f->sym, f->dso, cat));
		}
		if (!s->nframes) {
			int cat = prof_classify_frame(&in->vm, ps_str(ps, s->sym), ps_str(ps, s->dso));
			prefix = (long)stack_of(&sm, stacks, prefix, frame_of(&fm, frames, ps, s->sym, s->dso, cat));
		}
		long k = p < in->npx ? prof_iter_of(&in->px[p], s->t_ns) : -1;
		if (!t0[p] && s->t_ns > 0)
			t0[p] = s->t_ns;
		json_array_append_new(st, json_integer(prefix));
		json_array_append_new(px, json_integer((json_int_t)p));
		json_array_append_new(it, json_integer(k));
		json_array_append_new(ph, json_integer(p < in->npx ? prof_phase(&in->px[p], k) : 2));
		json_array_append_new(tm, json_real(s->t_ns > 0 ? (double)(s->t_ns - t0[p]) / 1e6 : 0.0));
	}
	json_t *pxs = json_array();
	for (size_t p = 0; p < in->npx; p++)
		json_array_append_new(pxs, json_pack("{s:i,s:I,s:I}", "pid", in->px[p].pid, "iterations",
						     (json_int_t)in->px[p].niters, "split", (json_int_t)prof_split_of(&in->px[p])));
	json_object_set_new(d, "version", json_integer(1));
	json_object_set_new(d, "key", json_string(esc(ESC_JSON, in->key)));
	json_object_set_new(d, "event", json_string(esc(ESC_JSON, in->event)));
	json_object_set_new(d, "categories", cats);
	json_object_set_new(d, "frames", frames);
	json_object_set_new(d, "stacks", stacks);
	json_object_set_new(d, "samples", json_pack("{s:o,s:o,s:o,s:o,s:o}", "stack", st, "pexec", px, "iter", it, "phase", ph,
						    "t_ms", tm));
	json_object_set_new(d, "pexecs", pxs);
	json_object_set_new(d, "interval_ms", json_real(sample_interval_ms(in)));
	free(t0);
	tri_free(&fm);
	tri_free(&sm);
	return d;
}

/* ---- selections ---- */

void flame_sel_all(struct flame_sel *s)
{
	s->phase = -1;
	s->it_lo = s->it_hi = 0;
	s->pexec = -1;
}

int flame_parse_phase(const char *s, int *phase)
{
	static const char *const names[] = { "warmup", "steady", "outside" };
	if (!strcmp(s, "all")) {
		*phase = -1;
		return 0;
	}
	for (int i = 0; i < 3; i++)
		if (!strcmp(s, names[i])) {
			*phase = i;
			return 0;
		}
	return -1;
}

static json_int_t col(const json_t *d, const char *name, size_t i)
{
	return json_integer_value(json_array_get(json_object_get(json_object_get(d, "samples"), name), i));
}

static size_t nsamples(const json_t *d)
{
	return json_array_size(json_object_get(json_object_get(d, "samples"), "stack"));
}

static int selected(const json_t *d, const struct flame_sel *s, size_t i)
{
	if (s->phase >= 0 && col(d, "phase", i) != s->phase)
		return 0;
	json_int_t k = col(d, "iter", i);
	if (s->it_lo && (k < 0 || k + 1 < s->it_lo || k + 1 > s->it_hi))
		return 0;
	return s->pexec < 0 || col(d, "pexec", i) == s->pexec;
}

/* the frames of stack st, root first, into out (at most FLAME_MAX_DEPTH: flame_check made sure) */
static size_t stack_frames(const json_t *d, json_int_t st, json_int_t *out)
{
	const json_t *stacks = json_object_get(d, "stacks");
	size_t n = 0;
	while (st >= 0 && n < FLAME_MAX_DEPTH) {
		const json_t *e = json_array_get(stacks, (size_t)st);
		out[n++] = json_integer_value(json_array_get(e, 1));
		st = json_is_array(e) ? json_integer_value(json_array_get(e, 0)) : -1;
	}
	for (size_t i = 0; i < n / 2; i++) {
		json_int_t t = out[i];
		out[i] = out[n - 1 - i];
		out[n - 1 - i] = t;
	}
	return n;
}

static const char *frame_name(const json_t *d, json_int_t f)
{
	const char *s = json_string_value(json_array_get(json_array_get(json_object_get(d, "frames"), (size_t)f), 0));
	return s ? s : "?";
}

/* ---- files ---- */

static int write_json(const char *path, json_t *j, struct kerr *e)
{
	char *t = json_dumps(j, JSON_COMPACT | JSON_ENSURE_ASCII);
	int r = t ? write_file(path, t, strlen(t), e) : kerr_set(e, "%s: cannot format the JSON", path);
	free(t);
	return r;
}

/*
 * A file written as it is made, through a buffer of 1 MiB, bounded: at
 * most FLAME_MAX_OUT_MB bytes and FLAME_MAX_OUT_FRAMES frames; the
 * file appears (renamed from PATH.tmp.PID) only when it is whole.
 */
struct fout {
	const char *path;
	char *tmp;
	int fd;
	struct strbuf b;
	uint64_t bytes;
	long frames;
	int err;
	struct kerr *e;
};

static int fout_open(struct fout *o, const char *path, struct kerr *e)
{
	memset(o, 0, sizeof(*o));
	o->path = path;
	o->e = e;
	o->tmp = xasprintf("%s.tmp.%d", path, (int)getpid());
	o->fd = open_tmp_new(o->tmp);
	if (o->fd < 0) {
		kerr_set(e, "%s: %s", o->tmp, strerror(errno));
		free(o->tmp);
		return -1;
	}
	return 0;
}

static int fout_flush(struct fout *o)
{
	for (size_t off = 0; !o->err && off < o->b.len;) {
		ssize_t w = write(o->fd, o->b.buf + off, o->b.len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			o->err = kerr_set(o->e, "%s: %s", o->path, strerror(errno));
			break;
		}
		off += (size_t)w;
	}
	o->bytes += o->b.len;
	sb_reset(&o->b);
	if (!o->err && o->bytes > (uint64_t)FLAME_MAX_OUT_MB << 20)
		o->err = kerr_setc(o->e, KEXIT_CONFIG, "%s: more than %ld MiB: select fewer samples (--phase, --iterations, "
				   "--pexec)", o->path, FLAME_MAX_OUT_MB);
	return o->err;
}

/* what was added since the last check: flushed past 1 MiB; -1 once a bound is passed */
static int fout_check(struct fout *o, long frames)
{
	o->frames += frames;
	if (!o->err && o->frames > FLAME_MAX_OUT_FRAMES)
		o->err = kerr_setc(o->e, KEXIT_CONFIG, "%s: more than %ld frames: select fewer samples (--phase, --iterations, "
				   "--pexec)", o->path, FLAME_MAX_OUT_FRAMES);
	if (!o->err && o->b.len >= (1u << 20))
		fout_flush(o);
	return o->err ? -1 : 0;
}

static int fout_close(struct fout *o)
{
	if (!o->err)
		fout_flush(o);
	if (!o->err && (fsync(o->fd) < 0 || close(o->fd) < 0 || rename(o->tmp, o->path) < 0)) {
		o->err = kerr_set(o->e, "%s: %s", o->path, strerror(errno));
		o->fd = -1;
	}
	if (o->err) {
		if (o->fd >= 0)
			close(o->fd);
		unlink(o->tmp);
	}
	free(o->tmp);
	sb_release(&o->b);
	return o->err ? -1 : 0;
}

/* each stack's depth (its prefix is an earlier stack: one pass) */
static uint16_t *stack_depths(const json_t *d)
{
	const json_t *stacks = json_object_get(d, "stacks");
	size_t ns = json_array_size(stacks);
	uint16_t *depth = xmalloc((ns ? ns : 1) * sizeof(*depth));
	for (size_t i = 0; i < ns; i++) {
		json_int_t pre = json_integer_value(json_array_get(json_array_get(stacks, i), 0));
		depth[i] = pre >= 0 && (size_t)pre < i ? (uint16_t)(depth[pre] + 1) : 1;
	}
	return depth;
}

/* the frames an output would hold, refused before anything is written when they pass the bound */
static int out_frames_ok(const char *path, uint64_t frames, struct kerr *e)
{
	if (frames <= FLAME_MAX_OUT_FRAMES)
		return 0;
	return kerr_setc(e, KEXIT_CONFIG, "%s: %llu frames, more than %ld: select fewer samples (--phase, --iterations, "
			 "--pexec)", path, (unsigned long long)frames, FLAME_MAX_OUT_FRAMES);
}

int flame_write_folded(const char *path, const json_t *d, const struct flame_sel *sel, struct kerr *e)
{
	size_t ns = json_array_size(json_object_get(d, "stacks")), n = nsamples(d);
	long *count = xcalloc(ns ? ns : 1, sizeof(*count));
	for (size_t i = 0; i < n; i++)
		if (selected(d, sel, i) && (size_t)col(d, "stack", i) < ns)
			count[col(d, "stack", i)]++;
	uint16_t *depth = stack_depths(d);
	uint64_t frames = 0;
	for (size_t s = 0; s < ns; s++)
		frames += count[s] ? depth[s] : 0;
	free(depth);
	struct fout o;
	if (out_frames_ok(path, frames, e) < 0 || fout_open(&o, path, e) < 0) {
		free(count);
		return -1;
	}
	json_int_t fr[FLAME_MAX_DEPTH];
	for (size_t s = 0; s < ns; s++) {
		if (!count[s])
			continue;
		size_t k = stack_frames(d, (json_int_t)s, fr);
		for (size_t j = 0; j < k; j++) {
			if (j)
				sb_addc(&o.b, ';');
			for (const char *c = frame_name(d, fr[j]); *c; c++) /* ';' separates frames, a line ends a stack */
				sb_addc(&o.b, *c == ';' ? ':' : (*c == '\n' || *c == '\r') ? ' ' : *c);
		}
		sb_addf(&o.b, " %ld\n", count[s]);
		if (fout_check(&o, (long)k) < 0)
			break;
	}
	free(count);
	return fout_close(&o);
}

/* a JSON value into the file's buffer (ASCII) */
static void fout_json(struct fout *o, const json_t *j)
{
	char *t = json_dumps(j, JSON_COMPACT | JSON_ENSURE_ASCII | JSON_ENCODE_ANY);
	sb_adds(&o->b, t ? t : "null");
	free(t);
}

/* speedscope's file, streamed: one sampled profile per pexec, each sample its stack's frames */
int flame_write_speedscope(const char *path, const json_t *d, const struct flame_sel *sel, struct kerr *e)
{
	size_t nsamp = nsamples(d);
	uint16_t *depth = stack_depths(d);
	uint64_t frames = 0;
	for (size_t k = 0; k < nsamp; k++)
		if (selected(d, sel, k) && col(d, "stack", k) >= 0 && (size_t)col(d, "stack", k) < json_array_size(json_object_get(d, "stacks")))
			frames += depth[col(d, "stack", k)];
	free(depth);
	struct fout o;
	if (out_frames_ok(path, frames, e) < 0 || fout_open(&o, path, e) < 0)
		return -1;
	sb_adds(&o.b, "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"shared\":{\"frames\":[");
	size_t i;
	json_t *f;
	json_array_foreach(json_object_get(d, "frames"), i, f) {
		json_t *fj = json_pack("{s:O,s:O}", "name", json_array_get(f, 0), "file", json_array_get(f, 1));
		if (i)
			sb_addc(&o.b, ',');
		fout_json(&o, fj);
		json_decref(fj);
		if (fout_check(&o, 0) < 0)
			break;
	}
	sb_adds(&o.b, "]},\"profiles\":[");
	size_t npx = json_array_size(json_object_get(d, "pexecs")), n = nsamples(d);
	json_int_t fr[FLAME_MAX_DEPTH];
	for (size_t p = 0; p < npx && !o.err; p++) {
		size_t nsel = 0;
		for (size_t k = 0; k < n; k++)
			nsel += col(d, "pexec", k) == (json_int_t)p && selected(d, sel, k);
		const json_t *pe = json_array_get(json_object_get(d, "pexecs"), p);
		char name[64];
		snprintf(name, sizeof(name), "pexec %zu (pid %lld)", p, (long long)json_integer_value(json_object_get(pe, "pid")));
		sb_addf(&o.b, "%s{\"type\":\"sampled\",\"name\":\"%s\",\"unit\":\"none\",\"startValue\":0,\"endValue\":%zu,"
			"\"samples\":[", p ? "," : "", name, nsel);
		size_t w = 0;
		for (size_t k = 0; k < n && !o.err; k++) {
			if (col(d, "pexec", k) != (json_int_t)p || !selected(d, sel, k))
				continue;
			size_t m = stack_frames(d, col(d, "stack", k), fr);
			sb_adds(&o.b, w++ ? ",[" : "[");
			for (size_t j = 0; j < m; j++)
				sb_addf(&o.b, "%s%lld", j ? "," : "", (long long)fr[j]);
			sb_addc(&o.b, ']');
			fout_check(&o, (long)m);
		}
		sb_adds(&o.b, "],\"weights\":[");
		for (size_t k = 0; k < nsel && !o.err; k++) {
			sb_adds(&o.b, k ? ",1" : "1");
			if (!(k & 0xffff))
				fout_check(&o, 0);
		}
		sb_adds(&o.b, "]}");
	}
	sb_adds(&o.b, "],\"name\":");
	json_t *nm = json_string(json_string_value(json_object_get(d, "key")) ? json_string_value(json_object_get(d, "key")) : "");
	fout_json(&o, nm);
	json_decref(nm);
	sb_adds(&o.b, ",\"activeProfileIndex\":0,\"exporter\":\"kiln\"}");
	return fout_close(&o);
}

/* one Gecko thread per pexec, sharing the frame and stack tables */
static json_t *gecko_thread(const json_t *d, const struct flame_sel *sel, size_t p, json_t *strings_proto)
{
	json_t *fdata = json_array(), *sdata = json_array(), *samples = json_array();
	size_t i;
	json_t *f;
	json_array_foreach(json_object_get(d, "frames"), i, f)
		json_array_append_new(fdata, json_pack("[I,b,i,n,n,n,n,I,i]", (json_int_t)i, 0, 0,
						       json_integer_value(json_array_get(f, 2)), 0));
	json_array_foreach(json_object_get(d, "stacks"), i, f) {
		json_int_t pre = json_integer_value(json_array_get(f, 0));
		json_array_append_new(sdata, json_pack("[o,O]", pre < 0 ? json_null() : json_integer(pre), json_array_get(f, 1)));
	}
	size_t n = nsamples(d);
	for (size_t k = 0; k < n; k++)
		if (col(d, "pexec", k) == (json_int_t)p && selected(d, sel, k))
			json_array_append_new(samples, json_pack("[I,O,i]", col(d, "stack", k),
								 json_array_get(json_object_get(json_object_get(d, "samples"), "t_ms"), k), 0));
	const json_t *pe = json_array_get(json_object_get(d, "pexecs"), p);
	json_int_t pid = json_integer_value(json_object_get(pe, "pid"));
	json_t *t = json_object();
	json_object_set_new(t, "name", json_sprintf("pexec %zu", p));
	json_object_set_new(t, "processType", json_string("default"));
	json_object_set_new(t, "processName", json_string(json_string_value(json_object_get(d, "key"))));
	json_object_set_new(t, "pid", json_integer(pid));
	json_object_set_new(t, "tid", json_integer(pid));
	json_object_set_new(t, "registerTime", json_real(0));
	json_object_set_new(t, "unregisterTime", json_null());
	json_object_set_new(t, "markers", json_pack("{s:{s:i,s:i,s:i},s:[]}", "schema", "name", 0, "time", 1, "data", 2, "data"));
	json_object_set_new(t, "samples", json_pack("{s:{s:i,s:i,s:i},s:o}", "schema", "stack", 0, "time", 1, "eventDelay", 2,
						    "data", samples));
	json_object_set_new(t, "frameTable", json_pack("{s:{s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i},s:o}", "schema", "location", 0,
						       "relevantForJS", 1, "innerWindowID", 2, "implementation", 3,
						       "optimizations", 4, "line", 5, "column", 6, "category", 7, "subcategory", 8,
						       "data", fdata));
	json_object_set_new(t, "stackTable", json_pack("{s:{s:i,s:i},s:o}", "schema", "prefix", 0, "frame", 1, "data", sdata));
	json_object_set_new(t, "stringTable", json_deep_copy(strings_proto));
	return t;
}

int flame_write_gecko(const char *path, const json_t *d, const struct flame_sel *sel, struct kerr *e)
{
	static const char *const colors[] = { "orange", "blue", "purple", "yellow", "red", "grey", "green" };
	json_t *cats = json_array(), *strings = json_array(), *threads = json_array();
	size_t i;
	json_t *c;
	json_array_foreach(json_object_get(d, "categories"), i, c)
		json_array_append_new(cats, json_pack("{s:O,s:s,s:[s]}", "name", c, "color", colors[i < 7 ? i : 5],
						      "subcategories", "Other"));
	json_array_foreach(json_object_get(d, "frames"), i, c) /* frame i's location is string i */
		json_array_append(strings, json_array_get(c, 0));
	size_t npx = json_array_size(json_object_get(d, "pexecs"));
	for (size_t p = 0; p < npx; p++)
		json_array_append_new(threads, gecko_thread(d, sel, p, strings));
	/* the profiler takes each sample to last `interval`: perf's real period, not a nominal 1 ms */
	double interval = json_real_value(json_object_get(d, "interval_ms"));
	json_t *meta = json_pack("{s:i,s:f,s:i,s:i,s:f,s:i,s:s,s:o,s:[]}", "version", 24, "interval",
				 interval > 0 ? interval : 1.0, "stackwalk", 1, "debug", 0, "startTime", 0.0, "processType", 0,
				 "product", "kiln", "categories", cats, "markerSchema");
	json_t *root = json_pack("{s:o,s:[],s:o,s:[],s:[]}", "meta", meta, "libs", "threads", threads, "processes",
				 "pausedRanges");
	int r = write_json(path, root, e);
	json_decref(root);
	json_decref(strings);
	return r;
}

/* ---- the differential top list ---- */

struct name_count {
	const char *name;
	long a, b;
};

static int cmp_nc(const void *x, const void *y, void *ctx)
{
	const double *tot = ctx;
	const struct name_count *p = x, *q = y;
	double dp = (double)p->b / tot[1] - (double)p->a / tot[0], dq = (double)q->b / tot[1] - (double)q->a / tot[0];
	dp = dp < 0 ? -dp : dp;
	dq = dq < 0 ? -dq : dq;
	return dp < dq ? 1 : dp > dq ? -1 : strcmp(p->name, q->name);
}

/* self counts by leaf name of one side (names found through a hash: a profile may have millions) */
static void count_leaves(const json_t *d, const struct flame_sel *s, int side, struct strmap *names,
			 struct name_count **v, size_t *nv, long *total)
{
	size_t n = nsamples(d);
	json_int_t fr[FLAME_MAX_DEPTH];
	for (size_t i = 0; i < n; i++) {
		if (!selected(d, s, i))
			continue;
		size_t k = stack_frames(d, col(d, "stack", i), fr);
		const char *name = k ? frame_name(d, fr[k - 1]) : "?";
		size_t j = strmap_add(names, name);
		if (j == *nv) {
			*v = xrealloc(*v, (*nv + 1) * sizeof(**v));
			(*v)[(*nv)++] = (struct name_count){ names->keys[j], 0, 0 };
		}
		if (side)
			(*v)[j].b++;
		else
			(*v)[j].a++;
		(*total)++;
	}
}

json_t *flame_diff_top(const json_t *a, const struct flame_sel *sa, const json_t *b, const struct flame_sel *sb, int top)
{
	struct name_count *v = NULL;
	struct strmap names = STRMAP_INIT;
	size_t nv = 0;
	long ta = 0, tb = 0;
	count_leaves(a, sa, 0, &names, &v, &nv, &ta);
	count_leaves(b, sb, 1, &names, &v, &nv, &tb);
	double tot[2] = { ta ? (double)ta : 1, tb ? (double)tb : 1 };
	if (nv)
		qsort_r(v, nv, sizeof(*v), cmp_nc, tot);
	json_t *rows = json_array();
	for (size_t i = 0; i < nv && (int)i < top; i++)
		json_array_append_new(rows, json_pack("{s:s,s:I,s:I,s:f,s:f,s:f}", "symbol", v[i].name, "samples_a",
						      (json_int_t)v[i].a, "samples_b", (json_int_t)v[i].b, "percent_a",
						      100.0 * (double)v[i].a / tot[0], "percent_b", 100.0 * (double)v[i].b / tot[1],
						      "delta", 100.0 * ((double)v[i].b / tot[1] - (double)v[i].a / tot[0])));
	free(v);
	strmap_clear(&names);
	return json_pack("{s:I,s:I,s:o}", "samples_a", (json_int_t)ta, "samples_b", (json_int_t)tb, "symbols", rows);
}

void flame_print_diff(FILE *f, const json_t *diff)
{
	fprintf(f, "%lld samples before, %lld after; self time by symbol, largest changes first:\n",
		(long long)json_integer_value(json_object_get(diff, "samples_a")),
		(long long)json_integer_value(json_object_get(diff, "samples_b")));
	fprintf(f, "%8s %8s %8s  %s\n", "before", "after", "change", "symbol");
	size_t i;
	json_t *r;
	json_array_foreach(json_object_get(diff, "symbols"), i, r)
		fprintf(f, "%7.2f%% %7.2f%% %+7.2f%%  %s\n", json_real_value(json_object_get(r, "percent_a")),
			json_real_value(json_object_get(r, "percent_b")), json_real_value(json_object_get(r, "delta")),
			esc(ESC_TERM, json_string_value(json_object_get(r, "symbol"))));
}

/* ---- the page ---- */

static const char page_head[] =
	"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>kiln flame graph</title>\n<style>\n"
	"body{font:13px sans-serif;margin:12px;color:#222}#bar{margin-bottom:8px}#bar *{margin-right:6px}"
	"svg text{font:11px monospace;pointer-events:none}svg rect{stroke:#fff;stroke-width:.5;cursor:pointer}"
	"#tip{position:fixed;background:#ffe;border:1px solid #aa8;padding:3px 6px;display:none;font:12px monospace;"
	"white-space:pre;pointer-events:none}table{border-collapse:collapse;margin-top:10px}"
	"td,th{padding:1px 8px;text-align:right;font:12px monospace}td:last-child{text-align:left}\n"
	"</style>\n</head>\n<body>\n<h2 id=\"title\"></h2>\n<div id=\"bar\">\n"
	"<label>phase <select id=\"phase\"><option value=\"all\">all</option><option value=\"warmup\">warmup</option>"
	"<option value=\"steady\">steady state</option><option value=\"outside\">outside iterations</option></select></label>"
	"<label>iterations <input id=\"itlo\" size=\"4\">&ndash;<input id=\"ithi\" size=\"4\"></label>"
	"<label>pexec <select id=\"pexec\"><option value=\"-1\">all</option></select></label>"
	"<label>search <input id=\"search\" size=\"20\"></label><button id=\"reset\">reset zoom</button>"
	"<span id=\"status\"></span>\n</div>\n<svg id=\"flame\"></svg>\n<div id=\"tip\"></div>\n"
	"<div id=\"kiln-summary\"></div>\n<table id=\"top\"></table>\n<script type=\"application/json\" id=\"kiln-data\">";

/*
 * The script: the tree of the selected samples (children by name: the
 * dso of JIT'd code names its pid, so that pexecs and profiles line up), laid out with the root on top, a frame's
 * width its samples; a click zooms, the search marks frames, the
 * controls (and the URL's #phase=&it=A-B&pexec=&search=&zoom=) select.
 */
static const char page_script[] =
	"</script>\n<script>\n'use strict';\n"
	"const D=JSON.parse(document.getElementById('kiln-data').textContent);\n"
	"const A=D.a,B=D.b,diff=!!B,ROWH=17;let W=1200;\n"
	"const $=id=>document.getElementById(id),svg=$('flame'),NS='http://www.w3.org/2000/svg';\n"
	"const HUE={jit:30,vm:210,gc:280,compiler:52,kernel:0,other:0,thread:120};\n"
	"function hash(s){let h=0;for(let i=0;i<s.length;i++)h=(h*31+s.charCodeAt(i))|0;return Math.abs(h);}\n"
	"function keep(d,s,i){const S=d.samples;if(s.phase>=0&&S.phase[i]!==s.phase)return false;"
	"if(s.lo>0&&(S.iter[i]<0||S.iter[i]+1<s.lo||S.iter[i]+1>s.hi))return false;"
	"return s.pexec<0||S.pexec[i]===s.pexec;}\n"
	"function tree(){return{name:'all',dso:'',cat:'thread',n:0,m:0,self:0,kids:new Map(),parent:null};}\n"
	"function add(root,d,s,field){const memo=new Map();let tot=0;\n"
	" function node(st){if(st<0)return root;let x=memo.get(st);if(x)return x;const e=d.stacks[st],f=d.frames[e[1]],p=node(e[0]);\n"
	"  const k=f[0];x=p.kids.get(k);if(!x){x={name:f[0],dso:f[1],cat:d.categories[f[2]],n:0,m:0,self:0,kids:new Map(),parent:p};p.kids.set(k,x);}\n"
	"  memo.set(st,x);return x;}\n"
	" const S=d.samples;for(let i=0;i<S.stack.length;i++){if(!keep(d,s,i))continue;tot++;const x=node(S.stack[i]);"
	"if(field==='n')x.self++;for(let y=x;y;y=y.parent)y[field]++;}\n return tot;}\n"
	"let sel,root,totA=0,totB=0,zoom=null,re=null;\n"
	"function readSel(){const p={all:-1,warmup:0,steady:1,outside:2}[$('phase').value];const lo=parseInt($('itlo').value)||0,"
	"hi=parseInt($('ithi').value)||lo;return{phase:p,lo:lo,hi:hi?hi:1e9,pexec:parseInt($('pexec').value)};}\n"
	"function color(x){if(re&&re.test(x.name))return'#e040e0';\n"
	" if(diff){const a=totA?x.m/totA:0,b=totB?x.n/totB:0,dd=b-a,k=Math.min(1,Math.abs(dd)*8);\n"
	"  return dd>0?'rgb(255,'+Math.round(230-180*k)+','+Math.round(230-180*k)+')':'rgb('+Math.round(230-180*k)+','+Math.round(230-180*k)+',255)';}\n"
	" const h=HUE[x.cat]||0,l=55+hash(x.name)%25;return x.cat==='other'?'hsl(0,0%,'+l+'%)':'hsl('+h+',75%,'+l+'%)';}\n"
	"function depth(x){let m=0;for(const c of x.kids.values())m=Math.max(m,depth(c));return m+1;}\n"
	"function draw(){svg.textContent='';W=Math.max(400,document.body.clientWidth-8);const top=zoom||root,dmax=depth(root),H=dmax*ROWH+4;\n"
	" svg.setAttribute('width',W);svg.setAttribute('height',H);let frames=0;\n"
	" function rect(x,lev,x0,w,faded){if(w<0.3)return;frames++;const g=document.createElementNS(NS,'g'),r=document.createElementNS(NS,'rect');\n"
	"  const y=lev*ROWH;r.setAttribute('x',x0);r.setAttribute('y',y);r.setAttribute('width',w);r.setAttribute('height',ROWH-1);\n"
	"  r.setAttribute('fill',color(x));if(faded)r.setAttribute('opacity','0.55');g.appendChild(r);g.setAttribute('class','frame');\n"
	"  g.dataset.name=x.name;g.dataset.samples=x.n;if(w>40){const t=document.createElementNS(NS,'text');t.setAttribute('x',x0+3);"
	"t.setAttribute('y',y+12);const c=Math.floor((w-6)/6.6);t.textContent=x.name.length>c?x.name.slice(0,Math.max(0,c-2))+'..':x.name;g.appendChild(t);}\n"
	"  g.addEventListener('click',()=>{zoom=x===root?null:x;draw();});g.addEventListener('mousemove',ev=>tip(ev,x));"
	"g.addEventListener('mouseout',()=>{$('tip').style.display='none';});svg.appendChild(g);}\n"
	" const anc=[];for(let y=top;y;y=y.parent)anc.unshift(y);anc.forEach((y,i)=>rect(y,i,0,W,y!==top));\n"
	" (function kids(x,lev,x0,scale){let cx=x0;const ks=[...x.kids.values()].filter(c=>c.n>0).sort((p,q)=>p.name<q.name?-1:1);\n"
	"  for(const c of ks){const w=c.n*scale;rect(c,lev,cx,w,false);if(w>=0.3)kids(c,lev+1,cx,scale);cx+=w;}})(top,anc.length,0,top.n?W/top.n:0);\n"
	" summary(frames);}\n"
	"function pct(a,t){return t?(100*a/t).toFixed(2)+'%':'-';}\n"
	"function tip(ev,x){const t=$('tip');t.textContent=x.name+(x.dso?'  ['+x.dso+']':'')+'\\n'+(diff?\n"
	" 'before '+pct(x.m,totA)+', after '+pct(x.n,totB)+' ('+x.n+' samples)':x.n+' samples, '+pct(x.n,totB)+' (self '+x.self+')');\n"
	" t.style.display='block';t.style.left=(ev.clientX+12)+'px';t.style.top=(ev.clientY+12)+'px';}\n"
	"function summary(frames){const s=$('kiln-summary'),top=topList();s.dataset.samples=totB;s.dataset.samplesBefore=totA;\n"
	" s.dataset.frames=frames;s.dataset.zoom=zoom?zoom.name:'';s.dataset.top=top.length?top[0].name:'';\n"
	" let matched=0;if(re){(function walk(x){if(re.test(x.name)){matched+=x.n;return;}for(const c of x.kids.values())walk(c);})(root);}\n"
	" s.dataset.matched=matched;$('status').textContent=totB+' samples'+(diff?' (before: '+totA+')':'')+(re?', search: '+pct(matched,totB):'')+(zoom?', zoomed on '+zoom.name:'');\n"
	" const tb=$('top');tb.textContent='';const hr=tb.insertRow();(diff?['before','after','change','symbol (self)']:['samples','%','symbol (self)']).forEach(h=>{const th=document.createElement('th');th.textContent=h;hr.appendChild(th);});\n"
	" for(const r of top.slice(0,30)){const tr=tb.insertRow();(diff?[pct(r.a,totA),pct(r.b,totB),(100*(r.b/(totB||1)-r.a/(totA||1))).toFixed(2)+'%',r.name]:[r.b,pct(r.b,totB),r.name]).forEach(v=>{tr.insertCell().textContent=v;});}}\n"
	"function topList(){const m=new Map();(function walk(x){if(x.self||x.mself){const e=m.get(x.name)||{name:x.name,a:0,b:0};e.b+=x.self;e.a+=x.mself||0;m.set(x.name,e);}\n"
	" for(const c of x.kids.values())walk(c);})(root);const v=[...m.values()];\n"
	" if(diff)v.sort((p,q)=>Math.abs(q.b/(totB||1)-q.a/(totA||1))-Math.abs(p.b/(totB||1)-p.a/(totA||1)));else v.sort((p,q)=>q.b-p.b);return v;}\n"
	"function mself(rootA){(function walk(x){let c=0;for(const k of x.kids.values()){walk(k);c+=k.m;}x.mself=x.m-c;})(rootA);}\n"
	"function rebuild(){sel=readSel();root=tree();zoom=null;\n"
	" if(diff){const sa=D.same?Object.assign({},sel,{phase:0}):sel,sb=D.same?Object.assign({},sel,{phase:1}):sel;totA=add(root,A,sa,'m');totB=add(root,B,sb,'n');mself(root);}\n"
	" else{totB=add(root,A,sel,'n');totA=0;}draw();}\n"
	"function fromHash(){const h=new URLSearchParams(location.hash.slice(1));if(h.get('phase'))$('phase').value=h.get('phase');\n"
	" if(h.get('it')){const p=h.get('it').split('-');$('itlo').value=p[0];$('ithi').value=p[1]||p[0];}if(h.get('pexec'))$('pexec').value=h.get('pexec');\n"
	" if(h.get('search')){$('search').value=h.get('search');}return h.get('zoom');}\n"
	"(function init(){$('title').textContent=(diff&&!D.same?A.key+' vs '+B.key:A.key)+(diff?(D.same?': steady state against warmup':': difference'):'')+' ('+A.event+')';\n"
	" A.pexecs.forEach((p,i)=>{const o=document.createElement('option');o.value=i;o.textContent=i+' (pid '+p.pid+')';$('pexec').appendChild(o);});\n"
	" if(D.sel){$('phase').value=D.sel.phase;if(D.sel.lo){$('itlo').value=D.sel.lo;$('ithi').value=D.sel.hi;}$('pexec').value=D.sel.pexec;}\n"
	" if(D.same)$('phase').disabled=true;const z=fromHash();const s=$('search').value;re=s?new RegExp(s.replace(/[.*+?^${}()|[\\]\\\\]/g,'\\\\$&')):null;rebuild();\n"
	" if(z){(function find(x){if(zoom)return;if(x.name===z){zoom=x;return;}for(const c of x.kids.values())find(c);})(root);draw();}\n"
	" ['phase','pexec'].forEach(id=>$(id).addEventListener('change',rebuild));['itlo','ithi'].forEach(id=>$(id).addEventListener('change',rebuild));\n"
	" $('search').addEventListener('input',()=>{const v=$('search').value;re=v?new RegExp(v.replace(/[.*+?^${}()|[\\]\\\\]/g,'\\\\$&')):null;draw();});\n"
	" $('reset').addEventListener('click',()=>{zoom=null;draw();});})();\n"
	"</script>\n</body>\n</html>\n";

/* JSON inside a script element: '<', '>' and '&' as \u escapes (they only occur inside strings) */
static void add_script_json(struct strbuf *b, const json_t *j)
{
	char *t = json_dumps(j, JSON_COMPACT | JSON_ENSURE_ASCII);
	for (const char *p = t ? t : "null"; *p; p++) {
		if (*p == '<' || *p == '>' || *p == '&')
			sb_addf(b, "\\u%04x", (unsigned char)*p);
		else
			sb_addc(b, *p);
	}
	free(t);
}

void flame_page(struct strbuf *out, const json_t *a, const json_t *b, const struct flame_sel *sel)
{
	static const char *const phases[] = { "warmup", "steady", "outside" };
	json_t *page = json_object();
	json_object_set(page, "a", (json_t *)a);
	json_object_set(page, "b", b ? (json_t *)b : json_null());
	json_object_set_new(page, "same", json_boolean(b == a));
	json_object_set_new(page, "sel", json_pack("{s:s,s:I,s:I,s:I}", "phase", sel->phase < 0 ? "all" : phases[sel->phase],
						   "lo", (json_int_t)sel->it_lo, "hi", (json_int_t)sel->it_hi, "pexec",
						   (json_int_t)sel->pexec));
	sb_adds(out, page_head);
	add_script_json(out, page);
	sb_adds(out, page_script);
	json_decref(page);
}

int flame_write_html(const char *path, const json_t *a, const json_t *b, const struct flame_sel *sel, struct kerr *e)
{
	struct strbuf out = STRBUF_INIT;
	flame_page(&out, a, b, sel);
	int r = write_file(path, out.buf, out.len, e);
	sb_release(&out);
	return r;
}

/*
 * The page is ASCII (the data JSON_ENSURE_ASCII, the script kiln's): each
 * line escaped for an attribute value, the line breaks as character
 * references (the escaper would make them visible "\n", which the script
 * cannot parse).
 */
void flame_iframe(struct strbuf *out, const json_t *d, const char *title)
{
	struct flame_sel all;
	flame_sel_all(&all);
	struct strbuf page = STRBUF_INIT;
	flame_page(&page, d, NULL, &all);
	sb_adds(out, "<iframe class=\"flame\" title=\"");
	esc_add(out, ESC_HTML, title);
	sb_adds(out, "\" style=\"width:100%;height:560px;border:1px solid #eee\" srcdoc=\"");
	const char *p = sb_str(&page), *end = p + page.len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		esc_addn(out, ESC_HTML, p, nl ? (size_t)(nl - p) : (size_t)(end - p));
		if (!nl)
			break;
		sb_adds(out, "&#10;");
		p = nl + 1;
	}
	sb_adds(out, "\"></iframe>\n");
	sb_release(&page);
}

/* an integer of [lo, hi] */
static int int_in(const json_t *v, json_int_t lo, json_int_t hi)
{
	return json_is_integer(v) && json_integer_value(v) >= lo && json_integer_value(v) <= hi;
}

static int bad(struct kerr *e, const char *where, const char *fmt, ...) KILN_PRINTF(3, 4);
static int bad(struct kerr *e, const char *where, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	sb_vaddf(&sb, fmt, ap);
	va_end(ap);
	kerr_setc(e, KEXIT_CONFIG, "%s: flame.%s", where, sb.buf);
	sb_release(&sb);
	return -1;
}

/* frames: [name, file, category] each, within the bounds */
static int check_frames(const json_t *fl, const char *where, size_t ncat, struct kerr *e)
{
	const json_t *frames = json_object_get(fl, "frames");
	if (json_array_size(frames) > FLAME_MAX_FRAMES)
		return bad(e, where, "frames: more than %d (FLAME_MAX_FRAMES)", FLAME_MAX_FRAMES);
	size_t i;
	json_t *f;
	json_array_foreach(frames, i, f) {
		const char *n = json_string_value(json_array_get(f, 0)), *file = json_string_value(json_array_get(f, 1));
		if (!json_is_array(f) || json_array_size(f) != 3 || !n || !file ||
		    !int_in(json_array_get(f, 2), 0, (json_int_t)ncat - 1))
			return bad(e, where, "frames[%zu]: not [name, file, category]", i);
		if (strlen(n) > FLAME_MAX_NAME || strlen(file) > FLAME_MAX_NAME)
			return bad(e, where, "frames[%zu]: a name longer than %d bytes", i, FLAME_MAX_NAME);
	}
	return 0;
}

/* stacks: [prefix, frame], the prefix an earlier stack (no cycle), at most FLAME_MAX_DEPTH deep */
static int check_stacks(const json_t *fl, const char *where, struct kerr *e)
{
	const json_t *stacks = json_object_get(fl, "stacks");
	size_t ns = json_array_size(stacks), nf = json_array_size(json_object_get(fl, "frames"));
	if (ns > FLAME_MAX_STACKS)
		return bad(e, where, "stacks: more than %d (FLAME_MAX_STACKS)", FLAME_MAX_STACKS);
	uint16_t *depth = xmalloc((ns ? ns : 1) * sizeof(*depth));
	int r = 0;
	for (size_t i = 0; i < ns && !r; i++) {
		const json_t *s = json_array_get(stacks, i);
		const json_t *pre = json_array_get(s, 0);
		if (!json_is_array(s) || json_array_size(s) != 2 || !int_in(json_array_get(s, 1), 0, (json_int_t)nf - 1))
			r = bad(e, where, "stacks[%zu]: not [prefix, frame] with one of the %zu frames", i, nf);
		else if (!int_in(pre, -1, (json_int_t)i - 1))
			r = bad(e, where, "stacks[%zu]: its prefix %lld is not an earlier stack", i,
				(long long)json_integer_value(pre));
		else if ((depth[i] = (uint16_t)(json_integer_value(pre) < 0 ? 1 : depth[json_integer_value(pre)] + 1)) >
			 FLAME_MAX_DEPTH)
			r = bad(e, where, "stacks[%zu]: more than %d frames deep", i, FLAME_MAX_DEPTH);
	}
	free(depth);
	return r;
}

/* samples: columns of one length, each value in its range */
static int check_samples(const json_t *fl, const char *where, struct kerr *e)
{
	const json_t *s = json_object_get(fl, "samples");
	size_t n = json_array_size(json_object_get(s, "stack"));
	json_int_t ns = (json_int_t)json_array_size(json_object_get(fl, "stacks"));
	json_int_t np = (json_int_t)json_array_size(json_object_get(fl, "pexecs"));
	if (n > FLAME_MAX_SAMPLES)
		return bad(e, where, "samples: more than %d (FLAME_MAX_SAMPLES)", FLAME_MAX_SAMPLES);
	static const char *const cols[] = { "stack", "pexec", "iter", "phase", "t_ms" };
	for (size_t c = 0; c < ARRAY_SIZE(cols); c++) {
		const json_t *a = json_object_get(s, cols[c]);
		if (!json_is_array(a) || json_array_size(a) != n)
			return bad(e, where, "samples.%s: not a list of %zu", cols[c], n);
	}
	for (size_t i = 0; i < n; i++) {
		if (!int_in(json_array_get(json_object_get(s, "stack"), i), 0, ns - 1))
			return bad(e, where, "samples.stack[%zu]: not one of the %lld stacks", i, (long long)ns);
		if (!int_in(json_array_get(json_object_get(s, "pexec"), i), 0, np - 1))
			return bad(e, where, "samples.pexec[%zu]: not one of the %lld pexecs", i, (long long)np);
		if (!int_in(json_array_get(json_object_get(s, "iter"), i), -1, 100000000) ||
		    !int_in(json_array_get(json_object_get(s, "phase"), i), 0, 2))
			return bad(e, where, "samples.iter[%zu] or .phase[%zu]: out of range", i, i);
		const json_t *t = json_array_get(json_object_get(s, "t_ms"), i);
		if (!json_is_number(t) || !isfinite(json_number_value(t)))
			return bad(e, where, "samples.t_ms[%zu]: not a finite number", i);
	}
	return 0;
}

/* a flame's data as kiln reads it from a file: the shape flame_data makes, within every bound */
static int flame_check(const json_t *fl, const char *where, struct kerr *e)
{
	const json_t *pexecs = json_object_get(fl, "pexecs");
	size_t ncat = json_array_size(json_object_get(fl, "categories"));
	if (json_array_size(pexecs) > FLAME_MAX_PEXECS)
		return bad(e, where, "pexecs: more than %d", FLAME_MAX_PEXECS);
	size_t i;
	json_t *p, *c;
	json_array_foreach(pexecs, i, p)
		if (!json_is_object(p) || !int_in(json_object_get(p, "pid"), 0, INT32_MAX))
			return bad(e, where, "pexecs[%zu]: not {\"pid\": N, ...}", i);
	json_array_foreach(json_object_get(fl, "categories"), i, c)
		if (!json_is_string(c) || strlen(json_string_value(c)) > 64)
			return bad(e, where, "categories[%zu]: not a name", i);
	if (!ncat || ncat > 64)
		return bad(e, where, "categories: not a list of 1 to 64 names");
	if (!json_is_string(json_object_get(fl, "key")) && json_object_get(fl, "key"))
		return bad(e, where, "key: not a string");
	return check_frames(fl, where, ncat, e) < 0 || check_stacks(fl, where, e) < 0 || check_samples(fl, where, e) < 0
		       ? -1 : 0;
}

json_t *flame_of_profile(const json_t *rep, const char *where, struct kerr *e)
{
	json_t *fl = json_object_get(rep, "flame");
	if (!json_is_object(fl) || !json_is_array(json_object_get(fl, "stacks")) ||
	    !json_is_array(json_object_get(fl, "frames")) || !json_is_object(json_object_get(fl, "samples")) ||
	    !json_is_array(json_object_get(fl, "pexecs"))) {
		kerr_setc(e, KEXIT_CONFIG, "%s: no call stacks ('flame'): profile again with this kiln", where);
		return NULL;
	}
	if (flame_check(fl, where, e) < 0)
		return NULL;
	return json_incref(fl);
}

json_t *flame_load_dir(const char *dir, struct kerr *e)
{
	char *path = path_join(dir, "profile.json");
	json_error_t je;
	struct stat st;
	json_t *rep = NULL, *fl = NULL;
	if (stat(path, &st) == 0 && st.st_size > (off_t)FLAME_MAX_INPUT_MB << 20)
		kerr_setc(e, KEXIT_CONFIG, "%s: larger than %d MiB (FLAME_MAX_INPUT_MB)", path, FLAME_MAX_INPUT_MB);
	else if (!(rep = json_load_file(path, 0, &je)))
		kerr_setc(e, KEXIT_CONFIG, "%s:%d: %s", path, je.line, je.text);
	else
		fl = flame_of_profile(rep, path, e);
	json_decref(rep);
	free(path);
	return fl;
}
