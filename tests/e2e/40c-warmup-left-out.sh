# One pexec of many without a figure of its own does not take its key's
# verdict (issues 25/26): a pexec that drifts on its own (no steady state),
# or one whose warmup a stall hid (too short, AN_WARN_SHORT), is left out of
# its key's steady figures and counted in every format, while at most 1 in
# 10 of the key's pexecs are (AN_LEFT_OUT_DEN); the key's drift is its own
# test over its pexecs.  Before, the key's warnings were the OR of its
# pexecs': kiln diff gave no verdict and the drifting pexec took the key's
# steady state.  More than 1 in 10 too short: the key is, and no verdict.
# A drifting key, or one without a steady state in more than 1 in 10 of
# its pexecs, has no ratio: it gets no verdict too, and why (it got "-"
# and no reason, its JSON no_verdict null).
# Krun-format results written by python3, seeded: deterministic.
source "$KILN_ROOT/tests/lib.sh"
command -v python3 >/dev/null || skip "python3 not found"
cd "$T"

python3 - <<'PY'
import json, random
# a pexec measured under load (bench/live.sh's vm.c; tests/e2e/96b), scaled to ~1 ms
STALLED = [5.6, 5.33, 7.44, 2.59, 2.69, 2.82, 2.64, 3.81, 5.35, 2.58, 2.67, 2.71, 2.7, 2.68, 3.04, 2.51, 2.58,
           5.41, 2.79, 2.68, 2.68, 2.74, 2.55, 6.49, 2.77, 5.18, 2.76, 5.2, 2.63, 2.79, 5.54, 2.54, 2.75, 2.71,
           2.8, 2.66, 2.65, 2.64, 2.64, 2.59]

def pexec(kind, f, odd, rnd):
    n = 200 if kind == "drift" else 40
    out = []
    for i in range(n):
        v = 0.001 * f * (1 + 0.02 * (rnd.random() + rnd.random() + rnd.random() - 1.5))
        if kind == "tail":    # 3 warmup iterations x2, and the odd one's last 5 x3: no steady state
            v *= (2 if i < 3 else 1) * (3 if odd and i >= n - 5 else 1)
        elif kind != "drift": # 3 warmup iterations x2, or the stalled series
            v = STALLED[i] * 4e-4 * f if odd else v * (2 if i < 3 else 1)
        elif odd:             # a drift to x1.2, no steady state
            v *= 1 + 0.2 * i / (n - 1)
        out.append(v)
    return out

def experiment(seed, f):
    rnd = random.Random(seed)
    wt, fl = {}, {}
    for k, kind, odd in (("drift1:vm:default-c", "drift", {7}), ("stall1:vm:default-c", "stall", {7}),
                         ("stall3:vm:default-c", "stall", {3, 7, 11}), ("drifts:vm:default-c", "drift", set(range(20))),
                         ("tail3:vm:default-c", "tail", {3, 7, 11})):
        wt[k] = [pexec(kind, f, p in odd, rnd) for p in range(20)]
        fl[k] = ["C"] * 20
    return {"wallclock_times": wt, "pexec_flags": fl, "audit": {"uname": "Linux e2ebox 6.1.0 x86_64"},
            "config": "# generated"}

json.dump(experiment(1, 1.0), open("a.json", "w"))
json.dump(experiment(2, 1.05), open("b.json", "w"))
PY
OPTS="--resamples 2000"
LEFT="left out: 1 pexec(s) of 20 without a steady state or too short"

# ---- report: a steady figure over the other 19, the one left out counted ----
out=$("$KILN" report a.json $OPTS) || fail "report: $out"
for k in drift1 stall1; do
	assert_contains "$out" "$k:vm:default-c: $LEFT"
	grep -E "^$k:vm:default-c " <<<"$out" | grep -Eq ' (999|1000)\.[0-9] \(' || fail "$k: no steady figure: $out"
