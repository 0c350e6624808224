#!/bin/bash
# sweep.sh - what the sweep of killed kilns' leftovers (session.c) adds to
# the fixed cost of `kiln run`: one pexec of /bin/true with a state folder
# holding 200 dead sessions (a record and an instrumentation folder of two
# 2 KiB files each: a start removes at most 16 of them) and with 200 live
# ones (records of this script's shell, its pid and start time: a start
# looks at at most 64 and removes none), against the same state folder
# without any, all timed by `hyperfine -N` in the same run, each start from
# a fresh copy.  Target (issue 17.2): the fixed cost with 200 dead <= 50 ms.
#   O=build bench/sweep.sh
set -eu
cd "$(dirname "$0")/.."
O=${O:-build}
K=${KILN_BENCH_KILN:-$PWD/$O/kiln}
command -v hyperfine >/dev/null || { echo "sweep: hyperfine is not installed (scripts/deps.sh --test)"; exit 0; }
T=$(mktemp -d /tmp/kiln-bench-sweep.XXXXXX)
trap 'rm -rf "$T"' EXIT
cat > "$T/t.yaml" <<Y
pexecs: 1
vms: {t: {plugin: command, path: /bin/true}}
benchmarks: {noop: 0}
Y
DB="$T/t.kiln.db"
KILN_STATE_DIR="$T/empty" "$K" run -q "$T/t.yaml"
rm -f "$DB"
boot=$(cat /proc/sys/kernel/random/boot_id)
me=$(awk '{print $22}' /proc/$$/stat)
pidmax=$(cat /proc/sys/kernel/pid_max)
# a state folder like the empty one, with 200 sessions: KIND dead (no such pid) or live (this shell)
fill() { # NAME KIND
	cp -a "$T/empty" "$T/$1"
	for i in $(seq 200); do
		local tag pid=$((pidmax - i)) start=12345
		tag=$(printf 'ffff%012x' "$i")
		[ "$2" = live ] && pid=$$ start=$me
		printf 'kiln %10ld start %20s boot %36s\nrunner %10ld since %20s uid %10ld\n' "$pid" "$start" "$boot" 0 0 0 \
			> "$T/$1/sessions/$tag"
		mkdir -m 700 "$T/$1/instr/$tag.Ab12Cd"
		head -c 2048 /dev/zero > "$T/$1/instr/$tag.Ab12Cd/a.kiln.jsonl"
		head -c 2048 /dev/zero > "$T/$1/instr/$tag.Ab12Cd/b.kiln.jsonl"
	done
	chmod 600 "$T/$1"/sessions/*
}
fill dead dead
fill live live
cmds=()
for s in empty dead live; do
	cmds+=(--prepare "sh -c 'rm -rf $DB $DB-wal $DB-shm $T/run; cp -a $T/$s $T/run'" "env KILN_STATE_DIR=$T/run K=$s $K run -q $T/t.yaml")
done
hyperfine -N -w 2 -r "${RUNS:-20}" --export-json "$T/r.json" "${cmds[@]}" \
	--prepare true /bin/true >/dev/null 2>&1
# one start on a copy of the dead state: how many went
rm -rf "$DB" "$T/run"; cp -a "$T/dead" "$T/run"
KILN_STATE_DIR="$T/run" "$K" run -q "$T/t.yaml"
left=$(ls "$T/run/sessions" | wc -l) folders=$(ls "$T/run/instr" | wc -l)
python3 - "$T/r.json" "$left" "$folders" <<'P'
import json, sys
r = {x["command"].split(" K=")[1].split()[0] if " K=" in x["command"] else "true": x for x in json.load(open(sys.argv[1]))["results"]}
ms = lambda k: r[k]["median"] * 1e3
cpu = lambda k: (r[k]["user"] + r[k]["system"]) * 1e3
empty, dead, live, true = ms("empty"), ms("dead"), ms("live"), ms("true")
for k, what in (("empty", "no leftovers"), ("dead", "200 dead sessions'"), ("live", "200 live sessions'")):
    print("  kiln run, %-20s median %7.2f ms (sweep %+6.2f ms), CPU %6.2f ms (sweep %+6.2f ms)"
          % (what + ":", ms(k), ms(k) - empty, cpu(k), cpu(k) - cpu("empty")))
print("  /bin/true alone (hyperfine -N): median %7.2f ms" % true)
print("  one start with 200 dead sessions left %s records and %s folders (16 of each removed: 184 expected)" % (sys.argv[2], sys.argv[3]))
fixed = dead - true
print("ROW\tkiln run fixed cost, 200 dead sessions' leftovers (16 removed per start)\t%.3g ms\tthe same, no leftovers\t%.3g ms\t%.3f\t<= 50 ms\t%s"
      % (fixed, empty - true, dead / empty, "PASS" if fixed <= 50 else "MISS"))
print("ROW\tthe same in CPU time (user + sys)\t%.3g ms\tthe same, no leftovers\t%.3g ms\t%.3f\t-\tinfo"
      % (cpu("dead"), cpu("empty"), cpu("dead") / cpu("empty")))
print("ROW\tkiln run fixed cost, 200 live sessions' records (64 looked at)\t%.3g ms\tthe same, no leftovers\t%.3g ms\t%.3f\t-\tinfo"
      % (live - true, empty - true, live / empty))
P
