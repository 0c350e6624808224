# kiln track --max-commits N, run again: the same command measures the
# next N commits of its range (docs/kiln-track.md#resuming).  The commits
# tracked before used to count among the N, so that the second run of
# `kiln track ..main --max-commits 2` took the same two commits again,
# found them tracked and measured nothing, run after run.
source "$KILN_ROOT/tests/lib.sh"
source "$KILN_ROOT/tests/lib-history.sh"
history_test_tools
history_line repo 7
make_history_config exp/toy.yaml 2
runs() { sqlite3 "$1" "SELECT COUNT(*) FROM runs WHERE kind='track' AND status != 'running'"; }

# one commit at a time, --order spread: the ends, then the middles
for i in 1 2 3; do
	out=$("$KILN" track exp/toy.yaml --repo repo -o h1.db ..main --max-commits 2 2>&1) || fail "run $i: $out"
	assert_contains "$out" "7 commits: 2 measured, 0 failed (recorded), $((2 * i - 2)) tracked before"
done
out=$("$KILN" track exp/toy.yaml --repo repo -o h1.db ..main --max-commits 2 2>&1) || fail "run 4: $out"
assert_contains "$out" "7 commits: 1 measured, 0 failed (recorded), 6 tracked before"
assert_eq "$(runs h1.db)" 7 "every commit"
assert_eq "$(sqlite3 h1.db "SELECT COUNT(DISTINCT commit_id) FROM runs")" 7 "each once"
out=$("$KILN" track exp/toy.yaml --repo repo -o h1.db ..main --max-commits 2 2>&1) || fail "run 5: $out"
assert_contains "$out" "7 commits: 0 measured, 0 failed (recorded), 7 tracked before"

# --order oldest: the next two in history order
"$KILN" track exp/toy.yaml --repo repo -o h2.db ..main --order oldest --max-commits 2 -q || fail "oldest 1"
"$KILN" track exp/toy.yaml --repo repo -o h2.db ..main --order oldest --max-commits 2 -q || fail "oldest 2"
assert_eq "$(sqlite3 h2.db "SELECT group_concat(c.depth) FROM (SELECT c.depth FROM runs r JOIN commits c
	ON c.id = r.commit_id ORDER BY c.depth) c")" "0,1,2,3" "the first four commits"

# in windows of 3 (0-2, 3-5, 6; measured in the order 0, 2, 1), until 2 commits are begun, whole windows:
# a window tracked whole is skipped, the next ones measured
out=$("$KILN" track exp/toy.yaml --repo repo -o h3.db ..main --interleave 3 --max-commits 2 2>&1) || fail "window 1: $out"
assert_contains "$out" "7 commits: 3 measured, 0 failed (recorded), 0 tracked before"
out=$("$KILN" track exp/toy.yaml --repo repo -o h3.db ..main --interleave 3 --max-commits 2 2>&1) || fail "window 2: $out"
assert_contains "$out" "7 commits: 4 measured, 0 failed (recorded), 3 tracked before"
assert_eq "$(runs h3.db)" 7 "every commit, in windows"
out=$("$KILN" track exp/toy.yaml --repo repo -o h3.db ..main --interleave 3 --max-commits 2 2>&1) || fail "window 3: $out"
assert_contains "$out" "7 commits: 0 measured, 0 failed (recorded), 7 tracked before"
echo ok
