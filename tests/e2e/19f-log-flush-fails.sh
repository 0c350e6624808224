# A flush of the pexec log that fails loses nothing: EIO, injected by
# strace into the third fdatasync of RESULTS-log (the second pexec's
# record), makes that record go to the results file directly, as when its
# write fails, and so do the session's next ones; the run ends well with
# every pexec and iteration once, and the log is gone.
source "$KILN_ROOT/tests/lib.sh"
command -v strace >/dev/null || skip "strace is not installed (scripts/deps.sh --test)"
cd "$T"
cat > d.yaml <<Y
pexecs: 12
iterations: 1
durability: power
vms: {t: {plugin: command, path: /bin/true}}
benchmarks: {noop: 0}
Y
# a record's flush fails: EIO from the third fdatasync of the log
# (LeakSanitizer cannot run under ptrace: a sanitizer build's leak check is off here;
# KILN_LOG_FOLD_MS: every pexec short enough for the log, however slow strace makes it)
KILN_LOG_FOLD_MS=10000 ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -qq -o flush.trace -e trace=fdatasync -P "$T/d.kiln.db-log" -e inject=fdatasync:error=EIO:when=3 \
	"$KILN" run -q d.yaml 2>err.txt || fail "run with a failing flush: $(cat err.txt)"
grep -q "EIO.*(INJECTED)" flush.trace || fail "no flush of the log failed: $(cat flush.trace)"
assert_eq "$(sql d.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status='ok'")" 12 "every pexec ok after a failed flush"
assert_eq "$(count_iterations d.kiln.db)" 12 "every iteration kept"
assert_eq "$(sql d.kiln.db "SELECT COUNT(DISTINCT num) FROM pexecs")" 12 "each pexec once"
[ ! -e d.kiln.db-log ] || fail "the log is still there"
assert_eq "$(sql d.kiln.db 'PRAGMA integrity_check')" ok "integrity"
