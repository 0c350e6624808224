/*
 * profile-report.c - the samples of one or more pexecs, counted: overall,
 * per pexec, per phase (before and after each pexec's steady state, and
 * outside every iteration) and per iteration (iteration i of every pexec
 * together), as JSON, as text, and as a gnuplot plot.
 *
 * The leaf of each sample says where the CPU was (categories and the
 * hottest symbols, self time, as `perf report --no-children` counts), its
 * caller what called it, and the innermost JIT'd frame of its chain which
 * JIT'd function it was working for (prof_jit_frame).
 */
#include "profile.h"

#include <stdlib.h>
#include <string.h>

#include "exec.h"
#include "plot.h"

struct symcount {
	uint32_t sym, dso;
	long n;
	enum prof_cat cat;
};

/* counts per (sym, dso) of a subset of samples */
struct tally {
	struct symcount *v;
	size_t n, alloc;
	long cats[PC_N];
	long total;
	uint32_t *idx; /* hash of (sym,dso) -> v index + 1 */
	size_t cap;
};

static void tally_add(struct tally *t, uint32_t sym, uint32_t dso, enum prof_cat c)
{
	t->total++;
	t->cats[c]++;
	if ((t->n + 1) * 2 > t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 256;
		free(t->idx);
		t->idx = xcalloc(cap, sizeof(*t->idx));
		t->cap = cap;
		for (size_t i = 0; i < t->n; i++) {
			size_t h = ((size_t)t->v[i].sym * 2654435761u ^ t->v[i].dso) & (cap - 1);
			while (t->idx[h])
				h = (h + 1) & (cap - 1);
			t->idx[h] = (uint32_t)i + 1;
		}
	}
	size_t h = ((size_t)sym * 2654435761u ^ dso) & (t->cap - 1);
	while (t->idx[h]) {
		struct symcount *s = &t->v[t->idx[h] - 1];
		if (s->sym == sym && s->dso == dso) {
			s->n++;
			return;
		}
		h = (h + 1) & (t->cap - 1);
	}
	if (t->n == t->alloc) {
		t->alloc = t->alloc ? t->alloc * 2 : 64;
		t->v = xrealloc(t->v, t->alloc * sizeof(*t->v));
	}
	t->v[t->n] = (struct symcount){ sym, dso, 1, c };
	t->idx[h] = (uint32_t)++t->n;
}

static int cmp_count(const void *a, const void *b)
{
	const struct symcount *x = a, *y = b;
	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	if (x->sym != y->sym)
		return x->sym < y->sym ? -1 : 1;
	return x->dso < y->dso ? -1 : x->dso > y->dso;
}

static void tally_sort(struct tally *t)
{
	if (t->n)
		qsort(t->v, t->n, sizeof(*t->v), cmp_count);
	free(t->idx); /* sorted: the index no longer matches */
	t->idx = NULL;
	t->cap = 0;
}

static void tally_release(struct tally *t)
{
	free(t->v);
	free(t->idx);
	memset(t, 0, sizeof(*t));
}

static json_t *cats_json(const struct tally *t)
{
	json_t *o = json_object();
	for (int c = 0; c < PC_N; c++)
		json_object_set_new(o, prof_cat_name((enum prof_cat)c), json_integer(t->cats[c]));
	return o;
}

/* a symbol for JSON: the names come from the JIT's maps, written by the benchmark (valid UTF-8) */
static const char *sym_name(const struct pscript *ps, uint32_t sym)
{
	const char *s = ps_str(ps, sym);
	return esc(ESC_JSON, *s ? s : "[unknown]");
}

static const char *dso_name(const struct pscript *ps, uint32_t dso)
{
	return esc(ESC_JSON, ps_str(ps, dso));
}

/* the first `top` entries of a sorted tally */
static json_t *top_json(const struct pscript *ps, const struct tally *t, int top)
{
	json_t *a = json_array();
	for (size_t i = 0; i < t->n && (int)i < top; i++) {
		const struct symcount *s = &t->v[i];
		json_array_append_new(a, json_pack("{s:s,s:s,s:s,s:I,s:f}", "symbol", sym_name(ps, s->sym), "dso",
						   dso_name(ps, s->dso), "category", prof_cat_name(s->cat), "samples",
						   (json_int_t)s->n, "percent",
						   t->total ? 100.0 * (double)s->n / (double)t->total : 0.0));
	}
	return a;
}

