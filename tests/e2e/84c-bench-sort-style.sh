# kiln bench's --sort (hyperfine's orders of the comparison and of the
# markup tables) and --style (colour, progress, nothing at all), colour
# looked at on a real pseudo-terminal (script(1)) and without one.
source "$KILN_ROOT/tests/lib.sh"
cd "$T"
cmds=('sleep 0.2' true 'sleep 0.1')   # given slowest first; by mean: true, sleep 0.1, sleep 0.2
b() { "$KILN" bench -q --runs 2 "$@"; }
rows() { sed -n 's/^| `\([^`]*\)`.*/\1/p' "$1" | tr '\n' ,; }

# ---- --sort: auto (default), mean-time, command ----
out=$(b "${cmds[@]}" --export-markdown auto.md -o s.kiln.db) || fail "auto: $out"
assert_eq "$(grep -A3 '^Summary' <<<"$out" | sed -n "s/.*'\(.*\)'.*/\1/p" | tr '\n' ,)" "true,sleep 0.1,sleep 0.2," \
	"auto: the fastest, then the others by mean"
assert_eq "$(rows auto.md)" "sleep 0.2,true,sleep 0.1," "auto: the table in command order"
out=$(b "${cmds[@]}" --sort mean-time --export-markdown mean.md --export-orgmode mean.org -o s.kiln.db) || fail "mean-time"
assert_contains "$out" "^Summary"
assert_eq "$(rows mean.md)" "true,sleep 0.1,sleep 0.2," "mean-time: the table by mean"
assert_eq "$(sed -n 's/^| =\([^=]*\)=.*/\1/p' mean.org | tr '\n' ,)" "true,sleep 0.1,sleep 0.2," "mean-time: the Org table"
out=$(b "${cmds[@]}" --sort command --export-markdown cmd.md -o s.kiln.db) || fail "command"
rel=$(grep -A3 '^Relative speed comparison' <<<"$out")
assert_eq "$(sed -n '2,4s/.*  \(sleep 0.[12]\|true\)\( (\*)\)\{0,1\}$/\1/p' <<<"$rel" | tr '\n' ,)" "sleep 0.2,true,sleep 0.1," \
	"command: every command in its order"
assert_contains "$(sed -n 3p <<<"$rel")" "^  1.00 .*true$"
assert_eq "$(rows cmd.md)" "sleep 0.2,true,sleep 0.1," "command: the table in command order"
out=$(b true --sort fastest 2>&1); assert_eq $? 2 "an unknown order"

# ---- --style: colour only on a terminal and never with NO_COLOR; progress; none ----
tty() { script -qec "$*" /dev/null; }   # on a pseudo-terminal, stdout and stderr both
esc=$(printf '\033\\[')
run1="$KILN bench --runs 2 true 'sleep 0' -o t.kiln.db"
out=$(tty "$run1") || fail "on a terminal: $out"
assert_contains "$out" "${esc}1;32m" "auto: the mean in colour on a terminal"
assert_contains "$out" "ETA" "auto: progress on a terminal"
out=$(tty "$run1 --style basic")
grep -q "${esc}[0-9;]*m" <<<"$out" && fail "basic: colour"
grep -q "ETA" <<<"$out" && fail "basic: progress"
out=$(tty "$run1 --style nocolor")
grep -q "${esc}[0-9;]*m" <<<"$out" && fail "nocolor: colour"
assert_contains "$out" "ETA" "nocolor: progress"
out=$(tty "$run1 --style color")
assert_contains "$out" "${esc}1;32m" "color: colour"
grep -q "ETA" <<<"$out" && fail "color: progress"
out=$(NO_COLOR=1 tty "$run1 --style full")
grep -q "${esc}[0-9;]*m" <<<"$out" && fail "full with NO_COLOR: colour"
out=$("$KILN" bench --runs 2 true --style full -o t.kiln.db 2>&1)
grep -q "${esc}[0-9;]*m" <<<"$out" && fail "full without a terminal: colour"
out=$(b true 'sleep 0' --style none --export-json none.json -o t.kiln.db 2>&1) || fail "none"
assert_eq "$out" "" "none: no output"
[ -s none.json ] || fail "none: the export still written"
out=$(b false --style none -o t.kiln.db 2>&1); assert_eq $? 1 "none: a failure"
assert_contains "$out" "some runs failed"
out=$(b true --style fancy 2>&1); assert_eq $? 2 "an unknown style"
echo ok
