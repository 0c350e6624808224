#!/bin/bash
# 35-timers.sh - libkiln's internal timers and counters round-trip through
# the `stats` parser: the example VM (examples/bytecode-vm) dumps its stats
# at exit, to KILN_INSTR_DIR/stats.txt under kiln and to stderr otherwise,
# and `kiln parse stats` reads them back with the exact counts the programs
# imply, us_ timers in microseconds, and the prefix convention holding.
source "$KILN_ROOT/tests/lib.sh"

[ -x "$KILN" ] || skip "no kiln binary at $KILN"
"$KILN" parse --help >/dev/null 2>&1 || skip "kiln parse is not there yet"
LIBA="$KILN_ROOT/${O:-build}/libkiln.a"
[ -f "$LIBA" ] || skip "no $LIBA"
EX="$KILN_ROOT/examples/bytecode-vm"

make -s -C "$EX" KILN_BUILD="$KILN_ROOT/${O:-build}" OUT="$T" >"$T/build.log" 2>&1 ||
	fail "building the example VM: $(cat "$T/build.log")"

# value NAME [UNIT]: the record's value from $T/records (and its unit checked)
value() {
	local v
	v=$(jq -r --arg n "$1" 'select(.name == $n) | .value' "$T/records")
	[ -n "$v" ] || fail "no record for $1 in: $(cat "$T/records")"
	if [ $# -gt 1 ]; then
		assert_eq "$(jq -r --arg n "$1" 'select(.name == $n) | .unit' "$T/records")" "$2" "unit of $1"
	fi
	echo "${v%.*}"
}

# 1. under kiln: KILN_INSTR_DIR/stats.txt, stderr left alone
mkdir "$T/instr"
out=$(KILN_INSTR_DIR="$T/instr" "$T/bvm" -n 3 "$EX/sum.bvm" 1000 2>"$T/err") || fail "bvm failed: $(cat "$T/err")"
assert_eq "$out" "332833500
332833500
332833500" "sum.bvm output"
[ -s "$T/err" ] && fail "stats went to stderr although KILN_INSTR_DIR was set: $(cat "$T/err")"
[ -f "$T/instr/stats.txt" ] || fail "no stats.txt in KILN_INSTR_DIR"
head -n 1 "$T/instr/stats.txt" | grep -qx 'Stats:' || fail "stats.txt does not start with Stats:"
tail -n 1 "$T/instr/stats.txt" | grep -qx '(End of stats)' || fail "stats.txt does not end the block"
# names sorted
sed -n 's/^  \([^:]*\):.*/\1/p' "$T/instr/stats.txt" >"$T/names"
LC_ALL=C sort -c "$T/names" || fail "stats lines are not sorted by name"

"$KILN" parse stats "$T/instr/stats.txt" >"$T/records" || fail "kiln parse stats failed"
# sum.bvm runs 14 bytecodes per loop trip plus 12, and takes n+1 branches;
# 23 source instructions, one push+add pair fused
assert_eq "$(value num_instructions)" $((3 * (14 * 1000 + 12))) "num_instructions"
assert_eq "$(value num_branches_taken)" $((3 * 1001)) "num_branches_taken"
assert_eq "$(value num_calls)" 0 "num_calls"
assert_eq "$(value num_compiled_instructions)" 22 "num_compiled_instructions"
assert_eq "$(value num_peephole_fused)" 1 "num_peephole_fused"
all=$(value us_compiling us)
parse=$(value us_compiling_parse us)
peep=$(value us_compiling_peephole us)
res=$(value us_compiling_resolve us)
run=$(value us_running us)
# the prefix is the superset of its extensions (inclusive nested timers)
[ "$all" -ge $((parse + peep + res)) ] || fail "us_compiling $all < parts $parse+$peep+$res"
[ "$run" -gt 0 ] || fail "us_running is $run"

# 2. without KILN_INSTR_DIR: the block goes to stderr, parsable as is;
#    fib(20) makes 2*fib(21)-1 calls; us_running in microseconds, not ns
"$T/bvm" "$EX/fib.bvm" 20 >"$T/out" 2>"$T/err.txt" || fail "bvm fib failed"
assert_eq "$(cat "$T/out")" 6765 "fib(20)"
t0=$(date +%s%N)
"$T/bvm" -n 20 "$EX/fib.bvm" 20 >/dev/null 2>"$T/err2.txt" || fail "bvm fib -n 20 failed"
wall_us=$(( ($(date +%s%N) - t0) / 1000 ))
"$KILN" parse stats "$T/err.txt" >"$T/records" || fail "kiln parse stats on stderr failed"
assert_eq "$(value num_calls)" $((2 * 10946 - 1)) "num_calls of fib(20)"
"$KILN" parse stats "$T/err2.txt" >"$T/records" || fail "kiln parse stats on stderr (2) failed"
run=$(value us_running us)
[ "$run" -gt 0 ] && [ "$run" -le "$wall_us" ] || fail "us_running $run us not within the process's $wall_us us"

# 3. a VM error is reported with file and line, and stats are still dumped
printf 'push 1\nfrob 2\n' >"$T/bad.bvm"
"$T/bvm" "$T/bad.bvm" 2>"$T/bad.err" && fail "a bad program was accepted"
assert_contains "$(cat "$T/bad.err")" "bad.bvm:2: unknown instruction 'frob'"
"$KILN" parse stats "$T/bad.err" >"$T/records" || fail "the stats dumped at a failed exit do not parse"
value us_compiling_parse us >/dev/null
exit 0