/* the hottest named symbol of a sorted tally in JIT'd code, or NULL */
static const struct symcount *hottest_jit(const struct pscript *ps, const struct tally *t)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].cat == PC_JIT && t->v[i].sym && strcmp(ps_str(ps, t->v[i].sym), "[unknown]"))
			return &t->v[i];
	return NULL;
}

static json_t *hottest_jit_json(const struct pscript *ps, const struct tally *t)
{
	const struct symcount *hj = hottest_jit(ps, t);
	return hj ? json_pack("{s:s,s:s,s:I}", "symbol", sym_name(ps, hj->sym), "dso", dso_name(ps, hj->dso), "samples",
			      (json_int_t)hj->n)
		  : json_null();
}

long prof_iter_of(const struct prof_pexec_in *px, int64_t t)
{
	const struct prof_iter *it = px->iters;
	size_t lo = 0, hi = px->niters;
	if (t < 0)
		return -1;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (it[mid].end_ns < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < px->niters && t >= it[lo].start_ns && t <= it[lo].end_ns)
		return (long)lo;
	return -1;
}

int prof_phase(const struct prof_pexec_in *px, long k)
{
	return k < 0 ? 2 : k < prof_split_of(px) ? 0 : 1;
}

long prof_split_of(const struct prof_pexec_in *px)
{
	return px->split < 0 ? 0 : px->split > (long)px->niters ? (long)px->niters : px->split;
}

/* what one pexec's samples add up to */
struct px_tally {
	struct tally all;
	long in_iters;
	long *per;           /* samples per iteration */
	int64_t *on_cpu;     /* periods per iteration (the event's unit) */
};

/* everything prof_report counts, in one pass over the samples */
struct counts {
	struct tally all, jf, ph[3], jph[2];
	struct tally *per;   /* iteration i of every pexec */
	size_t maxit;
	struct px_tally *px;
};

static void count_sample(struct counts *c, const struct prof_input *in, const struct ps_sample *s)
{
	const struct pscript *ps = in->ps;
	enum prof_cat cat = prof_classify(&in->vm, ps_str(ps, s->comm), ps_str(ps, s->sym), ps_str(ps, s->dso));
	tally_add(&c->all, s->sym, s->dso, cat);
	if (s->pexec >= in->npx) {
		tally_add(&c->ph[2], s->sym, s->dso, cat);
		return;
	}
	const struct prof_pexec_in *px = &in->px[s->pexec];
	struct px_tally *pt = &c->px[s->pexec];
	tally_add(&pt->all, s->sym, s->dso, cat);
	long k = prof_iter_of(px, s->t_ns);
	int phase = prof_phase(px, k);
	long jf = prof_jit_frame(&in->vm, ps, s);
	if (jf >= 0) {
		const struct ps_frame *f = &ps->frames[jf];
		tally_add(&c->jf, f->sym, f->dso, PC_JIT);
		if (phase < 2)
			tally_add(&c->jph[phase], f->sym, f->dso, PC_JIT);
	}
	tally_add(&c->ph[phase], s->sym, s->dso, cat);
	if (k >= 0) {
		tally_add(&c->per[k], s->sym, s->dso, cat);
		pt->in_iters++;
		pt->per[k]++;
		pt->on_cpu[k] += (int64_t)s->period;
	}
}

static void counts_init(struct counts *c, const struct prof_input *in)
{
	memset(c, 0, sizeof(*c));
	for (size_t p = 0; p < in->npx; p++)
		if (in->px[p].niters > c->maxit)
			c->maxit = in->px[p].niters;
	c->per = xcalloc(c->maxit ? c->maxit : 1, sizeof(*c->per));
	c->px = xcalloc(in->npx ? in->npx : 1, sizeof(*c->px));
	for (size_t p = 0; p < in->npx; p++) {
		size_t n = in->px[p].niters ? in->px[p].niters : 1;
		c->px[p].per = xcalloc(n, sizeof(long));
		c->px[p].on_cpu = xcalloc(n, sizeof(int64_t));
	}
}

