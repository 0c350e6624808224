/*
 * profile.c - `kiln profile`, in the three layers profile.h describes:
 *
 *   perf script text ──pscript_parse──▶ samples (time, pid/tid, ip, comm, sym, dso)
 *   result stream lines, timestamped on arrival ──▶ iteration windows
 *   samples × windows ──prof_report──▶ JSON (overall, phases, iterations)
 *                                        ──▶ text, results DB, gnuplot
 *
 * Iteration windows: the runner writes an iteration's line right after its
 * clock stops, so kiln stamps each line with CLOCK_MONOTONIC as it arrives
 * (perf's -k mono clock) and iteration i spans [arrival_i - wall_i,
 * arrival_i].  The pipe's latency shifts both ends by the same few
 * microseconds; lines read in one chunk share a stamp and are pulled back
 * so that no window overlaps the next (prof_windows_fix).
 *
 * Samples are read with their call chains: the leaf says where the CPU was
 * (categories, hottest symbols, as perf report --no-children counts), the
 * innermost JIT'd frame says which JIT'd function it was working for.
 */
#include "profile.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis.h"
#include "cmd.h"
#include "config.h"
#include "dataset.h"
#include "exec.h"
#include "pexec.h"
#include "platform.h"
#include "store.h"

/* ---- perf script parsing ---- */

static uint32_t ps_hash(const char *s, size_t n)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

static void ps_rehash(struct pscript *ps, size_t cap)
{
	free(ps->htab);
	ps->hcap = cap;
	ps->htab = xcalloc(cap, sizeof(*ps->htab));
	for (size_t i = 1; i < ps->strs.n; i++) {
		size_t h = ps_hash(ps->strs.v[i], strlen(ps->strs.v[i])) & (cap - 1);
		while (ps->htab[h])
			h = (h + 1) & (cap - 1);
		ps->htab[h] = (uint32_t)i;
	}
}

/* samples repeat a few hundred names many thousand times: keep one copy each */
static uint32_t ps_intern(struct pscript *ps, const char *s, size_t n)
{
	n = strnlen(s, n); /* a NUL in the input ends the name: the stored copy is what is compared */
	if (!n)
		return 0;
	if ((ps->strs.n + 1) * 2 > ps->hcap)
		ps_rehash(ps, ps->hcap ? ps->hcap * 2 : 256);
	size_t h = ps_hash(s, n) & (ps->hcap - 1);
	while (ps->htab[h]) {
		const char *t = ps->strs.v[ps->htab[h]];
		if (!strncmp(t, s, n) && !t[n])
			return ps->htab[h];
		h = (h + 1) & (ps->hcap - 1);
	}
	char *c = xstrndup(s, n);
	sv_push(&ps->strs, c);
	free(c);
	ps->htab[h] = (uint32_t)(ps->strs.n - 1);
	return ps->htab[h];
}

void pscript_init(struct pscript *ps)
{
	memset(ps, 0, sizeof(*ps));
	sv_push(&ps->strs, "");
}

void pscript_release(struct pscript *ps)
{
	free(ps->s);
	free(ps->htab);
	sv_clear(&ps->strs);
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
	s->sym = ps_intern(ps, p, (size_t)(sym_end - p));
	s->dso = dso ? ps_intern(ps, dso, (size_t)(dso_end - dso)) : 0;
	return 0;
}

/*
 * A sample header: "COMM [PID/]TID TIME: [EVENT:] [IP SYM (DSO)]".  COMM may
 * hold spaces ("C2 CompilerThre"), so the first word shaped like a time
 * anchors the line.  Returns 1 for a header with its frame, 2 for a header
 * whose frame follows on the next lines (a call chain), -1 for no header.
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
	int ti = -1;
	for (int i = 1; i < nw; i++) {
		const char *a = words[i][0], *b = words[i][1];
		if (b - a >= 3 && b[-1] == ':' && !parse_time(a, b - 1, &s->t_ns)) {
			ti = i;
			break;
		}
	}
	if (ti < 1 || parse_ids(words[ti - 1][0], words[ti - 1][1], &s->pid, &s->tid) < 0)
		return -1;
	s->comm = ti >= 2 ? ps_intern(ps, words[0][0], (size_t)(words[ti - 2][1] - words[0][0])) : 0;
	const char *rest = words[ti][1];
	/* an event name ends in ':' and is not a hex address */
	int wi = ti + 1;
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

static void set_jit_frame(struct pscript *ps, struct ps_sample *s, uint32_t sym, uint32_t dso)
{
	if (!s->jdso && dso && prof_is_jit_dso(ps_str(ps, dso))) {
		s->jsym = sym;
		s->jdso = dso;
	}
}

