# Issue 12 item 4: one key is one program.  A resumed run whose key's
# program changed (the benchmark's source edited, the VM binary upgraded,
# bench.so rebuilt) is refused, saying what changed; with --force its new
# pexecs are kept apart (KEY#2) in every report and export, never averaged
# with the old ones; the same under --force after a config change that
# changes the program (VM args, a PATH in the VM's env).
source "$KILN_ROOT/tests/lib.sh"
command -v python3 >/dev/null || skip "python3 is not installed"
cd "$T"
mkdir -p benchmarks/b/python bin
cat > benchmarks/b/python/bench.py <<'P'
def run_iter(n):
    return sum(range(n))
def checksum():
    return 1
P
cat > py.yaml <<Y
pexecs: 4
iterations: 3
benchmarks_dir: $T/benchmarks
vms: {py: {plugin: python}}
benchmarks: {b: 1000}
Y
pending() { sqlite3 "$1" "SELECT COUNT(*) FROM pexecs WHERE status='pending'"; }

# 1. the benchmark's source edited between sessions
"$KILN" run -q --max-pexecs 2 py.yaml || fail "first session"
h1=$(sqlite3 py.kiln.db "SELECT DISTINCT env_hash FROM pexecs WHERE status='ok'")
assert_eq "${#h1}" 64 "each pexec names its program"
assert_eq "$(sqlite3 py.kiln.db "SELECT COUNT(*) FROM programs")" 1 "one program recorded"
assert_contains "$(sqlite3 py.kiln.db "SELECT description FROM programs")" "bench.file bench.py	sha256:"
"$KILN" run -q py.yaml --max-pexecs 1 || fail "an unchanged program resumes"
echo '    return 2  # edited' >> benchmarks/b/python/bench.py
out=$("$KILN" run py.yaml 2>&1); rc=$?
assert_eq $rc 3 "resume after the source changed"
assert_contains "$out" "the program of 1 key(s) changed"
assert_contains "$out" "b:py:default-python:"
assert_contains "$out" "bench.file bench.py: sha256:"
assert_contains "$out" "--force"
assert_eq "$(pending py.kiln.db)" 1 "nothing ran"
out=$("$KILN" run --force py.yaml 2>&1) || fail "--force: $out"
assert_contains "$out" "kept apart as b:py:default-python#2"
assert_eq "$(sqlite3 py.kiln.db "SELECT COUNT(DISTINCT env_hash) FROM pexecs")" 2 "two programs"
assert_eq "$(sqlite3 py.kiln.db "SELECT group_concat(seq) FROM programs ORDER BY seq")" "1,2" "programs 1 and 2"
# every report and export shows them apart, with 3 and 1 pexecs
"$KILN" report --format json py.kiln.db > r.json || fail "report json"
python3 - r.json <<'P' || fail "JSON report: $(cat r.json | head -c 600)"
import json, sys
d = json.load(open(sys.argv[1]))
text = json.dumps(d)
assert "b:py:default-python#2" in text, "no key #2"
P
for f in text markdown latex html csv; do
	"$KILN" report --format $f py.kiln.db > r.$f 2>/dev/null || fail "report $f"
	grep -q 'default-python#2\|default-python\\#2' r.$f || fail "report $f: no second program: $(head -c 400 r.$f)"
done
grep -q "ran 2 programs" r.text || fail "report text: no note: $(cat r.text)"
"$KILN" export py.kiln.db --format krun -o k.json >/dev/null || fail "export krun"
python3 -c '
import json, sys
d = json.load(open("k.json"))
w = d["wallclock_times"]
assert len(w["b:py:default-python"]) == 3 and len(w["b:py:default-python#2"]) == 1, {k: len(v) for k, v in w.items()}
' || fail "Krun export keeps the programs apart"
out=$("$KILN" status py.kiln.db) || fail "status"
assert_contains "$out" "2 programs"

