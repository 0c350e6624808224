#!/bin/bash
# startup.sh - the fixed cost of `kiln run`: one pexec of /bin/true (a fresh
# results file each run, the machine and its VMs unchanged since the run
# before, so the identity cache holds), against /bin/true alone, both timed
# by `hyperfine -N` in the same run.  The fixed cost is the difference of
# the medians; target <= 50 ms.  Also, as info, the same in CPU time (user
# + system of kiln and what it starts, from hyperfine: on a loaded machine
# the wall time grows with the load, the CPU time does not), and a run after
# the cache was emptied (what a changed VM or a first run costs:
# dpkg-query, ldd, the VM's --version).  Then the fixed cost with the
# identity cache full (issue 17.2: 1,024 entries of each kind, as a busy
# machine's; tests/helpers/fill_idcache.py) beside the same with the cache
# holding only this run's entries, both through `env KILN_STATE_DIR=...`,
# in two rounds of opposite order; target: full <= 1.2 x the other.
#   O=build bench/startup.sh
set -eu
cd "$(dirname "$0")/.."
O=${O:-build}
K=${KILN_BENCH_KILN:-$PWD/$O/kiln}
command -v hyperfine >/dev/null || { echo "startup: hyperfine is not installed (scripts/deps.sh --test)"; exit 0; }
T=$(mktemp -d /tmp/kiln-bench-startup.XXXXXX)
trap 'rm -rf "$T"' EXIT
export KILN_STATE_DIR="$T/state"
cat > "$T/t.yaml" <<Y
pexecs: 1
vms: {t: {plugin: command, path: /bin/true}}
benchmarks: {noop: 0}
Y
DB="$T/t.kiln.db"
"$K" run -q "$T/t.yaml"
hyperfine -N -w 3 -r "${RUNS:-40}" --export-json "$T/warm.json" \
	--prepare "rm -f $DB $DB-wal $DB-shm" "$K run -q $T/t.yaml" \
	--prepare "true" "/bin/true" >/dev/null 2>&1
# the same machine and VMs, the cache full: a copy of the state folder, filled
cp -a "$T/state" "$T/full"
python3 tests/helpers/fill_idcache.py "$T/full/cache/ids.db" 1024 >/dev/null
for order in "own full" "full own"; do
	cmds=()
	for c in $order; do
		d=$T/state; [ $c = full ] && d=$T/full
		cmds+=(--prepare "rm -f $DB $DB-wal $DB-shm" "env KILN_STATE_DIR=$d $K run -q $T/t.yaml")
	done
	hyperfine -N -w 2 -r "${FULL_RUNS:-20}" --export-json "$T/round-${order%% *}.json" "${cmds[@]}" >/dev/null 2>&1
done
hyperfine -N -r "${COLD_RUNS:-5}" --export-json "$T/cold.json" \
	--prepare "rm -rf $DB $DB-wal $DB-shm $T/state/cache" "$K run -q $T/t.yaml" >/dev/null 2>&1
python3 - "$T/warm.json" "$T/cold.json" "$T/round-own.json" "$T/round-full.json" <<'P'
import json, sys
w = json.load(open(sys.argv[1]))["results"]
c = json.load(open(sys.argv[2]))["results"][0]
cpu = lambda r: (r["user"] + r["system"]) * 1e3
# the medians of each state over both rounds (each round's list names its commands)
by = {"own": [], "full": []}
for f in sys.argv[3:5]:
    for r in json.load(open(f))["results"]:
        k = "full" if "/full " in r["command"] else "own"
        by[k].append(r["median"] * 1e3)
        by[k + "_cpu"] = by.get(k + "_cpu", []) + [cpu(r)]
kiln, true = w[0]["median"] * 1e3, w[1]["median"] * 1e3
fixed, cold = kiln - true, c["median"] * 1e3 - true
fixed_cpu = cpu(w[0]) - cpu(w[1])
print("  kiln run, 1 pexec of /bin/true:  median %7.2f ms (user %.1f ms, sys %.1f ms)" % (kiln, w[0]["user"] * 1e3, w[0]["system"] * 1e3))
print("  /bin/true alone (hyperfine -N): median %7.2f ms" % true)
print("  fixed cost of kiln run:          %7.2f ms (target <= 50 ms)" % fixed)
print("  fixed cost in CPU time (user + sys, means): %.2f ms" % fixed_cpu)
print("  the same with an empty identity cache: %.2f ms" % cold)
ok = "PASS" if fixed <= 50 else "MISS"
print("ROW\tkiln run fixed cost (1 pexec of /bin/true, cache warm)\t%.3g ms\t/bin/true alone (hyperfine -N)\t%.3g ms\t%.3f\t<= 50 ms\t%s" % (fixed, true, kiln / true, ok))
print("ROW\tkiln run fixed cost in CPU time (user + sys)\t%.3g ms\t/bin/true alone (hyperfine -N)\t%.3g ms\t%.3f\t-\tinfo" % (fixed_cpu, cpu(w[1]), cpu(w[0]) / max(cpu(w[1]), 1e-3)))
own, full = (sum(by[k]) / len(by[k]) - true for k in ("own", "full"))
mean = lambda v: sum(v) / len(v)
print("  fixed cost, identity cache holding this run's entries only: %.2f ms (CPU %.1f ms); full, 1,024 per kind: %.2f ms (CPU %.1f ms)"
      % (own, mean(by["own_cpu"]), full, mean(by["full_cpu"])))
ok = "PASS" if full <= 1.2 * own else "MISS"
print("ROW\tkiln run fixed cost, identity cache full (1,024 entries per kind)\t%.3g ms\tthe same, cache holding this run's entries only\t%.3g ms\t%.3f\t<= 1.2x\t%s" % (full, own, full / own, ok))
print("ROW\tkiln run fixed cost, identity cache empty\t%.3g ms\t/bin/true alone (hyperfine -N)\t%.3g ms\t%.3f\t-\tinfo" % (cold, true, (cold + true) / true))
P
