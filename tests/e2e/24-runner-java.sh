# 24-runner-java: the HotSpot runner (plugins/java/KilnRunner) for real on
# every benchmark: protocol v1 stream, checksum equal to the C version's, JMX
# GC and JIT records per iteration (a small young generation, given as VM
# args, makes binary_trees collect; the JIT must have compiled something).
source "$KILN_ROOT/tests/lib.sh"
source "$KILN_ROOT/tests/helpers/runner_lib.sh"
need java
[ -f "$KILN_ROOT/plugins/java/KilnRunner.class" ] || fail "plugins/java is not compiled (make)"
VM_ARGS="-Xmn2m -XX:+UseSerialGC" check_vm java --nonzero gc.count --nonzero jit.time

# the GC figures are read inside the CPU meter's reads: a benchmark that
# allocates nothing has no collection in its iterations, though the runner's
# own allocations between them (the meter's thread arrays, the stream's
# lines) fill a 1 MB young generation several times over.  Before
# 2026-12-06 the meter read the threads outside the beans' reads, and a
# collection its arrays set off was counted in the iteration: 6 in 20000,
# one of them 1 ms of GC in a 160 ns iteration
mkdir -p "$T/jgc/benchmarks/noalloc/java"
cat >"$T/jgc/benchmarks/noalloc/java/Bench.java" <<'JAVA'
public class Bench implements KilnBenchmark {
	private long r;
	public void runIter(long param) {
		long s = 0;
		for (long k = 0; k < param; k++)
			s += k ^ (s >> 3);
		r += s;
	}
	public long checksum() { return r; }
}
JAVA
cat >"$T/jgc/exp.yaml" <<YAML
name: jgc
pexecs: 1
iterations: 20000
benchmarks_dir: $T/jgc/benchmarks
vms:
  java: {plugin: java, instrument: true, args: [-XX:+UseSerialGC, -Xmn1m, -Xms64m, -Xmx64m]}
benchmarks:
  noalloc: 10
YAML
( cd "$T/jgc" && "$KILN" run -q exp.yaml ) || fail "kiln run of the java runner failed"
gc_iterations "$T/jgc/exp.kiln.db" 20000 0 || fail "collections outside the iterations were counted in them"

# the records are written 64 KiB at a time: 200000 iterations under -Xmx24m
# (room for the benchmark, not for all its records in one StringBuilder)
# failed the pexec after its last iteration with an OutOfMemoryError before
# 2026-12-06, and every iteration measured was lost with it
cat >"$T/jgc/exp2.yaml" <<YAML
name: jmem
pexecs: 1
iterations: 200000
benchmarks_dir: $T/jgc/benchmarks
limits: {instr_records: 3000000}
vms:
  java: {plugin: java, instrument: true, args: [-XX:+UseSerialGC, -Xmx24m]}
benchmarks:
  noalloc: 10
YAML
( cd "$T/jgc" && "$KILN" run -q exp2.yaml ) || fail "java with 200000 instrumented iterations under -Xmx24m: $("$KILN" status --failures "$T/jgc/exp2.kiln.db" 2>&1 | head -12)"
assert_eq "$(sql "$T/jgc/exp2.kiln.db" "SELECT status || ' ' || COALESCE(instr_error, '') FROM pexecs")" "ok " "the pexec"
assert_eq "$(sql "$T/jgc/exp2.kiln.db" "SELECT length(vals) / 8 FROM series WHERE name = 'heap'")" 200000 "heap records"
