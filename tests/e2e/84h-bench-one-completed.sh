# kiln bench of two commands, one of which fails every run: its Summary
# says there is no ratio and why, where it printed "Summary" and "'true'
# ran" with nothing after it (a sentence cut off); exit 1 for the failures.
source "$KILN_ROOT/tests/lib.sh"
cd "$T"
out=$("$KILN" bench -r 3 'true' 'false' -o f.kiln.db 2>&1); rc=$?
assert_eq "$rc" 1 "a command that failed every run: $out"
assert_contains "$out" "no completed runs: every run failed"
assert_contains "$out" "^  no ratio: 1 of 2 commands completed a run$"
grep -q "^  'true' ran$" <<<"$out" && fail "a ratio sentence with nothing after it: $out"
echo ok
