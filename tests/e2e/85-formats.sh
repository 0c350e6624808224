# Other tools' files (issue 14 item 4): pyperf's JSON and hyperfine's JSON
# read and written, ReBench's .data read, the real files those tools wrote
# (tests/data/thirdparty) read and checked value by value; kiln's pyperf
# export loaded with pyperf's rules (tests/helpers/check_pyperf.py: pyperf
# is not packaged in Debian 12) and compared as compare_to would.
source "$KILN_ROOT/tests/lib.sh"
cd "$T"
D=$KILN_ROOT/tests/data/thirdparty
CHECK="python3 $KILN_ROOT/tests/helpers/check_pyperf.py"

# ---- pyperf: read, every value; written back, pyperf loads it and compare_to matches ----
"$KILN" report "$D/py3.json.gz" > py3.txt || fail "report on pyperf's py3.json.gz"
assert_contains "$(cat py3.txt)" "timeit:cpython:3.5.2"
"$KILN" import "$D/py2.json.gz" -o py2.kiln.db >/dev/null || fail "import py2"
"$KILN" import "$D/py3.json.gz" -o py3.kiln.db >/dev/null || fail "import py3"
# 21 runs, the first a calibration run (warmups only): 20 pexecs of 1 warmup + 3 values
assert_eq "$(sql py3.kiln.db "SELECT COUNT(*)||' '||SUM(n_iter) FROM pexecs")" "20 80" "pyperf runs as pexecs"
assert_eq "$(sql py3.kiln.db "SELECT DISTINCT value FROM scalars WHERE name='warmups'")" 1.0 "warmups counted"
assert_eq "$(sql py3.kiln.db "SELECT DISTINCT value FROM scalars WHERE name='loops'")" 32768.0 "loops kept"
"$KILN" export py3.kiln.db --format pyperf -o out3.json >/dev/null || fail "export pyperf"
"$KILN" export py2.kiln.db --format pyperf -o out2.json.gz >/dev/null || fail "export pyperf .gz"
$CHECK out3.json >/dev/null || fail "pyperf would not load kiln's export"
$CHECK out2.json.gz >/dev/null || fail "pyperf would not load kiln's .json.gz"
# the same values (bit for bit: the imported file is kept, test 98), warmups written back as warmups, and the
# calibration run (no values) back first
python3 - "$D/py3.json.gz" out3.json <<'P' || fail "values after a round trip"
import gzip, json, sys
a = json.load(gzip.open(sys.argv[1], "rt"))["benchmarks"][0]["runs"]
b = json.load(open(sys.argv[2]))["benchmarks"][0]["runs"]
assert len(a) == len(b) == 21 and a[0] == b[0] and "values" not in b[0]
a, b = a[1:], b[1:]
for x, y in zip(a, b):
    assert len(x["values"]) == len(y["values"]) == 3 and len(y["warmups"]) == 1
    for u, v in zip(x["values"], y["values"]):
        assert abs(u - v) <= 0.5e-9, (u, v)
    assert y["warmups"][0][0] == x["warmups"][0][0] == 32768
    assert y["metadata"]["mem_max_rss"] == x["metadata"]["mem_max_rss"]
P
# compare_to matches the benchmark by name across pyperf's file and kiln's
assert_eq "$($CHECK "$D/py2.json.gz" out3.json | cut -d' ' -f1)" timeit "compare_to finds the benchmark in both"
# a kiln experiment's keys, one name each unless two keys share a bench
cat > two.yaml <<'Y'
pexecs: 2
vms:
  a: {plugin: command, path: /bin/true}
  b: {plugin: command, path: /bin/true, variant: other}
benchmarks: {noop: 0, nap: 0}
skip: ["nap:b:*"]
Y
"$KILN" run -q two.yaml || fail "run"
"$KILN" export two.kiln.db --format pyperf -o two.json >/dev/null || fail "export of a run"
assert_eq "$($CHECK two.json | cut -d' ' -f1 | sort | tr '\n' ,)" "nap,noop:a:default-command,noop:b:other," "names"
# back in, the keys are the same
"$KILN" import two.json -o two2.kiln.db >/dev/null || fail "import kiln's pyperf"
assert_eq "$(sql two2.kiln.db "SELECT bench||':'||vm||':'||variant FROM keys ORDER BY 1" | tr '\n' ,)" \
	"nap:a:default-command,noop:a:default-command,noop:b:other," "keys through pyperf"

