# Gauges (issue 14.2, ReBench's gauge adapters): a command VM whose program
# has its own harness; its iterations are the times it prints (RebenchLog
# lines, JMH's iteration lines, time's real lines, a regex), read from its
# stdout or stderr as kiln drains it, exact to the nanosecond; output that
# gives no iterations, too many, a bad number or another count than asked
# fails the pexec with the line; config errors are exit 3 at the field; the
# gauge is part of the key's program.  (No JMH is packaged by Debian 12: the
# JMH output here is printed by a Python script in JMH's layout.)
source "$KILN_ROOT/tests/lib.sh"
cd "$T"
command -v lua5.4 >/dev/null || skip "no lua5.4"

# the stored wall times of a key's pexecs, in ns, one pexec a line (from kiln's Krun export, exact doubles)
walls_ns() { # DB
	"$KILN" export "$1" --format krun -o w.json >/dev/null || fail "export $1"
	python3 -c '
import json
d = json.load(open("w.json"))
for k, ps in sorted(d["wallclock_times"].items()):
    for p in ps:
        print(k, " ".join(str(round(x * 1e9)) for x in p))'
}
err_of() { sqlite3 "$1" "SELECT p.status || ': ' || p.error FROM pexecs p JOIN keys k ON k.id=p.key_id WHERE k.bench='$2'"; }

# ---- RebenchLog, from a Lua harness: totals end iterations, criteria become series ----
cat > harness.lua <<'L'
local n = tonumber(arg[1])
print("Starting Bounce benchmark ...")
for i = 0, n - 2 do
  print(string.format("Bounce: GC: %dkb", 100 + i))
  print(string.format("Bounce compile: iterations=1 runtime: %dus", 10 + i))
  print(string.format("Bounce: iterations=1 runtime: %dus", 1000 + 7 * i))
end
print(string.format("Bounce: iterations=%d average: 1000us total: 9999us", n))
print("Bounce: iterations=1 runtime: 2ms")
L
cat > rb.yaml <<'Y'
pexecs: 2
vms:
  lua: {plugin: command, path: lua5.4, args: [harness.lua, "{iterations}"], iterations: 6, gauge: rebench}
