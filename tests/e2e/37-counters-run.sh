# Per-iteration counters through kiln run, from every runner that reads
# libkiln (C directly; CPython and PyPy with ctypes; LuaJIT with its FFI):
# task-clock is counted and close to the wall time; cycles is either
# counted (real hardware) or listed unavailable with no value (this VM),
# never stored as zero.
source "$KILN_ROOT/tests/lib.sh"
cd "$T"
{
echo "pexecs: 1"
echo "iterations: 5"
echo "vms:"
echo "  native: {plugin: c}"
command -v python3 >/dev/null && echo "  cpython: {plugin: python}"
command -v pypy3 >/dev/null && echo "  pypy: {plugin: pypy}"
command -v luajit >/dev/null && echo "  luajit: {plugin: luajit}"
echo "benchmarks: {nbody: 20000}"
echo "platform: {counters: [task-clock, cycles]}"
} > c.yaml
"$KILN" run -q c.yaml || fail "run"
python3 - <<'P' || fail "counters"
import sqlite3
db = sqlite3.connect("c.kiln.db")
def dec(b):
    out, prev, i = [], 0, 1
    while i < len(b):
        z = sh = 0
        while True:
            c = b[i]; i += 1
            z |= (c & 0x7f) << sh; sh += 7
            if not c & 0x80: break
        prev += (z >> 1) ^ -(z & 1); out.append(prev)
    return out
rows = db.execute("SELECT k.vm, i.wall, i.counter_names, i.counters, i.unavailable FROM iterations i "
                  "JOIN pexecs p ON p.id=i.pexec_id JOIN keys k ON k.id=p.key_id").fetchall()
assert len(rows) >= 1
for vm, wall, names, blob, unav in rows:
    names = names.split(",") if names else []
    walls = dec(wall)
    cols, off = {}, 0
    for n in names:
        ln = int.from_bytes(blob[off:off + 4], "little"); off += 4
        cols[n] = dec(blob[off:off + ln]); off += ln
    tc = [k for k in names if k.startswith("task-clock")]
    assert tc, (vm, names)
    for w, t in zip(walls, cols[tc[0]]):
        assert 0 < t <= w * 1.2 + 200000, (vm, w, t)
    cyc = [k for k in names if k.startswith("cycles")]
    if cyc:
        assert all(v > 0 for v in cols[cyc[0]]), (vm, "cycles counted as zero")
    else:
        assert unav and "cycles" in unav.split(","), (vm, "cycles neither counted nor listed unavailable")
    print(vm, "ok:", names, "unavailable:", unav)
P
echo ok
