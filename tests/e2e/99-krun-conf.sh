# A Krun configuration (a .krun file: Python) run as it is (issue 28):
# `kiln convert` reads the subset Krun configs are written in without
# running it (imports, def, if/elif/else on sys.platform, os.path.join,
# os.getcwd(), % and .format, the VM-def constructors, EntryPoint,
# .append/.update, NAME[KEY] = ..., execfile of another .krun) and writes
# the kiln config (VMs, variants, benchmarks and params, iterations,
# pexecs, stack limit, timeout, pre/post commands, SKIP), listing what has
# no kiln equivalent with its line; anything else is refused with
# FILE:LINE; `kiln run X.krun` runs it.
source "$KILN_ROOT/tests/lib.sh"
cd "$T"
mkdir -p k/benchmarks/spin/c k/benchmarks/spin/python
echo 'void run_iter(int n) { volatile long x = 0; for (int i = 0; i < n * 1000; i++) x += i; }' > k/benchmarks/spin/c/bench.c
printf 'def run_iter(n):\n    x = 0\n    for i in range(n * 1000):\n        x += i\n' > k/benchmarks/spin/python/bench.py
cat > k/base.krun <<'P'
import os
import sys
from krun.vm_defs import (NativeCodeVMDef, PythonVMDef, GraalVMDef)
from krun import EntryPoint

def ghz(x):
    return x * 1000 * 1000 * 1000

DIR = os.getcwd()
HEAP_LIMIT = 2097152  # KiB
STACK_LIMIT = 8192  # KiB
ITERATIONS_ALL_VMS = 3
if sys.platform.startswith("linux"):
    GCC_ENV = {"KRUN_DIR": os.path.join(DIR, "work", "lib")}
elif sys.platform.startswith("openbsd"):
    GCC_ENV = {"KRUN_DIR": "bsd"}
else:
    raise NotImplementedError("unknown platform")
VARIANTS = {
    "default-c": EntryPoint("bench.so", subdir="c"),
    "default-python": EntryPoint("bench.py", subdir="python"),
}
VMS = {
    'C': {'vm_def': NativeCodeVMDef(env=GCC_ENV), 'variants': ['default-c'], 'n_iterations': ITERATIONS_ALL_VMS},
}
BENCHMARKS = {'spin': 2}
P
cat > k/exp.krun <<'P'
execfile("base.krun", globals())
VMS.update({
    'CPython': {
        'vm_def': PythonVMDef('python3', env=GCC_ENV),
        'variants': ['default-python'],
        'n_iterations': ITERATIONS_ALL_VMS + 1,
    },
    'Graal': {'vm_def': GraalVMDef('work/graal', 'work/mx/mx'), 'variants': ['default-java'], 'n_iterations': 2},
})
VARIANTS["default-java"] = EntryPoint("KrunEntry", subdir="java")
N_EXECUTIONS = 2
EXECUTION_TIMEOUT = 60
SKIP = ["*:Graal:*"]
HOST = "bench.example.org"
PRE_EXECUTION_CMDS = ["echo pre %s >> %s/log" % (HOST, DIR)]
POST_EXECUTION_CMDS = []
POST_EXECUTION_CMDS.append("echo post {0} >> {1}/log".format(N_EXECUTIONS, DIR))
MAIL_TO = []
P
"$KILN" convert k/exp.krun -o k.yaml 2>notes || fail "convert: $(cat notes)"
y=$(cat k.yaml)
assert_contains "$y" '"C": {plugin: c, variant: "default-c", iterations: 3, env: {"KRUN_DIR": "'"$T"'/k/work/lib"}}'
assert_contains "$y" '"CPython": {plugin: python, path: "python3", variant: "default-python", iterations: 4'
assert_contains "$y" 'pexecs: 2'
assert_contains "$y" 'limits: {stack_mb: 8, timeout: 60}'
assert_contains "$y" '  - \[/bin/sh, -c, "echo pre bench.example.org >> '"$T"'/k/log"\]'
assert_contains "$y" '  - \[/bin/sh, -c, "echo post 2 >> '"$T"'/k/log"\]'
n=$(cat notes)
assert_contains "$n" "exp.krun:8: Graal: GraalVMDef: kiln has no plugin for it; the VM is left out"
assert_contains "$n" "base.krun:10: HEAP_LIMIT: 2097152 KiB of .ulimit -d. (RLIMIT_DATA): kiln has no such limit"
assert_contains "$n" "exp.krun:13: SKIP: '\*:Graal:\*': its VM is left out"
assert_contains "$n" "exp.krun:18: MAIL_TO: not taken over"
# kiln run reads it as it is, in Krun's layout
out=$(cd k && "$KILN" run exp.krun 2>&1) || fail "kiln run exp.krun: $out"
assert_eq "$(sqlite3 k/exp.kiln.db "SELECT k.bench||':'||k.vm||':'||k.variant||' '||SUM(p.status='ok')||' '||MAX(p.n_iter) FROM pexecs p JOIN keys k ON k.id=p.key_id GROUP BY k.id ORDER BY 1")" \
	"spin:C:default-c 2 3
spin:CPython:default-python 2 4" "every pexec, the iterations of each VM"
assert_eq "$(grep -c '^pre bench.example.org' k/log) $(grep -c '^post 2' k/log)" "4 4" "pre and post commands around each pexec"

