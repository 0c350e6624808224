# Analyses are cached in the results file: the second report takes every key
# from the cache and says the same; other options or new data recompute.
source "$KILN_ROOT/tests/lib.sh"
make_suite
cd "$T"
cat > a.yaml <<Y
pexecs: 4
iterations: 30
vms: {native: {plugin: c}, fake: {plugin: external, runner: [$FAKE, ok, "{iterations}", "0"], language: c, entry: bench.c}}
benchmarks: {spin: 3000, spin2: 1000}
Y
"$KILN" run -q --max-pexecs 12 a.yaml || fail run
r1=$(KILN_DEBUG_CACHE=1 "$KILN" report a.kiln.db --format json 2>err1) || fail report1
assert_contains "$(cat err1)" "0 hits, 4 misses"
r2=$(KILN_DEBUG_CACHE=1 "$KILN" report a.kiln.db --format json 2>err2) || fail report2
assert_contains "$(cat err2)" "4 hits, 0 misses"
assert_eq "$r2" "$r1" "cached report"
KILN_DEBUG_CACHE=1 "$KILN" report a.kiln.db --steady 40% >/dev/null 2>err3 || fail report3
assert_contains "$(cat err3)" "0 hits, 4 misses"
# new options are new cache keys: warmup_stats' own delta, the replication of its errors
KILN_DEBUG_CACHE=1 "$KILN" report a.kiln.db --delta 0.001 >/dev/null 2>err5 || fail report5
assert_contains "$(cat err5)" "0 hits, 4 misses"
KILN_DEBUG_CACHE=1 "$KILN" report a.kiln.db --replicate-warmup-stats >/dev/null 2>err6 || fail report6
assert_contains "$(cat err6)" "0 hits, 4 misses"
KILN_DEBUG_CACHE=1 "$KILN" report a.kiln.db --replicate-warmup-stats >/dev/null 2>err7 || fail report7
assert_contains "$(cat err7)" "4 hits, 0 misses"
# an entry an older kiln wrote (method version 1) is never taken for one of this version's
sqlite3 a.kiln.db "UPDATE cache SET value=json_set(value,'\$.v',1) WHERE kind='analysis'"
KILN_DEBUG_CACHE=1 "$KILN" report a.kiln.db --format json >r8 2>err8 || fail report8
assert_contains "$(cat err8)" "0 hits, 4 misses"
assert_eq "$(cat r8)" "$r1" "report after an old cache entry"
# the remaining pexecs change the data of every key
"$KILN" run -q a.yaml || fail resume
KILN_DEBUG_CACHE=1 "$KILN" report a.kiln.db >/dev/null 2>err4 || fail report4
assert_contains "$(cat err4)" "misses"
grep -q "4 hits" err4 && fail "stale cache used after new pexecs"
# kiln diff says when two results come from different machines or settings
cp a.kiln.db b.kiln.db
"$KILN" diff a.kiln.db b.kiln.db >/dev/null 2>same.txt || fail "diff"
grep -q "different machines" same.txt && fail "same machine reported as different"
sqlite3 b.kiln.db "UPDATE audit SET value=json_set(value,'\$.uname.release','0.0.1-elsewhere') WHERE name='start'"
"$KILN" diff a.kiln.db b.kiln.db >/dev/null 2>other.txt || fail "diff 2"
assert_contains "$(cat other.txt)" "different machines or settings"
assert_contains "$(cat other.txt)" "kernel: .* vs 0.0.1-elsewhere"
# the cache entries of one report go in one transaction: a few flushes, not one a key
# (200 keys imported from a CSV made 200 commits)
if command -v strace >/dev/null; then
	python3 -c 'import sys
print("pexec_idx,bench,0,1,2")
for k in range(200):
	print("0,b%d:vm:v,0.01,0.011,0.012" % k)' > many.csv
	"$KILN" import many.csv -o many.kiln.db >/dev/null || fail "import of 200 keys"
	# (LeakSanitizer cannot work under ptrace: off for this run of a sanitized kiln)
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -qq -e trace=fdatasync,fsync -o many.trace "$KILN" report many.kiln.db >/dev/null || fail "report of 200 keys"
	n=$(grep -c sync many.trace)
	[ "$n" -le 20 ] || fail "report of 200 keys: $n flushes writing the analysis cache"
	KILN_DEBUG_CACHE=1 "$KILN" report many.kiln.db >/dev/null 2>many.err || fail "report of 200 keys, again"
	assert_contains "$(cat many.err)" "200 hits, 0 misses"
fi
# a read-only results file is still reported (without caching)
chmod a-w a.kiln.db
"$KILN" report a.kiln.db >/dev/null || fail "report of a read-only file"
chmod u+w a.kiln.db
echo ok
