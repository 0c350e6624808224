/*
 * publish-corpus.c - a synthetic history of issue 29's size for
 * bench/publish.sh: 200 commits x 10 benchmarks x 10 pexecs x ITERS
 * iterations on one machine, made through the history's own writers
 * (history-int.h: each commit's results file folded in with the default
 * analysis, as `kiln track` folds what it measured), so that what kiln
 * publish reads is what a real history holds.
 *
 *   publish-corpus HISTORY [ITERS]        (default 100 iterations)
 *
 * The series: per benchmark a base time of 1-10 ms; noise per commit
 * (0.3%: the machine's state from one session to the next), per pexec
 * (0.6%) and per iteration (1%, and 1% outliers 30% slower); half the
 * benchmarks warm up (their first iterations up to 2.5x slower, decaying
 * over 4-12 iterations); one benchmark drifts in 10% of its pexecs (no
 * steady state).  Injected: a steady-state step in every benchmark
 * (+2% to +10% or -3% to -5%) and a second one in two of them, a 2x
 * longer warm-up from commit 120 in two; every fourth commit that changes
 * nothing ran the same binary as the one before (A/A pairs); three builds
 * failed.  One subject
 * is hostile HTML.  Also writes HISTORY.newest.kiln.db, the newest commit's
 * results file (bench/publish.sh's baseline reports it).  Deterministic.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis.h"
#include "dataset.h"
#include "history-int.h"
#include "store.h"

#define COMMITS 200
#define BENCHES 10
#define PEXECS 10

static uint64_t st = 0x9E3779B97F4A7C15ULL;
static double urand(void)
{
	st ^= st << 13;
	st ^= st >> 7;
	st ^= st << 17;
	return ((double)(st >> 11) + 0.5) / 9007199254740992.0;
}
static double nrand(void)
{
	return sqrt(-2 * log(urand())) * cos(2 * M_PI * urand());
}

static const char *const names[BENCHES] = { "binary_trees", "fannkuch", "nbody", "richards", "spectral_norm",
					    "fib", "strings", "sort", "queens", "mandelbrot" };
static const char *const authors[] = { "Ada", "Brian", "Grace", "Ken", "Barbara" };
static const char *const subjects[] = { "gc: shorter pauses in the minor collector", "parser: a table for the lexer",
					"docs: typos", "vm: one dispatch per opcode fewer", "tests: more of the string library",
					"jit: inline small closures", "build: quieter warnings", "api: a new hook" };

/* the injected steady-state steps: benchmark, commit, factor */
static const struct { int b, at; double f; } steps[] = {
	{ 0, 40, 1.05 },  { 1, 57 + 3, 0.97 }, { 2, 74, 1.10 }, { 3, 91, 1.02 }, { 4, 108, 0.95 }, { 5, 125, 1.03 },
	{ 6, 142, 1.05 }, { 7, 159, 1.02 },    { 8, 176, 0.96 }, { 9, 30, 1.08 }, { 3, 150, 1.04 }, { 7, 80, 0.96 },
};

/* does commit i change some benchmark (then its binary is new, whatever i is) */
static int changes_at(int i)
{
	for (size_t s = 0; s < sizeof(steps) / sizeof(steps[0]); s++)
		if (steps[s].at == i)
			return 1;
	return i == 120;
}

static int failed_build(int i)
{
	return i == 57 || i == 133 || i == 170;
}

static double level(int b, int i)
{
	double v = 1e-3 * (1 + b);
	for (size_t s = 0; s < sizeof(steps) / sizeof(steps[0]); s++)
		if (steps[s].b == b && i >= steps[s].at)
			v *= steps[s].f;
	return v;
}

/* warm-up length in iterations (0: flat) */
static double warmup_len(int b, int i)
{
	if (b % 2)
		return 0;
	double w = 4 + b;
	return (b == 2 || b == 6) && i >= 120 ? 2 * w : w;
}

static void make_pexec(struct ds_pexec *p, int b, int i, double session, long iters)
{
	double lv = level(b, i) * session * exp(0.006 * nrand()), w = warmup_len(b, i);
	int drift = b == 9 && urand() < 0.1;
	p->n = (size_t)iters;
	p->wall = xmalloc((size_t)iters * sizeof(double));
	for (long t = 0; t < iters; t++) {
		double v = lv * exp(0.01 * nrand());
		if (w > 0)
			v *= 1 + 1.5 * exp(-(double)t / (w / 3));
		if (urand() < 0.01)
			v *= 1.3;
		if (drift)
			v *= 1 + 0.05 * (double)t / (double)iters;
		p->wall[t] = v;
	}
}

