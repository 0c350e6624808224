# A track whose sessions cannot get the pexec environment they ask for
# stops, and loses nothing: kiln's sanity child (`kiln doctor
# --sanity-child`, started as a pexec is before every session) is kiln
# itself again.
#  1. kiln's file replaced while a track in rounds runs (an upgrade, a
#     rebuild): the later sessions' sanity checks run the kiln that runs
#     (/proc/self/exe), and every pexec of every commit is measured.
#     Before, each later session failed its check ("cannot run
#     .../kiln (deleted)") and its commit was recorded as measured with
#     the pexecs it had: 708 of 12,000 on a real track.
#  2. a sanity check that fails (here kiln started through the dynamic
#     loader, so that what runs kiln again is the loader): the track
#     stops with exit 3 and the check's error, its commits stay to be
#     measured, and the same track then resumes them.  Before, every
#     commit was recorded as measured, with no pexec, and the track
#     exited 0.
#  3. a commit whose VM fails one of its pexecs: its other pexecs are
#     recorded, and the track says so (a warning naming the commit and
#     its results file, kept for `kiln status --failures`; the count in
#     its last line), one at a time and in rounds.  Before, it said
#     nothing, the error was only in the history's runs.error, and the
#     results file with the failed pexec's output was removed.
#  4. a commit whose session fails otherwise (its VM's cleanup): the
#     warning quotes the session's error, the results file is kept.
#     A commit whose VM's setup fails (no pexec runs) is recorded failed.
#  5. a commit whose every pexec fails, compared in A/B rounds (track
#     --compare, bisect): the comparison ends at its cap.
source "$KILN_ROOT/tests/lib.sh"
source "$KILN_ROOT/tests/lib-history.sh"
history_test_tools
history_line repo 4
make_history_config exp/toy.yaml 5
# a copy of kiln outside its build tree, told where its own files are
mkdir bin
cp "$KILN" bin/kiln
export KILN_DATADIR=$KILN_ROOT KILN_LIBEXECDIR=$(dirname "$KILN")
pexecs() { sqlite3 "$1" "SELECT count(*) FROM pexecs WHERE status = 'ok'"; }

# 1. replaced while it runs
bin/kiln track exp/toy.yaml --repo repo -o h1.db --interleave all ..main 2> t1.err &
pid=$!
for _ in $(seq 1 600); do
	grep -q "round 2:" t1.err && break
	kill -0 $pid 2>/dev/null || break
	sleep 0.05
done
grep -q "round 2:" t1.err || { wait $pid; skip "the track ended before its second round: $(cat t1.err)"; }
cp "$KILN" bin/kiln.new && mv bin/kiln.new bin/kiln
wait $pid; rc=$?
assert_eq $rc 0 "the track with its kiln replaced: $(cat t1.err)"
grep -q "sanity check" t1.err && fail "a sanity check failed: $(cat t1.err)"
assert_eq "$(pexecs h1.db)" 20 "every pexec of the 4 commits measured: $(cat t1.err)"

# 2. a sanity check that fails: the track stops, nothing recorded as measured
ld=$(readlink -f /lib64/ld-linux-x86-64.so.2 2>/dev/null || true)
[ -x "$ld" ] || skip "no /lib64/ld-linux-x86-64.so.2 to start kiln through"
out=$("$ld" bin/kiln track exp/toy.yaml --repo repo -o h2.db --interleave all ..main 2>&1); rc=$?
assert_eq $rc 3 "a failed sanity check: $out"
assert_contains "$out" "sanity check of the pexec environment"
assert_eq "$(sqlite3 h2.db "SELECT count(*) FROM runs WHERE status = 'ok'")" 0 "no commit recorded as measured: $out"
out=$(bin/kiln track exp/toy.yaml --repo repo -o h2.db --interleave all ..main 2>&1) || fail "the same track, resumed: $out"
assert_eq "$(sqlite3 h2.db "SELECT count(*) FROM runs WHERE status = 'ok'")" 4 "the 4 commits measured: $out"
assert_eq "$(pexecs h2.db)" 20 "every pexec: $out"

# 3. one pexec of one commit fails
history_line repo3 3
history_vm_source 2000 5 '__attribute__((constructor)) static void fail2(void)
{
	const char *p = getenv("KILN_PEXEC");
	if (p && atoi(p) == 2)
		_exit(3);
}' > repo3/vm.c
git -C repo3 commit -q -am "c3: its second pexec fails"
bad=$(git -C repo3 rev-parse HEAD)
for mode in each rounds; do
	args=(); [ $mode = rounds ] && args=(--interleave all)
	out=$("$KILN" track exp/toy.yaml --repo repo3 -o h3-$mode.db "${args[@]}" ..main 2>&1) ||
		fail "$mode: a failed pexec stopped the track: $out"
	assert_contains "$out" "${bad:0:12}: measured with errors: 1 pexec(s) failed"
	# its results file is kept, with what the failed pexec said
	f=$(printf '%s\n' "$out" | sed -n 's/.*`kiln status --failures \(.*\)` says why.*/\1/p')
	[ -f "$f" ] || fail "$mode: the results file of the commit with errors was not kept: $out"
	st=$("$KILN" status --failures "$f" 2>&1) || true
	assert_contains "$st" "pexec 2: failed: exit status 3"
	assert_contains "$out" "4 measured (1 with errors, above)"
	assert_eq "$(pexecs h3-$mode.db)" 19 "$mode: the other 19 pexecs recorded: $out"
	assert_eq "$(sqlite3 h3-$mode.db "SELECT count(*) FROM runs WHERE status = 'ok' AND error IS NOT NULL")" 1 \
		"$mode: one commit measured with its error kept"
