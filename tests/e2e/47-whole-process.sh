# Whole-process keys (one iteration per pexec, the command plugin): what
# hyperfine reports (mean ± σ, median, min–max, user and sys time, max RSS)
# and a confidence interval of the mean across pexecs, which kiln diff uses:
# 20 runs of gzip -1 against 20 of gzip -4 (tests/data/gzip, recorded) are a
# change.  Lopsided
# intervals are printed as intervals, not as a ±.  A delta large against a
# key's steady mean is a warning in every format.
source "$KILN_ROOT/tests/lib.sh"
command -v gzip >/dev/null || skip "gzip not found"
command -v python3 >/dev/null || skip "python3 not found"
cd "$T"
python3 - <<'PY'
import random
r = random.Random(12)
words = ["".join(r.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(r.randint(2, 9))) for _ in range(3000)]
out, n = [], 0
while n < 700000:
    line = " ".join(r.choice(words) for _ in range(r.randint(3, 14))) + "\n"
    out.append(line)
    n += len(line)
open("text", "w").write("".join(out))
PY
cat > g.yaml <<Y
pexecs: 12
vms: {gz: {plugin: command, path: gzip, args: ["-1"]}}
benchmarks: {text: {param: "$T/text", args: ["-k", "-f", "{param}"]}}
Y
"$KILN" run -q g.yaml || fail "gzip -1 x 12"

# ---- the report: whole-process statistics from what each pexec recorded ----
out=$("$KILN" report g.kiln.db) || fail "report: $out"
assert_contains "$out" "text:gz:default-command  whole process"
assert_contains "$out" "^whole-process keys"
assert_contains "$out" "mean ± σ s"
"$KILN" report g.kiln.db --format json -o g.json || fail "report json"
python3 - <<'PY' || fail "whole-process statistics"
import json, sqlite3, statistics
k = json.load(open("g.json"))["machines"]
k = next(iter(k.values()))["gz"]["text"]
w = k["whole_process"]
db = sqlite3.connect("g.kiln.db")
rows = db.execute("SELECT p.user_s, p.sys_s, p.maxrss_kb FROM pexecs p WHERE p.status='ok'").fetchall()
assert len(rows) == 12, rows
# the per-pexec records kiln stored, summarised
assert abs(w["user_s"] - statistics.mean(r[0] for r in rows)) < 1e-9, w
assert abs(w["sys_s"] - statistics.mean(r[1] for r in rows)) < 1e-9, w
assert w["max_rss_kib"] == max(r[2] for r in rows), w
assert w["min"] <= w["median"] <= w["max"] and w["sd"] > 0, w
lo, hi = w["mean_ci"]
# a t interval (skew-corrected on skewed runs, docs/statistics.md) may reach past
# the sample's extremes at n = 12 with one slow run; it stays within a range of them
r = w["max"] - w["min"]
assert lo <= w["mean"] <= hi and w["min"] - r <= lo and hi <= w["max"] + r, w
assert k["steady_state_time"] == w["mean"], k
PY

# ---- diff: 20 runs of gzip -1 and 20 of gzip -4, as recorded on a loaded machine ----
# (the runs' spread is 0.12-0.30 s; the interval of the mean is a fifth of that)
D=$KILN_ROOT/tests/data/gzip
out=$("$KILN" diff $D/gzip-1.json $D/gzip-4.json) || fail "diff: $out"
grep "^text:gz" <<<"$out" | grep -q "slower" || fail "diff: gzip -4 should be slower: $out"
"$KILN" diff $D/gzip-1.json $D/gzip-4.json --json >d.json || fail "diff json"
python3 - <<'PY' || fail "diff json content"
import json
k = json.load(open("d.json"))["keys"][0]
assert k["verdict"] == "slower" and k["ratio_ci"][0] > 1 and k["whole_process"] is True, k
lo, hi = k["steady_a"][1:]
assert 0.15 < lo < 0.17 and 0.22 < hi < 0.24, k  # the 99% CI of the mean (t, skew-corrected), not the runs' [0.12, 0.30]
PY

# ---- a lopsided interval is printed as one ----
# (19 runs of 0.9 ms and one of 100 ms: the mean's 99% interval reaches far up and is
# cut at 0 below: times are never negative)
python3 - <<'PY'
import json
wt = {"skew:cmd:default-command": [[0.0009 + 1e-6 * i] for i in range(19)] + [[0.1]],
      "short:c:default-c": [[500e-6 if i < 10 else 50e-6 for i in range(100)] for _ in range(3)]}
