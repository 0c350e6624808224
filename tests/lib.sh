# lib.sh - sourced by every end-to-end test: a fresh work dir, assertions,
# and helpers to run kiln and query a results file.
set -u
KILN=${KILN:-$KILN_ROOT/build/kiln}
T=$(mktemp -d /tmp/kiln-e2e.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
# kiln's state (its session record, caches, locks) in the test's folder: a test
# never writes into the machine's /var/lib/kiln, and never reads what another left
export KILN_STATE_DIR="$T/state"
fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "skipped: $*"; exit 77; }
assert_eq() { [ "$1" = "$2" ] || fail "${3:-values differ}: expected '$2', got '$1'"; }
assert_contains() { grep -q -- "$2" <<<"$1" || fail "${3:-output}: expected to contain '$2', got: $1"; }
sql() { sqlite3 "$1" "$2"; }
# gc_iterations DB N MAX: of the N iterations of DB's one pexec, those with a collection (its gc.count series)
# printed; fails when more than MAX
gc_iterations() {
	python3 - "$1" "$2" "$3" <<'PY'
import sqlite3, struct, sys
c = sqlite3.connect(sys.argv[1])
s = {n: struct.unpack("<%dd" % (len(v) // 8), v) for n, v in c.execute("SELECT name, vals FROM series")}
gc = [i for i, x in enumerate(s["gc.count"]) if x]
assert len(s["gc.count"]) == int(sys.argv[2])
print("iterations with a collection: %d %s" % (len(gc), gc[:10]))
sys.exit(1 if len(gc) > int(sys.argv[3]) else 0)
PY
}
# mem_bounded MB CMD...: CMD with at most MB of memory, its status kept: ulimit -v, or under ASan (whose
# shadow memory ulimit -v refuses) its own hard_rss_limit_mb
mem_bounded() {
	local mb=$1
	shift
	case "${O:-build}" in
	*asan*) ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}hard_rss_limit_mb=$mb" "$@" ;;
	*) (ulimit -v $((mb * 1000)); "$@") ;;
	esac
}
FAKE=$KILN_ROOT/${O:-build}/tests/helpers/fakerunner

# a tiny C benchmark suite of our own, so core tests do not depend on the bundled one
make_suite() {
	mkdir -p "$T/benchmarks/spin/c" "$T/benchmarks/spin2/c"
	cat >"$T/benchmarks/spin/c/bench.c" <<'C'
volatile long kiln_sink;
void run_iter(long param) { long x = 0; for (long i = 0; i < param; i++) x += i ^ (x >> 3); kiln_sink = x; }
C
	cp "$T/benchmarks/spin/c/bench.c" "$T/benchmarks/spin2/c/bench.c"
}

# a config refused before anything runs: exit 3, PATTERN in the message, no results file
config_refused() { # FILE PATTERN
	local out rc
	out=$("$KILN" run "$1" 2>&1); rc=$?
	[ $rc -eq 3 ] || fail "$1: exit $rc, expected 3: $out"
	assert_contains "$out" "$2" "$1"
	[ ! -e "${1%.yaml}.kiln.db" ] || fail "$1: a results file was made"
}

# wait_until SECONDS CMD [ARG...]: run CMD, quietly, every 0.05 s until it
# succeeds (0) or SECONDS of wall time have passed (1).  The one way a test
# waits for what a kiln in the background does; a condition that is not
# one command is a function of the test's.
wait_until() {
	local limit=$(($1 * 1000000)) start=${EPOCHREALTIME/[.,]/}
	shift
	until "$@" >/dev/null 2>&1; do
		((${EPOCHREALTIME/[.,]/} - start >= limit)) && return 1
		sleep 0.05
	done
}

# count rows: sql FILE QUERY
count_iterations() {
	sqlite3 "$1" "SELECT COALESCE(SUM(n),0) FROM iterations i JOIN pexecs p ON p.id=i.pexec_id WHERE p.status='ok'"
}

# peak RSS (VmHWM, KiB) of one process, not of its children: run CMD... in
# the background and sample /proc/PID/status until it ends; prints the peak
# on fd 3 of the caller via the file given first.  usage: peak_rss FILE CMD...
peak_rss() {
	local out=$1; shift
	"$@" & local pid=$! peak=0 v
	while kill -0 $pid 2>/dev/null; do
		v=$(awk '/^VmHWM:/ {print $2}' /proc/$pid/status 2>/dev/null)
		[ -n "$v" ] && [ "$v" -gt "$peak" ] && peak=$v
		sleep 0.02
	done
	wait $pid; local rc=$?
	echo "$peak" > "$out"
	return $rc
}

# The attack tests (tests/e2e/7x-sec-*): a real unprivileged system user for
# the benchmark, created by kiln through platform.user and removed (with
# every process it still has) when the test ends; kiln's state folder and
# the homes inside the test's folder; paths a test adds to SEC_MADE are
# removed too.  usage: sec_user NAME
sec_user() {
	[ "$(id -u)" = 0 ] || skip "needs root"
	command -v useradd >/dev/null || skip "no useradd"
	U=$1
	export KILN_STATE_DIR="$T/state" KILN_HOME_BASE="$T/homes"
	SEC_MADE=() # what a test made outside $T (in /tmp): removed with it
	trap 'pkill -9 -u "$U" 2>/dev/null; sleep 0.1; userdel "$U" 2>/dev/null; rm -rf "${SEC_MADE[@]}"; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
	userdel "$U" 2>/dev/null
	chmod 755 "$T"
	cd "$T"
	mkdir -p benchmarks/b/evil && touch benchmarks/b/evil/x
}
# the result stream of a well-behaved runner, from a shell script: sec_stream N
sec_stream='{ printf "{\"kiln\":1,\"clock\":\"monotonic\",\"counters\":[]}\n"; i=0; while [ $i -lt $KILN_ITERATIONS ]; do printf "{\"i\":%d,\"wall_ns\":1000}\n" $i; i=$((i+1)); done; printf "{\"done\":true}\n"; } >&3'
# live (not zombie: this machine's PID 1 may never reap) processes: live_of -u USER | live_of -f PATTERN
live_of() { pgrep "$@" 2>/dev/null | while read -r p; do ps -o stat= -p "$p" 2>/dev/null | grep -qv '^Z' && echo "$p"; done; }

# synthvm_builds FACTOR...: in the current folder, vm-FACTOR for each, a build of
# tests/helpers/synthvm whose iteration times are FACTOR times its base ($SYN is it)
synthvm_builds() {
	SYN=$KILN_ROOT/${O:-build}/tests/helpers/synthvm
	[ -x "$SYN" ] || fail "$SYN is not built"
	local f
	for f in "$@"; do
		printf '#!/bin/sh\nexec %s %s "$@"\n' "$SYN" "$f" >"vm-$f"
		chmod +x "vm-$f"
	done
}
