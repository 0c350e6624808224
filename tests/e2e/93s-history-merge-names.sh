# kiln merge HISTORY OTHER says what is wrong with an OTHER it cannot take,
# and names it: HISTORY itself (it said "HISTORY: database is locked"), a
# symbolic link (SQLite does not follow it: "unable to open database"), a
# file that is not there, a folder.
source "$KILN_ROOT/tests/lib.sh"
source "$KILN_ROOT/tests/lib-history.sh"
history_test_tools
history_line repo 2
make_history_config exp/toy.yaml 2
H=$T/h.db
"$KILN" track exp/toy.yaml --repo repo -o "$H" -q "$HIST_L0" || fail "c0"
out=$("$KILN" merge "$H" "$H" 2>&1); assert_eq $? 2 "HISTORY into itself: $out"
assert_contains "$out" "$H is the history merged into"
cp "$H" "$T/copy.db"
ln -s copy.db "$T/link.db"
out=$("$KILN" merge "$H" "$T/link.db" 2>&1); assert_eq $? 5 "a link: $out"
assert_contains "$out" "$T/link.db: a symbolic link: refused"
out=$("$KILN" merge "$H" "$T/none.db" 2>&1); assert_eq $? 5 "no such file: $out"
assert_contains "$out" "$T/none.db: cannot read it: No such file or directory"
[ ! -e "$T/none.db" ] || fail "a merge made the file it was to read"
mkdir "$T/dir.db"
out=$("$KILN" merge "$H" "$T/dir.db" 2>&1); assert_eq $? 5 "a folder: $out"
assert_contains "$out" "$T/dir.db: not a regular file"
out=$("$KILN" merge "$H" "$T/copy.db" 2>&1) || fail "the copy: $out"
assert_contains "$out" "0 runs merged, 1 there already"
echo ok
