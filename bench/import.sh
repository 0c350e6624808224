#!/bin/bash
# import.sh - kiln import of Krun files whose cost once grew faster than
# their size, each beside Python's json.load of the same file (what every
# Krun and warmup_stats tool does first) measured in the same run:
#   many keys      50,000 keys of one pexec (a linear key search per value
#                  made this 18 s);
#   Barrett scale  3,660 pexecs x 2,000 iterations (7.3 M values, ~102 MB of
#                  JSON as Krun writes it), plain and bzip2: target <= 3 s,
#                  peak memory well below the file's size;
#   beyond         100,000 pexecs (1,000 keys x 100 x 10 iterations), then
#                  reading its schedule back (kiln status: store_load_schedule
#                  was O(pexecs x keys)) beside sqlite3 reading the same rows.
# Files are made by Python (bench/gen_krun.py) into KILN_BENCH_DIR (default /tmp).
#   O=build bench/import.sh
set -eu
cd "$(dirname "$0")/.."
O=${O:-build}
K="$PWD/$O/kiln"
T=$(mktemp -d "${KILN_BENCH_DIR:-/tmp}/kiln-bench-import.XXXXXX")
trap 'rm -rf "$T"' EXIT

# wall seconds, peak KiB and CPU seconds (user + system) of a command: "S KIB CPU"
# (on a shared machine the wall time is also the others' load: the CPU time says what was kiln's)
measure() {
	/usr/bin/time -f "%e %M %U %S" -o "$T/time" "$@" >/dev/null 2>&1 || { echo "bench/import: $* failed" >&2; exit 1; }
	awk '{ printf "%s %s %.2f\n", $1, $2, $3 + $4 }' "$T/time"
}
py_load() {
	measure python3 -c 'import bz2, json, sys
f = sys.argv[1]
raw = open(f, "rb").read()
json.loads(bz2.decompress(raw) if raw[:3] == b"BZh" else raw)' "$1"
}
row() { # name value unit base-name base-value target pass
	awk -v n="$1" -v v="$2" -v u="$3" -v bn="$4" -v bv="$5" -v t="$6" -v p="$7" 'BEGIN {
		printf "ROW\t%s\t%.3g %s\t%s\t%.3g %s\t%.3f\t%s\t%s\n", n, v, u, bn, bv, u, (bv > 0 ? v / bv : 0), t, p }'
}
one() { # label file target-seconds
	local label=$1 f=$2 target=$3 size k p
	size=$(stat -c %s "$f")
	rm -f "$T/o.kiln.db"
	read -r ks kk kc <<<"$(measure "$K" import "$f" -o "$T/o.kiln.db")"
	read -r ps pk pc <<<"$(py_load "$f")"
	printf "  %s: %.1f MB: kiln import %s s (%s s CPU), %d MiB peak; python3 json.load %s s (%s s CPU), %d MiB\n" \
		"$label" "$(echo "$size / 1000000" | bc -l)" "$ks" "$kc" $((kk / 1024)) "$ps" "$pc" $((pk / 1024))
	local pass=info
	[ -n "$target" ] && pass=$(awk -v s="$ks" -v t="$target" 'BEGIN { print s <= t ? "PASS" : "MISS" }')
	local tgt=-
	[ -n "$target" ] && tgt="<= $target s"
	row "kiln import, $label" "$ks" s "python3 json.load" "$ps" "$tgt" "$pass"
	row "kiln import CPU time, $label" "$kc" s "python3 json.load" "$pc" - info
	if [ -n "$target" ]; then
		pass=$(awk -v m="$kk" -v s="$size" 'BEGIN { print m * 1024 <= s / 4 ? "PASS" : "MISS" }')
		row "kiln import peak memory, $label" "$(echo "$kk / 1024" | bc -l)" MiB "python3 json.load" \
			"$(echo "$pk / 1024" | bc -l)" "<= 1/4 of the file ($((size / 4 / 1048576)) MiB)" "$pass"
	fi
}

