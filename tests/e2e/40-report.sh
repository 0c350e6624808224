# kiln report / plot / diff / plan / import on Krun-format results written by
# python3: every report format carries the analysis (checked by parsing),
# the HTML is one self-contained page, plots are SVG with the series drawn,
# diff sees a 20% speed-up, import keeps the classification.
source "$KILN_ROOT/tests/lib.sh"
command -v python3 >/dev/null || skip "python3 not found"
cd "$T"

python3 - <<'PY'
import bz2, json, random

def series(kind, n, base, rnd):
    out = []
    for i in range(n):
        m = base
        if kind == "warm" and i < 60: m = base * 2.5
        if kind == "slow" and i >= 200: m = base * 1.3
        v = m + rnd.gauss(0, base * 0.002)
        if 100 < i and rnd.random() < 0.005: v *= 3
        out.append(v)
    return out

def experiment(speed, seed):
    rnd = random.Random(seed)
    wt, fl, ins = {}, {}, {}
    k = "fannkuch:pypy:default-python"
    wt[k] = [series("warm", 600, 0.1 * speed, rnd) for _ in range(4)]
    fl[k] = ["C"] * 4
    ins[k] = [{"gc.time": [0.02 if i < 60 else 0.001 for i in range(600)]} for _ in range(4)]
    k = "nbody:lua:default-lua"
    wt[k] = [series("flat", 600, 0.05, rnd) for _ in range(3)] + [[]]
    fl[k] = ["C", "C", "C", "E"]
    k = "richards:lua:default-lua"
    wt[k] = [series("flat", 600, 0.02, rnd), series("slow", 600, 0.02, rnd), series("flat", 600, 0.02, rnd)]
    fl[k] = ["C", "C", "C"]
    return {"wallclock_times": wt, "pexec_flags": fl, "instr_data": ins,
            "audit": {"uname": "Linux e2ebox 6.1.0 x86_64"}, "config": "# generated"}

a = experiment(1.0, 1)
json.dump(a, open("a.json", "w"))
open("a.json.bz2", "wb").write(bz2.compress(json.dumps(a).encode()))
json.dump(experiment(0.8, 2), open("b.json", "w"))
# the same data as a warmup_stats CSV
with open("a.csv", "w") as f:
    f.write("pexec_idx,bench," + ",".join(str(i) for i in range(600)) + "\n")
    for k, pl in sorted(a["wallclock_times"].items()):
        for i, p in enumerate(pl):
            f.write("%d,%s,%s\n" % (i, k, ",".join(repr(v) for v in p) if p else "crash"))
PY

OPTS="--window 100 --steady 200 --resamples 20000"

# ---- text ----
out=$("$KILN" report a.json $OPTS) || fail "report text: $out"
assert_contains "$out" "fannkuch:pypy:default-python  warmup"
assert_contains "$out" "nbody:lua:default-lua"
assert_contains "$out" "bad inconsistent (2F 1S)"
assert_contains "$out" "F flat, W warmup, S slowdown, N no steady state"
assert_contains "$out" "3 (+1 failed)"
assert_contains "$out" "note: pexec 3 failed"
# the table fits 120 columns (display width, not bytes)
w=$(head -n 5 <<<"$out" | python3 -c 'import sys; print(max(len(l.rstrip("\n")) for l in sys.stdin.buffer.read().decode("utf-8").splitlines()))')
[ "$w" -le 120 ] || fail "the text table is $w columns wide"
# --key bench:vm matches every variant; --key repeats
out5=$("$KILN" report a.json $OPTS --key nbody:lua --key 'fannkuch') || fail "report --key bench:vm --key bench"
assert_contains "$out5" "nbody:lua:default-lua"
assert_contains "$out5" "fannkuch:pypy:default-python"
# instrumentation: a line per key, then its series aligned
assert_contains "$out" "^    gc.time  *0.02 -> 0.001$"
grep -B8 "^    gc.time  *0.02 -> 0.001" <<<"$out" | grep -q "^  [a-z_]*:[a-z]*:[a-z-]*$" || fail "no key line above its series: $out"
grep -q $'\033' <<<"$out" && fail "colour in a pipe"
# bz2 and CSV inputs give the same table
out2=$("$KILN" report a.json.bz2 $OPTS) || fail "report bz2"
[ "$(head -n 5 <<<"$out")" = "$(head -n 5 <<<"$out2")" ] ||
	fail "bz2 input differs: $out2"
