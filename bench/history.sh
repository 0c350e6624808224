#!/bin/bash
# history.sh - issue 29's targets: change-point detection and bisection on a
# real VM's history (bench/history.c; bench/history/README.md).  Reads the
# corpus bench/history/corpus.sh measured (hours: not made here), then runs
# asv's and Otava's detectors from their sources and a Perfherder t-test on
# the same series (bench/history/baselines.py) and prints one table.
#   HISTORY_CORPUS=FILE HISTORY_TRIALS=N ASV_REPO=DIR OTAVA_REPO=DIR bench/history.sh
# HISTORY_BISECT_ROUNDS=N simulates the bisections at kiln bisect --max-rounds N (default 200).
set -u
cd "$(dirname "$0")/.."
O=${O:-build}
# what `kiln track --changes` says a series could have shown, checked on synthetic series of known noise (no corpus needed)
syn=$(mktemp -d)
for noise in 0.01,0.005 0.05,0.01 0.2,0.02; do
	echo "synthetic, pexec and session sd $noise:"
	"$O/bench/history" --synthetic=$noise "$syn" "${HISTORY_TRIALS:-30}" | grep -A1 '^could see' | sed 's/^ROW\t/ROW\t(sd '"$noise"') /'
done
# the same for the warm-up stretch it names, against stretches of the iterations analysed again: iteration sd, and the
# warm-up length's sd a pexec and a session (log); the last two: iterations so noisy the analysis misses warm-ups;
# kiln bisect --series warmup on 200 commits of each noise, 2x stretches and A/A ranges (HISTORY_WARM_BISECT_TRIALS);
# and kiln track --compare's warm-up verdict, A/A and 2x, at 10 and 30 rounds (HISTORY_WARM_COMPARE_TRIALS)
for noise in 0.01,0,0 0.02,0.3,0.4 0.03,0.5,0.7 0.1,0.3,0.2 0.15,0.3,0.2 0.2,0.5,0.3; do
	HISTORY_WARM_BISECT_TRIALS=${HISTORY_WARM_BISECT_TRIALS:-300} HISTORY_WARM_COMPARE_TRIALS=${HISTORY_WARM_COMPARE_TRIALS:-1000} \
		"$O/bench/history" --synthetic-warm=$noise "$syn" "${HISTORY_TRIALS:-30}"
done
rm -rf "$syn"
corpus=${HISTORY_CORPUS:-bench/history/out/lua.history.db}
if [ ! -f "$corpus" ]; then
	echo "history: no corpus at $corpus: bench/history/corpus.sh measures one (hours); nothing measured"
	exit 0
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$O/bench/history" "$corpus" "$out" "${HISTORY_TRIALS:-30}" || exit 1
asv=${ASV_REPO:-/work/.mirror/airspeed-velocity+asv/repo}
otava=${OTAVA_REPO:-/work/.mirror/apache+otava/repo}
py=/usr/bin/python3
if ! git -C "$asv" rev-parse -q --verify HEAD >/dev/null 2>&1 || ! git -C "$otava" rev-parse -q --verify HEAD >/dev/null 2>&1 ||
	! "$py" -c 'import numpy, scipy' 2>/dev/null; then
	echo "history: the baselines need clones of airspeed-velocity/asv and apache/otava (ASV_REPO, OTAVA_REPO) and Debian's python3-numpy, python3-scipy (scripts/deps.sh --bench): not run"
	exit 0
fi
mkdir -p "$out/asv" "$out/otava"
git -C "$asv" archive HEAD asv | tar -x -C "$out/asv"
git -C "$otava" archive HEAD otava | tar -x -C "$out/otava"
echo
echo "asv $(git -C "$asv" rev-parse --short HEAD), Otava $(git -C "$otava" rev-parse --short HEAD), on the same series:"
"$py" bench/history/baselines.py "$out" "$out/asv" "$out/otava"
# the same methods where the noise lets them work: made-up series of t3 noise at a quiet machine's levels
for noise in 0.01,0.005 0.02,0.01; do
	syn="$out/syn-$noise"
	mkdir -p "$syn"
	echo
	"$O/bench/history" --synthetic=$noise "$syn" "${HISTORY_TRIALS:-30}" | grep -v '^ROW' | head -9
	"$py" bench/history/baselines.py "$syn" "$out/asv" "$out/otava" "synthetic (pexec, session sd $noise):"
done
