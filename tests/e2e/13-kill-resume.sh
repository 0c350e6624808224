# kill -9 of kiln at 50 random moments (KILN_KILLS), resumed each time, ends with exactly the
# planned pexecs and iterations: nothing lost, nothing duplicated.
source "$KILN_ROOT/tests/lib.sh"
make_suite
cd "$T"
KILLS=${KILN_KILLS:-50}
cat > k.yaml <<Y
pexecs: 8
iterations: 30
seed: 5
vms:
  native: {plugin: c}
  fake: {plugin: external, runner: [$FAKE, ok, "{iterations}"], language: c, entry: bench.c}
benchmarks: {spin: 20000, spin2: 20000}
Y
planned=32
for k in $(seq 1 "$KILLS"); do
	"$KILN" run -q k.yaml 2>/dev/null &
	pid=$!
	# a random moment in the first ~0.6 s
	sleep "0.$(( (RANDOM % 60) + 1 ))"
	kill -9 $pid 2>/dev/null
	wait $pid 2>/dev/null
	# the killed kiln's runner may still be finishing: kiln is its subreaper no more
	sleep 0.05
	done_now=$(sqlite3 k.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status='ok'" 2>/dev/null || echo 0)
	[ "$done_now" -le $planned ] || fail "more than planned after kill $k"
done
"$KILN" run -q k.yaml || fail "final resume failed"
assert_eq "$(sqlite3 k.kiln.db "SELECT COUNT(*) FROM pexecs")" $planned "schedule rows"
assert_eq "$(sqlite3 k.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status='ok'")" $planned "ok pexecs"
assert_eq "$(sqlite3 k.kiln.db "SELECT COUNT(*) FROM iterations")" $planned "iteration rows (one per pexec)"
assert_eq "$(count_iterations k.kiln.db)" $((planned * 30)) "iterations"
assert_eq "$(sqlite3 k.kiln.db "PRAGMA integrity_check")" ok "integrity"
# a changed config is refused with a diff, and --force continues
sed -i 's/seed: 5/seed: 6/' k.yaml
out=$("$KILN" run k.yaml 2>&1); rc=$?
assert_eq $rc 3 "changed config exit"
assert_contains "$out" "the config changed"
assert_contains "$out" "+seed: 6"
"$KILN" run -q --force k.yaml || fail "--force"
# the earlier config is kept beside the new one
assert_contains "$(sqlite3 k.kiln.db "SELECT value FROM meta WHERE name='config_text_before_force_1'")" "seed: 5"
assert_contains "$(sqlite3 k.kiln.db "SELECT value FROM meta WHERE name='config_text'")" "seed: 6"
"$KILN" run -q k.yaml || fail "after --force the new config is the stored one"
# --quick never overwrites a real experiment's results
out=$("$KILN" run -q --quick -o k.kiln.db k.yaml 2>&1); assert_eq $? 2 "--quick over real results"
assert_contains "$out" "not from --quick"
assert_eq "$(sqlite3 k.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status='ok'")" $planned "results untouched"
"$KILN" run -q --quick k.yaml || fail "--quick"
"$KILN" run -q --quick k.yaml || fail "--quick again (replaces the quick results)"
assert_eq "$(sqlite3 k.quick.kiln.db "SELECT COUNT(*) FROM pexecs")" 4 "quick: 1 pexec per key"
assert_eq "$(count_iterations k.quick.kiln.db)" 12 "quick: 3 iterations each"
echo ok
