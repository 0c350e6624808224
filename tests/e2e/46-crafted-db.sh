# A .kiln.db from elsewhere cannot change what kiln reads or writes (issue
# 11, item 8): a trigger added to a results file once deleted the earlier
# pexecs' iterations when `kiln run` resumed it (exit 0), and a VIEW named
# pexecs that lists every pexec twice was read as data.  Files are opened
# defensively and any table, index, view or trigger kiln did not create,
# or created otherwise, is refused (exit 5) before anything is read or
# written; a file someone ran ANALYZE on is still read.
source "$KILN_ROOT/tests/lib.sh"
cd "$T"
cat > r.yaml <<Y
pexecs: 3
iterations: 1
vms:
  s: {plugin: command, path: /bin/sh}
benchmarks:
  one: {param: 0, args: ["-c", "true"]}
  two: {param: 0, args: ["-c", "true"]}
Y
q() { sqlite3 "$1" "$2"; }
"$KILN" run -q r.yaml --max-pexecs 3 || fail "first session"
assert_eq "$(q r.kiln.db "SELECT COUNT(*) FROM iterations")" 3 "three pexecs stored"
cp r.kiln.db clean.kiln.db

# ---- a trigger that deletes the other pexecs' iterations on resume ----
q r.kiln.db "CREATE TRIGGER wipe AFTER UPDATE ON pexecs BEGIN DELETE FROM iterations WHERE pexec_id <> NEW.id; END;"
sum=$(sha256sum <r.kiln.db)
"$KILN" run -q r.yaml >out.txt 2>&1; rc=$?
assert_eq "$rc" 5 "resume of a file with a trigger: $(cat out.txt)"
assert_contains "$(cat out.txt)" "r.kiln.db: not a schema kiln wrote: trigger 'wipe' is not one of kiln's"
assert_eq "$(q r.kiln.db "SELECT COUNT(*) FROM iterations")" 3 "iterations kept"
assert_eq "$(sha256sum <r.kiln.db)" "$sum" "the refused file is unchanged"
for cmd in "report r.kiln.db" "status r.kiln.db" "export r.kiln.db --format krun -o x.json" "audit r.kiln.db" \
	"plot r.kiln.db -o plots" "diff r.kiln.db clean.kiln.db" "plan r.kiln.db"; do
	# shellcheck disable=SC2086
	"$KILN" $cmd >out.txt 2>&1; rc=$?
	assert_eq "$rc" 5 "kiln $cmd on a file with a trigger: $(cat out.txt)"
	assert_contains "$(cat out.txt)" "trigger 'wipe' is not one of kiln's"
done
assert_eq "$(sha256sum <r.kiln.db)" "$sum" "readers left the file unchanged"

# ---- a VIEW that doubles pexecs ----
cp clean.kiln.db v.kiln.db
q v.kiln.db "ALTER TABLE pexecs RENAME TO px; CREATE VIEW pexecs AS SELECT * FROM px UNION ALL SELECT * FROM px;"
for cmd in "report v.kiln.db --format json" "status v.kiln.db" "export v.kiln.db --format csv -o x.csv"; do
	# shellcheck disable=SC2086
	"$KILN" $cmd >out.txt 2>&1; rc=$?
	assert_eq "$rc" 5 "kiln $cmd on a file with a view for pexecs: $(cat out.txt)"
	assert_contains "$(cat out.txt)" "v.kiln.db: not a schema kiln wrote"
done

# ---- other objects and changed definitions ----
refused() {
	cp clean.kiln.db c.kiln.db
	q c.kiln.db "$1" || fail "sqlite3: $1"
	"$KILN" report c.kiln.db >out.txt 2>&1; rc=$?
	assert_eq "$rc" 5 "$1: $(cat out.txt)"
	assert_contains "$(cat out.txt)" "$2"
}
refused "CREATE TABLE extra(x)" "table 'extra' is not one of kiln's"
refused "CREATE INDEX px_status ON pexecs(status)" "index 'px_status' is not one of kiln's"
refused "DROP TABLE events; CREATE TABLE events(pexec_id INTEGER NOT NULL, name TEXT, start_ns INTEGER,
	end_ns INTEGER DEFAULT (random()))" "table 'events' differs from kiln's"
refused "CREATE VIEW v AS SELECT 1" "view 'v' is not one of kiln's"
refused "CREATE VIRTUAL TABLE r USING rtree(id, a, b)" "table 'r' is not one of kiln's"
refused "CREATE TRIGGER t2 BEFORE INSERT ON cache BEGIN SELECT 1; END;" "trigger 't2' is not one of kiln's"

# ---- a pexec of a key that is not there: refused, nothing leaked on the way out ----
cp clean.kiln.db m.kiln.db
q m.kiln.db "UPDATE pexecs SET key_id = 99 WHERE id = 1"
for cmd in "report m.kiln.db" "status m.kiln.db" "export m.kiln.db --format csv -o x.csv"; do
	# shellcheck disable=SC2086
	"$KILN" $cmd >out.txt 2>&1; rc=$?
	assert_eq "$rc" 5 "kiln $cmd with a missing key: $(cat out.txt)"
	assert_contains "$(cat out.txt)" "m.kiln.db: pexec 1 refers to a missing key"
	if command -v valgrind >/dev/null && [ -z "${KILN_VALGRIND:-}" ] && [ -x "$KILN_ROOT/build/kiln" ] &&
		[ "${O:-build}" = build ]; then
		# shellcheck disable=SC2086
		valgrind -q --error-exitcode=99 --errors-for-leak-kinds=definite --leak-check=full \
			"$KILN" $cmd >/dev/null 2>vg.txt
		[ $? -eq 5 ] || fail "kiln $cmd with a missing key, under valgrind: $(cat vg.txt)"
	fi
done

# ---- what is kiln's is read, ANALYZE's statistics too ----
cp clean.kiln.db a.kiln.db
q a.kiln.db "ANALYZE"
"$KILN" report a.kiln.db >out.txt 2>&1 || fail "a file with ANALYZE statistics: $(cat out.txt)"
assert_contains "$(cat out.txt)" "one:s:default"
"$KILN" run -q r.yaml --results clean.kiln.db || fail "resume of the clean copy"
assert_eq "$(q clean.kiln.db "SELECT COUNT(*) FROM iterations")" 6 "the clean copy resumed to the end"
echo ok