done

# 4. a commit whose session ends with an error that is not a failed pexec (its VM's cleanup fails after
#    every pexec ran): its pexecs are recorded, and the warning quotes the session's error
history_line repo4 3
touch repo4/cleanup-fails
git -C repo4 add cleanup-fails && git -C repo4 commit -q -m "c3: its VM's cleanup fails"
bad=$(git -C repo4 rev-parse HEAD)
sed 's|^    build: \(.*\)$|    build: \1\n    cleanup: [test, "!", -e, "{src}/cleanup-fails"]|' exp/toy.yaml > exp/cleanup.yaml
grep -q "cleanup:" exp/cleanup.yaml || fail "no cleanup in the config: $(cat exp/cleanup.yaml)"
out=$("$KILN" track exp/cleanup.yaml --repo repo4 -o h4.db ..main 2>&1) || fail "a failed cleanup stopped the track: $out"
assert_contains "$out" "${bad:0:12}: measured with errors (the pexecs that ran are recorded; results kept in "
assert_contains "$out" "cleanup"
f=$(printf '%s\n' "$out" | sed -n 's/.*results kept in \([^)]*\)).*/\1/p')
[ -f "$f" ] || fail "the results file of the commit with errors was not kept: $out"
assert_contains "$out" "4 measured (1 with errors, above)"
assert_eq "$(pexecs h4.db)" 20 "every pexec of the 4 commits recorded: $out"

# 4b. a commit whose VM's setup fails, so that no pexec runs: recorded failed (and skipped), not measured
#     with nothing (before, it was `ok` with no pexec, and the warning said the pexecs that ran were recorded)
rm repo4/cleanup-fails
touch repo4/setup-fails
git -C repo4 add -A && git -C repo4 commit -q -m "c4: its VM's setup fails"
bad=$(git -C repo4 rev-parse HEAD)
sed 's|^    build: \(.*\)$|    build: \1\n    setup: [test, "!", -e, "{src}/setup-fails"]|' exp/toy.yaml > exp/setup.yaml
out=$("$KILN" track exp/setup.yaml --repo repo4 -o h4b.db ..main 2>&1) || fail "a failed setup stopped the track: $out"
assert_contains "$out" "${bad:0:12}: the run failed before any pexec (recorded, skipped): "
assert_eq "$(sqlite3 h4b.db "SELECT r.status FROM runs r JOIN commits c ON c.id = r.commit_id WHERE c.hash = '$bad'")" failed \
	"the commit whose setup failed: $out"
assert_eq "$(pexecs h4b.db)" 20 "the 4 other commits' pexecs: $out"

# 5. a commit that builds but whose every pexec fails: its A/B rounds never pair, and kiln track --compare
#    and kiln bisect end at their caps (2 x --pexecs rounds; --max-rounds) without a verdict.  Before, one
#    key's comparison asked for a batch more for ever.  track --compare calls the key lost on head and
#    exits 1 (a CI job must not pass it); kiln bisect prints no ratio (it printed 1.0000 (1.0000-1.0000)).
history_line repo5 2
history_vm_source 2000 5 'int main_(void);' | sed 's/^int main(void)$/int main(void) { _exit(3); }\nint main_(void)/' > repo5/vm.c
git -C repo5 commit -q -am "c2: every pexec fails"
dead=$(git -C repo5 rev-parse HEAD)
out=$(timeout 120 "$KILN" track exp/toy.yaml --repo repo5 -o h5.db --compare "$HIST_L0" "$dead" --pexecs 4 2>&1); rc=$?
[ $rc = 124 ] && fail "track --compare against a commit whose pexecs all fail did not end: $out"
assert_eq $rc 1 "track --compare, head's pexecs all failed: $out"
assert_contains "$out" "| \*\*no data on head\*\* |$"
assert_contains "$out" "1 with no data on head (no round paired"
assert_eq "$(sqlite3 h5.db "SELECT count(*) FROM pexecs p JOIN runs r ON r.id = p.run_id JOIN commits c ON c.id = r.commit_id
	WHERE c.hash = '$dead'")" 8 "2 x 4 rounds of the dead commit, then no more: $out"
out=$(timeout 120 "$KILN" bisect exp/toy.yaml --repo repo5 -o h5.db "$HIST_L0" "$dead" --key b --max-rounds 10 2>&1); rc=$?
[ $rc = 124 ] && fail "kiln bisect against a commit whose pexecs all fail did not end: $out"
assert_eq $rc 1 "bisect undecided: $out"
assert_contains "$out" "no culprit: too few rounds of GOOD and BAD paired to judge (0, "
case $out in *1.0000*) fail "a ratio of no rounds: $out" ;; esac
assert_eq "$(sqlite3 h5.db "SELECT count(*) FROM pexecs p JOIN runs r ON r.id = p.run_id JOIN commits c ON c.id = r.commit_id
	WHERE c.hash = '$dead'")" 18 "10 rounds at most of the bisection (8 stored with no pair counted as none): $out"
echo ok

