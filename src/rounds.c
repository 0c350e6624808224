/*
 * rounds.c - pairing two keys' pexecs by round (rounds.h): each key's
 * figures with their rounds, sorted by round, then merged.
 */
#include "rounds.h"
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double rounds_figure(const struct an_key *k, const struct an_pexec *p)
{
	const struct ds_pexec *dp = &k->key->pexecs[p->index];
	if (k->whole)
		return dp->n == 1 && isfinite(dp->wall[0]) ? dp->wall[0] : NAN;
	/* too short (AN_WARN_SHORT): its steady mean may hold warmup the analysis could not separate */
	return !an_pexec_no_figure(p) && isfinite(p->steady_mean) ? p->steady_mean : NAN;
}

/* one key's figure in a round */
struct fig {
	long round;
	int duet;
	double v;
};

static int by_round(const void *x, const void *y)
{
	long a = ((const struct fig *)x)->round, b = ((const struct fig *)y)->round;
	return a < b ? -1 : a > b;
}

/* k's figures of pexecs run in a round, sorted by round (duplicates of a round after the first dropped); counts the others */
static struct fig *figures(const struct an_key *k, size_t *n, size_t *alone, size_t *nofig)
{
	struct fig *f = xcalloc(k->np + 1, sizeof(*f));
	size_t m = 0;
	for (size_t i = 0; i < k->np; i++) {
		const struct ds_pexec *dp = &k->key->pexecs[k->p[i].index];
		double v = rounds_figure(k, &k->p[i]);
		if (isnan(v))
			(*nofig)++;
		else if (dp->round <= 0)
			(*alone)++;
		else
			f[m++] = (struct fig){ dp->round, dp->duet_pair, v };
	}
	qsort(f, m, sizeof(*f), by_round);
	size_t w = 0;
	for (size_t i = 0; i < m; i++) {
		if (w && f[w - 1].round == f[i].round) {
			(*alone)++;
			continue;
		}
		f[w++] = f[i];
	}
	*n = w;
	return f;
}

void rounds_pair(const struct an_key *a, const struct an_key *b, struct round_pairs *out)
{
	memset(out, 0, sizeof(*out));
	size_t na, nb;
	struct fig *fa = figures(a, &na, &out->alone_a, &out->nofig_a);
	struct fig *fb = figures(b, &nb, &out->alone_b, &out->nofig_b);
	size_t most = na < nb ? na : nb;
	out->a = xcalloc(most + 1, sizeof(double));
	out->b = xcalloc(most + 1, sizeof(double));
	out->round = xcalloc(most + 1, sizeof(long));
	size_t i = 0, j = 0;
	while (i < na && j < nb) {
		if (fa[i].round < fb[j].round) {
			out->alone_a++, i++;
		} else if (fb[j].round < fa[i].round) {
			out->alone_b++, j++;
		} else {
			out->a[out->n] = fa[i].v;
			out->b[out->n] = fb[j].v;
			out->round[out->n] = fa[i].round;
			out->duet += fa[i].duet > 0 && fa[i].duet == fb[j].duet;
			out->n++, i++, j++;
		}
	}
	out->alone_a += na - i;
	out->alone_b += nb - j;
	free(fa);
	free(fb);
}

void round_pairs_free(struct round_pairs *p)
{
	free(p->a);
	free(p->b);
	free(p->round);
	memset(p, 0, sizeof(*p));
}

/* k's figures, all of them (NAN ones left out), in a malloc'd array of *n */
static double *all_figures(const struct an_key *k, size_t *n)
{
	double *v = xcalloc(k->np + 1, sizeof(double));
	*n = 0;
	for (size_t i = 0; i < k->np; i++) {
		double f = rounds_figure(k, &k->p[i]);
		if (!isnan(f))
			v[(*n)++] = f;
	}
	return v;
}

int rounds_ratio(const struct an_key *a, const struct an_key *b, double conf, struct ks_ratio *q)
{
	struct round_pairs rp;
	memset(q, 0, sizeof(*q));
	rounds_pair(a, b, &rp);
	int paired = rp.n >= 2;
	if (paired)
		ks_ratio_paired(rp.a, rp.b, rp.n, conf, q);
	round_pairs_free(&rp);
	if (paired)
		return 1;
	size_t na, nb;
	double *fa = all_figures(a, &na), *fb = all_figures(b, &nb);
	ks_ratio_unpaired(fa, na, fb, nb, conf, q);
	free(fa);
	free(fb);
	return 0;
}
