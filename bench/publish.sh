#!/bin/bash
# publish.sh - issue 29's target for `kiln publish`: a site of a history of
# 200 commits x 10 benchmarks x 10 pexecs in <= 10 s and <= 25 MB.
#
# The history is made once by bench/publish-corpus.c (synthetic series with
# injected steps and warm-up changes, same-binary commits and failed builds,
# folded in through the history's own writers: about a minute) and kept in
# $O/bench/.  kiln publish runs three times with its defaults (a report of
# each side of every change and of each key's newest commit, 3 plots each);
# the median wall time is the figure, beside the CPU time of kiln and its
# gnuplots (user + sys, what does not depend on other load).  Baseline in
# the same run: kiln report --format html of the newest commit's results
# (10 keys, 3 plots each), the page kiln made before publish existed.
# With PUBLISH_CORPUS=FILE (or bench/history/out/lua.history.db, the Lua
# corpus bench/history/corpus.sh measures, when it is there) that history
# is published too, as an info row.
#   PUBLISH_ITERS=N bench/publish.sh
set -u
cd "$(dirname "$0")/.."
O=${O:-build}
KILN=$O/kiln
iters=${PUBLISH_ITERS:-100}
corpus=$O/bench/publish-corpus-$iters.history.db
if [ ! -s "$corpus" ]; then
	echo "publish: making the synthetic history (once, about a minute)" >&2
	"$O/bench/publish-corpus" "$corpus" "$iters" 2>/dev/null || { echo "publish: bench/publish-corpus failed" >&2; exit 1; }
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
TIMEFORMAT='%R %U %S'

# run CMD... 3 times: "median-wall cpu-of-that-run" on stdout
median3() {
	local i t
	for i in 1 2 3; do
		rm -rf "$out/site"
		t=$( { time "$@" >"$out/stdout" 2>"$out/stderr"; } 2>&1) || { cat "$out/stderr" >&2; return 1; }
		echo "$t"
	done | sort -n | sed -n 2p | awk '{printf "%.3f %.3f\n", $1, $2 + $3}'
}

read -r pw pcpu < <(median3 "$KILN" publish -q "$corpus" -o "$out/site" --json) || exit 1
summary=$(cat "$out/stdout")
bytes=$(du -sb "$out/site" | cut -f1)
hbytes=$(stat -c %s "$corpus")
read -r nw ncpu < <(median3 "$KILN" publish -q "$corpus" -o "$out/site" --reports none)
read -r rw rcpu < <(median3 "$KILN" report "$corpus.newest.kiln.db" --format html -o "$out/report.html")
j() { jq -r ".$1" <<<"$summary"; }
label="kiln publish, $(j commits) commits x $(j keys) keys x 10 pexecs x $iters iterations ($(j changes) changes, $(j reports) reports, $(j files) files)"
awk -v l="$label" -v p="$pw" -v r="$rw" 'BEGIN {
	printf "ROW\t%s, wall\t%.2f s\tkiln report --format html of one commit (10 keys)\t%.2f s\t%.2f\t<= 10 s\t%s\n",
		l, p, r, p / r, p <= 10 ? "PASS" : "MISS" }'
awk -v p="$pcpu" -v r="$rcpu" 'BEGIN {
	printf "ROW\tkiln publish, CPU (user + sys, gnuplot included)\t%.2f s\tkiln report of one commit, CPU\t%.2f s\t%.2f\t-\tinfo\n", p, r, p / r }'
awk -v p="$nw" -v w="$pw" 'BEGIN {
	printf "ROW\tkiln publish --reports none (the overview and key pages alone), wall\t%.2f s\tkiln publish\t%.2f s\t%.2f\t-\tinfo\n", p, w, p / w }'
awk -v b="$bytes" -v h="$hbytes" 'BEGIN {
	printf "ROW\tthe site on disk\t%.1f MB\tthe history file\t%.1f MB\t%.2f\t<= 25 MB\t%s\n", b / 1e6, h / 1e6, b / h,
		b <= 25e6 ? "PASS" : "MISS" }'

real=${PUBLISH_CORPUS:-bench/history/out/lua.history.db}
if [ -s "$real" ]; then
	read -r lw lcpu < <(median3 "$KILN" publish -q "$real" -o "$out/site" --json) || exit 1
	s=$(cat "$out/stdout")
	printf "ROW\tkiln publish of %s (%s commits x %s keys, %s reports), wall\t%.2f s\tthe synthetic history\t%.2f s\t%.2f\t-\tinfo\n" \
		"$real" "$(jq -r .commits <<<"$s")" "$(jq -r .keys <<<"$s")" "$(jq -r .reports <<<"$s")" "$lw" "$pw" \
		"$(awk -v a="$lw" -v b="$pw" 'BEGIN {print a / b}')"
fi
