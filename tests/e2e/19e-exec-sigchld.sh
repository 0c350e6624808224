# How kiln learns that a pexec's process ended: one signalfd for SIGCHLD,
# made once, with SIGCHLD blocked in kiln and unblocked in the child.
#  - kiln started with SIGCHLD ignored (a parent's SIG_IGN survives
#    execve) still gets every exit status: before, its children vanished
#    unreaped and kiln spun at full CPU, deaf to SIGTERM.
#  - the benchmark starts with no signal blocked and stdin on /dev/null;
#    the sanity child says which signals it started with blocked (73
#    covers its check).
#  - starting a pexec makes no descriptor besides its two output pipes: no
#    pidfd, no /dev/null opened per process (counted with strace).
#  - the session record (which names the runner in flight, for the next
#    kiln should this one be killed) is written twice a pexec into its
#    mapped page, not by a pwrite each time (10 us on average here).
source "$KILN_ROOT/tests/lib.sh"
cd "$T"

cat > see.sh <<S
#!/bin/sh
# what the benchmark got: its blocked signals, what its stdin is (kiln's environment is its own)
{ grep '^SigBlk:' /proc/self/status; readlink /proc/self/fd/0; } > $T/seen.txt
S
chmod +x see.sh
cat > see.yaml <<Y
pexecs: 3
iterations: 1
vms: {t: {plugin: command, path: $T/see.sh}}
benchmarks: {noop: 0}
Y

# 1. SIGCHLD ignored by kiln's parent (python3 sets SIG_IGN, then execs kiln)
timeout -s KILL 60 python3 -c '
import os, signal, sys
signal.signal(signal.SIGCHLD, signal.SIG_IGN)
os.execv(sys.argv[1], sys.argv[1:])' "$KILN" run -q see.yaml
rc=$?
assert_eq "$rc" 0 "kiln started with SIGCHLD ignored: exit status (137: it hung and was killed)"
assert_eq "$(sqlite3 see.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status='ok' AND exit_status=0")" 3 \
	"pexecs with an exit status, SIGCHLD ignored"

# 2. what the benchmark started with
assert_eq "$(sed -n 1p seen.txt)" "SigBlk:	0000000000000000" "the benchmark's blocked signals"
assert_eq "$(sed -n 2p seen.txt)" "/dev/null" "the benchmark's stdin"

# 3. descriptors made per pexec: only the two output pipes
command -v strace >/dev/null || skip "strace is not installed (scripts/deps.sh --test)"
N=20
cat > many.yaml <<Y
pexecs: $N
iterations: 1
vms: {t: {plugin: command, path: /bin/true}}
benchmarks: {noop: 0}
Y
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	strace -f -qq -y -e trace=pidfd_open,signalfd4,pipe2,openat,pwrite64 -o many.trace "$KILN" run -q many.yaml ||
	fail "run under strace"
assert_eq "$(sqlite3 many.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status='ok'")" $N "pexecs done under strace"
pidfds=$(grep -c 'pidfd_open(' many.trace)
sfds=$(grep -c 'signalfd4(' many.trace)
nulls=$(grep -c 'openat(AT_FDCWD, "/dev/null"' many.trace)
assert_eq "$pidfds" 0 "pidfds made for $N pexecs"
[ "$sfds" -le 2 ] || fail "$sfds signalfds made for $N pexecs (one for the run)"
[ "$nulls" -le 4 ] || fail "/dev/null opened $nulls times for $N pexecs (once for the run, a few for set-up)"
recs=$(grep -c 'pwrite64([0-9]*</[^>]*/sessions/' many.trace)
[ "$(grep -c 'openat(.*/sessions/[0-9a-f]*"' many.trace)" -ge 1 ] || fail "no session record made: $(grep sessions many.trace | head -3)"
[ "$recs" -le 1 ] || fail "the session record written by pwrite $recs times for $N pexecs (once, at the start)"
echo ok
