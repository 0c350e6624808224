#!/bin/bash
# bench-startup.sh - what `kiln bench` costs beyond the runs it times: the
# wall time of `kiln bench --runs 1 true` (results file, audit, schedule,
# the run, the analysis and summary) beside hyperfine's `hyperfine -N
# --runs 1 true` and `kiln run` of the same one-run config, measured in the
# same run (median of 5 each).  Target (issue 14 item 1, the provenance
# work on start-up): kiln bench's fixed cost at most 50 ms more than the
# run it times, and never more than `kiln run`'s.
#   O=build bench/bench-startup.sh
set -eu
cd "$(dirname "$0")/.."
O=${O:-build}
K="$PWD/$O/kiln"
T=$(mktemp -d /tmp/kiln-bench-startup.XXXXXX)
trap 'rm -rf "$T"' EXIT
cd "$T"
printf 'vms: {t: {plugin: command, path: /bin/true}}\nbenchmarks: {noop: 0}\n' > one.yaml
# median wall seconds of 5 runs of a command line
median() {
	local i ts=()
	for i in 1 2 3 4 5; do
		rm -f ./*.kiln.db*
		local t0 t1
		t0=$(date +%s.%N)
		"$@" >/dev/null 2>&1 || true
		t1=$(date +%s.%N)
		ts+=("$(echo "$t1 - $t0" | bc)")
	done
	printf '%s\n' "${ts[@]}" | sort -g | sed -n 3p
}
bench=$(median "$K" bench -q --runs 1 true -o b.kiln.db)
run=$(median "$K" run -q one.yaml)
if command -v hyperfine >/dev/null; then
	hf=$(median hyperfine -N --runs 1 true)
else
	hf=nan
fi
awk -v b="$bench" -v r="$run" -v h="$hf" 'BEGIN {
	printf "ROW\tkiln bench --runs 1 true, wall\t%.3f s\thyperfine -N --runs 1 true\t%s s\t%s\t<= +0.050 s\t%s\n", b, h,
		(h == "nan" ? "-" : sprintf("%.1f", b / h)), (h != "nan" && b - h <= 0.050) ? "PASS" : "MISS"
	printf "ROW\tkiln bench --runs 1 true, wall\t%.3f s\tkiln run, one run of /bin/true\t%.3f s\t%.2f\t<= 1.1\t%s\n", b, r,
		b / r, (b <= r * 1.1 + 0.01) ? "PASS" : "MISS"
}'
