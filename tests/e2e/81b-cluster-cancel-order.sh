# A cancel whose SIGTERM reaches the runner before it reaches kiln, on a real
# Slurm of one node.  slurmstepd signals a task's processes one by one: when
# the runner dies first, kiln stores its pexec as failed (signal 15) and only
# then hears its own SIGTERM, between two pexecs.  That pexec was the
# cancel's: it goes back to pending, and `kiln status` says so as it does when
# kiln heard the cancel first ("pexec N discarded, it stays pending"), not
# "interrupted; kiln run resumes".  The order is made, not waited for: the
# runner is killed, kiln is held by gdb at the start of the commit's
# fdatasync, and the task is cancelled then.
source "$KILN_ROOT/tests/lib.sh"
source "$KILN_ROOT/tests/lib-slurm.sh"
command -v gdb >/dev/null || skip "gdb is not installed (scripts/deps.sh --test)"
slurm_start 1
make_suite
cd "$T"
mkdir gates
cluster_config order 4 4 100000000 5 "$T/gates" > exp.yaml
"$KILN" run -q exp.yaml --slurm --nodes 1 -- --hold || fail "submission"
job=$(sql exp.kiln.db "SELECT job FROM cluster_rounds WHERE round=1")
S=exp.shards
held=$(sql $S/r1-t0.kiln.db "SELECT k.bench || ':' || k.vm || ':' || k.variant || ' ' || p.num
	FROM pexecs p JOIN keys k ON k.id = p.key_id ORDER BY p.seq LIMIT 1 OFFSET 1")
hold_mid_pexec $S gates "$job" "$(sql exp.kiln.db "SELECT merge_job FROM cluster_rounds WHERE round=1")" 30 0
pid=$(task_kiln_pid "$job" 0)
[ -n "$pid" ] || fail "no kiln for task 0"
runner=$(pgrep -P "$pid" -f "fakerunner gated")
[ -n "$runner" ] || fail "no runner under kiln $pid"
# kiln is held by gdb at the start of the next fdatasync: the commit of the
# runner's pexec, once the runner is dead (gdb's waits are bounded, 30 s: a
# failed test leaves nothing behind)
gdb -q -nx -batch -p "$pid" -ex 'handle SIGTERM nostop noprint pass' -ex 'handle SIGCHLD nostop noprint pass' \
	-ex 'catch syscall fdatasync' -ex 'shell touch attached' -ex continue \
	-ex 'shell touch at-sync; i=0; while [ ! -e go ] && [ $i -lt 1500 ]; do i=$((i + 1)); sleep 0.02; done' -ex detach > gdb.out 2>&1 &
tracer=$!
wait_until 15 test -e attached
[ -e attached ] || { cat gdb.out; fail "gdb did not attach to kiln $pid"; }
sleep 0.2
kill -TERM "$runner"
wait_until 15 test -e at-sync
[ -e at-sync ] || { cat gdb.out; fail "kiln did not reach the commit's fdatasync"; }
scancel "${job}_0"
# the cancel's SIGTERM is pending on kiln (bit 15 of its signal masks) before gdb lets it go on
sigterm_pending() {
	local name mask
	while read -r name mask; do
		case $name in SigPnd: | ShdPnd:) (((0x$mask >> 14) & 1)) && return 0 ;; esac
	done <"/proc/$pid/status"
	return 1
}
wait_until 5 sigterm_pending
sigterm_pending || { cat gdb.out; fail "the cancel's SIGTERM is not pending on kiln"; }
touch go
wait "$tracer" || { cat gdb.out; fail "gdb"; }
wait_round exp.kiln.db 1 60
cat gdb.out
out=$("$KILN" status exp.kiln.db) || fail "status"
echo "$out"
label=${held#* }
grep -Eq "^0 .* CANCELLED .*interrupted: pexec $label of ${held% *} discarded, it stays pending" <<<"$out" ||
	fail "the cancelled task's note names the pexec the cancel ended"
# the runner's death is the cancel's, not the benchmark's: pending, not failed
assert_eq "$(sql $S/r1-t0.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status='failed'")" 0 "no failed pexec in the shard"
assert_eq "$(sql $S/r1-t0.kiln.db "SELECT status FROM pexecs ORDER BY seq LIMIT 1 OFFSET 1")" pending \
	"the pexec the cancel ended is pending"
assert_eq "$(sql exp.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status NOT IN ('ok', 'pending')")" 0 "no failed pexecs merged"

# a task whose kiln cannot hear the cancel (held stopped by gdb) is killed at
# the end of KillWait: its note says the task ended without kiln recording its
# end, with Slurm's state and no reason when Slurm gives none ("None")
mkdir gates2
sed -e "s/name: order/name: stuck/" -e "s|$T/gates|$T/gates2|" exp.yaml > stuck.yaml
"$KILN" run -q stuck.yaml --slurm --nodes 1 -- --hold || fail "submission of stuck"
job=$(sql stuck.kiln.db "SELECT job FROM cluster_rounds WHERE round=1")
hold_mid_pexec stuck.shards gates2 "$job" "$(sql stuck.kiln.db "SELECT merge_job FROM cluster_rounds WHERE round=1")" 30 0
pid=$(task_kiln_pid "$job" 0)
[ -n "$pid" ] || fail "no kiln for task 0 of stuck"
rm -f attached
gdb -q -nx -batch -p "$pid" -ex 'shell touch attached; i=0; while [ ! -e release ] && [ $i -lt 600 ]; do i=$((i + 1)); sleep 0.05; done' > gdb2.out 2>&1 &
tracer=$!
wait_until 15 test -e attached
[ -e attached ] || { cat gdb2.out; fail "gdb did not attach to kiln $pid"; }
scancel "${job}_0"
# SIGKILL at the end of KillWait: kiln is then a zombie that gdb, its tracer, lets go
zombie() { [ "$(sed 's/.*) //' /proc/"$1"/stat | cut -c1)" = Z ]; }
wait_until 15 zombie "$pid"
touch release
wait "$tracer"
wait_round stuck.kiln.db 1 60
out=$("$KILN" status stuck.kiln.db) || fail "status of stuck"
echo "$out"
grep -Eq "^0 .* CANCELLED .*the task ended without kiln recording its end \(CANCELLED\); 7 pexec\(s\) left pending" \
	<<<"$out" || fail "the note of a task killed before kiln heard the cancel"
