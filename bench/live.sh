#!/bin/bash
# live.sh - kiln's verdicts on this machine, live, with known truth (issue
# 25): comparisons of programs whose true ratio is known (bench/live/:
# spin.c, a whole process; vm.c, an in-process VM whose iterations
# busy-wait; each built twice or more with its speed factor built in, as a
# VM team's two builds), while a noisy neighbour this script starts
# (bench/live/noise.c: bursts of CPU and memory work, about half a CPU,
# ended by its own alarm) loads the machine:
#   A  kiln compare, rounds, known direction (B 15% slower or faster, drawn),
#      half in-process (vm.c), half whole process (spin.c), runs that vary
#      by 10%: wrong-direction significant verdicts (target <= 1/440)
#   B  kiln compare, rounds, A/A (two builds of one program), the same
#      halves: false alarms (<= 1%)
#   C  kiln bench, rounds, known direction (15%), whole processes
#   D  kiln diff of two kiln bench sessions of one program, A/A (<= 1%, or
#      kiln says it cannot tell)
#   E  --duet against rounds at the same wall time (--time), on a whole
#      process of fixed CPU work (work.c; LIVE_E=spin: spin.c's drawn wall
#      time, varying by 1%, the E of 2026-12-04), so that the machine is what varies:
#      ratio-CI width (target: duet >= 2x narrower), A/A false alarms of
#      duet (<= 1%), detection of a true 2% difference by each
#   F  kiln compare --time 10m on a 2% difference in runs that vary by 10%,
#      a whole process of 50 ms and an in-process VM (100 ms pexecs)
#      (target: told, and the smallest change it could show <= 2%)
#   G  kiln compare's warm-up verdicts (time to steady, warmup cost, class),
#      in-process, runs that vary by 10%, 20 rounds: A/A (two builds of one
#      program: any warm-up verdict is false, <= 1%) and a build whose
#      warm-up lasts twice as many iterations (told "longer": a rate)
# Rates come with exact binomial 95% intervals (bench/live/tally.py).  Run
# alone: bench/run.sh live, or bench/live.sh [--quick] (a tenth of the runs
# and one minute for F, for development).  Takes about 2 h in full (7087 s
# on 2026-12-03, loaded; F alone 20 minutes; G about 10).  LIVE_KEEP=DIR keeps the tables of every comparison;
# LIVE_ONLY=AD,E,F,G runs only those sections (D alone: LIVE_ONLY=D, its 2 N_DIFF
# sessions back to back); LIVE_NOISE=0 starts no neighbour; LIVE_NOISE=shared
# starts one on every CPU, bursting at the same moments, a quarter of each
# CPU (half a CPU in all, as the default's): interference that hits both
# sides of a duet at once, as a co-tenant's or the host's does (E's third
# condition).
set -u
cd "$(dirname "$0")/.."
O=${O:-build}
K=${KILN_BENCH_KILN:-$PWD/$O/kiln}
SCALE=full
[ "${1:-}" = --quick ] || [ -n "${LIVE_QUICK:-}" ] && SCALE=quick
if [ $SCALE = full ]; then
	N_DIR=400 N_AA=200 N_BENCH=200 N_DIFF=200 N_DUET=200 N_DUET2=100 DUET_T=4s TEN=10m N_WARM=200 N_WARM2=100
else
	N_DIR=40 N_AA=20 N_BENCH=20 N_DIFF=20 N_DUET=20 N_DUET2=10 DUET_T=4s TEN=1m N_WARM=20 N_WARM2=10
fi
[ -x "$K" ] || { echo "live: $K is not built"; exit 1; }
T=$(mktemp -d /tmp/kiln-bench-live.XXXXXX)
noise_pid=
trap '[ -n "$noise_pid" ] && kill "$noise_pid" 2>/dev/null; rm -rf "$T"' EXIT
export KILN_STATE_DIR="$T/state"
mkdir -p "$T/bin" "$T/benchmarks/b/live"

# ---- the programs, each build with its factor ----
for f in 1.00 1.00b 1.02 1.15; do
	cc -O2 -DFACTOR="${f%b}" -o "$T/bin/spin-$f" bench/live/spin.c -lm &&
		cc -O2 -DFACTOR="${f%b}" -o "$T/bin/vm-$f" bench/live/vm.c -lm &&
		cc -O2 -DFACTOR="${f%b}" -o "$T/bin/work-$f" bench/live/work.c || exit 1
