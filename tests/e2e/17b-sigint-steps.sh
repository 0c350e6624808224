# An interrupt while a step runs, and the cleanup after an interrupt.
# SIGINT in a pexec's prepare step: kiln exits 130 (not 1, a failed step's),
# says the pexec is discarded and pending, and the cleanup still runs to its
# end (it runs on through the interrupt that stopped the run).  SIGINT in the
# pexec itself: the same cleanup.  A second SIGINT during the cleanup ends it:
# kiln warns which command the interrupt ended and still exits 130.  SIGINT
# in the setup step: 130, no pexec; in post_execution: the pexec that ran is
# discarded (nothing of it stored) and stays pending, 130.  The
# steps are held on gate files, so each signal lands where it is meant to.
source "$KILN_ROOT/tests/lib.sh"
make_suite
cd "$T"
# hold.sh NAME: log NAME, then wait while the file NAME.gate exists (saying so with NAME.held)
cat > hold.sh <<'SH'
#!/bin/sh
cd "$(dirname "$0")"
echo "$1 start" >> log
if [ -e "$1.gate" ]; then
	touch "$1.held"
	while [ -e "$1.gate" ]; do sleep 0.02; done
fi
echo "$1 done" >> log
SH
chmod 755 hold.sh
cat > s.yaml <<Y
pexecs: 2
iterations: 4
vms:
  fake:
    plugin: external
    runner: [$FAKE, gated, "{iterations}", "1000000", "$T"]
    language: c
    entry: bench.c
    setup: [$T/hold.sh, setup]
    prepare: [$T/hold.sh, prepare]
    cleanup: [$T/hold.sh, cleanup]
benchmarks: {spin: 1}
post_execution: [[$T/hold.sh, post]]
platform: {kmsg: off}
Y
wait_for() { wait_until 20 test -e "$1" || fail "$1 did not appear"; } # FILE
# run: kiln in the background, its pid in $pid, its stderr in err.txt
run() { rm -f log ./*.held; "$KILN" run -q s.yaml 2>err.txt & pid=$!; }

# 1. SIGINT in the first pexec's prepare step; the cleanup gated too, so it is seen to run on through that interrupt
touch prepare.gate cleanup.gate
run
wait_for prepare.held
kill -INT $pid
wait_for cleanup.held
sleep 0.3 # the cleanup is not ended by the interrupt that stopped the run
kill -0 $pid 2>/dev/null || fail "kiln ended before its cleanup did"
rm cleanup.gate
wait $pid; rc=$?
cat err.txt
assert_eq $rc 130 "exit status after SIGINT in a prepare step"
assert_contains "$(cat err.txt)" "interrupted: pexec [0-9] of spin:fake:default-c discarded, it stays pending"
assert_eq "$(grep -c "failed" err.txt)" 0 "no step said to have failed"
assert_eq "$(cat log)" "$(printf 'setup start\nsetup done\nprepare start\ncleanup start\ncleanup done')" "the steps that ran"
assert_eq "$(sql s.kiln.db "SELECT group_concat(status) FROM pexecs")" "pending,pending" "both pexecs pending"
rm -f prepare.gate

# 2. SIGINT in a pexec (its runner held before its last line): the cleanup runs to its end
for n in 0 1; do touch "$T/spin:fake:default-c@$n"; done
run
wait_until 20 compgen -G "$T/spin:fake:default-c@*.held"
ls "$T"/spin:fake:default-c@*.held >/dev/null 2>&1 || fail "no pexec held"
kill -INT $pid
wait $pid; rc=$?
assert_eq $rc 130 "exit status after SIGINT in a pexec"
assert_eq "$(cat log)" "$(printf 'setup start\nsetup done\nprepare start\nprepare done\ncleanup start\ncleanup done')" "the cleanup after a pexec's interrupt"
assert_eq "$(sql s.kiln.db "SELECT group_concat(status) FROM pexecs")" "pending,pending" "both pexecs pending"
rm -f "$T"/spin:fake:default-c@*

# 3. a second SIGINT during the cleanup ends it
touch prepare.gate cleanup.gate
run
wait_for prepare.held
kill -INT $pid
wait_for cleanup.held
kill -INT $pid
wait $pid; rc=$?
cat err.txt
assert_eq $rc 130 "exit status after two SIGINTs"
assert_contains "$(cat err.txt)" "warning: fake: interrupted in the cleanup command"
assert_eq "$(grep -c "cleanup done" log)" 0 "the cleanup ended by the second interrupt"
rm -f prepare.gate cleanup.gate

# 4. SIGINT in the setup step: exit 130, said as an interrupt, no pexec run
touch setup.gate
run
wait_for setup.held
kill -INT $pid
wait $pid; rc=$?
assert_eq $rc 130 "exit status after SIGINT in a setup step"
assert_contains "$(cat err.txt)" "interrupted in the setup command"
assert_eq "$(grep -c "prepare" log)" 0 "no pexec prepared after an interrupted setup"
rm -f setup.gate

# 5. SIGINT in post_execution: the pexec ran, but nothing of it is stored: discarded, pending
touch post.gate
run
wait_for post.held
kill -INT $pid
wait $pid; rc=$?
assert_eq $rc 130 "exit status after SIGINT in post_execution"
assert_contains "$(cat err.txt)" "interrupted: pexec [0-9] of spin:fake:default-c discarded, it stays pending"
assert_eq "$(sql s.kiln.db "SELECT group_concat(status) FROM pexecs")" "pending,pending" "both pexecs pending"
rm -f post.gate

# 6. SIGINT while kiln lets the machine settle before a pexec (platform.settle): the runner is
# never started; the run stops as between two pexecs
sed -e 's/platform: {kmsg: off}/platform: {kmsg: off, settle: 5}/' \
	-e "s|runner: \[$FAKE, gated|runner: [sh, -c, 'touch $T/started; exec \"\$0\" \"\$@\"', $FAKE, gated|" s.yaml > settle.yaml
grep -q "touch $T/started" settle.yaml || fail "settle.yaml"
rm -f log started
"$KILN" run -q settle.yaml 2>err.txt & pid=$!
wait_until 20 grep -q "prepare done" log
sleep 0.5
kill -INT $pid
wait $pid; rc=$?
assert_eq $rc 130 "exit status after SIGINT while the machine settles"
assert_contains "$(cat err.txt)" "interrupted; .kiln run .*settle.yaml. resumes"
[ ! -e started ] || fail "a runner was started after the interrupt"
assert_eq "$(sql settle.kiln.db "SELECT group_concat(status) FROM pexecs")" "pending,pending" "both pexecs pending"

# then the experiment completes
"$KILN" run -q s.yaml 2>err.txt || fail "resume: $(cat err.txt)"
assert_eq "$(sql s.kiln.db "SELECT group_concat(status) FROM pexecs")" "ok,ok" "both pexecs ok"
