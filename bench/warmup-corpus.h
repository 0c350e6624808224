/*
 * warmup-corpus.h - synthetic iteration series of known shape, for the
 * warmup analysis' corpus (bench/warmup.c, tests/unit/test_warmup_corpus.c).
 *
 * A shape is written as synth.c-style text, SHAPE:MEAN_US:K:F, and every
 * series is a pure function of its shape and a seed (splitmix64), so the
 * truth of each case is exact and every run sees the same data:
 *
 *   flat       the level, noise only
 *   warmup     the first K iterations x F
 *   slowdown   from iteration K on x F (a late K: no steady state)
 *   drift      a linear trend to x F at the last iteration (no steady state)
 *   spikes     K% of iterations x F, at random (GC pauses: stationary)
 *   ar         AR(1) noise with phi = F (stationary)
 *   heavy      noise with a Pareto tail: x (1 + F (P - 1)), P Pareto of
 *              index K/10 (stationary; mean 1 + F / (K/10 - 1))
 *   towers     a JIT's first iterations as PyPy runs AWFY's Towers (158.89,
 *              1.17, 24.76, 0.91, 0.82, 15.53, ... ms): the first K times
 *              the level, then compilations of 15-35 times the level at
 *              random, each iteration with probability 0.35 exp(-i/25)
 *              (warmup that fades; 20 iterations are too few to see it),
 *              on noise of 15%, not 2%, as PyPy's sub-millisecond times
 *   decay      warmup that fades: x (1 + (F - 1) exp(-i / K)); steady, to
 *              within 1%, from K ln(100 (F - 1)) on
 *
 * Noise as synth.c makes it: each iteration x exp(0.02 N - 0.0002) (mean
 * 1), each pexec's level x exp(0.005 N - 0.0000125) (mean 1), so the true
 * steady cost of a key is MEAN times the shape's factor's mean.  Header
 * only: the bench and the unit test include it (and stats-dist.h's
 * generator).
 */
#ifndef KILN_WARMUP_CORPUS_H
#define KILN_WARMUP_CORPUS_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "analysis.h"
#include "stats-dist.h"

enum wc_kind { WC_FLAT, WC_WARMUP, WC_SLOWDOWN, WC_DRIFT, WC_SPIKES, WC_AR, WC_HEAVY, WC_TOWERS, WC_DECAY, WC_NKINDS };
static const char *const wc_kind_names[WC_NKINDS] = { "flat", "warmup", "slowdown", "drift",   "spikes",
						      "ar",   "heavy",  "towers",   "decay" };

struct wc_shape {
	enum wc_kind kind;
	double mean;    /* seconds */
	long k;
	double f;
	double noise;   /* per-iteration log-normal sigma (0.02) */
};

/* "spikes:10000:3:2" (MEAN in microseconds, as synth.c); 0 or -1 */
static inline int wc_parse(const char *s, struct wc_shape *sh)
{
	char name[32];
	double m;
	if (sscanf(s, "%31[^:]:%lf:%ld:%lf", name, &m, &sh->k, &sh->f) != 4)
		return -1;
	for (int i = 0; i < WC_NKINDS; i++)
		if (!strcmp(name, wc_kind_names[i])) {
			sh->kind = (enum wc_kind)i;
			sh->mean = m * 1e-6;
			sh->noise = sh->kind == WC_TOWERS ? 0.15 : 0.02;
			return 0;
		}
	return -1;
}

