/*
 * analysis.c - the warmup analysis at Barrett scale (issue 30): 3,660 pexecs
 * x 2,000 iterations (7.32 million values), 122 keys of 30 pexecs, made
 * here synthetically and analysed by an_analyse() with the default options
 * on every CPU.
 *
 * The keys mix the shapes real VMs show: flat, warmup (a slow start of
 * 5-200 iterations), slowdown, noisy (spiky, heavy-tailed), no steady state
 * (a change in the last iterations) and inconsistent keys whose pexecs
 * differ.  Rows (bench/run.sh's summary shows those with a target):
 *   - the analysis's wall time on the AVX2 path (<= 5 s), on the scalar
 *     path (<= 10 s: 2x that) and on AVX-512 (information), each a fresh
 *     process of this program (KILN_NO_SIMD; the kernels are chosen once a
 *     process), with its CPU time.  Baseline, measured in the same run: the
 *     changepoint search alone done plainly (optimal partitioning, no
 *     pruning, no bounds, no vector kernel) on 30 pexecs, scaled to 3,660.
 *     The three paths must give the same classes and changepoints;
 *   - the analysis process's peak RSS (VmHWM, data included) on the AVX2
 *     path: <= 64 MiB, beside the data's own size;
 *   - the bootstrap intervals of --replicate-warmup-stats (near-exact
 *     resample means) against resampling every value, on 12 keys' samples,
 *     32 seeds each way: the difference of the interval ends' means over
 *     the seeds, in units of the exact bootstrap's own run-to-run standard
 *     deviation (printed), must be <= 1: a near-exact interval is no
 *     further from the exact ones' centre than one exact run is.  (At 8
 *     seeds, the row's first form with a bound of 2.5, the mean difference
 *     alone has a standard error of 0.5 sd and the sd is itself a guess
 *     from 8 runs: key 12's low end read 2.57 sd there and 0.65 sd at 32.)
 *     The difference is also given in its own standard errors;
 *   - incremental: with the per-key cache (analysis-cache.h, here in
 *     memory), one pexec more in one key re-analyses that key only: <= 0.2 s
 *     and 1 key analysed, beside the full analysis that filled the cache.
 *
 *   analysis [KEYS]            (default 122)
 *   analysis --one KEYS        one timed analysis on the path KILN_NO_SIMD
 *                              says: prints "one WALL CPU HWM_KIB DATA_KIB
 *                              FINGERPRINT"
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "analysis-cache.h"
#include "analysis-int.h"

#define PEXECS 30
#define ITERS 2000

#define BENCH_SEED 0x2545F4914F6CDD1DULL
#include "bench-util.h"

/* a /proc/self/status figure in KiB (VmHWM, VmRSS) */
static long status_kib(const char *name)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long v = -1;
	size_t n = strlen(name);
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, name, n) && line[n] == ':')
			v = atol(line + n + 1);
	if (f)
		fclose(f);
	return v;
}

static void make_pexec(struct ds_pexec *p, int shape, double base)
{
	p->n = ITERS;
	p->wall = xmalloc(ITERS * sizeof(double));
	long warm = 5 + (long)(urand() * 195);
	long change = 200 + (long)(urand() * 1000);
	for (long i = 0; i < ITERS; i++) {
		double mu = base, sd = base * 0.002;
		switch (shape) {
		case 0: break;                                     /* flat */
		case 1: if (i < warm) mu = base * 1.8; break;      /* warmup */
		case 2: if (i >= change) mu = base * 1.3; break;   /* slowdown */
		case 3: sd = base * 0.02; if (urand() < 0.01) mu = base * 3; break; /* noisy, spikes */
		case 4: if (i >= ITERS - 100) mu = base * 1.5; break; /* no steady state */
		}
		p->wall[i] = mu + sd * nrand();
	}
}

