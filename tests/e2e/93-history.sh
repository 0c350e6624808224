# kiln track, track --changes, track --compare, bisect and merge of
# histories (issue 29) on a toy VM in a git repository the test makes
# (tests/lib-history.sh): 8 commits, one 10% slower, one with twice the
# warm-up, one that does not build, three that change only the README.
source "$KILN_ROOT/tests/lib.sh"
source "$KILN_ROOT/tests/lib-history.sh"
history_test_begin
H=$T/exp/toy.history.db
q() { sqlite3 "$H" "$1"; }

# --new needs a commit tracked before (it would otherwise be every commit since the root)
out=$("$KILN" track exp/toy.yaml --repo repo -o "$T/none.db" --new 2>&1); assert_eq $? 2 "--new on an empty history: $out"
assert_contains "$out" "has tracked none yet"

# --- track, interrupted in its first commit's session, then resumed ---
# (each pexec prepared by a 0.05 s sleep, so that the session outlasts the wait below)
sed 's|^    build: .*|&\n    prepare: [sleep, "0.05"]|' exp/toy.yaml > exp/slow.yaml
"$KILN" track exp/slow.yaml -o "$H" --repo repo --order oldest ..main > track1.out 2>&1 &
pid=$!
in_session() {
	local f
	f=$(ls "$H.work/runs/"*.kiln.db 2>/dev/null | head -1)
	[ -n "$f" ] && [ "$(sqlite3 "$f" "SELECT COUNT(*) FROM pexecs WHERE status='running'" 2>/dev/null)" = 1 ]
}
wait_until 60 in_session || fail "no pexec of the first commit began: $(cat track1.out)"
kill -INT $pid
wait $pid; rc=$?
assert_eq $rc 130 "an interrupted track: $(cat track1.out)"
assert_eq "$(q "SELECT COUNT(*) FROM runs WHERE status='running'")" 1 "the commit in flight stays running"
out=$("$KILN" track exp/slow.yaml -o "$H" --repo repo --order oldest ..main 2>&1) || fail "resumed track: $out"
assert_contains "$out" "8 commits: 8 measured\|7 measured, 1 failed"
assert_eq "$(q "SELECT COUNT(*) FROM runs")" 8 "one run per commit, the interrupted one resumed, not doubled"
assert_eq "$(q "SELECT COUNT(*) FROM runs WHERE status='build-failed'")" 1 "the broken commit recorded"
assert_contains "$(q "SELECT error FROM runs WHERE status='build-failed'")" "build command"
assert_eq "$(q "SELECT c.hash FROM runs r JOIN commits c ON c.id=r.commit_id WHERE r.status='build-failed'")" "$HIST_C5"
assert_eq "$(q "SELECT COUNT(*) FROM pexecs p JOIN runs r ON r.id=p.run_id WHERE r.status='ok'")" 35 "5 pexecs x 7 built commits"
assert_eq "$(q "SELECT COUNT(DISTINCT pexec_id) FROM figures")" 35 "each pexec analysed"
# same-binary commits: c0/c1 (README) alike, c1/c2 not
bin() { q "SELECT r.binary FROM runs r JOIN commits c ON c.id=r.commit_id WHERE c.hash='$1'"; }
assert_eq "$(bin "$HIST_C1")" "$(bin "$HIST_C0")" "a README commit builds the same binary"
[ "$(bin "$HIST_C2")" != "$(bin "$HIST_C1")" ] || fail "a code change builds another binary"
assert_eq "$(q "SELECT depth FROM commits WHERE hash='$HIST_C7'")" 7 "first-parent depth"
# a commit tracked is not measured again; --repeat measures it again
out=$("$KILN" track exp/slow.yaml -o "$H" --repo repo "$HIST_C7" 2>&1) || fail "$out"
assert_contains "$out" "1 tracked before"