void pscript_parse(struct pscript *ps, const char *buf, size_t n)
{
	if (!ps->strs.n)
		pscript_init(ps);
	const char *p = buf, *end = buf + n;
	struct ps_sample cur;
	memset(&cur, 0, sizeof(cur));
	int want_frame = 0; /* a header without its frame: the next frame line is the leaf */
	size_t chain = SIZE_MAX; /* the sample whose call chain the frame lines are */
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
			chain = SIZE_MAX; /* a blank line ends a call chain */
		} else if (r > 0) {
			/* a header ("C2 CompilerThre" starts with a hex-looking word: headers first) */
			if (want_frame) /* the previous sample had no frame at all: unknown place */
				ps_push(ps, &cur);
			cur = h;
			want_frame = r == 2;
			chain = SIZE_MAX;
			if (r == 1) {
				set_jit_frame(ps, &cur, cur.sym, cur.dso);
				ps_push(ps, &cur);
				chain = ps->n - 1;
			}
		} else if (q > p) {
			/* an indented frame: the first one after a header is where the sample hit */
			struct ps_sample f = cur;
			if (!want_frame && chain == SIZE_MAX) {
				/* a frame of no sample: ignored */
			} else if (parse_frame(ps, q, le, &f) < 0) {
				ps->bad_lines++;
			} else if (want_frame) {
				set_jit_frame(ps, &f, f.sym, f.dso);
				ps_push(ps, &f);
				want_frame = 0;
				chain = ps->n - 1;
			} else {
				set_jit_frame(ps, &ps->s[chain], f.sym, f.dso);
			}
		} else {
			if (want_frame)
				ps_push(ps, &cur);
			want_frame = 0;
			chain = SIZE_MAX;
			ps->bad_lines++;
		}
		p = nl ? nl + 1 : end;
	}
	if (want_frame)
		ps_push(ps, &cur);
}

/* ---- classification ---- */

static const char *const cat_names[PC_N] = { "jit", "vm", "gc", "compiler", "kernel", "other" };

const char *prof_cat_name(enum prof_cat c)
{
	return c < PC_N ? cat_names[c] : "?";
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

static int any_in(const char *s, const char *const *pats)
{
	for (; *pats; pats++)
		if (strstr(s, *pats))
			return 1;
	return 0;
}

/* thread names of JIT compilers (HotSpot, V8 when it names its threads, PyPy has none) */
static const char *const compiler_comms[] = { "CompilerThre", "Compiler", "V8 compiler", "JIT", "Jit", NULL };
/* symbols of optimising compilers running on any thread */
static const char *const compiler_syms[] = { "v8::internal::compiler::", "v8::internal::maglev::",
	"v8::internal::turboshaft::", "OptimizingCompile", "Compile::Optimize", "C2Compiler", "Compilation::",
	"PhaseIdealLoop", "PhaseChaitin", "LinearScan::", "pypy_g_compile_", NULL };
static const char *const gc_comms[] = { "GC Thread", "G1 ", "VM Periodic", "GC ", "ZWorker", "Shenandoah", NULL };
/* garbage collectors of the VMs kiln has plugins for, and the usual words */
static const char *const gc_syms[] = { "Scaveng", "MarkCompact", "MinorMC", "Sweeper", "ConcurrentMarking",
	"IncrementalMarking", "Heap::CollectGarbage", "Heap::PerformGarbageCollection", "GCTracer", "Evacuat",
	"gc_", "_gc", "GC", "collect", "luaC_", "MiniMark", "G1", "PSScavenge", "PSParallelCompact", "Shenandoah",
	"ZHeap", "sweep", "Sweep", NULL };
/*
 * perf maps also name code that is the VM's own, generated at start-up:
 * HotSpot's template interpreter and stubs, V8's builtins and bytecode
 * handlers (embedded or copied), trampolines
 */
static const char *const vm_in_maps[] = { " stub", "_stub", "Stub", "adapter", "Adapter", "BufferBlob",
	"Trampoline", NULL };
static const char *const vm_map_prefixes[] = { "Builtin:", "BytecodeHandler:", "Stub:", "Interpreter", NULL };
/* names a JIT gives its compiled user code: always JIT'd, whatever words they hold */
static const char *const jit_map_prefixes[] = { "JS:", "py::", "RegExp:", "LazyCompile:", "Function:", NULL };

static int any_prefix(const char *s, const char *const *pats)
{
	for (; *pats; pats++)
		if (!strncmp(s, *pats, strlen(*pats)))
			return 1;
	return 0;
}
static const char *const vm_libs[] = { "libjvm", "libjli", "libpython", "libnode", "libv8", "libluajit",
	"liblua", "libpypy", NULL };

enum prof_cat prof_classify(const struct prof_vm *vm, const char *comm, const char *sym, const char *dso)
{
	comm = comm ? comm : "";
	sym = sym ? sym : "";
	dso = dso ? dso : "";
	if (!strncmp(dso, "[kernel", 7) || strstr(dso, ".ko") || (!strncmp(dso, "[", 1) && strstr(dso, "kallsyms")))
		return PC_KERNEL;
	if (prof_is_jit_dso(dso))
		return !any_prefix(sym, jit_map_prefixes) && (any_prefix(sym, vm_map_prefixes) || any_in(sym, vm_in_maps))
			       ? PC_VM : PC_JIT;
	if (any_in(comm, compiler_comms) || any_in(sym, compiler_syms))
		return PC_COMPILER;
	if (any_in(comm, gc_comms) || any_in(sym, gc_syms))
		return PC_GC;
	if (*dso) {
		if (vm && vm->vm_path) {
			const char *a = base_name(vm->vm_path), *b = base_name(dso);
			if (!strcmp(dso, vm->vm_path) || !strcmp(a, b))
				return PC_VM;
		}
		if (any_in(base_name(dso), vm_libs))
			return PC_VM;
	}
	return PC_OTHER;
}

/* ---- report ---- */

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
	return x->sym < y->sym ? -1 : x->sym > y->sym;
}

