# One key is one program: a key's `cwd` (ReBench's `location`) and the
# files its argv names relative to it (an input file, a harness) are part of
# its program, as an absolute path's file is: editing the input between two
# sessions, or pointing cwd at another folder, is a changed program.
source "$KILN_ROOT/tests/lib.sh"
cd "$T"
mkdir a b
echo one > a/data.txt
echo two > b/data.txt
cat > exp.yaml <<'Y'
pexecs: 3
vms:
  c: {plugin: command, path: /bin/cat, args: [data.txt], cwd: a}
benchmarks: [x]
Y
"$KILN" run -q --max-pexecs 1 exp.yaml 2>err || fail "first session: $(cat err)"
assert_contains "$(sql exp.kiln.db 'SELECT description FROM programs')" "cwd	$T/a" "cwd recorded"
# the same input again: the same program
"$KILN" run -q --max-pexecs 1 exp.yaml 2>err || fail "unchanged input refused: $(cat err)"
echo changed > a/data.txt
out=$("$KILN" run -q --max-pexecs 1 exp.yaml 2>&1); rc=$?
assert_eq "$rc" 3 "an edited input file (relative to cwd) is a changed program: $out"
assert_contains "$out" "file data.txt: sha256:" "what changed is said"
echo one > a/data.txt
sed -i 's/cwd: a/cwd: b/' exp.yaml
out=$("$KILN" run -q --force --max-pexecs 1 exp.yaml 2>&1) || fail "--force: $out"
assert_eq "$(sql exp.kiln.db 'SELECT COUNT(*) FROM programs')" 2 "another cwd is another program"
assert_contains "$(sql exp.kiln.db 'SELECT description FROM programs WHERE seq=2')" "cwd	$T/b" "the new cwd"
echo ok