python3 bench/gen_krun.py 50000 1 2 0 > "$T/keys.json"
python3 bench/gen_krun.py 5000 1 2 0 > "$T/keys5k.json"
one "5,000 keys x 1 pexec" "$T/keys5k.json" ""
one "50,000 keys x 1 pexec" "$T/keys.json" ""
# CPU seconds, as the others' load would blur a ratio of wall times
read -r _ _ s50 <<<"$(measure "$K" import "$T/keys.json" -o "$T/k2.kiln.db")"
read -r _ _ s5b <<<"$(measure "$K" import "$T/keys5k.json" -o "$T/k3.kiln.db")"
pass=$(awk -v a="$s50" -v b="$s5b" 'BEGIN { print a <= 10 * (b > 0.05 ? b : 0.05) * 1.5 ? "PASS" : "MISS" }')
row "kiln import CPU time, 50,000 keys against 10 x 5,000 keys (growth with the keys)" "$s50" s \
	"10 x the 5,000-key import" "$(echo "10 * $s5b" | bc -l)" "<= 1.5 x (linear)" "$pass"

# one pexec with 100,000 distinct instrumentation names (a search per name made such records quadratic)
python3 -c 'import json
print(json.dumps({"wallclock_times": {"a:b:c": [[0.1] * 4]},
                  "instr_data": {"a:b:c": [{"s%d" % i: [1, 2, 3, 4] for i in range(100000)}]}}))' > "$T/names.json"
one "1 pexec with 100,000 series names" "$T/names.json" ""
# kiln report of it, against 10 x the report of 10,000 names (a search per name made the
# summary quadratic: 50,000 names took 14 s of CPU; each report analyses afresh)
python3 -c 'import json
print(json.dumps({"wallclock_times": {"a:b:c": [[0.1] * 4]},
                  "instr_data": {"a:b:c": [{"s%d" % i: [1, 2, 3, 4] for i in range(10000)}]}}))' > "$T/names10k.json"
"$K" import "$T/names.json" -o "$T/n100.kiln.db" >/dev/null
"$K" import "$T/names10k.json" -o "$T/n10.kiln.db" >/dev/null
read -r _ _ r100 <<<"$(measure "$K" report "$T/n100.kiln.db")"
read -r _ _ r10 <<<"$(measure "$K" report "$T/n10.kiln.db")"
pass=$(awk -v a="$r100" -v b="$r10" 'BEGIN { print a <= 10 * (b > 0.05 ? b : 0.05) * 1.5 ? "PASS" : "MISS" }')
echo "  kiln report, 1 pexec with 100,000 series names: $r100 s CPU; 10,000 names: $r10 s CPU"
row "kiln report CPU time, 100,000 series names against 10 x 10,000 (growth with the names)" "$r100" s \
	"10 x the 10,000-name report" "$(echo "10 * $r10" | bc -l)" "<= 1.5 x (linear)" "$pass"

python3 bench/gen_krun.py 122 30 2000 0 > "$T/barrett_results.json"
one "Barrett scale, 3,660 pexecs x 2,000 iterations" "$T/barrett_results.json" 3
bzip2 -k -1 "$T/barrett_results.json"
read -r bzs _ <<<"$(measure bzip2 -dc "$T/barrett_results.json.bz2")"
one "the same, .json.bz2" "$T/barrett_results.json.bz2" ""
row "bzip2 -dc of that .json.bz2 alone (the floor of any reader)" "$bzs" s "-" 0 - info

python3 bench/gen_krun.py 1000 100 10 0 > "$T/wide.json"
one "100,000 pexecs (1,000 keys x 100 x 10 iterations)" "$T/wide.json" ""
rm -f "$T/w.kiln.db"
"$K" import "$T/wide.json" -o "$T/w.kiln.db" >/dev/null
read -r sts _ <<<"$(measure "$K" status "$T/w.kiln.db")"
read -r sqs _ <<<"$(measure sqlite3 "$T/w.kiln.db" "SELECT k.bench, k.vm, k.variant, p.status FROM pexecs p JOIN keys k ON k.id = p.key_id ORDER BY p.seq")"
echo "  kiln status of 100,000 pexecs: $sts s; sqlite3 reading the same rows: $sqs s"
row "kiln status, 100,000 pexecs of 1,000 keys (the schedule read back)" "$sts" s "sqlite3 reading the rows" "$sqs" - info
