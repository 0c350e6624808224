# bench/live.sh's arithmetic (bench/live/tally.py), on tables whose answer
# is known, so that the README's live figures rest on checked code:
#  - a real kiln compare of bench/live/vm.c against its build with a warm-up
#    twice as long (-DWARMX=2) reads as "longer", and the warm-up verdict of
#    each kind of JSON (cost, class, none) as written;
#  - section G's rows: 1 verdict in 50 A/A pairs is 2.00%, a MISS of <= 1%;
#  - section F's rows read the time, the true ratio and the program from the
#    end of the line (a column added to the compare line, the CPU pressure,
#    had shifted them: both programs were labelled in-process and the
#    pressure printed as the time).
source "$KILN_ROOT/tests/lib.sh"
cd "$T"
TALLY=$KILN_ROOT/bench/live/tally.py
command -v python3 >/dev/null || skip "no python3"

# a real comparison: the live VM against its build that warms up twice as long
cc -O2 -I"$KILN_ROOT/bench/live" -o vm-1 "$KILN_ROOT/bench/live/vm.c" -lm || fail "vm.c"
cc -O2 -DWARMX=2 -I"$KILN_ROOT/bench/live" -o vm-w2 "$KILN_ROOT/bench/live/vm.c" -lm || fail "vm.c -DWARMX=2"
mkdir -p benchmarks/b/live
cat >v.yaml <<Y
name: live-vary
pexecs: 10
iterations: 40
benchmarks_dir: $T/benchmarks
vms:
  vm:
    plugin: external
    path: $T/vm-1
    runner: ["{vm_path}", "{iterations}", "{param}"]
    language: live
benchmarks:
  b: "300:4:0.02:0.02"
Y
"$KILN" compare v.yaml --vm "a=$T/vm-1" --vm "b=$T/vm-w2" -o c.kiln.db -q --json --rounds 10 >c.json ||
	fail "compare: $(cat c.json)"
assert_eq "$(python3 "$TALLY" warm c.json longer)" "longer longer" "a warm-up of 8 iterations against 4"

# each kind of warm-up verdict, from kiln compare's JSON shape
wj() { # TTS COST CLASS
	printf '{"benchmarks":[{"warmup":{"time_to_steady_s":{"verdict":"%s"},"warmup_cost_s":{"verdict":"%s"},"class_changed":%s}}]}' \
		"$1" "$2" "$3" >w.json
	python3 "$TALLY" warm w.json same
}
assert_eq "$(wj shorter 'no change' false)" "same shorter"
assert_eq "$(wj 'no change' 'costs more' false)" "same costs-more"
assert_eq "$(wj 'no change' 'no change' true)" "same class"
assert_eq "$(wj 'no change' 'no change' null)" "same same"
echo '{"benchmarks":[{"warmup":null}]}' >w.json
assert_eq "$(python3 "$TALLY" warm w.json same)" "same none"
echo 'not json' >w.json
assert_eq "$(python3 "$TALLY" warm w.json same)" "same error"

# G's rows: 1 of 50 A/A pairs with a verdict; 9 of 10 doubled warm-ups told
mkdir d
{ echo "same costs-more"; for _ in $(seq 49); do echo "same same"; done; } >d/warm-aa.txt
{ echo "longer none"; for _ in $(seq 9); do echo "longer longer"; done; } >d/warm-2x.txt
# F's rows: TRUTH VERDICT RATIO LO HI MDE ROUNDS PRESSURE, then TIME RATIO CONFIG
echo "slower slower 1.017 1.012 1.022 0.0064 5701 0.231 10m 1.02 spinten" >d/ten.txt
echo "slower slower 1.021 1.014 1.028 0.0095 2678 0.112 10m 1.02 ten" >>d/ten.txt
out=$(python3 "$TALLY" rows d full) || fail "rows: $out"
assert_contains "$out" "a verdict 1/50 = 2.00%"
assert_contains "$out" "A/A warm-up verdicts (time to steady, cost or class; full, 50 pairs)	2.00%"
printf '%s\n' "$out" | grep "A/A warm-up verdicts" | grep -q "MISS$" || fail "2% is not <= 1%: $out"
assert_contains "$out" "told longer 9/10 = 90.00%"
assert_contains "$out" "kiln compare --time 10m, whole process, 50 ms, true ratio 1.02"
assert_contains "$out" "kiln compare --time 10m, in-process, 100 ms pexecs, true ratio 1.02"
echo ok