static void make_dataset(struct dataset *ds, long nkeys)
{
	for (long k = 0; k < nkeys; k++) {
		char b[32];
		snprintf(b, sizeof(b), "bench%03ld", k);
		struct ds_key *key = ds_add_key(ds, b, k % 2 ? "vmA" : "vmB", "default");
		double base = 0.01 + urand() * 0.5;
		int kind = (int)(k % 6); /* 0-4: one shape for all pexecs, 5: a mix */
		for (int p = 0; p < PEXECS; p++) {
			int shape = kind < 5 ? kind : (int)(urand() * 3);
			make_pexec(ds_add_pexec(key, p), shape, base);
		}
	}
}

/* FNV-1a of every class, outlier count and segment boundary: equal on every path, or a bug */
static uint64_t fingerprint(const struct an_result *r)
{
	uint64_t h = 0xcbf29ce484222325ULL;
#define MIX(v) do { h ^= (uint64_t)(v); h *= 0x100000001b3ULL; } while (0)
	for (size_t i = 0; i < r->nkeys; i++) {
		const struct an_key *k = &r->keys[i];
		MIX(k->cls);
		for (size_t p = 0; p < k->np; p++) {
			MIX(k->p[p].cls);
			MIX(k->p[p].noutliers);
			for (size_t s = 0; s < k->p[p].nsegs; s++)
				MIX(k->p[p].segs[s].end);
		}
	}
#undef MIX
	return h;
}

/* the child: one analysis on this process's path */
static int one(long nkeys)
{
	struct dataset ds = { 0 };
	make_dataset(&ds, nkeys);
	long data_kib = status_kib("VmRSS");
	struct an_opts o;
	an_opts_default(&o);
	struct an_result r;
	struct kerr e = KERR_INIT;
	double t0 = now(), c0 = cpu();
	if (an_analyse(&ds, &o, &r, &e) < 0) {
		kerr_print(&e);
		return 1;
	}
	double t = now() - t0, tc = cpu() - c0;
	size_t counts[AN_NO_DATA + 1] = { 0 };
	for (size_t i = 0; i < r.nkeys; i++)
		counts[r.keys[i].cls]++;
	printf("one %.3f %.3f %ld %ld %016llx %zu %zu %zu %zu %zu %zu\n", t, tc, status_kib("VmHWM"), data_kib,
	       (unsigned long long)fingerprint(&r), counts[AN_FLAT], counts[AN_WARMUP], counts[AN_SLOWDOWN],
	       counts[AN_NO_STEADY], counts[AN_GOOD_INCONSISTENT], counts[AN_BAD_INCONSISTENT]);
	an_result_free(&r);
	ds_free(&ds);
	return 0;
}

struct run {
	const char *path, *simd;        /* simd: KILN_NO_SIMD's value, NULL: unset */
	int ok;
	double wall, cpu;
	long hwm, data;
	char fp[17], classes[128];
};

