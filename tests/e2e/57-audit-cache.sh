# Issue 17 item 2: what the audit learns from a VM binary (its package, its
# libraries, its --version) and from the machine (systemd-detect-virt) is
# cached in kiln's state folder, keyed by the binary's identity: a second
# run on an unchanged machine starts none of those programs, and its audit
# is as complete as the first's; a changed binary is probed again.  The VM
# is a copy of a static binary (ldconfig), so that nothing else the test
# machine does (a library's inode touched by another job) invalidates it.
source "$KILN_ROOT/tests/lib.sh"
command -v strace >/dev/null || skip "strace is not installed (scripts/deps.sh --test)"
ldc=$(command -v ldconfig || echo /sbin/ldconfig)
[ -x "$ldc" ] || skip "no ldconfig"
cd "$T"
export KILN_STATE_DIR="$T/state"
mkdir bin
cp "$ldc" bin/vm
cat > c.yaml <<Y
pexecs: 1
vms: {v: {plugin: command, path: $T/bin/vm, args: [-p]}}
benchmarks: {noop: 0}
Y
run() { # run N: a fresh results file, the programs kiln started in execs.N
	rm -f c.kiln.db*
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -qq -e trace=execve -o trace.$1 "$KILN" run -q c.yaml || fail "run $1"
	grep -o 'execve("[^"]*", \[[^]]*' trace.$1 | sed 's/^execve(//' > execs.$1
	"$KILN" audit --json c.kiln.db > audit.$1 || fail "audit $1"
}
probes() { grep -c -e dpkg-query -e '/ldd"' -e 'vm", \["[^"]*", "--version"' -e systemd-detect-virt execs.$1; }
run 1
grep -q 'vm", \["[^"]*", "--version"' execs.1 || fail "the first run did not ask the VM its version: $(cat execs.1)"
run 2
assert_eq "$(probes 2)" 0 "programs the second run started to learn what it knew: $(cat execs.2)"
[ "$(stat -c %a state/cache)" = 700 ] || fail "the cache folder is not kiln's alone: $(stat -c %a state/cache)"
python3 - audit.1 audit.2 <<'P' || fail "the cached audit differs"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
for when in ("start", "end"):
    x, y = a[when], b[when]
    assert set(x) == set(y), (when, set(x) ^ set(y))
    vx, vy = x["vms"][0], y["vms"][0]
    assert vx["cached"] is (when == "end") and vy["cached"] is True, (when, vx["cached"], vy["cached"])
    for k in ("version", "version_status", "sha256", "real", "libs", "package", "probed_as"):
        assert vx.get(k) == vy.get(k), (when, k, vx.get(k), vy.get(k))
    assert "ldconfig" in vx["version"] and vx["version_status"] == 0, vx
    cx = {c["name"]: c["value"] for c in x["doctor"]}
    cy = {c["name"]: c["value"] for c in y["doctor"]}
    assert set(cx) == set(cy), set(cx) ^ set(cy)
    assert cx["virtualization"] == cy["virtualization"], (cx["virtualization"], cy["virtualization"])
P
# the binary changes: it is asked again, and the audit says what it is now
printf '\0' >> bin/vm
run 3
grep -q 'vm", \["[^"]*", "--version"' execs.3 || fail "a changed VM was not probed again: $(cat execs.3)"
python3 - audit.2 audit.3 <<'P' || fail "the audit after the change"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
assert a["start"]["vms"][0]["sha256"] != b["start"]["vms"][0]["sha256"]
assert b["start"]["vms"][0]["cached"] is False
P
echo ok
