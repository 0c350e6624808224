# lib.sh - sourced by every end-to-end test: a fresh work dir, assertions,
# and helpers to run kiln and query a results file.
set -u
KILN=${KILN:-$KILN_ROOT/build/kiln}
T=$(mktemp -d /tmp/kiln-e2e.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "skipped: $*"; exit 77; }
assert_eq() { [ "$1" = "$2" ] || fail "${3:-values differ}: expected '$2', got '$1'"; }
assert_contains() { grep -q -- "$2" <<<"$1" || fail "${3:-output}: expected to contain '$2', got: $1"; }
sql() { sqlite3 "$1" "$2"; }
