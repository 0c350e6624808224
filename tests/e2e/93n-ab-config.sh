# kiln track --compare and kiln bisect reuse what the history has of the
# two commits (their stored A/B rounds, a commit found broken) only when it
# was measured with the same config.  Before, a config changed (a
# benchmark's param, the iterations, the build steps) still took the
# rounds of the old one: a --compare after the change measured nothing
# and printed the old config's figures, and a commit that failed to build
# under a broken build step stayed "does not build" after the step was
# fixed.
source "$KILN_ROOT/tests/lib.sh"
source "$KILN_ROOT/tests/lib-history.sh"
history_test_begin
H=$T/h.db
sessions() { sqlite3 "$H" "SELECT COUNT(DISTINCT session) FROM runs WHERE kind='ab' AND status='ok'"; }

# --compare c0 c1 (one binary) with the config as it is: about 2 ms an iteration
out=$("$KILN" track exp/toy.yaml --repo repo -o "$H" --compare "$HIST_C0" "$HIST_C1" --pexecs 3 2>&1) || fail "compare: $out"
assert_contains "$out" "| \`b:toy:default-toy\` | [12]\.[0-9]* ms | [12]\.[0-9]* ms |"
assert_eq "$(sessions)" 1 "one session"
# the benchmark's param tripled: its rounds are measured anew (about 6 ms), not the old ones shown
sed 's/^  b: 1$/  b: 3/' exp/toy.yaml > exp/toy3.yaml
grep -q '^  b: 3$' exp/toy3.yaml || fail "the param not changed: $(cat exp/toy3.yaml)"
out=$("$KILN" track exp/toy3.yaml --repo repo -o "$H" --compare "$HIST_C0" "$HIST_C1" --pexecs 3 2>&1) || fail "compare 3: $out"
assert_contains "$out" "| \`b:toy:default-toy\` | [5-6]\.[0-9]* ms | [5-6]\.[0-9]* ms |"
assert_contains "$out" "^3 rounds"
assert_eq "$(sessions)" 2 "a session of the new config"
# the first config again: its own rounds, stored, and its figures
out=$("$KILN" track exp/toy.yaml --repo repo -o "$H" --compare "$HIST_C0" "$HIST_C1" --pexecs 3 2>&1) || fail "compare again: $out"
assert_contains "$out" "| \`b:toy:default-toy\` | [12]\.[0-9]* ms | [12]\.[0-9]* ms |"
assert_eq "$(sessions)" 2 "nothing measured again"

# a build step that fails: GOOD recorded broken; the step fixed, bisect builds GOOD again and finds the culprit
sed 's|^    build: .*|    build: [sh, -c, "exit 1"]|' exp/toy.yaml > exp/broken.yaml
out=$("$KILN" bisect exp/broken.yaml --repo repo -o "$H" "$HIST_C0" "$HIST_C3" --key b -q 2>&1)
assert_eq $? 1 "a broken build step: $out"
assert_contains "$out" "GOOD commit does not build"
out=$("$KILN" bisect exp/toy.yaml --repo repo -o "$H" "$HIST_C0" "$HIST_C3" --key b --json -q 2>&1) || fail "bisect fixed: $out"
python3 -c "import json,sys; d=json.load(sys.stdin); assert d['outcome']=='found' and d['culprit']=='$HIST_C2', d" <<<"$out" ||
	fail "the culprit: $out"
echo ok