json.dump({"wallclock_times": wt}, open("skew.json", "w"))
PY
out=$("$KILN" report skew.json --resamples 20000) || fail "report skew: $out"
line=$(grep -m1 "^skew:cmd" <<<"$out")
grep -q "±" <<<"$line" && fail "a lopsided interval printed with ±: $line"
assert_contains "$line" "5\.[0-9]* (0\.00–4[0-9.]*)"

# ---- delta: the default sees the warmup of 50 us iterations; 1 ms hides it, and says so ----
assert_contains "$(grep '^short:c' <<<"$out")" "short:c:default-c  *warmup"
grep -q "delta is" <<<"$out" && fail "a delta warning with the default delta: $out"
# ---- the mean is the wrong question for the stalled key: every format says so, with the median ----
W="skew:cmd:default-command: 1 outlier of 20, skewed (G1 4.5), heavy tails (G2 20): the mean is pulled by a few values"
assert_contains "$out" "$W"
assert_contains "$out" "median 909.5 µs (903 µs–916 µs, 99.7%)"
assert_contains "$(grep -m1 '^skew:cmd' <<<"$(sed -n '/^whole-process/,$p' <<<"$out")")" "0.000909 (0.000903–0.000916)"
assert_contains "$("$KILN" report skew.json --format markdown)" "> \*\*Warning\*\* \`skew:cmd:default-command\`: 1 outlier of 20"
assert_contains "$("$KILN" report skew.json --format latex)" "textbf{Warning:} skew:cmd:default-command: 1 outlier of 20"
assert_contains "$("$KILN" report skew.json --format html -o s.html && cat s.html)" '<code>skew:cmd:default-command</code>: 1 outlier of 20'
"$KILN" report skew.json --format json -o s.json || fail "json shape"
python3 - <<'PY' || fail "json shape fields"
import json
m = json.load(open("s.json"))["machines"]
k = next(iter(m.values()))["cmd"]["skew"]["distribution"]
assert k["shape"] == ["skewed", "heavy-tailed", "outliers"] and k["outliers"] == 1, k
assert k["warning"].startswith("1 outlier of 20") and k["units"] == 20, k
lo, hi = k["median_interval"]
assert lo <= k["median"] <= hi < 0.001 and k["median_interval_coverage"] >= 0.99, k
assert abs(k["unseen_share"] - (1 - 0.01 ** (1 / 20))) < 1e-12, k
PY
"$KILN" report skew.json --format csv -o s.csv || fail "csv shape"
python3 -c 'import csv; r=[x for x in csv.DictReader(open("s.csv")) if x["key"].startswith("skew")][0]; assert r["shape"] == "skewed;heavy-tailed;outliers" and r["shape_warning"] == "1" and float(r["units_median_hi"]) < 0.001, r' || fail "csv shape columns"
OPTS="--delta 0.001 --resamples 20000 --key short:*"
out=$("$KILN" report skew.json $OPTS) || fail "report delta"
assert_contains "$out" "short:c:default-c  *flat"
assert_contains "$out" "short:c:default-c: delta is 20 times the steady mean: changes smaller than that count as equivalent"
assert_contains "$("$KILN" report skew.json $OPTS --format markdown)" "> \*\*Warning\*\* \`short:c:default-c\`: delta is"
assert_contains "$("$KILN" report skew.json $OPTS --format latex)" "textbf{Warning:} short:c:default-c: delta is"
assert_contains "$("$KILN" report skew.json $OPTS --format html -o r.html && cat r.html)" '<p class="bad"><strong>Warning</strong> <code>short:c:default-c</code>: delta is'
"$KILN" report skew.json $OPTS --format json -o r.json || fail "json"
python3 -c 'import json; m=json.load(open("r.json"))["machines"]; k=next(iter(m.values()))["c"]["short"]; assert k["delta_warning"].startswith("delta is") and k["delta_ratio"] > 19, k' || fail "json delta warning"
"$KILN" report skew.json $OPTS --format csv -o r.csv || fail "csv"
python3 -c 'import csv; r=list(csv.DictReader(open("r.csv")))[0]; assert r["delta_warning"] == "1" and float(r["delta_ratio"]) > 19, r' || fail "csv delta warning"
out=$("$KILN" diff skew.json skew.json $OPTS) || fail "diff delta"
assert_contains "$out" "short:c:default-c (B): delta is"
"$KILN" diff skew.json skew.json $OPTS --json >dd.json || fail "diff json delta"
python3 -c 'import json; k=json.load(open("dd.json"))["keys"][0]; assert k["delta_warning_a"].startswith("delta is"), k' || fail "diff json delta warning"
echo ok
