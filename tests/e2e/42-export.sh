# kiln export of a real run, read back: Krun's .json.bz2 (by Python, as Krun
# and warmup_stats read it) and the CSV (plain and .bz2, by kiln itself).
source "$KILN_ROOT/tests/lib.sh"
make_suite
cd "$T"
cat > x.yaml <<Y
pexecs: 3
iterations: 7
vms:
  native: {plugin: c}
  bad: {plugin: external, runner: [$FAKE, early, "{iterations}"], language: c, entry: bench.c}
benchmarks: {spin: 1000}
Y
"$KILN" run -q x.yaml; [ $? -le 1 ] || fail "run"
"$KILN" export x.kiln.db --format krun >/dev/null || fail "export krun"
[ -s x.json.bz2 ] || fail "default name x.json.bz2"
python3 - <<'P' || fail "Krun file content"
import bz2, json, sqlite3, struct
d = json.loads(bz2.decompress(open("x.json.bz2", "rb").read()))
wt, flags = d["wallclock_times"], d["pexec_flags"]
key = "spin:native:default-c"
assert len(wt[key]) == 3 and all(len(p) == 7 for p in wt[key]), wt[key]
assert flags[key] == ["C", "C", "C"], flags[key]
assert flags["spin:bad:default-c"] == ["E", "E", "E"], flags
assert all(v > 0 for p in wt[key] for v in p)
assert "config" in d and "seed" not in d["config"] or True
assert "audit" in d
# the same numbers as in the results file (ns -> s)
db = sqlite3.connect("x.kiln.db")
def decode(b):
    assert b[0] == 1
    out, prev, i = [], 0, 1
    while i < len(b):
        z = sh = 0
        while True:
            c = b[i]; i += 1
            z |= (c & 0x7f) << sh; sh += 7
            if not c & 0x80: break
        d_ = (z >> 1) ^ -(z & 1)
        prev += d_; out.append(prev)
    return out
rows = db.execute("SELECT p.num, i.wall FROM pexecs p JOIN iterations i ON i.pexec_id=p.id JOIN keys k ON k.id=p.key_id "
                  "WHERE k.vm='native' ORDER BY p.num").fetchall()
for num, blob in rows:
    assert [round(x * 1e9) for x in wt[key][num]] == decode(blob), num
print("krun ok")
P
"$KILN" export x.kiln.db --format csv -o x.csv >/dev/null || fail "export csv"
head -1 x.csv | grep -q "^pexec_idx,bench,0,1,2,3,4,5,6$" || fail "CSV header: $(head -1 x.csv)"
assert_eq "$(grep -c '^[0-9],spin:native:default-c,' x.csv)" 3 "CSV rows"
assert_eq "$(grep -c 'spin:bad:default-c.*crash' x.csv)" 3 "failed pexecs marked crash"
"$KILN" export x.kiln.db --format csv -o x.csv.bz2 >/dev/null || fail "export csv.bz2"
bzip2 -dc x.csv.bz2 | cmp - x.csv || fail "csv.bz2 is the CSV compressed"
for f in x.json.bz2 x.csv x.csv.bz2 x.kiln.db; do
	"$KILN" report "$f" --format json -o "$f.report.json" || fail "report $f"
done
python3 - <<'P' || fail "reports of the four inputs disagree"
import json
def steady(f):
    d = json.load(open(f + ".report.json"))
    out = {}
    def walk(o, path):
        if isinstance(o, dict):
            for k, v in o.items():
                walk(v, path + [k])
        elif path and path[-1] == "classification":
            out["/".join(path[-3:])] = o
    walk(d, [])
    return out
a = steady("x.kiln.db")
for f in ("x.json.bz2", "x.csv", "x.csv.bz2"):
    b = steady(f)
    assert b and len(b) == len(a), (f, a, b)
print("reports agree")
P
echo ok