/* this program again as --one, on the path simd selects */
static void spawn_one(struct run *run, long nkeys)
{
	int p[2];
	if (pipe(p) < 0)
		return;
	pid_t pid = fork();
	if (pid == 0) {
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		if (run->simd)
			setenv("KILN_NO_SIMD", run->simd, 1);
		else
			unsetenv("KILN_NO_SIMD");
		char keys[32];
		snprintf(keys, sizeof(keys), "%ld", nkeys);
		execl("/proc/self/exe", "analysis", "--one", keys, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	char buf[512] = "";
	FILE *f = fdopen(p[0], "r");
	if (f && !fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	if (f)
		fclose(f);
	int status;
	waitpid(pid, &status, 0);
	size_t c[6];
	run->ok = WIFEXITED(status) && !WEXITSTATUS(status) &&
		  sscanf(buf, "one %lf %lf %ld %ld %16s %zu %zu %zu %zu %zu %zu", &run->wall, &run->cpu, &run->hwm,
			 &run->data, run->fp, &c[0], &c[1], &c[2], &c[3], &c[4], &c[5]) == 11;
	if (run->ok)
		snprintf(run->classes, sizeof(run->classes),
			 "%zu flat, %zu warmup, %zu slowdown, %zu no steady state, %zu good inc., %zu bad inc.", c[0],
			 c[1], c[2], c[3], c[4], c[5]);
}

static void time_row(const struct run *r, size_t npx, double base, double target)
{
	printf("ROW\tdefault analysis of %zu pexecs x %d iterations, %s path, wall (CPU %.1f s)\t%.2f s\t"
	       "plain optimal partitioning alone, scaled\t%.1f s\t%.3f\t%s\t%s\n",
	       npx, ITERS, r->path, r->cpu, r->wall, base, r->wall / base, target > 0 ? (target <= 5 ? "<= 5 s" : "<= 10 s (2x)") : "-",
	       target > 0 ? (r->wall <= target ? "PASS" : "MISS") : "info");
}

/* ---- the bootstrap's agreement ---- */

struct ends {
	double v[3]; /* lo, median, hi */
};

static struct ends boot_ends(const struct an_sample *s, const struct an_opts *o, uint64_t seed, int exact, double *m)
{
	size_t n = an_bootstrap_means_how(s, o->resamples, seed, m, exact);
	struct ends e;
	an_quantiles(m, n, o->confidence, &e.v[1], &e.v[0], &e.v[2]);
	return e;
}

/*
 * Near-exact against exact, K seeds each, on up to 12 keys with a steady
 * state: the rows.  The samples are --replicate-warmup-stats' (the path
 * that bootstraps): each pexec's last segment from one iteration early,
 * a value of the level before among them in a warmup key.
 */
static void agreement(const struct an_result *r, const struct an_opts *def)
{
	struct an_opts ro = *def, *o = &ro;
	ro.replicate = 1;
	enum { K = 32, KEYS = 12 };
	double worst = 0, worst_diff = 0, worst_sd = 0, worst_z = 0, worst_hw = 0, sds[3 * KEYS];
	size_t nk = 0, nsd = 0;
	double t_exact = 0, t_near = 0;
	for (size_t i = 0; i < r->nkeys && nk < KEYS; i++) {
		const struct an_key *k = &r->keys[i];
		if (!k->has_steady || k->whole)
			continue;
		struct an_sample s;
		an_sample_of(k, o, &s);
		double *m = xmalloc((an_bootstrap_count(&s, o->resamples) + 1) * sizeof(double));
		struct ends ex[K], ne[K];
		for (int q = 0; q < K; q++) {
			double c0 = cpu();
			ex[q] = boot_ends(&s, o, o->seed + (uint64_t)q, 1, m);
			double c1 = cpu();
			ne[q] = boot_ends(&s, o, o->seed + (uint64_t)q, 0, m);
			t_exact += c1 - c0;
			t_near += cpu() - c1;
		}
		double hw = 0;
		for (int q = 0; q < K; q++)
			hw += (ex[q].v[2] - ex[q].v[0]) / 2 / K;
		for (int j = 0; j < 3; j++) {
			double me = 0, mn = 0, ve = 0, vn = 0;
			for (int q = 0; q < K; q++) {
				me += ex[q].v[j] / K;
				mn += ne[q].v[j] / K;
			}
			for (int q = 0; q < K; q++) {
				ve += (ex[q].v[j] - me) * (ex[q].v[j] - me) / (K - 1);
				vn += (ne[q].v[j] - mn) * (ne[q].v[j] - mn) / (K - 1);
			}
			double sd = sqrt((ve + vn) / 2), d = fabs(mn - me);
			double ratio = d == 0 ? 0 : sd > 0 ? d / sd : INFINITY;
			double se = sqrt((ve + vn) / K); /* the difference of two K-run means */
			if (se > 0 && d / se > worst_z)
				worst_z = d / se;
			if (hw > 0 && d / hw > worst_hw)
				worst_hw = d / hw;
			sds[nsd++] = hw > 0 ? sqrt(ve) / hw : 0;
			if (ratio > worst) {
				worst = ratio;
				worst_diff = hw > 0 ? d / hw : 0;
				worst_sd = hw > 0 ? sd / hw : 0;
			}
		}
		free(m);
		an_sample_free(&s);
		nk++;
	}
	for (size_t a = 1; a < nsd; a++) /* sort the spreads for their median */
		for (size_t b = a; b > 0 && sds[b] < sds[b - 1]; b--) {
			double t = sds[b];
			sds[b] = sds[b - 1];
			sds[b - 1] = t;
		}
	printf("bootstrap, %zu keys x %d seeds: exact resampling %.2f s CPU a run, near-exact %.3f s\n", nk, K,
	       t_exact / (nk * K), t_near / (nk * K));
	printf("  run-to-run spread of exact resampling (sd of an interval end over seeds): median %.2f%%, max %.2f%% "
	       "of the half-width\n", nsd ? 100 * sds[nsd / 2] : 0, nsd ? 100 * sds[nsd - 1] : 0);
	printf("  near-exact vs exact (difference of the %d-seed means): at worst %.2f run-to-run sd (%.2g%% of the "
	       "half-width, sd %.2g%%); at worst %.2f standard errors of the difference (the largest of %zu by chance alone: about 2.3); the largest difference "
	       "%.2f%% of the half-width\n", K, worst, 100 * worst_diff, 100 * worst_sd, worst_z, nsd, 100 * worst_hw);
	printf("ROW\tbootstrap interval ends, near-exact vs resampling every value (%zu keys x 3 ends, %d seeds): worst "
	       "difference\t%.2f sd\texact resampling's run-to-run sd (median over ends)\t%.2f%% of half-width\t-\t"
	       "<= 1 sd\t%s\n", nk, K, worst, nsd ? 100 * sds[nsd / 2] : 0, worst <= 1 ? "PASS" : "MISS");
}

/* ---- incremental ---- */

/* the full analysis filling the cache (its result in *r), then one pexec more in one key */
static void incremental(struct dataset *ds, const struct an_opts *o, struct an_result *r)
{
	struct an_memcache m = AN_MEMCACHE_INIT;
	struct an_cache c = an_memcache(&m);
	double t0 = now();
	an_analyse_cached(ds, o, &c, r, NULL);
	double full = now() - t0;
	long puts = m.puts;
	struct ds_key *k = &ds->keys[ds->nkeys / 2];
	make_pexec(ds_add_pexec(k, (long)k->npexecs), 0, k->pexecs[0].wall[ITERS - 1]);
	struct an_result r2;
	t0 = now();
	double c0 = cpu();
	an_analyse_cached(ds, o, &c, &r2, NULL);
	double inc = now() - t0, inc_cpu = cpu() - c0;
	long again = m.puts - puts;
	printf("incremental: full analysis into the cache %.2f s (%ld keys analysed); one pexec more in %s: %.3f s "
	       "(CPU %.3f s), %ld key(s) analysed\n", full, puts, k->key, inc, inc_cpu, again);
	printf("ROW\tre-analysis after one pexec more in 1 of %zu keys (per-key cache)\t%.3f s, %ld key analysed\t"
	       "the full analysis filling the cache\t%.2f s\t%.3f\t<= 0.2 s, 1 key\t%s\n", ds->nkeys, inc, again, full,
	       inc / full, inc <= 0.2 && again == 1 ? "PASS" : "MISS");
	an_result_free(&r2);
	an_memcache_release(&m);
}

int main(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], "--one"))
		return one(atol(argv[2]));
	long nkeys = argc > 1 ? atol(argv[1]) : 122;
	size_t npx = (size_t)nkeys * PEXECS;

	/* the three paths, each a fresh process */
	struct run runs[] = { { "AVX2", "512", 0, 0, 0, 0, 0, "", "" }, { "scalar", "1", 0, 0, 0, 0, 0, "", "" },
			      { "AVX-512", NULL, 0, 0, 0, 0, 0, "", "" } };
	int have512 = 0;
#ifdef AN_HAVE_AVX2
	have512 = __builtin_cpu_supports("avx512f");
	if (!__builtin_cpu_supports("avx2"))
		runs[0].path = "AVX2 (this CPU has none: scalar)";
#endif
	for (size_t i = 0; i < 3; i++)
		if (i < 2 || have512)
			spawn_one(&runs[i], nkeys);

	struct dataset ds = { 0 };
	make_dataset(&ds, nkeys);
	struct an_opts o;
	an_opts_default(&o);

	/* baseline: plain optimal partitioning of 30 pexecs' series, scaled; PELT's share computed beside */
	size_t *ends = xmalloc(ITERS * sizeof(size_t));
	double tb0 = now(), quad = 0, computed = 0;
	for (int p = 0; p < PEXECS; p++) {
		double c;
		const struct ds_pexec *px = &ds.keys[p % nkeys].pexecs[p % PEXECS];
		an_op(px->wall, px->n, o.penalty * log((double)px->n), ends, &c);
	}
	double tb = (now() - tb0) * (double)npx / PEXECS, tp0 = now();
	for (int p = 0; p < PEXECS; p++) {
		double c;
		size_t n;
		const struct ds_pexec *px = &ds.keys[p % nkeys].pexecs[p % PEXECS];
		an_pelt_counted(px->wall, px->n, o.penalty * log((double)px->n), ends, &c, &n);
		quad += (double)px->n * (double)(px->n - 1) / 2;
		computed += (double)n;
	}
	double tpelt = (now() - tp0) * (double)npx / PEXECS;
	free(ends);

	printf("analysis of %zu pexecs x %d iterations (%.2f million values), %ld keys\n", npx, ITERS,
	       npx * ITERS / 1e6, nkeys);
	printf("baseline (plain optimal partitioning alone, one thread, scaled) %.1f s; PELT alone, the same: %.2f s, "
	       "%.2f%% of the candidate values computed\n", tb, tpelt, 100 * computed / quad);
	int same = 1;
	for (size_t i = 0; i < 3; i++) {
		if (!runs[i].ok) {
			if (i < 2 || have512)
				printf("%s path: the analysis process failed\n", runs[i].path);
			continue;
		}
		printf("%-8s path: %.2f s wall, %.2f s CPU on %ld CPUs, peak RSS %.1f MiB (data %.1f MiB); classes: %s; "
		       "fingerprint %s\n", runs[i].path, runs[i].wall, runs[i].cpu, sysconf(_SC_NPROCESSORS_ONLN),
		       runs[i].hwm / 1024.0, runs[i].data / 1024.0, runs[i].classes, runs[i].fp);
		same &= !strcmp(runs[i].fp, runs[0].fp);
	}
	printf("classes, outliers and changepoints identical on every path: %s\n", same ? "yes" : "NO");
	if (runs[0].ok)
		time_row(&runs[0], npx, tb, 5);
	if (runs[1].ok)
		time_row(&runs[1], npx, tb, 10);
	if (runs[2].ok)
		time_row(&runs[2], npx, tb, 0);
	if (runs[0].ok) {
		double data_mib = (double)npx * ITERS * sizeof(double) / 1048576.0;
		printf("ROW\tpeak RSS of the analysis process, %s path (data included)\t%.1f MiB\tthe data alone (%.2f M "
		       "doubles)\t%.1f MiB\t%.3f\t<= 64 MiB\t%s\n", runs[0].path, runs[0].hwm / 1024.0, npx * ITERS / 1e6, data_mib,
		       runs[0].hwm / 1024.0 / data_mib, runs[0].hwm <= 64 * 1024 ? "PASS" : "MISS");
	}
	if (!same)
		printf("ROW\tclasses and changepoints on every vector path\tdiffer\t-\t-\t-\tidentical\tMISS\n");

	struct an_result r;
	incremental(&ds, &o, &r);
	agreement(&r, &o);
	an_result_free(&r);
	ds_free(&ds);
	return 0;
}