static void tally_release(struct tally *t)
{
	free(t->v);
	free(t->idx);
}

static json_t *cats_json(const struct tally *t)
{
	json_t *o = json_object();
	for (int c = 0; c < PC_N; c++)
		json_object_set_new(o, cat_names[c], json_integer(t->cats[c]));
	return o;
}

static json_t *top_json(const struct pscript *ps, struct tally *t, int top)
{
	if (t->n)
		qsort(t->v, t->n, sizeof(*t->v), cmp_count);
	json_t *a = json_array();
	for (size_t i = 0; i < t->n && (int)i < top; i++) {
		const struct symcount *s = &t->v[i];
		const char *sym = ps_str(ps, s->sym);
		json_array_append_new(a, json_pack("{s:s,s:s,s:s,s:I,s:f}", "symbol",
						   esc(ESC_JSON, *sym ? sym : "[unknown]"), "dso", esc(ESC_JSON, ps_str(ps, s->dso)), "category", cat_names[s->cat],
						   "samples", (json_int_t)s->n,
						   "percent", t->total ? 100.0 * (double)s->n / (double)t->total : 0.0));
	}
	return a;
}

/* the hottest symbol of a tally in JIT'd code, or NULL (after top_json sorted it) */
static const struct symcount *hottest_jit(const struct tally *t)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].cat == PC_JIT && t->v[i].sym)
			return &t->v[i];
	return NULL;
}

size_t prof_windows_fix(struct prof_iter *it, size_t n)
{
	size_t moved = 0;
	for (size_t i = n > 1 ? n - 1 : 0; i-- > 0;) {
		if (it[i].end_ns > it[i + 1].start_ns) {
			it[i].end_ns = it[i + 1].start_ns;
			it[i].start_ns = it[i].end_ns - it[i].wall_ns;
			moved++;
		}
	}
	return moved;
}

/* iteration index of time t, -1 outside every window (windows sorted, disjoint) */
static long iter_of(const struct prof_iter *it, size_t n, int64_t t)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (it[mid].end_ns < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < n && t >= it[lo].start_ns && t <= it[lo].end_ns)
		return (long)lo;
	return -1;
}

