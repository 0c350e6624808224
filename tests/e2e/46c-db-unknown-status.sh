# A pexec whose status is not one kiln writes (a results file edited, or
# written by another program or version) is refused naming the pexec and
# the status.  It was read as pending: `kiln status` counted it so, and a
# resumed run ran it again over the rows it still had; that commit failed
# on iterations' key, was left in the pexec log, and every later
# `kiln run` failed (exit 5, "UNIQUE constraint failed").
source "$KILN_ROOT/tests/lib.sh"
cd "$T"
cat > r.yaml <<Y
pexecs: 3
iterations: 1
vms:
  s: {plugin: command, path: /bin/sh}
benchmarks:
  a: {param: 0, args: ["-c", "true"]}
Y
q() { sqlite3 r.kiln.db "$1"; }
"$KILN" run -q r.yaml || fail "first run"
q "UPDATE pexecs SET status='OK' WHERE num=1"
rows=$(q "SELECT num, status, attempts, wall_start_ns FROM pexecs ORDER BY num")
for cmd in "status r.kiln.db" "report r.kiln.db" "run -q r.yaml"; do
	# shellcheck disable=SC2086
	"$KILN" $cmd >out.txt 2>&1; rc=$?
	assert_eq "$rc" 5 "kiln $cmd on a file with an unknown status: $(cat out.txt)"
	assert_contains "$(cat out.txt)" "pexec 1 of key a:s:default-command has status 'OK', not one kiln writes"
done
assert_eq "$(q "SELECT num, status, attempts, wall_start_ns FROM pexecs ORDER BY num")" "$rows" "nothing ran again"
[ ! -s r.kiln.db-log ] || [ "$(od -An -tx1 -N4 r.kiln.db-log | tr -d ' ')" != 4b4c4731 ] ||
	fail "a record was left in the pexec log"
# the status put back: the file reads and resumes as before
q "UPDATE pexecs SET status='ok' WHERE num=1"
"$KILN" run -q r.yaml || fail "resume of the repaired file"
"$KILN" status r.kiln.db >out.txt 2>&1 || fail "status: $(cat out.txt)"
assert_contains "$(cat out.txt)" "3 of 3 pexecs done"
echo ok
