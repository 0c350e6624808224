/*
 * timers.c - Pyston-style internal timers and counters for VM authors:
 * kiln_timer_start/stop (nested), kiln_count, and the dump in the `stats`
 * format that the `stats` parser reads back.
 *
 * Conventions (Pyston's): a name starting "us_" is a timer reported in
 * microseconds (other timer names are reported in nanoseconds), "num_" a
 * count.  Timers are inclusive: a timer keeps running while timers nested in
 * it run, so when nested timers are named by extension (us_compiling around
 * us_compiling_parse and us_compiling_irgen), a name that is a prefix of
 * another is the superset of it.  A timer started again while it is already
 * running on the same thread (recursion) counts only its outermost interval.
 *
 * Parts:
 *   - the name table: up to KT_NAMES names, interned (copied once) on first
 *     use into an open-addressed hash table.  Slots are filled under a mutex
 *     and published with a release store; lookups are lock-free.  Names are
 *     never removed (kiln_stats_reset zeroes values only).
 *   - per-thread state (struct kt_thread): the stack of running timers
 *     (KT_DEPTH deep, fixed) and the thread's totals, one per name.  Only the
 *     owning thread writes its totals, with relaxed atomic load+store (no
 *     locked instruction), and the dump sums every thread's totals with
 *     relaxed loads: data-race free, and exact once the threads are quiet.
 *     Blocks are registered in a global list; when a thread exits its block
 *     is retired and handed to the next new thread, totals kept (they are
 *     sums anyway), so a VM that creates many threads does not grow memory.
 *   - a tiny per-thread cache from the caller's name pointer to its slot,
 *     verified with strcmp, so the usual call with a string literal skips
 *     hashing.
 *   - the clock (kt_now): the CPU's timestamp counter where it is usable,
 *     CLOCK_MONOTONIC_RAW otherwise.  Picked once, at the first use of
 *     libkiln's timers in the process (kt_init), and never changed, so every
 *     start, stop and total is in one unit, "ticks": TSC cycles or
 *     nanoseconds.  Totals stay in ticks; only the dump converts them.
 * So after the first use of a name on a thread, start/stop allocate nothing,
 * take no lock and cost two clock reads plus a few loads and stores.
 *
 * The TSC.  One clock_gettime through the vDSO is 19-21 ns of CPU time on
 * the development VM (it reads the TSC itself, then scales it), and with two
 * of them a pair costs 48-51 ns; with rdtsc, 27-28 ns.  It is used when it is an
 * invariant TSC (CPUID 0x80000007 EDX bit 8, Linux's nonstop_tsc: constant
 * rate, not stopped in idle states) and the kernel itself keeps time with it
 * (clocksource "tsc"): the kernel drops that clocksource when it finds the
 * CPUs' counters out of sync or drifting, which a per-process check could
 * not see, and a thread may move between CPUs between its start and stop.
 * KILN_TIMERS_CLOCK=tsc skips the clocksource check (the invariant TSC is
 * still required), =clock_gettime forces the fallback, =auto (or unset) is
 * the default.  Plain rdtsc, not rdtscp or lfence+rdtsc: those only keep
 * the read from executing before earlier instructions finish, and without
 * them the error is at most the out-of-order window (typically tens of
 * cycles, a few hundred at worst) at each end of intervals that are
 * microseconds long (a compile pass, a GC); but they drain the pipeline,
 * which made a pair cost 41 ns (rdtscp) and 46-52 ns (lfence+rdtsc) against
 * 27 ns for rdtsc on the development VM.
 *
 * Calibration.  kt_init reads a (tick, ns) pair at first use; each dump
 * reads another and converts ticks to ns by the ratio of the two intervals.
 * The rate is constant, so the longest interval is the best estimate, and
 * since a thread's total never exceeds that interval, the pairs' error (tens
 * of ns each: kt_pair takes the tightest of several reads) moves a total by
 * about that much at most, however soon after first use the dump comes.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif
#include "kiln.h"

#define KT_NAMES 512   /* distinct names; a power of two */
#define KT_DEPTH 64    /* nesting depth per thread */
#define KT_CACHE 16    /* per-thread pointer->slot cache; a power of two */

struct kt_name {
	_Atomic(const char *) name; /* interned copy, NULL while free */
	atomic_int timer;           /* ever used as a timer (unit by prefix) */
};

struct kt_frame {
	int slot;        /* -1: the name table is full */
	int timed;       /* 0: the timer was already running (recursion) */
	uint64_t start;
};

struct kt_cached {
	const char *ptr;      /* the caller's pointer */
	const uint64_t *text; /* the interned copy, zero-padded to whole words */
	uint32_t len;
	int slot;
};

