/*
 * KilnRunner - kiln's iteration runner for HotSpot (the `java` plugin).
 *
 *     CLASSPATH=plugins/java:BENCH_DIR java [VM args] KilnRunner BENCH_DIR
 *
 * Instantiates the benchmark class Bench (a KilnBenchmark, found on the
 * classpath in BENCH_DIR) or, where there is none, Krun's KrunEntry (a
 * BaseKrunEntry: run_iter(int), no checksum), times KILN_ITERATIONS calls of
 * runIter(KILN_PARAM)
 * with System.nanoTime() (CLOCK_MONOTONIC on Linux) and writes the result
 * stream (runner protocol v1) to the fd KILN_RESULT_FD, opened as
 * /dev/fd/N: header, one line per iteration after its clock stopped (its
 * window, the two nanoTime reads, and the process CPU time, read just
 * outside them by CpuMeter), {"done":true}.  After the last iteration the checksum goes to
 * KILN_INSTR_DIR/runner.kiln.jsonl.
 *
 * With KILN_INSTRUMENT=1 it reads the JMX beans before and after every
 * iteration (outside the timed region): collection count and time of each
 * GarbageCollectorMXBean, total JIT compilation time, used heap.  The deltas
 * are kept in arrays and written to java.kiln.jsonl at the end.  The beans
 * count time in whole milliseconds, so per-iteration GC and JIT times are
 * that coarse.
 */
import java.io.FileOutputStream;
import java.io.IOException;
import java.lang.management.CompilationMXBean;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Locale;

public final class KilnRunner {
	/*
	 * The process's CPU time during an iteration, in nanoseconds: HotSpot's
	 * getProcessCpuTime() counts clock ticks (10 ms), so the CPU times of
	 * the live threads (CLOCK_THREAD_CPUTIME_ID each) are read before and
	 * after, and each thread's difference added; a thread that started
	 * meanwhile counts whole, one that ended meanwhile is lost.
	 */
	private static final class CpuMeter {
		private final com.sun.management.ThreadMXBean tmx;
		private long[] ids = new long[0], times = new long[0];

		CpuMeter() {
			java.lang.management.ThreadMXBean t = ManagementFactory.getThreadMXBean();
			tmx = t instanceof com.sun.management.ThreadMXBean && t.isThreadCpuTimeSupported()
				&& t.isThreadCpuTimeEnabled() ? (com.sun.management.ThreadMXBean) t : null;
		}

		boolean available() {
			return tmx != null;
		}

		void start() {
			ids = tmx.getAllThreadIds();
			times = tmx.getThreadCpuTime(ids);
		}

		long stop() {
			long[] ids2 = tmx.getAllThreadIds(), times2 = tmx.getThreadCpuTime(ids2);
			long sum = 0;
			for (int j = 0; j < ids2.length; j++) {
				if (times2[j] < 0)
					continue;
				long before = 0;
				for (int k = 0; k < ids.length; k++)
					if (ids[k] == ids2[j] && times[k] >= 0)
						before = times[k];
				sum += times2[j] - before;
			}
			return sum < 0 ? 0 : sum;
		}
	}

	private static String env(String name) {
		String v = System.getenv(name);
		if (v == null)
			fail(name + " is not set");
		return v;
	}

	private static void fail(String msg) {
		System.err.println("kiln java runner: " + msg);
		System.exit(1);
	}

