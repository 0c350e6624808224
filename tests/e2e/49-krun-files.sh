# Krun's and warmup_stats' own files (tests/data/krun, written by those
# tools) both ways: every one imports; kiln's exports pass what Krun and
# warmup_stats check (tests/helpers/krun_tools.py restates Krun's
# integrity_check(), the plotter's use of audit.uname and what R's
# changepoint package is given; neither tool installs here); an imported
# Krun file comes back out as it was (times, flags, per-core counts, ETAs,
# audit, config); files from before October 2016 ("data"); a CSV import
# naming its VM and variant; a repeated pexec_idx; Krun's instrumentation
# folder read and written.
source "$KILN_ROOT/tests/lib.sh"
D=$KILN_ROOT/tests/data/krun
TOOLS="python3 $KILN_ROOT/tests/helpers/krun_tools.py"
cd "$T"

# the checks themselves: Krun's own file passes them, kiln's former export shape does not
$TOOLS all "$D/krun_writer_4core_C_E_T_results.json.bz2" || fail "Krun's own file fails the reproduced checks"
python3 - <<'P'
import json
json.dump({"wallclock_times": {"a:b:c": [[0.1] * 5, []]}, "pexec_flags": {"a:b:c": ["C", "E"]},
           "core_cycle_counts": {"a:b:c": [[[1] * 5], []]}, "eta_estimates": {"a:b:c": []},
           "audit": {"uname": {"nodename": "h"}}}, open("old-shape.json", "w"))
P
for c in integrity plot; do
	$TOOLS $c old-shape.json >/dev/null && fail "check $c passes what Krun's tools refuse"
done

