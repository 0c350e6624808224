# kiln compare (issue 25): two builds of a VM measured interleaved in one
# session, in rounds or in duets, each side's warmup analysis, the ratio of
# steady means paired by round with its interval and the smallest change it
# could show; text, Markdown and JSON; stable exit codes; resume; refusals.
# The VM is tests/helpers/synthvm: iteration times drawn with a known ratio
# between two builds (deterministic, instant), so the verdicts are known.
source "$KILN_ROOT/tests/lib.sh"
cd "$T"
synthvm_builds 1.00 1.05 0.97
# the same build again, its noise drawn afresh (synthvm seeds with the factor as written)
printf '#!/bin/sh\nexec %s 1.000 "$@"\n' "$SYN" >same-1.00
chmod +x same-1.00
mkdir -p benchmarks/warm/synth benchmarks/flat/synth benchmarks/tail/synth
cat >c.yaml <<'EOF'
name: synth
pexecs: 10
iterations: 60
pass_env: [SYNTHVM_CPU_LOG]
vms:
  vm:
    plugin: external
    path: ./vm-1.00
    runner: ["{vm_path}", "{iterations}", "{param}"]
    language: synth
benchmarks:
  warm: "1000:5:0.02"
  flat: "500:0:0.05"
  tail: "800:5:0.02:5"
EOF
json() { python3 -c "import json,sys; d=json.load(open('$1')); $2"; }

# ---- B 5% slower: found, per benchmark, with its interval and the MDE ----
"$KILN" compare c.yaml --vm a=./vm-1.00 --vm b=./vm-1.05 -q >out.txt || fail "compare: $(cat out.txt)"
out=$(cat out.txt)
assert_contains "$out" "^A = a (.*vm-1.00), B = b (.*vm-1.05)$"
assert_contains "$out" "in rounds: every key once per round"
assert_contains "$out" "^warm$"
assert_contains "$out" "A a  *warmup .*steady 9[0-9][0-9]\.[0-9] µs"
assert_contains "$out" "B/A  1\.0[4-6].*10 rounds paired: b is [0-9.]*% slower than a"
assert_contains "$out" "smallest change these rounds could show (80% power): [0-9.]*%"
assert_contains "$out" "B/A  no verdict: a has no steady state in 10 of its 10 pexecs"
assert_contains "$out" "3 benchmark(s): 2 slower, 0 faster, 0 no change shown, 1 no verdict (99% confidence)"
[ -f c.a-vs-b.kiln.db ] || fail "no c.a-vs-b.kiln.db"
# the rounds are stored: 10 rounds, each running each of the 6 keys once, round n running pexec n - 1
assert_eq "$(sql c.a-vs-b.kiln.db "SELECT COUNT(DISTINCT round) || ' ' || MIN(n) || ' ' || MAX(n) FROM (SELECT round,
	COUNT(DISTINCT p.key_id) AS n FROM pexec_rounds r JOIN pexecs p ON p.id = r.pexec_id GROUP BY round)")" "10 6 6" \
	"rounds of every key"
assert_eq "$(sql c.a-vs-b.kiln.db "SELECT COUNT(*) FROM pexecs p JOIN pexec_rounds r ON r.pexec_id = p.id
	WHERE r.round != p.num + 1")" 0 "round n + 1 runs pexec n"
assert_eq "$(sql c.a-vs-b.kiln.db "SELECT value FROM meta WHERE name = 'order'")" rounds "order"
# each round in an order of its own (10 rounds of 6 keys: the same order every time has p = (1/720)^9)
assert_eq "$(sql c.a-vs-b.kiln.db "SELECT COUNT(DISTINCT o) > 1 FROM (SELECT group_concat(key_id, ',') AS o FROM
	(SELECT p.key_id, r.round FROM pexecs p JOIN pexec_rounds r ON r.pexec_id = p.id ORDER BY p.seq) GROUP BY round)")" 1 \
	"rounds shuffled"