json_t *prof_report(const struct prof_input *in)
{
	const struct pscript *ps = in->ps;
	int top = in->top > 0 ? in->top : 20;
	size_t ni = in->niters;
	struct tally all, jf, ph[3], jph[2], *per = xcalloc(ni ? ni : 1, sizeof(*per));
	memset(&all, 0, sizeof(all));
	memset(&jf, 0, sizeof(jf));
	memset(jph, 0, sizeof(jph));
	memset(ph, 0, sizeof(ph));
	long split = in->split < 0 ? 0 : in->split > (long)ni ? (long)ni : in->split;
	for (size_t i = 0; i < ps->n; i++) {
		const struct ps_sample *s = &ps->s[i];
		enum prof_cat c = prof_classify(&in->vm, ps_str(ps, s->comm), ps_str(ps, s->sym), ps_str(ps, s->dso));
		tally_add(&all, s->sym, s->dso, c);
		long k = s->t_ns >= 0 ? iter_of(in->iters, ni, s->t_ns) : -1;
		if (s->jdso) {
			tally_add(&jf, s->jsym, s->jdso, PC_JIT);
			if (k >= 0)
				tally_add(&jph[k < split ? 0 : 1], s->jsym, s->jdso, PC_JIT);
		}
		if (k < 0) {
			tally_add(&ph[2], s->sym, s->dso, c);
		} else {
			tally_add(&per[k], s->sym, s->dso, c);
			tally_add(&ph[k < split ? 0 : 1], s->sym, s->dso, c);
		}
	}
	json_t *rep = json_object();
	json_object_set_new(rep, "key", json_string(esc(ESC_JSON, in->key)));
	json_object_set_new(rep, "event", json_string(esc(ESC_JSON, in->event)));
	json_object_set_new(rep, "pid", json_integer(in->pid));
	json_object_set_new(rep, "samples", json_integer(all.total));
	json_object_set_new(rep, "in_iterations", json_integer(ph[0].total + ph[1].total));
	json_object_set_new(rep, "outside_iterations", json_integer(ph[2].total));
	json_object_set_new(rep, "unparsed_lines", json_integer((json_int_t)ps->bad_lines));
	json_object_set_new(rep, "categories", cats_json(&all));
	json_object_set_new(rep, "top", top_json(ps, &all, top));
	const struct symcount *hj = hottest_jit(&all);
	json_object_set_new(rep, "hottest_jit", hj ? json_pack("{s:s,s:s,s:I}", "symbol", esc(ESC_JSON, ps_str(ps, hj->sym)),
							       "dso", esc(ESC_JSON, ps_str(ps, hj->dso)), "samples", (json_int_t)hj->n)
						   : json_null());
	/* by the innermost JIT'd frame: a JIT'd function with the VM code it called (builtins, runtime, GC) */
	json_object_set_new(rep, "jit_frame_samples", json_integer(jf.total));
	json_object_set_new(rep, "jit_frames", top_json(ps, &jf, top));
	json_t *phases = json_array();
	const char *pname[3] = { "before", "after", "outside" };
	for (int p = 0; p < 3; p++) {
		json_t *o = json_pack("{s:s,s:I}", "name", pname[p], "samples", (json_int_t)ph[p].total);
		if (p == 0)
			json_object_set_new(o, "iterations", json_pack("[I,I]", (json_int_t)(split ? 1 : 0), (json_int_t)split));
		else if (p == 1)
			json_object_set_new(o, "iterations", json_pack("[I,I]", (json_int_t)(split < (long)ni ? split + 1 : 0),
								       (json_int_t)(split < (long)ni ? (long)ni : 0)));
		json_object_set_new(o, "categories", cats_json(&ph[p]));
		json_object_set_new(o, "top", top_json(ps, &ph[p], top / 2 > 3 ? top / 2 : 3));
		if (p < 2)
			json_object_set_new(o, "jit_frames", top_json(ps, &jph[p], top / 2 > 3 ? top / 2 : 3));
		json_array_append_new(phases, o);
	}
	json_object_set_new(rep, "split", json_pack("{s:I,s:s}", "k", (json_int_t)split, "how",
						    in->split_how ? in->split_how : ""));
	json_object_set_new(rep, "phases", phases);
	json_t *its = json_array();
	for (size_t k = 0; k < ni; k++) {
		json_t *o = json_pack("{s:I,s:I,s:I,s:I,s:I}", "i", (json_int_t)k, "start_ns", (json_int_t)in->iters[k].start_ns,
				      "end_ns", (json_int_t)in->iters[k].end_ns, "wall_ns", (json_int_t)in->iters[k].wall_ns,
				      "samples", (json_int_t)per[k].total);
		json_object_set_new(o, "categories", cats_json(&per[k]));
		json_object_set_new(o, "top", top_json(ps, &per[k], 3));
		json_array_append_new(its, o);
		tally_release(&per[k]);
	}
	json_object_set_new(rep, "iterations", its);
	free(per);
	tally_release(&all);
	tally_release(&jf);
	for (int p = 0; p < 3; p++)
		tally_release(&ph[p]);
	for (int p = 0; p < 2; p++)
		tally_release(&jph[p]);
	return rep;
}

/* a string of the profile made visible (symbols come from the JIT's maps, written by the benchmark) */
static const char *vis(const json_t *o, const char *k)
{
	return esc(ESC_TERM, json_string_value(json_object_get(o, k)));
}

static double pct(json_int_t a, json_int_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0.0;
}

static void print_cats(FILE *f, const json_t *cats, json_int_t total)
{
	for (int c = 0; c < PC_N; c++)
		fprintf(f, "  %s %.1f%%", cat_names[c], pct(json_integer_value(json_object_get(cats, cat_names[c])), total));
	fputc('\n', f);
}

static void print_top(FILE *f, const json_t *top, const char *indent)
{
	size_t i;
	json_t *s;
	json_array_foreach(top, i, s) {
		fprintf(f, "%s%6.2f%% %7lld  %-8s %s  [%s]\n", indent, json_real_value(json_object_get(s, "percent")),
			(long long)json_integer_value(json_object_get(s, "samples")),
			vis(s, "category"), vis(s, "symbol"), vis(s, "dso"));
	}
}

