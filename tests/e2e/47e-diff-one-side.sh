# kiln diff of two files where a key is only in one: its row says "only in
# A", and it has no session sd, since no ratio is made of it.  The legend
# listed it all the same, as "session sd of KEY: 1% (--session-sd)", an
# option nobody gave (its comparison was left zeroed: a ratio of 0, finite).
source "$KILN_ROOT/tests/lib.sh"
cd "$T"
"$KILN" bench -q -r 3 true 'sleep 0.001' -o a.kiln.db >/dev/null 2>&1 || fail "bench a"
"$KILN" bench -q -r 3 true -o b.kiln.db >/dev/null 2>&1 || fail "bench b"
out=$("$KILN" diff a.kiln.db b.kiln.db 2>&1) || fail "diff: $out"
assert_contains "$out" "^sleep 0.001:sleep:default-command .*only in A"
assert_contains "$out" "^  session sd of true:true:default-command: "
grep -q "session sd of sleep" <<<"$out" && fail "a session sd of a key only in A: $out"
grep -q "(--session-sd)" <<<"$out" && fail "--session-sd named, not given: $out"
# the same the other way round, and in JSON: no session, no ratio
out=$("$KILN" diff b.kiln.db a.kiln.db 2>&1) || fail "diff b a: $out"
grep -q "session sd of sleep" <<<"$out" && fail "a session sd of a key only in B: $out"
"$KILN" diff a.kiln.db b.kiln.db --json >d.json || fail "diff --json"
python3 - <<'P' || fail "JSON of a key only in A: $(cat d.json)"
import json
k = {k["key"]: k for k in json.load(open("d.json"))["keys"]}
s = k["sleep 0.001:sleep:default-command"]
assert s["ratio"] is None and "session" not in s, s
assert k["true:true:default-command"]["session"]["source"] != "option"
P
echo ok
