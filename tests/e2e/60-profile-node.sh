#!/bin/bash
# 60-profile-node.sh - `kiln profile` on a bundled Node benchmark (nbody)
# under real perf: the hottest JIT'd symbol kiln names is the one
# `perf report` names for the same perf.data; samples are split by
# iteration (every iteration has samples, and the per-iteration counts sum
# to the in-iteration total); the jitdump and perf map are kept; the child
# ran with ASLR off; the profile is in the results DB and plotted.  Then
# `kiln annotate` disassembles that function with per-instruction counts
# that add up to the profile's count for it.  The profile folder is
# self-contained: moved elsewhere, with no /tmp/perf-PID.map and a fresh
# HOME (no build-id cache of the machine), `perf report` still names the
# JIT'd code (perf inject --jit was done, build ids in DIR/.debug).
source "$KILN_ROOT/tests/lib.sh"
command -v node >/dev/null || skip "node is not installed"
command -v perf >/dev/null || skip "perf is not installed"
command -v jq >/dev/null || skip "jq is not installed"
perf record -q -e cpu-clock -o "$T/probe.data" true >/dev/null 2>&1 || skip "perf record cannot sample here (perf_event_paranoid?)"
cd "$T"
cat > p.yaml <<'Y'
pexecs: 1
iterations: 8
vms:
  node: {plugin: node}
benchmarks:
  nbody: 100000
Y
"$KILN" profile p.yaml --key nbody:node -o prof --json >prof.json 2>prof.err || fail "kiln profile: $(cat prof.err)"
j() { jq -r "$1" prof.json; }

# the files
for f in perf.data perf-script.txt profile.json profile.svg profile.gp profile.dat; do
	[ -s "prof/$f" ] || fail "prof/$f missing"
done
pid=$(j .pid)
[ "$pid" -gt 0 ] || fail "no benchmark pid"
[ -s "prof/jit/jit-$pid.dump" ] || fail "no jitdump for pid $pid: $(ls prof prof/jit | head)"
[ -s "prof/jit/perf-$pid.map" ] || fail "no perf map for pid $pid"
# perf inject made an ELF file for each JIT'd function with samples (the jitdump is cut to them)
[ "$(j '.pexecs[0].jit.jitted_so')" -gt 0 ] || fail "perf inject --jit made no ELF file: $(j '.pexecs[0].jit')"
[ "$(ls prof/jit | grep -c '^jitted-')" = "$(j '.pexecs[0].jit.jitted_so')" ] || fail "jitted files: $(ls prof/jit | head)"
grep -q "<svg" prof/profile.svg || fail "profile.svg is not an SVG"
assert_eq "$(( $(j .personality) & 0x0040000 ))" 262144 "ADDR_NO_RANDOMIZE in the child"
assert_eq "$(j .event)" "$(perf stat -e cycles -x, true 2>&1 | grep -q 'not supported' && echo cpu-clock || echo cycles)" "event"

# split by iteration
assert_eq "$(j '.iterations | length')" 8 "iterations"
total=$(j .samples); inside=$(j .in_iterations); outside=$(j .outside_iterations)
[ "$inside" -gt 0 ] || fail "no samples inside iterations"
assert_eq "$((inside + outside))" "$total" "in + outside = all samples"
assert_eq "$(j '[.iterations[].samples] | add')" "$inside" "per-iteration samples sum to the in-iteration total"
assert_eq "$(j '[.iterations[] | select(.samples == 0)] | length')" 0 "every iteration has samples"
# the windows are the runner's own (node reads CLOCK_MONOTONIC, perf's clock: no mapping), a window
# is the iteration's wall time, and windows follow each other
assert_eq "$(j '.pexecs[0].windows')" runner "windows from the runner's clock reads"
assert_eq "$(j '[.pexecs[0].iterations[] | select(.end_ns - .start_ns != .wall_ns)] | length')" 0 "window = wall time"
assert_eq "$(j '.pexecs[0].iterations as $it | [range(1; $it | length) as $i | select($it[$i].start_ns < $it[$i-1].end_ns)] | length')" 0 "windows ordered"
# CPU time beside wall time: node's process.cpuUsage, and the samples' periods (cpu-clock: ns on CPU)
assert_eq "$(j '[.iterations[] | select(.cpu_ns == null or .cpu_ns <= 0)] | length')" 0 "CPU time of every iteration"
assert_eq "$(j '[.phases[0].samples, .phases[1].samples] | add')" "$inside" "phases cover the iterations"
assert_eq "$(j '[.categories[]] | add')" "$total" "categories cover all samples"

