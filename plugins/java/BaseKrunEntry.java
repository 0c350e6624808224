/*
 * BaseKrunEntry - the interface a benchmark written for Krun implements.
 *
 * The warmup experiment's Java benchmarks have a class KrunEntry (default
 * package, in benchmarks/<name>/java/KrunEntry.java) implementing this
 * interface, which Krun's own Java runner declares; kiln declares it here so
 * that those sources compile as they are.  The java plugin's runner makes
 * one KrunEntry and calls run_iter(param) once per iteration, with the
 * benchmark's param as an int; such a benchmark has no checksum.
 */
interface BaseKrunEntry {
	void run_iter(int param);
}