# --- the changes: on their commits, with their size ---
out=$("$KILN" track --changes "$H" --json) || fail "--changes: $out"
chk() { python3 -c "import json,sys; d=json.load(sys.stdin); $1" <<<"$out" || fail "${2:-changes}: $out"; }
# (the size within 1% of the made-up 1.1 and inside its interval; whether a 99% interval covers 1.1 is a
# rate, not one run's fact: CI's ASan run once saw 1.0972 with an interval short of 1.1 from these 7 points; bench/history
# measures it on the Lua corpus: 867 of 868 intervals held the injected size)
chk "c=[x for x in d[0]['changes'] if x['series']=='steady']; assert len(c)==1 and c[0]['commit']=='$HIST_C2' and abs(c[0]['ratio']-1.1)<0.011 and c[0]['ratio_lo']<c[0]['ratio']<c[0]['ratio_hi'], c" "the +10% step"
chk "c=[x for x in d[0]['changes'] if x['series']=='warmup']; assert len(c)==1 and c[0]['commit']=='$HIST_C4' and 1.8<c[0]['ratio']<2.2, c" "the 2x warm-up"
chk "c=[x for x in d[0]['changes'] if x['series']=='cost']; assert len(c)==1 and c[0]['commit']=='$HIST_C4' and 1.8<c[0]['ratio']<2.2 and 9<c[0]['before']<11, c" "the 2x warmup cost (10 -> 20 steady iterations)"
chk "assert d[0]['commits']==8 and d[0]['build_failed']==1 and d[0]['aa_pairs']==3 and d[0]['aa_alarms']==0" "A/A pairs"
chk "assert d[0]['dispersion']>=1 and d[0]['session_sd']>0" "the session sd and the series' dispersion"
text=$("$KILN" track --changes "$H" --key b) || fail "$text"
assert_contains "$text" "interpreter: a slower dispatch"
assert_contains "$text" "3 changes"
assert_contains "$text" "dispersion "

# --- the figures again on the CPU-time clock (a shared machine): each iteration's CPU time is 98% of its wall time ---
before=$(q "SELECT AVG(steady_mean) FROM figures")
out=$("$KILN" track --reanalyse "$H" --clock cpu) || fail "reanalyse: $out"
assert_contains "$out" "7 runs analysed again, on the cpu clock"
python3 -c "import sys; b, a = $before, $(q "SELECT AVG(steady_mean) FROM figures"); sys.exit(0 if abs(a / b - 0.98) < 0.002 else 1)" ||
	fail "CPU-time figures: $before -> $(q "SELECT AVG(steady_mean) FROM figures")"
out=$("$KILN" track exp/slow.yaml -o "$H" --repo repo --clock wall "$HIST_C7" 2>&1); assert_eq $? 2 "another clock refused: $out"
assert_contains "$out" "kiln track --reanalyse"
"$KILN" track --reanalyse "$H" --clock wall >/dev/null || fail "back to wall"

