# A second kiln run on results that another kiln is writing is refused.
source "$KILN_ROOT/tests/lib.sh"
make_suite
cd "$T"
cat > l.yaml <<Y
pexecs: 3
iterations: 10
vms: {slow: {plugin: external, runner: [$FAKE, slow, "{iterations}"], language: c, entry: bench.c}}
benchmarks: {spin: 1}
Y
"$KILN" run -q l.yaml & pid=$!
wait_until 3 test -e l.kiln.db
sleep 0.2
out=$("$KILN" run -q l.yaml 2>&1); rc=$?
assert_eq $rc 4 "second run exit status"
assert_contains "$out" "another kiln is running this experiment"
# status still reads while the run goes on
"$KILN" status l.kiln.db >/dev/null || fail "status during a run"
wait $pid || fail "first run failed"
assert_eq "$(sqlite3 l.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status='ok'")" 3 "first run complete"
echo ok
