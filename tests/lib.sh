# lib.sh - sourced by every end-to-end test: a fresh work dir, assertions,
# and helpers to run kiln and query a results file.
set -u
KILN=${KILN:-$KILN_ROOT/build/kiln}
T=$(mktemp -d /tmp/kiln-e2e.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "skipped: $*"; exit 77; }
assert_eq() { [ "$1" = "$2" ] || fail "${3:-values differ}: expected '$2', got '$1'"; }
assert_contains() { grep -q -- "$2" <<<"$1" || fail "${3:-output}: expected to contain '$2', got: $1"; }
sql() { sqlite3 "$1" "$2"; }
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
