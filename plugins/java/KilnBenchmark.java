/*
 * KilnBenchmark - what a Java benchmark of the kiln suite implements.
 *
 * A benchmark is a class named Bench in the default package, in
 * benchmarks/<name>/java/, with a public no-argument constructor.  The java
 * plugin's runner (KilnRunner) puts that directory on the classpath, makes
 * one Bench, calls runIter(param) once per iteration and, after the last
 * one, checksum() (a checksum of the last iteration's result, the same in
 * every language of the suite).
 */
public interface KilnBenchmark {
	void runIter(long param);

	long checksum();
}