struct kt_thread {
	_Atomic int64_t total[KT_NAMES];
	uint16_t running[KT_NAMES]; /* how many frames of each slot are open */
	struct kt_frame stack[KT_DEPTH];
	int depth;                  /* may exceed KT_DEPTH: frames past it are not timed */
	struct kt_cached cache[KT_CACHE];
	struct kt_thread *next;     /* all blocks, live and retired */
	int retired;                /* under kt_lock */
};

static struct kt_name kt_names[KT_NAMES];
static atomic_long kt_dropped;  /* uses of names beyond the table */
static pthread_mutex_t kt_lock = PTHREAD_MUTEX_INITIALIZER;
static struct kt_thread *kt_threads;
static pthread_key_t kt_key;
static pthread_once_t kt_once = PTHREAD_ONCE_INIT;
static atomic_int kt_atexit_done;
/* initial-exec: one pointer of static TLS, no __tls_get_addr call in libkiln.so */
static _Thread_local struct kt_thread *kt_self __attribute__((tls_model("initial-exec")));

/* ---- the clock ---- */

static int kt_tsc;               /* ticks are TSC cycles (1) or ns (0); set once by kt_init */
static char kt_clock_text[160];  /* which clock and why */
static uint64_t kt_base_tick, kt_base_ns; /* the calibration's start, at first use */

static inline uint64_t kt_gettime(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#if defined(__x86_64__)
static inline uint64_t kt_rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}
#endif

/* the timers' clock, in ticks; inlined into start and stop */
static inline uint64_t kt_now(void)
{
#if defined(__x86_64__)
	if (kt_tsc)
		return kt_rdtsc();
#endif
	return kt_gettime();
}

/*
 * A tick reading and the CLOCK_MONOTONIC_RAW reading taken at the same
 * moment: the ns read bracketed by two tick reads, the tightest bracket of a
 * few (a preemption inside one bracket would skew the calibration by the
 * length of the preemption).
 */
static void kt_pair(uint64_t *tick, uint64_t *ns)
{
	if (!kt_tsc) {
		*tick = *ns = kt_gettime();
		return;
	}
	uint64_t best = UINT64_MAX;
	for (int i = 0; i < 8; i++) {
		uint64_t a = kt_now();
		uint64_t n = kt_gettime();
		uint64_t b = kt_now();
		if (b >= a && b - a < best) {
			best = b - a;
			*tick = a + (b - a) / 2;
			*ns = n;
		}
	}
	if (best == UINT64_MAX) /* never ordered: cannot happen with a usable TSC */
		*tick = kt_now(), *ns = kt_gettime();
}

/* a total in ticks as ns, by the rate over first use .. (tick, ns) */
static int64_t kt_ticks_ns(int64_t v, uint64_t tick, uint64_t ns)
{
	if (!kt_tsc || tick <= kt_base_tick)
		return v;
	return (int64_t)((__int128)v * (__int128)(ns - kt_base_ns) / (__int128)(tick - kt_base_tick));
}

