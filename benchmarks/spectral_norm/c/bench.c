/*
 * spectral_norm (C) - the spectral norm of the infinite matrix
 * A(i,j) = 1 / ((i+j)(i+j+1)/2 + i + 1), truncated to n x n (n = param), by
 * the power method: u = 1; 10 times { v = AtA u; u = AtA v }; result
 * sqrt(<u,v> / <v,v>).  checksum() is floor(result * 1e9 + 0.5); every
 * language sums in the same order so the doubles agree exactly.
 */
#include <math.h>
#include <stdlib.h>

static double result;

static double a(long i, long j)
{
	return 1.0 / (double)((i + j) * (i + j + 1) / 2 + i + 1);
}

static void mul_av(long n, const double *v, double *out)
{
	for (long i = 0; i < n; i++) {
		double s = 0;
		for (long j = 0; j < n; j++)
			s += a(i, j) * v[j];
		out[i] = s;
	}
}

static void mul_atv(long n, const double *v, double *out)
{
	for (long i = 0; i < n; i++) {
		double s = 0;
		for (long j = 0; j < n; j++)
			s += a(j, i) * v[j];
		out[i] = s;
	}
}

static void mul_atav(long n, const double *v, double *out, double *tmp)
{
	mul_av(n, v, tmp);
	mul_atv(n, tmp, out);
}

void run_iter(long param)
{
	long n = param < 1 ? 1 : param;
	double *u = malloc(3 * (size_t)n * sizeof(double));
	if (!u)
		abort();
	double *v = u + n, *tmp = v + n;
	for (long i = 0; i < n; i++)
		u[i] = 1;
	for (int k = 0; k < 10; k++) {
		mul_atav(n, u, v, tmp);
		mul_atav(n, v, u, tmp);
	}
	double vbv = 0, vv = 0;
	for (long i = 0; i < n; i++) {
		vbv += u[i] * v[i];
		vv += v[i] * v[i];
	}
	result = sqrt(vbv / vv);
	free(u);
}

long checksum(void)
{
	return (long)floor(result * 1e9 + 0.5);
}
