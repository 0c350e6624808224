# kiln report's whole-process table gives user and sys time to three
# significant digits like its other times: they were cut at six decimals,
# so a command's 78 us of sys time printed 0.000078, 2.5 us 0.000003 and
# 25 ns 0.000000 (text, Markdown, LaTeX and HTML share the cells).
source "$KILN_ROOT/tests/lib.sh"
command -v python3 >/dev/null || skip "python3 not found"
cd "$T"

python3 - <<'P'
import json
res = []
for name, base, user, sys in (("ns", 5e-8, 2.51e-8, 5.02e-9), ("us", 5e-6, 2.51e-6, 5.02e-7),
                              ("ms", 5e-4, 2.91e-4, 7.78e-5), ("s", 5.0, 2.51, 0.503)):
    t = [base * (1 + 0.001 * i) for i in range(10)]
    m = sum(t) / len(t)
    res.append({"command": "cmd-" + name, "mean": m, "stddev": None, "median": m, "user": user, "system": sys,
                "min": min(t), "max": max(t), "times": t, "exit_codes": [0] * 10})
json.dump({"results": res}, open("h.json", "w"))
P
"$KILN" report h.json >r.txt 2>err.txt || fail "report: $(cat err.txt)"
"$KILN" report h.json --format markdown >r.md 2>err.txt || fail "report markdown: $(cat err.txt)"
python3 - <<'P' || fail "user or sys time with fewer than three significant digits: $(cat r.txt)"
import re
want = {"ns": ("2.51e-08", "5.02e-09"), "us": ("2.51e-06", "5.02e-07"), "ms": ("0.000291", "7.78e-05"),
        "s": ("2.51", "0.503")}
def check(cells, where):
    for name, (u, s) in want.items():
        row = cells[name]
        for got, exp in zip(row, (u, s)):
            assert float(got) == float(exp), (where, name, got, exp)
text = open("r.txt").read().split("whole-process keys")[1].splitlines()
hdr = [l for l in text if l.startswith("benchmark:vm:variant")][0]
ucol, scol = hdr.index("user s"), hdr.index("sys s")
cells = {}
for l in text:
    m = re.match(r"cmd-(\w+):", l)
    if m:
        cells[m.group(1)] = (l[ucol:].split()[0], l[scol:].split()[0])
check(cells, "text")
cells = {}
for l in open("r.md").read().split("## Whole-process keys")[1].splitlines():
    m = re.match(r"\| `cmd-(\w+):", l)
    if m:
        c = [x.strip() for x in l.split("|")[1:-1]]
        cells[m.group(1)] = (c[4], c[5])
check(cells, "markdown")
P
echo ok
