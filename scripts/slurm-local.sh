#!/bin/bash
# slurm-local.sh - a real Slurm cluster on this one machine: munged, slurmctld
# and N slurmd "nodes" (n1..nN, each a slurmd of its own on its own port),
# from Debian's packages, started directly as daemons (no systemd needed,
# PID 1 may be anything).  kiln's cluster tests run against it, and it lets
# anyone try `kiln run CONFIG --slurm` without a cluster.
#
#   scripts/slurm-local.sh start DIR [N]     start N nodes (default 1); waits until
#                                            every node is idle, then prints
#                                            `export SLURM_CONF=DIR/slurm.conf`
#   scripts/slurm-local.sh stop DIR          cancel the jobs, stop the daemons
#   scripts/slurm-local.sh status DIR        the daemons and the nodes' states
#   scripts/slurm-local.sh kill-node DIR NODE   a lost node: SIGKILL its slurmd, its
#                                            slurmstepds and every process of its jobs
#   scripts/slurm-local.sh revive-node DIR NODE start that node's slurmd again
#
# Everything lives in DIR (config, munge key and socket, state, spool, logs,
# pid files); nothing is written outside it.  The clients (sbatch, squeue,
# kiln) find the cluster through SLURM_CONF: `. DIR/env.sh`.  The ports are
# chosen free at start, so several clusters (several test runs) can live on
# one machine.  Starting over a running DIR stops it first.  Needs root (the
# daemons run as root) and the packages of `scripts/deps.sh --test`.
#
# Environment: SLURM_LOCAL_SLURMD_TIMEOUT (s, default 5) and
# SLURM_LOCAL_MESSAGE_TIMEOUT (s, default 3): how long a silent slurmd may be
# quiet before its node is DOWN and its jobs end NODE_FAIL.  With these a lost
# node is noticed in about 12 s (Slurm's defaults, 300 and 10: minutes).
set -euo pipefail

die() { echo "slurm-local: $*" >&2; exit 1; }
say() { echo "slurm-local: $*" >&2; }

cmd=${1:-}
DIR=${2:-}
[ -n "$cmd" ] && [ -n "$DIR" ] || die "usage: slurm-local.sh start|stop|status|kill-node|revive-node DIR [N|NODE]"
case $DIR in /*) ;; *) DIR=$PWD/$DIR ;; esac
export SLURM_CONF=$DIR/slurm.conf
MARK=$DIR/.slurm-local

# the pid in a pid file, if that process is alive and is `comm`
alive_pid() { # FILE COMM
	local p
	p=$(cat "$1" 2>/dev/null) || return 0
	[[ $p =~ ^[0-9]+$ ]] || return 0
	[ "$(cat "/proc/$p/comm" 2>/dev/null)" = "$2" ] && echo "$p"
	return 0
}

# SIGTERM to every pid given, SIGKILL to those still there after $1 s
end_pids() { # GRACE PID...
	local grace=$1 p i left; shift
	[ $# -gt 0 ] || return 0
	kill -TERM "$@" 2>/dev/null || true
	for ((i = 0; i < grace * 10; i++)); do
		left=0
		for p in "$@"; do kill -0 "$p" 2>/dev/null && left=1; done
		[ $left = 0 ] && return 0
		sleep 0.1
	done
	kill -KILL "$@" 2>/dev/null || true
}

# slurmstepd processes of this cluster's jobs, found by the node log they
# keep open (slurmstepd overwrites its environment with its title); with a
# NODE, only that node's
stepds() { # [NODE]
	local p want=$DIR/log/slurmd-${1:-*}.log f
	for p in /proc/[0-9]*; do
		[ "$(cat "$p/comm" 2>/dev/null)" = slurmstepd ] || continue
		for f in "$p"/fd/*; do
			# shellcheck disable=SC2053
			[[ $(readlink "$f" 2>/dev/null) == $want ]] && { echo "${p#/proc/}"; break; }
		done
	done
	return 0
}

# every descendant of the given pids
descendants() { # PID...
	local p c
	for p in "$@"; do
		for c in $(cat /proc/"$p"/task/*/children 2>/dev/null); do
			echo "$c"
			descendants "$c"
		done
	done
	return 0
}