done
cc -O2 -DWARMX=2 -o "$T/bin/vm-w2" bench/live/vm.c -lm || exit 1
cc -O2 -o "$T/bin/noise" bench/live/noise.c -lm || exit 1
# an in-process benchmark: PARAM is BASE_US:WARM:PEXEC_SIGMA:ITER_SIGMA (vm.c)
config() { # NAME PARAM ITERATIONS ROUNDS
	cat >"$T/$1.yaml" <<Y
name: live-$1
pexecs: $4
iterations: $3
benchmarks_dir: $T/benchmarks
vms:
  vm:
    plugin: external
    path: $T/bin/vm-1.00
    runner: ["{vm_path}", "{iterations}", "{param}"]
    language: live
benchmarks:
  b: "$2"
Y
}
config vary 500:3:0.1:0.03 40 20      # runs that vary by 10%, ~25 ms a pexec
config ten 2500:3:0.1:0.03 40 20      # runs that vary by 10%, ~100 ms a pexec (F)
# whole-process benchmarks: PROGRAM's build 1.00 run with ARGs (spin.c: US microseconds, runs that vary by SIGMA;
# work.c: UNITS of fixed CPU work)
whole_config() { # NAME PROGRAM ARG...
	local name=$1 prog=$2 args
	shift 2
	args=$(printf '"%s", ' "$@")
	cat >"$T/$name.yaml" <<Y
name: live-$name
pexecs: 20
vms:
  vm: {plugin: command, path: $T/bin/$prog-1.00}
benchmarks:
  b: {param: 0, args: [${args%, }]}
Y
}
whole_config spin spin 2000 0.1       # 2 ms, runs that vary by 10%
whole_config spinq spin 10000 0.01    # 10 ms, runs that vary by their own 1% draw (E before 2026-12-04 afternoon)
whole_config spinten spin 50000 0.1   # 50 ms, runs that vary by 10% (F)
whole_config workq work 3300          # ~10 ms of fixed CPU work, nothing drawn: only the machine varies a run (E)
# E's program: work.c (the default) or LIVE_E=spin, spin.c's drawn wall time
E_CFG=workq
[ "${LIVE_E:-work}" = spin ] && E_CFG=spinq
tally() { python3 bench/live/tally.py "$@"; }
# LIVE_ONLY=AD,E,F: only those sections (AD: A to D, which run interleaved; D: D alone); unset: all
only() { [ -z "${LIVE_ONLY:-}" ] || [[ ",$LIVE_ONLY," == *",$1,"* ]]; }

# one kiln compare: CONFIG A B TRUTH TABLE [options]; a line of TABLE (spin.yaml compares spin's builds, the others vm's)
compare() {
	local cfg=$1 a=$2 b=$3 truth=$4 table=$5 prog=vm
	shift 5
	[ "${cfg#spin}" != "$cfg" ] && prog=spin
	[ "${cfg#work}" != "$cfg" ] && prog=work
	rm -f "$T/c.kiln.db"*
	"$K" compare "$T/$cfg.yaml" --vm "a=$T/bin/$prog-$a" --vm "b=$T/bin/$prog-$b" -o "$T/c.kiln.db" -q --json "$@" \
		>"$T/c.json" 2>>"$T/errors"
	tally compare "$T/c.json" "$truth" >>"$T/$table.txt"
}
# a known direction, drawn: B 15% slower or 15% faster; in-process (vary) and whole-process (spin) in turn
direction() { # CONFIG
	if ((RANDOM % 2)); then compare "$1" 1.00 1.15 slower "dir-$1" --rounds 20
	else compare "$1" 1.15 1.00 faster "dir-$1" --rounds 20; fi
}
bench_dir() {
	local x="$T/bin/spin-1.00 2000 0.1" y="$T/bin/spin-1.15 2000 0.1"
	rm -f "$T/b.kiln.db"*
	if ((RANDOM % 2)); then "$K" bench -q -r 20 -o "$T/b.kiln.db" --style basic "$x" "$y" >"$T/b.txt" 2>>"$T/errors"
	else "$K" bench -q -r 20 -o "$T/b.kiln.db" --style basic "$y" "$x" >"$T/b.txt" 2>>"$T/errors"; fi
	tally bench "$T/b.txt" "$y" >>"$T/bench-dir.txt"
}
session() { # N: one kiln bench session of one program into s-N.kiln.db
	"$K" bench -r 20 -o "$T/s-$1.kiln.db" --style none "$T/bin/spin-1.00 2000 0.1" 2>>"$T/errors"
}
load() { cut -d' ' -f1-3 /proc/loadavg; }

echo "live: $SCALE scale; $(nproc) CPUs; load average at the start: $(load)"
# LIVE_NOISE=0: no neighbour (the machine as it is; E's quiet rows, where duet's premise holds or not)
if [ "${LIVE_NOISE:-1}" = 0 ]; then
	echo "live: no neighbour (LIVE_NOISE=0)"
elif [ "${LIVE_NOISE:-1}" = shared ]; then
	echo "live: a neighbour on every CPU, bursting at the same moments (LIVE_NOISE=shared)"
	"$T/bin/noise" 14400 0.25 shared &
	noise_pid=$!
