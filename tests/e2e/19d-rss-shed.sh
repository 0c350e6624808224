# kiln's memory while a benchmark runs (bench/pexec's RSS row): what only
# the start needed is given back before the pexec loop.  Pages that kiln's
# files brought in go, read-only data and libraries shared with other
# processes included: of the dynamic loader (which the loop never enters:
# kiln binds at start, -z now) no page of its files stays, only the copies
# it relocated (anonymous).  The identity cache
# (<state>/cache/ids.db, every VM and file kiln has seen on the machine)
# is made large here, a few MiB (as one JSON file, jansson held it in some
# 25 MiB); while the benchmark sleeps, kiln's anonymous memory must be far
# below that, and its whole RSS within twice the 4 MiB target.  Sizes, not
# times: the load of the machine does not move them.  The cache is intact
# after the run.
source "$KILN_ROOT/tests/lib.sh"
cd "$T"
export KILN_STATE_DIR="$T/state"
cat > exp.yaml <<'Y'
pexecs: 1
iterations: 1
vms: {t: {plugin: command, path: /bin/sleep, args: ["{param}"]}}
benchmarks: {nap: 0}
Y
# a first run makes the state folder and its cache as kiln wants them
out=$("$KILN" run -q exp.yaml 2>&1) || fail "first run: $out"
ids=state/cache/ids.db
[ -f $ids ] || fail "no identity cache after a run"
# 24 kinds of 1,000 entries (the cache's bound per kind is 1,024)
python3 "$KILN_ROOT/tests/helpers/fill_idcache.py" $ids 1000 $(seq -f pad%g 0 23) > /dev/null
size=$(stat -c %s $ids)
[ "$size" -gt 4000000 ] || fail "the cache written is only $size bytes"
rm -f exp.kiln.db*
sed -i 's/nap: 0/nap: 4/' exp.yaml
"$KILN" run -q exp.yaml > run.log 2>&1 &
pid=$!
# kiln's own process: under make test-valgrind, the tool under the wrapper;
# the pexec by its command line (kiln may first run `/bin/sleep --version`)
find_kid() {
	kid=$(pgrep -P $pid -fx '/bin/sleep 4' | head -1)
	[ -z "$kid" ] && kid=$(for c in $(pgrep -P $pid); do pgrep -P "$c" -fx '/bin/sleep 4'; done | head -1)
	[ -n "$kid" ]
}
wait_until 30 find_kid
[ -n "$kid" ] || { cat run.log; fail "the benchmark (sleep) never ran"; }
kiln=$(awk '{print $4}' /proc/$kid/stat)
sleep 0.5
anon=$(awk '/^RssAnon:/ {print $2}' /proc/$kiln/status)
# the loader's pages that are its file's (Rss less the private copies), KiB
ld_file=$(awk '/^[0-9a-f]+-[0-9a-f]+ / { ld = $6 ~ /\/ld-linux/ } ld && /^Rss:/ { r += $2 } ld && /^Anonymous:/ { a += $2 }
	END { print r - a }' /proc/$kiln/smaps)
rss=$(awk '/^VmRSS:/ {print $2}' /proc/$kiln/status)
wait $pid || { cat run.log; fail "kiln run failed"; }
echo "kiln while the benchmark ran: VmRSS $rss KiB, RssAnon $anon KiB (cache $size bytes), the loader's file pages $ld_file KiB"
case "${O:-build}" in *asan*) skip_bound="the sanitizer's shadow memory and quarantine" ;; esac
[ -n "${KILN_VALGRIND:-}" ] && skip_bound="valgrind's own memory is measured"
if [ -z "${skip_bound:-}" ]; then
	[ "$anon" -lt 4096 ] || fail "kiln kept $anon KiB of anonymous memory while the benchmark ran (the identity cache of $size bytes not given back?)"
	[ "$rss" -lt 8192 ] || fail "kiln's RSS while the benchmark ran: $rss KiB"
	[ "$ld_file" = 0 ] || fail "$ld_file KiB of the dynamic loader's file pages stayed in kiln while the benchmark ran"
else
	echo "sizes not checked: $skip_bound"
fi
# the cache survives, with the entries
assert_eq "$(sqlite3 $ids "PRAGMA integrity_check; SELECT COUNT(*) FROM ids WHERE kind = 'pad23'")" "ok
1000" "the identity cache afterwards"
assert_eq "$(sqlite3 exp.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status='ok'")" 1 "pexecs ok"
