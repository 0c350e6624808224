# Shell completion made from the command table: every command of kiln
# --help completes, and a command's options (from its usage and help) do;
# the installed script is checked by test 90.
source "$KILN_ROOT/tests/lib.sh"
cd "$T"
"$KILN" --completion bash > kiln.bash || fail "--completion bash"
comp() { # WORDS...: what the completion offers for the last word
	bash -c 'source ./kiln.bash; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _kiln; echo "${COMPREPLY[*]}"' _ "$@"
}
for c in $("$KILN" --help | sed -n 's/^  \([a-z]*\) .*/\1/p'); do
	grep -qw "$c" <<<"$(comp kiln "${c:0:1}")" || fail "command $c does not complete"
done
assert_eq "$(comp kiln rep)" "report" "kiln rep"
assert_eq "$(comp kiln run --dr)" "--dry-run" "kiln run --dr"
assert_eq "$(comp kiln status --)" "--help --json --failures" "kiln status --"
assert_contains "$(comp kiln report --co)" "--compact"
touch results.kiln.db
assert_eq "$(comp kiln status res)" "results.kiln.db" "a file argument"
"$KILN" --completion fish >/dev/null 2>err.txt; assert_eq $? 2 "an unknown shell"
if command -v zsh >/dev/null; then
	"$KILN" --completion zsh > _kiln || fail "--completion zsh"
	zsh -c 'source ./_kiln && whence -w _kiln' | grep -q function || fail "zsh: no _kiln function"
fi
echo ok
