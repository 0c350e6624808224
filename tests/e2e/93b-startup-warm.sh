# Issue 17.2, what a start whose machine and VMs have not changed does.
# (1) It reads its identities from the cache (<state>/cache/ids.db).  A VM probed under
# another key (the same executable with another env, another user or
# flag) is learned again, but its file's hash is still the cached one:
# that sha256 row, read back from the file, is an entry (it has no "ids":
# its key is its file's identity) and must not make the cache be emptied,
# which turned each start of one config into a cold one after the other
# ran.  Whether the audit's VM entry came from the cache is the audit's own
# `cached` flag.
# (2) The results file's making and the session's setup (schema, schedule,
# the audit) are not flushed commit by commit: the WAL is flushed once
# their commits are all written, before the first pexec starts, and so
# everything written to the WAL before the benchmark runs is on the disk
# when it does (strace: 6 flushes of the WAL before the pexec, 3 now).
source "$KILN_ROOT/tests/lib.sh"
cd "$T"
export KILN_STATE_DIR="$T/state"
DB=state/cache/ids.db
mkdir bin
cp /bin/true bin/vm
cat > a.yaml <<Y
pexecs: 1
vms: {v: {plugin: command, path: $T/bin/vm}}
benchmarks: {noop: 0}
Y
cat > b.yaml <<Y
pexecs: 1
vms: {v: {plugin: command, path: $T/bin/vm, env: {KILN_93B: "1"}}}
benchmarks: {noop: 0}
Y
run() { # N CONFIG: a fresh results file; prints whether the VM's entry was cached
	rm -f $2.kiln.db*
	"$KILN" run -q $2.yaml 2> err.$1 || { cat err.$1; fail "run $1"; }
	[ ! -s err.$1 ] || fail "run $1 ($2) said: $(cat err.$1)"
	"$KILN" audit --json $2.kiln.db > audit.$1 || fail "audit $1"
	python3 -c 'import json, sys; v = json.load(open(sys.argv[1]))["start"]["vms"][0]
assert v["sha256"] and v["version_status"] == 0, v
print(v["cached"])' audit.$1 || fail "run $1: the audit's VM is incomplete"
}
sha() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["start"]["vms"][0]["sha256"])' audit.$1; }
rows() { sqlite3 $DB "SELECT kind, COUNT(*) FROM ids WHERE kind IN ('vm', 'sha256') GROUP BY kind ORDER BY kind" | tr '\n' ' '; }

assert_eq "$(run 1 a)" False "run 1 (a, nothing cached)"
assert_eq "$(rows)" "sha256|1 vm|1 " "the cache after run 1"
# b: the VM under another key, its hash from the cache's sha256 row
assert_eq "$(run 2 b)" False "run 2 (b, its VM's key not cached yet)"
assert_eq "$(rows)" "sha256|1 vm|2 " "the cache after run 2 (both VM entries, one hash)"
assert_eq "$(sha 2)" "$(sha 1)" "the hash run 2 stored"
# each config again: both warm
assert_eq "$(run 3 a)" True "run 3 (a again)"
assert_eq "$(run 4 b)" True "run 4 (b again)"
# the binary changed: its entries are not believed, the hash is taken again
printf '\0' >> bin/vm
assert_eq "$(run 5 a)" False "run 5 (a, the VM's file changed)"
[ "$(sha 5)" != "$(sha 1)" ] || fail "run 5: the changed VM's hash is the old one"

# (2) a warm start of a, traced
command -v strace >/dev/null || skip "strace is not installed (scripts/deps.sh --test)"
run 6 a > /dev/null
rm -f a.kiln.db*
# (LeakSanitizer cannot work under ptrace: off for this run of a sanitized kiln)
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -qq -y -e trace=pwrite64,fdatasync,execve \
	-o setup.trace "$KILN" run -q a.yaml || fail "the traced run"
# up to the pexec (the VM started without --version: the audit's probe is cached):
# the WAL's flushes, and whether its last write was flushed
read -r flushes last_flushed < <(awk -v vm="$T/bin/vm" -v wal="$T/a.kiln.db-wal>" '
	seen { next }
	index($0, "execve(\"" vm "\", [\"" vm "\"]") { seen = 1; next }
	index($0, wal) && /pwrite64\(/ { written = 1 }
	index($0, wal) && /fdatasync\(/ { n++; written = 0 }
	END { print n + 0, written ? "no" : "yes" }' setup.trace)
grep -q "execve(\"$T/bin/vm\", \[\"$T/bin/vm\"\]" setup.trace || fail "the trace has no pexec of the VM"
assert_eq "$last_flushed" yes "the WAL's writes before the pexec, flushed before it started"
[ "$flushes" -ge 1 ] && [ "$flushes" -le 3 ] ||
	fail "the WAL was flushed $flushes times before the pexec (the setup's commits once, the pexec's mark: at most 3)"
echo ok
