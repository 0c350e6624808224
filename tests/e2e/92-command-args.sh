# A command VM's command line as a ReBench user writes it (issue 28):
# {benchmark}, {vm}, {variant}, {iterations}, {param} and a benchmark's vars
# substituted in the VM's and the benchmark's args; a `{name}` nothing
# substitutes is said at the start, with its line, and passed on as it is;
# `cwd` (ReBench's `location`) of a VM, a suite or a benchmark is where its
# pexecs, probes and steps start; without one they start in the config's
# folder; a benchmark's own iterations.
source "$KILN_ROOT/tests/lib.sh"
cd "$T"

mkdir -p cfg/harness cfg/other
# a harness that finds its module in the folder it starts in, as AWFY's Lua harness does
cat > cfg/harness/harness.sh <<'SH'
#!/bin/sh
# args: NAME ITERATIONS INNER
[ -f "./$1.mod" ] || { echo "module '$1' not found in $(pwd)" >&2; exit 1; }
i=0
while [ $i -lt "$2" ]; do echo "$1: iterations=1 runtime: $((100 + $3))us"; i=$((i + 1)); done
echo "$1: iterations=$2 average: 1us total: 1us"
SH
chmod +x cfg/harness/harness.sh
touch cfg/harness/Bounce.mod cfg/harness/Sieve.mod cfg/other/Sieve.mod
cat > cfg/exp.yaml <<'Y'
iterations: 3
vms:
  sh: {plugin: command, path: harness/harness.sh, gauge: rebench, cwd: harness,
       args: ["{benchmark}", "{iterations}", "{inner}"],
       build: [/bin/sh, -c, "pwd > built-in.txt"]}
suites:
  awfy:
    benchmarks:
      - Bounce: {vars: {inner: [1, 20]}}
      - Sieve: {vars: {inner: 5}, iterations: 2, cwd: other}
Y
cd /   # kiln's own folder is not where anything starts
"$KILN" run -q "$T/cfg/exp.yaml" 2>"$T/err" || fail "run: $(cat "$T/err") $(sqlite3 "$T/cfg/exp.kiln.db" 'SELECT error FROM pexecs')"
cd "$T"
db=cfg/exp.kiln.db
assert_eq "$(sqlite3 $db "SELECT k.bench || ' ' || p.n_iter FROM pexecs p JOIN keys k ON k.id=p.key_id ORDER BY k.bench")" \
	"Bounce[inner=1] 3
Bounce[inner=20] 3
Sieve 2" "a key per value of a var (one value names no key), the benchmark's own iterations"
"$KILN" export $db --format krun -o w.json >/dev/null || fail "export"
assert_eq "$(python3 -c '
import json; d = json.load(open("w.json"))["wallclock_times"]
print(" ".join("%s=%d" % (k.split(":")[0], round(d[k][0][0] * 1e6)) for k in sorted(d)))')" \
	"Bounce[inner=1]=101 Bounce[inner=20]=120 Sieve=105" "{inner} substituted"
assert_eq "$(cat cfg/harness/built-in.txt)" "$T/cfg/harness" "the VM's build starts in its cwd"
# a benchmark's cwd is over its VM's: Sieve ran in other/ (its module is there, and in harness/ too: remove it there)
rm cfg/harness/Sieve.mod cfg/exp.kiln.db
"$KILN" run -q cfg/exp.yaml || fail "the benchmark's cwd: $(sqlite3 $db 'SELECT error FROM pexecs WHERE error IS NOT NULL')"

# without a cwd, a command starts in the config's folder (docs/plugins/command.md)
cat > cfg/here.yaml <<'Y'
vms: {sh: {plugin: command, path: /bin/sh, args: [-c, "pwd > where.txt"]}}
benchmarks: [b]
Y
(cd / && "$KILN" run -q "$T/cfg/here.yaml") || fail "pwd"
assert_eq "$(cat cfg/where.txt)" "$T/cfg" "the config's folder"

# a name nothing substitutes: said with its line, passed on as it is
cat > ph.yaml <<'Y'
vms:
  sh: {plugin: command, path: /bin/sh, args: [-c, 'echo "{benchmark}:{vm}:{variant}:{param}:{nope}" > ph.out']}
benchmarks: {fib: {param: [25]}}
Y
"$KILN" run ph.yaml 2>err || fail "ph: $(cat err)"
assert_contains "$(cat err)" "kiln: warning: ph.yaml:2:52: vms.sh.args\[1\]: '{nope}' is no placeholder nor a var of any benchmark: passed on as it is"
assert_eq "$(cat ph.out)" "fib:sh:default-command:25:{nope}" "{benchmark} is the name without its [param]"
cat > py.yaml <<'Y'
vms: {py: {plugin: python, args: ["-X{benchmark}"]}}
benchmarks: {nbody: 1}
Y
out=$("$KILN" run --dry-run py.yaml 2>&1) || fail "py: $out"
assert_contains "$out" "py.yaml:1:36: vms.py.args\[0\]: '{benchmark}' is passed on as it is: the python plugin gives its VM's args to the VM unchanged"

# errors at the line: a cwd that is not there, iterations a process cannot give, a var that is a placeholder
printf 'vms: {sh: {plugin: command, path: /bin/true, cwd: nowhere}}\nbenchmarks: [b]\n' > e.yaml
config_refused e.yaml "e.yaml:1:51: vms.sh.cwd: the folder $T/nowhere does not exist"
printf 'vms: {sh: {plugin: command, path: /bin/true}}\nbenchmarks: {b: {iterations: 3}}\n' > e.yaml
config_refused e.yaml "e.yaml:2:.*: benchmarks.b.iterations: VM 'sh' runs it with the command plugin, one iteration per process"
printf 'vms: {sh: {plugin: command, path: /bin/true}}\nbenchmarks: {b: {vars: {param: [1]}}}\n' > e.yaml
config_refused e.yaml "benchmarks.b.vars.param: 'param' is one of kiln's placeholders"
printf 'vms: {sh: {plugin: command, path: /bin/true}}\nbenchmarks: {b: {vars: {1x: [1]}}}\n' > e.yaml
config_refused e.yaml "benchmarks.b.vars.1x: '1x' is not a variable name"
echo ok
