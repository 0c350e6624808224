# Issue 14 item 2, for ReBench and hyperfine users: explicit warm-up
# pexecs and iterations, run and kept in the results but never analysed;
# an experiment that grows (more pexecs, more benchmarks, in suites too)
# goes on without --force and without discarding anything, while any other
# change is still refused.
source "$KILN_ROOT/tests/lib.sh"
make_suite
cd "$T"
cat > w.yaml <<'Y'
pexecs: 3
warmup_pexecs: 2
iterations: 10
warmup_iterations: 4
vms: {c: {plugin: c}}
benchmarks: {spin: 1000, spin2: 1000}
platform: {kmsg: off}
Y
out=$("$KILN" run --dry-run w.yaml 2>/dev/null) || fail "dry run"
assert_contains "$out" "2 keys x 5 pexecs = 10 pexecs"
# the warm-up rounds come first, interleaved, then the measured pexecs shuffled
assert_eq "$(awk -F'\t' 'NR > 1 && NR <= 5 {print $3 $5}' <<<"$out" | tr '\n' ' ')" \
	"0warm-up (kept, not analysed) 0warm-up (kept, not analysed) 1warm-up (kept, not analysed) 1warm-up (kept, not analysed) " "warm-ups first"
assert_eq "$(awk -F'\t' 'NR > 5 && $5 != "" ' <<<"$out" | wc -l)" 0 "the rest measured"
"$KILN" run -q w.yaml || fail "run"
# kept: every pexec and iteration is in the results file
assert_eq "$(sql w.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status='ok'")" 10 "warm-up pexecs kept"
assert_eq "$(sql w.kiln.db "SELECT COUNT(*) FROM pexecs p JOIN iterations i ON i.pexec_id=p.id WHERE p.num < 2")" 4 \
	"their iterations kept"
# never analysed: the report counts 3 pexecs a key, the exports hold 6 iterations of pexecs 2-4
assert_contains "$("$KILN" report w.kiln.db)" "spin:c:default-c .* 3$"
# ... and every report says, per key, what was left out
flat() { tr '\n' ' ' | tr -s ' '; }
said="left out, kept in the results but not analysed: 2 warm-up pexecs (warmup_pexecs) and the first 4 iterations of every pexec (warmup_iterations)"
assert_eq "$("$KILN" report w.kiln.db | flat | grep -oF "$said" | wc -l)" 2 "text: once per key"
assert_eq "$("$KILN" report w.kiln.db --format markdown | flat | sed 's/\\_/_/g' | grep -oF "$said" | wc -l)" 2 \
	"markdown: once per key"
"$KILN" report w.kiln.db -o w.html || fail "html report"
assert_eq "$(flat < w.html | grep -oF "$said" | wc -l)" 2 "html: once per key"
"$KILN" report w.kiln.db --format json -o w.json || fail "json report"
python3 - w.json <<'P' || fail "json: warmup_left_out per key"
import json, sys
found = []
def walk(o):
    if isinstance(o, dict):
        if "warmup_left_out" in o:
            found.append(o["warmup_left_out"])
        for v in o.values():
            walk(v)
walk(json.load(open(sys.argv[1])))
assert found == [{"pexecs": 2, "iterations_per_pexec": 4}] * 2, found
P
"$KILN" export w.kiln.db --format csv -o w.csv >/dev/null || fail "export"
assert_eq "$(awk -F, 'NR > 1 {print $1 ":" NF - 2}' w.csv | sort -u | tr '\n' ' ')" "2:6 3:6 4:6 " "analysed pexecs and iterations"
printf 'vms: {c: {plugin: c}}\nbenchmarks: {spin: 1}\niterations: 3\nwarmup_iterations: 3\n' > bad.yaml
out=$("$KILN" run bad.yaml 2>&1); assert_eq $? 3 "warm-up of every iteration: $out"
assert_contains "$out" "bad.yaml:4:20: warmup_iterations: 3 leaves VM 'c' nothing to analyse: it runs 3 iterations"

# ---- growth ----
cat > g.yaml <<'Y'
pexecs: 2
vms: {c: {plugin: c}}
benchmarks: {spin: 10}
platform: {kmsg: off}
Y
"$KILN" run -q g.yaml || fail "first run"
# no warm-ups: nothing said to be left out
assert_eq "$("$KILN" report g.kiln.db | grep -c 'left out')" 0 "no warm-up note"
before=$(sql g.kiln.db "SELECT id||p.status||COALESCE(hex(i.wall),'') FROM pexecs p LEFT JOIN iterations i ON i.pexec_id=p.id ORDER BY id")
cat > g.yaml <<'Y'
# more pexecs, one more benchmark and a suite; a comment and the layout changed
pexecs: 3
vms:
  c: {plugin: c}
