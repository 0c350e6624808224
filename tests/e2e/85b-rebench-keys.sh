# ReBench .data files: a criterion given twice for an iteration is refused,
# and (pyperf too) a time below 0.5 ns;
# keys named in time linear in the runs (a search over
# every key for each key and its suites took 16 s for 2000 executors), and
# named as before: a variable labelled when its group has several values,
# an executor with several suites as EXECUTOR.SUITE.
source "$KILN_ROOT/tests/lib.sh"
cd "$T"
H='invocation\titeration\tvalue\tunit\tcriterion\tbenchmark\texecutor\tsuite\tinputSize\n'

# ---- the names ----
printf "$H"'1\t1\t5\tms\ttotal\tb\tX\ts\t1\n1\t1\t6\tms\ttotal\tb\tX\ts\t2\n1\t1\t7\tms\ttotal\tc\tX\ts\t1\n1\t1\t5\tms\ttotal\tb\tY\ts1\t1\n1\t1\t5\tms\ttotal\tb\tY\ts2\t1\n' > small.data
"$KILN" import small.data -o small.kiln.db >/dev/null || fail "import small.data"
assert_eq "$(sql small.kiln.db "SELECT group_concat(k, ' ') FROM (SELECT bench||':'||vm||':'||variant AS k FROM keys ORDER BY k)")" \
	"b:Y.s1:s1 b:Y.s2:s2 b[input=1]:X:s b[input=2]:X:s c:X:s" "the keys' names"

# ---- a criterion's value twice for one iteration, or in another unit: refused naming the line ----
printf "$H"'1\t1\t5\tms\ttotal\tb\tX\ts\t1\n1\t1\t5000\tkB\tMaxRSS\tb\tX\ts\t1\n1\t1\t7\tMB\tMaxRSS\tb\tX\ts\t1\n' > u.data
out=$("$KILN" import u.data -o u.kiln.db 2>&1); assert_eq $? 3 "MaxRSS in another unit"
assert_contains "$out" "u.data:4: invocation 1 iteration 1 of b on X (suite s): column unit: 'MaxRSS' in 'MB', but in 'kB' on an earlier row"
printf "$H"'1\t1\t5\tms\ttotal\tb\tX\ts\t1\n1\t1\t5000\tkB\tMaxRSS\tb\tX\ts\t1\n1\t1\t7\tkB\tMaxRSS\tb\tX\ts\t1\n' > d.data
out=$("$KILN" import d.data -o d.kiln.db 2>&1); assert_eq $? 3 "MaxRSS twice"
assert_contains "$out" "d.data:4: invocation 1 iteration 1 of b on X (suite s): a second 'MaxRSS'"
# in another unit in a later invocation of the same run: one series of the key, refused too (it was kept
# per invocation, and MaxRSS in kB and in MB read as one quantity)
printf "$H"'1\t1\t5\tms\ttotal\tb\tX\ts\t1\n1\t1\t5000\tkB\tMaxRSS\tb\tX\ts\t1\n2\t1\t5\tms\ttotal\tb\tX\ts\t1\n2\t1\t7\tMB\tMaxRSS\tb\tX\ts\t1\n' > v.data
out=$("$KILN" import v.data -o v.kiln.db 2>&1); assert_eq $? 3 "MaxRSS in another unit in another invocation"
assert_contains "$out" "v.data:5: invocation 2 iteration 1 of b on X (suite s): column unit: 'MaxRSS' in 'MB', but in 'kB' in an earlier invocation"
# the same unit in every invocation still imports
printf "$H"'1\t1\t5\tms\ttotal\tb\tX\ts\t1\n1\t1\t5000\tkB\tMaxRSS\tb\tX\ts\t1\n2\t1\t5\tms\ttotal\tb\tX\ts\t1\n2\t1\t7000\tkB\tMaxRSS\tb\tX\ts\t1\n' > w.data
out=$("$KILN" import w.data -o w.kiln.db 2>&1) || fail "MaxRSS in kB in two invocations: $out"

# ---- a time below 0.5 ns, which whole nanoseconds would store as 0: refused naming the field ----
printf '{"version": "1.0", "metadata": {"name": "m"}, "benchmarks": [{"runs": [{"values": [1.4e-9, 4e-10]}]}]}' > sub.json
out=$("$KILN" import sub.json -o sub.kiln.db 2>&1); assert_eq $? 3 "pyperf: 4e-10 s"
assert_contains "$out" "sub.json: benchmarks\[0\].runs\[0\].values\[1\]: 4e-10 is below 0.5 ns"
printf "$H"'1\t1\t0.4\tns\ttotal\tb\tX\ts\t1\n' > sub.data
out=$("$KILN" import sub.data -o subr.kiln.db 2>&1); assert_eq $? 3 "ReBench: 0.4 ns"
assert_contains "$out" "sub.data:2: column value: '0.4' is below 0.5 ns"

# ---- 20000 keys, one executor each: well within 10 s ----
awk 'BEGIN { printf "invocation\titeration\tvalue\tunit\tcriterion\tbenchmark\texecutor\tsuite\n";
	for (i = 0; i < 20000; i++) printf "1\t1\t5\tms\ttotal\tb\te%d\ts\n", i }' > big.data
timeout 10 "$KILN" import big.data -o big.kiln.db >/dev/null; rc=$?
assert_eq $rc 0 "20000 keys imported within 10 s (124: timed out)"
assert_eq "$(sql big.kiln.db "SELECT COUNT(*) FROM keys")" 20000 "20000 keys"
echo ok
