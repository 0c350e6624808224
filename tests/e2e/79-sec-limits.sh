#!/bin/bash
# Issue 27: the benchmark's resources are bounded by default and by
# limits:, and a bound a pexec hits fails that pexec with its reason while
# kiln runs on.  As a real benchmark user: a process bomb (limits.processes),
# a memory hog (limits.memory_mb), a file over limits.file_mb, a home
# filled past limits.disk_mb.  The processes bound by each path kiln has:
# the cgroup v1 pids controller this machine mounts, RLIMIT_NPROC alone
# when no cgroup can be had (the real cgroup v2 hierarchy here has no pids
# controller), and cgroup v2 on a fake tree (KILN_CGROUP_FS), where the
# runner plays the kernel and counts a hit in pids.events.
source "$KILN_ROOT/tests/lib.sh"
sec_user kiln-sec-lim
command -v python3 >/dev/null || skip "no python3"
: > seen.txt
chmod 666 seen.txt
cat > b.py <<'PY'
import os, sys, time
what, pexec = sys.argv[1], os.environ["KILN_PEXEC"]
def note(s):
    with open(os.environ["SEEN"], "a") as f:
        f.write("%s %s %s\n" % (what, pexec, s))
if what == "procs":  # start children until the bound says no, and survive it
    kids, failed = [], 0
    for i in range(400):
        try:
            pid = os.fork()
        except OSError:
            failed += 1
            continue
        if pid == 0:
            time.sleep(30)
            os._exit(0)
        kids.append(pid)
    note("started %d failed %d" % (len(kids), failed))
elif what == "memory":
    b = bytearray(400 << 20)
    for i in range(0, len(b), 4096):
        b[i] = 1
elif what == "file":
    with open(os.path.join(os.environ["HOME"], "big"), "wb") as f:
        f.write(b"x" * (3 << 20))
elif what == "disk":
    try:
        with open(os.path.join(os.environ["HOME"], "fill"), "wb") as f:
            for i in range(64):
                f.write(b"x" * (1 << 20))
    except OSError as e:
        note("disk %s" % e.strerror)
out = os.fdopen(int(os.environ["KILN_RESULT_FD"]), "w")
out.write('{"kiln":1,"clock":"monotonic","counters":[]}\n')
for i in range(int(os.environ["KILN_ITERATIONS"])):
    out.write('{"i":%d,"wall_ns":1000}\n' % i)
out.write('{"done":true}\n')
PY
chmod 644 b.py
# CONFIG NAME WHAT LIMITS [USER]
conf() {
	cat > $1.yaml <<Y
pexecs: 2
iterations: 1
vms:
  v: {plugin: external, runner: [/usr/bin/python3, $T/b.py, $2], language: evil, entry: x, env: {SEEN: $T/seen.txt}}
benchmarks: {b: 1}
limits: {$3}
$([ -n "${4:-}" ] && echo "platform: {user: $U}")
Y
}
run() { # NAME: runs it, its exit status in rc, stderr in err.txt
	timeout 120 "$KILN" run -q $1.yaml 2>err.txt; rc=$?
	[ $rc = 124 ] && fail "$1: kiln hung"
	[ $rc = 1 ] || fail "$1: exit $rc, expected 1 (failed pexecs): $(cat err.txt)"
	assert_eq "$(sqlite3 $1.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status='failed'")" 2 "$1: failed pexecs"
}
err_of() { sqlite3 $1.kiln.db "SELECT error FROM pexecs WHERE num=${2:-0}"; }

# the cgroup v1 pids controller (this machine), then RLIMIT_NPROC alone
conf procs procs "processes: 40" user
run procs
assert_contains "$(err_of procs)" "limits.processes (40) reached" "procs: the reason"
assert_contains "$(grep '^procs 0 ' seen.txt)" "started 39 failed 361" "procs: what the bomb got"
tag=$(stat -c '%d %i' procs.kiln.db | { read -r d i; printf '%08x%08x' $((d & 0xffffffff)) $((i & 0xffffffff)); })
[ -e /sys/fs/cgroup/pids/kiln-$tag ] && fail "procs: its cgroup kiln-$tag was left"
: > seen.txt
conf procs2 procs "processes: 40" user
KILN_CGROUP_FS=/sys/fs/cgroup/unified "$KILN" run procs2.yaml 2>err.txt
assert_contains "$(cat err.txt)" "RLIMIT_NPROC bounds the benchmark user's processes" "procs2: what kiln says"
assert_contains "$(cat err.txt)" "is not given the pids and memory controllers" "procs2: why"
assert_contains "$(grep '^procs 0 ' seen.txt)" "started 39 failed 361" "procs2: RLIMIT_NPROC held the bomb"

# memory, file size, disk
conf memory memory "memory_mb: 100" user
run memory
assert_contains "$(err_of memory)" "limits.memory_mb (100 MiB) reached: the kernel's OOM killer ended" "memory: the reason"
conf file file "file_mb: 1" user
run file
assert_contains "$(err_of file)" "a file reached limits.file_mb (1 MiB)" "file: the reason"
assert_contains "$(err_of file 1)" "a file reached limits.file_mb (1 MiB)" "file: the reason (the second pexec, after the machine was emptied)"
conf disk disk "disk_mb: 8" user
run disk
assert_contains "$(err_of disk)" "limits.disk_mb (8 MiB) is full" "disk: the reason"
assert_contains "$(grep '^disk 1 ' seen.txt)" "No space left on device" "disk: the benchmark was told"

# cgroup v2 on a fake tree: kiln's cgroup, the controllers given, a hit counted by the "kernel"
mkdir fakecg
printf 'cpu io memory pids\n' > fakecg/cgroup.controllers
: > fakecg/cgroup.subtree_control
cat > hit.sh <<SH
#!/bin/sh
d=\$(ls -d $T/fakecg/kiln-*)
for f in pids.max memory.max cgroup.procs; do echo \$(cat \$d/\$f); done > $T/fake-seen.txt
[ "\$KILN_PEXEC" = 1 ] && echo "max 3" > \$d/pids.events
$sec_stream
SH
chmod 755 hit.sh
cat > fake.yaml <<Y
pexecs: 2
iterations: 1
vms:
  v: {plugin: external, runner: [$T/hit.sh], language: evil, entry: x}
benchmarks: {b: 1}
limits: {processes: 100, memory_mb: 200}
Y
KILN_CGROUP_FS=$T/fakecg "$KILN" run -q fake.yaml 2>err.txt; rc=$?
assert_eq $rc 1 "fake v2: exit ($(cat err.txt))"
assert_eq "$(sqlite3 fake.kiln.db "SELECT status FROM pexecs ORDER BY num")" "ok
failed" "fake v2: the pexec that hit the bound"
assert_contains "$(err_of fake 1)" "limits.processes (100) reached: 3 time(s)" "fake v2: the reason"
read pmax mmax procs < <(tr '\n' ' ' < fake-seen.txt)
[ "$pmax" -gt 100 ] && [ "$pmax" -le 104 ] || fail "fake v2: pids.max $pmax"
assert_eq "$mmax" $(((200 + 64) << 20)) "fake v2: memory.max"
[ "$procs" -gt 1 ] || fail "fake v2: kiln's pid in cgroup.procs: $procs"
assert_eq "$(cat fakecg/cgroup.subtree_control)" "-pids -memory" "fake v2: the controllers given back"
[ -z "$(ls -d fakecg/kiln-* 2>/dev/null)" ] || fail "fake v2: the session's cgroup was left"
echo ok