	/* "G1 Young Generation" -> "g1_young_generation" */
	private static String slug(String s) {
		return s.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "_").replaceAll("^_|_$", "");
	}

	private static void append(Path file, StringBuilder text) throws IOException {
		Files.write(file, text.toString().getBytes(StandardCharsets.UTF_8),
			StandardOpenOption.CREATE, StandardOpenOption.APPEND);
	}

	/* a JSON string's inside: quotes, backslashes and control characters escaped */
	static String jsonText(String s) {
		StringBuilder b = new StringBuilder();
		for (char c : s.toCharArray()) {
			if (c == '"' || c == '\\' || c < 0x20)
				b.append(String.format("\\u%04x", (int) c));
			else
				b.append(c);
		}
		return b.toString();
	}

	/* a benchmark written for Krun, seen as kiln's: run_iter(int param), no checksum */
	private static final class KrunBench implements KilnBenchmark {
		private final BaseKrunEntry entry;

		KrunBench(BaseKrunEntry entry) {
			this.entry = entry;
		}

		public void runIter(long param) {
			entry.run_iter((int) param);
		}

		public long checksum() {
			throw new UnsupportedOperationException("a Krun benchmark has no checksum");
		}
	}

	/* Bench, else (Krun's layout) KrunEntry; null: a Krun benchmark (no checksum) in krun[0] */
	static KilnBenchmark load(String dir, long param, boolean[] krun) throws Exception {
		try {
			return (KilnBenchmark) Class.forName("Bench").getDeclaredConstructor().newInstance();
		} catch (ClassNotFoundException ex) {
			// not kiln's layout: Krun's, below
		} catch (ClassCastException ex) {
			fail("class Bench in " + dir + " does not implement KilnBenchmark: " + ex);
		}
		try {
			Object e = Class.forName("KrunEntry").getDeclaredConstructor().newInstance();
			if (param != (int) param)
				fail("KILN_PARAM " + param + " does not fit run_iter(int) of KrunEntry");
			krun[0] = true;
			return new KrunBench((BaseKrunEntry) e);
		} catch (ClassNotFoundException | ClassCastException ex) {
			fail("no class Bench implementing KilnBenchmark (nor Krun's KrunEntry implementing BaseKrunEntry) in "
			     + dir + " (compiled?): " + ex);
		}
		return null;
	}

	/* KILN_PROBE=1: kiln's probe before the first pexec (docs/protocol.md): Bench loaded, nothing run */
	static void probe(String fd) throws Exception {
		String version = System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version");
		String exe = ProcessHandle.current().info().command().orElse("");
		try (FileOutputStream out = new FileOutputStream("/dev/fd/" + fd, true)) {
			out.write(("{\"kiln\":1,\"probe\":true,\"version\":\"" + jsonText(version) + "\",\"executable\":\""
				   + jsonText(exe) + "\"}\n").getBytes(StandardCharsets.UTF_8));
		}
	}

	public static void main(String[] args) throws Exception {
		if (args.length != 1)
			fail("usage: KilnRunner BENCH_DIR");
		int iters = 0;
		long param = 0;
		try {
			iters = Integer.parseInt(env("KILN_ITERATIONS"));
			param = Long.parseLong(env("KILN_PARAM"));
		} catch (NumberFormatException ex) {
			fail("KILN_ITERATIONS and KILN_PARAM must be integers (" + ex.getMessage() + ")");
		}
		String fd = env("KILN_RESULT_FD");
		String instrDir = System.getenv("KILN_INSTR_DIR");
		boolean instrument = "1".equals(System.getenv("KILN_INSTRUMENT"));

		boolean[] krun = { false };
		KilnBenchmark bench = load(args[0], param, krun);
		if ("1".equals(System.getenv("KILN_PROBE"))) {
			probe(fd);
			return;
		}

		List<GarbageCollectorMXBean> gcs = ManagementFactory.getGarbageCollectorMXBeans();
		CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
		Runtime rt = Runtime.getRuntime();
		int ng = gcs.size();
		boolean jitTime = jit != null && jit.isCompilationTimeMonitoringSupported();
		long[][] gcCount = null, gcTime = null;
		long[] jitMs = null, heap = null;
		long[] c0 = new long[ng], t0s = new long[ng];
		if (instrument) {
			gcCount = new long[iters][ng];
			gcTime = new long[iters][ng];
			jitMs = new long[iters];
			heap = new long[iters];
		}

		try (FileOutputStream out = new FileOutputStream("/dev/fd/" + fd, true)) {
			out.write("{\"kiln\":1,\"clock\":\"monotonic\",\"counters\":[]}\n".getBytes(StandardCharsets.US_ASCII));
			long j0 = 0;
			CpuMeter cpu = new CpuMeter();
			boolean haveCpu = cpu.available();
			for (int i = 0; i < iters; i++) {
				/*
				 * the beans' reads (which allocate nothing) inside the CPU meter's (which allocate the
				 * thread arrays): a collection set off by the meter's allocations, outside the timed
				 * region, was counted in the iteration's GC figures (a 1 ms GC in a 160 ns iteration)
				 */
				if (haveCpu)
					cpu.start();
				if (instrument) {
					for (int g = 0; g < ng; g++) {
						c0[g] = gcs.get(g).getCollectionCount();
						t0s[g] = gcs.get(g).getCollectionTime();
					}
					j0 = jitTime ? jit.getTotalCompilationTime() : 0;
				}
				long t0 = System.nanoTime();
				bench.runIter(param);
				long t1 = System.nanoTime();
				if (instrument) {
					for (int g = 0; g < ng; g++) {
						gcCount[i][g] = gcs.get(g).getCollectionCount() - c0[g];
						gcTime[i][g] = gcs.get(g).getCollectionTime() - t0s[g];
					}
					jitMs[i] = jitTime ? jit.getTotalCompilationTime() - j0 : 0;
				}
				long cpuNs = haveCpu ? cpu.stop() : -1;
				if (instrument)
					heap[i] = rt.totalMemory() - rt.freeMemory();
				out.write(("{\"i\":" + i + ",\"wall_ns\":" + (t1 - t0) + ",\"start_ns\":" + t0 + ",\"end_ns\":" + t1
					+ (cpuNs >= 0 ? ",\"cpu_ns\":" + cpuNs : "") + "}\n").getBytes(StandardCharsets.US_ASCII));
			}

			if (instrDir != null) {
				StringBuilder sb = new StringBuilder();
				if (!krun[0])
					sb.append("{\"name\":\"checksum\",\"value\":").append(bench.checksum()).append("}\n");
				append(Path.of(instrDir, "runner.kiln.jsonl"), sb);
				if (instrument) {
					/*
					 * written 64 KiB at a time: the records of all iterations in one StringBuilder needed
					 * a heap of twice their size, and the pexec failed at its end (OutOfMemoryError) under
					 * a config's -Xmx that fitted the benchmark
					 */
					Path file = Path.of(instrDir, "java.kiln.jsonl");
					sb.setLength(0);
					for (int i = 0; i < iters; i++) {
						if (sb.length() >= 65536) {
							append(file, sb);
							sb.setLength(0);
						}
						long count = 0, ms = 0;
						for (int g = 0; g < ng; g++) {
							String n = slug(gcs.get(g).getName());
							rec(sb, i, "gc." + n + ".count", gcCount[i][g], null);
							rec(sb, i, "gc." + n + ".time", gcTime[i][g] / 1e3, "s");
							count += gcCount[i][g];
							ms += gcTime[i][g];
						}
						rec(sb, i, "gc.count", count, null);
						rec(sb, i, "gc.time", ms / 1e3, "s");
						if (jitTime)
							rec(sb, i, "jit.time", jitMs[i] / 1e3, "s");
						rec(sb, i, "heap", heap[i], "bytes");
					}
					append(file, sb);
				}
			}
			out.write("{\"done\":true}\n".getBytes(StandardCharsets.US_ASCII));
		}
	}

	private static void rec(StringBuilder sb, int i, String name, long v, String unit) {
		sb.append("{\"i\":").append(i).append(",\"name\":\"").append(name).append("\",\"value\":").append(v);
		sb.append(unit == null ? "}\n" : ",\"unit\":\"" + unit + "\"}\n");
	}

	private static void rec(StringBuilder sb, int i, String name, double v, String unit) {
		sb.append("{\"i\":").append(i).append(",\"name\":\"").append(name).append("\",\"value\":").append(v);
		sb.append(unit == null ? "}\n" : ",\"unit\":\"" + unit + "\"}\n");
	}
}