# ---- JSON and Markdown: the same verdicts (read back, nothing run) ----
"$KILN" compare c.yaml --vm a=./vm-1.00 --vm b=./vm-1.05 -q --json >o.json || fail "compare --json"
json o.json "
b = {x['benchmark']: x for x in d['benchmarks']}
assert d['mode'] == 'rounds' and d['a']['label'] == 'a' and d['b']['label'] == 'b', d
assert b['warm']['verdict'] == 'slower' and 1.03 < b['warm']['ratio'] < 1.07, b['warm']
assert b['warm']['ratio_lo'] > 1 and b['warm']['rounds'] == 10 and 0 < b['warm']['mde'] < 0.05, b['warm']
assert b['warm']['a']['class'] == 'warmup' and b['warm']['a']['pexecs'] == 10, b['warm']['a']
assert b['flat']['verdict'] == 'slower' and b['flat']['rounds_side_by_side'] == 0
assert b['tail']['verdict'] == 'no verdict' and 'no steady state' in b['tail']['why'] and b['tail']['ratio'] is None
" || fail "json: $(cat o.json)"
md=$("$KILN" compare c.yaml --vm a=./vm-1.00 --vm b=./vm-1.05 -q --format markdown) || fail "markdown"
assert_contains "$md" "^| benchmark | A: class, steady | B: class, steady | B/A (99% CI) | rounds |"
# B is 5% slower at everything, its warm-up as many iterations: slower, and no warm-up verdict (in seconds its
# warm-up is 5% longer; in its own steady iterations it is not)
assert_contains "$md" "^| warm | warmup, .* | 1\.0[4-6][0-9]* (1\.0[0-9]*–1\.0[0-9]*) | 10 | .* | slower | no change (the steady state moved) |$"
assert_contains "$md" "| warm-up B vs A |$"

# ---- a build that warms up twice as long, the same steady state: kiln diff's warmup verdicts per benchmark ----
printf '#!/bin/sh\nexec %s 1.00 "$1" "$(echo "$2" | sed s/:5:/:10:/)"\n' "$SYN" >warm10
chmod +x warm10
out=$("$KILN" compare c.yaml --vm a=./vm-1.00 --vm w=./warm10 -q -k warm -k flat) || fail "warm-up: $out"
assert_contains "$out" "B/A  [01]\.[09][0-9]*  (99% CI [0-9.]*–[0-9.]*), 10 rounds paired: no change shown"
assert_contains "$out" "warm-up  B-A time to steady +10 ms (+[0-9.]*–+[0-9.]*), warmup cost +[45][0-9.]* ms (+[0-9.]*–+[0-9.]*): warmup longer; warmup costs more$"
assert_contains "$out" "warm-up: 1 longer, 0 shorter to reach the steady state; 0 changed class"
"$KILN" compare c.yaml --vm a=./vm-1.00 --vm w=./warm10 -q -k warm -k flat --json >w.json || fail "warm-up --json"
json w.json "
b = {x['benchmark']: x for x in d['benchmarks']}
t = b['warm']['warmup']['time_to_steady_s']
assert b['warm']['verdict'] == 'no change shown' and t['verdict'] == 'longer' and 0.0095 < t['diff'] < 0.0105, b['warm']
assert b['flat']['warmup']['time_to_steady_s']['verdict'] == 'no change', b['flat']
" || fail "warm-up json: $(cat w.json)"

# ---- A/A: two copies of one build, no change shown ----
"$KILN" compare c.yaml --vm a=./vm-1.00 --vm a2=./same-1.00 -q --json >aa.json || fail "A/A"
json aa.json "
b = {x['benchmark']: x for x in d['benchmarks']}
assert b['warm']['verdict'] == 'no change shown' and b['warm']['ratio_lo'] < 1 < b['warm']['ratio_hi'], b['warm']
" || fail "A/A json: $(cat aa.json)"
# B faster: said so
out=$("$KILN" compare c.yaml --vm a=./vm-1.00 --vm f=./vm-0.97 -q -k warm) || fail "faster"
assert_contains "$out" "f is [0-9.]*% faster than a"
assert_contains "$out" "1 benchmark(s): 0 slower, 1 faster"

# ---- duet: A and B of a round at the same time, on two CPUs swapped every round ----
if [ "$(nproc)" -ge 2 ]; then
	SYNTHVM_CPU_LOG=$T/cpus "$KILN" compare c.yaml --vm a=./vm-1.00 --vm b=./vm-1.05 --duet --rounds 4 -k warm -q \
		--json >d.json || fail "duet"
	json d.json "
