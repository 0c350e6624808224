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
