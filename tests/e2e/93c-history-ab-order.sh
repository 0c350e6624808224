# The A/B rounds of kiln track --compare and kiln bisect (history-ab.c)
# run in a random order of their own each round, drawn from a seed that is
# stored (issue 29 after issue 25): B runs first in some rounds, A in the
# others; A's and B's pexec n share round n; the same config gives the same
# order again; the verdicts on the toy VM's known +10% step stand.
source "$KILN_ROOT/tests/lib.sh"
source "$KILN_ROOT/tests/lib-history.sh"
history_test_begin
sed -i 's/^pexecs: .*/&\nseed: 42/' exp/toy.yaml

# per round of the one session of A and B in history $1: "a" when A's pexec ran first, "b" when B's
order_of() { # HISTORY A B
	sqlite3 "$1" "SELECT CASE WHEN pa.seq < pb.seq THEN 'a' ELSE 'b' END FROM runs ra
		JOIN commits ca ON ca.id = ra.commit_id AND ca.hash = '$2'
		JOIN runs rb ON rb.session = ra.session AND rb.id != ra.id JOIN commits cb ON cb.id = rb.commit_id AND cb.hash = '$3'
		JOIN pexecs pa ON pa.run_id = ra.id JOIN pexecs pb ON pb.run_id = rb.id AND pb.num = pa.num
		WHERE ra.kind = 'ab' ORDER BY ra.id, pa.num" | tr -d '\n'
}

# --- a known +10% step (c1 -> c2), 12 rounds ---
H=$T/exp/toy.history.db
out=$("$KILN" track exp/toy.yaml --repo repo --compare "$HIST_C1" "$HIST_C2" --pexecs 12); rc=$?
assert_eq $rc 1 "the 10% slower head still fails the check: $out"
assert_contains "$out" "\*\*slower\*\*"
# the warm-up of each side with its warmup cost (toy: 5 iterations at 3x, 10 steady ones' worth, about 20 ms)
assert_contains "$out" "ms to steady (cost [12][0-9]\.[0-9]* ms) -> warmup, "
o1=$(order_of "$H" "$HIST_C1" "$HIST_C2")
assert_eq "${#o1}" 12 "12 rounds, each a pair of A's and B's pexec of one number: $o1"
case $o1 in *a*b* | *b*a*) ;; *) fail "every round in one order (A first: a, B first: b): $o1" ;; esac
# pexec n of each commit ran in round n + 1: the seqs 2n and 2n + 1, whichever first (pairing by number is by round)
assert_eq "$(sqlite3 "$H" "SELECT COUNT(*) FROM pexecs p JOIN runs r ON r.id = p.run_id WHERE r.kind = 'ab'
	AND p.seq / 2 != p.num")" 0 "a pexec outside its round"
# the order and its seed recorded with both runs
assert_eq "$(sqlite3 "$H" "SELECT DISTINCT value FROM run_meta m JOIN runs r ON r.id = m.run_id
	WHERE r.kind = 'ab' AND m.name = 'order'")" rounds "the order recorded"
seed=$(sqlite3 "$H" "SELECT COUNT(DISTINCT value), MAX(value) FROM run_meta m JOIN runs r ON r.id = m.run_id
	WHERE r.kind = 'ab' AND m.name = 'seed'")
case $seed in "1|"[0-9]*) ;; *) fail "one seed for both runs of the session: $seed" ;; esac

# --- the same config, a new history: the same order (reproducible) ---
"$KILN" track exp/toy.yaml --repo repo -o "$T/again.db" --compare "$HIST_C1" "$HIST_C2" --pexecs 12 >/dev/null
assert_eq "$(order_of "$T/again.db" "$HIST_C1" "$HIST_C2")" "$o1" "the same seed, the same order"
# another seed, another order
sed 's/^seed: 42/seed: 7/' exp/toy.yaml > exp/seven.yaml
"$KILN" track exp/seven.yaml --repo repo -o "$T/seven.db" --compare "$HIST_C1" "$HIST_C2" --pexecs 12 >/dev/null
[ "$(order_of "$T/seven.db" "$HIST_C1" "$HIST_C2")" != "$o1" ] || fail "seed 7 drew seed 42's order: $o1"

# --- more rounds of the same pair: a session of its own, its own seed, the stored rounds reused ---
out=$("$KILN" track exp/toy.yaml --repo repo --compare "$HIST_C1" "$HIST_C2" --pexecs 18 --json); assert_eq $? 1 "$out"
python3 -c "import json,sys; d=json.load(sys.stdin); k=d['keys'][0]; assert k['rounds']==18, k" <<<"$out" ||
	fail "12 stored rounds and 6 new: $out"
assert_eq "$(sqlite3 "$H" "SELECT COUNT(DISTINCT m.value) FROM run_meta m JOIN runs r ON r.id = m.run_id
	WHERE r.kind = 'ab' AND m.name = 'seed'")" 2 "the second session drew its own seed"

# --- bisect c1..c3: the culprit c2, in rounds of a random order too ---
out=$("$KILN" bisect exp/toy.yaml --repo repo "$HIST_C1" "$HIST_C3" --key b --json -q) || fail "bisect: $out"
python3 -c "import json,sys; d=json.load(sys.stdin); assert d['outcome']=='found' and d['culprit']=='$HIST_C2', d" <<<"$out" ||
	fail "bisect: $out"
assert_eq "$(sqlite3 "$H" "SELECT COUNT(*) FROM run_meta m JOIN runs r ON r.id = m.run_id
	WHERE r.kind = 'ab' AND m.name = 'order' AND m.value != 'rounds'")" 0 "every A/B session in rounds"
# rounds added through the run's more hook (c2 against c4, the same steady state, "same" asked within 0.1%:
# 5 rounds, then 5 more, to the cap, undecided):
# each a pair in its own round, in orders of their own
out=$("$KILN" bisect exp/toy.yaml --repo repo "$HIST_C2" "$HIST_C4" --key b --min-change 0.1% --max-rounds 10 --json -q)
python3 -c "import json,sys; d=json.load(sys.stdin); assert d['outcome']=='unsure' and d['rounds']==10 and not d['culprit'], d" \
	<<<"$out" || fail "bisect to the cap: $out"
o3=$(order_of "$H" "$HIST_C2" "$HIST_C4")
assert_eq "${#o3}" 10 "5 rounds and 5 more in one session: $o3"
case $o3 in *a*b* | *b*a*) ;; *) fail "the added rounds in one order: $o3" ;; esac
assert_eq "$(sqlite3 "$H" "SELECT COUNT(*) FROM pexecs p JOIN runs r ON r.id = p.run_id WHERE r.kind = 'ab'
	AND p.seq / 2 != p.num")" 0 "a pexec of an added round outside it"
true