void prof_print(FILE *f, const json_t *rep)
{
	json_int_t total = json_integer_value(json_object_get(rep, "samples"));
	fprintf(f, "%s: %lld %s samples of pid %lld, %lld in iterations, %lld outside\n",
		vis(rep, "key"), (long long)total, vis(rep, "event"), (long long)json_integer_value(json_object_get(rep, "pid")),
		(long long)json_integer_value(json_object_get(rep, "in_iterations")),
		(long long)json_integer_value(json_object_get(rep, "outside_iterations")));
	fprintf(f, "by category:");
	print_cats(f, json_object_get(rep, "categories"), total);
	json_t *hj = json_object_get(rep, "hottest_jit");
	if (json_is_object(hj))
		fprintf(f, "hottest JIT'd symbol: %s (%lld samples)\n", vis(hj, "symbol"),
			(long long)json_integer_value(json_object_get(hj, "samples")));
	fprintf(f, "\nhottest symbols:\n");
	print_top(f, json_object_get(rep, "top"), "  ");
	json_int_t jn = json_integer_value(json_object_get(rep, "jit_frame_samples"));
	if (jn) {
		fprintf(f, "\nJIT'd functions with what they called (the innermost JIT'd frame of %lld samples):\n",
			(long long)jn);
		print_top(f, json_object_get(rep, "jit_frames"), "  ");
	}
	json_t *sp = json_object_get(rep, "split");
	fprintf(f, "\nphases (split after iteration %lld: %s):\n", (long long)json_integer_value(json_object_get(sp, "k")),
		vis(sp, "how"));
	size_t i;
	json_t *p;
	json_array_foreach(json_object_get(rep, "phases"), i, p) {
		json_t *r = json_object_get(p, "iterations");
		json_int_t n = json_integer_value(json_object_get(p, "samples"));
		if (r && !json_integer_value(json_array_get(r, 0)))
			fprintf(f, "%s: no iterations\n", vis(p, "name"));
		if (r && !json_integer_value(json_array_get(r, 0)))
			continue;
		if (r)
			fprintf(f, "%s (iterations %lld-%lld): %lld samples\n ", vis(p, "name"),
				(long long)json_integer_value(json_array_get(r, 0)),
				(long long)json_integer_value(json_array_get(r, 1)), (long long)n);
		else
			fprintf(f, "outside iterations (start-up, teardown): %lld samples\n ", (long long)n);
		print_cats(f, json_object_get(p, "categories"), n);
		print_top(f, json_object_get(p, "top"), "    ");
	}
	fprintf(f, "\nper iteration:\n%5s %10s %7s", "iter", "wall ms", "samples");
	for (int c = 0; c < PC_N; c++)
		fprintf(f, " %8s", cat_names[c]);
	fprintf(f, "  hottest\n");
	json_t *it;
	json_array_foreach(json_object_get(rep, "iterations"), i, it) {
		json_int_t n = json_integer_value(json_object_get(it, "samples"));
		fprintf(f, "%5lld %10.3f %7lld", (long long)json_integer_value(json_object_get(it, "i")) + 1,
			(double)json_integer_value(json_object_get(it, "wall_ns")) / 1e6, (long long)n);
		json_t *cats = json_object_get(it, "categories");
		for (int c = 0; c < PC_N; c++)
			fprintf(f, " %7.1f%%", pct(json_integer_value(json_object_get(cats, cat_names[c])), n));
		json_t *t0 = json_array_get(json_object_get(it, "top"), 0);
		fprintf(f, "  %s\n", t0 ? vis(t0, "symbol") : "-");
	}
}

