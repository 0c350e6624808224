# A run whose last fold of the pexec log fails (the disk filled during the
# run: the log's space is reserved, the results file's is not) exits 5
# saying where its pexecs are, and the next `kiln run` folds them in.  It
# exited 0 with "3 pexecs done, 0 pending" while the results file held
# none of them (they were only in RESULTS-log): the fold after the loop
# ignored its error.
source "$KILN_ROOT/tests/lib.sh"
cd "$T"
[ "$(id -u)" = 0 ] || skip "needs root (a tmpfs)"
mkdir fs
mount -t tmpfs -o size=3m tmpfs fs || skip "cannot mount a tmpfs"
trap 'umount -l "$T/fs" 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
cd fs
# each pexec fills what is left of the disk (short pexecs: they all go to the log)
cat > r.yaml <<Y
pexecs: 3
iterations: 1
vms:
  s: {plugin: command, path: /bin/sh}
benchmarks:
  a: {param: 0, args: ["-c", "dd if=/dev/zero of=$T/fs/fill-\$KILN_PEXEC bs=4k 2>/dev/null; true"]}
Y
"$KILN" run -q r.yaml 2>"$T/err.txt"; rc=$?
assert_eq "$rc" 5 "the fold on a full disk: $(cat "$T/err.txt")"
assert_contains "$(cat "$T/err.txt")" "the disk is full; the finished pexecs stay in $T/fs/r.kiln.db-log"
rm -f fill-*
"$KILN" status r.kiln.db >"$T/out.txt" 2>&1
assert_contains "$(cat "$T/out.txt")" "3 finished pexec(s) are kept in r.kiln.db-log"
"$KILN" run -q r.yaml 2>"$T/err.txt" || fail "the next run: $(cat "$T/err.txt")"
assert_eq "$(sqlite3 r.kiln.db "SELECT status||' '||attempts FROM pexecs ORDER BY num" | tr '\n' ' ')" \
	"ok 1 ok 1 ok 1 " "the pexecs folded in, none run twice"
assert_eq "$(sqlite3 r.kiln.db "SELECT COUNT(*) FROM iterations")" 3 "their iterations"
echo ok