/* the kernel's clocksource into buf; 0, or -1 when it cannot be read */
static int kt_clocksource(char *buf, size_t n)
{
	int fd = open("/sys/devices/system/clocksource/clocksource0/current_clocksource", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t r = read(fd, buf, n - 1);
	close(fd);
	if (r <= 0)
		return -1;
	buf[r] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

/* does the CPU have an invariant TSC (and rdtsc at all)? */
static int kt_invariant_tsc(void)
{
#if defined(__x86_64__)
	unsigned a, b, c, d;
	if (!__get_cpuid(1, &a, &b, &c, &d) || !(d & (1u << 4)))
		return 0;
	if (!__get_cpuid(0x80000000u, &a, &b, &c, &d) || a < 0x80000007u)
		return 0;
	__get_cpuid(0x80000007u, &a, &b, &c, &d);
	return (d >> 8) & 1;
#else
	return 0;
#endif
}

/* choose the clock (see the top of the file) and start the calibration */
static void kt_pick_clock(void)
{
	const char *env = getenv("KILN_TIMERS_CLOCK");
	int force_tsc = 0, force_gettime = 0;
	if (env && *env && strcmp(env, "auto")) {
		force_tsc = !strcmp(env, "tsc");
		force_gettime = !strcmp(env, "clock_gettime");
		if (!force_tsc && !force_gettime)
			fprintf(stderr, "kiln: KILN_TIMERS_CLOCK=%.40s is not auto, tsc or clock_gettime: using auto\n",
				env);
	}
	char cs[64];
	int cs_known = kt_clocksource(cs, sizeof(cs)) == 0;
	size_t n = sizeof(kt_clock_text);
	kt_tsc = 0;
	if (force_gettime) {
		snprintf(kt_clock_text, n, "clock_gettime: forced by KILN_TIMERS_CLOCK");
	} else if (!kt_invariant_tsc()) {
#if defined(__x86_64__)
		snprintf(kt_clock_text, n, "clock_gettime: the CPU has no invariant TSC");
#else
		snprintf(kt_clock_text, n, "clock_gettime: not x86-64");
#endif
	} else if (force_tsc) {
		kt_tsc = 1;
		snprintf(kt_clock_text, n, "tsc: invariant TSC, forced by KILN_TIMERS_CLOCK");
	} else if (cs_known && strcmp(cs, "tsc")) {
		snprintf(kt_clock_text, n, "clock_gettime: invariant TSC, but the kernel's clocksource is %s", cs);
	} else {
		kt_tsc = 1;
		snprintf(kt_clock_text, n, "tsc: invariant TSC, kernel clocksource %s", cs_known ? cs : "unknown");
	}
	kt_pair(&kt_base_tick, &kt_base_ns);
}

/*
 * Which clock the timers use and why: "tsc: ..." or "clock_gettime: ...".
 * Not in kiln.h, and hidden from libkiln.so's symbols: for bench/overhead
 * and tests/unit/test_timers.c, which link libkiln statically.
 */
__attribute__((visibility("hidden"))) const char *kt_clock_desc(void);

/* thread exit (a pthread key destructor, run by the exiting thread itself) */
static void kt_retire(void *p)
{
	struct kt_thread *t = p;
	kt_self = NULL; /* a later use in another destructor takes a fresh block */
	pthread_mutex_lock(&kt_lock);
	t->retired = 1;
	pthread_mutex_unlock(&kt_lock);
}

/* a fork() while another thread holds the lock must not leave it held in the child */
static void kt_fork_prepare(void) { pthread_mutex_lock(&kt_lock); }
static void kt_fork_parent(void) { pthread_mutex_unlock(&kt_lock); }
static void kt_fork_child(void) { pthread_mutex_unlock(&kt_lock); }

/* once per process, before any tick is read */
static void kt_init(void)
{
	kt_pick_clock();
	pthread_key_create(&kt_key, kt_retire);
	pthread_atfork(kt_fork_prepare, kt_fork_parent, kt_fork_child);
}

const char *kt_clock_desc(void)
{
	pthread_once(&kt_once, kt_init);
	return kt_clock_text;
}

/* this thread's block, adopted from a retired thread or made (first use only) */
static struct kt_thread *kt_thread_slow(void)
{
	pthread_once(&kt_once, kt_init);
	struct kt_thread *t;
	pthread_mutex_lock(&kt_lock);
	for (t = kt_threads; t; t = t->next)
		if (t->retired)
			break;
	if (t) {
		t->retired = 0;
	} else {
		t = calloc(1, sizeof(*t));
		if (t) {
			t->next = kt_threads;
			kt_threads = t;
		}
	}
	pthread_mutex_unlock(&kt_lock);
	if (!t)
		return NULL;
	/* an adopted block keeps its totals but not the old thread's stack */
	memset(t->running, 0, sizeof(t->running));
	t->depth = 0;
	for (int i = 0; i < KT_CACHE; i++)
		t->cache[i].ptr = NULL;
	pthread_setspecific(kt_key, t);
	kt_self = t;
	return t;
}

static inline struct kt_thread *kt_thread(void)
{
	struct kt_thread *t = kt_self;
	return t ? t : kt_thread_slow();
}

static uint32_t kt_hash(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* a copy of name zero-padded to whole 64-bit words, for kt_same() */
static char *kt_intern_copy(const char *name)
{
	size_t n = strlen(name);
	char *c = calloc(n / 8 + 1, 8);
	if (c)
		memcpy(c, name, n);
	return c;
}

/* the slot of a name, interning it on first use; -1 when the table is full */
static int kt_slot_slow(const char *name)
{
	uint32_t h = kt_hash(name);
	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t i = 0; i < KT_NAMES; i++) {
			uint32_t s = (h + i) & (KT_NAMES - 1);
			const char *n = atomic_load_explicit(&kt_names[s].name, memory_order_acquire);
			if (!n)
				break;
			if (!strcmp(n, name))
				return (int)s;
		}
		if (pass)
			break;
		/* not there: insert under the lock (probe again, someone may have) */
		pthread_mutex_lock(&kt_lock);
		for (uint32_t i = 0; i < KT_NAMES; i++) {
			uint32_t s = (h + i) & (KT_NAMES - 1);
			const char *n = atomic_load_explicit(&kt_names[s].name, memory_order_relaxed);
			if (n && !strcmp(n, name)) {
				pthread_mutex_unlock(&kt_lock);
				return (int)s;
			}
			if (!n) {
				/* keep one slot free so probes always end */
				int used = 0;
				for (int k = 0; k < KT_NAMES; k++)
					used += atomic_load_explicit(&kt_names[k].name, memory_order_relaxed) != NULL;
				char *copy = used < KT_NAMES - 1 ? kt_intern_copy(name) : NULL;
				if (copy)
					atomic_store_explicit(&kt_names[s].name, copy, memory_order_release);
				pthread_mutex_unlock(&kt_lock);
				return copy ? (int)s : -1;
			}
		}
		pthread_mutex_unlock(&kt_lock);
	}
	return -1;
}

/*
 * Is `name` the interned text (len bytes, zero-padded to whole words)?  The
 * fast path of every start: it must read the caller's text each time (the
 * same pointer may hold another name by now) and a byte loop over a typical
 * name costs a quarter of a start/stop pair, so it compares a word at a
 * time.  Loads of the caller's string may go past its end, but never past
 * its page: the page check below makes that sure, a load within a mapped
 * page cannot fault, and the bytes after the terminator are masked out
 * (the technique of the C library's own string functions).  Byte by byte
 * where that does not hold: near a page end, big-endian, under ASan.
 */
#if defined(__SANITIZE_ADDRESS__)
#define KT_NO_WORDS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KT_NO_WORDS 1
#endif
#endif
#if !defined(KT_NO_WORDS) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
typedef uint64_t __attribute__((may_alias, aligned(1))) kt_uword;
#define KT_WORDS 1
#endif

static inline int kt_same_bytes(const char *a, const char *b)
{
	while (*a == *b) {
		if (!*a)
			return 1;
		a++, b++;
	}
	return 0;
}

static inline int kt_same(const struct kt_cached *e, const char *name)
{
#ifdef KT_WORDS
	size_t nw = e->len / 8 + 1; /* words holding the text and its NUL */
	if (((uintptr_t)name & 4095) + nw * 8 <= 4096) {
		const kt_uword *w = (const kt_uword *)name;
		for (size_t k = 0; k + 1 < nw; k++)
			if (w[k] != e->text[k])
				return 0; /* also when name ends early: the text has no NUL there */
		unsigned keep = (e->len % 8 + 1) * 8; /* bits up to and with the NUL */
		uint64_t mask = keep == 64 ? ~(uint64_t)0 : ((uint64_t)1 << keep) - 1;
		return ((w[nw - 1] ^ e->text[nw - 1]) & mask) == 0;
	}
#endif
	return kt_same_bytes((const char *)e->text, name);
}

static inline int kt_slot(struct kt_thread *t, const char *name)
{
	struct kt_cached *e = &t->cache[((uintptr_t)name >> 3) & (KT_CACHE - 1)];
	if (e->ptr == name && kt_same(e, name))
		return e->slot;
	int s = kt_slot_slow(name);
	if (s >= 0) {
		e->ptr = name;
		e->text = (const uint64_t *)atomic_load_explicit(&kt_names[s].name, memory_order_relaxed);
		e->len = (uint32_t)strlen((const char *)e->text);
		e->slot = s;
	} else {
		atomic_fetch_add_explicit(&kt_dropped, 1, memory_order_relaxed);
	}
	return s;
}

static inline void kt_add(struct kt_thread *t, int s, int64_t v)
{
	/* only this thread writes its totals: no locked instruction needed */
	int64_t old = atomic_load_explicit(&t->total[s], memory_order_relaxed);
	atomic_store_explicit(&t->total[s], old + v, memory_order_relaxed);
}

void kiln_timer_start(const char *name)
{
	struct kt_thread *t = kt_thread();
	if (!t || !name)
		return;
	int d = t->depth++;
	if (d >= KT_DEPTH)
		return;
	struct kt_frame *f = &t->stack[d];
	int s = kt_slot(t, name);
	f->slot = s;
	f->timed = 0;
	if (s < 0 || t->running[s]++)
		return; /* no room for the name, or running further out: count once */
	if (!atomic_load_explicit(&kt_names[s].timer, memory_order_relaxed))
		atomic_store_explicit(&kt_names[s].timer, 1, memory_order_relaxed);
	f->timed = 1;
	f->start = kt_now();
}

void kiln_timer_stop(void)
{
	struct kt_thread *t = kt_self;
	if (!t || t->depth <= 0)
		return; /* a stop without a start: ignored */
	int d = --t->depth;
	if (d >= KT_DEPTH)
		return;
	struct kt_frame *f = &t->stack[d];
	if (!f->timed) {
		if (f->slot >= 0)
			t->running[f->slot]--;
		return;
	}
	int64_t el = (int64_t)(kt_now() - f->start);
	t->running[f->slot]--;
	/* the thread may have moved to a CPU whose counter is a few cycles behind */
	kt_add(t, f->slot, el > 0 ? el : 0);
}

void kiln_count(const char *name, int64_t n)
{
	struct kt_thread *t = kt_thread();
	if (!t || !name)
		return;
	int s = kt_slot(t, name);
	if (s >= 0)
		kt_add(t, s, n);
}

struct kt_line {
	const char *name;
	int64_t value;
};

static int kt_cmp(const void *a, const void *b)
{
	return strcmp(((const struct kt_line *)a)->name, ((const struct kt_line *)b)->name);
}

static void kt_dump_to(FILE *f)
{
	struct kt_line *lines = calloc(KT_NAMES, sizeof(*lines));
	if (!lines)
		return;
	int n = 0;
	uint64_t now, now_ns;
	pthread_once(&kt_once, kt_init);
	kt_pair(&now, &now_ns);
	struct kt_thread *self = kt_self;
	pthread_mutex_lock(&kt_lock);
	for (int s = 0; s < KT_NAMES; s++) {
		const char *name = atomic_load_explicit(&kt_names[s].name, memory_order_acquire);
		if (!name)
			continue;
		int64_t v = 0;
		for (struct kt_thread *t = kt_threads; t; t = t->next)
			v += atomic_load_explicit(&t->total[s], memory_order_relaxed);
		/* this thread's timers still running count up to now */
		if (self)
			for (int d = 0; d < self->depth && d < KT_DEPTH; d++)
				if (self->stack[d].slot == s && self->stack[d].timed)
					v += (int64_t)(now - self->stack[d].start);
		if (atomic_load_explicit(&kt_names[s].timer, memory_order_relaxed)) {
			v = kt_ticks_ns(v, now, now_ns);
			if (!strncmp(name, "us_", 3))
				v /= 1000;
		}
		lines[n].name = name;
		lines[n].value = v;
		n++;
	}
	pthread_mutex_unlock(&kt_lock);
	qsort(lines, (size_t)n, sizeof(*lines), kt_cmp);
	fputs("Stats:\n", f);
	for (int i = 0; i < n; i++)
		fprintf(f, "  %s: %lld\n", lines[i].name, (long long)lines[i].value);
	long dropped = atomic_load_explicit(&kt_dropped, memory_order_relaxed);
	if (dropped)
		fprintf(f, "  num_kiln_stats_dropped: %ld\n", dropped);
	fputs("(End of stats)\n", f);
	fflush(f);
	free(lines);
}

void kiln_stats_dump(FILE *f)
{
	if (f) {
		kt_dump_to(f);
		return;
	}
	const char *dir = getenv("KILN_INSTR_DIR");
	if (dir && *dir) {
		size_t n = strlen(dir) + sizeof("/stats.txt");
		char *path = malloc(n);
		if (path) {
			snprintf(path, n, "%s/stats.txt", dir);
			FILE *o = fopen(path, "we");
			free(path);
			if (o) {
				kt_dump_to(o);
				fclose(o);
				return;
			}
		}
		/* the directory is unusable: stderr rather than nothing */
	}
	kt_dump_to(stderr);
}

static void kt_atexit(void)
{
	kiln_stats_dump(NULL);
}

void kiln_stats_atexit(void)
{
	if (!atomic_exchange(&kt_atexit_done, 1))
		atexit(kt_atexit);
}

void kiln_stats_reset(void)
{
	pthread_mutex_lock(&kt_lock);
	for (struct kt_thread *t = kt_threads; t; t = t->next)
		for (int s = 0; s < KT_NAMES; s++)
			atomic_store_explicit(&t->total[s], 0, memory_order_relaxed);
	pthread_mutex_unlock(&kt_lock);
	atomic_store_explicit(&kt_dropped, 0, memory_order_relaxed);
	/* this thread's running timers now count from the reset */
	struct kt_thread *self = kt_self;
	if (self) { /* kt_init has run: this thread has a block */
		uint64_t now = kt_now();
		for (int d = 0; d < self->depth && d < KT_DEPTH; d++)
			if (self->stack[d].timed)
				self->stack[d].start = now;
	}
}
