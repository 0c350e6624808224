# Durability, seen from outside: with `durability: power` (the default)
# every pexec is flushed to the disk once, in the pexec log (one fdatasync
# of RESULTS-log per pexec, counted with strace), and the results file's
# WAL is not flushed per pexec (the log is folded into it now and then);
# with `durability: crash` the loop flushes nothing per pexec.  While the
# run goes, the log already has room for the record of the pexec in
# flight, so its flush overwrites blocks instead of growing the file; the
# zeros past the last record never read as data: a run killed with -9 in
# the middle resumes with an intact file and the exact count.
source "$KILN_ROOT/tests/lib.sh"
command -v strace >/dev/null || skip "strace is not installed (scripts/deps.sh --test)"
cd "$T"
N=20
for d in power crash one; do
	cat > $d.yaml <<Y
pexecs: $([ $d = one ] && echo 1 || echo $N)
iterations: 1
durability: $([ $d = crash ] && echo crash || echo power)
vms: {t: {plugin: command, path: /bin/true}}
benchmarks: {noop: 0}
Y
	# (LeakSanitizer cannot work under ptrace: off for this run of a sanitized kiln;
	# KILN_LOG_FOLD_MS: every pexec short enough for the log however slow the
	# machine, under strace and a sanitizer: a pexec of a tenth of the fold
	# interval or more is committed to the file directly)
	KILN_LOG_FOLD_MS=10000 ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -qq -y -e trace=fdatasync,fsync -o $d.trace "$KILN" run -q $d.yaml || fail "$d run"
	assert_eq "$(sqlite3 $d.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status='ok'")" $([ $d = one ] && echo 1 || echo $N) \
		"$d: pexecs done"
done
plog=$(grep -c 'kiln.db-log>' power.trace)
pwal=$(grep -c 'kiln.db-wal>' power.trace)
clog=$(grep -c 'kiln.db-log>' crash.trace)
cwal=$(grep -c 'kiln.db-wal>' crash.trace)
# a run of one pexec: the WAL's flushes of set-up, the end and one fold
owal=$(grep -c 'kiln.db-wal>' one.trace)
# one flush of the log per pexec (and its reservation and a growth), none of the WAL
[ "$plog" -ge $N ] && [ "$plog" -le $((N + 3)) ] ||
	fail "durability: power flushed the log $plog times for $N pexecs (one each, and up to 3 for its space)"
# (a run of a few ms folds at its end)
[ "$pwal" -le $((owal + 2)) ] || fail "durability: power flushed the WAL $pwal times for $N pexecs, $owal for one"
[ $((clog + cwal)) -lt $((N / 2)) ] || fail "durability: crash flushed the log $clog and the WAL $cwal times for $N pexecs"
[ ! -e power.kiln.db-log ] || fail "the log is left behind after the run"

# the WAL's size once a pexec's process runs: wal_while_running NAME (NAME.yaml)
wal_while_running() {
	"$KILN" run -q $1.yaml &
	local pid=$! size=0
	# (as long as kiln runs: on a loaded machine its start alone took more than a fixed wait)
	while kill -0 $pid 2>/dev/null; do
		# (the pexec's sleep, not the audit's `sleep --version` when the VM is not in the cache)
		if pgrep -P $pid -f "^/bin/sleep [0-9]" >/dev/null; then
			size=$(stat -c %s $1.kiln.db-wal 2>/dev/null || echo 0)
			break
		fi
		sleep 0.05
	done
	wait $pid || return 1
	echo "$size"
}
# the WAL's size while pexecs run: 1024 frames of a 4 KiB page and a 24-byte
# header, plus the 32-byte WAL header (for a session of 32 pexecs or more:
# reserving costs a 4 MiB write and a flush, more than a few commits save)
# (kmsg off: other tests' deliberate kernel-log lines would taint a pexec of these)
cat > nap.yaml <<'Y'
pexecs: 40
vms: {s: {plugin: command, path: /bin/sleep}}
benchmarks: {nap: {param: "0.03", args: ["{param}"]}}
platform: {kmsg: off}
Y
size=$(wal_while_running nap) || fail "nap run"
[ "$size" -ge $((1024 * 4120 + 32)) ] || fail "WAL size while a pexec ran: $size"
[ ! -e nap.kiln.db-wal ] || fail "the WAL is left behind after the run"
assert_eq "$(sqlite3 nap.kiln.db "PRAGMA integrity_check")" ok "integrity after the run"

# a session of a few pexecs does not reserve it
sed 's/pexecs: 40/pexecs: 3/; s/"0.03"/"0.4"/' nap.yaml > few.yaml
size=$(wal_while_running few) || fail "few run"
[ "$size" -gt 0 ] || fail "no WAL seen while the 3-pexec session ran"
[ "$size" -lt $((1024 * 4120)) ] || fail "WAL of a 3-pexec session reserved: $size"

# killed in the middle of a run: recovery reads the WAL up to its last commit
rm -f nap.kiln.db*
"$KILN" run -q nap.yaml &
pid=$!
two_ok() { [ "$(sqlite3 nap.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status='ok'")" -ge 2 ]; }
wait_until 5 two_ok
kill -9 $pid
wait $pid 2>/dev/null
done_before=$(sqlite3 nap.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status='ok'")
[ "$done_before" -ge 2 ] || fail "commits before the kill: $done_before"
"$KILN" run -q nap.yaml || fail "resume"
assert_eq "$(sqlite3 nap.kiln.db "PRAGMA integrity_check")" ok "integrity after kill -9 and resume"
assert_eq "$(sqlite3 nap.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status='ok'")" 40 "pexecs after resume"
assert_eq "$(sqlite3 nap.kiln.db "SELECT COUNT(*) FROM iterations")" 40 "one iteration row per pexec"
echo ok