b = d['benchmarks'][0]
assert d['mode'] == 'duet' and b['rounds'] == 4 and b['rounds_side_by_side'] == 4 and b['verdict'] == 'slower', b
" || fail "duet json: $(cat d.json)"
	[ -f c.a-vs-b.duet.kiln.db ] || fail "duet results"
	assert_eq "$(sql c.a-vs-b.duet.kiln.db "SELECT COUNT(*) FROM pexec_rounds WHERE pair = 1")" 8 "all in pairs"
	# the two pexecs of a round on two CPUs, swapped from one round to the next
	python3 - "$T/cpus" <<'EOF' || fail "duet CPUs: $(cat "$T/cpus")"
import sys
cpu = {}
for line in open(sys.argv[1]):
    key, px, c = line.split()
    cpu[(key.split(':')[1], int(px))] = int(c)
for n in range(4):
    assert cpu[('a', n)] != cpu[('b', n)], (n, cpu)
    if n:
        assert cpu[('a', n)] != cpu[('a', n - 1)], (n, cpu)
EOF
	out=$("$KILN" compare c.yaml --vm a=./vm-1.00 --vm b=./vm-1.05 --duet --duet-cpus 0,0 -o dd.kiln.db -q 2>&1)
	assert_eq "$?" 3 "--duet-cpus 0,0"
	assert_contains "$out" "two different CPUs"
	# kiln bench --duet: its two commands side by side, every run paired
	"$KILN" bench --duet -r 3 -q -o bd.kiln.db 'sleep 0.01' 'sleep 0.02' >/dev/null || fail "bench --duet"
	assert_eq "$(sql bd.kiln.db "SELECT value FROM meta WHERE name = 'order'")" duet "bench order"
	assert_eq "$(sql bd.kiln.db "SELECT COUNT(*) || ' ' || COUNT(DISTINCT round) FROM pexec_rounds WHERE pair = 1")" \
		"6 3" "bench duets"
	# started together: the two runs of a round within a few ms of each other, not one after the other
	assert_eq "$(sql bd.kiln.db "SELECT MAX(d) < 5000000 FROM (SELECT MAX(p.wall_start_ns) - MIN(p.wall_start_ns) AS d
		FROM pexecs p JOIN pexec_rounds r ON r.pexec_id = p.id GROUP BY r.round)")" 1 "side by side"
fi
out=$("$KILN" bench --duet -r 3 'sleep 0.01' 'sleep 0.02' 'true' 2>&1); assert_eq "$?" 2 "bench --duet of 3"
assert_contains "$out" "--duet runs two commands side by side: 3 commands were given"

# ---- resume: stopped after 5 pexecs, the same command goes on; --rounds adds rounds ----
"$KILN" compare c.yaml --vm a=./vm-1.00 --vm b=./vm-1.05 -k flat -o r.kiln.db --max-pexecs 5 -q >/dev/null ||
	fail "first part"
assert_eq "$(sql r.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status = 'ok'")" 5 "5 done"
"$KILN" compare c.yaml --vm a=./vm-1.00 --vm b=./vm-1.05 -k flat -o r.kiln.db -q >/dev/null || fail "resumed"
assert_eq "$(sql r.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status = 'ok'")" 20 "20 done"
out=$("$KILN" compare c.yaml --vm a=./vm-1.00 --vm b=./vm-1.05 -k flat -o r.kiln.db --rounds 13 -q) || fail "more rounds"
assert_contains "$out" "13 rounds paired"
assert_eq "$(sql r.kiln.db "SELECT COUNT(DISTINCT round) FROM pexec_rounds")" 13 "13 rounds stored"
# every pexec names the program it ran, those of the rounds added on resume too (one program per key)
assert_eq "$(sql r.kiln.db "SELECT COUNT(*) FROM pexecs p LEFT JOIN programs g ON g.key_id = p.key_id AND
	g.hash = p.env_hash WHERE g.hash IS NULL")" 0 "programs of the added rounds"
# other sides into the same results: refused as a changed config
out=$("$KILN" compare c.yaml --vm a=./vm-1.00 --vm c=./vm-0.97 -k flat -o r.kiln.db -q 2>&1)
assert_eq "$?" 3 "other sides refused"
assert_contains "$out" "no longer plans key flat:b:default-synth, which these results hold; run with --force"

# ---- interrupted: 130, the pexec in flight pending, the same command resumes ----
cat >s.yaml <<'EOF'
pexecs: 6
vms:
  s: {plugin: command, path: /bin/sleep}
