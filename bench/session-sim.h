/*
 * session-sim.h - `kiln diff` across sessions on exact ground truth: a
 * machine whose sessions shift a program's mean by a known standard
 * deviation (lognormal, sd `between`), runs inside a session normal with a
 * relative sd `cv`; `hist` recorded sessions of the program, then A and B,
 * two more sessions of it (A/A, or B changed by `shift`).  Each case is
 * decided twice, as `kiln diff` does (ks_ratio_unpaired, then
 * ks_ratio_add_sessions): with the session sd learned from the recorded
 * sessions (stats-session.h: the upper bound when measured, else the
 * assumed 1%) and with the assumed 1% alone.  bench/stats.c (make bench:
 * table 6) and tests/unit/test_stats_session.c (make test: a small
 * deterministic version) use it.  Header-only, as stats-dist.h.
 */
#ifndef KILN_BENCH_SESSION_SIM_H
#define KILN_BENCH_SESSION_SIM_H

#include <math.h>
#include <stdlib.h>

#include "stats.h"
#include "stats-session.h"
#include "stats-dist.h"

#define SSIM_ASSUMED 0.01

struct ssim_cell {
	long reps;
	long sig_learned, sig_assumed;      /* significant verdicts (a false alarm under A/A) */
	long drift_learned, drift_assumed;  /* "drift?": kiln says it cannot tell */
	long measured;                      /* cases where the record was enough to measure */
	double sd_hi_med;                   /* the median learned session sd (measured cases) */
};

/* one session of n runs, its mean moved by the machine (factor f) and by shift */
static inline void ssim_session(struct sd_rng *r, double f, double cv, size_t n, double *x)
{
	for (size_t i = 0; i < n; i++)
		x[i] = 0.002 * f * (1 + cv * sd_normal(r));
}

static inline int ssim_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static inline void ssim_cell(uint64_t seed, long reps, double between, double cv, size_t n, size_t hist, double shift,
			     double conf, struct ssim_cell *c)
{
	struct sd_rng r = { seed };
	double *x = malloc(n * sizeof(double)), *y = malloc(n * sizeof(double));
	struct ss_session *s = malloc((hist + 1) * sizeof(*s));
	double *his = malloc((size_t)(reps + 1) * sizeof(double));
	*c = (struct ssim_cell){ .reps = reps };
	for (long rep = 0; rep < reps; rep++) {
		size_t k = 0;
		for (size_t h = 0; h < hist; h++) {
			ssim_session(&r, exp(between * sd_normal(&r)), cv, n, x);
			if (ss_of_units(x, n, &s[k].y, &s[k].v) == 0)
				s[k++].group = 0;
		}
		struct ss_estimate e;
		ss_estimate(s, k, &e);
		double learned = e.measured ? e.sd_hi : SSIM_ASSUMED;
		if (e.measured)
			his[c->measured++] = e.sd_hi;
		ssim_session(&r, exp(between * sd_normal(&r)), cv, n, x);
		ssim_session(&r, exp(between * sd_normal(&r)) * (1 + shift), cv, n, y);
		for (int q = 0; q < 2; q++) {
			struct ks_ratio kr;
			ks_ratio_unpaired(x, n, y, n, conf, &kr);
			int within = ks_ratio_verdict(&kr);
			ks_ratio_add_sessions(&kr, q ? SSIM_ASSUMED : learned, conf);
			int sig = ks_ratio_verdict(&kr) != 0, drift = !sig && within;
			*(q ? &c->sig_assumed : &c->sig_learned) += sig;
			*(q ? &c->drift_assumed : &c->drift_learned) += drift;
		}
	}
	if (c->measured) {
		qsort(his, (size_t)c->measured, sizeof(double), ssim_cmp_double);
		c->sd_hi_med = his[c->measured / 2];
	}
	free(his);
	free(s);
	free(x);
	free(y);
}

#endif