static void hex_of(const char *what, int i, char out[41])
{
	char buf[64], h[65];
	snprintf(buf, sizeof(buf), "%s %d", what, i);
	hash_hex(buf, strlen(buf), h);
	memcpy(out, h, 40);
	out[40] = '\0';
}

static int one_commit(struct history *h, long machine, int i, long iters, const char *newest, struct an_opts *o,
		      char *binary, struct kerr *e)
{
	char hash[41], parent[41];
	hex_of("commit", i, hash);
	hex_of("commit", i - 1, parent);
	struct hist_commit c = { 0, hash, i ? parent : NULL, i, 1700000000 + (int64_t)i * 21600,
				 (char *)authors[i % 5], (char *)subjects[(i * 7) % 8] };
	if (i == 150)
		c.subject = "</script><script>alert(1)</script> <b id=\"inj\">\"quoted\" & 'single'</b>";
	long cid = history_put_commit(h, &c, e), run = cid > 0 ? history_begin_run(h, cid, machine, "track", NULL, NULL, e) : -1;
	if (run < 0)
		return -1;
	if (failed_build(i))
		return history_end_run(h, run, "build-failed", 2.0, NULL, "make: *** [lvm.o] Error 1", e);
	if (i % 4 != 1 || changes_at(i))
		hex_of("binary", i, binary);
	struct dataset ds;
	memset(&ds, 0, sizeof(ds));
	ds.name = xstrdup("synthetic");
	double session = exp(0.003 * nrand());
	for (int b = 0; b < BENCHES; b++) {
		struct ds_key *k = ds_add_key(&ds, names[b], "synth", "default-c");
		k->iterations = iters;
		k->planned_pexecs = PEXECS;
		for (int p = 0; p < PEXECS; p++)
			make_pexec(ds_add_pexec(k, p), b, i, session, iters);
	}
	char *path = xasprintf("%s.commit.kiln.db", newest);
	unlink(path);
	int r = store_save_dataset(path, &ds, e);
	if (r == 0)
		r = history_fold(h, run, path, o, e);
	if (r == 0)
		r = history_end_run(h, run, "ok", 2.0, binary, NULL, e);
	if (r == 0 && i == COMMITS - 1) {
		unlink(newest);
		r = rename(path, newest) < 0 ? kerr_set(e, "%s: cannot keep it", newest) : 0;
	}
	unlink(path);
	free(path);
	ds_free(&ds);
	return r;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: publish-corpus HISTORY [ITERS]\n");
		return 2;
	}
	long iters = argc > 2 ? atol(argv[2]) : 100;
	if (iters < 10)
		iters = 10;
	store_library_init();
	char *tmp = xasprintf("%s.part", argv[1]), *newest = xasprintf("%s.newest.kiln.db", argv[1]);
	unlink(tmp);
	struct kerr e = KERR_INIT;
	struct history *h;
	if (history_open(tmp, 1, &h, &e) < 0) {
		kerr_print(&e);
		return 1;
	}
	char *old = NULL;
	long machine = history_put_machine(h, "bench", "{\"cpu_model\":\"synthetic\"}", &old, &e);
	free(old);
	history_meta_set(h, "project", "synthetic VM", &e);
	struct an_opts o;
	an_opts_default(&o);
	char binary[41] = "";
	int r = machine > 0 ? 0 : -1;
	for (int i = 0; r == 0 && i < COMMITS; i++) {
		r = one_commit(h, machine, i, iters, newest, &o, binary, &e);
		if (i % 20 == 19)
			fprintf(stderr, "publish-corpus: %d/%d commits\n", i + 1, COMMITS);
	}
	history_close(h);
	if (r == 0 && rename(tmp, argv[1]) < 0)
		r = kerr_set(&e, "%s: cannot rename into place", argv[1]);
	if (r < 0) {
		kerr_print(&e);
		unlink(tmp);
		return 1;
	}
	free(tmp);
	free(newest);
	return 0;
}
