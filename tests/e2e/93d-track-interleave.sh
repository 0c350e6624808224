# kiln track --interleave W (issue 29): W neighbouring commits measured
# together, each in a checkout of its own, their pexecs in rounds (a pexec
# of every commit each round, the commits in a fresh order each round), so
# that a moment of the machine falls on them alike.  On the toy VM of
# tests/lib-history.sh: the rounds are rounds, their order changes, an
# interrupt leaves the window's commits running and the same command
# resumes them without doubling a pexec, the failed build and the
# same-binary pairs are what a track one commit at a time records, the
# changes are found on their commits, and the checkouts are removed.
source "$KILN_ROOT/tests/lib.sh"
source "$KILN_ROOT/tests/lib-history.sh"
history_test_begin

out=$("$KILN" track exp/toy.yaml --repo repo --interleave 0 ..main 2>&1); assert_eq $? 2 "--interleave 0: $out"
assert_contains "$out" "--interleave needs a number"

# --- windows of 4 (c0..c3, c4..c7), uninterrupted ---
H=$T/w.history.db
out=$("$KILN" track exp/toy.yaml --repo repo -o "$H" --interleave 4 ..main 2>&1) || fail "track --interleave: $out"
assert_contains "$out" "\[window 1/2\] 4 commits"
assert_contains "$out" "8 commits: 7 measured, 1 failed"
assert_contains "$out" "round 3: 4 commits, 12 pexecs left  ETA "
q() { sqlite3 "$1" "$2"; }
assert_eq "$(q "$H" "SELECT COUNT(*) FROM runs")" 8 "one run per commit"
assert_eq "$(q "$H" "SELECT COUNT(*) FROM runs WHERE status='ok'")" 7
assert_eq "$(q "$H" "SELECT c.hash FROM runs r JOIN commits c ON c.id=r.commit_id WHERE r.status='build-failed'")" "$HIST_C5"
assert_eq "$(q "$H" "SELECT COUNT(*) FROM pexecs p JOIN runs r ON r.id=p.run_id WHERE r.status='ok'")" 35 "5 pexecs x 7 built commits"
assert_eq "$(q "$H" "SELECT COUNT(DISTINCT pexec_id) FROM figures")" 35 "each pexec analysed"

# rounds: in the first window, every commit's pexec n started before any commit's pexec n+1
ROUNDS="SELECT p.num, MIN(p.wall_start_ns), MAX(p.wall_start_ns) FROM pexecs p JOIN runs r ON r.id=p.run_id
	JOIN commits c ON c.id=r.commit_id WHERE c.hash IN ('$HIST_C0','$HIST_C1','$HIST_C2','$HIST_C3') GROUP BY p.num ORDER BY p.num"
python3 - "$(q "$H" "$ROUNDS")" <<'P' || fail "pexecs not in rounds: $(q "$H" "$ROUNDS")"
import sys
rows = [tuple(map(int, l.split("|"))) for l in sys.argv[1].splitlines()]
assert len(rows) == 5, rows
for (n, lo, hi), (m, lo2, hi2) in zip(rows, rows[1:]):
    assert hi < lo2, (n, m)
P
# the window's runs share a session id, the next window's another
assert_eq "$(q "$H" "SELECT COUNT(DISTINCT session) FROM runs WHERE session LIKE 'window %'")" 2 "a session per window"
assert_eq "$(q "$H" "SELECT COUNT(*) FROM runs r JOIN commits c ON c.id=r.commit_id WHERE c.hash IN ('$HIST_C0','$HIST_C3')
	GROUP BY r.session")" 2 "c0 and c3 measured in one window"
# the commits' order within a round is drawn afresh each round
ORDER="SELECT p.num, c.hash FROM pexecs p JOIN runs r ON r.id=p.run_id JOIN commits c ON c.id=r.commit_id
	WHERE c.hash IN ('$HIST_C0','$HIST_C1','$HIST_C2','$HIST_C3') ORDER BY p.wall_start_ns"