out3=$("$KILN" report a.csv $OPTS) || fail "report csv input: $out3"
assert_contains "$out3" "bad inconsistent (2F 1S)"
assert_contains "$out3" "fannkuch:pypy:default-python  warmup"

# a warning said alike of three keys or more is said once, the keys listed under it (a short run: 2 pexecs a key);
# one of two keys stays a line a key
python3 - <<'PY'
import json, random
rnd = random.Random(5)
wt = {"b%d:vm:default-c" % i: [[0.01 * (1 + rnd.gauss(0, 0.002)) for _ in range(50)] for _ in range(2)] for i in range(4)}
json.dump({"wallclock_times": wt, "pexec_flags": {k: ["C", "C"] for k in wt}, "audit": {}, "config": "#"}, open("two.json", "w"))
PY
out=$("$KILN" report two.json $OPTS --steady 25 --window 10) || fail "report two pexecs: $out"
assert_contains "$out" "^  4 keys: 2 values: too few to check their shape"
assert_contains "$out" "^    b0:vm:default-c, b1:vm:default-c, b2:vm:default-c, b3:vm:default-c$"
grep -q "^  b[0-9]:vm:default-c: 2 values" <<<"$out" && fail "said once a key: $out"
out=$("$KILN" report two.json $OPTS --steady 25 --window 10 --key b0 --key b1) || fail "report two keys: $out"
assert_contains "$out" "^  b0:vm:default-c: 2 values: too few to check their shape"
assert_contains "$out" "^  b1:vm:default-c: 2 values: too few to check their shape"

# ---- json (warmup_stats layout) ----
"$KILN" report a.json $OPTS --format json -o r.json || fail "report json"
python3 - <<'PY' || fail "json report content"
import json
r = json.load(open("r.json"))
assert r["warmup_format_version"] == "2"
m = r["machines"]["e2ebox"]
f = m["pypy"]["fannkuch"]
assert f["classification"] == "warmup", f["classification"]
assert f["detailed_classification"]["warmup"] == 4
assert 55 <= f["steady_state_iteration"] <= 70, f["steady_state_iteration"]
assert abs(f["steady_state_time"] - 0.1) < 0.001
lo, hi = f["steady_state_time_interval"]
assert lo <= f["steady_state_time"] <= hi
assert len(f["process_executons"]) == 4
assert abs(f["instrumentation"]["gc.time"]["after_steady"] - 0.001) < 1e-12
n = m["lua"]["nbody"]
assert n["classification"] == "flat" and n["failed_pexecs"] == 1 and n["steady_state_iteration"] is None  # warmup_stats: null for flat keys
rich = m["lua"]["richards"]
assert rich["classification"] == "bad inconsistent"
PY

# ---- markdown, latex, csv ----
md=$("$KILN" report a.json $OPTS --format markdown) || fail "markdown"
assert_contains "$md" "| \`fannkuch:pypy:default-python\` | warmup |"
tex=$("$KILN" report a.json $OPTS --format latex) || fail "latex"
assert_contains "$tex" '\\begin{tabular}'
assert_contains "$tex" 'fannkuch & pypy & warmup'
"$KILN" report a.json $OPTS -o r.csv || fail "csv by extension"
python3 - <<'PY' || fail "csv report content"
import csv
rows = list(csv.DictReader(open("r.csv")))
assert len(rows) == 3
d = {r["key"]: r for r in rows}
assert d["fannkuch:pypy:default-python"]["classification"] == "warmup"
assert d["nbody:lua:default-lua"]["failed"] == "1"
assert abs(float(d["fannkuch:pypy:default-python"]["gc.time_before"]) - 0.02) < 1e-12
PY

