/*
 * stats-dist.h - seeded samples of known distributions, the exact ground
 * truth that bench/stats.c (make bench: the coverage and false-alarm
 * tables) and tests/unit/test_stats_core.c (make test: a small
 * deterministic version) feed through kiln's statistics.
 *
 * Times in seconds, shaped as benchmark times are: the five of issue 25's
 * audit (normal, exponential, lognormal sigma 1.2, Pareto alpha 2.2 above a
 * floor, a 10% slow mode) and others to check that the method was not
 * tuned to those (gamma shapes, uniform, Student t with 3 degrees of
 * freedom, a mild lognormal, a noisy slow mode, 5% contamination).  Each
 * has its exact mean.  Header-only: static functions, one generator state
 * per caller.
 */
#ifndef KILN_BENCH_STATS_DIST_H
#define KILN_BENCH_STATS_DIST_H

#include <math.h>
#include <stdint.h>

struct sd_rng {
	uint64_t s;
};

static inline uint64_t sd_next(struct sd_rng *r)
{
	/* splitmix64 */
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* uniform on (0, 1) */
static inline double sd_u01(struct sd_rng *r)
{
	return ((double)(sd_next(r) >> 11) + 0.5) / 9007199254740992.0;
}

static inline double sd_normal(struct sd_rng *r)
{
	return sqrt(-2 * log(sd_u01(r))) * cos(2 * M_PI * sd_u01(r));
}

/* Gamma(shape a, scale 1): Marsaglia and Tsang, boosted below 1 */
static inline double sd_gamma(struct sd_rng *r, double a)
{
	if (a < 1)
		return sd_gamma(r, a + 1) * pow(sd_u01(r), 1 / a);
	double d = a - 1.0 / 3, c = 1 / sqrt(9 * d);
	for (;;) {
		double x = sd_normal(r), v = 1 + c * x;
		if (v <= 0)
			continue;
		v = v * v * v;
		if (log(sd_u01(r)) < 0.5 * x * x + d - d * v + d * log(v))
			return d * v;
	}
}

enum sd_dist {
	SD_NORMAL,     /* N(3 ms, 0.3 ms) */
	SD_EXP,        /* 2 ms + Exp(mean 1 ms) */
	SD_LOGNORM,    /* 2 ms + exp(N(log 0.5 ms, 1.2)) */
	SD_PARETO,     /* 1 ms + Pareto(x_m 1 ms, alpha 2.2) */
	SD_BIMODAL,    /* 2 ms, or 8 ms in 10% of runs */
	SD_GAMMA05,    /* 1 ms + Gamma(0.5) ms: skewness 2.8 */
	SD_GAMMA4,     /* 1 ms + Gamma(4) * 0.25 ms: skewness 1 */
	SD_UNIFORM,    /* U(2 ms, 4 ms) */
	SD_T3,         /* 3 ms + 0.1 ms * t(3): symmetric, heavy tails */
	SD_LOGNORM05,  /* 2 ms * exp(N(0, 0.5)) */
	SD_BIMODAL_N,  /* the slow mode with 2% noise on both modes */
	SD_CONTAM,     /* 1 ms with 5% noise, 3 ms in 5% of runs */
	SD_NDISTS,
};

static const char *const sd_names[SD_NDISTS] = {
	"normal", "exponential", "lognormal s1.2", "Pareto a2.2", "bimodal 10%", "gamma 0.5",
	"gamma 4", "uniform", "Student t3", "lognormal s0.5", "bimodal noisy", "contaminated 5%",
};

/* the exact mean of each */
static inline double sd_mean(enum sd_dist d)
{
	switch (d) {
	case SD_NORMAL: return 0.003;
	case SD_EXP: return 0.003;
	case SD_LOGNORM: return 0.002 + 0.0005 * exp(0.72);
	case SD_PARETO: return 0.001 + 0.001 * 2.2 / 1.2;
	case SD_BIMODAL: return 0.0026;
	case SD_GAMMA05: return 0.0015;
	case SD_GAMMA4: return 0.002;
	case SD_UNIFORM: return 0.003;
	case SD_T3: return 0.003;
	case SD_LOGNORM05: return 0.002 * exp(0.125);
	case SD_BIMODAL_N: return 0.0026;
	case SD_CONTAM: return 0.0011;
	default: return NAN;
	}
}

static inline double sd_draw(struct sd_rng *r, enum sd_dist d)
{
	switch (d) {
	case SD_NORMAL: return 0.003 + 0.0003 * sd_normal(r);
	case SD_EXP: return 0.002 - 0.001 * log(sd_u01(r));
	case SD_LOGNORM: return 0.002 + exp(log(0.0005) + 1.2 * sd_normal(r));
	case SD_PARETO: return 0.001 + 0.001 * pow(sd_u01(r), -1 / 2.2);
	case SD_BIMODAL: return sd_u01(r) < 0.1 ? 0.008 : 0.002;
	case SD_GAMMA05: return 0.001 + 0.001 * sd_gamma(r, 0.5);
	case SD_GAMMA4: return 0.001 + 0.00025 * sd_gamma(r, 4);
	case SD_UNIFORM: return 0.002 + 0.002 * sd_u01(r);
	case SD_T3: return 0.003 + 0.0001 * sd_normal(r) / sqrt(sd_gamma(r, 1.5) * 2 / 3);
	case SD_LOGNORM05: return 0.002 * exp(0.5 * sd_normal(r));
	case SD_BIMODAL_N: return (sd_u01(r) < 0.1 ? 0.008 : 0.002) * (1 + 0.02 * sd_normal(r));
	case SD_CONTAM: return (sd_u01(r) < 0.05 ? 0.003 : 0.001) * (1 + 0.05 * sd_normal(r));
	default: return NAN;
	}
}

#endif
