# SIGINT to kiln mid-pexec: the pexec is discarded and stays pending, kiln
# exits 130, and the next run completes the experiment.
source "$KILN_ROOT/tests/lib.sh"
make_suite
cd "$T"
cat > s.yaml <<Y
pexecs: 2
iterations: 40
vms: {slow: {plugin: external, runner: [$FAKE, slow, "{iterations}"], language: c, entry: bench.c}}
benchmarks: {spin: 1}
Y
"$KILN" run -q s.yaml 2>err.txt & pid=$!
# wait until a pexec is running (slow starts: valgrind), then a little more
one_running() { [ "$(sqlite3 s.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status='running'")" = 1 ]; }
wait_until 20 one_running
sleep 0.5
kill -INT $pid
wait $pid; rc=$?
assert_eq $rc 130 "exit status after SIGINT"
assert_contains "$(cat err.txt)" "stays pending"
assert_eq "$(sqlite3 s.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status='pending'")" 2 "pending after SIGINT"
assert_eq "$(sqlite3 s.kiln.db "SELECT COUNT(*) FROM iterations")" 0 "nothing kept of the discarded pexec"
"$KILN" run -q s.yaml || fail resume
assert_eq "$(count_iterations s.kiln.db)" 80 "iterations after resume"
echo ok
