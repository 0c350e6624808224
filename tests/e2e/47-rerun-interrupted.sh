# Interrupting the rerun of a tainted pexec (issue 11, item 9): with
# platform.rerun_tainted, a Ctrl-C or kill -9 of kiln while a tainted pexec
# ran again left the tainted attempt's rows behind a pending pexec, and
# every later `kiln run` exited 5 with "UNIQUE constraint failed:
# iterations.pexec_id" (so did --retry-tainted).  A pexec put back to
# pending loses the rows of its unfinished attempts, so the resume runs it
# and stores it once.  The kernel log is a fake one (KILN_SYSROOT).
source "$KILN_ROOT/tests/lib.sh"
cd "$T"
mkdir -p root/dev root/proc
: > root/dev/kmsg
export KILN_SYSROOT="$T/root"
# every first attempt of a pexec is tainted (a kernel log line); an attempt
# after that waits while $T/hold exists, so that kiln can be stopped in it
cat > noisy.sh <<'S'
#!/bin/sh
m="$FAKE_T/tried-$KILN_PEXEC"
if [ ! -e "$m" ]; then
	touch "$m"; echo "3,99,1,-;BUG: soft lockup - CPU#1 stuck" >> "$FAKE_T/root/dev/kmsg"
else
	touch "$FAKE_T/rerunning-$KILN_PEXEC"
	while [ -e "$FAKE_T/hold" ]; do sleep 0.05; done
fi
fd=$KILN_RESULT_FD
echo '{"kiln":1,"clock":"monotonic","counters":[]}' >&$fd
i=0; while [ $i -lt "$KILN_ITERATIONS" ]; do echo "{\"i\":$i,\"wall_ns\":1000}" >&$fd; i=$((i+1)); done
echo '{"done":true}' >&$fd
S
chmod +x noisy.sh
mkdir -p benchmarks/b/sh && touch benchmarks/b/sh/x
cat > t.yaml <<Y
pexecs: 2
iterations: 3
vms: {n: {plugin: external, runner: [$T/noisy.sh], language: sh, entry: x, env: {FAKE_T: $T}}}
benchmarks: {b: 1}
platform: {kmsg: warn, rerun_tainted: true}
Y
q() { sqlite3 t.kiln.db "$1"; }
# the first rerun to start (the schedule's order is random)
wait_rerun() { wait_until 10 compgen -G 'rerunning-*' || fail "no rerun started"; }

# stop kiln with SIG while a pexec's rerun runs; then resume
stop_in_rerun() {
	local sig=$1; shift
	rm -f tried-* rerunning-* t.kiln.db*
	touch hold
	"$KILN" run -q t.yaml "$@" 2>err.txt & local pid=$!
	wait_rerun
	kill -"$sig" $pid
	wait $pid
	rm -f hold
	# kill -9 leaves the tainted attempt's rows (a Ctrl-C takes them out as it resets the pexec)
	[ "$sig" = KILL ] && assert_eq "$(q "SELECT COUNT(*) FROM iterations")" 1 "SIGKILL: the tainted attempt's rows"
	out=$("$KILN" run -q t.yaml 2>&1) || fail "SIG$sig: resume after an interrupted rerun: $out"
	assert_eq "$(q "SELECT COUNT(*) FROM pexecs WHERE status='ok'")" 2 "SIG$sig: both pexecs ok"
	assert_eq "$(q "SELECT COUNT(*) FROM iterations")" 2 "SIG$sig: one iterations row per pexec"
	assert_eq "$(count_iterations t.kiln.db)" 6 "SIG$sig: iterations"
	assert_eq "$(q "PRAGMA integrity_check")" ok "SIG$sig: integrity"
}
stop_in_rerun INT
stop_in_rerun KILL
# orphans of the kill -9 end on their own (hold is gone)

# --retry-tainted, interrupted in the rerun of the retried pexec
rm -f tried-* rerunning-* t.kiln.db*
sed -i 's/rerun_tainted: true/rerun_tainted: false/' t.yaml
"$KILN" run -q t.yaml 2>/dev/null
assert_eq "$(q "SELECT COUNT(*) FROM pexecs WHERE status='tainted'")" 2 "tainted without rerun"
rm -f tried-* rerunning-*
sed -i 's/rerun_tainted: false/rerun_tainted: true/' t.yaml
touch hold
"$KILN" run -q t.yaml --force --retry-tainted 2>err.txt & pid=$!
wait_rerun
kill -INT $pid
wait $pid
rm -f hold
out=$("$KILN" run -q t.yaml --retry-tainted 2>&1) || fail "--retry-tainted after an interrupted rerun: $out"
out=$("$KILN" run -q t.yaml 2>&1) || fail "resume after --retry-tainted: $out"
assert_eq "$(q "SELECT COUNT(*) FROM pexecs WHERE status='ok'")" 2 "retry: both pexecs ok"
assert_eq "$(q "SELECT COUNT(*) FROM iterations")" 2 "retry: one iterations row per pexec"
echo ok