static void counts_release(struct counts *c, size_t npx)
{
	tally_release(&c->all);
	tally_release(&c->jf);
	for (int p = 0; p < 3; p++)
		tally_release(&c->ph[p]);
	for (int p = 0; p < 2; p++)
		tally_release(&c->jph[p]);
	for (size_t k = 0; k < c->maxit; k++)
		tally_release(&c->per[k]);
	free(c->per);
	for (size_t p = 0; p < npx; p++) {
		tally_release(&c->px[p].all);
		free(c->px[p].per);
		free(c->px[p].on_cpu);
	}
	free(c->px);
}

/* a symbol of the top list: its callers (the frame after the leaf), counted */
struct caller_tally {
	uint32_t sym, dso;
	struct tally callers;
};

static json_t *top_with_callers(const struct prof_input *in, const struct tally *all, int top)
{
	const struct pscript *ps = in->ps;
	size_t nt = all->n < (size_t)top ? all->n : (size_t)top;
	struct caller_tally *ct = xcalloc(nt ? nt : 1, sizeof(*ct));
	for (size_t i = 0; i < nt; i++) {
		ct[i].sym = all->v[i].sym;
		ct[i].dso = all->v[i].dso;
	}
	for (size_t i = 0; i < ps->n; i++) {
		const struct ps_sample *s = &ps->s[i];
		for (size_t k = 0; k < nt; k++) {
			if (ct[k].sym != s->sym || ct[k].dso != s->dso)
				continue;
			uint32_t csym = 0, cdso = 0;
			if (s->nframes > 1) {
				const struct ps_frame *f = &ps->frames[s->frame0 + 1];
				csym = f->sym;
				cdso = f->dso;
			}
			tally_add(&ct[k].callers, csym, cdso,
				  prof_classify_frame(&in->vm, ps_str(ps, csym), ps_str(ps, cdso)));
			break;
		}
	}
	json_t *a = top_json(ps, all, top);
	for (size_t k = 0; k < nt; k++) {
		tally_sort(&ct[k].callers);
		json_t *callers = json_array();
		for (size_t j = 0; j < ct[k].callers.n && j < 3; j++) {
			const struct symcount *s = &ct[k].callers.v[j];
			json_array_append_new(callers, json_pack("{s:s,s:s,s:I}", "symbol",
								 s->sym || s->dso ? sym_name(ps, s->sym) : "[no caller]",
								 "dso", dso_name(ps, s->dso), "samples", (json_int_t)s->n));
		}
		json_object_set_new(json_array_get(a, k), "callers", callers);
		tally_release(&ct[k].callers);
	}
	free(ct);
	return a;
}

/* periods count nanoseconds for the time-based software events only */
static int period_is_ns(const char *event)
{
	return event && (!strncmp(event, "cpu-clock", 9) || !strncmp(event, "task-clock", 10));
}

static json_t *pexec_json(const struct prof_input *in, size_t p, struct px_tally *pt)
{
	const struct prof_pexec_in *px = &in->px[p];
	tally_sort(&pt->all);
	json_t *o = json_pack("{s:I,s:I,s:I,s:I,s:I}", "pexec", (json_int_t)p, "pid", (json_int_t)px->pid, "samples",
			      (json_int_t)pt->all.total, "in_iterations", (json_int_t)pt->in_iters, "outside_iterations",
			      (json_int_t)(pt->all.total - pt->in_iters));
	json_object_set_new(o, "categories", cats_json(&pt->all));
	json_object_set_new(o, "hottest_jit", hottest_jit_json(in->ps, &pt->all));
	json_object_set_new(o, "split", json_pack("{s:I,s:s}", "k", (json_int_t)prof_split_of(px), "how",
						  esc(ESC_JSON, px->split_how)));
	json_object_set_new(o, "windows", json_string(px->windows ? px->windows : "arrival"));
	json_t *its = json_array();
	for (size_t k = 0; k < px->niters; k++) {
		const struct prof_iter *it = &px->iters[k];
		json_t *x = json_pack("{s:I,s:I,s:I,s:I,s:I}", "i", (json_int_t)k, "start_ns", (json_int_t)it->start_ns,
				      "end_ns", (json_int_t)it->end_ns, "wall_ns", (json_int_t)it->wall_ns, "samples",
				      (json_int_t)pt->per[k]);
		json_object_set_new(x, "cpu_ns", it->cpu_ns >= 0 ? json_integer(it->cpu_ns) : json_null());
		json_object_set_new(x, "on_cpu_ns", period_is_ns(in->event) ? json_integer(pt->on_cpu[k]) : json_null());
		json_array_append_new(its, x);
	}
	json_object_set_new(o, "iterations", its);
	return o;
}