else
	"$T/bin/noise" 14400 0.5 &
	noise_pid=$!
fi
t0=$SECONDS

# ---- A, B, C, D: interleaved, so that the machine's moods fall on all of them ----
kinds=(vary spin)
abc=1
only AD || { abc=0 N_DIR=0; }
if ((!abc)) && only D; then N_DIR=$((2 * N_DIFF)) N_AA=0 N_BENCH=0; fi
for ((i = 0; i < N_DIR; i++)); do
	((abc)) && direction "${kinds[i % 2]}"
	((i < N_AA)) && compare "${kinds[i % 2]}" 1.00 1.00b same "aa-${kinds[i % 2]}" --rounds 20
	((i < N_BENCH)) && bench_dir
	# D: a session, another comparison, the second session of the pair, their diff (N_DIFF pairs in 2 N_DIFF steps)
	if ((i < 2 * N_DIFF)); then
		if ((i % 2 == 0)); then
			session "$i"
		else
			session "$((i - 1))b"
			"$K" diff --json "$T/s-$((i - 1)).kiln.db" "$T/s-$((i - 1))b.kiln.db" >"$T/d.json" 2>>"$T/errors"
			tally diff "$T/d.json" >>"$T/diff-aa.txt"
			# the same pair with the assumed 1% kiln used before it learned the session sd (session-record.h)
			"$K" diff --json --session-sd 1% "$T/s-$((i - 1)).kiln.db" "$T/s-$((i - 1))b.kiln.db" >"$T/d.json" \
				2>>"$T/errors"
			tally diff "$T/d.json" >>"$T/diff-aa-1pct.txt"
			rm -f "$T/s-$((i - 1))".kiln.db* "$T/s-$((i - 1))b".kiln.db*
		fi
	fi
	((i % 50 == 49)) && echo "  A-D: $((i + 1))/$N_DIR, $((SECONDS - t0)) s, load $(load)"
done
echo "  A-D done in $((SECONDS - t0)) s, load $(load)"

# ---- E: duet against rounds, the same wall time each, alternating ----
only E || N_DUET=0
for ((i = 0; i < N_DUET; i++)); do
	compare $E_CFG 1.00 1.00b same duet-aa --duet --time "$DUET_T"
	compare $E_CFG 1.00 1.00b same rounds-aa --time "$DUET_T"
	if ((i < N_DUET2)); then
		compare $E_CFG 1.00 1.02 slower duet-2 --duet --time "$DUET_T"
		compare $E_CFG 1.00 1.02 slower rounds-2 --time "$DUET_T"
	fi
	((i % 50 == 49)) && echo "  E: $((i + 1))/$N_DUET, $((SECONDS - t0)) s, load $(load)"
done
echo "  E done at $((SECONDS - t0)) s, load $(load)"

# ---- F: a 2% difference in runs that vary by 10%, for TEN of kiln compare ----
only F || TEN=
for cfg in ${TEN:+spinten ten}; do
	compare "$cfg" 1.00 1.02 slower ten --time "$TEN"
	sed -i "\$s/\$/ $TEN 1.02 $cfg/" "$T/ten.txt"
done
echo "  F done at $((SECONDS - t0)) s, load $(load)"

# ---- G: kiln compare's warm-up verdicts, in-process: A/A, and a warm-up twice as long ----
only G || N_WARM=0
# one comparison of vm's builds 1.00 and B (its steady verdict into TABLE-steady: the same steady state both sides),
# its warm-up verdict a line of TABLE
warm_compare() { # B TRUTH TABLE
	compare vary 1.00 "$1" same "$3-steady" --rounds 20
	tally warm "$T/c.json" "$2" >>"$T/$3.txt"
}
for ((i = 0; i < N_WARM; i++)); do
	warm_compare 1.00b same warm-aa
	((i < N_WARM2)) && warm_compare w2 longer warm-2x
	((i % 50 == 49)) && echo "  G: $((i + 1))/$N_WARM, $((SECONDS - t0)) s, load $(load)"
done
echo "  G done at $((SECONDS - t0)) s, load $(load)"

[ -n "$noise_pid" ] && kill "$noise_pid" 2>/dev/null && wait "$noise_pid" 2>/dev/null
noise_pid=
errs=$(grep -ci "error" "$T/errors" 2>/dev/null)
[ "${errs:-0}" -gt 0 ] && echo "live: $errs line(s) of errors from kiln, the first: $(head -3 "$T/errors")"
echo "live: $((SECONDS - t0)) s in all; load average after: $(load)"
tally rows "$T" "$SCALE"
# LIVE_KEEP=DIR: the tables kept (one line per comparison: truth, verdict, ratio, interval, MDE, rounds)
[ -n "${LIVE_KEEP:-}" ] && mkdir -p "$LIVE_KEEP" && cp "$T"/*.txt "$LIVE_KEEP"/
