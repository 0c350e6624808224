# kiln track --changes names, for a change whose commits the history did
# not all measure (--steps), the kiln bisect that finds the one: GOOD the
# last tracked commit before its range, BAD the last of it, the key as a
# shell word.  Here 14 commits of the toy VM (lib-history.sh), c7 10%
# slower, tracked at 7 of them: the command printed, run as printed (CONFIG
# and DIR filled in), names c7.  A key with a quote in its name is quoted.
source "$KILN_ROOT/tests/lib.sh"
source "$KILN_ROOT/tests/lib-history.sh"
history_test_tools
d=$T/repo
history_line "$d" 14 7
C6=$HIST_L6 C7=$HIST_L7
make_history_config exp/toy.yaml
H=$T/h.db
out=$("$KILN" track exp/toy.yaml --repo repo -o "$H" -q --steps 7 ..main 2>&1) || fail "track: $out"
out=$("$KILN" track --changes "$H") || fail "--changes: $out"
assert_contains "$out" "steady ${C7:0:12} c7: rebuilt"
line=$(grep "find the commit" <<<"$out") || fail "no bisect hint: $out"
assert_contains "$line" "find the commit ([0-9]* after [0-9a-f]*): kiln bisect CONFIG --repo DIR [0-9a-f]\{12\} ${C7:0:12} --key b:toy:default-toy$"
json=$("$KILN" track --changes "$H" --json) || fail "--changes --json: $json"
python3 -c "
import json, sys
c = json.loads(sys.argv[1])[0]['changes'][0]
assert c['series'] == 'steady' and c['bisect'][1] == '$C7' and c['bisect'][0] != '$C6', c
" "$json" || fail "bisect in JSON: $json"
# kiln publish's key page shows the same command (HTML-escaped, no script needed)
"$KILN" publish "$H" -o site -q >/dev/null 2>&1 || fail "publish"
page=$(grep -l "Change points" site/k/*.html | head -1)
grep -q "<code>${line#*: }</code>" "$page" || fail "no bisect hint on $page: $(grep -o 'class="details".*' "$page")"
[ "$(grep -c '</table>' "$page")" = "$(grep -c '<table' "$page")" ] || fail "$page closes more tables than it opens"
# run it as printed
cmd=${line#*: kiln bisect }
cmd=${cmd/CONFIG/exp\/toy.yaml}
cmd=${cmd/DIR/repo}
# shellcheck disable=SC2086 # the printed words (hashes, a plain key) split as a shell would
out=$("$KILN" bisect $cmd -o "$H" -q --json) || fail "the printed bisect: $out"
python3 -c "
import json, sys
d = json.loads(sys.argv[1])
assert d['outcome'] == 'found' and d['culprit'] == '$C7', d
" "$out" || fail "the printed bisect: $out"

# a key whose name holds a quote: printed as one single-quoted shell word
sed -e "s/^  b: 1$/  \"it's\": 1/" exp/toy.yaml > exp/q.yaml
mkdir -p "exp/benchmarks/it's/toy" && cp exp/benchmarks/b/toy/README "exp/benchmarks/it's/toy/"
out=$("$KILN" track exp/q.yaml --repo repo -o "$T/q.db" -q --steps 7 ..main 2>&1) || fail "track q: $out"
out=$("$KILN" track --changes "$T/q.db") || fail "--changes q: $out"
assert_contains "$out" "--key 'it'\\\\''s:toy:default-toy'$"
"$KILN" publish "$T/q.db" -o qsite -q >/dev/null 2>&1 || fail "publish q"
grep -q "\-\-key &#39;it&#39;\\\\&#39;&#39;s:toy:default-toy&#39;</code>" qsite/k/*.html || fail "quoted key on the page: $(grep -ho '<code>[^<]*</code>' qsite/k/*.html)"

