/*
 * profile.c - what kiln profile knows about samples before it counts them:
 * which category a frame or sample is in, which frame of a chain is the
 * JIT'd code being run, and when each iteration ran in perf's clock.
 *
 *   samples (perfscript.c) ──prof_classify──▶ jit / vm / gc / compiler / kernel / other
 *   result stream (stream.c) + clock pairs ──prof_windows──▶ iteration windows
 *
 * Iteration windows: a runner that writes start_ns/end_ns (protocol v1,
 * optional) gives them in its own clock; kiln maps them onto perf's
 * CLOCK_MONOTONIC with pairs of readings taken whenever stream data arrives
 * (prof_clockmap).  An older runner gives only wall_ns: iteration i then
 * spans [arrival_i - wall_i, arrival_i], arrival being when kiln read its
 * line, late by however long that took, and lines read in one chunk are
 * pulled apart so that no window overlaps the next (prof_windows_fix).
 *
 * Categories come from the leaf frame and the thread.  GC is matched per
 * VM by the collectors' own names, never by a bare substring: CPython's
 * allocation bookkeeping (PyObject_GC_Del, _PyObject_GC_New) is the VM's,
 * glibc's __gconv_* is not a collector.
 */
#include "profile.h"

#include <stdlib.h>
#include <string.h>

#include "stream.h"

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

static int any_in(const char *s, const char *const *pats)
{
	for (; *pats; pats++)
		if (strstr(s, *pats))
			return 1;
	return 0;
}

static int any_prefix(const char *s, const char *const *pats)
{
	for (; *pats; pats++)
		if (!strncmp(s, *pats, strlen(*pats)))
			return 1;
	return 0;
}