# --- bisect: the culprit in ceil(log2 7) + 2 = 5 builds; an A/A range names none ---
out=$("$KILN" bisect exp/toy.yaml --repo repo "$HIST_C0" "$HIST_C7" --key b --json -q) || fail "bisect: $out"
chk "assert d['outcome']=='found' and d['culprit']=='$HIST_C2' and d['builds']<=5, d" "bisect"
# c4..c7: the same binary but for c5, which does not build: no culprit, and c5 is known broken
out=$("$KILN" bisect exp/toy.yaml --repo repo "$HIST_C4" "$HIST_C7" --key b -q) || fail "A/A bisect: $out"
assert_contains "$out" "no culprit"
# undecided at its cap (c2 and c4 alike in their steady state, 0.1% asked in 5 rounds): it names the cap that would
# decide, and when that is past what --max-rounds allows, says so
out=$("$KILN" bisect exp/toy.yaml --repo repo "$HIST_C2" "$HIST_C4" --key b -q --min-change 0.1% --max-rounds 5); rc=$?
assert_eq $rc 1 "undecided: $out"
assert_contains "$out" "wants about --max-rounds [0-9]* ([0-9.]* [a-z]* a comparison at this bisect's"
out=$("$KILN" bisect exp/toy.yaml --repo repo "$HIST_C2" "$HIST_C4" --key b -q --min-change 0.1% --max-rounds 5 --json)
chk "assert d['outcome']=='unsure' and 5 < d['rounds_needed'] <= 10000 and 0 < d['round_sd'] < 0.05, d" "the cap named"
out=$("$KILN" bisect exp/toy.yaml --repo repo "$HIST_C2" "$HIST_C4" --key b -q --min-change 0.0001% --max-rounds 5)
assert_contains "$out" "more than the 10000 rounds --max-rounds allows"
# --max-rounds auto (the default): undecided after its first 200 rounds (0.07% cannot be told in 200 of these), GOOD
# against BAD goes on as far as its rounds' spread needs, and says so with the time it may take
out=$("$KILN" bisect exp/toy.yaml --repo repo "$HIST_C2" "$HIST_C4" --key b --min-change 0.07% --json 2>auto.err)
chk "s=d['steps'][0]; assert s['cap'] > 200 and s['rounds'] <= s['cap'] and d['rounds'] > 200, d" "the cap raised"
assert_contains "$(cat auto.err)" "kiln bisect: a round's log ratio varies by [0-9.]*%: up to [0-9]* rounds to decide (at most"
# again: the rounds stored above, more than the first stage's 200, are judged at its first look; the cap it reports
# still holds them
out=$("$KILN" bisect exp/toy.yaml --repo repo "$HIST_C2" "$HIST_C4" --key b --min-change 0.07% --json -q)
chk "s=d['steps'][0]; assert s['rounds'] > 200 and s['rounds'] <= s['cap'], d" "the cap of stored rounds"
out=$("$KILN" bisect exp/toy.yaml --repo repo "$HIST_C2" "$HIST_C4" --key b --max-rounds 4 2>&1); assert_eq $? 2 "$out"
assert_contains "$out" "--max-rounds needs auto or a number from 5 to 10000"
# --auto from the steady change kiln track found, the rounds stored reused
out=$("$KILN" bisect exp/toy.yaml --repo repo --auto --series steady --key b -q --json) || fail "bisect --auto: $out"
chk "assert d['series']=='steady' and d['outcome']=='found' and d['culprit']=='$HIST_C2', d" "bisect --auto --series steady"

# --- a warm-up bisected: c4 doubles the warm-up (5 -> 10 iterations 3x slow: 1 + 15 -> 1 + 30 steady iterations'
# worth, 1.94x), c2's slower steady state leaves it as it was; its halving meets the broken c5, one build more ---
out=$("$KILN" bisect exp/toy.yaml --repo repo "$HIST_C0" "$HIST_C7" --key b --series warmup -q --json) || fail "warm-up bisect: $out"
chk "assert d['series']=='warmup' and d['outcome']=='found' and d['culprit']=='$HIST_C4' and d['builds']<=6 and 1.8<d['ratio']<2.1 and abs(d['shift']-0.66)<0.07, d" "bisect --series warmup"
out=$("$KILN" bisect exp/toy.yaml --repo repo "$HIST_C0" "$HIST_C7" --key b --series warmup -q) || fail "warm-up bisect: $out"
assert_contains "$out" "b:toy:default-toy: 7 commits after ${HIST_C0:0:12} up to ${HIST_C7:0:12}, its warmup"
assert_contains "$out" "culprit: $HIST_C4 jit: compile later"
assert_contains "$out" "BAD's 1 + warm-up (time to steady state in steady iterations) is 1\.9[0-9]* x GOOD's"
# its cost (10 -> 20 steady iterations' worth above the steady level): a shift in asinh, no ratio
out=$("$KILN" bisect exp/toy.yaml --repo repo "$HIST_C0" "$HIST_C7" --key b --series cost -q --json) || fail "cost bisect: $out"
chk "assert d['series']=='cost' and d['culprit']=='$HIST_C4' and d['ratio'] is None and abs(d['shift']-0.69)<0.08, d" "bisect --series cost"
# c0..c3: a 10% slower steady state, the same warm-up: no warm-up culprit (the first test's "same")
out=$("$KILN" bisect exp/toy.yaml --repo repo "$HIST_C0" "$HIST_C3" --key b --series warmup -q --json) || fail "warm-up A/A: $out"
chk "assert d['outcome']=='no change' and d['culprit'] is None and 0.9<d['ratio']<1.1, d" "no warm-up change"
# --auto takes the newest change of any series: c4's warm-up (at one commit, warmup before cost)
out=$("$KILN" bisect exp/toy.yaml --repo repo --auto --key b -q --json) || fail "bisect --auto: $out"
chk "assert d['series']=='warmup' and d['outcome']=='found' and d['culprit']=='$HIST_C4', d" "bisect --auto"
out=$("$KILN" bisect exp/toy.yaml --repo repo --auto --key b --series class -q 2>&1); assert_eq $? 2 "--series class: $out"
assert_contains "$out" "steady, warmup or cost"
sessions=$(q "SELECT COUNT(DISTINCT session) FROM runs WHERE kind='ab'")

