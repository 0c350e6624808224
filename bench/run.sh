#!/bin/bash
# run.sh - `make bench`: every harness benchmark in bench/, each printing its
# figures beside a baseline measured in the same run and the ratio; then a
# summary of the lines that carry a target (PASS/MISS).  Run it on a quiet
# machine: the figures are only as steady as the machine is.  The last one,
# live (bench/live.sh), takes about 2 h in full; name the others to skip it.
#   bench/run.sh [NAME...]
set -u
cd "$(dirname "$0")/.."
O=${O:-build}
export O
names=("$@")
[ ${#names[@]} -eq 0 ] && names=(pexec isolate overhead storage pypylog analysis warmup history-speed import cluster startup sweep stats history publish live)
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for n in "${names[@]}"; do
	b="$O/bench/$n"
	[ -x "bench/$n.sh" ] && b="bench/$n.sh"
	if [ ! -x "$b" ]; then
		echo "bench: $b is not built" >&2
		continue
	fi
	echo "== $n"
	"$b" 2>&1 | tee -a "$out"
	echo
done
echo "== summary (figures with a target)"
grep -E 'PASS|MISS' "$out" | sed 's/^ROW\t//' | tr '\t' '|' | sed 's/^/| /; s/$/ |/'
