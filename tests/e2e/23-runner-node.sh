# 23-runner-node: the Node.js runner (plugins/node/runner.js) for real on
# every benchmark: protocol v1 stream, checksum equal to the C version's,
# per-iteration GC pauses from perf_hooks (binary_trees must scavenge, with a
# small young generation given as VM args, as a config's `args` would).
source "$KILN_ROOT/tests/lib.sh"
source "$KILN_ROOT/tests/helpers/runner_lib.sh"
need node
VM_ARGS="--max-semi-space-size=1" check_vm node --nonzero gc.count --nonzero gc.time --nonzero gc.minor.count