orders=$(q "$H" "$ORDER" | awk -F'|' '{o[$1] = o[$1] substr($2, 1, 7) " "} END {for (n in o) print o[n]}' | sort -u | wc -l)
[ "$orders" -ge 2 ] || fail "every round ran the commits in one order: $(q "$H" "$ORDER")"
# what a track one commit at a time records: same-binary pairs, the depth
bin() { q "$H" "SELECT r.binary FROM runs r JOIN commits c ON c.id=r.commit_id WHERE c.hash='$1'"; }
assert_eq "$(bin "$HIST_C1")" "$(bin "$HIST_C0")" "a README commit builds the same binary in another checkout"
assert_eq "$(bin "$HIST_C7")" "$(bin "$HIST_C6")"
[ "$(bin "$HIST_C2")" != "$(bin "$HIST_C1")" ] || fail "a code change builds another binary"
# the checkouts are gone once their commits are folded
[ -z "$(ls -A "$H.work/at" 2>/dev/null)" ] || fail "checkouts left: $(ls "$H.work/at")"
# the changes, on their commits
out=$("$KILN" track --changes "$H" --json) || fail "--changes: $out"
python3 -c "
import json, sys
d = json.loads(sys.argv[1])[0]
s = [c for c in d['changes'] if c['series'] == 'steady']
w = [c for c in d['changes'] if c['series'] == 'warmup']
assert len(s) == 1 and s[0]['commit'] == '$HIST_C2' and abs(s[0]['ratio'] - 1.1) < 0.011, s
assert len(w) == 1 and w[0]['commit'] == '$HIST_C4', w
assert d['aa_pairs'] == 3 and d['aa_alarms'] == 0, d
" "$out" || fail "changes of the interleaved track: $out"

# --interleave all: one window of the whole range
out=$("$KILN" track exp/toy.yaml --repo repo -o "$T/all.history.db" --interleave all "..$HIST_C3" 2>&1) || fail "--interleave all: $out"
assert_contains "$out" "\[window 1/1\] 4 commits"
assert_eq "$(q "$T/all.history.db" "SELECT COUNT(*) FROM pexecs")" 20 "4 commits x 5 pexecs"

# --- what a killed clone left (a .git that is no repository: seen on the Lua corpus, where it stopped the
# resumed track and recorded its commit failed) is cloned again; a stop for kiln's own folder leaves the
# commit to measure, not failed ---
H4=$T/left.history.db
mkdir -p "$H4.work/at/$HIST_C1/.git" "$H4.work/src/.git"
out=$("$KILN" track exp/toy.yaml --repo repo -o "$H4" --interleave 4 "..$HIST_C3" 2>&1) || fail "a dead clone stopped the track: $out"
assert_eq "$(q "$H4" "SELECT COUNT(*) FROM runs WHERE status='ok'")" 4 "$(q "$H4" "SELECT status, error FROM runs")"
out=$("$KILN" track exp/toy.yaml --repo repo -o "$H4" "..$HIST_C4" 2>&1) || fail "a dead clone stopped the track (one at a time): $out"
assert_eq "$(q "$H4" "SELECT COUNT(*) FROM runs WHERE status='ok'")" 5
H5=$T/stop.history.db
mkdir -p "$H5.work" && : > "$H5.work/at" # no folder can be made there: every checkout would fail
out=$("$KILN" track exp/toy.yaml --repo repo -o "$H5" --interleave 4 "..$HIST_C3" 2>&1); rc=$?
[ $rc = 0 ] && fail "a work folder that cannot hold a checkout: $out"
assert_contains "$out" "stop.history.db.work/at"
assert_eq "$(q "$H5" "SELECT COUNT(*) FROM runs WHERE status NOT IN ('running')")" 0 \
	"a stop for kiln's folder recorded a commit's outcome: $(q "$H5" "SELECT status, error FROM runs")"
rm "$H5.work/at"
out=$("$KILN" track exp/toy.yaml --repo repo -o "$H5" --interleave 4 "..$HIST_C3" 2>&1) || fail "resumed after the stop: $out"
assert_contains "$out" "4 measured"
assert_eq "$(q "$H5" "SELECT COUNT(*) FROM runs WHERE status='ok'")" 4 "$(q "$H5" "SELECT status, error FROM runs")"