done
assert_contains "$out" "stall3:vm:default-c: too short: in 3 of 20 pexecs"
"$KILN" report a.json $OPTS --format json -o r.json || fail "report json"
python3 - <<'PY' || fail "report json: left out"
import json
m = json.load(open("r.json"))["machines"]
by = {v["key"]: v for vm in next(iter(m.values())).values() for v in vm.values()}
for k, warn in (("drift1", "warn_drift"), ("stall1", "warn_short")):
    d = by[k + ":vm:default-c"]
    assert d["left_out_pexecs"] == 1 and d["left_out"].startswith("left out: 1 pexec(s) of 20"), d
    assert not d["warn_drift"] and not d["warn_short"] and 0.00099 < d["steady_state_time"] < 0.00101, d
    px = d["process_executons"]
    # the pexec's own flag stays on it, shown per pexec
    assert [p["left_out"] for p in px] == [i == 7 for i in range(20)], [p["left_out"] for p in px]
    assert [p[warn] for p in px] == [i == 7 for i in range(20)], k
s = by["stall3:vm:default-c"]
assert s["warn_short"] and s["left_out_pexecs"] == 0 and s["left_out"] is None, s
PY
"$KILN" report a.json $OPTS --format csv -o r.csv || fail "report csv"
python3 -c '
import csv
r = {x["key"].split(":")[0]: x for x in csv.DictReader(open("r.csv"))}
assert [r[k]["left_out_pexecs"] for k in ("drift1", "stall1", "stall3")] == ["1", "1", "0"], r
assert r["drift1"]["warn_drift"] == "0" and r["stall1"]["warn_short"] == "0" and r["stall3"]["warn_short"] == "1"
' || fail "report csv: left out"

# ---- diff: B is 5% slower; a verdict for both keys, the left out said; none for stall3 ----
out=$("$KILN" diff a.json b.json $OPTS) || fail "diff: $out"
for k in drift1 stall1; do
	grep -E "^$k:vm:default-c " <<<"$out" | grep -Eq ' 1\.05[0-9]* \(.* slower$' || fail "diff $k: no verdict: $out"
	assert_contains "$out" "$k:vm:default-c (A): $LEFT"
	assert_contains "$out" "$k:vm:default-c (B): $LEFT"
done
grep -E "^stall3:vm:default-c " <<<"$out" | grep -q "no verdict" || fail "diff stall3: $out"
for k in drifts tail3; do
	grep -E "^$k:vm:default-c .* no verdict$" <<<"$out" >/dev/null || fail "diff $k: not 'no verdict': $out"
done
assert_contains "$out" "^  drifts:vm:default-c: no verdict: a slow trend: no steady state to compare$"
assert_contains "$out" "^  tail3:vm:default-c: no verdict: A has no steady state in 3 of its 20 pexecs (more than 1 in 10 without a figure); B has no steady state in 3 of its 20 pexecs"
"$KILN" diff a.json b.json $OPTS --json >d.json || fail "diff json"
python3 - <<'PY' || fail "diff json: left out"
import json
k = {x["key"].split(":")[0]: x for x in json.load(open("d.json"))["keys"]}
for n in ("drift1", "stall1"):
    assert k[n]["verdict"] == "slower" and k[n]["left_out_a"] == 1 and k[n]["left_out_b"] == 1, k[n]
    assert k[n]["no_verdict"] is None and 1.04 < k[n]["ratio"] < 1.06, k[n]
assert k["stall3"]["verdict"] == "no verdict" and k["stall3"]["left_out_a"] == 0, k["stall3"]
for n, why in (("drifts", "a slow trend"), ("tail3", "A has no steady state in 3 of its 20 pexecs")):
    assert k[n]["verdict"] == "no verdict" and k[n]["no_verdict"].startswith(why), k[n]
    assert k[n]["ratio"] is None and k[n]["ratio_ci"] is None, k[n]
PY
echo ok
