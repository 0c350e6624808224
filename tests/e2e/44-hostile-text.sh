# Strings from input files are made safe for every output they reach
# (issue 11, item 2): a Krun key with a newline once ended the gnuplot
# script's comment line and gnuplot ran system() as root through `kiln plot`
# and `kiln report -o r.html`.  Keys, series names, units, experiment names,
# failure reasons and captured stderr from a Krun JSON, a warmup_stats CSV
# and a crafted .kiln.db go through plot, report (every format), status,
# audit, diff, plan, export and import errors: no command runs, no raw
# control character or invalid UTF-8 reaches the terminal, every file parses
# as its format says, and odd keys get plot names of their own.
source "$KILN_ROOT/tests/lib.sh"
command -v python3 >/dev/null || skip "python3 not found"
command -v gnuplot >/dev/null || skip "gnuplot not found"
cd "$T"
export T

python3 - <<'PY'
import json, os
T = os.environ["T"]
inj = "\nsystem('id > %s/pwned-plot')\n#" % T
keys = {
    # ends the comment line of the .gp script and of the .dat header
    "b%s:vm:v" % inj: 0.1,
    # the same bytes with the newlines as '_': must not overwrite the one above
    ("b%s:vm:v" % inj).replace("\n", "_"): 0.2,
    # terminal escapes, HTML, LaTeX, CSV formula, quotes, bidi override
    "e\x1b[2J\x1b]0;title\x07\r<script>alert(1)</script>:vm\u202e:=1+1,'\"&%$#_{}~^\\": 0.3,
    "-leading:vm:v": 0.4,
}
wt = {k: [[v] * 30, [v] * 30] for k, v in keys.items()}
fl = {k: ["C", "C"] for k in keys}
ins = {k: [{"gc|\x1b[31m\n'": [0.01] * 30}] * 2 for k in keys}
json.dump({"wallclock_times": wt, "pexec_flags": fl, "instr_data": ins,
           "audit": {"uname": "Linux box\x1b[5m 6.1"}}, open("evil.json", "w"))
PY

# no raw control character but newline, and valid UTF-8, in what kiln printed
check_clean() {
	python3 - "$1" "$2" <<'PY' || fail "$2: raw control characters or invalid UTF-8 in the output"
import sys
data = open(sys.argv[1], "rb").read()
data.decode("utf-8")
bad = [c for c in data if (c < 0x20 and c not in (0x0a,)) or c == 0x7f]
assert not bad, (sys.argv[2], bad[:5])
assert "\u202e" not in data.decode(), sys.argv[2]
PY
}

