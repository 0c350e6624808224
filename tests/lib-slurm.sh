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

# the cluster tests' experiment: 2 keys of the fake runner, PEXECS x ITERS iterations of NS ns
# cluster_config NAME PEXECS ITERS NS SEED > FILE
cluster_config() {
	cat <<Y
name: $1
pexecs: $2
iterations: $3
seed: $5
vms:
  fake:
    plugin: external
    runner: [$FAKE, ok, "{iterations}", "$4"]
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

# wait until shard FILE has at least N finished pexecs and one running: wait_mid_pexec FILE N TIMEOUT_S
wait_mid_pexec() {
	local i
	for ((i = 0; i < $3 * 20; i++)); do
		[ "$(sql "$1" "SELECT SUM(status='ok') >= $2 AND SUM(status='running') = 1 FROM pexecs" 2>/dev/null)" = 1 ] &&
			return 0
		sleep 0.05
	done
	fail "$1: no pexec running after $2 done within $3 s"
}
