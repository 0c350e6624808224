# keep_log: PyPy's raw log survives the pexec, zstd-compressed, beside the
# results, and kiln parse reads it back to the records stored in the run.
source "$KILN_ROOT/tests/lib.sh"
command -v pypy3 >/dev/null || skip "pypy3 not installed"
cd "$T"
cat > k.yaml <<'Y'
pexecs: 2
iterations: 4
vms:
  pypy: {plugin: pypy, instrument: true, keep_log: true}
  plain: {plugin: pypy, instrument: true, variant: nolog}
benchmarks: {nbody: 2000}
Y
"$KILN" run -q k.yaml || fail "run"
for p in 0 1; do
	d="k.kiln.db.logs/nbody:pypy:default-python/$p"
	[ -s "$d/pypylog.zst" ] || fail "no compressed log for pexec $p"
	zstd -t -q "$d/pypylog.zst" || fail "not a valid zstd file"
	"$KILN" parse pypy "$d/pypylog.zst" > rec.jsonl || fail "kiln parse of the kept log"
	n=$(grep -c '"i":[0-9]*,"name":"gc.time"' rec.jsonl)
	assert_eq "$n" 4 "gc.time records of pexec $p"
done
[ ! -e "k.kiln.db.logs/nbody:plain:nolog" ] || fail "a VM without keep_log kept its log"
# the kept log gives the same per-iteration jit.time as stored in the run
python3 - <<'P' || fail "kept log and stored series differ"
import json, sqlite3, struct, subprocess, os
db = sqlite3.connect("k.kiln.db")
row = db.execute("SELECT s.vals FROM series s JOIN pexecs p ON p.id=s.pexec_id JOIN keys k ON k.id=p.key_id "
                 "WHERE k.vm='pypy' AND p.num=0 AND s.name='jit.time'").fetchone()
stored = struct.unpack("<%dd" % (len(row[0]) // 8), row[0])
out = subprocess.run([os.environ["KILN"], "parse", "pypy", "k.kiln.db.logs/nbody:pypy:default-python/0/pypylog.zst"],
                     capture_output=True, text=True, check=True).stdout
again = [r["value"] for r in map(json.loads, out.splitlines()) if r.get("name") == "jit.time" and "i" in r]
assert len(again) == len(stored) and all(abs(a - b) < 1e-12 for a, b in zip(again, stored)), (again, stored)
print("same", len(again))
P
echo ok