# --- interrupted in its first window, then resumed ---
sed 's|^    build: .*|&\n    prepare: [sleep, "0.2"]|' exp/toy.yaml > exp/slow.yaml
H2=$T/slow.history.db
"$KILN" track exp/slow.yaml -o "$H2" --repo repo --interleave 4 ..main > track1.out 2>&1 &
pid=$!
# three rounds begun: every commit of the first window has pexecs stored
began() { # HISTORY
	local n=0 f
	for f in "$1.work/runs/"*.kiln.db; do
		[ -f "$f" ] && [ "$(sqlite3 "$f" "SELECT COUNT(*) FROM pexecs WHERE status='ok'" 2>/dev/null)" -ge 2 ] && n=$((n + 1))
	done
	[ "$n" -ge 4 ]
}
wait_until 90 began "$H2" || fail "the first window's rounds did not begin: $(cat track1.out)"
kill -INT $pid
wait $pid; rc=$?
assert_eq $rc 130 "an interrupted interleaved track: $(cat track1.out)"
assert_eq "$(q "$H2" "SELECT COUNT(*) FROM runs WHERE status='running'")" 4 \
	"the window's four commits stay running: $(q "$H2" "SELECT status, error FROM runs"); $(cat track1.out)"
out=$("$KILN" track exp/slow.yaml -o "$H2" --repo repo --interleave 4 ..main 2>&1) || fail "resumed: $out"
assert_contains "$out" "7 measured, 1 failed"
assert_eq "$(q "$H2" "SELECT COUNT(*) FROM runs")" 8 "the interrupted runs resumed, not doubled"
assert_eq "$(q "$H2" "SELECT COUNT(*) FROM pexecs p JOIN runs r ON r.id=p.run_id WHERE r.status='ok'")" 35 "no pexec run twice"
assert_eq "$(q "$H2" "SELECT COUNT(*) FROM pexecs WHERE status!='ok'")" 0

# --- interrupted while a session's sanity check runs (its child stopped by the interrupt): still an interrupt,
# the commit stays running, never folded with the pexecs it had (found by the check above, 1 run in 6) ---
H3=$T/sane.history.db
"$KILN" track exp/slow.yaml -o "$H3" --repo repo --interleave 4 ..main > track3.out 2>&1 &
pid=$!
wait_until 90 began "$H3" || fail "no rounds: $(cat track3.out)"
# the track's own sanity child, its direct child (another kiln on the machine has its own, at another moment)
# (read from /proc without a fork: pgrep scans every process, 70 ms a look on a busy machine, longer than a
# sanity child lives, and looked 20000 times, for minutes, after a track it had missed every check of had ended)
sanity_child() { # PID: a child of PID is `kiln doctor --sanity-child`
	local t c kids a
	for t in /proc/$1/task/*/children; do
		kids=()
		{ read -r -d '' -a kids < "$t"; } 2>/dev/null # (no newline at its end: read says 1)
		for c in "${kids[@]}"; do
			a=()
			{ mapfile -d '' -t a < "/proc/$c/cmdline"; } 2>/dev/null
			[ "${a[1]:-} ${a[2]:-}" = "doctor --sanity-child" ] && return 0
		done
	done
	return 1
}
caught=0
for _ in $(seq 1 20000); do
	if sanity_child $pid; then
		kill -INT $pid
		caught=1
		break
	fi
	kill -0 $pid 2>/dev/null || break # the track ended: nothing more to catch
done
wait $pid; rc=$?
[ $caught = 1 ] || skip "no sanity check was caught running (the checks above passed)"
assert_eq $rc 130 "interrupted in a sanity check: $(cat track3.out)"
# the window in flight stays running; what was folded before it (a first window done, c5's failed build) is
# whole: no run failed by the interrupt, none folded with fewer than its 5 pexecs
[ "$(q "$H3" "SELECT COUNT(*) FROM runs WHERE status = 'running'")" -ge 1 ] ||
	fail "nothing left running by the interrupt: $(q "$H3" "SELECT status, error FROM runs")"
assert_eq "$(q "$H3" "SELECT COUNT(*) FROM runs WHERE status NOT IN ('running', 'ok', 'build-failed')")" 0 \
	"a commit failed by an interrupt: $(q "$H3" "SELECT status, error FROM runs")"
assert_eq "$(q "$H3" "SELECT COUNT(*) FROM runs r WHERE r.status = 'ok' AND
	(SELECT COUNT(*) FROM pexecs p WHERE p.run_id = r.id AND p.status = 'ok') != 5")" 0 \
	"a commit folded with the pexecs it had when interrupted: $(q "$H3" "SELECT status, error FROM runs")"
true
