# kiln track --hashes FILE: the commits of a file, one revision a line,
# '#' comments and blank lines skipped; a commit the file names twice (its
# hash and a branch, two tags) is measured once.  Before, a commit named
# twice stopped the track before it began, exit 1: "git log printed a
# record kiln cannot read" (git log gives a commit named twice once).
source "$KILN_ROOT/tests/lib.sh"
source "$KILN_ROOT/tests/lib-history.sh"
history_test_tools
history_line repo 4
make_history_config exp/toy.yaml 2
git -C repo tag v1 "$HIST_L1"
git -C repo tag v1-again "$HIST_L1"
cat > commits.txt <<H
# the commits to measure
main
$HIST_L1

v1
  $HIST_L3  
v1-again
H
out=$("$KILN" track exp/toy.yaml --repo repo -o h.db --hashes commits.txt 2>&1) || fail "--hashes: $out"
assert_contains "$out" "2 commits: 2 measured, 0 failed (recorded), 0 tracked before"
assert_eq "$(sqlite3 h.db "SELECT group_concat(hash) FROM (SELECT c.hash FROM runs r JOIN commits c ON c.id = r.commit_id
	ORDER BY c.depth)")" "$HIST_L1,$HIST_L3" "each named commit once"
# a line that names no commit: usage, with its line
echo "no-such-branch" >> commits.txt
out=$("$KILN" track exp/toy.yaml --repo repo -o h.db --hashes commits.txt 2>&1); assert_eq $? 2 "a bad line: $out"
assert_contains "$out" "commits.txt:8"
echo ok
