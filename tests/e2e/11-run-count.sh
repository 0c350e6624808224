# 3 keys x 5 pexecs x 50 iterations give exactly 750 stored iterations, and
# the runner protocol's variables reach the runner.
source "$KILN_ROOT/tests/lib.sh"
make_suite
cd "$T"
cat > exp.yaml <<Y
name: count
pexecs: 5
iterations: 50
seed: 3
vms:
  native: {plugin: c}
  fake:
    plugin: external
    runner: [$FAKE, env, "{iterations}"]
    language: c
    entry: bench.c
benchmarks:
  spin: 1000
  spin2: 2000
skip: ["spin2:fake:*"]
Y
"$KILN" run -q exp.yaml || fail "run failed"
assert_eq "$(sqlite3 exp.kiln.db "SELECT COUNT(*) FROM keys")" 3 "keys"
assert_eq "$(sqlite3 exp.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status='ok'")" 15 "ok pexecs"
assert_eq "$(count_iterations exp.kiln.db)" 750 "iterations"
assert_eq "$(sqlite3 exp.kiln.db "SELECT COUNT(DISTINCT key_id||'-'||num) FROM pexecs")" 15 "distinct pexecs"
# the C runner's cpu_ns of every iteration is kept: the series cpu.time of the native pexecs (10 x 50 values)
assert_eq "$(sqlite3 exp.kiln.db "SELECT COUNT(*), SUM(length(s.vals)) FROM series s JOIN pexecs p ON p.id=s.pexec_id JOIN keys k ON k.id=p.key_id WHERE s.name='cpu.time' AND s.unit='s' AND k.vm='native'")" "10|4000" "cpu.time series"
# wall times are real and positive
assert_eq "$(sqlite3 exp.kiln.db "SELECT COUNT(*) FROM pexecs WHERE duration_s <= 0")" 0 "durations"
# the runner saw KILN_PEXEC and a clean environment (PATH + protocol + few others)
assert_eq "$(sqlite3 exp.kiln.db "SELECT MIN(value) FROM scalars WHERE name='has_pexec'")" 1.0 "KILN_PEXEC"
envc=$(sqlite3 exp.kiln.db "SELECT MAX(value) FROM scalars WHERE name='env_count'")
[ "${envc%.*}" -le 14 ] || fail "runner environment not clean: $envc variables"
# status agrees
out=$("$KILN" status exp.kiln.db) || fail "status"
assert_contains "$out" "15 of 15 pexecs done"
"$KILN" status --json exp.kiln.db | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["finished"]==15 and d["remaining"]==0, d' || fail "status --json"
# a session that resumes with another PATH of kiln's runs the same program
# (the VM is run by its absolute path, whose identity is the provenance's):
# nothing is tainted, and kiln says what differed
cat > h.yaml <<Y
pexecs: 4
iterations: 2
vms: {native: {plugin: c}}
benchmarks: {spin: 100}
Y
"$KILN" run -q --max-pexecs 2 h.yaml || fail "first session"
out=$(PATH="$PATH:/nonexistent-extra" "$KILN" run h.yaml 2>&1) || fail "second session: $out"
assert_eq "$(sqlite3 h.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status='ok'")" 4 "both sessions' pexecs ok"
assert_eq "$(sqlite3 h.kiln.db "SELECT COUNT(DISTINCT env_hash) FROM pexecs")" 1 "one program"
assert_contains "$out" "not part of its program, changed since it was recorded: env PATH: "
assert_contains "$out" ":/nonexistent-extra"
assert_eq "$(sqlite3 h.kiln.db "SELECT COUNT(*) FROM programs")" 1 "one program recorded"
assert_contains "$(sqlite3 h.kiln.db "SELECT setting FROM programs")" "/nonexistent-extra" "the latest setting kept"
# the C runner records the benchmark's checksum
cat >> "$T/benchmarks/spin/c/bench.c" <<'C'
long checksum(void) { return kiln_sink % 1000003; }
C
rm -f "$T/benchmarks/spin/c/bench.so"
cat > c.yaml <<Y
pexecs: 2
iterations: 3
vms: {native: {plugin: c}}
benchmarks: {spin: 1000}
Y
"$KILN" run -q c.yaml || fail "c run"
assert_eq "$(sqlite3 c.kiln.db "SELECT COUNT(DISTINCT value) || ' ' || COUNT(*) FROM scalars WHERE name='checksum'")" "1 2" "C checksums"
echo ok
