#!/bin/bash
# 62-stat.sh - `kiln stat` on one pexec: software counters are counted
# (task-clock close to the child's CPU time, page faults > 0), hardware
# events this machine lacks are "not supported" and null in JSON - never 0 -
# (and counted where it has them), the counts are stored in the results DB,
# a broken benchmark fails with perf's and the VM's words, and bad options
# are usage errors.
source "$KILN_ROOT/tests/lib.sh"
command -v perf >/dev/null || skip "perf is not installed"
command -v jq >/dev/null || skip "jq is not installed"
cd "$T"
make_suite
cat > s.yaml <<Y
pexecs: 1
iterations: 5
benchmarks_dir: $T/benchmarks
vms:
  native: {plugin: c}
benchmarks:
  spin: 3000000
Y
"$KILN" stat s.yaml --key spin:native --json >s.json 2>s.err || fail "kiln stat: $(cat s.err)"
j() { jq -r "$1" s.json; }
ev() { jq -r ".events[] | select(.name == \"$1\") | .$2" s.json; }
assert_eq "$(j .iterations)" 5 "iterations"
assert_eq "$(j '.events | length')" 8 "default events"
for e in task-clock context-switches cpu-migrations page-faults; do
	assert_eq "$(ev $e available)" true "$e counted"
done
[ "$(ev page-faults value | cut -d. -f1)" -gt 0 ] || fail "page faults: $(ev page-faults value)"
# task-clock (ms): the spin's work counted (5 x 3e6 steps, about 15 ms here), and no more than the pexec's
# user+sys, which also holds perf's own start and reads (20-40 ms of CPU here: the check was once "within
# 30% + 20 ms of user+sys", and read 17 against 48-57 ms, failing 1 run in 5 on that margin alone)
tc=$(ev task-clock value); cpu=$(j '(.user_s + .sys_s) * 1000')
[ "$(echo "$tc >= 3 && $tc <= 1.1 * $cpu + 5" | bc -l)" = 1 ] || fail "task-clock $tc ms vs rusage $cpu ms"
# hardware events: as the machine says
if perf stat -e cycles -x, true 2>&1 | grep -q '<not supported>'; then
	for e in cycles instructions branches branch-misses; do
		assert_eq "$(ev $e available)" false "$e unavailable here"
		assert_eq "$(ev $e value)" null "$e has no value (not zero)"
		assert_contains "$(ev $e reason)" "not supported"
	done
	"$KILN" stat s.yaml --key spin:native >s.txt 2>&1 || fail "text stat"
	assert_contains "$(cat s.txt)" "not supported        cycles"
	grep -qE '^ +0 +cycles' s.txt && fail "cycles printed as zero"
else
	[ "$(ev cycles value | cut -d. -f1)" -gt 1000000 ] || fail "cycles: $(ev cycles value)"
fi
# chosen events, one of them not a perf event at all
"$KILN" stat s.yaml --key spin:native --events task-clock,page-faults --json >e.json || fail "--events"
assert_eq "$(jq -r '[.events[].name] | join(",")' e.json)" "task-clock,page-faults" "--events"
out=$("$KILN" stat s.yaml --key spin:native --events no-such-event 2>&1); assert_eq $? 1 "bad event"
assert_contains "$out" "no-such-event"
# stored, one row per successful run
runs=$(grep -c . <<<"$(ls s.json e.json; [ -e s.txt ] && echo s.txt)")
assert_eq "$(sql s.kiln.db "SELECT COUNT(*) FROM cache WHERE kind='stat'")" "$runs" "one stored row per run"
assert_eq "$(sql s.kiln.db "SELECT COUNT(DISTINCT json_extract(value, '\$.key')) FROM cache WHERE kind='stat'")" 1 "stored key"
assert_eq "$(sql s.kiln.db "SELECT json_extract(value, '\$.key') FROM cache WHERE kind='stat' LIMIT 1")" "spin:native:default-c" "stored key"
# errors
out=$("$KILN" stat s.yaml --key spin:nope 2>&1); assert_eq $? 3 "unknown VM"
assert_contains "$out" "no VM 'nope'"
out=$("$KILN" stat s.yaml 2>&1); assert_eq $? 2 "no --key"
out=$("$KILN" stat s.yaml --key spin 2>&1); assert_eq $? 2 "key without VM"
exit 0
