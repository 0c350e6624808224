# A step the data put between two commits of one binary is the machine's,
# not the code's (issue 29: the Lua corpus measured in two windows hours
# apart split four keys exactly at the windows' edge, between two commits
# of one binary).  kiln track --changes moves it to the nearest commit
# whose binary changed, and says so in text (moved_off_aa in --json), so
# that a reader does not take that commit for the culprit unwarned.  The
# machine's step is made by scaling the stored figures of the later
# commits, as a busier host would.
source "$KILN_ROOT/tests/lib.sh"
source "$KILN_ROOT/tests/lib-history.sh"
history_test_tools
d=$T/repo
history_repo_init "$d"
n=0
commit() {
	git -C "$d" add -A
	GIT_COMMITTER_DATE="2026-01-01T12:$((10 + n)):00Z" GIT_AUTHOR_DATE="2026-01-01T12:$((10 + n)):00Z" git -C "$d" commit -q -m "$1"
	eval "C$n=$(git -C "$d" rev-parse HEAD)"
	n=$((n + 1))
}
history_vm_source 2000 5 > "$d/vm.c"; commit "c0: the VM"
for i in 1 2 3 4 5; do echo "note $i" > "$d/README"; commit "c$i: README"; done
# c6: another binary of the same speed
history_vm_source 2000 5 "static volatile int rebuilt = 6;" > "$d/vm.c"; commit "c6: the same speed, rebuilt"
for i in 7 8 9 10 11; do echo "note $i" > "$d/README"; commit "c$i: README"; done
make_history_config exp/toy.yaml
H=$T/h.db
out=$("$KILN" track exp/toy.yaml --repo repo -o "$H" ..main 2>&1) || fail "track: $out"
q() { sqlite3 "$H" "$1"; }
[ "$(q "SELECT r.binary FROM runs r JOIN commits c ON c.id=r.commit_id WHERE c.hash='$C5'")" = \
	"$(q "SELECT r.binary FROM runs r JOIN commits c ON c.id=r.commit_id WHERE c.hash='$C4'")" ] || fail "c4, c5: two binaries"
# a busy machine's sessions: each commit off by up to 4% (fixed per commit, so the test is the same every run);
# then the machine 10% slower from c5 on (c4 and c5 are one binary), c5 measured half before it (6%)
BY_COMMIT="pexec_id IN (SELECT p.id FROM pexecs p JOIN runs r ON r.id = p.run_id JOIN commits c ON c.id = r.commit_id WHERE"
q "UPDATE figures SET steady_mean = steady_mean * (1 + ((SELECT (c.depth * 5) % 9 - 4 FROM pexecs p JOIN runs r ON
	r.id = p.run_id JOIN commits c ON c.id = r.commit_id WHERE p.id = figures.pexec_id) / 100.0))"
c5=$(q "SELECT depth FROM commits WHERE hash = '$C5'")
q "UPDATE figures SET steady_mean = steady_mean * 1.1 WHERE $BY_COMMIT c.depth > $c5)"
q "UPDATE figures SET steady_mean = steady_mean * 1.06 WHERE $BY_COMMIT c.depth = $c5)"
out=$("$KILN" track --changes "$H" --json) || fail "--changes: $out"
python3 -c "
import json, sys
d = json.loads(sys.argv[1])[0]
s = [c for c in d['changes'] if c['series'] == 'steady']
assert len(s) == 1 and s[0]['commit'] == '$C6' and s[0]['moved_off_aa'] and abs(s[0]['ratio'] - 1.1) < 0.02, s
" "$out" || fail "the machine's step: $out"
out=$("$KILN" track --changes "$H") || fail "--changes: $out"
assert_contains "$out" "between two commits of one binary, where only the machine can change"
# a step of the code (c6's own) is not so marked
q "UPDATE figures SET steady_mean = steady_mean / 1.1 WHERE pexec_id IN (SELECT p.id FROM pexecs p JOIN runs r ON r.id = p.run_id
	JOIN commits c ON c.id = r.commit_id WHERE c.depth = (SELECT depth FROM commits WHERE hash = '$C5'))"
out=$("$KILN" track --changes "$H") || fail "--changes: $out"
assert_contains "$out" "$(echo "$C6" | cut -c1-12)"
grep -q "between two commits of one binary" <<<"$out" && fail "a step of the code marked as the machine's: $out"
true