/* iteration i of every pexec that has one: samples, categories, mean wall and CPU time */
static json_t *iteration_json(const struct prof_input *in, struct counts *c, size_t k)
{
	double wall = 0, cpu = 0, oncpu = 0;
	long npx = 0, ncpu = 0;
	for (size_t p = 0; p < in->npx; p++) {
		if (k >= in->px[p].niters)
			continue;
		const struct prof_iter *it = &in->px[p].iters[k];
		wall += (double)it->wall_ns;
		oncpu += (double)c->px[p].on_cpu[k];
		if (it->cpu_ns >= 0) {
			cpu += (double)it->cpu_ns;
			ncpu++;
		}
		npx++;
	}
	tally_sort(&c->per[k]);
	json_t *o = json_pack("{s:I,s:I,s:I,s:I}", "i", (json_int_t)k, "pexecs", (json_int_t)npx, "wall_ns",
			      (json_int_t)(npx ? wall / (double)npx + 0.5 : 0), "samples", (json_int_t)c->per[k].total);
	json_object_set_new(o, "cpu_ns", ncpu ? json_integer((json_int_t)(cpu / (double)ncpu + 0.5)) : json_null());
	json_object_set_new(o, "on_cpu_ns", period_is_ns(in->event) && npx ? json_integer((json_int_t)(oncpu / (double)npx + 0.5))
									     : json_null());
	json_object_set_new(o, "categories", cats_json(&c->per[k]));
	json_object_set_new(o, "top", top_json(in->ps, &c->per[k], 3));
	return o;
}

static json_t *phases_json(const struct prof_input *in, struct counts *c, int top)
{
	static const char *const pname[3] = { "before", "after", "outside" };
	json_t *phases = json_array();
	int sub = top / 2 > 3 ? top / 2 : 3;
	for (int p = 0; p < 3; p++) {
		tally_sort(&c->ph[p]);
		json_t *o = json_pack("{s:s,s:I}", "name", pname[p], "samples", (json_int_t)c->ph[p].total);
		if (p < 2 && in->npx == 1) {
			long split = prof_split_of(&in->px[0]), n = (long)in->px[0].niters;
			if (p == 0)
				json_object_set_new(o, "iterations", json_pack("[I,I]", (json_int_t)(split ? 1 : 0), (json_int_t)split));
			else
				json_object_set_new(o, "iterations", json_pack("[I,I]", (json_int_t)(split < n ? split + 1 : 0),
									       (json_int_t)(split < n ? n : 0)));
		}
		json_object_set_new(o, "categories", cats_json(&c->ph[p]));
		json_object_set_new(o, "top", top_json(in->ps, &c->ph[p], sub));
		if (p < 2) {
			tally_sort(&c->jph[p]);
			json_object_set_new(o, "jit_frames", top_json(in->ps, &c->jph[p], sub));
		}
		json_array_append_new(phases, o);
	}
	return phases;
}