# ---- plot: no command runs, every key gets its own files ----
"$KILN" plot evil.json -o plots >plots.txt 2>err.txt || fail "plot: $(cat err.txt)"
[ -e "$T/pwned-plot" ] && fail "plot: gnuplot ran the command from the key: $(cat "$T/pwned-plot")"
[ "$(wc -l <plots.txt)" -eq 8 ] || fail "plot: expected 8 plots (4 keys x 2), got $(cat plots.txt)"
[ "$(sort -u plots.txt | wc -l)" -eq 8 ] || fail "plot: two keys share a file name: $(cat plots.txt)"
ls plots | grep -q '^-' && fail "plot: a file name starts with '-': $(ls plots)"
grep -q '^plots/b_system__id.*+[0-9a-f]\{8\}-p0.svg$' plots.txt || fail "plot: odd key without its hash: $(cat plots.txt)"
for f in plots/*.svg; do python3 -c "import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])" "$f" ||
	fail "plot: $f is not well-formed"; done
check_clean plots.txt "plot output"
# the kept scripts still re-run by hand, and still run nothing
(cd plots && for g in *.gp; do gnuplot "$g" 2>/dev/null || exit 1; done) || fail "plot: a kept script does not re-run"
[ -e "$T/pwned-plot" ] && fail "plot: a kept script ran the command"

# ---- report: HTML with inline plots, and every other format ----
"$KILN" report evil.json -o r.html 2>err.txt || fail "report html: $(cat err.txt)"
[ -e "$T/pwned-plot" ] && fail "report -o r.html: gnuplot ran the command from the key"
python3 - <<'PY' || fail "report html: a tag or an attribute came from the input"
import html.parser
class P(html.parser.HTMLParser):
    tags, texts = set(), []
    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        for k, v in attrs:
            assert not k.startswith("on"), (tag, k)
    def handle_data(self, d):
        self.texts.append(d)
p = P()
p.feed(open("r.html", encoding="utf-8").read())
assert "script" not in p.tags, p.tags
text = "".join(p.texts)
assert "<script>alert(1)</script>" in text          # shown, as text
assert "\\x1b[2J" in text and "\\u202e" in text      # escapes shown
PY
for fmt in text markdown latex csv json; do
	"$KILN" report evil.json --format $fmt >r.$fmt 2>err.txt || fail "report $fmt: $(cat err.txt)"
	check_clean r.$fmt "report $fmt"
done
grep -q 'e\\x1b\[2J\\x1b\]0;title\\x07\\r<script>' r.text || fail "report text: key not shown escaped: $(cat r.text)"
python3 - <<'PY' || fail "report csv/json/latex/markdown content"
import csv, json
rows = list(csv.reader(open("r.csv", encoding="utf-8")))
head, body = rows[0], rows[1:]
assert len(body) == 4, body
assert all(len(r) == len(head) for r in body), [len(r) for r in body]
assert "gc|\\x1b[31m\\n'_before" in head, head
variants = {r[head.index("variant")] for r in body}
assert "'=1+1,'\"&%$#_{}~^\\" in variants, variants       # the formula disarmed by a quote
j = json.load(open("r.json", encoding="utf-8"))
keys = [b["key"] for m in j["machines"].values() for vm in m.values() for b in vm.values()]
assert len(keys) == 4 and any("\x1b[2J" in k for k in keys), keys   # lossless in JSON
tex = open("r.latex").read()
assert "\\textless{}script\\textgreater{}" in tex and "\\$\\#\\_\\{\\}" in tex, tex
md = [l for l in open("r.markdown").read().splitlines() if l.startswith("| ")]
import re
cells = {len(re.split(r"(?<!\\)\|", l)) for l in md if "| gc" in l}
assert cells == {7}, (cells, md)                      # the name's | stays in its cell
outside = [re.sub(r"(`+)(.*?)\1", "", l) for l in md]       # what is not in a code span
assert not any("<script>" in l for l in outside), outside
PY

# ---- CSV input: bytes that are not UTF-8 ----
printf 'pexec_idx,bench,0,1,2,3\n0,bad\xff\xfe\x1b[1m:vm:v,0.1,0.1,0.1,0.1\n' >bad.csv
"$KILN" report bad.csv >r.bad 2>err.txt || fail "report on a CSV with invalid UTF-8: $(cat err.txt)"
check_clean r.bad "report of a CSV"
grep -q 'bad\\xff\\xfe\\x1b\[1m:vm:v' r.bad || fail "CSV key not shown escaped: $(cat r.bad)"
"$KILN" report bad.csv --format json >r.badjson || fail "report json on invalid UTF-8"
python3 -c "import json; json.load(open('r.badjson'))" || fail "report json: not JSON"

# ---- import errors quote the input escaped ----
printf '{"wallclock_times": {"k\\u001b]0;pwn\\u0007\\n:vm:v": [["x"]]}}' >badkey.json
"$KILN" report badkey.json >/dev/null 2>err.txt && fail "a time that is not a number was accepted"
check_clean err.txt "import error"
grep -q "k\\\\x1b]0;pwn\\\\x07\\\\n:vm:v" err.txt || fail "import error: key not escaped: $(cat err.txt)"
printf 'pexec_idx,bench,0\n0,k:vm:v,\x1b[2Jnope\n' >badcell.csv
"$KILN" report badcell.csv >/dev/null 2>err.txt && fail "a CSV cell that is not a time was accepted"
check_clean err.txt "CSV import error"
# a hexadecimal float is not a time: strtod read '0x10' as 16 s
printf 'pexec_idx,bench,0,1\n0,k:vm:v,0.5,0x10\n' >hexcell.csv
"$KILN" report hexcell.csv >/dev/null 2>err.txt && fail "a CSV cell 0x10 was read as a number"
grep -q "hexcell.csv:2: column 4 (iteration 1): '0x10' is not a time" err.txt || fail "hex cell: $(cat err.txt)"

# ---- a crafted .kiln.db: keys, names, messages and stderr ----
"$KILN" import evil.json -o evil.kiln.db >/dev/null || fail "import"
sqlite3 evil.kiln.db "UPDATE keys SET vm = vm || X'ff1b5b324a' WHERE id = 1;
	UPDATE pexecs SET status = 'failed', error = 'exit 1' || X'0d1b5d303b7077' || char(7),
	  stderr = X'6c696e65310a1b5b324a6c696e6532ff0d' WHERE id = 1;
	UPDATE meta SET value = 'exp' || X'1b5b356d' WHERE name = 'name';" || fail "sqlite3"
for cmd in "status evil.kiln.db --failures" "status evil.kiln.db --json" "audit evil.kiln.db" \
	"audit evil.kiln.db --json" "report evil.kiln.db" "report evil.kiln.db --format json" \
	"plan evil.kiln.db" "plan evil.kiln.db --json" "diff evil.kiln.db evil.json" \
	"diff evil.kiln.db evil.json --json"; do
	# shellcheck disable=SC2086
	"$KILN" $cmd >out.txt 2>err.txt || fail "kiln $cmd: $(cat err.txt)"
	check_clean out.txt "kiln $cmd"
	check_clean err.txt "kiln $cmd (stderr)"
	case $cmd in *--json* | *"format json"*) python3 -c "import json; json.load(open('out.txt'))" || fail "kiln $cmd: not JSON";; esac
done
out=$("$KILN" status evil.kiln.db --failures) || fail "status"
assert_contains "$out" 'line1'
assert_contains "$out" '\\x1b\[2Jline2\\xff\\r'
assert_contains "$out" 'exit 1\\r\\x1b\]0;pw\\x07'
"$KILN" report evil.kiln.db -o db.html 2>err.txt || fail "report html of the crafted db: $(cat err.txt)"
[ -e "$T/pwned-plot" ] && fail "report of the crafted db: gnuplot ran the command"
"$KILN" plot evil.kiln.db -o dbplots >/dev/null 2>err.txt || fail "plot of the crafted db: $(cat err.txt)"
[ -e "$T/pwned-plot" ] && fail "plot of the crafted db: gnuplot ran the command"
"$KILN" export evil.kiln.db --format krun -o back.json >/dev/null || fail "export krun"
python3 - <<'PY' || fail "export: a key was lost"
import json
wt = json.load(open("back.json"))["wallclock_times"]
assert len(wt) == 4 and any("\\xff\x1b[2J" in k for k in wt), list(wt)
PY
"$KILN" export evil.kiln.db --format csv -o back.csv >/dev/null 2>err.txt && fail "export csv: odd keys written as they are"
check_clean err.txt "export csv error"

# ---- a config's names, as kiln run --dry-run prints them ----
mkdir -p "benchmarks/b$(printf '\033')1m/py" && echo '# data' >"benchmarks/b$(printf '\033')1m/py/bench.py"
cat >dry.yaml <<'Y'
name: "x\e[2J\e]0;OWNED\a"
pexecs: 1
iterations: 2
results: "r\e5m.kiln.db"
vms:
  "v\e2J": {plugin: external, runner: ["/bin/true"], language: py, entry: bench.py}
benchmarks: {"b\e1m": 0}
Y
"$KILN" run --dry-run dry.yaml >out.txt 2>err.txt || fail "run --dry-run: $(cat err.txt)"
tr '\t' ' ' <out.txt >dry.txt # kiln's own column separators
check_clean dry.txt "run --dry-run"
check_clean err.txt "run --dry-run (stderr)"
grep -q '^# experiment x\\x1b\[2J\\x1b\]0;OWNED\\x07: .*results .*/r\\x1b5m\.kiln\.db$' out.txt ||
	fail "run --dry-run: name or results not shown escaped: $(cat out.txt)"
