# 21-runner-lua: the Lua 5.4 runner (plugins/lua/runner.lua with
# kilnclock.so) for real on every benchmark: protocol v1 stream, checksum
# equal to the C version's, heap and GC-cycle records per iteration.
source "$KILN_ROOT/tests/lib.sh"
source "$KILN_ROOT/tests/helpers/runner_lib.sh"
need lua5.4
[ -f "$KILN_ROOT/plugins/lua/kilnclock.so" ] || fail "plugins/lua/kilnclock.so is not built"
check_vm lua --nonzero gc.count
