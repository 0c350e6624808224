# kiln plot of a real run, as images: an external runner (python3) reports
# a warmup (8 slow iterations, then fast) and three instrumentation series:
# a GC count, a heap in bytes and a series that never changes.  The PNG is
# drawn (many colours, ink over the page), short (instrumentation panels
# are a fraction of the run sequence: the page is not 3 run sequences
# tall), the constant series is named instead of drawn, the wall-time axis
# starts at or above 0 and the iteration ticks are whole numbers.  Many
# pexecs to a page make one page per 4 pexecs (a 2-page PDF for 5), --size
# sets the image's size, --pexec past the last pexec says which there are,
# and keys whose file names would meet get distinct files.
source "$KILN_ROOT/tests/lib.sh"
PY=$(command -v python3) || skip "python3 is not installed"
command -v gnuplot >/dev/null || skip "gnuplot is not installed"
cd "$T"
mkdir -p benchmarks/warm/py "benchmarks/a b/py" benchmarks/a_b/py benchmarks/x_y/py benchmarks/x/py
for d in warm "a b" a_b x_y x; do echo "# no code: the runner makes the numbers" > "benchmarks/$d/py/bench.py"; done
cat > runner.py <<'PY'
import json, os, sys
n, pexec = int(sys.argv[1]), int(os.environ["KILN_PEXEC"])
out = os.fdopen(int(os.environ["KILN_RESULT_FD"]), "w")
out.write('{"kiln":1,"clock":"monotonic","counters":[]}\n')
with open(os.path.join(os.environ["KILN_INSTR_DIR"], "r.kiln.jsonl"), "w") as f:
    for i in range(n):
        wall = (20000000 if i < 8 else 2000000) + 7919 * ((i * 31 + pexec) % 17)
        out.write(json.dumps({"i": i, "wall_ns": wall}) + "\n")
        for name, v, unit in (("gc.count", 3 if i % 10 == 0 else 0, ""), ("heap", 14486000 + 40000 * i, "bytes"),
                              ("gc.major.count", 0, "")):
            f.write(json.dumps({"i": i, "name": name, "value": v, "unit": unit}) + "\n")
out.write('{"done":true}\n')
PY
cat > p.yaml <<Y
pexecs: 5
iterations: 60
vms:
  fake: {plugin: external, runner: ["$PY", "$T/runner.py", "{iterations}"], language: py, entry: bench.py, instrument: true}
  v: {plugin: external, runner: ["$PY", "$T/runner.py", "{iterations}"], language: py, entry: bench.py}
  y_v: {plugin: external, runner: ["$PY", "$T/runner.py", "{iterations}"], language: py, entry: bench.py}
benchmarks: {warm: 0, "a b": 0, a_b: 0, x_y: 0, x: 0}
skip: ["warm:v:*", "warm:y_v:*", "a b:v:*", "a b:y_v:*", "a_b:v:*", "a_b:y_v:*", "x_y:fake:*", "x_y:y_v:*", "x:fake:*", "x:v:*"]
Y
"$KILN" run -q p.yaml || fail "run"
png() { python3 "$KILN_ROOT/tests/helpers/pngstat.py" "$@"; }
field() { python3 -c 'import json, sys; print(json.loads(sys.argv[1])[sys.argv[2]])' "$1" "$2"; }

