/*
 * spectral_norm (Java) - power method on A(i,j) = 1/((i+j)(i+j+1)/2+i+1);
 * see ../README.md.  Same summation order as the C version; checksum() is
 * floor(result * 1e9 + 0.5).
 */
public final class Bench implements KilnBenchmark {
	private double result;

	private static double a(long i, long j) {
		return 1.0 / ((i + j) * (i + j + 1) / 2 + i + 1);
	}

	private static void mulAv(int n, double[] v, double[] out) {
		for (int i = 0; i < n; i++) {
			double s = 0;
			for (int j = 0; j < n; j++)
				s += a(i, j) * v[j];
			out[i] = s;
		}
	}

	private static void mulAtv(int n, double[] v, double[] out) {
		for (int i = 0; i < n; i++) {
			double s = 0;
			for (int j = 0; j < n; j++)
				s += a(j, i) * v[j];
			out[i] = s;
		}
	}

	@Override
	public void runIter(long param) {
		int n = (int) Math.max(1, param);
		double[] u = new double[n], v = new double[n], tmp = new double[n];
		java.util.Arrays.fill(u, 1.0);
		for (int k = 0; k < 10; k++) {
			mulAv(n, u, tmp);
			mulAtv(n, tmp, v);
			mulAv(n, v, tmp);
			mulAtv(n, tmp, u);
		}
		double vbv = 0, vv = 0;
		for (int i = 0; i < n; i++) {
			vbv += u[i] * v[i];
			vv += v[i] * v[i];
		}
		result = Math.sqrt(vbv / vv);
	}

	@Override
	public long checksum() {
		return (long) Math.floor(result * 1e9 + 0.5);
	}
}
