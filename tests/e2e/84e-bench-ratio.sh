# kiln bench's ratio of two commands, as its summary and its exported
# tables give it: one figure.  The summary pairs the runs by round
# (rounds.h); the tables' Relative column gave the unpaired bootstrap
# interval of the same session ("1.05 ± 0.004" on the terminal, "1.05 ±
# 0.05" in the Markdown).  A ratio without an interval (one run a command)
# is said to have none, and gets no legend of one.
source "$KILN_ROOT/tests/lib.sh"
cd "$T"

# ---- the Relative cell of each table is the summary's ratio ----
"$KILN" bench -q --runs 8 'sleep 0.01' 'sleep 0.02' --export-markdown r.md --export-asciidoc r.adoc \
	--export-orgmode r.org -o r.kiln.db >out.txt || fail "bench: $(cat out.txt)"
python3 - out.txt r.md r.adoc r.org <<'P' || fail "the tables' Relative is not the summary's: $(cat out.txt r.md)"
import re, sys
term = open(sys.argv[1]).read()
m = re.search(r"^    (.*) times faster than '(.*)' \(", term, re.M)
assert m, term
ratio, slower = m.group(1), m.group(2)
md = {c[0].strip().strip("`"): c[4].strip() for c in
      (l.split("|")[1:-1] for l in open(sys.argv[2]).read().splitlines()[2:])}
assert md[slower] == ratio, ("markdown", md[slower], ratio)
adoc = open(sys.argv[3]).read().split("\n\n")[1:]
rows = {r.splitlines()[0][2:].strip().strip("`"): r.splitlines()[4][2:].strip() for r in adoc}
assert rows[slower] == ratio, ("asciidoc", rows[slower], ratio)
org = {c[0].strip().strip("~="): c[4].strip() for c in
       (l.split("|")[1:-1] for l in open(sys.argv[4]).read().splitlines()[2:])}
assert org[slower] == ratio, ("org", org[slower], ratio)
P

# ---- -r 1: a bare ratio, said to have no interval, and no legend of one ----
out=$("$KILN" bench -q -r 1 'sleep 0.01' 'sleep 0.02' -o one.kiln.db 2>&1) || fail "bench -r 1: $out"
assert_contains "$out" "^    [0-9.]* times faster than 'sleep 0.0[12]' (no interval: too few runs)$"
grep -q "± is half\|could see\|(\*)" <<<"$out" && fail "-r 1: a legend of an interval none has: $out"
# the one-value warning is its own sentence (it read "Warning: ; 1 value: no interval")
assert_contains "$out" "Warning: 1 value: no interval"
grep -q "Warning: ;" <<<"$out" && fail "-r 1: a warning starting with its separator: $out"
out=$("$KILN" bench -q -r 1 --sort command 'sleep 0.01' 'sleep 0.02' -o one.kiln.db 2>&1) || fail "--sort command: $out"
assert_contains "$out" "^  [0-9.]*, no interval: too few runs  *sleep 0.0[12]$"
grep -q "± is half\|could see\|(\*)" <<<"$out" && fail "--sort command -r 1: a legend of an interval none has: $out"
echo ok