# TCP ports in LISTEN state, in decimal
listening() {
	awk 'FNR > 1 && $4 == "0A" { split($2, a, ":"); print strtonum("0x" a[2]) }' /proc/net/tcp /proc/net/tcp6 2>/dev/null
}

# a base port with `n` free ports after it
free_ports() { # N
	local used base i ok tries
	used=" $(listening | tr '\n' ' ') "
	for ((tries = 0; tries < 200; tries++)); do
		base=$((20000 + RANDOM % 40000))
		ok=1
		for ((i = 0; i < $1; i++)); do
			[[ $used == *" $((base + i)) "* ]] && ok=0
		done
		[ $ok = 1 ] && { echo $base; return; }
	done
	die "no free ports found"
}

write_conf() { # NODES CTLD_PORT SLURMD_PORT
	local n=$1 cport=$2 dport=$3 host cpus mem cpn task
	host=$(hostname -s 2>/dev/null || uname -n)
	cpus=$(nproc)
	mem=$(awk '/^MemTotal:/ { print int($2 / 1024) }' /proc/meminfo)
	cpn=$((cpus / n)); [ $cpn -ge 1 ] || cpn=1
	# one node: pin tasks to cores; several on one host would all pin to "CPU 0"
	task=task/affinity; [ "$n" = 1 ] || task=task/none
	cat >"$SLURM_CONF" <<EOF
# made by kiln's scripts/slurm-local.sh: a throw-away cluster on one machine
ClusterName=kilnlocal
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$cport
SlurmdPort=$dport
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$DIR/munge/socket
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool/%n
SlurmctldPidFile=$DIR/run/slurmctld.pid
SlurmdPidFile=$DIR/run/slurmd-%n.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=$task
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
# array tasks start in 3 s waves with the default batch_sched_delay; a job
# whose dependency is met (kiln's merge job) waits for the next pass otherwise
SchedulerParameters=batch_sched_delay=0,sched_min_interval=0,sched_interval=2,bf_interval=2
# an impossible request fails at submission instead of pending for ever
EnforcePartLimits=ALL
MpiDefault=none
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=${SLURM_LOCAL_SLURMD_TIMEOUT:-5}
InactiveLimit=0
KillWait=5
MessageTimeout=${SLURM_LOCAL_MESSAGE_TIMEOUT:-3}
Waittime=0
# finished jobs stay visible to squeue -t all and scontrol for 10 minutes
MinJobAge=600
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/filetxt
JobCompLoc=$DIR/log/jobcomp.txt
NodeName=n[1-$n] NodeHostname=$host NodeAddr=127.0.0.1 Port=$dport-$((dport + n - 1)) CPUs=$cpn RealMemory=$((mem / n)) State=UNKNOWN
PartitionName=main Nodes=n[1-$n] Default=YES MaxTime=INFINITE State=UP
EOF
}

start_munge() {
	local d=$DIR
	# munged refuses a socket whose every folder is not searchable by all
	while [ "$d" != / ]; do
		d=$(dirname "$d")
		[ "$(( 0$(stat -c %a "$d") & 1 ))" = 1 ] || die "$d is not searchable by all (chmod o+x), as munged needs"
	done
	mkdir -p "$DIR/munge" "$DIR/munge-key"
	# munged wants its socket folder searchable by all, its key private
	chmod 0755 "$DIR" "$DIR/munge"
	chmod 0700 "$DIR/munge-key"
	head -c 1024 /dev/urandom >"$DIR/munge-key/key"
	chmod 0400 "$DIR/munge-key/key"
	munged --key-file="$DIR/munge-key/key" --socket="$DIR/munge/socket" \
		--pid-file="$DIR/run/munged.pid" --log-file="$DIR/log/munged.log" \
		--seed-file="$DIR/munge-key/seed" </dev/null >>"$DIR/log/start.log" 2>&1 ||
		die "munged did not start (see $DIR/log/munged.log)"
}

start_slurmd() { # NODE
	SLURM_LOCAL_NODE=$1 slurmd -N "$1" </dev/null >>"$DIR/log/start.log" 2>&1 ||
		die "slurmd $1 did not start (see $DIR/log/slurmd-$1.log)"
}

