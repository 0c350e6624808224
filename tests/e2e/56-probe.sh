# Issue 12 item 4: what can be checked is checked before the first pexec
# (issue 28: the key is then skipped, its pexecs pending, kiln exits 1).
# A Python or Lua benchmark without checksum() (or run_iter()) is refused by
# the runner's probe (KILN_PROBE=1, one short start per key, not stored as a
# measurement) before any pexec runs; and the VM's version is probed with
# the runner's own environment and PATH, not kiln's: PYENV_VERSION=3.12.1
# in kiln's environment does not make the audit say 3.12.1 when the
# benchmark runs 3.11 (a pyenv-like shim that picks by PYENV_VERSION).
source "$KILN_ROOT/tests/lib.sh"
command -v python3 >/dev/null || skip "python3 is not installed"
cd "$T"
mkdir -p benchmarks/b/python benchmarks/b/lua shims
printf 'def run_iter(n):\n    return n\n' > benchmarks/b/python/bench.py
cat > py.yaml <<Y
pexecs: 3
iterations: 1000
benchmarks_dir: $T/benchmarks
vms: {py: {plugin: python}}
benchmarks: {b: 10}
Y
out=$("$KILN" run py.yaml 2>&1); rc=$?
assert_eq $rc 1 "a benchmark without checksum(): its key skipped"
assert_contains "$out" "b:py:default-python: the runner's probe before the first pexec failed (exit status 1)"
assert_contains "$out" "bench.py defines no checksum()"
assert_eq "$(sqlite3 py.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status='pending'")" 3 "no pexec ran"
assert_eq "$(sqlite3 py.kiln.db "SELECT COUNT(*) FROM iterations")" 0 "nothing stored as a measurement"
printf 'def checksum():\n    return 1\n' >> benchmarks/b/python/bench.py
"$KILN" run -q py.yaml || fail "with checksum()"
assert_eq "$(sqlite3 py.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status='ok'")" 3 "then it runs"
assert_contains "$(sqlite3 py.kiln.db "SELECT description FROM programs")" "probe.version	3."
if command -v lua5.4 >/dev/null && [ -e "$KILN_ROOT/plugins/lua/kilnclock.so" ]; then
	printf 'return { run_iter = function(n) return n end }\n' > benchmarks/b/lua/bench.lua
	cat > lua.yaml <<Y
pexecs: 2
iterations: 1000
benchmarks_dir: $T/benchmarks
vms: {l: {plugin: lua}}
benchmarks: {b: 10}
Y
	out=$("$KILN" run lua.yaml 2>&1); assert_eq $? 1 "a Lua benchmark without checksum(): its key skipped"
	assert_contains "$out" "bench.lua defines no checksum()"
	assert_eq "$(sqlite3 lua.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status='pending'")" 2 "no Lua pexec ran"
fi

# the audit names the interpreter the benchmark runs
cat > shims/python <<'S'
#!/bin/sh
if [ "${PYENV_VERSION:-}" = 3.12.1 ] && [ "${1:-}" = --version ]; then echo "Python 3.12.1"; exit 0; fi
exec python3 "$@"
S
chmod +x shims/python
cat > pyenv.yaml <<Y
pexecs: 1
iterations: 2
benchmarks_dir: $T/benchmarks
vms: {py: {plugin: python, path: python}}
benchmarks: {b: 10}
Y
PYENV_VERSION=3.12.1 PATH="$T/shims:$PATH" "$KILN" run -q pyenv.yaml || fail "pyenv run"
real=$(python3 --version)
"$KILN" audit --json pyenv.kiln.db > a.json || fail "audit"
python3 - a.json "$real" <<'P' || fail "the audit's VM version: $(cat a.json | head -c 2000)"
import json, sys
a = json.load(open(sys.argv[1]))
for when in ("start", "end"):
    vm = a[when]["vms"][0]
    assert vm["version"] == sys.argv[2], (when, vm["version"])
    assert vm["script"] is True, vm
P
desc=$(sqlite3 pyenv.kiln.db "SELECT description FROM programs")
assert_contains "$desc" "probe.version	${real#Python }"
assert_contains "$desc" "vm.version	$real"
echo ok
