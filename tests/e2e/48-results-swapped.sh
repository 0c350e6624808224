# The results file under a run (issue 11, items 10 and 13).  Deleted or
# replaced mid-run, it once took the run with it: kiln ran on into the
# unlinked file and exited 0, a second kiln started on the path beside it,
# and two --quick runs at once deleted each other's file.  kiln now checks
# before every commit that the path still names the file it locked and
# stops with exit 5; a --quick run removes an old quick file only under its
# lock.  Of two kilns started together the second takes the lock before
# SQLite touches the file, so it exits 4, never 5 ("database is locked").
source "$KILN_ROOT/tests/lib.sh"
cd "$T"
# each pexec waits while $T/hold exists, after saying it started
cat > r.yaml <<Y
pexecs: 4
iterations: 1
vms:
  s: {plugin: command, path: /bin/sh}
benchmarks:
  w: {param: 0, args: ["-c", "touch $T/started; while [ -e $T/hold ]; do sleep 0.05; done"]}
Y
cp r.yaml other.yaml
wait_started() { wait_until 60 test -e started || fail "no pexec started"; }
q() { sqlite3 "$1" "$2"; }
# start `kiln run ARGS` held in its first pexec; its pid in $pid
start_held() {
	rm -f started
	touch hold
	"$KILN" run -q "$@" >out.txt 2>err.txt & pid=$!
	wait_started
}

# ---- deleted mid-run ----
start_held r.yaml
rm -f r.kiln.db r.kiln.db-wal r.kiln.db-shm
rm -f hold
wait $pid; rc=$?
assert_eq $rc 5 "results deleted mid-run: $(cat err.txt)"
assert_contains "$(cat err.txt)" "r.kiln.db: the results file was deleted or moved while this run had it open: stopping"
[ -e r.kiln.db ] && fail "a results file came back"

# ---- replaced mid-run, and a second kiln on the path meanwhile ----
"$KILN" run -q other.yaml --results o.kiln.db --max-pexecs 1 || fail "other results"
start_held r.yaml
mv r.kiln.db moved.kiln.db
cp o.kiln.db r.kiln.db
sum=$(sha256sum <r.kiln.db)
rm -f hold
wait $pid; rc=$?
assert_eq $rc 5 "results replaced mid-run: $(cat err.txt)"
assert_contains "$(cat err.txt)" "the results file was replaced by another file while this run had it open: stopping"
assert_eq "$(sha256sum <r.kiln.db)" "$sum" "nothing was written into the file that took its place"
# what the run had committed went into the moved file, not into the new one
assert_eq "$(q moved.kiln.db "SELECT COUNT(*) FROM pexecs")" 4 "the moved file has its schedule"
assert_eq "$(q moved.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status='ok'")" 0 "the pexec in flight was not stored"
assert_eq "$(stat -c %s r.kiln.db-wal 2>/dev/null || echo 0)" 0 "the WAL by the path's name holds none of its frames"
assert_eq "$(q r.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status='ok'")" 1 "the new file reads as itself"
rm -f r.kiln.db*
start_held r.yaml
first=$pid
rm -f r.kiln.db r.kiln.db-wal r.kiln.db-shm
rm -f hold
"$KILN" run -q r.yaml --max-pexecs 2 2>err2.txt || fail "a second kiln on the path: $(cat err2.txt)"
wait $first; rc=$?
assert_eq $rc 5 "the first kiln, its file gone, stops: $(cat err.txt)"
assert_eq "$(q r.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status='ok'")" 2 "only the second kiln's pexecs in the new file"

# ---- only the main file deleted: its WAL is not taken for a new file's ----
rm -f r.kiln.db*
start_held r.yaml
first=$pid
rm -f r.kiln.db
"$KILN" run -q r.yaml --max-pexecs 1 >/dev/null 2>err2.txt; rc=$?
assert_eq $rc 5 "a kiln beside a deleted file's WAL: $(cat err2.txt)"
assert_contains "$(cat err2.txt)" "r.kiln.db-wal is there beside an empty results file: it belongs to a results file that was deleted"
rm -f hold
wait $first; rc=$?
assert_eq $rc 5 "the first kiln, its file deleted: $(cat err.txt)"

# ---- two --quick runs at once ----
rm -f r.kiln.db* r.quick.kiln.db*
"$KILN" run -q r.yaml --quick --max-pexecs 1 || fail "first quick run"
start_held r.yaml --quick
qa=$pid
ino=$(stat -c %i r.quick.kiln.db)
timeout 30 "$KILN" run -q r.yaml --quick >/dev/null 2>err2.txt; rc=$?
assert_eq $rc 4 "a second --quick run while one runs: $(cat err2.txt)"
assert_contains "$(cat err2.txt)" "another kiln is running this experiment"
assert_eq "$(stat -c %i r.quick.kiln.db)" "$ino" "the running quick run's file is still there"
rm -f hold
wait $qa || fail "the first quick run: $(cat err.txt)"
assert_eq "$(q r.quick.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status='ok'")" 1 "the first quick run finished in its file"

# ---- two kilns started together: the second exits 4 and never opens the database ----
if command -v strace >/dev/null; then
	rm -f r.kiln.db*
	start_held r.yaml
	# (LeakSanitizer cannot run under strace)
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -e trace=openat,flock -o trace.txt "$KILN" run -q r.yaml >/dev/null 2>err2.txt; rc=$?
	rm -f hold
	wait $pid || fail "the first kiln: $(cat err.txt)"
	assert_eq $rc 4 "the second kiln: $(cat err2.txt)"
	grep -q 'r\.kiln\.db-\(wal\|shm\)' trace.txt && fail "the second kiln opened the database: $(grep r.kiln.db trace.txt)"
fi
cat > f.yaml <<Y
pexecs: 1
iterations: 1
vms:
  s: {plugin: command, path: /bin/true}
benchmarks:
  t: {param: 0}
Y
for i in $(seq 6); do
	rm -f f.kiln.db*
	"$KILN" run -q f.yaml 2>e1.txt & a=$!
	"$KILN" run -q f.yaml 2>e2.txt & b=$!
	wait $a; ra=$?
	wait $b; rb=$?
	[ "$((ra + rb))" = 4 ] && [ $((ra * rb)) = 0 ] || fail "try $i: two kilns exited $ra and $rb: $(cat e1.txt e2.txt)"
done
echo ok
