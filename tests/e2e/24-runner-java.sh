# 24-runner-java: the HotSpot runner (plugins/java/KilnRunner) for real on
# every benchmark: protocol v1 stream, checksum equal to the C version's, JMX
# GC and JIT records per iteration (a small young generation, given as VM
# args, makes binary_trees collect; the JIT must have compiled something).
source "$KILN_ROOT/tests/lib.sh"
source "$KILN_ROOT/tests/helpers/runner_lib.sh"
need java
[ -f "$KILN_ROOT/plugins/java/KilnRunner.class" ] || fail "plugins/java is not compiled (make)"
VM_ARGS="-Xmn2m -XX:+UseSerialGC" check_vm java --nonzero gc.count --nonzero jit.time
