# kiln track --new resumed: the same command goes on with the commits an
# earlier --new left (docs/kiln-track.md#which-commits).  --new starts
# after the newest commit this machine tracked, and --order spread (the
# default) measures the newest commit of its range second: a --new
# stopped after that (by --max-commits, an interrupt, an error) used to
# start the next --new after it, so that the commits between were never
# measured (and an interrupted one stayed `running` for good).
source "$KILN_ROOT/tests/lib.sh"
source "$KILN_ROOT/tests/lib-history.sh"
history_test_tools
history_line repo 8
make_history_config exp/toy.yaml 2
H=$T/h.db
q() { sqlite3 "$H" "$1"; }
tracked() { q "SELECT COUNT(*) FROM runs WHERE kind='track' AND status != 'running'"; }

"$KILN" track exp/toy.yaml --repo repo -o "$H" -q "$HIST_L0" || fail "the first commit"
# 7 new commits: 2 of them now (the oldest and the newest, spread), the rest by the same command later
out=$("$KILN" track exp/toy.yaml --repo repo -o "$H" --new --max-commits 2 2>&1) || fail "--new --max-commits 2: $out"
assert_contains "$out" "7 commits: 2 measured"
assert_eq "$(tracked)" 3 "c0 and two new ones"
assert_eq "$(q "SELECT COUNT(*) FROM runs r JOIN commits c ON c.id = r.commit_id WHERE c.hash='$HIST_L7'")" 1 \
	"spread: the newest commit measured second"
out=$("$KILN" track exp/toy.yaml --repo repo -o "$H" --new --max-commits 3 2>&1) || fail "--new resumed: $out"
assert_contains "$out" "7 commits: 3 measured, 0 failed (recorded), 2 tracked before"
out=$("$KILN" track exp/toy.yaml --repo repo -o "$H" --new 2>&1) || fail "--new resumed again: $out"
assert_contains "$out" "7 commits: 2 measured, 0 failed (recorded), 5 tracked before"
assert_eq "$(tracked)" 8 "every commit once"
assert_eq "$(q "SELECT COUNT(DISTINCT commit_id) FROM runs")" 8 "none twice"
# the range done, the next --new starts after its newest commit again
out=$("$KILN" track exp/toy.yaml --repo repo -o "$H" --new 2>&1) || fail "--new, nothing new: $out"
assert_contains "$out" "0 commits"
assert_eq "$(q "SELECT COUNT(*) FROM meta WHERE name LIKE 'track_new_from%'")" 0 "nothing left to resume"

# an interrupt in the middle of a --new range: the same command resumes the commit in flight and the rest
history_line repo2 6
"$KILN" track exp/toy.yaml --repo repo2 -o "$T/h2.db" -q "$HIST_L0" || fail "repo2's first commit"
sed 's|^    build: .*|&\n    prepare: [sleep, "0.05"]|' exp/toy.yaml > exp/slow.yaml
"$KILN" track exp/slow.yaml --repo repo2 -o "$T/h2.db" --force --new > new.out 2>&1 &
pid=$!
third() { # the third commit of the range begun: the two ends are done
	[ "$(sqlite3 "$T/h2.db" "SELECT COUNT(*) FROM runs" 2>/dev/null)" -ge 4 ]
}
wait_until 120 third || fail "the third commit of the range did not begin: $(cat new.out)"
kill -INT $pid
wait $pid; rc=$?
assert_eq $rc 130 "an interrupted --new: $(cat new.out)"
out=$("$KILN" track exp/slow.yaml --repo repo2 -o "$T/h2.db" --new 2>&1) || fail "--new resumed: $out"
assert_eq "$(sqlite3 "$T/h2.db" "SELECT COUNT(*) FROM runs WHERE status='ok'")" 6 "every commit measured: $out"
assert_eq "$(sqlite3 "$T/h2.db" "SELECT COUNT(*) FROM runs WHERE status='running'")" 0 "none left running"
echo ok
