# Your own benchmarks/ beside the config and the bundled suite together: a
# benchmark the folder has is yours (it may stand in for a bundled one of
# the same name), any other is the bundled suite's; benchmarks_dir set
# explicitly is the only place searched.
source "$KILN_ROOT/tests/lib.sh"
command -v cc >/dev/null || skip "no C compiler"
cd "$T"
mkdir -p benchmarks/mine/c benchmarks/nbody/c
cat > benchmarks/mine/c/bench.c <<'C'
volatile long kiln_sink;
void run_iter(long param) { long x = 0; for (long i = 0; i < param; i++) x += i; kiln_sink = x; }
long checksum(void) { return 7; }
C
# an nbody of my own: it must be the one that runs
cat > benchmarks/nbody/c/bench.c <<'C'
volatile long kiln_sink;
void run_iter(long param) { kiln_sink = param; }
long checksum(void) { return 4242; }
C
cat > t.yaml <<'Y'
pexecs: 1
iterations: 2
vms:
  native: {plugin: c}
benchmarks: {mine: 100, nbody: 100, spectral_norm: 10}
platform: {kmsg: off}
Y
"$KILN" run -q t.yaml 2>err.txt || fail "own and bundled benchmarks together: $(cat err.txt)"
assert_eq "$(sqlite3 t.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status='ok'")" 3 "pexecs ok"
ck() { sqlite3 t.kiln.db "SELECT CAST(s.value AS INTEGER) FROM scalars s JOIN pexecs p ON p.id = s.pexec_id JOIN keys k ON k.id = p.key_id WHERE s.name='checksum' AND k.bench='$1'"; }
assert_eq "$(ck mine)" 7 "my benchmark ran"
assert_eq "$(ck nbody)" 4242 "my nbody stands in for the bundled one"
[ -n "$(ck spectral_norm)" ] && [ "$(ck spectral_norm)" != 7 ] || fail "spectral_norm is not the bundled one: $(ck spectral_norm)"
# benchmarks_dir named: only there
sed 's/^pexecs: 1$/pexecs: 1\nbenchmarks_dir: benchmarks/' t.yaml > only.yaml
out=$("$KILN" run -q only.yaml 2>&1); rc=$?
assert_eq "$rc" 3 "benchmarks_dir given: spectral_norm is not there ($out)"
assert_contains "$out" "spectral_norm"
