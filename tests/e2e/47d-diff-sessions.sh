# kiln diff of two kiln bench sessions learns the machine's session-to-session
# sd from the other sessions kiln bench recorded (issue 25, row D): every
# session of a program is recorded in the state folder (record/sessions.db,
# kiln's own, 0600); with 3 other sessions of the key's program on this
# machine the diff says "measured" and from how many (A's and B's own
# sessions left out); with fewer it says the 1% is assumed, and why; an
# explicit --session-sd wins; one path holding two programs (a binary
# changed) is two programs; the record is bounded; a link planted at the
# record is refused, not followed.  The estimator and its false-alarm rates:
# tests/unit/test_stats_session.c, bench/stats table 6.
source "$KILN_ROOT/tests/lib.sh"
command -v python3 >/dev/null || skip "python3 not found"
cd "$T"
export KILN_STATE_DIR="$T/state"
REC="$T/state/record/sessions.db"
printf '#!/bin/sh\nexit 0\n' >prog && chmod +x prog
session() { "$KILN" bench -r 5 -o "$1.kiln.db" --style none "./prog" || fail "bench $1"; }
src() { # DIFF-JSON: the first key's session object, as "source sessions sd"
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); s=d["keys"][0]["session"]; print(s["source"], s["sessions"], s["sd"], d["session_sd_from"])' "$1"
}

# ---- two sessions: nothing else recorded, the 1% is assumed and said so ----
session s1
session s2
[ -f "$REC" ] || fail "no session record in the state folder"
assert_eq "$(stat -c %a "$REC")" 600 "the record's mode"
assert_eq "$(sql "$REC" "SELECT COUNT(*) FROM sessions")" 2 "one row a session"
"$KILN" diff --json s1.kiln.db s2.kiln.db >d.json || fail "diff"
assert_eq "$(src d.json)" "assumed 0 0.01 per key" "two sessions: assumed"
out=$("$KILN" diff s1.kiln.db s2.kiln.db) || fail "diff text"
assert_contains "$out" "1% assumed, not measured (0 other sessions of its program on this machine, 3 needed)"

# ---- three more: A's and B's own sessions are left out, 3 others measure it ----
session s3
session s4
session s5
"$KILN" diff --json s4.kiln.db s5.kiln.db >d.json || fail "diff 5"
read -r source n sd from <<<"$(src d.json)"
assert_eq "$source $n $from" "measured 3 per key" "measured from the 3 other sessions"
python3 -c "import math, sys; assert 0 <= float(sys.argv[1]) < math.inf" "$sd" || fail "sd $sd"
out=$("$KILN" diff s4.kiln.db s5.kiln.db) || fail "diff text 5"
assert_contains "$out" "measured: the 95% upper bound from 3 other sessions of its program on this machine"
# an explicit --session-sd wins
"$KILN" diff --json --session-sd 2% s4.kiln.db s5.kiln.db >d.json || fail "diff 2%"
assert_eq "$(src d.json)" "option 0 0.02 option" "--session-sd wins"
# files that are not kiln's: no program to look up, said so
python3 -c "
import json
t = [0.01 + 0.0001 * i for i in range(10)]
json.dump({'results': [{'command': 'x', 'times': t, 'exit_codes': [0] * 10}]}, open('h.json', 'w'))"
out=$("$KILN" diff h.json h.json) || fail "diff hyperfine files"
assert_contains "$out" "1% assumed, not measured (A or B is not a kiln results file: no program identity)"

# ---- the same path, another binary: another program, its own sessions only ----
printf '#!/bin/sh\n: another build\nexit 0\n' >prog
session n1
session n2
"$KILN" diff --json n1.kiln.db n2.kiln.db >d.json || fail "diff new program"
assert_eq "$(src d.json)" "assumed 0 0.01 per key" "a changed binary is not the old program"
assert_eq "$(sql "$REC" "SELECT COUNT(DISTINCT program) FROM sessions")" 2 "two programs recorded"
# A (old program) against B (new): the sessions of both programs, each about its own mean
"$KILN" diff --json s5.kiln.db n2.kiln.db >d.json || fail "diff old/new"
assert_eq "$(src d.json | cut -d' ' -f1-2)" "measured 5" "old against new: 4 + 1 other sessions"

# ---- bounded: the newest 64 sessions of a program ----
sql "$REC" "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 70)
	INSERT INTO sessions(program, machine, fingerprint, key, started, recorded, n, log_mean, within_var)
	SELECT program, machine, 'old' || i, key, started, recorded, n, log_mean, within_var FROM c,
	(SELECT * FROM sessions WHERE key LIKE './prog%' ORDER BY id DESC LIMIT 1)"
session n3
assert_eq "$(sql "$REC" "SELECT COUNT(*) FROM sessions WHERE program = (SELECT program FROM sessions ORDER BY id DESC LIMIT 1)")" 64 "64 a program"

# ---- a link planted at the record is refused, never followed ----
rm -f "$REC" && echo keep >target && ln -s "$T/target" "$REC"
out=$("$KILN" bench -r 3 -o l.kiln.db --style none ./prog 2>&1) || fail "bench with a link at the record: $out"
assert_contains "$out" "not recorded for kiln diff"
assert_eq "$(cat target)" keep "the link's target untouched"
