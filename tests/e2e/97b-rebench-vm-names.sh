# Two ReBench executors whose names kiln's VM names make one (a ':' becomes
# '_', an executor of several suites is EXECUTOR.SUITE) are refused with the
# executor's line: kiln convert wrote the VM twice (a duplicate YAML key,
# exit 0), and kiln run refused it at a line of the converted text.
source "$KILN_ROOT/tests/lib.sh"
cd "$T"
cat > rebench.conf <<'Y'
benchmark_suites:
  s:
    gauge_adapter: Time
    command: "%(benchmark)s"
    benchmarks: [x]
  t:
    gauge_adapter: Time
    command: "%(benchmark)s"
    benchmarks: [y]
executors:
  "a:b": {executable: /bin/true}
  "a_b": {executable: /bin/echo}
experiments:
  e:
    suites: [s]
    executions: ["a:b", "a_b"]
Y
out=$("$KILN" convert rebench.conf 2>&1); rc=$?
assert_eq "$rc" 3 "convert: $out"
assert_contains "$out" "rebench.conf:12: executors: a_b (suite s) and a:b (suite s) are both kiln's VM 'a_b'"
out=$("$KILN" run --dry-run rebench.conf 2>&1); rc=$?
assert_eq "$rc" 3 "run: $out"
assert_contains "$out" "rebench.conf:12: executors:"
# an executor of two suites (e.s, e.t) and an executor named e.s
cat > r2.conf <<'Y'
benchmark_suites:
  s: {gauge_adapter: Time, command: "%(benchmark)s", benchmarks: [x]}
  t: {gauge_adapter: Time, command: "%(benchmark)s", benchmarks: [y]}
executors:
  e: {executable: /bin/true}
  e.s: {executable: /bin/echo}
experiments:
  x:
    executions: [{e: {suites: [s, t]}}, {e.s: {suites: [s]}}]
Y
out=$("$KILN" convert r2.conf 2>&1); rc=$?
assert_eq "$rc" 3 "convert r2: $out"
assert_contains "$out" "are both kiln's VM 'e.s'"
# distinct names still convert
sed -i 's/"a_b"/"c"/g' rebench.conf
"$KILN" convert rebench.conf >/dev/null 2>&1 || fail "distinct executors refused"
echo ok