int prof_plot(const json_t *rep, const char *dir, struct kerr *e)
{
	char *dat = path_join(dir, "profile.dat"), *gp = path_join(dir, "profile.gp"), *svg = path_join(dir, "profile.svg");
	struct strbuf d = STRBUF_INIT, g = STRBUF_INIT;
	sb_adds(&d, "# iteration");
	for (int c = 0; c < PC_N; c++)
		sb_addf(&d, " %s", cat_names[c]);
	sb_addc(&d, '\n');
	size_t i;
	json_t *it;
	json_array_foreach(json_object_get(rep, "iterations"), i, it) {
		sb_addf(&d, "%zu", i + 1);
		json_t *cats = json_object_get(it, "categories");
		for (int c = 0; c < PC_N; c++)
			sb_addf(&d, " %lld", (long long)json_integer_value(json_object_get(cats, cat_names[c])));
		sb_addc(&d, '\n');
	}
	/* every string in single quotes, where gnuplot interprets nothing but '' */
	const char *key = json_string_value(json_object_get(rep, "key"));
	sb_addf(&g, "# kiln profile: samples per iteration by category ('%s')\n"
		    "set terminal svg size 900,500 dynamic background '#ffffff'\nset output '%s'\n",
		esc(ESC_GP, key), esc(ESC_GP, svg));
	sb_addf(&g, "set title '%s: samples per iteration' noenhanced\nset xlabel 'iteration'\nset ylabel 'samples'\n"
		    "set style data histograms\nset style histogram rowstacked\nset style fill solid 0.85 border -1\n"
		    "set boxwidth 0.8\nset key outside right top\nset xtics rotate by -45 autofreq\n"
		    "plot '%s' using 2:xtic(1) title '%s'", esc(ESC_GP, key), esc(ESC_GP, dat), cat_names[0]);
	for (int c = 1; c < PC_N; c++)
		sb_addf(&g, ", '' using %d title '%s'", c + 2, cat_names[c]);
	sb_addc(&g, '\n');
	int r = -1;
	if (write_file(dat, d.buf, d.len, e) == 0 && write_file(gp, g.buf, g.len, e) == 0) {
		char *argv[] = { "gnuplot", gp, NULL };
		struct exec_result res;
		if (exec_simple(argv, 60, &res, e) == 0) {
			if (res.exited && res.status == 0)
				r = 0;
			else
				kerr_set(e, "gnuplot %s failed: %s", gp, sb_str(&res.err));
			exec_result_release(&res);
		}
	}
	sb_release(&d);
	sb_release(&g);
	free(dat);
	free(gp);
	free(svg);
	return r;
}

/* ---- the command ---- */

/* the result stream, each line stamped with CLOCK_MONOTONIC as it arrives */
struct prof_stream {
	struct strbuf line;
	struct prof_iter *it;
	size_t n, alloc;
	long bad;
};

static void ps_line(struct prof_stream *s, int64_t now)
{
	json_t *j = json_loadb(s->line.buf ? s->line.buf : "", s->line.len, 0, NULL);
	json_t *i = j ? json_object_get(j, "i") : NULL, *w = j ? json_object_get(j, "wall_ns") : NULL;
	if (json_is_integer(i) && json_is_integer(w) && json_integer_value(w) >= 0) {
		if (s->n == s->alloc) {
			s->alloc = s->alloc ? s->alloc * 2 : 64;
			s->it = xrealloc(s->it, s->alloc * sizeof(*s->it));
		}
		int64_t wall = json_integer_value(w);
		s->it[s->n++] = (struct prof_iter){ now - wall, now, wall };
	} else if (!j) {
		s->bad++;
	}
	json_decref(j);
	sb_reset(&s->line);
}

static int prof_stream_cb(void *ctx, const char *data, size_t n)
{
	struct prof_stream *s = ctx;
	int64_t now = mono_ns();
	for (size_t i = 0; i < n; i++) {
		if (data[i] == '\n')
			ps_line(s, now);
		else if (s->line.len < (1 << 20))
			sb_addc(&s->line, data[i]);
	}
	return 0;
}

/* the steady state of this one pexec, by the analysis (front-end defaults) */
static long steady_split(const struct prof_iter *it, size_t n, struct strbuf *how)
{
	if (n < 4)
		return 0;
	struct dataset ds;
	memset(&ds, 0, sizeof(ds));
	struct ds_key *k = ds_add_key(&ds, "b", "v", "x");
	struct ds_pexec *p = ds_add_pexec(k, 0);
	p->wall = xmalloc(n * sizeof(double));
	p->n = n;
	for (size_t i = 0; i < n; i++)
		p->wall[i] = (double)it[i].wall_ns / 1e9;
	k->iterations = (long)n;
	k->planned_pexecs = 1;
	struct an_opts o;
	an_opts_default(&o);
	o.window_pct = 10;
	o.steady_pct = 25;
	o.resamples = 10;
	o.threads = 1;
	struct an_key ak;
	memset(&ak, 0, sizeof(ak));
	an_analyse_key(k, &o, &ak);
	long split = -1;
	if (ak.np == 1 && ak.p[0].steady_iter >= 1) {
		split = ak.p[0].steady_iter - 1;
		sb_addf(how, "steady state from iteration %ld (%s)", ak.p[0].steady_iter, an_class_name(ak.p[0].cls));
	} else if (ak.np == 1) {
		sb_addf(how, "%s: ", an_class_name(ak.p[0].cls));
	}
	an_key_free(&ak);
	ds_free(&ds);
	return split;
}

static int copy_file(const char *from, const char *to, struct kerr *e)
{
	struct strbuf b = STRBUF_INIT;
	int r = read_file(from, &b, e);
	if (r == 0)
		r = write_file(to, b.buf ? b.buf : "", b.len, e);
	sb_release(&b);
	return r;
}

