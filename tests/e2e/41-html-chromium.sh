# The HTML report of a real run, opened in headless Chromium: its screenshot
# is not blank (plots rendered: many distinct colours, ink over much of the
# page), the page is self-contained (no outside references), a key whose
# pexecs all failed says why (the reason, not just "no data"), and no
# number prints as "nan".
source "$KILN_ROOT/tests/lib.sh"
CHROME=$(command -v chromium || command -v chromium-browser || true)
[ -n "$CHROME" ] || skip "chromium not installed"
make_suite
cd "$T"
cat > h.yaml <<Y
pexecs: 3
iterations: 60
seed: 1
vms:
  native: {plugin: c}
  fake: {plugin: external, runner: [$FAKE, ok, "{iterations}", "0"], language: c, entry: bench.c}
  broken: {plugin: external, runner: [$FAKE, early, "{iterations}"], language: c, entry: bench.c}
benchmarks: {spin: 20000}
platform: {counters: [task-clock]}
Y
"$KILN" run -q h.yaml; [ $? -eq 1 ] || fail "run (one VM fails every pexec: exit 1)"
"$KILN" report h.kiln.db --format html -o report.html || fail "report"
grep -qiE '<(script|link|img)[^>]* (src|href)="?https?:' report.html && fail "the page loads something from outside"
grep -q '<th>series</th>' report.html || fail "no instrumentation table (task-clock per iteration)"
grep -qw nan report.html && fail "the page prints nan"
grep -A3 'spin:broken' report.html | grep -q 'no data' || fail "the broken key is not 'no data'"
grep -q 'pexec [0-9] failed: ' report.html || fail "the page does not say why the pexecs failed"
n_svg=$(grep -o '<svg' report.html | wc -l)
[ "$n_svg" -ge 2 ] || fail "expected inline SVG plots, found $n_svg"
timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
	--disable-background-networking --disable-component-update --disable-sync \
	--user-data-dir="$T/profile" --window-size=1280,2000 --screenshot="$T/shot.png" \
	"file://$T/report.html" >/dev/null 2>&1
[ -s shot.png ] || fail "no screenshot"
stat=$(python3 "$KILN_ROOT/tests/helpers/pngstat.py" shot.png) || fail "screenshot is not a PNG"
echo "$stat"
python3 -c 'import json, sys; s = json.loads(sys.argv[1]); assert s["colours"] >= 20, "too few colours: no plots?"; assert s["ink"] > 0.05, "mostly blank"' "$stat" \
	|| fail "screenshot looks blank: $stat"
echo ok