benchmarks: {Bounce: {param: x}}
Y
sed -i "s|harness.lua|$T/harness.lua|" rb.yaml
# AWFY's summary line (iterations=6 average: ... total: ...) is a criterion to ReBench, as here
"$KILN" run -q rb.yaml || fail "rebench: $(err_of rb.kiln.db Bounce)"
assert_eq "$(sqlite3 rb.kiln.db "SELECT COUNT(*) || ' ' || MIN(n_iter) || ' ' || MAX(n_iter) FROM pexecs WHERE status='ok'")" "2 6 6" "6 iterations a pexec"
# five in the loop and the last 2ms line: the harness was told 6 by {iterations}
expect="1000000 1007000 1014000 1021000 1028000 2000000"
assert_eq "$(walls_ns rb.kiln.db | sed -n 1p | cut -d' ' -f2-)" "$expect" "RebenchLog totals, exact"
python3 - rb.kiln.db <<'P' || fail "criteria series"
import math, sqlite3, struct, sys
db = sqlite3.connect(sys.argv[1])
rows = db.execute("SELECT s.name, s.unit, s.vals FROM series s JOIN pexecs p ON p.id=s.pexec_id WHERE p.num=0 ORDER BY s.name").fetchall()
got = {n: (u, struct.unpack("<%dd" % (len(v) // 8), v)) for n, u, v in rows}
u, gc = got["gauge.GC"]
assert got["gauge.iterations=6 average"][1][5] == 1000, got   # ReBench's reading of AWFY's summary line
assert u == "kb" and gc[:5] == (100.0, 101.0, 102.0, 103.0, 104.0) and (len(gc) == 5 or math.isnan(gc[5])), got
assert [round(x * 1e9) for x in got["gauge.compile"][1][:5]] == [10000, 11000, 12000, 13000, 14000], got
sc = dict(db.execute("SELECT s.name, s.value FROM scalars s JOIN pexecs p ON p.id=s.pexec_id WHERE p.num=0"))
assert 0 < sc["wall_time"] < 60, sc
P
# the process's own numbers stay per-pexec scalars
assert_eq "$(sqlite3 rb.kiln.db "SELECT COUNT(*) FROM pexecs WHERE maxrss_kb > 0 AND exit_status = 0 AND user_s IS NOT NULL")" 2 "rusage kept"
# analysed like any runner key: not a whole-process key
"$KILN" report rb.kiln.db --format json -o rb.json || fail "report"
python3 -c '
import json; d = json.load(open("rb.json"))["machines"]
k = [v for m in d.values() for vm in m.values() for v in vm.values()][0]
assert k["classification"] != "whole process" and len(k["process_executons"]) == 2, k["classification"]' || fail "analysed as iterations"

# ---- issue 28's minimal case: the AWFY summary line after the last iteration is read as ReBench reads it ----
cat > awfy.yaml <<'Y'
vms: {sh: {plugin: command, path: /bin/sh, iterations: 1, gauge: rebench,
      args: [-c, "echo 'B: iterations=1 runtime: 5us'; echo 'B: iterations=1 average: 5us total: 5us'"]}}
benchmarks: [b]
Y
"$KILN" run -q awfy.yaml || fail "AWFY's summary line: $(sqlite3 awfy.kiln.db 'SELECT error FROM pexecs')"
assert_eq "$(walls_ns awfy.kiln.db)" "b:sh:default-command 5000" "one iteration of 5 us"

# ---- provenance: another gauge is another program ----
"$KILN" run -q -o p.kiln.db --max-pexecs 1 rb.yaml || fail "provenance, first"
sed 's/gauge: rebench/gauge: {format: rebench, max_iterations: 50}/' rb.yaml > rb2.yaml
out=$("$KILN" run -o p.kiln.db rb2.yaml 2>&1); assert_eq $? 3 "a changed gauge is refused"
"$KILN" run -q -o p.kiln.db --force rb2.yaml 2>/dev/null || fail "--force with another gauge"
assert_eq "$(sqlite3 p.kiln.db "SELECT COUNT(*) FROM programs")" 2 "a second program"
assert_contains "$(sqlite3 p.kiln.db "SELECT description FROM programs WHERE seq=2")" "max_iterations=50"
assert_contains "$(sqlite3 p.kiln.db "SELECT description FROM programs WHERE seq=1")" "gauge	format=rebench from=stdout max_iterations=100000"

# ---- JMH: warm-up iterations kept as kiln's warm-up ----
cat > jmh.py <<'P'
import sys
mode = sys.argv[1]
print("# JMH version: 1.37\n# Warmup: 3 iterations, 10 s each\n# Benchmark: org.sample.Fib.fib\n")
print("# Run progress: 0.00% complete, ETA 00:01:20\n# Fork: 1 of 1")
for i in range(3):
    print("# Warmup Iteration   %d: %s ms/op" % (i + 1, ["20.500", "15.25", "12.125"][i]))
unit = "ops/ms" if mode == "thrpt" else "ms/op"
for i in range(5):
    print("Iteration   %d: %d.%03d %s" % (i + 1, 10, i, unit))
    print("                 \u00b7gc.alloc.rate:      0.001 MB/sec")
if mode == "forks":
    print("# Warmup Iteration   1: 20.500 ms/op")
print('\nResult "org.sample.Fib.fib":\n  10.002 \u00b1(99.9%) 0.001 ms/op [Average]')
P
cat > jmh.yaml <<Y
pexecs: 2
warmup_iterations: 3
vms:
  jmh: {plugin: command, path: python3, args: [$T/jmh.py, "{param}"], iterations: 8, gauge: jmh}
benchmarks: {fib: {param: [ok, thrpt, forks]}}
Y
"$KILN" run -q jmh.yaml; assert_eq $? 1 "jmh: one of three fails"
assert_eq "$(walls_ns jmh.kiln.db | grep -c '^fib\[ok\].* 10000000 ')" 2 "two ok pexecs exported"
assert_eq "$(sqlite3 jmh.kiln.db "SELECT COUNT(*) FROM pexecs p JOIN keys k ON k.id=p.key_id WHERE k.bench='fib[ok]' AND status='ok' AND n_iter=8")" 2 "8 iterations kept"
# the export leaves the 3 warm-up iterations out, as for any warmup_iterations
assert_eq "$(walls_ns jmh.kiln.db | grep '^fib\[ok\]' | sed -n 1p | cut -d' ' -f2-)" "10000000 10001000 10002000 10003000 10004000" "JMH measured iterations"
# a throughput's inverse is the time of an operation (ReBench reads any unit)
assert_eq "$(walls_ns jmh.kiln.db | grep '^fib\[thrpt\]' | sed -n 1p | cut -d' ' -f2-)" "100000 99990 99980 99970 99960" "JMH throughput"
assert_contains "$(err_of jmh.kiln.db 'fib[forks]')" "gauge jmh: stdout line 20: a warm-up iteration after measured ones"
sed -i 's/warmup_iterations: 3/warmup_iterations: 2/; s/ok, thrpt, forks/ok/' jmh.yaml
rm -f jmh.kiln.db
"$KILN" run -q jmh.yaml; assert_eq $? 1 "JMH warm-ups other than warmup_iterations"
assert_contains "$(err_of jmh.kiln.db 'fib[ok]' | head -1)" "failed: gauge jmh: stdout (22 lines): 3 warm-up iterations where warmup_iterations is 2"

# ---- a regex on stderr, and time's real lines; exact decimal conversion ----
cat > rx.sh <<'SH'
#!/bin/sh
echo "this is stdout: took 99 ms"
for v in 1.5 0.25 1.0000005 2e-3 0.0000004; do echo "run: took $v ms (ok)" >&2; done
SH
chmod +x rx.sh
cat > tm.sh <<'SH'
#!/bin/sh
printf 'real 1.25\nuser 1.00\nsys 0.20\n' >&2
printf 'real\t0m2.500s\nuser\t0m2.000s\nsys\t0m0.250s\n' >&2
SH
chmod +x tm.sh
cat > rx.yaml <<Y
vms:
  rx: {plugin: command, path: $T/rx.sh, gauge: {regex: "took ([0-9.e-]+) ms", unit: ms, from: stderr}}
  tm: {plugin: command, path: $T/tm.sh, gauge: time}
benchmarks: {r: {}}
Y
"$KILN" run -q rx.yaml || fail "regex and time: $(sqlite3 rx.kiln.db 'SELECT error FROM pexecs')"
assert_eq "$(walls_ns rx.kiln.db)" "r:rx:default-command 1500000 250000 1000001 2000 0
r:tm:default-command 1250000000 2500000000" "regex and time values, to the ns"

# ---- a benchmark's own gauge, on a command VM without one (the experiment's iterations count it) ----
cat > bg.yaml <<'Y'
iterations: 2
vms:
  sh: {plugin: command, path: /bin/sh}
benchmarks:
  own: {args: [-c, "echo 'took 7 ms'; echo 'took 8 ms'"], gauge: {regex: "took ([0-9]+) ms", unit: ms}}
  whole: {args: [-c, "echo 'took 9 ms'"]}
Y
"$KILN" run -q bg.yaml || fail "a benchmark's gauge: $(sqlite3 bg.kiln.db 'SELECT error FROM pexecs')"
assert_eq "$(sqlite3 bg.kiln.db "SELECT k.bench || ' ' || p.n_iter FROM pexecs p JOIN keys k ON k.id=p.key_id ORDER BY k.bench")" "own 2
whole 1" "the gauge is the benchmark's alone"
assert_eq "$(walls_ns bg.kiln.db | grep '^own')" "own:sh:default-command 7000000 8000000" "a benchmark's gauge's values"
assert_contains "$(sqlite3 bg.kiln.db "SELECT description FROM programs")" "gauge	format=regex from=stdout max_iterations=100000 unit=ms regex=took (\[0-9\]+) ms"

# ---- failure modes: no iterations, a malformed number, another count, over the bound ----
cat > bad.py <<'P'
import sys
m = sys.argv[1]
if m == "none":
    print("no measurements here\nBounce: took a while")
elif m == "malformed":
    print("Bounce: iterations=1 runtime: 12us\nBounce: iterations=1 runtime: 1.2.3us")
elif m == "short":
    print("Bounce: iterations=1 runtime: 12us")
elif m == "million":
    sys.stdout.write("Bounce: iterations=1 runtime: 12us\n" * 1000000)
elif m == "longline":
    sys.stdout.write("x" * (10 * 1024 * 1024) + "\nBounce: iterations=1 runtime: 12us\n")
elif m == "escapes":
    print("Bounce: iterations=1 runtime: \x1b]0;owned\x07\x1b[31m12\x1b[0mus")
elif m == "overflow":
    print("Bounce: iterations=1 runtime: 99999999999999999999us")
P
cat > bad.yaml <<Y
vms:
  b: {plugin: command, path: python3, args: [$T/bad.py, "{param}"], iterations: 2, gauge: rebench}
  m: {plugin: command, path: python3, args: [$T/bad.py, "{param}"], gauge: {format: rebench, max_iterations: 1000}}
benchmarks: {x: {param: [none, malformed, short, million, longline, escapes, overflow]}}
skip: ["x[million]:b:*", "x[none]:m:*", "x[malformed]:m:*", "x[short]:m:*", "x[longline]:m:*", "x[escapes]:m:*", "x[overflow]:m:*"]
Y
out=$("$KILN" run bad.yaml 2>&1); assert_eq $? 1 "bad output fails its pexecs"
st() { sqlite3 bad.kiln.db "SELECT p.status || ' ' || p.n_iter || ': ' || p.error FROM pexecs p JOIN keys k ON k.id=p.key_id WHERE k.bench='x[$1]' AND k.vm='$2'"; }
assert_eq "$(st none b)" "failed 0: gauge rebench: stdout (2 lines): no iterations in the output"
# a line ReBench's expressions do not match is skipped, as ReBench skips it; the count then fails
assert_eq "$(st malformed b)" "failed 1: gauge rebench: stdout (2 lines): 1 iterations where 2 were asked for (iterations)"
assert_eq "$(st short b)" "failed 1: gauge rebench: stdout (1 line): 1 iterations where 2 were asked for (iterations)"
assert_contains "$(st million m)" "failed 1000: killed by signal 9 (Killed); gauge rebench: stdout line 1001: more iterations than the 1000 allowed (gauge.max_iterations)"
assert_contains "$(st longline b)" "failed 0: killed by signal 9 (Killed); gauge rebench: stdout line 1: a line longer than 1048576 bytes"
assert_contains "$(st overflow b)" "'99999999999999999999' is not a number of nanoseconds kiln can store"
# escape sequences reach neither the terminal nor the stored reason raw
assert_eq "$(st escapes b)" "failed 0: gauge rebench: stdout (1 line): no iterations in the output"
sqlite3 bad.kiln.db "SELECT error FROM pexecs" | grep -q "$(printf '\033')" && fail "a raw ESC in a stored error"
grep -q "$(printf '\033')" <<<"$out" && fail "a raw ESC on kiln's stderr"
# the gauge read everything, not the stored (truncated) copy: the long line's 10 MiB are not kept
[ "$(sqlite3 bad.kiln.db "SELECT MAX(LENGTH(stdout)) FROM pexecs")" -lt 200000 ] || fail "stdout kept whole"

# ---- config errors: exit 3 at FILE:LINE:COL and the field ----
cfg() { printf 'vms:\n  x: {plugin: command, path: /bin/true, gauge: %s}\nbenchmarks: {b: 0}\n' "$1" > e.yaml; }
cfg nosuch
config_refused e.yaml "e.yaml:2:48: vms.x.gauge: unknown gauge 'nosuch' (known: rebench, jmh, time, regex, multivariate, plain_seconds, savina, validation)"
cfg '{regex: "took ([0-9]+", unit: ms}'
config_refused e.yaml "e.yaml:2:57: vms.x.gauge.regex: not a POSIX extended regex: "
cfg '{regex: "took [0-9]+ ms", unit: ms}'
config_refused e.yaml "e.yaml:2:57: vms.x.gauge.regex: needs a capture group, (...), around the number"
cfg '{regex: "took ([0-9]+)", unit: fortnights}'
config_refused e.yaml "vms.x.gauge.unit: expected s, ms, us or ns, found 'fortnights'"
cfg '{regex: "took ([0-9]+)"}'
config_refused e.yaml "e.yaml:2:41: vms.x.gauge: a regex gauge needs both regex"
cfg '{format: jmh, unit: ms}'
config_refused e.yaml "vms.x.gauge: regex and unit are for format regex"
cfg '{format: rebench, from: stdin}'
config_refused e.yaml "vms.x.gauge.from: expected stdout or stderr, found 'stdin'"
printf 'vms:\n  p: {plugin: python, gauge: rebench}\nbenchmarks: {b: 0}\n' > e.yaml
config_refused e.yaml "e.yaml:2:23: vms.p.gauge: the python plugin's runner speaks kiln's protocol; gauge reads a program's own output, with plugin: command"
printf 'vms: {p: {plugin: python}, sh: {plugin: command, path: /bin/sh}}\nbenchmarks:\n  own: {gauge: rebench}\n' > e.yaml
config_refused e.yaml "e.yaml:3:9: benchmarks.own.gauge: VM 'p' runs it with the python plugin, whose runner speaks kiln's protocol"
# without a gauge, a command VM still runs one iteration per process
printf 'vms:\n  x: {plugin: command, path: /bin/true, iterations: 3}\nbenchmarks: {b: 0}\n' > e.yaml
config_refused e.yaml "vms.x.iterations: the command plugin runs one iteration per process"
echo "ok"
