#!/bin/bash
# Issue 27: without a pids cgroup, RLIMIT_NPROC of the benchmark user is
# the only process bound, and the kernel counts none of its refusals: kiln
# counts the user's processes left when the runner ends, and a pexec whose
# leftovers filled limits.processes (the runner's own place aside) fails
# with the reason.  As a real benchmark user, with no cgroup to be had (an
# empty tree as KILN_CGROUP_FS): the first pexec run forks until
# RLIMIT_NPROC says no and leaves its children sleeping; the second must
# run (it can fork again) and leave 5 children, under the bound, without
# failing; kiln runs on to the third.
source "$KILN_ROOT/tests/lib.sh"
sec_user kiln-sec-nproc
command -v python3 >/dev/null || skip "no python3"
: > seen.txt
chmod 666 seen.txt
cat > b.py <<'PY'
import os, time
with open(os.environ["SEEN"]) as f:
    nth = len(f.readlines())  # the schedule is shuffled: what a pexec does is by the order they run in
kids, want = 0, [100, 5, 0][nth]
while kids < want:
    try:
        if os.fork() == 0:
            time.sleep(30)
            os._exit(0)
    except OSError:
        break
    kids += 1
with open(os.environ["SEEN"], "a") as f:
    f.write("%d %s started %d of %d\n" % (nth, os.environ["KILN_PEXEC"], kids, want))
os.execv("/bin/sh", ["sh", os.environ["STREAM"]])  # the same process, in its place: no fork
PY
echo "$sec_stream" > stream.sh
chmod 644 b.py stream.sh
cat > n.yaml <<Y
pexecs: 3
iterations: 1
vms:
  v: {plugin: external, runner: [/usr/bin/python3, $T/b.py], language: evil, entry: x, env: {SEEN: $T/seen.txt, STREAM: $T/stream.sh}}
benchmarks: {b: 1}
limits: {processes: 20}
platform: {user: $U}
Y
mkdir nocg
KILN_CGROUP_FS=$T/nocg timeout 60 "$KILN" run n.yaml 2>err.txt; rc=$?
[ $rc = 124 ] && fail "kiln hung"
assert_eq $rc 1 "exit (failed pexecs): $(cat err.txt)"
assert_contains "$(cat err.txt)" "RLIMIT_NPROC bounds the benchmark user's processes" "no cgroup: what kiln says"
read -r _ bomb started <<< "$(sed -n 1p seen.txt)"
assert_eq "$started" "started 19 of 100" "RLIMIT_NPROC held the bomb"
assert_contains "$(sed -n 2p seen.txt)" "started 5 of 5" "the next pexec could fork"
assert_eq "$(sqlite3 n.kiln.db "SELECT num, status FROM pexecs WHERE status != 'ok'")" "$((10#$bomb))|failed" \
	"the bomb's pexec failed, the others did not"
assert_eq "$(sqlite3 n.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status = 'ok'")" 2 "the others"
assert_eq "$(sqlite3 n.kiln.db "SELECT error FROM pexecs WHERE status = 'failed'")" \
	"limits.processes (20) reached: 19 processes or threads of the benchmark user were left at the pexec's end (RLIMIT_NPROC; no pids cgroup counts what it refuses)" \
	"the reason"
[ -z "$(live_of -u $U)" ] || fail "processes of $U left: $(live_of -u $U)"
echo ok
