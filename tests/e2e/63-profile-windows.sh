#!/bin/bash
# 63-profile-windows.sh - kiln profile places samples by the runner's own
# iteration windows, right under contention (issue 12, item 5).  The runner
# (tests/helpers/winrunner) knows its true windows: iteration i spins in
# spin_even() or spin_odd() by its parity, between two CLOCK_MONOTONIC_RAW
# reads, and writes them (and CLOCK_MONOTONIC reads beside them) to a truth
# file.  kiln reads the result stream on CPU 0 beside three busy loops while
# the runner and perf have CPU 1, so kiln reads each line late.  With the
# windows in the stream (protocol v1, start_ns/end_ns), every window kiln
# reports lies inside the truth's CLOCK_MONOTONIC bracket with the runner's
# wall time, and no spin sample falls in an iteration of the other parity.
# The same runner without windows (an old runner) is profiled too: kiln says
# it placed iterations by arrival, and how many samples that misplaced is
# printed (the figure the old method gave).
source "$KILN_ROOT/tests/lib.sh"
command -v perf >/dev/null || skip "perf is not installed"
command -v jq >/dev/null || skip "jq is not installed"
command -v taskset >/dev/null || skip "taskset is not installed"
[ "$(nproc)" -ge 2 ] || skip "needs two CPUs"
perf record -q -e cpu-clock -o "$T/probe.data" true >/dev/null 2>&1 || skip "perf record cannot sample here"
WR=$KILN_ROOT/${O:-build}/tests/helpers/winrunner
[ -x "$WR" ] || fail "no $WR (make first)"
make_suite
cd "$T"
N=30 SPIN=12000000
cat > w.yaml <<Y
pexecs: 1
iterations: $N
platform: {pin_cpus: ["1"]}
vms:
  win: {plugin: external, runner: [$WR, "{iterations}", "$SPIN", "$T/truth-win.txt", windows], language: c, entry: bench.c}
  old: {plugin: external, runner: [$WR, "{iterations}", "$SPIN", "$T/truth-old.txt", nowindows], language: c, entry: bench.c}
benchmarks: {spin: 0}
Y
hogs=()
cleanup() { for h in "${hogs[@]}"; do kill "$h" 2>/dev/null; done; wait 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$T"; }
trap cleanup EXIT
for k in 1 2 3; do taskset -c 0 sh -c 'while :; do :; done' & hogs+=($!); done

for vm in win old; do
	taskset -c 0 "$KILN" profile w.yaml --key spin:$vm -o prof-$vm --json >$vm.json 2>$vm.err ||
		fail "kiln profile $vm: $(cat $vm.err)"
done
assert_eq "$(jq -r '.pexecs[0].windows' win.json)" runner "windows from the runner"
assert_eq "$(jq -r '.pexecs[0].windows' old.json)" arrival "an old runner: windows from arrival"

# measure: each spin sample's iteration by kiln's windows against its parity
python3 - <<'PY' || fail "samples or windows misplaced (above)"
import bisect, json
def measure(vm):
    rep = json.load(open(vm + ".json"))
    its = rep["pexecs"][0]["iterations"]
    starts = [it["start_ns"] for it in its]
    truth = [list(map(int, l.split())) for l in open("truth-%s.txt" % vm)]
    spin = wrong = outside = 0
    for line in open("prof-%s/perf-script-leaf.txt" % vm):
        w = line.split()
        sym = [x for x in w if x in ("spin_even", "spin_odd")]
        if not sym:
            continue
        t = next(x for x in w if x.endswith(":") and "." in x)
        s, f = t[:-1].split(".")
        t = int(s) * 10**9 + int(f.ljust(9, "0"))
        spin += 1
        k = bisect.bisect_right(starts, t) - 1
        if k < 0 or t > its[k]["end_ns"]:
            outside += 1
        elif (k % 2 == 1) != (sym[0] == "spin_odd"):
            wrong += 1
    # kiln's window against the truth: inside the CLOCK_MONOTONIC bracket read around the raw reads
    late = max(its[i]["end_ns"] - truth[i][4] for i in range(len(its)))
    early = max(truth[i][3] - its[i]["start_ns"] for i in range(len(its)))
    wall_err = max(abs((its[i]["end_ns"] - its[i]["start_ns"]) - (truth[i][2] - truth[i][1])) for i in range(len(its)))
    print("%s: %d spin samples, %d in an iteration of the other parity (%.2f%%), %d outside every window; "
          "windows end up to %.1f us after the truth, start up to %.1f us before it, length off by up to %.1f us"
          % (vm, spin, wrong, 100.0 * wrong / max(spin, 1), outside, late / 1e3, early / 1e3, wall_err / 1e3))
    return spin, wrong, late, early, wall_err
spin, wrong, late, early, wall_err = measure("win")
measure("old")
ok = spin > 200 and wrong <= 1 and late <= 20000 and early <= 20000 and wall_err <= 20000
raise SystemExit(0 if ok else 1)
PY
exit 0
