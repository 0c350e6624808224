# The warmup analysis' answers on the series real VMs produce, through every
# output: GC pauses (flat, the steady figure with them and the one without
# them named), a drift (no steady state, a drift warning, no interval), a
# 20-iteration JIT warmup (too short, with the iterations that would do, in
# report, plan and diff), integer steady iterations, and kiln diff's
# verdicts on warmup itself (a flat key that now warms up: longer, costs
# more, class changed).  Krun-format results written by python3, seeded.
source "$KILN_ROOT/tests/lib.sh"
command -v python3 >/dev/null || skip "python3 not found"
cd "$T"

python3 - <<'PY'
import json, math, random

def series(kind, n, rnd, warm=0):
    lvl = 0.01 * math.exp(rnd.gauss(0, 0.005))
    out = []
    for i in range(n):
        v = lvl
        if kind == "drift": v *= 1 + 0.2 * i / (n - 1)
        if kind == "towers":
            v = 0.0006 * (250 if i == 0 else 25 if rnd.random() < 0.35 * math.exp(-i / 25) else 1)
            v *= math.exp(rnd.gauss(0, 0.15))
        elif i < warm: v *= 2.3
        if kind != "towers": v *= math.exp(rnd.gauss(0, 0.02))
        if kind == "spiky" and rnd.random() < 0.03: v *= 2
        out.append(v)
    return out

def experiment(seed, warm):
    rnd = random.Random(seed)
    wt, fl = {}, {}
    for k, kind, n in (("spiky:vm:default-c", "spiky", 200), ("drift:vm:default-c", "drift", 200),
                       ("towers:pypy:default-python", "towers", 20), ("flatwarm:vm:default-c", "flat", 200)):
        wt[k] = [series(kind, n, rnd, warm if kind == "flat" else 0) for _ in range(8)]
        fl[k] = ["C"] * 8
    return {"wallclock_times": wt, "pexec_flags": fl, "audit": {"uname": "Linux e2ebox 6.1.0 x86_64"},
            "config": "# generated"}

json.dump(experiment(1, 0), open("a.json", "w"))
json.dump(experiment(2, 30), open("b.json", "w"))
PY

OPTS="--resamples 20000"

# ---- text ----
out=$("$KILN" report a.json $OPTS) || fail "report text: $out"
assert_contains "$out" "spiky:vm:default-c  *flat"
assert_contains "$out" "drift:vm:default-c  *no steady state"
assert_contains "$out" "drift:vm:default-c: drift: no steady state, the times keep rising"
assert_contains "$out" "towers:pypy:default-python: too short: in [0-9]* of 8 pexecs"
assert_contains "$out" "iterations per pexec would do (kiln plan)"
assert_contains "$out" "steady perf without outliers: "
# the drifting key has no steady figure
grep -E '^drift:vm:default-c' <<<"$out" | grep -Eq ' -  +- +- ' || fail "drift key shows a steady figure: $out"

# ---- JSON ----
"$KILN" report a.json $OPTS --format json -o r.json || fail "report json"
python3 - <<'PY' || fail "report json: warnings"
import json
m = json.load(open("r.json"))["machines"]
keys = {k: v for vm in next(iter(m.values())).values() for k, v in vm.items()}
by = {v["key"]: v for vm in next(iter(m.values())).values() for v in vm.values()}
d = by["drift:vm:default-c"]
assert d["classification"] == "no steady state" and d["warn_drift"] and d["steady_state_time"] is None, d
assert d["steady_state_time_interval"] is None and d["drift_per_iteration"] > 0, d
assert any(w.startswith("drift:") for w in d["warnings"]), d["warnings"]
t = by["towers:pypy:default-python"]
assert t["warn_short"] and isinstance(t["short_iterations_needed"], int) and t["short_iterations_needed"] > 20, t
assert any(w.startswith("too short:") for w in t["warnings"]), t["warnings"]
s = by["spiky:vm:default-c"]
assert s["classification"] == "flat" and not s["warnings"], s
# the steady figure counts the pauses; the one without them is beside it, lower
assert s["steady_state_time_without_outliers"] < s["steady_state_time"], s
px = s["process_executons"][0]
assert px["steady_state_time_without_outliers"] <= px["steady_state_time"], px
PY
"$KILN" report b.json $OPTS --format json -o rb.json || fail "report json b"
python3 - <<'PY' || fail "report json: integer steady iterations"
import json
m = json.load(open("rb.json"))["machines"]
by = {v["key"]: v for vm in next(iter(m.values())).values() for v in vm.values()}
w = by["flatwarm:vm:default-c"]
assert w["classification"] == "warmup" and w["steady_state_iteration"] == 30, w["steady_state_iteration"]
assert all(isinstance(x, int) for x in w["steady_state_iteration_iqr"]), w["steady_state_iteration_iqr"]
PY

