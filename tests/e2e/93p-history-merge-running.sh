# kiln merge HISTORY OTHER leaves out a run OTHER still has `running` (a
# kiln track interrupted there): it has no pexecs yet, its results file is
# in OTHER's work folder, and HISTORY's copy of it would stay running for
# good (or be resumed by a track of that machine into HISTORY, measured
# again from nothing).  It used to be copied; once OTHER's track finished
# it, the next merge copied the finished run too, and the commit had two
# runs of one machine.  Now it is said ("still running") and merged once
# finished.
source "$KILN_ROOT/tests/lib.sh"
source "$KILN_ROOT/tests/lib-history.sh"
history_test_tools
history_line repo 3
make_history_config exp/toy.yaml 3
sed 's|^    build: .*|&\n    prepare: [sleep, "0.5"]|' exp/toy.yaml > exp/slow.yaml
H=$T/h.db
O=$T/other.db
q() { sqlite3 "$H" "$1"; }

"$KILN" track exp/toy.yaml --repo repo -o "$H" -q "$HIST_L0" || fail "this machine's commit"
"$KILN" track exp/toy.yaml --repo repo -o "$O" --machine other -q "$HIST_L0" || fail "the other machine's first commit"
# the other machine's track of c1 interrupted in its session: c1's run stays running there
"$KILN" track exp/slow.yaml --repo repo -o "$O" --machine other --force "$HIST_L1" > t.out 2>&1 &
pid=$!
in_session() {
	local f
	f=$(ls "$O.work/runs/"*.kiln.db 2>/dev/null | head -1)
	[ -n "$f" ] && [ "$(sqlite3 "$f" "SELECT COUNT(*) FROM pexecs WHERE status='ok'" 2>/dev/null)" -ge 1 ]
}
wait_until 60 in_session || fail "no pexec of c1 ran: $(cat t.out)"
kill -INT $pid
wait $pid; assert_eq $? 130 "an interrupted track: $(cat t.out)"
assert_eq "$(sqlite3 "$O" "SELECT COUNT(*) FROM runs WHERE status='running'")" 1 "c1 in flight there"

out=$("$KILN" merge "$H" "$O" 2>&1) || fail "merge: $out"
assert_contains "$out" "1 runs merged, 0 there already, 1 still running there (not merged"
assert_eq "$(q "SELECT COUNT(*) FROM runs WHERE status='running'")" 0 "a run in flight elsewhere is not copied"
assert_eq "$(q "SELECT COUNT(*) FROM runs")" 2 "c0 of both machines"

# the other machine's track finishes c1 (the same command resumes it); merged again, c1 comes once
"$KILN" track exp/slow.yaml --repo repo -o "$O" --machine other --force -q "$HIST_L1" || fail "c1 resumed there"
assert_eq "$(sqlite3 "$O" "SELECT COUNT(*) FROM runs WHERE status='running'")" 0 "c1 finished there"
out=$("$KILN" merge "$H" "$O" 2>&1) || fail "merge again: $out"
assert_contains "$out" "1 runs merged, 1 there already"
assert_eq "$(q "SELECT COUNT(*) FROM runs r JOIN commits c ON c.id = r.commit_id WHERE c.hash = '$HIST_L1'")" 1 \
	"c1 once"
assert_eq "$(q "SELECT COUNT(*) FROM runs WHERE status='running'")" 0 "none running"
assert_eq "$(q "SELECT COUNT(*) FROM pexecs p JOIN runs r ON r.id = p.run_id JOIN commits c ON c.id = r.commit_id
	WHERE c.hash = '$HIST_L1' AND p.status = 'ok'")" 3 "c1's pexecs, each once"
out=$("$KILN" merge "$H" "$O" 2>&1) || fail "merge a third time: $out"
assert_contains "$out" "0 runs merged, 2 there already"
echo ok
