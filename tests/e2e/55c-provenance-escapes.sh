# One key is one program: a value with a tab and one with the two
# characters \t are two programs (the description writes a tab \t, so a
# value's own backslash is written \\).
source "$KILN_ROOT/tests/lib.sh"
cd "$T"
printf 'pexecs: 3\nvms:\n  c: {plugin: command, path: /bin/true, env: {A: "x\\ty"}}\nbenchmarks: [x]\n' > exp.yaml
"$KILN" run -q --max-pexecs 1 exp.yaml 2>err || fail "first session: $(cat err)"
sed -i "s/\"x\\\\ty\"/'x\\\\ty'/" exp.yaml
grep -q "A: 'x\\\\ty'" exp.yaml || fail "the test's edit: $(cat exp.yaml)"
"$KILN" run -q --force --max-pexecs 1 exp.yaml 2>err || fail "--force: $(cat err)"
assert_eq "$(sql exp.kiln.db 'SELECT COUNT(*) FROM programs')" 2 "a tab and \\t are two programs"
assert_eq "$(sql exp.kiln.db "SELECT description FROM programs WHERE seq=2" | grep '^env A')" 'env A	x\\ty' "a backslash written \\\\"
echo ok
