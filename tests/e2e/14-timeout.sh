# A hung benchmark is killed at its timeout together with its process group,
# and a grandchild that left the group (setsid) is found and killed too.
source "$KILN_ROOT/tests/lib.sh"
make_suite
cd "$T"
cat > t.yaml <<Y
pexecs: 1
iterations: 3
vms:
  hang: {plugin: external, runner: [$FAKE, grandchild, "{iterations}"], language: c, entry: bench.c, env: {FAKE_PIDFILE: $T/gc.pid}}
  term: {plugin: external, runner: [$FAKE, ignoreterm, "{iterations}"], language: c, entry: bench.c}
benchmarks: {spin: 1}
limits: {timeout: 1}
Y
start=$(date +%s.%N)
"$KILN" run -q t.yaml 2>err.txt; rc=$?
took=$(echo "$(date +%s.%N) - $start" | bc)
assert_eq $rc 1 "exit status when pexecs time out"
assert_eq "$(sqlite3 t.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status='timeout'")" 2 "timeouts"
# each pexec ended at its timeout (1 s), +2 s grace for the one that ignores
# SIGTERM: its own recorded duration, with 1.5 s for a loaded machine's
# scheduling (the whole run's time also holds kiln's start and audit, which
# a loaded machine stretches; it only shows that nothing waited for the hang)
d_hang=$(sqlite3 t.kiln.db "SELECT p.duration_s FROM pexecs p JOIN keys k ON k.id = p.key_id WHERE k.vm='hang'")
d_term=$(sqlite3 t.kiln.db "SELECT p.duration_s FROM pexecs p JOIN keys k ON k.id = p.key_id WHERE k.vm='term'")
[ -n "$d_hang" ] && [ -n "$d_term" ] || fail "no durations recorded: '$d_hang' '$d_term'"
[ "$(echo "$d_hang >= 1 && $d_hang < 2.5" | bc)" = 1 ] || fail "the hung pexec took $d_hang s (timeout 1 s)"
[ "$(echo "$d_term >= 3 && $d_term < 4.5" | bc)" = 1 ] || fail "the pexec ignoring SIGTERM took $d_term s (timeout 1 s + 2 s grace)"
[ "$(echo "$took < 30" | bc)" = 1 ] || fail "took $took s"
pidfile=$(ls $T/gc.pid 2>/dev/null | head -1)
[ -n "$pidfile" ] || fail "grandchild never started"
gp=$(cat "$pidfile"); rm -f "$pidfile"
sleep 0.2
if kill -0 "$gp" 2>/dev/null; then kill -9 "$gp"; fail "grandchild $gp survived the timeout"; fi
# a grandchild that escapes and outlives a successful runner is reaped too
sed -i 's/grandchild/escape/; s/timeout: 1/timeout: 20/' t.yaml
rm -f t.kiln.db*
sed -i '/term:/d' t.yaml
"$KILN" run -q t.yaml || fail "escape run failed: $(cat err.txt)"
gp=$(cat $T/gc.pid); rm -f $T/gc.pid
sleep 0.2
if kill -0 "$gp" 2>/dev/null; then kill -9 "$gp"; fail "escaped grandchild $gp survived"; fi
assert_eq "$(sqlite3 t.kiln.db "SELECT status FROM pexecs")" ok "escape pexec status"
echo ok
