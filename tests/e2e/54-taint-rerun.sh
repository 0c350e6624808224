# A pexec during which the kernel logged something unexpected is tainted,
# and with rerun_tainted it runs again at once; the rerun replaces what the
# tainted attempt stored.  The kernel log is a fake one (KILN_SYSROOT).
source "$KILN_ROOT/tests/lib.sh"
cd "$T"
mkdir -p root/dev root/proc
: > root/dev/kmsg
export KILN_SYSROOT="$T/root"
cat > noisy.sh <<'S'
#!/bin/sh
# the first attempt of each pexec makes the (fake) kernel log a line
[ -n "$FAKE_ROOT" ] || exit 9
m="$FAKE_ROOT/../tried-$KILN_PEXEC"
if [ ! -e "$m" ]; then touch "$m"; echo "3,99,1,-;BUG: soft lockup - CPU#1 stuck" >> "$FAKE_ROOT/dev/kmsg"; fi
fd=$KILN_RESULT_FD
echo '{"kiln":1,"clock":"monotonic","counters":[]}' >&$fd
i=0; while [ $i -lt "$KILN_ITERATIONS" ]; do echo "{\"i\":$i,\"wall_ns\":1000}" >&$fd; i=$((i+1)); done
echo '{"done":true}' >&$fd
S
chmod +x noisy.sh
mkdir -p benchmarks/b/sh && touch benchmarks/b/sh/x
cat > t.yaml <<Y
pexecs: 2
iterations: 3
vms: {n: {plugin: external, runner: [$T/noisy.sh], language: sh, entry: x, env: {FAKE_ROOT: $T/root}}}
benchmarks: {b: 1}
platform: {kmsg: warn, rerun_tainted: true}
Y
"$KILN" run -q t.yaml 2>err.txt || fail "run: $(cat err.txt)"
assert_eq "$(sqlite3 t.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status='ok' AND attempts=2")" 2 "both pexecs rerun once and ok"
assert_eq "$(sqlite3 t.kiln.db "SELECT COUNT(*) FROM iterations")" 2 "one iterations row per pexec"
assert_eq "$(count_iterations t.kiln.db)" 6 "iterations"
# without rerun_tainted the taint stays, with its reason
rm -f tried-* t.kiln.db*
sed -i 's/rerun_tainted: true/rerun_tainted: false/' t.yaml
"$KILN" run -q t.yaml 2>/dev/null
assert_eq "$(sqlite3 t.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status='tainted'")" 2 "tainted"
assert_contains "$(sqlite3 t.kiln.db "SELECT taint FROM pexecs LIMIT 1")" "soft lockup"
echo ok
