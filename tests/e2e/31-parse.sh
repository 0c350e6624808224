#!/bin/bash
# 31-parse.sh - `kiln parse` on the stats and generic parsers: records as JSON
# Lines on stdout, exit 3 with FILE:LINE on bad input, exit 2 on a bad
# command line, records of several files in order.
source "$KILN_ROOT/tests/lib.sh"
[ -x "$KILN" ] || fail "no $KILN"

printf 'program output\nStats:\n  us_compiling: 18234\n  num_traces: 12\n(End of stats)\nbye\n' >"$T/err.txt"
out=$("$KILN" parse stats "$T/err.txt") || fail "kiln parse stats failed"
assert_eq "$out" '{"name":"us_compiling","value":18234,"unit":"us"}
{"name":"num_traces","value":12}' "stats records"

printf '{"i":3,"name":"gc.time","value":0.0031,"unit":"s"}\n\n{"name":"e","start_ns":5,"end_ns":9}' >"$T/a.kiln.jsonl"
printf '{"name":"checksum","value":42}\n' >"$T/b.kiln.jsonl"
out=$("$KILN" parse generic "$T/a.kiln.jsonl" "$T/b.kiln.jsonl") || fail "kiln parse generic failed"
assert_eq "$out" '{"i":3,"name":"gc.time","value":0.0031,"unit":"s"}
{"name":"e","start_ns":5,"end_ns":9}
{"name":"checksum","value":42}' "generic records"

# bad input: exit 3, the place and the field; what came before is printed
printf '{"name":"ok","value":1}\n{"i":-1,"name":"gc","value":1}\n' >"$T/bad.kiln.jsonl"
rc=0
out=$("$KILN" parse generic "$T/bad.kiln.jsonl" 2>"$T/err") || rc=$?
assert_eq "$rc" 3 "exit status on a bad record"
assert_eq "$out" '{"name":"ok","value":1}' "records before the error"
assert_contains "$(cat "$T/err")" "bad.kiln.jsonl:2: field 'i': negative"

printf 'Stats:\n  num_a: x\n(End of stats)\n' >"$T/bad.txt"
rc=0
"$KILN" parse stats "$T/bad.txt" >/dev/null 2>"$T/err" || rc=$?
assert_eq "$rc" 3 "exit status on a bad stats block"
assert_contains "$(cat "$T/err")" "bad.txt:2: field 'num_a'"

rc=0
"$KILN" parse generic "$T/missing.jsonl" >/dev/null 2>&1 || rc=$?
assert_eq "$rc" 3 "exit status on a missing file"

rc=0
"$KILN" parse nosuchplugin "$T/err.txt" >/dev/null 2>&1 || rc=$?
assert_eq "$rc" 2 "exit status on an unknown plugin"
rc=0
"$KILN" parse stats >/dev/null 2>&1 || rc=$?
assert_eq "$rc" 2 "exit status without a file"
"$KILN" parse --help | grep -q "usage: kiln parse PLUGIN FILE" || fail "--help"
exit 0
