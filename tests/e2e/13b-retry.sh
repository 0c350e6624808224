# kiln run --retry-failed: failed and timed-out pexecs run again in their
# place in the schedule, their old rows replaced (never duplicated); without
# the flag a finished run stays as it is.
source "$KILN_ROOT/tests/lib.sh"
cd "$T"
# fails until the flag file exists; the second benchmark always works
cat > r.yaml <<Y
pexecs: 4
iterations: 1
vms:
  s: {plugin: command, path: /bin/sh}
benchmarks:
  flaky: {param: 0, args: ["-c", "test -e $T/flag"]}
  fine: {param: 0, args: ["-c", "true"]}
limits: {timeout: 5}
Y
"$KILN" run -q r.yaml; assert_eq $? 1 "first run: some pexecs failed"
q() { sqlite3 r.kiln.db "$1"; }
assert_eq "$(q "SELECT COUNT(*) FROM pexecs WHERE status='failed'")" 4 "flaky pexecs failed"
assert_eq "$(q "SELECT COUNT(*) FROM iterations")" 8 "one iterations row per pexec, failed ones too"
fine_before=$(q "SELECT GROUP_CONCAT(wall_start_ns) FROM pexecs p JOIN keys k ON k.id=p.key_id WHERE k.bench='fine'")

touch flag
# without the flag nothing runs again
"$KILN" run -q r.yaml; assert_eq $? 0 "a finished run: nothing to do"
assert_eq "$(q "SELECT COUNT(*) FROM pexecs WHERE status='failed'")" 4 "failed pexecs stay failed"

out=$("$KILN" run r.yaml --retry-failed 2>&1) || fail "retry: $out"
assert_contains "$out" "4 pexec(s) that failed or timed out will run again"
assert_eq "$(q "SELECT COUNT(*) FROM pexecs WHERE status='ok'")" 8 "all ok after the retry"
assert_eq "$(q "SELECT COUNT(*) FROM iterations")" 8 "one iterations row per pexec"
assert_eq "$(q "SELECT COUNT(*) FROM pexecs p JOIN keys k ON k.id=p.key_id WHERE k.bench='flaky' AND attempts=2")" 4 \
	"flaky pexecs ran twice"
assert_eq "$(q "SELECT GROUP_CONCAT(wall_start_ns) FROM pexecs p JOIN keys k ON k.id=p.key_id WHERE k.bench='fine'")" \
	"$fine_before" "the pexecs that were fine are untouched"
assert_eq "$(q "PRAGMA integrity_check")" ok "integrity"

# a timed-out pexec is retried too; a tainted one only with --retry-tainted
cat > t.yaml <<Y
pexecs: 1
vms: {s: {plugin: command, path: /bin/sleep}}
benchmarks: {nap: {param: "3", args: ["{param}"]}}
limits: {timeout: 0.3}
Y
"$KILN" run -q t.yaml; assert_eq $? 1 "timeout run"
assert_eq "$(sqlite3 t.kiln.db "SELECT status FROM pexecs")" timeout "timed out"
sqlite3 t.kiln.db "UPDATE pexecs SET status='tainted'"
"$KILN" run -q t.yaml --retry-failed; assert_eq $? 0 "nothing failed: nothing retried"
assert_eq "$(sqlite3 t.kiln.db "SELECT status FROM pexecs")" tainted "tainted is left to --retry-tainted"
"$KILN" run -q t.yaml --retry-tainted; assert_eq $? 1 "tainted pexec ran again (and timed out again)"
assert_eq "$(sqlite3 t.kiln.db "SELECT status||' '||attempts FROM pexecs")" "timeout 2" "retried once"

# a retry refused before anything runs (the key's program changed) leaves the
# failure as it was: its status, error and iterations; it was put back to
# pending and its rows deleted before the refusal
cp /bin/true vm
cat > p.yaml <<Y
pexecs: 2
iterations: 1
vms: {s: {plugin: command, path: $T/vm}}
benchmarks: {a: {param: 0}}
Y
"$KILN" run -q p.yaml || fail "program run"
sqlite3 p.kiln.db "UPDATE pexecs SET status='failed', error='boom' WHERE num=1"
before=$(sqlite3 p.kiln.db "SELECT num, status, attempts, error FROM pexecs ORDER BY num; SELECT COUNT(*) FROM iterations")
cp /bin/false vm
out=$("$KILN" run p.yaml --retry-failed 2>&1); assert_eq $? 3 "a changed program is refused: $out"
assert_contains "$out" "the program of 1 key(s) changed"
assert_eq "$(sqlite3 p.kiln.db "SELECT num, status, attempts, error FROM pexecs ORDER BY num; SELECT COUNT(*) FROM iterations")" \
	"$before" "the refused retry left the failure as it was"
cp /bin/true vm
"$KILN" run -q p.yaml --retry-failed || fail "the retry once the program is back"
assert_eq "$(sqlite3 p.kiln.db "SELECT status||' '||attempts FROM pexecs WHERE num=1")" "ok 2" "retried"
assert_eq "$(sqlite3 p.kiln.db "SELECT COUNT(*) FROM iterations")" 2 "one iterations row per pexec"
echo ok
