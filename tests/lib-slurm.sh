# lib-slurm.sh - sourced by the cluster tests after lib.sh: a real Slurm
# cluster of N "nodes" on this machine (scripts/slurm-local.sh), stopped when
# the test ends, and helpers to wait for kiln's jobs.
[ "$(id -u)" = 0 ] || skip "the one-machine Slurm cluster needs root (its daemons run as root)"
# the tasks and merge jobs write the files while the test reads them: wait for their locks
sql() { sqlite3 -cmd ".timeout 10000" "$1" "$2"; }
slurm_start() { # NODES
	local t0=${EPOCHREALTIME/./}
	# munged wants every folder above its socket searchable by all: not inside $T (0700)
	SLURM_DIR=$(mktemp -d /tmp/kiln-slurm.XXXXXX)
	trap '"$KILN_ROOT/scripts/slurm-local.sh" stop "$SLURM_DIR" 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$T" "$SLURM_DIR"' EXIT
	"$KILN_ROOT/scripts/slurm-local.sh" start "$SLURM_DIR" "$1" >/dev/null || fail "the Slurm cluster did not start"
	. "$SLURM_DIR/env.sh"
	echo "slurm: $1 node(s) idle after $(( (${EPOCHREALTIME/./} - t0) / 1000 )) ms ($SLURM_DIR)"
}

# the cluster tests' experiment: 2 keys of the fake runner, PEXECS x ITERS iterations of NS ns;
# with GATES, a folder, the runner is gated (hold_mid_pexec)
# cluster_config NAME PEXECS ITERS NS SEED [GATES] > FILE
cluster_config() {
	local runner="ok, \"{iterations}\", \"$4\""
	[ -z "${6:-}" ] || runner="gated, \"{iterations}\", \"$4\", \"$6\""
	cat <<Y
name: $1
pexecs: $2
iterations: $3
seed: $5
vms:
  fake:
    plugin: external
    runner: [$FAKE, $runner]
    language: c
    entry: bench.c
benchmarks:
  spin: 1
  spin2: 2
# the machine's kernel log is other tests' too: a line there would taint pexecs
platform: {kmsg: off}
Y
}

# a field of `kiln status --json`'s cluster part: cluster_field RESULTS PYTHON-EXPR (d = the cluster object)
cluster_field() {
	"$KILN" status --json "$1" | python3 -c "import json,sys; d=json.load(sys.stdin)['cluster']; print($2)"
}

# wait until round R's merge job has ended (COMPLETED or not): wait_round RESULTS R TIMEOUT_S
wait_round() {
	local i mj st
	for ((i = 0; i < $3 * 5; i++)); do
		mj=$(sql "$1" "SELECT merge_job FROM cluster_rounds WHERE round=$2")
		if [ -n "$mj" ]; then
			st=$(scontrol -o show job "$mj" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | cut -d= -f2)
			case $st in PENDING | RUNNING | CONFIGURING | COMPLETING | "") ;; *) return 0 ;; esac
		fi
		sleep 0.2
	done
	squeue -t all >&2
	fail "round $2 did not end within $3 s"
}

# the pid of the kiln of array task TASK of job JOB (its environment says which)
task_kiln_pid() { # JOB TASK
	local p
	for p in $(pgrep -f "kiln task "); do
		{ tr '\0' '\n' <"/proc/$p/environ" | grep -qx "SLURM_ARRAY_JOB_ID=$1"; } 2>/dev/null || continue
		{ tr '\0' '\n' <"/proc/$p/environ" | grep -qx "SLURM_ARRAY_TASK_ID=$2"; } 2>/dev/null && { echo "$p"; return; }
	done
}

# hold tasks mid-pexec: task K of round 1 (its shard in SHARDS) runs its first
# pexec and is held in its second, whose runner (cluster_config ... GATES) waits
# before its last line while the file naming that pexec in GATES exists; so the
# test deals with each task while a pexec of it is in flight, however loaded the
# machine (a task left running while the others were dealt with finished all
# its pexecs, or was between two when it was cancelled).  Call it between a
# submission with --hold and the release; it releases JOB and MERGE-JOB itself
# and waits until every task named is held.  The files stay: rm GATES/* lets
# the runners go on.  hold_mid_pexec SHARDS GATES JOB MERGE-JOB TIMEOUT_S K...
hold_mid_pexec() {
	local dir=$1 gates=$2 job=$3 merge=$4 secs=$5 i k n=0; shift 5
	local -A gate=()
	for k in "$@"; do
		gate[$k]=$gates/$(sql "$dir/r1-t$k.kiln.db" "SELECT k.bench || ':' || k.vm || ':' || k.variant || '@' || p.num
			FROM pexecs p JOIN keys k ON k.id = p.key_id ORDER BY p.seq LIMIT 1 OFFSET 1")
		[ "${gate[$k]}" != "$gates/" ] || fail "task $k: no second pexec in its shard"
		touch "${gate[$k]}"
	done
	scontrol release "$job" && scontrol release "$merge" || fail "release $job $merge"
	for ((i = 0; i < secs * 20 && n < $#; i++)); do
		n=0
		for k in "$@"; do [ -e "${gate[$k]}.held" ] && n=$((n + 1)); done
		[ $n -lt $# ] && sleep 0.05
	done
	[ $n -eq $# ] || fail "tasks $* of job $job: only $n held mid-pexec within $secs s"
	for k in "$@"; do
		[ "$(sql "$dir/r1-t$k.kiln.db" "SELECT SUM(status='ok') = 1 AND SUM(status='running') = 1 FROM pexecs")" = 1 ] ||
			fail "task $k: held, but its shard has not one pexec done and one running"
	done
}
