#!/bin/bash
# 49-stat-beside-run.sh - kiln stat and kiln profile take the results
# file's lock before they start the VM: beside a kiln run of the same
# experiment they exit 4 without starting it (they would disturb the run's
# measurements and write into its file), and a kiln run beside them is
# refused the same way.  Once the run is over they run and store as before.
source "$KILN_ROOT/tests/lib.sh"
command -v perf >/dev/null || skip "perf is not installed"
cd "$T"
make_suite
# the runner notes each start of the VM (kiln's --version asks it for the VM's identity)
cat > runner.sh <<S
#!/bin/sh
echo "pexec \${KILN_PEXEC:--} \$*" >>"$T/starts.log"
exec "$FAKE" slow "\$1"
S
chmod +x runner.sh
cat > l.yaml <<Y
pexecs: 3
iterations: 12
vms: {slow: {plugin: external, runner: [$T/runner.sh, "{iterations}"], language: c, entry: bench.c}}
benchmarks: {spin: 1}
Y
# wait until someone holds the results file's lock: its flock in /proc/locks
# (looking, not trying: a flock(1) of ours could make kiln's own attempt fail)
locked() {
	local ino
	ino=$(stat -c %i l.kiln.db 2>/dev/null) || return 1
	awk -v ino="$ino" '$2 == "FLOCK" { n = split($6, f, ":"); if (f[n] == ino) found = 1 } END { exit !found }' /proc/locks
}
wait_locked() { wait_until 30 locked || fail "nobody took the lock ($1)"; } # (kiln under ASan or valgrind starts slowly)
"$KILN" run -q l.yaml & pid=$!
wait_locked run
out=$("$KILN" stat l.yaml --key spin:slow 2>&1); rc=$?
assert_eq $rc 4 "kiln stat beside kiln run"
assert_contains "$out" "kiln stat would disturb its measurements"
out=$("$KILN" profile l.yaml --key spin:slow -o prof 2>&1); rc=$?
assert_eq $rc 4 "kiln profile beside kiln run"
assert_contains "$out" "kiln profile would disturb its measurements"
wait $pid || fail "the run failed"
assert_eq "$(grep -c "^pexec [0-9]" starts.log)" 3 "the VM started only for the run's 3 pexecs"
assert_eq "$(sql l.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status='ok'")" 3 "the run complete"
assert_eq "$(sql l.kiln.db "SELECT COUNT(*) FROM cache WHERE kind IN ('stat','profile')")" 0 "nothing stored by the refused commands"
# afterwards kiln stat runs, and while it runs, kiln run is refused
"$KILN" stat l.yaml --key spin:slow -n 30 >stat.out 2>&1 & spid=$!
wait_locked stat
out=$("$KILN" run -q l.yaml 2>&1); rc=$?
assert_eq $rc 4 "kiln run beside kiln stat"
assert_contains "$out" "another kiln is running this experiment"
wait $spid || fail "kiln stat after the run: $(cat stat.out)"
assert_eq "$(sql l.kiln.db "SELECT COUNT(*) FROM cache WHERE kind='stat'")" 1 "the stat stored"
echo ok
