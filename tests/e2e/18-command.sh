# The command plugin (hyperfine's job): one process per pexec, its wall time
# the single iteration, with exit status, user/sys time and max RSS kept.
source "$KILN_ROOT/tests/lib.sh"
cd "$T"
cat > c.yaml <<'Y'
pexecs: 200
iterations: 1
vms:
  t: {plugin: command, path: /bin/true}
  sl: {plugin: command, path: /bin/sleep}
benchmarks:
  nap: {param: "0.02", args: ["{param}"]}
skip: ["nap:t:*"]
Y
# (kmsg off: on a busy machine another test's deliberate kernel-log line tainted one of the 200)
cat > c2.yaml <<'Y'
pexecs: 200
vms: {t: {plugin: command, path: /bin/true}}
benchmarks: {noop: 0}
platform: {kmsg: off}
Y
"$KILN" run -q c2.yaml || fail "true x 200"
assert_eq "$(sqlite3 c2.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status='ok' AND n_iter=1")" 200 "200 runs of /bin/true"
assert_eq "$(sqlite3 c2.kiln.db "SELECT COUNT(*) FROM pexecs WHERE maxrss_kb > 0 AND exit_status = 0")" 200 "max RSS recorded"
# and they reach reports as per-pexec scalars
"$KILN" export c2.kiln.db --format krun -o c2.json >/dev/null || fail "export"
python3 -c 'import json; d=json.load(open("c2.json")); assert d["wallclock_times"]' || fail "export content"
sed -i 's/pexecs: 200/pexecs: 3/' c.yaml
"$KILN" run -q c.yaml || fail "sleep"
min=$(sqlite3 c.kiln.db "SELECT MIN(duration_s) FROM pexecs")
[ "$(echo "$min >= 0.02" | bc)" = 1 ] || fail "sleep 0.02 measured as $min s"
# a failing program fails its pexec with its exit status
cat > f.yaml <<'Y'
vms: {f: {plugin: command, path: /bin/false}}
benchmarks: {x: 0}
Y
"$KILN" run -q f.yaml; assert_eq $? 1 "exit of a run with a failed pexec"
assert_eq "$(sqlite3 f.kiln.db "SELECT status||' '||exit_status FROM pexecs")" "failed 1" "false"
# the benchmark starts with default signal dispositions, even those kiln ignores
cat > sig.yaml <<'Y'
vms:
  s: {plugin: command, path: /bin/sh, args: ["-c", "grep SigIgn /proc/self/status >&2; exit 1"]}
benchmarks: {x: 0}
Y
"$KILN" run -q sig.yaml
assert_contains "$(sqlite3 sig.kiln.db "SELECT stderr FROM pexecs")" "SigIgn:	0000000000000000"
# iterations > 1 makes no sense for whole processes
cat > g.yaml <<'Y'
vms: {t: {plugin: command, path: /bin/true, iterations: 5}}
benchmarks: {x: 0}
Y
out=$("$KILN" run -q g.yaml 2>&1); assert_eq $? 3 "iterations on command plugin"
assert_contains "$out" "vms.t.iterations"

# stats_from and parser work on a command VM too (they were silently ignored)
cat > st.sh <<'SH'
#!/bin/sh
printf 'Stats:\n  us_compiling: 1234\n  num_x: 5\n(End of stats)\n' >&2
SH
cat > pa.sh <<'SH'
#!/bin/sh
echo '{"name":"from_parser","value":42}'
SH
chmod +x st.sh pa.sh
cat > sp.yaml <<Y
pexecs: 2
vms:
  c: {plugin: command, path: $T/st.sh, stats_from: stderr, parser: [$T/pa.sh]}
benchmarks: {x: 1}
Y
"$KILN" run -q sp.yaml || fail "command VM with stats_from and parser"
assert_eq "$(sqlite3 sp.kiln.db "SELECT COUNT(*) FROM scalars WHERE (name='us_compiling' AND value=1234) OR (name='from_parser' AND value=42)")" 4 "stats and parser records of a command VM"
echo ok
