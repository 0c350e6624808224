# ReBench's own configuration run as it is (issue 28): `kiln convert` and
# `kiln run` read a rebench.conf (executors, suites, location, build,
# %(benchmark)s %(iterations)s %(input)s %(variable)s %(cores)s,
# input_sizes, variable_values, cores, invocations, iterations,
# max_invocation_time, RebenchLog with AWFY's summary line), list what
# they do not take over with its line, and run it; a ReBench .data file of
# the same runs imports under the same keys, so `kiln diff` pairs every
# one.  Small AWFY-like harnesses of our own (CI has no AWFY checkout).
source "$KILN_ROOT/tests/lib.sh"
cd "$T"

mkdir -p bench/sh bench/py vm
# an AWFY-like harness: NAME ITERATIONS INNER [VARIABLE] [CORES]; modules from the folder it starts in
cat > bench/sh/harness.sh <<'SH'
#!/bin/sh
[ -f "./$1.mod" ] || { echo "module '$1' not found in $(pwd)" >&2; exit 1; }
i=0
while [ $i -lt "$2" ]; do echo "$1: iterations=1 runtime: $((1000 + $3 + ${4:-0} + 10 * ${5:-0} + i))us"; i=$((i + 1)); done
echo "$1: iterations=$2 average: 1000us total: $((1000 * $2))us"
SH
cat > bench/py/harness.py <<'P'
import sys
name, n, inner = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for i in range(n):
    print("%s: iterations=1 runtime: %dus" % (name, 2000 + inner + i))
print("%s: iterations=%d average: 2000us total: %dus" % (name, n, 2000 * n))
P
touch bench/sh/Bounce.mod bench/sh/Sieve.mod
# an executor that its build makes
cat > rb.conf <<'Y'
default_experiment: all
default_data_file: 'rb.data'
.anchors:
    x: &BENCHES
        - Bounce: {extra_args: 5, input_sizes: [1, 2]}
        - Sieve: {extra_args: 7, iterations: 2}
runs:
    invocations: 2
    iterations: 3
    min_iteration_time: 10
benchmark_suites:
    shell:
        gauge_adapter: RebenchLog
        location: bench/sh
        command: "harness.sh %(benchmark)s %(iterations)s %(input)s %(variable)s %(cores)s"
        variable_values: [3]
        cores: [1]
        max_invocation_time: 60
        benchmarks: *BENCHES
    python:
        gauge_adapter: rebenchlog
        location: bench/py
        command: harness.py %(benchmark)s %(iterations)s
        benchmarks:
            - Richards: {extra_args: 1}
executors:
    Shell:
        path: vm
        executable: mysh
        build: ["ln -sf /bin/sh mysh"]
    Py: {executable: python3}
experiments:
    both:
        executions:
            - Shell: {suites: [shell]}
            - Py: {suites: [python]}
Y
"$KILN" convert rb.conf -o kiln.yaml 2>notes || fail "convert: $(cat notes)"
assert_contains "$(cat notes)" "not taken over: rb.conf:10: runs.min_iteration_time: not taken over"
assert_contains "$(cat notes)" "not taken over: rb.conf:2: default_data_file: kiln keeps the results in CONFIG-STEM.kiln.db"
assert_contains "$(cat kiln.yaml)" '"shell":'
out=$("$KILN" run rb.conf 2>&1) || fail "kiln run rb.conf: $out"
db=rb.kiln.db
assert_eq "$(sqlite3 $db "SELECT k.bench||':'||k.vm||':'||k.variant||' '||COUNT(*)||' '||SUM(p.status='ok')||' '||MIN(p.n_iter) FROM pexecs p JOIN keys k ON k.id=p.key_id GROUP BY k.id ORDER BY 1")" \
"Bounce[input=1]:Shell:shell 2 2 3
Bounce[input=2]:Shell:shell 2 2 3
Richards:Py:python 2 2 3
Sieve:Shell:shell 2 2 2" "the runs, their invocations and iterations"
"$KILN" export $db --format krun -o w.json >/dev/null || fail "export"
assert_eq "$(python3 -c '
import json; d = json.load(open("w.json"))["wallclock_times"]
print(" ".join("%s=%s" % (k.split(":")[0], ",".join(str(round(x * 1e6)) for x in d[k][0])) for k in sorted(d)))')" \
	"Bounce[input=1]=1014,1015,1016 Bounce[input=2]=1015,1016,1017 Richards=2001,2002,2003 Sieve=1074,1075" \
	"every placeholder substituted (input + variable + 10 x cores + i; Sieve's empty input is no word, as in a shell)"
assert_contains "$(sqlite3 $db "SELECT value FROM meta WHERE name='config_text'")" "timeout: 60"