benchmarks:
  nap: {param: 0, args: ["0.3"]}
EOF
"$KILN" compare s.yaml --vm a=/bin/sleep --vm b=sleep -o i.kiln.db -q >i.out 2>i.err &
pid=$!
one_ok() { [ "$(sql i.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status = 'ok'" 2>/dev/null)" -ge 1 ]; }
wait_until 60 one_ok || fail "no pexec finished"
kill -INT $pid
wait $pid
assert_eq "$?" 130 "interrupted"
assert_contains "$(cat i.err)" "the same kiln compare command resumes"
assert_eq "$(sql i.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status IN ('running', 'failed')")" 0 "nothing half-stored"
"$KILN" compare s.yaml --vm a=/bin/sleep --vm b=sleep -o i.kiln.db -q >i.out || fail "resume after interrupt"
assert_contains "$(cat i.out)" "6 rounds paired"

# ---- a config of several VMs: NAME sides, and LABEL=PATH copies of the VM --like names ----
cat >two.yaml <<'EOF'
pexecs: 2
vms:
  s: {plugin: command, path: /bin/sleep}
  t: {plugin: command, path: /bin/true}
benchmarks:
  nap: {param: 0, args: ["0.01"]}
EOF
out=$("$KILN" compare two.yaml --vm x=/bin/sleep --vm y=sleep -q 2>&1); assert_eq "$?" 2 "which VM to copy"
assert_contains "$out" "has 2 VMs (s, t): --like VM says which one"
out=$("$KILN" compare two.yaml --vm x=/bin/sleep --vm y=sleep --like s -q) || fail "--like: $out"
assert_contains "$out" "^A = x (/bin/sleep), B = y (.*sleep)"
out=$("$KILN" compare two.yaml --vm t --vm s -q) || fail "two NAME sides: $out"
assert_contains "$out" "^A = t (/bin/true), B = s (/bin/sleep)"
assert_contains "$out" "B/A  [0-9.]*  (99% CI [0-9.]*–.*), 2 rounds paired: "

# ---- usage and config errors: stable exit codes ----
"$KILN" compare --help | grep -q "usage: kiln compare CONFIG --vm A --vm B" || fail "help"
out=$("$KILN" compare c.yaml --vm a=./vm-1.00 2>&1); assert_eq "$?" 2 "one side"
assert_contains "$out" "two sides are needed"
out=$("$KILN" compare c.yaml --vm vm --vm nosuch 2>&1); assert_eq "$?" 3 "unknown VM"
assert_contains "$out" "has no such VM (it has vm;"
out=$("$KILN" compare c.yaml --vm a=./vm-1.00 --vm b=./nothing-here 2>&1); assert_eq "$?" 3 "missing executable"
assert_contains "$out" "'./nothing-here' is not an executable"
out=$("$KILN" compare c.yaml --vm 'a b=./vm-1.00' --vm b=./vm-1.05 2>&1); assert_eq "$?" 2 "bad label"
out=$("$KILN" compare c.yaml --vm a=./vm-1.00 --vm b=./vm-1.05 --rounds 4 --time 1m 2>&1); assert_eq "$?" 2 "both"
# a --time past 1e9 s is refused: the rounds that fit in it were a long, undefined past LONG_MAX (1e19 s ran 3 rounds)
out=$("$KILN" compare c.yaml --vm a=./vm-1.00 --vm b=./vm-1.05 -k flat -o big.kiln.db --time 1e19 -q 2>&1)
assert_eq "$?" 2 "--time 1e19"
assert_contains "$out" "--time needs a duration up to 1e+09 s"
[ ! -e big.kiln.db ] || fail "--time 1e19 ran"
out=$("$KILN" compare c.yaml --vm a=./vm-1.00 --vm b=./vm-1.05 -k nothing 2>&1); assert_eq "$?" 3 "no benchmark"
assert_contains "$out" "no benchmark matching --key that both a and b run"
# --time: rounds while it lasts (more than the 3 it starts with: instant rounds, at most as many again each time)
"$KILN" compare c.yaml --vm a=./vm-1.00 --vm b=./vm-1.05 -k flat -o t.kiln.db --time 5s -q --json >t.json || fail "--time"
json t.json "assert d['benchmarks'][0]['rounds'] > 3, d" || fail "--time rounds: $(cat t.json)"
exit 0
