/*
 * fannkuch_redux (Java) - pancake flips over all permutations; see
 * ../README.md.  Same permutation order as the C version; checksum() is
 * sum * 100 + max_flips.
 */
public final class Bench implements KilnBenchmark {
	private long result;

	@Override
	public void runIter(long param) {
		int n = (int) param;
		int[] perm = new int[n], perm1 = new int[n], count = new int[n];
		long sum = 0, nperm = 0;
		int maxflips = 0, r = n;
		for (int i = 0; i < n; i++)
			perm1[i] = i;
		for (;;) {
			for (; r != 1; r--)
				count[r - 1] = r;
			System.arraycopy(perm1, 0, perm, 0, n);
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
			// next permutation
			for (;;) {
				if (r == n) {
					result = sum * 100 + maxflips;
					return;
				}
				int p0 = perm1[0];
				for (int i = 0; i < r; i++)
					perm1[i] = perm1[i + 1];
				perm1[r] = p0;
				if (--count[r] > 0)
					break;
				r++;
			}
			nperm++;
		}
	}

	@Override
	public long checksum() {
		return result;
	}
}