/* the profile in the results DB: cache(kind 'profile', key = id, value = JSON) */
static int prof_store(const char *results, const char *id, const char *json, struct kerr *e)
{
	return store_cache_put_file(results, "profile", id, json, e);
}

int profile_run(const struct profile_opts *o, struct kerr *e)
{
	struct experiment ex;
	if (config_load(o->config, kiln_datadir(), 1, &ex, e) < 0)
		return -1;
	const struct vm_conf *vm;
	const struct bench_conf *b;
	struct pexec_spec px;
	memset(&px, 0, sizeof(px));
	int ret = -1;
	char *dir = NULL, *perfdata = NULL, *perf = NULL, *script = NULL;
	struct prof_stream ps_in;
	memset(&ps_in, 0, sizeof(ps_in));
	struct pscript ps;
	pscript_init(&ps);
	json_t *rep = NULL;
	struct exec_result res;
	int have_res = 0;

	if (pexec_find_key(&ex, o->key, &vm, &b, e) < 0 || pexec_build(&px, &ex, vm, b, o->iterations, 1, e) < 0)
		goto out;
	perf = find_in_path("perf");
	if (!perf) {
		kerr_set(e, "perf is not installed (Debian: linux-perf)");
		goto out;
	}
	if (mkdir_p(o->dir, 0755) < 0) {
		kerr_set(e, "%s: %s", o->dir, strerror(errno));
		goto out;
	}
	dir = realpath(o->dir, NULL);
	if (!dir) {
		kerr_set(e, "%s: %s", o->dir, strerror(errno));
		goto out;
	}
	perfdata = path_join(dir, "perf.data");
	const char *event = o->event ? o->event : plat_have_cycles(NULL) ? "cycles" : "cpu-clock";

	/* perf record -k mono -g -e EVENT -o DIR/perf.data -- <the pexec's argv> */
	struct strvec argv = STRVEC_INIT;
	sv_push(&argv, perf);
	sv_push(&argv, "record");
	sv_push(&argv, "-k");
	sv_push(&argv, "mono");
	sv_push(&argv, "-g");
	sv_push(&argv, "-N");
	sv_push(&argv, "-q");
	sv_push(&argv, "-e");
	sv_push(&argv, event);
	if (o->freq > 0)
		sv_pushf(&argv, "-F%d", o->freq);
	sv_push(&argv, "-o");
	sv_push(&argv, perfdata);
	if (pexec_under(&px, &argv, e) < 0)
		goto out;
	px.eo.aslr = 0; /* correlatable addresses across runs, perf maps included */
	/* V8 writes its jitdump (jit-PID.dump) into the working directory: DIR, or the user's home */
	if (!px.have_user)
		px.eo.cwd = dir;
	px.eo.on_stream = prof_stream_cb;
	px.eo.stream_ctx = &ps_in;
	if (!o->json)
		kiln_note("profiling %s (%ld iterations, %s) into %s", px.k.key, px.k.pc.iterations, event, dir);
	if (exec_run(&px.eo, &res, e) < 0)
		goto out;
	have_res = 1;
	if (!res.exited || res.status) {
		kerr_set(e, "%s under perf %s %d:\n%s%s", px.k.key, res.exited ? "exited with status" : "killed by signal",
			 res.exited ? res.status : res.signal, sb_str(&res.err), sb_str(&res.out));
		goto out;
	}
	if (!(res.personality >= 0 && (res.personality & 0x0040000)))
		kiln_warn("the child's personality (%#x) does not show ADDR_NO_RANDOMIZE", res.personality);
	if (px.k.whole) {
		/* one process, one iteration: the whole run */
		ps_in.it = xmalloc(sizeof(*ps_in.it));
		ps_in.it[0] = (struct prof_iter){ res.start_ns, res.end_ns, res.end_ns - res.start_ns };
		ps_in.n = 1;
	} else if ((long)ps_in.n != px.k.pc.iterations) {
		kiln_warn("the result stream had %zu of %ld iterations", ps_in.n, px.k.pc.iterations);
	}

	/* the samples */
	char *sargv[] = { perf, "script", "-i", perfdata, "-F", "comm,pid,tid,time,event,ip,sym,dso", "--ns",
			  "--no-inline", NULL };
	struct exec_opts so;
	memset(&so, 0, sizeof(so));
	so.argv = sargv;
	so.capture_bytes = (size_t)1 << 30;
	so.envp = environ;
	so.cwd = dir;
	so.timeout_s = 3600;
	struct exec_result sr;
	if (exec_run(&so, &sr, e) < 0)
		goto out;
	if (!sr.exited || sr.status) {
		kerr_set(e, "perf script -i %s failed: %s", perfdata, sb_str(&sr.err));
		exec_result_release(&sr);
		goto out;
	}
	script = path_join(dir, "perf-script.txt");
	if (write_file(script, sr.out.buf ? sr.out.buf : "", sr.out.len, e) < 0) {
		exec_result_release(&sr);
		goto out;
	}
	pscript_parse(&ps, sb_str(&sr.out), sr.out.len);
	exec_result_release(&sr);

	/* the benchmark's process: the pid with most samples; its perf map and jitdump into DIR */
	int pid = 0;
	{
		long best = 0;
		for (size_t i = 0; i < ps.n; i++) {
			long c = 0;
			if (ps.s[i].pid == pid || ps.s[i].pid <= 0)
				continue;
			for (size_t j = 0; j < ps.n; j++)
				c += ps.s[j].pid == ps.s[i].pid;
			if (c > best) {
				best = c;
				pid = ps.s[i].pid;
			}
			if (best * 2 > (long)ps.n)
				break;
		}
	}
	json_t *files = json_array();
	if (pid > 0) {
		char src[128], name[64];
		snprintf(name, sizeof(name), "perf-%d.map", pid);
		snprintf(src, sizeof(src), "/tmp/%s", name);
		char *dst = path_join(dir, name);
		if (file_exists(src) && copy_file(src, dst, e) == 0)
			json_array_append_new(files, json_string(name));
		free(dst);
		snprintf(name, sizeof(name), "jit-%d.dump", pid);
		dst = path_join(dir, name);
		/* where VMs write it: the working directory (DIR or the user's home), or /tmp */
		const char *where[] = { px.have_user ? px.user.home : NULL, "/tmp" };
		for (size_t w = 0; w < ARRAY_SIZE(where) && !file_exists(dst); w++) {
			if (!where[w])
				continue;
			char *jsrc = path_join(where[w], name);
			if (file_exists(jsrc))
				copy_file(jsrc, dst, e);
			free(jsrc);
		}
		if (file_exists(dst))
			json_array_append_new(files, json_string(name));
		free(dst);
	}

	size_t moved = prof_windows_fix(ps_in.it, ps_in.n);
	struct strbuf how = STRBUF_INIT;
	long split = o->split;
	if (split > 0) {
		sb_addf(&how, "--split %ld", split);
	} else {
		split = steady_split(ps_in.it, ps_in.n, &how);
		if (split < 0) {
			split = ps_in.n >= 4 ? (long)(ps_in.n + 3) / 4 : ps_in.n > 1 ? 1 : 0;
			sb_addf(&how, "no steady state found; first quarter (%ld) vs the rest", split);
		}
	}
	struct prof_input in = {
		.key = px.k.key, .event = event, .pid = pid, .ps = &ps, .iters = ps_in.it, .niters = ps_in.n,
		.split = split, .split_how = how.buf, .vm = { vm->pl ? vm->pl->name : vm->plugin, vm->resolved },
		.top = o->top,
	};
	rep = prof_report(&in);
	sb_release(&how);
	json_object_set_new(rep, "dir", json_string(dir));
	json_object_set_new(rep, "files", files);
	json_object_set_new(rep, "personality", json_integer(res.personality));
	json_object_set_new(rep, "windows_moved", json_integer((json_int_t)moved));
	char ts[32];
	iso_time(wall_ns(), ts, sizeof(ts));
	char *id = xasprintf("%s@%s#%d", px.k.key, ts, pid);
	json_object_set_new(rep, "id", json_string(id));
	json_object_set_new(rep, "time", json_string(ts));

	char *txt = json_dumps(rep, JSON_INDENT(2) | JSON_ENSURE_ASCII);
	char *rj = path_join(dir, "profile.json");
	write_file(rj, txt, strlen(txt), e);
	free(rj);
	struct kerr pe = KERR_INIT;
	if (prof_plot(rep, dir, &pe) < 0)
		kiln_warn("plot: %s", sb_str(&pe.msg));
	kerr_release(&pe);
	struct kerr se = KERR_INIT;
	if (prof_store(ex.results, id, txt, &se) < 0)
		kiln_warn("%s", sb_str(&se.msg));
	else if (!o->json)
		kiln_note("stored as profile '%s' in %s", id, ex.results);
	kerr_release(&se);
	if (o->json)
		printf("%s\n", txt);
	else
		prof_print(stdout, rep);
	free(txt);
	free(id);
	ret = 0;
out:
	if (have_res)
		exec_result_release(&res);
	json_decref(rep);
	pscript_release(&ps);
	free(ps_in.it);
	sb_release(&ps_in.line);
	free(dir);
	free(perfdata);
	free(perf);
	free(script);
	pexec_release(&px);
	config_free(&ex);
	return ret;
}
