# kiln compare says how contended the CPUs were while it ran (the kernel's
# CPU pressure, /proc/pressure/cpu), in text, Markdown and JSON, and warns
# that a duet's two sides did not have their CPUs to themselves when some
# task waited for a CPU over 20% of the session (bench/live.sh E: under a
# neighbour taking a CPU, duet's interval was 3x wider than rounds').  The
# readings come from fake pressure files (KILN_SYSROOT: none, one whose
# total does not move, a hostile one) and from this machine loaded by the
# test's own busy loops.
source "$KILN_ROOT/tests/lib.sh"
cd "$T"
synthvm_builds 1.00 1.05
mkdir -p benchmarks/warm/synth
cat >c.yaml <<'Y'
name: synth
pexecs: 4
iterations: 30
vms:
  vm:
    plugin: external
    path: ./vm-1.00
    runner: ["{vm_path}", "{iterations}", "{param}"]
    language: synth
benchmarks:
  warm: "1000:5:0.02"
Y
field() { python3 -c "import json,sys; d=json.load(open('$1')); print(d['$2'])"; }
cmp_json() { # OUT [options]: kiln compare in rounds, JSON into OUT
	local out=$1
	shift
	rm -f r.kiln.db*
	"$KILN" compare c.yaml --vm a=./vm-1.00 --vm b=./vm-1.05 -o r.kiln.db -q --json "$@" >"$out" || fail "compare $*"
}

# ---- a kernel without PSI: unknown, said so ----
mkdir -p nopsi
KILN_SYSROOT=$T/nopsi cmp_json none.json
assert_eq "$(field none.json cpu_pressure)" None "no PSI: null"
assert_eq "$(field none.json cpu_contended)" False "no PSI: not contended"
rm -f r.kiln.db*
out=$(KILN_SYSROOT=$T/nopsi "$KILN" compare c.yaml --vm a=./vm-1.00 --vm b=./vm-1.05 -o r.kiln.db -q) || fail "text"
assert_contains "$out" "^CPU pressure: unknown (the kernel has no /proc/pressure/cpu)$"

# ---- a total that does not move: 0% ----
mkdir -p still/proc/pressure
printf 'some avg10=0.00 avg60=0.00 avg300=0.00 total=123456\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n' \
	>still/proc/pressure/cpu
KILN_SYSROOT=$T/still cmp_json still.json
assert_eq "$(field still.json cpu_pressure)" 0.0 "a still total: 0"

# ---- hostile: garbage, a negative total, a total past 2^64: unknown, never a number made up ----
mkdir -p bad/proc/pressure
for junk in 'some avg10=1 total=-5' 'some total=99999999999999999999999' 'full total=5' "$(head -c 300 /dev/urandom | tr -d '\0')"; do
	printf '%s\n' "$junk" >bad/proc/pressure/cpu
	KILN_SYSROOT=$T/bad cmp_json bad.json
	assert_eq "$(field bad.json cpu_pressure)" None "hostile pressure file: $junk"
done

# ---- kiln bench says it too (the same reading, from where its runs begin) ----
out=$(KILN_SYSROOT=$T/still "$KILN" bench -r 3 -o b.kiln.db 'sleep 0.01' 'sleep 0.012') || fail "bench: $out"
assert_contains "$out" "^CPU pressure: some task waited for a CPU 0.0% of the session$"
out=$(KILN_SYSROOT=$T/nopsi "$KILN" bench -r 3 -o b.kiln.db 'sleep 0.01') || fail "bench: $out"
assert_contains "$out" "^CPU pressure: unknown (the kernel has no /proc/pressure/cpu)$"
printf 'some total=-5\n' >bad/proc/pressure/cpu
out=$(KILN_SYSROOT=$T/bad "$KILN" bench -r 3 -o b.kiln.db 'sleep 0.01') || fail "bench: $out"
assert_contains "$out" "^CPU pressure: unknown"
[ "${PRESSURE_FAKE_ONLY:-}" ] && exit 0

# ---- the real kernel, loaded by three busy loops on this machine: a duet is warned ----
[ -r /proc/pressure/cpu ] || skip "this kernel has no /proc/pressure/cpu (the fake ones above passed)"
[ "$(nproc)" -ge 2 ] || skip "a duet needs two CPUs (the fake pressure files above passed)"
pids=()
for i in 1 2 3; do
	timeout 60 sh -c 'while :; do :; done' &
	pids+=($!)
done
trap 'kill "${pids[@]}" 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
rm -f d.kiln.db*
"$KILN" compare c.yaml --vm a=./vm-1.00 --vm b=./vm-1.05 --duet --rounds 6 -o d.kiln.db -q --json >busy.json ||
	fail "busy duet"
python3 - busy.json <<'P' || fail "busy duet: $(grep cpu_ busy.json)"
import json, sys
d = json.load(open(sys.argv[1]))
assert d['cpu_pressure'] > 0.2 and d['cpu_contended'] is True, d
P
rm -f d.kiln.db*
out=$("$KILN" compare c.yaml --vm a=./vm-1.00 --vm b=./vm-1.05 --duet --rounds 6 -o d.kiln.db -q --format markdown) ||
	fail "busy duet, Markdown"
assert_contains "$out" "^CPU pressure: some task waited for a CPU [0-9.]*% of the session$"
assert_contains "$out" "^Warning: the CPUs were contended (over 20%): a duet's two sides"
# in rounds the same load is said, not warned of: rounds need no two free CPUs
cmp_json rbusy.json
python3 - rbusy.json <<'P' || fail "busy rounds: $(grep cpu_ rbusy.json)"
import json, sys
d = json.load(open(sys.argv[1]))
assert d['cpu_pressure'] > 0.05 and d['cpu_contended'] is False, d
P
# kiln bench --duet: warned in its summary; with --json (hyperfine's format on stdout) on stderr
out=$("$KILN" bench --duet -r 6 -o b.kiln.db 'sleep 0.01' 'sleep 0.012') || fail "bench --duet: $out"
assert_contains "$out" "^Warning: the CPUs were contended (over 20%): a duet's two sides"
err=$("$KILN" bench --duet -r 6 -o b.kiln.db --json 'sleep 0.01' 'sleep 0.012' 2>&1 >/dev/null) || fail "bench --duet --json"
assert_contains "$err" "the CPUs were contended"
out=$("$KILN" bench -r 6 -o b.kiln.db 'sleep 0.01' 'sleep 0.012') || fail "bench in rounds: $out"
assert_contains "$out" "^CPU pressure: some task waited"
! grep -q "Warning: the CPUs were contended" <<<"$out" || fail "rounds warned of a duet's contention: $out"
kill "${pids[@]}" 2>/dev/null
exit 0
