/*
 * analysis.c - warmup analysis of a Barrett-scale experiment: 3,660 pexecs x
 * 2,000 iterations (7.32 million values), 122 keys of 30 pexecs, made here
 * synthetically, analysed by an_analyse() with the default options
 * (100,000 bootstrap resamples per key) on every CPU.  Target: <= 20 s.
 *
 * The keys mix the shapes real VMs show: flat, warmup (a slow start of
 * 5-200 iterations), slowdown, noisy (spiky, heavy-tailed), no steady state
 * (a change in the last iterations) and inconsistent keys whose pexecs
 * differ.  Baseline, measured in the same run: the same changepoint search
 * without pruning and without the vector kernel (plain optimal partitioning)
 * on 30 pexecs, scaled to 3,660 - what a straightforward implementation of
 * the changepoint step alone would cost.
 *
 *   analysis [KEYS]   (default 122)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include <unistd.h>

#include "analysis.h"

#define PEXECS 30
#define ITERS 2000

static uint64_t st = 0x2545F4914F6CDD1DULL;
static double urand(void)
{
	st ^= st << 13;
	st ^= st >> 7;
	st ^= st << 17;
	return ((st >> 11) + 0.5) / 9007199254740992.0;
}
static double nrand(void)
{
	return sqrt(-2 * log(urand())) * cos(2 * M_PI * urand());
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* CPU seconds of this process so far: the figure that does not depend on other load */
static double cpu(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
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

int main(int argc, char **argv)
{
	long nkeys = argc > 1 ? atol(argv[1]) : 122;
	struct dataset ds = { 0 };
	for (long k = 0; k < nkeys; k++) {
		char b[32];
		snprintf(b, sizeof(b), "bench%03ld", k);
		struct ds_key *key = ds_add_key(&ds, b, k % 2 ? "vmA" : "vmB", "default");
		double base = 0.01 + urand() * 0.5;
		int kind = (int)(k % 6); /* 0-4: one shape for all pexecs, 5: a mix */
		for (int p = 0; p < PEXECS; p++) {
			int shape = kind < 5 ? kind : (int)(urand() * 3);
			make_pexec(ds_add_pexec(key, p), shape, base);
		}
	}
	size_t npx = (size_t)nkeys * PEXECS;
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

	/* baseline: unpruned scalar optimal partitioning of 30 pexecs' series */
	double tb0 = now();
	size_t *ends = xmalloc(ITERS * sizeof(size_t));
	for (int p = 0; p < PEXECS; p++) {
		double c;
		const struct ds_pexec *px = &ds.keys[p % nkeys].pexecs[p % PEXECS];
		an_op(px->wall, px->n, 15 * log((double)px->n), ends, &c);
	}
	double tb = (now() - tb0) * (double)npx / PEXECS;
	free(ends);

	printf("analysis of %zu pexecs x %d iterations (%.2f million values), %ld keys, %ld resamples/key\n", npx,
	       ITERS, npx * ITERS / 1e6, nkeys, o.resamples);
	printf("  classes: %zu flat, %zu warmup, %zu slowdown, %zu no steady state, %zu good inc., %zu bad inc.\n",
	       counts[AN_FLAT], counts[AN_WARMUP], counts[AN_SLOWDOWN], counts[AN_NO_STEADY],
	       counts[AN_GOOD_INCONSISTENT], counts[AN_BAD_INCONSISTENT]);
	printf("total time          %.2f s\n", t);
	printf("time per pexec      %.3f ms\n", t * 1e3 / npx);
	printf("CPU time            %.2f s on %ld CPUs (%.3f ms per pexec; wall >= CPU/CPUs when others load the machine)\n",
	       tc, sysconf(_SC_NPROCESSORS_ONLN), tc * 1e3 / npx);
	printf("baseline (plain OP changepoints only, scaled) %.1f s\n", tb);
	printf("speedup vs baseline %.1fx\n", tb / t);
	printf("target              20 s (ratio time/target %.2f)%s\n", t / 20.0, t <= 20.0 ? "" : "  OVER TARGET");
	printf("ROW\tanalysis of %zu pexecs x %d iterations, %ld resamples per key\t%.2f s\tplain OP changepoints "
	       "only, scaled\t%.1f s\t%.3f\t<= 20 s\t%s\n",
	       npx, ITERS, o.resamples, t, tb, t / tb, t <= 20.0 ? "PASS" : "MISS");
	an_result_free(&r);
	ds_free(&ds);
	return 0;
}
