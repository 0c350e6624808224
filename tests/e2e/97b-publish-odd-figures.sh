# kiln publish on a history whose figures are odd (the history is input: a
# crafted file, or a VM that reports what it likes): the site is written, in
# bounded time and memory, and says what the figures are.
source "$KILN_ROOT/tests/lib.sh"
source "$KILN_ROOT/tests/lib-history.sh"
history_test_tools
history_line "$T/repo" 4 2
make_history_config exp/toy.yaml 2
sed -i 's/iterations: 30/iterations: 12/' exp/toy.yaml
H=$T/h.db
out=$("$KILN" track exp/toy.yaml --repo repo -o "$H" -q ..main 2>&1) || fail "track: $out"

# publish DB SITE: within 20 s and 1 GB, exit 0 (under ASan, whose shadow memory ulimit -v refuses,
# the bound is its own hard_rss_limit_mb)
publish_bounded() {
	local out rc
	out=$(mem_bounded 1000 timeout 20 "$KILN" publish "$1" -o "$2" -q --reports none 2>&1); rc=$?
	[ $rc = 124 ] && fail "publish of $1 did not finish in 20 s"
	assert_eq $rc 0 "publish of $1: $out"
}

# steady means an ulp apart, and one near DBL_MAX: the y axis' ticks were stepped to (v += step) and never got past
# the top (a step under the values' precision, or an infinite range): publish ran until it was out of memory
cp "$H" ulp.db
sqlite3 ulp.db "UPDATE run_keys SET steady_mean=0.002, steady_lo=0.002, steady_hi=0.002;
	UPDATE run_keys SET steady_mean=0.0020000000000000005, steady_lo=0.0020000000000000005,
	steady_hi=0.0020000000000000005 WHERE run_id=2"
publish_bounded ulp.db ulpsite
cp "$H" huge.db
sqlite3 huge.db "UPDATE run_keys SET steady_mean=1.7e308, steady_lo=1.6e308, steady_hi=1.75e308 WHERE run_id=1"
publish_bounded huge.db hugesite
page=$(ls hugesite/k/*.html | head -1)
grep -q '<svg class="chart" id="steady"' "$page" || fail "no steady chart on $page"
true
