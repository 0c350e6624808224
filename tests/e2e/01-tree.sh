#!/bin/bash
# The source tree keeps its promises to a fresh clone: no build outputs are
# committed (compiled Python, objects, shared objects), and `make test`
# installs the test packages itself before building anything.
source "$KILN_ROOT/tests/lib.sh"
cd "$KILN_ROOT"
git rev-parse --git-dir >/dev/null 2>&1 || skip "not a git checkout"
built=$(git ls-files | grep -E '(^|/)__pycache__/|\.pyc$|\.o$|\.so$|\.class$' | head -5)
[ -z "$built" ] || fail "build outputs are committed: $built"
make -n test 2>/dev/null | head -3 | grep -q 'scripts/deps.sh --test' || fail "make test does not install the test packages first"
echo ok
