# platform.notify: the command runs on a failed pexec, on a tainted one and
# when the experiment completes, with the event and message in its
# environment; a notify command that fails only warns.
source "$KILN_ROOT/tests/lib.sh"
make_suite
cd "$T"
cat > note.sh <<'S'
#!/bin/sh
echo "$KILN_NOTIFY_EVENT|$KILN_NOTIFY_MESSAGE" >> "$(dirname "$0")/notes.txt"
S
chmod +x note.sh
cat > n.yaml <<Y
pexecs: 2
iterations: 3
vms:
  native: {plugin: c}
  bad: {plugin: external, runner: [$FAKE, garbage, "{iterations}"], language: c, entry: bench.c}
benchmarks: {spin: 100}
platform: {notify: [$T/note.sh]}
Y
"$KILN" run -q n.yaml; assert_eq $? 1 "run with failures"
assert_eq "$(grep -c '^failure|spin:bad:default-c pexec' notes.txt)" 2 "one failure note per failed pexec"
assert_eq "$(grep -c '^complete|' notes.txt)" 1 "one completion note"
grep -q '^complete|.*4 pexecs, 2 failed' notes.txt || fail "completion message: $(cat notes.txt)"
# resuming a complete experiment notifies nobody again
"$KILN" run -q n.yaml; assert_eq "$(grep -c '^complete|' notes.txt)" 1 "no second completion note"
# a failing notify command warns and the run goes on
sed -i "s|notify: \[$T/note.sh\]|notify: [/bin/false]|" n.yaml
rm -f n.kiln.db*
out=$("$KILN" run n.yaml 2>&1)
assert_contains "$out" "warning: notify"
assert_eq "$(sqlite3 n.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status='ok'")" 2 "run completed despite notify failing"
echo ok