json_t *prof_report(const struct prof_input *in)
{
	const struct pscript *ps = in->ps;
	int top = in->top > 0 ? in->top : 20;
	struct counts c;
	counts_init(&c, in);
	for (size_t i = 0; i < ps->n; i++)
		count_sample(&c, in, &ps->s[i]);
	tally_sort(&c.all);
	tally_sort(&c.jf);
	json_t *rep = json_object();
	json_object_set_new(rep, "key", json_string(esc(ESC_JSON, in->key)));
	json_object_set_new(rep, "event", json_string(esc(ESC_JSON, in->event)));
	json_object_set_new(rep, "pid", json_integer(in->npx ? in->px[0].pid : 0));
	json_object_set_new(rep, "samples", json_integer(c.all.total));
	json_object_set_new(rep, "in_iterations", json_integer(c.ph[0].total + c.ph[1].total));
	json_object_set_new(rep, "outside_iterations", json_integer(c.ph[2].total));
	json_object_set_new(rep, "unparsed_lines", json_integer((json_int_t)ps->bad_lines));
	json_object_set_new(rep, "categories", cats_json(&c.all));
	json_object_set_new(rep, "top", top_with_callers(in, &c.all, top));
	json_object_set_new(rep, "hottest_jit", hottest_jit_json(ps, &c.all));
	/* by the innermost JIT'd frame: a JIT'd function with the VM code it called (builtins, runtime, GC) */
	json_object_set_new(rep, "jit_frame_samples", json_integer(c.jf.total));
	json_object_set_new(rep, "jit_frames", top_json(ps, &c.jf, top));
	if (in->npx)
		json_object_set_new(rep, "split", json_pack("{s:I,s:s}", "k", (json_int_t)prof_split_of(&in->px[0]), "how",
							    esc(ESC_JSON, in->px[0].split_how)));
	json_object_set_new(rep, "phases", phases_json(in, &c, top));
	json_t *its = json_array();
	for (size_t k = 0; k < c.maxit; k++)
		json_array_append_new(its, iteration_json(in, &c, k));
	json_object_set_new(rep, "iterations", its);
	json_t *pxs = json_array();
	for (size_t p = 0; p < in->npx; p++)
		json_array_append_new(pxs, pexec_json(in, p, &c.px[p]));
	json_object_set_new(rep, "pexecs", pxs);
	counts_release(&c, in->npx);
	return rep;
}

/* ---- text ---- */

static double pct(json_int_t a, json_int_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0.0;
}

static json_int_t jint(const json_t *o, const char *k)
{
	return json_integer_value(json_object_get(o, k));
}

/* a string of the report made visible (symbols come from the JIT's maps, written by the benchmark) */
static const char *jstr(const json_t *o, const char *k)
{
	return esc(ESC_TERM, json_string_value(json_object_get(o, k)));
}

static void print_cats(FILE *f, const json_t *cats, json_int_t total)
{
	for (int c = 0; c < PC_N; c++)
		fprintf(f, "  %s %.1f%%", prof_cat_name((enum prof_cat)c),
			pct(jint(cats, prof_cat_name((enum prof_cat)c)), total));
	fputc('\n', f);
}

/* a top list; the first `with_callers` entries with their callers */
static void print_top(FILE *f, const json_t *top, const char *indent, size_t with_callers)
{
	size_t i;
	json_t *s;
	json_array_foreach(top, i, s) {
		fprintf(f, "%s%6.2f%% %7lld  %-8s %s  [%s]\n", indent, json_real_value(json_object_get(s, "percent")),
			(long long)jint(s, "samples"), jstr(s, "category"), jstr(s, "symbol"), jstr(s, "dso"));
		json_t *callers = i < with_callers ? json_object_get(s, "callers") : NULL, *c;
		size_t j;
		json_array_foreach(callers, j, c)
			fprintf(f, "%s%*s%s %5.1f%% %s\n", indent, 18, "", j ? "  " : "<-",
				pct(jint(c, "samples"), jint(s, "samples")), jstr(c, "symbol"));
	}
}

