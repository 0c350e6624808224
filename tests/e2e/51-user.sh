# platform.user for real (as root): the benchmark runs as that unprivileged
# user with a fresh home, cannot write kiln's results, and gets its limits;
# kiln checks all of it in a sanity child before the first pexec.
source "$KILN_ROOT/tests/lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root"
command -v useradd >/dev/null || skip "no useradd"
U=kiln-e2e-user
export KILN_HOME_BASE="$T/homes"
trap 'userdel "$U" 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
cd "$T"
chmod 755 "$T"
cat > probe.py <<'P'
import json, os, resource, sys
fd = int(os.environ["KILN_RESULT_FD"])
n = int(os.environ["KILN_ITERATIONS"])
res = sys.argv[1]
try:
    open(res, "r+b").close(); wrote = 1
except OSError:
    wrote = 0
home = os.environ.get("HOME", "")
leftover = int(os.path.exists(os.path.join(home, "leftover")))
open(os.path.join(home, "leftover"), "w").close()
with open(sys.argv[2], "a") as f:  # who ran, for the commands that run one pexec
    f.write("%d\n" % os.getuid())
recs = {"uid": os.getuid(), "can_write_results": wrote, "home_had_leftover": leftover,
        "stack_mb": resource.getrlimit(resource.RLIMIT_STACK)[0] // (1 << 20),
        "nice": os.nice(0), "cpus": len(os.sched_getaffinity(0))}
with open(os.path.join(os.environ["KILN_INSTR_DIR"], "probe.kiln.jsonl"), "w") as f:
    for k, v in recs.items():
        f.write(json.dumps({"name": k, "value": v}) + "\n")
os.write(fd, b'{"kiln":1,"clock":"monotonic","counters":[]}\n')
for i in range(n):
    os.write(fd, b'{"i":%d,"wall_ns":1000}\n' % i)
os.write(fd, b'{"done":true}\n')
P
chmod 644 probe.py
touch uids.txt && chmod 666 uids.txt
mkdir -p benchmarks/b/probe && touch benchmarks/b/probe/x
cat > u.yaml <<Y
pexecs: 2
iterations: 2
vms:
  p: {plugin: external, runner: [/usr/bin/python3, $T/probe.py, $T/u.kiln.db, $T/uids.txt], language: probe, entry: x}
benchmarks: {b: 1}
limits: {stack_mb: 16}
platform: {user: $U, nice: 5, pin_cpus: ["0"]}
Y
"$KILN" run -q u.yaml 2>err.txt || fail "run as $U: $(cat err.txt)"
uid=$(id -u "$U")
v() { sqlite3 u.kiln.db "SELECT GROUP_CONCAT(CAST(value AS INTEGER)) FROM scalars WHERE name='$1'"; }
assert_eq "$(v uid)" "$uid,$uid" "benchmark uid"
assert_eq "$(v can_write_results)" "0,0" "results not writable by the benchmark"
assert_eq "$(v home_had_leftover)" "0,0" "a fresh home each pexec"
assert_eq "$(v stack_mb)" "16,16" "stack limit"
assert_eq "$(v nice)" "5,5" "nice"
assert_eq "$(v cpus)" "1,1" "pinned to one CPU"
sqlite3 u.kiln.db "SELECT value FROM audit WHERE name='sanity'" | grep -q . || fail "no sanity report stored"

# kiln stat and kiln profile run the benchmark as that user too, under a
# perf that keeps root's privileges
: >uids.txt
"$KILN" stat u.yaml --key b:p >stat.txt 2>&1 || fail "stat as $U: $(cat stat.txt)"
assert_eq "$(cat uids.txt)" "$uid" "kiln stat: benchmark uid"
: >uids.txt
"$KILN" profile u.yaml --key b:p -o prof >prof.txt 2>&1 || fail "profile as $U: $(cat prof.txt)"
assert_eq "$(cat uids.txt)" "$uid" "kiln profile: benchmark uid"
[ -s prof/perf.data ] || fail "profile: no perf.data"
echo ok
