# The pexec log (docs/results.md#the-pexec-log) after a crash: a kiln killed
# -9 with finished pexecs only in RESULTS-log loses none of them (readers
# say they are pending there, the next run folds them in, exactly once); a
# torn last record counts as not written (its pexec runs again, once); a log
# of another results file, or of another generation, is never folded in; a
# record of other statements is refused; a link or a FIFO in the log's
# place is not followed or waited on.
source "$KILN_ROOT/tests/lib.sh"
cd "$T"
N=8
# the benchmark counts its runs in its folder; the 5th run sleeps (kill -9 then)
cat > bench.sh <<'S'
c=$(dirname "$0")/count
n=$(cat "$c" 2>/dev/null || echo 0); n=$((n + 1)); echo $n > "$c"
[ $n -eq 5 ] && exec sleep 30
exit 0
S
mk() { # NAME: an experiment of N pexecs in folder NAME
	mkdir -p "$1" && cp bench.sh "$1/"
	cat > "$1/exp.yaml" <<Y
pexecs: $N
iterations: 1
vms: {sh: {plugin: command, path: /bin/sh}}
benchmarks: {count: {args: ["$T/$1/bench.sh"]}}
Y
}
# run NAME until its 5th pexec sleeps, then kill -9 kiln (no fold for 60 s before)
in_pexec() { [ "$(cat "$1/count")" = "$2" ] && pgrep -P "$3" -x sleep; } # DIR N PID: kiln PID's Nth pexec sleeps
run_killed() {
	(cd "$1" && KILN_LOG_FOLD_MS=60000 exec "$KILN" run -q exp.yaml) &
	local pid=$!
	wait_until 20 in_pexec "$1" 5 $pid
	[ "$(cat "$1/count" 2>/dev/null)" = 5 ] || fail "$1: the 5th pexec never started"
	kill -9 $pid
	wait $pid 2>/dev/null
}
ok() { sqlite3 "$1/exp.kiln.db" "SELECT COUNT(*) FROM pexecs WHERE status='ok'"; }

# 1. killed with 4 finished pexecs in the log and none in the file
mk a
run_killed a
[ -s a/exp.kiln.db-log ] || fail "no pexec log after kill -9"
assert_eq "$(ok a)" 0 "pexecs in the results file before the fold (they are in the log)"
out=$("$KILN" status a/exp.kiln.db 2>&1) || fail "status: $out"
assert_contains "$out" "4 finished pexec(s) are kept in .*exp.kiln.db-log and not yet in the results"
out=$("$KILN" export a/exp.kiln.db --format csv -o a/x.csv 2>&1) || fail "export: $out"
assert_contains "$out" "4 finished pexec(s) are kept"
cp a/exp.kiln.db a/keep.db && cp a/exp.kiln.db-log a/keep.db-log
(cd a && "$KILN" run -q exp.yaml) || fail "resume"
assert_eq "$(ok a)" $N "pexecs after the resume"
assert_eq "$(sqlite3 a/exp.kiln.db "SELECT COUNT(*) FROM iterations")" $N "one iteration row per pexec"
# each of the 4 logged pexecs ran once: 4, the killed 5th, then 4 more
assert_eq "$(cat a/count)" $((N + 1)) "benchmark runs (the 4 logged pexecs not run again)"
[ ! -e a/exp.kiln.db-log ] || fail "the log is left behind after the resume"
assert_eq "$(sqlite3 a/exp.kiln.db "PRAGMA integrity_check")" ok "integrity"
out=$("$KILN" status a/exp.kiln.db 2>&1)
grep -q "kept in" <<<"$out" && fail "status still speaks of a log: $out"

# 2. a torn last record (the 4th: records are 4 KiB blocks) counts as not written
mk b
run_killed b
python3 - b/exp.kiln.db-log <<'P'
import sys
f = open(sys.argv[1], "r+b")
f.seek(3 * 4096 + 64)
f.write(b"\0" * 200)  # what a power cut in the middle of the write leaves
P
(cd b && "$KILN" run -q exp.yaml) || fail "resume after a torn record"
assert_eq "$(ok b)" $N "pexecs after a torn record"
assert_eq "$(sqlite3 b/exp.kiln.db "SELECT COUNT(*) FROM iterations")" $N "iterations after a torn record"
assert_eq "$(cat b/count)" $((N + 2)) "benchmark runs (the torn 4th ran again)"

# 3. a log beside another results file is never folded into it: c is killed
# before anything is logged, then given a's saved log
mk c
sed -i 's/-eq 5/-eq 1/' c/bench.sh
(cd c && KILN_LOG_FOLD_MS=60000 exec "$KILN" run -q exp.yaml) &
pid=$!
wait_until 20 in_pexec c 1 $pid
kill -9 $pid; wait $pid 2>/dev/null
cp a/keep.db-log c/exp.kiln.db-log
out=$("$KILN" status c/exp.kiln.db 2>&1)
grep -q "kept in" <<<"$out" && fail "status counts another file's log: $out"
(cd c && "$KILN" run -q exp.yaml) || fail "run beside another file's log"
assert_eq "$(ok c)" $N "pexecs beside another file's log"
assert_eq "$(cat c/count)" $((N + 1)) "benchmark runs in c (none taken from a's log)"

# ... nor one of an earlier generation of the same file: a's log as it was
# before the resume folded it
cp a/keep.db-log a/exp.kiln.db-log
out=$("$KILN" status a/exp.kiln.db 2>&1)
grep -q "kept in" <<<"$out" && fail "status counts a folded log: $out"
(cd a && "$KILN" run -q exp.yaml) || fail "run beside an earlier generation's log"
assert_eq "$(ok a)" $N "pexecs beside an earlier generation's log"
assert_eq "$(sqlite3 a/exp.kiln.db "SELECT COUNT(*) FROM iterations")" $N "no pexec folded twice"

# 4. a record of other statements (another kiln's) is refused, not run
mk d
run_killed d
python3 - d/exp.kiln.db-log <<'P'
import sys, struct, zlib
f = open(sys.argv[1], "r+b")
blk = bytearray(f.read(4096))
blk[32:36] = struct.pack("<I", struct.unpack("<I", blk[32:36])[0] ^ 1)
n = struct.unpack("<I", blk[36:40])[0]
blk[4:8] = struct.pack("<I", zlib.crc32(bytes(blk[8:40 + n])))
f.seek(0)
f.write(blk)
P
out=$(cd d && "$KILN" run -q exp.yaml 2>&1); rc=$?
assert_eq $rc 5 "exit status with another kiln's log"
assert_contains "$out" "is not one kiln wrote (written by another kiln"
assert_eq "$(ok d)" 0 "nothing folded from another kiln's log"

# 5. a link or a FIFO where the log goes: not followed, not waited on
mk e
sed -i 's/-eq 5/-eq 99/' e/bench.sh
echo precious > target
ln -s "$T/target" e/exp.kiln.db-log
out=$(cd e && timeout 60 "$KILN" run -q exp.yaml 2>&1) || fail "run with a link for the log: $out"
assert_contains "$out" "not kiln's pexec log"
assert_eq "$(cat target)" precious "the link's target"
assert_eq "$(ok e)" $N "pexecs committed without the log"
rm e/exp.kiln.db* && mkfifo e/exp.kiln.db-log
out=$(cd e && timeout 60 "$KILN" run -q exp.yaml 2>&1) || fail "run with a FIFO for the log: $out"
assert_contains "$out" "not a regular file"
assert_eq "$(ok e)" $N "pexecs committed beside a FIFO"
echo ok