static void print_phases(FILE *f, const json_t *rep)
{
	const json_t *sp = json_object_get(rep, "split");
	if (json_array_size(json_object_get(rep, "pexecs")) > 1)
		fprintf(f, "\nphases (each pexec split at its own steady state):\n");
	else
		fprintf(f, "\nphases (split after iteration %lld: %s):\n", (long long)jint(sp, "k"), jstr(sp, "how"));
	size_t i;
	json_t *p;
	json_array_foreach(json_object_get(rep, "phases"), i, p) {
		json_t *r = json_object_get(p, "iterations");
		json_int_t n = jint(p, "samples");
		if (r && !json_integer_value(json_array_get(r, 0))) {
			fprintf(f, "%s: no iterations\n", jstr(p, "name"));
			continue;
		}
		if (r)
			fprintf(f, "%s (iterations %lld-%lld): %lld samples\n ", jstr(p, "name"),
				(long long)json_integer_value(json_array_get(r, 0)),
				(long long)json_integer_value(json_array_get(r, 1)), (long long)n);
		else if (i < 2)
			fprintf(f, "%s the steady state: %lld samples\n ", jstr(p, "name"), (long long)n);
		else
			fprintf(f, "outside iterations (start-up, teardown): %lld samples\n ", (long long)n);
		print_cats(f, json_object_get(p, "categories"), n);
		print_top(f, json_object_get(p, "top"), "    ", 0);
	}
}

static void print_ms(FILE *f, const json_t *v)
{
	if (json_is_integer(v))
		fprintf(f, " %9.3f", (double)json_integer_value(v) / 1e6);
	else
		fprintf(f, " %9s", "-");
}

static void print_iterations(FILE *f, const json_t *rep)
{
	size_t npx = json_array_size(json_object_get(rep, "pexecs"));
	fprintf(f, "\nper iteration%s:\n%5s %10s %9s %9s %7s", npx > 1 ? " (all pexecs; times are means)" : "", "iter",
		"wall ms", "cpu ms", "on-cpu ms", "samples");
	for (int c = 0; c < PC_N; c++)
		fprintf(f, " %8s", prof_cat_name((enum prof_cat)c));
	fprintf(f, "  hottest\n");
	size_t i;
	json_t *it;
	json_array_foreach(json_object_get(rep, "iterations"), i, it) {
		json_int_t n = jint(it, "samples");
		fprintf(f, "%5lld %10.3f", (long long)jint(it, "i") + 1, (double)jint(it, "wall_ns") / 1e6);
		print_ms(f, json_object_get(it, "cpu_ns"));
		print_ms(f, json_object_get(it, "on_cpu_ns"));
		fprintf(f, " %7lld", (long long)n);
		json_t *cats = json_object_get(it, "categories");
		for (int c = 0; c < PC_N; c++)
			fprintf(f, " %7.1f%%", pct(jint(cats, prof_cat_name((enum prof_cat)c)), n));
		json_t *t0 = json_array_get(json_object_get(it, "top"), 0);
		fprintf(f, "  %s\n", t0 ? jstr(t0, "symbol") : "-");
	}
}

static void print_pexecs(FILE *f, const json_t *rep)
{
	const json_t *pxs = json_object_get(rep, "pexecs");
	if (json_array_size(pxs) < 2)
		return;
	fprintf(f, "\nper pexec:\n");
	size_t i;
	json_t *p;
	json_array_foreach(pxs, i, p) {
		json_int_t n = jint(p, "samples");
		const json_t *hj = json_object_get(p, "hottest_jit");
		fprintf(f, "  pexec %lld (pid %lld): %lld samples, steady from iteration %lld, hottest JIT'd: %s\n  ",
			(long long)jint(p, "pexec"), (long long)jint(p, "pid"), (long long)n,
			(long long)jint(json_object_get(p, "split"), "k") + 1, json_is_object(hj) ? jstr(hj, "symbol") : "-");
		print_cats(f, json_object_get(p, "categories"), n);
	}
}

