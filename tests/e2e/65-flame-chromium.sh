#!/bin/bash
# 65-flame-chromium.sh - the flame graphs of a profile, looked at in
# headless Chromium (issue 16.2): kiln profile writes DIR/flame.html, a
# self-contained page whose script draws the call stacks; the page shows as
# many samples as the profile has, for the whole pexec, the steady state
# (#phase=steady) and an iteration range (#it=2-3); its top list starts with
# the profile's hottest symbol; a search marks it; a zoom on it holds. The
# differential page (warmup vs steady state of one profile, and two
# profiles) shows both sides' counts. The speedscope and Firefox Profiler
# files hold every sample.
source "$KILN_ROOT/tests/lib.sh"
CHROME=$(command -v chromium || command -v chromium-browser || true)
[ -n "$CHROME" ] || skip "chromium not installed"
command -v node >/dev/null || skip "node is not installed"
command -v perf >/dev/null || skip "perf is not installed"
command -v jq >/dev/null || skip "jq is not installed"
perf record -q -e cpu-clock -o "$T/probe.data" true >/dev/null 2>&1 || skip "perf record cannot sample here"
cd "$T"
cat > p.yaml <<'Y'
pexecs: 1
iterations: 6
vms:
  node: {plugin: node}
benchmarks:
  nbody: 60000
Y
"$KILN" profile p.yaml --key nbody:node -o prof --json --split 2 >prof.json 2>err || fail "kiln profile: $(cat err)"
j() { jq -r "$1" prof.json; }
for f in flame.html profile.speedscope.json profile.firefox.json; do [ -s prof/$f ] || fail "prof/$f missing"; done
grep -qiE '<(script|link|img)[^>]* (src|href)=' prof/flame.html && fail "the page loads something from outside"
summary() { # URL -> the summary element's attributes
	timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync --user-data-dir="$T/chr" \
		--virtual-time-budget=5000 --dump-dom "$1" 2>/dev/null | grep -o '<div id="kiln-summary"[^>]*>'
}
attr() { sed -nE "s/.* $1=\"([^\"]*)\".*/\\1/p" <<<"$2" | sed 's/&amp;/\&/g; s/&lt;/</g; s/&gt;/>/g; s/&quot;/"/g'; }
s=$(summary "file://$T/prof/flame.html")
[ -n "$s" ] || fail "the page drew nothing"
assert_eq "$(attr data-samples "$s")" "$(j .samples)" "samples drawn, whole pexec"
[ "$(attr data-frames "$s")" -gt 20 ] || fail "too few frames drawn: $s"
assert_eq "$(attr data-top "$s")" "$(j '.top[0].symbol')" "the top list's first symbol"
s=$(summary "file://$T/prof/flame.html#phase=steady")
assert_eq "$(attr data-samples "$s")" "$(j '.phases[1].samples')" "samples drawn, steady state"
s=$(summary "file://$T/prof/flame.html#it=2-3")
assert_eq "$(attr data-samples "$s")" "$(j '[.iterations[1].samples, .iterations[2].samples] | add')" "samples drawn, iterations 2-3"
sym=$(j .hottest_jit.symbol)
s=$(summary "file://$T/prof/flame.html#search=$(jq -rn --arg s "JS:*advance" '$s|@uri')")
[ "$(attr data-matched "$s")" -gt 0 ] || fail "the search marked nothing: $s"
s=$(summary "file://$T/prof/flame.html#zoom=$(jq -rn --arg s "$sym" '$s|@uri')")
assert_eq "$(attr data-zoom "$s")" "$sym" "zoomed on the hottest JIT'd function"

# differences: warmup vs steady of one profile, and two profiles
"$KILN" flame prof --diff -o diff1.html --json >diff1.json || fail "kiln flame --diff"
assert_eq "$(jq -r .samples_a diff1.json)" "$(j '.phases[0].samples')" "warmup samples in the difference"
assert_eq "$(jq -r .samples_b diff1.json)" "$(j '.phases[1].samples')" "steady samples in the difference"
s=$(summary "file://$T/diff1.html")
assert_eq "$(attr data-samples-before "$s")" "$(j '.phases[0].samples')" "the differential page: before"
assert_eq "$(attr data-samples "$s")" "$(j '.phases[1].samples')" "the differential page: after"
"$KILN" profile p.yaml --key nbody:node -n 3 -o prof2 --json >prof2.json 2>err || fail "second profile: $(cat err)"
"$KILN" flame prof --diff prof2 -o diff2.html >diff2.txt || fail "kiln flame --diff A B"
assert_contains "$(cat diff2.txt)" "largest changes first"
s=$(summary "file://$T/diff2.html")
assert_eq "$(attr data-samples "$s")" "$(jq -r .samples prof2.json)" "two profiles: after"
assert_eq "$(attr data-samples-before "$s")" "$(j .samples)" "two profiles: before"

# exports: every sample in speedscope's and the Firefox Profiler's files
assert_eq "$(jq '[.profiles[].samples | length] | add' prof/profile.speedscope.json)" "$(j .samples)" "speedscope samples"
assert_eq "$(jq -r '.["$schema"]' prof/profile.speedscope.json)" "https://www.speedscope.app/file-format-schema.json" "speedscope schema"
assert_eq "$(jq '[.threads[].samples.data | length] | add' prof/profile.firefox.json)" "$(j .samples)" "Firefox Profiler samples"
assert_eq "$(jq '.threads[0].stackTable.data | length' prof/profile.firefox.json)" "$(j '.flame.stacks | length')" "Gecko stack table"
"$KILN" flame prof --phase steady --format folded -o steady.folded || fail "folded"
assert_eq "$(awk '{n += $NF} END {print n}' steady.folded)" "$(j '.phases[1].samples')" "folded stacks: steady samples"
exit 0
