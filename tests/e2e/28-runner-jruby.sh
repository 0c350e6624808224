# 28-runner-jruby: the JRuby runner (plugins/jruby/runner.rb, sharing the
# protocol loop with CRuby's) for real on every Ruby benchmark: protocol v1
# stream, checksum equal to the C version's, the JVM's GC and JIT beans and
# JRuby's own JIT counters per iteration (a small young generation, given
# through JRuby's -J as a config's args would, makes binary_trees collect;
# JRuby must have compiled Ruby methods to bytecode, HotSpot that bytecode).
source "$KILN_ROOT/tests/lib.sh"
source "$KILN_ROOT/tests/helpers/runner_lib.sh"
need jruby
# C1 only (-J-XX:TieredStopAtLevel=1) halves the JVM's start, eight of them here
VM_ARGS="-J-XX:TieredStopAtLevel=1 -J-Xmn2m -J-XX:+UseSerialGC" check_vm jruby --nonzero gc.count --nonzero jit.time \
	--nonzero jruby.jit.compiled --nonzero jruby.jit.bytecode_added

# the beans are read inside ThreadCpuClock's reads (kiln_loop.rb's
# gc_inside_cpu?): its thread arrays and hash, allocated outside the timed
# region, set off collections that were counted in the iterations, 84 in
# 20000 iterations of an empty run_iter under a 1 MB young generation (before
# 2026-12-06); what is left (2 to 6 here) is JRuby's own boxing of the
# beans' longs, inside the meter's reads
mkdir -p "$T/jrgc/benchmarks/empty/ruby"
cat >"$T/jrgc/benchmarks/empty/ruby/bench.rb" <<'RUBY'
class Bench
  def run_iter(p)
  end
  def checksum
    0
  end
end
RUBY
cat >"$T/jrgc/exp.yaml" <<YAML
name: jrgc
pexecs: 1
iterations: 20000
benchmarks_dir: $T/jrgc/benchmarks
vms:
  jruby: {plugin: jruby, instrument: true, args: [-J-XX:+UseSerialGC, -J-Xmn1m, -J-Xms64m, -J-Xmx64m]}
benchmarks:
  empty: 1
YAML
( cd "$T/jrgc" && "$KILN" run -q exp.yaml ) || fail "kiln run of the jruby runner failed"
gc_iterations "$T/jrgc/exp.kiln.db" 20000 30 || fail "collections outside the iterations were counted in them"
