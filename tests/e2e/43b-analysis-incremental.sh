# Adding pexecs to one key re-analyses that key only: the other keys'
# analyses come from the results file's cache, and the report equals one
# made from scratch (issue 30).
source "$KILN_ROOT/tests/lib.sh"
make_suite
cd "$T"
cat > a.yaml <<Y
pexecs: 3
iterations: 30
vms: {fake: {plugin: external, runner: [$FAKE, ok, "{iterations}", "0"], language: c, entry: bench.c}}
benchmarks: {spin: 3000, spin2: 1000, spin3: 2000}
Y
mkdir -p benchmarks/spin3/c && cp benchmarks/spin/c/bench.c benchmarks/spin3/c/
# 8 of the 9 pexecs: one key lacks its last
"$KILN" run -q --max-pexecs 8 a.yaml || fail run
assert_eq "$(sql a.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status='ok'")" 8 "pexecs run"
KILN_DEBUG_CACHE=1 "$KILN" report a.kiln.db --format json >/dev/null 2>err1 || fail report1
assert_contains "$(cat err1)" "0 hits, 3 misses, 3 analysed"
# the last pexec: one key's data changes, the two others' do not
"$KILN" run -q a.yaml || fail "the last pexec"
assert_eq "$(sql a.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status='ok'")" 9 "pexecs run"
KILN_DEBUG_CACHE=1 "$KILN" report a.kiln.db --format json >r2 2>err2 || fail report2
assert_contains "$(cat err2)" "2 hits, 1 misses, 1 analysed"
# what the cache gave, with the one key recomputed, is what a report from scratch says
cp a.kiln.db fresh.kiln.db
sql fresh.kiln.db "DELETE FROM cache WHERE kind='analysis'"
KILN_DEBUG_CACHE=1 "$KILN" report fresh.kiln.db --format json >r3 2>err3 || fail report3
assert_contains "$(cat err3)" "0 hits, 3 misses, 3 analysed"
# (but for the file's name)
grep -v '"source":' r2 >r2s
grep -v '"source":' r3 >r3s
[ "$(wc -l <r2s)" -gt 100 ] || fail "report too short: $(head -5 r2s)"
cmp -s r2s r3s || fail "the incremental report differs from one made from scratch: $(diff r2s r3s | head -5)"
echo ok
