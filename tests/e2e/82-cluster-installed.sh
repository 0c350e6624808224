# An installed kiln (make install into a fresh prefix) runs an experiment of
# the bundled C suite over a real 2-node Slurm cluster: its tasks run the
# installed kiln (not the build tree's), find its runners and suite, and the
# installed kiln's status and report read the merged result.
source "$KILN_ROOT/tests/lib.sh"
source "$KILN_ROOT/tests/lib-slurm.sh"
command -v cc >/dev/null || skip "no C compiler"
P="$T/prefix"
make -s -C "$KILN_ROOT" O="${O:-build}" install PREFIX="$P" >"$T/install.log" 2>&1 || { cat "$T/install.log"; fail "make install"; }
KILN="$P/bin/kiln"
slurm_start 2
mkdir "$T/exp" && cd "$T/exp"
cat > c.yaml <<'Y'
pexecs: 3
iterations: 4
vms:
  native: {plugin: c}
benchmarks:
  nbody: 1000
  spectral_norm: 20
platform: {kmsg: off}
Y
"$KILN" run c.yaml --slurm --nodes 2 2>submit.err || { cat submit.err; fail "submission"; }
assert_contains "$(cat submit.err)" "2 task(s) on exclusive nodes, 6 pexec(s)"
wait_round c.kiln.db 1 90
# the job scripts name the installed kiln as their interpreter
grep -rqs "^#!$KILN task" . || fail "no job script runs $KILN: $(find . -name '*.sh' -o -name '*job*' | head)"
n=$(sql c.kiln.db "SELECT COUNT(*) FROM audit WHERE name LIKE 'shard:%:task'")
assert_eq "$n" 2 "task records"
ok=$(sql c.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status='ok'")
[ "$ok" = 6 ] || fail "ok pexecs after the merge: $ok; $(sql c.kiln.db "SELECT status, error FROM pexecs") $(cat c.shards/*.log 2>/dev/null | tail -20)"
assert_eq "$(count_iterations c.kiln.db)" 24 "iterations"
out=$("$KILN" status c.kiln.db) || fail "status: $out"
assert_contains "$out" "6 of 6 pexecs done"
out=$("$KILN" report c.kiln.db --resamples 200) || fail "report: $out"
assert_contains "$out" "nbody:native:default-c"
assert_contains "$out" "spectral_norm:native:default-c"
