# hyperfine's CSV export of a parameter scan reads back as the values
# scanned: a negative value's '-' was taken for a formula start, and
# parameter_n of `-P n -2 0` was '-2 and '-1 (the field changed, so no
# script or spreadsheet read -2 back).  Plain numbers keep their sign; a
# value that a spreadsheet would run (=, +, -, @ and not a number) still
# gets its quote.
source "$KILN_ROOT/tests/lib.sh"
command -v python3 >/dev/null || skip "python3 not found"
cd "$T"

"$KILN" bench -q -r 2 -P n -2 1 'true {n}' -o p.kiln.db --export-csv p.csv --export-json p.json >out.txt 2>&1 ||
	fail "bench -P: $(cat out.txt)"
"$KILN" bench -q -r 2 -L v '-1.5e-3,+5,=1+1,-x,@a' 'true {v}' -o l.kiln.db --export-csv l.csv >out.txt 2>&1 ||
	fail "bench -L: $(cat out.txt)"
python3 - <<'P' || fail "the CSV's parameters are not the values scanned: $(cat p.csv l.csv)"
import csv, json
rows = list(csv.DictReader(open("p.csv")))
got = [r["parameter_n"] for r in rows]
assert got == ["-2", "-1", "0", "1"], got
# the same values as the JSON export's, and numbers
assert got == [r["parameters"]["n"] for r in json.load(open("p.json"))["results"]], got
assert [float(v) for v in got] == [-2, -1, 0, 1]
got = {r["command"]: r["parameter_v"] for r in csv.DictReader(open("l.csv"))}
assert got["true -1.5e-3"] == "-1.5e-3" and got["true +5"] == "+5", got
# what a spreadsheet would run is still disarmed
assert got["true =1+1"] == "'=1+1" and got["true -x"] == "'-x" and got["true @a"] == "'@a", got
P
echo ok
