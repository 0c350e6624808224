# What a history could have shown (kiln track --changes, kiln publish):
# the smallest steady step the detection finds in 80% of steps injected
# into the key's own series (src/history-power.c).  20 commits of the toy
# VM of lib-history.sh, each its own binary and all of one speed: made-up
# times of 1% noise could show a step of 2% or less; with every pexec's
# steady mean then spread by up to +-20% (as a busy host would), only a
# step of 10% or more; on the 8 commits of a short history, too few to say.
# The toy warms up (5 iterations at 3x), so each key also names the
# smallest stretch of its warm-up it could have shown; a flat toy says why
# it names none.
source "$KILN_ROOT/tests/lib.sh"
source "$KILN_ROOT/tests/lib-history.sh"
history_test_tools
d=$T/repo
history_line "$d" 20
make_history_config exp/toy.yaml
H=$T/h.db
out=$("$KILN" track exp/toy.yaml --repo repo -o "$H" -q ..main 2>&1) || fail "track: $out"

out=$("$KILN" track --changes "$H") || fail "--changes: $out"
assert_contains "$out" "could see: steady steps of [12]% or more ([0-9]* of 11 injected into this series found"
json=$("$KILN" track --changes "$H" --json) || fail "--changes --json: $json"
python3 -c "
import json, sys
d = json.loads(sys.argv[1])[0]
c = d['could_see']
assert d['changes'] == [], d
assert c['injected'] == 11 and c['found'] >= 9 and c['step'] <= 0.02, c
w = d['could_see_warmup']
assert w['why'] is None and w['injected'] == 11 and w['found'] >= 9 and w['stretch'] <= 2, w
assert w['pexecs'] == 100 and w['warm_pexecs'] == 100, w
" "$json" || fail "could_see: $json"
assert_contains "$out" "could see: warm-ups [0-9.]*x as long or longer ([0-9]* of 11 stretched in this series found, within 2 commits)"

# bisect --auto with no change to bisect says what the series could have shown
out=$("$KILN" bisect exp/toy.yaml --repo repo -o "$H" --auto --key b -q 2>&1); assert_eq $? 2 "nothing to bisect: $out"
assert_contains "$out" "no steady-state, warm-up or cost change of b:toy:default-toy on this machine to bisect .*; its series could show steady steps of [12]% or more .*; and warm-ups [0-9.]*x as long or longer"
out=$("$KILN" bisect exp/toy.yaml --repo repo -o "$H" --auto --key b --series warmup -q 2>&1); assert_eq $? 2 "no warm-up change: $out"
assert_contains "$out" "no warmup change of b:toy:default-toy on this machine to bisect .*; its series could show warm-ups [0-9.]*x as long or longer"

# the morning after: a new commit tracked, no change around it, and what the series could have shown
echo "a note" > "$d/README"
git -C "$d" add -A && git -C "$d" commit -q -m "c20: README"
out=$("$KILN" track exp/toy.yaml --repo repo -o "$H" --new 2>&1) || fail "track --new: $out"
assert_contains "$out" "0 changes around the commits measured now"
assert_contains "$out" "could see: steady steps of [12]% on the keenest key, [12]% on the least, median [12]%.*; warm-ups [0-9.]*x to [0-9.]*x as long, median [0-9.]*x$"

# a busy host: each pexec's steady mean off by up to +-20%, fixed per pexec
sqlite3 "$H" "UPDATE figures SET steady_mean = steady_mean * (1 + ((pexec_id * 37) % 41 - 20) / 100.0)"
json=$("$KILN" track --changes "$H" --json) || fail "--changes --json: $json"
python3 -c "
import json, sys
c = json.loads(sys.argv[1])[0]['could_see']
assert c['injected'] >= 5 and (c['step'] is None or c['step'] >= 0.1), c
" "$json" || fail "could_see on a busy host: $json"
"$KILN" publish "$H" -o site --reports none -q >/dev/null || fail "publish"
grep -q '<p class="could-see">Could see: steady steps of [0-9]*% or more' site/k/*.html || fail "the key page: $(grep -h could-see site/k/*.html)"
grep -q '<p class="could-see-warmup">Could see in the warm-up: warm-ups [0-9.]*x as long or longer' site/k/*.html ||
	fail "the key page's warm-up: $(grep -h could-see site/k/*.html)"

# too short a history to say
make_history_repo "$T/short"
make_history_config "$T/s/toy.yaml"
"$KILN" track s/toy.yaml --repo short -o "$T/s.db" -q ..main >/dev/null 2>&1 || fail "short track"
out=$("$KILN" track --changes "$T/s.db") || fail "$out"
assert_contains "$out" "could see: too few commits to say"
json=$("$KILN" track --changes "$T/s.db" --json)
python3 -c "import json, sys; assert json.loads(sys.argv[1])[0]['could_see'] is None" "$json" || fail "$json"

# a flat toy VM (no warm-up): no stretch named, and why; the steady step still named
f=$T/flat
history_repo_init "$f"
for i in $(seq 0 7); do
	history_vm_source 2000 0 "static volatile int rebuilt = $i;" > "$f/vm.c"
	git -C "$f" add -A && git -C "$f" commit -q -m "f$i: rebuilt"
done
make_history_config "$T/f/toy.yaml"
"$KILN" track f/toy.yaml --repo flat -o "$T/f.db" -q ..main >/dev/null 2>&1 || fail "flat track"
out=$("$KILN" track --changes "$T/f.db") || fail "$out"
assert_contains "$out" "could see: no warm-up stretch: its pexecs are flat, no warm-up to stretch"
json=$("$KILN" track --changes "$T/f.db" --json)
python3 -c "
import json, sys
w = json.loads(sys.argv[1])[0]['could_see_warmup']
assert w['why'] == 'flat' and w['stretch'] is None and w['injected'] == 0 and w['warm_pexecs'] == 0 and w['pexecs'] == 40, w
" "$json" || fail "could_see_warmup of a flat VM: $json"
"$KILN" publish "$T/f.db" -o fsite --reports none -q >/dev/null || fail "publish flat"
grep -q '<p class="could-see-warmup">Could see in the warm-up: no warm-up stretch: its pexecs are flat' fsite/k/*.html ||
	fail "the flat key page: $(grep -h could-see fsite/k/*.html)"
true