static int any_equal(const char *s, const char *const *pats)
{
	for (; *pats; pats++)
		if (!strcmp(s, *pats))
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

/*
 * The collectors, by the names their VMs give them.  Prefixes and C++
 * scopes, each specific to a collector: allocation and write barriers run
 * on the mutator and stay the VM's.
 */
static const char *const gc_prefixes[] = {
	/* V8 */
	"v8::internal::Scavenger", "v8::internal::ScavengerCollector", "v8::internal::MarkCompactCollector",
	"v8::internal::MinorMarkCompactCollector", "v8::internal::MinorMarkSweepCollector",
	"v8::internal::ConcurrentMarking", "v8::internal::IncrementalMarking", "v8::internal::Sweeper",
	"v8::internal::Heap::CollectGarbage", "v8::internal::Heap::PerformGarbageCollection",
	"v8::internal::Heap::Scavenge", "v8::internal::Heap::MarkCompact", "v8::internal::GCTracer",
	"v8::internal::Evacuat", "v8::internal::MarkingVisitor", "v8::internal::MainMarkingVisitor",
	"v8::internal::ConcurrentMarkingVisitor", "v8::internal::MarkingWorklist", "v8::internal::PagedSpace::Sweep",
	"v8::internal::ArrayBufferSweeper", "v8::internal::LocalHeap::", "v8::internal::ScavengeVisitor",
	"cppgc::internal::Marker", "cppgc::internal::Sweeper",
	/* HotSpot */
	"G1", "PSScavenge", "PSParallelCompact", "PSPromotionManager", "ParallelScavengeHeap", "ShenandoahHeap",
	"Shenandoah", "ZHeap", "ZMark", "ZRelocate", "SerialHeap", "DefNewGeneration", "TenuredGeneration",
	"GenCollectedHeap", "MarkSweep",
	/* CPython: gcmodule.c */
	"gc_collect", "_PyGC_Collect", "PyGC_Collect", "collect_with_callback", "collect_generations",
	"deduce_unreachable", "move_unreachable", "move_legacy_finalizers", "handle_legacy_finalizers",
	"finalize_garbage", "delete_garbage", "subtract_refs", "update_refs", "visit_decref", "visit_reachable",
	"visit_move", "untrack_tuples", "untrack_dicts", "handle_weakrefs", "clear_unreachable_mask",
	"gc_list_merge", "gc_list_move", "validate_list",
	/* PyPy (RPython) */
	"pypy_g_IncrementalMiniMarkGC", "pypy_g_MiniMarkGC", "pypy_g_GCBase", "pypy_g_ArenaCollection",
	"pypy_g_AddressStack", "pypy_g_AddressDeque", "pypy_g_collect", "pypy_g__trace_drag_out",
	"pypy_g_trace__gc", "pypy_g_BaseWalker",
	/* Lua 5.4 (lgc.c) and LuaJIT (lj_gc.c) */
	"luaC_step", "luaC_fullgc", "luaC_runtilstate", "luaC_freeallobjects", "luaC_checkfinalizer", "lj_gc_step",
	"lj_gc_fullgc", "lj_gc_freeall", "lj_gc_finalize", "gc_sweep", "gc_propagate", "gc_mark", "gc_traverse",
	"gc_onestep", "gc_finalize", "gc_clearweak",
	NULL };
/* Lua 5.4's collector is mostly static functions: by exact name, with luaC_'s */
static const char *const gc_names[] = { "singlestep", "propagatemark", "propagateall", "sweeplist", "sweepstep",
	"sweeptolive", "atomic", "restartcollection", "markroot", "remarkupvals", "convergeephemerons",
	"clearbykeys", "clearbyvalues", "youngcollection", "entergen", "fullgen", "incstep", "genstep",
	"callallpendingfinalizers", "separatetobefnz", "reallymarkobject", "traversetable", "traverseproto",
	"traverseLclosure", "traversethread", "freeobj", NULL };

static int is_gc_symbol(const char *sym)
{
	return any_prefix(sym, gc_prefixes) || any_equal(sym, gc_names);
}

/*
 * perf maps also name code that is the VM's own, generated at start-up:
 * HotSpot's template interpreter and stubs, V8's builtins and bytecode
 * handlers (embedded or copied), trampolines
 */
static const char *const vm_in_maps[] = { " stub", "_stub", "Stub", "adapter", "Adapter", "BufferBlob",
	"Trampoline", NULL };
static const char *const vm_map_prefixes[] = { "Builtin:", "BytecodeHandler:", "Stub:", "Interpreter", NULL };
/* names a JIT gives its compiled user code: always JIT'd, whatever words they hold */
static const char *const jit_map_prefixes[] = { "JS:", "py::", "RegExp:", "LazyCompile:", "Function:",
	"pypy:", "luajit:", NULL };
static const char *const vm_libs[] = { "libjvm", "libjli", "libpython", "libnode", "libv8", "libluajit",
	"liblua", "libpypy", "libruby", NULL };

static int is_kernel_dso(const char *dso)
{
	return !strncmp(dso, "[kernel", 7) || strstr(dso, ".ko") || (!strncmp(dso, "[", 1) && strstr(dso, "kallsyms"));
}

/* the category of code in a JIT'd-code dso: the VM's own generated code, or JIT'd */
static enum prof_cat jit_dso_cat(const char *sym)
{
	return !any_prefix(sym, jit_map_prefixes) && (any_prefix(sym, vm_map_prefixes) || any_in(sym, vm_in_maps))
		       ? PC_VM : PC_JIT;
}

static int is_vm_dso(const struct prof_vm *vm, const char *dso)
{
	if (!*dso)
		return 0;
	if (vm && vm->vm_path) {
		const char *a = base_name(vm->vm_path), *b = base_name(dso);
		if (!strcmp(dso, vm->vm_path) || !strcmp(a, b))
			return 1;
	}
	return any_in(base_name(dso), vm_libs);
}

enum prof_cat prof_classify_frame(const struct prof_vm *vm, const char *sym, const char *dso)
{
	sym = sym ? sym : "";
	dso = dso ? dso : "";
	if (is_kernel_dso(dso))
		return PC_KERNEL;
	if (prof_is_jit_dso(dso))
		return jit_dso_cat(sym);
	if (any_in(sym, compiler_syms))
		return PC_COMPILER;
	if (is_gc_symbol(sym))
		return PC_GC;
	return is_vm_dso(vm, dso) ? PC_VM : PC_OTHER;
}

enum prof_cat prof_classify(const struct prof_vm *vm, const char *comm, const char *sym, const char *dso)
{
	comm = comm ? comm : "";
	enum prof_cat c = prof_classify_frame(vm, sym, dso);
	if (c == PC_KERNEL || c == PC_JIT || c == PC_COMPILER)
		return c;
	if (any_in(comm, compiler_comms))
		return PC_COMPILER;
	if (any_in(comm, gc_comms))
		return PC_GC;
	return c;
}

long prof_jit_frame(const struct prof_vm *vm, const struct pscript *ps, const struct ps_sample *s)
{
	for (uint32_t f = 0; f < s->nframes; f++) {
		const struct ps_frame *fr = &ps->frames[s->frame0 + f];
		if (fr->dso && prof_is_jit_dso(ps_str(ps, fr->dso)) && jit_dso_cat(ps_str(ps, fr->sym)) == PC_JIT)
			return (long)(s->frame0 + f);
	}
	(void)vm;
	return -1;
}

/* ---- the runner's clock against perf's ---- */

void prof_clockmap_init(struct prof_clockmap *m)
{
	memset(m, 0, sizeof(*m));
	m->clk = -1;
}

void prof_clockmap_release(struct prof_clockmap *m)
{
	free(m->a);
	prof_clockmap_init(m);
}

void prof_clockmap_add(struct prof_clockmap *m, int64_t clk_ns, int64_t mono_ns)
{
	if (m->n && clk_ns <= m->a[m->n - 1].clk_ns)
		return; /* pairs in the runner's clock order only */
	if (m->n == m->alloc) {
		m->alloc = m->alloc ? m->alloc * 2 : 256;
		m->a = xrealloc(m->a, m->alloc * sizeof(*m->a));
	}
	m->a[m->n++] = (struct prof_anchor){ clk_ns, mono_ns };
}

static int64_t clock_read(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void prof_clockmap_read(struct prof_clockmap *m)
{
	if (m->clk < 0 || m->clk == CLOCK_MONOTONIC)
		return;
	/* the pair whose two CLOCK_MONOTONIC reads are closest (not interrupted) of three */
	int64_t best_c = 0, best_m = 0, spread = INT64_MAX;
	for (int k = 0; k < 3; k++) {
		int64_t m0 = clock_read(CLOCK_MONOTONIC), c = clock_read(m->clk), m1 = clock_read(CLOCK_MONOTONIC);
		if (m1 - m0 < spread) {
			spread = m1 - m0;
			best_c = c;
			best_m = m0 + (m1 - m0) / 2;
		}
	}
	prof_clockmap_add(m, best_c, best_m);
}

int prof_clockmap_ok(const struct prof_clockmap *m)
{
	return m->clk == CLOCK_MONOTONIC || (m->clk >= 0 && m->n > 0);
}

int64_t prof_clockmap_map(const struct prof_clockmap *m, int64_t t)
{
	if (m->clk == CLOCK_MONOTONIC || !m->n)
		return t;
	/* the first pair at or after t */
	size_t lo = 0, hi = m->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (m->a[mid].clk_ns < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return t + (m->a[0].mono_ns - m->a[0].clk_ns);
	if (lo == m->n)
		return t + (m->a[m->n - 1].mono_ns - m->a[m->n - 1].clk_ns);
	const struct prof_anchor *a = &m->a[lo - 1], *b = &m->a[lo];
	long double oa = (long double)(a->mono_ns - a->clk_ns), ob = (long double)(b->mono_ns - b->clk_ns);
	long double f = (long double)(t - a->clk_ns) / (long double)(b->clk_ns - a->clk_ns);
	return t + (int64_t)(oa + (ob - oa) * f + (oa + (ob - oa) * f >= 0 ? 0.5L : -0.5L));
}

/* ---- iteration windows ---- */

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

int prof_windows(const struct stream *st, const int64_t *arrival, const struct prof_clockmap *m, int use_runner,
		 struct prof_iter *it, size_t *moved)
{
	int runner = use_runner && st->windows == 1 && prof_clockmap_ok(m);
	for (size_t i = 0; i < st->n; i++) {
		it[i].wall_ns = st->wall[i];
		it[i].cpu_ns = st->cpu[i] == INT64_MIN ? -1 : st->cpu[i];
		if (runner) {
			it[i].start_ns = prof_clockmap_map(m, st->start[i]);
			it[i].end_ns = prof_clockmap_map(m, st->end[i]);
		} else {
			it[i].end_ns = arrival[i];
			it[i].start_ns = arrival[i] - st->wall[i];
		}
	}
	*moved = runner ? 0 : prof_windows_fix(it, st->n);
	return runner;
}
