#!/bin/bash
# cluster.sh - what a Slurm task adds to the pexecs it runs: the same
# experiment (N pexecs of /bin/true, the `command` plugin, durable commits)
# run locally and as one task of `kiln run --slurm` on a real one-node
# Slurm (scripts/slurm-local.sh), alternating, in the same run.
#   per pexec: kiln's own time between one pexec's end and the next one's
#     start (from the stored pexecs: wall_start + duration to the next
#     wall_start), median over the pexecs, local results file (WAL) against
#     the task's shard (rollback journal, what shared storage needs), and a
#     local run on a rollback-journal file, which tells the journal's share
#     from Slurm's;
#   whole: submission to merged against the local run's wall time, and
#     what is left once the per-pexec difference is taken out (the fixed
#     cost of a task: Slurm's scheduling, the build check, the merge job).
# Needs root (Slurm's daemons).  Results on KILN_BENCH_DIR's filesystem
# (default /tmp).
#   O=build bench/cluster.sh [N] [ROUNDS]
set -eu
cd "$(dirname "$0")/.."
O=${O:-build}
K="$PWD/$O/kiln"
N=${1:-300}
ROUNDS=${2:-3}
[ "$(id -u)" = 0 ] || { echo "cluster: needs root (Slurm's daemons); skipped"; exit 0; }
T=$(mktemp -d "${KILN_BENCH_DIR:-/tmp}/kiln-bench-cluster.XXXXXX")
S=$(mktemp -d /tmp/kiln-bench-slurm.XXXXXX)
trap 'scripts/slurm-local.sh stop "$S" 2>/dev/null; rm -rf "$T" "$S"' EXIT
scripts/slurm-local.sh start "$S" 1 >/dev/null
. "$S/env.sh"
cat > "$T/b.yaml" <<Y
name: bench-cluster
pexecs: $N
iterations: 1
vms: {t: {plugin: command, path: /bin/true}}
benchmarks: {noop: 0}
Y
now() { echo "${EPOCHREALTIME/./}"; }
# kiln's time between pexecs, median, in us: gap FILE
gap() {
	sqlite3 -cmd ".timeout 10000" "$1" "SELECT wall_start_ns, CAST(duration_s * 1e9 AS INTEGER) FROM pexecs WHERE status='ok' ORDER BY wall_start_ns" |
		awk -F'|' 'NR > 1 { print ($1 - end) / 1000 } { end = $1 + $2 }' | sort -n |
		awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
wait_merged() { # RESULTS
	local mj st i
	for ((i = 0; i < 6000; i++)); do
		mj=$(sqlite3 -cmd ".timeout 10000" "$1" "SELECT merge_job FROM cluster_rounds")
		st=$(scontrol -o show job "$mj" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | cut -d= -f2)
		case $st in COMPLETED) return 0 ;; FAILED | CANCELLED) echo "merge job $st" >&2; exit 1 ;; esac
		sleep 0.05
	done
	exit 1
}
rows=$T/rows
for ((r = 1; r <= ROUNDS; r++)); do
	# a local run whose file keeps a rollback journal from its second pexec on
	"$K" run -q "$T/b.yaml" -o "$T/rb$r.kiln.db" --max-pexecs 1
	sqlite3 "$T/rb$r.kiln.db" "INSERT OR REPLACE INTO meta(name, value) VALUES('journal', 'delete')"
	"$K" run -q "$T/b.yaml" -o "$T/rb$r.kiln.db"
	t0=$(now)
	"$K" run -q "$T/b.yaml" -o "$T/local$r.kiln.db"
	t1=$(now)
	"$K" run -q "$T/b.yaml" -o "$T/slurm$r.kiln.db" --slurm --nodes 1
	wait_merged "$T/slurm$r.kiln.db"
	t2=$(now)
	[ "$(sqlite3 "$T/slurm$r.kiln.db" "SELECT COUNT(*) FROM pexecs WHERE status='ok'")" = "$N" ] || { echo "cluster: round $r incomplete" >&2; exit 1; }
	lg=$(gap "$T/local$r.kiln.db") sg=$(gap "$T/slurm$r.shards/r1-t0.kiln.db") rg=$(gap "$T/rb$r.kiln.db")
	printf '  round %d: local %d ms, slurm (submission to merged) %d ms; kiln between pexecs: local %s us, local with a rollback journal %s us, task %s us\n' \
		"$r" $(((t1 - t0) / 1000)) $(((t2 - t1) / 1000)) "$lg" "$rg" "$sg"
	echo "$((t1 - t0)) $((t2 - t1)) $lg $sg $rg" >>"$rows"
done
# the median of column C over the rounds
med() { awk -v c="$1" '{ print $c }' "$rows" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
awk -v n="$N" -v lw="$(med 1)" -v sw="$(med 2)" -v lg="$(med 3)" -v sg="$(med 4)" -v rg="$(med 5)" 'BEGIN {
	per = sg - lg
	fixed = (sw - lw) / 1e6 - per * n / 1e6
	printf "  per-pexec overhead a Slurm task adds (median of %d rounds): %.0f us (%.0f against %.0f us); the rollback journal alone, locally: %.0f us more\n", '"$ROUNDS"', per, sg, lg, rg - lg
	printf "  whole: local %.2f s, slurm %.2f s for %d pexecs: %.0f us more per pexec, a fixed %.2f s of it per task (scheduling, build check, merge job)\n", lw / 1e6, sw / 1e6, n, (sw - lw) / n, fixed
	printf "ROW\tkiln between pexecs, in a Slurm task (shard, rollback journal)\t%.0f us\tlocal run (WAL), same pexecs\t%.0f us\t%.2f\t-\tinfo\n", sg, lg, sg / lg
	printf "ROW\tkiln between pexecs, in a Slurm task\t%.0f us\tlocal run, rollback journal too\t%.0f us\t%.2f\t-\tinfo\n", sg, rg, sg / rg
	printf "ROW\twall per pexec, Slurm task, submission to merged (%d pexecs)\t%.0f us\tlocal run\t%.0f us\t%.2f\t-\tinfo\n", n, sw / n, lw / n, sw / lw
}'