grep -q 'b\\x1b1m:v\\x1b2J:default-py' out.txt || fail "run --dry-run: key not shown escaped: $(cat out.txt)"

# ---- kiln plugins CONFIG: an external VM's name, the config's path and its runner ----
P="p$(printf '\033')[5m.yaml"
cat >"$P" <<'Y'
vms:
  "v\e2J": {plugin: external, runner: ["\e]0;OWNED\a\e[2J"], language: py, entry: bench.py}
benchmarks: {"b\e1m": 0}
Y
"$KILN" plugins "$P" >out.txt 2>err.txt || fail "plugins: $(cat err.txt)"
check_clean out.txt "plugins"
check_clean err.txt "plugins (stderr)"
grep -q '^v\\x1b2J  *external (.*p\\x1b\[5m\.yaml): runner \\x1b\]0;OWNED\\x07\\x1b\[2J$' out.txt ||
	fail "plugins: the external VM not shown escaped: $(cat out.txt)"
"$KILN" plugins "$P" --json >out.txt 2>err.txt || fail "plugins --json: $(cat err.txt)"
python3 -c "import json; json.load(open('out.txt'))" || fail "plugins --json: not JSON"
# a VM found on PATH, in a folder whose name has escapes
if command -v lua5.4 >/dev/null; then
	D="$T/bin$(printf '\033')]0;PATH$(printf '\007')"
	mkdir -p "$D" && ln -s "$(command -v lua5.4)" "$D/lua5.4"
	PATH="$D:$PATH" "$KILN" plugins >out.txt 2>err.txt || fail "plugins (PATH): $(cat err.txt)"
	check_clean out.txt "plugins, a VM on PATH"
	grep -q 'bin\\x1b\]0;PATH\\x07/lua5.4' out.txt || fail "plugins: the VM found on PATH not shown escaped: $(cat out.txt)"
