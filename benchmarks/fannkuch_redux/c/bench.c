/*
 * fannkuch_redux (C) - pancake flipping over every permutation of 1..n.
 *
 * For each permutation of 0..n-1 (in the order of the classic count-vector
 * generator: rotate the first r+1 elements, r counting up), flip the first
 * perm[0]+1 elements until perm[0] is 0 and count the flips.  The result is
 * the maximum flip count and a checksum that adds the flips of even-numbered
 * permutations and subtracts those of odd ones.  checksum() returns
 * sum * 100 + max_flips (max_flips < 100 for any feasible n).  Integer work only.
 */
#define MAXN 16

static long result;

void run_iter(long param)
{
	int n = (int)param;
	int perm[MAXN], perm1[MAXN], count[MAXN];
	long sum = 0, nperm = 0;
	int maxflips = 0, r = n;
	if (n < 1 || n > MAXN) {
		result = -1;
		return;
	}
	for (int i = 0; i < n; i++)
		perm1[i] = i;
	for (;;) {
		for (; r != 1; r--)
			count[r - 1] = r;
		for (int i = 0; i < n; i++)
			perm[i] = perm1[i];
		int flips = 0;
		for (int k = perm[0]; k != 0; k = perm[0]) {
			for (int lo = 0, hi = k; lo < hi; lo++, hi--) {
				int t = perm[lo];
				perm[lo] = perm[hi];
				perm[hi] = t;
			}
			flips++;
		}
		if (flips > maxflips)
			maxflips = flips;
		sum += nperm % 2 == 0 ? flips : -flips;
		/* next permutation */
		for (;;) {
			if (r == n) {
				result = sum * 100 + maxflips;
				return;
			}
			int p0 = perm1[0];
			for (int i = 0; i < r; i++)
				perm1[i] = perm1[i + 1];
			perm1[r] = p0;
			count[r]--;
			if (count[r] > 0)
				break;
			r++;
		}
		nperm++;
	}
}

long checksum(void)
{
	return result;
}