# the hottest JIT'd symbol, as perf report names it
sym=$(j .hottest_jit.symbol)
assert_contains "$sym" "JS:" "a JIT'd JavaScript function"
# perf report on the folder moved elsewhere, without the perf map in /tmp, and a fresh HOME
mv prof moved
rm -f "/tmp/perf-$pid.map"
mkdir home
rep=$(HOME=$T/home perf --buildid-dir moved/.debug report -i moved/perf.data --stdio --no-children --sort sym -g none 2>/dev/null |
	grep -E '^ +[0-9.]+% +\[\.\] JS:' | head -1 | sed -E 's/^ +[0-9.]+% +\[\.\] //; s/ +$//')
assert_eq "$sym" "$rep" "hottest JIT'd symbol, kiln vs perf report on the moved folder"
mv moved prof
[ "$(j '.top[0].symbol')" = "$sym" ] || [ "$(j '.categories.jit')" -lt "$((total / 2))" ] ||
	fail "nbody's hot loop should top the profile: $(j '.top[0].symbol')"

# stored in the results DB
assert_eq "$(sql p.kiln.db "SELECT COUNT(*) FROM cache WHERE kind='profile'")" 1 "profile in the DB"
assert_eq "$(sql p.kiln.db "SELECT json_extract(value, '\$.hottest_jit.symbol') FROM cache WHERE kind='profile'")" "$sym" "stored report"

# text output names it too
"$KILN" profile p.yaml --key nbody:node:default-js -n 3 --split 1 -o prof2 >text.out 2>&1 || fail "text profile: $(cat text.out)"
assert_contains "$(cat text.out)" "hottest JIT'd symbol: JS:"
assert_contains "$(cat text.out)" "per iteration:"
assert_contains "$(cat text.out)" "before (iterations 1-1)"

# annotate: instruction counts for that function
"$KILN" annotate prof "$sym" --json >ann.json 2>ann.err || fail "kiln annotate: $(cat ann.err)"
a() { jq -r "$1" ann.json; }
assert_eq "$(a .symbol)" "$sym" "annotated symbol"
[ "$(a '.instructions | length')" -gt 10 ] || fail "too few instructions: $(a '.instructions | length')"
[ "$(a .samples)" -gt 0 ] || fail "no samples in the annotated code"
assert_eq "$(a '[.instructions[].samples] | add')" "$(a .samples)" "instruction counts sum to the load's"
assert_eq "$(a '[.loads[].samples] | add')" "$(j .hottest_jit.samples)" "all loads of the name = the profile's count"
assert_eq "$(a '[.instructions[] | select(.asm == "")] | length')" 0 "every line disassembled"
"$KILN" annotate prof "$sym" >ann.txt 2>&1 || fail "annotate text"
grep -qE '^> [0-9a-f]+ +[1-9][0-9]* +[0-9.]+%  [a-z]' ann.txt || fail "no hot instruction line: $(head -20 ann.txt)"
grep -q $'\033' ann.txt && fail "colour on a pipe"
out=$("$KILN" annotate prof "JS:no-such-function" 2>&1); assert_eq $? 2 "unknown symbol"
assert_contains "$out" "no JIT_CODE_LOAD named"
exit 0
