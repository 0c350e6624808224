/*
 * binary_trees (C) - allocate and walk many perfect binary trees.
 *
 * With max depth D = param (at least 6): build and check a "stretch" tree of
 * depth D+1, build a long-lived tree of depth D, then for each depth d = 4,
 * 6, ..., D build and check 2^(D-d+4) trees of depth d, one at a time; finally
 * check the long-lived tree and free it.  check(t) counts the nodes.  The
 * checksum is the sum of every check() result.  Each language allocates its
 * nodes the ordinary way (malloc/free here, the GC elsewhere): that is what
 * the benchmark measures.
 */
#include <stdlib.h>

struct node { struct node *l, *r; };

static long result;

static struct node *make(int d)
{
	struct node *n = malloc(sizeof(*n));
	if (!n)
		abort();
	if (d > 0) {
		n->l = make(d - 1);
		n->r = make(d - 1);
	} else {
		n->l = n->r = NULL;
	}
	return n;
}

static long check(const struct node *n)
{
	return n->l ? 1 + check(n->l) + check(n->r) : 1;
}

static void release(struct node *n)
{
	if (n->l) {
		release(n->l);
		release(n->r);
	}
	free(n);
}

void run_iter(long param)
{
	int maxd = param < 6 ? 6 : (int)param;
	long sum = 0;
	struct node *t = make(maxd + 1);
	sum += check(t);
	release(t);
	struct node *longlived = make(maxd);
	for (int d = 4; d <= maxd; d += 2) {
		long n = 1L << (maxd - d + 4);
		for (long i = 0; i < n; i++) {
			t = make(d);
			sum += check(t);
			release(t);
		}
	}
	sum += check(longlived);
	release(longlived);
	result = sum;
}

long checksum(void)
{
	return result;
}