# 2. a VM binary upgraded (a copy of true, changed), and bench.so rebuilt
cp /bin/true bin/vm
cat > cmd.yaml <<Y
pexecs: 3
vms: {t: {plugin: command, path: $T/bin/vm}}
benchmarks: {noop: 0}
Y
"$KILN" run -q --max-pexecs 1 cmd.yaml || fail "command, first session"
printf '\0' >> bin/vm
out=$("$KILN" run cmd.yaml 2>&1); assert_eq $? 3 "resume after the VM changed"
assert_contains "$out" "vm.sha256: "
make_suite
cat > c.yaml <<Y
pexecs: 3
iterations: 2
benchmarks_dir: $T/benchmarks
vms: {native: {plugin: c}}
benchmarks: {spin: 100}
Y
"$KILN" run -q --max-pexecs 1 c.yaml || fail "c, first session"
assert_contains "$(sqlite3 c.kiln.db "SELECT description FROM programs")" "build.flags	-std=gnu11 -O2"
# bench.so is rebuilt (in kiln's build cache) from an edited source: another program
echo '/* edited */' >> benchmarks/spin/c/bench.c
out=$("$KILN" run c.yaml 2>&1); assert_eq $? 3 "resume after bench.so was rebuilt"
assert_contains "$out" "bench.file bench.c: sha256:"
assert_contains "$out" "file .*/build/c/[0-9a-f]*.so: added sha256:"

# 3. --force after a config change that changes the program: VM args, a PATH in the VM's env
sed 's/vms: {py: {plugin: python}}/vms: {py: {plugin: python, args: [-O]}}/' py.yaml > pyO.yaml
"$KILN" run -q -o o.kiln.db --max-pexecs 2 py.yaml || fail "python, first session"
"$KILN" run -q -o o.kiln.db --force pyO.yaml 2>/dev/null || fail "--force with args"
assert_eq "$(sqlite3 o.kiln.db "SELECT COUNT(*) FROM programs")" 2 "a second program"
assert_contains "$(sqlite3 o.kiln.db "SELECT description FROM programs WHERE seq=2")" '"-O"'
"$KILN" report --format json o.kiln.db > r3.json || fail "report"
grep -q 'default-python#2' r3.json || fail "report: the -O pexecs apart"
if command -v node >/dev/null; then
	mkdir -p benchmarks/b/js
	printf 'exports.run_iter = (n) => { let s = 0; for (let i = 0; i < n; i++) s += i; return s; };\nexports.checksum = () => 1;\n' > benchmarks/b/js/bench.js
	cat > node.yaml <<Y
pexecs: 4
iterations: 3
benchmarks_dir: $T/benchmarks
vms: {n: {plugin: node}}
benchmarks: {b: 1000}
Y
	"$KILN" run -q --max-pexecs 2 node.yaml || fail "node, first session"
	sed -i 's/vms: {n: {plugin: node}}/vms: {n: {plugin: node, args: [--jitless]}}/' node.yaml
	out=$("$KILN" run node.yaml 2>&1); assert_eq $? 3 "a changed config"
	"$KILN" run -q --force node.yaml 2>/dev/null || fail "node --force --jitless"
	"$KILN" export node.kiln.db --format krun -o n.json >/dev/null || fail "export"
	python3 -c '
import json
w = json.load(open("n.json"))["wallclock_times"]
assert sorted(len(v) for v in w.values()) == [2, 2] and len(w) == 2, {k: len(v) for k, v in w.items()}
' || fail "--jitless pexecs kept apart from the JIT ones"
fi
cat > envp.yaml <<Y
pexecs: 2
vms: {t: {plugin: command, path: /bin/true, env: {PATH: /usr/bin}}}
benchmarks: {noop: 0}
Y
"$KILN" run -q --max-pexecs 1 envp.yaml || fail "env PATH, first"
sed -i 's|PATH: /usr/bin|PATH: /usr/bin:/bin|' envp.yaml
out=$("$KILN" run --force envp.yaml 2>&1) || fail "env PATH --force: $out"
assert_contains "$out" "env PATH: /usr/bin -> /usr/bin:/bin"
assert_eq "$(sqlite3 envp.kiln.db "SELECT COUNT(DISTINCT env_hash) FROM pexecs")" 2 "a PATH in the VM's env is part of the program"

# 4. pexecs an older kiln recorded without a provenance
sqlite3 envp.kiln.db "DELETE FROM programs; UPDATE pexecs SET status='pending' WHERE num=1; UPDATE pexecs SET env_hash='0000' WHERE num=0"
out=$("$KILN" run envp.yaml 2>&1); assert_eq $? 3 "unrecorded provenance"
assert_contains "$out" "recorded without a provenance"
echo ok