# ---- hyperfine: read, written back with the same statistics ----
H=$D/hyperfine_1.15_export_node.json
"$KILN" import "$H" -o hf.kiln.db >/dev/null || fail "import hyperfine"
assert_eq "$(sql hf.kiln.db "SELECT bench||':'||vm FROM keys")" "/usr/bin/node -e 0:node" "key of a hyperfine command"
"$KILN" export hf.kiln.db --format hyperfine -o hf.json >/dev/null || fail "export hyperfine"
python3 - "$H" hf.json <<'P' || fail "hyperfine round trip"
import json, sys
a = json.load(open(sys.argv[1]))["results"][0]
b = json.load(open(sys.argv[2]))["results"][0]
assert list(a) == list(b), (list(a), list(b))
assert a["command"] == b["command"]
for k in ("mean", "stddev", "median", "min", "max", "user", "system"):
    assert abs(a[k] - b[k]) <= 1e-9 * max(1, abs(a[k])), (k, a[k], b[k])
assert len(a["times"]) == len(b["times"]) == 200 and a["exit_codes"] == b["exit_codes"]
assert all(abs(u - v) <= 0.5e-9 for u, v in zip(a["times"], b["times"]))
P
# a multi-iteration key has no place in hyperfine's layout
"$KILN" import "$D/py3.json.gz" -o p.kiln.db >/dev/null
out=$("$KILN" export p.kiln.db --format hyperfine -o x.json 2>&1); assert_eq $? 1 "iterations to hyperfine"
assert_contains "$out" "more than one iteration per pexec"

# ---- ReBench: read, units, criteria ----
R=$D/clbg_binary_trees_results.data
"$KILN" import "$R" -o rb.kiln.db >/dev/null || fail "import ReBench"
assert_eq "$(sql rb.kiln.db "SELECT COUNT(*) FROM keys")" 4 "four executors"
"$KILN" export rb.kiln.db --format csv -o rb.csv >/dev/null || fail "export"
python3 -c 'import csv; r={x[1]: float(x[2]) for x in list(csv.reader(open("rb.csv")))[1:]}; assert r["binary_trees:bt_rc:binary_trees"] == 15.12 and r["binary_trees:bt_typed_arena:binary_trees"] == 1.92, r' \
	|| fail "ReBench's ms as seconds"
assert_contains "$("$KILN" report "$R")" "MaxRSS"

# ---- bad files: exit 3, naming the file and the place ----
bad() { # NAME CONTENT EXPECTED
	printf '%s' "$2" > "$1"
	local out rc
	out=$("$KILN" report "$1" 2>&1); rc=$?
	assert_eq $rc 3 "$1"
	assert_contains "$out" "$3" "$1"
}
bad h1.json '{"results": [{"command": "x", "times": [0.1, "a"]}]}' 'results\[0\].times\[1\]: not a time'
bad h2.json '{"results": [{"times": [0.1]}]}' 'results\[0\].command: missing'
bad h3.json '{"results": [{"command": "x", "times": [0.1], "exit_codes": [0, 1]}]}' 'exit_codes: 2 of them for 1 times'
bad p1.json '{"version": "1.0", "benchmarks": [{"runs": [{"values": [1.0]}]}]}' 'no name in its metadata'
bad p2.json '{"version": "1.0", "metadata": {"name": "x"}, "benchmarks": [{"runs": [{"values": [-1]}]}]}' 'values\[0\]: not a time'
bad p3.json '{"version": "2.5", "benchmarks": []}' 'version'
bad p4.json '{"version": "1.0", "metadata": {"name": "m", "unit": "byte"}, "benchmarks": [{"runs": [{"values": [3]}]}]}' "unit 'byte'"
bad r1.data "$(printf 'invocation\titeration\tvalue\tunit\tcriterion\tbenchmark\texecutor\tsuite\n1\t1\tx\tms\ttotal\tb\te\ts\n')" 'r1.data:2: column value'
bad r2.data "$(printf 'invocation\titeration\tvalue\tunit\tcriterion\tbenchmark\texecutor\tsuite\n1\t2\t5\tms\ttotal\tb\te\ts\n')" 'no .total. for iteration 1'
bad r3.data "$(printf 'invocation\titeration\tvalue\tunit\tcriterion\tbenchmark\texecutor\tsuite\n1\t1\t5\tkb\ttotal\tb\te\ts\n')" 'not a unit of time'
# a gzip bomb is bounded as a bzip2 one is
{ printf '{"version": "1.0", "benchmarks": ['; head -c 60000000 /dev/zero | tr '\0' ' '; } | gzip -9 > bomb.json.gz
out=$("$KILN" report bomb.json.gz 2>&1); assert_eq $? 3 "a gzip bomb"
assert_contains "$out" "refused as a decompression bomb"
echo ok
