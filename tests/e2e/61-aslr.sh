#!/bin/bash
# 61-aslr.sh - platform.aslr through `kiln run`, verified from inside the
# child: an external runner (python3) reads its own /proc/self/personality
# and writes, as generic per-pexec records, the personality, where its stack
# was mapped and where an anonymous mmap landed.  With `aslr: off` the
# personality has ADDR_NO_RANDOMIZE and both addresses are the same in every
# pexec; with `aslr: on` the flag is clear and the addresses differ (when
# the kernel randomizes at all: randomize_va_space > 0).  kiln's own
# read-back of the child's personality is stored per pexec too.
source "$KILN_ROOT/tests/lib.sh"
PY=$(command -v /usr/bin/python3 || command -v python3) || skip "python3 is not installed"
cd "$T"
cat > probe.py <<'PY'
import ctypes, json, mmap, os
pers = int(open("/proc/self/personality").read(), 16)
stack = next(int(l.split("-")[0], 16) for l in open("/proc/self/maps") if l.rstrip().endswith("[stack]"))
m = mmap.mmap(-1, 1 << 16)
anon = ctypes.addressof(ctypes.c_char.from_buffer(m))
with open(os.path.join(os.environ["KILN_INSTR_DIR"], "probe.kiln.jsonl"), "w") as f:
    for name, v in (("personality", pers), ("stack_addr", stack), ("mmap_addr", anon)):
        f.write(json.dumps({"name": name, "value": v, "unit": "addr"}) + "\n")
out = os.fdopen(int(os.environ["KILN_RESULT_FD"]), "w")
out.write('{"kiln":1,"clock":"monotonic","counters":[]}\n{"i":0,"wall_ns":1000}\n{"done":true}\n')
PY
mk() {
	cat > "$1.yaml" <<Y
pexecs: 4
iterations: 1
vms:
  probe: {plugin: external, runner: ["$PY", "$T/probe.py"]}
benchmarks: {addr: 0}
platform: {aslr: $1}
Y
	"$KILN" run -q "$1.yaml" || fail "kiln run with aslr: $1"
	assert_eq "$(sql "$1.kiln.db" "SELECT COUNT(*) FROM pexecs WHERE status='ok'")" 4 "pexecs ok with aslr: $1"
}
scal() { sql "$1.kiln.db" "SELECT COUNT(DISTINCT value) FROM scalars WHERE name='$2'"; }
NORAND=262144 # ADDR_NO_RANDOMIZE 0x0040000

mk off
assert_eq "$(scal off stack_addr)" 1 "one stack address across 4 pexecs with aslr off"
assert_eq "$(scal off mmap_addr)" 1 "one mmap address across 4 pexecs with aslr off"
assert_eq "$(sql off.kiln.db "SELECT COUNT(*) FROM scalars WHERE name='personality' AND (CAST(value AS INTEGER) & $NORAND) != 0")" 4 \
	"the child sees ADDR_NO_RANDOMIZE in its own personality"
# kiln read the personality back itself (exec.c) and stored it per pexec
assert_eq "$(sql off.kiln.db "SELECT COUNT(*) FROM pexecs WHERE (personality & $NORAND) != 0")" 4 "kiln's read-back"

# aslr: system (the default) under `setarch -R`: the children inherit kiln's
# fixed address space, and kiln records what they had, not "unknown"
if command -v setarch >/dev/null; then
	sed 's/aslr: off/aslr: system/' off.yaml > system.yaml
	setarch "$(uname -m)" -R "$KILN" run -q system.yaml || fail "kiln run under setarch -R"
	assert_eq "$(sql system.kiln.db "SELECT COUNT(*) FROM pexecs WHERE personality >= 0 AND (personality & $NORAND) != 0")" 4 \
		"the inherited personality recorded under aslr: system"
	assert_contains "$("$KILN" audit system.kiln.db)" "4 fixed (ADDR_NO_RANDOMIZE), 0 randomized, 0 unknown" "kiln audit"
fi

if [ "$(cat /proc/sys/kernel/randomize_va_space)" = 0 ]; then
	skip "randomize_va_space is 0: addresses cannot differ with aslr: on (aslr: off checked)"
fi
mk on
assert_eq "$(sql on.kiln.db "SELECT COUNT(*) FROM scalars WHERE name='personality' AND (CAST(value AS INTEGER) & $NORAND) = 0")" 4 \
	"ADDR_NO_RANDOMIZE clear with aslr: on"
assert_eq "$(sql on.kiln.db "SELECT COUNT(*) FROM pexecs WHERE (personality & $NORAND) = 0")" 4 "kiln's read-back, aslr on"
# 4 random stack placements (about 30 bits of entropy) all equal would be a broken policy
[ "$(scal on stack_addr)" -ge 3 ] || fail "stack addresses with aslr on: $(sql on.kiln.db "SELECT value FROM scalars WHERE name='stack_addr'")"
[ "$(scal on mmap_addr)" -ge 3 ] || fail "mmap addresses with aslr on: $(sql on.kiln.db "SELECT value FROM scalars WHERE name='mmap_addr'")"
exit 0