benchmarks: {spin: 10, spin2: 5}
suites: {more: {benchmarks: [{s3: 7}]}}
platform: {kmsg: off}
Y
mkdir -p benchmarks/s3/c && cp benchmarks/spin/c/bench.c benchmarks/s3/c/
out=$("$KILN" run g.yaml 2>&1) || fail "grown config refused: $out"
assert_contains "$out" "the config grew (more pexecs or benchmarks, nothing else changed): 2 key(s) and 7 pexec(s) added"
assert_eq "$(sql g.kiln.db "SELECT k.bench||'='||COUNT(*) FROM pexecs p JOIN keys k ON k.id=p.key_id WHERE p.status='ok' GROUP BY k.bench ORDER BY k.bench" | tr '\n' ' ')" \
	"s3=3 spin=3 spin2=3 " "every key up to 3 pexecs"
after=$(sql g.kiln.db "SELECT id||p.status||COALESCE(hex(i.wall),'') FROM pexecs p LEFT JOIN iterations i ON i.pexec_id=p.id WHERE id <= 2 ORDER BY id")
assert_eq "$after" "$before" "nothing stored before changed"
assert_contains "$(sql g.kiln.db "SELECT value FROM meta WHERE name='config_text_before_growth_1'")" "pexecs: 2"
assert_contains "$(sql g.kiln.db "SELECT value FROM meta WHERE name='config_text'")" "spin2: 5"
"$KILN" run -q g.yaml || fail "the same config again"
# the pexecs a growth adds run in an order as a fresh schedule's: shuffled with the seed
# (the same for the same growth), a new key's warm-up pexecs first; interleaved under --order interleaved
cat > o.yaml <<'Y'
pexecs: 2
warmup_pexecs: 1
vms: {c: {plugin: c}}
benchmarks: {spin: 10, spin2: 10}
platform: {kmsg: off}
Y
"$KILN" run -q o.yaml || fail "o: first run"
cp o.kiln.db o2.kiln.db && cp o.kiln.db oi.kiln.db && sql oi.kiln.db "UPDATE meta SET value='interleaved' WHERE name='order'"
printf 'pexecs: 12\nwarmup_pexecs: 1\nvms: {c: {plugin: c}}\nbenchmarks: {spin: 10, spin2: 10, s3: 7}\nplatform: {kmsg: off}\n' > o.yaml
added() { sql "$1" "SELECT k.bench||':'||p.num FROM pexecs p JOIN keys k ON k.id=p.key_id WHERE p.seq >= 6 ORDER BY p.seq" | tr '\n' ' '; }
for db in o o2 oi; do "$KILN" run -q o.yaml -o $db.kiln.db >/dev/null 2>&1 || fail "grow $db"; done
assert_eq "$(sql o.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status='ok'")" 39 "every pexec of the grown experiment"
rr="s3:0 "
for n in $(seq 3 12); do rr="${rr}spin:$n spin2:$n $([ $n -gt 3 ] && echo "s3:$((n - 3)) ")"; done
rr="${rr}s3:10 s3:11 s3:12 "
[ "$(added oi.kiln.db)" = "$rr" ] || fail "--order interleaved: round by round: $(added oi.kiln.db)"
got=$(added o.kiln.db)
# round by round, a key's pexecs come in ascending order; shuffled, hardly ever (1 in 10!)
spins=$(tr ' ' '\n' <<<"$got" | sed -n 's/^spin://p' | tr '\n' ' ')
[ "$spins" != "$(seq 3 12 | tr '\n' ' ')" ] || fail "the added pexecs are not shuffled: $got"
assert_eq "$(added o2.kiln.db)" "$got" "the same growth, the same order"
assert_eq "${got%% *}" "s3:0" "the new key's warm-up pexec first"
assert_eq "$(tr ' ' '\n' <<<"$got" | sort | tr '\n' ' ')" "$(tr ' ' '\n' <<<"$rr" | sort | tr '\n' ' ')" "the same pexecs"
# a changed benchmark, a setting, fewer pexecs or a removed benchmark is no growth: refused as before
refused() { # sed-expression what
	sed -e "$1" g.yaml > h.yaml; cp g.kiln.db h.kiln.db
	out=$("$KILN" run h.yaml 2>&1); assert_eq $? 3 "$2: $out"
	assert_contains "$out" "the config changed since these results were started"
	assert_contains "$out" "more pexecs and benchmarks are added without --force, but $2"
}
refused 's/spin: 10/spin: 11/' "benchmark spin was changed"
refused 's/kmsg: off/kmsg: warn/' "settings other than pexecs, benchmarks and suites changed"
refused 's/pexecs: 3/pexecs: 2/' "pexecs went down from 3 to 2"
refused 's/\[{s3: 7}\]/[]/' "benchmark s3 was removed"
echo ok
