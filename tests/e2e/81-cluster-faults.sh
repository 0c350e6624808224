# Faults of a cluster run on a real Slurm of 3 nodes: one task cancelled
# mid-pexec (scancel), one whose kiln is killed -9 mid-pexec, one whose node
# is lost (slurmd, slurmstepd, kiln and the runner killed at once): their
# pexecs stay pending, `kiln status` says what happened to each, and
# `kiln run --slurm` again gives out only what is pending, so that after the
# merge every planned pexec is there exactly once.  Then a task whose node
# fails the machine checks, and one whose node runs another kiln build: each
# says why in `kiln status`.
source "$KILN_ROOT/tests/lib.sh"
source "$KILN_ROOT/tests/lib-slurm.sh"
slurm_start 3
make_suite
cd "$T"
mkdir gates
cluster_config faults 12 4 100000000 5 "$T/gates" > exp.yaml
"$KILN" run -q exp.yaml --slurm --nodes 3 -- --hold || fail "submission"
job=$(sql exp.kiln.db "SELECT job FROM cluster_rounds WHERE round=1")
S=exp.shards
# task 2: its node lost; task 0: cancelled; task 1: its kiln killed -9 — each held
# in its second pexec first, then dealt with one after the other
hold_mid_pexec $S gates "$job" "$(sql exp.kiln.db "SELECT merge_job FROM cluster_rounds WHERE round=1")" 30 0 1 2
lost=$(sql $S/r1-t2.kiln.db "SELECT value FROM meta WHERE name='machine'")
[ -n "$lost" ] || fail "task 2 has no machine"
"$KILN_ROOT/scripts/slurm-local.sh" kill-node "$SLURM_DIR" "$lost" || fail "kill-node"
scancel "${job}_0"
pid=$(task_kiln_pid "$job" 1)
[ -n "$pid" ] || fail "no kiln for task 1"
kill -9 "$pid"
# Slurm notices the lost node after SlurmdTimeout and its next node check
wait_round exp.kiln.db 1 90
out=$("$KILN" status exp.kiln.db) || fail "status"
echo "$out"
grep -Eq "^0 .* CANCELLED .*interrupted: pexec .* discarded, it stays pending" <<<"$out" || fail "status of the cancelled task"
grep -Eq "^1 .* FAILED .*ended without kiln recording its end" <<<"$out" || fail "status of the killed task"
grep -Eq "^2 +$lost +NODE_FAIL .*pexec\\(s\\) left pending: .kiln run .* --slurm. gives them out again" <<<"$out" ||
	fail "status of the lost node's task"
