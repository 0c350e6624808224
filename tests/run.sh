#!/bin/bash
# run.sh - the test runner behind `make test`: every unit test binary in
# $O/tests/ and every end-to-end script in tests/e2e/ (in name order), each
# counted as passed, failed or skipped (exit 77).  Ends with the plain line
# "N passed, N failed, N skipped" and exits non-zero when anything failed.
#   tests/run.sh [unit|e2e] [NAME-FILTER]
set -u
cd "$(dirname "$0")/.."
O=${O:-build}
export KILN_ROOT=$PWD
export KILN="$PWD/$O/kiln"
# make test-valgrind: kiln runs under memcheck
[ -n "${KILN_VALGRIND:-}" ] && KILN="$PWD/tests/valgrind-kiln.sh"
export O
which=${1:-all}
filter=${2:-}
pass=0 fail=0 skip=0 failed=()
tmp=$(mktemp -d /tmp/kiln-tests.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# the machine's own state folder (kiln's default): no test may write into it
# (each unit test gets its own, tests/lib.sh each e2e test); one that does fails
machine_state=/var/lib/kiln
[ "$(id -u)" = 0 ] || machine_state=/tmp/kiln-$(id -u)
unset KILN_STATE_DIR

one() {
	local name=$1; shift
	local log="$tmp/$(echo "$name" | tr / _).log"
	local t0=$(date +%s.%N)
	touch "$tmp/before"
	"$@" >"$log" 2>&1
	local rc=$?
	local wrote
	wrote=$(find "$machine_state" -newer "$tmp/before" -print 2>/dev/null | head -3 | tr '\n' ' ')
	if [ -n "$wrote" ] && [ "$rc" != 77 ]; then
		echo "the test wrote into the machine's state folder: $wrote" >>"$log"
		rc=1
	fi
	local dt=$(printf '%.1f' "$(echo "$(date +%s.%N) - $t0" | bc)")
	if [ $rc -eq 0 ]; then
		pass=$((pass + 1)); echo "PASS $name (${dt}s)"
	elif [ $rc -eq 77 ]; then
		skip=$((skip + 1)); echo "SKIP $name: $(tail -n 1 "$log")"
	else
		fail=$((fail + 1)); failed+=("$name"); echo "FAIL $name (exit $rc, ${dt}s)"
		tail -n 40 "$log" | sed 's/^/    /'
	fi
}

if [ "$which" = all ] || [ "$which" = unit ]; then
	for t in "$O"/tests/test_*; do
		[ -x "$t" ] || continue
		[ -n "$filter" ] && [[ "$t" != *"$filter"* ]] && continue
		one "unit/$(basename "$t")" env KILN_STATE_DIR="$tmp/state-$(basename "$t")" "$t"
	done
fi
if [ "$which" = all ] || [ "$which" = e2e ]; then
	for t in tests/e2e/*.sh; do
		[ -f "$t" ] || continue
		[ -n "$filter" ] && [[ "$t" != *"$filter"* ]] && continue
		one "e2e/$(basename "$t" .sh)" bash "$t"
	done
fi
echo
[ ${#failed[@]} -gt 0 ] && echo "failed: ${failed[*]}"
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