# --- compare for a pull request: Markdown, exit 1 beyond the threshold ---
out=$("$KILN" track exp/toy.yaml --repo repo --compare "$HIST_C1" "$HIST_C2"); rc=$?
assert_eq $rc 1 "a 10% slower head fails the check: $out"
assert_contains "$out" '| `b:toy:default-toy` |'
assert_contains "$out" "\*\*slower\*\*"
assert_contains "$out" "0 with a warm-up longer beyond 35%"
out=$("$KILN" track exp/toy.yaml --repo repo --compare "$HIST_C2" "$HIST_C3" --threshold 5%) || fail "same binary: $out"
assert_contains "$out" "0 of 1 key slower"
# a head whose warm-up doubles (c3 -> c4: 1 + 15 -> 1 + 30 steady iterations' worth) fails the check with the same
# steady state; its 1 + warm-up over base's, with the interval, in Markdown and JSON; a threshold above it passes
out=$("$KILN" track exp/toy.yaml --repo repo --compare "$HIST_C3" "$HIST_C4"); rc=$?
assert_eq $rc 1 "a head with twice the warm-up fails the check: $out"
assert_contains "$out" "| +9[0-9]\.[0-9]% (+[0-9.]*% to +[0-9.]*%) | \*\*longer warm-up\*\* |$"
assert_contains "$out" "0 of 1 key slower beyond 2%, 0 faster; 1 with a warm-up longer beyond 35%, 0 shorter"
out=$("$KILN" track exp/toy.yaml --repo repo --compare "$HIST_C3" "$HIST_C4" --json); assert_eq $? 1 "$out"
chk "k=d['keys'][0]; w=k['warmup']; assert k['verdict']=='same' and w['verdict']=='longer' and 1.8<w['ratio']<2.1 and w['ratio_lo']>1.35 and d['longer_warmup']==1, d" "compare --json warm-up"
"$KILN" track exp/toy.yaml --repo repo --compare "$HIST_C3" "$HIST_C4" --warmup-threshold 150% >/dev/null || fail "a warm-up under --warmup-threshold passes"

