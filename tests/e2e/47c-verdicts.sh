# kiln diff's verdicts on files whose truth is known (hyperfine JSON made
# here, seeded): a change of 20% is "faster" whatever the machine's drift
# between the two sessions; one of 2% is "slower" within one session but
# "drift?" across two (pointing to kiln compare); no change prints what it
# could have seen (the MDE); a stall is a warning with the median; a
# significant 0.45% difference never prints as 1.00 (diff, and kiln
# export's hyperfine Markdown).  The statistics themselves are measured in
# tests/unit/test_stats_core.c and bench/stats.c.
source "$KILN_ROOT/tests/lib.sh"
command -v python3 >/dev/null || skip "python3 not found"
cd "$T"
python3 - <<'PY'
import json, random
r = random.Random(25)
def runs(mean, sd, n=30):
    return [r.gauss(mean, sd) for _ in range(n)]
def write(fn, keys):
    json.dump({"results": [{"command": c, "mean": 0, "stddev": 0, "median": 0, "user": 0, "system": 0,
                            "min": 0, "max": 0, "times": t, "exit_codes": [0] * len(t)} for c, t in keys]},
              open(fn, "w"))
stall = runs(0.002, 0.00002)
stall[11] = 0.08
write("A.json", [("same", runs(0.003, 0.0003)), ("slower2", runs(0.010, 0.00005)),
                 ("faster20", runs(0.010, 0.0003)), ("stall", runs(0.002, 0.00002))])
write("B.json", [("same", runs(0.003, 0.0003)), ("slower2", runs(0.0102, 0.00005)),
                 ("faster20", runs(0.008, 0.0003)), ("stall", stall)])
write("tiny.json", [("a", runs(0.010, 0.000005)), ("b", runs(0.010045, 0.000005))])
write("one.json", [("once", [0.0123])])
write("wa.json", [("wild", [0.001 + 1e-6 * i for i in range(9)] + [1.0])])
write("wb.json", [("wild", [0.001 + 1e-6 * i for i in range(10)])])
PY

# ---- the verdicts, drift between sessions in (the default, 1%) and out ----
"$KILN" diff A.json B.json --json >d.json || fail "diff json"
"$KILN" diff A.json B.json --json --session-sd 0% >d0.json || fail "diff json 0%"
python3 - <<'PY' || fail "diff verdicts"
import json
d = {k["key"].split(":")[0]: k for k in json.load(open("d.json"))["keys"]}
d0 = {k["key"].split(":")[0]: k for k in json.load(open("d0.json"))["keys"]}
assert json.load(open("d.json"))["session_sd"] == 0.01
assert d["faster20"]["verdict"] == "faster" and d0["faster20"]["verdict"] == "faster", d["faster20"]
assert d0["slower2"]["verdict"] == "slower", d0["slower2"]
s = d["slower2"]
assert s["verdict"] == "drift?" and s["ratio_ci"][0] < 1 < s["ratio_ci_within_sessions"][0], s
assert abs(s["drift_explains"] - (s["ratio_ci_within_sessions"][0] - 1)) < 1e-12, s
assert d["same"]["verdict"] == "no change" and 0 < d["same"]["mde"] < 0.2, d["same"]
assert d["stall"]["shape_b"] == ["skewed", "heavy-tailed", "outliers"] and d["stall"]["shape_a"] == [], d["stall"]
assert d0["same"]["mde"] < d["same"]["mde"]  # the drift term costs what it could see
PY
out=$("$KILN" diff A.json B.json) || fail "diff: $out"
assert_contains "$out" "could see"
assert_contains "$(grep '^slower2' <<<"$out")" "drift?"
assert_contains "$out" "slower2:default-command: slower within the sessions"
assert_contains "$out" "kiln compare CONFIG --vm A --vm B"
assert_contains "$out" "stall:default-command (B): 1 outlier of 30"
grep -q "stall:default-command (A)" <<<"$out" && fail "a warning for A's clean runs: $out"
out=$("$KILN" diff A.json B.json --session-sd 2 2>&1); assert_eq $? 2 "--session-sd needs a percentage"
assert_contains "$out" "--session-sd: '2' is not a percentage"

# ---- an unbounded interval (A's mean not clear of 0) is a number in JSON, not null ----
"$KILN" diff wa.json wb.json --json >w.json || fail "diff wild"
python3 -c 'import json; k=json.load(open("w.json"))["keys"][0]; lo, hi = k["ratio_ci"]; assert 0 < lo < 1 < 1e300 < hi, k' \
	|| fail "unbounded end: $(cat w.json)"

# ---- one run has no interval: none printed, and the warning says why ----
out=$("$KILN" report one.json) || fail "report one: $out"
assert_contains "$(grep -m1 '^once' <<<"$out")" "12.3  "
grep -m1 '^once' <<<"$out" | grep -q "±" && fail "one run printed with an interval: $out"
assert_contains "$out" "once:once:default-command: 1 value: no interval"

# ---- a significant 0.45% difference keeps its digits ----
python3 - <<'PY' || fail "split tiny"
import json
d = json.load(open("tiny.json"))
for i, n in enumerate("ab"):
    json.dump({"results": [dict(d["results"][i], command="x")]}, open(n + ".json", "w"))
PY
out=$("$KILN" diff a.json b.json --session-sd 0%) || fail "diff tiny: $out"
line=$(grep '^x:' <<<"$out")
assert_contains "$line" "slower"
python3 - "$line" <<'PY' || fail "the ratio's interval prints as touching 1: $line"
import re, sys
m = re.search(r"(\d\.\d+) \((\d\.\d+)–(\d\.\d+)\)", sys.argv[1])
assert m and float(m.group(2)) > 1 and len(m.group(1)) >= 6, sys.argv[1]
PY
"$KILN" import tiny.json -o tiny.kiln.db >/dev/null || fail "import"
"$KILN" export tiny.kiln.db --format hyperfine-markdown -o t.md >/dev/null || fail "export"
rel=$(grep '`b`' t.md | awk -F'|' '{print $6}')
python3 - "$rel" <<'PY' || fail "hyperfine markdown's Relative prints a significant ratio as touching 1: $rel"
import re, sys
s = sys.argv[1].strip()
m = re.fullmatch(r"(\d\.\d+) ± (\d\.\d+)", s) or re.fullmatch(r"(\d\.\d+) \((\d\.\d+)–(\d\.\d+)\)", s)
assert m, s
lo = float(m.group(1)) - float(m.group(2)) if "±" in s else float(m.group(2))
assert lo > 1, s
PY