fi

# ---- kiln stat: the key it measured ----
if command -v perf >/dev/null; then
	"$KILN" stat dry.yaml --key "$(printf 'b\0331m:v\0332J')" -e task-clock >out.txt 2>err.txt ||
		fail "stat: $(cat err.txt)"
	check_clean out.txt "stat"
	check_clean err.txt "stat (stderr)"
	grep -q '^b\\x1b1m:v\\x1b2J:default-py: one pexec' out.txt || fail "stat: the key not shown escaped: $(cat out.txt)"
fi

# ---- file names from outside (a glob over a downloaded folder): the paths kiln prints ----
E="i$(printf '\033')[2J"
cp evil.json "$E.json"
"$KILN" import "$E.json" -o "$E.kiln.db" >out.txt 2>err.txt || fail "import $E.json: $(cat err.txt)"
check_clean out.txt "import"
grep -q '^i\\x1b\[2J\.json: 4 keys, .* imported into i\\x1b\[2J\.kiln\.db$' out.txt ||
	fail "import: the paths not shown escaped: $(cat out.txt)"
"$KILN" export "$E.kiln.db" --format krun >out.txt 2>err.txt || fail "export $E.kiln.db: $(cat err.txt)"
check_clean out.txt "export"
grep -q '^i\\x1b\[2J\.json\.bz2$' out.txt || fail "export: the path not shown escaped: $(cat out.txt)"
echo ok