wait_idle() { # N TIMEOUT_S
	local i states
	for ((i = 0; i < $2 * 20; i++)); do
		states=$(sinfo -h -N -o '%t' 2>/dev/null | sort -u | tr '\n' ' ')
		[ "$states" = "idle " ] && [ "$(sinfo -h -N -o '%N' 2>/dev/null | wc -l)" = "$1" ] && return 0
		sleep 0.05
	done
	tail -n 20 "$DIR/log/slurmctld.log" >&2 || true
	die "nodes not idle after $2 s (states: $states)"
}

do_start() { # N
	local n=${1:-1} cport i
	[[ $n =~ ^[1-9][0-9]?$ ]] || die "N must be 1 to 99, not '$n'"
	[ "$(id -u)" = 0 ] || die "needs root (the daemons run as root)"
	for b in munged slurmctld slurmd sbatch squeue; do
		command -v "$b" >/dev/null || die "$b not found: run scripts/deps.sh --test"
	done
	if [ -e "$DIR" ]; then
		[ -e "$MARK" ] || [ -z "$(ls -A "$DIR")" ] || die "$DIR is not empty and was not made by slurm-local.sh"
		[ -e "$MARK" ] && do_stop
		rm -rf "$DIR"
	fi
	mkdir -p "$DIR"/{run,log,state,spool}
	touch "$MARK"
	echo "$n" >"$DIR/nodes"
	cport=$(free_ports $((n + 1)))
	write_conf "$n" "$cport" $((cport + 1))
	printf 'export SLURM_CONF=%q\n' "$SLURM_CONF" >"$DIR/env.sh"
	start_munge
	slurmctld </dev/null >>"$DIR/log/start.log" 2>&1 || die "slurmctld did not start (see $DIR/log/slurmctld.log)"
	# slurmd registers at once when the controller answers, else a second later
	for ((i = 0; i < 200; i++)); do scontrol ping 2>/dev/null | grep -q UP && break; sleep 0.05; done
	for ((i = 1; i <= n; i++)); do start_slurmd "n$i"; done
	wait_idle "$n" 30
	echo "export SLURM_CONF=$SLURM_CONF"
}

do_stop() {
	[ -e "$MARK" ] || { say "$DIR: nothing to stop"; return 0; }
	local ctld dl munge i n pids
	ctld=$(alive_pid "$DIR/run/slurmctld.pid" slurmctld)
	if [ -n "$ctld" ]; then
		scancel --full --quiet --user=root 2>/dev/null || true
		for ((i = 0; i < 100; i++)); do [ -z "$(squeue -h -o %A 2>/dev/null)" ] && break; sleep 0.1; done
	fi
	# what is left of the jobs, then the daemons (slurm's together: each takes ~2 s)
	pids=$(stepds)
	[ -z "$pids" ] || kill -KILL $pids $(descendants $pids) 2>/dev/null || true
	dl=$(for f in "$DIR"/run/slurmd-*.pid; do alive_pid "$f" slurmd; done)
	end_pids 15 $dl $ctld
	munge=$(alive_pid "$DIR/run/munged.pid" munged)
	end_pids 5 $munge
	return 0
}

do_status() {
	local f p name rc=0
	for f in "$DIR"/run/*.pid; do
		[ -e "$f" ] || continue
		name=$(basename "$f" .pid)
		p=$(alive_pid "$f" "${name%%-*}")
		if [ -n "$p" ]; then echo "$name: running (pid $p)"; else echo "$name: not running"; rc=1; fi
	done
	sinfo -N -o '%N %t %E' 2>/dev/null || { echo "slurmctld: not answering"; rc=1; }
	return $rc
}

# a lost node: its daemon, its job steps and their processes all die at once
do_kill_node() { # NODE
	local node=$1 d pids
	d=$(alive_pid "$DIR/run/slurmd-$node.pid" slurmd)
	pids=$(stepds "$node")
	[ -n "$d$pids" ] || die "node $node has no slurmd or job running"
	kill -KILL $d $pids $(descendants $pids) 2>/dev/null || true
}

case $cmd in
start) do_start "${3:-1}" ;;
stop) do_stop ;;
status) do_status ;;
kill-node) [ -n "${3:-}" ] || die "kill-node DIR NODE"; do_kill_node "$3" ;;
revive-node) [ -n "${3:-}" ] || die "revive-node DIR NODE"; start_slurmd "$3" ;;
*) die "unknown command '$cmd' (start, stop, status, kill-node, revive-node)" ;;
esac