# numbers as Python reads them (0o17, 0b10, 60L, 0x2000, 1_0), a raw bytes string as raw; what is not read is refused
cat > lit.krun <<'P'
from krun.vm_defs import NativeCodeVMDef
from krun import EntryPoint
VARIANTS = {"default-c": EntryPoint("bench.so", subdir="c")}
VMS = {'C': {'vm_def': NativeCodeVMDef(), 'variants': ['default-c'], 'n_iterations': 0o17}}
BENCHMARKS = {'spin': 1_0}
N_EXECUTIONS = 0b10
EXECUTION_TIMEOUT = 60L
STACK_LIMIT = 0x2000
PRE_EXECUTION_CMDS = [br'echo a\tb', b'c\td']
P
"$KILN" convert lit.krun -o lit.yaml 2>notes || fail "convert literals: $(cat notes)"
y=$(cat lit.yaml)
assert_contains "$y" 'iterations: 15'
assert_contains "$y" 'pexecs: 2'
assert_contains "$y" 'limits: {stack_mb: 8, timeout: 60}'
grep -qF '[/bin/sh, -c, "echo a\\tb"]' lit.yaml || fail "br'...' is raw: $y"
grep -qF '[/bin/sh, -c, "c\td"]' lit.yaml || fail "b'...' is not: $y"
for lit in 1j 08 99999999999999999999; do
	sed "s/0o17/$lit/" lit.krun > badnum.krun
	out=$("$KILN" convert badnum.krun 2>&1); assert_eq $? 3 "$lit: $out"
	assert_contains "$out" "badnum.krun:4: $lit: "
done

# never run: anything else is refused with its line
printf 'VMS = {}\nfor x in range(3):\n    pass\n' > bad.krun
out=$("$KILN" convert bad.krun 2>&1); assert_eq $? 3 "a for loop"
assert_contains "$out" "bad.krun:2: a 'for' statement: not read"
printf 'import os\nos.system("touch %s/owned")\nVMS = {}\n' "$T" > sys.krun
out=$("$KILN" convert sys.krun 2>&1); assert_eq $? 3 "no VMs"
[ ! -e "$T/owned" ] || fail "a .krun file's code ran"
printf 'from krun.util import fatal\nif True:\n    fatal("no pypy here")\n' > fatal.krun
out=$("$KILN" convert fatal.krun 2>&1); assert_eq $? 3 "fatal"
assert_contains "$out" "fatal.krun:3: the config stops here, as Krun would (fatal: no pypy here)"
# prefix operators and powers are nesting too: 200,000 of them are refused with the line (they ran the stack out)
for op in '-' '+' 'not ' '2 ** '; do
	python3 -c "import sys; print('VMS = {}'); print('X = ' + sys.argv[1] * 200000 + '1')" "$op" > deep.krun
	out=$("$KILN" convert deep.krun 2>&1); assert_eq $? 3 "a chain of '$op'"
	assert_contains "$out" "deep.krun:2: an expression nested too deep"
done
printf 'VMS = {}\nX = - - 3 ** - 2\nif not not X < 0:\n    VMS = {}\n' > shallow.krun
out=$("$KILN" convert shallow.krun 2>&1)
assert_contains "$out" "shallow.krun:1: VMS: a dict of VMs expected" "a few prefix operators read"
# what evaluating a config may make is bounded: a list holding itself compared (SIGSEGV), lists sharing
# their items compared (2^40 steps), a string or list doubled 40 times (memory), a big string added to itself again on 100,000 lines (over 2 minutes)
vms='from krun.vm_defs import NativeCodeVMDef
VMS = {"C": {"vm_def": NativeCodeVMDef(), "n_iterations": 2}}
BENCHMARKS = {"b": 1}'
big() { python3 -c "import sys; print(sys.argv[1]); exec(sys.argv[2])" "$vms" "$1" > big.krun; }
big 'print("X = []\nY = [X]\nX.append(Y)\nZ = X == Y\nW = Y in X")'
out=$(timeout 20 "$KILN" convert big.krun 2>&1 >/dev/null); assert_eq $? 0 "a list holding itself, compared: $out"
big 'print("A0 = [1]\nB0 = [1]"); [print("A%d = [A%d, A%d]\nB%d = [B%d, B%d]" % (i, i-1, i-1, i, i-1, i-1)) for i in range(1, 40)]; print("Z = A39 == B39")'
out=$(timeout 20 "$KILN" convert big.krun 2>&1 >/dev/null); assert_eq $? 0 "lists sharing their items, compared: $out"
big 'print("S = \"a\"\nL = [1]"); [print("S = S + S\nL = L + L") for i in range(40)]'
out=$(mem_bounded 1000 timeout 20 "$KILN" convert big.krun 2>&1 >/dev/null); assert_eq $? 0 "doubled 40 times: $out"
big 'print("X = [1]"); [print("X.extend(X)") for i in range(40)]'
out=$(mem_bounded 1000 timeout 20 "$KILN" convert big.krun 2>&1); assert_eq $? 3 "a list extended by itself 40 times"
assert_contains "$out" "big.krun:24: a list of more than 1000000 items"
big 'print("S = \"a\""); [print("S = S + S") for i in range(23)]; [print("T = S + S") for i in range(100000)]'
out=$(timeout 20 "$KILN" convert big.krun 2>&1); assert_eq $? 3 "a big string used again and again"
assert_contains "$out" "big.krun:[0-9]*: more values made than kiln evaluates"
# a file name with a newline: it goes into the config's first comment, which it must not end
evil=$'k\npre_execution: [[sh, -c, "touch owned2"]]\n#.krun'
cp k/exp.krun "k/$evil"
out=$("$KILN" convert "k/$evil" 2>/dev/null) || fail "convert of a file named with newlines: $out"
# (the name may show, escaped, on one line with its \n; never as lines of its own)
grep 'touch owned2' <<<"$out" | grep -vqF '\n' && fail "the file's name became a line of config: $out"
[ ! -e owned2 ] || fail "a command from the file name ran"
echo ok
