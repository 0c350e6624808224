# kiln run into a results file that kiln import made (keys and pexecs, no
# experiment's config) is refused saying so, and the imported data is left
# as it was; it failed with SQLite's "keys: UNIQUE constraint failed:
# keys.id", which named nothing the user could act on.
source "$KILN_ROOT/tests/lib.sh"
cd "$T"
printf 'pexec_idx,bench,0,1\n0,a:s:default-command,0.1,0.2\n1,a:s:default-command,0.3,0.4\n' > x.csv
"$KILN" import x.csv -o imp.kiln.db >/dev/null || fail "import"
cat > r.yaml <<Y
pexecs: 2
iterations: 1
vms:
  s: {plugin: command, path: /bin/sh}
benchmarks:
  a: {param: 0, args: ["-c", "true"]}
Y
rows=$(sqlite3 imp.kiln.db "SELECT * FROM keys; SELECT id, key_id, num, seq, status FROM pexecs; SELECT hex(wall) FROM iterations")
"$KILN" run -q r.yaml -o imp.kiln.db >out.txt 2>&1; rc=$?
assert_eq "$rc" 5 "run into an imported file: $(cat out.txt)"
assert_contains "$(cat out.txt)" "imp.kiln.db holds the results of 1 key(s) but no experiment's config (imported from x.csv by kiln import)"
assert_eq "$(sqlite3 imp.kiln.db "SELECT * FROM keys; SELECT id, key_id, num, seq, status FROM pexecs; SELECT hex(wall) FROM iterations")" \
	"$rows" "the imported results are unchanged"
assert_eq "$(sqlite3 imp.kiln.db "SELECT COUNT(*) FROM meta WHERE name='config_hash'")" 0 "no experiment stored"
# a new file still runs
"$KILN" run -q r.yaml -o new.kiln.db || fail "run into a new file"
echo ok
