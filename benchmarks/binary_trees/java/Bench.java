/*
 * binary_trees (Java) - allocate and walk many perfect binary trees; see
 * ../README.md.  checksum() is the sum of every check() (node count).
 */
public final class Bench implements KilnBenchmark {
	static final class Node {
		final Node left, right;

		Node(Node left, Node right) {
			this.left = left;
			this.right = right;
		}
	}

	private static Node make(int d) {
		return d == 0 ? new Node(null, null) : new Node(make(d - 1), make(d - 1));
	}

	private static long check(Node t) {
		return t.left == null ? 1 : 1 + check(t.left) + check(t.right);
	}

	private long result;

	@Override
	public void runIter(long param) {
		int maxd = (int) Math.max(6, param);
		long sum = check(make(maxd + 1));
		Node longlived = make(maxd);
		for (int d = 4; d <= maxd; d += 2) {
			long n = 1L << (maxd - d + 4);
			for (long i = 0; i < n; i++)
				sum += check(make(d));
		}
		result = sum + check(longlived);
	}

	@Override
	public long checksum() {
		return result;
	}
}
