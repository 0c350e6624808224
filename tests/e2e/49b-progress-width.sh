#!/bin/bash
# 49b-progress-width.sh - on a terminal the progress line is cut to the
# terminal's width by display width (a non-ASCII key counts its columns, not
# its bytes), so that \r redraws it in place instead of leaving one wrapped
# line per pexec; the summary line after it is whole.
source "$KILN_ROOT/tests/lib.sh"
command -v script >/dev/null || skip "script (bsdutils) is not installed"
cd "$T"
make_suite
cat > p.yaml <<'Y'
pexecs: 3
iterations: 2
vms: {a_rather_long_virtual_machine_name_über_größe_ÿ: {plugin: c}}
benchmarks: {spin: 10}
Y
script -qec "stty cols 40; '$KILN' run p.yaml" out.txt >/dev/null 2>&1 || fail "kiln run under script: $(cat out.txt)"
python3 - out.txt <<'PY' || fail "a progress line wider than the terminal: $(cat out.txt)"
import re, sys, unicodedata
text = open(sys.argv[1], "rb").read().decode("utf-8")
lines = [re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", s) for s in re.split(r"[\r\n]", text)]
progress = [s for s in lines if s.startswith("[")]
assert len(progress) >= 3, progress
def width(s):
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)
assert all(width(s) <= 39 for s in progress), [(width(s), s) for s in progress]
assert all(s.endswith("\u2026") for s in progress), progress  # cut, and said so
assert any("3 pexecs done" in s for s in lines), lines
PY
echo ok
