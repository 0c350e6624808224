# kiln bisect GOOD BAD: GOOD must be on BAD's first-parent line.  GOOD..BAD
# walks BAD's first parents down to what GOOD reaches, so a GOOD off that
# line (a branch of its own, or one merged in as a second parent) gave a
# list whose first commit after GOOD is not GOOD's child: the search ran
# over commits GOOD never had below it and named a culprit whose "parent
# like GOOD" it printed was not its parent.  Refused now, exit 2.
source "$KILN_ROOT/tests/lib.sh"
source "$KILN_ROOT/tests/lib-history.sh"
history_test_begin
# a branch off c1 with a commit of its own
git -C repo checkout -q -b side "$HIST_C1"
echo "a note on the side" > repo/SIDE
git -C repo add -A && git -C repo commit -q -m "side: a note"
side=$(git -C repo rev-parse HEAD)
# a feature off c0, merged into main after c7 as the merge's second parent
git -C repo checkout -q -b feature "$HIST_C0"
echo "a feature" > repo/FEATURE
git -C repo add -A && git -C repo commit -q -m "feature: a file"
feature=$(git -C repo rev-parse HEAD)
git -C repo checkout -q main
git -C repo merge -q --no-ff -m "merge the feature" feature
merge=$(git -C repo rev-parse HEAD)

out=$("$KILN" bisect exp/toy.yaml --repo repo -o h.db "$side" main --key b -q 2>&1)
assert_eq $? 2 "GOOD on a branch of its own: $out"
assert_contains "$out" "is not a first-parent descendant of"
assert_contains "$out" "${HIST_C2:0:12}"
out=$("$KILN" bisect exp/toy.yaml --repo repo -o h.db "$feature" "$merge" --key b -q 2>&1)
assert_eq $? 2 "GOOD merged in as a second parent: $out"
assert_contains "$out" "is not a first-parent descendant of"
# on the line: searched (c1 like c0, the culprit c2 with c1 its parent)
out=$("$KILN" bisect exp/toy.yaml --repo repo -o h.db "$HIST_C1" "$merge" --key b --json -q 2>&1) || fail "on the line: $out"
python3 -c "import json,sys; d=json.load(sys.stdin); assert d['outcome']=='found' and d['culprit']=='$HIST_C2', d" <<<"$out" ||
	fail "the culprit: $out"
echo ok
