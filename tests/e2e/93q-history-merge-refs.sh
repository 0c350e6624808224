# kiln merge HISTORY OTHER refuses an OTHER whose rows name rows it does not
# have (a pexec of no key, a measurement of no pexec, a run of no commit):
# the copy joined on them, so such a row was left out of its pexec and still
# copied, its id moved past HISTORY's, and the next pexec HISTORY numbered
# (the next commit tracked) took it as its own: a crafted file planted a
# series and a scalar in a later measurement.  Now nothing of that OTHER is
# merged (exit 5), the message names the file, the table and the id.
source "$KILN_ROOT/tests/lib.sh"
source "$KILN_ROOT/tests/lib-history.sh"
history_test_tools
history_line repo 3
make_history_config exp/toy.yaml 2
H=$T/h.db
O=$T/o.db
"$KILN" track exp/toy.yaml --repo repo -o "$H" -q "$HIST_L0" || fail "this machine's c0"
"$KILN" track exp/toy.yaml --repo repo -o "$O" --machine other -q "$HIST_L0" || fail "the other machine's c0"
dump() { sqlite3 "$H" "SELECT COUNT(*) FROM runs; SELECT COUNT(*) FROM pexecs; SELECT COUNT(*) FROM series;
	SELECT COUNT(*) FROM scalars; SELECT COUNT(*) FROM events; SELECT COUNT(*) FROM iterations"; }
before=$(dump)
m=$(sqlite3 "$O" "SELECT MAX(id) FROM pexecs")
r=$(sqlite3 "$O" "SELECT MAX(id) FROM runs")
crafted() { # NAME SQL: a copy of O with SQL run in it
	cp "$O" "$T/$1.db"
	sqlite3 "$T/$1.db" "$2" || fail "crafting $1"
}
crafted nokey "INSERT INTO pexecs(id, run_id, key_id, num, status) VALUES ($((m + 1)), $r, 999, 0, 'ok');
	INSERT INTO series VALUES ($((m + 1)), 'planted', 's', x'0000000000000000');
	INSERT INTO scalars VALUES ($((m + 1)), 'planted', 's', 42)"
crafted nopexec "INSERT INTO series VALUES ($((m + 7)), 'planted', 's', x'0000000000000000');"
crafted noevent "INSERT INTO events VALUES ($((m + 1)), 'planted', 1, 2)"
crafted norun "INSERT INTO run_meta VALUES ($((r + 5)), 'planted', 'x')"
for f in nokey:"pexecs names key_id 999" nopexec:"series names pexec_id $((m + 7))" \
	noevent:"events names pexec_id $((m + 1))" norun:"run_meta names run_id $((r + 5))"; do
	out=$("$KILN" merge "$H" "$T/${f%%:*}.db" 2>&1); assert_eq $? 5 "${f%%:*}: $out"
	assert_contains "$out" "$T/${f%%:*}.db: a row of ${f#*:}, which the file does not have"
	assert_eq "$(dump)" "$before" "${f%%:*}: nothing merged"
done
# the next commit tracked has only what it measured
"$KILN" track exp/toy.yaml --repo repo -o "$H" -q "$HIST_L1" || fail "c1"
assert_eq "$(sqlite3 "$H" "SELECT COUNT(*) FROM series WHERE name='planted'") $(sqlite3 "$H" "SELECT COUNT(*) FROM scalars WHERE name='planted'")" \
	"0 0" "nothing planted"
# the file as kiln wrote it merges
out=$("$KILN" merge "$H" "$O" 2>&1) || fail "merge: $out"
assert_contains "$out" "1 runs merged, 0 there already"
assert_eq "$(sqlite3 "$H" "SELECT COUNT(*) FROM series WHERE pexec_id NOT IN (SELECT id FROM pexecs)")" 0 "no orphans"
echo ok