# ---- html: one self-contained page with plots ----
if command -v gnuplot >/dev/null; then
	"$KILN" report a.json $OPTS -o r.html || fail "html"
	[ "$(grep -c '<svg' r.html)" -ge 5 ] || fail "html: expected inline SVG plots"
	grep -Eq '(src|href)="(https?:|file:|/)' r.html && fail "html refers to outside files"
	grep -q '<script' r.html && fail "html has scripts"
	python3 -c "import html.parser,sys; html.parser.HTMLParser().feed(open('r.html').read())" || fail "html parse"

	# ---- plot ----
	"$KILN" plot a.json $OPTS -o plots >plots.txt || fail "plot"
	[ "$(wc -l <plots.txt)" -eq 10 ] || fail "plot: expected 10 plots (4+3+3), got $(cat plots.txt)"
	ls plots/*.gp plots/*.dat >/dev/null || fail "plot: scripts and data not kept"
	"$KILN" plot a.json $OPTS --key fannkuch --pexec 0 --no-inset -o plain >/dev/null || fail "plot --no-inset"
	python3 - <<'PY' || fail "svg content"
import re, xml.etree.ElementTree as ET
svg = open("plain/fannkuch_pypy_default-python-p0.svg").read()
ET.fromstring(svg)  # well-formed
def points(colour):
    n = 0
    for m in re.finditer(r"<path[^>]*stroke='%s'[^>]*d='([^']*)'" % re.escape(colour), svg):
        n += m.group(1).count("M") + m.group(1).count("L")
    return n
assert points("rgb( 59,  66,  82)") == 602, points("rgb( 59,  66,  82)")   # 600 iterations + legend
assert points("rgb( 94, 129, 172)") >= 600                                 # gc.time panel: a step per iteration
assert svg.count("color='rgb(208,   0,   0)'") >= 2                        # outliers + legend
PY
	"$KILN" plot a.json $OPTS --key 'nbody*' --pexec 1 --format png -o png >/dev/null || fail "plot png"
	[ "$(ls png/*.png | wc -l)" -eq 1 ] || fail "plot --key --pexec: $(ls png)"
	head -c 4 png/*.png | grep -q PNG || fail "not a PNG"
	(cd plots && gnuplot nbody_lua_default-lua-p0.gp) || fail "kept script does not re-run"
fi

# ---- diff: B is 20% faster on fannkuch ----
out=$("$KILN" diff a.json b.json $OPTS) || fail "diff: $out"
assert_contains "$out" "fannkuch:pypy:default-python"
grep "fannkuch" <<<"$out" | grep -q "faster" || fail "diff: fannkuch should be faster: $out"
grep "fannkuch" <<<"$out" | grep -q " 0\.8" || fail "diff: ratio should be about 0.8: $out"
# every row's last column starts where its title does (display width, not bytes: ± and – are 2 bytes)
python3 -c '
import sys
rows = [l for l in sys.stdin.read().split("\n\n")[0].splitlines() if l]
col = rows[0].index("verdict")
assert all(len(r) > col and r[col - 1] == " " and r[col] != " " for r in rows), rows
' <<<"$out" || fail "diff columns misaligned: $out"
"$KILN" diff a.json b.json $OPTS --json >d.json || fail "diff json"
python3 - <<'PY' || fail "diff json content"
import json
d = {k["key"]: k for k in json.load(open("d.json"))["keys"]}
f = d["fannkuch:pypy:default-python"]
assert f["verdict"] == "faster" and 0.78 < f["ratio"] < 0.82 and f["ratio_ci"][1] < 1, f
assert f["cis_overlap"] is False
assert d["nbody:lua:default-lua"]["class_changed"] is False
PY

# ---- plan ----
out=$("$KILN" plan a.json $OPTS --ci-width 2) || fail "plan: $out"
assert_contains "$out" "fannkuch:pypy:default-python"
assert_contains "$out" "pexecs:"

# the plan's numbers are Kalibera & Jones' formulas (checked on a flat pilot:
# every iteration is steady, so python can redo the computation)
python3 - <<'PY'
import json, random
rnd = random.Random(7)
wt = {"flat:vm:v": []}
for p in range(6):
    mu = 0.2 + rnd.gauss(0, 0.0004)          # pexecs differ a little
    wt["flat:vm:v"].append([mu + rnd.gauss(0, 0.001) for _ in range(300)])
json.dump({"wallclock_times": wt}, open("pilot.json", "w"))
PY
"$KILN" plan pilot.json --window 100 --steady 100 --ci-width 0.1 --json >plan.json || fail "plan json"
python3 - <<'PY' || fail "plan does not follow Kalibera & Jones"
import json, math
data = json.load(open("pilot.json"))["wallclock_times"]["flat:vm:v"]
k = json.load(open("plan.json"))["keys"][0]
n = len(data)
means = [sum(x) / len(x) for x in data]
s1 = sum(sum((v - m) ** 2 for v in x) for x, m in zip(data, means)) / sum(len(x) - 1 for x in data)
grand = sum(means) / n
s2 = sum((m - grand) ** 2 for m in means) / (n - 1)
m = n / sum(1 / len(x) for x in data)
t1, t2 = s1, max(0.0, s2 - s1 / m)
c1, c2 = grand, sum(x[0] for x in data) / n
z = 2.5758293035489004
h = 0.1 / 200 * grand
r1 = math.ceil(math.sqrt(c2 * t1 / (c1 * t2)))
r2 = max(2, math.ceil(z * z * (t2 + t1 / r1) / (h * h)))
assert abs(k["within_var"] - t1) < 1e-9 * t1 and abs(k["between_var"] - t2) < 1e-6 * t2, (k, t1, t2)
assert k["steady_iterations"] == r1 and k["pexecs"] == r2 and k["iterations"] == r1, (k, r1, r2)
PY

# ---- import into a kiln results file, report from it ----
out=$("$KILN" import a.json -o a.kiln.db) || fail "import: $out"
assert_contains "$out" "3 keys, 11 pexecs, 6000 iterations"
out4=$("$KILN" report a.kiln.db $OPTS) || fail "report from db: $out4"
assert_contains "$out4" "fannkuch:pypy:default-python  warmup"
assert_contains "$out4" "bad inconsistent (2F 1S)"

# ---- bad input: the file and the field are named, exit 3 ----
echo '{"wallclock_times": {"a:b:c": [[0.1, "x"]]}}' >bad.json
out=$("$KILN" report bad.json 2>&1); rc=$?
[ $rc -eq 3 ] || fail "bad input: exit $rc"
assert_contains "$out" "bad.json:1: wallclock_times: key 'a:b:c': pexec 0: iteration 1: not a number"
out=$("$KILN" report a.json --format pdf 2>&1); [ $? -eq 2 ] || fail "bad format accepted"
out=$("$KILN" report a.json --window x 2>&1); [ $? -eq 2 ] || fail "bad option value accepted"
assert_contains "$out" "--window: bad value 'x'"
# the command line every analysing command shares (report, plot, plan, diff)
usage() { # usage EXPECTED-MESSAGE kiln-args...
	local want=$1; shift
	out=$("$KILN" "$@" 2>&1); [ $? -eq 2 ] || fail "kiln $*: exit $? (want 2)"
	assert_contains "$out" "$want" "kiln $*"
	assert_contains "$out" "usage: kiln $1 " "kiln $*"
}
usage "INPUT is missing" report
usage "one INPUT only ('b.json' is extra)" report a.json b.json
usage "unknown option '--json'" report a.json --json
usage "-o DIR is missing" plot a.json
usage "--pexec: 'x' is not a pexec number" plot a.json --pexec x -o d
usage "PILOT is missing" plan --json
usage "--ci-width: 'wide' is not a percentage" plan a.json --ci-width wide
usage "needs two inputs, A and B" diff a.json
usage "two inputs only ('c.json' is extra)" diff a.json a.json c.json
usage "--penalty: bad value" diff a.json a.json --penalty -1
# issue 18.3: an outlier window of 0 or 1 iteration finds no outliers: refused
usage "--window: 0 is too small" report a.json --window 0
usage "--window: 1 is too small" plot a.json -o d --window=1
# -o out.pdf would be text under a PDF's name: refused, nothing written
usage "-o out.pdf: kiln report writes text, markdown, latex, html, json or csv" report a.json -o out.pdf
[ ! -e out.pdf ] || fail "report -o out.pdf wrote a file"
"$KILN" report a.json $OPTS -o out.txt && "$KILN" report a.json $OPTS -o plain-report || fail "report -o .txt / no extension"
assert_eq "$(head -c 200 out.txt)" "$(head -c 200 plain-report)" "-o .txt and no extension are text"
"$KILN" report a.json $OPTS --format html -o r.htm || fail "report -o .htm"
grep -q "<html" r.htm || fail "--format html"
# --key and --json reach every one of them
out=$("$KILN" plan a.json --json --key 'fannkuch:*' $OPTS) || fail "plan --json --key: $out"
python3 -c 'import json,sys; d=json.loads(sys.argv[1]); ks=[k["key"] for k in d["keys"]]; assert ks and all(k.startswith("fannkuch:") for k in ks), ks' "$out" || fail "plan --key: $out"
exit 0
