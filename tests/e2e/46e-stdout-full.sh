# What a command prints must reach its standard output: on a full disk
# (/dev/full) kiln report, status, diff, export and bench --json exited 0
# with their output lost, so `kiln report r.db --format json > r.json` in a
# script gave an empty file and success.  Now each says so and exits 1
# (docs/exit-codes.md); a reader that closed its pipe is not an error.
source "$KILN_ROOT/tests/lib.sh"
[ -w /dev/full ] || skip "no /dev/full"
cd "$T"

"$KILN" bench -q -r 3 true -o a.kiln.db >/dev/null 2>&1 || fail "bench a"
"$KILN" bench -q -r 3 true -o b.kiln.db >/dev/null 2>&1 || fail "bench b"

full() { # what exit and message a command gives with its stdout on a full disk
	local rc
	"$KILN" "$@" >/dev/full 2>err.txt; rc=$?
	[ $rc -eq 1 ] || fail "$*: exit $rc with stdout on a full disk, expected 1: $(cat err.txt)"
	grep -q "^kiln: error: standard output: " err.txt || fail "$*: the lost output not said: $(cat err.txt)"
}
full report a.kiln.db
full report a.kiln.db --format json
full report a.kiln.db --format csv
full status a.kiln.db
full status a.kiln.db --json
full diff a.kiln.db b.kiln.db
full diff a.kiln.db b.kiln.db --json
full export a.kiln.db --format hyperfine
full bench -q -r 2 true -o c.kiln.db --json
full report --help

# an error exit keeps its own code
"$KILN" report nosuch.kiln.db >/dev/full 2>/dev/null; rc=$?
assert_eq "$rc" 5 "a missing results file with stdout on a full disk"

# a reader that stops early is not an error: no message (bench ignores SIGPIPE while it runs)
out=$("$KILN" bench -r 2 true -o d.kiln.db 2>err.txt | (exec 0<&-; true); echo "${PIPESTATUS[0]}")
assert_eq "$out" 0 "bench into a closed pipe"
grep -q "standard output" err.txt && fail "a closed pipe reported: $(cat err.txt)"
# the same commands on a writable stdout still exit 0
"$KILN" report a.kiln.db --format json >r.json || fail "report to a file"
python3 -m json.tool r.json >/dev/null || fail "report's JSON"
echo ok
