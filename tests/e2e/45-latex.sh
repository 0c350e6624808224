# The LaTeX table of a real run, compiled with pdflatex: an external runner
# (python3) gives keys with long names every class there is (warmup, flat,
# slowdown, no steady state, good and bad inconsistent) at µs and ms
# speeds.  --compact fits a one-column page (article, 345 pt) and --wide
# (table*) a two-column one without an overfull box; every time has a unit
# that fits it; the compact form's legend is in the caption; the page,
# rendered, shows the table.
source "$KILN_ROOT/tests/lib.sh"
PY=$(command -v python3) || skip "python3 is not installed"
command -v pdflatex >/dev/null || skip "pdflatex is not installed (scripts/deps.sh --test)"
cd "$T"
for b in spectral_norm fannkuch_redux binary_trees; do mkdir -p "benchmarks/$b/py"; echo "# data from the runner" > "benchmarks/$b/py/bench.py"; done
cat > runner.py <<'PY'
import json, os, sys
n, pexec, bench, vm = int(sys.argv[1]), int(os.environ["KILN_PEXEC"]), os.environ["KILN_BENCHMARK"], os.environ["KILN_VM"]
base = {"spectral_norm": 0.0004, "fannkuch_redux": 0.012, "binary_trees": 0.0021}[bench]
# per vm and pexec, a shape: w warmup, f flat, s slowdown, n no steady state
shapes = {"hotspot": "wwfwf", "luajit": "wwfnf", "graal_native": "fsfwf"}[vm]
shape = shapes[pexec % len(shapes)]
out = os.fdopen(int(os.environ["KILN_RESULT_FD"]), "w")
out.write('{"kiln":1,"clock":"monotonic","counters":[]}\n')
for i in range(n):
    # each process at its own level (0.4% apart), as real ones are: the key's interval over pexecs
    # is then a realistic width, not the 0.03% of five identical series
    t = base * (1 + 0.004 * pexec) * (1 + 0.002 * ((i * 37 + pexec) % 11))
    if shape == "w" and i < 10: t *= 4
    if shape == "s" and i >= 30: t *= 3
    if shape == "n" and i >= n - 8: t *= 5
    out.write(json.dumps({"i": i, "wall_ns": int(t * 1e9)}) + "\n")
out.write('{"done":true}\n')
PY
cat > t.yaml <<Y
pexecs: 5
iterations: 60
vms:
  hotspot: {plugin: external, runner: ["$PY", "$T/runner.py", "{iterations}"], language: py, entry: bench.py}
  luajit: {plugin: external, runner: ["$PY", "$T/runner.py", "{iterations}"], language: py, entry: bench.py}
  graal_native: {plugin: external, runner: ["$PY", "$T/runner.py", "{iterations}"], language: py, entry: bench.py}
benchmarks: {spectral_norm: 0, fannkuch_redux: 0, binary_trees: 0}
Y
"$KILN" run -q t.yaml || fail "run"
A="--delta 1% --resamples 2000"
"$KILN" report t.kiln.db $A --format latex --compact -o compact.tex || fail "latex --compact"
"$KILN" report t.kiln.db $A --format latex --wide -o wide.tex || fail "latex --wide"
"$KILN" report t.kiln.db $A --format latex -o plain.tex || fail "latex"
grep -q 'bad inconsistent' plain.tex || fail "no bad inconsistent key: $(cat plain.tex)"
grep -q 'good inconsistent' plain.tex || fail "no good inconsistent key"
grep -q '\\textmu{}s' compact.tex || fail "no time in µs"
grep -q '\\,ms ' compact.tex || fail "no time in ms"
grep -q 'Classes: \$\\rightarrow\$ flat' compact.tex || fail "no legend in the compact caption"
grep -q '\\begin{table\*}' wide.tex || fail "--wide is not table*"
grep -Eq '[0-9]\.[0-9]{5,}' compact.tex && fail "a number with more digits than its interval needs"

# wrap: a document of one or two columns around the table, compiled
compile() { # NAME CLASSOPTS TABLE
	printf '\\documentclass[%s]{article}\n\\usepackage{booktabs}\n\\begin{document}\n\\input{%s}\n\\end{document}\n' \
		"$2" "$3" > "$1.tex"
	pdflatex -interaction=nonstopmode -halt-on-error "$1.tex" > "$1.out" 2>&1 || fail "pdflatex $1: $(tail -20 "$1.log")"
	if grep -q 'Overfull \\hbox' "$1.log"; then fail "$1: $(grep -A2 'Overfull' "$1.log" | head -5)"; fi
}
compile onecol "" compact
compile twocol twocolumn wide
compile twocolcompact twocolumn "$(sed 's/{table}/{table*}/' compact.tex > compactwide.tex; echo compactwide)"
# the plain form compiles too (it is wider: --compact or --wide for a paper)
printf '\\documentclass{article}\n\\usepackage{booktabs}\n\\begin{document}\n\\input{plain}\n\\end{document}\n' > plaindoc.tex
pdflatex -interaction=nonstopmode -halt-on-error plaindoc.tex > /dev/null 2>&1 || fail "pdflatex plain"
# a key's [ ] and * are text: a row starts after \midrule or \\, which took
# '[9pt]' as an optional argument (a 9 pt rule; the text gone from the page)
# and '*' after \\ as their starred form
python3 -c '
import json
keys = {"!first:vm:v": 0.1, "*star:vm:v": 0.2, "[9pt]gone:vm:v": 0.3}
json.dump({"wallclock_times": {k: [[v] * 30] * 2 for k, v in keys.items()},
           "pexec_flags": {k: ["C", "C"] for k in keys}}, open("brackets.json", "w"))'
"$KILN" report brackets.json --format latex -o brackets.tex || fail "latex of brackets.json"
printf '\\documentclass{article}\n\\usepackage{booktabs}\n\\begin{document}\n\\input{brackets}\n\\end{document}\n' >bdoc.tex
pdflatex -interaction=nonstopmode -halt-on-error bdoc.tex >/dev/null 2>&1 || fail "pdflatex brackets: $(tail -20 bdoc.log)"
if command -v pdftotext >/dev/null; then
	pdftotext -layout bdoc.pdf bdoc.txt || fail "pdftotext"
	for k in '!first \(v\)' '\*star \(v\)' '\[9pt\]gone \(v\)'; do # EREs
		grep -E "^ *$k +vm +flat" bdoc.txt >/dev/null || fail "the table lost '$k': $(cat bdoc.txt)"
	done
fi
if command -v pdftoppm >/dev/null; then
	pdftoppm -r 60 -png -f 1 -l 1 onecol.pdf page || fail "pdftoppm"
	s=$(python3 "$KILN_ROOT/tests/helpers/pngstat.py" page-1.png); echo "page: $s"
	python3 -c 'import json, sys; assert json.loads(sys.argv[1])["ink"] > 0.01' "$s" || fail "the page is blank: $s"
fi
echo ok