# one pexec, as PNG
"$KILN" plot p.kiln.db --key warm:fake --pexec 1 --format png -o out > list || fail "plot png"
f=out/warm_fake_default-py-p1.png
[ -s "$f" ] || fail "no $f (wrote: $(cat list))"
s=$(png "$f"); echo "single: $s"
assert_eq "$(field "$s" width)" 960 "default width"
h=$(field "$s" height)
[ "$h" -gt 450 ] && [ "$h" -lt 800 ] || fail "two instrumentation panels and the run sequence should be 450-800 px tall, not $h"
[ "$(field "$s" colours)" -ge 8 ] || fail "too few colours: $s"
python3 -c 'import json, sys; assert json.loads(sys.argv[1])["ink"] > 0.03' "$s" || fail "mostly blank: $s"
# the run sequence's area (below the title and legend) has the most ink
top=$(png "$f" 84 60 936 360); echo "run sequence area: $top"
python3 -c 'import json, sys; assert json.loads(sys.argv[1])["ink"] > 0.08' "$top" || fail "the run sequence looks empty: $top"
gp=out/warm_fake_default-py-p1.gp
grep -q "constant, not drawn: gc.major.count = 0" "$gp" || fail "the constant series is not named"
grep -q "'gc.major.count" "$gp" && fail "the constant series has a panel"
grep -q "'heap (MiB)'" "$gp" || fail "the heap is not in MiB"
grep -q "e+0" "$gp" && fail "exponent notation in the script's labels"
lo=$(grep -m1 -o 'set yrange \[[^:]*' "$gp" | cut -d[ -f2)
python3 -c "assert float('$lo') >= 0" || fail "the wall-time axis starts below 0 ($lo)"
grep -q "set xtics 0\." "$gp" && fail "fractional iteration ticks"
grep -q "steady after iteration 8" "$gp" || fail "the steady state is not marked where it starts"
# the inset: auto, the steady part being flat against 20 ms iterations
grep -q "the inset: the steady state" "$gp" || fail "no inset for a steady state flattened by the warmup"

# --size, --wall-only, --log, --xlim, SVG and PDF
"$KILN" plot p.kiln.db --key warm:fake --pexec 0 --format png --size 640x360 --wall-only --log --xlim 5: -o sized >/dev/null \
	|| fail "plot --size"
s=$(png sized/warm_fake_default-py-p0.png); echo "sized: $s"
assert_eq "$(field "$s" width)x$(field "$s" height)" 640x360 "--size 640x360"
grep -q "set logscale y" sized/warm_fake_default-py-p0.gp || fail "--log"
grep -q "set xrange \[4.5:60.5\]" sized/warm_fake_default-py-p0.gp || fail "--xlim 5:"
"$KILN" plot p.kiln.db --key warm:fake --per-page 4 --format png -o pages > list || fail "plot --per-page png"
assert_eq "$(wc -l < list)" 2 "5 pexecs at 4 a page: 2 pages"
s=$(png pages/warm_fake_default-py-page1.png); echo "page 1: $s"
assert_eq "$(field "$s" width)" 960 "2 columns of 480 px"
"$KILN" plot p.kiln.db --key warm:fake --per-page 4 --format pdf -o pages > list || fail "plot --per-page pdf"
assert_eq "$(cat list)" "pages/warm_fake_default-py-pages.pdf" "one PDF"
if command -v pdfinfo >/dev/null; then
	assert_eq "$(pdfinfo pages/warm_fake_default-py-pages.pdf | awk '/^Pages:/ {print $2}')" 2 "PDF pages"
fi

# --pexec past the last one says which there are (usage error)
out=$("$KILN" plot p.kiln.db --key warm --pexec 7 -o none 2>&1); rc=$?
assert_eq "$rc" 2 "--pexec 7 of 5"
assert_contains "$out" "no pexec 7: the keys matched have pexecs 0 to 4"

# file names: "a b" and "a_b" are two files; x_y:v and x:y_v would share one and get a hash
"$KILN" plot p.kiln.db --key 'a b' --key a_b --key x_y --key x --pexec 0 --wall-only -o names > list 2> err || fail "plot names"
assert_eq "$(wc -l < list)" 4 "four keys, four images"
assert_eq "$(sort -u list | wc -l)" 4 "four distinct files"
ls names/a_b_fake_default-py+*-p0.svg >/dev/null 2>&1 || fail "'a b' has no hashed name of its own: $(cat list)"
[ -s names/a_b_fake_default-py-p0.svg ] || fail "a_b"
assert_contains "$(cat err)" "share the file name x_y_v_default-py"
echo ok