# what each task finished was merged; what was in flight is pending, not failed
assert_eq "$(sql exp.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status NOT IN ('ok', 'pending')")" 0 "no failed pexecs"
done1=$(sql exp.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status='ok'")
[ "$done1" -ge 3 ] && [ "$done1" -lt 24 ] || fail "round 1 merged $done1 pexecs"
assert_eq "$(cluster_field exp.kiln.db "d['finished'], d['remaining']")" "$done1 $((24 - done1))" "status --json progress"

# the lost node comes back; a second round gives out only what is pending (ungated)
rm -f gates/*
"$KILN_ROOT/scripts/slurm-local.sh" revive-node "$SLURM_DIR" "$lost" || fail "revive-node"
node_idle() { [ "$(sinfo -h -n "$1" -o %t)" = idle ]; }
wait_until 10 node_idle "$lost"
"$KILN" run exp.yaml --slurm --nodes 3 2>submit.err || { cat submit.err; fail "resubmission"; }
assert_contains "$(cat submit.err)" "$((24 - done1)) pexec(s)"
assert_eq "$(sql exp.kiln.db "SELECT COUNT(*) FROM cluster_assign a JOIN cluster_shards s ON s.name = a.shard WHERE s.round = 2")" \
	"$((24 - done1))" "round 2 holds the pending pexecs only"
assert_eq "$(sql exp.kiln.db "SELECT COUNT(*) FROM cluster_assign a JOIN cluster_shards s ON s.name = a.shard JOIN pexecs p ON p.id = a.pexec_id WHERE s.round = 2 AND p.status != 'pending'")" \
	0 "round 2 holds no finished pexec"
wait_round exp.kiln.db 2 60
assert_eq "$(sql exp.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status='ok'")" 24 "every pexec ok after the second round"
assert_eq "$(sql exp.kiln.db "SELECT COUNT(DISTINCT key_id || '-' || num) FROM pexecs")" 24 "each pexec once"
assert_eq "$(count_iterations exp.kiln.db)" 96 "iterations"
assert_eq "$(sql exp.kiln.db "SELECT COUNT(*) FROM origins")" 24 "an origin per pexec"
# a pexec interrupted in round 1 and run in round 2 is kept from round 2 only
assert_eq "$(sql exp.kiln.db "SELECT COUNT(*) FROM cluster_assign WHERE merged = 1")" 24 "merged once each"

# a node that fails its machine checks (it has no CPU 999): refused before its task runs a pexec, the setting named
sed -e 's/name: faults/name: badnode/' -e 's/platform: {kmsg: off}/platform: {kmsg: off, pin_cpus: [999]}/' exp.yaml > bad.yaml
"$KILN" run -q bad.yaml --slurm --nodes 1 || fail "submit bad"
wait_round bad.kiln.db 1 60
out=$("$KILN" status bad.kiln.db)
grep -Eq "^0 .* FAILED .*bad.yaml:[0-9]+:[0-9]+: platform.pin_cpus\[0\]: CPU 999 is not on this machine" <<<"$out" ||
	fail "why the checks failed: $out"
assert_eq "$(cluster_field bad.kiln.db "d['task_list'][0]['kiln_exit'], d['task_list'][0]['pending']")" "3 24" "a refused task"
assert_eq "$(sql bad.shards/r1-t0.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status != 'pending'")" 0 "the refused task ran nothing"

# a node with another kiln build: the job's kiln is changed before the task starts
mkdir -p bin && cp "$KILN" bin/kiln
export KILN_DATADIR=$KILN_ROOT KILN_LIBEXECDIR=$KILN_ROOT/${O:-build}
cluster_config build 12 4 100000000 5 > build.yaml
bin/kiln run -q build.yaml --slurm --nodes 1 -- --hold || fail "submit build"
printf 'another build' >> bin/kiln
# --hold went to both jobs (the array and its merge job)
scontrol release "$(sql build.kiln.db "SELECT job FROM cluster_rounds")"
scontrol release "$(sql build.kiln.db "SELECT merge_job FROM cluster_rounds")"
wait_round build.kiln.db 1 60
out=$("$KILN" status build.kiln.db)
assert_contains "$out" "runs another kiln build than the one the experiment was submitted with (kiln differs)"
assert_eq "$(sql build.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status='pending'")" 24 "nothing ran with another build"

# a cancel's SIGTERM can reach the runner before kiln: the pexec it ended is
# the cancel's, not the benchmark's, and stays pending.  Made certain here:
# the runner is sent SIGTERM first, then the task is cancelled.
unset KILN_DATADIR KILN_LIBEXECDIR
cat > term.yaml <<Y
name: term
pexecs: 3
iterations: 1
vms:
  sleeper: {plugin: external, runner: [/bin/sleep, "30"], language: c, entry: bench.c}
benchmarks: {spin: 1}
Y
"$KILN" run -q term.yaml --slurm --nodes 1 || fail "submit term"
tjob=$(sql term.kiln.db "SELECT job FROM cluster_rounds")
# the runner of the pexec in flight: the task's kiln's child `sleep` (not its probes of the machine)
find_runner() { # sets runner: the term task's runner (a sleep), other than PID $1
	local kp c
	kp=$(task_kiln_pid "$tjob" 0)
	for c in $([ -n "$kp" ] && cat /proc/"$kp"/task/*/children 2>/dev/null); do
		[ "$(cat /proc/"$c"/comm 2>/dev/null)" = sleep ] && [ "$c" != "$1" ] && runner=$c
	done
	[ -n "$runner" ]
}
term_failed() { # N: N pexecs failed by SIGTERM, and the next one running
	[ "$(sql term.shards/r1-t0.kiln.db "SELECT SUM(status='failed' AND signal=15) = $1 AND SUM(status='running') = 1 FROM pexecs")" = 1 ]
}
term_runner() {
	local runner=
	wait_until 15 find_runner "${1:-}" || fail "no runner for the term task"
	kill -TERM "$runner"
	wait_until 10 term_failed "$2"
	echo "$runner"
}
# two runners signalled ahead of the cancel (the second as the cancel's own SIGTERM
# reaching a runner before kiln, which happened by chance before): both are the cancel's
r1=$(term_runner "" 1)
term_runner "$r1" 2 >/dev/null
scancel "$tjob"
wait_round term.kiln.db 1 30
assert_eq "$(sql term.shards/r1-t0.kiln.db "SELECT group_concat(status, ' ') FROM (SELECT status FROM pexecs ORDER BY seq)")" \
	"pending pending pending" "the pexecs the cancel ended"