# every file of the folder imports
for f in "$D"/*.json.bz2; do
	b=$(basename "$f" .json.bz2)
	"$KILN" import "$f" -o "$b.kiln.db" >/dev/null || fail "import $b"
done

# Krun's file, imported and exported again, is the file it was
"$KILN" export krun_writer_4core_C_E_T_results.kiln.db --format krun -o back.json.bz2 >/dev/null || fail "export"
$TOOLS all back.json.bz2 || fail "kiln's export of a Krun file fails Krun's checks"
python3 - "$D/krun_writer_4core_C_E_T_results.json.bz2" back.json.bz2 <<'P' || fail "the round trip changed the file"
import bz2, json, sys
a, b = (json.loads(bz2.decompress(open(p, "rb").read())) for p in sys.argv[1:])
for f in ("wallclock_times", "pexec_flags", "core_cycle_counts", "aperf_counts", "mperf_counts",
          "eta_estimates", "audit", "config", "error_flag"):
    assert a[f] == b[f], f
print("round trip ok")
P
# Krun's error_flag says more than its pexec flags (quick_results: every pexec C, the flag true): it comes back
"$KILN" export quick_results.kiln.db --format krun -o quick_back.json >/dev/null || fail "export quick_results"
python3 - "$D/quick_results.json.bz2" quick_back.json <<'P' || fail "error_flag lost in the round trip"
import bz2, json, sys
a = json.loads(bz2.decompress(open(sys.argv[1], "rb").read()))
b = json.load(open(sys.argv[2]))
assert a["error_flag"] is True and b["error_flag"] is True, b["error_flag"]
P
# what the import kept, where kiln keeps it
assert_eq "$(sql krun_writer_4core_C_E_T_results.kiln.db "SELECT status, COUNT(*) FROM pexecs GROUP BY status ORDER BY status" | tr '\n' ' ')" \
	"failed|4 ok|8 timeout|4 " "statuses from pexec_flags"
assert_eq "$(sql krun_writer_4core_C_E_T_results.kiln.db "SELECT value FROM audit WHERE name='hostname'")" vm "machine from audit.uname"
assert_contains "$(sql krun_writer_4core_C_E_T_results.kiln.db "SELECT value FROM meta WHERE name='config_text'")" "N_EXECUTIONS = 4"
assert_eq "$(sql krun_writer_4core_C_E_T_results.kiln.db "SELECT COUNT(DISTINCT name) FROM series")" 12 "3 counters x 4 cores"
"$KILN" audit krun_writer_4core_C_E_T_results.kiln.db >/dev/null || fail "kiln audit of an import"

# before October 2016: "data" instead of "wallclock_times"
for b in "quick_results@627cb2bb" "broken_etas@85f06a6d"; do
	"$KILN" export "$b.kiln.db" --format krun -o "$b.out.json" >/dev/null || fail "export $b"
	python3 - "$D/$b.json.bz2" "$b.out.json" <<'P' || fail "$b: times differ"
import bz2, json, sys
a = json.loads(bz2.decompress(open(sys.argv[1], "rb").read()))
b = json.load(open(sys.argv[2]))
assert "wallclock_times" not in a and a["data"] == b["wallclock_times"], (a["data"], b["wallclock_times"])
P
done

# kiln's own run: a failed pexec and a tainted one written as Krun writes them, and back with nothing lost
mkdir -p benchmarks/spin/c
echo 'volatile long s; void run_iter(long p) { for (long i = 0; i < p; i++) s += i; }' > benchmarks/spin/c/bench.c
cat > x.yaml <<Y
pexecs: 3
iterations: 6
vms:
  native: {plugin: c}
  bad: {plugin: external, runner: [$FAKE, early, "{iterations}"], language: c, entry: bench.c}
benchmarks: {spin: 1000}
Y
"$KILN" run -q x.yaml; [ $? -le 1 ] || fail "run"
sql x.kiln.db "UPDATE pexecs SET status='tainted', taint='test' WHERE num=1 AND key_id=(SELECT id FROM keys WHERE vm='native')"
"$KILN" export x.kiln.db --format krun -o x_results.json.bz2 >/dev/null || fail "export of a run"
$TOOLS all x_results.json.bz2 || fail "kiln's export fails Krun's checks"
python3 - <<'P' || fail "the export's shape"
import bz2, json
d = json.loads(bz2.decompress(open("x_results.json.bz2", "rb").read()))
k = "spin:native:default-c"
assert d["pexec_flags"][k] == ["C", "E", "C"], d["pexec_flags"][k]
assert d["wallclock_times"][k][1] == [] and len(d["kiln_partial_times"][k][1]) == 6
assert d["kiln_status"][k] == ["ok", "tainted", "ok"]
assert isinstance(d["audit"]["uname"], str) and d["audit"]["uname"].split(" ")[1]
assert len(d["eta_estimates"][k]) == 3 and all(x > 0 for x in d["eta_estimates"][k])
P
"$KILN" import x_results.json.bz2 -o x2.kiln.db >/dev/null || fail "re-import"
assert_eq "$(sql x2.kiln.db "SELECT p.status, i.n FROM pexecs p JOIN iterations i ON i.pexec_id=p.id JOIN keys k ON k.id=p.key_id WHERE k.vm='native' ORDER BY p.num" | tr '\n' ' ')" \
	"ok|6 tainted|6 ok|6 " "statuses and the tainted pexec's times back"
dur="SELECT k.vm, p.num, round(p.duration_s, 6) FROM pexecs p JOIN keys k ON k.id=p.key_id ORDER BY k.vm, p.num"
assert_eq "$(sql x.kiln.db "$dur" | tr '\n' ' ')" "$(sql x2.kiln.db "$dur" | tr '\n' ' ')" "durations as ETAs"

# Krun's instrumentation folder: read beside the file, written beside the export
mkdir -p in && python3 - <<'P'
import bz2, json
d = json.loads(bz2.decompress(open("x_results.json.bz2", "rb").read()))
open("in/exp_results.json.bz2", "wb").write(bz2.compress(json.dumps(d).encode()))
import os
os.makedirs("in/exp_instr_data")
for p in range(3):
    open("in/exp_instr_data/spin__native__default-c__%d.json.bz2" % p, "wb").write(
        bz2.compress(json.dumps({"gc_ms": [p, 1.5, None, 2, 3, 4], "raw_vm_events": [["gc", 1, 2]]}).encode()))
P
"$KILN" import in/exp_results.json.bz2 -o i.kiln.db >/dev/null || fail "import with a folder"
assert_eq "$(sql i.kiln.db "SELECT COUNT(*) FROM series WHERE name='gc_ms'")" 3 "the folder's series"
mkdir -p out
"$KILN" export i.kiln.db --format krun -o out/e_results.json.bz2 >/dev/null || fail "export with a folder"
[ -f out/e_instr_data/spin__native__default-c__2.json.bz2 ] || fail "the folder written as Krun names it: $(ls out)"
python3 - <<'P' || fail "the folder's content"
import bz2, json, math
d = json.loads(bz2.decompress(open("out/e_instr_data/spin__native__default-c__2.json.bz2", "rb").read()))
assert d["gc_ms"][:2] == [2, 1.5] and d["gc_ms"][2] is None, d
P

# warmup_stats' CSV: bare names get the VM and variant csv_to_krun_json -v V8 -l javascript gives them
"$KILN" import "$D/readme_example.csv" -o csv.kiln.db --vm V8 --language javascript >/dev/null || fail "csv import"
"$KILN" export csv.kiln.db --format krun -o csv.json >/dev/null || fail "csv export"
python3 - "$D/warmup_stats_csv_to_krun_json_readme.json.bz2" <<'P' || fail "CSV keys and values differ from csv_to_krun_json's"
import bz2, json, sys
a = json.loads(bz2.decompress(open(sys.argv[1], "rb").read()))["wallclock_times"]
b = json.load(open("csv.json"))["wallclock_times"]
# csv_to_krun_json keeps the space after the CSV's comma in the key; kiln trims cells
assert {k.strip(): v for k, v in a.items()} == b, (a, b)
P
printf 'pexec_idx,bench,0,1\n0,a,1,2\n1,a,1,2\n0,a,3,4\n' > dup.csv
out=$("$KILN" import dup.csv -o dup.kiln.db 2>&1); rc=$?
assert_eq $rc 3 "a repeated pexec_idx"
assert_contains "$out" "dup.csv:4: column 1 (pexec_idx): pexec 0 of 'a' is already on line 2"
[ -e dup.kiln.db ] && fail "a failed import leaves a results file"
# a reference file with one pexec_flags entry too many for its wallclock_times
python3 - "$D/krun_writer_4core_C_E_T_results.json.bz2" long.json <<'P'
import bz2, json, sys
d = json.loads(bz2.decompress(open(sys.argv[1], "rb").read()))
k = sorted(d["pexec_flags"])[0]
d["pexec_flags"][k].append("C")
json.dump(d, open(sys.argv[2], "w"))
P
out=$("$KILN" import long.json -o long.kiln.db 2>&1); rc=$?
assert_eq $rc 3 "pexec_flags longer than wallclock_times"
assert_contains "$out" "long.json: pexec_flags: key '.*': [0-9]* pexecs, but [0-9]* in wallclock_times"
[ -e long.kiln.db ] && fail "a failed import leaves a results file"
out=$("$KILN" import "$D/quick_results.json.bz2" -o q.kiln.db --vm V8 2>&1); rc=$?
assert_eq $rc 2 "--vm on a Krun file"
echo ok