void prof_print(FILE *f, const json_t *rep)
{
	json_int_t total = jint(rep, "samples");
	const json_t *pxs = json_object_get(rep, "pexecs");
	fprintf(f, "%s: %lld %s samples of %zu pexec%s (pid %lld%s), %lld in iterations, %lld outside\n", jstr(rep, "key"),
		(long long)total, jstr(rep, "event"), json_array_size(pxs), json_array_size(pxs) == 1 ? "" : "s",
		(long long)jint(rep, "pid"), json_array_size(pxs) > 1 ? ", ..." : "", (long long)jint(rep, "in_iterations"),
		(long long)jint(rep, "outside_iterations"));
	fprintf(f, "iteration windows: %s\n",
		!strcmp(jstr(json_array_get(pxs, 0), "windows"), "runner")
			? "the runner's own clock reads"
			: "when kiln read each line (the runner gives no start_ns/end_ns)");
	fprintf(f, "by category:");
	print_cats(f, json_object_get(rep, "categories"), total);
	const json_t *hj = json_object_get(rep, "hottest_jit");
	if (json_is_object(hj))
		fprintf(f, "hottest JIT'd symbol: %s (%lld samples)\n", jstr(hj, "symbol"), (long long)jint(hj, "samples"));
	fprintf(f, "\nhottest symbols (self; the first five with their callers):\n");
	print_top(f, json_object_get(rep, "top"), "  ", 5);
	json_int_t jn = jint(rep, "jit_frame_samples");
	if (jn) {
		fprintf(f, "\nJIT'd functions with what they called (the innermost JIT'd frame of %lld samples):\n",
			(long long)jn);
		print_top(f, json_object_get(rep, "jit_frames"), "  ", 0);
	}
	print_pexecs(f, rep);
	print_phases(f, rep);
	print_iterations(f, rep);
}

/* ---- plot ---- */

int prof_plot(const json_t *rep, const char *dir, struct kerr *e)
{
	char *dat = path_join(dir, "profile.dat"), *gp = path_join(dir, "profile.gp"), *svg = path_join(dir, "profile.svg");
	struct strbuf d = STRBUF_INIT, g = STRBUF_INIT;
	sb_adds(&d, "# iteration");
	for (int c = 0; c < PC_N; c++)
		sb_addf(&d, " %s", prof_cat_name((enum prof_cat)c));
	sb_addc(&d, '\n');
	size_t i;
	json_t *it;
	json_array_foreach(json_object_get(rep, "iterations"), i, it) {
		sb_addf(&d, "%zu", i + 1);
		json_t *cats = json_object_get(it, "categories");
		for (int c = 0; c < PC_N; c++)
			sb_addf(&d, " %lld", (long long)jint(cats, prof_cat_name((enum prof_cat)c)));
		sb_addc(&d, '\n');
	}
	struct strbuf title = STRBUF_INIT;
	const char *key = json_string_value(json_object_get(rep, "key"));
	sb_addf(&title, "%s: samples per iteration", key ? key : "");
	sb_adds(&g, "# kiln profile: samples per iteration by category\n"
		    "set terminal svg size 900,500 dynamic background '#ffffff'\nset output ");
	plot_quote(&g, svg);
	sb_adds(&g, "\nset title ");
	plot_quote(&g, title.buf);
	sb_adds(&g, " noenhanced\nset xlabel 'iteration'\nset ylabel 'samples'\n"
		    "set style data histograms\nset style histogram rowstacked\nset style fill solid 0.85 border -1\n"
		    "set boxwidth 0.8\nset key outside right top\nset xtics rotate by -45 autofreq\nplot ");
	plot_quote(&g, dat);
	sb_addf(&g, " using 2:xtic(1) title '%s'", prof_cat_name(0));
	for (int c = 1; c < PC_N; c++)
		sb_addf(&g, ", '' using %d title '%s'", c + 2, prof_cat_name((enum prof_cat)c));
	sb_addc(&g, '\n');
	sb_release(&title);
	int r = -1;
	if (write_file(dat, d.buf, d.len, e) == 0 && write_file(gp, g.buf, g.len, e) == 0) {
		char *gnuplot = plot_gnuplot_path();
		char *argv[] = { gnuplot, gp, NULL };
		struct exec_result res;
		if (!gnuplot)
			kerr_set(e, "gnuplot is not installed (Debian: gnuplot-nox)");
		else if (exec_simple(argv, 60, &res, e) == 0) {
			if (res.exited && res.status == 0)
				r = 0;
			else
				kerr_set(e, "gnuplot %s failed: %s", gp, sb_str(&res.err));
			exec_result_release(&res);
		}
		free(gnuplot);
	}
	sb_release(&d);
	sb_release(&g);
	free(dat);
	free(gp);
	free(svg);
	return r;
}