# an interrupted compare keeps the rounds that finished (30 rounds asked, interrupted after a few)
"$KILN" track exp/slow.yaml -o "$H" --repo repo --compare "$HIST_C3" "$HIST_C4" --pexecs 30 > cmp.out 2>&1 &
pid=$!
some_rounds() {
	local f
	f=$(ls "$H.work/ab/"*.kiln.db 2>/dev/null | grep -v build | head -1)
	[ -n "$f" ] && [ "$(sqlite3 "$f" "SELECT COUNT(*) FROM pexecs WHERE status='ok'" 2>/dev/null)" -ge 4 ]
}
wait_until 60 some_rounds || fail "no rounds: $(cat cmp.out)"
kill -INT $pid
wait $pid; assert_eq $? 130 "an interrupted compare: $(cat cmp.out)"
kept=$(q "SELECT COUNT(*) FROM pexecs p JOIN runs r ON r.id=p.run_id JOIN commits c ON c.id=r.commit_id
	WHERE r.kind='ab' AND c.hash='$HIST_C4' AND r.session IN (SELECT session FROM runs x JOIN commits y ON y.id=x.commit_id WHERE y.hash='$HIST_C3')")
[ "$kept" -ge 2 ] || fail "the finished rounds of an interrupted compare are kept: $kept"

# --- hostile text from the repository: escaped for the terminal and Markdown ---
printf 'x\n' >> repo/README
git -C repo commit -qam $'\e[31mred | `tick` <b>bold</b>\x07' || fail "commit"
"$KILN" track exp/slow.yaml -o "$H" --repo repo --new -q || fail "track --new"
assert_eq "$(q "SELECT COUNT(*) FROM runs WHERE kind='track'")" 9 "--new tracks the one new commit"
text=$("$KILN" track --changes "$H")
out=$("$KILN" track exp/toy.yaml --repo repo --compare "$HIST_C7" main --threshold 50%) || fail "compare: $out"
for s in "$text" "$out"; do
	[ "$(printf '%s' "$s" | tr -d '\n' | LC_ALL=C grep -c $'[\x01-\x08\x0b-\x1f]')" = 0 ] || fail "a control character reached the output: $s"
done
assert_contains "$out" 'red \\| '

# --- merge: another machine's history, twice changes nothing; a crafted file refused ---
mkdir -p m2 && cp -r exp/benchmarks exp/toy.yaml m2/
"$KILN" track m2/toy.yaml --repo repo --machine other --steps 3 ..main -q || fail "second machine"
# and its noise floor: a commit against itself, two runs alike in all but their pexecs
"$KILN" track m2/toy.yaml --repo repo --machine other --compare "$HIST_C7" "$HIST_C7" --pexecs 3 >/dev/null || fail "A/A compare"
out=$("$KILN" merge "$H" m2/toy.history.db) || fail "merge: $out"
assert_contains "$out" "5 runs merged"
out=$("$KILN" merge "$H" m2/toy.history.db) || fail "merge again: $out"
assert_contains "$out" "0 runs merged, 5 there already"
assert_eq "$(q "SELECT COUNT(*) FROM machines")" 2
cp m2/toy.history.db evil.db
sqlite3 evil.db "CREATE TRIGGER t AFTER INSERT ON runs BEGIN DELETE FROM pexecs; END;"
out=$("$KILN" merge "$H" evil.db 2>&1); assert_eq $? 5 "a crafted history: $out"
assert_contains "$out" "not a schema kiln wrote"
out=$("$KILN" track --changes evil.db 2>&1); assert_eq $? 5 "a crafted history read: $out"
# a crafted commit hash (HTML, a shell command, terminal escapes) is refused wherever the history is read: it
# went into published pages raw, into the printed kiln bisect command unquoted and to the terminal
for bad in '<b id=kinj>' '$(touch pwned)' $'\e]0;PWN\a'; do
	cp "$H" badhash.db
	sqlite3 badhash.db "UPDATE commits SET hash = '${bad//\'/\'\'}' WHERE id = (SELECT MIN(id) FROM commits)"
	out=$("$KILN" track --changes badhash.db 2>&1); assert_eq $? 5 "changes of a crafted hash: $out"
	assert_contains "$out" "a hash that is not a git object name"
	out=$("$KILN" publish badhash.db -o badsite 2>&1); assert_eq $? 5 "publish of a crafted hash: $out"
	[ -e badsite/index.html ] && fail "a site made of a crafted hash"
	out=$("$KILN" merge "$H" badhash.db 2>&1); assert_eq $? 5 "merge of a crafted hash: $out"
	[ ! -e pwned ] || fail "a hash ran"
done

# --- a history of A/B sessions only: --changes says it has no series (not a session sd of none) ---
"$KILN" track exp/toy.yaml --repo repo -o ab.db --compare "$HIST_C7" "$HIST_C7" --pexecs 2 >/dev/null || fail "A/A compare"
out=$("$KILN" track --changes ab.db) || fail "changes of A/B sessions: $out"
assert_contains "$out" "b:toy:default-toy on $(hostname): no tracked commits"
case $out in *"session sd"*) fail "a session sd of no series: $out" ;; esac
out=$("$KILN" track --changes ab.db --json) || fail "--json: $out"
python3 -c "import json,sys; d=json.load(sys.stdin)[0]; assert d['commits']==0 and d['session_sd'] is None and d['dispersion'] is None and d['changes']==[] and d['could_see'] is None and d['could_see_warmup'] is None, d" \
	<<<"$out" || fail "--json of A/B sessions: $out"
# a track of another key into it: what it could see counts that key, not the A/B one (which has no series)
sed 's/^  toy:$/  toy2:/' exp/toy.yaml > exp/toy2.yaml
out=$("$KILN" track exp/toy2.yaml --repo repo -o ab.db "$HIST_C6..$HIST_C7" 2>&1) || fail "a track beside A/B sessions: $out"
assert_contains "$out" "could see: 1 key has too few commits to say"
true