/* a normal draw from splitmix64's uniforms (bench/stats-dist.h), u then v */
static inline double wc_norm(struct sd_rng *r)
{
	double u = sd_u01(r), v = sd_u01(r);
	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

/* one pexec's n iteration times of shape sh, from seed */
static inline void wc_series(const struct wc_shape *sh, uint64_t seed, double *x, size_t n)
{
	struct sd_rng r = { seed * 0x2545F4914F6CDD1DULL + 0x632BE59BD9B4E019ULL };
	double sg = sh->noise;
	double lvl = sh->mean * exp(0.005 * wc_norm(&r) - 0.0000125);
	double e = wc_norm(&r); /* the AR(1) state, started stationary */
	for (size_t i = 0; i < n; i++) {
		double v = lvl, z;
		switch (sh->kind) {
		case WC_WARMUP:
			if ((long)i < sh->k)
				v *= sh->f;
			break;
		case WC_SLOWDOWN:
			if ((long)i >= sh->k)
				v *= sh->f;
			break;
		case WC_DRIFT:
			v *= 1 + (sh->f - 1) * (double)i / (double)(n > 1 ? n - 1 : 1);
			break;
		case WC_DECAY:
			v *= 1 + (sh->f - 1) * exp(-(double)i / (double)(sh->k > 0 ? sh->k : 1));
			break;
		case WC_TOWERS:
			if (i == 0)
				v *= (double)sh->k;
			else if (sd_u01(&r) < 0.35 * exp(-(double)i / 25))
				v *= 15 + 20 * sd_u01(&r);
			break;
		default:
			break;
		}
		if (sh->kind == WC_AR) {
			e = sh->f * e + sqrt(1 - sh->f * sh->f) * wc_norm(&r);
			z = e;
		} else
			z = wc_norm(&r);
		v *= exp(sg * z - sg * sg / 2);
		if (sh->kind == WC_SPIKES && sd_u01(&r) < (double)sh->k / 100.0)
			v *= sh->f;
		if (sh->kind == WC_HEAVY) {
			double a = (double)sh->k / 10.0;
			v *= 1 + sh->f * (pow(sd_u01(&r), -1.0 / a) - 1);
		}
		x[i] = v;
	}
}

/*
 * The truth of a shape at n iterations analysed with steady window
 * `steady` (iterations): the pexecs' class, the steady iteration (-1:
 * none), what a steady iteration costs on average over pexecs (NAN: no
 * steady state), and the warnings kiln must give (AN_WARN_*).
 */
struct wc_truth {
	enum an_class cls;
	long steady_iter;
	double cost;
	unsigned warn;
};

static inline struct wc_truth wc_truth_of(const struct wc_shape *sh, size_t n, long steady)
{
	struct wc_truth t = { AN_FLAT, 0, sh->mean, 0 };
	switch (sh->kind) {
	case WC_WARMUP:
		t.cls = sh->f == 1 || sh->k <= 0 ? AN_FLAT : AN_WARMUP;
		t.steady_iter = t.cls == AN_FLAT ? 0 : sh->k;
		break;
	case WC_SLOWDOWN:
		t.cls = sh->f == 1 || sh->k <= 0 || sh->k >= (long)n ? AN_FLAT : AN_SLOWDOWN;
		t.steady_iter = t.cls == AN_FLAT ? 0 : sh->k;
		t.cost = sh->k < (long)n ? sh->mean * sh->f : sh->mean;
		/* a change whose last slow... fast iteration lies in the last `steady`: none */
		if (t.cls == AN_SLOWDOWN && sh->k - 1 > (long)n - steady) {
			t.cls = AN_NO_STEADY;
			t.steady_iter = -1;
			t.cost = NAN;
		}
		break;
	case WC_DRIFT:
		t.cls = AN_NO_STEADY;
		t.steady_iter = -1;
		t.cost = NAN;
		t.warn = AN_WARN_DRIFT;
		break;
	case WC_SPIKES:
		t.cost = sh->mean * (1 + (double)sh->k / 100.0 * (sh->f - 1));
		break;
	case WC_HEAVY:
		t.cost = sh->mean * (1 + sh->f / ((double)sh->k / 10.0 - 1));
		break;
	case WC_DECAY: /* warmup; where it ends is not one iteration */
	case WC_TOWERS:
		t.cls = AN_WARMUP;
		t.steady_iter = -1;
		t.cost = NAN;
		break;
	default:
		break;
	}
	return t;
}

#endif