# ReBench's .data of the same runs (its columns and layout): imported under the same keys
{
	printf '#!/usr/bin/rebench rb.conf\n# Environment: {"hostName": "%s", "cpu": "x"}\n' "$(hostname)"
	printf 'invocation\titeration\tvalue\tunit\tcriterion\tbenchmark\texecutor\tsuite\textraArgs\tcores\tinputSize\tvarValue\ttag\tmachine\trunId\n'
	for inv in 1 2; do for it in 1 2 3; do
		for in in 1 2; do printf '%d\t%d\t1.%03d\tms\ttotal\tBounce\tShell\tshell\t5\t1\t%d\t3\t\t\t0\n' $inv $it $((18 + in + it)) $in; done
		printf '%d\t%d\t2.%03d\tms\ttotal\tRichards\tPy\tpython\t1\t1\t\t\t\t\t1\n' $inv $it $it
		printf '%d\t%d\t12.5\tkb\tMaxRSS\tRichards\tPy\tpython\t1\t1\t\t\t\t\t1\n' $inv $it
		[ $it -le 2 ] && printf '%d\t%d\t1.%03d\tms\ttotal\tSieve\tShell\tshell\t7\t1\t\t3\t\t\t2\n' $inv $it $((19 + it))
	done; done
} > rb.data
"$KILN" import rb.data -o imported.kiln.db >/dev/null || fail "import"
assert_eq "$(sqlite3 imported.kiln.db "SELECT bench||':'||vm||':'||variant FROM keys ORDER BY 1" | tr '\n' ' ')" \
	"Bounce[input=1]:Shell:shell Bounce[input=2]:Shell:shell Richards:Py:python Sieve:Shell:shell " "the same keys"
"$KILN" diff imported.kiln.db $db --json > d.json || fail "diff"
python3 -c '
import json; d = json.load(open("d.json"))
v = [k["verdict"] for k in d["keys"]]
assert len(v) == 4 and not any(x.startswith("only in") for x in v), v' || fail "kiln diff pairs every key: $(cat d.json | head -c 600)"

# an executor running two suites: EXECUTOR.SUITE, in the conversion and the import alike
sed -i 's/            - Py: {suites: \[python\]}/            - Py: {suites: [python]}\n            - Shell: {suites: [python]}/' rb.conf
assert_contains "$("$KILN" convert rb.conf 2>/dev/null)" '"Shell.python":'

# what kiln cannot read: refused with the line
printf 'executors: {E: {executable: sh}}\nbenchmark_suites: {s: {gauge_adapter: {My: my.py}, command: x, benchmarks: [b]}}\nexperiments: {e: {executions: [E], suites: [s]}}\n' > custom.conf
out=$("$KILN" run custom.conf 2>&1); assert_eq $? 3 "a Python adapter"
assert_contains "$out" "custom.conf:2: benchmark_suites.s: gauge_adapter: a Python adapter of your own"
printf 'executors: {E: {executable: sh, colour: red}}\nbenchmark_suites: {s: {gauge_adapter: Time, command: x, benchmarks: [b]}}\nexperiments: {e: {executions: [E], suites: [s]}}\n' > bad.conf
out=$("$KILN" convert bad.conf 2>&1); assert_eq $? 3 "an unknown key"
assert_contains "$out" "bad.conf:1: executors.E: 'colour' is not a key of ReBench's configuration here"
# a suite's command that is not one value (the fuzzer's find: kiln went on with none and crashed)
printf 'executors: {E: {executable: sh}}\nbenchmark_suites: {s: {gauge_adapter: Time, command: {a: b}, benchmarks: [b]}}\nexperiments: {e: {executions: [E], suites: [s]}}\n' > cmdmap.conf
out=$("$KILN" convert cmdmap.conf 2>&1); assert_eq $? 3 "a command that is a mapping"
assert_contains "$out" "cmdmap.conf:2: benchmark_suites.s: a single value expected"
# a file name with a newline: it goes into the config's first comment, which it must not end (a line of
# config after it would run as root: pre_execution)
evil=$'rb\npre_execution: [[sh, -c, "touch owned"]]\n#.conf'
cp rb.conf "$evil"
out=$("$KILN" convert "$evil" 2>/dev/null) || fail "convert of a file named with newlines: $out"
# (the name may show, escaped, on one line with its \n; never as lines of its own)
grep 'touch owned' <<<"$out" | grep -vqF '\n' && fail "the file's name became a line of config: $out"
"$KILN" run --dry-run "$evil" > dry.txt 2>&1
grep 'touch owned' dry.txt | grep -vqF '\n' && fail "the dry run reads a pre_execution from the file name: $(cat dry.txt)"
[ ! -e owned ] || fail "a command from the file name ran"
echo ok