# ---- CSV, Markdown, LaTeX, HTML ----
"$KILN" report a.json $OPTS --format csv -o r.csv || fail "report csv"
python3 -c '
import csv
r = {x["key"]: x for x in csv.DictReader(open("r.csv"))}
assert r["drift:vm:default-c"]["warn_drift"] == "1" and r["drift:vm:default-c"]["steady_perf_s"] == "", r
assert r["towers:pypy:default-python"]["warn_short"] == "1" and int(r["towers:pypy:default-python"]["short_iterations_needed"]) > 20
assert float(r["spiky:vm:default-c"]["steady_perf_without_outliers_s"]) < float(r["spiky:vm:default-c"]["steady_perf_s"])
' || fail "csv warnings"
for f in md tex html; do
	"$KILN" report a.json $OPTS -o "r.$f" || fail "report $f"
	grep -q "drift: no steady state" "r.$f" || fail "$f: no drift warning"
	grep -q "too short: in" "r.$f" || fail "$f: no short warning"
	grep -q "steady perf without outliers" "r.$f" || fail "$f: no figure without outliers"
done

# ---- plan: the iterations a short pilot needs ----
out=$("$KILN" plan a.json 2>&1) || fail "plan: $out"
assert_contains "$out" "towers:pypy:default-python: the pilot is too short for the warmup analysis"
assert_contains "$out" "drift:vm:default-c .*cannot plan: drifting"
"$KILN" plan a.json --json > plan.json 2>/dev/null || fail "plan json"
python3 -c '
import json
k = {x["key"]: x for x in json.load(open("plan.json"))["keys"]}
t = k["towers:pypy:default-python"]
assert t["too_short"] and t["iterations"] >= t["short_iterations_needed"] > 20, t
' || fail "plan json: too short"

# ---- plot: the title says it ----
"$KILN" plot a.json --key 'drift:*' -o plots >/dev/null 2>&1 || fail "plot"
grep -rq "drifting" plots/*.gp || fail "plot title: no drift"

# ---- diff: verdicts on warmup itself ----
out=$("$KILN" diff a.json b.json $OPTS) || fail "diff: $out"
grep -E '^flatwarm:vm:default-c  +flat -> warmup' <<<"$out" | grep -q "class changed; warmup longer; warmup costs more" ||
	fail "diff: no warmup verdict: $out"
grep -E '^towers:pypy:default-python ' <<<"$out" | grep -q "cannot tell: too short" || fail "diff: short key: $out"
"$KILN" diff a.json b.json $OPTS --json > d.json || fail "diff json"
python3 - <<'PY' || fail "diff json: warmup verdicts"
import json
k = {x["key"]: x for x in json.load(open("d.json"))["keys"]}
w = k["flatwarm:vm:default-c"]["warmup"]
t = w["time_to_steady_s"]
# 30 iterations at 2.3 x 10 ms: 0.69 s to steady, 0.39 s above the steady level
assert t["verdict"] == "longer" and 0.6 < t["diff"] < 0.8 and t["interval"][0] > 0, t
c = w["warmup_cost_s"]
assert c["verdict"] == "costs more" and 0.33 < c["diff"] < 0.45, c
assert w["class_changed"] is True, w
s = k["towers:pypy:default-python"]["warmup"]
assert s["warn_short"] and s["class_changed"] is None and s["time_to_steady_s"]["verdict"] == "-", s
assert k["spiky:vm:default-c"]["warmup"]["class_changed"] is False
PY
echo ok
