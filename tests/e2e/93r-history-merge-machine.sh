# kiln merge HISTORY OTHER says when a machine of OTHER is not the machine
# HISTORY knows by that name (another CPU model, CPU count or memory, as
# kiln track says it of a machine that comes back changed): its runs join
# that name's series, which are then not one machine's.  The merge used to
# say nothing (two hosts left at one default name merged into one series).
source "$KILN_ROOT/tests/lib.sh"
source "$KILN_ROOT/tests/lib-history.sh"
history_test_tools
history_line repo 3
make_history_config exp/toy.yaml 2
H=$T/h.db
O=$T/o.db
"$KILN" track exp/toy.yaml --repo repo -o "$H" --machine lab -q "$HIST_L0" || fail "lab's c0"
"$KILN" track exp/toy.yaml --repo repo -o "$O" --machine lab -q "$HIST_L1" || fail "the other lab's c1"
cp "$O" "$T/same.db"
# the other file's "lab" another machine (as its track on another host would have recorded it)
sqlite3 "$O" "UPDATE machines SET identity = json_set(identity, '\$.cpu_model', 'Other CPU 9000', '\$.cpus', 512)" ||
	fail "the other identity"
out=$("$KILN" merge "$H" "$T/same.db" 2>&1) || fail "merge of the same machine: $out"
case $out in *"is not the machine"*) fail "the same machine said to be another: $out" ;; esac
out=$("$KILN" merge "$H" "$O" 2>&1) || fail "merge: $out"
assert_contains "$out" "$O: its machine 'lab' is not the machine this history knows by that name (cpu_model"
assert_contains "$out" "cpus"
echo ok
