#!/bin/bash
# 68-profile-jruby.sh - `kiln profile` on the bundled nbody under JRuby with
# real perf: the plugin hands the JVM the java plugin's perf-map switches
# through JRuby's -J, so the perf map kept beside the profile names the JVM
# methods JRuby compiled Ruby code into, and kiln's top symbols hold one of
# them as JIT'd code (RUBY$... of bench.rb), named as perf report names it.
source "$KILN_ROOT/tests/lib.sh"
command -v jruby >/dev/null || skip "jruby is not installed"
command -v perf >/dev/null || skip "perf is not installed"
command -v jq >/dev/null || skip "jq is not installed"
perf record -q -e cpu-clock -o "$T/probe.data" true >/dev/null 2>&1 || skip "perf record cannot sample here"
cd "$T"
cat > p.yaml <<Y
pexecs: 1
iterations: 4
benchmarks_dir: $KILN_ROOT/benchmarks
vms:
  jr: {plugin: jruby}
benchmarks:
  nbody: 5000
Y
"$KILN" profile p.yaml -F 499 --top 1000 --key nbody:jr -o prof --json >prof.json 2>prof.err || fail "kiln profile: $(cat prof.err)"
j() { jq -r "$1" prof.json; }
assert_eq "$(j '.iterations | length')" 4 "iterations"
assert_eq "$(j '[.iterations[].samples] | add')" "$(j .in_iterations)" "per-iteration samples add up"
pid=$(j .pid)
trap 'rm -f "/tmp/perf-$pid.map"; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
[ -s "prof/jit/perf-$pid.map" ] || fail "no perf map kept for pid $pid: $(ls prof prof/jit)"
grep -q 'RUBY\$method\$advance' "prof/jit/perf-$pid.map" || fail "the perf map names no compiled Ruby method advance"
# the hottest JIT'd code may be JRuby's own Java (call sites) in so short a
# run; compiled Ruby code of nbody must be among the top symbols, as JIT'd
# code (among all symbols: on a loaded machine C2 compiles late and the top 20
# hold its own phases), and perf report must name it the same
[ "$(j .hottest_jit.samples)" -gt 0 ] || fail "no JIT'd code in the profile"
sym=$(j '[.top[] | select(.category == "jit" and (.symbol | contains("nbody.ruby.bench.RUBY$")))][0].symbol // empty')
[ -n "$sym" ] || fail "no compiled Ruby code of nbody among the top symbols: $(j '[.top[] | .symbol[0:90]]')"
perf report -i prof/perf.data --stdio --no-children --sort sym -g none 2>/dev/null | grep -qF "$sym" ||
	fail "perf report does not name $sym"
[ "$(j .categories.compiler)" -gt 0 ] || fail "no samples in HotSpot's compilers: $(j -c .categories)"
echo "ok jruby: $sym"
