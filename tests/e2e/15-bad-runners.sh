# Runners that break the protocol fail their pexec, keep their good iterations
# (marked by the failed status), and never take kiln down; a runner that
# floods stdout with 1 GiB leaves kiln's memory bounded.
source "$KILN_ROOT/tests/lib.sh"
make_suite
cd "$T"
{
echo "pexecs: 1"
echo "iterations: 6"
echo "vms:"
for m in ok garbage early skip badvalue closefd nul crash flood; do
	echo "  $m: {plugin: external, runner: [$FAKE, $m, \"{iterations}\"], language: c, entry: bench.c}"
done
echo "benchmarks: {spin: 1}"
echo "limits: {timeout: 60, output_kb: 16}"
} > b.yaml
peak_rss rss.txt "$KILN" run -q b.yaml 2>err.txt; rc=$?
assert_eq $rc 1 "exit status with failed pexecs"
st() { sqlite3 b.kiln.db "SELECT p.status||' '||COALESCE(p.n_iter,0) FROM pexecs p JOIN keys k ON k.id=p.key_id WHERE k.vm='$1'"; }
err() { sqlite3 b.kiln.db "SELECT p.error FROM pexecs p JOIN keys k ON k.id=p.key_id WHERE k.vm='$1'"; }
assert_eq "$(st ok)" "ok 6" ok
assert_eq "$(st garbage)" "failed 2" garbage
assert_contains "$(err garbage)" "line 4: not JSON"
assert_eq "$(st early)" "failed 3" early
assert_contains "$(err early)" "without {\"done\":true}"
assert_eq "$(st skip)" "failed 2" skip
assert_contains "$(err skip)" "iteration 3 where 2 was expected"
assert_eq "$(st badvalue)" "failed 1" badvalue
assert_contains "$(err badvalue)" "wall_ns"
assert_eq "$(st closefd)" "failed 0" closefd
assert_eq "$(st nul)" "failed 0" nul
assert_eq "$(st crash)" "failed 2" crash
assert_contains "$(err crash)" "signal 11"
assert_eq "$(st flood)" "ok 6" flood
# stdout of the flood was captured with head and tail only
len=$(sqlite3 b.kiln.db "SELECT length(stdout) FROM pexecs p JOIN keys k ON k.id=p.key_id WHERE k.vm='nul'")
[ "$len" -gt 0 ] || fail "failed pexec output not kept"
rss=$(cat rss.txt)
limit=20000
case "${O:-build}" in *asan*) limit=80000 ;; esac # the sanitizer's shadow memory
[ -n "${KILN_VALGRIND:-}" ] && limit=400000 # valgrind's own memory is measured
[ "$rss" -lt $limit ] || fail "kiln peak RSS $rss KiB while a runner wrote 1 GiB"
# failed pexecs are listed with their errors
out=$("$KILN" status --failures b.kiln.db)
assert_contains "$out" "garbage:default-c pexec 0: failed"
echo ok
