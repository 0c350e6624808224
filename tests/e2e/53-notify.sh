# platform.notify: the command runs on a failed pexec, on a tainted one,
# when the experiment completes and when the run itself stops before that
# (SIGTERM: `stopped`; kill -9, as the OOM killer does: `died`, sent by a
# watcher; a full disk: `stopped`), with the event and message in its
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
# the run stops: SIGTERM
cat > s.yaml <<Y
pexecs: 20
iterations: 10
vms: {slow: {plugin: external, runner: [$FAKE, slow, "{iterations}"], language: c, entry: bench.c}}
benchmarks: {spin: 1}
platform: {notify: [$T/note.sh]}
Y
: > notes.txt
oks() { sqlite3 "$1" "SELECT COUNT(*) FROM pexecs WHERE status='ok'" 2>/dev/null || echo 0; }
more_oks() { [ "$(oks "$1")" -gt "$2" ]; }
wait_pexec() { # wait_pexec FILE [N]: more than N (0) pexecs of FILE are stored (a minute: kiln under valgrind starts slowly)
	wait_until 60 more_oks "$1" "${2:-0}" || fail "no pexec finished"
}
"$KILN" run -q s.yaml & pid=$!
wait_pexec s.kiln.db
kill -TERM $pid; wait $pid; assert_eq $? 130 "SIGTERM"
grep -q "^stopped|.*s.kiln.db stopped (exit 130) with [0-9]* of 20 pexecs pending: interrupted" notes.txt ||
	fail "no stopped note: $(cat notes.txt)"
grep -q "^died|" notes.txt && fail "a died note for a run that stopped as it should"
# kill -9 (what the OOM killer sends): the watcher says so
: > notes.txt
before=$(oks s.kiln.db)
"$KILN" run -q s.yaml & pid=$!
wait_pexec s.kiln.db "$before"
kill -KILL $pid; wait $pid
wait_until 30 test -s notes.txt
grep -q "^died|kiln run of $T/s.kiln.db (pid $pid) ended without finishing its session: killed" notes.txt ||
	fail "no died note: $(cat notes.txt)"
# the watcher holds nothing of kiln's: the next run takes the lock and resumes
before=$(oks s.kiln.db)
"$KILN" run -q s.yaml & pid=$!
wait_pexec s.kiln.db "$before"
kill -TERM $pid; wait $pid; assert_eq $? 130 "resumed after kill -9 (the watcher held no lock)"
# a full disk mid-run: the results on a small tmpfs, filled once a pexec is stored (root only)
if [ "$(id -u)" = 0 ] && mkdir full && mount -t tmpfs -o size=2m kiln-reports-full full 2>/dev/null; then
	trap 'umount "$T/full" 2>/dev/null' EXIT
	sed "s|^platform:|results: full/s.kiln.db\nplatform:|" s.yaml > f.yaml
	: > notes.txt
	"$KILN" run -q f.yaml 2>f.err & pid=$!
	wait_pexec full/s.kiln.db
	dd if=/dev/zero of=full/filler bs=64k 2>/dev/null
	wait $pid; rc=$?
	assert_eq $rc 5 "disk full: $(cat f.err)"
	grep -q "^stopped|.*full/s.kiln.db stopped (exit 5) with [0-9]* of 20 pexecs pending: .*disk is full" notes.txt ||
		fail "no stopped note on a full disk: $(cat notes.txt)"
	umount full
	trap - EXIT
fi
echo ok
